// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Layout "blocked": all k bits of a key in one 512-bit block (a cache line),
 * sized by its exact FPR (Putze, Sanders, Singler 2007; see sizing.h).
 */
#include <errno.h>

#include "layout.h"
#include "sizing.h"

/* The k of fewest false positives for a blocked filter of this size. */
static __u32 best_hashes(__u64 bits, __u64 entries, double *fpr)
{
	__u32 k, best_k = 1;
	double f, best = 2;

	for (k = 1; k <= 24; k++) {
		f = bloom_blocked_fpr(bits, k, entries);
		if (f < best) {
			best = f;
			best_k = k;
		}
	}
	*fpr = best;
	return best_k;
}

static int plan_blocked(__u64 capacity, double fpr, struct bloom_plan *plan)
{
	__u64 blocks, lo, hi;
	double got;
	int ret;

	ret = bloom_plan_compute(capacity, fpr, plan);
	if (ret)
		return ret;
	/*
	 * The fewest whole blocks that meet the target, by bisection from the
	 * classic size: the best FPR falls as blocks are added. Bounded for any
	 * input: ~26 steps of 24 k, each a sum of O(sqrt(keys per block)) terms.
	 */
	lo = plan->bits / BLOOMXDP_BLOCK_BITS;
	hi = BLOOMXDP_MAX_BITS / BLOOMXDP_BLOCK_BITS;
	if (lo < 1)
		lo = 1;
	best_hashes(hi * BLOOMXDP_BLOCK_BITS, capacity, &got);
	if (got > fpr)
		return -E2BIG;
	while (lo < hi) {
		blocks = lo + (hi - lo) / 2;
		best_hashes(blocks * BLOOMXDP_BLOCK_BITS, capacity, &got);
		if (got <= fpr)
			hi = blocks;
		else
			lo = blocks + 1;
	}
	plan->bits = lo * BLOOMXDP_BLOCK_BITS;
	plan->hashes = best_hashes(plan->bits, capacity, &got);
	plan->bytes = plan->bits / 8;
	plan->expected_fpr = got;
	return 0;
}

const struct layout_ops layout_blocked = {
	.name = "blocked",
	.help = "all k bits of a key in one 64-byte cache line",
	.plan = plan_blocked,
	.fpr = bloom_blocked_fpr,
	.readable = true,
	.bits = layout_array_bits,
	.insert = layout_array_insert,
	.test = layout_array_test,
};
