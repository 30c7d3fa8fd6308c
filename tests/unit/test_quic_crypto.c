// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * include/bloomxdp/quic.h in user space, the twin of what the XDP program
 * runs (tests/bpf/test_quic_crypto_xdp.c runs the same code in the kernel):
 *  - its tables made again from their definitions (the AES table from
 *    GF(2^8) arithmetic, SHA-256's constants from the primes' roots);
 *  - SHA-256, HMAC-SHA256, HKDF and AES-128 against published known answers
 *    (FIPS 180-4, RFC 4231, RFC 5869, FIPS-197);
 *  - RFC 9001 Appendix A and RFC 9369 Appendix A: the client's Initial keys
 *    and secrets, header protection (sample, mask, protected header), and the
 *    protected payload decrypted to its CRYPTO frame (the ClientHello naming
 *    example.com) and its PADDING;
 *  - random DCIDs of every length, both versions, against OpenSSL's HMAC, and
 *    the counter blocks against OpenSSL's AES-128-GCM (nonce, counter from 2,
 *    a last partial block); refusals of other versions and long DCIDs.
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
#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <bloomxdp/quic.h>
#include "../bpf/quic_vectors.h"
#include "../bpf/test_rng.h"

#define N(a)		(sizeof(a) / sizeof((a)[0]))
#define RANDOM_RUNS	2000

static void assert_hex(const void *got, const char *hex, const char *what)
{
	__u8 want[64];
	size_t n = quic_unhex(hex, want, sizeof(want)), i;

	if (memcmp(got, want, n)) {
		fprintf(stderr, "# %s: got ", what);
		for (i = 0; i < n; i++)
			fprintf(stderr, "%02x", ((const __u8 *)got)[i]);
		fprintf(stderr, ", want %s\n", hex);
		fail_msg("%s differs", what);
	}
}

/* ---------------------------------------------------------------- tables */

static __u8 gf_mul(__u8 a, __u8 b)
{
	__u8 r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (a << 1) ^ (a & 0x80 ? 0x1b : 0);
		b >>= 1;
	}
	return r;
}

static __u8 rotl8(__u8 x, int n)
{
	return (x << n) | (x >> (8 - n));
}

/* FIPS-197 5.1.1: the multiplicative inverse in GF(2^8), then the affine map. */
static __u8 sbox(__u8 x)
{
	__u8 inv = 0, b;
	int c;

	for (c = 1; c < 256 && x; c++)
		if (gf_mul(x, c) == 1)
			inv = c;
	b = inv;
	return b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63;
}

