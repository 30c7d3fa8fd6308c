// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bloomxdp: drop (or count) packets whose IPv4/IPv6 address, DNS query name,
 * HTTP host or URL, or TLS SNI is in a Bloom filter. Fails open: whatever
 * cannot be parsed passes and is counted.
 */
#include <linux/tcp.h>
#include <linux/udp.h>
#include "parsing.h"
#include "loop.h"
#include "maps.h"
#include "filter.h"
#include "query.h"
#include "addr.h"
#include "match_lists.h"
#include "match_names.h"
#include "dns.h"
#include "dns_answers.h"
#include "http.h"
#include "tls.h"
#include "quic.h"
#include "events.h"
#if HOOK_CAN_TX
#include "reject.h"	/* answers sent back with XDP_TX: none from tc */
#include "run_config.h"	/* libxdp's XDP_RUN_CONFIG: an XDP program's */
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * A header the parsers could not take (enum parse_error). One the first
 * buffer ends in, of a frame that goes on in fragments, is no malformed
 * frame: split_headers, passed unchecked (veth's first buffer, as
 * BPF_PROG_TEST_RUN's, is a page less headroom and tailroom: 3,520 bytes).
 */
static __always_inline void count_unparsed(struct hook_ctx *ctx, struct bloomxdp_counters *cnt,
					   int err)
{
	if (err <= PARSE_CUT_ETH && hook_has_frags(ctx)) {
		cnt->split_headers++;
		return;
	}
	cnt->malformed++;
	switch (err) {
	case PARSE_CUT_ETH:
		cnt->bad_eth++;
		break;
	case PARSE_CUT_VLAN:
		cnt->bad_vlan++;
		break;
	case PARSE_BAD_IPV4:
	case PARSE_CUT_IPV4:
		cnt->bad_ipv4++;
		break;
	case PARSE_BAD_IPV4_IHL:
	case PARSE_CUT_IPV4_IHL:
		cnt->bad_ipv4_ihl++;
		break;
	case PARSE_BAD_IPV6:
	case PARSE_CUT_IPV6:
		cnt->bad_ipv6++;
		break;
	}
}

static __always_inline int port_listed(const volatile __u16 *ports, __u16 port)
{
	int i;

	for (i = 0; i < BLOOMXDP_MAX_PORTS; i++)
		if (ports[i] && ports[i] == port)
			return 1;
	return 0;
}

/*
 * The ports of a UDP datagram or TCP segment past the first buffer of a
 * multi-buffer frame: split headers, and no name field. Counted here, where
 * a port matters, rather than where it is read: a test there of the L4
 * protocol made the 6.1 verifier walk the name matching once per protocol
 * (+56% of verified_insns with names).
 */
static __always_inline int ports_unseen(struct hook_ctx *ctx, struct bloomxdp_counters *cnt,
					__u32 l4_off, __u32 dport)
{
	__u32 linear = ctx->data_end - ctx->data;

	if (dport || l4_off + 4 <= linear)
		return 0;	/* a port was read (0 only if the header says 0) */
	if (hook_has_frags(ctx))
		cnt->split_headers++;
	return 1;
}

/*
 * An IPv6 extension chain too deep (past BLOOMXDP_MAX_IPV6_EXT headers) or
 * cut short: the address is matched, the L4 protocol and port are not known.
 * Each name field matched counts the packet as unparsed, as a name its parser
 * could not read: counted here, whatever the address lookups find (and
 * whether the list holds names or not), so that no branch is added after
 * them: one in name_field() cost +17% of verified_insns on 6.18, +34% with
 * layout kernel.
 */
static __always_inline void ipv6_chain_unparsed(struct bloomxdp_counters *cnt)
{
	cnt->ipv6_ext_unparsed++;
	if (config.match & BLOOMXDP_MATCH_DNS)
		cnt->unparsed_dns++;
	if (config.match & BLOOMXDP_MATCH_HTTP)
		cnt->unparsed_http++;
	if (config.match & BLOOMXDP_MATCH_SNI)
		cnt->unparsed_tls++;
	if (config.match & BLOOMXDP_MATCH_DNS_ANSWERS)
		cnt->unparsed_dns_answers++;
}

/*
 * The source port of the UDP datagram or TCP segment at l4_off, host order
 * (0 if cut off). Read here, only for --match dns-answers: kept in struct
 * packet, it cost every parse path its store (+8% verified_insns).
 */
static __always_inline __u32 l4_sport(struct hook_ctx *ctx, __u32 l4_off)
{
	__be16 port = 0;

	(void)hook_load_bytes(ctx, l4_off, &port, sizeof(port));
	return bpf_ntohs(port);
}

/*
 * Which name matcher a packet goes to (enum bloomxdp_field), from its L4
 * protocol and ports: to a DNS port a query, from one a response.
 */
static __always_inline __u32 name_field(struct hook_ctx *ctx, struct bloomxdp_counters *cnt,
					int l4_proto, __u32 l4_off, __u32 dport)
{
	__u32 match = config.match;

	if (l4_proto == IPPROTO_UDP) {
		if (ports_unseen(ctx, cnt, l4_off, dport))
			return BLOOMXDP_FIELD_NONE;
		if ((match & BLOOMXDP_MATCH_DNS) && port_listed(config.dns_ports, dport))
			return BLOOMXDP_FIELD_DNS;
		if ((match & BLOOMXDP_MATCH_DNS_ANSWERS) &&
		    port_listed(config.dns_ports, l4_sport(ctx, l4_off)))
			return BLOOMXDP_FIELD_DNS_ANSWER;
		if ((match & BLOOMXDP_MATCH_SNI) && port_listed(config.quic_ports, dport))
			return BLOOMXDP_FIELD_QUIC;
	} else if (l4_proto == IPPROTO_TCP) {
		if (ports_unseen(ctx, cnt, l4_off, dport))
			return BLOOMXDP_FIELD_NONE;
		if ((match & BLOOMXDP_MATCH_HTTP) && port_listed(config.http_ports, dport))
			return BLOOMXDP_FIELD_HTTP;
		if ((match & BLOOMXDP_MATCH_SNI) && port_listed(config.tls_ports, dport))
			return BLOOMXDP_FIELD_SNI;
		if ((match & BLOOMXDP_MATCH_DNS) && port_listed(config.dns_ports, dport))
			return BLOOMXDP_FIELD_DNS_TCP;
		if ((match & BLOOMXDP_MATCH_DNS_ANSWERS) &&
		    port_listed(config.dns_ports, l4_sport(ctx, l4_off)))
			return BLOOMXDP_FIELD_DNS_ANSWER;
	}
	return BLOOMXDP_FIELD_NONE;
}

/*
 * Records where L4 starts and which name matcher applies, as soon as the IP
 * headers are parsed. Only scalars leave: the packet pointer is then dead,
 * and the verifier can merge the many parse paths (VLANs, IPv6 extension
 * chains) instead of walking the rest of the program once for each.
 */
static __always_inline void packet_set_l4(struct hook_ctx *ctx, const struct cursor *c,
					  int l4_proto, struct packet *pkt)
{
	__be16 *ports = c->pos;	/* UDP and TCP both start with source, destination */
	__u32 off = c->pos - (void *)(long)ctx->data;

	barrier_var(off);
	pkt->l4_off = off;	/* the global functions read the packet at any offset */
	pkt->l4_proto = l4_proto;
	pkt->dport = 0;
	if ((void *)(ports + 2) <= c->end)
		pkt->dport = bpf_ntohs(ports[1]);
}

static __always_inline void name_walk_init(struct name_walk *w, void *bits, __u64 kinds,
					  const struct generations *gen)
{
	__u32 block_slot = gen->block_slot, allow = active_word(BLOOMXDP_ACTIVE_ALLOW);
	__u32 allow_slot = allow & (BLOOMXDP_GENERATIONS - 1);

	w->slot = block_slot;
	w->kinds = kinds;
	/* NULL when the generation has no exact copy (--verify off, or auto over its share). */
	w->verify = config.verify != BLOOMXDP_VERIFY_OFF ?
		    bpf_map_lookup_elem(&verify_names, &block_slot) : NULL;
	w->allow = allow & BLOOMXDP_ALLOW_HAS_NAMES ?
		   bpf_map_lookup_elem(&allow_names, &allow_slot) : NULL;
	/* Read through the volatile: a cast would let clang fold the key to zero. */
	w->hash_key[0] = config.hash_key[0];
	w->hash_key[1] = config.hash_key[1];
	w->filter_bits = probe_bits(bits);
}

/* After a walk: Bloom and verify counters, and the allowlist. 1 when blocked. */
static __always_inline int name_verdict(struct bloomxdp_counters *cnt, struct scratch *s,
					struct name_walk *w, int hit, __u32 kind)
{
	cnt->bloom_hits += s->walk_bloom_hits;
	cnt->false_positives += s->walk_false_positives;
	cnt->suffix_false_positives += s->suffix_refused;
	if (!hit)
		return 0;
	if (w->verify)
		cnt->confirmed++;
	if (name_allowed(s, w)) {
		cnt->allowed++;
		return 0;
	}
	s->match_kind = kind;
	return 1;
}

/*
 * The name in s (its labels found by a parser) looked up, and with url the
 * request target of an HTTP request too: 1 when listed and not allowed, with
 * s->match_* set. Global, and the only caller of the walks: the verifier
 * checks their callbacks and probes once, not once per field that has a name
 * (two fifths of the program's verified_insns when each field had its own).
 */
__attribute__((noinline)) int name_lookup(const struct generations *gen, __u64 kinds, __u32 url)
{
	__u32 zero = 0, kind = BLOOMXDP_EVKEY_NAME;
	struct bloomxdp_counters *cnt;
	struct name_walk w;
	struct scratch *s;
	void *bits;
	int hit;

	if (!gen)
		return 0;	/* the verifier's due: a global function's pointer may be NULL */
	s = scratch_get();
	cnt = bpf_map_lookup_elem(&counters, &zero);
	bits = probe_map(gen->block_slot);
	if (!s || !cnt || !bits)
		return 0;
	name_walk_init(&w, bits, kinds, gen);
	/* Each lookup's own counts: a DNS response looks up several names. */
	s->walk_bloom_hits = 0;
	s->walk_false_positives = 0;
	s->suffix_refused = 0;
	hit = name_listed(s, &w);
	if (!hit && url) {
		hit = url_listed(s, &w);
		kind = BLOOMXDP_EVKEY_URL;
	}
	return name_verdict(cnt, s, &w, hit, kind);
}

/* A name a parser left in s (enum name_ready), for name_hit(). */
enum name_ready {
	NAME_NONE = 0,
	NAME_READY = 1,
};

/* DNS over UDP: NAME_READY with s->question_end set, for an NXDOMAIN answer. */
static __always_inline int match_dns(struct hook_ctx *ctx, struct bloomxdp_counters *cnt,
				     struct scratch *s, __u32 off, __u32 len)
{
	if (dns_parse_query(ctx, off, len, s, &s->question_end)) {
		cnt->unparsed_dns++;
		return NAME_NONE;
	}
	cnt->checked_dns++;
	return NAME_READY;
}

static __always_inline int match_http(struct hook_ctx *ctx, struct bloomxdp_counters *cnt,
				      struct scratch *s, __u32 off, __u32 len)
{
	if (http_parse_request(ctx, off, len, s)) {
		cnt->unparsed_http++;
		return NAME_NONE;
	}
	cnt->checked_http++;
	return NAME_READY;
}

/*
 * The name a parser left in s looked up (name_lookup()), and its field's hits
 * counted: 1 on a hit, or for a DNS query the length of its question (for an
 * NXDOMAIN answer); -1 to drop a ClientHello with ECH no list decided (--ech
 * drop); else 0. Global, called from the program rather than under
 * match_names(): the walks' chain of calls stays within 512 bytes of stack.
 */
__attribute__((noinline)) int name_hit(const struct generations *gen, __u64 kinds, __u32 field)
{
	struct bloomxdp_counters *cnt;
	__u32 zero = 0, quic;
	struct scratch *s;

	s = scratch_get();
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!s || !cnt)
		return 0;
	if (field == BLOOMXDP_FIELD_DNS && config.doh_canary && dns_is_canary(s)) {
		s->match_kind = BLOOMXDP_EVKEY_CANARY;	/* list_verdict(): NXDOMAIN */
		s->match_len = 0;
		cnt->doh_canary++;
		return s->question_end;
	}
	if (!name_lookup(gen, kinds, field == BLOOMXDP_FIELD_HTTP)) {
		if (field == BLOOMXDP_FIELD_SNI || field == BLOOMXDP_FIELD_QUIC)
			return s->ech && config.ech == BLOOMXDP_POLICY_DROP ? -1 : 0;
		return 0;
	}
	if (field == BLOOMXDP_FIELD_DNS) {
		cnt->hits_dns++;
		return s->question_end;
	}
	if (field == BLOOMXDP_FIELD_HTTP) {
		cnt->hits_http++;
		return 1;
	}
	quic = s->quic & 1;
	cnt->hits_sni += !quic;
	cnt->hits_quic += quic;
	return 1;
}

