// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The sweep: entries whose deadline passed deleted through del (expiry_run(), expiry.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lists/build.h"
#include "lists/expiry.h"
#include "lists/expiry_int.h"
#include "lists/lists.h"
#include "lists/report.h"

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

/* The expiry of one list: its entries due deleted (as del --lenient), then off its timeouts. */
struct expiry_run {
	const char *ifname;
	const char *state_dir;
	const struct state_dir *sd;
	time_t now;
	bool state_only;
	__u64 expired, next;
	expiry_done_fn done;
	void *ctx;
};

static int list_run(struct expiry_run *x, const char *list)
{
	struct list_opts o = {
		.format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
		.state_dir = x->state_dir, .lenient = true, .state_only = x->state_only,
		.list = list,
	};
	char name[STATE_NAME_MAX], **due = NULL;
	struct timeouts t = {};
	struct del_result r;
	size_t i;
	int n = 0, ret;

	ret = timeouts_name(x->sd, list, name);
	if (ret)
		return ret;
	ret = timeouts_read(x->sd, name, &t);
	if (!ret)
		due = calloc(t.n + 1, sizeof(*due));
	if (!ret && !due)
		ret = -ENOMEM;
	for (i = 0; !ret && i < t.n; i++) {
		if (t.d[i].at && t.d[i].at <= (__u64)x->now)
			due[n++] = (char *)t.d[i].entry;
		else if (t.d[i].at && (!x->next || t.d[i].at < x->next))
			x->next = t.d[i].at;
	}
	if (ret || !n)
		goto out;
	ret = list_del(x->ifname, &o, due, n, &r);
	if (x->done)
		x->done(&r, x->ctx);
	if (!ret)
		ret = timeouts_prune(x->sd, name, x->now);
	if (!ret)
		x->expired += n;
out:
	free(due);
	timeouts_free(&t);
	return ret;
}

int expiry_run(const char *ifname, const char *state_dir, time_t now, bool state_only,
	       __u64 *expired, __u64 *next, expiry_done_fn done, void *ctx)
{
	list_name_t names[BLOOMXDP_MAX_LISTS + 1];
	const char *lists[BLOOMXDP_MAX_LISTS + 2];
	struct state_dir sd;
	struct expiry_run x = { .ifname = ifname, .state_dir = state_dir, .sd = &sd, .now = now,
				.state_only = state_only, .done = done, .ctx = ctx };
	int i, n, ret, r;

	*expired = *next = 0;
	ret = state_open(state_root(state_dir), ifname, false, &sd);
	if (ret)
		return ret;
	ret = -ENOENT;
	timeout_lists(&sd, names, lists, &n);
	for (i = 0; i < n; i++) {
		r = list_run(&x, lists[i]);
		if (!r || (r != -ENOENT && (ret == -ENOENT || !ret)))
			ret = r;
	}
	state_close(&sd);
	*expired = x.expired;
	*next = x.next;
	return ret;
}

