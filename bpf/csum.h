/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Internet checksums of the answers built in XDP: dns.h's NXDOMAIN, reject.h's RST and ICMP. */
#ifndef BLOOMXDP_CSUM_H
#define BLOOMXDP_CSUM_H

#include <linux/bpf.h>
#include <linux/in6.h>
#include <bpf/bpf_helpers.h>

/* A 32-bit one's complement sum (bpf_csum_diff's) folded into a checksum field. */
static __always_inline __u16 csum_fold32(__s64 sum)
{
	__u32 v = (__u32)sum;

	v = (v & 0xffff) + (v >> 16);
	v = (v & 0xffff) + (v >> 16);
	return ~v & 0xffff;
}

/* Pseudo-headers of the UDP, TCP and ICMPv6 checksums (RFC 768, RFC 9293 3.1, RFC 8200 8.1). */
struct pseudo_v4 {
	__be32 saddr;
	__be32 daddr;
	__u8 zero;
	__u8 proto;
	__be16 len;
};

struct pseudo_v6 {
	struct in6_addr saddr;
	struct in6_addr daddr;
	__be32 len;
	__u8 zero[3];
	__u8 next;
};

#endif /* BLOOMXDP_CSUM_H */
