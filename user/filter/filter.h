/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_FILTER_H
#define BLOOMXDP_FILTER_H

#include <stdbool.h>
#include <bloomxdp/common.h>
#include <bloomxdp/hash.h>

/* A filter map, mmap-ed: the same words the XDP program reads. */
struct filter {
	int map_fd;		/* -1 for a filter in plain memory */
	__u64 *words;		/* the header words, then the bit array */
	size_t bytes;		/* of words, header included */
	__u32 bits;		/* m of this filter (its header word BLOOMXDP_HDR_BITS) */
	__u32 hashes;
	__u32 layout;		/* enum bloomxdp_layout */
	const struct layout_ops *ops;	/* of layout */
	int kbloom_fd;		/* the map of a layout that is not readable, else -1 */
	__u64 capacity;		/* keys it is sized for (layout kernel: its max_entries) */
	__u64 hash_key[2];
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS];	/* derived from hash_key */
	struct bitcounts *counts;	/* or NULL: counted as bits are set (bitcounts.h) */
	__u64 *map_words;	/* while staged (filter_stage()): the map's words, else NULL */
	/* Lookups (entry_keys_lookup()) as the program: the public suffixes, or NULL. */
	const struct suffix_map *public_suffixes;
	__u32 slot;		/* the generation whose listed keys they confirm */
};

struct bitcounts;
struct suffix_map;

struct bloom_plan;

/*
 * Creates a new, empty filter map of cfg's layout, k and hash key, sized by
 * plan (its bits and capacity): not yet live.
 */
int filter_create_plan(const struct bloomxdp_config *cfg, const struct bloom_plan *plan,
		       struct filter *f);

/* The same at attach's size: cfg->bits for cfg->capacity keys. */
int filter_create(const struct bloomxdp_config *cfg, struct filter *f);

/*
 * A new filter, not live yet, built aside: its words in private memory on
 * huge pages (the map's mmap is on 4 KiB pages, and a load writes them at
 * random) until filter_unstage() copies them into the map. filter_stage()
 * fails on nothing: without the memory the filter is built in place.
 */
void filter_stage(struct filter *f);
void filter_unstage(struct filter *f);

/* A filter in plain memory, for tests and tools: no map. Free with filter_close(). */
int filter_init_memory(const struct bloomxdp_config *cfg, struct filter *f);

/*
 * Opens the filter that generation slot of the outer map holds now, with the
 * geometry it has (each generation is sized for its list): m from its header,
 * checked against the map's size. -EPROTO when they disagree.
 */
int filter_open(int outer_fd, __u32 slot, const struct bloomxdp_config *cfg, struct filter *f);

/* Puts f in generation slot of the outer map (live once that slot is active). */
int filter_install(int outer_fd, __u32 slot, const struct filter *f);

/* The same for the kernel Bloom filter of layout "kernel" (a no-op for the others). */
int filter_install_kernel(int kouter_fd, __u32 slot, const struct filter *f);
int filter_open_kernel(int kouter_fd, __u32 slot, struct filter *f);

void filter_close(struct filter *f);

/* Sets the k bits of a hash; returns true when at least one bit was new. */
bool filter_insert_hash(struct filter *f, __u64 hash);

/*
 * The same for many hashes (a whole list into a new filter), faster: the
 * words of later hashes are fetched while earlier ones are set.
 */
void filter_insert_hashes(struct filter *f, const __u64 *hashes, size_t n);
/* The same with room for n hashes of the caller's (a blocked filter sorts them there), or NULL. */
void filter_insert_hashes_in(struct filter *f, const __u64 *hashes, size_t n, __u64 *spare);

/* The hash of an address or prefix key that the filter and the XDP program use. */
__u64 filter_key_hash(const struct filter *f, const struct bloomxdp_key *key);

/*
 * del of one key of f->counts: with check, only whether each of its bits is
 * counted (-EUCLEAN when one is not: the counters do not hold it); else one
 * key less on each, each bit whose counter falls to zero cleared in place (one
 * word store: the XDP program may read it now). *cleared: bits cleared.
 */
int filter_count_remove(struct filter *f, __u64 hash, bool check, __u64 *cleared);

/* True when every bit of the hash is set: listed, or a false positive. */
bool filter_test_hash(const struct filter *f, __u64 hash);

/*
 * The same for an address or prefix key, hashed with the filter's key; the
 * header records its family and length (if a length slot is free: callers
 * that insert prefixes plan the lengths first, see filter/entry_keys.c).
 */
bool filter_insert(struct filter *f, const struct bloomxdp_key *key);
bool filter_test(const struct filter *f, const struct bloomxdp_key *key);

/* Set bits in the filter's bit array (for the fill ratio). */
__u64 filter_popcount(const struct filter *f);

/* Bytes of its maps, header words included (layout kernel: both maps). */
__u64 filter_map_bytes(const struct filter *f);

/* The header words (BLOOMXDP_HDR_*); a new filter has no kinds and no lengths, and its m. */
__u64 filter_header_word(const struct filter *f, __u32 word);
void filter_header_word_set(struct filter *f, __u32 word, __u64 value);
void filter_header_clear(struct filter *f);

/* The kinds word: which kinds of keys the filter holds (BLOOMXDP_HAS_*); set adds. */
__u64 filter_header(const struct filter *f);
void filter_header_set(struct filter *f, __u64 kinds);

/*
 * Adds a prefix length to those probed for a family (BLOOMXDP_KEY_IPV4/6),
 * kept longest first: 0, or -ENOSPC when BLOOMXDP_MAX_PREFIX_LENGTHS are
 * taken already.
 */
int filter_length_add(struct filter *f, __u32 family, __u32 len);

#endif
