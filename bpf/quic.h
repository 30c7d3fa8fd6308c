/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QUIC: the server_name of the ClientHello a client's Initial packets carry
 * (QUIC v1, RFC 9000/9001; v2, RFC 9369). An Initial's keys come from its
 * Destination Connection ID and a published salt, so anyone on the path can
 * read it: the keys are derived (include/bloomxdp/quic.h: HKDF-SHA256 and
 * AES-128 in plain BPF), header protection is removed, and only the blocks
 * that hold what the walk needs are decrypted (counter mode: block i of the
 * payload is its ciphertext XOR AES(key, nonce || i + 2)). The GCM tag is
 * never checked: nothing decrypted is sent on, and a forged packet gains
 * nothing a plain one would not (it can only name a name).
 *
 * The walk reads CRYPTO frames in any order (Chrome shuffles them, with PING
 * and PADDING between) and follows a ClientHello over several packets: when
 * the hello goes on past what a packet holds (post-quantum key shares make it
 * span two or three), the walk's state, the keys and the name are kept in an
 * LRU map (quic_conns) keyed by the client's address, port and SCID, and the
 * next packet of the connection resumes it. A walk that found the name is
 * kept too, the hello whole in one packet or not: the client's Initials
 * after the server's (an ACK) carry the server's CID under the keys of the
 * first DCID, and get the kept verdict. The bytes a packet holds past the
 * one the walk waits for go to the walk's stash (Chrome's first Initial holds
 * its hello's head and tail, the second the middle). Limits, each counted as
 * unparsed_quic (with --quic-unparsed drop the client sends them again): a
 * part past what the stash holds (QUIC_STASH bytes in one run),
 * QUIC_MAX_FRAMES CRYPTO frames a packet, QUIC_STEPS steps of walk a packet,
 * QUIC_CONNS connections read at once (the least recently kept are evicted),
 * and packet numbers as their encoding holds them (a client's first
 * Initials: 0, 1, 2...).
 *
 * Decryption costs microseconds where a drop costs nanoseconds, and anyone
 * can send Initials: each packet decrypted takes one of config.quic_per_sec
 * a second of its CPU; past it, Initials are handled as unparsed
 * (quic_budget_spent).
 */
#ifndef BLOOMXDP_BPF_QUIC_H
#define BLOOMXDP_BPF_QUIC_H

#include <bloomxdp/quic.h>
#include "budget.h"
#include "hook.h"
#include "loop.h"
#include "maps.h"
#include "parsing.h"
#include "scratch.h"
#include "tls.h"

#define QUIC_MAX_FRAMES		16	/* CRYPTO frames of a packet followed */
#define QUIC_STEPS		512	/* steps of one packet's walk: frames and fields */
#define QUIC_CONNS		2048	/* connections whose walk is kept at once */
#define QUIC_STASH		1024	/* bytes of a later part of a hello kept: a power of two */
/* A kept walk serves Initials this long after it was kept: a handshake's retransmissions. */
#define QUIC_KEEP_NS		(10ULL * 1000000000ULL)
#define QUIC_NAME_STEP		16	/* bytes of the name copied a step */
#define QUIC_NO_NEED		0xffffffff

/* The ClientHello's fixed part: its handshake header, legacy_version and random. */
#define QUIC_HELLO_FIXED	(TLS_HANDSHAKE_HDR_LEN + 2 + TLS_RANDOM_LEN)
#define QUIC_ACK_RANGES_MAX	8	/* an ACK frame with more ranges ends the frame walk */

/* Where the ClientHello's walk is (struct quic_walk's phase). */
enum quic_phase {
	QW_HELLO = 0,		/* its handshake header, at stream offset 0 */
	QW_SESSION,		/* legacy_session_id's length at pos */
	QW_SUITES,
	QW_COMPRESSION,
	QW_EXTENSIONS,		/* the extensions' length */
	QW_EXT,			/* an extension's type and length at pos */
	QW_SNI,			/* server_name at pos: its name's type and length at pos + 6 */
	QW_NAME,		/* the name's bytes from pos */
	QW_END,			/* every extension walked */
};

/* How a walk of a packet stopped. */
enum quic_run {
	QR_GOING = 0,
	QR_END,			/* the extensions' end */
	QR_PENDING,		/* the next bytes are in a later packet */
	QR_BAD,			/* no ClientHello, or a malformed one, or QUIC_STEPS spent */
};

/*
 * A ClientHello's walk: what a later packet of the connection resumes,
 * kept in quic_conns between packets. Stream offsets are the CRYPTO
 * stream's.
 */
