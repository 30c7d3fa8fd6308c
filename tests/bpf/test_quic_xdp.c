// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * QUIC's server_name (bpf/quic.h, quic_read() of bpf/bloomxdp.bpf.c) through
 * BPF_PROG_TEST_RUN on loaded, never attached programs: verdicts and every
 * counter.
 *
 *  - cases[]: a flight of datagrams (UDP payloads to port 443) built with
 *    quic_wire.h, sent in order on one connection (one client address, port
 *    and DCID), each with its verdict and the counters it must move. Each row
 *    runs over IPv4, IPv6, IPv4 in 802.1Q and IPv6 in 802.1Q unless it names
 *    its encapsulations; quic_conns is emptied before each run. Counters a row
 *    does not name must stay unchanged; packets, bytes, checked_v4/v6 and the
 *    verdict's counter follow from the frame. The rows: RFC 9001 A.2's and RFC
 *    9369 A.2's client Initials byte for byte, names listed, under a listed
 *    one, unlisted, allowlisted, in monitor mode; truncated, padded-only,
 *    ACK-only and coalesced packets, versions not read, version negotiation,
 *    Retry, 0-RTT, Handshake and short headers; CRYPTO frames out of order and
 *    past the frame table; ClientHellos over two and three packets, the name
 *    in each, in order, out of order and sent again, a field cut by a
 *    packet's end; a whole one, then the client's ACK after the server's
 *    answer (the server's CID, the first DCID's keys); ECH; --quic-unparsed
 *    drop, --ech drop, --quic-budget 0, --quic-ports; the tc build, ingress
 *    and egress; frames past their first buffer.
 *  - the budget: --quic-budget 2 decrypts two Initials a second on a CPU, the
 *    third is spent; a repeat of 1,000 in one second (a hello without
 *    server_name: a named one's walk is kept) decrypts as many as the budget
 *    says.
 *  - the time of a run: an RFC-like Initial with a 3-label name, a
 *    connection's first (its keys derived), and later packets of a
 *    connection (keys kept; the name known), as a TAP comment (not asserted:
 *    make bench measures speed).
 *
 * The test runs on one CPU (sched_setaffinity): BPF_PROG_TEST_RUN runs on the
 * calling CPU, and the budgets are per CPU.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <linux/pkt_cls.h>
#include <cmocka.h>

#include "quic_vectors.h"
#include "quic_wire.h"
#include "verify_harness.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define TC_PASS	((__u32)TC_ACT_UNSPEC)
#define TC_DROP	((__u32)TC_ACT_SHOT)

/* ------------------------------------------------------- configurations */

enum cfg_id {
	NAMES,		/* --match sni, the list below */
	RFC,		/* example.com listed: the RFCs' name */
	VERIFY,		/* --verify, with an allowlist */
	MONITOR,
	UNPARSED_DROP,	/* --quic-unparsed drop */
	ECH_DROP,	/* --ech drop */
	NO_BUDGET,	/* --quic-budget 0 */
	NO_BUDGET_DROP,	/* ... and --quic-unparsed drop */
	TC,		/* the tc build, ingress */
	TC_EGRESS,	/* the tc build, egress: names in outgoing Initials */
	PORTS,		/* --quic-ports 8443,4433 */
	N_CFGS
};

static const char *const cfg_names[N_CFGS] = {
	[NAMES] = "sni", [RFC] = "example.com listed", [VERIFY] = "verify, allowlist",
	[MONITOR] = "monitor", [UNPARSED_DROP] = "quic-unparsed drop", [ECH_DROP] = "ech drop",
	[NO_BUDGET] = "quic-budget 0", [NO_BUDGET_DROP] = "quic-budget 0, quic-unparsed drop",
	[TC] = "tc ingress", [TC_EGRESS] = "tc egress", [PORTS] = "quic-ports 8443,4433",
};

#define LIST	.capacity = 1000, .fpr = 1e-9

static const struct harness_config cfg_defs[N_CFGS] = {
	[NAMES] = { LIST, .match = BLOOMXDP_MATCH_SNI },
	[RFC] = { LIST, .match = BLOOMXDP_MATCH_SNI },
	[VERIFY] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .verify = 1 },
	[MONITOR] = { LIST, .match = BLOOMXDP_MATCH_SNI, .action = BLOOMXDP_ACTION_MONITOR },
	[UNPARSED_DROP] = { LIST, .match = BLOOMXDP_MATCH_SNI,
			    .quic_unparsed = BLOOMXDP_POLICY_DROP },
	[ECH_DROP] = { LIST, .match = BLOOMXDP_MATCH_SNI, .ech = BLOOMXDP_POLICY_DROP },
	[NO_BUDGET] = { LIST, .match = BLOOMXDP_MATCH_SNI, .quic_per_sec = HARNESS_QUIC_NONE },
	[NO_BUDGET_DROP] = { LIST, .match = BLOOMXDP_MATCH_SNI, .quic_per_sec = HARNESS_QUIC_NONE,
			     .quic_unparsed = BLOOMXDP_POLICY_DROP },
	[TC] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .hook = BLOOMXDP_HOOK_TC,
		 .direction = BLOOMXDP_DIR_INGRESS },
	[TC_EGRESS] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .hook = BLOOMXDP_HOOK_TC,
			.direction = BLOOMXDP_DIR_EGRESS },
	[PORTS] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .quic_ports = { 8443, 4433 } },
};

/* The harness of each configuration: VERIFY's is a vh (exact sets, allowlist). */
static struct vh progs[N_CFGS];

#define L63(c)		c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
			c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
#define LONGEST		L63("q") "." L63("q") "." L63("q") ".qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq" \
			"qqqqqqqqqqqqqqqqqqqqqqqqqqqqx"		/* 253 characters */

static const char *const list[] = {
	"listed.example",
	"three.label.example",
	LONGEST,
};

static const char *const rfc_list[] = { "example.com" };

/* With --verify: under a listed name, let through. */
static const char *const allowlist[] = { "good.listed.example" };

/* ------------------------------------------------------------- flights */

#define MAX_STEPS	4	/* datagrams of a case */
#define MAX_PIECES	3	/* packets a ClientHello is split over */

/* A ClientHello as quic_wire.h builds it (names_harness.h's tls_desc). */
struct hspec {
	const char *sni;	/* NULL: no server_name */
	bool ech;		/* an outer encrypted_client_hello */
	__u16 key_share;	/* a key_share of this many bytes, before the name */
	bool share_after;	/* ... after it */
	__u8 hs_type;		/* 0: ClientHello */
	bool grease;
	__u16 after;		/* other extensions after the name */
};

/* What each case sends. */
enum shape {
	S_RFC,		/* quic_vectors[arg].packet, byte for byte */
	S_ONE,		/* one Initial, the hello in one CRYPTO frame, padded to 1,200 bytes */
	S_SPLIT,	/* the hello over npkts Initials, the name in packet `at` */
	S_CHAOS,	/* one Initial: the hello in 5 CRYPTO frames out of order, PING and PADDING */
	S_FRAMES,	/* one Initial: the hello in arg CRYPTO frames, in order */
	S_COALESCED,	/* an Initial, then a packet of type arg in the same datagram */
	S_LONG,		/* a packet of type arg (0-RTT, Handshake, Retry) holding the hello */
	S_VERSION,	/* an Initial whose version field then says arg */
	S_WRONG_KEYS,	/* a v2 Initial relabelled v1 (version and type bits) */
	S_VN,		/* version negotiation */
	S_SHORT,	/* a short header (1-RTT) */
	S_CUT,		/* an Initial cut after arg bytes (the UDP and IP lengths say so) */
	S_PADDING,	/* an Initial of PADDING only */
	S_ACK,		/* an Initial of an ACK and PADDING */
	S_WRAP,		/* one Initial: the hello in a CRYPTO frame at 2^32 - arg, past 4 GiB */
	S_RETRY,	/* the hello's first part of 2, then all of it again after a Retry */
	S_ANSWERED,	/* the hello whole, then an ACK after the server's answer (below) */
};

