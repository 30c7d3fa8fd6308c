// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>

#include <bloomxdp/common.h>
#include "layout.h"
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
	const struct layout_ops *ops = layout_get(layout);

	return ops ? ops->fpr(bits, hashes, entries) : 1.0;
}

__u64 bloom_kernel_bits(__u64 capacity, __u32 hashes)
{
	__u64 bits = capacity * hashes / 5 * 7, pow2 = 64;

	while (pow2 < bits)
		pow2 <<= 1;
	return pow2;
}

int bloom_plan_compute_layout(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan)
{
	const struct layout_ops *ops = layout_get(layout);
	int ret;

	if (!ops)
		return -EINVAL;
	ret = ops->plan(capacity, fpr, plan);
	plan->layout = layout;
	return ret;
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