/* The client's address and source port, which with the DCID key its QUIC connection. */
static __always_inline void quic_key_set(struct hook_ctx *ctx, struct quic_scratch *q,
					 const struct packet *pkt)
{
	__builtin_memset(q->key.addr, 0, sizeof(q->key.addr));
	/* Results ignored: the IP header was parsed whole; a port cut off stays 0. */
	if (pkt->ipv6)
		(void)hook_load_bytes(ctx, pkt->l3_off + 8, q->key.addr, 16);
	else
		(void)hook_load_bytes(ctx, pkt->l3_off + 12, q->key.addr, 4);
	q->key.port = 0;
	(void)hook_load_bytes(ctx, pkt->l4_off, &q->key.port, 2);
	q->key.family = pkt->ipv6 ? 6 : 4;
}

/* An Initial to drop whatever the lists say (--quic-unparsed drop, --ech drop): for match_names(). */
#define FIELD_POLICY_DROP 0xffffffffU

static __always_inline __u32 quic_unparsed(struct bloomxdp_counters *cnt, int spent)
{
	if (spent)
		cnt->quic_budget_spent++;
	else
		cnt->unparsed_quic++;
	return config.quic_unparsed == BLOOMXDP_POLICY_DROP ? FIELD_POLICY_DROP :
							      BLOOMXDP_FIELD_NONE;
}

