/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --action reject: a hit answered from XDP, so that the sender fails at once
 * rather than at a timeout. The frame is rewritten in place and sent back
 * (XDP_TX): Ethernet addresses swapped, VLAN tags and EtherType kept, a new
 * IP header (no options, no extension headers) with the addresses swapped.
 *
 *  - TCP: a RST (RFC 9293 3.10.7.1): to a segment with ACK, seq = its ack and
 *    RST alone; else seq 0 and RST|ACK, ack = its seq + payload + SYN + FIN.
 *    A RST is never answered (dropped), nor a fragment. Not rate-limited
 *    (the kernel's own RSTs are not): a RST is never longer than the segment.
 *  - UDP: ICMP destination unreachable, port unreachable (type 3 code 3,
 *    RFC 792: the IP header and 8 bytes of the datagram quoted) or ICMPv6
 *    destination unreachable, port unreachable (type 1 code 4, RFC 4443: as
 *    much of the packet as fits in 1280 bytes, REJECT_QUOTE6_MAX), at most
 *    config.icmp_per_sec per CPU and second (over it: dropped, counted as
 *    icmp_ratelimited). A later fragment is dropped; a first one answered.
 *  - anything else (ICMP errors among it), and a packet from or to a
 *    multicast or broadcast address, or from an unspecified one (RFC 1122
 *    3.2.2, RFC 4443 2.4 (e)): dropped.
 *
 * The answer is built in a few bytes of stack and the per-CPU scratch, then
 * written with bpf_xdp_store_bytes(): no packet pointer to bound, and a
 * multi-buffer frame is no different (the tail cut frees its fragments).
 * XDP only: reject_answer() takes the XDP context.
 */
#ifndef BLOOMXDP_REJECT_H
#define BLOOMXDP_REJECT_H

#include <linux/bpf.h>
#include <linux/icmpv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include "budget.h"
#include "csum.h"
#include "maps.h"
#include "parsing.h"
#include "scratch.h"

/* linux/icmp.h includes libc's headers (through linux/if.h): ICMP's own, RFC 792. */
#define ICMP_DEST_UNREACH	3
#define ICMP_PORT_UNREACH	3
struct icmphdr {
	__u8 type;
	__u8 code;
	__sum16 checksum;
	__be32 unused;
};


/* Ethernet and up to BLOOMXDP_MAX_VLANS tags: where the IP header may start. */
#define REJECT_L2_MAX		(ETH_HLEN + BLOOMXDP_MAX_VLANS * 4)
#define REJECT_L2_BUF		32	/* a power of two, REJECT_L2_MAX or more */
/* An ICMP error's header: type, code, checksum, 4 bytes unused. */
#define REJECT_ICMP_HLEN	8
/* ICMP quotes the IP header (options included) and the first 8 bytes of its payload. */
#define REJECT_QUOTE4_L4	8
/* ICMPv6 quotes as much as keeps the error within the IPv6 minimum MTU. */
#define REJECT_QUOTE6_MAX	(1280 - sizeof(struct ipv6hdr) - REJECT_ICMP_HLEN)
/* The checksum of an ICMPv6 error in chunks: bpf_csum_diff() takes 512 bytes at most. */
#define REJECT_CSUM_CHUNK	256
#define REJECT_CSUM_CHUNKS	5	/* 1280 bytes: 8 + REJECT_QUOTE6_MAX + 3 of padding */

/* An address one may answer: unicast, and for a source, specified. */
static __always_inline int reject_v4_unicast(__be32 addr)
{
	__u32 a = bpf_ntohl(addr);

	return a && a < 0xe0000000;	/* 224/4 multicast, 240/4 and broadcast above */
}

static __always_inline int reject_v6_unicast(const struct in6_addr *a)
{
	return a->s6_addr[0] != 0xff &&
	       (a->s6_addr32[0] | a->s6_addr32[1] | a->s6_addr32[2] | a->s6_addr32[3]);
}

/*
 * n bytes of src into the frame at off, 1 <= n <= mask + 1 (mask 2^k - 1, a
 * constant), as parsing.h's frame_load() reads them.
 */
static __always_inline int reject_store(struct xdp_md *ctx, __u32 off, void *src, __u32 n,
					__u32 mask)
{
	if (n < 1 || n > mask + 1)
		return -1;
	n -= 1;
	barrier_var(n);
	n &= mask;
	return bpf_xdp_store_bytes(ctx, off, src, n + 1) ? -1 : 0;
}

/* The frame made len bytes long at its tail. */
static __always_inline int reject_cut(struct xdp_md *ctx, __u32 len)
{
	int delta = (int)len - (int)bpf_xdp_get_buff_len(ctx);

	if (delta > 0)
		return -1;	/* the answer is never longer than what is left of the frame */
	return delta && bpf_xdp_adjust_tail(ctx, delta) ? -1 : 0;
}

/* The first 12 bytes, destination and source MAC, swapped; 0 or -1 (a group address). */
static __always_inline int reject_swap_macs(__u8 *mac)
{
	__u8 tmp[ETH_ALEN];

	if (mac[0] & 1)
		return -1;	/* sent to a multicast or broadcast MAC */
	__builtin_memcpy(tmp, mac, ETH_ALEN);
	__builtin_memcpy(mac, mac + ETH_ALEN, ETH_ALEN);
	__builtin_memcpy(mac + ETH_ALEN, tmp, ETH_ALEN);
	return 0;
}

/* The RST's fields (RFC 9293 3.10.7.1), from the segment's header and payload length. */
static __always_inline void reject_rst_fields(struct tcphdr *rst, const struct tcphdr *th,
					      __u32 payload)
{
	__builtin_memset(rst, 0, sizeof(*rst));
	rst->source = th->dest;
	rst->dest = th->source;
	rst->doff = sizeof(*rst) / 4;
	rst->rst = 1;
	if (th->ack) {
		rst->seq = th->ack_seq;
	} else {
		rst->ack = 1;
		rst->ack_seq = bpf_htonl(bpf_ntohl(th->seq) + payload + th->syn + th->fin);
	}
}

/* The TCP checksum behind a pseudo-header of ph_len bytes (12 or 40). */
static __always_inline int reject_tcp_csum(void *ph, __u32 ph_len, struct tcphdr *rst)
{
	__s64 sum = bpf_csum_diff(NULL, 0, ph, ph_len, 0);

	if (sum < 0)
		return -1;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)rst, sizeof(*rst), (__u32)sum);
	if (sum < 0)
		return -1;
	rst->check = csum_fold32(sum);
	return 0;
}

