/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_EXACT_H
#define BLOOMXDP_EXACT_H

#include <stdbool.h>
#include "parse/entries.h"

/*
 * An exact set: the list itself, in the kernel. Two kinds:
 *  - LPM (the allowlist): addresses and prefixes in an LPM trie per family
 *    (the original prefixes, not expanded; the value is the prefix length),
 *    names and URLs as their 64-bit keys in a third trie;
 *  - hashed (the exact stage of --verify, which the program reads after a
 *    Bloom hit and must find in one step): hosts in a hash map per family
 *    (the address is the key), names and URLs' 64-bit keys in a hash map,
 *    prefixes in exact intervals (ranges.h) made from an LPM trie per family
 *    that only the CLI reads (what add, del and query work on).
 * Hash maps take memory for their room (16 bytes a bucket) from the start:
 * they begin small and grow (exact_set_add makes a twice larger one and
 * moves the keys), so that a load's copy is sized for its list.
 */
struct exact_set {
	int v4_fd;		/* LPM: every address; hashed: hosts */
	int v6_fd;
	int names_fd;
	int p4_fd;		/* hashed: prefixes (LPM, the CLI's), else -1 */
	int p6_fd;
	bool hashed;
	bool grown;		/* hashed: a map was replaced by a larger one (install again) */
	bool prefixes_changed;	/* hashed: the intervals must be made again */
	bool hosts_changed;	/* hashed: the tables of hosts must be made again */
	bool keyed;		/* addr_key is set (the first add or remove sets it) */
	int table_fd[2];	/* hashed: the hosts' tables (exact_table.h) made, else -1 */
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS];	/* the program's, for the tables */
	__u32 room[3];		/* hashed: max_entries of v4, v6, names */
	__u32 max_room;		/* hashed: the most they grow to (-ENOSPC past it) */
	__u64 added[3];		/* keys this process inserted: IPv4, IPv6, names */
	__u64 added_prefixes[2];
	/*
	 * Deferred (exact_set_defer()): a hashed set's hosts and name keys kept
	 * here as they are read, put into its maps by exact_set_flush() in
	 * batches, or left when more than max_room differ (no map is filled
	 * then only to be thrown away: 10M hosts took 16 s of a load).
	 */
	bool deferred;
	__u8 *pend[3];		/* the keys not in the maps yet, of each map's key size */
	__u64 npend[3];
	__u64 pend_cap[3];
	__u64 pend_check[3];	/* npend at which duplicates are taken out and the count judged */
};

/*
 * The outer maps (ARRAY_OF_MAPS) of one kind of set: verify_* or allow_*.
 * verify_* also has the prefixes' tries and intervals (-1 for allow_*).
 */
struct exact_outer {
	int v4_fd;
	int v6_fd;
	int names_fd;
	int p4_fd;
	int p6_fd;
	int r4_fd;
	int r6_fd;
	int t4_fd;		/* verify_table_v4/v6: the hosts' tables, when a set has them */
	int t6_fd;
};

void exact_set_init(struct exact_set *x);
/* Empty maps able to hold max_entries entries each (kind LPM). */
int exact_set_create(struct exact_set *x, __u32 max_entries);
/* Kind hashed: small hash maps that grow to max_entries, prefix tries of max_entries. */
int exact_set_create_hashed(struct exact_set *x, __u32 max_entries);

/* Room of each exact map for a filter of capacity: twice it, for lists that exceed it. */
__u32 exact_room(__u64 capacity);

/*
 * Room of each exact map of a load: LPM tries allocate per entry, so the room
 * is only a bound, set where the entries alone would take max_memory bytes
 * (at least EXACT_ENTRY_BYTES each, as the kernel accounts them), so that a
 * list too large for it stops as it is read. What the set takes is checked
 * after, with exact_set_bytes().
 */
#define EXACT_ENTRY_BYTES 24
__u32 exact_room_for_memory(__u64 max_memory);
void exact_set_close(struct exact_set *x);

/* A hashed set keeps hosts and names aside until exact_set_flush(). */
void exact_set_defer(struct exact_set *x);
/* The keys kept aside into the maps; -ENOSPC (a few in, to tell their size) when too many. */
int exact_set_flush(struct exact_set *x);

