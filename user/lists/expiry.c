// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Entries that expire (expiry.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lists/expiry.h"
#include "lists/expiry_int.h"
#include "lists/named.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/log.h"
#include "kernel/state_dir.h"

/* Deadlines of many entries: up to a few million lines. */
#define EXPIRY_TEXT_MAX (256 << 20)

int timeouts_name(const struct state_dir *sd, const char *list, char name[STATE_NAME_MAX])
{
	const struct list_opts o = { .list = list };
	char buf[STATE_NAME_MAX];
	const char *which = list_opts_which(&o, buf);
	struct state_list l;
	int ret;

	if (sd->fd < 0)
		return -ENOENT;
	ret = state_list_read(sd, which, &l);
	if (ret)
		return ret;
	ret = snprintf(name, STATE_NAME_MAX, "%s-%llu.timeouts", which, l.serial) >=
	      STATE_NAME_MAX ? -ENAMETOOLONG : 0;
	state_list_free(&l);
	return ret;
}

int expiry_record(const struct state_dir *sd, const char *list, char **entries, int n,
		  __u64 deadline)
{
	char name[STATE_NAME_MAX], *text = NULL;
	size_t len = 0;
	off_t before;
	FILE *out;
	int i, ret;

	ret = timeouts_name(sd, list, name);
	if (ret)
		return ret;
	if (!deadline && faccessat(sd->fd, name, F_OK, AT_SYMLINK_NOFOLLOW))
		return 0;	/* no entry has a deadline: none to lift */
	out = open_memstream(&text, &len);
	if (!out)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		fprintf(out, "%llu %s\n", (unsigned long long)deadline, entries[i]);
	ret = fclose(out) ? -ENOMEM : state_append(sd, name, text, &before);
	free(text);
	return ret;
}

static int deadline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct deadline *)a)->entry, ((const struct deadline *)b)->entry);
}

