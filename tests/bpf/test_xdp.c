// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verdicts and counters of bpf/bloomxdp.bpf.c, frame by frame, through
 * BPF_PROG_TEST_RUN on loaded but unattached programs. One table row per
 * case: the frame, the configuration, the verdict and the counters the frame
 * must move. Every counter a row does not name must stay unchanged; packets,
 * bytes, passed and dropped follow from the frame and the verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "xdp_harness.h"

/* The configurations rows run under; each loads its own program. */
enum cfg_id { SRC, DST, SRC_DST, MONITOR, NO_FILTER, N_CFGS };

static const struct harness_config cfg_defs[N_CFGS] = {
	[SRC] = { .match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_DROP },
	[DST] = { .match = BLOOMXDP_MATCH_DST, .action = BLOOMXDP_ACTION_DROP },
	[SRC_DST] = { .match = BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST,
		      .action = BLOOMXDP_ACTION_DROP },
	[MONITOR] = { .match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_MONITOR },
	[NO_FILTER] = { .match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_DROP,
			.no_filter = true },
};

static struct xdp_harness harnesses[N_CFGS];

/* The list every configuration holds. */
#define LISTED4		"192.0.2.1"
#define LISTED4_B	"192.0.2.77"		/* listed as ::ffff:192.0.2.77 */
#define LISTED6		"2001:db8::1"
#define LISTED6_B	"2001:db8:0:1::abcd"
#define MAPPED(v4)	"::ffff:" v4

static const char *const list[] = { LISTED4, MAPPED(LISTED4_B), LISTED6, LISTED6_B };

struct xdp_case {
	const char *name;
	enum cfg_id cfg;
	struct frame_desc frame;
	__u32 verdict;
	struct bloomxdp_counters delta;	/* besides packets, bytes, passed, dropped */
};

/* Frames: the arguments set struct frame_desc fields. */
#define V4(...)		{ .ethertype = ETH_P_IP, __VA_ARGS__ }
#define V6(...)		{ .ethertype = ETH_P_IPV6, __VA_ARGS__ }
#define ETHX(type, ...)	{ .ethertype = (type), __VA_ARGS__ }
#define Q1		.tags = { ETH_P_8021Q }
#define AD_Q		.tags = { ETH_P_8021AD, ETH_P_8021Q }
#define EXT(...)	.ext = (const __u8[]){ __VA_ARGS__ }, \
			.n_ext = sizeof((const __u8[]){ __VA_ARGS__ })
#define CUT(n)		.cut = true, .cut_len = (n)

#define HBH		IPPROTO_HOPOPTS
#define RT		IPPROTO_ROUTING
#define DOPT		IPPROTO_DSTOPTS
#define FRAG		IPPROTO_FRAGMENT
#define AH		IPPROTO_AH
#define L2		ETH_HLEN
#define L2Q		(ETH_HLEN + VLAN_HLEN)

/* Payloads of a 9,000-byte IP packet (UDP), a jumbo MTU's. */
#define JUMBO4		(9000 - IP4_HLEN - UDP_HLEN)
#define JUMBO6		(9000 - IP6_HLEN - UDP_HLEN)

#define MF		0x2000		/* IPv4 more fragments */
#define DF		0x4000
#define MF6		1		/* IPv6 fragment header M flag */

/* Counter deltas. */
#define HIT4		.checked_v4 = 1, .hits_v4 = 1, .bloom_hits = 1
#define MISS4		.checked_v4 = 1
#define HIT6		.checked_v6 = 1, .hits_v6 = 1, .bloom_hits = 1
#define MISS6		.checked_v6 = 1
#define BAD(class)	.malformed = 1, .class = 1

#define CASE(nm, c, fr, v, ...) \
	{ .name = (nm), .cfg = (c), .frame = fr, .verdict = (v), .delta = { __VA_ARGS__ } }

/* The chain cases below are written for this bound. */
_Static_assert(BLOOMXDP_MAX_IPV6_EXT == 8, "adjust the IPv6 chain depth cases");
_Static_assert(BLOOMXDP_MAX_VLANS == 2, "adjust the VLAN depth cases");