/* floor(n^(1/k)) for n < 2^120 */
static __u64 iroot(unsigned __int128 n, int k)
{
	__u64 lo = 0, hi = 1ULL << 41, mid;
	unsigned __int128 p;
	int i;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		for (p = 1, i = 0; i < k; i++)
			p *= mid;
		if (p <= n)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void test_tables(void **state)
{
	struct bloomxdp_sha256 s;
	__u32 prime = 1, x, d, i;
	__u64 col;
	__u8 v;

	(void)state;
	for (x = 0; x < 256; x++) {
		v = sbox(x);
		col = (__u32)gf_mul(v, 2) << 24 | (__u32)v << 16 | (__u32)v << 8 | gf_mul(v, 3);
		if (bloomxdp_aes_t[x] != (col << 32 | col))
			fail_msg("AES table entry %#x: %#llx, want %#llx", x,
				 (unsigned long long)bloomxdp_aes_t[x],
				 (unsigned long long)(col << 32 | col));
	}
	/* FIPS 180-4 4.2.2 and 5.3.3: fractional parts of cube and square roots of primes. */
	bloomxdp_sha256_init(&s);
	for (i = 0; i < 64; i++) {
		do {
			prime++;
			for (d = 2; d * d <= prime && prime % d; d++)
				;
		} while (d * d <= prime);
		assert_int_equal(bloomxdp_sha256_k[i],
				 (__u32)iroot((unsigned __int128)prime << 96, 3));
		if (i < 8)
			assert_int_equal(s.h[i], (__u32)iroot((unsigned __int128)prime << 64, 2));
	}
}

/* ------------------------------------------------- SHA-256, HMAC, HKDF */

/* SHA-256 of a message of any length, padded here (the header pads short ones). */
static void sha256_msg(const __u8 *msg, size_t len, __u8 out[32])
{
	struct bloomxdp_sha256 s;
	size_t off = 0, n, i;
	__u64 bits = (__u64)len * 8;
	int padded = 0;

	bloomxdp_sha256_init(&s);
	for (;;) {
		memset(s.block.b, 0, sizeof(s.block.b));
		n = len - off < 64 ? len - off : 64;
		memcpy(s.block.b, msg + off, n);
		off += n;
		if (n < 64 && !padded) {
			s.block.b[n] = 0x80;
			padded = 1;
		}
		if (n < 56) {
			for (i = 0; i < 8; i++)
				s.block.b[56 + i] = bits >> (56 - 8 * i);
			assert_int_equal(bloomxdp_sha256_block(&s), 0);
			break;
		}
		assert_int_equal(bloomxdp_sha256_block(&s), 0);
	}
	for (i = 0; i < 32; i++)
		out[i] = s.h[i / 4] >> (24 - 8 * (i % 4));
}

static void test_sha256(void **state)
{
	__u8 msg[64], out[32];
	size_t i, n;

	(void)state;
	for (i = 0; i < N(quic_sha256_kats); i++) {
		n = quic_unhex(quic_sha256_kats[i].msg, msg, sizeof(msg));
		sha256_msg(msg, n, out);
		assert_hex(out, quic_sha256_kats[i].out, quic_sha256_kats[i].name);
	}
	assert_int_equal(bloomxdp_sha256_block(NULL), -1);
}

/*
 * HMAC(key, msg) with the header's functions: a key of at most 64 bytes (given as words,
 * zero-padded), a message of less than 56.
 */
static void hmac(const __u8 *key, size_t klen, const __u8 *msg, size_t len, __u8 out[32])
{
	union bloomxdp_digest digest;
	struct bloomxdp_sha256 s;
	struct bloomxdp_hmac m;
	__u32 words[16] = { 0 };

	assert_true(klen <= 64 && len < 56);
	memcpy(words, key, klen);
	bloomxdp_hmac_key(&s, &m, words, (klen + 3) / 4);
	memset(s.block.b, 0, sizeof(s.block.b));
	memcpy(s.block.b, msg, len);
	bloomxdp_hmac_short(&s, &m, len);
	bloomxdp_sha256_out(&s, digest.w, 8);
	memcpy(out, digest.b, 32);
}

static void test_hmac(void **state)
{
	__u8 key[64], msg[64], out[32];
	size_t i, klen, len;

	(void)state;
	for (i = 0; i < N(quic_hmac_kats); i++) {
		klen = quic_unhex(quic_hmac_kats[i].key, key, sizeof(key));
		len = quic_unhex(quic_hmac_kats[i].msg, msg, sizeof(msg));
		hmac(key, klen, msg, len, out);
		assert_hex(out, quic_hmac_kats[i].out, quic_hmac_kats[i].name);
	}
}

/* HKDF-Extract and two blocks of HKDF-Expand (RFC 5869 2.2, 2.3) out of hmac(). */
static void test_hkdf(void **state)
{
	__u8 ikm[64], salt[32], info[16], prk[32], okm[64], msg[64];
	size_t i, ilen, slen, nlen;

	(void)state;
	for (i = 0; i < N(quic_hkdf_kats); i++) {
		const struct quic_hkdf_kat *k = &quic_hkdf_kats[i];

		ilen = quic_unhex(k->ikm, ikm, sizeof(ikm));
		memset(salt, 0, sizeof(salt));
		slen = quic_unhex(k->salt, salt, sizeof(salt));
		nlen = quic_unhex(k->info, info, sizeof(info));
		hmac(salt, slen ? slen : 32, ikm, ilen, prk);	/* no salt: 32 zeros */
		assert_hex(prk, k->prk, k->name);
		memcpy(msg, info, nlen);
		msg[nlen] = 1;
		hmac(prk, 32, msg, nlen + 1, okm);
		memcpy(msg, okm, 32);
		memcpy(msg + 32, info, nlen);
		msg[32 + nlen] = 2;
		hmac(prk, 32, msg, 32 + nlen + 1, okm + 32);
		assert_hex(okm, k->okm, k->name);
	}
}

/* --------------------------------------------------------------- AES-128 */

static void openssl_aes_ecb(const __u8 key[16], const __u8 in[16], __u8 out[16])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n;

	assert_non_null(c);
	assert_int_equal(EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), NULL, key, NULL), 1);
	EVP_CIPHER_CTX_set_padding(c, 0);
	assert_int_equal(EVP_EncryptUpdate(c, out, &n, in, 16), 1);
	assert_int_equal(n, 16);
	EVP_CIPHER_CTX_free(c);
}

