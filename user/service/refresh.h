/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Feed refresh: fetch a feed, judge the new copy, apply it with the atomic
 * swap only when it passes the guards, and keep what it needs between runs in
 * the feed cache, <state_dir>/<ifname>/feeds/<name>/:
 *
 *   spec          the feed's spec (key = value lines)
 *   good          the last good copy (applied), good.meta its validators
 *                 (ETag, Last-Modified), entries, SHA-256, times
 *   pending       the last copy fetched and not applied, pending.meta why
 *   counters      refresh failures, last attempt, last success, last error
 *
 * Every file is written whole (temporary file, fsync, rename); directories
 * are 0700 and opened without following symbolic links. `bloomxdp refresh`
 * and the daemon call feed_refresh(); the metrics read feed_counters_read().
 */
#ifndef BLOOMXDP_REFRESH_H
#define BLOOMXDP_REFRESH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lists/report.h"
#include "service/feed_spec.h"

/* Retries after a failure: 30 s, 1 min, 2 min... capped at the refresh interval. */
#define FEED_RETRY_FIRST_S	30
#define FEED_RETRY_CAP_S	3600	/* the cap of a feed without an interval */
#define FEED_WHY_MAX		512
#define FEED_WHERE_MAX		8
#define FEED_TEXT_MAX		128

/* [a-z0-9_-], 1 to FEED_NAME_MAX - 1 bytes. Prints the error. */
int feed_name_check(const char *name);
void feed_spec_defaults(struct feed_spec *s);
/* The spec's values in range (a source, max_shrink <= 100...). Prints the error. */
int feed_spec_check(const struct feed_spec *s);

/* A spec read back from the cache, with the storage its pointers use. */
struct feed_stored {
	struct feed_spec spec;
	char column[FEED_TEXT_MAX];
	char where[FEED_WHERE_MAX][FEED_TEXT_MAX];
	const char *where_items[FEED_WHERE_MAX];
};

/* The counters of a feed, for status and metrics. Times are Unix seconds; 0: never. */
struct feed_counters {
	__u64 refresh_failures;		/* every refused refresh, since the feed was cached */
	__u64 consecutive_failures;	/* since the last success: the backoff's step */
	__u64 last_attempt;
	__u64 last_success;		/* applied, or not modified */
	__u64 last_applied;
	__u64 entries;			/* of the good copy */
	char last_error[FEED_WHY_MAX];	/* of the last failure, "" after a success */
};

enum refresh_outcome {
	REFRESH_APPLIED,
	REFRESH_NOT_MODIFIED,
	REFRESH_REFUSED,
};

enum refresh_reason {
	REFRESH_OK,
	REFRESH_FETCH,		/* the download failed */
	REFRESH_PARSE,		/* a bad line: never accepted */
	REFRESH_EMPTY,		/* no entry */
	REFRESH_SHRINK,		/* fewer entries than max_shrink allows */
	REFRESH_APPLY,		/* the load of the interface's lists failed */
	REFRESH_NOTHING,	/* --accept without anything to accept */
};

struct refresh_result {
	enum refresh_outcome outcome;
	enum refresh_reason reason;
	bool accepted;		/* --accept applied a copy a guard refused */
	__u64 entries;		/* of the copy judged */
	__u64 previous;		/* of the good copy before it; 0: none */
	__u64 next_due;		/* Unix seconds: when to refresh again (feed_next_due) */
	char why[FEED_WHY_MAX];	/* one line: what was refused and why */
	__u64 good_entries;	/* of the good copy that stays (not modified) */
	__u64 good_fetched;	/* when it was fetched, Unix seconds */
	/*
	 * Nothing to say of it: the refresh stopped before an outcome, or the
	 * daemon's says less (not modified only after failures, a run of the same
	 * failure at its 1st, 2nd, 4th, 8th... time).
	 */
	bool quiet;
	/* feed_refresh(): what the load of the feeds did (load_result_print() it first). */
	struct load_result load;
};

