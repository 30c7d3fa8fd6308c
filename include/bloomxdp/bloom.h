/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The probe of layout "bits", shared by the XDP program and the CLI.
 *
 * The includer first defines how a word of the filter is reached:
 *   static __always_inline __u64 *bloomxdp_filter_word(void *filter, __u32 index);
 * (a map lookup in the kernel, an array index over the mmap-ed map in user space)
 * and may return NULL for an index out of range.
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

#endif /* BLOOMXDP_BLOOM_H */