static const struct xdp_case cases[] = {
	/* Addresses. */
	CASE("v4 listed source", SRC, V4(.src = LISTED4), XDP_DROP, HIT4),
	CASE("v4 unlisted source", SRC, V4(.payload = 64), XDP_PASS, MISS4),
	CASE("v4 TCP listed source", SRC, V4(.src = LISTED4, .l4 = IPPROTO_TCP, .payload = 100),
	     XDP_DROP, HIT4),
	CASE("v4 source listed as ::ffff:a.b.c.d", SRC, V4(.src = LISTED4_B), XDP_DROP, HIT4),
	CASE("v6 listed source", SRC, V6(.src = LISTED6, .payload = 32), XDP_DROP, HIT6),
	CASE("v6 second listed source", SRC, V6(.src = LISTED6_B), XDP_DROP, HIT6),
	CASE("v6 unlisted source", SRC, V6(), XDP_PASS, MISS6),
	CASE("v6 ::ffff:a.b.c.d source, a.b.c.d listed", SRC, V6(.src = MAPPED(LISTED4)),
	     XDP_DROP, HIT6),
	CASE("v6 ::ffff:a.b.c.d source, unlisted", SRC, V6(.src = MAPPED("192.0.2.2")),
	     XDP_PASS, MISS6),
	CASE("v6 ::a.b.c.d (not mapped), a.b.c.d listed", SRC, V6(.src = "::" LISTED4),
	     XDP_PASS, MISS6),

	/* VLAN tags. */
	CASE("802.1Q listed source", SRC, V4(Q1, .src = LISTED4), XDP_DROP, HIT4),
	CASE("802.1Q unlisted source", SRC, V4(Q1), XDP_PASS, MISS4),
	CASE("802.1ad+802.1Q listed source", SRC, V4(AD_Q, .src = LISTED4), XDP_DROP, HIT4),
	CASE("802.1ad+802.1Q v6 listed source", SRC, V6(AD_Q, .src = LISTED6), XDP_DROP, HIT6),
	CASE("802.1Q+802.1Q listed source", SRC,
	     V4(.tags = { ETH_P_8021Q, ETH_P_8021Q }, .src = LISTED4), XDP_DROP, HIT4),
	CASE("three tags, listed source", SRC,
	     V4(.tags = { ETH_P_8021AD, ETH_P_8021Q, ETH_P_8021Q }, .src = LISTED4),
	     XDP_PASS, .vlan_too_deep = 1),

	/* IPv4 header. */
	/* Listed sources with IHL 6..15: test_ipv4_every_ihl(). */
	CASE("v4 IHL 15 unlisted source", SRC, V4(.ihl = 15), XDP_PASS, MISS4),
	CASE("v4 IHL 4", SRC, V4(.ihl = 4, .src = LISTED4), XDP_PASS, BAD(bad_ipv4_ihl)),
	CASE("v4 IHL 1", SRC, V4(.ihl = 1, .src = LISTED4), XDP_PASS, BAD(bad_ipv4_ihl)),
	CASE("v4 IHL 15 beyond a 28-byte packet", SRC,
	     V4(.ihl = 15, .src = LISTED4, CUT(L2 + IP4_HLEN + UDP_HLEN)), XDP_PASS,
	     BAD(bad_ipv4_ihl)),
	CASE("v4 version nibble 6", SRC, V4(.version = 6, .src = LISTED4), XDP_PASS,
	     BAD(bad_ipv4)),
	CASE("v4 version nibble 15", SRC, V4(.version = 15, .src = LISTED4), XDP_PASS,
	     BAD(bad_ipv4)),
	CASE("v6 version nibble 4", SRC, V6(.version = 4, .src = LISTED6), XDP_PASS,
	     BAD(bad_ipv6)),

	/* IPv6 extension headers. */
	CASE("v6 hop-by-hop+routing+dstopts listed", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, .payload = 20), XDP_DROP, HIT6),
	CASE("v6 hop-by-hop+routing+dstopts unlisted", SRC, V6(EXT(HBH, RT, DOPT)),
	     XDP_PASS, MISS6),
	CASE("v6 AH listed", SRC, V6(EXT(AH), .src = LISTED6, .l4 = IPPROTO_TCP), XDP_DROP,
	     HIT6),
	CASE("v6 chain of 7 listed", SRC,
	     V6(EXT(HBH, DOPT, RT, AH, DOPT, DOPT, DOPT), .src = LISTED6), XDP_DROP, HIT6),
	/* Exactly BLOOMXDP_MAX_IPV6_EXT headers are walked to the end. */
	CASE("v6 chain of 8 listed", SRC,
	     V6(EXT(HBH, DOPT, RT, AH, DOPT, DOPT, DOPT, DOPT), .src = LISTED6), XDP_DROP,
	     HIT6),
	CASE("v6 chain of 9 listed", SRC,
	     V6(EXT(HBH, DOPT, RT, AH, DOPT, DOPT, DOPT, DOPT, DOPT), .src = LISTED6),
	     XDP_DROP, HIT6, .ipv6_ext_unparsed = 1),
	CASE("v6 chain of 9 unlisted", SRC,
	     V6(EXT(HBH, DOPT, DOPT, DOPT, DOPT, DOPT, DOPT, DOPT, DOPT)), XDP_PASS, MISS6,
	     .ipv6_ext_unparsed = 1),

	/* Fragments: matched by address like any packet. */
	CASE("v4 first fragment (MF) listed", SRC, V4(.frag_off = MF, .src = LISTED4),
	     XDP_DROP, HIT4, .fragments = 1),
	CASE("v4 middle fragment listed", SRC, V4(.frag_off = MF | 185, .src = LISTED4),
	     XDP_DROP, HIT4, .fragments = 1),
	CASE("v4 last fragment listed", SRC, V4(.frag_off = 185, .src = LISTED4), XDP_DROP,
	     HIT4, .fragments = 1),
	CASE("v4 fragment unlisted", SRC, V4(.frag_off = MF), XDP_PASS, MISS4,
	     .fragments = 1),
	CASE("v4 DF is no fragment", SRC, V4(.frag_off = DF, .src = LISTED4), XDP_DROP, HIT4),
	CASE("v6 first fragment listed", SRC, V6(EXT(FRAG), .frag_off = MF6, .src = LISTED6),
	     XDP_DROP, HIT6, .fragments = 1),
	CASE("v6 last fragment listed", SRC, V6(EXT(FRAG), .frag_off = 185 << 3,
						.src = LISTED6), XDP_DROP, HIT6, .fragments = 1),
	CASE("v6 hop-by-hop+fragment listed", SRC,
	     V6(EXT(HBH, FRAG), .frag_off = MF6, .src = LISTED6), XDP_DROP, HIT6,
	     .fragments = 1),
	CASE("v6 fragment unlisted", SRC, V6(EXT(FRAG), .frag_off = MF6), XDP_PASS, MISS6,
	     .fragments = 1),

	/* Truncation at each header boundary and inside each header; listed source. */
	/*
	 * Shorter than an Ethernet header: the kernel pads such a frame to 14
	 * bytes in a fragment (xdp_test_run_linear()), which the program, frags
	 * aware, sees: an Ethernet header past the first buffer, not bad_eth.
	 */
	CASE("cut at 0 bytes", SRC, V4(.src = LISTED4, CUT(0)), XDP_PASS, .split_headers = 1),
	CASE("cut at 13 bytes", SRC, V4(.src = LISTED4, CUT(13)), XDP_PASS, .split_headers = 1),
	CASE("cut after Ethernet, v4", SRC, V4(.src = LISTED4, CUT(L2)), XDP_PASS,
	     BAD(bad_ipv4)),
	CASE("cut after Ethernet, v6", SRC, V6(.src = LISTED6, CUT(L2)), XDP_PASS,
	     BAD(bad_ipv6)),
	CASE("cut after Ethernet, 802.1Q", SRC, V4(Q1, .src = LISTED4, CUT(L2)), XDP_PASS,
	     BAD(bad_vlan)),
	CASE("cut mid-VLAN tag", SRC, V4(Q1, .src = LISTED4, CUT(L2 + 2)), XDP_PASS,
	     BAD(bad_vlan)),
	CASE("cut 1 byte short of VLAN tag", SRC, V4(Q1, .src = LISTED4, CUT(L2Q - 1)),
	     XDP_PASS, BAD(bad_vlan)),
	CASE("cut after VLAN tag", SRC, V4(Q1, .src = LISTED4, CUT(L2Q)), XDP_PASS,
	     BAD(bad_ipv4)),
	CASE("cut after outer of two tags", SRC, V4(AD_Q, .src = LISTED4, CUT(L2Q)),
	     XDP_PASS, BAD(bad_vlan)),
	CASE("cut mid inner tag", SRC, V4(AD_Q, .src = LISTED4, CUT(L2Q + 3)), XDP_PASS,
	     BAD(bad_vlan)),
	CASE("cut after two tags, v6", SRC, V6(AD_Q, .src = LISTED6, CUT(L2Q + VLAN_HLEN)),
	     XDP_PASS, BAD(bad_ipv6)),
	CASE("cut v4 after 1 byte", SRC, V4(.src = LISTED4, CUT(L2 + 1)), XDP_PASS,
	     BAD(bad_ipv4)),
	CASE("cut v4 after 19 bytes", SRC, V4(.src = LISTED4, CUT(L2 + IP4_HLEN - 1)),
	     XDP_PASS, BAD(bad_ipv4)),
	CASE("cut v4 after 802.1Q + 19 bytes", SRC,
	     V4(Q1, .src = LISTED4, CUT(L2Q + IP4_HLEN - 1)), XDP_PASS, BAD(bad_ipv4)),
	CASE("cut v4 at end of header", SRC, V4(.src = LISTED4, CUT(L2 + IP4_HLEN)),
	     XDP_DROP, HIT4),
	CASE("cut v4 inside UDP", SRC, V4(.src = LISTED4, CUT(L2 + IP4_HLEN + 3)), XDP_DROP,
	     HIT4),
	CASE("cut v4 inside TCP", SRC,
	     V4(.src = LISTED4, .l4 = IPPROTO_TCP, CUT(L2 + IP4_HLEN + 10)), XDP_DROP, HIT4),
	CASE("cut v4 IHL 8 before options", SRC, V4(.ihl = 8, .src = LISTED4,
						     CUT(L2 + IP4_HLEN)), XDP_PASS,
	     BAD(bad_ipv4_ihl)),
	CASE("cut v4 IHL 8 inside options", SRC, V4(.ihl = 8, .src = LISTED4,
						     CUT(L2 + IP4_HLEN + 6)), XDP_PASS,
	     BAD(bad_ipv4_ihl)),
	CASE("cut v4 IHL 8 1 byte short of options", SRC,
	     V4(.ihl = 8, .src = LISTED4, CUT(L2 + 32 - 1)), XDP_PASS, BAD(bad_ipv4_ihl)),
	CASE("cut v4 IHL 8 at end of options", SRC, V4(.ihl = 8, .src = LISTED4,
						       CUT(L2 + 32)), XDP_DROP, HIT4),
	CASE("cut v6 after 8 bytes", SRC, V6(.src = LISTED6, CUT(L2 + 8)), XDP_PASS,
	     BAD(bad_ipv6)),
	CASE("cut v6 after 39 bytes", SRC, V6(.src = LISTED6, CUT(L2 + IP6_HLEN - 1)),
	     XDP_PASS, BAD(bad_ipv6)),
	CASE("cut v6 at end of header", SRC, V6(.src = LISTED6, CUT(L2 + IP6_HLEN)), XDP_DROP,
	     HIT6),
	CASE("cut v6 before hop-by-hop", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN)), XDP_DROP, HIT6,
	     .ipv6_ext_unparsed = 1),
	CASE("cut v6 inside hop-by-hop", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN + 1)), XDP_DROP, HIT6,
	     .ipv6_ext_unparsed = 1),
	CASE("cut v6 before routing", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN + 8)), XDP_DROP, HIT6,
	     .ipv6_ext_unparsed = 1),
	CASE("cut v6 inside routing", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN + 9)), XDP_DROP, HIT6,
	     .ipv6_ext_unparsed = 1),
	CASE("cut v6 before dstopts", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN + 32)), XDP_DROP, HIT6,
	     .ipv6_ext_unparsed = 1),
	CASE("cut v6 1 byte into dstopts", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN + 33)), XDP_DROP, HIT6,
	     .ipv6_ext_unparsed = 1),
	/* An extension header must lie whole in the frame; the address still counts. */
	CASE("cut v6 4 bytes into last dstopts", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN + 36)), XDP_DROP, HIT6,
	     .ipv6_ext_unparsed = 1),
	CASE("cut v6 4 bytes into fragment header", SRC,
	     V6(EXT(FRAG), .frag_off = MF6, .src = LISTED6, CUT(L2 + IP6_HLEN + 4)),
	     XDP_DROP, HIT6, .ipv6_ext_unparsed = 1),
	CASE("cut v6 1 byte into fragment header", SRC,
	     V6(EXT(FRAG), .frag_off = MF6, .src = LISTED6, CUT(L2 + IP6_HLEN + 1)),
	     XDP_DROP, HIT6, .ipv6_ext_unparsed = 1),
	CASE("cut v6 at end of extension chain", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, CUT(L2 + IP6_HLEN + 48)), XDP_DROP, HIT6),

	/* Not IP. */
	CASE("ARP", SRC, ETHX(ETH_P_ARP, .payload = 28), XDP_PASS, .non_ip = 1),
	CASE("LLDP", SRC, ETHX(ETH_P_LLDP, .payload = 46), XDP_PASS, .non_ip = 1),
	CASE("802.1Q ARP", SRC, ETHX(ETH_P_ARP, Q1, .payload = 28), XDP_PASS, .non_ip = 1),
	CASE("Ethernet header only, ARP", SRC, ETHX(ETH_P_ARP), XDP_PASS, .non_ip = 1),

	/* Which address: match src. */
	CASE("match src: v4 listed destination", SRC, V4(.dst = LISTED4), XDP_PASS, MISS4),
	CASE("match src: v6 listed destination", SRC, V6(.dst = LISTED6), XDP_PASS, MISS6),
	/* Match dst. */
	CASE("match dst: v4 listed destination", DST, V4(.dst = LISTED4), XDP_DROP, HIT4),
	CASE("match dst: v4 listed source", DST, V4(.src = LISTED4), XDP_PASS, MISS4),
	CASE("match dst: v6 listed destination", DST, V6(.dst = LISTED6), XDP_DROP, HIT6),
	CASE("match dst: v6 listed source", DST, V6(.src = LISTED6), XDP_PASS, MISS6),
	CASE("match dst: v6 ::ffff:a.b.c.d destination", DST, V6(.dst = MAPPED(LISTED4_B)),
	     XDP_DROP, HIT6),
	/* Match src,dst. */
	CASE("match src,dst: v4 listed source", SRC_DST, V4(.src = LISTED4), XDP_DROP, HIT4),
	CASE("match src,dst: v4 listed destination", SRC_DST, V4(.dst = LISTED4), XDP_DROP,
	     HIT4),
	CASE("match src,dst: v4 both listed", SRC_DST, V4(.src = LISTED4, .dst = LISTED4_B),
	     XDP_DROP, HIT4),
	CASE("match src,dst: v4 none listed", SRC_DST, V4(), XDP_PASS, MISS4),
	CASE("match src,dst: v6 listed source", SRC_DST, V6(.src = LISTED6), XDP_DROP, HIT6),
	CASE("match src,dst: v6 listed destination", SRC_DST, V6(.dst = LISTED6_B), XDP_DROP,
	     HIT6),
	CASE("match src,dst: v6 none listed", SRC_DST, V6(), XDP_PASS, MISS6),

	/* Monitor: hits are counted and passed. */
	CASE("monitor: v4 listed source", MONITOR, V4(.src = LISTED4), XDP_PASS, HIT4,
	     .would_drop = 1),
	CASE("monitor: v6 listed source", MONITOR, V6(.src = LISTED6), XDP_PASS, HIT6,
	     .would_drop = 1),
	CASE("monitor: v4 listed fragment", MONITOR, V4(.frag_off = MF, .src = LISTED4),
	     XDP_PASS, HIT4, .would_drop = 1, .fragments = 1),
	CASE("monitor: v4 unlisted source", MONITOR, V4(), XDP_PASS, MISS4),
	CASE("monitor: listed destination", MONITOR, V4(.dst = LISTED4), XDP_PASS, MISS4),
	CASE("monitor: truncated", MONITOR, V4(.src = LISTED4, CUT(L2 + 10)), XDP_PASS,
	     BAD(bad_ipv4)),

	/* Loaded with an empty filter slot: everything passes unchecked. */
	CASE("no filter: v4 listed source", NO_FILTER, V4(.src = LISTED4), XDP_PASS,
	     .no_filter = 1),
	CASE("no filter: v6 listed source", NO_FILTER, V6(.src = LISTED6), XDP_PASS,
	     .no_filter = 1),
	CASE("no filter: v4 fragment", NO_FILTER, V4(.frag_off = MF), XDP_PASS,
	     .fragments = 1, .no_filter = 1),
	CASE("no filter: v6 chain of 9", NO_FILTER,
	     V6(EXT(HBH, DOPT, DOPT, DOPT, DOPT, DOPT, DOPT, DOPT, DOPT)), XDP_PASS,
	     .ipv6_ext_unparsed = 1, .no_filter = 1),
	CASE("no filter: ARP", NO_FILTER, ETHX(ETH_P_ARP, .payload = 28), XDP_PASS,
	     .non_ip = 1),
	CASE("no filter: truncated", NO_FILTER, V6(CUT(L2 + 20)), XDP_PASS, BAD(bad_ipv6)),

	/*
	 * Multi-buffer frames (xdp.frags): past FRAME_LINEAR bytes a frame goes
	 * on in fragments. The headers are read in the first buffer; bytes
	 * counts the whole frame.
	 */
	CASE("frags: v4 9,000-byte packet, listed source", SRC,
	     V4(.src = LISTED4, .payload = JUMBO4), XDP_DROP, HIT4),
	CASE("frags: v4 9,000-byte packet, unlisted source", SRC, V4(.payload = JUMBO4),
	     XDP_PASS, MISS4),
	CASE("frags: v4 TCP 9,000-byte packet, listed source", SRC,
	     V4(.src = LISTED4, .l4 = IPPROTO_TCP, .payload = JUMBO4 - 12), XDP_DROP, HIT4),
	CASE("frags: v6 9,000-byte packet, listed source", SRC,
	     V6(.src = LISTED6, .payload = JUMBO6), XDP_DROP, HIT6),
	CASE("frags: v6 9,000-byte packet, unlisted source", SRC, V6(.payload = JUMBO6),
	     XDP_PASS, MISS6),
	CASE("frags: 802.1ad+802.1Q v6 9,000-byte packet, listed destination", DST,
	     V6(AD_Q, .dst = LISTED6, .payload = JUMBO6), XDP_DROP, HIT6),
	CASE("frags: monitor, v4 9,000-byte packet, listed source", MONITOR,
	     V4(.src = LISTED4, .payload = JUMBO4), XDP_PASS, HIT4, .would_drop = 1),
	/* The frame ends in a fragment before its IP packet does: the address still counts. */
	CASE("frags: v4 9,000-byte packet cut at 6,000 bytes, listed source", SRC,
	     V4(.src = LISTED4, .payload = JUMBO4, CUT(6000)), XDP_DROP, HIT4),
	CASE("frags: v6 9,000-byte packet cut at 3,521 bytes, unlisted source", SRC,
	     V6(.payload = JUMBO6, CUT(FRAME_LINEAR + 1)), XDP_PASS, MISS6),
	/*
	 * Headers past the first buffer: split_headers. Two 2,048-byte dstopts
	 * run past byte 3,520; truncated there instead, the chain is cut short.
	 */
	CASE("frags: v6 dstopts chain past the first buffer, listed source", SRC,
	     V6(EXT(DOPT, DOPT), .dopt_len = 2048, .src = LISTED6, .payload = 100), XDP_DROP,
	     HIT6, .split_headers = 1),
	CASE("frags: v6 dstopts chain past the first buffer, unlisted source", SRC,
	     V6(EXT(DOPT, DOPT), .dopt_len = 2048, .payload = 100), XDP_PASS, MISS6,
	     .split_headers = 1),
	CASE("v6 dstopts chain cut at 3,000 bytes, listed source", SRC,
	     V6(EXT(DOPT, DOPT), .dopt_len = 2048, .src = LISTED6, .payload = 100, CUT(3000)),
	     XDP_DROP, HIT6, .ipv6_ext_unparsed = 1),
	/*
	 * 14 + 40 + 2 * 1,728 + 8: the UDP header starts at byte 3,518. Ports
	 * matter to the name matchers only: without them, not split headers
	 * (test_names_xdp has those).
	 */
	CASE("frags: v6 UDP ports across the first buffer's end, listed source", SRC,
	     V6(EXT(DOPT, DOPT, HBH), .dopt_len = 1728, .src = LISTED6, .payload = 100),
	     XDP_DROP, HIT6),
	CASE("frags: v6 UDP ports across the first buffer's end, unlisted source", SRC,
	     V6(EXT(DOPT, DOPT, HBH), .dopt_len = 1728, .payload = 100), XDP_PASS, MISS6),
	/*
	 * A first buffer this short (ctx_in.data_end): Debian's 6.1 and 6.18
	 * take it; a kernel that refuses it skips the rows.
	 */
	CASE("frags: first buffer ends in the Ethernet header", SRC,
	     V4(.src = LISTED4, .payload = 100, .linear = 10), XDP_PASS, .split_headers = 1),
	CASE("frags: first buffer ends in the VLAN tag", SRC,
	     V4(Q1, .src = LISTED4, .payload = 100, .linear = L2 + 2), XDP_PASS,
	     .split_headers = 1),
	CASE("frags: first buffer ends in the IPv4 header", SRC,
	     V4(.src = LISTED4, .payload = 100, .linear = L2 + 10), XDP_PASS,
	     .split_headers = 1),
	CASE("frags: first buffer ends in the IPv4 options", SRC,
	     V4(.ihl = 8, .src = LISTED4, .payload = 100, .linear = L2 + 24), XDP_PASS,
	     .split_headers = 1),
	CASE("frags: first buffer ends in the IPv6 header", SRC,
	     V6(.src = LISTED6, .payload = 100, .linear = L2 + 30), XDP_PASS,
	     .split_headers = 1),
	CASE("frags: first buffer ends in the IPv6 chain, listed source", SRC,
	     V6(EXT(HBH, RT, DOPT), .src = LISTED6, .payload = 100, .linear = L2 + 40 + 12),
	     XDP_DROP, HIT6, .split_headers = 1),
	CASE("frags: first buffer ends in the UDP ports, listed source", SRC,
	     V4(.src = LISTED4, .payload = 100, .linear = L2 + 20 + 2), XDP_DROP, HIT4),
	CASE("frags: first buffer ends in the TCP ports, unlisted source", SRC,
	     V6(.l4 = IPPROTO_TCP, .payload = 100, .linear = L2 + 40 + 3), XDP_PASS, MISS6),
	CASE("frags: first buffer ends after the ports, listed source", SRC,
	     V4(.src = LISTED4, .payload = 100, .linear = L2 + 20 + 4), XDP_DROP, HIT4),
	/* What is wrong in the first buffer stays malformed. */
	CASE("frags: v4 version nibble 6", SRC,
	     V4(.version = 6, .src = LISTED4, .payload = 100, .linear = L2 + 20), XDP_PASS,
	     BAD(bad_ipv4)),
	CASE("frags: v4 IHL 4", SRC, V4(.ihl = 4, .src = LISTED4, .payload = 100,
				       .linear = L2 + 20), XDP_PASS, BAD(bad_ipv4_ihl)),
	CASE("frags: v6 version nibble 4", SRC,
	     V6(.version = 4, .src = LISTED6, .payload = 100, .linear = L2 + 40), XDP_PASS,
	     BAD(bad_ipv6)),
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static const char *verdict_name(__u32 verdict)
{
	static const char *const names[] = { "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
					     "XDP_REDIRECT" };

	return verdict < sizeof(names) / sizeof(names[0]) ? names[verdict] : "unknown";
}