/*
 * A QUIC datagram (quic.h): its Initial read and decrypted, the ClientHello
 * walked to the extensions' end. Returns BLOOMXDP_FIELD_QUIC with the name in
 * s for match_names() to look up, FIELD_POLICY_DROP, or BLOOMXDP_FIELD_NONE.
 * Called from the program, not from match_names(): under it, the crypto's
 * calls would pass the 512 bytes of stack a chain of calls may take.
 */
__attribute__((noinline)) __u32 quic_read(struct hook_ctx *ctx, const struct packet *pkt,
					  __u64 kinds)
{
	__u32 frame_len = hook_len(ctx), off, len, zero = 0;
	struct bloomxdp_counters *cnt;
	struct quic_scratch *q;
	struct scratch *s;
	int opened, run;

	if (!pkt || !(kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS)))
		return BLOOMXDP_FIELD_NONE;	/* no name to look for: not read (as the others) */
	q = quic_scratch_get();
	s = scratch_get();
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!q || !s || !cnt)
		return BLOOMXDP_FIELD_NONE;
	if (pkt->ip_end < frame_len)
		frame_len = pkt->ip_end;
	off = pkt->l4_off + sizeof(struct udphdr);
	len = off < frame_len ? frame_len - off : 0;
	quic_key_set(ctx, q, pkt);
	opened = quic_open(ctx, q, off, len);
	if (opened == QO_UNSEEN) {
		cnt->unseen_quic++;
		return BLOOMXDP_FIELD_NONE;
	}
	if (opened != QO_WALK && opened != QO_NAMED)
		return quic_unparsed(cnt, opened == QO_SPENT);
	run = opened == QO_NAMED ? QR_END : quic_walk_run(ctx);
	q->stashed = 0;
	if (run == QR_PENDING)
		quic_stash(ctx, q);	/* what this packet holds past where the walk waits */
	run = quic_finish(q, cnt, run);
	if (run < 0)
		return FIELD_POLICY_DROP;
	if (run == 0)
		return BLOOMXDP_FIELD_NONE;
	__builtin_memcpy(s->name, q->w.name, BLOOMXDP_NAME_BUF);
	if (name_from_text(s, q->w.name_len))
		return quic_unparsed(cnt, 0);
	s->ech = q->w.ech != 0;
	return BLOOMXDP_FIELD_QUIC;
}