struct step {
	__u32 verdict;				/* XDP_PASS or XDP_DROP; 0 ends the steps */
	struct bloomxdp_counters delta;		/* besides the implied counters */
};

struct qcase {
	const char *name;
	enum cfg_id cfg;
	enum shape shape;
	struct hspec hello;
	__u32 version;		/* 0: v1 */
	__u32 arg;
	__u8 npkts, at;		/* S_SPLIT: packets, and the one holding the name */
	int cut;		/* S_SPLIT: piece at ends this far from the name's start; 0: as
				 * split_cuts() says */
	const __u8 *order;	/* S_SPLIT: the packets sent, by index; NULL: each in order */
	__u8 fams;		/* FAM_* (names_harness.h); 0: all */
	__u16 dport;		/* 0: 443 */
	__u32 linear;		/* bytes of the frame in its first buffer; 0: as the kernel splits it */
	struct step steps[MAX_STEPS];
};

static struct frame hello_buf, payload_buf;

/* The hello of s into hello_buf: the offset of its name (0: none). */
static __u32 put_hello(const struct hspec *s)
{
	struct tls_desc d = { .sni = s->sni, .ech = s->ech, .key_share = s->key_share,
			      .share_after = s->share_after, .hs_type = s->hs_type,
			      .grease = s->grease, .after = s->after };
	__u32 name;

	hello_buf.len = 0;
	quic_client_hello(&hello_buf, &d, &name);
	return name;
}

/* The client's packet of a case: version, a DCID and SCID of 8 bytes, packet number pn. */
static struct quic_pkt pkt_tmpl(const struct qcase *c, enum quic_type type, __u64 pn)
{
	struct quic_pkt p = { .version = c->version, .type = type, .dcid_len = 8, .scid_len = 8,
			      .pn = pn };
	__u32 i;

	for (i = 0; i < 8; i++) {
		p.dcid[i] = 0xd0 + i;
		p.scid[i] = 0x50 + i;
	}
	return p;
}

/* The packet p carrying payload_buf appended to d; with pad, the datagram padded to 1,200. */
static void put_payload(struct frame *d, struct quic_pkt p, bool pad)
{
	__u32 start = d->len;

	p.payload = payload_buf.data;
	p.payload_len = payload_buf.len;
	quic_put_packet(d, &p);
	if (pad && d->len < QUIC_MIN_DATAGRAM) {
		quic_frame_padding(&payload_buf, QUIC_MIN_DATAGRAM - d->len);
		p.payload_len = payload_buf.len;
		d->len = start;
		quic_put_packet(d, &p);
	}
}

/* One Initial holding the hello's bytes [from, to) in one CRYPTO frame, into d. */
static void put_piece(struct frame *d, const struct qcase *c, __u32 from, __u32 to, __u64 pn)
{
	payload_buf.len = 0;
	quic_frame_crypto(&payload_buf, from, hello_buf.data + from, to - from);
	put_payload(d, pkt_tmpl(c, QUIC_INITIAL, pn), true);
}

/*
 * Where the hello of S_SPLIT is cut: the name in piece `at` (the server_name
 * extension whole in it), or piece at ending c->cut bytes from the name's
 * start; the other cuts spread evenly on either side.
 */
static void split_cuts(const struct qcase *c, __u32 name, __u32 cuts[MAX_PIECES + 1])
{
	__u32 n = c->npkts, len = c->hello.sni ? strlen(c->hello.sni) : 0, lo, hi, i;

	assert(n >= 2 && n <= MAX_PIECES && c->at < n);
	cuts[0] = 0;
	cuts[n] = hello_buf.len;
	if (!c->hello.sni) {
		for (i = 1; i < n; i++)
			cuts[i] = hello_buf.len * i / n;
		return;
	}
	if (c->cut) {
		cuts[c->at + 1] = name + c->cut;
	} else {
		if (c->at > 0)
			cuts[c->at] = name - 12;	/* before the server_name extension */
		if (c->at + 1U < n)
			cuts[c->at + 1] = name + len + 3;
	}
	lo = c->cut ? c->at + 1U : c->at;	/* cuts[lo], cuts[hi] are set */
	hi = c->at + 1U;
	for (i = 1; i < lo; i++)
		cuts[i] = cuts[lo] * i / lo;
	for (i = hi + 1; i < n; i++)
		cuts[i] = cuts[hi] + (cuts[n] - cuts[hi]) * (i - hi) / (n - hi);
	for (i = 0; i < n; i++)
		assert(cuts[i] < cuts[i + 1]);
}

/* The hello of S_CHAOS in 5 CRYPTO frames, sent 3, 0, 4, 1, 2 with PING and PADDING between. */
static void put_chaos(struct frame *d, const struct qcase *c)
{
	static const __u8 order[] = { 3, 0, 4, 1, 2 };
	__u32 i, k, from, to;

	payload_buf.len = 0;
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		k = order[i];
		from = hello_buf.len * k / 5;
		to = hello_buf.len * (k + 1) / 5;
		quic_frame_crypto(&payload_buf, from, hello_buf.data + from, to - from);
		if (i & 1)
			quic_frame_ping(&payload_buf);
		else
			quic_frame_padding(&payload_buf, 3 + i);
	}
	put_payload(d, pkt_tmpl(c, QUIC_INITIAL, 0), true);
}

/* The hello of S_FRAMES in arg CRYPTO frames of about the same size, in order. */
static void put_frames(struct frame *d, const struct qcase *c)
{
	__u32 k, from, to;

	payload_buf.len = 0;
	for (k = 0; k < c->arg; k++) {
		from = hello_buf.len * k / c->arg;
		to = hello_buf.len * (k + 1) / c->arg;
		quic_frame_crypto(&payload_buf, from, hello_buf.data + from, to - from);
	}
	put_payload(d, pkt_tmpl(c, QUIC_INITIAL, 0), true);
}