/* Adds an entry; hash_key hashes names as the filter does. -ENOSPC when full. */
int exact_set_add(struct exact_set *x, const __u64 hash_key[2], const struct entry *e);

/* del: the entry out of the set (0 when it was not there). */
int exact_set_remove(struct exact_set *x, const __u64 hash_key[2], const struct entry *e);
/* The same for n entries: hosts and names in one batch per hash map (del of many). */
int exact_set_remove_many(struct exact_set *x, const __u64 hash_key[2], const struct entry *e,
			  int n);
/* True when the set holds the entry, or (addresses) a prefix covering it. */
bool exact_set_has(const struct exact_set *x, const __u64 hash_key[2], const struct entry *e);

/* For an address: 0, or 1 + the length of the longest listed prefix covering it. */
int exact_set_match_len(const struct exact_set *x, const struct bloomxdp_key *addr);

/* The 64-bit key of a name or URL entry, as the Bloom filter holds it. */
__u64 exact_entry_key(const __u64 hash_key[2], const struct entry *e);
/* True when the names map holds a 64-bit name or URL key. */
bool exact_set_has_key(const struct exact_set *x, __u64 key);

/*
 * Puts the set in generation slot of the outer maps, or opens the one there.
 * A hashed set's intervals are made from its prefixes then (none: the slot
 * has none), the tries and hash maps put in last but names (what the program
 * tests for an exact copy), which goes first. The hosts' tables are made
 * then (exact_table.h), where the list is small enough.
 */
int exact_set_install(const struct exact_outer *o, __u32 slot, struct exact_set *x);
/*
 * After an add or del to the live generation's hashed set: maps that grew and
 * intervals whose prefixes changed replace those of slot (each one update).
 */
int exact_set_update_live(const struct exact_outer *o, __u32 slot, struct exact_set *x);
int exact_set_open(const struct exact_outer *o, __u32 slot, struct exact_set *x);
/* Empties generation slot of the outer maps (their maps are freed when unused). */
void exact_outer_clear(const struct exact_outer *o, __u32 slot);

/*
 * Bytes the maps of a set take, as the kernel accounts them (memlock in
 * /proc/self/fdinfo) where it accounts what a map holds (Linux 6.4 on); an
 * older kernel reports the room of max_entries there, so for a set this
 * process filled the same sum is made from the keys it inserted (a hashed
 * set's buckets from its room), and its intervals' bytes added.
 */
__u64 exact_set_bytes(const struct exact_set *x);
/* The same from the keys this process inserted, as 6.4 accounts them (what 6.1 gets). */
__u64 exact_set_bytes_estimate(const struct exact_set *x);

/* "auto", "on", "off": attach --verify's mode (config.verify). */
const char *verify_mode_name(__u32 mode);
/* The most bytes an exact copy may take in mode auto: a quarter of max_memory. */
__u64 verify_auto_limit(__u64 max_memory);
/* True when generation slot has an exact copy (the program confirms its Bloom hits). */
bool exact_outer_has(const struct exact_outer *o, __u32 slot);
/*
 * Why the live generation's exact stage is on or off, one line for status:
 * "exact stage off: 10000000 keys need 640 MB, more than 64 MB". on: the
 * slot has a copy; st: the generation's bookkeeping.
 */
void verify_reason(__u32 mode, bool on, const struct bloomxdp_state *st, char *buf,
		   size_t len);
__u64 map_fd_bytes(int fd);
/*
 * A hashed set's tables of hosts (exact_table.h) made from its hash maps now
 * (exact_set_install() does; plan, to measure them). None of a family that
 * cannot have one.
 */
void exact_set_tables(struct exact_set *x);
/* The same of the tables in generation slot of the outer maps (0: none). */
__u64 exact_outer_table_bytes(const struct exact_outer *o, __u32 slot);
/* Bytes of the hosts' tables of a set (exact_table.h), in exact_set_bytes() too. */
__u64 exact_set_table_bytes(const struct exact_set *x);

/* The kernel's ENOTSUPP (not in the C library's errno.h): e.g. a map without batches. */
#define KERNEL_ENOTSUPP 524

#endif
