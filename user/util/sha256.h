/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * SHA-256 as lowercase hex, the one digest of the project: the state's seals,
 * journal records and copies, the feed cache's copies, the fleet's payloads.
 * (libcrypto's EVP; every function returns 0 or a negative errno.)
 */
#ifndef BLOOMXDP_SHA256_H
#define BLOOMXDP_SHA256_H

#include <stddef.h>

/* 64 hex digits and the NUL. */
#define SHA256_HEX 65

/* Of len bytes at buf. */
int sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX]);
/* Of an open file from its start to its end, read with pread (its offset untouched). */
int sha256_fd_hex(int fd, char hex[SHA256_HEX]);

/* A digest computed as the data comes: init, update..., final; free in any case. */
struct sha256 {
	void *md;		/* EVP_MD_CTX */
};

int sha256_init(struct sha256 *s);
int sha256_update(struct sha256 *s, const void *buf, size_t len);
int sha256_final(struct sha256 *s, char hex[SHA256_HEX]);
void sha256_free(struct sha256 *s);

#endif