/* The datagrams a case sends, in order, into out; returns how many. */
static __u32 build_flight(const struct qcase *c, struct frame out[MAX_STEPS])
{
	struct frame pieces[MAX_PIECES];
	__u32 name = 0, cuts[MAX_PIECES + 1], i, n = 1;
	struct quic_pkt p;
	__u8 *b;

	for (i = 0; i < MAX_STEPS; i++)
		out[i].len = 0;
	if (c->shape != S_RFC && c->shape != S_VN && c->shape != S_SHORT)
		name = put_hello(&c->hello);
	payload_buf.len = 0;
	switch (c->shape) {
	case S_RFC:
		out[0].len = quic_unhex(quic_vectors[c->arg].packet, out[0].data, FRAME_MAX);
		break;
	case S_ONE:
	case S_VERSION:
	case S_CUT:
		put_piece(&out[0], c, 0, hello_buf.len, 0);
		if (c->shape == S_VERSION) {
			b = out[0].data;
			b[1] = c->arg >> 24;
			b[2] = c->arg >> 16;
			b[3] = c->arg >> 8;
			b[4] = c->arg;
		}
		if (c->shape == S_CUT)
			frame_truncate(&out[0], c->arg);
		break;
	case S_SPLIT:
		split_cuts(c, name, cuts);
		for (i = 0; i < c->npkts; i++) {
			pieces[i].len = 0;
			put_piece(&pieces[i], c, cuts[i], cuts[i + 1], i);
		}
		for (i = 0; c->steps[i].verdict && i < MAX_STEPS; i++)
			out[i] = pieces[c->order ? c->order[i] : i];
		n = i;
		break;
	case S_CHAOS:
		put_chaos(&out[0], c);
		break;
	case S_FRAMES:
		put_frames(&out[0], c);
		break;
	case S_COALESCED:
		quic_frame_crypto(&payload_buf, 0, hello_buf.data, hello_buf.len);
		put_payload(&out[0], pkt_tmpl(c, QUIC_INITIAL, 0), false);
		payload_buf.len = 0;
		quic_frame_ping(&payload_buf);
		quic_frame_padding(&payload_buf, 40);
		put_payload(&out[0], pkt_tmpl(c, c->arg, 1), false);
		break;
	case S_LONG:
		p = pkt_tmpl(c, c->arg, 0);
		if (c->arg == QUIC_RETRY) {
			p.token = (const __u8 *)"a retry token";
			p.token_len = 13;
		}
		quic_frame_crypto(&payload_buf, 0, hello_buf.data, hello_buf.len);
		put_payload(&out[0], p, true);
		break;
	case S_WRONG_KEYS:
		p = pkt_tmpl(c, QUIC_INITIAL, 0);
		p.version = BLOOMXDP_QUIC_V2;
		quic_frame_crypto(&payload_buf, 0, hello_buf.data, hello_buf.len);
		put_payload(&out[0], p, true);
		b = out[0].data;
		b[0] &= ~0x30;			/* v1's Initial */
		b[1] = b[2] = b[3] = 0;
		b[4] = 1;
		break;
	case S_VN:
		b = frame_put(&out[0], 1 + 4 + 1 + 8 + 1 + 8 + 8);
		b[0] = 0x80 | 0x4a;		/* the other 7 bits: anything */
		b[5] = 8;
		memset(b + 6, 0xd0, 8);
		b[14] = 8;
		memset(b + 15, 0x50, 8);
		b[26] = 1;			/* 0x00000001 */
		memcpy(b + 27, "\x6b\x33\x43\xcf", 4);
		break;
	case S_SHORT:
		b = frame_put(&out[0], 1 + 8 + 40);
		b[0] = 0x40 | 0x01;
		for (i = 1; i < out[0].len; i++)
			b[i] = 0xd0 + i;
		break;
	case S_PADDING:
		put_payload(&out[0], pkt_tmpl(c, QUIC_INITIAL, 0), true);
		break;
	case S_ACK:
		quic_frame_ack(&payload_buf, 0, 10, 0);
		put_payload(&out[0], pkt_tmpl(c, QUIC_INITIAL, 1), true);
		break;
	case S_RETRY: {
		/*
		 * The first part kept, then the hello whole with a Retry's token
		 * under a new DCID, whose keys it takes (the same SCID).
		 */
		struct quic_pkt p = pkt_tmpl(c, QUIC_INITIAL, 1);

		split_cuts(c, name, cuts);
		put_piece(&out[0], c, cuts[0], cuts[1], 0);
		payload_buf.len = 0;
		quic_frame_crypto(&payload_buf, 0, hello_buf.data, hello_buf.len);
		p.dcid[0] ^= 0xff;
		p.token = (const __u8 *)"a retry token";
		p.token_len = 13;
		put_payload(&out[1], p, true);
		n = 2;
		break;
	}
	case S_ANSWERED: {
		/*
		 * The hello whole in one Initial; then, the server's Initial
		 * received, the datagram of ngtcp2's client that acknowledges it:
		 * an Initial of an ACK under the server's CID (18 bytes), under
		 * the keys of the first DCID, then a Handshake packet.
		 */
		struct quic_pkt p = pkt_tmpl(c, QUIC_INITIAL, 1);

		put_piece(&out[0], c, 0, hello_buf.len, 0);
		memcpy(p.keys_dcid, p.dcid, p.dcid_len);
		p.keys_dcid_len = p.dcid_len;
		p.dcid_len = 18;
		for (i = 0; i < p.dcid_len; i++)
			p.dcid[i] = 0xa0 + i;
		payload_buf.len = 0;
		quic_frame_ack(&payload_buf, 0, 0, 0);
		put_payload(&out[1], p, false);
		p.type = QUIC_HANDSHAKE;
		p.pn = 0;
		payload_buf.len = 0;
		quic_frame_ping(&payload_buf);
		put_payload(&out[1], p, true);
		n = 2;
		break;
	}
	case S_WRAP: {
		/*
		 * arg bytes, then the hello, at stream offset 2^32 - arg: read modulo
		 * 2^32, the hello would start at offset 0 (a server takes no such frame).
		 */
		static __u8 wrap[2048];

		memset(wrap, 0xee, c->arg);
		memcpy(wrap + c->arg, hello_buf.data, hello_buf.len);
		quic_frame_crypto(&payload_buf, 0x100000000ULL - c->arg, wrap,
				  c->arg + hello_buf.len);
		put_payload(&out[0], pkt_tmpl(c, QUIC_INITIAL, 0), true);
		break;
	}
	}
	return n;
}

/* ---------------------------------------------------------------- cases */

#define PASS(...)	{ XDP_PASS, { __VA_ARGS__ } }
#define DROP(...)	{ XDP_DROP, { __VA_ARGS__ } }

#define Q_HIT		.checked_quic = 1, .hits_quic = 1, .bloom_hits = 1
#define Q_MISS		.checked_quic = 1
#define Q_BAD		.unparsed_quic = 1
#define Q_UNSEEN	.unseen_quic = 1
#define Q_SPENT		.quic_budget_spent = 1
/* A packet of a ClientHello that goes on in the next one, its name not yet seen. */
#define Q_PENDING	.unseen_quic = 1

#define SNI(s_)		.hello = { .sni = (s_) }
/* A post-quantum key share (X25519MLKEM768's) before the name, or after it when in the 1st. */
#define SPLIT_SNI(s_, n_, at_) .shape = S_SPLIT, .npkts = (n_), .at = (at_), \
			.hello = { .sni = (s_), .key_share = 1216, .share_after = (at_) == 0, \
				   .after = 12 }
#define SPLIT(n_, at_)	SPLIT_SNI("www.listed.example", n_, at_)
#define ORDER(...)	.order = (const __u8[]){ __VA_ARGS__ }
#define V2		.version = BLOOMXDP_QUIC_V2

