// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tests/bpf/quic_wire.h, the builder of QUIC packets the BPF tests and the
 * fuzzer send through the XDP program:
 *  - it makes RFC 9001 A.2's and RFC 9369 A.2's protected client Initials
 *    byte for byte from their parts (but the tag: zeros, see quic_wire.h);
 *  - random packets (v1 and v2, Initial, 0-RTT and Handshake, connection IDs
 *    of 0 to 20 bytes, tokens, packet numbers of 1 to 4 bytes, Length in 1
 *    to 8 bytes, CRYPTO, PADDING, PING and ACK frames), alone and coalesced,
 *    opened again with the user-space twin: the same header and frames;
 *  - ClientHellos of every option (server_name or none, GREASE, a 1,216-byte
 *    key_share before or after the name, encrypted_client_hello, other
 *    extensions before and after) walked by a strict parser of its own: every
 *    length nests, the name is where it was put;
 *  - a first flight: a hello over 2 and 3 Initials of 1,200-byte datagrams,
 *    reassembled from their CRYPTO frames; a Retry, which has nothing to open.
 * Random inputs come from a seeded generator: BLOOMXDP_TEST_SEED repeats a run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <cmocka.h>

#include "../bpf/quic_wire.h"
#include "../bpf/quic_vectors.h"
#include "../bpf/test_rng.h"

#define RANDOM_RUNS	1000
#define MAX_FRAMES	12

static __u32 below(__u32 n)
{
	return rng() % n;
}

static struct frame *frame_new(void)
{
	struct frame *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	return f;
}

/* ------------------------------------------------------------ the RFCs */

static void test_rfc_packets(void **state)
{
	struct frame *out = frame_new(), *payload = frame_new();
	struct quic_pkt p = { .pn_len = 4 };
	__u8 want[1200];
	size_t i, n;

	(void)state;
	for (i = 0; i < QUIC_N_VECTORS; i++) {
		const struct quic_vector *v = &quic_vectors[i];

		p.version = v->version;
		p.dcid_len = quic_unhex(v->dcid, p.dcid, sizeof(p.dcid));
		p.pn = v->pn;
		payload->len = 0;
		n = quic_unhex(v->crypto, frame_put(payload, 245), 245);
		assert_int_equal(n, 245);
		quic_frame_padding(payload, v->payload_len - n);
		p.payload = payload->data;
		p.payload_len = payload->len;
		out->len = 0;
		assert_int_equal(quic_put_packet(out, &p), 0);
		assert_int_equal(out->len, quic_unhex(v->packet, want, sizeof(want)));
		/* All but the tag, which the builder leaves zero. */
		assert_memory_equal(out->data, want, out->len - BLOOMXDP_QUIC_TAG_LEN);
	}
	free(out);
	free(payload);
}

/* -------------------------------------------------------- round trips */

struct frame_spec {
	__u8 type;
	__u64 a, b, c;		/* CRYPTO: offset, length; ACK: largest, delay, range */
	__u8 data[300];
};

/* Random frames into payload, as specs; returns how many. PADDING only last. */
static __u32 random_frames(struct frame *payload, struct frame_spec *specs)
{
	__u32 n = 1 + below(MAX_FRAMES - 1), i;

	payload->len = 0;
	for (i = 0; i < n; i++) {
		struct frame_spec *s = &specs[i];

		s->type = i + 1 == n && below(2) ? BLOOMXDP_QUIC_FRAME_PADDING :
			  (__u8[]){ BLOOMXDP_QUIC_FRAME_CRYPTO, BLOOMXDP_QUIC_FRAME_PING,
				    BLOOMXDP_QUIC_FRAME_ACK }[below(3)];
		switch (s->type) {
		case BLOOMXDP_QUIC_FRAME_PADDING:
			s->a = 1 + below(200);
			quic_frame_padding(payload, s->a);
			break;
		case BLOOMXDP_QUIC_FRAME_PING:
			quic_frame_ping(payload);
			break;
		case BLOOMXDP_QUIC_FRAME_ACK:
			s->a = rng() >> (2 + below(62));
			s->b = rng() >> (2 + below(62));
			s->c = s->a ? rng() % (s->a + 1) : 0;
			quic_frame_ack(payload, s->a, s->b, s->c);
			break;
		default:
			s->a = rng() >> (2 + below(62));
			s->b = below(sizeof(s->data) + 1);
			rng_bytes(s->data, s->b);
			quic_frame_crypto(payload, s->a, s->data, s->b);
		}
	}
	/* The sample needs 4 bytes past the packet number's start: more PADDING. */
	if (payload->len < 4) {
		if (specs[n - 1].type != BLOOMXDP_QUIC_FRAME_PADDING) {
			specs[n].type = BLOOMXDP_QUIC_FRAME_PADDING;
			specs[n++].a = 0;
		}
		specs[n - 1].a += 4 - payload->len;
		quic_frame_padding(payload, 4 - payload->len);
	}
	return n;
}