struct reject_rst4 {
	struct iphdr ip;
	struct tcphdr tcp;
};

struct reject_rst6 {
	struct ipv6hdr ip;
	struct tcphdr tcp;
};

/*
 * The segment at l4_off, in the IP packet at l3_off, turned into its RST:
 * 0, or -1 when it is not answered (a RST, a bad header): dropped.
 */
static __always_inline int reject_tcp(struct xdp_md *ctx, __u32 l3_off, __u32 l4_off, int ipv6)
{
	__u32 ip_len, seg_len, doff, out_len;
	struct tcphdr th;
	__u8 mac[12];
	__s64 sum;

	if (bpf_xdp_load_bytes(ctx, l4_off, &th, sizeof(th)) || th.rst)
		return -1;
	doff = th.doff * 4;
	if (bpf_xdp_load_bytes(ctx, 0, mac, sizeof(mac)) || reject_swap_macs(mac))
		return -1;
	if (ipv6) {
		struct reject_rst6 r = {};
		struct pseudo_v6 ph = {};
		struct ipv6hdr ip;

		if (bpf_xdp_load_bytes(ctx, l3_off, &ip, sizeof(ip)) ||
		    !reject_v6_unicast(&ip.saddr) || ip.daddr.s6_addr[0] == 0xff)
			return -1;
		ip_len = sizeof(ip) + bpf_ntohs(ip.payload_len);
		seg_len = ip_len - (l4_off - l3_off);
		if (ip_len < l4_off - l3_off || doff < sizeof(th) || seg_len < doff)
			return -1;
		reject_rst_fields(&r.tcp, &th, seg_len - doff);
		r.ip.version = 6;
		r.ip.payload_len = bpf_htons(sizeof(r.tcp));
		r.ip.nexthdr = IPPROTO_TCP;
		r.ip.hop_limit = 64;
		r.ip.saddr = ip.daddr;
		r.ip.daddr = ip.saddr;
		ph.saddr = r.ip.saddr;
		ph.daddr = r.ip.daddr;
		ph.len = bpf_htonl(sizeof(r.tcp));
		ph.next = IPPROTO_TCP;
		if (reject_tcp_csum(&ph, sizeof(ph), &r.tcp))
			return -1;
		out_len = l3_off + sizeof(r);
		if (reject_cut(ctx, out_len) || bpf_xdp_store_bytes(ctx, l3_off, &r, sizeof(r)))
			return -1;
	} else {
		struct reject_rst4 r = {};
		struct pseudo_v4 ph = {};
		struct iphdr ip;

		if (bpf_xdp_load_bytes(ctx, l3_off, &ip, sizeof(ip)) ||
		    !reject_v4_unicast(ip.saddr) || !reject_v4_unicast(ip.daddr))
			return -1;
		ip_len = bpf_ntohs(ip.tot_len);
		seg_len = ip_len - (l4_off - l3_off);
		if (ip_len < l4_off - l3_off || doff < sizeof(th) || seg_len < doff)
			return -1;
		reject_rst_fields(&r.tcp, &th, seg_len - doff);
		r.ip.version = 4;
		r.ip.ihl = sizeof(r.ip) / 4;
		r.ip.tot_len = bpf_htons(sizeof(r));
		r.ip.frag_off = bpf_htons(0x4000);	/* DF */
		r.ip.ttl = 64;
		r.ip.protocol = IPPROTO_TCP;
		r.ip.saddr = ip.daddr;
		r.ip.daddr = ip.saddr;
		ph.saddr = r.ip.saddr;
		ph.daddr = r.ip.daddr;
		ph.proto = IPPROTO_TCP;
		ph.len = bpf_htons(sizeof(r.tcp));
		if (reject_tcp_csum(&ph, sizeof(ph), &r.tcp))
			return -1;
		sum = bpf_csum_diff(NULL, 0, (__be32 *)&r.ip, sizeof(r.ip), 0);
		if (sum < 0)
			return -1;
		r.ip.check = csum_fold32(sum);
		out_len = l3_off + sizeof(r);
		if (reject_cut(ctx, out_len) || bpf_xdp_store_bytes(ctx, l3_off, &r, sizeof(r)))
			return -1;
	}
	return bpf_xdp_store_bytes(ctx, 0, mac, sizeof(mac)) ? -1 : 0;
}

