/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* DNS: the QNAME of a standard query over UDP, and the NXDOMAIN answer. */
#ifndef BLOOMXDP_DNS_H
#define BLOOMXDP_DNS_H

#include <linux/udp.h>
#include "csum.h"
#include "loop.h"
#include "parsing.h"
#include "scratch.h"

struct dnshdr {
	__be16 id;
	__be16 flags;
	__be16 qdcount;
	__be16 ancount;
	__be16 nscount;
	__be16 arcount;
};

#define DNS_FLAG_QR		0x8000
#define DNS_OPCODE_MASK		0x7800
#define DNS_FLAG_RD		0x0100
#define DNS_FLAG_RA		0x0080
#define DNS_FLAG_CD		0x0010
#define DNS_RCODE_NXDOMAIN	3
#define DNS_QTYPE_QCLASS_LEN	4
/* Labels of a wire-format name: at most 127 in 255 bytes. */
#define DNS_MAX_WIRE_LABELS	128

struct dns_name_walk {
	__u32 n;		/* name bytes copied to s->name */
	__u32 pos;
	int done;		/* 1: root label reached; -1: malformed or cut short */
};

/* Labels taken per step: a step's call and lookup cost more than a label's work. */
#define DNS_LABELS_PER_STEP	4

static long dns_label_step(__u32 i, void *data)
{
	struct dns_name_walk *w = data;
	struct scratch *s = scratch_get();
	__u32 k, pos;
	__u8 l;

	(void)i;
	if (!s) {
		w->done = -1;
		return 1;
	}
	pos = w->pos;
	for (k = 0; k < DNS_LABELS_PER_STEP; k++) {
		if (pos >= w->n) {
			w->done = -1;
			return 1;
		}
		l = s->name[pos & (BLOOMXDP_NAME_BUF - 1)];
		if (l == 0) {
			w->pos = pos;
			w->done = 1;
			return 1;
		}
		if (l > BLOOMXDP_LABEL_MAX || pos + 1 + l > w->n) {
			w->done = -1;
			return 1;
		}
		bloomxdp_labels_push(&s->labels, pos + 1, l);
		pos += 1 + l;
	}
	w->pos = pos;
	return 0;
}

/*
 * Parses the single question of a standard query in the UDP payload at off
 * (len bytes): its labels land in s->labels, and *question_end is the payload
 * length up to the end of the question. Returns 0, or -1 for anything else:
 * a response, another opcode, QDCOUNT != 1, a compression pointer or a
 * reserved label type in the question, a name or question cut short.
 */
static __always_inline int dns_parse_query(struct hook_ctx *ctx, __u32 off, __u32 len,
					   struct scratch *s, __u32 *question_end)
{
	struct dns_name_walk w = {};
	struct dnshdr h;
	__u32 n;

	if (len < sizeof(h) + 1 + DNS_QTYPE_QCLASS_LEN)
		return -1;
	if (hook_load_bytes(ctx, off, &h, sizeof(h)))
		return -1;
	if ((h.flags & bpf_htons(DNS_FLAG_QR | DNS_OPCODE_MASK)) || h.qdcount != bpf_htons(1))
		return -1;

	n = len - sizeof(h);
	if (n > BLOOMXDP_NAME_MAX)
		n = BLOOMXDP_NAME_MAX;
	if (frame_load(ctx, off + sizeof(h), s->name, n, BLOOMXDP_NAME_BUF - 1))
		return -1;

	s->labels.count = 0;
	w.n = n;
	bpf_loop_bounded(DNS_MAX_WIRE_LABELS / DNS_LABELS_PER_STEP, dns_label_step, &w);
	if (w.done != 1)
		return -1;
	*question_end = sizeof(h) + w.pos + 1 + DNS_QTYPE_QCLASS_LEN;
	s->name_len = w.pos + 1;
	s->name_wire = 1;
	return *question_end > len ? -1 : 0;
}

/*
 * Checksum of the UDP datagram at l4_off (udp_len bytes, its check field 0)
 * behind the pseudo-header already written at the start of s->payload
 * (pseudo_len bytes): the datagram is copied behind it, padded with zeros.
 */
static __always_inline int udp_checksum(struct hook_ctx *ctx, struct scratch *s, __u32 pseudo_len,
					__u32 l4_off, __u32 udp_len, __u16 *check)
{
	__u32 total;
	__s64 sum;

	/* Masks the verifier needs; the compiler must keep them. */
	barrier_var(udp_len);
	udp_len &= 0x1ff;
	barrier_var(pseudo_len);
	pseudo_len &= 0x3f;
	if (udp_len < 1)
		return -1;
	__builtin_memset(s->payload + pseudo_len + udp_len, 0, 4);
	if (frame_load(ctx, l4_off, s->payload + pseudo_len, udp_len, 0x1ff))
		return -1;
	total = (pseudo_len + udp_len + 3) & ~3U;
	barrier_var(total);
	total &= 0x3fc;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)s->payload, total, 0);
	if (sum < 0)
		return -1;
	*check = csum_fold32(sum) ?: 0xffff;
	return 0;
}

/* The IPv4 header's checksum, over its IHL * 4 bytes (check field 0). */
static __always_inline int ipv4_checksum(struct hook_ctx *ctx, struct scratch *s, __u32 l3_off,
					 __u32 hdr_len, __u16 *check)
{
	__s64 sum;

	barrier_var(hdr_len);
	hdr_len &= 0x3c;
	if (hdr_len < sizeof(struct iphdr) || hook_load_bytes(ctx, l3_off, s->payload, hdr_len))
		return -1;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)s->payload, hdr_len, 0);
	if (sum < 0)
		return -1;
	*check = csum_fold32(sum);
	return 0;
}

