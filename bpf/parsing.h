/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Header cursor for XDP parsing: each parse_*() checks bounds, advances the
 * cursor past its header and returns the next protocol, or a negative
 * PARSE_* class that names why the frame cannot be parsed further. Headers
 * are read by direct packet access, in the frame's first buffer: the cursor
 * ends at ctx->data_end, which in a multi-buffer frame (xdp.frags) is where
 * the first fragment starts, not where the frame ends.
 */
#ifndef BLOOMXDP_PARSING_H
#define BLOOMXDP_PARSING_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include <bloomxdp/common.h>
#include "hook.h"

struct cursor {
	void *pos;
	void *end;
};

/*
 * The PARSE_CUT_* classes are a header the first buffer ends in: in a frame
 * of one buffer a truncated frame, malformed like a bad header of its kind;
 * in a multi-buffer frame a header that runs on into a fragment (see
 * split_headers in bloomxdp.bpf.c).
 */
enum parse_error {
	PARSE_VLAN_TOO_DEEP = -1,
	PARSE_BAD_IPV4 = -2,		/* not version 4 */
	PARSE_BAD_IPV4_IHL = -3,	/* IHL below 5 */
	PARSE_BAD_IPV6 = -4,		/* not version 6 */
	PARSE_CUT_ETH = -5,		/* the cut classes: PARSE_CUT_ETH and below */
	PARSE_CUT_VLAN = -6,
	PARSE_CUT_IPV4 = -7,
	PARSE_CUT_IPV4_IHL = -8,	/* the options */
	PARSE_CUT_IPV6 = -9,
};

struct vlan_tag {
	__be16 tci;
	__be16 encapsulated_proto;
};

static __always_inline int proto_is_vlan(__be16 proto)
{
	return proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD);
}

/* Returns the EtherType after up to BLOOMXDP_MAX_VLANS tags, in network order. */
static __always_inline int parse_ethhdr(struct cursor *c)
{
	struct ethhdr *eth = c->pos;
	struct vlan_tag *tag;
	__be16 proto;
	int i;

	if ((void *)(eth + 1) > c->end)
		return PARSE_CUT_ETH;
	c->pos = eth + 1;
	proto = eth->h_proto;

	for (i = 0; i < BLOOMXDP_MAX_VLANS; i++) {
		if (!proto_is_vlan(proto))
			break;
		tag = c->pos;
		if ((void *)(tag + 1) > c->end)
			return PARSE_CUT_VLAN;
		c->pos = tag + 1;
		proto = tag->encapsulated_proto;
	}
	if (proto_is_vlan(proto))
		return PARSE_VLAN_TOO_DEEP;
	return proto;
}

/* Returns the IP protocol; *iph points at the header, the cursor past its options. */
static __always_inline int parse_iphdr(struct cursor *c, struct iphdr **iph_out)
{
	struct iphdr *iph = c->pos;
	__u32 hdr_len;

	if ((void *)(iph + 1) > c->end)
		return PARSE_CUT_IPV4;
	if (iph->version != 4)
		return PARSE_BAD_IPV4;
	hdr_len = iph->ihl * 4;
	if (hdr_len < sizeof(*iph))
		return PARSE_BAD_IPV4_IHL;
	if (c->pos + hdr_len > c->end)
		return PARSE_CUT_IPV4_IHL;
	c->pos += hdr_len;
	*iph_out = iph;
	return iph->protocol;
}

/* Not exported by the UAPI headers. */
#define IPV4_MORE_FRAGMENTS	0x2000
#define IPV4_FRAG_OFFSET	0x1fff

static __always_inline int ipv4_is_fragment(const struct iphdr *iph)
{
	return (iph->frag_off & bpf_htons(IPV4_MORE_FRAGMENTS | IPV4_FRAG_OFFSET)) != 0;
}

/* A fragment other than the first: no L4 header in it. */
static __always_inline int ipv4_is_later_fragment(const struct iphdr *iph)
{
	return (iph->frag_off & bpf_htons(IPV4_FRAG_OFFSET)) != 0;
}

/* Returns the next header after the fixed IPv6 header. */
static __always_inline int parse_ip6hdr(struct cursor *c, struct ipv6hdr **ip6h_out)
{
	struct ipv6hdr *ip6h = c->pos;

	if ((void *)(ip6h + 1) > c->end)
		return PARSE_CUT_IPV6;
	if (ip6h->version != 6)
		return PARSE_BAD_IPV6;
	c->pos = ip6h + 1;
	*ip6h_out = ip6h;
	return ip6h->nexthdr;
}

