/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A reference model of the XDP program's parse path, written from docs/design.md
 * ("Parsing and verdicts", "Matching names") and not from bpf/parsing.h:
 * which of the classes that partition the frames a frame falls in (malformed
 * and why, a third VLAN tag, not IP, IPv4, IPv6), fragments, an IPv6 chain
 * not walked to its end, where L4 starts, and which name matcher the
 * destination port sends the frame to, with or without a payload.
 *
 * Header-only, static inline throughout.
 */
#ifndef FUZZ_MODEL_H
#define FUZZ_MODEL_H

#include <bloomxdp/quic.h>
#include "fuzz_gen.h"

enum m_class {
	/*
	 * Shorter than an Ethernet header: xdp_test_run() pads it into a
	 * fragment, and the program sees an Ethernet header past its first
	 * buffer (split_headers), not a frame too short (bad_eth).
	 */
	M_SPLIT_ETH,
	M_BAD_VLAN,		/* a tag cut short */
	M_VLAN_TOO_DEEP,	/* a third tag: passed unchecked */
	M_NON_IP,
	M_BAD_IPV4,		/* IPv4 header cut short, or version not 4 */
	M_BAD_IPV4_IHL,		/* IHL below 5 or beyond the frame */
	M_BAD_IPV6,		/* IPv6 header cut short, or version not 6 */
	M_IPV4,
	M_IPV6,
};

static const char *const m_class_names[] = {
	"split_eth", "bad_vlan", "vlan_too_deep", "non_ip", "bad_ipv4", "bad_ipv4_ihl", "bad_ipv6",
	"ipv4", "ipv6",
};

/* The name matcher a frame goes to (bpf/bloomxdp.bpf.c has the same five). */
enum m_field { F_NONE, F_DNS, F_HTTP, F_TLS, F_DNS_TCP, F_QUIC, F_DNS_ANSWER };

static const char *const m_field_names[] = { "none", "dns", "http", "tls", "dns-tcp", "quic",
					     "dns-answer" };

struct model {
	enum m_class cls;
	__u32 len;
	__u32 l3, l4;		/* offsets of the IP and L4 headers */
	__u32 ip_end;		/* l3 + the IP packet's length: no payload past it */
	int l4_proto;		/* -1: not reached (later fragment, chain not walked to its end) */
	bool fragment;		/* an atomic IPv6 fragment (offset 0, M=0) is none */
	bool ext_unparsed;	/* IPv6 extension chain cut short or deeper than the walk */
	__u32 n_ext;		/* IPv6 extension headers walked */
	__u16 dport;		/* 0 when the ports are not in the frame */
	__u16 sport;
	const __u8 *src, *dst;
};

static inline bool m_is_vlan(__u16 type)
{
	return type == ETH_P_8021Q || type == ETH_P_8021AD;
}

/* Extension headers (docs/design.md): hop-by-hop, routing, fragment, dstopts, mobility, AH. */
static inline bool m_is_ext(int next)
{
	return next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING || next == IPPROTO_FRAGMENT ||
	       next == IPPROTO_DSTOPTS || next == IPPROTO_MH || next == IPPROTO_AH;
}

