/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_FILTER_SUFFIX_MAP_H
#define BLOOMXDP_FILTER_SUFFIX_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <bloomxdp/name.h>

#include "parse/entries.h"

/*
 * The public suffixes as the XDP program sees them: the suffixes map
 * (BLOOMXDP_PIN_SUFFIXES), name key -> BLOOMXDP_SUFFIX_* flags (see
 * include/bloomxdp/name.h). attach writes the rules of the Public Suffix List
 * (Debian's publicsuffix package); each load marks, in the generation slot it
 * fills, the keys its list holds at a public depth before it swaps. A copy
 * in memory, read from the map, answers what the program would.
 */
struct suffix_map {
	__u64 *key;
	__u32 *flags;		/* 0: a free slot */
	size_t cap;		/* a power of two */
	size_t n;
};

/* Where the rules are read from at attach. */
#define SUFFIX_LIST_FILE "/usr/share/publicsuffix/public_suffix_list.dat"

void suffix_map_init(struct suffix_map *s);
void suffix_map_free(struct suffix_map *s);

/* Flags of key (0 when absent); adds flags to key's (-ENOMEM, -E2BIG past the map's room). */
__u32 suffix_map_flags(const struct suffix_map *s, __u64 key);
int suffix_map_or(struct suffix_map *s, __u64 key, __u32 flags);

/*
 * The rules of a Public Suffix List file (the text format), keyed with
 * hash_key. Returns the rules kept, or a negative errno (-ENOENT: no file).
 */
int suffix_map_parse(struct suffix_map *s, const __u64 hash_key[2], const char *path);

/* attach: the rules of SUFFIX_LIST_FILE into the map; returns their count or -errno. */
int suffix_map_fill(int map_fd, const __u64 hash_key[2]);

/*
 * A new hash key (restore --file of another attachment's file): the rules
 * keyed with it are added beside the old ones before the program with that
 * key runs (suffix_map_fill), and suffix_map_prune() removes every other key
 * once no packet reads with the old key. Returns 0 or -errno.
 */
int suffix_map_prune(int map_fd, const __u64 hash_key[2]);

/* Every key and flags of the map. */
int suffix_map_read(struct suffix_map *s, int map_fd);

/* The rules of name's two longest host suffixes only, from the map (add, query). */
int suffix_map_lookup(struct suffix_map *s, int map_fd, const __u64 hash_key[2],
		       const char *name);

/*
 * Whether host suffix j of a name is public, as the XDP program decides:
 * suffix[] as name_suffix_hashes() returns them.
 */
bool suffix_map_public(const struct suffix_map *s, const __u64 *suffix, int j);

/*
 * The key an entry adds at a public depth, which the program then confirms
 * exactly (a public suffix or single label listed, or a URL on such a host):
 * 1 with *key set, or 0.
 */
int suffix_map_entry(const struct suffix_map *s, const __u64 hash_key[2],
		      const struct entry *e, __u64 *key);

/*
 * Generation slot holds exactly keys[0..n) at public depths: its listed bits
 * set on them and cleared elsewhere (keys are sorted in place). For the slot
 * being filled, before the swap. -E2BIG past the map's room.
 */
int suffix_map_sync(int map_fd, __u32 slot, __u64 *keys, size_t n);

/* Adds keys[0..n) to slot's listed keys (add: the live slot, before the filter). */
int suffix_map_mark(int map_fd, __u32 slot, const __u64 *keys, size_t n);

#endif
