// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <sys/sysinfo.h>

#include <bloomxdp/common.h>
#include "filter/layout.h"
#include "filter/bloom_plan.h"
#include "util/log.h"

__u32 bloom_hashes_for(double fpr)
{
	double hashes = round(-log2(fpr));

	if (!(hashes >= 1))
		return 1;
	return hashes > BLOOMXDP_MAX_HASHES ? BLOOMXDP_MAX_HASHES : (__u32)hashes;
}

int bloom_plan_compute_k(__u64 capacity, double fpr, __u32 hashes, struct bloom_plan *plan)
{
	double bits, for_k;

	if (capacity == 0 || !(fpr > 0.0 && fpr < 1.0) || hashes < 1 ||
	    hashes > BLOOMXDP_MAX_HASHES)
		return -EINVAL;
	bits = ceil(-(double)capacity * log(fpr) / (M_LN2 * M_LN2));
	/*
	 * k is the attachment's, chosen for --fpr: a rate per probe below it (a
	 * packet of several probes) needs the m that meets it with this k,
	 * (1 - e^(-kn/m))^k = p, m = -kn / ln(1 - p^(1/k)), a little more than
	 * the classic m of the best k. (For k of p itself, the classic m, as ever.)
	 */
	for_k = ceil(-(double)hashes * capacity / log1p(-pow(fpr, 1.0 / hashes)));
	if (hashes != bloom_hashes_for(fpr) && for_k > bits)
		bits = for_k;
	bits = ceil(bits / BLOOMXDP_WORD_BITS) * BLOOMXDP_WORD_BITS;
	if (bits > (double)BLOOMXDP_MAX_BITS)
		return -E2BIG;

	plan->capacity = capacity;
	plan->fpr = fpr;
	plan->bits = (__u64)bits;
	plan->hashes = hashes;
	plan->bytes = plan->bits / 8;
	plan->layout = BLOOMXDP_LAYOUT_BITS;
	plan->expected_fpr = bloom_fpr_for_entries(plan->bits, plan->hashes, capacity);
	return 0;
}

int bloom_plan_compute(__u64 capacity, double fpr, struct bloom_plan *plan)
{
	if (!(fpr > 0.0 && fpr < 1.0))
		return -EINVAL;
	return bloom_plan_compute_k(capacity, fpr, bloom_hashes_for(fpr), plan);
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

int bloom_plan_compute_layout_k(__u64 capacity, double fpr, __u32 layout, __u32 hashes,
				struct bloom_plan *plan)
{
	const struct layout_ops *ops = layout_get(layout);
	int ret;

	if (!ops || !(fpr > 0.0 && fpr < 1.0))
		return -EINVAL;
	ret = ops->plan(capacity, fpr, hashes, plan);
	plan->layout = layout;
	return ret;
}

int bloom_plan_compute_layout(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan)
{
	const struct layout_ops *ops = layout_get(layout);

	if (!ops || !(fpr > 0.0 && fpr < 1.0))
		return -EINVAL;
	return bloom_plan_compute_layout_k(capacity, fpr, layout, ops->hashes(fpr), plan);
}

int plan_or_explain(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan)
{
	int ret = bloom_plan_compute_layout(capacity, fpr, layout, plan);

	if (ret == -E2BIG)
		log_error("a filter for %llu entries at FPR %g needs more than %u MiB of bits: "
			  "lower --capacity or raise --fpr", (unsigned long long)capacity, fpr,
			  (unsigned int)(BLOOMXDP_MAX_BITS >> 23) + 1);
	else if (ret)
		log_error("--capacity must be at least 1 and --fpr between 0 and 1");
	return ret;
}

__u64 bloom_plan_map_bytes(const struct bloom_plan *plan)
{
	/* A readable layout's bits follow the header in its map; "kernel"'s are a map apart. */
	return BLOOMXDP_HDR_WORDS * sizeof(__u64) + plan->bits / 8;
}

/* The filter bytes of a generation for n keys, or 0 when no filter can hold them. */
static __u64 generation_bytes(const struct generation_need *need, __u64 n, struct bloom_plan *plan)
{
	if (bloom_plan_compute_layout_k(n, need->fpr, need->layout, need->hashes, plan))
		return 0;
	return bloom_plan_map_bytes(plan);
}

int generation_plan(const struct generation_need *need, struct bloom_plan *plan,
		    __u64 *need_bytes)
{
	__u64 keys = need->keys ? need->keys : 1, want, lo, hi, mid, bytes;
	struct bloom_plan p;

	*need_bytes = 0;
	if (!(need->fpr > 0.0 && need->fpr < 1.0))
		return -EINVAL;
	want = keys + keys / GENERATION_ROOM_DIVISOR;
	if (want < need->floor)
		want = need->floor;
	bytes = generation_bytes(need, want, plan);
	if (bytes && bytes + need->other_bytes <= need->max_memory)
		return 0;
	/* The keys alone: what a refusal says they need. */
	bytes = generation_bytes(need, keys, &p);
	if (!bytes)
		return -E2BIG;
	if (bytes + need->other_bytes > need->max_memory) {
		*need_bytes = bytes + need->other_bytes;
		return -E2BIG;
	}
	/* Less room: the most keys in [keys, want) that fit, by bisection (bytes grow with n). */
	*plan = p;
	lo = keys;
	hi = want - 1;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		bytes = generation_bytes(need, mid, &p);
		if (bytes && bytes + need->other_bytes <= need->max_memory) {
			*plan = p;
			lo = mid;
		} else {
			hi = mid - 1;
		}
	}
	return 0;
}

int generation_has_room(double keys_now, __u64 added, __u64 capacity)
{
	return keys_now + (double)added <= (double)capacity;
}

__u64 default_max_memory(void)
{
	struct sysinfo si;
	__u64 eighth;

	if (sysinfo(&si))
		return MAX_MEMORY_CEILING;
	eighth = (__u64)si.totalram * si.mem_unit / 8;
	return eighth < MAX_MEMORY_CEILING ? eighth : MAX_MEMORY_CEILING;
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

double bloom_layout_fpr_for_fill(__u32 layout, __u64 bits, __u32 hashes, double fill_ratio)
{
	double n = bloom_entries_for_fill(bits, hashes, fill_ratio);

	if (!(n < (double)~0ULL))
		return 1.0;
	return bloom_layout_fpr(layout, bits, hashes, (__u64)n);
}

double bloom_entries_for_fill(__u64 bits, __u32 hashes, double fill_ratio)
{
	if (fill_ratio >= 1.0)
		return INFINITY;
	return -(double)bits / hashes * log1p(-fill_ratio);
}
