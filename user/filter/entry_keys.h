/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_FILTER_ENTRY_KEYS_H
#define BLOOMXDP_FILTER_ENTRY_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include "parse/entries.h"
#include "filter/filter.h"

/*
 * Inserts the keys of an entry: 1 when at least one bit was new, 0 when none,
 * -ENOSPC when a prefix needs a length beyond BLOOMXDP_MAX_PREFIX_LENGTHS
 * probed ones, -E2BIG when its expansion would be absurd. A prefix is stored
 * expanded to the shortest probed length >= its own (plan the lengths with
 * prefixes.h first when loading a whole list).
 */
int entry_keys_insert(struct filter *f, const struct entry *e);
/*
 * del: one insert of e undone in f->counts (filter_count_remove()), each key
 * where insert put it; with check, nothing changed, -EUCLEAN when the counters
 * do not hold every key. *cleared: bits cleared.
 */
int entry_keys_remove(struct filter *f, const struct entry *e, bool check, __u64 *cleared);

/*
 * The Bloom keys (64-bit hashes) of a domain or URL entry, for a filter made
 * later: out receives 1 (a domain) or 2 (a URL: its host marker and its
 * path), kinds the header bits they need; returns how many. 0 for an address.
 */
int entry_keys_name(const __u64 hash_key[2], const struct entry *e, __u64 out[2],
			__u64 *kinds);

/*
 * The keys an entry would add to f as it is now (a prefix: its expansion to
 * the probed length), for add's check of room before it changes anything.
 */
__u64 entry_keys_count(const struct filter *f, const struct entry *e);

/*
 * The probes a packet would take per field (packet_fpr.h) once entries[0..n)
 * are added to f: new name depths, URL host depths and prefix lengths count.
 */
struct packet_probes;
void entry_keys_probes_after(const struct filter *f, const struct entry *entries, int n,
			    __u32 match, struct packet_probes *pp);

/*
 * Decides an entry as the XDP program would decide a packet carrying it: an
 * address (a prefix: its first address, probed at lengths up to its own), a
 * name in a DNS query / TLS SNI / HTTP Host, or a URL requested over HTTP.
 * Returns true when blocked, with what matched in why (e.g. the listed suffix
 * "evil.example").
 */
bool entry_keys_lookup(const struct filter *f, const struct entry *e, char *why, size_t len);

struct exact_set;
struct range_set;

/*
 * An address or prefix of a family held in exact intervals (s): blocked when
 * one merged interval covers it all; why receives that interval (a prefix,
 * or "first-last").
 */
bool entry_keys_lookup_range(const struct range_set *s, const struct entry *e, char *why,
			    size_t len);

/*
 * As the XDP program decides after a Bloom hit: confirmed by the exact copy
 * (--verify) when it holds the address (or a prefix of it), a suffix of the
 * name, or the URL; allowed when the allowlist holds the address (or a prefix
 * of it) or a suffix of the name (of the URL's host).
 */
bool entry_keys_confirm(const struct exact_set *x, const __u64 hash_key[2], const struct entry *e);
bool entry_keys_allowed(const struct exact_set *x, const __u64 hash_key[2], const struct entry *e);

#endif