static const struct qcase cases[] = {
	/* The RFCs' client Initials, byte for byte (their tags too): example.com. */
	{ "RFC 9001 A.2 (v1), example.com listed", RFC, S_RFC, .arg = 0, .steps = { DROP(Q_HIT) } },
	{ "RFC 9369 A.2 (v2), example.com listed", RFC, S_RFC, .arg = 1, .steps = { DROP(Q_HIT) } },
	{ "RFC 9001 A.2 (v1), unlisted", NAMES, S_RFC, .arg = 0, .steps = { PASS(Q_MISS) } },
	{ "RFC 9369 A.2 (v2), unlisted", NAMES, S_RFC, .arg = 1, .steps = { PASS(Q_MISS) } },

	/* Names: which a listed one blocks. */
	{ "a listed name of 3 labels", NAMES, S_ONE, SNI("three.label.example"),
	  .steps = { DROP(Q_HIT) } },
	{ "a listed name", NAMES, S_ONE, SNI("listed.example"), .steps = { DROP(Q_HIT) } },
	{ "a name under a listed one", NAMES, S_ONE, SNI("www.listed.example"),
	  .steps = { DROP(Q_HIT) } },
	{ "a name under a listed one, v2", NAMES, S_ONE, SNI("a.b.c.listed.example"), V2,
	  .steps = { DROP(Q_HIT) } },
	{ "a listed name in mixed case", NAMES, S_ONE, SNI("WwW.LiStEd.ExAmPlE"),
	  .steps = { DROP(Q_HIT) } },
	{ "a listed name of 253 characters", NAMES, S_ONE, SNI(LONGEST),
	  .steps = { DROP(Q_HIT) } },
	{ "an unlisted name", NAMES, S_ONE, SNI("fine.example"), .steps = { PASS(Q_MISS) } },
	{ "an unlisted name, v2", NAMES, S_ONE, SNI("fine.example"), V2,
	  .steps = { PASS(Q_MISS) } },
	{ "notlisted.example", NAMES, S_ONE, SNI("notlisted.example"), .steps = { PASS(Q_MISS) } },
	{ "label.example, the parent of a listed name", NAMES, S_ONE, SNI("label.example"),
	  .steps = { PASS(Q_MISS) } },
	{ "a listed name after GREASE and a 1,216-byte key share, in one packet", NAMES, S_ONE,
	  .hello = { .sni = "www.listed.example", .key_share = 1216, .grease = true },
	  .steps = { DROP(Q_HIT) } },
	{ "an allowlisted name under a listed one", VERIFY, S_ONE, SNI("good.listed.example"),
	  .steps = { PASS(Q_MISS, .bloom_hits = 1, .confirmed = 1, .allowed = 1) } },
	{ "a name under a listed one, with an allowlist", VERIFY, S_ONE,
	  SNI("www.listed.example"), .steps = { DROP(Q_HIT, .confirmed = 1) } },
	{ "monitor: a listed name", MONITOR, S_ONE, SNI("www.listed.example"),
	  .steps = { PASS(Q_HIT, .would_drop = 1) } },
	{ "monitor: an unlisted name", MONITOR, S_ONE, SNI("fine.example"),
	  .steps = { PASS(Q_MISS) } },

	/* What is not read. */
	{ "no server_name", NAMES, S_ONE, .hello = { 0 }, .steps = { PASS(Q_BAD) } },
	{ "a ServerHello, not a ClientHello", NAMES, S_ONE,
	  .hello = { .sni = "www.listed.example", .hs_type = 2 }, .steps = { PASS(Q_BAD) } },
	{ "cut in the header (in the DCID)", NAMES, S_CUT, SNI("www.listed.example"), .arg = 10,
	  .steps = { PASS(Q_BAD) } },
	{ "cut in the header (in the Length)", NAMES, S_CUT, SNI("www.listed.example"),
	  .arg = 25, .steps = { PASS(Q_BAD) } },
	{ "cut in the sample", NAMES, S_CUT, SNI("www.listed.example"), .arg = 26 + 4 + 9,
	  .steps = { PASS(Q_BAD) } },
	{ "cut in the payload", NAMES, S_CUT, SNI("www.listed.example"), .arg = 600,
	  .steps = { PASS(Q_BAD) } },
	{ "cut in the tag", NAMES, S_CUT, SNI("www.listed.example"), .arg = 1190,
	  .steps = { PASS(Q_BAD) } },
	{ "PADDING only", NAMES, S_PADDING, .steps = { PASS(Q_UNSEEN) } },
	{ "an ACK and PADDING", NAMES, S_ACK, .steps = { PASS(Q_UNSEEN) } },
	{ "draft-29 (0xff00001d)", NAMES, S_VERSION, SNI("www.listed.example"),
	  .arg = 0xff00001d, .steps = { PASS(Q_BAD) } },
	/* Reserved to exercise version negotiation (RFC 9000 15): no connection goes on with it. */
	{ "a reserved version (0x1a2a3a4a)", NAMES, S_VERSION, SNI("www.listed.example"),
	  .arg = 0x1a2a3a4a, .steps = { PASS(Q_UNSEEN) } },
	{ "Google QUIC Q050", NAMES, S_VERSION, SNI("www.listed.example"), .arg = 0x51303530,
	  .steps = { PASS(Q_BAD) } },
	{ "a v1 Initial under v2's version: v2's Retry", NAMES, S_VERSION,
	  SNI("www.listed.example"), .arg = BLOOMXDP_QUIC_V2, .steps = { PASS(Q_UNSEEN) } },
	{ "a v2 Initial relabelled v1: the wrong keys", NAMES, S_WRONG_KEYS,
	  SNI("www.listed.example"), .steps = { PASS(Q_BAD) } },
	{ "version negotiation", NAMES, S_VN, .steps = { PASS(Q_UNSEEN) } },
	{ "a short header (1-RTT)", NAMES, S_SHORT, .steps = { PASS(Q_UNSEEN) } },
	{ "0-RTT holding a listed ClientHello", NAMES, S_LONG, SNI("www.listed.example"),
	  .arg = QUIC_0RTT, .steps = { PASS(Q_UNSEEN) } },
	{ "Handshake holding a listed ClientHello", NAMES, S_LONG, SNI("www.listed.example"),
	  .arg = QUIC_HANDSHAKE, .steps = { PASS(Q_UNSEEN) } },
	{ "Retry", NAMES, S_LONG, SNI("www.listed.example"), .arg = QUIC_RETRY,
	  .steps = { PASS(Q_UNSEEN) } },
	{ "0-RTT, v2", NAMES, S_LONG, SNI("www.listed.example"), V2, .arg = QUIC_0RTT,
	  .steps = { PASS(Q_UNSEEN) } },
	{ "Handshake, v2", NAMES, S_LONG, SNI("www.listed.example"), V2, .arg = QUIC_HANDSHAKE,
	  .steps = { PASS(Q_UNSEEN) } },
	{ "Retry, v2", NAMES, S_LONG, SNI("www.listed.example"), V2, .arg = QUIC_RETRY,
	  .steps = { PASS(Q_UNSEEN) } },

	/* Datagrams and frames. */
	{ "an Initial then 0-RTT in one datagram", NAMES, S_COALESCED, SNI("www.listed.example"),
	  .arg = QUIC_0RTT, .steps = { DROP(Q_HIT) } },
	{ "an Initial then Handshake in one datagram, v2", NAMES, S_COALESCED,
	  SNI("www.listed.example"), V2, .arg = QUIC_HANDSHAKE, .steps = { DROP(Q_HIT) } },
	{ "CRYPTO frames out of order, PING and PADDING between", NAMES, S_CHAOS,
	  SNI("www.listed.example"), .steps = { DROP(Q_HIT) } },
	{ "CRYPTO frames out of order, unlisted", NAMES, S_CHAOS, SNI("fine.example"),
	  .steps = { PASS(Q_MISS) } },
	{ "CRYPTO frames out of order, GREASE and a key share, v2", NAMES, S_CHAOS,
	  .hello = { .sni = "www.listed.example", .key_share = 1216, .grease = true }, V2,
	  .steps = { DROP(Q_HIT) } },
	{ "16 CRYPTO frames: the frame table's size", NAMES, S_FRAMES, SNI("www.listed.example"),
	  .arg = 16, .steps = { DROP(Q_HIT) } },
	{ "40 CRYPTO frames: past the frame table", NAMES, S_FRAMES, SNI("www.listed.example"),
	  .arg = 40, .steps = { PASS(Q_BAD) } },
	{ "after a Retry: the hello again, a token and a new DCID", NAMES, S_RETRY,
	  .npkts = 2, .at = 1, .hello = { .sni = "www.listed.example", .key_share = 1216 },
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },
	/*
	 * The client's ACK of the server's Initial, under the server's CID: read
	 * with the keys kept from the hello's packet (else its keys, derived
	 * from the server's CID, are wrong: unparsed, and with --quic-unparsed
	 * drop the client's Handshake packet beside it dropped).
	 */
	{ "the hello whole, then an ACK under the server's CID", NAMES, S_ANSWERED,
	  SNI("fine.example"), .steps = { PASS(Q_MISS), PASS(Q_MISS) } },
	{ "the hello whole, then an ACK under the server's CID, v2", NAMES, S_ANSWERED,
	  SNI("fine.example"), V2, .steps = { PASS(Q_MISS), PASS(Q_MISS) } },
	{ "a CRYPTO frame whose end wraps past 4 GiB to offset 0", NAMES, S_WRAP,
	  SNI("www.listed.example"), .arg = 16, .steps = { PASS(Q_BAD) } },

	/* A ClientHello over several packets, in order. */
	{ "2 packets, the name in the 1st", NAMES, SPLIT(2, 0),
	  .steps = { DROP(Q_HIT), DROP(Q_HIT) } },
	{ "2 packets, the name in the 2nd", NAMES, SPLIT(2, 1),
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },
	/* A field cut by the end of a packet: read on in the next. */
	{ "2 packets, the name split between them", NAMES, SPLIT(2, 0), .cut = 5,
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "2 packets, the name's length split between them", NAMES, SPLIT(2, 0), .cut = -1,
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "2 packets, server_name's header split between them", NAMES, SPLIT(2, 0), .cut = -7,
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "2 packets, cut right before server_name", NAMES, SPLIT(2, 0), .cut = -9,
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "2 packets, the next extension's header split, unlisted", NAMES,
	  SPLIT_SNI("fine.example", 2, 0), .cut = 14,
	  .steps = { PASS(Q_MISS), PASS(Q_MISS) } },
	{ "3 packets, the name in the 1st", NAMES, SPLIT(3, 0),
	  .steps = { DROP(Q_HIT), DROP(Q_HIT), DROP(Q_HIT) } },
	{ "3 packets, the name in the 2nd", NAMES, SPLIT(3, 1),
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT), DROP(Q_HIT) } },
	{ "3 packets, the name in the 3rd", NAMES, SPLIT(3, 2),
	  .steps = { PASS(Q_PENDING), PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "3 packets, the name in the 3rd, v2", NAMES, SPLIT(3, 2), V2,
	  .steps = { PASS(Q_PENDING), PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "2 packets, unlisted, the name in the 2nd", NAMES, SPLIT_SNI("fine.example", 2, 1),
	  .steps = { PASS(Q_PENDING), PASS(Q_MISS) } },
	{ "3 packets, unlisted, the name in the 1st", NAMES, SPLIT_SNI("fine.example", 3, 0),
	  .steps = { PASS(Q_MISS), PASS(Q_MISS), PASS(Q_MISS) } },
	{ "3 packets, no server_name", NAMES, .shape = S_SPLIT, .npkts = 3, .at = 1,
	  .hello = { .sni = NULL, .key_share = 1216 }, .steps = { PASS(Q_PENDING),
	  PASS(Q_PENDING), PASS(Q_BAD) } },

	/*
	 * ... out of order, and again: a later part seen first is stashed (up to
	 * QUIC_STASH bytes without a gap) for the walk to read when it gets there.
	 */
	{ "2 packets, the 2nd first", NAMES, SPLIT(2, 1), ORDER(1),
	  .steps = { PASS(Q_PENDING) } },
	{ "2 packets, the 2nd, the 1st, the 2nd again", NAMES, SPLIT(2, 1), ORDER(1, 0, 1),
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT), DROP(Q_HIT) } },
	{ "quic-unparsed drop: 2 packets, the 2nd first", UNPARSED_DROP, SPLIT(2, 1), ORDER(1),
	  .steps = { PASS(Q_PENDING) } },
	{ "2 packets, the 2nd first, past what the stash holds", NAMES, SPLIT(2, 0), ORDER(1, 0),
	  .steps = { PASS(Q_BAD), DROP(Q_HIT) } },
	{ "quic-unparsed drop: the 2nd first, past the stash", UNPARSED_DROP, SPLIT(2, 0),
	  ORDER(1, 0), .steps = { DROP(Q_BAD), DROP(Q_HIT) } },
	{ "2 packets, the 1st sent again before the 2nd", NAMES, SPLIT(2, 1), ORDER(0, 0, 1),
	  .steps = { PASS(Q_PENDING), PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "2 packets, the 1st sent again after the name", NAMES, SPLIT(2, 1), ORDER(0, 1, 0),
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT), DROP(Q_HIT) } },
	{ "3 packets, the 1st and 2nd sent again", NAMES, SPLIT(3, 2), ORDER(0, 1, 0, 2),
	  .steps = { PASS(Q_PENDING), PASS(Q_PENDING), PASS(Q_PENDING), DROP(Q_HIT) } },
	{ "3 packets, the 3rd before the 2nd", NAMES, SPLIT(3, 2), ORDER(0, 2, 1, 2),
	  .steps = { PASS(Q_PENDING), PASS(Q_PENDING), DROP(Q_HIT), DROP(Q_HIT) } },

	/* Encrypted Client Hello. */
	{ "ECH, unlisted", NAMES, S_ONE, .hello = { .sni = "public.example", .ech = true },
	  .steps = { PASS(Q_MISS, .ech_seen = 1) } },
	{ "ECH, listed", NAMES, S_ONE, .hello = { .sni = "www.listed.example", .ech = true },
	  .steps = { DROP(Q_HIT, .ech_seen = 1) } },
	{ "ech drop: ECH, unlisted", ECH_DROP, S_ONE,
	  .hello = { .sni = "public.example", .ech = true },
	  .steps = { DROP(Q_MISS, .ech_seen = 1) } },
	{ "ech drop: ECH, listed", ECH_DROP, S_ONE,
	  .hello = { .sni = "www.listed.example", .ech = true },
	  .steps = { DROP(Q_HIT, .ech_seen = 1) } },
	{ "ech drop: no ECH, unlisted", ECH_DROP, S_ONE, SNI("fine.example"),
	  .steps = { PASS(Q_MISS) } },
	{ "ech drop: ECH in a hello over 2 packets, the name in the 1st", ECH_DROP,
	  .shape = S_SPLIT, .npkts = 2, .at = 0,
	  .hello = { .sni = "public.example", .ech = true, .key_share = 1216,
		     .share_after = true },
	  .steps = { PASS(Q_MISS), DROP(Q_MISS, .ech_seen = 1) } },

	/* --quic-unparsed drop. */
	{ "quic-unparsed drop: no server_name", UNPARSED_DROP, S_ONE, .hello = { 0 },
	  .steps = { DROP(Q_BAD) } },
	{ "quic-unparsed drop: a ServerHello", UNPARSED_DROP, S_ONE,
	  .hello = { .sni = "fine.example", .hs_type = 2 }, .steps = { DROP(Q_BAD) } },
	{ "quic-unparsed drop: cut in the payload", UNPARSED_DROP, S_CUT, SNI("fine.example"),
	  .arg = 600, .steps = { DROP(Q_BAD) } },
	{ "quic-unparsed drop: draft-29", UNPARSED_DROP, S_VERSION, SNI("fine.example"),
	  .arg = 0xff00001d, .steps = { DROP(Q_BAD) } },
	{ "quic-unparsed drop: PADDING only", UNPARSED_DROP, S_PADDING,
	  .steps = { PASS(Q_UNSEEN) } },
	{ "quic-unparsed drop: a short header", UNPARSED_DROP, S_SHORT,
	  .steps = { PASS(Q_UNSEEN) } },
	{ "quic-unparsed drop: unlisted", UNPARSED_DROP, S_ONE, SNI("fine.example"),
	  .steps = { PASS(Q_MISS) } },
	{ "quic-unparsed drop: the hello whole, then an ACK under the server's CID",
	  UNPARSED_DROP, S_ANSWERED, SNI("fine.example"),
	  .steps = { PASS(Q_MISS), PASS(Q_MISS) } },
	{ "quic-unparsed drop: 2 packets, the name in the 2nd", UNPARSED_DROP, SPLIT(2, 1),
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },

	/* --quic-budget 0: nothing decrypted. */
	{ "quic-budget 0: a listed name", NO_BUDGET, S_ONE, SNI("www.listed.example"),
	  .steps = { PASS(Q_SPENT) } },
	{ "quic-budget 0: 2 packets", NO_BUDGET, SPLIT(2, 0),
	  .steps = { PASS(Q_SPENT), PASS(Q_SPENT) } },
	{ "quic-budget 0: a short header", NO_BUDGET, S_SHORT, .steps = { PASS(Q_UNSEEN) } },
	{ "quic-budget 0: draft-29", NO_BUDGET, S_VERSION, SNI("fine.example"),
	  .arg = 0xff00001d, .steps = { PASS(Q_BAD) } },
	{ "quic-budget 0, quic-unparsed drop: an Initial", NO_BUDGET_DROP, S_ONE,
	  SNI("fine.example"), .steps = { DROP(Q_SPENT) } },

	/* The tc build. */
	{ "tc: a listed name", TC, S_ONE, SNI("three.label.example"), .steps = { DROP(Q_HIT) } },
	{ "tc: RFC 9001 A.2, unlisted", TC, S_RFC, .arg = 0, .steps = { PASS(Q_MISS) } },
	{ "tc: 3 packets, the name in the 2nd", TC, SPLIT(3, 1),
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT), DROP(Q_HIT) } },
	{ "tc: a short header", TC, S_SHORT, .steps = { PASS(Q_UNSEEN) } },
	{ "tc egress: a listed name", TC_EGRESS, S_ONE, SNI("www.listed.example"),
	  .steps = { DROP(Q_HIT) } },
	{ "tc egress: 2 packets, the name in the 2nd, v2", TC_EGRESS, SPLIT(2, 1), V2,
	  .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },

	/* Ports, and frames of several buffers. */
	{ "quic-ports: a listed name to 4433", PORTS, S_ONE, SNI("www.listed.example"),
	  .dport = 4433, .steps = { DROP(Q_HIT) } },
	{ "quic-ports: a listed name to 443, not a QUIC port", PORTS, S_ONE,
	  SNI("www.listed.example"), .steps = { PASS(0) } },
	{ "quic-ports: a short header to 8443", PORTS, S_SHORT, .dport = 8443,
	  .steps = { PASS(Q_UNSEEN) } },
	{ "an Initial past a first buffer of 100 bytes", NAMES, S_ONE, SNI("www.listed.example"),
	  .linear = 100, .steps = { DROP(Q_HIT) } },
	{ "2 packets past a first buffer of 100 bytes, the name in the 2nd", NAMES, SPLIT(2, 1),
	  .linear = 100, .steps = { PASS(Q_PENDING), DROP(Q_HIT) } },
};

