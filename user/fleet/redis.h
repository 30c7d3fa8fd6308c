/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fleet through Redis (hiredis): what 'publish', 'fleet status' and the
 * daemon's subscriber share. Every key of a channel is under
 * "bloomxdp:<channel>:" (FLEET_KEY_*):
 *
 *   payload:<version>  string: a compiled filter, the save/restore format (savefile.h)
 *   payloads           sorted set: the versions whose payload is kept (score: version)
 *   version            counter of the channel's full versions (INCR)
 *   latest             hash: the last full version's announcement (its fields, and id)
 *   stream             stream: the announcements, in order (XADD, trimmed):
 *                        type full: version, key, size, sha256 (of the payload, hex)
 *                        type add / del: entries (space-separated), count,
 *                        expires (add --timeout: CLOCK_REALTIME seconds; 0: never)
 *   inforce            hash: the entries added by deltas and not deleted since, each
 *                      with its deadline (0: none; those past it are left out)
 *   nodes              set: the node ids that reported
 *   node:<id>          hash: what a node applied, when, and its errors
 *
 * A full version's payload is written whole (one SET) before its announcement
 * (XADD): a node never sees a version whose payload is incomplete. A node
 * checks the payload's size and SHA-256 against the announcement, then the
 * file's own checks (CRC32C, every field bounded) before the atomic swap.
 */
#ifndef BLOOMXDP_FLEET_REDIS_H
#define BLOOMXDP_FLEET_REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "fleet/url.h"

#define FLEET_KEY_ROOT		"bloomxdp:"
/* A channel names keys: 1 to 63 of a-z, A-Z, 0-9, '_', '-', '.'. */
#define FLEET_CHANNEL_MAX	64
#define FLEET_NODE_MAX		64
#define FLEET_KEY_MAX		(sizeof(FLEET_KEY_ROOT) + FLEET_CHANNEL_MAX + FLEET_NODE_MAX + 16)
/* A stream id "ms-seq": two u64 in decimal. */
#define FLEET_ID_MAX		48
/* A message of the fleet's: why a command, a payload or an apply failed. */
#define FLEET_WHY_LEN		512
/* The largest payload taken: Redis's own limit of a string (512 MiB). */
#define FLEET_PAYLOAD_MAX	(512ULL << 20)
/* Payloads are read in pieces of this many bytes (GETRANGE): each reply bounded. */
#define FLEET_CHUNK		(4U << 20)
/* A delta: at most this many entries, each at most this long. */
#define FLEET_DELTA_MAX		10000
#define FLEET_ENTRY_MAX		256
/* Entries in force from deltas, at most: a node re-adds them all after each full version. */
#define FLEET_INFORCE_MAX	10000
/* The stream keeps about this many announcements (XADD MAXLEN ~). */
#define FLEET_STREAM_KEEP	10000
/* Payloads kept besides the newest: a node still fetching one is not cut short. */
#define FLEET_PAYLOADS_KEEP	2
/* Seconds to connect, and for a reply. */
#define FLEET_TIMEOUT_S		5

struct redisContext;
struct redisReply;

/* A channel name that can be part of a key. */
bool fleet_channel_valid(const char *channel);

/*
 * Connects, authenticates (AUTH [USER] PASSWORD) and selects the database,
 * each within FLEET_TIMEOUT_S. On error, why says it in one line with what to
 * do (no password, a wrong one, a refused certificate...), and returns
 * -errno: -EACCES refused credentials or certificate, -EPROTO no TLS there,
 * else -ECONNREFUSED, -ETIMEDOUT, -EIO. rediss:// through fleet/tls.h.
 */
int fleet_connect(const struct fleet_url *u, struct redisContext **out, char *why, size_t len);
/* A connection closed (redisFree) and its TLS bridge, if any, ended. NULL: nothing. */
void fleet_disconnect(struct redisContext *c);

/* The commands' --redis and --channel checked, and connected: 0, or -errno with the error said. */
int fleet_open(const char *url, const char *channel, struct redisContext **c);

/*
 * One command (argv, binary safe) and its reply: 0 with *reply set, or -EIO
 * (the connection is lost: reconnect) / -EPROTO (an error reply, in why).
 * The caller frees *reply (freeReplyObject).
 */
int fleet_command(struct redisContext *c, int argc, const char **argv, const size_t *argvlen,
		  struct redisReply **reply, char *why, size_t len);
/* The same with NUL-terminated arguments, argv ended by NULL. */
int fleet_cmd(struct redisContext *c, struct redisReply **reply, char *why, size_t len,
	      const char *const *argv);

/* "bloomxdp:<channel>:<what>" into buf. */
const char *fleet_key(char *buf, size_t len, const char *channel, const char *what);

/* A stream id "MS-SEQ" parsed; ids compare as pairs. */
struct fleet_id {
	__u64 ms, seq;
};
int fleet_id_parse(const char *text, size_t len, struct fleet_id *id);
int fleet_id_cmp(const struct fleet_id *a, const struct fleet_id *b);

/* In an array reply of field/value pairs (a stream entry, HGETALL): the value of name, or NULL. */
const struct redisReply *fleet_field(const struct redisReply *pairs, const char *name);
/* The same as a NUL-terminated string copied into buf (truncated: NULL); NULL when absent. */
const char *fleet_field_text(const struct redisReply *pairs, const char *name, char *buf,
			     size_t len);

#endif