struct quic_walk {
	struct bloomxdp_quic_keys keys;
	__u32 version;
	__u32 phase;		/* enum quic_phase */
	__u32 pos;		/* stream offset of the next field */
	__u32 hello_end;	/* the ClientHello's end */
	__u32 ext_end;		/* its extensions' end */
	__u32 ext_next;		/* QW_SNI, QW_NAME: the extension after server_name */
	__u32 name_len;
	__u32 copied;		/* QW_NAME: bytes of the name in name */
	__u32 named;		/* 1: name holds the whole server_name */
	__u32 ech;		/* 1: an encrypted_client_hello extension was seen */
	__u32 got;		/* bytes of the field at pos read so far (an earlier packet's) */
	__u32 acc;		/* ... and their value */
	__u32 token_len;	/* the Initials' token: a Retry's makes a new connection */
	__u64 kept_at;		/* when it was last kept (the coarse clock) */
	__u32 stash_off;	/* the stream offset of stash[0] */
	__u32 stash_len;	/* bytes in stash: 0, none */
	__u8 name[BLOOMXDP_NAME_BUF];
	/*
	 * CRYPTO bytes an earlier packet held past the one the walk waited
	 * for: Chrome's first Initial carries its hello's head and its tail,
	 * the second the middle.
	 */
	__u8 stash[QUIC_STASH];
};

/*
 * A connection's key in quic_conns: the client's address and port, and its
 * Source Connection ID. Not the DCID: once the server answers, the client's
 * later Initials carry the server's choice of CID, still protected with the
 * keys of its first DCID (RFC 9001 5.2), which the walk keeps. A client
 * without one (Chrome sends an empty SCID) is its address and port alone:
 * its second Initial may go out after the server's answer, under the
 * server's CID. A new connection from the same port within QUIC_KEEP_NS
 * would resume the last one's walk: kept walks expire.
 */
struct quic_conn_key {
	__u8 addr[16];		/* IPv4: the first 4 bytes */
	__u8 cid[BLOOMXDP_QUIC_CID_MAX];
	__u16 port;
	__u8 cid_len;
	__u8 family;		/* 4, 6 */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, QUIC_CONNS);
	__type(key, struct quic_conn_key);
	__type(value, struct quic_walk);
} quic_conns SEC(".maps");

/* A CRYPTO frame of the packet: its stream offset, length and place in the payload. */
struct quic_frame {
	__u32 off;
	__u32 len;
	__u32 at;
};

/* Per CPU: the work space of a packet's read, too large for the stack. */
struct quic_scratch {
	struct bloomxdp_quic_derive derive;
	struct bloomxdp_aes128 aes;	/* header protection's key, then the payload's */
	struct bloomxdp_block blk;	/* a block being worked on */
	struct bloomxdp_block plain;	/* the plaintext of payload block `cached` */
	struct quic_walk w;
	struct quic_conn_key key;
	struct quic_frame frames[QUIC_MAX_FRAMES];
	__u64 pn;			/* the packet number */
	__u32 nframes;
	__u32 fpos;			/* the frame walk's next byte, in the payload */
	__u32 fdone;			/* no more frames to walk: 1, the payload's end; 2, a bad frame */
	__u32 need;			/* a stream offset the frame walk looks for */
	__u32 cached;			/* the payload block in plain; QUIC_NO_NEED: none */
	__u32 pl_off;			/* the payload in the frame */
	__u32 ct_len;			/* its ciphertext bytes: the payload less the tag */
	__u32 stream_end;		/* the end of the CRYPTO data this packet holds */
	__u32 walked;			/* 1: the walk came from quic_conns, or moved */
	__u32 resumed;			/* 1: the walk came from quic_conns */
	__u32 stashed;			/* 1: every byte past q->need went to w.stash */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct quic_scratch);
} quic_scratch SEC(".maps");

/* The decryptions budget of each CPU (config.quic_per_sec). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct event_budget);
} quic_budgets SEC(".maps");

static __always_inline struct quic_scratch *quic_scratch_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&quic_scratch, &zero);
}

/*
 * Byte i of the payload's plaintext, or -1 past its end. The block holding it
 * is decrypted once, when first needed: a global function, checked once.
 */
__attribute__((noinline)) int quic_payload_byte(struct hook_ctx *ctx, struct quic_scratch *q,
						__u32 i)
{
	__u32 blk, k;

	if (!q || i >= q->ct_len)
		return -1;
	blk = i / 16;
	if (blk != q->cached) {
		/* The tag's 16 bytes follow the ciphertext: a whole block is always there. */
		if (hook_load_bytes(ctx, q->pl_off + blk * 16, q->plain.b, 16))
			return -1;
		bloomxdp_quic_ctr_block(&q->w.keys.iv, q->pn, 2 + blk, &q->blk);
		bloomxdp_aes128_encrypt(&q->aes, &q->blk);
		for (k = 0; k < 16; k++)
			q->plain.b[k] ^= q->blk.b[k];
		q->cached = blk;
	}
	return q->plain.b[i & 15];
}

