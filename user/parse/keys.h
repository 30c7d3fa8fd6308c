/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_KEYS_H
#define BLOOMXDP_KEYS_H

#include <stddef.h>
#include <bloomxdp/hash.h>

/*
 * Parses an address or a prefix (203.0.113.7, 2001:db8::9, 198.51.100.0/24,
 * 2001:db8::/32; ::ffff:a.b.c.d counts as a.b.c.d, ::ffff:0:0/96+n as an IPv4
 * /n) into the key the XDP program hashes: a host is the prefix of length 32
 * or 128. A prefix with host bits set is refused, with the masked prefix
 * suggested. On failure returns -EINVAL and leaves a short reason in why.
 */
int key_parse(const char *text, struct bloomxdp_key *key, const char **why);

/* Flags of key_parse_range(). */
#define KEY_DECIMAL 1	/* also decimal numbers: up to 2^32 - 1 IPv4, above IPv6 (CSV feeds) */

/*
 * The addresses from start to end (both included, one family, start <= end)
 * as the fewest prefixes that cover exactly them: fn is called for each, in
 * order. Returns 0, fn's negative return, or -EINVAL with a reason in why.
 */
int key_parse_range(const char *start, const char *end, unsigned int flags,
		    int (*fn)(const struct bloomxdp_key *key, void *ctx), void *ctx,
		    const char **why);

#endif
