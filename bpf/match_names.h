/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Looks up the name in scratch (labels found by a parser) and, for HTTP, the
 * URL path: one probe per label suffix, right to left, with the shared
 * hashing of include/bloomxdp/name.h. bpf_loop keeps the verifier's work
 * independent of the number of labels.
 */
#ifndef BLOOMXDP_MATCH_NAMES_H
#define BLOOMXDP_MATCH_NAMES_H

#include "loop.h"
#include "scratch.h"

struct name_walk {
	void *bits;
	void *verify;		/* exact name keys of this generation, NULL without --verify */
	void *allow;		/* the allowlist's name keys */
	__u64 kinds;		/* the filter's header: name depths and URLs listed */
	__u32 bloom_hits;
	__u32 false_positives;
	__u64 hash_key[2];
	__u32 filter_bits;
	__u32 hashes;
	__u64 suffix;
	__u32 markers;		/* bit j: host suffix j has URL entries */
	int hit;
};

/* An exact set (LPM trie of /64 name keys) holds key. */
static __always_inline int name_key_in(void *set, __u64 key)
{
	struct bloomxdp_lpm_name k = { .prefixlen = 64, .key = key };

	return bpf_map_lookup_elem(set, &k) != NULL;
}

/* A Bloom hit on key: counted, and checked against the exact copy (a hash map) with --verify. */
static __always_inline int name_key_confirmed(struct name_walk *w, __u64 key)
{
	w->bloom_hits++;
	if (!w->verify || bpf_map_lookup_elem(w->verify, &key))
		return 1;
	w->false_positives++;
	return 0;
}

static long name_walk_step(__u32 j, void *data)
{
	struct name_walk *w = data;
	struct scratch *s = scratch_get();

	if (!s)
		return 1;
	/*
	 * No listed name is this deep or deeper: no suffix left to probe, so
	 * the random labels of a water-torture flood are not hashed. URL
	 * markers may sit at any depth: with URLs listed, every S_j is needed.
	 */
	if (!((w->kinds & BLOOMXDP_HAS_NAME_DEPTHS) >> (j & (BLOOMXDP_MAX_LABELS - 1))) &&
	    !(w->kinds & BLOOMXDP_HAS_URLS))
		return 1;
	w->suffix = bloomxdp_suffix_fold(w->hash_key, s->name, &s->labels, j, w->suffix);
	s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)] = w->suffix;
	/* Suffixes as deep as no listed name are not probed: no false positive there. */
	if (!(w->kinds & (1ULL << (j & (BLOOMXDP_MAX_LABELS - 1)))) ||
	    !bloomxdp_filter_test(w->bits, config.layout, w->filter_bits, w->hashes, w->suffix))
		return 0;
	if (!name_key_confirmed(w, w->suffix))
		return 0;	/* a false positive: a deeper suffix may still be listed */
	w->hit = 1;
	s->match_len = j + 1;
	s->match_key = w->suffix;
	return 1;
}

/* 1 when the name or a suffix of it at a label boundary is listed. */
static __always_inline int name_listed(struct scratch *s, struct name_walk *w)
{
	w->suffix = BLOOMXDP_NAME_SEED;
	w->hit = 0;
	w->markers = 0;
	bpf_loop_bounded(bloomxdp_labels_examined(&s->labels), name_walk_step, w);
	return w->hit;
}

static long url_marker_step(__u32 j, void *data)
{
	struct name_walk *w = data;
	struct scratch *s = scratch_get();
	__u64 marker;

	if (!s)
		return 1;
	marker = bloomxdp_url_host_key(w->hash_key, s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)]);
	if (bloomxdp_filter_test(w->bits, config.layout, w->filter_bits, w->hashes, marker))
		w->markers |= 1U << (j & (BLOOMXDP_MAX_LABELS - 1));
	return 0;
}

/* First pass: the hash of each path prefix, once. */
static long url_prefix_hash_step(__u32 i, void *data)
{
	struct name_walk *w = data;
	struct scratch *s = scratch_get();

	if (!s || i >= BLOOMXDP_MAX_PATH_PREFIXES)
		return 1;
	barrier_var(i);
	s->prefix_hash[i & 15] = bloomxdp_hash_path(w->hash_key, s->path,
						     s->prefix_end[i & 15] & 0xff);
	return 0;
}

/* Second pass: one (host suffix, path prefix) pair per step, suffixes with a marker only. */
static long url_pair_step(__u32 n, void *data)
{
	__u32 i = n / BLOOMXDP_MAX_LABELS, j = n % BLOOMXDP_MAX_LABELS;
	struct name_walk *w = data;
	struct scratch *s = scratch_get();
	__u64 key;

	if (!s)
		return 1;
	if (!(w->markers & (1U << j)))
		return 0;
	key = bloomxdp_url_key(w->hash_key, s->suffix[j], s->prefix_hash[i & 15]);
	if (!bloomxdp_filter_test(w->bits, config.layout, w->filter_bits, w->hashes, key) ||
	    !name_key_confirmed(w, key))
		return 0;
	w->hit = 1;
	s->match_len = j + 1;
	s->match_key = key;
	return 1;
}

/*
 * After name_listed() found no hit (so s->suffix holds every S_j): 1 when a
 * URL entry covers this host suffix and a prefix of the path.
 */
static __always_inline int url_listed(struct scratch *s, struct name_walk *w)
{
	if (!s->nprefixes || !(w->kinds & BLOOMXDP_HAS_URLS))
		return 0;
	bpf_loop_bounded(bloomxdp_labels_examined(&s->labels), url_marker_step, w);
	if (!w->markers)
		return 0;
	bpf_loop_bounded(s->nprefixes, url_prefix_hash_step, w);
	bpf_loop_bounded(s->nprefixes * BLOOMXDP_MAX_LABELS, url_pair_step, w);
	return w->hit;
}

static long allow_walk_step(__u32 j, void *data)
{
	struct name_walk *w = data;
	struct scratch *s = scratch_get();

	if (!s || !w->allow)
		return 1;
	w->suffix = bloomxdp_suffix_fold(w->hash_key, s->name, &s->labels, j, w->suffix);
	if (!name_key_in(w->allow, w->suffix))
		return 0;
	w->hit = 1;
	return 1;
}

/* After a hit: 1 when the name or a suffix of it is on the allowlist (exact). */
static __always_inline int name_allowed(struct scratch *s, struct name_walk *w)
{
	w->suffix = BLOOMXDP_NAME_SEED;
	w->hit = 0;
	bpf_loop_bounded(bloomxdp_labels_examined(&s->labels), allow_walk_step, w);
	return w->hit;
}

#endif /* BLOOMXDP_MATCH_NAMES_H */