/*
 * The frame of this packet holding stream offset off, among those walked so
 * far: its index, or -1. A global function, checked once.
 */
__attribute__((noinline)) int quic_frame_find(const struct quic_scratch *q, __u32 off)
{
	__u32 k;

	if (!q)
		return -1;
	for (k = 0; k < QUIC_MAX_FRAMES; k++) {
		if (k >= q->nframes)
			break;
		if (off - q->frames[k].off < q->frames[k].len)	/* in [off, off + len) */
			return k;
	}
	return -1;
}

/* Byte off of the CRYPTO stream, from the frames walked so far or the stash; -1: neither. */
__attribute__((noinline)) int quic_stream_byte(struct hook_ctx *ctx, struct quic_scratch *q,
					       __u32 off)
{
	struct quic_frame *f;
	int k;

	if (!q)
		return -1;
	k = quic_frame_find(q, off);
	if (k >= 0) {
		f = &q->frames[k & (QUIC_MAX_FRAMES - 1)];
		return quic_payload_byte(ctx, q, f->at + (off - f->off));
	}
	if (off - q->w.stash_off < q->w.stash_len)	/* an earlier packet's */
		return q->w.stash[(off - q->w.stash_off) & (QUIC_STASH - 1)];
	return -1;
}

/*
 * A variable-length integer of the payload at q->fpos (RFC 9000 16), q->fpos
 * moved past it: its value; -1: cut, or over 32 bits. A global function,
 * checked once: an ACK frame alone reads up to 23 of them, and each inlined
 * copy of this loop multiplied the states the verifier walks in quic_step.
 */
__attribute__((noinline)) __s64 quic_frame_varint_read(struct hook_ctx *ctx,
							struct quic_scratch *q)
{
	int b, k, n;
	__u64 v;

	if (!q)
		return -1;
	b = quic_payload_byte(ctx, q, q->fpos);
	if (b < 0)
		return -1;
	n = 1 << (b >> 6);
	v = b & 0x3f;
	for (k = 1; k < 8; k++) {
		if (k >= n)
			break;
		b = quic_payload_byte(ctx, q, q->fpos + k);
		if (b < 0)
			return -1;
		v = v << 8 | b;
	}
	if (v > 0xffffffffULL)
		return -1;
	q->fpos += n;
	return v;
}

/* quic_frame_varint_read() into *out: 0, or -1. */
static __always_inline int quic_frame_varint(struct hook_ctx *ctx, struct quic_scratch *q,
					     __u32 *out)
{
	__s64 v = quic_frame_varint_read(ctx, q);

	if (v < 0)
		return -1;
	*out = v;
	return 0;
}

/* An ACK frame's fields after its type (RFC 9000 19.3), at q->fpos. */
static __always_inline int quic_skip_ack(struct hook_ctx *ctx, struct quic_scratch *q, int ecn)
{
	__u32 v, ranges, k;

	/* Largest acknowledged, delay, range count, first range. */
	if (quic_frame_varint(ctx, q, &v) || quic_frame_varint(ctx, q, &v) ||
	    quic_frame_varint(ctx, q, &ranges) || quic_frame_varint(ctx, q, &v) ||
	    ranges > QUIC_ACK_RANGES_MAX)
		return -1;
	for (k = 0; k < QUIC_ACK_RANGES_MAX; k++) {
		if (k >= ranges)
			break;
		if (quic_frame_varint(ctx, q, &v) || quic_frame_varint(ctx, q, &v))
			return -1;
	}
	if (ecn)
		for (k = 0; k < 3; k++)
			if (quic_frame_varint(ctx, q, &v))
				return -1;
	return 0;
}

/* A CONNECTION_CLOSE frame's fields after its type (RFC 9000 19.19), at q->fpos. */
static __always_inline int quic_skip_close(struct hook_ctx *ctx, struct quic_scratch *q)
{
	__u32 v, reason;

	/* Error code, frame type, the reason phrase's length, then the phrase. */
	if (quic_frame_varint(ctx, q, &v) || quic_frame_varint(ctx, q, &v) ||
	    quic_frame_varint(ctx, q, &reason) || reason > q->ct_len - q->fpos)
		return -1;
	q->fpos += reason;
	return 0;
}

/*
 * One frame of the payload: a CRYPTO frame is noted (not read), the others
 * skipped; a run of PADDING goes a block at a time. The payload's end ends
 * the frame walk (fdone 1); so do an unknown frame type (none other may be in
 * an Initial), a cut frame and a full table (fdone 2: what the packet holds
 * was not all walked).
 */
