/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_FLEET_STATUS_H
#define BLOOMXDP_FLEET_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "fleet/redis.h"

/* One node of a channel, as it reported in Redis (fleet/node.c writes it). */
struct fleet_node_view {
	char id[FLEET_NODE_MAX];
	char ifname[64];		/* "?": not reported */
	char last_error[256];		/* "": none */
	char verify_key[32];		/* verify_key's fingerprint; "-": none */
	char stream_id[FLEET_ID_MAX];	/* the newest announcement applied; "": none */
	bool have_id;			/* stream_id parsed into at */
	struct fleet_id at;
	__u64 version, applied_at, seen_at, deltas, refused, errors, delta_seq;
};

/* A channel: its newest announcement and its nodes. */
struct fleet_status {
	__u64 latest;			/* the latest version published */
	bool latest_signed;		/* signed by publish --sign-key */
	struct fleet_id top;		/* the stream's newest id, or 0-0 */
	bool listed;			/* the channel's nodes were listed (what follows holds) */
	size_t members;			/* the nodes the channel lists (some may be unreadable) */
	struct fleet_node_view *nodes;	/* those read, n of them */
	size_t n;
};

/*
 * The nodes of channel on the Redis of url (fleet_open's arguments), in *s
 * (fleet_status_free() it, also on error: what was read before an error
 * stays). Errors are logged.
 */
int fleet_status_read(const char *url, const char *channel, struct fleet_status *s);
void fleet_status_free(struct fleet_status *s);

/* Whether a node applied the newest announcement. */
bool fleet_node_current(const struct fleet_node_view *v, const struct fleet_status *s);
/* Seconds since the newest announcement the node has not applied; 0: none. */
double fleet_node_lag(const struct fleet_node_view *v, const struct fleet_status *s);

#endif
