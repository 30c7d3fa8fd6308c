/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CrowdSec remediation component ("bouncer") of the daemon: it pulls the
 * decisions of a CrowdSec Local API (LAPI) in stream mode
 * (GET /v1/decisions/stream, startup=true first, then the changes every
 * interval; X-Api-Key), applies the 'ban' decisions of scope Ip and Range
 * with their durations as the entries' timeouts (list_add) and deletes what
 * the LAPI deletes (list_del), in the list named CROWDSEC_LIST. Everything
 * the LAPI sends is hostile: the reply is bounded in bytes, decisions and
 * depth, and a value goes to the list only as an address or a prefix.
 */
#ifndef BLOOMXDP_CROWDSEC_H
#define BLOOMXDP_CROWDSEC_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "service/feed_spec.h"
#include "parse/prefixes.h"

#define CROWDSEC_LIST			"crowdsec"
#define CROWDSEC_KEY_MAX		256	/* an API key: printable ASCII, no space */
#define CROWDSEC_DEFAULT_INTERVAL_S	10
#define CROWDSEC_DEFAULT_TIMEOUT_S	30	/* one pull, whole */
#define CROWDSEC_DEFAULT_MAX_BYTES	(16ULL << 20)	/* about 100,000 decisions */
#define CROWDSEC_MAX_DECISIONS		1000000	/* per reply */
/* Retries after a failed pull: the interval, doubled each time, up to this. */
#define CROWDSEC_RETRY_CAP_S		60
/* Wider ranges are refused (counted as bad values): one decision must not drop a continent. */
#define CROWDSEC_MIN_PREFIX_V4		PREFIX_MIN_LEN_V4	/* prefixes.h */
#define CROWDSEC_MIN_PREFIX_V6		PREFIX_MIN_LEN_V6
/* A decision longer than this is refused as a bad duration (CrowdSec's are hours or days). */
#define CROWDSEC_MAX_DURATION_MS	(100ULL * 365 * 86400 * 1000)
/* "255.255.255.255/32", "ffff:...:ffff/128" and the NUL. */
#define CROWDSEC_VALUE_MAX		64

/* The [crowdsec] section of the configuration (config.h). */
struct crowdsec_config {
	bool enabled;			/* the section is there */
	unsigned int line;		/* of [crowdsec] */
	char lapi_url[FEED_SOURCE_MAX];	/* http(s)://HOST:PORT/, the API's root */
	char api_key[CROWDSEC_KEY_MAX];	/* from api_key, or read from api_key_file */
	char api_key_file[PATH_MAX];	/* "": the key is in the file itself */
	__u64 interval_s;		/* between pulls */
	__u64 timeout_s;		/* one pull, whole */
	__u64 max_bytes;		/* a longer reply is refused */
	bool scope_ip, scope_range;	/* scopes = ip,range */
	char ca_file[FEED_SOURCE_MAX];	/* PEM CAs for an https LAPI; "": the system's */
};

void crowdsec_config_defaults(struct crowdsec_config *c);
bool crowdsec_config_equal(const struct crowdsec_config *a, const struct crowdsec_config *b);
/*
 * Reads the API key from path: a regular file of the caller's (root's) that
 * neither group nor others may read or write (it is a secret), its first line
 * the key. 0, or -errno with the reason in why.
 */
int crowdsec_key_read(const char *path, char key[CROWDSEC_KEY_MAX], char *why, size_t len);
/* A key as it may go into a header: 1 to CROWDSEC_KEY_MAX - 1 printable, non-space bytes. */
bool crowdsec_key_valid(const char *key);

/*
 * A Go duration as CrowdSec writes it ("3h59m58.5s", "12.1ms", "-1.6s",
 * "0s"; units h, m, s, ms, us, µs, ns) into milliseconds, rounded away from
 * zero: a ban never ends early. 0, or -EINVAL (malformed), -ERANGE (longer
 * than CROWDSEC_MAX_DURATION_MS either way).
 */
int crowdsec_duration_parse(const char *text, __s64 *ms);

/* Why a decision is not applied: the reasons counted. */
enum crowdsec_ignored {
	CS_IGNORED_TYPE,	/* not 'ban' (captcha, throttle...) */
	CS_IGNORED_SCOPE,	/* not Ip or Range (Country, AS...), or a scope not configured */
	CS_IGNORED_VALUE,	/* not an address of its scope, or a range too wide */
	CS_IGNORED_DURATION,	/* malformed, out of range, or already over (a new one) */
	CS_IGNORED_FIELDS,	/* not an object, or a field missing or of the wrong type */
	CS_IGNORED_REASONS,
};
extern const char *const crowdsec_ignored_names[CS_IGNORED_REASONS];

struct crowdsec_decision {
	char value[CROWDSEC_VALUE_MAX];	/* canonical: "192.0.2.7", "198.51.100.0/24" */
	__s64 duration_ms;		/* new: > 0 */
};

/* One reply of the stream. */
struct crowdsec_batch {
	struct crowdsec_decision *added;	/* "new": bans to apply */
	size_t nadded;
	struct crowdsec_decision *deleted;	/* "deleted": bans to lift */
	size_t ndeleted;
	__u64 ignored[CS_IGNORED_REASONS];
};

