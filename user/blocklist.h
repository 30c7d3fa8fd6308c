/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_BLOCKLIST_H
#define BLOOMXDP_BLOCKLIST_H

#include <stdbool.h>
#include <stddef.h>
#include "entries.h"
#include "filter.h"

/* Inserts the keys of an entry; returns true when at least one bit was new. */
bool blocklist_insert(struct filter *f, const struct entry *e);

/*
 * Decides an entry as the XDP program would decide a packet carrying it: an
 * address, a name in a DNS query / TLS SNI / HTTP Host, or a URL requested
 * over HTTP. Returns true when blocked, with what matched in why (e.g. the
 * listed suffix "evil.example").
 */
bool blocklist_lookup(const struct filter *f, const struct entry *e, char *why, size_t len);

#endif
