// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The most-hit listed entries over recent drop events: Space-Saving in two windows (top.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/top.h"
#include "util/json.h"

static void window_reset(struct top_window *w, __u64 now)
{
	w->n = 0;
	w->events = 0;
	w->start = now;
}

void top_init(struct top_table *t, __u64 now)
{
	window_reset(&t->cur, now);
	window_reset(&t->prev, now);
}

/* The current window moves to the previous one once it is TOP_WINDOW_SEC old (both, after 2). */
static void top_rotate(struct top_table *t, __u64 now)
{
	if (now < t->cur.start + TOP_WINDOW_SEC)
		return;
	if (now >= t->cur.start + 2 * TOP_WINDOW_SEC) {
		top_init(t, now);
		return;
	}
	t->prev = t->cur;
	window_reset(&t->cur, t->prev.start + TOP_WINDOW_SEC);
}

static struct top_item *window_find(struct top_window *w, const char *entry, const char *list)
{
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->items[i].entry, entry) && !strcmp(w->items[i].list, list))
			return &w->items[i];
	return NULL;
}

static void item_set(struct top_item *it, const char *entry, const char *list)
{
	snprintf(it->entry, sizeof(it->entry), "%s", entry);
	snprintf(it->list, sizeof(it->list), "%s", list);
}

void top_add(struct top_table *t, const char *entry, const char *list, __u64 now)
{
	struct top_window *w = &t->cur;
	struct top_item *it;
	unsigned int i, min;

	top_rotate(t, now);
	w->events++;
	it = window_find(w, entry, list);
	if (it) {
		it->count++;
		return;
	}
	if (w->n < TOP_CAPACITY) {
		it = &w->items[w->n++];
		item_set(it, entry, list);
		it->count = 1;
		it->error = 0;
		return;
	}
	/* Full: the entry takes the least counted one's place, and its count as its error. */
	for (min = 0, i = 1; i < w->n; i++)
		if (w->items[i].count < w->items[min].count)
			min = i;
	it = &w->items[min];
	item_set(it, entry, list);
	it->error = it->count;
	it->count++;
}

static int by_count(const void *a, const void *b)
{
	const struct top_item *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->entry, y->entry);
}

/* The items of the previous window added into the merge: counts and errors add up. */
static unsigned int merge_window(struct top_item *all, unsigned int n, const struct top_window *w)
{
	unsigned int i, j;

	for (i = 0; i < w->n; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(all[j].entry, w->items[i].entry) &&
			    !strcmp(all[j].list, w->items[i].list))
				break;
		if (j == n)
			all[n++] = w->items[i];
		else {
			all[j].count += w->items[i].count;
			all[j].error += w->items[i].error;
		}
	}
	return n;
}

int top_report(struct top_table *t, unsigned int n, __u64 now, struct top_report *r)
{
	struct top_item *all;
	unsigned int m;

	if (n < 1 || n > TOP_MAX)
		return -EINVAL;
	all = calloc(2 * TOP_CAPACITY, sizeof(*all));
	if (!all)
		return -ENOMEM;
	top_rotate(t, now);
	m = merge_window(all, 0, &t->cur);
	/* The previous window only while it is younger than two windows. */
	if (t->prev.start != t->cur.start)
		m = merge_window(all, m, &t->prev);
	qsort(all, m, sizeof(*all), by_count);
	r->n = m < n ? m : n;
	memcpy(r->items, all, r->n * sizeof(*all));
	r->events = t->cur.events + (t->prev.start != t->cur.start ? t->prev.events : 0);
	r->seconds = now - (t->prev.start != t->cur.start ? t->prev.start : t->cur.start);
	r->capacity = TOP_CAPACITY;
	free(all);
	return 0;
}

void top_write_json(const struct top_report *r, struct json *j)
{
	unsigned int i;

	json_object_start(j);
	json_kv_u64(j, "events", r->events);
	json_kv_u64(j, "seconds", r->seconds);
	json_kv_u64(j, "events_per_sec", r->events_per_sec);
	json_kv_u64(j, "capacity", r->capacity);
	json_kv_bool(j, "sampled", true);
	json_key(j, "entries");
	json_array_start(j);
	for (i = 0; i < r->n; i++) {
		json_object_start(j);
		json_kv_string(j, "entry", r->items[i].entry);
		json_kv_string(j, "list", r->items[i].list);
		json_kv_u64(j, "count", r->items[i].count);
		json_kv_u64(j, "error", r->items[i].error);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void top_write_text(const struct top_report *r, const char *ifname, FILE *out)
{
	unsigned int i;

	fprintf(out, "the %u most-hit listed entr%s of %s over its last %llu drop event%s "
		"(%llu s)\n", r->n, r->n == 1 ? "y" : "ies", ifname,
		(unsigned long long)r->events, r->events == 1 ? "" : "s",
		(unsigned long long)r->seconds);
	fprintf(out, "sampled: events are sent at most %u a second and CPU (attach "
		"--events-per-sec), so counts are of events, not packets; past %llu distinct "
		"entries a count may hold up to 'error' of others'\n", r->events_per_sec,
		(unsigned long long)r->capacity);
	if (!r->n)
		return;
	fprintf(out, "%10s %8s  %-16s %s\n", "count", "error", "list", "entry");
	for (i = 0; i < r->n; i++)
		fprintf(out, "%10llu %8llu  %-16s %s\n", (unsigned long long)r->items[i].count,
			(unsigned long long)r->items[i].error, r->items[i].list,
			r->items[i].entry);
}