static __always_inline void quic_frame_step(struct hook_ctx *ctx, struct quic_scratch *q)
{
	struct quic_frame *f;
	__u32 off, len, n;
	int type = quic_payload_byte(ctx, q, q->fpos);

	if (type == BLOOMXDP_QUIC_FRAME_PADDING) {
		/* The rest of this block's zeros: the block is decrypted already. */
		for (n = 0; n < 16; n++) {
			if (quic_payload_byte(ctx, q, q->fpos) != 0)
				break;
			q->fpos++;
		}
		return;
	}
	q->fpos++;
	if (type == BLOOMXDP_QUIC_FRAME_PING)
		return;
	if ((type == BLOOMXDP_QUIC_FRAME_ACK || type == BLOOMXDP_QUIC_FRAME_ACK_ECN) &&
	    !quic_skip_ack(ctx, q, type == BLOOMXDP_QUIC_FRAME_ACK_ECN))
		return;
	if (type == BLOOMXDP_QUIC_FRAME_CLOSE && !quic_skip_close(ctx, q))
		return;	/* a client that gives up: no ClientHello here */
	if (type != BLOOMXDP_QUIC_FRAME_CRYPTO || quic_frame_varint(ctx, q, &off) ||
	    quic_frame_varint(ctx, q, &len) || len > q->ct_len - q->fpos ||
	    off + len < off || q->nframes >= QUIC_MAX_FRAMES) {	/* a frame past 4 GiB: none */
		q->fdone = 2 - ((__u32)type >> 31);	/* type < 0: the payload's end */
		q->need = QUIC_NO_NEED;
		return;
	}
	f = &q->frames[q->nframes & (QUIC_MAX_FRAMES - 1)];
	f->off = off;
	f->len = len;
	f->at = q->fpos;
	q->nframes++;
	q->fpos += len;
	if (off + len > q->stream_end)
		q->stream_end = off + len;
	if (q->need - off < len)
		q->need = QUIC_NO_NEED;	/* found: the walk goes on */
}

/*
 * n (1 to 4) bytes of the stream at off, big-endian, in *v. 0; QR_PENDING when
 * they are past what the packet holds; QR_GOING (not 0: the caller returns it)
 * with q->need set when the frame walk must go on first. A field cut by the
 * end of a packet is read on in the next: the bytes read so far are kept in
 * the walk (w.got, w.acc).
 */
static __always_inline int quic_stream_get(struct hook_ctx *ctx, struct quic_scratch *q,
					   __u32 off, __u32 n, __u32 *v)
{
	struct quic_walk *w = &q->w;
	__u32 k, j;
	int b;

	for (k = 0; k < 4; k++) {
		j = w->got;
		if (j >= n)
			break;
		b = quic_stream_byte(ctx, q, off + j);
		if (b < 0) {
			q->need = off + j;
			return q->fdone ? QR_PENDING : -1;
		}
		w->acc = w->acc << 8 | b;
		w->got = j + 1;
		q->walked = 1;
	}
	*v = w->acc;
	w->acc = 0;
	w->got = 0;
	return 0;
}

/* Up to QUIC_NAME_STEP bytes of the server_name into w.name. */
static __always_inline int quic_copy_name(struct hook_ctx *ctx, struct quic_scratch *q)
{
	struct quic_walk *w = &q->w;
	__u32 k;
	int b;

	for (k = 0; k < QUIC_NAME_STEP; k++) {
		if (w->copied >= w->name_len) {
			w->named = 1;	/* on to the extensions' end, for ECH */
			w->phase = QW_EXT;
			w->pos = w->ext_next;
			return QR_GOING;
		}
		b = quic_stream_byte(ctx, q, w->pos + w->copied);
		if (b < 0) {
			q->need = w->pos + w->copied;
			return q->fdone ? QR_PENDING : QR_GOING;
		}
		w->name[w->copied & (BLOOMXDP_NAME_BUF - 1)] = b;
		w->copied++;
	}
	return QR_GOING;
}

