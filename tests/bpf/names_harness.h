/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Name matching in the test harness: list entries inserted as the CLI inserts
 * them (entry_parse_line in auto format, then entry_keys_insert), and frames
 * that carry names: UDP DNS queries, TCP segments with HTTP requests or TLS
 * ClientHellos, over IPv4 or IPv6, with or without an 802.1Q tag. Runs can
 * return the frame the program wrote (XDP_TX answers).
 *
 * Header-only, static inline throughout, like xdp_harness.h.
 */
#ifndef NAMES_HARNESS_H
#define NAMES_HARNESS_H

#include <stdio.h>
#include "xdp_harness.h"
#include "filter/entry_keys.h"
#include "parse/entries.h"
#include "filter/suffix_map.h"

/* ------------------------------------------------------------ list entries */

/* As add: a key at a public depth marked listed in the live slot (0), then the filter. */
static inline int harness_entry_cb(const struct entry *e, void *ctx)
{
	struct xdp_harness *h = ctx;
	int fd = bpf_map__fd(h->lp.skel->maps.suffixes);
	struct suffix_map sk;
	__u64 key;

	suffix_map_init(&sk);
	if (e->kind != ENTRY_ADDR &&
	    !suffix_map_lookup(&sk, fd, h->config.hash_key, e->name) &&
	    suffix_map_entry(&sk, h->config.hash_key, e, &key))
		suffix_map_mark(fd, 0, &key, 1);
	suffix_map_free(&sk);
	entry_keys_insert(&h->lp.filter, e);
	return 0;
}

/* One list line, format auto, as `bloomxdp load` reads it: -EINVAL with why. */
static inline int harness_insert_entry(struct xdp_harness *h, const char *line, const char **why)
{
	char text[1024];

	if (snprintf(text, sizeof(text), "%s", line) >= (int)sizeof(text)) {
		*why = "line too long for the harness";
		return -EINVAL;
	}
	return entry_parse_line(text, FORMAT_AUTO, harness_entry_cb, h, why);
}

/* -------------------------------------------------------------- checksums */

