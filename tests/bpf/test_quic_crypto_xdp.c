// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * include/bloomxdp/quic.h in the kernel: tests/bpf/quic_probe.bpf.c runs it
 * through BPF_PROG_TEST_RUN, and it must
 *  - load: its global functions pass the verifier, called from a bpf_loop
 *    callback too; verified_insns of each probe program printed (quic_probe:
 *    everything, quic_probe_derive: the key derivation and SHA-256,
 *    quic_probe_aes: AES-128, quic_probe_loop: both from a callback) and
 *    kept far below the limit;
 *  - give the RFCs' values: RFC 9001 A.1/A.2 and RFC 9369 A.1/A.2 keys and
 *    secrets, the header protection mask of each packet's sample, its first 16
 *    payload blocks decrypted to the CRYPTO frame (the ClientHello naming
 *    example.com) and PADDING; FIPS-197 for AES;
 *  - agree with its user-space twin on random DCIDs of every length (salt
 *    state cached and not), keys, blocks and packet numbers, and refuse what
 *    the twin refuses; open packets of tests/bpf/quic_wire.h's builder (the
 *    header's mask gives back the packet number, the payload its frames);
 *  - cost little: ns per derivation (warm: the salt's HMAC state cached;
 *    cold: not), per AES block, per key expansion, and per packet (a
 *    derivation, one header protection block, 6 payload blocks) from
 *    prog_run's duration over many repetitions, printed as TAP comments.
 * Random inputs come from a seeded generator: BLOOMXDP_TEST_SEED repeats a run.
 */
#define _GNU_SOURCE	/* memmem */
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
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "quic_probe.h"
#include "quic_probe.skel.h"
#include "quic_vectors.h"
#include "test_rng.h"
#include "quic_wire.h"

#define COMPLEXITY_LIMIT	1000000		/* BPF_COMPLEXITY_LIMIT_INSNS */
/* A budget for all three functions, which the packet program adds to its own. */
#define CEILING			(COMPLEXITY_LIMIT / 20)
#define PARITY_RUNS		500
#define TIMING_REPEAT		10000
#define TIMING_RUNS		3
#define PACKET_BLOCKS		6	/* a ClientHello's first ~96 bytes: up to its name */

static struct quic_probe *skel;
/* One run (or repeat runs) of prog over f, f rewritten with the frame out; *ns per run. */
static void probe_run(const struct bpf_program *prog, struct quic_probe_frame *f, __u32 repeat,
		      __u32 *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f, .data_size_in = sizeof(*f),
		    .data_out = f, .data_size_out = sizeof(*f), .repeat = repeat);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		fail_msg("BPF_PROG_TEST_RUN of %s: %s", bpf_program__name(prog), strerror(errno));
	if (opts.retval != XDP_PASS)
		fail_msg("%s returned %u (op %u)", bpf_program__name(prog), opts.retval, f->op);
	assert_int_equal(opts.data_size_out, sizeof(*f));
	if (ns)
		*ns = opts.duration;
}

static void assert_hex(const void *got, const char *hex, const char *what)
{
	__u8 want[64];
	size_t n = quic_unhex(hex, want, sizeof(want));

	if (memcmp(got, want, n))
		fail_msg("%s differs from the RFC's %s", what, hex);
}

/* ------------------------------------------------------------ verifier */

static void test_verifier_cost(void **state)
{
	const struct bpf_program *progs[] = {
		skel->progs.quic_probe, skel->progs.quic_probe_derive, skel->progs.quic_probe_aes,
		skel->progs.quic_probe_loop,
	};
	struct bpf_prog_info info;
	__u32 len, i;

	(void)state;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		assert_int_equal(bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len), 0);
		print_message("# verified_insns %7u (%4.1f%% of %u)  %s\n", info.verified_insns,
			      100.0 * info.verified_insns / COMPLEXITY_LIMIT, COMPLEXITY_LIMIT,
			      bpf_program__name(progs[i]));
		assert_true(info.verified_insns > 0);
		assert_true(info.verified_insns < CEILING);
	}
}

/* ------------------------------------------------------------ the RFCs */

static void vector_frame(const struct quic_vector *v, __u32 op, struct quic_probe_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->op = op;
	f->version = v->version;
	f->dcid_len = quic_unhex(v->dcid, f->dcid, sizeof(f->dcid));
}