static void check_frames(const struct quic_opened *o, const struct frame_spec *specs, __u32 n)
{
	struct quic_frame_view v;
	__u32 at = 0, i;

	for (i = 0; i < n; i++) {
		assert_int_equal(quic_next_frame(o->payload + at, o->payload_len - at, &v), 0);
		assert_int_equal(v.type, specs[i].type);
		switch (v.type) {
		case BLOOMXDP_QUIC_FRAME_PADDING:
			assert_int_equal(v.len, specs[i].a);
			break;
		case BLOOMXDP_QUIC_FRAME_ACK:
			assert_int_equal(v.largest, specs[i].a);
			assert_int_equal(v.delay, specs[i].b);
			assert_int_equal(v.first_range, specs[i].c);
			break;
		case BLOOMXDP_QUIC_FRAME_CRYPTO:
			assert_int_equal(v.offset, specs[i].a);
			assert_int_equal(v.data_len, specs[i].b);
			assert_memory_equal(v.data, specs[i].data, v.data_len);
			break;
		}
		at += v.len;
	}
	assert_int_equal(at, o->payload_len);
}

static void random_packet(struct quic_pkt *p)
{
	static const __u8 length_lens[] = { 2, 2, 4, 8 };

	memset(p, 0, sizeof(*p));
	p->version = below(2) ? BLOOMXDP_QUIC_V1 : BLOOMXDP_QUIC_V2;
	p->type = (enum quic_type[]){ QUIC_INITIAL, QUIC_INITIAL, QUIC_0RTT,
				      QUIC_HANDSHAKE }[below(4)];
	p->dcid_len = below(BLOOMXDP_QUIC_CID_MAX + 1);
	p->scid_len = below(BLOOMXDP_QUIC_CID_MAX + 1);
	rng_bytes(p->dcid, sizeof(p->dcid));
	rng_bytes(p->scid, sizeof(p->scid));
	p->pn_len = 1 + below(4);
	p->pn = rng() & ((1ULL << (8 * p->pn_len)) - 1);
	p->length_len = length_lens[below(4)];
}

static void check_header(const struct quic_pkt *p, const struct quic_opened *o, const __u8 *b)
{
	assert_int_equal(o->version, p->version);
	assert_int_equal(o->type, quic_wire_type(p->version, p->type));
	assert_int_equal(o->dcid_len, p->dcid_len);
	assert_memory_equal(o->dcid, p->dcid, p->dcid_len);
	assert_int_equal(o->scid_len, p->scid_len);
	assert_memory_equal(o->scid, p->scid, p->scid_len);
	assert_int_equal(o->token_len, p->type == QUIC_INITIAL ? p->token_len : 0);
	assert_memory_equal(b + o->token_off, p->token, o->token_len);
	assert_int_equal(o->pn_len, p->pn_len);
	assert_int_equal(o->pn, p->pn);
	assert_int_equal(o->payload_len, p->payload_len);
}

/* One to three packets coalesced in a datagram, each opened where the last ends. */
static void test_round_trip(void **state)
{
	struct frame *dgram = frame_new(), *payload[3] = { frame_new(), frame_new(), frame_new() };
	struct quic_opened *o = calloc(1, sizeof(*o));
	struct frame_spec specs[3][MAX_FRAMES + 1];
	struct quic_pkt p[3];
	__u8 token[3][64];
	__u32 run, i, k, nframes[3], at;

	(void)state;
	assert_non_null(o);
	for (run = 0; run < RANDOM_RUNS; run++) {
		k = 1 + below(3);
		dgram->len = 0;
		for (i = 0; i < k; i++) {
			random_packet(&p[i]);
			rng_bytes(token[i], sizeof(token[i]));
			p[i].token = token[i];
			p[i].token_len = below(2) ? 0 : below(sizeof(token[i]) + 1);
			nframes[i] = random_frames(payload[i], specs[i]);
			p[i].payload = payload[i]->data;
			p[i].payload_len = payload[i]->len;
			quic_put_packet(dgram, &p[i]);
		}
		for (i = 0, at = 0; i < k; i++) {
			assert_int_equal(quic_open_packet(dgram->data + at, dgram->len - at, o), 0);
			check_header(&p[i], o, dgram->data + at);
			assert_memory_equal(o->payload, payload[i]->data, payload[i]->len);
			check_frames(o, specs[i], nframes[i]);
			at += o->len;
		}
		assert_int_equal(at, dgram->len);
		/* Cut short anywhere in the last packet: not opened. */
		at -= o->len;
		assert_int_equal(quic_open_packet(dgram->data + at, o->len - 1 - below(o->len), o),
				 -EINVAL);
	}
	for (i = 0; i < 3; i++)
		free(payload[i]);
	free(dgram);
	free(o);
}

