/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fleet's publisher: a full version (a compiled filter) or a delta (add,
 * del) for a channel, through Redis (the keys: redis.h). A full version's
 * payload is stored whole, checked as every node will check it, before its
 * announcement; a delta goes into the set in force and onto the stream in one
 * MULTI. The nodes' side is the daemon's (node.h).
 */
#ifndef BLOOMXDP_FLEET_PUBLISH_H
#define BLOOMXDP_FLEET_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fleet/redis.h"
#include "fleet/trust.h"
#include "lists/report.h"

/* What to publish, as publish's options give it. */
struct publish_opts {
	const char *redis;
	const char *channel;
	const char *from;	/* the live blocklist of this IFNAME, not FILEs */
	bool add, del;		/* a delta */
	__u64 timeout;		/* --add: seconds: the entries expire then on every node */
	bool new_key;
	const char *sign_key;	/* the publisher's Ed25519 private key (PEM): nodes verify_key */
	__u64 rollback;		/* a new version whose payload is version N's */
	__u32 layout;
	double fpr;
	__u64 max_memory;
};

/* What was published. */
struct publish_result {
	bool new_key;		/* compiled with a new hash key: every node attaches again */
	bool published;
	bool delta;
	/* A full version. */
	__u64 version;
	__u64 entries;		/* in its payload */
	size_t bytes;		/* of its payload */
	char sha256[65];	/* of its payload, hex */
	__u64 rollback;		/* the version whose payload it is again; 0: none */
	char saved_by[32];	/* the bloomxdp its payload records; "": an older one */
	/* A delta. */
	const char *type;	/* "add", "del" */
	int count;		/* its entries */
	__u64 seq;		/* its number */
	/* Both. */
	char id[FLEET_ID_MAX];	/* of its announcement on the stream */
	char signer[FLEET_FINGERPRINT_LEN];	/* its signing key's fingerprint; "": unsigned */
	struct save_result saved;	/* --from: the live filter saved as the payload */
};

/*
 * Publishes on o->channel: a full version of args (list files, or a file of
 * 'bloomxdp save'; none with o->from or o->rollback), or with o->add or
 * o->del a delta of the entries args. 0, or -errno with the error said (what
 * was done before it in res: a new key made).
 */
int fleet_publish(const struct publish_opts *o, char **args, int n, struct publish_result *res);

#endif