#if HOOK_CAN_TX
/*
 * Turns the query in place into its NXDOMAIN answer, cut after the question:
 * MACs, addresses and ports swapped, lengths and checksums right. With
 * response, a response becomes an NXDOMAIN in place instead, its addresses
 * and ports as they are, on its way to the client. l3_off and l4_off are
 * offsets in the frame; returns 0, or -1 if the frame could not be
 * rewritten (the caller then drops it).
 *
 * A multi-buffer frame: the answer must lie in the first buffer, where its
 * headers are rewritten by direct access; the cut then frees every fragment,
 * and XDP_TX sends one buffer. A question that runs on into a fragment is
 * refused (dropped), never answered from a frame half rewritten.
 */
static __always_inline int dns_answer_nxdomain(struct xdp_md *ctx, struct scratch *s, int ipv6,
					       __u32 l3_off, __u32 l4_off, __u32 question_end,
					       __u32 response)
{
	__u32 udp_len = sizeof(struct udphdr) + question_end, pseudo_len, hdr_len = 0, linear;
	void *data, *data_end;
	struct ethhdr *eth;
	struct udphdr *udp;
	struct dnshdr *dns;
	__u8 mac[ETH_ALEN];
	__u16 check;
	__be16 port;
	int delta;

	/*
	 * A question is at most 12 + 255 + 4 bytes. The bounds make the masks
	 * below no-ops: l3_off < l4_off <= 256.
	 */
	if (udp_len < sizeof(struct udphdr) + sizeof(struct dnshdr) || udp_len > 300 ||
	    l4_off > 256 || l3_off >= l4_off)
		return -1;
	linear = ctx->data_end - ctx->data;
	if (l4_off + udp_len > linear)
		return -1;
	delta = (int)(l4_off + udp_len) - (int)bpf_xdp_get_buff_len(ctx);
	if (delta && bpf_xdp_adjust_tail(ctx, delta))
		return -1;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	/* Masks the verifier needs to bound packet offsets; the compiler must keep them. */
	barrier_var(l3_off);
	barrier_var(l4_off);
	l3_off &= 0xff;
	l4_off &= 0x1ff;

	eth = data;
	if ((void *)(eth + 1) > data_end)
		return -1;
	if (!response) {
		__builtin_memcpy(mac, eth->h_source, ETH_ALEN);
		__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);
		__builtin_memcpy(eth->h_dest, mac, ETH_ALEN);
	}

	udp = data + l4_off;
	if ((void *)(udp + 1) > data_end)
		return -1;
	dns = (void *)(udp + 1);
	if ((void *)(dns + 1) > data_end)
		return -1;
	if (!response) {
		port = udp->source;
		udp->source = udp->dest;
		udp->dest = port;
	}
	udp->len = bpf_htons(udp_len);
	udp->check = 0;
	/* A response keeps its flags but the answer's: authoritative, truncated, its rcode. */
	dns->flags = (dns->flags & bpf_htons(DNS_OPCODE_MASK | DNS_FLAG_RD | DNS_FLAG_CD |
					     (response ? DNS_FLAG_RA : 0))) |
		     bpf_htons(DNS_FLAG_QR | (response ? 0 : DNS_FLAG_RA) | DNS_RCODE_NXDOMAIN);
	dns->ancount = 0;
	dns->nscount = 0;
	dns->arcount = 0;

	if (ipv6) {
		struct ipv6hdr *ip6h = data + l3_off;
		struct pseudo_v6 *ph = (void *)s->payload;
		struct in6_addr addr;

		if ((void *)(ip6h + 1) > data_end)
			return -1;
		if (!response) {
			addr = ip6h->saddr;
			ip6h->saddr = ip6h->daddr;
			ip6h->daddr = addr;
			ip6h->hop_limit = 64;
		}
		/* Extension headers between the two are kept, their lengths unchanged. */
		ip6h->payload_len = bpf_htons(l4_off - l3_off - sizeof(*ip6h) + udp_len);
		ph->saddr = ip6h->saddr;
		ph->daddr = ip6h->daddr;
		ph->len = bpf_htonl(udp_len);
		__builtin_memset(ph->zero, 0, sizeof(ph->zero));
		ph->next = IPPROTO_UDP;
		pseudo_len = sizeof(*ph);
	} else {
		struct iphdr *iph = data + l3_off;
		struct pseudo_v4 *ph = (void *)s->payload;
		__be32 addr;

		if ((void *)(iph + 1) > data_end)
			return -1;
		if (!response) {
			addr = iph->saddr;
			iph->saddr = iph->daddr;
			iph->daddr = addr;
			iph->ttl = 64;
		}
		iph->tot_len = bpf_htons(l4_off - l3_off + udp_len);
		iph->frag_off = 0;
		iph->check = 0;
		hdr_len = iph->ihl * 4;
		ph->saddr = iph->saddr;
		ph->daddr = iph->daddr;
		ph->zero = 0;
		ph->proto = IPPROTO_UDP;
		ph->len = bpf_htons(udp_len);
		pseudo_len = sizeof(*ph);
	}

	if (udp_checksum(ctx, s, pseudo_len, l4_off, udp_len, &check))
		return -1;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	udp = data + l4_off;
	if ((void *)(udp + 1) > data_end)
		return -1;
	udp->check = check;
	if (ipv6)
		return 0;

	if (ipv4_checksum(ctx, s, l3_off, hdr_len, &check))
		return -1;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	{
		struct iphdr *iph = data + l3_off;

		if ((void *)(iph + 1) > data_end)
			return -1;
		iph->check = check;
	}
	return 0;
}
#endif /* HOOK_CAN_TX: XDP only, sent back with XDP_TX */

#endif /* BLOOMXDP_DNS_H */
