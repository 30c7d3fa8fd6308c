/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QUIC on the wire for the tests and the fuzzer: a builder of protected
 * client packets (RFC 9000 17.2, RFC 9001 5, RFC 9369 3), frames to put in
 * them, a client's first flight (a ClientHello of names_harness.h's
 * tls_put_hello_msg() in CRYPTO frames over as many Initials as it takes),
 * and a reader that opens a packet again with the same user-space code
 * (include/bloomxdp/quic.h), as the XDP program does.
 *
 * The packets are protected as a client protects them, keys derived from the
 * DCID, except for the AEAD tag: its 16 bytes are zeros. The filter never
 * checks tags (it reads and passes or drops; nothing decrypted is sent on),
 * and a test that needs a valid tag has no use for this builder. Packets of
 * other types than Initial (0-RTT, Handshake) are protected with the Initial
 * keys too: for the filter they are packets it must leave alone, whatever
 * their keys; a Retry has no protection at all (a token and a tag).
 *
 * Header-only, static inline throughout, like the harness it builds on. The
 * UDP payload goes into a frame with APP_RAW (struct pkt's raw, raw_len).
 */
#ifndef QUIC_WIRE_H
#define QUIC_WIRE_H

#include <bloomxdp/quic.h>
#include "names_harness.h"

#define QUIC_MIN_DATAGRAM	1200	/* a client's Initial datagram (RFC 9000 14.1) */

/* Long header packet types, as v1 numbers them (RFC 9000 17.2); v2's are these + 1. */
enum quic_type {
	QUIC_INITIAL,
	QUIC_0RTT,
	QUIC_HANDSHAKE,
	QUIC_RETRY,
};

/* ------------------------------------------------------------ varints */

/* The bytes of v's shortest encoding (RFC 9000 16). */
static inline __u32 quic_varint_len(__u64 v)
{
	return v < 64 ? 1 : v < 16384 ? 2 : v < (1U << 30) ? 4 : 8;
}

/* v in n bytes (1, 2, 4 or 8; 0: the fewest). */
static inline void quic_put_varint(struct frame *f, __u64 v, __u32 n)
{
	static const __u8 prefix[9] = { [1] = 0x00, [2] = 0x40, [4] = 0x80, [8] = 0xc0 };
	__u8 *p;
	__u32 i;

	if (!n)
		n = quic_varint_len(v);
	assert((n == 1 || n == 2 || n == 4 || n == 8) && quic_varint_len(v) <= n);
	p = frame_put(f, n);
	for (i = 0; i < n; i++)
		p[i] = v >> (8 * (n - 1 - i));
	p[0] |= prefix[n];
}

/* A varint at p (at most len bytes): its bytes, 0 if cut short. */
static inline __u32 quic_get_varint(const __u8 *p, __u32 len, __u64 *v)
{
	__u32 n, i;

	if (!len)
		return 0;
	n = 1U << (p[0] >> 6);
	if (n > len)
		return 0;
	*v = p[0] & 0x3f;
	for (i = 1; i < n; i++)
		*v = *v << 8 | p[i];
	return n;
}

/* ------------------------------------------------------------- frames */

static inline void quic_frame_padding(struct frame *f, __u32 n)
{
	frame_put(f, n);			/* zeros: PADDING, one byte each */
}

static inline void quic_frame_ping(struct frame *f)
{
	*frame_put(f, 1) = BLOOMXDP_QUIC_FRAME_PING;
}

/* ACK of one range: largest down to largest - first_range. */
static inline void quic_frame_ack(struct frame *f, __u64 largest, __u64 delay, __u64 first_range)
{
	*frame_put(f, 1) = BLOOMXDP_QUIC_FRAME_ACK;
	quic_put_varint(f, largest, 0);
	quic_put_varint(f, delay, 0);
	quic_put_varint(f, 0, 0);		/* ACK Range Count */
	quic_put_varint(f, first_range, 0);
}

/* CRYPTO: len bytes of the handshake stream from offset. */
static inline void quic_frame_crypto(struct frame *f, __u64 offset, const void *data, __u32 len)
{
	*frame_put(f, 1) = BLOOMXDP_QUIC_FRAME_CRYPTO;
	quic_put_varint(f, offset, 0);
	quic_put_varint(f, len, 0);
	memcpy(frame_put(f, len), data, len);
}

/* One frame of a decrypted payload. */
struct quic_frame_view {
	__u8 type;
	__u32 len;		/* its bytes; PADDING: the run of zeros */
	__u64 offset;		/* CRYPTO */
	const __u8 *data;	/* CRYPTO: its data */
	__u32 data_len;
	__u64 largest, delay, first_range;	/* ACK */
};

/* The varint at p + *at (len bytes in all), *at moved past it: 0, or -EINVAL. */
static inline int quic_take_varint(const __u8 *p, __u32 len, __u32 *at, __u64 *v)
{
	__u32 n = quic_get_varint(p + *at, len - *at, v);

	*at += n;
	return n ? 0 : -EINVAL;
}

/* The frame at p (len bytes left): 0, or -EINVAL for one cut short or of another type. */
static inline int quic_next_frame(const __u8 *p, __u32 len, struct quic_frame_view *v)
{
	__u64 count, n;
	__u32 at = 1;

	memset(v, 0, sizeof(*v));
	if (!len)
		return -EINVAL;
	v->type = p[0];
	switch (v->type) {
	case BLOOMXDP_QUIC_FRAME_PADDING:
		while (at < len && !p[at])
			at++;
		break;
	case BLOOMXDP_QUIC_FRAME_PING:
		break;
	case BLOOMXDP_QUIC_FRAME_ACK:
		if (quic_take_varint(p, len, &at, &v->largest) ||
		    quic_take_varint(p, len, &at, &v->delay) ||
		    quic_take_varint(p, len, &at, &count) || count ||
		    quic_take_varint(p, len, &at, &v->first_range))
			return -EINVAL;
		break;
	case BLOOMXDP_QUIC_FRAME_CRYPTO:
		if (quic_take_varint(p, len, &at, &v->offset) ||
		    quic_take_varint(p, len, &at, &n) || n > len - at)
			return -EINVAL;
		v->data = p + at;
		v->data_len = n;
		at += n;
		break;
	default:
		return -EINVAL;
	}
	v->len = at;
	return 0;
}

/* ------------------------------------------------------------ packets */

/* A client's packet; zero is the common choice everywhere but dcid_len and the payload. */
struct quic_pkt {
	__u32 version;			/* 0: v1 */
	enum quic_type type;
	__u8 dcid[BLOOMXDP_QUIC_CID_MAX], dcid_len;
	__u8 scid[BLOOMXDP_QUIC_CID_MAX], scid_len;
	const __u8 *token;		/* Initial's token; Retry's, with its tag after */
	__u32 token_len;
	__u64 pn;			/* the packet number, of which pn_len bytes are sent */
	__u8 pn_len;			/* 1 to 4; 0: 4 */
	__u8 length_len;		/* the Length varint's bytes; 0: 2, as clients send it */
	const __u8 *payload;		/* the frames, in clear */
	__u32 payload_len;
	/*
	 * The DCID whose keys protect it; keys_dcid_len 0: dcid. A client's
	 * Initials after the server's first carry the server's CID, still under
	 * the keys of the client's first DCID (RFC 9001 5.2).
	 */
	__u8 keys_dcid[BLOOMXDP_QUIC_CID_MAX], keys_dcid_len;
};

static inline __u32 quic_version(const struct quic_pkt *p)
{
	return p->version ? p->version : BLOOMXDP_QUIC_V1;
}

/* The Long Packet Type bits of type in version (RFC 9369 3.2: v2's are v1's + 1). */
static inline __u8 quic_wire_type(__u32 version, enum quic_type type)
{
	return version == BLOOMXDP_QUIC_V2 ? (type + 1) & 3 : type;
}

/* The client's Initial keys of version (v1's for any other) from a DCID. */
static inline void quic_client_keys(__u32 version, const __u8 *dcid, __u32 dcid_len,
				    struct bloomxdp_quic_keys *keys)
{
	struct bloomxdp_quic_derive d = { 0 };

	d.version = bloomxdp_quic_initial_type(version) < 0 ? BLOOMXDP_QUIC_V1 : version;
	d.dcid_len = dcid_len;
	memcpy(d.dcid, dcid, dcid_len);
	assert(bloomxdp_quic_derive(&d) == 0);
	*keys = d.keys;
}

/* len bytes at p XORed with the payload key stream of pn from byte 0 (counter 2). */
static inline void quic_ctr_xor(const struct bloomxdp_quic_keys *keys, __u64 pn, __u8 *p,
				__u32 len)
{
	struct bloomxdp_block blk;
	struct bloomxdp_aes128 ks;
	__u32 i;

	bloomxdp_aes128_expand(&ks, &keys->key);
	for (i = 0; i < len; i++) {
		if (i % 16 == 0) {
			bloomxdp_quic_ctr_block(&keys->iv, pn, 2 + i / 16, &blk);
			bloomxdp_aes128_encrypt(&ks, &blk);
		}
		p[i] ^= blk.b[i % 16];
	}
}

/* The header protection mask of the sample at p (RFC 9001 5.4.3). */
static inline void quic_hp_mask(const struct bloomxdp_quic_keys *keys, const __u8 *sample,
				struct bloomxdp_block *mask)
{
	struct bloomxdp_aes128 ks;

	memcpy(mask->b, sample, BLOOMXDP_QUIC_SAMPLE_LEN);
	bloomxdp_aes128_expand(&ks, &keys->hp);
	bloomxdp_aes128_encrypt(&ks, mask);
}

/* The long header up to the Length field (a Retry's whole, but its tag). */
static inline void quic_put_header(struct frame *f, const struct quic_pkt *p, __u8 pn_len)
{
	__u32 version = quic_version(p);
	__u8 *h;

	h = frame_put(f, 1 + 4);
	h[0] = 0xc0 | quic_wire_type(version, p->type) << 4 |
	       (p->type == QUIC_RETRY ? 0 : pn_len - 1);
	h[1] = version >> 24;
	h[2] = version >> 16;
	h[3] = version >> 8;
	h[4] = version;
	*frame_put(f, 1) = p->dcid_len;
	memcpy(frame_put(f, p->dcid_len), p->dcid, p->dcid_len);
	*frame_put(f, 1) = p->scid_len;
	memcpy(frame_put(f, p->scid_len), p->scid, p->scid_len);
	if (p->type == QUIC_INITIAL)
		quic_put_varint(f, p->token_len, 0);
	if (p->type == QUIC_INITIAL || p->type == QUIC_RETRY)
		memcpy(frame_put(f, p->token_len), p->token, p->token_len);
}

/*
 * The protected packet appended to f (a datagram may coalesce several): header, Length,
 * packet number, payload, zero tag; then header protection. Returns the packet's offset
 * in f. The payload must be long enough for the sample: pn_len + payload_len >= 4.
 */
static inline __u32 quic_put_packet(struct frame *f, const struct quic_pkt *p)
{
	__u8 pn_len = p->pn_len ? p->pn_len : 4, *pn;
	struct bloomxdp_quic_keys keys;
	struct bloomxdp_block mask;
	__u32 start = f->len, pn_off, i;

	assert(pn_len <= 4 && p->dcid_len <= BLOOMXDP_QUIC_CID_MAX &&
	       p->scid_len <= BLOOMXDP_QUIC_CID_MAX && p->keys_dcid_len <= BLOOMXDP_QUIC_CID_MAX);
	quic_put_header(f, p, pn_len);
	if (p->type == QUIC_RETRY) {
		frame_put(f, BLOOMXDP_QUIC_TAG_LEN);		/* the Retry Integrity Tag */
		return start;
	}
	assert(pn_len + p->payload_len >= 4);
	quic_put_varint(f, pn_len + p->payload_len + BLOOMXDP_QUIC_TAG_LEN,
			p->length_len ? p->length_len : 2);
	pn_off = f->len;
	pn = frame_put(f, pn_len);
	for (i = 0; i < pn_len; i++)
		pn[i] = p->pn >> (8 * (pn_len - 1 - i));
	memcpy(frame_put(f, p->payload_len), p->payload, p->payload_len);
	frame_put(f, BLOOMXDP_QUIC_TAG_LEN);
	if (p->keys_dcid_len)
		quic_client_keys(quic_version(p), p->keys_dcid, p->keys_dcid_len, &keys);
	else
		quic_client_keys(quic_version(p), p->dcid, p->dcid_len, &keys);
	quic_ctr_xor(&keys, p->pn, f->data + pn_off + pn_len, p->payload_len);
	/* The sample starts 4 bytes past the packet number's start (RFC 9001 5.4.2). */
	quic_hp_mask(&keys, f->data + pn_off + 4, &mask);
	f->data[start] ^= mask.b[0] & 0x0f;
	for (i = 0; i < pn_len; i++)
		f->data[pn_off + i] ^= mask.b[1 + i];
	return start;
}

/* ---------------------------------------------------------- reading */

/* A packet opened: its header's fields and its payload in clear. */
struct quic_opened {
	__u32 version;
	__u8 type;				/* the Long Packet Type bits */
	__u8 dcid[BLOOMXDP_QUIC_CID_MAX], dcid_len;
	__u8 scid[BLOOMXDP_QUIC_CID_MAX], scid_len;
	__u32 token_off, token_len;		/* in the packet */
	__u64 pn;				/* truncated: the pn_len bytes sent */
	__u8 pn_len;
	__u8 payload[FRAME_MAX];
	__u32 payload_len;			/* without the tag */
	__u32 len;				/* the packet's bytes: the next starts there */
};

/* A connection ID of at most BLOOMXDP_QUIC_CID_MAX bytes at b + *at; -EINVAL past len. */
static inline int quic_get_cid(const __u8 *b, __u32 len, __u32 *at, __u8 *cid, __u8 *cid_len)
{
	if (*at >= len || b[*at] > BLOOMXDP_QUIC_CID_MAX || b[*at] > len - *at - 1)
		return -EINVAL;
	*cid_len = b[*at];
	memcpy(cid, b + *at + 1, *cid_len);
	*at += 1 + *cid_len;
	return 0;
}

/*
 * The long header at b (at most len bytes) into o, up to the packet number, which starts
 * at *pn_off; o->len the packet's bytes. 0, or -EINVAL (a short header, a Retry, a
 * version without Initial keys, a packet cut short or too short for its sample).
 */
static inline int quic_parse_header(const __u8 *b, __u32 len, struct quic_opened *o,
				    __u32 *pn_off)
{
	__u32 at = 5;
	__u64 x;

	memset(o, 0, offsetof(struct quic_opened, payload));
	if (len < 7 || (b[0] & 0xc0) != 0xc0)
		return -EINVAL;
	o->version = (__u32)b[1] << 24 | b[2] << 16 | b[3] << 8 | b[4];
	o->type = (b[0] >> 4) & 3;
	if (bloomxdp_quic_initial_type(o->version) < 0 ||
	    o->type == quic_wire_type(o->version, QUIC_RETRY) ||
	    quic_get_cid(b, len, &at, o->dcid, &o->dcid_len) ||
	    quic_get_cid(b, len, &at, o->scid, &o->scid_len))
		return -EINVAL;
	if (o->type == quic_wire_type(o->version, QUIC_INITIAL)) {
		if (quic_take_varint(b, len, &at, &x) || x > len - at)
			return -EINVAL;
		o->token_off = at;
		o->token_len = x;
		at += x;
	}
	if (quic_take_varint(b, len, &at, &x) || x > len - at ||
	    x < 4 + BLOOMXDP_QUIC_SAMPLE_LEN)
		return -EINVAL;
	*pn_off = at;
	o->len = at + x;
	return 0;
}

/*
 * The Initial (or 0-RTT, Handshake) packet at b, of at most len bytes, opened with the
 * client's Initial keys of its DCID: 0, or -EINVAL (see quic_parse_header()).
 */
static inline int quic_open_packet(const __u8 *b, __u32 len, struct quic_opened *o)
{
	struct bloomxdp_quic_keys keys;
	struct bloomxdp_block mask;
	__u32 i, pn_off;

	if (quic_parse_header(b, len, o, &pn_off))
		return -EINVAL;
	quic_client_keys(o->version, o->dcid, o->dcid_len, &keys);
	quic_hp_mask(&keys, b + pn_off + 4, &mask);
	o->pn_len = ((b[0] ^ (mask.b[0] & 0x0f)) & 3) + 1;
	if (o->len - pn_off < (__u32)o->pn_len + BLOOMXDP_QUIC_TAG_LEN)
		return -EINVAL;
	for (i = 0; i < o->pn_len; i++)
		o->pn = o->pn << 8 | (b[pn_off + i] ^ mask.b[1 + i]);
	o->payload_len = o->len - pn_off - o->pn_len - BLOOMXDP_QUIC_TAG_LEN;
	memcpy(o->payload, b + pn_off + o->pn_len, o->payload_len);
	quic_ctr_xor(&keys, o->pn, o->payload, o->payload_len);
	return 0;
}

/* ------------------------------------------------------- a first flight */

/*
 * The handshake stream hello (len bytes) in CRYPTO frames of at most chunk bytes, one
 * per Initial of tmpl (packet numbers tmpl->pn, + 1, ...), each datagram padded to
 * QUIC_MIN_DATAGRAM, into dgrams[0..n). Returns n; at most max.
 */
static inline __u32 quic_put_flight(struct frame *dgrams, __u32 max, const struct quic_pkt *tmpl,
				    const __u8 *hello, __u32 len, __u32 chunk)
{
	struct frame *payload = calloc(1, sizeof(*payload));
	struct quic_pkt p = *tmpl;
	__u32 n = 0, off = 0, take, overhead;

	assert(payload);
	while (off < len) {
		assert(n < max);
		take = len - off < chunk ? len - off : chunk;
		payload->len = 0;
		quic_frame_crypto(payload, off, hello + off, take);
		dgrams[n].len = 0;
		p.pn = tmpl->pn + n;
		p.payload = payload->data;
		p.payload_len = payload->len;
		/* What the header and tag add, to pad the datagram to its minimum. */
		quic_put_packet(&dgrams[n], &p);
		overhead = dgrams[n].len - payload->len;
		if (dgrams[n].len < QUIC_MIN_DATAGRAM) {
			quic_frame_padding(payload, QUIC_MIN_DATAGRAM - overhead - payload->len);
			p.payload_len = payload->len;
			dgrams[n].len = 0;
			quic_put_packet(&dgrams[n], &p);
		}
		off += take;
		n++;
	}
	free(payload);
	return n;
}

/* A QUIC client's ClientHello message as browsers send it, for quic_put_flight(). */
static inline void quic_client_hello(struct frame *f, const struct tls_desc *desc,
				     __u32 *sni_name)
{
	struct tls_desc d = *desc;
	__u32 sni_ext;

	d.quic = true;
	tls_put_hello_msg(f, &d, &sni_ext, sni_name);
}

#endif /* QUIC_WIRE_H */
