/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The filter's probes (include/bloomxdp/bloom.h) in the kernel: how a word, a
 * line of words and layout "kernel"'s map are reached, which bloom.h asks its
 * includer to define first, then bloom.h itself.
 */
#ifndef BLOOMXDP_FILTER_H
#define BLOOMXDP_FILTER_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloomxdp/common.h>

/* The filter map's elements are lines of words (struct bloomxdp_line). */
static __always_inline __u64 *bloomxdp_filter_line(void *filter, __u32 first)
{
	__u32 line = first / BLOOMXDP_LINE_WORDS;
	struct bloomxdp_line *l = bpf_map_lookup_elem(filter, &line);

	return l ? l->word : NULL;
}

static __always_inline __u64 *bloomxdp_filter_word(void *filter, __u32 index)
{
	__u32 line = index / BLOOMXDP_LINE_WORDS;
	struct bloomxdp_line *l = bpf_map_lookup_elem(filter, &line);

	return l ? &l->word[index % BLOOMXDP_LINE_WORDS] : NULL;
}

/* Layout "kernel": a BPF_MAP_TYPE_BLOOM_FILTER holding the 64-bit hashes. */
static __always_inline int bloomxdp_kernel_has(void *filter, __u64 hash)
{
	return bpf_map_peek_elem(filter, &hash) == 0;
}

#include <bloomxdp/bloom.h>

#endif /* BLOOMXDP_FILTER_H */