static void test_rfc_keys(void **state)
{
	struct quic_probe_frame f;
	size_t i;

	(void)state;
	for (i = 0; i < QUIC_N_VECTORS; i++) {
		const struct quic_vector *v = &quic_vectors[i];

		vector_frame(v, QUIC_PROBE_DERIVE, &f);
		f.cold = i & 1;
		probe_run(skel->progs.quic_probe, &f, 1, NULL);
		assert_int_equal(f.ret, 0);
		assert_hex(f.initial_secret, v->initial_secret, "initial_secret");
		assert_hex(f.client_secret, v->client_secret, "client_initial_secret");
		assert_hex(f.keys.key.b, v->key, "key");
		assert_hex(f.keys.iv.b, v->iv, "iv");
		assert_hex(f.keys.hp.b, v->hp, "hp");
		/* The same through the derivation's program alone, and from a callback. */
		vector_frame(v, QUIC_PROBE_DERIVE, &f);
		probe_run(skel->progs.quic_probe_derive, &f, 1, NULL);
		assert_hex(f.keys.hp.b, v->hp, "hp (quic_probe_derive)");
		vector_frame(v, QUIC_PROBE_DERIVE, &f);
		quic_unhex(v->sample, f.sample.b, sizeof(f.sample.b));
		probe_run(skel->progs.quic_probe_loop, &f, 1, NULL);
		assert_hex(f.keys.key.b, v->key, "key (quic_probe_loop)");
		assert_hex(f.sample.b, v->mask, "mask (quic_probe_loop)");
	}
}

/* Each packet's header mask and its first 16 payload blocks: the CRYPTO frame, zeros. */
static void test_rfc_packet(void **state)
{
	__u8 packet[1200], want[sizeof(((struct quic_probe_frame *)0)->blocks)] = { 0 };
	struct quic_probe_frame f;
	size_t i, n, off = QUIC_VECTOR_PN_OFFSET + 4;

	(void)state;
	for (i = 0; i < QUIC_N_VECTORS; i++) {
		const struct quic_vector *v = &quic_vectors[i];

		quic_unhex(v->packet, packet, sizeof(packet));
		n = quic_unhex(v->crypto, want, sizeof(want));
		assert_true(n > 200);
		vector_frame(v, QUIC_PROBE_PACKET, &f);
		f.pn = v->pn;
		f.nblocks = QUIC_PROBE_BLOCKS;
		memcpy(f.sample.b, packet + off, sizeof(f.sample.b));
		memcpy(f.blocks, packet + off, sizeof(f.blocks));
		probe_run(skel->progs.quic_probe, &f, 1, NULL);
		assert_int_equal(f.ret, 0);
		assert_hex(f.sample.b, v->mask, "mask");
		assert_memory_equal(f.blocks, want, sizeof(f.blocks));
		assert_non_null(memmem(f.blocks, n, "example.com", 11));
	}
}

static void test_aes_kats(void **state)
{
	struct quic_probe_frame f;
	const struct bpf_program *progs[] = { skel->progs.quic_probe, skel->progs.quic_probe_aes };
	size_t i, p;

	(void)state;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < sizeof(quic_aes_kats) / sizeof(quic_aes_kats[0]); i++) {
			memset(&f, 0, sizeof(f));
			f.op = QUIC_PROBE_AES;
			f.nblocks = 1;
			quic_unhex(quic_aes_kats[i].key, f.key.b, sizeof(f.key.b));
			quic_unhex(quic_aes_kats[i].msg, f.blocks[0].b, sizeof(f.blocks[0].b));
			probe_run(progs[p], &f, 1, NULL);
			assert_hex(f.blocks[0].b, quic_aes_kats[i].out, quic_aes_kats[i].name);
		}
	}
}

/* -------------------------------------------------- against user space */

static void parity_derive(__u32 i)
{
	struct bloomxdp_quic_derive d = { 0 };
	struct quic_probe_frame f = { .op = QUIC_PROBE_DERIVE };

	f.version = rng() & 1 ? BLOOMXDP_QUIC_V1 : BLOOMXDP_QUIC_V2;
	f.dcid_len = i % (BLOOMXDP_QUIC_CID_MAX + 1);
	f.cold = rng() & 1;
	rng_bytes(f.dcid, sizeof(f.dcid));
	d.version = f.version;
	d.dcid_len = f.dcid_len;
	memcpy(d.dcid, f.dcid, sizeof(d.dcid));
	assert_int_equal(bloomxdp_quic_derive(&d), 0);
	probe_run(skel->progs.quic_probe, &f, 1, NULL);
	assert_int_equal(f.ret, 0);
	assert_memory_equal(f.initial_secret, d.initial_secret.b, 32);
	assert_memory_equal(f.client_secret, d.client_secret.b, 32);
	assert_memory_equal(&f.keys, &d.keys, sizeof(f.keys));
}

