/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The live list of an attachment: load (replace it, atomically), add (insert
 * in place), del (take out in place), query (decide an entry as the XDP
 * program would). The CLI (cli/cmd_list.c) and long-running callers use the
 * same functions. Each fills its result (report.h), which its caller prints,
 * and says its errors and warnings on stderr (util/log.h); returns 0 or
 * -errno, and on error the live list is as it was (add: as the message says).
 */
#ifndef BLOOMXDP_LISTS_H
#define BLOOMXDP_LISTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "util/options.h"
#include "parse/entries.h"
#include "filter/exact.h"
#include "filter/filter.h"
#include "parse/listfile.h"
#include "kernel/state_dir.h"

struct attachment;
struct add_result;
struct del_result;
struct load_result;
struct query_result;

struct list_opts {
	__u32 format;		/* enum list_format */
	__u64 prefix_probes;
	__u32 store;		/* enum range_store: --store */
	bool allow;		/* load/add the allowlist */
	__u32 action;		/* load --list: enum bloomxdp_list_action (--action) */
	bool action_given;
	bool learn;		/* load --list --learn: BLOOMXDP_LIST_LEARN */
	bool allow_empty;	/* load: an input without entries may empty the list */
	bool lenient;		/* load: skip the lines that cannot be honoured, and say so */
	bool allow_public_suffix;	/* load/add: block public suffixes (edu.pl) too */
	bool allow_wide;	/* load/add: prefixes shorter than /8, /32 too (prefixes.h) */
	__u64 timeout;		/* add: seconds (OPT_DURATION) until each entry expires; 0: never */
	bool state_only;	/* del (expiry, restore): the state only, not the live list */
	const char *column;	/* --format csv: "N" or "N,M" */
	struct file_list where;	/* --format csv: "COL=VALUE", repeatable */
	__u64 max_memory;	/* load: bytes a generation may take, from now on */
	bool max_memory_given;
	/* The state's root (lists/state_dir.h): NULL for $BLOOMXDP_STATE_DIR, else the default. */
	const char *state_dir;
	const char *list;	/* --list NAME: a named list; NULL: the default list */
};

/* files: paths, or LIST_STDIN; read and checked as a whole before anything changes. */
int list_load(const char *ifname, const struct list_opts *o, char **files, int nfiles,
	      struct load_result *r);

/* One input of a load, read as its own options say (format, lenient, csv, public suffixes). */
struct list_source {
	const char *path;		/* or LIST_STDIN; outlives the load (FILE:LINE in notes) */
	const struct list_opts *opts;
	__u64 *entries;			/* if set: the entries read from it (duplicates too) */
};
/*
 * list_load() of sources read each with its options; o gives the rest
 * (allow, allow_empty, prefix_probes, store, max_memory).
 */
int list_load_sources(const char *ifname, const struct list_opts *o,
		      const struct list_source *src, int n, struct load_result *r);
/*
 * Reads and checks sources as list_load_sources() would, without the kernel:
 * *entries read; on error the message (FILE:LINE: ...) in err.
 */
int list_check_sources(const struct list_opts *o, const struct list_source *src, int n,
		       __u64 *entries, char err[LIST_ERROR_LEN]);
/* entries: one address, prefix, range, domain or URL each; all parsed before any insert. */
int list_add(const char *ifname, const struct list_opts *o, char **entries, int n,
	     struct add_result *r);
/* A verdict per entry into r (query_result_free() it); -EINVAL when one is not an entry. */
int list_query(const char *ifname, const struct list_opts *o, char **entries, int n,
	       struct query_result *r);
/* entries: each taken out of the live list and its state (lists/del.c). */
int list_del(const char *ifname, const struct list_opts *o, char **entries, int n,
	     struct del_result *r);

/*
 * The inputs of a load, and what the state records of them (lists/persist.c):
 * each input is read from its copy in the state directory, made as it is
 * read (the load then reads exactly what it records), or, for restore and a
 * rebuild, from the copies and journals a load recorded before.
 */
struct list_input {
	const char *name;	/* in messages */
	int fd;			/* what is read; -1: the file name itself */
	enum list_format format;
	int copy_index;		/* its copy in list_inputs.copies, or -1 */
	const struct list_opts *opts;	/* read as these say; NULL: the load's */
	__u64 *entries;			/* list_source.entries */
};

/* Entries by value (kind, key, name, path), for del: sorted fingerprints, then exact compare. */
struct entry_set {
	struct entry_set_item *items;
	size_t n, cap;
	bool sorted;
};

void entry_set_free(struct entry_set *s);
int entry_set_add(struct entry_set *s, const struct entry *e);
/* Sorts it if needed: not const for that, once. */
void entry_set_sort(struct entry_set *s);
bool entry_set_has(const struct entry_set *s, const struct entry *e);
/* The first added equal to e, by its order of addition; -1 when none. */
long entry_set_find(const struct entry_set *s, const struct entry *e);
bool entry_same(const struct entry *a, const struct entry *b);
/* 64 bits of what makes an entry (FNV-1a): equal for the same entry from any format. */
__u64 entry_fingerprint(const struct entry *e);
/* The entries del took out of the copies of a list: "<which>-<serial>.deleted", arguments. */
void state_deleted_name(const char *which, unsigned long long serial, char *out, size_t len);

struct list_inputs {
	struct list_input *in;
	int n;
	const char *which;	/* STATE_BLOCK, STATE_ALLOW or which_buf */
	char which_buf[STATE_NAME_MAX];	/* a named list's "list.NAME" */
	bool recording;		/* the state directory is usable */
	bool keep;		/* the inputs are the state's own: recorded as they were */
	struct state_dir sd;	/* a handle of its own on the operation's state directory */
	int state_err;		/* why there is none (-ENOENT: none there) */
	struct state_copy *copies;
	int ncopies;
	struct state_list list;
	struct entry_set deleted;	/* of the copies (keep: read from the state) */
	char *parsed;		/* the recorded options' text, cut: their values point in */
	char pending[STATE_NAME_MAX];	/* the manifest prepared, not yet named */
	struct list_opts *src_opts;	/* sources' own recorded options */
	char **src_parsed;		/* ... their text, as parsed */
	int nsrc_opts;
};