/*
 * A TCP segment to an HTTP, TLS or DNS port: NAME_READY for a request or a
 * ClientHello whose name is in s, -1 to drop a ClientHello with ECH whose
 * name cannot be read (--ech drop), else NAME_NONE.
 */
static __always_inline int match_tcp(struct hook_ctx *ctx, struct bloomxdp_counters *cnt,
				     struct scratch *s, __u32 field, __u32 l4_off, __u32 frame_len)
{
	__u32 off, len;
	__u8 doff;
	int ret;

	/*
	 * The data offset: the high nibble of TCP header byte 12. A header cut
	 * before it, or shorter than its own fields, is a malformed segment:
	 * passed, and counted where the field counts what it cannot parse.
	 */
	if (hook_load_bytes(ctx, l4_off + 12, &doff, 1) || (doff >> 4) < 5) {
		if (field == BLOOMXDP_FIELD_HTTP)
			cnt->unparsed_http++;
		else if (field == BLOOMXDP_FIELD_SNI)
			cnt->unparsed_tls++;
		else if (field == BLOOMXDP_FIELD_DNS_TCP)
			cnt->unseen_dns_tcp++;
		return 0;
	}
	off = l4_off + (doff >> 4) * 4;
	if (off >= frame_len)
		return 0;	/* no payload: handshakes and ACKs */
	len = frame_len - off;
	if (field == BLOOMXDP_FIELD_DNS_TCP) {
		cnt->unseen_dns_tcp++;
		return 0;
	}
	if (field == BLOOMXDP_FIELD_HTTP)
		return match_http(ctx, cnt, s, off, len);
	if (field != BLOOMXDP_FIELD_SNI)
		return 0;
	ret = tls_parse_client_hello(ctx, off, len, s);
	cnt->ech_seen += s->ech;
	if (!ret) {
		cnt->checked_sni++;
		s->quic = 0;
		return NAME_READY;
	}
	if (ret > 0)
		return 0;	/* other records: ChangeCipherSpec, data... */
	cnt->unparsed_tls++;	/* a ClientHello whose SNI could not be read */
	return s->ech && config.ech == BLOOMXDP_POLICY_DROP ? -1 : 0;
}