#define N_CASES ARRAY_SIZE(cases)

/* ------------------------------------------------------------------ runs */

struct run {
	const struct qcase *c;
	int fam;
	char name[200];
};

static void pkt_in_fam(struct pkt *p, int fam)
{
	p->v6 = fam == FAM_V6 || fam == FAM_V6_VLAN;
	p->vlan = fam == FAM_V4_VLAN || fam == FAM_V6_VLAN;
}

/* Every connection quic_conns follows, forgotten. */
static void conns_clear(struct xdp_harness *h)
{
	int fd = bpf_map__fd(h->lp.skel->maps.quic_conns);
	__u8 key[128];

	assert_true(bpf_map__key_size(h->lp.skel->maps.quic_conns) <= sizeof(key));
	while (!bpf_map_get_next_key(fd, NULL, key))
		assert_int_equal(bpf_map_delete_elem(fd, key), 0);
}

static long long counter_get(const struct bloomxdp_counters *c, size_t i)
{
	return ((const __u64 *)c)[i];
}

/* Every counter against want; returns the mismatches, each reported. */
static int check_counters(const char *name, __u32 step, const struct bloomxdp_counters *got,
			  const struct bloomxdp_counters *want)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < HARNESS_NCOUNTERS; i++) {
		if (counter_get(got, i) == counter_get(want, i))
			continue;
		print_error("%s, datagram %u: counter %s moved by %lld, expected %lld\n", name,
			    step + 1, harness_counter_names[i], counter_get(got, i),
			    counter_get(want, i));
		bad++;
	}
	return bad;
}

