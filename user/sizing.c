// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>

#include <bloomxdp/common.h>
#include "sizing.h"

int bloom_plan_compute(__u64 capacity, double fpr, struct bloom_plan *plan)
{
	double bits, hashes;

	if (capacity == 0 || !(fpr > 0.0 && fpr < 1.0))
		return -EINVAL;
	bits = ceil(-(double)capacity * log(fpr) / (M_LN2 * M_LN2));
	bits = ceil(bits / BLOOMXDP_WORD_BITS) * BLOOMXDP_WORD_BITS;
	if (bits > (double)BLOOMXDP_MAX_BITS)
		return -E2BIG;
	hashes = round(bits / (double)capacity * M_LN2);
	if (hashes < 1)
		hashes = 1;
	if (hashes > BLOOMXDP_MAX_HASHES)
		hashes = BLOOMXDP_MAX_HASHES;

	plan->capacity = capacity;
	plan->fpr = fpr;
	plan->bits = (__u64)bits;
	plan->hashes = (__u32)hashes;
	plan->bytes = plan->bits / 8;
	plan->layout = BLOOMXDP_LAYOUT_BITS;
	plan->expected_fpr = bloom_fpr_for_entries(plan->bits, plan->hashes, capacity);
	return 0;
}

/*
 * Beyond this many keys per block on average, every bit of every block is set
 * but with probability below e^-40: the FPR is 1 to double precision.
 */
#define BLOCKED_SATURATED_KEYS (40.0 * BLOOMXDP_BLOCK_BITS)

double bloom_blocked_fpr(__u64 bits, __u32 hashes, __u64 entries)
{
	double lambda, spread, pmf, sum = 0, in_block, log_unset;
	__u64 i, first, last;

	if (bits < BLOOMXDP_BLOCK_BITS)
		return 1.0;
	lambda = (double)entries * BLOOMXDP_BLOCK_BITS / bits;
	if (lambda > BLOCKED_SATURATED_KEYS)
		return 1.0;
	/* The Poisson mass within 12 sigma (and 40 keys) of the mean: O(sqrt(lambda)) terms. */
	spread = 12 * sqrt(lambda) + 40;
	first = lambda > spread ? (__u64)(lambda - spread) : 0;
	last = (__u64)(lambda + spread);
	pmf = lambda > 0 ? exp(first * log(lambda) - lambda - lgamma(first + 1.0)) :
			   (first == 0);
	log_unset = log1p(-1.0 / BLOOMXDP_BLOCK_BITS);
	for (i = first; i <= last; i++) {
		in_block = pow(-expm1(log_unset * hashes * (double)i), hashes);
		sum += pmf * in_block;
		pmf *= lambda / (i + 1);
	}
	return sum;
}

double bloom_layout_fpr(__u32 layout, __u64 bits, __u32 hashes, __u64 entries)
{
	return layout == BLOOMXDP_LAYOUT_BLOCKED ? bloom_blocked_fpr(bits, hashes, entries) :
						   bloom_fpr_for_entries(bits, hashes, entries);
}

/* The k of fewest false positives for a blocked filter of this size. */
static __u32 blocked_best_hashes(__u64 bits, __u64 entries, double *fpr)
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

__u64 bloom_kernel_bits(__u64 capacity, __u32 hashes)
{
	__u64 bits = capacity * hashes / 5 * 7, pow2 = 64;

	while (pow2 < bits)
		pow2 <<= 1;
	return pow2;
}

/* Layout "kernel": k from the target, at most 15; the kernel chooses m. */
static int plan_kernel(__u64 capacity, double fpr, struct bloom_plan *plan)
{
	double k = round(-log2(fpr));

	if (k < 1)
		k = 1;
	if (k > BLOOMXDP_KERNEL_MAX_HASHES)
		k = BLOOMXDP_KERNEL_MAX_HASHES;
	plan->hashes = (__u32)k;
	plan->bits = bloom_kernel_bits(capacity, plan->hashes);
	if (plan->bits > (1ULL << 32))
		return -E2BIG;
	plan->bytes = plan->bits / 8;
	plan->layout = BLOOMXDP_LAYOUT_KERNEL;
	plan->expected_fpr = bloom_fpr_for_entries(plan->bits, plan->hashes, capacity);
	return 0;
}

int bloom_plan_compute_layout(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan)
{
	__u64 bits, blocks, lo, hi;
	double got;
	int ret;

	ret = bloom_plan_compute(capacity, fpr, plan);
	if (!ret && layout == BLOOMXDP_LAYOUT_KERNEL)
		return plan_kernel(capacity, fpr, plan);
	if (ret || layout != BLOOMXDP_LAYOUT_BLOCKED)
		return ret;
	/*
	 * The fewest whole blocks that meet the target, by bisection: the best
	 * FPR falls as blocks are added. Bounded for any input: ~26 steps of 24
	 * k, each a sum of O(sqrt(keys per block)) terms, at most ~2,500.
	 */
	lo = plan->bits / BLOOMXDP_BLOCK_BITS;
	hi = BLOOMXDP_MAX_BITS / BLOOMXDP_BLOCK_BITS;
	if (lo < 1)
		lo = 1;
	blocked_best_hashes(hi * BLOOMXDP_BLOCK_BITS, capacity, &got);
	if (got > fpr)
		return -E2BIG;
	while (lo < hi) {
		blocks = lo + (hi - lo) / 2;
		blocked_best_hashes(blocks * BLOOMXDP_BLOCK_BITS, capacity, &got);
		if (got <= fpr)
			hi = blocks;
		else
			lo = blocks + 1;
	}
	bits = lo * BLOOMXDP_BLOCK_BITS;
	plan->hashes = blocked_best_hashes(bits, capacity, &got);
	plan->bits = bits;
	plan->bytes = bits / 8;
	plan->layout = BLOOMXDP_LAYOUT_BLOCKED;
	plan->expected_fpr = got;
	return 0;
}

double bloom_fpr_for_entries(__u64 bits, __u32 hashes, __u64 entries)
{
	if (bits == 0)
		return 1.0;
	return pow(1.0 - exp(-(double)hashes * (double)entries / (double)bits), hashes);
}

double bloom_fpr_for_fill(double fill_ratio, __u32 hashes)
{
	return pow(fill_ratio, hashes);
}

double bloom_entries_for_fill(__u64 bits, __u32 hashes, double fill_ratio)
{
	if (fill_ratio >= 1.0)
		return INFINITY;
	return -(double)bits / hashes * log1p(-fill_ratio);
}