/* One more ICMP answer within config.icmp_per_sec on this CPU; else counted. */
static __always_inline int reject_icmp_allowed(void)
{
	struct bloomxdp_counters *cnt;
	struct event_budget *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&icmp_budgets, &zero);
	if (b && budget_take(b, config.icmp_per_sec))
		return 1;
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (cnt)
		cnt->icmp_ratelimited++;
	return 0;
}

/*
 * The ICMP(v6) checksum of the message in s->payload (8 + quote bytes, zero
 * padded to 4), after a pseudo-header's sum (ICMPv6) or none (seed 0).
 */
static __always_inline int reject_icmp_csum(struct scratch *s, __u32 len, __s64 sum, __u16 *check)
{
	__u32 i, off, n;

	len = (len + 3) & ~3U;
	for (i = 0; i < REJECT_CSUM_CHUNKS; i++) {
		off = i * REJECT_CSUM_CHUNK;
		if (off >= len)
			break;
		n = len - off;
		if (n > REJECT_CSUM_CHUNK)
			n = REJECT_CSUM_CHUNK;
		barrier_var(n);
		n &= 2 * REJECT_CSUM_CHUNK - 4;	/* a multiple of 4, as it is */
		sum = bpf_csum_diff(NULL, 0, (__be32 *)(s->payload + off), n, (__u32)sum);
		if (sum < 0)
			return -1;
	}
	*check = csum_fold32(sum);
	return 0;
}

