// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Name matching of bpf/bloomxdp.bpf.c through BPF_PROG_TEST_RUN on loaded,
 * never attached programs: DNS query names, HTTP hosts and URLs, TLS SNI.
 *
 *  - cases[]: one row per packet: configuration, packet, verdict, the
 *    counters it must move. Each row runs over IPv4, IPv6, IPv4 in 802.1Q and
 *    IPv6 in 802.1Q unless it names its encapsulations. Counters a row does
 *    not name must stay unchanged; packets, bytes, checked_v4/v6 and the
 *    verdict's counter (passed, dropped, dns_replies) follow from the frame.
 *    KNOWN_BUG rows say what should happen and pass while it does not.
 *  - nx_cases[]: DNS queries answered NXDOMAIN from XDP (XDP_TX): the answer
 *    is compared byte by byte with one built here from the query, and its
 *    checksums are verified on their own.
 *  - parity: random names and URLs inserted as the CLI inserts them; frames
 *    carrying them (and names under them) must drop, other frames must get
 *    the verdict entry_keys_lookup() predicts.
 *
 * Entries go in as `bloomxdp load` puts them: entry_parse_line (format auto)
 * then entry_keys_insert. Random inputs are seeded: BLOOMXDP_TEST_SEED repeats
 * a run.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <cmocka.h>

/* Room for a segment past TLS_SEGMENT_MAX (bpf/tls.h). */
#define FRAME_MAX	20480
#include "test_rng.h"
#include "names_harness.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------- configurations */

/* Sized so that a false positive in the whole table is a one-in-10^6 event. */
#define LIST_CAPACITY	1000
#define LIST_FPR	1e-9
#define LIST		.capacity = LIST_CAPACITY, .fpr = LIST_FPR

enum cfg_id {
	NAMES, SRC_DNS, DNS_ONLY, HTTP_ONLY, MONITOR, NXDOMAIN, NX_MONITOR, PORTS,
	ADDRS_ONLY,	/* names matched, but the list holds addresses only */
	N_CFGS
};

static const char *const cfg_names[N_CFGS] = {
	[NAMES] = "dns,http,sni",	[SRC_DNS] = "src,dns",
	[DNS_ONLY] = "dns",		[HTTP_ONLY] = "http",
	[MONITOR] = "monitor",		[NXDOMAIN] = "nxdomain",
	[NX_MONITOR] = "nxdomain+monitor", [PORTS] = "ports",
	[ADDRS_ONLY] = "dns,http,sni, addresses listed",
};

static const struct harness_config cfg_defs[N_CFGS] = {
	[NAMES] = { LIST, .match = BLOOMXDP_MATCH_NAMES },
	[SRC_DNS] = { LIST, .match = BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DNS },
	[DNS_ONLY] = { LIST, .match = BLOOMXDP_MATCH_DNS },
	[HTTP_ONLY] = { LIST, .match = BLOOMXDP_MATCH_HTTP },
	[MONITOR] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .action = BLOOMXDP_ACTION_MONITOR },
	[NXDOMAIN] = { LIST, .match = BLOOMXDP_MATCH_NAMES,
		       .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN },
	[NX_MONITOR] = { LIST, .match = BLOOMXDP_MATCH_NAMES,
			 .action = BLOOMXDP_ACTION_MONITOR,
			 .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN },
	/* Four DNS ports: the last slot counts too. */
	[PORTS] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .dns_ports = { 1053, 2053, 3053, 5353 },
		    .http_ports = { 8080, 8000 }, .tls_ports = { 8443 },
		    .quic_ports = { 8443 } },
	[ADDRS_ONLY] = { LIST, .match = BLOOMXDP_MATCH_NAMES },
};

static struct xdp_harness harnesses[N_CFGS];

/* ------------------------------------------------------------- the list */

/* Long strings: s repeated; c is a one-character string. */
#define R3(s)		s s s
#define R10(s)		s s s s s s s s s s
#define R60(s)		R10(R3(s) R3(s))
#define L61(c)		R60(c) c
#define L62(c)		R60(c) c c
#define L63(c)		R60(c) R3(c)
#define L64(c)		L63(c) c
#define X25		R10("x") R10("x") "xxxxx"
#define X250		R10(X25)

#define LABEL63		L63("a") ".example"
/* 253 characters, 255 bytes in wire form: the longest name. */
#define LONGEST		L63("c") "." L63("c") "." L63("c") "." L61("c")
#define LONGEST_OTHER	L63("c") "." L63("c") "." L63("c") "." L61("d")
/* 254 characters, 256 bytes in wire form: one too many. */
#define TOO_LONG	L63("c") "." L63("c") "." L63("c") "." L62("c")
/* 127 one-byte labels: 255 bytes in wire form, the most labels a name has. */
#define LABELS127	R60("a.") R60("a.") R3("a.") R3("a.") "a"
/* 122 labels, the rightmost two listed. */
#define LABELS122_EVIL	R60("a.") R60("a.") "evil.example"
#define SIXTEEN		"p.o.n.m.l.k.j.i.h.g.f.e.d.c.b.a"
#define LONG_PATH	"/p/" X250	/* 253 bytes */
#define X1500		R3(X250) R3(X250)
#define X5000		R10(X250) R10(X250)

/* One line of each kind a list holds; every configuration loads them all. */
static const char *const list[] = {
	"evil.example",
	"Mixed.CASE.example.",			/* normalised to mixed.case.example */
	"||ads.example^",			/* adblock */
	"0.0.0.0 tracker.example",		/* hosts */
	LABEL63,
	LONGEST,
	"deep.example",
	SIXTEEN,				/* the most labels a listed name has */
	"good.example/malware/",		/* URL: host/path */
	"http://whole.example",			/* URL, empty path: every path */
	"seg.example/a/b/c/d/e/f/g/h",		/* URL of 8 segments, the most */
	"long.example" LONG_PATH,
	"https://porty.example:8443/dl?x=1",	/* port and query dropped: porty.example/dl */
	"192.0.2.1",
	"2001:db8::1",
};

/* The address lines of list[], all that ADDRS_ONLY loads. */
#define N_ADDR_LINES	2

/* ------------------------------------------------------------- packets */

#define DNS(q_, ...)	{ .app = APP_DNS, .dns.qname = (q_), __VA_ARGS__ }
/* The question's name as raw bytes (a string literal), QTYPE and QCLASS after it. */
#define DNSW(w_, ...)	{ .app = APP_DNS, .dns.wire = (w_), .dns.wire_len = sizeof(w_) - 1, \
			  __VA_ARGS__ }
#define HTTP(t_, ...)	{ .app = APP_HTTP, .http = (t_), __VA_ARGS__ }
#define TLS(sni_, ...)	{ .app = APP_TLS, .tls.sni = (sni_), __VA_ARGS__ }
#define RAW(b_, ...)	{ .app = APP_RAW, .raw = (b_), .raw_len = sizeof(b_) - 1, __VA_ARGS__ }
#define NO_PAYLOAD(...)	{ .app = APP_NONE, __VA_ARGS__ }

#define ONLY(f_)	.fams = (f_)
#define V4_ONLY		ONLY(FAM_V4 | FAM_V4_VLAN)
#define V6_ONLY		ONLY(FAM_V6 | FAM_V6_VLAN)
#define TO(port_)	.dport = (port_)
#define OVER_UDP	.l4 = IPPROTO_UDP
#define OVER_TCP	.l4 = IPPROTO_TCP
#define KEEP(n_)	.keep = (n_)
#define EDNS		.dns.edns = true
#define QDCOUNT(n_)	.dns.qd_set = true, .dns.qdcount = (n_)
#define EXT(...)	.ext = (const __u8[]){ __VA_ARGS__ }, \
			.n_ext = sizeof((const __u8[]){ __VA_ARGS__ })
#define LINEAR(n_)	.linear = (n_)
#define LOST(n_)	.lost = (n_)
#define LISTED_SRC4	.src = "192.0.2.1"
#define LISTED_SRC6	.src = "2001:db8::1"
#define MF		0x2000
#define DF		0x4000

/* Wire length of "evil.example": 4 evil 7 example 0. */
#define EVIL_WIRE	14

#define REQ(method, target, host) \
	method " " target " HTTP/1.1\r\nHost: " host "\r\nUser-Agent: t/1\r\nAccept: */*\r\n\r\n"
#define GET(target, host)	REQ("GET", target, host)
/* A request whose Host is its last header, after a cookie of 1,500 bytes. */
#define GET_COOKIE(host)	"GET / HTTP/1.1\r\nCookie: " X1500 "\r\nHost: " host "\r\n\r\n"

/* Frames of a 9,000-byte MTU (no VLAN tag). */
#define JUMBO_FRAME	(ETH_HLEN + 9000)
/* Ethernet, IPv4, UDP/TCP: where the payload of a frame without tag or options starts. */
#define UDP4_PAYLOAD	(ETH_HLEN + IP4_HLEN + UDP_HLEN)
#define TCP6_PAYLOAD	(ETH_HLEN + IP6_HLEN + TCP_HLEN)

/* ------------------------------------------------------- counter deltas */

#define DNS_HIT		.checked_dns = 1, .hits_dns = 1, .bloom_hits = 1
#define DNS_MISS	.checked_dns = 1
#define DNS_BAD		.unparsed_dns = 1
#define HTTP_HIT	.checked_http = 1, .hits_http = 1, .bloom_hits = 1
#define HTTP_MISS	.checked_http = 1
#define HTTP_BAD	.unparsed_http = 1
#define SNI_HIT		.checked_sni = 1, .hits_sni = 1, .bloom_hits = 1
#define SNI_MISS	.checked_sni = 1
#define TLS_BAD		.unparsed_tls = 1
#define NOTHING		.packets = 0	/* no counter besides the implied ones */

/* ---------------------------------------------------------------- cases */

struct name_case {
	const char *name;
	enum cfg_id cfg;
	struct pkt pkt;
	__u32 verdict;
	struct bloomxdp_counters delta;	/* besides the implied counters */
	/*
	 * A known bug: verdict and delta say what should happen, bug what does.
	 * The row passes while the bug is there (reported as a TAP comment) and
	 * fails once it is fixed, to be turned into a plain CASE.
	 */
	const char *bug;
};

#define CASE(nm, c, p, v, ...) \
	{ .name = (nm), .cfg = (c), .pkt = p, .verdict = (v), .delta = { __VA_ARGS__ } }
#define KNOWN_BUG(what, nm, c, p, v, ...) \
	{ .name = (nm), .cfg = (c), .pkt = p, .verdict = (v), .delta = { __VA_ARGS__ }, \
	  .bug = (what) }

_Static_assert(BLOOMXDP_MAX_LABELS == 16 && BLOOMXDP_PATH_MAX == 255 &&
	       BLOOMXDP_MAX_PATH_PREFIXES == 9, "the bound cases below are written for these");

