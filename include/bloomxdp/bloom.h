/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The probe of layout "bits", shared by the XDP program and the CLI.
 *
 * The includer first defines how a word of the filter is reached:
 *   static __always_inline __u64 *bloomxdp_filter_word(void *filter, __u32 index);
 * (a map lookup in the kernel, an array index over the mmap-ed map in user space)
 * and may return NULL for an index out of range; and, for layout "kernel",
 *   static __always_inline int bloomxdp_kernel_has(void *filter, __u64 hash);
 * (a BLOOM_FILTER map lookup).
 */
#ifndef BLOOMXDP_BLOOM_H
#define BLOOMXDP_BLOOM_H

#include "hash.h"

/* 1 when all k bits of the key are set (listed, or a false positive), else 0. */
static __always_inline int bloomxdp_bits_test(void *filter, __u32 bits, __u32 hashes,
					      __u64 hash)
{
	struct bloomxdp_probe probe;
	__u64 *word;
	__u32 i;

	bloomxdp_probe_init(&probe, hash, bits);
	for (i = 0; i < BLOOMXDP_MAX_HASHES; i++) {
		if (i >= hashes)
			break;
		word = bloomxdp_filter_word(filter, bloomxdp_word_index(probe.pos));
		if (!word || !(*word & bloomxdp_word_mask(probe.pos)))
			return 0;
		bloomxdp_probe_next(&probe, bits);
	}
	return 1;
}

/*
 * Layout "blocked": the block from the low half of the hash (multiply-shift,
 * no division), then k bit positions of 9 bits each from the high half,
 * multiplied by the golden ratio between probes (as RocksDB's FastLocalBloom).
 */
static __always_inline __u32 bloomxdp_block_of(__u64 hash, __u32 bits)
{
	return ((__u64)(__u32)hash * (bits / BLOOMXDP_BLOCK_BITS)) >> 32;
}

static __always_inline __u32 bloomxdp_block_next(__u32 *h)
{
	*h *= 0x9e3779b9U;
	return *h >> 23;	/* 0..511: the bit in the block */
}

static __always_inline int bloomxdp_blocked_test(void *filter, __u32 bits, __u32 hashes,
						 __u64 hash)
{
	__u32 base = bloomxdp_block_of(hash, bits) * BLOOMXDP_BLOCK_WORDS;
	__u32 h = hash >> 32, i, bit;
	__u64 *word;

	for (i = 0; i < BLOOMXDP_MAX_HASHES; i++) {
		if (i >= hashes)
			break;
		bit = bloomxdp_block_next(&h);
		word = bloomxdp_filter_word(filter, base + bit / BLOOMXDP_WORD_BITS);
		if (!word || !(*word & (1ULL << (bit % BLOOMXDP_WORD_BITS))))
			return 0;
	}
	return 1;
}

/* The test of the given layout (a constant in the XDP program: the other is pruned). */
static __always_inline int bloomxdp_filter_test(void *filter, __u32 layout, __u32 bits,
						__u32 hashes, __u64 hash)
{
	if (layout == BLOOMXDP_LAYOUT_BLOCKED)
		return bloomxdp_blocked_test(filter, bits, hashes, hash);
	if (layout == BLOOMXDP_LAYOUT_KERNEL)
		return bloomxdp_kernel_has(filter, hash);
	return bloomxdp_bits_test(filter, bits, hashes, hash);
}

#endif /* BLOOMXDP_BLOOM_H */