/* The new IP header and the ICMP header, written where the frame was grown at its head. */
struct reject_icmp4 {
	struct iphdr ip;
	struct icmphdr icmp;
};

struct reject_icmp6 {
	struct ipv6hdr ip;
	struct icmp6hdr icmp;
};

/*
 * The IP packet at l3_off quoted, quote bytes, into s->payload behind the ICMP
 * header h (8 bytes, its checksum 0), zero padded to 4 bytes.
 */
static __always_inline int reject_quote(struct xdp_md *ctx, struct scratch *s, __u32 l3_off,
					const void *h, __u32 quote)
{
	__u32 end = REJECT_ICMP_HLEN + quote;	/* at most 8 + REJECT_QUOTE6_MAX */

	__builtin_memcpy(s->payload, h, REJECT_ICMP_HLEN);
	barrier_var(end);
	end &= PAYLOAD_MAX - 1;		/* no-op masks the verifier needs */
	__builtin_memset(s->payload + end, 0, 4);
	return frame_load(ctx, l3_off, s->payload + REJECT_ICMP_HLEN, quote, PAYLOAD_MAX - 1);
}

/*
 * The frame grown at its head by hdr_len (the new IP and ICMP headers): the
 * IP packet then lies where its quote goes. l2 (l3_off bytes) and hdr are
 * written before it, the frame cut after quote bytes of it.
 */
static __always_inline int reject_icmp_write(struct xdp_md *ctx, __u8 *l2, __u32 l3_off,
					     void *hdr, __u32 hdr_len, __u32 quote)
{
	if (bpf_xdp_adjust_head(ctx, -(int)hdr_len) ||
	    reject_cut(ctx, l3_off + hdr_len + quote) ||
	    reject_store(ctx, 0, l2, l3_off, REJECT_L2_BUF - 1))
		return -1;
	if (hdr_len == sizeof(struct reject_icmp6))
		return bpf_xdp_store_bytes(ctx, l3_off, hdr, sizeof(struct reject_icmp6)) ? -1 : 0;
	return bpf_xdp_store_bytes(ctx, l3_off, hdr, sizeof(struct reject_icmp4)) ? -1 : 0;
}

/* ICMPv6 port unreachable for the datagram at l4_off; 0, or -1: dropped. */
static __always_inline int reject_udp6(struct xdp_md *ctx, struct scratch *s, __u8 *l2,
				       __u32 l3_off, __u32 l4_off, __u32 avail)
{
	struct reject_icmp6 r = {};
	struct pseudo_v6 ph = {};
	struct ipv6hdr ip;
	__u32 quote;
	__s64 sum;

	if (bpf_xdp_load_bytes(ctx, l3_off, &ip, sizeof(ip)) || !reject_v6_unicast(&ip.saddr) ||
	    ip.daddr.s6_addr[0] == 0xff)
		return -1;
	quote = sizeof(ip) + bpf_ntohs(ip.payload_len);
	if (quote > avail)
		quote = avail;
	if (quote > REJECT_QUOTE6_MAX)
		quote = REJECT_QUOTE6_MAX;
	if (quote < l4_off - l3_off + sizeof(struct udphdr) || !reject_icmp_allowed())
		return -1;
	r.icmp.icmp6_type = ICMPV6_DEST_UNREACH;
	r.icmp.icmp6_code = ICMPV6_PORT_UNREACH;
	if (reject_quote(ctx, s, l3_off, &r.icmp, quote))
		return -1;
	r.ip.version = 6;
	r.ip.payload_len = bpf_htons(sizeof(r.icmp) + quote);
	r.ip.nexthdr = IPPROTO_ICMPV6;
	r.ip.hop_limit = 64;
	r.ip.saddr = ip.daddr;
	r.ip.daddr = ip.saddr;
	ph.saddr = r.ip.saddr;
	ph.daddr = r.ip.daddr;
	ph.len = bpf_htonl(sizeof(r.icmp) + quote);
	ph.next = IPPROTO_ICMPV6;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)&ph, sizeof(ph), 0);
	if (sum < 0 || reject_icmp_csum(s, sizeof(r.icmp) + quote, sum, &r.icmp.icmp6_cksum))
		return -1;
	return reject_icmp_write(ctx, l2, l3_off, &r, sizeof(r), quote);
}

