/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_RANGES_H
#define BLOOMXDP_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <bloomxdp/common.h>
#include <bloomxdp/hash.h>
#include "util/options.h"

/*
 * The exact intervals of one address family (BLOOMXDP_RANGES_WORD): the
 * list's prefixes and hosts merged into sorted disjoint intervals, bounds
 * included. IPv4 values are 0..2^32-1 in the same 128-bit type.
 */
typedef unsigned __int128 range_addr;

struct range {
	range_addr start;
	range_addr end;
};

struct range_set {
	__u32 family;		/* BLOOMXDP_KEY_IPV4 or _IPV6 */
	struct range *r;	/* sorted */
	size_t n, cap;
};

void range_set_init(struct range_set *s, __u32 family);
void range_set_free(struct range_set *s);

/* Adds the interval of an address key (a prefix or host) of s's family; -ENOMEM. */
int range_set_add_key(struct range_set *s, const struct bloomxdp_key *key);

/* Sorts and merges overlapping and adjacent intervals. */
void range_set_merge(struct range_set *s);

/*
 * The same for every address key of s's family among keys[0..n), replacing
 * s: sorted and merged. s->n is the count of intervals; they are kept (s->r)
 * only when at most keep_max (UINT64_MAX: always), else s->r is NULL.
 */
int range_set_merge_keys(struct range_set *s, const struct bloomxdp_key *keys, size_t n,
			 __u64 keep_max);

/*
 * IPv4 keys as one word each, for lists of millions: range_v4_pack() turns
 * the keys' word 0 into intervals packed as start << 32 | end, in place;
 * range_v4_sort() sorts them by start (-ENOMEM); range_set_from_packed_v4()
 * merges sorted ones into s as range_set_merge_keys() does; range_v4_key()
 * gives a packed interval's key back.
 */
void range_v4_pack(__u64 *words, size_t n);
int range_v4_sort(__u64 *packed, size_t n);
/* The same in tmp, n words of the caller's: never fails. */
void range_v4_sort_in(__u64 *packed, size_t n, __u64 *tmp);
int range_set_from_packed_v4(struct range_set *s, const __u64 *packed, size_t n,
			     __u64 keep_max);
void range_v4_key(__u64 packed, struct bloomxdp_key *key);

/*
 * Bytes of the map of n intervals (0 for none): its B+tree (common.h), 8
 * bytes an IPv4 interval in the leaves, 32 an IPv6 one, the inner levels
 * and the header besides.
 */
__u64 range_set_bytes(__u32 family, __u64 n);

/* Lines a search of n intervals reads: the header, one a level, the leaf (0 for none). */
__u32 range_set_steps(__u32 family, __u64 n);

/* The address (network order, 4 or 16 bytes) as a value of the family. */
range_addr range_addr_of(__u32 family, const void *addr);

/* The index of the interval holding addr, or -1 (binary search of the sorted set). */
long range_set_find(const struct range_set *s, range_addr addr);

/* "192.0.2.0/24", or "192.0.2.5-192.0.2.9" when not one prefix, into buf. */
const char *range_text(__u32 family, const struct range *r, char *buf, size_t len);

/*
 * The inner map of the set: an ARRAY holding its B+tree (common.h), the
 * count and shape in its header; fd, or negative errno.
 */
int range_set_create_map(const struct range_set *s);

/* Reads a generation's intervals (slot of outer_fd) back, sorted; -EINVAL if malformed. */
int range_set_open(int outer_fd, __u32 slot, __u32 family, struct range_set *s);

/* How many intervals a generation holds: 0 when it has none. */
int range_set_count(int outer_fd, __u32 slot, __u64 *n);

/*
 * The cost model of a family: its Bloom option (keys after expansion at the
 * target FPR, probes per packet) against its intervals (bytes, search steps).
 * Intervals are chosen when the expansion is refused, when it multiplies
 * the keys by more than RANGE_EXPANSION_BOUND, or when the intervals take
 * (their own bytes, a start and an end each, without the tree's fixed lines)
 * at most RANGE_MEMORY_FACTOR times the Bloom bytes, or when the Bloom filter
 * would take more than one probe and the intervals fit in range_cost.budget
 * (false drops weigh, not only bytes): they are exact. Else
 * (hosts, or prefixes of few lengths, many of them) the Bloom filter is
 * smaller by more than that, and its few probes cost less than a search.
 */
#define RANGE_EXPANSION_BOUND 4.0
#define RANGE_MEMORY_FACTOR 2.0

/* load/plan --store: the cost model's choice, or one store for every family. */
enum range_store {
	RANGE_STORE_AUTO = 0,
	RANGE_STORE_INTERVALS,
	RANGE_STORE_BLOOM,
};

extern const struct enum_value range_store_values[];

struct range_cost {
	__u64 entries;		/* prefixes and hosts of the family */
	double expanded;	/* Bloom keys after expansion (infinite: refused) */
	__u32 probes;		/* Bloom probes per packet */
	double bloom_bytes;	/* of those keys at the target FPR */
	__u64 intervals;	/* after merging */
	__u64 range_bytes;
	__u32 steps;		/* lines a search reads (range_set_steps()) */
	/*
	 * auto: intervals whenever they take at most this many bytes and the
	 * Bloom filter would take more than one probe (0: no such rule). They
	 * drop no unlisted packet; the Bloom filter's probes each may.
	 */
	__u64 budget;
	bool use_ranges;
};

/* bits_per_key: of the Bloom filter at the target FPR. Fills the costs and the choice. */
void range_cost_decide(struct range_cost *c, __u32 family, double bits_per_key,
		       enum range_store store);

/* The most intervals for which the model would choose them, given c's entries and expanded. */
__u64 range_cost_max_intervals(const struct range_cost *c, __u32 family, double bits_per_key,
			       enum range_store store);

#endif
