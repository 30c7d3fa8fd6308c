// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Layout "blocked": all k bits of a key in one 512-bit block (a cache line),
 * sized by its exact FPR (Putze, Sanders, Singler 2007; see filter/bloom_plan.h).
 */
#include <errno.h>

#include "filter/layout.h"
#include "filter/bloom_plan.h"

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

/* The FPR of a blocked filter of that many blocks, with k hashes (0: the best k). */
static double blocks_fpr(__u64 blocks, __u32 k, __u64 entries)
{
	double fpr;

	if (k)
		return bloom_blocked_fpr(blocks * BLOOMXDP_BLOCK_BITS, k, entries);
	best_hashes(blocks * BLOOMXDP_BLOCK_BITS, entries, &fpr);
	return fpr;
}

/*
 * The fewest whole blocks that meet fpr, into plan->bits, by bisection from
 * the classic size plan->bits: the FPR falls as blocks are added. Bounded for
 * any input: ~26 steps (of 24 k when k is 0), each a sum of O(sqrt(keys per
 * block)) terms.
 */
static int fewest_blocks(__u64 entries, double fpr, __u32 k, struct bloom_plan *plan)
{
	__u64 blocks, lo = plan->bits / BLOOMXDP_BLOCK_BITS, hi = BLOOMXDP_MAX_BITS / BLOOMXDP_BLOCK_BITS;

	if (lo < 1)
		lo = 1;
	if (blocks_fpr(hi, k, entries) > fpr)
		return -E2BIG;
	while (lo < hi) {
		blocks = lo + (hi - lo) / 2;
		if (blocks_fpr(blocks, k, entries) <= fpr)
			hi = blocks;
		else
			lo = blocks + 1;
	}
	plan->bits = lo * BLOOMXDP_BLOCK_BITS;
	return 0;
}

/* The fewest whole blocks, and the best k for them, that meet fpr: k as a function of size. */
static int plan_blocked_best(__u64 capacity, double fpr, struct bloom_plan *plan)
{
	double got;
	int ret;

	ret = bloom_plan_compute(capacity, fpr, plan);
	if (!ret)
		ret = fewest_blocks(capacity, fpr, 0, plan);
	if (!ret)
		plan->hashes = best_hashes(plan->bits, capacity, &got);
	return ret;
}

/*
 * Keys per block, and so the best k, settle once there are many blocks: k for
 * fpr is the best k of a filter of this many keys, whatever the size asked.
 */
#define BLOCKED_K_REFERENCE 1000000ULL

static __u32 hashes_blocked(double fpr)
{
	struct bloom_plan plan;

	if (plan_blocked_best(BLOCKED_K_REFERENCE, fpr, &plan))
		return bloom_hashes_for(fpr);
	return plan.hashes;
}

/* The fewest whole blocks that meet fpr with k hashes. */
static int plan_blocked(__u64 capacity, double fpr, __u32 hashes, struct bloom_plan *plan)
{
	int ret;

	ret = bloom_plan_compute_k(capacity, fpr, hashes, plan);
	if (!ret)
		ret = fewest_blocks(capacity, fpr, hashes, plan);
	if (ret)
		return ret;
	plan->bytes = plan->bits / 8;
	plan->expected_fpr = bloom_blocked_fpr(plan->bits, hashes, capacity);
	return 0;
}

const struct layout_ops layout_blocked = {
	.name = "blocked",
	.help = "all k bits of a key in one 64-byte cache line",
	.hashes = hashes_blocked,
	.plan = plan_blocked,
	.fpr = bloom_blocked_fpr,
	.readable = true,
	.bits = layout_array_bits,
	.insert = layout_array_insert,
	.test = layout_array_test,
};
