/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DNS responses (--match dns-answers): the question, the targets of CNAME,
 * DNAME, HTTPS and SVCB records, and the addresses of A and AAAA records of
 * the answer section, each looked up as the other fields are. The message is
 * copied once into the scratch payload (at most PAYLOAD_MAX - 1 bytes) and
 * read there: compression pointers are offsets in it. A pointer must point
 * before the last one its name followed (before the name's start for the
 * first): a name cannot loop, and BLOOMXDP_DNS_POINTERS_MAX bounds it anyway.
 *
 * The first record a list holds decides (the question first): its list's
 * action applies to the whole response. A learning list's names (load
 * --learn) decide nothing: the A and AAAA addresses that follow them are
 * written to the learned map, for learned_hit().
 */
#ifndef BLOOMXDP_DNS_ANSWERS_H
#define BLOOMXDP_DNS_ANSWERS_H

#include <linux/tcp.h>
#include <linux/udp.h>
#include "addr.h"
#include "dns.h"
#include "hook.h"
#include "loop.h"
#include "maps.h"
#include "match_lists.h"
#include "parsing.h"
#include "query.h"
#include "scratch.h"

#define DNS_HDR_LEN		sizeof(struct dnshdr)
#define DNS_RR_FIXED_LEN	10	/* type, class, TTL, RDLENGTH */
/* Steps of a name's read: a label or a pointer each. */
#define DNS_NAME_STEPS		(DNS_MAX_WIRE_LABELS + BLOOMXDP_DNS_POINTERS_MAX)
#define PAYLOAD_MASK		(PAYLOAD_MAX - 1)

int name_lookup(const struct generations *gen, __u64 kinds, __u32 url);

static __always_inline __u32 payload_be16(const struct scratch *s, __u32 i)
{
	return (__u32)s->payload[i & PAYLOAD_MASK] << 8 | s->payload[(i + 1) & PAYLOAD_MASK];
}

/*
 * 8 bytes of the payload at i as one load, as they lie (little-endian): i
 * need not be aligned, and the bytes past the payload are its padding.
 */
static __always_inline __u64 payload_u64(const struct scratch *s, __u32 i)
{
	return *(const __u64 *)(s->payload + (i & PAYLOAD_MASK));
}

/*
 * Copies a label (its length byte and at most 63 bytes) from payload[from]
 * to name[to]: 64 bytes, whatever its length, without a branch. The bytes
 * past the label are overwritten by the next one, or lie past the name's
 * end; the copy may run into the scratch's path, which a DNS message does
 * not use, and read past the payload, whose bytes are then not used.
 */
_Static_assert(__builtin_offsetof(struct scratch, payload) >= BLOOMXDP_NAME_BUF + 64,
	       "name_copy() writes 64 bytes from the name's last byte: within name and path");
_Static_assert(__builtin_offsetof(struct scratch, payload) + PAYLOAD_MAX + 64 <=
	       sizeof(struct scratch), "name_copy() reads 64 bytes from the payload's last byte");

static __always_inline void name_copy(struct scratch *s, __u32 to, __u32 from)
{
	__u64 *dst = (__u64 *)(s->name + (to & (BLOOMXDP_NAME_BUF - 1)));
	const __u64 *src = (const __u64 *)(s->payload + (from & PAYLOAD_MASK));

	dst[0] = src[0];
	dst[1] = src[1];
	dst[2] = src[2];
	dst[3] = src[3];
	dst[4] = src[4];
	dst[5] = src[5];
	dst[6] = src[6];
	dst[7] = src[7];
}