/*
 * Reads the name a packet carries in the given field (enum bloomxdp_field)
 * into scratch, for name_hit(). A global function: the verifier checks it
 * once, not once per path through the parsers above. Returns NAME_READY,
 * NAME_NONE, or -1 to drop a packet no list decided (--quic-unparsed drop,
 * --ech drop).
 */
__attribute__((noinline)) int match_names(struct hook_ctx *ctx, const struct packet *pkt,
					 __u32 field, const struct generations *gen)
{
	/* The whole frame, fragments included: the parsers read with bpf_xdp_load_bytes. */
	__u32 frame_len = hook_len(ctx), off, len, l4_off;
	struct bloomxdp_counters *cnt;
	__u32 zero = 0;
	struct scratch *s;
	void *bits;

	if (!pkt || !gen)
		return 0;	/* the verifier's due: a global function's pointer may be NULL */
	s = scratch_get();
	cnt = bpf_map_lookup_elem(&counters, &zero);
	bits = probe_map(gen->block_slot);
	if (!s || !cnt || !bits)
		return 0;
	s->suffix_slot = gen->block_slot;
	s->suffix_refused = 0;
	l4_off = pkt->l4_off;
	if (pkt->ip_end < frame_len)
		frame_len = pkt->ip_end;
	if (field == BLOOMXDP_FIELD_DNS) {
		/* An empty datagram is no query either: counted as unparsed. */
		off = l4_off + sizeof(struct udphdr);
		len = off < frame_len ? frame_len - off : 0;
		return match_dns(ctx, cnt, s, off, len);
	}
	if (field == FIELD_POLICY_DROP)
		return -1;
	if (field == BLOOMXDP_FIELD_QUIC) {
		cnt->checked_quic++;
		s->quic = 1;	/* the name is in s: quic_read() */
		return NAME_READY;
	}
	return match_tcp(ctx, cnt, s, field, l4_off, frame_len);
}

#if HOOK_CAN_TX
/*
 * Global for the same reason; 0 when the query became its answer, or a
 * response (response: 1) its NXDOMAIN, in place.
 */
__attribute__((noinline)) int answer_nxdomain(struct xdp_md *ctx, const struct packet *pkt,
					     __u32 question_end, __u32 response)
{
	struct scratch *s = scratch_get();
	struct bloomxdp_counters *cnt;
	__u32 zero = 0;

	/*
	 * Not from a first fragment: its answer would be one too. Not over
	 * TCP: the stream's sequence would break. Dropped.
	 */
	if (!s || !pkt || pkt->fragment || pkt->l4_proto != IPPROTO_UDP)
		return -1;
	if (dns_answer_nxdomain(ctx, s, pkt->ipv6, pkt->l3_off, pkt->l4_off, question_end,
				response))
		return -1;
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (cnt && response)
		cnt->dns_answers_rewritten++;
	return 0;
}
#endif

/*
 * A packet from or to an address learned from the answer for a learning
 * list's name (dns_answers.h), not expired and not allowlisted: 1, with
 * q->mi naming it for list_verdict(). Global: verified once.
 */
__attribute__((noinline)) int learned_hit(struct hook_ctx *ctx, const struct packet *pkt,
					 struct addr_query *q)
{
	struct bloomxdp_learn_key k = {};
	struct bloomxdp_counters *cnt;
	struct bloomxdp_learned *v;
	__u32 zero = 0, allow, side, ipv6, remote;

	if (!pkt || !q || !(active_word(BLOOMXDP_ACTIVE_LISTS) & BLOOMXDP_LISTS_LEARNING))
		return 0;
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!cnt)
		return 0;
	ipv6 = pkt->ipv6;
	k.family = ipv6 ? 6 : 4;
	for (side = 0; side < 2; side++) {
		/* Results checked: the IP header was parsed whole, its addresses are there. */
		if (ipv6 ? hook_load_bytes(ctx, pkt->l3_off + 8 + side * 16, k.addr, 16) :
			   hook_load_bytes(ctx, pkt->l3_off + 12 + side * 4, k.addr, 4))
			return 0;
		v = bpf_map_lookup_elem(&learned, &k);
		if (!v || bpf_ktime_get_ns() >= v->expires_ns)
			continue;
		allow = active_word(BLOOMXDP_ACTIVE_ALLOW);
		if ((allow & (ipv6 ? BLOOMXDP_ALLOW_HAS_V6 : BLOOMXDP_ALLOW_HAS_V4)) &&
		    addr_allowed(allow & (BLOOMXDP_GENERATIONS - 1), ipv6, k.addr)) {
			cnt->allowed++;
			continue;
		}
		/* By role: the remote host is an arriving packet's source. */
		remote = side == (config.direction == BLOOMXDP_DIR_EGRESS);
		q->mi.field = remote ? BLOOMXDP_FIELD_SRC : BLOOMXDP_FIELD_DST;
		q->mi.key_kind = BLOOMXDP_EVKEY_LEARNED;
		q->mi.key_len = 0;
		q->mi.list = v->list;
		cnt->hits_learned++;
		return 1;
	}
	return 0;
}

