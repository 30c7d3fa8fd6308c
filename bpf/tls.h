/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* TLS: the server_name of a ClientHello whose record starts in this segment. */
#ifndef BLOOMXDP_TLS_H
#define BLOOMXDP_TLS_H

#include "loop.h"
#include "parsing.h"
#include "scratch.h"

#define TLS_CONTENT_HANDSHAKE		22
#define TLS_HANDSHAKE_CLIENT_HELLO	1
#define TLS_EXT_SERVER_NAME		0
#define TLS_EXT_ECH			0xfe0d	/* encrypted_client_hello */
#define TLS_SNI_HOST_NAME		0
#define TLS_RECORD_HDR_LEN		5
#define TLS_HANDSHAKE_HDR_LEN		4
#define TLS_RANDOM_LEN			32
#define TLS_MAX_SESSION_ID		32
#define TLS_EXT_HDR_LEN			4	/* type, length */
/*
 * The most of a segment read: a record's header and its longest plaintext
 * (2^14 bytes, RFC 8446 5.1), where a ClientHello's first record ends. A
 * jumbo frame's segment holds more; the walk of its extensions, a step per
 * extension, stays within 4,097 steps.
 */
#define TLS_SEGMENT_MAX			(TLS_RECORD_HDR_LEN + 16384)

/*
 * The first TLS_WINDOW bytes of the segment are copied once; fields in them
 * are read from the copy, fields past them from the frame, one helper call
 * each. The copy covers the fixed part of a ClientHello and its first
 * extensions.
 */
#define TLS_WINDOW	512

struct tls_window {
	struct hook_ctx *ctx;
	__u32 off;		/* the segment's payload in the frame */
	__u32 len;		/* bytes of it in s->payload */
};

/* n (1, 2 or 4) bytes at frame offset pos >= off. */
static __always_inline int tls_bytes(const struct tls_window *tw, const struct scratch *s,
				     __u32 pos, void *out, __u32 n)
{
	__u32 rel = pos - tw->off;

	if (rel + n <= tw->len) {
		__builtin_memcpy(out, s->payload + (rel & (PAYLOAD_MAX - 1)), n);
		return 0;
	}
	return hook_load_bytes(tw->ctx, pos, out, n) ? -1 : 0;
}

static __always_inline int tls_load_u8(const struct tls_window *tw, const struct scratch *s,
				       __u32 pos, __u32 *out)
{
	__u8 v;

	if (tls_bytes(tw, s, pos, &v, 1))
		return -1;
	*out = v;
	return 0;
}

static __always_inline int tls_load_u16(const struct tls_window *tw, const struct scratch *s,
					__u32 pos, __u32 *out)
{
	__be16 v;

	if (tls_bytes(tw, s, pos, &v, 2))
		return -1;
	*out = bpf_ntohs(v);
	return 0;
}

/*
 * The walk's position lives in s->walk_pos, not in its context: read back
 * from the map it is unknown to the verifier, whose walk of the steps then
 * converges instead of following each position.
 */
struct tls_ext_walk {
	struct tls_window tw;
	__u32 end;
	__u32 sni;		/* where server_name starts; 0: not seen */
	int ech;		/* 1: an encrypted_client_hello extension */
	int cut;		/* 1: an extension's header past the segment */
};

static long tls_ext_step(__u32 i, void *data)
{
	struct tls_ext_walk *w = data;
	struct scratch *s = scratch_get();
	__be16 hdr[2];		/* type, length */
	__u32 pos;

	(void)i;
	if (!s) {
		w->cut = 1;
		return 1;
	}
	pos = s->walk_pos;
	if (pos + TLS_EXT_HDR_LEN > w->end)
		return 1;	/* the extensions' end */
	if (tls_bytes(&w->tw, s, pos, hdr, sizeof(hdr))) {
		w->cut = 1;
		return 1;
	}
	/* On past the name to the end: ECH, when there, may come after it. */
	if (hdr[0] == bpf_htons(TLS_EXT_SERVER_NAME) && !w->sni)
		w->sni = pos;
	else if (hdr[0] == bpf_htons(TLS_EXT_ECH))
		w->ech = 1;
	s->walk_pos = pos + TLS_EXT_HDR_LEN + bpf_ntohs(hdr[1]);
	return 0;
}