static __u32 want_verdict(const struct xdp_harness *h, __u32 xdp)
{
	if (h->config.hook != BLOOMXDP_HOOK_TC)
		return xdp;
	return xdp == XDP_DROP ? TC_DROP : TC_PASS;
}

static const char *verdict_text(const struct xdp_harness *h, __u32 v)
{
	if (h->config.hook != BLOOMXDP_HOOK_TC)
		return verdict_name(v);
	return v == TC_DROP ? "TC_ACT_SHOT" : v == TC_PASS ? "TC_ACT_UNSPEC" : "unknown";
}

/* Datagram d of a case as a frame of p's encapsulation, run; the mismatches, each reported. */
static int run_step(const char *name, struct xdp_harness *h, struct pkt *p, const struct frame *d,
		    __u32 step, const struct step *s)
{
	struct bloomxdp_counters want = s->delta, got;
	__u32 verdict = ~0U, wv = want_verdict(h, s->verdict);
	struct built b;
	int bad = 0, ret;

	p->raw = (const char *)d->data;
	p->raw_len = d->len;
	if (pkt_build(p, &b))
		fail_msg("%s: cannot build the frame", name);
	ret = harness_run_frame_split(h, &b.f, p->linear, NULL, &verdict, &got);
	if (ret == -EINVAL && p->linear) {
		print_message("# %s: this kernel takes no first buffer of %u bytes\n", name,
			      p->linear);
		skip();
	}
	if (ret)
		fail_msg("%s: BPF_PROG_TEST_RUN failed: %s", name, strerror(-ret));
	want.packets = 1;
	want.bytes = b.f.len;
	want.checked_v4 += !p->v6;
	want.checked_v6 += p->v6;
	want.passed += s->verdict == XDP_PASS;
	want.dropped += s->verdict == XDP_DROP;
	if (verdict != wv) {
		print_error("%s, datagram %u: verdict %s, expected %s\n", name, step + 1,
			    verdict_text(h, verdict), verdict_text(h, wv));
		bad++;
	}
	return bad + check_counters(name, step, &got, &want);
}