/* ICMP port unreachable for the datagram at l4_off; 0, or -1: dropped. */
static __always_inline int reject_udp4(struct xdp_md *ctx, struct scratch *s, __u8 *l2,
				       __u32 l3_off, __u32 avail)
{
	struct reject_icmp4 r = {};
	struct iphdr ip;
	__u32 quote;
	__s64 sum;

	if (bpf_xdp_load_bytes(ctx, l3_off, &ip, sizeof(ip)) || !reject_v4_unicast(ip.saddr) ||
	    !reject_v4_unicast(ip.daddr))
		return -1;
	quote = ip.ihl * 4 + REJECT_QUOTE4_L4;
	if (quote > bpf_ntohs(ip.tot_len) || quote > avail || !reject_icmp_allowed())
		return -1;
	r.icmp.type = ICMP_DEST_UNREACH;
	r.icmp.code = ICMP_PORT_UNREACH;
	if (reject_quote(ctx, s, l3_off, &r.icmp, quote) ||
	    reject_icmp_csum(s, sizeof(r.icmp) + quote, 0, &r.icmp.checksum))
		return -1;
	r.ip.version = 4;
	r.ip.ihl = sizeof(r.ip) / 4;
	r.ip.tos = 0xc0;	/* internetwork control, as the kernel's ICMP errors */
	r.ip.tot_len = bpf_htons(sizeof(r) + quote);
	r.ip.ttl = 64;
	r.ip.protocol = IPPROTO_ICMP;
	r.ip.saddr = ip.daddr;
	r.ip.daddr = ip.saddr;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)&r.ip, sizeof(r.ip), 0);
	if (sum < 0)
		return -1;
	r.ip.check = csum_fold32(sum);
	return reject_icmp_write(ctx, l2, l3_off, &r, sizeof(r), quote);
}

/* The datagram at l4_off answered with an ICMP(v6) port unreachable; 0, or -1: dropped. */
static __always_inline int reject_udp(struct xdp_md *ctx, __u32 l3_off, __u32 l4_off, int ipv6)
{
	__u32 avail = bpf_xdp_get_buff_len(ctx) - l3_off;
	struct scratch *s = scratch_get();
	__u8 l2[REJECT_L2_BUF];

	if (!s || frame_load(ctx, 0, l2, l3_off, REJECT_L2_BUF - 1) || reject_swap_macs(l2))
		return -1;
	if (ipv6)
		return reject_udp6(ctx, s, l2, l3_off, l4_off, avail);
	return reject_udp4(ctx, s, l2, l3_off, avail);
}

/*
 * A hit of action reject: XDP_TX when the frame became its answer, else
 * XDP_DROP. l3_off and l4_off are the IP and L4 headers' offsets in the
 * frame, l4_proto the L4 protocol (-1: none known), ipv6_frag bit 0 IPv6, the bits
 * above non-zero for an IP fragment (a first one: its L4 header there). Global:
 * verified once, called only on a hit of a reject list.
 */
__attribute__((noinline)) int reject_answer(struct xdp_md *ctx, __u32 l3_off, __u32 l4_off,
					    int l4_proto, __u32 ipv6_frag)
{
	__u32 ipv6 = ipv6_frag & 1, fragment = ipv6_frag >> 1;

	/* The parsers' bounds, said again for the verifier. */
	if (l3_off < ETH_HLEN || l3_off > REJECT_L2_MAX || l4_off <= l3_off || l4_off > 0xffff)
		return XDP_DROP;
	if (l4_proto == IPPROTO_TCP && !fragment)
		return reject_tcp(ctx, l3_off, l4_off, ipv6) ? XDP_DROP : XDP_TX;
	if (l4_proto == IPPROTO_UDP)
		return reject_udp(ctx, l3_off, l4_off, ipv6) ? XDP_DROP : XDP_TX;
	return XDP_DROP;
}

#endif /* BLOOMXDP_REJECT_H */
