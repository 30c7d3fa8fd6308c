/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the list operations did, as values: each fills its result as it goes
 * (on an error, what it did before it), and its caller prints it (*_print():
 * the lines the commands have always printed, to the stream the caller
 * gives: a command's standard output, the daemon's log). Warnings and errors
 * go through the log as they happen (util/log.h).
 */
#ifndef BLOOMXDP_REPORT_H
#define BLOOMXDP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <net/if.h>
#include <linux/types.h>

#include <bloomxdp/common.h>
#include "filter/ranges.h"
#include "parse/prefixes.h"

/* A named list a load replaced. */
struct load_named_result {
	char name[BLOOMXDP_LIST_NAME_MAX + 1];
	__u64 entries;
	__u32 action;		/* enum bloomxdp_list_action it has (attach's if not its own) */
	bool dropped;		/* loaded empty: no longer a list */
};

/* load (and a rebuild, a restore from the state): the new generation. */
struct load_result {
	char ifname[IFNAMSIZ];
	size_t exceptions;	/* the list's exceptions added to the allowlist, before the swap */
	bool allowlist;		/* the allowlist was swapped in (its entries: entries) */
	bool swapped;		/* the blocklist's generation was swapped in: all below is set */
	int nnamed;
	struct load_named_result named[BLOOMXDP_MAX_LISTS];
	__u64 entries;		/* read, duplicates included */
	double seconds;		/* from the start of the load to the swap */
	bool is_union;		/* of named lists */
	struct prefix_plan plan[2];	/* IPv4, IPv6 prefixes */
	struct range_cost cost[2];
	/* The new filter. */
	__u64 capacity, keys, previous_capacity, bytes;
	double key_fpr, packet_fpr, fpr;
	__u32 probes;
	char verify[160];	/* what --verify did with the generation; "" when off */
	__u64 kept;		/* entries added with --timeout the new list keeps */
};

/* add (and del --list, which rebuilds): what went where. */
struct add_result {
	char ifname[IFNAMSIZ];
	char list[BLOOMXDP_LIST_NAME_MAX + 1];
	bool making;		/* --list NAME was not a list: loaded from the entries (load) */
	bool added;		/* into the live list in place */
	bool allow;		/* ... the allowlist */
	int n;			/* entries given */
	size_t entries;		/* what they make (a range is several prefixes) */
	__u64 inserted;		/* keys not already in the filter */
	bool rebuilding;	/* past the room of the filter: rebuilt from the state (load) */
	struct load_result load;
};

/* del. */
struct del_result {
	char ifname[IFNAMSIZ];
	char list[BLOOMXDP_LIST_NAME_MAX + 1];	/* del --list: out of its state, then rebuilt */
	bool allow;
	bool deleted;
	__u64 n;		/* entries deleted (del --list: arguments) */
	__u64 cleared;		/* bits cleared in the filter */
	__u64 unlearned;	/* addresses deleted from the learned map (load --learn) */
	struct load_result load;	/* del --list: the rebuild */
};

struct learned_view;

/* query: one verdict per entry, in order. */
enum query_said {
	QUERY_NOT_BLOCKED,
	QUERY_BLOCKED,
	QUERY_PREFIX,		/* text: the listed prefix the exact copy matched */
	QUERY_RANGE,		/* text: the listed interval */
	QUERY_FILTER_PREFIX,	/* text: the prefix the filter alone matches */
	QUERY_LISTED,		/* text: the listed entry that covers it (the state's copy) */
	QUERY_FALSE_POSITIVE,	/* a Bloom hit the list as last applied does not hold */
	QUERY_NAMED,		/* text: the named lists holding it; monitored or blocked */
	QUERY_IN_LIST,		/* query --list: text is the list */
	QUERY_NOT_IN_LIST,
	/* text: the learning list; learned: the entry; allowed: the allowlist wins */
	QUERY_LEARNED,
};

struct query_verdict {
	const char *arg;	/* the entry as given */
	enum query_said said;
	bool monitored;		/* QUERY_NAMED: the strongest list holding it monitors */
	char *text;
	struct learned_view *learned;	/* QUERY_LEARNED */
	bool allowed;
};

struct query_result {
	struct query_verdict *v;
	size_t n, cap;
};

void query_result_free(struct query_result *r);

/* save: the file written. */
struct save_result {
	char ifname[IFNAMSIZ];
	const char *path;
	__u64 entries, keys, bytes;
	char saved_by[32];	/* the version of bloomxdp it records (savefile.h's writer) */
	bool saved;
};

/* restore --file, a fleet's version: the saved filter swapped in. */
struct restore_result {
	char ifname[IFNAMSIZ];
	const char *path;
	__u64 entries, keys;
	__u64 created_ns;	/* when it was saved */
	char saved_by[32];	/* by which bloomxdp; "": an older one (format version 1) */
	bool rekeyed;		/* with the file's hash key: the program replaced in place */
	bool restored;
};

/* Empty results of an operation on ifname. */
void load_result_init(struct load_result *r, const char *ifname);

void load_result_print(const struct load_result *r, FILE *out);
void add_result_print(const struct add_result *r, FILE *out);
void del_result_print(const struct del_result *r, FILE *out);
void query_result_print(const struct query_result *r, FILE *out);
/* query --json: an array of {"entry", "verdict", "blocked", "text", "monitored", ...}. */
struct json;
void query_result_json(const struct query_result *r, struct json *j);
void query_result_write_json(const struct query_result *r, FILE *out);
void save_result_print(const struct save_result *r, FILE *out);
void restore_result_print(const struct restore_result *r, FILE *out);

#endif
