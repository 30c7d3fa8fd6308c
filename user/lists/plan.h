/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LISTS_PLAN_H
#define BLOOMXDP_LISTS_PLAN_H

#include <stdbool.h>
#include <linux/types.h>
#include "filter/bloom_plan.h"
#include "filter/packet_fpr.h"
#include "lists/build.h"
#include "util/options.h"

/* plan's options (cli/cmd_plan.c's table writes them). */
struct plan_opts {
	__u64 capacity;
	bool capacity_given;
	double fpr;
	struct file_list lists;
	__u32 format;		/* enum list_format */
	__u64 prefix_probes;
	__u32 store;		/* enum range_store: --store */
	bool verify;
	__u32 layout;
	bool lenient;
	bool allow_wide;
	const char *column;
	struct file_list where;
	__u32 match;		/* BLOOMXDP_MATCH_*: the probes per packet */
};

/* What a list makes of the plan: counts, expansion, exact bytes. */
struct list_report {
	struct list_build build;
	__u64 keys;		/* Bloom keys after expansion */
	__u64 exact_bytes;	/* with --verify: LPM tries and hash map, kernel accounting */
	__u64 table_bytes;	/* of them, the hosts' tables (a small list: exact_table.h) */
	bool verify;
	struct bloom_plan load;	/* the filter a load of the list makes */
	bool load_planned;
	struct packet_probes probes;	/* per packet and field, on an attachment of --match */
	double target;		/* --fpr, per packet */
	double probe_fpr;	/* per probe, what a load sizes for */
	double load_fpr;	/* per key of the load's filter with the list's keys */
};

/*
 * Reads o's lists into r as a load would (prefixes planned; with o->verify the
 * exact copy built to measure it). Errors and notes are logged.
 */
int plan_lists_read(struct list_report *r, const struct plan_opts *o);
/* The filter a load of r's list makes with k = hashes, sized per packet for o->match. */
void plan_lists_load(struct list_report *r, const struct plan_opts *o, __u32 hashes);

#endif
