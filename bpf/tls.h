/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* TLS: the server_name of a ClientHello whose record starts in this segment. */
#ifndef BLOOMXDP_TLS_H
#define BLOOMXDP_TLS_H

#include "loop.h"
#include "scratch.h"

#define TLS_CONTENT_HANDSHAKE		22
#define TLS_HANDSHAKE_CLIENT_HELLO	1
#define TLS_EXT_SERVER_NAME		0
#define TLS_SNI_HOST_NAME		0
#define TLS_RECORD_HDR_LEN		5
#define TLS_HANDSHAKE_HDR_LEN		4
#define TLS_RANDOM_LEN			32
#define TLS_MAX_SESSION_ID		32
#define TLS_EXT_HDR_LEN			4	/* type, length */

static __always_inline int tls_load_u8(struct xdp_md *ctx, __u32 off, __u32 *out)
{
	__u8 v;

	if (bpf_xdp_load_bytes(ctx, off, &v, 1))
		return -1;
	*out = v;
	return 0;
}

static __always_inline int tls_load_u16(struct xdp_md *ctx, __u32 off, __u32 *out)
{
	__be16 v;

	if (bpf_xdp_load_bytes(ctx, off, &v, 2))
		return -1;
	*out = bpf_ntohs(v);
	return 0;
}

struct tls_ext_walk {
	struct xdp_md *ctx;
	__u32 pos;		/* at an extension's type */
	__u32 end;
	int found;		/* 1: pos is at server_name; -1: cut short */
};

static long tls_ext_step(__u32 i, void *data)
{
	struct tls_ext_walk *w = data;
	__be16 hdr[2];		/* type, length */

	(void)i;
	if (w->pos + TLS_EXT_HDR_LEN > w->end ||
	    bpf_xdp_load_bytes(w->ctx, w->pos, hdr, sizeof(hdr))) {
		w->found = -1;
		return 1;
	}
	if (hdr[0] == bpf_htons(TLS_EXT_SERVER_NAME)) {
		w->found = 1;
		return 1;
	}
	w->pos += TLS_EXT_HDR_LEN + bpf_ntohs(hdr[1]);
	return 0;
}

/*
 * Finds the server_name extension of a ClientHello in the TCP payload at off
 * (len bytes) and puts the name's labels in s. Returns 0, or -1 when the
 * payload is not a ClientHello, has no SNI, or the SNI lies beyond the segment.
 */
static __always_inline int tls_parse_client_hello(struct xdp_md *ctx, __u32 off, __u32 len,
						  struct scratch *s)
{
	struct tls_ext_walk ew = { .ctx = ctx, .end = off + len };
	__u32 pos, v, name_len;
	__u8 hdr[TLS_RECORD_HDR_LEN + TLS_HANDSHAKE_HDR_LEN];

	if (len < sizeof(hdr) || bpf_xdp_load_bytes(ctx, off, hdr, sizeof(hdr)))
		return -1;
	if (hdr[0] != TLS_CONTENT_HANDSHAKE || hdr[1] != 3 ||
	    hdr[5] != TLS_HANDSHAKE_CLIENT_HELLO)
		return -1;

	pos = off + sizeof(hdr) + 2 + TLS_RANDOM_LEN;	/* legacy_version, random */
	if (tls_load_u8(ctx, pos, &v) || v > TLS_MAX_SESSION_ID)
		return -1;
	pos += 1 + v;
	if (tls_load_u16(ctx, pos, &v))
		return -1;
	pos += 2 + v;					/* cipher suites */
	if (tls_load_u8(ctx, pos, &v))
		return -1;
	pos += 1 + v;					/* compression methods */
	if (tls_load_u16(ctx, pos, &v))
		return -1;
	ew.pos = pos + 2;				/* after the extensions length */
	if (ew.pos + v < ew.end)
		ew.end = ew.pos + v;			/* the walk stops at their end */
	if (ew.pos + TLS_EXT_HDR_LEN > ew.end)
		return -1;
	/* As many steps as extensions fit in what the segment holds of them: all. */
	bpf_loop_bounded((ew.end - ew.pos) / TLS_EXT_HDR_LEN, tls_ext_step, &ew);
	if (ew.found != 1)
		return -1;
	pos = ew.pos;

	/* server_name_list length (2), name_type (1), name length (2), name. */
	if (tls_load_u8(ctx, pos + 6, &v) || v != TLS_SNI_HOST_NAME ||
	    tls_load_u16(ctx, pos + 7, &name_len))
		return -1;
	if (name_len < 1 || name_len > BLOOMXDP_NAME_MAX || pos + 9 + name_len > ew.end)
		return -1;
	barrier_var(name_len);
	name_len &= BLOOMXDP_NAME_MAX;	/* a no-op the compiler must keep: the verifier needs it */
	if (name_len < 1 || bpf_xdp_load_bytes(ctx, pos + 9, s->name, name_len))
		return -1;
	return name_from_text(s, name_len);
}

#endif /* BLOOMXDP_TLS_H */