static void test_aes(void **state)
{
	struct bloomxdp_block key, blk;
	struct bloomxdp_aes128 ks;
	__u8 want[16];
	size_t i;

	(void)state;
	for (i = 0; i < N(quic_aes_kats); i++) {
		quic_unhex(quic_aes_kats[i].key, key.b, sizeof(key.b));
		quic_unhex(quic_aes_kats[i].msg, blk.b, sizeof(blk.b));
		assert_int_equal(bloomxdp_aes128_expand(&ks, &key), 0);
		assert_int_equal(bloomxdp_aes128_encrypt(&ks, &blk), 0);
		assert_hex(blk.b, quic_aes_kats[i].out, quic_aes_kats[i].name);
	}
	/* The last i is Appendix B's key: its last round key (FIPS-197 A.1). */
	for (i = 0; i < 4; i++)
		blk.w[i] = bloomxdp_be32(ks.rk[40 + i]);
	assert_hex(blk.b, QUIC_AES_B_LAST_ROUND_KEY, "FIPS-197 A.1 w[40..43]");
	for (i = 0; i < RANDOM_RUNS; i++) {
		rng_bytes(&key, sizeof(key));
		rng_bytes(&blk, sizeof(blk));
		openssl_aes_ecb(key.b, blk.b, want);
		bloomxdp_aes128_expand(&ks, &key);
		bloomxdp_aes128_encrypt(&ks, &blk);
		assert_memory_equal(blk.b, want, 16);
	}
	assert_int_equal(bloomxdp_aes128_expand(NULL, &key), -1);
	assert_int_equal(bloomxdp_aes128_expand(&ks, NULL), -1);
	assert_int_equal(bloomxdp_aes128_encrypt(NULL, &blk), -1);
	assert_int_equal(bloomxdp_aes128_encrypt(&ks, NULL), -1);
}

/* ------------------------------------------------------------- QUIC keys */

static void derive_vector(const struct quic_vector *v, struct bloomxdp_quic_derive *d)
{
	memset(d, 0, sizeof(*d));
	d->version = v->version;
	d->dcid_len = quic_unhex(v->dcid, d->dcid, sizeof(d->dcid));
	assert_int_equal(bloomxdp_quic_derive(d), 0);
}