/* One step of a name's read: a label or a pointer. 0: go on, 1: stop (r->done says why). */
static __always_inline long dns_name_step_one(struct scratch *s, struct dns_name_read *r)
{
	__u32 pos = r->pos, l, target;

	if (pos >= r->end)
		goto bad;
	l = s->payload[pos & PAYLOAD_MASK];
	if (l == 0) {
		if (!r->pointers)
			r->next = pos + 1;
		if (r->copy)
			s->name[r->n & (BLOOMXDP_NAME_BUF - 1)] = 0;
		r->n += 1;
		r->done = 1;
		return 1;
	}
	if ((l & 0xc0) == 0xc0) {
		if (pos + 1 >= r->end)
			goto bad;
		target = (l & 0x3f) << 8 | s->payload[(pos + 1) & PAYLOAD_MASK];
		if (!r->pointers)
			r->next = pos + 2;
		if (target >= r->floor || ++r->pointers > BLOOMXDP_DNS_POINTERS_MAX)
			goto bad;
		r->floor = target;
		r->pos = target;
		return 0;
	}
	/* 0x40 and 0x80: extended and reserved label types. */
	if (l > BLOOMXDP_LABEL_MAX || pos + 1 + l > r->end)
		goto bad;
	if (r->copy) {
		if (r->n + 1 + l + 1 > BLOOMXDP_NAME_MAX)
			goto bad;
		name_copy(s, r->n, pos);
		bloomxdp_labels_push(&s->labels, r->n + 1, l);
	}
	r->n += 1 + l;
	r->pos = pos + 1 + l;
	return 0;
bad:
	r->done = -1;
	return 1;
}

/*
 * DNS_NAME_STEPS_PER_CALL steps of a name's read at a time, as the query's
 * dns_label_step() takes DNS_LABELS_PER_STEP labels: a name of a few labels
 * is read in one go. 1 when the read stopped.
 */
#define DNS_NAME_STEPS_PER_CALL	4
_Static_assert(DNS_NAME_STEPS % DNS_NAME_STEPS_PER_CALL == 0, "a whole number of calls");

static __always_inline long dns_name_steps(struct scratch *s)
{
	__u32 k;

	for (k = 0; k < DNS_NAME_STEPS_PER_CALL; k++)
		if (dns_name_step_one(s, &s->dn))
			return 1;
	return 0;
}

static long dns_name_step(__u32 i, void *data)
{
	struct scratch *s = scratch_get();

	(void)i;
	(void)data;
	return s ? dns_name_steps(s) : 1;
}

/*
 * The loop of dns_name_read(): global, so that its callback is verified
 * once, not once for each of the three reads that call it. The first steps
 * are taken here, the others in a bpf_loop(): DNS_NAME_STEPS in all.
 */
__attribute__((noinline)) __u32 dns_name_walk(__u32 pos, __u32 end, __u32 copy)
{
	struct scratch *s = scratch_get();

	if (!s)
		return 0;
	s->dn.pos = pos;
	s->dn.end = end;
	s->dn.floor = pos;
	s->dn.next = 0;
	s->dn.n = 0;
	s->dn.pointers = 0;
	s->dn.copy = copy;
	s->dn.done = 0;
	if (copy)
		s->labels.count = 0;
	if (!dns_name_steps(s))
		bpf_loop_bounded(DNS_NAME_STEPS / DNS_NAME_STEPS_PER_CALL - 1, dns_name_step, NULL);
	if (s->dn.done != 1)
		return 0;
	if (copy) {
		s->name_len = s->dn.n;
		s->name_wire = 1;
	}
	return s->dn.next;
}

/*
 * Reads the name at pos of a message of end bytes in s->payload; with copy,
 * into s->name (wire form) and s->labels. Returns where the name ends as it
 * lies in the message, or 0 when it is malformed, cut short or loops.
 */
static __always_inline __u32 dns_name_read(struct scratch *s, __u32 pos, __u32 end, __u32 copy)
{
	/* Most owner names are one pointer: no loop for them. */
	if (!copy && pos + 1 < end && (s->payload[pos & PAYLOAD_MASK] & 0xc0) == 0xc0)
		return pos + 2;
	return dns_name_walk(pos, end, copy);
}