/* One field of the ClientHello (RFC 8446 4.1.2). QR_GOING, or how the walk stopped. */
static __always_inline int quic_hello_step(struct hook_ctx *ctx, struct quic_scratch *q)
{
	struct quic_walk *w = &q->w;
	__u32 phase = w->phase, pos = w->pos, v = 0, n, next;
	int err;

	if (phase == QW_NAME)
		return quic_copy_name(ctx, q);
	if (phase == QW_END)
		return QR_END;
	if (phase == QW_EXT && pos + 4 > w->ext_end) {
		w->phase = QW_END;
		return QR_END;
	}
	n = phase == QW_HELLO || phase == QW_EXT ? 4 :
	    phase == QW_SUITES || phase == QW_EXTENSIONS ? 2 : phase == QW_SNI ? 3 : 1;
	err = quic_stream_get(ctx, q, phase == QW_SNI ? pos + 6 : pos, n, &v);
	if (err)
		return err < 0 ? QR_GOING : err;
	q->walked = 1;
	switch (phase) {
	case QW_HELLO:
		if (v >> 24 != TLS_HANDSHAKE_CLIENT_HELLO)
			return QR_BAD;
		w->hello_end = 4 + (v & 0xffffff);
		w->pos = QUIC_HELLO_FIXED;
		w->phase = QW_SESSION;
		return QR_GOING;
	case QW_SESSION:
		if (v > TLS_MAX_SESSION_ID)
			return QR_BAD;
		w->pos = pos + 1 + v;
		w->phase = QW_SUITES;
		return QR_GOING;
	case QW_SUITES:
		w->pos = pos + 2 + v;
		w->phase = QW_COMPRESSION;
		return QR_GOING;
	case QW_COMPRESSION:
		w->pos = pos + 1 + v;
		w->phase = QW_EXTENSIONS;
		return QR_GOING;
	case QW_EXTENSIONS:
		w->ext_end = pos + 2 + v;
		if (w->ext_end > w->hello_end)
			return QR_BAD;
		w->pos = pos + 2;
		w->phase = QW_EXT;
		return QR_GOING;
	case QW_EXT:
		next = pos + 4 + (v & 0xffff);
		if (next > w->ext_end)
			return QR_BAD;
		if (v >> 16 == TLS_EXT_SERVER_NAME && !w->named) {
			w->ext_next = next;
			w->phase = QW_SNI;
			return QR_GOING;
		}
		if (v >> 16 == TLS_EXT_ECH)
			w->ech = 1;
		w->pos = next;
		return QR_GOING;
	case QW_SNI:
		/*
		 * The extension's type and length (4), server_name_list's length (2),
		 * then the name's type (1) and length (2) read here (RFC 6066 3).
		 */
		n = v & 0xffff;
		if (v >> 16 != 0 || n < 1 || n > BLOOMXDP_NAME_MAX || pos + 9 + n > w->ext_next)
			return QR_BAD;
		w->name_len = n;
		w->copied = 0;
		w->pos = pos + 9;
		w->phase = QW_NAME;
		return QR_GOING;
	}
	return QR_BAD;
}

struct quic_run_ctx {
	struct hook_ctx *ctx;
	int stop;		/* enum quic_run */
};

static long quic_step(__u32 i, void *data)
{
	struct quic_run_ctx *r = data;
	struct quic_scratch *q = quic_scratch_get();

	(void)i;
	if (!q) {
		r->stop = QR_BAD;
		return 1;
	}
	if (q->need != QUIC_NO_NEED) {
		quic_frame_step(r->ctx, q);
		return 0;
	}
	r->stop = quic_hello_step(r->ctx, q);
	return r->stop != QR_GOING;
}

/*
 * Walks on until the extensions end or the packet holds no more: enum
 * quic_run; w.named says whether the name was found. A global function,
 * checked once.
 */
__attribute__((noinline)) int quic_walk_run(struct hook_ctx *ctx)
{
	struct quic_run_ctx r = { .ctx = ctx, .stop = QR_BAD };

	bpf_loop_bounded(QUIC_STEPS, quic_step, &r);
	return r.stop == QR_GOING ? QR_BAD : r.stop;	/* QUIC_STEPS spent */
}

struct quic_stash_ctx {
	struct hook_ctx *ctx;
	__u32 start;		/* the stream offset stashed from */
	__u32 end;		/* where the bytes from start run on to without a gap */
	__u32 len;		/* bytes to stash */
	__u32 done;		/* bytes stashed */
};

/* Frame i: start, the least offset of a frame past q->need. Loops are callbacks: checked once. */
static long quic_stash_start_step(__u32 i, void *data)
{
	struct quic_stash_ctx *c = data;
	struct quic_scratch *q = quic_scratch_get();
	__u32 off;

	if (!q || i >= q->nframes)
		return 1;
	off = q->frames[i & (QUIC_MAX_FRAMES - 1)].off;
	if (off > q->need && off < c->start)
		c->start = off;
	return 0;
}

/* end moves on to the end of the frame holding it, frames in any order: one a step. */
static long quic_stash_end_step(__u32 i, void *data)
{
	struct quic_stash_ctx *c = data;
	struct quic_scratch *q = quic_scratch_get();
	int k;

	(void)i;
	if (!q)
		return 1;
	k = quic_frame_find(q, c->end);
	if (k < 0)
		return 1;
	c->end = q->frames[k & (QUIC_MAX_FRAMES - 1)].off + q->frames[k & (QUIC_MAX_FRAMES - 1)].len;
	return 0;
}

