/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The per-CPU budget of drop events (config.events_per_sec), for every
 * program that sends them on the events ring: the packet program and the
 * socket guard (connect.bpf.c).
 */
#ifndef BLOOMXDP_EVENTS_H
#define BLOOMXDP_EVENTS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "maps.h"

#define NSEC_PER_SEC 1000000000ULL

/*
 * Per CPU, at most config.events_per_sec events in each second of the coarse
 * clock; called on every hit when events are on. Once the second's budget is
 * spent, a hit costs a look at jiffies (the verifier inlines bpf_jiffies64():
 * one load) and no clock read: the coarse clock moves only on a tick, so it
 * is read again only when jiffies has moved. A budget thus refills at most a
 * tick late.
 */
static __always_inline int event_allowed(struct bloomxdp_counters *cnt)
{
	struct event_budget *b;
	__u32 zero = 0;
	__u64 now;

	b = bpf_map_lookup_elem(&event_budgets, &zero);
	if (!b)
		return 0;
	if (b->sent >= config.events_per_sec) {
		__u32 tick = bpf_jiffies64();

		if (tick == b->tick)
			goto limited;
		b->tick = tick;
	}
	now = bpf_ktime_get_coarse_ns();
	if (now >= b->until) {
		b->until = now - now % NSEC_PER_SEC + NSEC_PER_SEC;
		b->sent = 0;
	}
	if (b->sent >= config.events_per_sec)
		goto limited;
	b->sent++;
	return 1;
limited:
	cnt->events_ratelimited++;
	return 0;
}

#endif /* BLOOMXDP_EVENTS_H */
