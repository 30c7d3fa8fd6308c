/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The probes of the filter layouts, shared by the XDP program and the CLI.
 *
 * The includer first defines how a word of the filter is reached:
 *   static __always_inline __u64 *bloomxdp_filter_word(void *filter, __u32 index);
 * (a map lookup in the kernel, an array index over the mmap-ed map in user space)
 * and may return NULL for an index out of range; how the 8 words of a line
 * (first a multiple of BLOOMXDP_LINE_WORDS) are reached, in one lookup:
 *   static __always_inline __u64 *bloomxdp_filter_line(void *filter, __u32 first);
 * and, for layout "kernel",
 *   static __always_inline int bloomxdp_kernel_has(void *filter, __u64 hash);
 * (a BLOOM_FILTER map lookup).
 */
#ifndef BLOOMXDP_BLOOM_H
#define BLOOMXDP_BLOOM_H

#include "hash.h"

/*
 * Layout "blocked": the block from the low half of the hash (multiply-shift,
 * no division), then k bit positions of 9 bits each from the high half,
 * multiplied by the golden ratio between probes (as RocksDB's FastLocalBloom).
 */
#define BLOOMXDP_BLOCK_MULT 0x9e3779b9U

static __always_inline __u32 bloomxdp_block_of(__u64 hash, __u32 bits)
{
	return ((__u64)(__u32)hash * (bits / BLOOMXDP_BLOCK_BITS)) >> 32;
}

static __always_inline __u32 bloomxdp_block_next(__u32 *h)
{
	*h *= BLOOMXDP_BLOCK_MULT;
	return *h >> 23;	/* 0..511: the bit in the block */
}

/*
 * The k bit positions of a hash in the bit array of layout "bits" or
 * "blocked", one after the other: the single sequence that user space sets
 * and the XDP program tests. The layout is a constant in the XDP program, so
 * the verifier keeps one branch. bits is m of the generation probed (its
 * header word BLOOMXDP_HDR_BITS); word indexes count the header words first.
 */
struct bloomxdp_positions {
	struct bloomxdp_probe probe;	/* bits: (h1 + i h2) mod m */
	__u32 base;			/* blocked: the block's first word */
	__u32 h;			/* blocked: the state of bloomxdp_block_next() */
};

static __always_inline void bloomxdp_positions_init(struct bloomxdp_positions *p, __u32 layout,
						    __u32 bits, __u64 hash)
{
	/* Every field set, whatever the layout: compilers that cannot see it is constant warn. */
	p->base = 0;
	p->h = 0;
	p->probe.pos = p->probe.step = 0;
	if (layout == BLOOMXDP_LAYOUT_BLOCKED) {
		p->base = BLOOMXDP_HDR_WORDS + bloomxdp_block_of(hash, bits) * BLOOMXDP_BLOCK_WORDS;
		p->h = hash >> 32;
	} else {
		bloomxdp_probe_init(&p->probe, hash, bits);
	}
}

/* The next position: its word in the map and the bit's mask in that word. */
static __always_inline void bloomxdp_positions_next(struct bloomxdp_positions *p, __u32 layout,
						    __u32 bits, __u32 *word, __u64 *mask)
{
	__u32 bit;

	if (layout == BLOOMXDP_LAYOUT_BLOCKED) {
		bit = bloomxdp_block_next(&p->h);
		*word = p->base + bit / BLOOMXDP_WORD_BITS;
		*mask = 1ULL << (bit % BLOOMXDP_WORD_BITS);
	} else {
		*word = BLOOMXDP_HDR_WORDS + bloomxdp_word_index(p->probe.pos);
		*mask = bloomxdp_word_mask(p->probe.pos);
		bloomxdp_probe_next(&p->probe, bits);
	}
}

/*
 * 1 when all k bits of the hash are set (listed, or a false positive), else
 * 0; layout "kernel" asks its own map.
 */
static __always_inline int bloomxdp_filter_test(void *filter, __u32 layout, __u32 bits,
						__u32 hashes, __u64 hash)
{
	struct bloomxdp_positions p;
	__u64 *word, mask;
	__u32 i, index;

	if (layout == BLOOMXDP_LAYOUT_KERNEL)
		return bloomxdp_kernel_has(filter, hash);
	bloomxdp_positions_init(&p, layout, bits, hash);
	if (layout == BLOOMXDP_LAYOUT_BLOCKED) {
		/* The block is one line: one lookup for all k bits (the same positions). */
		__u64 *line = bloomxdp_filter_line(filter, p.base);
		__u64 set = 1, h = (__u64)p.h << 32, j, k = hashes;

		if (!line)
			return 0;
		/*
		 * All k bits, then one branch: an early exit at the first clear
		 * bit is a mispredicted branch on most unlisted keys, which cost
		 * more than the probes it saves (the line is read already).
		 * The positions of bloomxdp_block_next(), its 32-bit state kept
		 * in the high half of h: a 64-bit multiply keeps it modulo 2^32
		 * with no truncation, and the top 9 bits are the bit (the word
		 * from the top 3), and a 64-bit count: half the instructions a
		 * probe in BPF, no zero-extension left.
		 */
		_Static_assert(BLOOMXDP_LINE_WORDS == 8 && BLOOMXDP_WORD_BITS == 64,
			       "a bit of the block: its word in the top 3 bits of 9");
		for (j = 0; j < BLOOMXDP_MAX_HASHES; j++) {
			if (j >= k)
				break;
			h *= BLOOMXDP_BLOCK_MULT;
			set &= line[h >> 61] >> ((h >> 55) & (BLOOMXDP_WORD_BITS - 1));
		}
		return set & 1;
	}
	for (i = 0; i < BLOOMXDP_MAX_HASHES; i++) {
		if (i >= hashes)
			break;
		bloomxdp_positions_next(&p, layout, bits, &index, &mask);
		word = bloomxdp_filter_word(filter, index);
		if (!word || !(*word & mask))
			return 0;
	}
	return 1;
}

#endif /* BLOOMXDP_BLOOM_H */