static const struct name_case cases[] = {
	/* DNS: which names a listed domain blocks. */
	CASE("dns: listed name", NAMES, DNS("evil.example"), XDP_DROP, DNS_HIT),
	CASE("dns: listed name with the root dot", NAMES, DNS("evil.example."), XDP_DROP,
	     DNS_HIT),
	CASE("dns: name under a listed one", NAMES, DNS("www.evil.example"), XDP_DROP, DNS_HIT),
	CASE("dns: three labels under", NAMES, DNS("a.b.c.evil.example"), XDP_DROP, DNS_HIT),
	CASE("dns: mixed case (DNS 0x20)", NAMES, DNS("eViL.ExAmPlE"), XDP_DROP, DNS_HIT),
	CASE("dns: listed in mixed case, queried in lower", NAMES, DNS("mixed.case.example"),
	     XDP_DROP, DNS_HIT),
	CASE("dns: adblock entry", NAMES, DNS("x.ads.example"), XDP_DROP, DNS_HIT),
	CASE("dns: hosts entry", NAMES, DNS("tracker.example"), XDP_DROP, DNS_HIT),
	CASE("dns: unlisted", NAMES, DNS("fine.example"), XDP_PASS, DNS_MISS),
	CASE("dns: notevil.example", NAMES, DNS("notevil.example"), XDP_PASS, DNS_MISS),
	CASE("dns: evil.example.org", NAMES, DNS("evil.example.org"), XDP_PASS, DNS_MISS),
	CASE("dns: parent of a listed name", NAMES, DNS("example"), XDP_PASS, DNS_MISS),
	CASE("dns: evil-example", NAMES, DNS("evil-example"), XDP_PASS, DNS_MISS),
	CASE("dns: the root", NAMES, DNS(""), XDP_PASS, DNS_MISS),
	/* A label holding a dot byte is one label, not evil + example. */
	CASE("dns: label \"evil.example\"", NAMES, DNSW("\x0c" "evil.example" "\x00"),
	     XDP_PASS, DNS_MISS),
	CASE("dns: CD and AD set", NAMES, DNS("evil.example",
						   .dns.flags = DNS_FLAG_CD | DNS_FLAG_AD),
	     XDP_DROP, DNS_HIT),
	CASE("dns: RD clear", NAMES, DNS("evil.example", .dns.no_rd = true), XDP_DROP, DNS_HIT),
	CASE("dns: with an EDNS OPT record", NAMES, DNS("www.evil.example", EDNS), XDP_DROP,
	     DNS_HIT),

	/* DNS: length bounds. */
	CASE("dns: 63-byte label, listed", NAMES, DNS(LABEL63), XDP_DROP, DNS_HIT),
	CASE("dns: 63-byte label, unlisted", NAMES, DNS(L63("b") ".example"), XDP_PASS,
	     DNS_MISS),
	CASE("dns: 62-byte prefix of a listed label", NAMES, DNS(L62("a") ".example"),
	     XDP_PASS, DNS_MISS),
	CASE("dns: 64-byte label", NAMES, DNS(L64("a") ".example"), XDP_PASS, DNS_BAD),
	CASE("dns: 255-byte name, listed", NAMES, DNS(LONGEST), XDP_DROP, DNS_HIT),
	CASE("dns: 255-byte name, unlisted", NAMES, DNS(LONGEST_OTHER), XDP_PASS, DNS_MISS),
	CASE("dns: 255-byte name with EDNS, listed", NAMES, DNS(LONGEST, EDNS), XDP_DROP,
	     DNS_HIT),
	CASE("dns: 256-byte name", NAMES, DNS(TOO_LONG), XDP_PASS, DNS_BAD),
	CASE("dns: 127 labels", NAMES, DNS(LABELS127), XDP_PASS, DNS_MISS),
	CASE("dns: 122 labels under a listed name", NAMES, DNS(LABELS122_EVIL), XDP_DROP,
	     DNS_HIT),
	CASE("dns: 19 labels, rightmost listed", NAMES,
	     DNS("a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.deep.example"), XDP_DROP, DNS_HIT),
	CASE("dns: 19 labels, unlisted", NAMES,
	     DNS("a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.calm.example"), XDP_PASS, DNS_MISS),
	CASE("dns: listed name of 16 labels", NAMES, DNS(SIXTEEN), XDP_DROP, DNS_HIT),
	CASE("dns: 20 labels, the rightmost 16 listed", NAMES, DNS("w.x.y.z." SIXTEEN),
	     XDP_DROP, DNS_HIT),
	CASE("dns: 15 rightmost labels of a listed 16", NAMES, DNS("o.n.m.l.k.j.i.h.g.f.e.d.c.b.a"),
	     XDP_PASS, DNS_MISS),

	/* DNS: what is not parsed. */
	CASE("dns: QDCOUNT 0", NAMES, DNS("evil.example", QDCOUNT(0)), XDP_PASS, DNS_BAD),
	CASE("dns: two questions", NAMES, DNS("evil.example", .dns.qname2 = "fine.example"),
	     XDP_PASS, DNS_BAD),
	CASE("dns: compression pointer after a label", NAMES,
	     DNSW("\x04" "evil" "\xc0\x0c"), XDP_PASS, DNS_BAD),
	CASE("dns: name that is a compression pointer", NAMES, DNSW("\xc0\x0c"), XDP_PASS,
	     DNS_BAD),
	CASE("dns: truncated mid-label", NAMES, DNS("evil.example", KEEP(DNS_HDR_LEN + 8)),
	     XDP_PASS, DNS_BAD),
	CASE("dns: truncated before the root label", NAMES,
	     DNS("evil.example", KEEP(DNS_HDR_LEN + EVIL_WIRE - 1)), XDP_PASS, DNS_BAD),
	CASE("dns: truncated before QTYPE", NAMES,
	     DNS("evil.example", KEEP(DNS_HDR_LEN + EVIL_WIRE)), XDP_PASS, DNS_BAD),
	CASE("dns: truncated 1 byte short of QCLASS", NAMES,
	     DNS("evil.example", KEEP(DNS_HDR_LEN + EVIL_WIRE + 3)), XDP_PASS, DNS_BAD),
	CASE("dns: 16 bytes, shorter than any question", NAMES, DNS("", KEEP(16)), XDP_PASS,
	     DNS_BAD),
	/* Unlike a TCP segment without payload, a datagram is a message: an empty one is no query. */
	CASE("dns: empty datagram", NAMES, NO_PAYLOAD(OVER_UDP, TO(53)), XDP_PASS, DNS_BAD),
	CASE("dns: empty datagram, padded to 60 bytes", NAMES,
	     NO_PAYLOAD(OVER_UDP, TO(53), .trailer = 18, V4_ONLY), XDP_PASS, DNS_BAD),
	CASE("dns: 11 bytes, shorter than a DNS header", NAMES, DNS("evil.example", KEEP(11)),
	     XDP_PASS, DNS_BAD),
	CASE("dns: response (QR=1)", NAMES,
	     DNS("evil.example", .dns.flags = DNS_FLAG_QR | DNS_FLAG_RA), XDP_PASS, DNS_BAD),
	CASE("dns: opcode NOTIFY", NAMES, DNS("evil.example", .dns.flags = DNS_OPCODE(4)),
	     XDP_PASS, DNS_BAD),

	/* DNS: ports and transports. */
	CASE("dns: query to a non-DNS port", NAMES, DNS("evil.example", TO(5300)), XDP_PASS,
	     NOTHING),
	CASE("dns: over TCP to port 53", NAMES, DNS("evil.example", OVER_TCP), XDP_PASS,
	     .unseen_dns_tcp = 1),
	CASE("dns: TCP handshake to port 53", NAMES, NO_PAYLOAD(TO(53), .tcp_flags = 0x02),
		  XDP_PASS, NOTHING),
	CASE("dns: pure ACK to port 53", NAMES, NO_PAYLOAD(TO(53)), XDP_PASS, NOTHING),
	CASE("quic: an Initial cut after its DCID", NAMES,
	     RAW("\xc3\x00\x00\x00\x01\x08\x01\x02\x03\x04\x05\x06\x07\x08", OVER_UDP, TO(443)),
	     XDP_PASS, .unparsed_quic = 1),
	CASE("quic: a short header (1-RTT) to port 443", NAMES,
	     RAW("\x43\x01\x02\x03\x04\x05\x06\x07\x08\x09", OVER_UDP, TO(443)),
	     XDP_PASS, .unseen_quic = 1),
	/*
	 * Fragments: a first one holds the L4 header and the question, read as
	 * far as it goes; a later one has no L4 header; an atomic fragment
	 * (RFC 6946) is a whole datagram. 9 extension headers are one past the
	 * walk: the address is matched, each name field counts it unparsed.
	 */
	CASE("dns: first IPv4 fragment, listed", NAMES,
	     DNS("evil.example", .frag_off = MF, V4_ONLY), XDP_DROP, DNS_HIT, .fragments = 1),
	CASE("dns: first IPv4 fragment, unlisted", NAMES,
	     DNS("fine.example", .frag_off = MF, V4_ONLY), XDP_PASS, DNS_MISS, .fragments = 1),
	CASE("dns: later IPv4 fragment (no UDP header)", NAMES,
	     DNS("evil.example", .frag_off = 185, V4_ONLY), XDP_PASS, .fragments = 1),
	CASE("dns: IPv6 atomic fragment, listed", NAMES,
	     DNS("evil.example", EXT(IPPROTO_FRAGMENT), V6_ONLY), XDP_DROP, DNS_HIT),
	CASE("dns: IPv6 atomic fragment behind hop-by-hop, listed", NAMES,
	     DNS("evil.example", EXT(IPPROTO_HOPOPTS, IPPROTO_FRAGMENT), V6_ONLY), XDP_DROP,
	     DNS_HIT),
	CASE("dns: IPv6 atomic fragment, unlisted", NAMES,
	     DNS("fine.example", EXT(IPPROTO_FRAGMENT), V6_ONLY), XDP_PASS, DNS_MISS),
	CASE("dns: first IPv6 fragment, listed", NAMES,
	     DNS("evil.example", EXT(IPPROTO_FRAGMENT), .frag6 = 1, V6_ONLY), XDP_DROP, DNS_HIT,
	     .fragments = 1),
	CASE("dns: later IPv6 fragment (no UDP header)", NAMES,
	     DNS("evil.example", EXT(IPPROTO_FRAGMENT), .frag6 = 185 << 3, V6_ONLY), XDP_PASS,
	     .fragments = 1),
	CASE("dns: last IPv6 fragment (no UDP header)", NAMES,
	     DNS("evil.example", EXT(IPPROTO_FRAGMENT), .frag6 = 185 << 3 | 1, V6_ONLY),
	     XDP_PASS, .fragments = 1),
	CASE("dns: behind 8 destination options headers, listed", NAMES,
	     DNS("evil.example", EXT(IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
				     IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
				     IPPROTO_DSTOPTS, IPPROTO_DSTOPTS), V6_ONLY), XDP_DROP, DNS_HIT),
	CASE("dns: behind 9 destination options headers (unparsed)", NAMES,
	     DNS("evil.example", EXT(IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
				     IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
				     IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS),
		 V6_ONLY), XDP_PASS, .ipv6_ext_unparsed = 1, DNS_BAD, HTTP_BAD, TLS_BAD,
	     .unparsed_dns_answers = 1),
	CASE("dns: behind 9 destination options headers, DNS matched only", DNS_ONLY,
	     DNS("evil.example", EXT(IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
				     IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
				     IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS),
		 V6_ONLY), XDP_PASS, .ipv6_ext_unparsed = 1, DNS_BAD),
	CASE("nxdomain: first IPv6 fragment, listed: dropped, not answered", NXDOMAIN,
	     DNS("evil.example", EXT(IPPROTO_FRAGMENT), .frag6 = 1, V6_ONLY), XDP_DROP, DNS_HIT,
	     .fragments = 1),
	CASE("nxdomain: first IPv4 fragment, listed: dropped, not answered", NXDOMAIN,
	     DNS("evil.example", .frag_off = MF, V4_ONLY), XDP_DROP, DNS_HIT, .fragments = 1),
	CASE("nxdomain: IPv6 atomic fragment, listed: answered", NXDOMAIN,
	     DNS("evil.example", EXT(IPPROTO_FRAGMENT), V6_ONLY), XDP_TX, DNS_HIT),
	CASE("dns: 802.1ad tag outside, listed", NAMES, DNS("evil.example", .outer_tag = true),
	     XDP_DROP, DNS_HIT),
	CASE("dns: IPv4 DF, listed", NAMES, DNS("evil.example", .frag_off = DF, V4_ONLY),
	     XDP_DROP, DNS_HIT),
	CASE("dns: IPv4 options, listed", NAMES, DNS("evil.example", .ihl = 9, V4_ONLY),
	     XDP_DROP, DNS_HIT),
	CASE("dns: IPv6 hop-by-hop and dstopts, listed", NAMES,
	     DNS("evil.example", EXT(IPPROTO_HOPOPTS, IPPROTO_DSTOPTS), V6_ONLY), XDP_DROP,
	     DNS_HIT),

	/*
	 * L4 at byte 1,024 and beyond, behind one large destination options
	 * header (2,048 bytes is the most one can be): the names are found there,
	 * and nothing in the extension header is read as the payload.
	 */
	CASE("dns: listed, behind 1,024 bytes of dstopts", NAMES,
	     DNS("evil.example", .dstopts_len = 1024, V6_ONLY), XDP_DROP, DNS_HIT),
	CASE("dns: listed, behind 2,048 bytes of dstopts", NAMES,
	     DNS("evil.example", .dstopts_len = 2048, V6_ONLY), XDP_DROP, DNS_HIT),
	CASE("dns: unlisted, behind 1,024 bytes of dstopts", NAMES,
	     DNS("fine.example", .dstopts_len = 1024, V6_ONLY), XDP_PASS, DNS_MISS),
	CASE("http: listed, behind 1,024 bytes of dstopts", NAMES,
	     HTTP(GET("/", "evil.example"), .dstopts_len = 1024, V6_ONLY), XDP_DROP, HTTP_HIT),
	CASE("tls: listed, behind 1,504 bytes of dstopts", NAMES,
	     TLS("evil.example", .dstopts_len = 1504, V6_ONLY), XDP_DROP, SNI_HIT),
	/* A listed query inside the header, where an offset taken modulo 1,024 would look. */
	CASE("dns: unlisted, listed query smuggled in 1,024 bytes of dstopts", NAMES,
	     DNS("fine.example", .dstopts_len = 1024, .dstopts_dns = "evil.example", V6_ONLY),
	     XDP_PASS, DNS_MISS),
	CASE("dns: unlisted, listed query smuggled in 2,048 bytes of dstopts", NAMES,
	     DNS("fine.example", .dstopts_len = 2048, .dstopts_dns = "evil.example", V6_ONLY),
	     XDP_PASS, DNS_MISS),
	CASE("nxdomain: listed, behind 1,024 bytes of dstopts, dropped", NXDOMAIN,
	     DNS("evil.example", .dstopts_len = 1024, V6_ONLY), XDP_DROP, DNS_HIT),

	/* Addresses come first. */
	CASE("src,dns: listed source, listed name", SRC_DNS,
	     DNS("evil.example", LISTED_SRC4, V4_ONLY), XDP_DROP, .hits_v4 = 1, .bloom_hits = 1),
	CASE("src,dns: listed v6 source, listed name", SRC_DNS,
	     DNS("evil.example", LISTED_SRC6, V6_ONLY), XDP_DROP, .hits_v6 = 1, .bloom_hits = 1),
	CASE("src,dns: listed source, unlisted name", SRC_DNS,
	     DNS("fine.example", LISTED_SRC4, V4_ONLY), XDP_DROP, .hits_v4 = 1, .bloom_hits = 1),
	CASE("src,dns: unlisted source, listed name", SRC_DNS, DNS("evil.example"), XDP_DROP,
	     DNS_HIT),
	CASE("src,dns: unlisted source and name", SRC_DNS, DNS("fine.example"), XDP_PASS,
	     DNS_MISS),
	CASE("src,dns: HTTP not matched", SRC_DNS, HTTP(GET("/", "evil.example")), XDP_PASS,
	     NOTHING),

	/* What --match leaves out is not looked at. */
	CASE("match dns: listed name", DNS_ONLY, DNS("evil.example"), XDP_DROP, DNS_HIT),
	CASE("match dns: HTTP to a listed host", DNS_ONLY, HTTP(GET("/", "evil.example")),
	     XDP_PASS, NOTHING),
	CASE("match dns: ClientHello for a listed name", DNS_ONLY, TLS("evil.example"),
	     XDP_PASS, NOTHING),
	CASE("match dns: UDP to port 443", DNS_ONLY,
	     RAW("\xc3\x00\x00\x00\x01\x00\x00", OVER_UDP, TO(443)), XDP_PASS, NOTHING),
	CASE("match dns: TCP to port 53", DNS_ONLY, DNS("evil.example", OVER_TCP), XDP_PASS,
	     .unseen_dns_tcp = 1),
	CASE("match http: listed host", HTTP_ONLY, HTTP(GET("/", "evil.example")), XDP_DROP,
	     HTTP_HIT),
	CASE("match http: DNS query for a listed name", HTTP_ONLY, DNS("evil.example"),
	     XDP_PASS, NOTHING),
	CASE("match http: TCP to port 53", HTTP_ONLY, DNS("evil.example", OVER_TCP), XDP_PASS,
	     NOTHING),

	/* Monitor: hits pass, counted. */
	CASE("monitor: DNS listed", MONITOR, DNS("evil.example"), XDP_PASS, DNS_HIT,
	     .would_drop = 1),
	CASE("monitor: HTTP listed", MONITOR, HTTP(GET("/", "evil.example")), XDP_PASS,
	     HTTP_HIT, .would_drop = 1),
	CASE("monitor: HTTP URL listed", MONITOR, HTTP(GET("/malware/x", "good.example")),
	     XDP_PASS, HTTP_HIT, .would_drop = 1),
	CASE("monitor: SNI listed", MONITOR, TLS("evil.example"), XDP_PASS, SNI_HIT,
	     .would_drop = 1),
	CASE("monitor: DNS unlisted", MONITOR, DNS("fine.example"), XDP_PASS, DNS_MISS),

	/* NXDOMAIN answers (their bytes: nx_cases below). */
	CASE("nxdomain: listed", NXDOMAIN, DNS("evil.example"), XDP_TX, DNS_HIT),
	CASE("nxdomain: unlisted", NXDOMAIN, DNS("fine.example"), XDP_PASS, DNS_MISS),
	CASE("nxdomain: unparsed", NXDOMAIN, DNS("evil.example", QDCOUNT(2)), XDP_PASS,
	     DNS_BAD),
	CASE("nxdomain: HTTP listed is dropped", NXDOMAIN, HTTP(GET("/", "evil.example")),
	     XDP_DROP, HTTP_HIT),
	CASE("nxdomain: SNI listed is dropped", NXDOMAIN, TLS("evil.example"), XDP_DROP,
	     SNI_HIT),
	/* UDP beyond byte 256 of the frame: no answer is written, the query drops. */
	CASE("nxdomain: UDP header past byte 256, dropped", NXDOMAIN,
	     DNS("evil.example", .dstopts_len = 256, V6_ONLY), XDP_DROP, DNS_HIT),
	CASE("nxdomain+monitor: listed passes", NX_MONITOR, DNS("evil.example"), XDP_PASS,
	     DNS_HIT, .would_drop = 1),

	/* Without names in the list, names are not looked at (the filter's header says). */
	CASE("addresses listed: DNS query", ADDRS_ONLY, DNS("evil.example"), XDP_PASS, NOTHING),
	CASE("addresses listed: HTTP", ADDRS_ONLY, HTTP(GET("/", "evil.example")), XDP_PASS,
	     NOTHING),
	CASE("addresses listed: malformed DNS", ADDRS_ONLY, DNS("evil.example", QDCOUNT(2)),
	     XDP_PASS, NOTHING),
	CASE("addresses listed: DNS over TCP still counted", ADDRS_ONLY,
	     DNS("evil.example", OVER_TCP), XDP_PASS, .unseen_dns_tcp = 1),

	/* A TCP data offset below 5 (a header shorter than its own fields): passed, counted. */
	CASE("http: TCP data offset 4", NAMES, HTTP(GET("/", "evil.example"), .tcp_doff = 4),
	     XDP_PASS, HTTP_BAD),
	CASE("tls: TCP data offset 1", NAMES, TLS("evil.example", .tcp_doff = 1), XDP_PASS,
	     TLS_BAD),
	CASE("dns over tcp: TCP data offset 3", NAMES, DNS("evil.example", OVER_TCP, .tcp_doff = 3),
	     XDP_PASS, .unseen_dns_tcp = 1),

	/* Port lists. */
	CASE("ports: DNS to the 4th DNS port", PORTS, DNS("evil.example", TO(5353)), XDP_DROP,
	     DNS_HIT),
	CASE("ports: DNS to 53, not listed", PORTS, DNS("evil.example"), XDP_PASS, NOTHING),
	CASE("ports: HTTP to the 2nd HTTP port", PORTS, HTTP(GET("/", "evil.example"),
							    TO(8000)), XDP_DROP, HTTP_HIT),
	CASE("ports: HTTP to 80, not listed", PORTS, HTTP(GET("/", "evil.example")), XDP_PASS,
	     NOTHING),
	CASE("ports: TLS to 8443", PORTS, TLS("evil.example", TO(8443)), XDP_DROP, SNI_HIT),
	CASE("ports: TLS to 443, not listed", PORTS, TLS("evil.example"), XDP_PASS, NOTHING),
	CASE("ports: UDP to the QUIC port", PORTS, RAW("\xc3\x00\x00\x00\x01\x00\x00",
						      OVER_UDP, TO(8443)),
	     XDP_PASS, .unparsed_quic = 1),
	CASE("ports: UDP to 443, not a QUIC port", PORTS,
	     RAW("\xc3\x00\x00\x00\x01\x00\x00", OVER_UDP, TO(443)), XDP_PASS, NOTHING),
	CASE("ports: TCP to a DNS port", PORTS, DNS("evil.example", OVER_TCP, TO(2053)),
	     XDP_PASS, .unseen_dns_tcp = 1),

	/* HTTP: the host. */
	CASE("http: GET, listed Host", NAMES, HTTP(GET("/", "evil.example")), XDP_DROP,
	     HTTP_HIT),
	CASE("http: POST with a body", NAMES,
	     HTTP("POST /form HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 7\r\n\r\n"
		  "a=b&c=d"), XDP_DROP, HTTP_HIT),
	CASE("http: HEAD", NAMES, HTTP(REQ("HEAD", "/x", "evil.example")), XDP_DROP,
	     HTTP_HIT),
	CASE("http: OPTIONS *", NAMES, HTTP(REQ("OPTIONS", "*", "evil.example")), XDP_DROP,
	     HTTP_HIT),
	CASE("http: CONNECT", NAMES, HTTP(REQ("CONNECT", "evil.example:443",
					     "evil.example:443")), XDP_DROP, HTTP_HIT),
	CASE("http: HTTP/1.0", NAMES,
	     HTTP("GET / HTTP/1.0\r\nHost: evil.example\r\n\r\n"), XDP_DROP, HTTP_HIT),
	CASE("http: Host with case and port", NAMES, HTTP(GET("/", "EVIL.Example:8080")),
	     XDP_DROP, HTTP_HIT),
	CASE("http: Host with the root dot", NAMES, HTTP(GET("/", "evil.example.")), XDP_DROP,
	     HTTP_HIT),
	CASE("http: Host under a listed name", NAMES, HTTP(GET("/", "www.evil.example")),
	     XDP_DROP, HTTP_HIT),
	CASE("http: Host not the first header", NAMES,
	     HTTP("GET / HTTP/1.1\r\nUser-Agent: t/1\r\nAccept: */*\r\n"
		  "Host: evil.example\r\n\r\n"), XDP_DROP, HTTP_HIT),
	CASE("http: lower-case host:", NAMES,
	     HTTP("GET / HTTP/1.1\r\nhost: evil.example\r\n\r\n"), XDP_DROP, HTTP_HIT),
	CASE("http: HOST: without a space", NAMES,
	     HTTP("GET / HTTP/1.1\r\nHOST:evil.example\r\n\r\n"), XDP_DROP, HTTP_HIT),
	CASE("http: Host: with tab and trailing space", NAMES,
	     HTTP("GET / HTTP/1.1\r\nHost:\tevil.example  \r\n\r\n"), XDP_DROP, HTTP_HIT),
	CASE("http: bare LF line ends", NAMES,
	     HTTP("GET / HTTP/1.1\nAccept: */*\nHost: evil.example\n\n"), XDP_DROP, HTTP_HIT),
	CASE("http: listed 253-character Host", NAMES, HTTP(GET("/", LONGEST)), XDP_DROP,
	     HTTP_HIT),
	CASE("http: unlisted Host", NAMES, HTTP(GET("/", "fine.example")), XDP_PASS,
	     HTTP_MISS),
	CASE("http: notevil.example", NAMES, HTTP(GET("/", "notevil.example")), XDP_PASS,
	     HTTP_MISS),
	CASE("http: evil.example.org", NAMES, HTTP(GET("/", "evil.example.org")), XDP_PASS,
	     HTTP_MISS),
	CASE("http: X-Host header is not Host", NAMES,
	     HTTP("GET / HTTP/1.1\r\nX-Host: evil.example\r\nHost: fine.example\r\n\r\n"),
	     XDP_PASS, HTTP_MISS),
	CASE("http: TCP options before the request", NAMES,
	     HTTP(GET("/", "evil.example"), .tcp_opt = 12), XDP_DROP, HTTP_HIT),

	/* HTTP: absolute-form targets name the host, whatever Host says. */
	CASE("http: absolute form, listed", NAMES,
	     HTTP(GET("http://evil.example/x", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, upper case, port", NAMES,
	     HTTP(GET("HTTP://EVIL.EXAMPLE:8080/x", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form without a path", NAMES,
	     HTTP(GET("http://evil.example", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form with a query only", NAMES,
	     HTTP(GET("http://evil.example?q", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form unlisted, Host listed", NAMES,
	     HTTP(GET("http://fine.example/", "evil.example")), XDP_PASS, HTTP_MISS),
	/* Userinfo (RFC 3986): the host follows the last '@' of the authority. */
	CASE("http: absolute form, userinfo, Host listed too", NAMES,
	     HTTP(GET("http://u@evil.example/", "evil.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, userinfo", NAMES,
	     HTTP(GET("http://u@evil.example/x", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, user and password", NAMES,
	     HTTP(GET("http://u:p@evil.example/", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, two '@'", NAMES,
	     HTTP(GET("http://a@b@evil.example/", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, '@' in the password", NAMES,
	     HTTP(GET("http://u:p@q@evil.example/", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, upper case, userinfo, port", NAMES,
	     HTTP(GET("HTTP://U:P@EVIL.EXAMPLE:8080/x", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, userinfo, port, no path", NAMES,
	     HTTP(GET("http://u@evil.example:8080", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, userinfo, query only", NAMES,
	     HTTP(GET("http://u:p@evil.example?q", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form, listed name as userinfo", NAMES,
	     HTTP(GET("http://evil.example@fine.example/", "evil.example")), XDP_PASS, HTTP_MISS),
	CASE("http: absolute form, '@' in the path", NAMES,
	     HTTP(GET("http://fine.example/@evil.example", "evil.example")), XDP_PASS, HTTP_MISS),
	/* An http URI without a host is invalid (RFC 9110 4.2.1): refused, whatever Host says. */
	CASE("http: absolute form, empty host after userinfo", NAMES,
	     HTTP(GET("http://u@/", "evil.example")), XDP_PASS, HTTP_BAD),
	CASE("http: absolute form, empty host", NAMES,
	     HTTP(GET("http:///x", "evil.example")), XDP_PASS, HTTP_BAD),
	/* A proxy takes https:// targets too. */
	CASE("http: absolute form https://, listed", NAMES,
	     HTTP(GET("https://evil.example/", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form HTTPS://, userinfo, port", NAMES,
	     HTTP(GET("HTTPS://u:p@evil.example:443/x", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("http: absolute form https://, unlisted, Host listed", NAMES,
	     HTTP(GET("https://fine.example/", "evil.example")), XDP_PASS, HTTP_MISS),

	/* HTTP: what is not a request with a host. */
	/* The header walk jumps from line end to line end, a word at a time. */
	CASE("http: empty Host, then a listed one", NAMES,
	     HTTP("GET / HTTP/1.1\r\nHost: \r\nHost: evil.example\r\n\r\n"), XDP_DROP, HTTP_HIT),
	CASE("http: CRs then LF end the headers", NAMES,
	     HTTP("GET / HTTP/1.1\r\nAccept: */*\r\n\r\r\nHost: evil.example\r\n\r\n"), XDP_PASS,
	     HTTP_BAD),
	CASE("http: Host after a 1,000-byte header", NAMES,
	     HTTP("GET / HTTP/1.1\r\nCookie: " R10(R10("0123456789")) "\r\nHost: evil.example\r\n"
		  "\r\n"), XDP_DROP, HTTP_HIT),
	CASE("http: 256-character Host", NAMES, HTTP(GET("/", TOO_LONG "xx")), XDP_PASS, HTTP_BAD),
	CASE("http: no Host header", NAMES, HTTP("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
	     XDP_PASS, HTTP_BAD),
	CASE("http: empty Host", NAMES, HTTP("GET / HTTP/1.1\r\nHost: \r\n\r\n"), XDP_PASS,
	     HTTP_BAD),
	CASE("http: headers continue in a later segment", NAMES,
	     HTTP("GET / HTTP/1.1\r\nAccept: */*\r\nUser-Agent: t/1\r\n"), XDP_PASS, HTTP_BAD),
	CASE("http: body bytes", NAMES, HTTP("a=1&b=2&host=evil.example&c=3\r\n\r\n"),
	     XDP_PASS, HTTP_BAD),
	CASE("http: lower-case method", NAMES, HTTP("get / HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
	     XDP_PASS, HTTP_BAD),
	CASE("http: HTTP/2 preface", NAMES, HTTP("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), XDP_PASS,
	     HTTP_BAD),
	CASE("http: shorter than 16 bytes", NAMES, HTTP("GET / HTTP/1.1\r"), XDP_PASS,
	     HTTP_BAD),
	CASE("http: Host with an empty label", NAMES, HTTP(GET("/", "evil..example")),
	     XDP_PASS, HTTP_BAD),
	/* The request for evil.example.org goes on in the next segment. */
	CASE("http: Host cut by the segment end", NAMES,
		  HTTP("GET / HTTP/1.1\r\nHost: evil.example"), XDP_PASS, HTTP_BAD),
	/* Limitation: methods of 3 to 7 upper-case letters only (WebDAV's are longer). */
	CASE("http: PROPFIND (8 letters) not parsed", NAMES,
	     HTTP(REQ("PROPFIND", "/", "evil.example")), XDP_PASS, HTTP_BAD),
	CASE("http: M-SEARCH not parsed", NAMES, HTTP(REQ("M-SEARCH", "*", "evil.example")),
	     XDP_PASS, HTTP_BAD),
	CASE("http: ClientHello to port 80", NAMES, TLS("evil.example", TO(80)), XDP_PASS,
	     HTTP_BAD),
	CASE("http: pure ACK", NAMES, NO_PAYLOAD(), XDP_PASS, NOTHING),
	CASE("tls: pure ACK", NAMES, NO_PAYLOAD(TO(443)), XDP_PASS, NOTHING),
	/* 14 + 20 + 20 bytes, padded to Ethernet's 60: the padding is no payload. */
	CASE("http: pure ACK padded to 60 bytes", NAMES, NO_PAYLOAD(.trailer = 6, V4_ONLY),
		  XDP_PASS, NOTHING),
	CASE("tls: pure ACK padded to 60 bytes", NAMES,
		  NO_PAYLOAD(TO(443), .trailer = 6, V4_ONLY), XDP_PASS, NOTHING),

	/* HTTP: URL entries (good.example/malware/ is listed). */
	CASE("url: file under the path", NAMES, HTTP(GET("/malware/x.exe", "good.example")),
	     XDP_DROP, HTTP_HIT),
	CASE("url: the path itself", NAMES, HTTP(GET("/malware", "good.example")), XDP_DROP,
	     HTTP_HIT),
	CASE("url: the path with '/' and a query", NAMES,
	     HTTP(GET("/malware/?q=1", "good.example")), XDP_DROP, HTTP_HIT),
	CASE("url: the path with a query", NAMES, HTTP(GET("/malware?q=1", "good.example")),
	     XDP_DROP, HTTP_HIT),
	CASE("url: Host in upper case with a port", NAMES,
	     HTTP(GET("/malware/x", "GOOD.example:80")), XDP_DROP, HTTP_HIT),
	CASE("url: name under the host", NAMES,
	     HTTP(GET("/malware/x.exe", "sub.good.example")), XDP_DROP, HTTP_HIT),
	CASE("url: name under the host, path itself", NAMES,
	     HTTP(GET("/malware", "sub.good.example")), XDP_DROP, HTTP_HIT),
	CASE("url: name under the host, query", NAMES,
	     HTTP(GET("/malware/?q=1", "sub.good.example")), XDP_DROP, HTTP_HIT),
	CASE("url: absolute form", NAMES,
	     HTTP(GET("http://good.example/malware/x", "fine.example")), XDP_DROP, HTTP_HIT),
	CASE("url: absolute form, userinfo and port", NAMES,
	     HTTP(GET("http://u:p@good.example:80/malware/x", "fine.example")), XDP_DROP,
	     HTTP_HIT),
	/* The query string is no path, after a port as after a host. */
	CASE("url: absolute form, listed path in the query after a port", NAMES,
	     HTTP(GET("http://good.example:80?u=/malware/x", "fine.example")), XDP_PASS,
	     HTTP_MISS),
	CASE("url: absolute form, listed path in the query", NAMES,
	     HTTP(GET("http://good.example?u=/malware/x", "fine.example")), XDP_PASS, HTTP_MISS),
	CASE("url: /malwarex", NAMES, HTTP(GET("/malwarex", "good.example")), XDP_PASS,
	     HTTP_MISS),
	CASE("url: /other", NAMES, HTTP(GET("/other", "good.example")), XDP_PASS, HTTP_MISS),
	CASE("url: /", NAMES, HTTP(GET("/", "good.example")), XDP_PASS, HTTP_MISS),
	CASE("url: path case matters", NAMES, HTTP(GET("/Malware/x", "good.example")),
	     XDP_PASS, HTTP_MISS),
	CASE("url: path in the query only", NAMES, HTTP(GET("/?u=/malware/x", "good.example")),
	     XDP_PASS, HTTP_MISS),
	CASE("url: other host, listed path", NAMES, HTTP(GET("/malware/x", "bad.example")),
	     XDP_PASS, HTTP_MISS),
	CASE("url: host's parent, listed path", NAMES, HTTP(GET("/malware/x", "example")),
	     XDP_PASS, HTTP_MISS),
	CASE("url: DNS for the host passes", NAMES, DNS("good.example"), XDP_PASS, DNS_MISS),
	CASE("url: DNS under the host passes", NAMES, DNS("sub.good.example"), XDP_PASS,
	     DNS_MISS),
	CASE("url: SNI of the host passes", NAMES, TLS("good.example"), XDP_PASS, SNI_MISS),
	CASE("url: whole host, any path", NAMES, HTTP(GET("/any/thing?x", "whole.example")),
	     XDP_DROP, HTTP_HIT),
	CASE("url: whole host, /", NAMES, HTTP(GET("/", "whole.example")), XDP_DROP,
	     HTTP_HIT),
	CASE("url: whole host, name under it", NAMES, HTTP(GET("/a", "x.whole.example")),
	     XDP_DROP, HTTP_HIT),
	CASE("url: whole host, OPTIONS *", NAMES, HTTP(REQ("OPTIONS", "*", "whole.example")),
	     XDP_PASS, HTTP_MISS),
	CASE("url: whole host, DNS passes", NAMES, DNS("whole.example"), XDP_PASS, DNS_MISS),
	CASE("url: whole host, SNI passes", NAMES, TLS("whole.example"), XDP_PASS, SNI_MISS),
	CASE("url: port and query of the entry ignored", NAMES,
	     HTTP(GET("/dl/file.bin", "porty.example:8443")), XDP_DROP, HTTP_HIT),
	CASE("url: /dlx", NAMES, HTTP(GET("/dlx", "porty.example")), XDP_PASS, HTTP_MISS),

	/* URL path bounds: 255 bytes and 8 segments are examined. */
	CASE("url: 253-byte listed path", NAMES, HTTP(GET(LONG_PATH, "long.example")),
	     XDP_DROP, HTTP_HIT),
	CASE("url: 253-byte listed path, more after '/'", NAMES,
	     HTTP(GET(LONG_PATH "/tail", "long.example")), XDP_DROP, HTTP_HIT),
	CASE("url: 254-byte path, listed path + 'y'", NAMES,
	     HTTP(GET(LONG_PATH "y", "long.example")), XDP_PASS, HTTP_MISS),
	CASE("url: 300-byte path past the listed one", NAMES,
	     HTTP(GET(LONG_PATH X25 X25, "long.example")), XDP_PASS, HTTP_MISS),
	CASE("url: 300-byte path under a short listed one", NAMES,
	     HTTP(GET("/malware/" X250 X25 X25, "good.example")), XDP_DROP, HTTP_HIT),
	CASE("url: 8 segments listed, requested", NAMES,
	     HTTP(GET("/a/b/c/d/e/f/g/h", "seg.example")), XDP_DROP, HTTP_HIT),
	CASE("url: 10 segments under 8 listed", NAMES,
	     HTTP(GET("/a/b/c/d/e/f/g/h/i/j", "seg.example")), XDP_DROP, HTTP_HIT),
	CASE("url: 7 of 8 listed segments", NAMES, HTTP(GET("/a/b/c/d/e/f/g", "seg.example")),
	     XDP_PASS, HTTP_MISS),
	CASE("url: 8 segments, last differs", NAMES,
	     HTTP(GET("/a/b/c/d/e/f/g/x/i", "seg.example")), XDP_PASS, HTTP_MISS),
	CASE("url: 12 segments under a 1-segment entry", NAMES,
	     HTTP(GET("/malware/1/2/3/4/5/6/7/8/9/10/11", "good.example")), XDP_DROP,
	     HTTP_HIT),

	/* TLS: where the SNI is. */
	CASE("tls: SNI first", NAMES, TLS("evil.example"), XDP_DROP, SNI_HIT),
	CASE("tls: SNI last of 21", NAMES, TLS("evil.example", .tls.before = 20), XDP_DROP,
	     SNI_HIT),
	CASE("tls: SNI between 5 and 5", NAMES,
	     TLS("evil.example", .tls.before = 5, .tls.after = 5), XDP_DROP, SNI_HIT),
	CASE("tls: SNI 48th extension", NAMES, TLS("evil.example", .tls.before = 47), XDP_DROP,
	     SNI_HIT),
	CASE("tls: SNI 49th extension", NAMES, TLS("evil.example", .tls.before = 48), XDP_DROP,
	     SNI_HIT),
	CASE("tls: SNI 200th extension", NAMES, TLS("evil.example", .tls.before = 199), XDP_DROP,
	     SNI_HIT),
	/* Empty extensions (4 bytes each): the most a segment can hold. */
	CASE("tls: SNI 49th of 60 empty extensions", NAMES,
	     TLS("evil.example", .tls.before = 48, .tls.after = 11, .tls.empty = true), XDP_DROP,
	     SNI_HIT),
	CASE("tls: SNI 60th of 60 empty extensions", NAMES,
	     TLS("evil.example", .tls.before = 59, .tls.empty = true), XDP_DROP, SNI_HIT),
	CASE("tls: SNI last of as many empty extensions as the first buffer holds", NAMES,
	     TLS("evil.example", .tls.fill = FRAME_LINEAR), XDP_DROP, SNI_HIT),
	CASE("tls: unlisted SNI last of as many empty extensions as the first buffer holds",
	     NAMES, TLS("fine.example", .tls.fill = FRAME_LINEAR), XDP_PASS, SNI_MISS),
	CASE("tls: no SNI in as many empty extensions as the first buffer holds", NAMES,
	     TLS(NULL, .tls.fill = FRAME_LINEAR), XDP_PASS, TLS_BAD),
	CASE("tls: no session id", NAMES, TLS("evil.example", .tls.no_session_id = true),
	     XDP_DROP, SNI_HIT),
	CASE("tls: TCP options", NAMES, TLS("evil.example", .tcp_opt = 12, .tls.before = 3),
	     XDP_DROP, SNI_HIT),
	CASE("tls: record version 1.0", NAMES, TLS("evil.example", .tls.version = 0x0301),
	     XDP_DROP, SNI_HIT),
	CASE("tls: record version 1.2", NAMES, TLS("evil.example", .tls.version = 0x0303),
	     XDP_DROP, SNI_HIT),
	CASE("tls: record version 0x0304", NAMES, TLS("evil.example", .tls.version = 0x0304),
	     XDP_DROP, SNI_HIT),

	/* TLS: the name. */
	CASE("tls: mixed case", NAMES, TLS("EvIl.ExAmPlE"), XDP_DROP, SNI_HIT),
	CASE("tls: name under a listed one", NAMES, TLS("cdn.evil.example"), XDP_DROP,
	     SNI_HIT),
	CASE("tls: root dot", NAMES, TLS("evil.example."), XDP_DROP, SNI_HIT),
	CASE("tls: listed 253-character name", NAMES, TLS(LONGEST, .tls.before = 4), XDP_DROP,
	     SNI_HIT),
	CASE("tls: unlisted", NAMES, TLS("fine.example"), XDP_PASS, SNI_MISS),
	CASE("tls: notevil.example", NAMES, TLS("notevil.example"), XDP_PASS, SNI_MISS),
	/* The name is split into labels a word at a time. */
	CASE("tls: 63-byte label, listed", NAMES, TLS(LABEL63), XDP_DROP, SNI_HIT),
	CASE("tls: 64-byte label", NAMES, TLS(L64("a") ".example"), XDP_PASS, TLS_BAD),
	CASE("tls: 122 labels, the rightmost two listed", NAMES, TLS(LABELS122_EVIL), XDP_DROP,
	     SNI_HIT),
	CASE("tls: leading dot", NAMES, TLS(".evil.example"), XDP_PASS, TLS_BAD),
	CASE("tls: a dot alone", NAMES, TLS("."), XDP_PASS, TLS_BAD),
	CASE("tls: empty label", NAMES, TLS("evil..example"), XDP_PASS, TLS_BAD),
	CASE("tls: empty name", NAMES, TLS(""), XDP_PASS, TLS_BAD),

	/* TLS: no whole SNI in the segment. */
	CASE("tls: no SNI", NAMES, TLS(NULL, .tls.before = 6), XDP_PASS, TLS_BAD),
	CASE("tls: no extensions", NAMES, TLS(NULL), XDP_PASS, TLS_BAD),
	/* What follows the ClientHello in the segment is no extension of it. */
	CASE("tls: no SNI, SNI-like bytes after the record", NAMES,
		  TLS(NULL, .tls.before = 2,
		      .tls.tail = "\x00\x00\x00\x11\x00\x0f\x00\x00\x0c" "evil.example",
		      .tls.tail_len = 9 + 12), XDP_PASS, TLS_BAD),
	CASE("tls: cut before the SNI", NAMES,
	     TLS("evil.example", .tls.before = 6, .tls.cut = TLS_CUT_BEFORE_SNI), XDP_PASS,
	     TLS_BAD),
	CASE("tls: cut inside the name", NAMES,
	     TLS("evil.example", .tls.before = 6, .tls.cut = TLS_CUT_IN_SNI), XDP_PASS,
	     TLS_BAD),
	CASE("tls: 8 bytes of a record header", NAMES, TLS("evil.example", KEEP(8)), XDP_PASS,
	     TLS_BAD),
	CASE("tls: 5 bytes of a ClientHello's record header", NAMES,
	     TLS("evil.example", KEEP(5)), XDP_PASS, TLS_BAD),
	CASE("tls: 1 byte of a handshake record", NAMES, TLS("evil.example", KEEP(1)), XDP_PASS,
	     TLS_BAD),
	/* Records that are no ClientHello: unparsed_tls counts none of them. */
	CASE("tls: application data", NAMES, TLS("evil.example", .tls.type = 23), XDP_PASS,
	     NOTHING),
	CASE("tls: 3 bytes of application data", NAMES,
	     TLS("evil.example", .tls.type = 23, KEEP(3)), XDP_PASS, NOTHING),
	CASE("tls: ServerHello", NAMES, TLS("evil.example", .tls.hs_type = 2), XDP_PASS,
	     NOTHING),
	CASE("tls: a later handshake message (Finished)", NAMES,
	     TLS("evil.example", .tls.hs_type = 20), XDP_PASS, NOTHING),
	CASE("tls: SSL 2 record version", NAMES, TLS("evil.example", .tls.version = 0x0200),
	     XDP_PASS, NOTHING),
	CASE("tls: HTTP to port 443", NAMES, HTTP(GET("/", "evil.example"), TO(443)), XDP_PASS,
	     NOTHING),
	/* A TLS 1.3 client's second flight: ChangeCipherSpec, then encrypted Finished. */
	CASE("tls: ChangeCipherSpec and application data", NAMES,
	     RAW("\x14\x03\x03\x00\x01\x01" "\x17\x03\x03\x00\x05" "\x8a\x01\x3c\x77\xe2",
		 TO(443)), XDP_PASS, NOTHING),
	CASE("tls: alert", NAMES, RAW("\x15\x03\x03\x00\x02\x01\x00", TO(443)), XDP_PASS,
	     NOTHING),

	/*
	 * Multi-buffer frames (xdp.frags): past FRAME_LINEAR bytes the frame
	 * goes on in fragments, where the parsers read the payload too.
	 */
	CASE("frags: tls, SNI past the first buffer, behind 4,800 bytes of padding", NAMES,
	     TLS("evil.example", .tls.pad = 4800), XDP_DROP, SNI_HIT),
	CASE("frags: tls, unlisted SNI past the first buffer", NAMES,
	     TLS("fine.example", .tls.pad = 4800), XDP_PASS, SNI_MISS),
	CASE("frags: tls, SNI under a listed name past the first buffer", NAMES,
	     TLS("cdn.evil.example", .tls.pad = 4800, .tls.after = 3), XDP_DROP, SNI_HIT),
	CASE("frags: tls, no SNI in 4,800 bytes of padding", NAMES,
	     TLS(NULL, .tls.pad = 4800, .tls.after = 3), XDP_PASS, TLS_BAD),
	CASE("frags: tls, SNI last of as many empty extensions as a 9,000-byte MTU holds",
	     NAMES, TLS("evil.example", .tls.fill = JUMBO_FRAME), XDP_DROP, SNI_HIT),
	CASE("frags: tls, unlisted SNI last of a 9,000-byte MTU's empty extensions", NAMES,
	     TLS("fine.example", .tls.fill = JUMBO_FRAME), XDP_PASS, SNI_MISS),
	CASE("frags: tls, no SNI in a 9,000-byte MTU's empty extensions", NAMES,
	     TLS(NULL, .tls.fill = JUMBO_FRAME), XDP_PASS, TLS_BAD),
	/* A record's most (TLS_SEGMENT_MAX): 88 bytes, padding, 9 + 12 of server_name. */
	CASE("frags: tls, SNI ending at a record's last byte", NAMES,
	     TLS("evil.example", .tls.pad = 16276), XDP_DROP, SNI_HIT),
	CASE("frags: tls, SNI ending a byte past a record's last", NAMES,
	     TLS("evil.example", .tls.pad = 16277), XDP_PASS, TLS_BAD),
	/* The frame ends in a fragment before its IP packet does. */
	CASE("frags: tls, cut short inside the name in a fragment", NAMES,
	     TLS("evil.example", .tls.pad = 4800, LOST(6)), XDP_PASS, TLS_BAD),
	CASE("frags: dns, 4,800 bytes of EDNS padding, listed", NAMES,
	     DNS("evil.example", .dns.pad = 4800), XDP_DROP, DNS_HIT),
	CASE("frags: dns, 4,800 bytes of EDNS padding, unlisted", NAMES,
	     DNS("fine.example", .dns.pad = 4800), XDP_PASS, DNS_MISS),
	CASE("frags: dns, cut short in the padding: the question is whole", NAMES,
	     DNS("evil.example", .dns.pad = 4800, LOST(1000)), XDP_DROP, DNS_HIT),
	CASE("frags: http, a POST of 5,000 bytes, listed host", NAMES,
	     HTTP(REQ("POST", "/upload", "evil.example") X5000), XDP_DROP, HTTP_HIT),
	CASE("frags: http, a POST of 5,000 bytes, unlisted host", NAMES,
	     HTTP(REQ("POST", "/upload", "fine.example") X5000), XDP_PASS, HTTP_MISS),
	CASE("frags: http, listed URL, a POST of 5,000 bytes", NAMES,
	     HTTP(REQ("POST", "/malware/x", "good.example") X5000), XDP_DROP, HTTP_HIT),
	/* Host at byte 3,600 or so: behind 2,048 bytes of dstopts and a cookie. */
	CASE("frags: http, Host past the first buffer, listed", NAMES,
	     HTTP(GET_COOKIE("evil.example"), .dstopts_len = 2048, V6_ONLY), XDP_DROP, HTTP_HIT),
	CASE("frags: http, Host past the first buffer, unlisted", NAMES,
	     HTTP(GET_COOKIE("fine.example"), .dstopts_len = 2048, V6_ONLY), XDP_PASS,
	     HTTP_MISS),
	CASE("frags: http, cut short inside the Host past the first buffer", NAMES,
	     HTTP(GET_COOKIE("evil.example"), .dstopts_len = 2048, V6_ONLY, LOST(10)), XDP_PASS,
	     HTTP_BAD),
	CASE("frags: nxdomain, 4,800 bytes of EDNS padding: answered (nx_cases)", NXDOMAIN,
	     DNS("evil.example", .dns.pad = 4800), XDP_TX, DNS_HIT),
	/*
	 * A first buffer this short (ctx_in.data_end): Debian's 6.1 and 6.18
	 * take it; a kernel that refuses it skips the rows. Ports past it are
	 * split headers: no name is looked for.
	 */
	CASE("frags: dns, first buffer ends in the UDP ports", NAMES,
	     DNS("evil.example", ONLY(FAM_V4), LINEAR(ETH_HLEN + IP4_HLEN + 2)), XDP_PASS,
	     .split_headers = 1),
	CASE("frags: tls, first buffer ends in the TCP ports", NAMES,
	     TLS("evil.example", ONLY(FAM_V6), LINEAR(ETH_HLEN + IP6_HLEN + 1)), XDP_PASS,
	     .split_headers = 1),
	CASE("frags: dns, the payload wholly in a fragment", NAMES,
	     DNS("evil.example", ONLY(FAM_V4), LINEAR(UDP4_PAYLOAD)), XDP_DROP, DNS_HIT),
	CASE("frags: tls, TCP header past the ports in a fragment", NAMES,
	     TLS("evil.example", ONLY(FAM_V6), LINEAR(ETH_HLEN + IP6_HLEN + 4)), XDP_DROP,
	     SNI_HIT),
	CASE("frags: http, first buffer ends in the request line", NAMES,
	     HTTP(GET("/", "evil.example"), ONLY(FAM_V6), LINEAR(TCP6_PAYLOAD + 5)), XDP_DROP,
	     HTTP_HIT),
	/*
	 * The answer is rewritten in the first buffer: a question that runs on
	 * into a fragment is refused (dropped). 12 + 14 + 4 bytes of DNS.
	 */
	CASE("frags: nxdomain, the question whole in the first buffer: answered", NXDOMAIN,
	     DNS("evil.example", .dns.pad = 1000, ONLY(FAM_V4), LINEAR(UDP4_PAYLOAD + 30)),
	     XDP_TX, DNS_HIT),
	CASE("frags: nxdomain, the question a byte past the first buffer: dropped", NXDOMAIN,
	     DNS("evil.example", .dns.pad = 1000, ONLY(FAM_V4), LINEAR(UDP4_PAYLOAD + 29)),
	     XDP_DROP, DNS_HIT),
};

#define N_CASES ARRAY_SIZE(cases)

/* ------------------------------------------------------------- checking */

/* A table row in one encapsulation: one cmocka test. */
struct run {
	const struct name_case *c;	/* a row of cases[] */
	const struct nx_case *nx;	/* or of nx_cases[] */
	int fam;
	char name[160];
};

static void pkt_in_fam(struct pkt *p, int fam)
{
	p->v6 = fam == FAM_V6 || fam == FAM_V6_VLAN;
	p->vlan = fam == FAM_V4_VLAN || fam == FAM_V6_VLAN;
}

/* Counter i, in X-macro order. */
static long long counter_get(const struct bloomxdp_counters *c, size_t i)
{
	return ((const __u64 *)c)[i];
}

/* Every counter against want; returns the mismatches, each reported. */
static int check_counters(const char *name, const struct bloomxdp_counters *got,
			  const struct bloomxdp_counters *want)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < HARNESS_NCOUNTERS; i++) {
		if (counter_get(got, i) == counter_get(want, i))
			continue;
		print_error("%s: counter %s moved by %lld, expected %lld\n", name,
			    harness_counter_names[i], counter_get(got, i), counter_get(want, i));
		bad++;
	}
	return bad;
}

/* The counters every frame moves: packets, bytes, its address family, its verdict. */
static void implied_counters(struct bloomxdp_counters *want, const struct pkt *p,
			     const struct frame *f, __u32 verdict)
{
	want->packets = 1;
	want->bytes = f->len;
	want->checked_v4 += !p->v6;
	want->checked_v6 += p->v6;
	want->passed += verdict == XDP_PASS;
	want->dropped += verdict == XDP_DROP;
	want->dns_replies += verdict == XDP_TX;
}

/* Builds and runs p on configuration cfg; returns the mismatches, each reported. */
static int run_and_check(const char *name, enum cfg_id cfg, const struct pkt *p,
			 __u32 want_verdict, const struct bloomxdp_counters *delta,
			 struct built *b, struct frame *out)
{
	struct bloomxdp_counters want = *delta, got;
	__u32 verdict = ~0U;
	int bad = 0, ret;

	if (pkt_build(p, b))
		fail_msg("%s: bad address in the packet description", name);
	ret = harness_run_frame_split(&harnesses[cfg], &b->f, p->linear, out, &verdict, &got);
	if (ret == -EINVAL && p->linear) {
		print_message("# %s: this kernel takes no first buffer of %u bytes\n", name,
			      p->linear);
		skip();
	}
	if (ret)
		fail_msg("%s: BPF_PROG_TEST_RUN failed: %s", name, strerror(-ret));
	implied_counters(&want, p, &b->f, want_verdict);
	if (verdict != want_verdict) {
		print_error("%s: verdict %s, expected %s\n", name, verdict_name(verdict),
			    verdict_name(want_verdict));
		bad++;
	}
	return bad + check_counters(name, &got, &want);
}

static void test_case(void **state)
{
	const struct run *r = *state;
	struct pkt p = r->c->pkt;
	struct built b;
	int bad;

	pkt_in_fam(&p, r->fam);
	bad = run_and_check(r->name, r->c->cfg, &p, r->c->verdict, &r->c->delta, &b, NULL);
	if (r->c->bug && bad)
		printf("# %s: known bug, %s\n", r->name, r->c->bug);
	else if (r->c->bug)
		fail_msg("%s: passes: known bug \"%s\" fixed? Make the row a CASE", r->name,
			 r->c->bug);
	else if (bad)
		fail_msg("%s: %d mismatch(es), see above", r->name, bad);
}

/* -------------------------------------------------------- NXDOMAIN answers */

struct nx_case {
	const char *name;
	struct pkt pkt;
};

static const struct nx_case nx_cases[] = {
	{ "nx: listed name", DNS("evil.example") },
	{ "nx: RD clear, CD set", DNS("evil.example", .dns.no_rd = true,
				      .dns.flags = DNS_FLAG_CD) },
	{ "nx: AD set (not copied)", DNS("evil.example", .dns.flags = DNS_FLAG_AD) },
	{ "nx: mixed case copied as is", DNS("eViL.ExAmPlE") },
	{ "nx: odd length", DNS("ab.evil.example") },
	{ "nx: EDNS OPT record removed", DNS("www.evil.example", EDNS) },
	{ "nx: second question removed", DNS("evil.example", QDCOUNT(1),
					     .dns.qname2 = "x.example") },
	{ "nx: 255-byte name, EDNS removed", DNS(LONGEST, EDNS) },
	{ "nx: TTL 3 and DF", DNS("evil.example", .ttl = 3, .frag_off = DF) },
	{ "nx: IPv4 options", DNS("evil.example", .ihl = 7, V4_ONLY) },
	{ "nx: IPv6 hop-by-hop and dstopts", DNS("evil.example", EDNS,
						 EXT(IPPROTO_HOPOPTS, IPPROTO_DSTOPTS),
						 V6_ONLY) },
	{ "nx: IPv6 atomic fragment header kept", DNS("evil.example", EXT(IPPROTO_FRAGMENT),
						      V6_ONLY) },
	{ "nx: Ethernet padding removed", DNS("evil.example", .trailer = 6) },
	{ "nx: 802.1ad tag outside", DNS("evil.example", EDNS, .outer_tag = true) },
	/* Multi-buffer: the cut frees the fragments, one buffer goes out. */
	{ "nx: 4,800 bytes of EDNS padding removed", DNS("evil.example", .dns.pad = 4800) },
	{ "nx: 9,000-byte query", DNS("www.evil.example", .dns.pad = 8900, V4_ONLY) },
};

#define N_NX ARRAY_SIZE(nx_cases)

static void swap_bytes(__u8 *a, __u8 *b, __u32 n)
{
	__u8 t;

	while (n--) {
		t = *a;
		*a++ = *b;
		*b++ = t;
	}
}

static __u16 get_be16(const __u8 *p)
{
	return p[0] << 8 | p[1];
}

/* The answer to query b, written from RFC 1035 and the program's documented rewrite. */
static void nx_expected(const struct built *b, bool v6, struct frame *exp)
{
	__u32 udp_len = UDP_HLEN + b->dns_question_end;
	__u8 *l3, *udp, *dns;
	__u16 flags;

	*exp = b->f;
	exp->len = b->l4 + udp_len;
	l3 = exp->data + b->l3;
	udp = exp->data + b->l4;
	dns = udp + UDP_HLEN;
	swap_bytes(exp->data, exp->data + ETH_ALEN, ETH_ALEN);
	if (v6) {
		swap_bytes(l3 + 8, l3 + 24, 16);
		put_be16(l3 + 4, b->l4 - b->l3 - IP6_HLEN + udp_len);
		l3[7] = 64;
	} else {
		swap_bytes(l3 + 12, l3 + 16, 4);
		put_be16(l3 + 2, b->l4 - b->l3 + udp_len);
		put_be16(l3 + 6, 0);		/* flags and fragment offset cleared */
		l3[8] = 64;
		put_be16(l3 + 10, 0);
		put_be16(l3 + 10, ~inet_fold(inet_sum(0, l3, (l3[0] & 0xf) * 4)));
	}
	swap_bytes(udp, udp + 2, 2);
	put_be16(udp + 4, udp_len);
	flags = get_be16(dns + 2);
	put_be16(dns + 2, DNS_FLAG_QR | (flags & (0x7800 | DNS_FLAG_RD | DNS_FLAG_CD)) |
		 DNS_FLAG_RA | 3);
	memset(dns + 6, 0, 6);		/* ANCOUNT, NSCOUNT, ARCOUNT */
	l4_set_checksum(exp->data, b->l3, b->l4, udp_len, v6, IPPROTO_UDP);
}

/* What byte off of an answer frame is, for messages. */
static const char *nx_field(const struct built *b, bool v6, __u32 off)
{
	static const char *const v4_fields[20] = {
		"IPv4 version/IHL", "IPv4 TOS", "IPv4 total length", "IPv4 total length",
		"IPv4 id", "IPv4 id", "IPv4 flags/fragment offset", "IPv4 flags/fragment offset",
		"IPv4 TTL", "IPv4 protocol", "IPv4 header checksum", "IPv4 header checksum",
		"IPv4 source", "IPv4 source", "IPv4 source", "IPv4 source",
		"IPv4 destination", "IPv4 destination", "IPv4 destination", "IPv4 destination",
	};
	static const char *const udp_fields[4] = {
		"UDP source port", "UDP destination port", "UDP length", "UDP checksum",
	};
	static const char *const dns_fields[6] = {
		"DNS id", "DNS flags", "QDCOUNT", "ANCOUNT", "NSCOUNT", "ARCOUNT",
	};
	__u32 l3 = off - b->l3, l4 = off - b->l4;

	if (off < ETH_ALEN)
		return "destination MAC";
	if (off < 2 * ETH_ALEN)
		return "source MAC";
	if (off < b->l3)
		return "EtherType/VLAN tag";
	if (off < b->l4 && !v6)
		return l3 < 20 ? v4_fields[l3] : "IPv4 options";
	if (off < b->l4 && v6)
		return l3 < 4 ? "IPv6 version/class/flow" : l3 < 6 ? "IPv6 payload length" :
		       l3 < 7 ? "IPv6 next header" : l3 < 8 ? "IPv6 hop limit" :
		       l3 < 24 ? "IPv6 source" : l3 < 40 ? "IPv6 destination" :
		       "IPv6 extension headers";
	if (l4 < UDP_HLEN)
		return udp_fields[l4 / 2];
	if (l4 < UDP_HLEN + DNS_HDR_LEN)
		return dns_fields[(l4 - UDP_HLEN) / 2];
	return "question";
}

static void test_nx(void **state)
{
	static const struct bloomxdp_counters hit = { DNS_HIT };
	const struct run *r = *state;
	struct pkt p = r->nx->pkt;
	struct frame out, exp;
	const char *last = NULL;
	__u32 i, udp_len;
	struct built b;
	int bad;

	pkt_in_fam(&p, r->fam);
	bad = run_and_check(r->name, NXDOMAIN, &p, XDP_TX, &hit, &b, &out);
	nx_expected(&b, p.v6, &exp);
	if (out.len != exp.len) {
		print_error("%s: answer of %u bytes, expected %u (query %u bytes)\n", r->name,
			    out.len, exp.len, b.f.len);
		bad++;
	}
	for (i = 0; i < out.len && i < exp.len; i++) {
		if (out.data[i] == exp.data[i])
			continue;
		if (last != nx_field(&b, p.v6, i)) {
			last = nx_field(&b, p.v6, i);
			print_error("%s: %s differs at byte %u: 0x%02x, expected 0x%02x\n",
				    r->name, last, i, out.data[i], exp.data[i]);
		}
		bad++;
	}

	/* The checksums, verified on the answer itself. */
	udp_len = out.len > b.l4 + 6 ? get_be16(out.data + b.l4 + 4) : 0;
	if (!p.v6 &&
	    inet_fold(inet_sum(0, out.data + b.l3, (out.data[b.l3] & 0xf) * 4)) != 0xffff) {
		print_error("%s: IPv4 header checksum invalid\n", r->name);
		bad++;
	}
	if (b.l4 + udp_len != out.len) {
		print_error("%s: UDP length %u, the frame holds %u\n", r->name, udp_len,
			    out.len - b.l4);
		bad++;
	} else if (l4_sum(out.data, b.l3, b.l4, udp_len, p.v6, IPPROTO_UDP) != 0xffff ||
		   (p.v6 && !get_be16(out.data + b.l4 + 6))) {
		print_error("%s: UDP checksum 0x%04x invalid\n", r->name,
			    get_be16(out.data + b.l4 + 6));
		bad++;
	}
	if (bad)
		fail_msg("%s: %d mismatch(es), see above", r->name, bad);
}

/* ---------------------------------------------------------------- parity */

#define PARITY_NAMES	2000
#define PARITY_URLS	500
#define PARITY_REPORT	5	/* failures shown in full */

static __u32 rng_below(__u32 n)
{
	return rng() % n;
}

/* A label: letters in random case, digits, '-', '_'; mostly short, sometimes up to 63. */
static size_t random_label(char *out, bool letter_first)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t len = rng_below(4) ? 1 + rng_below(12) : 1 + rng_below(63), i;

	for (i = 0; i < len; i++) {
		out[i] = chars[rng_below(i == 0 && letter_first ? 26 : sizeof(chars) - 1)];
		if (rng_below(2))
			out[i] = toupper((unsigned char)out[i]);
	}
	return len;
}

/*
 * Prepends 1..max random labels to name (in place), keeping it within
 * max_len characters; the rightmost label begins with a letter, so that no
 * name reads as an address.
 */
static void add_labels(char *name, int max, size_t max_len)
{
	char label[64], buf[NAME_TEXT_MAX + 64];
	int n = 1 + rng_below(max), i;
	size_t len, cur;

	for (i = 0; i < n; i++) {
		cur = strlen(name);
		len = random_label(label, cur == 0);
		if (cur + (cur != 0) + len > max_len)
			break;
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, label, cur ? "." : "", name);
		strcpy(name, buf);
	}
	if (!name[0])
		strcpy(name, "x");
}

static void lower(char *dst, const char *src)
{
	while ((*dst++ = tolower((unsigned char)*src++)))
		;
}

/* Case changed at random: a query need not match the list's spelling. */
static void recase(char *s)
{
	for (; *s; s++)
		if (rng_below(2))
			*s = isupper((unsigned char)*s) ? tolower((unsigned char)*s) :
			      toupper((unsigned char)*s);
}

struct parity {
	struct xdp_harness *h;
	unsigned runs, failures;
	struct bloomxdp_counters expect;	/* name counters the runs must add up to */
};

/* Runs p; want_drop: the verdict entry_keys_lookup() predicts. */
static void parity_run(struct parity *par, struct pkt *p, bool want_drop, const char *what,
		       const char *name)
{
	__u32 verdict = ~0U;
	struct built b;
	int ret;

	pkt_in_fam(p, 1 << rng_below(N_FAMS));
	if (pkt_build(p, &b))
		fail_msg("parity: cannot build a frame for %s", name);
	ret = harness_run_frame(par->h, &b.f, NULL, &verdict, NULL);
	if (ret)
		fail_msg("parity: BPF_PROG_TEST_RUN failed: %s", strerror(-ret));
	par->runs++;
	if (verdict == (want_drop ? XDP_DROP : XDP_PASS))
		return;
	if (par->failures++ < PARITY_REPORT)
		print_error("parity: %s %s (%s): verdict %s, expected %s (seed %llu)\n", what,
			    name, fam_name((p->v6 ? 2 : 1) << 2 * p->vlan), verdict_name(verdict),
			    want_drop ? "XDP_DROP" : "XDP_PASS", (unsigned long long)test_seed);
}

static bool lookup_name(const struct xdp_harness *h, const char *name)
{
	struct entry e = { .kind = ENTRY_NAME };
	char why[512];

	lower(e.name, name);
	return entry_keys_lookup(&h->lp.filter, &e, why, sizeof(why));
}

/* The name in a DNS query, an HTTP Host and an SNI. */
static void parity_name(struct parity *par, const char *name, bool want_drop, const char *what)
{
	char http[1024];
	struct pkt p;

	snprintf(http, sizeof(http), "GET /index.html HTTP/1.1\r\nHost: %s\r\n\r\n", name);
	p = (struct pkt)DNS(name);
	parity_run(par, &p, want_drop, what, name);
	p = (struct pkt)HTTP(http);
	parity_run(par, &p, want_drop, what, name);
	p = (struct pkt)TLS(name, .tls.before = rng_below(20));
	parity_run(par, &p, want_drop, what, name);
	par->expect.checked_dns++;
	par->expect.checked_http++;
	par->expect.checked_sni++;
	par->expect.hits_dns += want_drop;
	par->expect.hits_http += want_drop;
	par->expect.hits_sni += want_drop;
}

static void parity_open(struct xdp_harness *h, struct parity *par, __u64 capacity)
{
	__u64 hash_key[2] = { rng(), rng() };	/* from the seed, so that it repeats */
	struct harness_config hc = { .match = BLOOMXDP_MATCH_NAMES, .capacity = capacity,
				     .fpr = 1e-6, .hash_key = hash_key };
	int ret = harness_open(h, &hc);

	if (ret)
		fail_msg("parity: cannot load bloomxdp: %s", strerror(-ret));
	memset(par, 0, sizeof(*par));
	par->h = h;
}

/* The counters the runs moved must be those their verdicts imply. */
static void parity_close(struct parity *par, const char *test)
{
	struct bloomxdp_counters got, want = par->expect;
	int ret = harness_counters(par->h, &got), bad;

	if (ret)
		fail_msg("%s: cannot read the counters: %s", test, strerror(-ret));
	want.packets = got.packets;		/* frames of every family: checked below */
	want.bytes = got.bytes;
	want.checked_v4 = got.checked_v4;
	want.checked_v6 = got.checked_v6;
	want.dropped = want.hits_dns + want.hits_http + want.hits_sni;
	/* Without --verify, one Bloom hit per blocked frame: the walk stops at it. */
	want.bloom_hits = want.dropped;
	want.passed = par->runs - want.dropped;
	bad = check_counters(test, &got, &want);
	if (got.packets != par->runs || got.checked_v4 + got.checked_v6 != par->runs) {
		print_error("%s: %llu frames counted, %u run\n", test,
			    (unsigned long long)got.packets, par->runs);
		bad++;
	}
	harness_close(par->h);
	if (par->failures || bad)
		fail_msg("%s: %u of %u verdicts wrong, %d counters wrong (seed %llu)", test,
			 par->failures, par->runs, bad, (unsigned long long)test_seed);
	printf("# %s: %u frames, every verdict as predicted\n", test, par->runs);
}

/*
 * Random names listed: each of them, and a random name under each, must drop
 * in DNS, HTTP and SNI; a random other name must get entry_keys_lookup's verdict.
 */
static void test_name_parity(void **state)
{
	static char names[PARITY_NAMES][NAME_TEXT_MAX + 1];
	char name[NAME_TEXT_MAX + 64];
	struct xdp_harness h;
	struct parity par;
	const char *why;
	int i;

	(void)state;
	parity_open(&h, &par, 2 * PARITY_NAMES);
	for (i = 0; i < PARITY_NAMES; i++) {
		names[i][0] = '\0';
		add_labels(names[i], BLOOMXDP_MAX_LABELS, NAME_TEXT_MAX - 1);
		if (harness_insert_entry(&h, names[i], &why))
			fail_msg("parity: %s not listed: %s", names[i], why);
	}
	for (i = 0; i < PARITY_NAMES; i++) {
		strcpy(name, names[i]);
		recase(name);
		parity_name(&par, name, true, "listed");
		add_labels(name, 4, NAME_TEXT_MAX - 1);
		parity_name(&par, name, true, "under a listed name");
		name[0] = '\0';
		add_labels(name, 20, NAME_TEXT_MAX - 1);
		parity_name(&par, name, lookup_name(&h, name), "other");
	}
	parity_close(&par, "name parity");
}

/* A path of 0..8 random segments, within max bytes. */
static void random_path(char *out, size_t max)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~";
	int n = rng_below(BLOOMXDP_MAX_PATH_PREFIXES), i;
	size_t len = 0, seg, j;

	for (i = 0; i < n && len + 2 <= max; i++) {
		seg = 1 + rng_below(rng_below(4) ? 12 : 60);
		if (len + 1 + seg > max)
			seg = max - len - 1;
		out[len++] = '/';
		for (j = 0; j < seg; j++)
			out[len++] = chars[rng_below(sizeof(chars) - 1)];
	}
	out[len] = '\0';
}

/* One request; the verdict entry_keys_lookup predicts for host and path. */
static void parity_url_request(struct parity *par, const char *host, const char *target,
			       const char *what)
{
	struct entry e = { .kind = ENTRY_URL };
	char http[1400], why[1024], shown[1400];
	struct pkt p = HTTP(http);
	bool want;

	lower(e.name, host);
	snprintf(e.path, sizeof(e.path), "%.*s", (int)strcspn(target, "?"), target);
	if (strlen(target) > BLOOMXDP_PATH_MAX)	/* the lookup cuts as the program does */
		e.path[BLOOMXDP_PATH_MAX] = '\0';
	want = entry_keys_lookup(&par->h->lp.filter, &e, why, sizeof(why));
	snprintf(http, sizeof(http), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, host);
	snprintf(shown, sizeof(shown), "%s%s", host, target);
	parity_run(par, &p, want, what, shown);
	par->expect.checked_http++;
	par->expect.hits_http += want;
}

/*
 * Random URL entries host/path: requests for the path, below it, with a query,
 * and for neighbours of it (path + "x", a random path) on the host and under
 * it; the verdicts must be those entry_keys_lookup predicts, and the first three
 * drop.
 */
static void test_url_parity(void **state)
{
	char host[NAME_TEXT_MAX + 64], path[512], line[600], target[1100];
	struct xdp_harness h;
	struct parity par;
	const char *why;
	unsigned before, hits;
	int i;

	(void)state;
	parity_open(&h, &par, 4 * PARITY_URLS);
	for (i = 0; i < PARITY_URLS; i++) {
		host[0] = '\0';
		add_labels(host, 5, 100);
		random_path(path, 120);
		snprintf(line, sizeof(line), "%s%s%s%s", rng_below(2) ? "http://" : "", host,
			 path, path[0] && rng_below(2) ? "/" : "");
		if (!path[0] && !strstr(line, "://"))
			snprintf(line, sizeof(line), "http://%s", host);
		if (harness_insert_entry(&h, line, &why))
			fail_msg("url parity: %s not listed: %s", line, why);

		/* Under the entry: must drop. */
		before = par.failures;
		hits = par.expect.hits_http;
		snprintf(target, sizeof(target), "%s", path[0] ? path : "/");
		parity_url_request(&par, host, target, "listed URL");
		snprintf(target, sizeof(target), "%s/more/x.bin", path);
		parity_url_request(&par, host, target, "below a listed URL");
		snprintf(target, sizeof(target), "%s?q=%s", path[0] ? path : "/", path);
		recase(host);
		parity_url_request(&par, host, target, "listed URL with a query");
		add_labels(host, 3, 200);
		snprintf(target, sizeof(target), "%s/", path);
		parity_url_request(&par, host, target, "listed URL under its host");
		if (par.failures == before && par.expect.hits_http != hits + 4)
			fail_msg("url parity: entry_keys_lookup misses %s (seed %llu)", line,
				 (unsigned long long)test_seed);

		/* Neighbours: as predicted. */
		snprintf(target, sizeof(target), "%sx", path[0] ? path : "/");
		parity_url_request(&par, host, target, "neighbour");
		random_path(path, 300);
		snprintf(target, sizeof(target), "%s", path[0] ? path : "/");
		parity_url_request(&par, host, target, "other path");
	}
	parity_close(&par, "url parity");
}

/* ------------------------------------------------- query and the program */

static int take_entry(const struct entry *e, void *arg)
{
	*(struct entry *)arg = *e;
	return 0;
}

/*
 * `bloomxdp query URL` and the program on a request for URL: the same
 * verdict. query parses its argument as a list line (entry_parse_line) and
 * looks it up with entry_keys_lookup; the program reads the absolute-form
 * target, whatever Host says.
 */
static void test_query_agrees(void **state)
{
	static const struct {
		const char *url;
		bool listed;
	} urls[] = {
		{ "http://u@evil.example/", true },
		{ "http://u:p@evil.example/x", true },
		{ "http://a@b@evil.example/", true },
		{ "http://u:p@q@evil.example/", true },
		{ "HTTP://U:P@EVIL.EXAMPLE:8080/x", true },
		{ "http://u@evil.example:8080", true },
		{ "https://u:p@evil.example/", true },
		{ "http://evil.example@fine.example/", false },
		{ "http://fine.example/@evil.example", false },
		{ "http://u:p@good.example:80/malware/x", true },
		{ "http://u@good.example/other", false },
		{ "http://good.example:80?u=/malware/x", false },
		{ "http://good.example?u=/malware/x", false },
		{ "http://u@x.whole.example/a", true },
		{ "http://evil.example:80@whole.example/", true },
	};
	struct xdp_harness *h = &harnesses[NAMES];
	char text[512], http[1024], why[512];
	const char *err = NULL;
	__u32 verdict = ~0U;
	struct entry e;
	struct built b;
	struct pkt p;
	int bad = 0;
	bool want;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(urls); i++) {
		snprintf(text, sizeof(text), "%s", urls[i].url);
		if (entry_parse_line(text, FORMAT_AUTO, take_entry, &e, &err))
			fail_msg("query %s: refused: %s", urls[i].url, err);
		want = entry_keys_lookup(&h->lp.filter, &e, why, sizeof(why));
		snprintf(http, sizeof(http), GET("%s", "fine.example"), urls[i].url);
		p = (struct pkt)HTTP(http);
		if (pkt_build(&p, &b) || harness_run_frame(h, &b.f, NULL, &verdict, NULL))
			fail_msg("%s: cannot run the request", urls[i].url);
		if (want != urls[i].listed || verdict != (want ? XDP_DROP : XDP_PASS)) {
			print_error("%s: query says %s, the program %s, expected %s\n",
				    urls[i].url, want ? "blocked" : "not blocked",
				    verdict_name(verdict), urls[i].listed ? "blocked" : "not blocked");
			bad++;
		}
	}
	if (bad)
		fail_msg("%d of %zu URLs: query and the program disagree", bad, ARRAY_SIZE(urls));
}

/* ----------------------------------------------------------------- main */

static int setup(void **state)
{
	const char *why;
	size_t i, j;
	int ret;

	(void)state;
	for (i = 0; i < N_CFGS; i++) {
		ret = harness_open(&harnesses[i], &cfg_defs[i]);
		if (ret) {
			print_error("cannot load bloomxdp for configuration %s: %s\n",
				    cfg_names[i], strerror(-ret));
			return -1;
		}
		for (j = i == ADDRS_ONLY ? ARRAY_SIZE(list) - N_ADDR_LINES : 0;
		     j < ARRAY_SIZE(list); j++) {
			if (harness_insert_entry(&harnesses[i], list[j], &why)) {
				print_error("list line %s: %s\n", list[j], why);
				return -1;
			}
		}
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

/* One test per encapsulation of fams (0: all), named after the row. */
static void add_runs(struct CMUnitTest *tests, size_t *n, struct run *runs, size_t *nr,
		     const char *name, const char *cfg, __u8 fams, CMUnitTestFunction fn,
		     const struct name_case *c, const struct nx_case *nx)
{
	int fam;

	for (fam = 1; fam <= FAM_V6_VLAN; fam <<= 1) {
		if (!((fams ? fams : FAM_ALL) & fam))
			continue;
		runs[*nr] = (struct run){ .c = c, .nx = nx, .fam = fam };
		snprintf(runs[*nr].name, sizeof(runs[*nr].name), "%s [%s%s%s]", name,
			 fam_name(fam), cfg ? ", " : "", cfg ? cfg : "");
		tests[(*n)++] = (struct CMUnitTest){ .name = runs[*nr].name, .test_func = fn,
						     .initial_state = &runs[*nr] };
		(*nr)++;
	}
}

int main(void)
{
	static struct run runs[(N_CASES + N_NX) * N_FAMS];
	static struct CMUnitTest tests[ARRAY_SIZE(runs) + 3];
	size_t i, n = 0, nr = 0;

	for (i = 0; i < N_CASES; i++)
		add_runs(tests, &n, runs, &nr, cases[i].name, cfg_names[cases[i].cfg],
			 cases[i].pkt.fams, test_case, &cases[i], NULL);
	for (i = 0; i < N_NX; i++)
		add_runs(tests, &n, runs, &nr, nx_cases[i].name, NULL, nx_cases[i].pkt.fams,
			 test_nx, NULL, &nx_cases[i]);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_name_parity);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_url_parity);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_query_agrees);

	rng_seed();
	return _cmocka_run_group_tests("names_xdp", tests, n, setup, teardown);
}