/* Runs one case; reports every wrong counter before failing. */
static void check_case(const struct xdp_case *c)
{
	struct bloomxdp_counters want = c->delta, got;
	struct frame f;
	int bad = 0, ret;
	__u32 verdict = ~0U;
	size_t i;

	if (frame_build(&f, &c->frame))
		fail_msg("%s: bad address in the frame description", c->name);
	ret = harness_run_split(&harnesses[c->cfg], &f, c->frame.linear, &verdict, &got);
	if (ret == -EINVAL && c->frame.linear) {
		print_message("# %s: this kernel takes no first buffer of %u bytes\n", c->name,
			      c->frame.linear);
		skip();
	}
	if (ret)
		fail_msg("%s: BPF_PROG_TEST_RUN failed: %s", c->name, strerror(-ret));
	want.packets = 1;
	want.bytes = f.len < ETH_HLEN ? ETH_HLEN : f.len;	/* padded: see "cut at 0 bytes" */
	want.passed = c->verdict == XDP_PASS;
	want.dropped = c->verdict == XDP_DROP;

	if (verdict != c->verdict) {
		print_error("%s: verdict %s, expected %s\n", c->name, verdict_name(verdict),
			    verdict_name(c->verdict));
		bad++;
	}
	for (i = 0; i < HARNESS_NCOUNTERS; i++) {
		if (*counter_at(&got, i) == *counter_at(&want, i))
			continue;
		print_error("%s: counter %s moved by %lld, expected %lld\n", c->name,
			    harness_counter_names[i], (long long)*counter_at(&got, i),
			    (long long)*counter_at(&want, i));
		bad++;
	}
	if (bad)
		fail_msg("%s: %d mismatch(es), see above", c->name, bad);
}