/* Up to a block's worth of the stash: the bytes of one frame within one payload block. */
static long quic_stash_step(__u32 i, void *data)
{
	struct quic_stash_ctx *c = data;
	struct quic_scratch *q = quic_scratch_get();
	__u32 off, at, n, k;
	struct quic_frame *f;
	int idx;

	(void)i;
	if (!q || c->done >= c->len)
		return 1;
	off = c->start + c->done;
	idx = quic_frame_find(q, off);
	if (idx < 0)
		return 1;
	f = &q->frames[idx & (QUIC_MAX_FRAMES - 1)];
	at = f->at + (off - f->off);
	if (quic_payload_byte(c->ctx, q, at) < 0)	/* decrypts the block */
		return 1;
	n = 16 - (at & 15);
	if (n > f->off + f->len - off)
		n = f->off + f->len - off;
	if (n > c->len - c->done)
		n = c->len - c->done;
	for (k = 0; k < 16; k++) {
		if (k >= n)
			break;
		q->w.stash[(c->done + k) & (QUIC_STASH - 1)] = q->plain.b[(at + k) & 15];
	}
	c->done += n;
	return 0;
}

/* Where the CRYPTO bytes of this packet from stream offset off run on to without a gap. */
static __always_inline __u32 quic_run_end(__u32 off)
{
	struct quic_stash_ctx c = { .end = off };

	bpf_loop_bounded(QUIC_MAX_FRAMES, quic_stash_end_step, &c);
	return c.end;
}

/*
 * A walk that waits for a later packet (at q->need): the CRYPTO bytes this
 * packet holds past q->need, from the first of them on as far as they run on
 * without a gap, go to w.stash (QUIC_STASH at most), for the walk to read
 * when it gets there. q->stashed: they all went. A global function, checked
 * once.
 */
__attribute__((noinline)) int quic_stash(struct hook_ctx *ctx, struct quic_scratch *q)
{
	struct quic_stash_ctx c = { .ctx = ctx, .start = 0xffffffff };

	if (!q)
		return 0;
	q->stashed = 0;
	bpf_loop_bounded(QUIC_MAX_FRAMES, quic_stash_start_step, &c);
	if (c.start == 0xffffffff) {
		q->stashed = 1;		/* nothing past it */
		return 0;
	}
	c.end = quic_run_end(c.start);
	c.len = c.end - c.start < QUIC_STASH ? c.end - c.start : QUIC_STASH;
	q->w.stash_len = 0;	/* read from the frames, not from itself */
	bpf_loop_bounded(QUIC_STASH / 16 + QUIC_MAX_FRAMES, quic_stash_step, &c);
	q->w.stash_off = c.start;
	q->w.stash_len = c.done;
	q->stashed = c.end == q->stream_end && c.done == c.end - c.start;
	return 0;
}

/*
 * A kept walk into the scratch: its fields, and its stash when it has one and
 * the walk goes on (with_stash). In pieces: clang inlines no copy that long.
 */
static __always_inline void quic_walk_load(struct quic_walk *dst, const struct quic_walk *src,
					   int with_stash)
{
	__builtin_memcpy(dst, src, offsetof(struct quic_walk, stash));
	if (!with_stash || !src->stash_len)
		return;
	__builtin_memcpy(dst->stash, src->stash, 256);
	__builtin_memcpy(dst->stash + 256, src->stash + 256, 256);
	__builtin_memcpy(dst->stash + 512, src->stash + 512, 256);
	__builtin_memcpy(dst->stash + 768, src->stash + 768, 256);
}
_Static_assert(QUIC_STASH == 1024, "quic_walk_load() copies the stash in 4 pieces of 256");

/* What quic_open() found. */
enum quic_open {
	QO_UNSEEN = 0,		/* no ClientHello to read: no Initial of a known version */
	QO_UNPARSED,		/* an Initial, or a version, that cannot be read */
	QO_SPENT,		/* an Initial over the budget */
	QO_WALK,		/* keys ready, header protection off: walk */
	QO_NAMED,		/* the connection's name is known and its walk over: no crypto */
};

/* A variable-length integer of the packet at off: its value, and its length in *n. -1: cut. */
static __always_inline int quic_packet_varint(struct hook_ctx *ctx, __u32 off, __u64 *v,
					      __u32 *n)
{
	__u8 b[8];
	__u32 k, len;

	if (hook_load_bytes(ctx, off, b, 1))
		return -1;
	len = 1 << (b[0] >> 6);
	/* len - 1 is 1, 3 or 7: the mask keeps it within b. */
	if (len > 1 && frame_load(ctx, off + 1, b + 1, len - 1, 6))
		return -1;
	*v = b[0] & 0x3f;
	for (k = 1; k < 8; k++)
		if (k < len)
			*v = *v << 8 | b[k];
	*n = len;
	return 0;
}

