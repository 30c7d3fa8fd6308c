/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Looks up the name in scratch (labels found by a parser) and, for HTTP, the
 * URL path: one probe per label suffix, right to left, with the shared
 * hashing of include/bloomxdp/name.h. bpf_loop keeps the verifier's work
 * independent of the number of labels.
 */
#ifndef BLOOMXDP_MATCH_NAMES_H
#define BLOOMXDP_MATCH_NAMES_H

#include "addr.h"	/* probe_map() */
#include "filter.h"
#include "loop.h"
#include "maps.h"
#include "scratch.h"

struct name_walk {
	__u32 slot;		/* the live generation's filter (name_probe()) */
	void *verify;		/* exact name keys of this generation, NULL without --verify */
	void *allow;		/* the allowlist's name keys */
	__u64 kinds;		/* the filter's header: name depths and URLs listed */
	__u64 hash_key[2];
	__u32 filter_bits;
	__u64 suffix;
	__u32 markers;		/* bit j: host suffix j has URL entries */
	int hit;
};

/*
 * The filter of generation slot (m filter_bits) holds key: 1, or 0. A global
 * function, checked once: inlined, the probes of layout bits (k lookups, each
 * with its own exit) were walked again in each state of the walks' callbacks,
 * and took the 6.18 verifier to its limit with every name field. It looks the
 * filter up again itself: a map cannot be a global function's argument.
 */
__attribute__((noinline)) int name_probe(__u32 slot, __u32 filter_bits, __u64 key)
{
	void *bits = probe_map(slot);

	if (!bits)
		return 0;
	return bloomxdp_filter_test(bits, config.layout, filter_bits, config.hashes, key);
}

/* An exact set (LPM trie of /64 name keys) holds key. */
static __always_inline int name_key_in(void *set, __u64 key)
{
	struct bloomxdp_lpm_name k = { .prefixlen = 64, .key = key };

	return bpf_map_lookup_elem(set, &k) != NULL;
}

/*
 * A Bloom hit on key: counted, and checked against the exact copy (a hash
 * map) with --verify. Counted in scratch, not in the walk's state: a count
 * the callbacks change on the stack kept the verifier's walk of them from
 * converging.
 */
static __always_inline int name_key_confirmed(struct scratch *s, struct name_walk *w, __u64 key)
{
	s->walk_bloom_hits++;
	if (!w->verify || bpf_map_lookup_elem(w->verify, &key))
		return 1;
	s->walk_false_positives++;
	return 0;
}

/* The flags of a name key in the suffixes map (bloomxdp/name.h), 0 when absent. */
static __always_inline __u32 suffix_flags(__u64 key)
{
	__u32 *flags = bpf_map_lookup_elem(&suffixes, &key);

	return flags ? *flags : 0;
}

/*
 * A Bloom hit on key at host suffix j (S_{j+1}): 1 when it stands. At a
 * public suffix or a TLD it stands only when the live generation holds key
 * exactly: a false hit there would block a whole registry.
 */
static __always_inline int suffix_stands(struct scratch *s, __u32 j, __u64 key)
{
	__u64 host = s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)];
	__u32 self = suffix_flags(host), up = 0;

	if (j && !(self & (BLOOMXDP_SUFFIX_PUBLIC | BLOOMXDP_SUFFIX_EXCEPTION)))
		up = suffix_flags(s->suffix[(j - 1) & (BLOOMXDP_MAX_LABELS - 1)]);
	if (!bloomxdp_suffix_public(j, self, up))
		return 1;
	if (key != host)
		self = suffix_flags(key);	/* a URL on that host: its own key */
	return !!(self & BLOOMXDP_SUFFIX_LISTED(s->suffix_slot));
}

int suffix_decide(__u32 url);

/* The walk over the hits a name walk left at public depths (suffix_decide()). */
struct suffix_walk {
	__u64 hash_key[2];
	int hit;
};

/*
 * Hit j of s->suffix_cand, shallowest first: the first that stands is the
 * match; the others are counted as refused.
 */
