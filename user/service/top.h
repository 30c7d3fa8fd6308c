/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The most-hit listed entries, counted over the daemon's recent drop events
 * (stats IF --top N). Per-entry counters in the kernel would cost more than
 * the filter (10M entries), so the daemon counts the events it reads: a
 * sample, at the events' rate (attach --events-per-sec), of what was
 * dropped. Counted with the Space-Saving algorithm (Metwally, Agrawal and El
 * Abbadi, "Efficient computation of frequent and top-k elements in data
 * streams", 2005): TOP_CAPACITY counters whatever the number of distinct
 * entries; an entry that had to take the place of another carries that one's
 * count as its possible overcount (error), so its true count lies in
 * [count - error, count], and any entry seen more than total / TOP_CAPACITY
 * times is in the table.
 *
 * "Recent": two windows of TOP_WINDOW_SEC, the current one and the one
 * before; the report sums both, so it covers the last 10 to 20 minutes.
 */
#ifndef BLOOMXDP_SERVICE_TOP_H
#define BLOOMXDP_SERVICE_TOP_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include <bloomxdp/common.h>

#define TOP_CAPACITY	512	/* entries counted at once, per window */
#define TOP_WINDOW_SEC	600	/* a window's length */
#define TOP_MAX		100	/* stats --top N: N at most */
#define TOP_ENTRY_MAX	320	/* an entry as text: "name" and 255 bytes, "prefix" and an address */

struct top_item {
	char entry[TOP_ENTRY_MAX];	/* "prefix 198.51.100.0/24", "name evil.example" */
	char list[BLOOMXDP_LIST_NAME_MAX + 8];
	__u64 count;			/* events counted, with the overcount below */
	__u64 error;			/* at most this many of count were another entry's */
};

struct top_window {
	struct top_item items[TOP_CAPACITY];
	unsigned int n;
	__u64 events;			/* events counted in this window */
	__u64 start;			/* when it started, seconds (the caller's clock) */
};

struct top_table {
	struct top_window cur, prev;
};

/* What a report holds: the N most-hit entries of both windows, most hit first. */
struct top_report {
	struct top_item items[TOP_MAX];
	unsigned int n;
	__u64 events;			/* events over the windows reported */
	__u64 seconds;			/* the time the windows reported cover, up to now */
	__u64 capacity;			/* TOP_CAPACITY */
	__u32 events_per_sec;		/* the events' rate limit a CPU (attach --events-per-sec) */
};

void top_init(struct top_table *t, __u64 now);
/* One drop event of entry (of list), at now (seconds, monotonic). */
void top_add(struct top_table *t, const char *entry, const char *list, __u64 now);
/* The n (1..TOP_MAX) most-hit entries at now: 0, or -EINVAL for n out of range. */
int top_report(struct top_table *t, unsigned int n, __u64 now, struct top_report *r);

struct json;
/* r as the value of a JSON object (stats --top --json). */
void top_write_json(const struct top_report *r, struct json *j);
/* r as text: what it covers, that it is a sample, then one entry a line. */
void top_write_text(const struct top_report *r, const char *ifname, FILE *out);

#endif