/*
 * BLOOMXDP_DOH_CANARY in wire form ("\x13use-application-dns\x03net" and the
 * root), as little-endian words: immediates, not data the program would
 * carry in its .rodata beside the configuration.
 */
#define DOH_CANARY_WIRE_LEN	25
#define DOH_CANARY_W0		0x7070612d65737513ULL
#define DOH_CANARY_W1		0x6e6f69746163696cULL
#define DOH_CANARY_W2		0x74656e03736e642dULL

/* The name in s is BLOOMXDP_DOH_CANARY, any case (--doh-canary). */
static __always_inline int dns_is_canary(const struct scratch *s)
{
	/* Bit 0x20 set in every byte folds case; no name of this shape differs only there. */
	const __u64 fold = 0x2020202020202020ULL;
	__u64 w[3];

	if (s->name_len != DOH_CANARY_WIRE_LEN || s->name[DOH_CANARY_WIRE_LEN - 1] != 0)
		return 0;
	__builtin_memcpy(w, s->name, sizeof(w));
	return (w[0] | fold) == (DOH_CANARY_W0 | fold) && (w[1] | fold) == (DOH_CANARY_W1 | fold) &&
	       (w[2] | fold) == (DOH_CANARY_W2 | fold);
}

/* An A or AAAA record's address (s->answer), learned for list s->an.learn. */
static __always_inline void answer_learn(struct scratch *s, const __u32 *addr, __u32 ipv6)
{
	struct bloomxdp_counters *cnt;
	__u32 zero = 0, max = config.learn_ttl_max ?: BLOOMXDP_LEARN_TTL_MAX_DEFAULT;
	__u32 ttl = s->an.ttl, name_len;

	/* Keyed as learned_hit() reads a packet's: an IPv4 address (a mapped one too) alone. */
	__builtin_memset(s->learn_key.addr, 0, sizeof(s->learn_key.addr));
	if (ipv6)
		__builtin_memcpy(s->learn_key.addr, addr, 16);
	else
		__builtin_memcpy(s->learn_key.addr, addr, 4);
	s->learn_key.family = ipv6 ? 6 : 4;
	if (ttl < BLOOMXDP_LEARN_TTL_MIN)
		ttl = BLOOMXDP_LEARN_TTL_MIN;
	if (ttl > max)
		ttl = max;
	/*
	 * The question's name (wire form, whole at DNS_HDR_LEN: answers_question()),
	 * kept for the addresses its answers teach; copied only when one is learned.
	 */
	__builtin_memcpy(s->learn_value.name, s->payload + DNS_HDR_LEN, BLOOMXDP_LEARN_NAME_MAX);
	name_len = s->question_end - DNS_QTYPE_QCLASS_LEN - DNS_HDR_LEN;
	s->learn_value.name_len = name_len < BLOOMXDP_LEARN_NAME_MAX ? name_len :
				  BLOOMXDP_LEARN_NAME_MAX;
	s->learn_value.learned_ns = bpf_ktime_get_ns();
	s->learn_value.expires_ns = s->learn_value.learned_ns + (__u64)ttl * 1000000000ULL;
	s->learn_value.list = s->an.learn;
	s->learn_value.ttl = ttl;
	s->learn_value.rr_type = s->rr_type;
	if (bpf_map_update_elem(&learned, &s->learn_key, &s->learn_value, BPF_ANY))
		return;
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (cnt)
		cnt->learned++;
}

/*
 * The A or AAAA record answer_step() found: looked up as a packet's address
 * would be, then learned if the names before it were a learning list's.
 * Returns the action of the list holding it (enum bloomxdp_list_action), 0
 * for none.
 */
