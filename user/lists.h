/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The live list of an attachment: load (replace it, atomically), add (insert
 * in place), query (decide an entry as the XDP program would). The CLI
 * (cmd_list.c) and long-running callers use the same functions. Each prints
 * its result on stdout and one-line errors on stderr; returns 0 or -errno,
 * and on error the live list is as it was (add: as the message says).
 */
#ifndef BLOOMXDP_LISTS_H
#define BLOOMXDP_LISTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "options.h"
#include "entries.h"
#include "filter.h"
#include "listfile.h"

struct attachment;

struct list_opts {
	__u32 format;		/* enum list_format */
	__u64 prefix_probes;
	__u32 store;		/* enum range_store: --store */
	bool allow;		/* load/add the allowlist */
	bool allow_empty;	/* load: an input without entries may empty the list */
	bool lenient;		/* load: skip the lines that cannot be honoured, and say so */
	bool allow_public_suffix;	/* load/add: block public suffixes (edu.pl) too */
	const char *column;	/* --format csv: "N" or "N,M" */
	struct file_list where;	/* --format csv: "COL=VALUE", repeatable */
	__u64 max_memory;	/* load: bytes a generation may take, from now on */
	bool max_memory_given;
};

/* files: paths, or LIST_STDIN; read and checked as a whole before anything changes. */
int list_load(const char *ifname, const struct list_opts *o, char **files, int nfiles);

/* One input of a load, read as its own options say (format, lenient, csv, public suffixes). */
struct list_source {
	const char *path;		/* or LIST_STDIN; outlives the load (FILE:LINE in notes) */
	const struct list_opts *opts;
};
/*
 * list_load() of sources read each with its options; o gives the rest
 * (allow, allow_empty, prefix_probes, store, max_memory).
 */
int list_load_sources(const char *ifname, const struct list_opts *o,
		      const struct list_source *src, int n);
/*
 * Reads and checks sources as list_load_sources() would, without the kernel:
 * *entries read; on error the message (FILE:LINE: ...) in err.
 */
int list_check_sources(const struct list_opts *o, const struct list_source *src, int n,
		       __u64 *entries, char err[LIST_ERROR_LEN]);
/* entries: one address, prefix, range, domain or URL each; all parsed before any insert. */
int list_add(const char *ifname, const struct list_opts *o, char **entries, int n);
int list_query(const char *ifname, const struct list_opts *o, char **entries, int n);

/* Shared by load, add and query (list_common.c). */

/* The entries of command-line arguments (a range is several), and the argument of each. */
struct parsed_args {
	struct entry *e;
	int *arg;
	size_t n, cap;
	int current;
};

void parsed_args_free(struct parsed_args *p);
/* One command-line argument, its entries into p; after ends the error line. */
int parse_arg(const char *arg, enum list_format format, struct parsed_args *p, const char *after);

/* Says once when the list holds kinds of entries the attachment never examines. */
void warn_unmatched_kinds(const struct filter *f, const struct bloomxdp_config *cfg,
			  const char *ifname);
/* Distinct keys in a filter: from the fill where readable, else the keys inserted. */
double filter_keys_now(const struct filter *f, const struct bloomxdp_state *st);
/* Into the live allowlist, in place; *added: how many made it when one fails. */
int allowlist_insert(struct attachment *att, const struct entry *e, size_t n, size_t *added);

#endif