static void test_case(void **state)
{
	static struct frame dgrams[MAX_STEPS];
	const struct run *r = *state;
	const struct qcase *c = r->c;
	struct xdp_harness *h = &progs[c->cfg].h;
	struct pkt p = { .app = APP_RAW, .l4 = IPPROTO_UDP, .dport = BLOOMXDP_QUIC_PORT };
	__u32 n, i;
	int bad = 0;

	pkt_in_fam(&p, r->fam);
	p.dport = c->dport ? c->dport : BLOOMXDP_QUIC_PORT;
	p.linear = c->linear;
	n = build_flight(c, dgrams);
	conns_clear(h);
	for (i = 0; i < n; i++) {
		assert_true(c->steps[i].verdict);
		bad += run_step(r->name, h, &p, &dgrams[i], i, &c->steps[i]);
	}
	assert_true(i == MAX_STEPS || !c->steps[i].verdict);
	if (bad)
		fail_msg("%s: %d mismatch(es), see above", r->name, bad);
}

/* ---------------------------------------------------------------- budget */

/* A harness of its own: quic_per_sec, the list loaded. */
static void open_own(struct xdp_harness *h, __u32 per_sec)
{
	struct harness_config hc = { LIST, .match = BLOOMXDP_MATCH_SNI, .quic_per_sec = per_sec };
	const char *why;
	size_t i;

	assert_int_equal(harness_open(h, &hc), 0);
	for (i = 0; i < ARRAY_SIZE(list); i++)
		assert_int_equal(harness_insert_entry(h, list[i], &why), 0);
}

/* One Initial over IPv4 naming sni (NULL: no server_name), as a frame. */
static void listed_initial(struct built *b, const char *sni)
{
	static struct frame d[MAX_STEPS];
	const struct qcase c = { .shape = S_ONE, .hello = { .sni = sni } };
	struct pkt p = { .app = APP_RAW, .l4 = IPPROTO_UDP, .dport = BLOOMXDP_QUIC_PORT };

	assert_int_equal(build_flight(&c, d), 1);
	p.raw = (const char *)d[0].data;
	p.raw_len = d[0].len;
	assert_int_equal(pkt_build(&p, b), 0);
}

/* The decryptions budget of every CPU back to "none spent in any second". */
static void budgets_reset(struct xdp_harness *h)
{
	int fd = bpf_map__fd(h->lp.skel->maps.quic_budgets), ncpus = libbpf_num_possible_cpus();
	__u32 zero = 0;
	void *values;

	assert_true(ncpus > 0);
	values = calloc(ncpus, bpf_map__value_size(h->lp.skel->maps.quic_budgets));
	assert_non_null(values);
	assert_int_equal(bpf_map_update_elem(fd, &zero, values, BPF_ANY), 0);
	free(values);
}

static __u64 coarse_second(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec;
}

#define BUDGET_TRIES	5

/* f repeat times in one BPF_PROG_TEST_RUN: *ns per run. */
static int run_repeat_ns(struct xdp_harness *h, const struct frame *f, __u32 repeat,
			 __u32 *verdict, __u32 *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_size_in = f->len, .repeat = repeat);
	static __u8 buf[FRAME_MAX];

	memcpy(buf, f->data, f->len);
	opts.data_in = buf;
	if (bpf_prog_test_run_opts(h->prog_fd, &opts))
		return -errno;
	*verdict = opts.retval;
	if (ns)
		*ns = opts.duration;
	return 0;
}

static int run_repeat(struct xdp_harness *h, const struct frame *f, __u32 repeat,
		      __u32 *verdict)
{
	return run_repeat_ns(h, f, repeat, verdict, NULL);
}

/*
 * --quic-budget 2: of three Initials in one second, the third is not
 * decrypted (quic_budget_spent, passed though listed); the next second the
 * budget is whole again. Runs that straddle a second are tried again. Each
 * Initial is a connection's first (quic_conns emptied before it): one sent
 * again gets the verdict its connection's walk keeps, without crypto.
 */
static void test_budget_of_two(void **state)
{
	struct bloomxdp_counters d[3] = { 0 }, next = { 0 };
	struct xdp_harness h;
	__u32 v[3], vn, i, tries;
	struct built b;
	__u64 sec;

	(void)state;
	open_own(&h, 2);
	listed_initial(&b, "www.listed.example");
	for (tries = 0; tries < BUDGET_TRIES; tries++) {
		budgets_reset(&h);
		vh_wait_second_start(100000000ULL);
		sec = coarse_second();
		for (i = 0; i < 3; i++) {
			conns_clear(&h);
			assert_int_equal(harness_run_frame(&h, &b.f, NULL, &v[i], &d[i]), 0);
		}
		if (coarse_second() == sec)
			break;
	}
	assert_true(tries < BUDGET_TRIES);
	for (i = 0; i < 2; i++) {
		assert_int_equal(v[i], XDP_DROP);
		assert_int_equal(d[i].checked_quic, 1);
		assert_int_equal(d[i].hits_quic, 1);
		assert_int_equal(d[i].quic_budget_spent, 0);
	}
	assert_int_equal(v[2], XDP_PASS);
	assert_int_equal(d[2].quic_budget_spent, 1);
	assert_int_equal(d[2].checked_quic + d[2].hits_quic + d[2].unparsed_quic +
			 d[2].unseen_quic, 0);
	/* The next second: decrypted again. */
	while (coarse_second() == sec)
		usleep(10000);
	vh_wait_second_start(100000000ULL);
	conns_clear(&h);
	assert_int_equal(harness_run_frame(&h, &b.f, NULL, &vn, &next), 0);
	assert_int_equal(vn, XDP_DROP);
	assert_int_equal(next.hits_quic, 1);
	harness_close(&h);
}

#define FLOOD		1000
#define FLOOD_BUDGET	100

/*
 * A flood of FLOOD Initials in one run (repeat): FLOOD_BUDGET decrypted, the
 * rest spent. Initials without server_name (unparsed_quic): a walk that found
 * a name is kept, and the same Initial again would cost no crypto.
 */
static void test_budget_flood(void **state)
{
	struct bloomxdp_counters before, after;
	struct xdp_harness h;
	__u32 verdict, tries;
	struct built b;
	__u64 sec;

	(void)state;
	open_own(&h, FLOOD_BUDGET);
	listed_initial(&b, NULL);
	for (tries = 0; tries < BUDGET_TRIES; tries++) {
		budgets_reset(&h);
		vh_wait_second_start(500000000ULL);
		assert_int_equal(harness_counters(&h, &before), 0);
		sec = coarse_second();
		assert_int_equal(run_repeat(&h, &b.f, FLOOD, &verdict), 0);
		if (coarse_second() == sec)
			break;
	}
	assert_true(tries < BUDGET_TRIES);
	assert_int_equal(harness_counters(&h, &after), 0);
	assert_int_equal(verdict, XDP_PASS);
	assert_int_equal(after.unparsed_quic - before.unparsed_quic, FLOOD_BUDGET);
	assert_int_equal(after.quic_budget_spent - before.quic_budget_spent,
			 FLOOD - FLOOD_BUDGET);
	print_message("# quic: a flood of %u Initials in one second, --quic-budget %u: %llu "
		      "decrypted, %llu spent\n", FLOOD, FLOOD_BUDGET,
		      (unsigned long long)(after.unparsed_quic - before.unparsed_quic),
		      (unsigned long long)(after.quic_budget_spent - before.quic_budget_spent));
	harness_close(&h);
}

/* ---------------------------------------------------------------- timing */

#define TIMING_REPEAT	2000
#define TIMING_RUNS	3
#define SINGLE_RUNS	101

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* The best of TIMING_RUNS runs of TIMING_REPEAT repetitions of f: ns per packet. */
static __u32 time_frame(struct xdp_harness *h, const struct frame *f, __u32 want)
{
	__u32 best = ~0U, ns, verdict, i;

	for (i = 0; i < TIMING_RUNS; i++) {
		assert_int_equal(run_repeat_ns(h, f, TIMING_REPEAT, &verdict, &ns), 0);
		assert_int_equal(verdict, want);
		if (ns < best)
			best = ns;
	}
	return best;
}

