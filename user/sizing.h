/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_SIZING_H
#define BLOOMXDP_SIZING_H

#include <linux/types.h>

struct bloom_plan {
	__u64 capacity;		/* n */
	double fpr;		/* target p */
	__u64 bits;		/* m, rounded up to whole 64-bit words */
	__u32 hashes;		/* k */
	__u64 bytes;		/* memory of the bit array */
	__u32 layout;		/* enum bloomxdp_layout */
	double expected_fpr;	/* at capacity, by the layout's own formula */
};

/*
 * m = ceil(-n ln p / (ln 2)^2) rounded up to a word, k = max(1, round(m/n ln 2)).
 * Returns 0, -EINVAL for capacity 0 or p outside (0, 1), -E2BIG when m would
 * not fit the 32-bit probe arithmetic (BLOOMXDP_MAX_BITS).
 */
int bloom_plan_compute(__u64 capacity, double fpr, struct bloom_plan *plan);

/*
 * The same for a layout: "bits" as above; "blocked" is sized by its exact FPR
 * (below): the smallest m, in whole 512-bit blocks, and the best k for it.
 */
int bloom_plan_compute_layout(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan);

/*
 * The bits the kernel gives a BPF_MAP_TYPE_BLOOM_FILTER of max_entries and k
 * hashes: n k / ln 2 (as n k * 7 / 5), rounded up to a power of two.
 */
__u64 bloom_kernel_bits(__u64 capacity, __u32 hashes);

/* (1 - e^(-k n / m))^k: expected FPR after n distinct inserts. */
double bloom_fpr_for_entries(__u64 bits, __u32 hashes, __u64 entries);

/*
 * Expected FPR of a blocked filter (Putze, Sanders, Singler 2007): the keys
 * per block are Poisson(n B / m) with B = 512; a block holding i keys answers
 * yes with probability (1 - (1 - 1/B)^(k i))^k.
 */
double bloom_blocked_fpr(__u64 bits, __u32 hashes, __u64 entries);

/* The expected FPR of a layout. */
double bloom_layout_fpr(__u32 layout, __u64 bits, __u32 hashes, __u64 entries);

/* fill^k: the FPR of a given filter, from its share of set bits. */
double bloom_fpr_for_fill(double fill_ratio, __u32 hashes);

/* -(m/k) ln(1 - fill): distinct entries estimated from the fill ratio (Swamidass & Baldi). */
double bloom_entries_for_fill(__u64 bits, __u32 hashes, double fill_ratio);

#endif
