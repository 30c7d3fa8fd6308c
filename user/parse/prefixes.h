/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_PREFIXES_H
#define BLOOMXDP_PREFIXES_H

#include <stdbool.h>
#include <bloomxdp/common.h>
#include <bloomxdp/hash.h>

/* One prefix becomes at most 2^this keys; a plan that needs more is refused. */
#define PREFIX_MAX_EXPANSION_BITS 24

/* Prefix lengths an address family has: 0..32 or 0..128. */
#define PREFIX_WIDTH_MAX 128

/* How many prefixes of each length a list holds, for one family. */
struct prefix_counts {
	__u32 width;				/* 32 or 128 */
	__u64 count[PREFIX_WIDTH_MAX + 1];
};

/* The plan of one family: the target lengths, longest first, and what they cost. */
struct prefix_plan {
	__u32 ntargets;				/* probes per packet of this family */
	__u8 target[BLOOMXDP_MAX_PREFIX_LENGTHS];
	__u64 entries;				/* prefixes before expansion */
	double expanded;			/* keys after expansion */
};

/*
 * Chooses at most max_targets target lengths, among the lengths present, that
 * minimise the number of keys after expansion (each prefix of length l is
 * stored as its 2^(t-l) sub-prefixes of the shortest target t >= l): the
 * controlled prefix expansion of Srinivasan and Varghese, by dynamic
 * programming over the present lengths. No prefix is expanded by more than
 * PREFIX_MAX_EXPANSION_BITS; when max_targets cannot achieve that, expanded
 * is infinite and the load is refused.
 */
void prefix_plan(const struct prefix_counts *counts, __u32 max_targets, struct prefix_plan *plan);

/* The plan's lengths as a header word: one per byte, longest first, 0xff after. */
__u64 prefix_plan_word(const struct prefix_plan *plan);

/* The lengths of a header word, longest first; returns how many. */
__u32 prefix_word_lengths(__u64 word, __u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS]);

/*
 * The widest prefixes a list or an add takes unless --allow-wide, and the
 * widest a CrowdSec decision ever may: a /7 blocks 1/128 of IPv4.
 */
#define PREFIX_MIN_LEN_V4	8
#define PREFIX_MIN_LEN_V6	32

/* Whether an address key is a prefix shorter than PREFIX_MIN_LEN_V4 or _V6. */
bool prefix_too_wide(const struct bloomxdp_key *key);
/* Why a list line or an add is refused for one (names --allow-wide). */
extern const char prefix_too_wide_why[];

/* The family (BLOOMXDP_KEY_IPV4/6), prefix length and width of an address key. */
__u32 key_family(const struct bloomxdp_key *key);
__u32 key_prefix_len(const struct bloomxdp_key *key);
__u32 key_width(const struct bloomxdp_key *key);
/* The address bytes of a key, network order (IPv4: the first 4). */
void key_addr(const struct bloomxdp_key *key, __u8 addr[16]);

/*
 * Calls fn for each sub-prefix of length target (>= the key's length) that
 * the key's prefix covers: 2^(target - len) keys. Stops at fn's negative return.
 */
int prefix_expand(const struct bloomxdp_key *key, __u32 target,
		  int (*fn)(const struct bloomxdp_key *sub, void *ctx), void *ctx);

/* "198.51.100.0/24" of a key, into buf. */
const char *prefix_text(const struct bloomxdp_key *key, char *buf, size_t len);

#endif