/*
 * Refreshes one feed of ifname now: fetches spec->source (conditional on the
 * good copy's validators), parses the new copy as load would (spec->load),
 * and refuses it when the fetch or parse failed, it is empty, or it shrinks
 * by more than spec->max_shrink_pct percent of the good copy's entries; the
 * live list is then untouched, the failure logged (one line) and counted.
 * Otherwise every feed of ifname with spec->load.allow's kind is loaded (each
 * good copy with its own spec, this one's new copy) in one atomic swap, and
 * only then is the new copy promoted to good. accept: apply the pending copy
 * (else the next fetch) even if empty or shrunk; a parse error is never
 * accepted. Returns 0 (applied, not modified) or -errno (refused), out filled:
 * feed_refresh_summary() is what it says of a success. Prints nothing on stdout.
 */
int feed_refresh(const char *state_dir, const char *ifname, const struct feed_spec *spec,
		 bool accept, struct refresh_result *out);

/*
 * feed_refresh() with another apply: called with the new copy's path (and
 * whether the empty guard was overridden) once it passed the guards; the copy
 * becomes the good one only when it returns 0. The daemon loads its whole
 * configuration through it (local files and feeds together). NULL: as
 * feed_refresh(), every cached feed of the interface.
 */
typedef int (*feed_apply_fn)(void *ctx, const char *path, bool allow_empty);
int feed_refresh_apply(const char *state_dir, const char *ifname, const struct feed_spec *spec,
		       bool accept, feed_apply_fn apply, void *apply_ctx,
		       struct refresh_result *out);

/*
 * What a refresh that was not refused says, for the caller to print ('bloomxdp
 * refresh' on stdout, the daemon in its log): "refresh NAME of IFNAME: applied
 * N entries from SOURCE (the good copy had M)", then "...: accepted despite:
 * WHY" when --accept overrode a guard, or "...: not modified; the good copy of
 * N entries (fetched TIME) stays"; lines ending in '\n'. "" when refused (said
 * on stderr by the refresh itself) or quiet. buf returned.
 */
#define FEED_SUMMARY_MAX	(FEED_SOURCE_MAX + FEED_WHY_MAX + 512)
const char *feed_refresh_summary(const char *ifname, const struct feed_spec *spec,
				 const struct refresh_result *r, char *buf, size_t len);

/* The path of a feed's good copy (the one last applied): 0, or -ENOENT when it has none. */
int feed_good_path(const char *state_dir, const char *ifname, const char *name, char *path,
		   size_t len);

/* The spec cached for a feed (by an earlier refresh). Prints the error; -ENOENT if none. */
int feed_spec_read(const char *state_dir, const char *ifname, const char *name,
		   struct feed_stored *st);

/* A feed's counters; a feed never refreshed reads as zeros. */
int feed_counters_read(const char *state_dir, const char *ifname, const char *name,
		       struct feed_counters *c);

/*
 * The feeds cached for ifname (those a refresh applies together): up to max
 * names, sorted; returns how many there are (0 if none), or -errno printed.
 */
int feed_list(const char *state_dir, const char *ifname, char (*names)[FEED_NAME_MAX], int max);

/*
 * Removes a feed from the cache (a [list] gone from the configuration): the
 * next refresh of the interface applies its other feeds without it. The
 * live list is not changed now. 0 if it was not there.
 */
int feed_forget(const char *state_dir, const char *ifname, const char *name);

/*
 * When to refresh next: last_attempt + refresh_s after a success; after n
 * consecutive failures, last_attempt + 30 s * 2^(n-1), capped at refresh_s
 * (FEED_RETRY_CAP_S if refresh_s is 0). Never attempted: 0 (now). No
 * interval and no failure: UINT64_MAX (only on start and SIGHUP).
 */
__u64 feed_next_due(const struct feed_counters *c, __u64 refresh_s);

#endif