static inline void model_parse(const __u8 *d, __u32 len, struct model *m)
{
	__u32 pos = ETH_HLEN, i, hl, frag = 0;
	__u16 type;
	int next;

	memset(m, 0, sizeof(*m));
	m->len = len;
	m->l4_proto = -1;
	if (len < ETH_HLEN) {
		m->cls = M_SPLIT_ETH;
		return;
	}
	type = get_be16(d + 12);
	for (i = 0; i < BLOOMXDP_MAX_VLANS && m_is_vlan(type); i++) {
		if (pos + VLAN_HLEN > len) {
			m->cls = M_BAD_VLAN;
			return;
		}
		type = get_be16(d + pos + 2);
		pos += VLAN_HLEN;
	}
	if (m_is_vlan(type)) {
		m->cls = M_VLAN_TOO_DEEP;
		return;
	}
	if (type != ETH_P_IP && type != ETH_P_IPV6) {
		m->cls = M_NON_IP;
		return;
	}
	m->l3 = pos;
	if (type == ETH_P_IP) {
		if (pos + IP4_HLEN > len || d[pos] >> 4 != 4) {
			m->cls = M_BAD_IPV4;
			return;
		}
		hl = (d[pos] & 15) * 4;
		if (hl < IP4_HLEN || pos + hl > len) {
			m->cls = M_BAD_IPV4_IHL;
			return;
		}
		m->cls = M_IPV4;
		m->src = d + pos + 12;
		m->dst = d + pos + 16;
		m->ip_end = pos + get_be16(d + pos + 2);
		m->fragment = (get_be16(d + pos + 6) & 0x3fff) != 0;	/* MF or an offset */
		m->l4 = pos + hl;
		/* A first fragment has the L4 header; a later one does not. */
		m->l4_proto = get_be16(d + pos + 6) & 0x1fff ? -1 : d[pos + 9];
	} else {
		if (pos + IP6_HLEN > len || d[pos] >> 4 != 6) {
			m->cls = M_BAD_IPV6;
			return;
		}
		m->cls = M_IPV6;
		m->src = d + pos + 8;
		m->dst = d + pos + 24;
		m->ip_end = pos + IP6_HLEN + get_be16(d + pos + 4);
		next = d[pos + 6];
		pos += IP6_HLEN;
		/* Up to BLOOMXDP_MAX_IPV6_EXT headers, each whole in the frame. */
		for (i = 0; i < BLOOMXDP_MAX_IPV6_EXT && m_is_ext(next); i++) {
			if (pos + 2 > len)
				break;
			hl = next == IPPROTO_FRAGMENT ? 8 :
			     next == IPPROTO_AH ? (d[pos + 1] + 2) * 4u : (d[pos + 1] + 1) * 8u;
			if (pos + hl > len)
				break;
			if (next == IPPROTO_FRAGMENT)
				frag |= get_be16(d + pos + 2) & 0xfff9;	/* offset, M */
			next = d[pos];
			pos += hl;
		}
		m->n_ext = i;
		m->l4 = pos;
		m->ext_unparsed = m_is_ext(next);
		m->fragment = frag != 0;
		m->l4_proto = (frag & 0xfff8) || m->ext_unparsed ? -1 : next;
	}
	if (m->l4 + 4 <= len) {
		m->dport = get_be16(d + m->l4 + 2);
		m->sport = get_be16(d + m->l4);
	}
}

static inline bool m_port_in(const __u16 ports[BLOOMXDP_MAX_PORTS], __u16 port)
{
	int i;

	for (i = 0; i < BLOOMXDP_MAX_PORTS; i++)
		if (port && ports[i] == port)
			return true;
	return false;
}

/* The matcher for a protocol and port: its own ports first (docs/design.md, --*-ports). */
static inline enum m_field model_field(const struct bloomxdp_config *cfg, const struct model *m)
{
	__u32 match = cfg->match;

	if (m->l4_proto == IPPROTO_UDP) {
		if ((match & BLOOMXDP_MATCH_DNS) && m_port_in(cfg->dns_ports, m->dport))
			return F_DNS;
		/* From a DNS port (and not to one, a query's): a response. */
		if ((match & BLOOMXDP_MATCH_DNS_ANSWERS) && m_port_in(cfg->dns_ports, m->sport))
			return F_DNS_ANSWER;
		if ((match & BLOOMXDP_MATCH_SNI) && m_port_in(cfg->quic_ports, m->dport))
			return F_QUIC;
	} else if (m->l4_proto == IPPROTO_TCP) {
		if ((match & BLOOMXDP_MATCH_HTTP) && m_port_in(cfg->http_ports, m->dport))
			return F_HTTP;
		if ((match & BLOOMXDP_MATCH_SNI) && m_port_in(cfg->tls_ports, m->dport))
			return F_TLS;
		if ((match & BLOOMXDP_MATCH_DNS) && m_port_in(cfg->dns_ports, m->dport))
			return F_DNS_TCP;
		if ((match & BLOOMXDP_MATCH_DNS_ANSWERS) && m_port_in(cfg->dns_ports, m->sport))
			return F_DNS_ANSWER;
	}
	return F_NONE;
}

/* The end of what a name parser may read: the frame, or the IP packet if shorter. */
static inline __u32 model_payload_end(const struct model *m)
{
	return m->ip_end < m->len ? m->ip_end : m->len;
}