/* What the name matcher found (kept in scratch), for the event. */
static __always_inline void name_match_info(__u32 field, struct match_info *mi)
{
	struct scratch *s = scratch_get();

	mi->field = field;
	if (s) {
		mi->key_kind = s->match_kind;
		mi->key_len = s->match_len;
	}
}

/*
 * A drop event on the ring buffer: the packet's addresses and ports, what
 * matched, and the verdict (enum bloomxdp_event_verdict). Global, so
 * verified once; called once event_allowed() said yes, so that a hit over
 * the budget costs no call. Returns 0: an event not sent is counted
 * (events_lost), and the verdict does not depend on it.
 */
__attribute__((noinline)) int emit_event(struct hook_ctx *ctx, const struct packet *pkt,
					const struct match_info *mi, __u32 verdict)
{
	__u32 l3_off, l4_off, zero = 0, name_len;
	struct bloomxdp_counters *cnt;
	struct bloomxdp_event *ev;
	struct scratch *s;
	int ipv6;

	if (!pkt || !mi)
		return 0;	/* the verifier's due: a global function's pointer may be NULL */
	l3_off = pkt->l3_off;
	l4_off = pkt->l4_off;
	ipv6 = pkt->ipv6;
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!cnt)
		return 0;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		cnt->events_lost++;
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->ts_ns = bpf_ktime_get_ns();
	ev->ifindex = hook_ifindex(ctx);
	ev->direction = config.direction;
	ev->family = ipv6 ? 6 : 4;
	ev->field = mi->field;
	ev->key_kind = mi->key_kind;
	ev->key_len = mi->key_len;
	ev->verdict = verdict;
	ev->list = mi->list;
	ev->l4_proto = pkt->l4_proto < 0 ? 0xff : pkt->l4_proto;	/* 0xff: none */
	/*
	 * Results ignored: the IP header was parsed whole, so its addresses are
	 * there; ports cut off by the frame's end fail to load and stay zero.
	 */
	if (ipv6) {
		(void)hook_load_bytes(ctx, l3_off + 8, ev->src, 16);
		(void)hook_load_bytes(ctx, l3_off + 24, ev->dst, 16);
	} else {
		(void)hook_load_bytes(ctx, l3_off + 12, ev->src, 4);
		(void)hook_load_bytes(ctx, l3_off + 16, ev->dst, 4);
	}
	if (ev->l4_proto == IPPROTO_UDP || ev->l4_proto == IPPROTO_TCP) {
		(void)hook_load_bytes(ctx, l4_off, &ev->sport, 2);
		(void)hook_load_bytes(ctx, l4_off + 2, &ev->dport, 2);
	}
	s = scratch_get();
	if (s && ev->field >= BLOOMXDP_FIELD_DNS && ev->field != BLOOMXDP_FIELD_DNS_TCP) {
		name_len = s->name_len;
		if (name_len > BLOOMXDP_EVENT_NAME_MAX)
			name_len = BLOOMXDP_EVENT_NAME_MAX;
		ev->name_len = name_len;
		ev->name_wire = s->name_wire;
		__builtin_memcpy(ev->name, s->name, BLOOMXDP_EVENT_NAME_MAX);
	}
	if (s && ev->field == BLOOMXDP_FIELD_DNS_ANSWER) {
		ev->rr_type = s->rr_type;
		if (s->rr_type == BLOOMXDP_DNS_TYPE_A || s->rr_type == BLOOMXDP_DNS_TYPE_AAAA)
			__builtin_memcpy(ev->answer, s->answer, sizeof(ev->answer));
	}
	bpf_ringbuf_submit(ev, 0);
	cnt->events_sent++;
	return 0;
}

/*
 * XDP: multi-buffer aware (BPF_F_XDP_HAS_FRAGS), it attaches natively at any
 * MTU the driver takes, jumbo frames included. tc: ingress or egress, as
 * config.direction says. Headers are read in the first buffer (the linear
 * part of an skb); payloads, by helper, wherever they lie. Fields by role:
 * src is the remote host, the source of an arriving packet and the
 * destination of a leaving one; dst the local address.
 */
/*
 * Read where it is used, not kept in a variable: a variable made the verifier
 * walk 29% more of the XDP program (test_verifier_cost).
 */