static void test_keys(void **state)
{
	struct bloomxdp_quic_derive d;
	size_t i;

	(void)state;
	for (i = 0; i < QUIC_N_VECTORS; i++) {
		const struct quic_vector *v = &quic_vectors[i];

		derive_vector(v, &d);
		assert_hex(d.initial_secret.b, v->initial_secret, "initial_secret");
		assert_hex(d.client_secret.b, v->client_secret, "client_initial_secret");
		assert_hex(d.keys.key.b, v->key, "key");
		assert_hex(d.keys.iv.b, v->iv, "iv");
		assert_hex(d.keys.hp.b, v->hp, "hp");
		assert_int_equal(d.keys.iv.b[12] | d.keys.iv.b[13] | d.keys.iv.b[14] |
				 d.keys.iv.b[15], 0);
	}
}

/* The protected packet's header: its mask from the sample; unmasked, the RFC's header. */
static void test_header_protection(void **state)
{
	__u8 packet[1200], header[32], want[32];
	struct bloomxdp_quic_derive d;
	struct bloomxdp_aes128 ks;
	struct bloomxdp_block mask;
	size_t i, j, len, hlen;

	(void)state;
	for (i = 0; i < QUIC_N_VECTORS; i++) {
		const struct quic_vector *v = &quic_vectors[i];

		derive_vector(v, &d);
		len = quic_unhex(v->packet, packet, sizeof(packet));
		assert_int_equal(len, 1200);
		hlen = quic_unhex(v->header, want, sizeof(want));
		/* The sample starts 4 bytes past the packet number's start (RFC 9001 5.4.2). */
		memcpy(mask.b, packet + QUIC_VECTOR_PN_OFFSET + 4, BLOOMXDP_QUIC_SAMPLE_LEN);
		assert_hex(mask.b, v->sample, "sample");
		bloomxdp_aes128_expand(&ks, &d.keys.hp);
		bloomxdp_aes128_encrypt(&ks, &mask);
		assert_hex(mask.b, v->mask, "mask");
		assert_hex(packet, v->protected_header, "protected header");
		/* Long header: the low 4 bits of byte 0, then the packet number's bytes. */
		memcpy(header, packet, hlen);
		header[0] ^= mask.b[0] & 0x0f;
		assert_int_equal((header[0] & 3) + 1, 4);
		for (j = 0; j < 4; j++)
			header[QUIC_VECTOR_PN_OFFSET + j] ^= mask.b[1 + j];
		assert_memory_equal(header, want, hlen);
		/* And back: the unprotected header masked is the protected one. */
		header[0] ^= mask.b[0] & 0x0f;
		for (j = 0; j < 4; j++)
			header[QUIC_VECTOR_PN_OFFSET + j] ^= mask.b[1 + j];
		assert_hex(header, v->protected_header, "header protected again");
	}
}

/* len bytes at p XORed with the key stream of blocks 2, 3, ... (GCM's CTR) */
static void ctr_xor(const struct bloomxdp_quic_keys *k, __u64 pn, __u8 *p, size_t len)
{
	struct bloomxdp_block blk;
	struct bloomxdp_aes128 ks;
	size_t i;

	bloomxdp_aes128_expand(&ks, &k->key);
	for (i = 0; i < len; i++) {
		if (i % 16 == 0) {
			bloomxdp_quic_ctr_block(&k->iv, pn, 2 + i / 16, &blk);
			bloomxdp_aes128_encrypt(&ks, &blk);
		}
		p[i] ^= blk.b[i % 16];
	}
}

/* The payload decrypted: the CRYPTO frame (a ClientHello for example.com), then zeros. */
static void test_payload(void **state)
{
	__u8 packet[1200], want[1200] = { 0 };
	struct bloomxdp_quic_derive d;
	size_t i, n, off = QUIC_VECTOR_PN_OFFSET + 4;

	(void)state;
	for (i = 0; i < QUIC_N_VECTORS; i++) {
		const struct quic_vector *v = &quic_vectors[i];

		derive_vector(v, &d);
		quic_unhex(v->packet, packet, sizeof(packet));
		n = quic_unhex(v->crypto, want, sizeof(want));
		assert_int_equal(off + v->payload_len + BLOOMXDP_QUIC_TAG_LEN, 1200);
		ctr_xor(&d.keys, v->pn, packet + off, v->payload_len);
		assert_memory_equal(packet + off, want, v->payload_len);
		assert_non_null(memmem(packet + off, n, "example.com", 11));
	}
}

