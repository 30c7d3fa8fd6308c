/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_KEYS_H
#define BLOOMXDP_KEYS_H

#include <stddef.h>
#include <bloomxdp/hash.h>

/*
 * Parses one list entry (an IPv4 or IPv6 address; ::ffff:a.b.c.d counts as
 * a.b.c.d) into the key the XDP program hashes. On failure returns -EINVAL
 * and leaves a short reason in why.
 */
int key_parse(const char *text, struct bloomxdp_key *key, const char **why);

#endif