/* One's complement sum of 16-bit big-endian words; an odd last byte is padded. */
static inline __u32 inet_sum(__u32 sum, const __u8 *p, __u32 len)
{
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static inline __u16 inet_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/*
 * The folded sum of the pseudo-header (RFC 768 / RFC 8200 8.1) and the L4
 * segment at l4 (len bytes), its checksum field included: 0xffff when valid.
 */
static inline __u16 l4_sum(const __u8 *frame, __u32 l3, __u32 l4, __u32 len, bool v6, __u8 proto)
{
	__u8 pseudo[40];
	__u32 sum;

	if (v6) {
		sum = inet_sum(0, frame + l3 + 8, 32);
		pseudo[0] = len >> 24;
		pseudo[1] = len >> 16;
		pseudo[2] = len >> 8;
		pseudo[3] = len;
		pseudo[4] = pseudo[5] = pseudo[6] = 0;
		pseudo[7] = proto;
		sum = inet_sum(sum, pseudo, 8);
	} else {
		sum = inet_sum(0, frame + l3 + 12, 8);
		pseudo[0] = 0;
		pseudo[1] = proto;
		put_be16(pseudo + 2, len);
		sum = inet_sum(sum, pseudo, 4);
	}
	return inet_fold(inet_sum(sum, frame + l4, len));
}

/* Writes the UDP or TCP checksum of the segment at l4 (len bytes). */
static inline void l4_set_checksum(__u8 *frame, __u32 l3, __u32 l4, __u32 len, bool v6,
				   __u8 proto)
{
	__u8 *check = frame + l4 + (proto == IPPROTO_TCP ? 16 : 6);
	__u16 sum;

	put_be16(check, 0);
	sum = ~l4_sum(frame, l3, l4, len, v6, proto) & 0xffff;
	put_be16(check, proto == IPPROTO_UDP && sum == 0 ? 0xffff : sum);
}

/* ------------------------------------------------------------ DNS payloads */

#define DNS_HDR_LEN	12
#define DNS_FLAG_QR	0x8000
#define DNS_FLAG_RD	0x0100
#define DNS_FLAG_RA	0x0080
#define DNS_FLAG_AD	0x0020
#define DNS_FLAG_CD	0x0010
#define DNS_OPCODE(op)	((op) << 11)

struct dns_desc {
	const char *qname;	/* dotted text, written label by label, lengths unchecked */
	const char *wire;	/* instead: the name's raw bytes (wire_len of them) */
	__u32 wire_len;
	__u16 flags;		/* besides RD */
	bool no_rd;
	bool qd_set;		/* QDCOUNT is qdcount, not the number of questions */
	__u16 qdcount;
	const char *qname2;	/* a second question */
	bool edns;		/* an OPT record (with a cookie) in the additional section */
	__u16 pad;		/* instead: an OPT record with a Padding option this long */
};

/* "a.b." to 1a1b0; "" and "." to the root. Returns the bytes written. */
static inline __u32 dns_put_name(struct frame *f, const char *name)
{
	__u32 start = f->len;
	const char *dot;
	size_t n;

	while (*name) {
		dot = strchr(name, '.');
		n = dot ? (size_t)(dot - name) : strlen(name);
		if (n == 0 && dot && !dot[1])
			break;		/* "." alone */
		*frame_put(f, 1) = n;
		memcpy(frame_put(f, n), name, n);
		name += n + (dot != NULL);
	}
	*frame_put(f, 1) = 0;
	return f->len - start;
}

static inline void dns_put_qtype_qclass(struct frame *f)
{
	__u8 *p = frame_put(f, 4);

	put_be16(p, 1);		/* A */
	put_be16(p + 2, 1);	/* IN */
}

/* A query; returns the length of header and first question (the answer's length). */
static inline __u32 dns_put_query(struct frame *f, const struct dns_desc *d)
{
	static const __u8 opt_cookie[] = {
		0,			/* root */
		0, 41,			/* OPT */
		0x04, 0xd0,		/* UDP payload size 1232 */
		0, 0, 0, 0,		/* extended RCODE, version, flags */
		0, 12,			/* RDLEN */
		0, 10, 0, 8,		/* COOKIE, client cookie of 8 bytes */
		1, 2, 3, 4, 5, 6, 7, 8,
	};
	__u32 start = f->len, question_end;
	__u8 *h = frame_put(f, DNS_HDR_LEN), *opt;

	put_be16(h, 0xbe0f);
	put_be16(h + 2, d->flags | (d->no_rd ? 0 : DNS_FLAG_RD));
	put_be16(h + 4, d->qd_set ? d->qdcount : d->qname2 ? 2 : 1);
	put_be16(h + 10, d->edns || d->pad);
	if (d->wire)
		memcpy(frame_put(f, d->wire_len), d->wire, d->wire_len);
	else
		dns_put_name(f, d->qname);
	dns_put_qtype_qclass(f);
	question_end = f->len - start;
	if (d->qname2) {
		dns_put_name(f, d->qname2);
		dns_put_qtype_qclass(f);
	}
	if (d->edns)
		memcpy(frame_put(f, sizeof(opt_cookie)), opt_cookie, sizeof(opt_cookie));
	if (d->pad && !d->edns) {
		/* The OPT record's fixed part as above, one option: Padding of zeros. */
		opt = frame_put(f, 15 + d->pad);
		memcpy(opt, opt_cookie, 9);
		put_be16(opt + 9, 4 + d->pad);		/* RDLEN */
		put_be16(opt + 11, 12);			/* Padding (RFC 7830) */
		put_be16(opt + 13, d->pad);
	}
	return question_end;
}

/* ----------------------------------------------------- TLS ClientHellos */

#define TLS_HANDSHAKE	22
#define TLS_CLIENT_HELLO 1

enum tls_cut {
	TLS_WHOLE,
	TLS_CUT_BEFORE_SNI,	/* the segment ends where server_name would start */
	TLS_CUT_IN_SNI,		/* ... in the middle of the name */
};

struct tls_desc {
	const char *sni;	/* NULL: no server_name extension */
	__u8 type;		/* record content type; 0: handshake */
	__u16 version;		/* record version; 0: 0x0301 (TLS 1.0, as TLS 1.3 sends) */
	__u8 hs_type;		/* handshake type; 0: ClientHello */
	__u16 before, after;	/* other extensions before and after server_name */
	__u16 pad;		/* then a padding extension (RFC 7685) of this many bytes */
	bool empty;		/* those extensions carry no data: 4 bytes each */
	__u32 fill;		/* before: as many empty ones as fill the frame to this length */
	bool no_session_id;
	enum tls_cut cut;
	const char *tail;	/* bytes after the record, in the same segment */
	__u32 tail_len;
	/* What browsers send besides (all off: the hello above, byte for byte). */
	__u16 key_share;	/* a key_share of this many bytes (1216: X25519MLKEM768's) first */
	bool share_after;	/* ... after server_name instead */
	bool ech;		/* an outer encrypted_client_hello (0xfe0d) after server_name */
	bool grease;		/* GREASE (RFC 8701): a cipher suite, an extension first and last */
	bool quic;		/* QUIC's: supported_versions, ALPN "h3", transport parameters */
};

/*
 * Extension i: GREASE values first (RFC 8701), then other unassigned ones;
 * i % 5 data bytes, or none when empty.
 */
static inline void tls_put_filler_ext(struct frame *f, __u32 i, bool empty)
{
	__u32 n = empty ? 0 : i % 5;
	__u8 *e = frame_put(f, 4 + n);

	put_be16(e, i < 16 ? 0x0a0a + 0x1010 * i : 0x3000 + i);
	put_be16(e + 2, n);
	memset(e + 4, i, n);
}

/* An extension of type and len bytes of data, returned (zeros). */
static inline __u8 *tls_put_ext(struct frame *f, __u16 type, __u32 len)
{
	__u8 *e = frame_put(f, 4 + len);

	put_be16(e, type);
	put_be16(e + 2, len);
	return e + 4;
}

/* key_share (RFC 8446 4.2.8) with one share of n bytes: X25519MLKEM768's, or X25519's. */
static inline void tls_put_key_share(struct frame *f, __u16 n)
{
	__u8 *e = tls_put_ext(f, 51, 2 + 4 + n);
	__u32 i;

	put_be16(e, 4 + n);
	put_be16(e + 2, n == 32 ? 0x001d : 0x11ec);
	put_be16(e + 4, n);
	for (i = 0; i < n; i++)
		e[6 + i] = 0x40 + i * 7;
}

/*
 * An outer encrypted_client_hello (draft-ietf-tls-esni 5): type outer, HKDF-SHA256 and
 * AES-128-GCM, a config id, a 32-byte enc and 144 bytes of payload.
 */
static inline void tls_put_ech(struct frame *f)
{
	__u8 *e = tls_put_ext(f, 0xfe0d, 1 + 4 + 1 + 2 + 32 + 2 + 144);

	e[0] = 0;			/* outer */
	put_be16(e + 1, 0x0001);	/* HKDF-SHA256 */
	put_be16(e + 3, 0x0001);	/* AES-128-GCM */
	e[5] = 0x2a;			/* config_id */
	put_be16(e + 6, 32);
	memset(e + 8, 0xec, 32);
	put_be16(e + 40, 144);
	memset(e + 42, 0xed, 144);
}

/* QUIC's ClientHello extensions: TLS 1.3 only, ALPN h3, a few transport parameters. */
static inline void tls_put_quic_exts(struct frame *f)
{
	static const __u8 params[] = {
		0x04, 0x04, 0x80, 0x10, 0x00, 0x00,	/* initial_max_data */
		0x08, 0x01, 0x10,			/* initial_max_streams_bidi */
		0x0f, 0x00,				/* initial_source_connection_id, empty */
	};
	__u8 *e;

	e = tls_put_ext(f, 43, 3);			/* supported_versions */
	e[0] = 2;
	put_be16(e + 1, 0x0304);
	e = tls_put_ext(f, 16, 5);			/* application_layer_protocol_negotiation */
	put_be16(e, 3);
	e[2] = 2;
	memcpy(e + 3, "h3", 2);
	memcpy(tls_put_ext(f, 57, sizeof(params)), params, sizeof(params));
}

/*
 * The ClientHello handshake message alone (type, length, body), as QUIC's CRYPTO frames
 * carry it (RFC 9001 4); *sni_name at the name's offset in f (0: none).
 */
static inline void tls_put_hello_msg(struct frame *f, const struct tls_desc *d, __u32 *sni_ext,
				     __u32 *sni_name)
{
	static const __u8 suites[] = { 0, 6, 0x13, 0x01, 0x13, 0x02, 0x13, 0x03 };
	__u32 hs = f->len, exts, i, n, before = d->before;
	__u8 *p;

	*sni_ext = *sni_name = 0;
	p = frame_put(f, 4);
	p[0] = d->hs_type ? d->hs_type : TLS_CLIENT_HELLO;
	put_be16(frame_put(f, 2), 0x0303);			/* legacy_version */
	for (p = frame_put(f, 32), i = 0; i < 32; i++)		/* random */
		p[i] = 0x5a ^ i;
	n = d->no_session_id ? 0 : 32;
	*frame_put(f, 1) = n;
	memset(frame_put(f, n), 0xcc, n);
	if (d->grease) {
		p = frame_put(f, 2 + 2 + sizeof(suites) - 2);
		put_be16(p, sizeof(suites));
		put_be16(p + 2, 0x4a4a);
		memcpy(p + 4, suites + 2, sizeof(suites) - 2);
	} else {
		memcpy(frame_put(f, sizeof(suites)), suites, sizeof(suites));
	}
	memcpy(frame_put(f, 2), "\x01\x00", 2);			/* compression: null */
	exts = f->len;
	frame_put(f, 2);
	if (d->grease)
		tls_put_ext(f, 0x9a9a, 0);
	if (d->key_share && !d->share_after)
		tls_put_key_share(f, d->key_share);
	if (d->quic)
		tls_put_quic_exts(f);
	if (d->fill)
		before = (d->fill - f->len - (d->sni ? 9 + strlen(d->sni) : 0)) / 4;
	for (i = 0; i < before; i++)
		tls_put_filler_ext(f, i, d->empty || d->fill);
	if (d->pad) {
		p = frame_put(f, 4 + d->pad);
		put_be16(p, 21);			/* padding, of zeros */
		put_be16(p + 2, d->pad);
	}
	if (d->sni) {
		n = strlen(d->sni);
		*sni_ext = f->len;
		p = frame_put(f, 9);
		put_be16(p + 2, 5 + n);			/* extension length */
		put_be16(p + 4, 3 + n);			/* server_name_list length */
		put_be16(p + 7, n);			/* host_name length, type 0 */
		*sni_name = f->len;
		memcpy(frame_put(f, n), d->sni, n);
	}
	if (d->ech)
		tls_put_ech(f);
	if (d->key_share && d->share_after)
		tls_put_key_share(f, d->key_share);
	for (i = 0; i < d->after; i++)
		tls_put_filler_ext(f, 1000 + i, d->empty);
	if (d->grease)
		*tls_put_ext(f, 0x1a1a, 1) = 0;
	put_be16(f->data + exts, f->len - exts - 2);
	f->data[hs + 1] = (f->len - hs - 4) >> 16;		/* handshake length */
	put_be16(f->data + hs + 2, f->len - hs - 4);
}

/* A ClientHello record, cut as asked; *sni_name at the name's offset in f (0: none). */
static inline void tls_put_client_hello(struct frame *f, const struct tls_desc *d,
					__u32 *sni_ext, __u32 *sni_name)
{
	__u32 start = f->len;
	__u8 *p;

	p = frame_put(f, 5);
	p[0] = d->type ? d->type : TLS_HANDSHAKE;
	put_be16(p + 1, d->version ? d->version : 0x0301);
	tls_put_hello_msg(f, d, sni_ext, sni_name);
	put_be16(f->data + start + 3, f->len - start - 5);	/* record length */
	if (d->tail)
		memcpy(frame_put(f, d->tail_len), d->tail, d->tail_len);
	if (d->cut == TLS_CUT_BEFORE_SNI && *sni_ext)
		frame_truncate(f, *sni_ext);
	else if (d->cut == TLS_CUT_IN_SNI && *sni_name)
		frame_truncate(f, *sni_name + strlen(d->sni) / 2);
}

/* --------------------------------------------------------------- packets */

enum app { APP_NONE, APP_DNS, APP_HTTP, APP_TLS, APP_RAW };

/* Encapsulations a packet is tried in. */
enum {
	FAM_V4 = 1,
	FAM_V6 = 2,
	FAM_V4_VLAN = 4,
	FAM_V6_VLAN = 8,
	FAM_ALL = 15,
	N_FAMS = 4,
};

static inline const char *fam_name(int fam)
{
	switch (fam) {
	case FAM_V4:		return "v4";
	case FAM_V6:		return "v6";
	case FAM_V4_VLAN:	return "v4 802.1Q";
	default:		return "v6 802.1Q";
	}
}

/* A packet in a few fields; zero is the common choice everywhere. */
struct pkt {
	enum app app;
	__u8 fams;		/* FAM_* it makes sense in; 0: all */
	/* Set by the runner from the encapsulation. */
	bool v6, vlan;
	bool outer_tag;		/* an 802.1ad tag outside (802.1ad + 802.1Q with vlan) */
	const char *src, *dst;	/* NULL: FRAME_SRC4/6, FRAME_DST4/6 */
	__u8 ttl;		/* IPv4 TTL / IPv6 hop limit; 0: 64 */
	__u8 ihl;		/* IPv4 IHL; 0: 5 */
	__u16 frag_off;		/* IPv4 flags|offset */
	const __u8 *ext;	/* IPv6 extension headers (xdp_harness.h types) */
	__u32 n_ext;
	__u16 frag6;		/* the offset and M field of its fragment headers; 0: atomic */
	__u16 dstopts_len;	/* IPv6: first, one destination options header this long */
	const char *dstopts_dns; /* a DNS query for this name in it, at its byte 8 (an option) */
	__u8 l4;		/* IPPROTO_UDP/TCP; 0: UDP for DNS, else TCP */
	__u16 dport;		/* 0: 53, 80, 443 by app */
	__u8 tcp_flags;		/* 0: PSH|ACK with a payload, ACK without */
	__u8 tcp_opt;		/* bytes of TCP options (NOPs), a multiple of 4 */
	__u8 tcp_doff;		/* a data offset of its own (a malformed one); 0: the header's */
	struct dns_desc dns;
	const char *http;
	struct tls_desc tls;
	const char *raw;
	__u32 raw_len;
	__u32 keep;		/* payload bytes kept (a short datagram/segment); 0: all */
	__u32 trailer;		/* zero bytes after the IP packet, e.g. Ethernet padding */
	__u32 lost;		/* bytes the IP packet's lengths count, cut off the frame */
	__u32 linear;		/* bytes in the first buffer; 0: as the kernel splits it */
};

/* A built frame and where its layers start. */
struct built {
	struct frame f;
	__u32 l3, l4, payload;	/* offsets */
	__u8 proto;
	__u32 dns_question_end;	/* DNS: header and first question, from the payload start */
	__u32 ip_end;		/* end of the IP packet (before any trailer) */
};

static inline __u16 pkt_dport(const struct pkt *p)
{
	if (p->dport)
		return p->dport;
	return p->app == APP_DNS ? 53 : p->app == APP_TLS ? 443 : 80;
}

static inline __u8 pkt_proto(const struct pkt *p)
{
	if (p->l4)
		return p->l4;
	return p->app == APP_DNS ? IPPROTO_UDP : IPPROTO_TCP;
}

/*
 * A DNS query for name that is also an IPv6 option: its ID is the option's
 * type (0x1e, skipped by whoever does not know it) and data length.
 */
static inline void dns_query_option(struct frame *q, const char *name)
{
	q->len = 0;
	dns_put_query(q, &(struct dns_desc){ .qname = name });
	assert(q->len - 2 <= 255);
	q->data[0] = 0x1e;
	q->data[1] = q->len - 2;
}

static inline int pkt_build(const struct pkt *p, struct built *b)
{
	__u16 ethertype = p->v6 ? ETH_P_IPV6 : ETH_P_IP;
	int af = p->v6 ? AF_INET6 : AF_INET;
	struct frame *f = &b->f, opt = { .len = 0 };
	__u8 src[16], dst[16], first, *h;
	__u32 i, sni_ext, sni_name;

	memset(b, 0, sizeof(*b));
	b->proto = pkt_proto(p);
	if (inet_pton(af, p->src ? p->src : p->v6 ? FRAME_SRC6 : FRAME_SRC4, src) != 1 ||
	    inet_pton(af, p->dst ? p->dst : p->v6 ? FRAME_DST6 : FRAME_DST4, dst) != 1)
		return -EINVAL;
	frame_eth(f, p->outer_tag ? ETH_P_8021AD : p->vlan ? ETH_P_8021Q : ethertype);
	if (p->outer_tag)
		frame_vlan(f, 200, p->vlan ? ETH_P_8021Q : ethertype);
	if (p->vlan)
		frame_vlan(f, 100, ethertype);
	b->l3 = f->len;
	if (!p->v6) {
		struct iphdr *iph = frame_ipv4(f, src, dst, p->ihl ? p->ihl : 5, b->proto,
					       p->frag_off);

		iph->ttl = p->ttl ? p->ttl : 64;
	} else {
		first = p->dstopts_len ? IPPROTO_DSTOPTS : p->n_ext ? p->ext[0] : b->proto;
		frame_ipv6(f, src, dst, first)->ip6_hlim = p->ttl ? p->ttl : 64;
		if (p->dstopts_dns)
			dns_query_option(&opt, p->dstopts_dns);
		if (p->dstopts_len)
			frame_ipv6_dstopts(f, p->n_ext ? p->ext[0] : b->proto, p->dstopts_len,
					   p->dstopts_dns ? opt.data : NULL, opt.len);
		for (i = 0; i < p->n_ext; i++)
			frame_ipv6_ext(f, p->ext[i], i + 1 < p->n_ext ? p->ext[i + 1] : b->proto,
				       p->frag6);
	}

	b->l4 = f->len;
	h = frame_put(f, b->proto == IPPROTO_TCP ? TCP_HLEN + p->tcp_opt : UDP_HLEN);
	put_be16(h, 40000);
	put_be16(h + 2, pkt_dport(p));
	if (b->proto == IPPROTO_TCP) {
		put_be16(h + 4, 0x1000);		/* sequence number */
		put_be16(h + 10, 0x2000);		/* acknowledgment number */
		h[12] = (p->tcp_doff ? p->tcp_doff : (TCP_HLEN + p->tcp_opt) / 4) << 4;
		h[13] = p->tcp_flags ? p->tcp_flags :
			p->app == APP_NONE ? 0x10 : 0x18;
		put_be16(h + 14, 0xffff);		/* window */
		memset(h + TCP_HLEN, 1, p->tcp_opt);	/* NOPs */
	}

	b->payload = f->len;
	if (p->app == APP_DNS && b->proto == IPPROTO_TCP)
		frame_put(f, 2);			/* DNS over TCP: length prefix */
	switch (p->app) {
	case APP_DNS:
		b->dns_question_end = dns_put_query(f, &p->dns);
		if (b->proto == IPPROTO_TCP)
			put_be16(f->data + b->payload, f->len - b->payload - 2);
		break;
	case APP_HTTP:
		memcpy(frame_put(f, strlen(p->http)), p->http, strlen(p->http));
		break;
	case APP_TLS:
		tls_put_client_hello(f, &p->tls, &sni_ext, &sni_name);
		break;
	case APP_RAW:
		memcpy(frame_put(f, p->raw_len), p->raw, p->raw_len);
		break;
	case APP_NONE:
		break;
	}
	if (p->keep)
		frame_truncate(f, b->payload + p->keep);

	/* Lengths and checksums as a sender writes them, for what was kept. */
	if (b->proto == IPPROTO_UDP)
		put_be16(f->data + b->l4 + 4, f->len - b->l4);
	frame_finish(f, ethertype, b->l3);
	l4_set_checksum(f->data, b->l3, b->l4, f->len - b->l4, p->v6, b->proto);
	frame_truncate(f, f->len - p->lost);
	b->ip_end = f->len;
	frame_put(f, p->trailer);
	return 0;
}

/* ------------------------------------------------------------------ runs */

/*
 * Runs a frame, linear bytes of it in the first buffer (0: as the kernel
 * splits it; see xdp_test_run_linear()); out (if not NULL) receives the frame
 * as the program left it, delta (if not NULL) what the run added to each
 * counter.
 */
static inline int harness_run_frame_split(struct xdp_harness *h, const struct frame *in,
					  __u32 linear, struct frame *out, __u32 *verdict,
					  struct bloomxdp_counters *delta)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in->data, .data_size_in = in->len);
	struct xdp_md md = { .data_end = linear };
	struct bloomxdp_counters before;
	size_t i;
	int ret;

	if (linear) {
		opts.ctx_in = &md;
		opts.ctx_size_in = sizeof(md);
	}
	if (out) {
		opts.data_out = out->data;
		opts.data_size_out = sizeof(out->data);
	}
	if (delta && (ret = harness_counters(h, &before)))
		return ret;
	if (bpf_prog_test_run_opts(h->prog_fd, &opts))
		return -errno;
	*verdict = opts.retval;
	if (out)
		out->len = opts.data_size_out;
	if (delta && (ret = harness_counters(h, delta)))
		return ret;
	for (i = 0; delta && i < HARNESS_NCOUNTERS; i++)
		*counter_at(delta, i) -= *counter_at(&before, i);
	return 0;
}

static inline int harness_run_frame(struct xdp_harness *h, const struct frame *in,
				    struct frame *out, __u32 *verdict,
				    struct bloomxdp_counters *delta)
{
	return harness_run_frame_split(h, in, 0, out, verdict, delta);
}

static inline const char *verdict_name(__u32 verdict)
{
	static const char *const names[] = { "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
					     "XDP_REDIRECT" };

	return verdict < sizeof(names) / sizeof(names[0]) ? names[verdict] : "unknown";
}

#endif /* NAMES_HARNESS_H */
