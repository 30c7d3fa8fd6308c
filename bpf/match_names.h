/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Looks up the name in scratch (labels found by a parser) and, for HTTP, the
 * URL path: one probe per label suffix, right to left, with the shared
 * hashing of include/bloomxdp/name.h. bpf_loop keeps the verifier's work
 * independent of the number of labels.
 */
#ifndef BLOOMXDP_MATCH_NAMES_H
#define BLOOMXDP_MATCH_NAMES_H

#include "scratch.h"

struct name_walk {
	void *bits;
	__u64 kinds;		/* the filter's header: name depths and URLs listed */
	__u64 hash_key[2];
	__u32 filter_bits;
	__u32 hashes;
	__u64 suffix;
	__u32 markers;		/* bit j: host suffix j has URL entries */
	int hit;
};

static long name_walk_step(__u32 j, void *data)
{
	struct name_walk *w = data;
	struct scratch *s = scratch_get();
	__u32 slot;

	if (!s)
		return 1;
	slot = bloomxdp_label_slot(&s->labels, j) & (BLOOMXDP_MAX_LABELS - 1);
	w->suffix = bloomxdp_name_fold(w->hash_key, w->suffix,
				       bloomxdp_hash_label(w->hash_key, s->name, s->labels.off[slot],
							   s->labels.len[slot]));
	s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)] = w->suffix;
	/* Suffixes as deep as no listed name are not probed: no false positive there. */
	if ((w->kinds & (1ULL << (j & (BLOOMXDP_MAX_LABELS - 1)))) &&
	    bloomxdp_bits_test(w->bits, w->filter_bits, w->hashes, w->suffix)) {
		w->hit = 1;
		return 1;
	}
	return 0;
}

/* 1 when the name or a suffix of it at a label boundary is listed. */
static __always_inline int name_listed(struct scratch *s, struct name_walk *w)
{
	w->suffix = BLOOMXDP_NAME_SEED;
	w->hit = 0;
	w->markers = 0;
	bpf_loop(bloomxdp_labels_examined(&s->labels), name_walk_step, w, 0);
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
	if (bloomxdp_bits_test(w->bits, w->filter_bits, w->hashes, marker))
		w->markers |= 1U << (j & (BLOOMXDP_MAX_LABELS - 1));
	return 0;
}

static long url_prefix_step(__u32 i, void *data)
{
	struct name_walk *w = data;
	struct scratch *s = scratch_get();
	__u64 prefix, key;
	__u32 j;

	if (!s || i >= BLOOMXDP_MAX_PATH_PREFIXES)
		return 1;
	barrier_var(i);
	prefix = bloomxdp_hash_path(w->hash_key, s->path, s->prefix_end[i & 15] & 0xff);
	for (j = 0; j < BLOOMXDP_MAX_LABELS; j++) {
		if (!(w->markers & (1U << j)))
			continue;
		key = bloomxdp_url_key(w->hash_key, s->suffix[j], prefix);
		if (bloomxdp_bits_test(w->bits, w->filter_bits, w->hashes, key)) {
			w->hit = 1;
			return 1;
		}
	}
	return 0;
}

/*
 * After name_listed() found no hit (so s->suffix holds every S_j): 1 when a
 * URL entry covers this host suffix and a prefix of the path.
 */
static __always_inline int url_listed(struct scratch *s, struct name_walk *w)
{
	if (!s->nprefixes || !(w->kinds & BLOOMXDP_HAS_URLS))
		return 0;
	bpf_loop(bloomxdp_labels_examined(&s->labels), url_marker_step, w, 0);
	if (!w->markers)
		return 0;
	bpf_loop(s->nprefixes, url_prefix_step, w, 0);
	return w->hit;
}

#endif /* BLOOMXDP_MATCH_NAMES_H */