static void test_varints(void **state)
{
	static const __u64 values[] = { 0, 63, 64, 16383, 16384, (1U << 30) - 1, 1U << 30,
					(1ULL << 62) - 1 };
	struct frame f;
	__u32 i, n;
	__u64 v;

	(void)state;
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		for (n = quic_varint_len(values[i]); n <= 8; n *= 2) {
			f.len = 0;
			quic_put_varint(&f, values[i], n);
			assert_int_equal(f.len, n);
			assert_int_equal(quic_get_varint(f.data, f.len, &v), n);
			assert_int_equal(v, values[i]);
			assert_int_equal(quic_get_varint(f.data, f.len - 1, &v), 0);
		}
	}
	assert_int_equal(quic_varint_len(63), 1);
	assert_int_equal(quic_varint_len(64), 2);
	assert_int_equal(quic_varint_len(1U << 30), 8);
}

/* ------------------------------------------------------- ClientHellos */

struct hello_seen {
	char sni[256];
	bool has_sni, ech, quic_params;
	__u32 share_len;		/* the key_share's key */
	__u32 sni_off;			/* where the name starts in the message */
	__u32 nexts;
};

static __u32 be16(const __u8 *p)
{
	return p[0] << 8 | p[1];
}

/* One extension's data (type, len bytes at e, offset off in the message). */
static void walk_ext(__u32 type, const __u8 *e, __u32 len, __u32 off, struct hello_seen *s)
{
	switch (type) {
	case 0:			/* server_name */
		assert_true(len >= 5);
		assert_int_equal(be16(e), len - 2);
		assert_int_equal(e[2], 0);
		assert_int_equal(be16(e + 3), len - 5);
		memcpy(s->sni, e + 5, len - 5);
		s->sni[len - 5] = 0;
		s->sni_off = off + 5;
		s->has_sni = true;
		break;
	case 51:		/* key_share */
		assert_int_equal(be16(e), len - 2);
		assert_int_equal(be16(e + 4), len - 6);
		s->share_len = len - 6;
		break;
	case 57:
		s->quic_params = true;
		break;
	case 0xfe0d:
		assert_int_equal(e[0], 0);
		assert_int_equal(be16(e + 6), 32);
		assert_int_equal(be16(e + 40), len - 42);
		s->ech = true;
		break;
	}
}

/* A ClientHello message of len bytes, every length checked to nest exactly. */
static void walk_hello(const __u8 *m, __u32 len, struct hello_seen *s)
{
	__u32 at = 4 + 2 + 32, n, type;

	memset(s, 0, sizeof(*s));
	assert_true(len > at);
	assert_int_equal(m[0], TLS_CLIENT_HELLO);
	assert_int_equal((__u32)m[1] << 16 | be16(m + 2), len - 4);
	n = m[at];				/* session id */
	assert_true(n <= 32);
	at += 1 + n;
	n = be16(m + at);			/* cipher suites */
	assert_true(n % 2 == 0 && n > 0);
	at += 2 + n;
	n = m[at];				/* compression methods */
	at += 1 + n;
	assert_int_equal(be16(m + at), len - at - 2);
	for (at += 2; at < len; at += 4 + n) {
		assert_true(at + 4 <= len);
		type = be16(m + at);
		n = be16(m + at + 2);
		assert_true(at + 4 + n <= len);
		walk_ext(type, m + at + 4, n, at + 4, s);
		s->nexts++;
	}
	assert_int_equal(at, len);
}

static void test_client_hello(void **state)
{
	static const char *const snis[] = { NULL, "a.b", "www.evil.example" };
	struct frame *f = frame_new();
	struct hello_seen s;
	struct tls_desc d;
	__u32 i, sni_name;

	(void)state;
	for (i = 0; i < 3 * 2 * 3 * 2 * 2; i++) {
		memset(&d, 0, sizeof(d));
		d.sni = snis[i % 3];
		d.grease = i / 3 % 2;
		d.key_share = (__u16[]){ 0, 32, 1216 }[i / 6 % 3];
		d.share_after = i / 18 % 2;
		d.ech = i / 36 % 2;
		d.before = i % 5;
		d.after = i % 7;
		f->len = 0;
		quic_client_hello(f, &d, &sni_name);
		walk_hello(f->data, f->len, &s);
		assert_int_equal(s.has_sni, d.sni != NULL);
		if (d.sni) {
			assert_string_equal(s.sni, d.sni);
			assert_int_equal(s.sni_off, sni_name);
		}
		assert_int_equal(s.ech, d.ech);
		assert_int_equal(s.share_len, d.key_share);
		assert_true(s.quic_params);
		/* supported_versions, ALPN, transport parameters; GREASE's two. */
		assert_int_equal(s.nexts, 3 + d.before + d.after + !!d.sni + d.ech + !!d.key_share +
				 2 * d.grease);
	}
	free(f);
}