/*
 * The median of SINGLE_RUNS single runs of f, each on a connection quic_conns
 * does not know yet (emptied before it), after first (passed) when not NULL:
 * ns. The next run of the same packet would find its walk kept.
 */
static __u32 time_single(struct xdp_harness *h, const struct frame *first, const struct frame *f,
			 __u32 want)
{
	__u32 ns[SINGLE_RUNS], verdict, i;

	for (i = 0; i < SINGLE_RUNS; i++) {
		conns_clear(h);
		if (first) {
			assert_int_equal(run_repeat_ns(h, first, 1, &verdict, NULL), 0);
			assert_int_equal(verdict, XDP_PASS);
		}
		assert_int_equal(run_repeat_ns(h, f, 1, &verdict, &ns[i]), 0);
		assert_int_equal(verdict, want);
	}
	qsort(ns, SINGLE_RUNS, sizeof(ns[0]), cmp_u32);
	return ns[SINGLE_RUNS / 2];
}

/*
 * prog_run's time per packet of an RFC-like Initial (1,200 bytes, the
 * ClientHello of a QUIC client) with a 3-label name, a connection's first:
 * its keys derived, the blocks up to the name and on to the extensions' end
 * decrypted, the name looked up, the walk kept (checked: the client's next
 * Initials come under the server's CID). Then the 2nd packet of a hello over
 * two (its keys kept), the same sent again (no crypto), a short header, and
 * a plain UDP datagram to another port. Printed, not asserted (the issue's
 * budget: 20 us); the counters are.
 */
static void test_timing(void **state)
{
	static struct frame d[MAX_STEPS];
	const struct qcase two = { SPLIT(2, 1), .steps = { PASS(0), PASS(0) } };
	const struct qcase shrt = { .shape = S_SHORT };
	struct pkt p = { .app = APP_RAW, .l4 = IPPROTO_UDP, .dport = BLOOMXDP_QUIC_PORT };
	__u32 ns_initial, ns_listed, ns_resumed, ns_known, ns_short, ns_udp;
	struct bloomxdp_counters before, after;
	struct built b, first;
	struct xdp_harness h;
	__u8 key[128];

	(void)state;
	open_own(&h, 100000000);
	listed_initial(&b, "www.fine.example");
	assert_int_equal(harness_counters(&h, &before), 0);
	ns_initial = time_single(&h, NULL, &b.f, XDP_PASS);
	assert_int_equal(harness_counters(&h, &after), 0);
	assert_int_equal(after.checked_quic - before.checked_quic, SINGLE_RUNS);
	assert_int_equal(after.quic_budget_spent, before.quic_budget_spent);
	assert_int_equal(bpf_map_get_next_key(bpf_map__fd(h.lp.skel->maps.quic_conns), NULL, key),
			 0);
	listed_initial(&b, "three.label.example");
	ns_listed = time_single(&h, NULL, &b.f, XDP_DROP);

	/*
	 * The 2nd packet of a hello over two, after the 1st: the walk resumed,
	 * no keys derived; then sent again: no crypto at all.
	 */
	assert_int_equal(build_flight(&two, d), 2);
	p.raw = (const char *)d[0].data;
	p.raw_len = d[0].len;
	assert_int_equal(pkt_build(&p, &first), 0);
	p.raw = (const char *)d[1].data;
	p.raw_len = d[1].len;
	assert_int_equal(pkt_build(&p, &b), 0);
	ns_resumed = time_single(&h, &first.f, &b.f, XDP_DROP);
	ns_known = time_frame(&h, &b.f, XDP_DROP);

	assert_int_equal(build_flight(&shrt, d), 1);
	p.raw = (const char *)d[0].data;
	p.raw_len = d[0].len;
	assert_int_equal(pkt_build(&p, &b), 0);
	ns_short = time_frame(&h, &b.f, XDP_PASS);
	p.dport = 9;
	assert_int_equal(pkt_build(&p, &b), 0);
	ns_udp = time_frame(&h, &b.f, XDP_PASS);

	print_message("# quic: prog_run per packet: an Initial of 1,200 bytes, a connection's "
		      "first, keys derived, a 3-label name unlisted %u ns, listed %u ns (the "
		      "issue's budget: 20,000 ns); the 2nd packet of a hello, keys kept, %u ns "
		      "(medians of %u single runs); sent again, the name known, %u ns; a short "
		      "header %u ns; UDP to port 9 %u ns (best of %u x %u)\n", ns_initial,
		      ns_listed, ns_resumed, SINGLE_RUNS, ns_known, ns_short, ns_udp, TIMING_RUNS,
		      TIMING_REPEAT);
	harness_close(&h);
}

/* ----------------------------------------------------------------- main */

static int load_lists(enum cfg_id i)
{
	char err[LIST_ERROR_LEN];
	const char *const *l = i == RFC ? rfc_list : list;
	size_t n = i == RFC ? ARRAY_SIZE(rfc_list) : ARRAY_SIZE(list), j;
	const char *why;

	if (i == VERIFY)
		return vh_load_blocklist(&progs[i], 0, l, n, LIST_DEFAULT_PREFIX_PROBES, NULL,
					 err) ||
		       vh_load_allowlist(&progs[i], 0, allowlist, ARRAY_SIZE(allowlist), err);
	for (j = 0; j < n; j++)
		if (harness_insert_entry(&progs[i].h, l[j], &why))
			return -1;
	return 0;
}

static int setup(void **state)
{
	const struct harness_config *hc;
	cpu_set_t one;
	int cpu = sched_getcpu(), ret;
	size_t i;

	(void)state;
	/* BPF_PROG_TEST_RUN runs on the calling CPU: one CPU, one budget. */
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1;
	for (i = 0; i < N_CFGS; i++) {
		hc = &cfg_defs[i];
		if (i == VERIFY)
			ret = vh_open(&progs[i], &(struct vh_config){
				.match = hc->match, .verify = 1, .capacity = hc->capacity,
				.fpr = hc->fpr });
		else
			ret = harness_open(&progs[i].h, hc);
		if (!ret)
			ret = load_lists(i);
		if (ret) {
			print_error("cannot load bloomxdp for %s: %s\n", cfg_names[i],
				    strerror(ret < 0 ? -ret : EINVAL));
			return -1;
		}
	}
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_CFGS; i++) {
		if (i == VERIFY)
			vh_close(&progs[i]);
		else
			harness_close(&progs[i].h);
	}
	return 0;
}

int main(void)
{
	static struct run runs[N_CASES * N_FAMS];
	static struct CMUnitTest tests[ARRAY_SIZE(runs) + 3];
	size_t i, n = 0;
	int fam;

	for (i = 0; i < N_CASES; i++) {
		for (fam = 1; fam <= FAM_V6_VLAN; fam <<= 1) {
			if (!((cases[i].fams ? cases[i].fams : FAM_ALL) & fam))
				continue;
			runs[n] = (struct run){ .c = &cases[i], .fam = fam };
			snprintf(runs[n].name, sizeof(runs[n].name), "quic: %s [%s, %s]",
				 cases[i].name, fam_name(fam), cfg_names[cases[i].cfg]);
			tests[n] = (struct CMUnitTest){ .name = runs[n].name,
							.test_func = test_case,
							.initial_state = &runs[n] };
			n++;
		}
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_budget_of_two);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_budget_flood);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_timing);
	return _cmocka_run_group_tests("quic_xdp", tests, n, setup, teardown);
}