/* What the QUIC reader makes of a UDP payload before any crypto (bpf/quic.h, quic_open()). */
enum m_quic { MQ_NONE, MQ_UNSEEN, MQ_UNPARSED, MQ_INITIAL };

static inline enum m_quic model_quic_class(const struct model *m, const __u8 *d)
{
	__u32 off = m->l4 + UDP_HLEN, end = model_payload_end(m), version;
	int type;

	if (off >= end || end - off < 6 || !(d[off] & 0x80))
		return MQ_UNSEEN;	/* too short, or a short header */
	version = (__u32)d[off + 1] << 24 | d[off + 2] << 16 | d[off + 3] << 8 | d[off + 4];
	type = bloomxdp_quic_initial_type(version);
	if (type < 0)	/* version negotiation, and the reserved versions: no connection */
		return version && (version & 0x0f0f0f0f) != 0x0a0a0a0a ? MQ_UNPARSED : MQ_UNSEEN;
	return ((d[off] >> 4) & 3) == type ? MQ_INITIAL : MQ_UNSEEN;
}

/* A UDP datagram with at least one payload byte in the IP packet. */
static inline bool model_udp_payload(const struct model *m)
{
	return m->l4 + UDP_HLEN < model_payload_end(m);
}

/*
 * A TCP segment with a payload: a data offset of 5 or more whose end lies
 * inside the IP packet. A data offset below 5, or a header cut before it,
 * is passed without moving any name counter, by the program as here.
 */
/* A TCP header cut before its data offset, or with one below 5: counted as unparsed. */
static inline bool model_tcp_malformed(const struct model *m, const __u8 *d)
{
	return m->l4 + 13 > m->len || (d[m->l4 + 12] >> 4) < 5;
}

/*
 * Whether a TCP payload (model_tcp_payload()) starts as a ClientHello does:
 * a handshake record of version 3.x holding a ClientHello, as far as it goes.
 * unparsed_tls counts only those (and bad TCP headers); other records pass
 * uncounted.
 */
static inline bool model_tls_hello_start(const struct model *m, const __u8 *d)
{
	__u32 off = m->l4 + (d[m->l4 + 12] >> 4) * 4, len = model_payload_end(m) - off;

	return d[off] == 22 && (len < 2 || d[off + 1] == 3) && (len < 6 || d[off + 5] == 1);
}

static inline bool model_tcp_payload(const struct model *m, const __u8 *d)
{
	__u32 doff;

	if (m->l4 + 13 > m->len)
		return false;
	doff = d[m->l4 + 12] >> 4;
	return doff >= 5 && m->l4 + doff * 4 < model_payload_end(m);
}

/*
 * The DNS matcher after docs/design.md: one standard query (QR 0, opcode 0),
 * QDCOUNT 1, a QNAME of labels of 1 to 63 bytes ending in the root label
 * within 255 bytes, then QTYPE and QCLASS, all inside the payload. When it
 * parses: name is the QNAME as dotted text, ASCII lower case (*text_ok false
 * when a label holds a dot or a NUL: the text would then misstate its
 * labels), and *question_end the length of header and question.
 */
static inline bool model_dns(const __u8 *d, const struct model *m, char name[BLOOMXDP_NAME_BUF],
			     bool *text_ok, __u32 *question_end)
{
	__u32 off = m->l4 + UDP_HLEN, end = model_payload_end(m), len, n, pos = 0, l, i;
	const __u8 *q;
	char *t = name;
	__u8 c;

	*text_ok = true;
	name[0] = '\0';
	if (off >= end || end - off < DNS_HDR_LEN + 1 + 4)
		return false;
	len = end - off;
	if ((get_be16(d + off + 2) & 0xf800) || get_be16(d + off + 4) != 1)
		return false;
	n = len - DNS_HDR_LEN < BLOOMXDP_NAME_MAX ? len - DNS_HDR_LEN : BLOOMXDP_NAME_MAX;
	q = d + off + DNS_HDR_LEN;
	for (;;) {
		if (pos >= n)
			return false;
		l = q[pos];
		if (l == 0)
			break;
		if (l > BLOOMXDP_LABEL_MAX || pos + 1 + l > n)
			return false;
		if (t != name)
			*t++ = '.';
		for (i = 0; i < l; i++) {
			c = q[pos + 1 + i];
			*text_ok &= c != '.' && c != '\0';
			*t++ = c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c;
		}
		pos += 1 + l;
	}
	*t = '\0';
	*question_end = DNS_HDR_LEN + pos + 1 + 4;
	return *question_end <= len;
}