/* ------------------------------------------------- against OpenSSL */

static void openssl_hmac(const __u8 *key, size_t klen, const __u8 *msg, size_t len,
			 __u8 out[32])
{
	unsigned int n = 32;

	assert_non_null(HMAC(EVP_sha256(), key, klen, msg, len, out, &n));
	assert_int_equal(n, 32);
}

/* HKDF-Expand-Label(secret, label, "", len), one block, with OpenSSL. */
static void openssl_label(const __u8 secret[32], const char *label, __u8 len, __u8 out[32])
{
	__u8 info[64];
	size_t n = strlen(label);

	info[0] = 0;
	info[1] = len;
	info[2] = 6 + n;
	memcpy(info + 3, "tls13 ", 6);
	memcpy(info + 9, label, n);
	info[9 + n] = 0;
	info[10 + n] = 1;
	openssl_hmac(secret, 32, info, 11 + n, out);
}

/* The version's keys from a random DCID of len bytes; OpenSSL's HMAC the reference. */
static void check_random_derive(struct bloomxdp_quic_derive *d, __u32 version, __u32 len)
{
	int v2 = version == BLOOMXDP_QUIC_V2;
	const char *prefix = v2 ? "quicv2 " : "quic ";
	__u8 salt[20], prk[32], secret[32], out[32];
	char label[16];
	size_t i;

	for (i = 0; quic_vectors[i].version != version; i++)
		;
	assert_int_equal(quic_unhex(quic_vectors[i].salt, salt, sizeof(salt)), 20);
	d->version = version;
	d->dcid_len = len;
	rng_bytes(d->dcid, sizeof(d->dcid));	/* bytes past len too: ignored */
	assert_int_equal(bloomxdp_quic_derive(d), 0);
	openssl_hmac(salt, 20, d->dcid, len, prk);
	assert_memory_equal(d->initial_secret.b, prk, 32);
	openssl_label(prk, "client in", 32, secret);
	assert_memory_equal(d->client_secret.b, secret, 32);
	snprintf(label, sizeof(label), "%skey", prefix);
	openssl_label(secret, label, 16, out);
	assert_memory_equal(d->keys.key.b, out, 16);
	snprintf(label, sizeof(label), "%siv", prefix);
	openssl_label(secret, label, 12, out);
	assert_memory_equal(d->keys.iv.b, out, 12);
	snprintf(label, sizeof(label), "%shp", prefix);
	openssl_label(secret, label, 16, out);
	assert_memory_equal(d->keys.hp.b, out, 16);
}

/*
 * Every DCID length, both versions, in one struct whose salt state is reused and
 * switched from version to version, and in fresh ones.
 */
static void test_derive_random(void **state)
{
	struct bloomxdp_quic_derive reused = { 0 }, fresh;
	__u32 i, version;

	(void)state;
	for (i = 0; i < RANDOM_RUNS; i++) {
		version = rng() & 1 ? BLOOMXDP_QUIC_V2 : BLOOMXDP_QUIC_V1;
		check_random_derive(&reused, version, i % (BLOOMXDP_QUIC_CID_MAX + 1));
		memset(&fresh, 0, sizeof(fresh));
		check_random_derive(&fresh, version, rng() % (BLOOMXDP_QUIC_CID_MAX + 1));
	}
}