struct ipv6_ext_result {
	/* The upper-layer protocol, or -1: a later fragment's, or not reached. */
	int l4_proto;
	int unparsed;		/* 1: the chain was not walked to its end (too deep, or cut) */
	/*
	 * The fragment headers' offset and M fields (host order), ORed: 0 for
	 * none, or an atomic fragment (offset 0, M=0: a whole datagram, RFC
	 * 6946), parsed as unfragmented. ipv6_frag_later(): no L4 header.
	 */
	__u32 frag;
	int cut;		/* 1: the walk stopped at the end of the first buffer */
};

static __always_inline int ipv6_is_ext(int nexthdr)
{
	return nexthdr == IPPROTO_HOPOPTS || nexthdr == IPPROTO_DSTOPTS ||
	       nexthdr == IPPROTO_ROUTING || nexthdr == IPPROTO_MH ||
	       nexthdr == IPPROTO_AH || nexthdr == IPPROTO_FRAGMENT;
}

/* The fragment header's offset (13 bits, in 8-byte units) and M flag. */
#define IPV6_FRAG_OFFSET	0xfff8
#define IPV6_FRAG_MORE		0x0001

/* A fragment other than the first: its payload has no L4 header. */
static __always_inline int ipv6_frag_later(__u32 frag)
{
	return (frag & IPV6_FRAG_OFFSET) != 0;
}

/*
 * Walks up to BLOOMXDP_MAX_IPV6_EXT extension headers from the cursor to the
 * upper-layer header; each must lie whole in the first buffer. Leaves the
 * cursor at the L4 header on success. The fragment fields are gathered
 * without a branch of their own: each branch in the walk's steps multiplies
 * what the verifier walks.
 */
static __always_inline void skip_ip6hdrext(struct cursor *c, int nexthdr,
					   struct ipv6_ext_result *res)
{
	struct ipv6_opt_hdr *hdr;
	__u32 len;
	int i;

	res->frag = 0;
	res->cut = 0;
	res->unparsed = 0;
	for (i = 0; i < BLOOMXDP_MAX_IPV6_EXT; i++) {
		if (!ipv6_is_ext(nexthdr))
			break;
		hdr = c->pos;
		if ((void *)(hdr + 1) > c->end)
			goto cut;
		if (nexthdr == IPPROTO_FRAGMENT)
			len = 8;
		else if (nexthdr == IPPROTO_AH)
			len = (hdr->hdrlen + 2) * 4;
		else
			len = (hdr->hdrlen + 1) * 8;
		if (c->pos + len > c->end)
			goto cut;
		if (nexthdr == IPPROTO_FRAGMENT)
			res->frag |= bpf_ntohs(((__be16 *)hdr)[1]) &
				     (IPV6_FRAG_OFFSET | IPV6_FRAG_MORE);
		c->pos += len;
		nexthdr = hdr->nexthdr;
	}
	if (!ipv6_is_ext(nexthdr)) {
		res->l4_proto = ipv6_frag_later(res->frag) ? -1 : nexthdr;
		return;
	}
	res->unparsed = 1;	/* too deep */
	res->l4_proto = -1;
	return;
cut:
	res->cut = 1;
	res->unparsed = 1;
	res->l4_proto = -1;
}

/*
 * n bytes of the frame at off into dst, 1 <= n <= mask + 1 (mask: 2^k - 1, a
 * constant), from the first buffer or the fragments past it; 0, or -1 when n
 * is out of range or the frame is shorter. The size handed to the helper is
 * ((n - 1) & mask) + 1, which every verifier bounds to [1, mask + 1]: the 6.1
 * verifier learns nothing from "n != 0" (it keeps umin 0 there, newer ones set
 * 1), and refuses a size that may be 0.
 */
static __always_inline int frame_load(struct hook_ctx *ctx, __u32 off, void *dst, __u32 n,
				      __u32 mask)
{
	if (n < 1 || n > mask + 1)
		return -1;
	n -= 1;
	barrier_var(n);		/* the compiler must keep the mask: the verifier needs it */
	n &= mask;
	return hook_load_bytes(ctx, off, dst, n + 1) ? -1 : 0;
}

#endif /* BLOOMXDP_PARSING_H */