/*
 * The inputs of a load to come, recorded in the state directory sd (the one
 * the load opened; NULL: o's, opened here and made if missing). Where there
 * is none that can be used, warned, and the load is not recorded
 * (in->recording false, in->state_err why).
 */
void list_inputs_open(struct list_inputs *in, const struct state_dir *sd, const char *ifname,
		      const struct list_opts *o);
/* Its sources, each copied into the state as read, with its options where not the load's. */
int list_inputs_add(struct list_inputs *in, const struct list_opts *o,
		    const struct list_source *src, int n);
/* Sources only read (their checks, without state or kernel). */
int list_inputs_plain(struct list_inputs *in, const struct list_opts *o,
		      const struct list_source *src, int n);
/*
 * A list as the state directory sd last recorded it: which is STATE_BLOCK,
 * STATE_ALLOW or "list.NAME"; its copies (their SHA-256 checked with
 * check_copies) and journals; with o, its load's options into o. -ENOENT
 * unprinted when there is none; other errors printed when messages.
 */
int list_inputs_state_at(struct list_inputs *in, const struct state_dir *sd, const char *which,
			 bool messages, bool check_copies, struct list_opts *o);
/* The same in the state of ifname under state_dir, opened for it (o->state_dir set). */
int list_inputs_state_which(struct list_inputs *in, const char *ifname, const char *state_dir,
			    const char *which, bool messages, bool check_copies,
			    struct list_opts *o);
/* ... of the blocklist, or the allowlist, its copies checked. */
int list_inputs_state(struct list_inputs *in, const char *ifname, const char *state_dir,
		      bool allow, bool messages, struct list_opts *o);
/* The manifest of the list o names: STATE_ALLOW, STATE_BLOCK or "list.NAME" into buf. */
const char *list_opts_which(const struct list_opts *o, char buf[STATE_NAME_MAX]);
/*
 * The list as applied, under generation, in two steps: before the swap, its
 * copies named and its manifest written and fsync'd under a temporary name
 * (a full or failing disk then changes nothing: printed, the load refused);
 * after it, the manifest given its name (list_inputs_publish()). commit: both.
 */
int list_inputs_prepare(struct list_inputs *in, const struct list_opts *o, __u64 generation,
			__u64 max_memory);
int list_inputs_publish(struct list_inputs *in);
int list_inputs_commit(struct list_inputs *in, const struct list_opts *o, __u64 generation,
		       __u64 max_memory);
void list_inputs_free(struct list_inputs *in);
/* list_read_opts.tee of an input with a copy (ctx: its struct state_copy). */
int list_input_tee(void *ctx, const void *buf, size_t n);
/*
 * add: the entries, as given, onto the journal of the list as last applied
 * in sd (fsync'd); *before: its length before, for list_state_unjournal().
 * -ENOENT unprinted when there is no state.
 */
int list_state_journal(const struct state_dir *sd, const struct list_opts *o, char **entries,
		       int n, off_t *before);
void list_state_unjournal(const struct state_dir *sd, const struct list_opts *o, off_t before);
/* 0 when the state records the list as live at generation; -ESTALE, -ENOENT when not. */
int list_state_current_at(const struct state_dir *sd, bool allow, __u64 generation);
int list_state_current(const char *ifname, const char *state_dir, bool allow, __u64 generation);
/* The named list name no longer: out of the union, its copy and its state. */
int list_drop(const char *ifname, const char *state_dir, const char *name, struct load_result *r);
/* Every list (the default one and the named ones) rebuilt from the state, as restore does. */
int list_rebuild(const char *ifname, const struct state_dir *sd, struct load_result *r);
/* A load of inputs into an open attachment: what list_load() does with its files. */
int list_load_inputs(struct attachment *att, const struct list_opts *o, struct list_inputs *in,
		     struct load_result *r);

/* Shared by load, add, del and query (lists/common.c). */

/* The state directory of one operation (add, del): opened once, when first needed. */
struct op_state {
	const char *ifname;
	const char *state_dir;	/* --state-dir, or NULL (state_root()) */
	struct state_dir sd;
	int err;		/* why it could not be opened (-ENOENT: there is none) */
	bool tried;
};

/* 0 when open, else why not (-ENOENT unprinted; other errors printed, once). */
int op_state_get(struct op_state *s);
void op_state_close(struct op_state *s);

/* The live blocklist generation, as add, del and query open it. */
struct live_filter {
	__u32 slot;
	struct filter f;		/* its kernel map too, with layout kernel */
	struct exact_set exact;		/* its load's exact copy (--verify); names_fd < 0: none */
	struct bloomxdp_state st;	/* its bookkeeping */
};

/*
 * Opens it; with exact, its exact copy if its load made one (kept whole even
 * under --verify off: attach --force may turn the stage on again). -errno,
 * unprinted; live_filter_close() it either way.
 */
int live_filter_open(const struct attachment *att, bool exact, struct live_filter *lf);
void live_filter_close(struct live_filter *lf);

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
/* An address of a family the live filter keeps in exact intervals: 0 IPv4, 1 IPv6; else -1. */
int entry_ranged_family(const struct filter *f, const struct entry *e);
/* Into the live allowlist, in place; *added: how many made it when one fails. */
int allowlist_insert(struct attachment *att, const struct entry *e, size_t n, size_t *added);

#endif