static long suffix_cand_step(__u32 j, void *data)
{
	struct suffix_walk *c = data;
	struct scratch *s = scratch_get();

	if (!s)
		return 1;
	if (!(s->suffix_cand & (1U << (j & 31))))
		return 0;
	if (!suffix_stands(s, j, s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)])) {
		s->suffix_refused++;
		return 0;
	}
	c->hit = 1;
	s->match_len = j + 1;
	s->match_key = s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)];
	return 1;
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
	w->suffix = name_suffix_at(j, w->suffix);
	s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)] = w->suffix;
	/* Suffixes as deep as no listed name are not probed: no false positive there. */
	if (!(w->kinds & (1ULL << (j & (BLOOMXDP_MAX_LABELS - 1)))) ||
	    !name_probe(w->slot, w->filter_bits, w->suffix))
		return 0;
	if (!name_key_confirmed(s, w, w->suffix))
		return 0;	/* a false positive: a deeper suffix may still be listed */
	/* Confirmed hits only: a refused one stays counted (bloom_hits, false_positives). */
	s->name_hits |= 1U << (j & (BLOOMXDP_MAX_LABELS - 1));
	/* At a public suffix or TLD perhaps: decided after the walk (suffix_cand_step). */
	if (j < BLOOMXDP_SUFFIX_MAX_LABELS) {
		s->suffix_cand |= 1U << j;
		return 0;
	}
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
	s->suffix_cand = 0;
	s->name_hits = 0;
	bpf_loop_bounded(bloomxdp_labels_examined(&s->labels), name_walk_step, w);
	if (s->suffix_cand && suffix_decide(0)) {
		w->hit = 1;
		/* The walk went on past the hit that stands: its later confirmed hits not counted. */
		s->walk_bloom_hits -= __builtin_popcount(s->name_hits >> (s->match_len & 31));
	}
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
	if (name_probe(w->slot, w->filter_bits, marker))
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
	if (!name_probe(w->slot, w->filter_bits, key) ||
	    !name_key_confirmed(s, w, key))
		return 0;
	/* On a public suffix or TLD perhaps: decided after the walk (url_cand_step). */
	if (j < BLOOMXDP_SUFFIX_MAX_LABELS) {
		s->url_cand |= 1ULL << ((i * BLOOMXDP_SUFFIX_MAX_LABELS + j) & 63);
		return 0;
	}
	w->hit = 1;
	s->match_len = j + 1;
	s->match_key = key;
	return 1;
}

/* The URL pairs url_pair_step() left on public hosts, as suffix_cand_step(). */
static long url_cand_step(__u32 n, void *data)
{
	__u32 i = n / BLOOMXDP_SUFFIX_MAX_LABELS, j = n % BLOOMXDP_SUFFIX_MAX_LABELS;
	struct suffix_walk *c = data;
	struct scratch *s = scratch_get();
	__u64 key;

	if (!s)
		return 1;
	if (!(s->url_cand & (1ULL << (n & 63))))
		return 0;
	barrier_var(j);		/* clang knows j < 6; the verifier needs the mask below */
	key = bloomxdp_url_key(c->hash_key, s->suffix[j & (BLOOMXDP_MAX_LABELS - 1)],
			       s->prefix_hash[i & 15]);
	if (!suffix_stands(s, j, key)) {
		s->suffix_refused++;
		return 0;
	}
	c->hit = 1;
	s->match_len = j + 1;
	s->match_key = key;
	s->cand_n = n;
	return 1;
}

/*
 * After a walk, the Bloom hits it left at public depths (s->suffix_cand,
 * or of URL pairs s->url_cand): 1 when one stands, s->match_* set to it. A
 * global function, verified once apart from the walks: the verifier does
 * not meet these lookups in every state of theirs.
 */
__attribute__((noinline)) int suffix_decide(__u32 url)
{
	struct suffix_walk c = { .hit = 0 };
	struct scratch *s = scratch_get();

	if (!s)
		return 0;
	/* Read through the volatile: a cast would let clang fold the key to zero. */
	c.hash_key[0] = config.hash_key[0];
	c.hash_key[1] = config.hash_key[1];
	if (url)
		bpf_loop_bounded(s->nprefixes * BLOOMXDP_SUFFIX_MAX_LABELS, url_cand_step, &c);
	else
		bpf_loop_bounded(BLOOMXDP_SUFFIX_MAX_LABELS, suffix_cand_step, &c);
	return c.hit;
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
	s->url_cand = 0;
	bpf_loop_bounded(s->nprefixes * BLOOMXDP_MAX_LABELS, url_pair_step, w);
	if (s->url_cand && suffix_decide(1)) {
		/* As name_listed(): later candidates, and a deeper hit that ended the walk. */
		s->walk_bloom_hits -= __builtin_popcountll(s->url_cand >> ((s->cand_n + 1) & 63)) +
				 w->hit;
		w->hit = 1;
	}
	return w->hit;
}

static long allow_walk_step(__u32 j, void *data)
{
	struct name_walk *w = data;
	struct scratch *s = scratch_get();

	if (!s || !w->allow)
		return 1;
	w->suffix = name_suffix_at(j, w->suffix);
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