static void test_derive_refusals(void **state)
{
	static const __u32 versions[] = { 0, 0xff00001d, 0x6b3343ce, 0x00000002, 0xfaceb002,
					  0x1a2a3a4a, 0xffffffff };
	struct bloomxdp_quic_derive d = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < N(versions); i++) {
		d.version = versions[i];
		d.dcid_len = 8;
		assert_int_equal(bloomxdp_quic_derive(&d), -1);
		assert_int_equal(bloomxdp_quic_initial_type(versions[i]), -1);
	}
	d.version = BLOOMXDP_QUIC_V1;
	for (d.dcid_len = BLOOMXDP_QUIC_CID_MAX + 1; d.dcid_len < 300; d.dcid_len += 7)
		assert_int_equal(bloomxdp_quic_derive(&d), -1);
	d.dcid_len = 0xffffffff;
	assert_int_equal(bloomxdp_quic_derive(&d), -1);
	d.dcid_len = 0;
	assert_int_equal(bloomxdp_quic_derive(&d), 0);
	assert_int_equal(bloomxdp_quic_derive(NULL), -1);
	assert_int_equal(bloomxdp_quic_initial_type(BLOOMXDP_QUIC_V1), 0);
	assert_int_equal(bloomxdp_quic_initial_type(BLOOMXDP_QUIC_V2), 1);
}

/* -------------------------------------------------- counter blocks */

static void test_ctr_block(void **state)
{
	struct bloomxdp_block iv, out;
	static const __u8 want[16] = {
		0x00, 0x01, 0x02, 0x03, 0x04 ^ 0x00, 0x05 ^ 0x00, 0x06 ^ 0x01, 0x07 ^ 0x23,
		0x08 ^ 0x45, 0x09 ^ 0x67, 0x0a ^ 0x89, 0x0b ^ 0xab, 0x00, 0x00, 0x01, 0x02,
	};
	__u32 i;

	(void)state;
	for (i = 0; i < 16; i++)
		iv.b[i] = i;	/* bytes 12..15 are no part of the IV: ignored */
	bloomxdp_quic_ctr_block(&iv, 0x0123456789abULL, 0x102, &out);
	assert_memory_equal(out.b, want, 16);
}

/* Our CTR decryption of OpenSSL's AES-128-GCM, nonce iv ^ pn: the plaintext again. */
static void test_gcm(void **state)
{
	__u8 plain[1500], cipher[1500], tag[16], nonce[12];
	struct bloomxdp_quic_keys k = { 0 };
	EVP_CIPHER_CTX *c;
	size_t i, j, len;
	__u64 pn;
	int n, m;

	(void)state;
	for (i = 0; i < RANDOM_RUNS / 4; i++) {
		rng_bytes(&k.key, sizeof(k.key));
		rng_bytes(k.iv.b, 12);
		pn = rng() >> (rng() & 63);
		len = rng() % sizeof(plain);
		rng_bytes(plain, len);
		memcpy(nonce, k.iv.b, 12);
		for (j = 0; j < 8; j++)
			nonce[4 + j] ^= pn >> (56 - 8 * j);
		c = EVP_CIPHER_CTX_new();
		assert_non_null(c);
		assert_int_equal(EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, NULL, NULL), 1);
		assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL), 1);
		assert_int_equal(EVP_EncryptInit_ex(c, NULL, NULL, k.key.b, nonce), 1);
		assert_int_equal(EVP_EncryptUpdate(c, cipher, &n, plain, len), 1);
		assert_int_equal(EVP_EncryptFinal_ex(c, cipher + n, &m), 1);
		assert_int_equal(n + m, len);
		assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag), 1);
		EVP_CIPHER_CTX_free(c);
		ctr_xor(&k, pn, cipher, len);
		assert_memory_equal(cipher, plain, len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_hmac),
		cmocka_unit_test(test_hkdf),
		cmocka_unit_test(test_aes),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_header_protection),
		cmocka_unit_test(test_payload),
		cmocka_unit_test(test_derive_random),
		cmocka_unit_test(test_derive_refusals),
		cmocka_unit_test(test_ctr_block),
		cmocka_unit_test(test_gcm),
	};

	rng_seed();
	return cmocka_run_group_tests_name("quic_crypto", tests, NULL, NULL);
}
