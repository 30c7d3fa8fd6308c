/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Entries that expire (add --timeout): their deadlines in the state, in
 * "block-<serial>.timeouts", one "DEADLINE ENTRY" line per add (seconds since
 * the epoch; 0: none, the entry stays). An entry's deadline is the latest of
 * its lines (0 the latest of all): an add of a listed entry keeps the later
 * one, as ipset's -exist. Expired entries leave through del (list_del()).
 */
#ifndef BLOOMXDP_EXPIRY_H
#define BLOOMXDP_EXPIRY_H

#include <stdbool.h>
#include <time.h>
#include <linux/types.h>

struct del_result;
struct state_dir;

/*
 * add: the entries' deadline (0: none) onto the list's timeouts in the state
 * directory sd; without a deadline only when the file is there (an entry that
 * had one keeps none). -ENOENT unprinted when there is no state.
 */
int expiry_record(const struct state_dir *sd, const char *list, char **entries, int n,
		  __u64 deadline);

/* For the daemon: a number that changes when the timeouts file does; -ENOENT: none. */
int expiry_stat(const char *ifname, const char *state_dir, __u64 *stamp);

/* What status shows: entries with a deadline, the next one (0: none). -ENOENT: no file. */
int expiry_summary(const char *ifname, const char *state_dir, __u64 *entries, __u64 *next);

/*
 * Deletes the entries whose deadline is at or before now: from the live list
 * and the state, or with state_only from the state alone (restore, before it
 * loads); then takes them off the timeouts. *expired: how many; *next: the
 * next deadline (0: none). -ENOENT unprinted when there is nothing to expire.
 * done (if not NULL) is given what each deletion did, as it completes.
 */
typedef void (*expiry_done_fn)(const struct del_result *r, void *ctx);
int expiry_run(const char *ifname, const char *state_dir, time_t now, bool state_only,
	       __u64 *expired, __u64 *next, expiry_done_fn done, void *ctx);

/*
 * What a load keeps of the adds with a deadline to come (bans): a load
 * replaces the list, so these go into it as inputs of their own (a private
 * temporary file, read as add reads), and their deadlines into its timeouts
 * after (expiry_recarry). del takes entries off the timeouts (expiry_forget):
 * a deleted entry is not carried.
 */
#define EXPIRY_CARRY_FILES 16
struct expiry_carried {
	char path[EXPIRY_CARRY_FILES][64];	/* unlinked by expiry_carried_free() */
	__u32 format[EXPIRY_CARRY_FILES];	/* enum list_format */
	int nfiles;
	__u64 entries;
	char *text;				/* "DEADLINE ENTRY" lines */
	size_t len;
};

/* Of the state directory sd; -ENOENT unprinted when there is no state or no timeouts. */
int expiry_carry(const struct state_dir *sd, time_t now, struct expiry_carried *c);
/* After the load: the carried entries' deadlines into the new list's timeouts. */
int expiry_recarry(const struct state_dir *sd, const struct expiry_carried *c);
void expiry_carried_free(struct expiry_carried *c);
/* del: the entries (as given) off the timeouts. -ENOENT unprinted when none. */
int expiry_forget(const struct state_dir *sd, const char *list, char **entries, int n);

#endif
