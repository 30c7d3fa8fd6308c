// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The sweep: entries whose deadline passed deleted through del (expiry_run(), expiry.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lists/build.h"
#include "lists/expiry.h"
#include "lists/expiry_int.h"
#include "lists/lists.h"

/* The timeouts without the entries that expired: one line per entry left, rewritten whole. */
static int timeouts_prune(const struct state_dir *sd, const char *name, time_t now)
{
	char *text = NULL;
	struct timeouts t;
	size_t len = 0, i;
	FILE *out;
	int ret;

	/* Read again: an add may have come since, with a later deadline. */
	ret = timeouts_read(sd, name, &t);
	if (ret)
		return ret;
	out = open_memstream(&text, &len);
	if (!out) {
		timeouts_free(&t);
		return -ENOMEM;
	}
	for (i = 0; i < t.n; i++)
		if (!t.d[i].at || t.d[i].at > (__u64)now)
			fprintf(out, "%llu %s\n", (unsigned long long)t.d[i].at, t.d[i].entry);
	ret = fclose(out) ? -ENOMEM : state_write(sd, name, text ? text : "", len);
	free(text);
	timeouts_free(&t);
	return ret;
}

static int list_run(const char *ifname, const char *state_dir, const char *list, time_t now,
		    bool state_only, __u64 *expired, __u64 *next)
{
	struct list_opts o = {
		.format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
		.state_dir = state_dir, .lenient = true, .state_only = state_only,
		.list = list,
	};
	char name[STATE_NAME_MAX], **due = NULL;
	struct state_dir sd;
	struct timeouts t = {};
	size_t i;
	int n = 0, ret;

	ret = timeouts_open(ifname, state_dir, list, &sd, name);
	if (ret)
		return ret;
	ret = timeouts_read(&sd, name, &t);
	if (!ret)
		due = calloc(t.n + 1, sizeof(*due));
	if (!ret && !due)
		ret = -ENOMEM;
	for (i = 0; !ret && i < t.n; i++) {
		if (t.d[i].at && t.d[i].at <= (__u64)now)
			due[n++] = (char *)t.d[i].entry;
		else if (t.d[i].at && (!*next || t.d[i].at < *next))
			*next = t.d[i].at;
	}
	if (ret || !n)
		goto out;
	ret = list_del(ifname, &o, due, n);
	if (!ret)
		ret = timeouts_prune(&sd, name, now);
	if (!ret)
		*expired += n;
out:
	free(due);
	timeouts_free(&t);
	state_close(&sd);
	return ret;
}

int expiry_run(const char *ifname, const char *state_dir, time_t now, bool state_only,
	       __u64 *expired, __u64 *next)
{
	list_name_t names[BLOOMXDP_MAX_LISTS + 1];
	const char *lists[BLOOMXDP_MAX_LISTS + 2];
	int i, n, ret = -ENOENT, r;

	*expired = *next = 0;
	timeout_lists(ifname, state_dir, names, lists, &n);
	for (i = 0; i < n; i++) {
		r = list_run(ifname, state_dir, lists[i], now, state_only, expired, next);
		if (!r || (r != -ENOENT && (ret == -ENOENT || !ret)))
			ret = r;
	}
	return ret;
}
