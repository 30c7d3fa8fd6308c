/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LISTBUILD_H
#define BLOOMXDP_LISTBUILD_H

#include <stdbool.h>
#include "parse/entries.h"
#include "filter/filter.h"
#include "parse/listfile.h"
#include "parse/prefixes.h"
#include "filter/exact.h"
#include "filter/ranges.h"

struct suffix_map;

/* Probes per packet and family by default: prefix lengths kept after expansion. */
#define LIST_DEFAULT_PREFIX_PROBES 6

/*
 * Builds a whole list into a new filter. Every key is kept until the whole
 * list is read: the prefix lengths to probe are planned from the whole list,
 * and the filter can be sized for the keys it will hold (load); then they go
 * in, prefixes expanded. Names and URLs are kept as their 64-bit keys.
 */
/* Public suffixes a list holds: the first few, and how many. */
#define LIST_SUFFIX_PLACES 3
struct list_suffixes {
	__u64 count;
	struct {
		struct list_place place;
		char name[NAME_TEXT_MAX];
	} first[LIST_SUFFIX_PLACES];
};

struct entry_set;

struct list_build {
	struct list_read_opts opts;	/* format, csv, lenient: set before reading */
	struct list_notes notes;	/* what --lenient skipped, what was widened */
	struct filter *filter;		/* filled by list_build_finish(), or NULL */
	bool bloom;			/* no filter yet: keep keys for list_build_insert() */
	struct exact_set *exact;	/* the exact copy (--verify) or the allowlist, or NULL */
	/* --verify auto: a copy that outgrows its room is left (exact set NULL), not an error. */
	bool exact_optional;
	bool exact_overflow;		/* it was left: the copy is incomplete */
	/* A named list's copy (load): each entry read goes there too; NULL: none. */
	int (*also)(void *ctx, const struct entry *e);
	void *also_ctx;
	__u64 hash_key[2];		/* of the keys and exact when there is no filter */
	bool allowlist;			/* refuse URL entries */
	__u32 max_probes;		/* per family, 1..BLOOMXDP_MAX_PREFIX_LENGTHS */
	bool progress;			/* on a terminal: a line every million entries */
	__u64 read;			/* entries read, duplicates included */
	__u64 names;			/* of which domains */
	__u64 urls;			/* and URLs (two keys each) */
	__u64 keys;			/* Bloom keys, after list_build_finish() */
	struct prefix_counts counts[2];	/* [0] IPv4, [1] IPv6 */
	struct prefix_plan plan[2];
	struct bloomxdp_key *addrs;	/* IPv6 keys */
	size_t naddrs, cap;
	/* IPv4 keys, word 0 each; after list_build_finish(), packed intervals (ranges.h), sorted */
	__u64 *v4;
	size_t nv4, v4cap;
	/* A blocklist's exceptions (@@||host^, rpz-passthru): for the allowlist. */
	struct entry *exceptions;
	size_t nexceptions, exceptions_cap;
	/* Blocked names that are public suffixes; allowed ones (never dropped) apart. */
	struct list_suffixes suffixes, allowed_suffixes;
	/* --lenient without --allow-public-suffix: blocked public suffixes skipped, noted. */
	bool skip_suffixes;
	__u64 kinds;			/* BLOOMXDP_HAS_* of the names and URLs */
	__u64 *hashes;			/* their keys */
	size_t nhashes, hcap;
	/* The IPv4 sort's second buffer, then the insert's batches (huge_realloc()). */
	__u64 *spare;
	/*
	 * Families may go to exact intervals instead of the Bloom filter (set by
	 * load and plan, which create and show them): the cost model of
	 * ranges.h decides, with the Bloom filter's bits per key at the target FPR.
	 */
	bool ranges_ok;
	__u32 store;			/* enum range_store */
	double bits_per_key;		/* 0: as at FPR 1% */
	__u64 range_budget;		/* bytes a family's intervals may take for auto (0: none) */
	struct range_cost cost[2];	/* [0] IPv4, [1] IPv6, after list_build_finish() */
	struct range_set ranges[2];	/* of the families whose cost.use_ranges */
	const struct entry_set *skip;	/* entries not to read (del), or NULL */
	/* The public suffixes (filter/suffix_map.h), or NULL; the keys blocked at their depth. */
	const struct suffix_map *public_suffixes;
	__u64 *at_public;
	size_t nat_public, at_public_cap;
};

void list_build_init(struct list_build *b, struct filter *filter, __u32 max_probes);
void list_build_free(struct list_build *b);

/*
 * Reads one list file ('-': standard input) in a format, as b->opts says
 * otherwise (csv, lenient). On error, the message is in err.
 */
int list_build_read(struct list_build *b, const char *path, enum list_format format,
		    char err[LIST_ERROR_LEN]);

/* The same from an open file (fd >= 0; else by path), named path in messages. */
int list_build_read_fd(struct list_build *b, int fd, const char *path, enum list_format format,
		       char err[LIST_ERROR_LEN]);

/* Why a public suffix is skipped (--lenient) or refused. */
extern const char list_suffix_why[];

/* "FILE:LINE (name), ..." of the first public suffixes, into buf. */
const char *list_suffixes_text(const struct list_suffixes *s, char *buf, size_t len);

/* Plans the prefix lengths and counts the keys; with a filter, inserts them all. */
int list_build_finish(struct list_build *b, char err[LIST_ERROR_LEN]);

/*
 * After list_build_finish(): the Bloom probes a packet takes per field on an
 * attachment matching match, for the filter of this list (packet_fpr.h).
 */
struct packet_probes;
void list_build_probes(const struct list_build *b, __u32 match, struct packet_probes *pp);

/* After list_build_finish() of a build with bloom set: inserts every key into f. */
int list_build_insert(struct list_build *b, struct filter *f, char err[LIST_ERROR_LEN]);

#endif
