/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Drop events from the ring buffer as text: what `watch` prints and what the
 * daemon writes to its output or to syslog. One event is one line.
 */
#ifndef BLOOMXDP_EVENTS_H
#define BLOOMXDP_EVENTS_H

#include <stdio.h>
#include <linux/types.h>

#include <bloomxdp/common.h>

/*
 * What turns an event's CLOCK_MONOTONIC stamp into wall-clock time, and its
 * list id into the list's name.
 */
struct events_clock {
	__u64 since_ns;		/* CLOCK_MONOTONIC at start: older events are stale */
	double mono_to_real;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, seconds */
	int lists_fd;		/* the attachment's lists (BLOOMXDP_PIN_LISTS); -1: ids only */
};

/* Reading starts now: older events (left in the ring) are skipped. lists_fd is -1. */
void events_clock_now(struct events_clock *c);
/* An event that came before reading started, or is truncated: skip it. */
int events_stale(const struct events_clock *c, const void *data, size_t size);
/*
 * One JSON object on one line (time, ifname, origin, verdict, field, key, src, dst, ports,
 * name, list).
 */
void event_write_json(const struct events_clock *c, const struct bloomxdp_event *ev, FILE *out);
/* The same as one line of text, without its newline, into buf. */
void event_text(const struct events_clock *c, const struct bloomxdp_event *ev, char *buf,
		size_t len);

/*
 * The listed entry an event hit, as text ("prefix 198.51.100.0/24", "name evil.example",
 * "address 192.0.2.7", "learned 203.0.113.9"), and the name of its list: stats --top's key.
 */
void event_entry(const struct events_clock *c, const struct bloomxdp_event *ev, char *entry,
		 size_t len, char *list, size_t list_len);

#endif
