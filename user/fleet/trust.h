/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a fleet node trusts, beyond a payload's own checks (size, SHA-256,
 * CRC32C: they stop accidents, not a Redis writer, who recomputes them):
 *
 * - a payload consistent with itself: its bits no fuller than its keys can
 *   make them, its estimated false-positive rate within its target;
 * - versions that only go forward (a rollback is a new version whose payload
 *   is an older one: publish --rollback N);
 * - with [daemon] verify_key = FILE: announcements signed (Ed25519, OpenSSL)
 *   by the publisher's key (publish --sign-key FILE). The signed text names
 *   the channel and every field a node acts on (a full version's number, size,
 *   SHA-256 and rollback; a delta's sequence number, type, expiry and
 *   entries), so that a signature cannot be replayed for another version,
 *   another channel or another delta.
 */
#ifndef BLOOMXDP_FLEET_TRUST_H
#define BLOOMXDP_FLEET_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct savefile_info;

/* A filter's bits may be this much fuller than its keys make them (fraction of all bits). */
#define FLEET_FILL_SLACK	0.05
/* Its estimated false-positive rate (fill^k) may be this many times its target. */
#define FLEET_FPR_SLACK		2.0
/* An Ed25519 signature: 64 bytes, 128 hex digits. */
#define FLEET_SIG_BYTES		64
#define FLEET_SIG_HEX		(2 * FLEET_SIG_BYTES + 1)
/* A key file (PEM) is at most this long. */
#define FLEET_KEYFILE_MAX	16384
/* "SHA256:" and 16 hex digits of the raw public key's SHA-256. */
#define FLEET_FINGERPRINT_LEN	32

/*
 * Whether a payload is consistent with itself: in its header, bits holds
 * in->bits / 8 bytes of the filter. Refused (-EBADMSG, why says it): bits
 * fuller than 1 - exp(-k keys / m) plus FLEET_FILL_SLACK, an estimated FPR
 * (fill^k) above FLEET_FPR_SLACK times the target, more intervals than entries.
 */
int fleet_payload_plausible(const struct savefile_info *in, const void *bits, char *why,
			    size_t len);

/* What is signed of an announcement (fields not of its type are ignored). */
struct fleet_signed {
	const char *channel;
	const char *type;	/* "full", "add", "del" */
	__u64 version;		/* full: its number */
	__u64 size;		/* full: the payload's bytes */
	const char *sha256;	/* full: the payload's SHA-256 (hex) */
	__u64 rollback;		/* full: the older version whose payload it is, 0: none */
	__u64 seq;		/* add, del: the delta's sequence number */
	__u64 expires;		/* add: the deadline, 0: none */
	const char *entries;	/* add, del: space-separated */
};

/* The canonical text of s (malloc-ed, *len its bytes): what is signed and verified. */
char *fleet_signed_text(const struct fleet_signed *s, size_t *len);

/* An Ed25519 key read from a PEM file. */
struct fleet_key {
	void *pkey;		/* EVP_PKEY */
	char fingerprint[FLEET_FINGERPRINT_LEN];
};

/*
 * The key of path: a regular file (no symlink followed), at most
 * FLEET_KEYFILE_MAX bytes, PEM, Ed25519. private: a private key, whose file
 * must be the caller's and unreadable by others (mode 0600 or 0400); else a
 * public key (a private key's file is accepted too: its public half).
 * -errno, why says it in one line with what to do.
 */
int fleet_key_load(const char *path, bool private, struct fleet_key *k, char *why, size_t len);
void fleet_key_free(struct fleet_key *k);

/* s signed with k (a private key) into hex. */
int fleet_sign(const struct fleet_key *k, const struct fleet_signed *s, char hex[FLEET_SIG_HEX]);
/* Whether hex (len bytes) is k's signature of s: 0, or -EBADMSG. */
int fleet_verify(const struct fleet_key *k, const struct fleet_signed *s, const char *hex,
		 size_t len);

#endif