/*
 * Header protection off (RFC 9001 5.4): the packet number's length and value
 * from the mask of the sample at pn_off + 4, then the payload's key. The
 * Initial's Length (len, packet number and tag included) was checked.
 */
static __always_inline int quic_unprotect(struct hook_ctx *ctx, struct quic_scratch *q,
					  __u8 first, __u32 pn_off, __u32 len)
{
	__u32 pn_len, k;
	__u8 pnb[4];

	if (bloomxdp_aes128_expand(&q->aes, &q->w.keys.hp) ||
	    hook_load_bytes(ctx, pn_off + 4, q->blk.b, BLOOMXDP_QUIC_SAMPLE_LEN) ||
	    bloomxdp_aes128_encrypt(&q->aes, &q->blk) || hook_load_bytes(ctx, pn_off, pnb, 4))
		return -1;
	pn_len = ((first ^ q->blk.b[0]) & 3) + 1;	/* long header: 4 bits masked, 2 of them */
	q->pn = 0;
	for (k = 0; k < 4; k++)
		if (k < pn_len)
			q->pn = q->pn << 8 | (__u8)(pnb[k] ^ q->blk.b[1 + k]);
	if (len <= pn_len + BLOOMXDP_QUIC_TAG_LEN)
		return -1;
	q->pl_off = pn_off + pn_len;
	q->ct_len = len - pn_len - BLOOMXDP_QUIC_TAG_LEN;
	q->cached = QUIC_NO_NEED;
	q->nframes = 0;
	q->fpos = 0;
	q->fdone = 0;
	q->need = QUIC_NO_NEED;
	q->stream_end = 0;
	return bloomxdp_aes128_expand(&q->aes, &q->w.keys.key) ? -1 : 0;
}

/*
 * Reads the long header of the UDP payload at off (len bytes), q->key's
 * address and port set: enum quic_open. The connection's walk, if quic_conns
 * has it, or a fresh one with keys derived from the DCID, goes to q->w. A
 * global function, checked once.
 */
__attribute__((noinline)) int quic_open(struct hook_ctx *ctx, struct quic_scratch *q, __u32 off,
					__u32 len)
{
	struct quic_scratch *qm = quic_scratch_get();	/* q, as a map value */
	__u32 pos, n, version, dcid_len, zero = 0;
	struct event_budget *budget;
	struct quic_walk *saved;
	__u64 token, length;
	__u8 h[6];
	int type;

	if (!q || !qm || len < sizeof(h) || hook_load_bytes(ctx, off, h, sizeof(h)) ||
	    !(h[0] & BLOOMXDP_QUIC_LONG_HEADER))
		return QO_UNSEEN;	/* a short header (1-RTT), or too short to be QUIC */
	version = (__u32)h[1] << 24 | (__u32)h[2] << 16 | (__u32)h[3] << 8 | h[4];
	type = bloomxdp_quic_initial_type(version);
	if (type < 0)	/* 0: version negotiation; 0x?a?a?a?a: reserved, to exercise it */
		return version && (version & 0x0f0f0f0f) != 0x0a0a0a0a ? QO_UNPARSED : QO_UNSEEN;
	if (((h[0] >> 4) & 3) != type)
		return QO_UNSEEN;	/* 0-RTT, Handshake, Retry */
	dcid_len = h[5];
	if (dcid_len > BLOOMXDP_QUIC_CID_MAX)
		return QO_UNPARSED;
	__builtin_memset(q->derive.dcid, 0, sizeof(q->derive.dcid));
	if (dcid_len && frame_load(ctx, off + 6, q->derive.dcid, dcid_len, 31))
		return QO_UNPARSED;
	pos = off + 6 + dcid_len;
	if (hook_load_bytes(ctx, pos, h, 1) || h[0] > BLOOMXDP_QUIC_CID_MAX)
		return QO_UNPARSED;
	__builtin_memset(q->key.cid, 0, sizeof(q->key.cid));
	if (h[0] && frame_load(ctx, pos + 1, q->key.cid, h[0], 31))
		return QO_UNPARSED;
	q->key.cid_len = h[0];
	pos += 1 + h[0];				/* SCID */
	if (quic_packet_varint(ctx, pos, &token, &n) || token > len)
		return QO_UNPARSED;
	pos += n + token;				/* Token */
	if (quic_packet_varint(ctx, pos, &length, &n))
		return QO_UNPARSED;
	pos += n;					/* Length: pn and payload */
	if (length < 4 + BLOOMXDP_QUIC_SAMPLE_LEN || pos + length > off + len)
		return QO_UNPARSED;

	/* The key through a map value pointer: 6.1 takes no argument memory as a map key. */
	saved = bpf_map_lookup_elem(&quic_conns, &qm->key);
	q->walked = 0;
	q->resumed = 0;
	/*
	 * The walk goes on with its keys unless the token changed: after a Retry
	 * the client starts again, under a new DCID, with the Retry's token.
	 */
	if (saved && (saved->version != version || saved->token_len != token ||
		      bpf_ktime_get_coarse_ns() - saved->kept_at > QUIC_KEEP_NS))
		saved = NULL;
	if (saved && saved->named && saved->phase == QW_END) {
		quic_walk_load(&q->w, saved, 0);
		return QO_NAMED;	/* nothing to read, nothing changes: nothing to keep */
	}
	/* Over the budget, an Initial costs the header's read and this lookup: no copy. */
	budget = bpf_map_lookup_elem(&quic_budgets, &zero);
	if (!budget || !budget_take(budget, config.quic_per_sec))
		return QO_SPENT;
	if (saved) {
		q->walked = 1;
		q->resumed = 1;
		quic_walk_load(&q->w, saved, 1);
	} else {
		/* The stash is dead while stash_len is 0: not cleared. */
		__builtin_memset(&q->w, 0, offsetof(struct quic_walk, stash));
		q->derive.version = version;
		q->derive.dcid_len = dcid_len;
		if (bloomxdp_quic_derive(&q->derive))
			return QO_UNPARSED;
		__builtin_memcpy(&q->w.keys, &q->derive.keys, sizeof(q->w.keys));
		q->w.version = version;
		q->w.token_len = token;
	}
	/* h[0] was overwritten: the first byte again. */
	if (hook_load_bytes(ctx, off, h, 1) || quic_unprotect(ctx, q, h[0], pos, length))
		return QO_UNPARSED;
	return QO_WALK;
}