/* The handshake stream of n datagrams reassembled from their CRYPTO frames. */
static void reassemble(const struct frame *dgrams, __u32 n, struct frame *stream)
{
	struct quic_opened *o = calloc(1, sizeof(*o));
	struct quic_frame_view v;
	__u32 i, at;

	assert_non_null(o);
	stream->len = 0;
	for (i = 0; i < n; i++) {
		assert_true(dgrams[i].len >= QUIC_MIN_DATAGRAM);
		assert_int_equal(quic_open_packet(dgrams[i].data, dgrams[i].len, o), 0);
		assert_int_equal(o->len, dgrams[i].len);
		for (at = 0; at < o->payload_len; at += v.len) {
			assert_int_equal(quic_next_frame(o->payload + at, o->payload_len - at, &v),
					 0);
			if (v.type != BLOOMXDP_QUIC_FRAME_CRYPTO)
				continue;
			assert_int_equal(v.offset, stream->len);
			memcpy(frame_put(stream, v.data_len), v.data, v.data_len);
		}
	}
	free(o);
}

/*
 * A hello with a post-quantum key share before the name, over 2 and 3 Initials (1,100
 * and 700 bytes of it each): the name past the first; then with more extensions.
 */
static void test_flight(void **state)
{
	static const struct { __u32 version, chunk, after, packets; } runs[] = {
		{ BLOOMXDP_QUIC_V1, 1100, 0, 2 },
		{ BLOOMXDP_QUIC_V2, 700, 0, 3 },
		{ BLOOMXDP_QUIC_V1, 1100, 150, 3 },
	};
	struct frame *hello = frame_new(), *stream = frame_new();
	struct frame *dgrams = calloc(4, sizeof(*dgrams));
	struct quic_pkt tmpl = { .dcid_len = 8, .scid_len = 3, .pn = 7, .pn_len = 1 };
	struct tls_desc d = { .sni = "www.evil.example", .key_share = 1216, .grease = true,
			      .ech = true };
	__u32 i, n, sni_name;
	struct hello_seen s;

	(void)state;
	assert_non_null(dgrams);
	memcpy(tmpl.dcid, "\x83\x94\xc8\xf0\x3e\x51\x57\x08", 8);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		tmpl.version = runs[i].version;
		d.after = runs[i].after;
		hello->len = 0;
		quic_client_hello(hello, &d, &sni_name);
		walk_hello(hello->data, hello->len, &s);
		assert_string_equal(s.sni, d.sni);
		n = quic_put_flight(dgrams, 4, &tmpl, hello->data, hello->len, runs[i].chunk);
		assert_int_equal(n, runs[i].packets);
		assert_true(sni_name >= runs[i].chunk);
		reassemble(dgrams, n, stream);
		assert_int_equal(stream->len, hello->len);
		assert_memory_equal(stream->data, hello->data, hello->len);
	}
	free(hello);
	free(stream);
	free(dgrams);
}

static void test_retry(void **state)
{
	struct quic_pkt p = { .version = BLOOMXDP_QUIC_V2, .type = QUIC_RETRY, .dcid_len = 4,
			      .scid_len = 8, .token = (const __u8 *)"token", .token_len = 5 };
	struct quic_opened *o = calloc(1, sizeof(*o));
	struct frame f = { .len = 0 };

	(void)state;
	assert_non_null(o);
	quic_put_packet(&f, &p);
	assert_int_equal(f.len, 1 + 4 + 1 + 4 + 1 + 8 + 5 + BLOOMXDP_QUIC_TAG_LEN);
	assert_int_equal(f.data[0], 0xc0);		/* v2's Retry is type 0 */
	assert_memory_equal(f.data + 19, "token", 5);
	assert_int_equal(quic_open_packet(f.data, f.len, o), -EINVAL);
	p.version = BLOOMXDP_QUIC_V1;
	f.len = 0;
	quic_put_packet(&f, &p);
	assert_int_equal(f.data[0], 0xf0);
	assert_int_equal(quic_open_packet(f.data, f.len, o), -EINVAL);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc_packets),
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_client_hello),
		cmocka_unit_test(test_flight),
		cmocka_unit_test(test_retry),
	};

	rng_seed();
	return cmocka_run_group_tests_name("quic_wire", tests, NULL, NULL);
}