static void parity_packet(void)
{
	struct bloomxdp_quic_derive d = { 0 };
	struct quic_probe_frame f = { .op = QUIC_PROBE_PACKET }, in;
	struct bloomxdp_aes128 ks;
	struct bloomxdp_block blk;
	__u32 b, j;

	f.version = rng() & 1 ? BLOOMXDP_QUIC_V1 : BLOOMXDP_QUIC_V2;
	f.dcid_len = rng() % (BLOOMXDP_QUIC_CID_MAX + 1);
	rng_bytes(f.dcid, sizeof(f.dcid));
	f.pn = rng() >> 2;			/* 62 bits */
	f.nblocks = rng() % (QUIC_PROBE_BLOCKS + 1);
	rng_bytes(&f.sample, sizeof(f.sample));
	rng_bytes(f.blocks, sizeof(f.blocks));
	in = f;
	probe_run(skel->progs.quic_probe, &f, 1, NULL);
	d.version = in.version;
	d.dcid_len = in.dcid_len;
	memcpy(d.dcid, in.dcid, sizeof(d.dcid));
	bloomxdp_quic_derive(&d);
	bloomxdp_aes128_expand(&ks, &d.keys.hp);
	bloomxdp_aes128_encrypt(&ks, &in.sample);
	assert_memory_equal(f.sample.b, in.sample.b, 16);
	bloomxdp_aes128_expand(&ks, &d.keys.key);
	for (b = 0; b < in.nblocks; b++) {
		bloomxdp_quic_ctr_block(&d.keys.iv, in.pn, 2 + b, &blk);
		bloomxdp_aes128_encrypt(&ks, &blk);
		for (j = 0; j < 16; j++)
			in.blocks[b].b[j] ^= blk.b[j];
	}
	/* Blocks past nblocks are left as they were. */
	assert_memory_equal(f.blocks, in.blocks, sizeof(f.blocks));
}

static void parity_aes(void)
{
	struct quic_probe_frame f = { .op = QUIC_PROBE_AES }, in;
	struct bloomxdp_aes128 ks;
	__u32 b;

	rng_bytes(&f.key, sizeof(f.key));
	rng_bytes(f.blocks, sizeof(f.blocks));
	f.nblocks = QUIC_PROBE_BLOCKS;
	in = f;
	probe_run(skel->progs.quic_probe_aes, &f, 1, NULL);
	bloomxdp_aes128_expand(&ks, &in.key);
	for (b = 0; b < QUIC_PROBE_BLOCKS; b++)
		bloomxdp_aes128_encrypt(&ks, &in.blocks[b]);
	assert_memory_equal(f.blocks, in.blocks, sizeof(f.blocks));
}

static void test_parity(void **state)
{
	__u32 i;

	(void)state;
	for (i = 0; i < PARITY_RUNS; i++) {
		parity_derive(i);
		parity_packet();
		parity_aes();
	}
}

/* quic_wire.h's packets: the kernel's mask and key stream give back pn and payload. */
static void test_builder_packets(void **state)
{
	struct frame *dgram = calloc(1, sizeof(*dgram));
	__u8 plain[QUIC_PROBE_BLOCKS * 16];
	struct quic_probe_frame f;
	struct quic_opened *o = calloc(1, sizeof(*o));
	struct quic_pkt p;
	__u32 run, i, pn_off = 0, first;

	(void)state;
	assert_true(dgram && o);
	for (run = 0; run < PARITY_RUNS; run++) {
		memset(&p, 0, sizeof(p));
		p.version = rng() & 1 ? BLOOMXDP_QUIC_V1 : BLOOMXDP_QUIC_V2;
		p.dcid_len = rng() % (BLOOMXDP_QUIC_CID_MAX + 1);
		p.scid_len = rng() % (BLOOMXDP_QUIC_CID_MAX + 1);
		rng_bytes(p.dcid, sizeof(p.dcid));
		p.pn_len = 1 + rng() % 4;
		p.pn = rng() & ((1ULL << (8 * p.pn_len)) - 1);
		p.payload_len = 4 + rng() % (sizeof(plain) - 3);
		rng_bytes(plain, sizeof(plain));
		p.payload = plain;
		dgram->len = 0;
		quic_put_packet(dgram, &p);
		assert_int_equal(quic_parse_header(dgram->data, dgram->len, o, &pn_off), 0);
		memset(&f, 0, sizeof(f));
		f.op = QUIC_PROBE_PACKET;
		f.version = p.version;
		f.dcid_len = p.dcid_len;
		memcpy(f.dcid, p.dcid, p.dcid_len);
		f.pn = p.pn;
		f.nblocks = (p.payload_len + 15) / 16;
		memcpy(f.sample.b, dgram->data + pn_off + 4, 16);
		memcpy(f.blocks, dgram->data + pn_off + p.pn_len, p.payload_len);
		probe_run(skel->progs.quic_probe, &f, 1, NULL);
		first = dgram->data[0] ^ (f.sample.b[0] & 0x0f);
		assert_int_equal((first & 3) + 1, p.pn_len);
		for (i = 0; i < p.pn_len; i++)
			assert_int_equal(dgram->data[pn_off + i] ^ f.sample.b[1 + i],
					 (__u8)(p.pn >> (8 * (p.pn_len - 1 - i))));
		assert_memory_equal(f.blocks, plain, p.payload_len);
	}
	free(dgram);
	free(o);
}