static __always_inline __u32 answer_address(struct scratch *s, struct addr_query *q, __u64 kinds)
{
	__u32 ipv6 = s->rr_type == BLOOMXDP_DNS_TYPE_AAAA, action = 0;

	__builtin_memcpy(q->addr, s->answer, sizeof(q->addr));
	/* ::ffff:a.b.c.d is a.b.c.d, as a packet's address is (v6_or_mapped_blocked()). */
	if (ipv6 && bloomxdp_ipv6_is_v4mapped(q->addr)) {
		ipv6 = 0;
		q->addr[0] = q->addr[3];
	}
	if (kinds & (ipv6 ? BLOOMXDP_HAS_IPV6 : BLOOMXDP_HAS_IPV4)) {
		q->ipv6 = ipv6;
		q->lengths = ipv6 ? s->an.v6_lengths : s->an.v4_lengths;
		q->field = BLOOMXDP_FIELD_DNS_ANSWER;
		if (addr_lookup(q))
			action = list_verdict(q);
	}
	if (!action && s->an.learn)
		answer_learn(s, q->addr, ipv6);
	return action;
}

/*
 * The name s holds (the question, or the target answer_step() found, its
 * type in s->rr_type) looked up: the action of the list holding it, 0 for
 * none. A learning list's name sets s->an.learn for the addresses that
 * follow.
 */
static __always_inline __u32 answer_name(struct scratch *s, struct addr_query *q)
{
	__u64 kinds = s->an.kinds;
	__u32 action;

	if (config.doh_canary && dns_is_canary(s)) {
		s->match_kind = BLOOMXDP_EVKEY_CANARY;
		s->match_len = 0;
	} else if (!(kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS)) ||
		   !name_lookup(&q->gen, kinds, 0)) {
		return 0;
	}
	q->mi.field = BLOOMXDP_FIELD_DNS_ANSWER;
	q->mi.key_kind = s->match_kind;
	q->mi.key_len = s->match_len;
	q->learn = 0;
	action = list_verdict(q);
	if (!action && q->learn)
		s->an.learn = q->learn;
	return action;
}

/*
 * One record of the answer section. An A or AAAA record of class IN is
 * looked up here (answer_address(), with the query s->an.q), its address in
 * s->answer: when a list holds it, the walk stops with its action in
 * s->an.action, else it goes on. The walk stops too at a record
 * whose name is to be looked up (a CNAME, DNAME, HTTPS or SVCB of class IN),
 * its type in s->rr_type, its target in s->name: that lookup is made by
 * dns_answers(), outside the callback, for under it the chain of calls of a
 * name's lookup would pass 512 bytes of stack (an address's chain is short).
 */
static long answer_step(__u32 i, void *data)
{
	struct scratch *s = scratch_get();
	__u32 pos, type, rdlen, rdata;
	__u64 fixed, *answer;

	(void)i;
	(void)data;
	if (!s || !s->an.left)
		return 1;
	s->an.left--;
	pos = dns_name_read(s, s->an.pos, s->an.end, 0);
	if (!pos || pos + DNS_RR_FIXED_LEN > s->an.end)
		goto bad;
	/* Type, class and TTL in one load; RDLENGTH after them. */
	fixed = payload_u64(s, pos);
	type = bpf_ntohs((__u16)fixed);
	rdlen = bpf_ntohs((__u16)payload_u64(s, pos + 8));
	rdata = pos + DNS_RR_FIXED_LEN;
	if (rdata + rdlen > s->an.end)
		goto bad;
	s->an.pos = rdata + rdlen;
	if (bpf_ntohs((__u16)(fixed >> 16)) != BLOOMXDP_DNS_CLASS_IN)
		return 0;
	s->an.ttl = bpf_ntohl((__u32)(fixed >> 32));
	if ((type == BLOOMXDP_DNS_TYPE_A && rdlen == 4) ||
	    (type == BLOOMXDP_DNS_TYPE_AAAA && rdlen == 16)) {
		answer = (__u64 *)s->answer;
		answer[0] = payload_u64(s, rdata);
		answer[1] = 0;
		if (type == BLOOMXDP_DNS_TYPE_AAAA)
			answer[1] = payload_u64(s, rdata + 8);
		else
			answer[0] &= 0xffffffff;
		s->rr_type = type;
		s->an.action = answer_address(s, &s->an.q, s->an.kinds);
		if (s->an.action)
			return 1;
		s->rr_type = 0;
		return 0;
	}
	if (type != BLOOMXDP_DNS_TYPE_CNAME && type != BLOOMXDP_DNS_TYPE_DNAME &&
	    type != BLOOMXDP_DNS_TYPE_HTTPS && type != BLOOMXDP_DNS_TYPE_SVCB)
		return 0;
	/* HTTPS, SVCB: a priority, then the target (RFC 9460); "." is the owner. */
	if (type == BLOOMXDP_DNS_TYPE_HTTPS || type == BLOOMXDP_DNS_TYPE_SVCB)
		rdata += 2;
	if (rdata >= s->an.pos)
		goto bad;
	if (s->payload[rdata & PAYLOAD_MASK] == 0)
		return 0;
	/* A target read past its record is malformed. */
	pos = dns_name_read(s, rdata, s->an.end, 1);
	if (!pos || pos > s->an.pos)
		goto bad;
	s->rr_type = type;
	return 1;
bad:
	s->an.bad = 1;
	return 1;
}