static void test_case(void **state)
{
	check_case(*state);
}

/* Every IHL with options, listed source: dropped. */
static void test_ipv4_every_ihl(void **state)
{
	struct xdp_case c = { .cfg = SRC, .frame = V4(.src = LISTED4), .verdict = XDP_DROP,
			      .delta = { HIT4 } };
	char name[32];

	(void)state;
	for (c.frame.ihl = 6; c.frame.ihl <= 15; c.frame.ihl++) {
		snprintf(name, sizeof(name), "v4 IHL %u listed source", c.frame.ihl);
		c.name = name;
		check_case(&c);
	}
}

static int setup(void **state)
{
	size_t i, j;
	int ret;

	(void)state;
	for (i = 0; i < N_CFGS; i++) {
		ret = harness_open(&harnesses[i], &cfg_defs[i]);
		if (ret) {
			print_error("cannot load bloomxdp for configuration %zu: %s\n", i,
				    strerror(-ret));
			return -1;
		}
		for (j = 0; j < sizeof(list) / sizeof(list[0]); j++)
			if (harness_insert(&harnesses[i], list[j]))
				return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_CFGS; i++)
		harness_close(&harnesses[i]);
	return 0;
}

int main(void)
{
	struct CMUnitTest tests[N_CASES + 1];
	size_t i;

	for (i = 0; i < N_CASES; i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_case,
						.initial_state = (void *)&cases[i] };
	tests[N_CASES] = (struct CMUnitTest)cmocka_unit_test(test_ipv4_every_ihl);
	return _cmocka_run_group_tests("xdp", tests, N_CASES + 1, setup, teardown);
}