/* ------------------------------------------------ DNS responses (dns-answers) */

/*
 * A DNS response after docs/design.md "DNS answers" and the contract
 * (include/bloomxdp/common.h), not after bpf/dns_answers.h: where the
 * message lies, whether its header and question are read, and the names
 * and addresses looked up in order (the question first, then the A, AAAA,
 * CNAME, DNAME, HTTPS and SVCB records of class IN among the first
 * BLOOMXDP_DNS_ANSWERS_MAX), until a record is malformed.
 */
#define MA_MSG_MAX	2047	/* bytes of a message read (PAYLOAD_MAX - 1) */
#define MA_NAME_STEPS	(128 + BLOOMXDP_DNS_POINTERS_MAX)	/* labels and pointers */
#define MA_ITEMS	(1 + BLOOMXDP_DNS_ANSWERS_MAX)

enum m_answers {
	MA_NONE,	/* a TCP segment without payload: nothing counted */
	MA_UNPARSED,	/* unparsed_dns_answers, nothing looked up */
	MA_CHECKED,	/* checked_dns_answers: the items looked up */
};

struct ma_item {
	__u16 rr_type;		/* 0: the question */
	bool addr, v6;
	bool text_ok;		/* the name's dotted text says its labels */
	__u8 a[16];
	char name[BLOOMXDP_NAME_BUF];
};

struct m_answers_walk {
	enum m_answers res;
	__u32 n;			/* items, in the order they are looked up */
	struct ma_item items[MA_ITEMS];
	bool bad;			/* a record after the items is malformed */
	bool over;			/* ANCOUNT above BLOOMXDP_DNS_ANSWERS_MAX */
	__u32 msg;			/* the message's offset in the frame */
	__u32 question_end;		/* header and question */
};

/*
 * The name at pos of a message of end bytes: where it ends as it lies, 0
 * when it is malformed (a pointer not before the last position followed,
 * more than BLOOMXDP_DNS_POINTERS_MAX of them, a label type 0x40/0x80, more
 * than 255 bytes when read, past the message). An owner name (text NULL)
 * that is one pointer is not followed. With text: the dotted name, lower case.
 */
static inline __u32 ma_name(const __u8 *msg, __u32 pos, __u32 end, char *text, bool *text_ok)
{
	__u32 floor = pos, next = 0, n = 0, pointers = 0, step, l, target, i;
	char *t = text;

	if (!text && pos + 1 < end && (msg[pos] & 0xc0) == 0xc0)
		return pos + 2;
	for (step = 0; step < MA_NAME_STEPS; step++) {
		if (pos >= end)
			return 0;
		l = msg[pos];
		if (l == 0) {
			if (text)
				*t = '\0';
			return pointers ? next : pos + 1;
		}
		if ((l & 0xc0) == 0xc0) {
			if (pos + 1 >= end)
				return 0;
			target = (l & 0x3f) << 8 | msg[pos + 1];
			if (!pointers)
				next = pos + 2;
			if (target >= floor || ++pointers > BLOOMXDP_DNS_POINTERS_MAX)
				return 0;
			floor = pos = target;
			continue;
		}
		if (l > BLOOMXDP_LABEL_MAX || pos + 1 + l > end)
			return 0;
		if (text) {
			if (n + 1 + l + 1 > BLOOMXDP_NAME_MAX)
				return 0;
			if (t != text)
				*t++ = '.';
			for (i = 0; i < l; i++) {
				__u8 c = msg[pos + 1 + i];

				*text_ok &= c != '.' && c != '\0';
				*t++ = c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c;
			}
		}
		n += 1 + l;
		pos += 1 + l;
	}
	return 0;
}