/*
 * Where a DNS message lies in a response's UDP datagram or TCP segment: its
 * offset in the frame, *len its length. TCP: the message must be whole in
 * the segment, behind its 2-byte length. Returns 0, 1 for a segment without
 * payload (nothing to read), -1 for a message not readable here.
 */
static __always_inline int answers_locate(struct hook_ctx *ctx, const struct packet *pkt,
					  __u32 frame_len, __u32 *off, __u32 *len)
{
	__u8 doff;
	__be16 msg_len;

	if (pkt->l4_proto == IPPROTO_UDP) {
		*off = pkt->l4_off + sizeof(struct udphdr);
		*len = *off < frame_len ? frame_len - *off : 0;
		return 0;
	}
	if (hook_load_bytes(ctx, pkt->l4_off + 12, &doff, 1) || (doff >> 4) < 5)
		return -1;
	*off = pkt->l4_off + (doff >> 4) * 4;
	if (*off >= frame_len)
		return 1;
	if (hook_load_bytes(ctx, *off, &msg_len, sizeof(msg_len)) ||
	    *off + 2 + bpf_ntohs(msg_len) > frame_len)
		return -1;
	*off += 2;
	*len = bpf_ntohs(msg_len);
	return 0;
}

/*
 * The response's header and question: 0 with the question's name in s and
 * s->an.pos at the first answer, or -1 when it is no standard response.
 */
static __always_inline int answers_question(struct scratch *s)
{
	__u32 flags = payload_be16(s, 2), pos;

	if (!(flags & DNS_FLAG_QR) || (flags & DNS_OPCODE_MASK) || payload_be16(s, 4) != 1)
		return -1;
	/*
	 * A pointer in the question could only point into the header: refused,
	 * so the question lies whole at DNS_HDR_LEN (answer_learn() copies it).
	 */
	pos = dns_name_read(s, DNS_HDR_LEN, s->an.end, 1);
	if (!pos || s->dn.pointers || pos + DNS_QTYPE_QCLASS_LEN > s->an.end)
		return -1;
	s->question_end = pos + DNS_QTYPE_QCLASS_LEN;
	s->an.pos = s->question_end;
	s->an.left = payload_be16(s, 6);
	if (s->an.left > BLOOMXDP_DNS_ANSWERS_MAX) {
		s->an.left = BLOOMXDP_DNS_ANSWERS_MAX;
		s->an.bad = 1;	/* the records past them are not read */
	}
	s->rr_type = 0;
	return 0;
}