#define EGRESS_DIR (config.direction == BLOOMXDP_DIR_EGRESS)

SEC(HOOK_SECTION)
int HOOK_PROG(struct hook_ctx *ctx)
{
	struct cursor c;
	struct packet pkt = {};
	struct bloomxdp_counters *cnt;
	struct ipv6_ext_result ext;
	__u32 dns_question_end = 0;
	struct ipv6hdr *ip6h;
	struct iphdr *iph;
	__u32 zero = 0;

	int verdict = HOOK_PASS;
	int hit = 0;
	struct filter_header fh = {};
	struct addr_query *q;
	struct scratch *s;
	__u32 field;
	__u64 kinds = 0;
	__u64 *hdr;
	void *bits;
	int proto;

	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!cnt)
		return HOOK_PASS;	/* cannot happen: a one-slot per-CPU array */
	cnt->packets++;
	cnt->bytes += hook_len(ctx);	/* fragments included */
	hook_prepare(ctx);
	c.pos = (void *)(long)ctx->data;	/* after hook_prepare(): an skb may have moved */
	c.end = (void *)(long)ctx->data_end;

	proto = parse_ethhdr(&c);
	if (proto == PARSE_VLAN_TOO_DEEP) {
		cnt->vlan_too_deep++;
		goto out;
	}
	if (proto < 0) {
		count_unparsed(ctx, cnt, proto);
		goto out;
	}
	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6)) {
		cnt->non_ip++;
		goto out;
	}

	s = scratch_get();
	if (!s)
		goto out;	/* cannot happen: a one-slot per-CPU array */
	/* The query in scratch, not on the stack: see struct scratch. */
	q = &s->main_q;
	__builtin_memset(q, 0, sizeof(*q));
	q->gen.block_slot = active_slot(BLOOMXDP_ACTIVE_BLOCK);
	bits = bpf_map_lookup_elem(&filter, &q->gen.block_slot);
	/*
	 * The header in one lookup: what the list holds, its lengths, m, read
	 * at once. "No filter" stays the bits pointer: a flag of its own made
	 * the verifier walk half as much again (test_verifier_cost).
	 */
	hdr = bits ? bloomxdp_filter_line(bits, 0) : NULL;
	if (hdr) {
		kinds = hdr[BLOOMXDP_HDR_KINDS];
		fh.v4_lengths = hdr[BLOOMXDP_HDR_V4_LENGTHS];
		fh.v6_lengths = hdr[BLOOMXDP_HDR_V6_LENGTHS];
		q->filter_bits = config.layout == BLOOMXDP_LAYOUT_KERNEL ? 0 :
				hdr[BLOOMXDP_HDR_BITS];
	}
	pkt.l3_off = c.pos - (void *)(long)ctx->data;

	if (proto == bpf_htons(ETH_P_IP)) {
		proto = parse_iphdr(&c, &iph);
		if (proto < 0) {
			count_unparsed(ctx, cnt, proto);
			goto out;
		}
		if (ipv4_is_fragment(iph)) {
			cnt->fragments++;
			/* Names are looked for in the part a first fragment holds. */
			pkt.fragment = 1;
			if (ipv4_is_later_fragment(iph))
				proto = -1;	/* no L4 header */
		}
		packet_set_l4(ctx, &c, proto, &pkt);
		pkt.ip_end = pkt.l3_off + bpf_ntohs(iph->tot_len);
		if (!bits) {
			cnt->no_filter++;
			goto out;
		}
		cnt->checked_v4++;
		q->lengths = fh.v4_lengths;
		if (config.match & BLOOMXDP_MATCH_SRC)
			hit = v4_blocked(q, bits, kinds, EGRESS_DIR ? &iph->daddr : &iph->saddr,
					 BLOOMXDP_FIELD_SRC);
		if (!hit && (config.match & BLOOMXDP_MATCH_DST))
			hit = v4_blocked(q, bits, kinds, EGRESS_DIR ? &iph->saddr : &iph->daddr,
					 BLOOMXDP_FIELD_DST);
		if (hit)
			cnt->hits_v4++;
	} else {
		pkt.ipv6 = 1;
		proto = parse_ip6hdr(&c, &ip6h);
		if (proto < 0) {
			count_unparsed(ctx, cnt, proto);
			goto out;
		}
		/* The address is known already; the L4 offset serves the name matchers. */
		skip_ip6hdrext(&c, proto, &ext);
		if (ext.cut && hook_has_frags(ctx))
			cnt->split_headers++;	/* the chain runs on into a fragment */
		else if (ext.unparsed)
			ipv6_chain_unparsed(cnt);
		if (ext.frag)
			cnt->fragments++;	/* an atomic fragment is none */
		/* Names are looked for in the part a first fragment holds. */
		pkt.fragment = ext.frag;
		packet_set_l4(ctx, &c, ext.l4_proto, &pkt);
		pkt.ip_end = pkt.l3_off + sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
		if (!bits) {
			cnt->no_filter++;
			goto out;
		}
		cnt->checked_v6++;
		if (config.match & BLOOMXDP_MATCH_SRC)
			hit = v6_or_mapped_blocked(q, bits, kinds, &fh,
						   EGRESS_DIR ? &ip6h->daddr : &ip6h->saddr,
						   BLOOMXDP_FIELD_SRC);
		if (!hit && (config.match & BLOOMXDP_MATCH_DST))
			hit = v6_or_mapped_blocked(q, bits, kinds, &fh,
						   EGRESS_DIR ? &ip6h->saddr : &ip6h->daddr,
						   BLOOMXDP_FIELD_DST);
		if (hit)
			cnt->hits_v6++;
	}

	if (!hit && (config.match & BLOOMXDP_MATCH_DNS_ANSWERS))
		hit = learned_hit(ctx, &pkt, q);
	field = hit || !(config.match & BLOOMXDP_MATCH_NAMES) ? BLOOMXDP_FIELD_NONE :
		name_field(ctx, cnt, pkt.l4_proto, pkt.l4_off, pkt.dport);
	if (field == BLOOMXDP_FIELD_QUIC)
		field = quic_read(ctx, &pkt, kinds);
	if (field == BLOOMXDP_FIELD_DNS_ANSWER) {
		/* Decided there, record by record: the action, the question's end above it. */
		hit = dns_answers(ctx, &pkt, &fh, kinds, q);
		dns_question_end = (__u32)hit >> 8;
		hit &= 0xff;
	} else if (field == BLOOMXDP_FIELD_DNS_TCP ||
		   (field == BLOOMXDP_FIELD_DNS && config.doh_canary) ||
		   (field != BLOOMXDP_FIELD_NONE &&
		    (kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS)))) {
		/* DNS over TCP: counted there, when the segment has a payload. */
		hit = match_names(ctx, &pkt, field, &q->gen);
		if (hit == NAME_READY)
			hit = name_hit(&q->gen, kinds, field);
		if (hit < 0) {
			/* --quic-unparsed drop, --ech drop: dropped, whatever the lists say. */
			verdict = HOOK_DROP;
			goto out;
		}
		if (hit > 1)
			dns_question_end = hit;
		if (hit)
			name_match_info(field, &q->mi);
		/* The lists holding it decide: drop > nxdomain > reject > monitor, or none. */
		if (hit)
			hit = list_verdict(q);
	} else if (hit) {
		hit = addr_list_verdict(q);
	}

	if (hit) {
		__u32 ev = BLOOMXDP_EVVERDICT_DROP;

		if (hit == BLOOMXDP_LIST_MONITOR) {
			cnt->would_drop++;
			ev = BLOOMXDP_EVVERDICT_WOULD_DROP;
		} else if (HOOK_CAN_TX && dns_question_end && hit == BLOOMXDP_LIST_NXDOMAIN) {
			ev = BLOOMXDP_EVVERDICT_NXDOMAIN;
		} else if (HOOK_CAN_TX && hit == BLOOMXDP_LIST_REJECT) {
			ev = BLOOMXDP_EVVERDICT_REJECT;	/* answered, or dropped where it cannot be */
		}
		/* Before an NXDOMAIN answer or a reject rewrites the addresses. */
		if (config.events_per_sec && event_allowed(cnt))
			(void)emit_event(ctx, &pkt, &q->mi, ev);	/* always 0 */
		if (hit == BLOOMXDP_LIST_MONITOR)
			;
#if HOOK_CAN_TX
		else if (ev == BLOOMXDP_EVVERDICT_NXDOMAIN &&
			 !answer_nxdomain(ctx, &pkt, dns_question_end,
					  field == BLOOMXDP_FIELD_DNS_ANSWER))
			/* A response rewritten in place goes on to its client. */
			verdict = field == BLOOMXDP_FIELD_DNS_ANSWER ? XDP_PASS : XDP_TX;
		else if (hit == BLOOMXDP_LIST_REJECT &&
			 reject_answer(ctx, pkt.l3_off, pkt.l4_off, pkt.l4_proto,
				       pkt.ipv6 | pkt.fragment << 1) == XDP_TX) {
			/* Counted here: a test of hit at out cost +90% of verified_insns. */
			cnt->rejected++;
			return XDP_TX;
		}
#endif
		else {
			verdict = HOOK_DROP;
		}
	}
out:
	if (verdict == HOOK_DROP)
		cnt->dropped++;
	else if (verdict == HOOK_PASS)
		cnt->passed++;
	else
		cnt->dns_replies++;	/* XDP_TX */
	return verdict;
}
