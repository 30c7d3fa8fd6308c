/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A per-CPU budget of so many a second (struct event_budget, maps.h): the
 * ICMP answers of reject.h (config.icmp_per_sec), in the way event_allowed()
 * of bloomxdp.bpf.c spends the events'.
 */
#ifndef BLOOMXDP_BUDGET_H
#define BLOOMXDP_BUDGET_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "maps.h"

#ifndef NSEC_PER_SEC
#define NSEC_PER_SEC 1000000000ULL
#endif

/*
 * 1 when one more may go in this second of the coarse clock, per_sec at
 * most; 0 when the budget is spent. Once it is, a call costs a look at
 * jiffies (inlined: one load) and no clock read until jiffies moves: a
 * budget refills at most a tick late.
 */
static __always_inline int budget_take(struct event_budget *b, __u32 per_sec)
{
	__u64 now;

	if (b->sent >= per_sec) {
		__u32 tick = bpf_jiffies64();

		if (tick == b->tick)
			return 0;
		b->tick = tick;
	}
	now = bpf_ktime_get_coarse_ns();
	if (now >= b->until) {
		b->until = now - now % NSEC_PER_SEC + NSEC_PER_SEC;
		b->sent = 0;
	}
	if (b->sent >= per_sec)
		return 0;
	b->sent++;
	return 1;
}

#endif /* BLOOMXDP_BUDGET_H */