/*
 * The message of a response copied into s->payload, the walk's state set:
 * 0, else 1 (a TCP segment without payload, or a message not readable,
 * counted as unparsed_dns_answers). Counts checked_dns_answers. Global: its
 * stack is not on the chain of calls under dns_answers(), which on 6.1
 * passed 512 bytes with it.
 */
__attribute__((noinline)) int answers_load(struct hook_ctx *ctx, const struct packet *pkt,
					  const struct filter_header *fh, __u32 slot)
{
	__u32 frame_len = hook_len(ctx), off, len;
	struct scratch *s = scratch_get();
	struct bloomxdp_counters *cnt;
	__u32 zero = 0;
	int ret;

	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!fh || !s || !pkt || !cnt)
		return 1;
	if (pkt->ip_end < frame_len)
		frame_len = pkt->ip_end;
	ret = answers_locate(ctx, pkt, frame_len, &off, &len);
	if (ret > 0)
		return 1;
	if (ret < 0 || len < DNS_HDR_LEN + 1 + DNS_QTYPE_QCLASS_LEN)
		goto unparsed;
	if (len > PAYLOAD_MAX - 1)
		len = PAYLOAD_MAX - 1;	/* the records past it are not read */
	if (frame_load(ctx, off, s->payload, len, PAYLOAD_MASK))
		goto unparsed;
	s->suffix_slot = slot;
	s->an.v4_lengths = fh->v4_lengths;
	s->an.v6_lengths = fh->v6_lengths;
	s->an.end = len;
	s->an.learn = 0;
	s->an.bad = 0;
	if (answers_question(s))
		goto unparsed;
	cnt->checked_dns_answers++;
	return 0;
unparsed:
	cnt->unparsed_dns_answers++;
	return 1;
}

/*
 * A DNS response from a DNS port (UDP, or TCP with the message whole in the
 * segment): its question, then its answer records, looked up one at a time
 * until one is listed. Returns the action (enum bloomxdp_list_action) of
 * the record that decided in the low byte, with q->mi and the scratch's
 * rr_type and answer saying which, and above it the length of the message
 * up to its question's end (for an NXDOMAIN rewrite); 0 when it passes.
 * Global: verified once.
 */
__attribute__((noinline)) int dns_answers(struct hook_ctx *ctx, const struct packet *pkt,
					 const struct filter_header *fh, __u64 kinds,
					 struct addr_query *q)
{
	struct bloomxdp_counters *cnt;
	__u32 zero = 0, action, round;
	struct scratch *s = scratch_get();

	/*
	 * Few values live across the calls, the counters looked up again at
	 * the end: this function's stack is on the longest chain of calls.
	 */
	if (!s || !pkt || !q || answers_load(ctx, pkt, fh, q->gen.block_slot))
		return 0;
	s->an.kinds = kinds;
	s->an.q.gen = q->gen;
	s->an.q.filter_bits = q->filter_bits;
	s->rr_type = 0;
	action = answer_name(s, q);	/* the question */
	/* Each round reads one record at least: as many rounds as records read. */
	for (round = 0; !action && round < BLOOMXDP_DNS_ANSWERS_MAX; round++) {
		s->rr_type = 0;
		s->an.action = 0;
		bpf_loop_bounded(s->an.left, answer_step, NULL);
		if (s->an.action) {
			/* An address decided, in the walk: its match for the event. */
			action = s->an.action;
			q->mi = s->an.q.mi;
			break;
		}
		if (!s->rr_type)
			break;
		action = answer_name(s, q);
	}
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!cnt)
		return 0;
	if (s->an.bad)
		cnt->unparsed_dns_answers++;
	if (!action)
		return 0;
	cnt->hits_dns_answers++;
	if (q->mi.key_kind == BLOOMXDP_EVKEY_CANARY)
		cnt->doh_canary++;
	return (int)(action | s->question_end << 8);
}

#endif /* BLOOMXDP_DNS_ANSWERS_H */
