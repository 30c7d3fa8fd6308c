// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The XDP program and the CLI must compute the same bit positions, or listed
 * addresses pass. Checks, in order of reach:
 *  - an independent byte-wise SipHash against published vectors,
 *  - include/bloomxdp/hash.h against that reference (fixed known answers),
 *  - the address hash (multiply-add-shift) against a byte-wise reference,
 *  - the kernel (tests/bpf/hash_probe.bpf.c) against user space, for random
 *    keys, hash keys and geometries,
 *  - the real program end to end: no false negatives, false positives within
 *    the design rate.
 * Random inputs come from a seeded generator: set BLOOMXDP_TEST_SEED to repeat
 * a run.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <cmocka.h>

#include "test_rng.h"
#include "xdp_harness.h"
#include "hash_probe.h"
#include "hash_probe.skel.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PARITY_RUNS	10000
#define E2E_ENTRIES	10000

static struct hash_probe *probe_skel;
/* ------------------------------------------- reference SipHash, from the paper */

static __u64 ref_rotl(__u64 x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static void ref_round(__u64 v[4])
{
	v[0] += v[1]; v[1] = ref_rotl(v[1], 13); v[1] ^= v[0]; v[0] = ref_rotl(v[0], 32);
	v[2] += v[3]; v[3] = ref_rotl(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = ref_rotl(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = ref_rotl(v[1], 17); v[1] ^= v[2]; v[2] = ref_rotl(v[2], 32);
}

/* Little-endian word of up to 8 bytes, assembled byte by byte. */
static __u64 ref_le(const __u8 *b, size_t n)
{
	__u64 w = 0;
	size_t i;

	for (i = 0; i < n; i++)
		w |= (__u64)b[i] << (8 * i);
	return w;
}

/* SipHash-c-d of len bytes under the 16-byte key k. */
static __u64 ref_siphash(int c, int d, const __u8 k[16], const __u8 *msg, size_t len)
{
	__u64 k0 = ref_le(k, 8), k1 = ref_le(k + 8, 8), m;
	__u64 v[4] = { k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
		       k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL };
	size_t off;
	int i;

	for (off = 0; off <= len; off += 8) {
		/* The last block holds the 0..7 remaining bytes and len mod 256 on top. */
		if (len - off >= 8)
			m = ref_le(msg + off, 8);
		else
			m = ref_le(msg + off, len - off) | (__u64)(len & 0xff) << 56;
		v[3] ^= m;
		for (i = 0; i < c; i++)
			ref_round(v);
		v[0] ^= m;
	}
	v[2] ^= 0xff;
	for (i = 0; i < d; i++)
		ref_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The message bloomxdp hashes: the key words as little-endian bytes. */
static __u64 ref_key_hash(const __u64 hash_key[2], const struct bloomxdp_key *key)
{
	__u8 k[16], msg[8 * BLOOMXDP_KEY_MAX_WORDS];
	__u32 w, i;

	for (i = 0; i < 16; i++)
		k[i] = hash_key[i / 8] >> (8 * (i % 8));
	for (w = 0; w < key->nwords; w++)
		for (i = 0; i < 8; i++)
			msg[8 * w + i] = key->word[w] >> (8 * i);
	return ref_siphash(1, 3, k, msg, 8 * key->nwords);
}

/*
 * The address hash as hash.h's comment defines it, from the bytes: multipliers
 * a_j,i and b_j the reference SipHash-1-3 of "addrkey" and the index byte;
 * pieces x_0..x_5 the key's bytes, 4 at a time, little-endian, zero past
 * nwords; h_j the high half of sum(a_j,i x_i) + b_j mod 2^64; fmix64 of h_1:h_0.
 */
static __u64 ref_addr_hash(const __u64 hash_key[2], const struct bloomxdp_key *key)
{
	__u8 k[16], msg[8], bytes[8 * BLOOMXDP_KEY_MAX_WORDS] = { 0 };
	__u64 mul[BLOOMXDP_ADDR_KEY_WORDS], h[2], x;
	__u32 i, j, w;

	for (i = 0; i < 16; i++)
		k[i] = hash_key[i / 8] >> (8 * (i % 8));
	memcpy(msg, "addrkey", 7);
	for (i = 0; i < BLOOMXDP_ADDR_KEY_WORDS; i++) {
		msg[7] = i;
		mul[i] = ref_siphash(1, 3, k, msg, 8);
	}
	for (w = 0; w < key->nwords; w++)
		for (i = 0; i < 8; i++)
			bytes[8 * w + i] = key->word[w] >> (8 * i);
	for (j = 0; j < 2; j++) {
		h[j] = mul[12 + j];
		for (i = 0; i < 6; i++) {
			x = ref_le(bytes + 4 * i, 4);
			h[j] += mul[6 * j + i] * x;
		}
		h[j] >>= 32;
	}
	x = h[1] << 32 | h[0];
	x = (x ^ x >> 33) * 0xff51afd7ed558ccdULL;
	x = (x ^ x >> 33) * 0xc4ceb9fe1a85ec53ULL;
	return x ^ x >> 33;
}

/* ---------------------------------------------------------- kernel probes */

/* The kernel's hash and positions of key (hash_probe.bpf.c); fails the test on error. */
static void kernel_probe(const struct bloomxdp_key *key, const __u64 hash_key[2], __u32 bits,
			 __u32 hashes, struct hash_probe_frame *out)
{
	struct hash_probe_frame in = { .key = *key, .bits = bits, .hashes = hashes };
	__u32 verdict = ~0U;
	int ret;

	in.hash_key[0] = hash_key[0];
	in.hash_key[1] = hash_key[1];
	bloomxdp_addr_key_derive(hash_key, in.addr_key);
	memset(out, 0, sizeof(*out));
	ret = xdp_test_run(bpf_program__fd(probe_skel->progs.hash_probe), &in, sizeof(in), out,
			   sizeof(*out), &verdict);
	if (ret)
		fail_msg("BPF_PROG_TEST_RUN of hash_probe failed: %s", strerror(-ret));
	if (verdict != XDP_PASS)
		fail_msg("hash_probe returned %u for bits %u, hashes %u", verdict, bits, hashes);
}

static void describe_key(const struct bloomxdp_key *key, char *buf, size_t len)
{
	snprintf(buf, len, "key {%#llx, %#llx, %#llx; %u words}",
		 (unsigned long long)key->word[0], (unsigned long long)key->word[1],
		 (unsigned long long)key->word[2], key->nwords);
}

/* The address hash: reference, user space and kernel agree. */
static void assert_addr_hash(const struct bloomxdp_key *key, const __u64 hash_key[2],
			     __u64 kernel, const char *what)
{
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS], user, ref = ref_addr_hash(hash_key, key);
	char desc[128];

	bloomxdp_addr_key_derive(hash_key, addr_key);
	user = bloomxdp_addr_hash(addr_key, key);
	if (user != ref || kernel != ref) {
		describe_key(key, desc, sizeof(desc));
		fail_msg("%s: %s, hash key {%#llx, %#llx}: address hash: reference %#llx, "
			 "user %#llx, kernel %#llx", what, desc, (unsigned long long)hash_key[0],
			 (unsigned long long)hash_key[1], (unsigned long long)ref,
			 (unsigned long long)user, (unsigned long long)kernel);
	}
}

/*
 * Kernel hash and every position equal user space's, and the positions are
 * g_i = (h1 + i * h2) mod m (h2 = 1 when 0) computed in 64 bits; what names the case.
 */
static void assert_parity(const struct bloomxdp_key *key, const __u64 hash_key[2], __u32 bits,
			  __u32 hashes, const char *what)
{
	__u64 hash = bloomxdp_siphash13(hash_key, key), h1, h2, ref;
	struct hash_probe_frame out;
	struct bloomxdp_probe probe;
	char desc[128];
	__u32 i;

	kernel_probe(key, hash_key, bits, hashes, &out);
	describe_key(key, desc, sizeof(desc));
	assert_addr_hash(key, hash_key, out.addr_hash, what);
	if (out.hash != hash)
		fail_msg("%s: %s, hash key {%#llx, %#llx}: kernel hash %#llx, user %#llx", what,
			 desc, (unsigned long long)hash_key[0], (unsigned long long)hash_key[1],
			 (unsigned long long)out.hash, (unsigned long long)hash);
	h1 = (hash & 0xffffffff) % bits;
	h2 = (hash >> 32) % bits ? (hash >> 32) % bits : 1;
	bloomxdp_probe_init(&probe, hash, bits);
	for (i = 0; i < hashes; i++) {
		ref = (h1 + i * h2) % bits;
		if (out.pos[i] != probe.pos || probe.pos != ref)
			fail_msg("%s: %s, bits %u, hashes %u: position %u is %u in the kernel, "
				 "%u in user space, %llu by the formula", what, desc, bits, hashes,
				 i, out.pos[i], probe.pos, (unsigned long long)ref);
		bloomxdp_probe_next(&probe, bits);
	}
}

/* ---------------------------------------------------------------- tests */

/* The 16-byte key 00 01 .. 0f of the SipHash paper and of its reference vectors. */
static const __u64 paper_key[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };

/* The reference implementation reproduces published vectors (message 00 01 .. len-1). */
static void test_reference_siphash(void **state)
{
	static const struct {
		int c, d;
		size_t len;
		__u64 hash;
	} vectors[] = {
		/* SipHash paper, appendix A, and veorq/SipHash vectors.h */
		{ 2, 4, 0, 0x726fdb47dd0e0e31ULL },
		{ 2, 4, 8, 0x93f5f5799a932462ULL },
		{ 2, 4, 15, 0xa129ca6149be45e5ULL },
		{ 2, 4, 24, 0xb8ad50c6f649af94ULL },
		/* the reference code with cROUNDS=1, dROUNDS=3 (e.g. Rust's SipHasher13 tests) */
		{ 1, 3, 0, 0xabac0158050fc4dcULL },
		{ 1, 3, 8, 0x369095118d299a8eULL },
		{ 1, 3, 15, 0xd320d86d2a519956ULL },
		{ 1, 3, 16, 0xcc4fdd1a7d908b66ULL },
		{ 1, 3, 24, 0xf464aeb267349c8cULL },
	};
	__u8 k[16], msg[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	for (i = 0; i < sizeof(k); i++)
		k[i] = i;
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		__u64 got = ref_siphash(vectors[i].c, vectors[i].d, k, msg, vectors[i].len);

		if (got != vectors[i].hash)
			fail_msg("reference SipHash-%d-%d of %zu bytes: %#llx, published %#llx",
				 vectors[i].c, vectors[i].d, vectors[i].len,
				 (unsigned long long)got, (unsigned long long)vectors[i].hash);
	}
}

/*
 * Fixed answers, computed once with ref_siphash(): a change of the hash, of
 * the key layout or of key_parse() changes them, and every filter with it.
 */
static void test_known_answers(void **state)
{
	static const __u64 key2[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
	static const struct {
		const char *text;	/* a list entry, or NULL: message 00 01 .. 8*nwords-1 */
		__u32 nwords;
		const __u64 *hash_key;
		__u64 hash;
	} answers[] = {
		/* Published SipHash-1-3 vectors, through bloomxdp_siphash13(). */
		{ NULL, 0, paper_key, 0xabac0158050fc4dcULL },
		{ NULL, 1, paper_key, 0x369095118d299a8eULL },
		{ NULL, 3, paper_key, 0xf464aeb267349c8cULL },
		/* Keys as the program builds them. */
		{ "192.0.2.1", 1, paper_key, 0xae3eb98de74580ebULL },
		{ "::ffff:192.0.2.1", 1, paper_key, 0xae3eb98de74580ebULL },
		{ "0.0.0.0", 1, paper_key, 0xc6e34cde10caceb2ULL },
		{ "255.255.255.255", 1, key2, 0x2399d96a80acc532ULL },
		{ "2001:db8::1", 3, paper_key, 0x4106a4fb46454d7eULL },
		{ "::", 3, paper_key, 0x8bd119c2d0342ca1ULL },
		{ "fe80::1:2:3:4", 3, key2, 0x49904080f84bc723ULL },
	};
	struct bloomxdp_key key = { 0 };
	struct hash_probe_frame out;
	__u8 msg[8 * BLOOMXDP_KEY_MAX_WORDS];
	const char *why;
	__u64 want, user, ref;
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		const char *name = answers[i].text ? answers[i].text : "00 01 ..";

		if (answers[i].text) {
			assert_int_equal(key_parse(answers[i].text, &key, &why), 0);
		} else {
			for (j = 0; j < BLOOMXDP_KEY_MAX_WORDS; j++)
				key.word[j] = ref_le(msg + 8 * j, 8);
			key.nwords = answers[i].nwords;
		}
		if (key.nwords != answers[i].nwords)
			fail_msg("%s: %u key words, expected %u", name, key.nwords,
				 answers[i].nwords);
		want = answers[i].hash;
		ref = ref_key_hash(answers[i].hash_key, &key);
		user = bloomxdp_siphash13(answers[i].hash_key, &key);
		kernel_probe(&key, answers[i].hash_key, 64, 1, &out);
		if (ref != want || user != want || out.hash != want)
			fail_msg("%s (%u words): expected %#llx; reference %#llx, user %#llx, "
				 "kernel %#llx", name, key.nwords, (unsigned long long)want,
				 (unsigned long long)ref, (unsigned long long)user,
				 (unsigned long long)out.hash);
	}
}

/*
 * The address hash's fixed answers, computed once with ref_addr_hash(): a
 * change of the hash, of its key derivation or of the key layout changes
 * them, and every filter with it. Reference, user space and kernel agree.
 */
static void test_addr_known_answers(void **state)
{
	static const __u64 key2[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
	static const struct {
		const char *text;
		const __u64 *hash_key;
		__u64 hash;
	} answers[] = {
		{ "192.0.2.1", paper_key, 0x927bb1d0a1bbdf34ULL },
		{ "192.0.2.2", paper_key, 0xaa82be334e5e1192ULL },
		{ "::ffff:192.0.2.1", paper_key, 0x927bb1d0a1bbdf34ULL },
		{ "0.0.0.0", paper_key, 0xfaea087773c9be6dULL },
		{ "2001:db8::1", paper_key, 0xe06fe69700b0c685ULL },
		{ "::", paper_key, 0x852815b62615acafULL },
		{ "fe80::1:2:3:4", key2, 0xa6ae0ec940de0710ULL },
	};
	struct bloomxdp_key key = { 0 };
	struct hash_probe_frame out;
	const char *why;
	__u64 ref;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		assert_int_equal(key_parse(answers[i].text, &key, &why), 0);
		ref = ref_addr_hash(answers[i].hash_key, &key);
		if (ref != answers[i].hash)
			fail_msg("%s: reference address hash %#llx, expected %#llx",
				 answers[i].text, (unsigned long long)ref,
				 (unsigned long long)answers[i].hash);
		kernel_probe(&key, answers[i].hash_key, 64, 1, &out);
		assert_addr_hash(&key, answers[i].hash_key, out.addr_hash, answers[i].text);
	}
}

static __u32 random_bits(void)
{
	/* Multiples of 64, from one word up to BLOOMXDP_MAX_BITS. */
	switch (rng() % 3) {
	case 0:
		return 64 * (1 + rng() % 64);
	case 1:
		return 64 * (1 + rng() % (1 << 20));
	default:
		return 64 * (1 + rng() % (BLOOMXDP_MAX_BITS / 64));
	}
}

static void random_key(struct bloomxdp_key *key)
{
	__u8 addr[16] __attribute__((aligned(4)));

	rng_bytes(addr, sizeof(addr));
	memset(key, 0, sizeof(*key));
	if (rng() & 1)
		bloomxdp_key_ipv4(key, addr, rng() % 33);
	else
		bloomxdp_key_ipv6(key, addr, rng() % 129);
}

/* Kernel and user space agree on the hash and every position, for random everything. */
static void test_kernel_parity(void **state)
{
	static const __u32 edge_bits[] = { 64, 128, 4096, BLOOMXDP_MAX_BITS };
	struct bloomxdp_key key;
	__u32 bits, hashes, i;
	__u64 hash_key[2];
	char what[64];

	(void)state;
	for (i = 0; i < PARITY_RUNS + ARRAY_SIZE(edge_bits); i++) {
		random_key(&key);
		rng_bytes(hash_key, sizeof(hash_key));
		if (i < ARRAY_SIZE(edge_bits)) {
			bits = edge_bits[i];
			hashes = BLOOMXDP_MAX_HASHES;
		} else {
			bits = i % 4 ? random_bits() : edge_bits[rng() % ARRAY_SIZE(edge_bits)];
			hashes = 1 + rng() % BLOOMXDP_MAX_HASHES;
		}
		snprintf(what, sizeof(what), "run %u (seed %llu)", i, (unsigned long long)test_seed);
		assert_parity(&key, hash_key, bits, hashes, what);
	}
}

/*
 * A random address as text; the low bit of its last byte is set for other,
 * clear for listed, so that the two sets are disjoint.
 */
static const char *random_address(int af, bool other, char *buf, size_t len)
{
	__u8 addr[16];
	size_t n = af == AF_INET ? 4 : 16;

	rng_bytes(addr, n);
	addr[n - 1] = (addr[n - 1] & ~1) | other;
	return inet_ntop(af, addr, buf, len);
}

/* Inserts each address of a set, or sends it as a source; returns how many dropped. */
static __u32 run_set(struct xdp_harness *h, bool other, bool insert)
{
	struct frame_desc d = { 0 };
	char text[INET6_ADDRSTRLEN];
	__u32 i, verdict = ~0U, drops = 0;
	struct frame f;
	int af, ret;

	for (i = 0; i < E2E_ENTRIES; i++) {
		af = i % 2 ? AF_INET6 : AF_INET;
		d.ethertype = af == AF_INET ? ETH_P_IP : ETH_P_IPV6;
		d.src = random_address(af, other, text, sizeof(text));
		if (insert) {
			assert_int_equal(harness_insert(h, text), 0);
			continue;
		}
		assert_int_equal(frame_build(&f, &d), 0);
		ret = harness_run(h, &f, &verdict);
		if (ret)
			fail_msg("%s: BPF_PROG_TEST_RUN failed: %s", text, strerror(-ret));
		if (verdict == XDP_DROP)
			drops++;
		else if (!other)
			fail_msg("listed %s passed (false negative; seed %llu)", text,
				 (unsigned long long)test_seed);
	}
	return drops;
}

static void expect_delta(const char *counter, __u64 got, __u64 want)
{
	if (got != want)
		fail_msg("end to end: counter %s moved by %llu, expected %llu", counter,
			 (unsigned long long)got, (unsigned long long)want);
}

/* filter_insert() in user space, lookups by bloomxdp_xdp: every listed address drops. */
/* Every listed address drops, other ones at the design FPR, in the given layout. */
static void end_to_end(__u32 layout)
{
	struct harness_config hc = { .match = BLOOMXDP_MATCH_SRC, .capacity = E2E_ENTRIES,
				     .layout = layout };
	struct bloomxdp_counters before, after;
	double fpr, bound;
	struct xdp_harness h;
	__u64 hash_key[2], set_rng;
	__u32 fps;

	rng_bytes(hash_key, sizeof(hash_key));
	hc.hash_key = hash_key;
	assert_int_equal(harness_open(&h, &hc), 0);

	set_rng = rng_state;
	run_set(&h, false, true);
	rng_state = set_rng;		/* the same addresses again, as frames */
	assert_int_equal(harness_counters(&h, &before), 0);
	assert_int_equal(run_set(&h, false, false), E2E_ENTRIES);
	fps = run_set(&h, true, false);
	assert_int_equal(harness_counters(&h, &after), 0);

	fpr = (double)h.config.fpr_ppb / BLOOMXDP_PPB;
	bound = fpr * E2E_ENTRIES + 5 * sqrt(E2E_ENTRIES * fpr * (1 - fpr));
	printf("# %u false positives in %u (design FPR %g, bound %.1f)\n", fps, E2E_ENTRIES,
	       fpr, bound);
	harness_close(&h);
	if (fps > bound)
		fail_msg("%u false positives in %u, more than %.1f (FPR %g + 5 sigma; seed %llu)",
			 fps, E2E_ENTRIES, bound, fpr, (unsigned long long)test_seed);
	/* Listed and other sets alternate v4 and v6 addresses. */
	expect_delta("dropped", after.dropped - before.dropped, E2E_ENTRIES + fps);
	expect_delta("hits_v4 + hits_v6", after.hits_v4 + after.hits_v6 - before.hits_v4 -
		     before.hits_v6, E2E_ENTRIES + fps);
	expect_delta("checked_v4", after.checked_v4 - before.checked_v4, E2E_ENTRIES);
	expect_delta("checked_v6", after.checked_v6 - before.checked_v6, E2E_ENTRIES);
}

static void test_end_to_end(void **state)
{
	(void)state;
	end_to_end(BLOOMXDP_LAYOUT_BITS);
}

static void test_end_to_end_blocked(void **state)
{
	(void)state;
	end_to_end(BLOOMXDP_LAYOUT_BLOCKED);
}

static void test_end_to_end_kernel(void **state)
{
	(void)state;
	end_to_end(BLOOMXDP_LAYOUT_KERNEL);
}

static int setup(void **state)
{
	(void)state;
	probe_skel = hash_probe__open_and_load();
	if (!probe_skel) {
		print_error("cannot load hash_probe: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	hash_probe__destroy(probe_skel);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_siphash),
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_addr_known_answers),
		cmocka_unit_test(test_kernel_parity),
		cmocka_unit_test(test_end_to_end),
		cmocka_unit_test(test_end_to_end_blocked),
		cmocka_unit_test(test_end_to_end_kernel),
	};

	rng_seed();
	return cmocka_run_group_tests_name("hash_parity", tests, setup, teardown);
}
