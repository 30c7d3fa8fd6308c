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
