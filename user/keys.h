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

#endif