int timeouts_read(const struct state_dir *sd, const char *name, struct timeouts *t)
{
	char *line, *save, *sp;
	size_t len, cap = 0, i, n;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = state_read(sd, name, EXPIRY_TEXT_MAX, &t->text, &len);
	if (ret)
		return ret;
	for (line = strtok_r(t->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		if (!sp || !sp[1])
			continue;	/* a partial line: its add failed */
		*sp = '\0';
		if (t->n == cap) {
			struct deadline *grown;

			cap = cap ? cap * 2 : 256;
			grown = realloc(t->d, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			t->d = grown;
		}
		t->d[t->n].at = strtoull(line, NULL, 10);
		t->d[t->n++].entry = sp + 1;
	}
	if (!t->n)
		return 0;
	qsort(t->d, t->n, sizeof(*t->d), deadline_cmp);
	for (i = 1, n = 1; i < t->n; i++) {
		struct deadline *last = &t->d[n - 1];

		if (!strcmp(last->entry, t->d[i].entry)) {
			if (!last->at || !t->d[i].at)
				last->at = 0;
			else if (t->d[i].at > last->at)
				last->at = t->d[i].at;
			continue;
		}
		t->d[n++] = t->d[i];
	}
	t->n = n;
	return 0;
}

void timeouts_free(struct timeouts *t)
{
	free(t->text);
	free(t->d);
	memset(t, 0, sizeof(*t));
}

void timeout_lists(const struct state_dir *sd, list_name_t names[BLOOMXDP_MAX_LISTS + 1],
		   const char *lists[], int *n)
{
	int i, named = 0;

	if (named_lists_recorded(sd, names, &named))
		named = 0;
	lists[0] = NULL;
	for (i = 0; i < named; i++)
		lists[i + 1] = names[i];
	*n = named + 1;
}

static int list_stat(const struct state_dir *sd, const char *list, __u64 *stamp)
{
	char name[STATE_NAME_MAX];
	struct stat st;
	int ret;

	ret = timeouts_name(sd, list, name);
	if (ret)
		return ret;
	ret = fstatat(sd->fd, name, &st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	if (!ret)
		*stamp = (__u64)st.st_size * 0x9e3779b97f4a7c15ULL ^ (__u64)st.st_ino << 20 ^
			 ((__u64)st.st_mtim.tv_sec * 1000000000ULL + st.st_mtim.tv_nsec);
	return ret;
}

int expiry_stat(const char *ifname, const char *state_dir, __u64 *stamp)
{
	list_name_t names[BLOOMXDP_MAX_LISTS + 1];
	const char *lists[BLOOMXDP_MAX_LISTS + 2];
	int i, n, ret = -ENOENT;
	struct state_dir sd;
	__u64 one;

	*stamp = 0;
	if (state_open(state_root(state_dir), ifname, false, &sd))
		return -ENOENT;
	timeout_lists(&sd, names, lists, &n);
	for (i = 0; i < n; i++) {
		if (list_stat(&sd, lists[i], &one))
			continue;
		*stamp = (*stamp ^ one) * 0x9e3779b97f4a7c15ULL + i;
		ret = 0;
	}
	state_close(&sd);
	return ret;
}

static int list_summary(const struct state_dir *sd, const char *list, __u64 *entries,
			__u64 *next)
{
	char name[STATE_NAME_MAX];
	struct timeouts t;
	size_t i;
	int ret;

	ret = timeouts_name(sd, list, name);
	if (ret)
		return ret;
	ret = timeouts_read(sd, name, &t);
	for (i = 0; !ret && i < t.n; i++) {
		if (!t.d[i].at)
			continue;
		(*entries)++;
		if (!*next || t.d[i].at < *next)
			*next = t.d[i].at;
	}
	timeouts_free(&t);
	return ret;
}

int expiry_summary(const char *ifname, const char *state_dir, __u64 *entries, __u64 *next)
{
	list_name_t names[BLOOMXDP_MAX_LISTS + 1];
	const char *lists[BLOOMXDP_MAX_LISTS + 2];
	int i, n, ret = -ENOENT;
	struct state_dir sd;

	*entries = *next = 0;
	if (state_open(state_root(state_dir), ifname, false, &sd))
		return -ENOENT;
	timeout_lists(&sd, names, lists, &n);
	for (i = 0; i < n; i++)
		if (!list_summary(&sd, lists[i], entries, next))
			ret = 0;
	state_close(&sd);
	return ret;
}

void expiry_carried_free(struct expiry_carried *c)
{
	int i;

	for (i = 0; i < c->nfiles; i++) {
		if (c->path[i][0])
			unlink(c->path[i]);
	}
	free(c->text);
	memset(c, 0, sizeof(*c));
}

/* The carried lines into a private temporary file: its path in c. */
static int carry_file(struct expiry_carried *c, const char *text, size_t len)
{
	char *path = c->path[c->nfiles];
	int fd;

	snprintf(path, sizeof(c->path[0]), "/tmp/bloomxdp-carried-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		path[0] = '\0';
		return -errno;
	}
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		unlink(path);
		path[0] = '\0';
		return -EIO;
	}
	close(fd);
	c->format[c->nfiles++] = FORMAT_AUTO;
	return 0;
}

int expiry_carry(const struct state_dir *sd, time_t now, struct expiry_carried *c)
{
	char name[STATE_NAME_MAX], *lines = NULL;
	struct timeouts t = {};
	size_t llen = 0, i;
	FILE *kept = NULL, *out = NULL;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = timeouts_name(sd, NULL, name);
	if (ret)
		return ret;
	/* del takes an entry off the timeouts: what is there with a deadline to come is listed. */
	ret = timeouts_read(sd, name, &t);
	if (!ret) {
		kept = open_memstream(&c->text, &c->len);
		out = open_memstream(&lines, &llen);
		if (!kept || !out)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < t.n; i++) {
		if (!t.d[i].at || t.d[i].at <= (__u64)now)
			continue;
		fprintf(out, "%s\n", t.d[i].entry);
		fprintf(kept, "%llu %s\n", (unsigned long long)t.d[i].at, t.d[i].entry);
		c->entries++;
	}
	if (out && fclose(out) && !ret)
		ret = -ENOMEM;
	if (kept && fclose(kept) && !ret)
		ret = -ENOMEM;
	if (!ret && llen)
		ret = carry_file(c, lines, llen);
	free(lines);
	if (ret)
		expiry_carried_free(c);
	timeouts_free(&t);
	return ret;
}

static int text_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int expiry_forget(const struct state_dir *sd, const char *list, char **entries, int n)
{
	char name[STATE_NAME_MAX], *text = NULL, **sorted = NULL;
	struct timeouts t = {};
	size_t len = 0, i;
	FILE *out;
	int ret;

	ret = timeouts_name(sd, list, name);
	if (ret)
		return ret;
	ret = timeouts_read(sd, name, &t);
	if (!ret)
		sorted = malloc((n + 1) * sizeof(*sorted));
	if (!ret && !sorted)
		ret = -ENOMEM;
	if (ret)
		goto out;
	memcpy(sorted, entries, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), text_cmp);
	out = open_memstream(&text, &len);
	if (!out) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t.n; i++) {
		const char *e = t.d[i].entry;

		if (!bsearch(&e, sorted, n, sizeof(*sorted), text_cmp))
			fprintf(out, "%llu %s\n", (unsigned long long)t.d[i].at, e);
	}
	ret = fclose(out) ? -ENOMEM : state_write(sd, name, text ? text : "", len);
out:
	free(text);
	free(sorted);
	timeouts_free(&t);
	return ret;
}

int expiry_recarry(const struct state_dir *sd, const struct expiry_carried *c)
{
	char name[STATE_NAME_MAX];
	off_t before;
	int ret;

	if (!c->len)
		return 0;
	ret = timeouts_name(sd, NULL, name);
	return ret ? ret : state_append(sd, name, c->text, &before);
}