/*
 * Parses a reply of /v1/decisions/stream ({"new": [...] | null, "deleted":
 * [...] | null}; other members ignored). Decisions that cannot be applied are
 * counted in batch->ignored; the reply as a whole is refused (-EBADMSG, the
 * reason in why) when it is not such an object, nests deeper than a decision,
 * or holds more than CROWDSEC_MAX_DECISIONS. Scopes not in ip/range are
 * ignored as CS_IGNORED_SCOPE. Free with crowdsec_batch_free().
 */
int crowdsec_parse(const char *text, size_t len, bool scope_ip, bool scope_range,
		   struct crowdsec_batch *batch, char *why, size_t whylen);
void crowdsec_batch_free(struct crowdsec_batch *batch);

/*
 * A decision's value of scope Ip or Range as the list takes it: the address,
 * or the prefix with its host bits cleared (a /32 or /128 is the address).
 * 0, or -EINVAL for anything else (a name, text around it, a prefix wider
 * than CROWDSEC_MIN_PREFIX_*).
 */
int crowdsec_value_canonical(const char *value, bool range, char out[CROWDSEC_VALUE_MAX]);

/*
 * One GET of the stream (startup: the whole set), as a transfer the caller's
 * poll() drives: start it, poll the descriptors crowdsec_pull_fds() gives
 * (it lowers *timeout_ms to libcurl's), and step it after each poll.
 */
struct crowdsec_pull;
int crowdsec_pull_start(const struct crowdsec_config *cfg, bool startup,
			struct crowdsec_pull **out, char *why, size_t whylen);
int crowdsec_pull_fds(struct crowdsec_pull *p, struct pollfd *fds, int max, int *timeout_ms);
/*
 * -EINPROGRESS while under way; then the reply's body, NUL-terminated and
 * malloc'd, at most max_bytes (0), or -errno with why (unreachable, timed
 * out, HTTP 403: the key refused, too large).
 */
int crowdsec_pull_step(struct crowdsec_pull *p, char **body, size_t *len, char *why,
		       size_t whylen);
void crowdsec_pull_free(struct crowdsec_pull *p);

/* The bouncer of one interface, run from the daemon's loop. */
struct crowdsec;

struct crowdsec_stats {
	__u64 applied;		/* bans added or extended */
	__u64 deleted;		/* bans lifted (deleted by the LAPI or gone from its set) */
	__u64 ignored[CS_IGNORED_REASONS];
	__u64 pulls;		/* replies applied */
	__u64 pull_failures;	/* pulls that failed: the LAPI down, refused, a bad reply */
	__u64 apply_failures;	/* batches the list refused (then resynced) */
	__u64 last_success;	/* CLOCK_REALTIME seconds of the last pull applied; 0: never */
	__u64 bans;		/* values held now */
	bool up;		/* the last pull succeeded */
};

int crowdsec_new(const char *ifname, const char *state_dir, const struct crowdsec_config *cfg,
		 struct crowdsec **out);
/* A new configuration (SIGHUP): kept bans carry over; the next pull resyncs. */
void crowdsec_reconfigure(struct crowdsec *cs, const char *state_dir,
			  const struct crowdsec_config *cfg);
void crowdsec_free(struct crowdsec *cs);
/* CLOCK_MONOTONIC milliseconds of the next pull; UINT64_MAX while one is under way. */
__u64 crowdsec_due_ms(const struct crowdsec *cs);
/*
 * Starts the pull when due, steps the one under way, and applies its reply
 * when it is in; schedules the next pull (the interval, or a backoff). Call
 * it after every poll().
 */
void crowdsec_run(struct crowdsec *cs, __u64 now_ms);
/* The descriptors of the pull under way to poll (0 when none); *timeout_ms lowered to its. */
#define CROWDSEC_POLL_FDS 4
int crowdsec_poll_fds(struct crowdsec *cs, struct pollfd *fds, int max, int *timeout_ms);
void crowdsec_stats(const struct crowdsec *cs, struct crowdsec_stats *st);
/* Prometheus text of the bouncer's counters (bloomxdp_crowdsec_*), labelled ifname. */
int crowdsec_render_metrics(const struct crowdsec *cs, FILE *out);

/*
 * The batch's changes against the bans held (sorted by value), as the
 * bouncer applies them; for the unit tests. startup: the batch is the LAPI's
 * whole set (what is held and not in it is lifted). now: CLOCK_REALTIME
 * seconds. The values to lift go to del (before the adds), the values to ban
 * to add with their deadlines; next is what is held after.
 */
struct crowdsec_ban {
	char value[CROWDSEC_VALUE_MAX];
	__u64 until;		/* the decision's end, CLOCK_REALTIME seconds */
	__u64 applied;		/* the list entry's deadline (until rounded up) */
};

struct crowdsec_plan {
	struct crowdsec_ban *next;
	size_t nnext;
	struct crowdsec_ban *del;	/* as they were held */
	size_t ndel;
	struct crowdsec_ban *add;
	size_t nadd;
};

int crowdsec_plan(const struct crowdsec_ban *held, size_t nheld, struct crowdsec_batch *batch,
		  bool startup, __u64 now, struct crowdsec_plan *plan);
void crowdsec_plan_free(struct crowdsec_plan *plan);
/*
 * The deadline an entry gets for a decision ending at until: rounded up to a
 * grid of a 16th of what is left (a power of two of seconds), so that a
 * batch's bans fall into few deadlines, each one list_add; a ban ends at
 * most 1/16 after its decision, and the LAPI's delete comes before.
 */
__u64 crowdsec_deadline(__u64 until, __u64 now);

#endif