/* One record at *pos: 1 with an item, 0 for none, -1 malformed. */
static inline int ma_record(const __u8 *msg, __u32 *pos, __u32 end, struct ma_item *it)
{
	__u32 p = ma_name(msg, *pos, end, NULL, NULL), type, rdlen, rdata, rend;

	if (!p || p + 10 > end)
		return -1;
	type = get_be16(msg + p);
	rdlen = get_be16(msg + p + 8);
	rdata = p + 10;
	if (rdata + rdlen > end)
		return -1;
	*pos = rend = rdata + rdlen;
	if (get_be16(msg + p + 2) != BLOOMXDP_DNS_CLASS_IN)
		return 0;
	memset(it, 0, sizeof(*it));
	it->rr_type = type;
	if ((type == BLOOMXDP_DNS_TYPE_A && rdlen == 4) ||
	    (type == BLOOMXDP_DNS_TYPE_AAAA && rdlen == 16)) {
		it->addr = true;
		it->v6 = type == BLOOMXDP_DNS_TYPE_AAAA;
		memcpy(it->a, msg + rdata, rdlen);
		return 1;
	}
	if (type != BLOOMXDP_DNS_TYPE_CNAME && type != BLOOMXDP_DNS_TYPE_DNAME &&
	    type != BLOOMXDP_DNS_TYPE_HTTPS && type != BLOOMXDP_DNS_TYPE_SVCB)
		return 0;
	if (type == BLOOMXDP_DNS_TYPE_HTTPS || type == BLOOMXDP_DNS_TYPE_SVCB)
		rdata += 2;		/* SvcPriority */
	if (rdata >= rend)
		return -1;
	if (msg[rdata] == 0)
		return 0;		/* ".": the owner, nothing to look up */
	it->text_ok = true;
	p = ma_name(msg, rdata, end, it->name, &it->text_ok);
	return p && p <= rend ? 1 : -1;
}

/* Where the message lies: 0, 1 for a TCP segment without payload, -1 not readable. */
static inline int ma_locate(const __u8 *d, const struct model *m, __u32 *off, __u32 *len)
{
	__u32 end = model_payload_end(m), doff;

	if (m->l4_proto == IPPROTO_UDP) {
		*off = m->l4 + UDP_HLEN;
		*len = *off < end ? end - *off : 0;
		return 0;
	}
	if (m->l4 + 13 > m->len || (doff = d[m->l4 + 12] >> 4) < 5)
		return -1;
	*off = m->l4 + doff * 4;
	if (*off >= end)
		return 1;
	if (*off + 2 > end || *off + 2 + get_be16(d + *off) > end)
		return -1;
	*len = get_be16(d + *off);
	*off += 2;
	return 0;
}

static inline void model_answers(const __u8 *d, const struct model *m, struct m_answers_walk *w)
{
	__u32 off, len, pos, left, flags;
	const __u8 *msg;
	int ret;

	memset(w, 0, offsetof(struct m_answers_walk, items));
	w->bad = w->over = false;
	w->n = 0;
	ret = ma_locate(d, m, &off, &len);
	w->res = ret > 0 ? MA_NONE : MA_UNPARSED;
	if (ret || len < DNS_HDR_LEN + 1 + 4)
		return;
	if (len > MA_MSG_MAX)
		len = MA_MSG_MAX;
	msg = d + off;
	w->msg = off;
	flags = get_be16(msg + 2);
	if (!(flags & 0x8000) || (flags & 0x7800) || get_be16(msg + 4) != 1)
		return;
	memset(&w->items[0], 0, sizeof(w->items[0]));
	w->items[0].text_ok = true;
	pos = ma_name(msg, DNS_HDR_LEN, len, w->items[0].name, &w->items[0].text_ok);
	if (!pos || pos + 4 > len)
		return;
	w->res = MA_CHECKED;
	w->n = 1;
	w->question_end = pos + 4;
	pos = w->question_end;
	left = get_be16(msg + 6);
	if (left > BLOOMXDP_DNS_ANSWERS_MAX) {
		left = BLOOMXDP_DNS_ANSWERS_MAX;
		w->over = true;
	}
	for (; left; left--) {
		ret = ma_record(msg, &pos, len, &w->items[w->n]);
		if (ret < 0) {
			w->bad = true;
			return;
		}
		w->n += ret;
	}
}

#endif /* FUZZ_MODEL_H */
