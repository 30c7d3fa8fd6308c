/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An address lookup's question and answer (struct addr_query, the argument of
 * addr_lookup() and list_verdict()), and the live generations it reads from
 * the active map.
 */
#ifndef BLOOMXDP_QUERY_H
#define BLOOMXDP_QUERY_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloomxdp/common.h>
#include "maps.h"

/*
 * The live generation of the blocklist (the active map), read once per packet
 * for every lookup. The allowlist's word is read only where a hit asks for it
 * (active_word(BLOOMXDP_ACTIVE_ALLOW)): most packets hit nothing.
 */
struct generations {
	__u32 block_slot;	/* of filter, kfilter and verify_* */
};

static __always_inline __u32 active_word(__u32 which)
{
	__u32 *word = bpf_map_lookup_elem(&active, &which);

	return word ? *word : 0;
}

static __always_inline __u32 active_slot(__u32 which)
{
	return active_word(which) & (BLOOMXDP_GENERATIONS - 1);
}

/* What matched, for the drop event. */
struct match_info {
	__u32 field;		/* enum bloomxdp_field */
	__u32 key_kind;		/* enum bloomxdp_event_key */
	__u32 key_len;
	__u32 list;		/* the list whose action applies (list_verdict()) */
};

/* An address to look up, and what matched: the argument of addr_lookup(). */
struct addr_query {
	__u64 lengths;		/* the family's header word of prefix lengths */
	__u32 addr[4];		/* network order: 4 bytes for IPv4, 16 for IPv6 */
	__u32 ipv6;
	__u32 field;		/* BLOOMXDP_FIELD_SRC or _DST */
	struct generations gen;
	struct match_info mi;	/* out */
	__u32 filter_bits;	/* m, from the header main read (layout kernel: 0) */
	__u32 learn;		/* out (list_verdict()): the learning list of a DNS name, else 0 */
	__u32 len1;		/* in: a hit v4_blocked() probed (length + 1), else 0 */
};	/* no padding: the socket hooks keep it on their stack (see v4_blocked() in addr.h) */

/*
 * Where the parsers left off, for the name matchers, the event and the
 * NXDOMAIN answer: scalars only, no branch on them before the address
 * lookups, so that the verifier walks those once rather than once per
 * protocol and port. Scalars only also let the global functions take it by
 * pointer (the verifier checks such an argument as memory of its size).
 */
struct packet {
	__u32 l3_off;
	__u32 l4_off;
	int l4_proto;		/* -1: none (a later fragment, an IPv6 chain not walked) */
	__u32 fragment;		/* non-zero: a fragment (names: read in what a first one holds) */
	__u32 dport;		/* UDP/TCP destination port, host order (0: none seen) */
	__u32 ip_end;		/* end of the IP packet: Ethernet padding may follow */
	int ipv6;
};

#endif /* BLOOMXDP_QUERY_H */