/*
 * A segment shorter than a record and handshake header (len < 9 bytes): 1
 * unless its bytes are those a ClientHello starts with (-1: a ClientHello
 * cut short, or split on purpose to hide its SNI).
 */
static __always_inline int tls_short_segment(struct hook_ctx *ctx, __u32 off, __u32 len,
					     struct scratch *s)
{
	if (frame_load(ctx, off, s->payload, len, 7))
		return 1;
	if (s->payload[0] != TLS_CONTENT_HANDSHAKE || (len > 1 && s->payload[1] != 3) ||
	    (len > 5 && s->payload[5] != TLS_HANDSHAKE_CLIENT_HELLO))
		return 1;
	return -1;
}

/*
 * Finds the server_name extension of a ClientHello in the TCP payload at off
 * (len bytes) and puts the name's labels in s. Returns 0; 1 when the payload
 * is no ClientHello (another record: ChangeCipherSpec, application data, a
 * later handshake message); -1 for a ClientHello whose SNI cannot be read: it
 * has none, is malformed, or the SNI lies beyond the segment (or beyond its
 * first TLS_SEGMENT_MAX bytes). The walk goes on to the extensions' end:
 * s->ech says whether one of them was encrypted_client_hello.
 */
static __always_inline int tls_parse_client_hello(struct hook_ctx *ctx, __u32 off, __u32 len,
						  struct scratch *s)
{
	struct tls_ext_walk ew = { .tw = { .ctx = ctx, .off = off } };
	__u32 pos, v, name_len, win = len < TLS_WINDOW ? len : TLS_WINDOW;
	__u8 hdr[TLS_RECORD_HDR_LEN + TLS_HANDSHAKE_HDR_LEN];

	s->ech = 0;
	ew.end = off + (len < TLS_SEGMENT_MAX ? len : TLS_SEGMENT_MAX);

	barrier_var(win);
	win &= 2 * TLS_WINDOW - 1;	/* a no-op the compiler must keep: the verifier needs it */
	if (len < sizeof(hdr))
		return tls_short_segment(ctx, off, len, s);
	if (win < sizeof(hdr) || hook_load_bytes(ctx, off, s->payload, win))
		return -1;
	ew.tw.len = win;
	__builtin_memcpy(hdr, s->payload, sizeof(hdr));
	if (hdr[0] != TLS_CONTENT_HANDSHAKE || hdr[1] != 3 ||
	    hdr[5] != TLS_HANDSHAKE_CLIENT_HELLO)
		return 1;

	pos = off + sizeof(hdr) + 2 + TLS_RANDOM_LEN;	/* legacy_version, random */
	if (tls_load_u8(&ew.tw, s, pos, &v) || v > TLS_MAX_SESSION_ID)
		return -1;
	pos += 1 + v;
	if (tls_load_u16(&ew.tw, s, pos, &v))
		return -1;
	pos += 2 + v;					/* cipher suites */
	if (tls_load_u8(&ew.tw, s, pos, &v))
		return -1;
	pos += 1 + v;					/* compression methods */
	if (tls_load_u16(&ew.tw, s, pos, &v))
		return -1;
	pos += 2;					/* after the extensions length */
	if (pos + v < ew.end)
		ew.end = pos + v;			/* the walk stops at their end */
	if (pos + TLS_EXT_HDR_LEN > ew.end)
		return -1;
	s->walk_pos = pos;
	/* As many steps as extensions fit in what the segment holds of them: all. */
	bpf_loop_bounded((ew.end - pos) / TLS_EXT_HDR_LEN, tls_ext_step, &ew);
	s->ech = ew.ech;
	if (!ew.sni)
		return -1;
	pos = ew.sni;

	/* server_name_list length (2), name_type (1), name length (2), name. */
	if (tls_load_u8(&ew.tw, s, pos + 6, &v) || v != TLS_SNI_HOST_NAME ||
	    tls_load_u16(&ew.tw, s, pos + 7, &name_len))
		return -1;
	if (name_len < 1 || name_len > BLOOMXDP_NAME_MAX || pos + 9 + name_len > ew.end)
		return -1;
	if (frame_load(ctx, pos + 9, s->name, name_len, BLOOMXDP_NAME_BUF - 1))
		return -1;
	return name_from_text(s, name_len);
}

#endif /* BLOOMXDP_TLS_H */