static void test_refusals(void **state)
{
	static const __u32 versions[] = { 0, 0xff00001d, 0x6b3343ce, 0x00000002, 0xffffffff };
	static const __u32 lens[] = { 21, 22, 32, 255, 256, 0x80000000, 0xffffffff };
	struct quic_probe_frame f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		memset(&f, 0, sizeof(f));
		f.op = QUIC_PROBE_DERIVE;
		f.version = versions[i];
		f.dcid_len = 8;
		probe_run(skel->progs.quic_probe, &f, 1, NULL);
		assert_int_equal(f.ret, -1);
	}
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(&f, 0, sizeof(f));
		f.op = QUIC_PROBE_DERIVE;
		f.version = BLOOMXDP_QUIC_V1;
		f.dcid_len = lens[i];
		probe_run(skel->progs.quic_probe, &f, 1, NULL);
		assert_int_equal(f.ret, -1);
	}
}

/* --------------------------------------------------------------- timing */

/* The fastest of TIMING_RUNS runs of TIMING_REPEAT repetitions: ns per repetition. */
static __u32 timed(const struct quic_probe_frame *in)
{
	struct quic_probe_frame f;
	__u32 best = ~0U, ns, i;

	for (i = 0; i < TIMING_RUNS; i++) {
		f = *in;
		probe_run(skel->progs.quic_probe, &f, TIMING_REPEAT, &ns);
		if (ns < best)
			best = ns;
	}
	return best;
}

static void test_timing(void **state)
{
	struct quic_probe_frame f;
	__u32 warm, cold, aes0, aes16, pkt_warm, pkt_cold;

	(void)state;
	vector_frame(&quic_vectors[0], QUIC_PROBE_DERIVE, &f);
	warm = timed(&f);
	f.cold = 1;
	cold = timed(&f);
	memset(&f, 0, sizeof(f));
	f.op = QUIC_PROBE_AES;
	aes0 = timed(&f);
	f.nblocks = QUIC_PROBE_BLOCKS;
	aes16 = timed(&f);
	vector_frame(&quic_vectors[0], QUIC_PROBE_PACKET, &f);
	f.nblocks = PACKET_BLOCKS;
	pkt_warm = timed(&f);
	f.cold = 1;
	pkt_cold = timed(&f);
	print_message("# ns per run (prog_run, best of %u x %u): derivation %u warm, %u cold; "
		      "key expansion %u; AES block %.0f\n", TIMING_RUNS, TIMING_REPEAT, warm, cold,
		      aes0, (aes16 - (double)aes0) / QUIC_PROBE_BLOCKS);
	print_message("# ns per packet (derivation, header protection, %u payload blocks): "
		      "%u warm, %u cold\n", PACKET_BLOCKS, pkt_warm, pkt_cold);
	assert_true(warm > 0 && aes16 > aes0);
}

static int setup(void **state)
{
	(void)state;
	skel = quic_probe__open_and_load();
	if (!skel) {
		print_error("cannot load quic_probe: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	quic_probe__destroy(skel);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verifier_cost),
		cmocka_unit_test(test_rfc_keys),
		cmocka_unit_test(test_rfc_packet),
		cmocka_unit_test(test_aes_kats),
		cmocka_unit_test(test_parity),
		cmocka_unit_test(test_builder_packets),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_timing),
	};

	rng_seed();
	return cmocka_run_group_tests_name("quic_crypto_xdp", tests, setup, teardown);
}