/*
 * After the walk (run, enum quic_run): ECH counted, the walk kept for the
 * connection's next packets when the ClientHello goes on past this one.
 * Returns 1 when w.name holds the name to look up; -1 to drop whatever the
 * lists say (--ech drop, --quic-unparsed drop); else 0. A global function,
 * checked once.
 */
__attribute__((noinline)) int quic_finish(struct quic_scratch *q, struct bloomxdp_counters *cnt,
					  int run)
{
	struct quic_scratch *qm = quic_scratch_get();	/* q, as a map value */
	int pending;

	if (!q || !qm || !cnt)
		return 0;
	if (q->w.ech == 1) {
		cnt->ech_seen++;
		q->w.ech = 2;		/* counted once a ClientHello */
	}
	/*
	 * Kept while the hello goes on (a stash alone too: a later part seen
	 * first), and where it ends, so that the connection's other packets
	 * (Chrome's second Initial holds the middle of a hello whose name its
	 * first had) and packets sent again cost no crypto (QO_NAMED). A walk
	 * that found the name is kept even when the whole hello came in this
	 * packet: once the server answers, the client's next Initial (its ACK,
	 * beside its Handshake packet) carries the server's CID under the keys
	 * of this packet's DCID (RFC 9001 5.2), which only the kept walk knows;
	 * keys derived from the server's CID read garbage (unparsed, and dropped
	 * with --quic-unparsed drop). Not a walk known already (QO_NAMED: not
	 * walked): nothing changed. Map value pointers: 6.1 takes no argument
	 * memory as a key or value.
	 */
	if ((q->walked && q->w.named) ||
	    ((q->walked || q->w.stash_len) &&
	     (run == QR_PENDING || q->resumed || quic_run_end(0) < q->w.hello_end))) {
		q->w.kept_at = bpf_ktime_get_coarse_ns();
		(void)bpf_map_update_elem(&quic_conns, &qm->key, &qm->w, BPF_ANY);	/* LRU: fits */
	}
	if (q->w.named)
		return 1;	/* looked up first: a listed name is a hit, whatever its ECH */
	/*
	 * Every frame walked, and what lies past the byte the walk needs
	 * (q->need) stashed: the hello goes on in a later packet (its name is
	 * counted there), or this one was sent again; or no CRYPTO frame (an
	 * ACK, a PING): unseen. Else no server_name, malformed, a later part
	 * that did not fit the stash, or a limit: unparsed. Each Initial read is
	 * counted once.
	 */
	pending = run == QR_PENDING && q->fdone == 1 && (q->stashed || !q->nframes);
	if (pending)
		cnt->unseen_quic++;
	else
		cnt->unparsed_quic++;
	if (q->w.ech && config.ech == BLOOMXDP_POLICY_DROP)
		return -1;
	return !pending && config.quic_unparsed == BLOOMXDP_POLICY_DROP ? -1 : 0;
}

#endif /* BLOOMXDP_BPF_QUIC_H */
