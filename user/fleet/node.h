/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A fleet node: the daemon's subscriber ([daemon] subscribe = redis://...,
 * channel = NAME). It reads the channel's stream from the last entry it
 * applied (kept in its state directory, so a restart or an outage resumes
 * there), checks each full version's payload (size, SHA-256, the file's own
 * checks) before the atomic swap, applies deltas in order, and reports in the
 * hash bloomxdp:<channel>:node:<id>. Redis down: the filter enforces what it
 * has, the node retries with backoff. It never blocks the daemon's loop: the
 * wait for the stream (XREAD BLOCK) is a reply the loop polls for.
 */
#ifndef BLOOMXDP_FLEET_NODE_H
#define BLOOMXDP_FLEET_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct attach_opts;

struct fleet_node;

/* What the daemon's configuration gives the node. */
struct fleet_config {
	const char *ifname;
	const char *state_dir;		/* the state's root */
	const struct attach_opts *attach;	/* [attach]; NULL: attach's defaults */
	const char *subscribe;		/* redis://... */
	const char *channel;
	const char *node;		/* "": <hostname>-<ifname> */
	const char *verify_key;		/* "" or NULL: none; else announcements must be signed */
};

/*
 * Starts the node: its state read, one first try to reach Redis and apply
 * what is newer (attaching with the fleet's key if the interface is not
 * attached yet). Redis unreachable is no error (retried); a bad URL is.
 */
int fleet_node_start(const struct fleet_config *cfg, struct fleet_node **out);
void fleet_node_stop(struct fleet_node *f);
/* [attach] as reloaded (SIGHUP): the options a next attach takes; f may be NULL. */
void fleet_node_set_attach(struct fleet_node *f, const struct attach_opts *attach);

/* For the daemon's poll(): the fd to wait on (-1: none), the longest wait in ms. */
int fleet_node_fd(const struct fleet_node *f);
int fleet_node_timeout_ms(const struct fleet_node *f);
/* After poll(): readable is the fd's POLLIN. Does what is due; never blocks long. */
void fleet_node_run(struct fleet_node *f, bool readable);
/* True once after the node attached the interface again (a new hash key): events reopen. */
bool fleet_node_reattached(struct fleet_node *f);

/* Why a version, a delta or the set in force was not applied (the metrics' reason label). */
enum fleet_failure {
	FLEET_FAIL_PAYLOAD,	/* an announcement, payload or delta that fails its checks */
	FLEET_FAIL_SIGNATURE,	/* not signed with verify_key's key, or signed for another */
	FLEET_FAIL_STALE,	/* not newer than what was applied (a replay) */
	FLEET_FAIL_STATE,	/* the node's state is unreadable: it applies nothing */
	FLEET_FAIL_APPLY,	/* accepted, but not applied (attach, swap, memory...) */
	FLEET_FAILURES
};
extern const char *const fleet_failure_names[FLEET_FAILURES];

/* What the node knows of itself, for the daemon's metrics (since the daemon started). */
struct fleet_node_stats {
	const char *channel;
	bool connected;			/* to Redis, its stream read */
	__u64 version;			/* the full version applied (0: none) */
	__u64 applied;			/* full versions applied */
	__u64 applied_at;		/* when the last was, seconds since the epoch (0: none) */
	__u64 deltas;			/* deltas applied */
	__u64 inforce;			/* entries in force from deltas */
	__u64 reconnects;		/* connections to Redis made again after one lost or failed */
	__u64 failures[FLEET_FAILURES];
};

void fleet_node_stats(const struct fleet_node *f, struct fleet_node_stats *st);

/* --- the attachment's side (fleet/apply.c) --- */

/*
 * The entries the node holds from deltas, in force; a full version keeps them.
 * deadline[i]: when e[i] expires (CLOCK_REALTIME seconds), 0 for never.
 */
struct fleet_entries {
	char **e;
	__u64 *deadline;
	size_t n, cap;
};

/* Adds e, or sets its deadline if it is there already (a later add replaces it). */
int fleet_entries_add(struct fleet_entries *s, const char *e, __u64 deadline);
/* The earliest deadline, 0 when none. */
__u64 fleet_entries_next_deadline(const struct fleet_entries *s);
/* true when it was there. */
bool fleet_entries_remove(struct fleet_entries *s, const char *e);
bool fleet_entries_has(const struct fleet_entries *s, const char *e);
void fleet_entries_free(struct fleet_entries *s);

/*
 * The payload at path (checked whole: size, format, CRC32C) with the entries
 * in force swapped in as the live blocklist, in one swap; the interface is attached
 * (again, if its hash key, layout or k are not the payload's) with attach's
 * options. *reattached: it was. why: the error in one line.
 */
int fleet_apply_payload(const struct fleet_config *cfg, const char *path,
			const struct fleet_entries *inforce, bool *reattached, char *why,
			size_t len);
/* Entries added to the live blocklist in place (a delta add). */
int fleet_apply_add(const struct fleet_config *cfg, char **entries, int n, char *why, size_t len);

#endif
