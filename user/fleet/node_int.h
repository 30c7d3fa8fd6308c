/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside a fleet node (fleet/node.c: the connection and the loop;
 * fleet/versions.c: its state, its report, versions and deltas as the stream
 * brings them). Not for other callers: see fleet/node.h.
 */
#ifndef BLOOMXDP_FLEET_NODE_INT_H
#define BLOOMXDP_FLEET_NODE_INT_H

#include <limits.h>
#include <linux/if.h>

#include "fleet/node.h"
#include "fleet/redis.h"
#include "fleet/trust.h"
#include "util/sha256.h"

/* XREAD waits this long on the server; a reply later than that and FLEET_TIMEOUT_S: lost. */
#define FLEET_BLOCK_MS		5000
/* Entries read at once: a batch whose later full version makes earlier ones moot. */
#define FLEET_BATCH		64
/* Reconnect after 0.2 s, doubling to 5 s: an outage is noticed and left quickly. */
#define FLEET_BACKOFF_MIN_MS	200
#define FLEET_BACKOFF_MAX_MS	5000
#define FLEET_STATE_MAX		(FLEET_INFORCE_MAX * (FLEET_ENTRY_MAX + 8) + 4096)
#define STATE_MAGIC_LINE	"bloomxdp-fleet 1"

struct fleet_node {
	struct fleet_config cfg;
	char ifname[IFNAMSIZ], state_dir[PATH_MAX], channel[FLEET_CHANNEL_MAX];
	char node[FLEET_NODE_MAX], host[64];
	char stream_key[FLEET_KEY_MAX], state_name[FLEET_CHANNEL_MAX + 16];
	char payload_name[FLEET_CHANNEL_MAX + 16], download_name[FLEET_CHANNEL_MAX + 16];
	struct fleet_url url;
	redisContext *c;
	bool waiting;			/* an XREAD is in flight */
	__u64 sent_ms, retry_ms;
	__u32 backoff_ms;
	/* What it applied: kept in its state across restarts. */
	char last_id[FLEET_ID_MAX];	/* "": none yet */
	__u64 version;
	char sha[SHA256_HEX];			/* of the payload applied: versions restart with Redis */
	__u64 delta_seq;		/* the last delta applied (its seq), 0: none */
	bool state_bad;			/* its state unreadable: nothing applied (fleet/trust.h) */
	struct fleet_key verify;	/* [daemon] verify_key: .pkey NULL when none */
	struct fleet_entries inforce;
	/* For the report. */
	__u64 applied_at, deltas, refused, errors;
	/* For the metrics (fleet_node_stats()). */
	__u64 applied, connects, failures[FLEET_FAILURES];
	enum fleet_failure refusal;	/* why the -EBADMSG being returned was: set with it */
	__u64 entry_ms;			/* CLOCK_REALTIME ms when the last entry was applied */
	char last_error[FLEET_WHY_LEN], logged[FLEET_WHY_LEN];
	bool reattached;
};

__u64 fleet_now_ms(void);
__u64 fleet_wall_ms(void);
void fleet_note_error(struct fleet_node *f, const char *why, bool count);
/* A failure (ret: -EBADMSG refused, as f->refusal says; else not applied): counted and said. */
void fleet_note_failure(struct fleet_node *f, const char *why, int ret);
/* -EBADMSG, with f->refusal set to why. */
int fleet_refuse(struct fleet_node *f, enum fleet_failure why);
bool fleet_entry_ok(const char *s, size_t len);
int fleet_state_save(struct fleet_node *f);
void fleet_state_load(struct fleet_node *f);
void fleet_report(struct fleet_node *f);
int fleet_fetch_payload(struct fleet_node *f, const struct redisReply *fields, char *why,
			size_t len);
int fleet_apply_download(struct fleet_node *f, const struct fleet_entries *inforce,
			  __u64 version, const char *sha, char *why, size_t len);
int fleet_rebuild(struct fleet_node *f, const struct fleet_entries *inforce, char *why,
		   size_t len);
int fleet_apply_batch(struct fleet_node *f, const struct redisReply *r);
int fleet_signed_inforce(struct fleet_node *f, const struct redisReply *h, size_t unsigned_n,
			 struct fleet_entries *next);
int fleet_full_allowed(struct fleet_node *f, const struct redisReply *fields, __u64 *version,
		       char *why, size_t len);

#endif
