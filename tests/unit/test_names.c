// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Domain names and URLs: normalisation, the hashing the XDP program shares
 * with the CLI (checked against a byte-wise SipHash written from the paper),
 * every list line format, and what a listed entry blocks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "filter/entry_keys.h"
#include "parse/entries.h"
#include "parse/keys.h"
#include "parse/domain.h"
#include "filter/bloom_plan.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The key of the published SipHash test vectors: bytes 00 01 .. 0f. */
static const __u64 vector_key[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };

/* xorshift64*: reproducible random data. */
static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* len random characters of alphabet, NUL-terminated. */
static void random_text(__u64 *rng, const char *alphabet, size_t len, char *out)
{
	size_t i, n = strlen(alphabet);

	for (i = 0; i < len; i++)
		out[i] = alphabet[rng_next(rng) % n];
	out[len] = '\0';
}

/* bloomxdp_hash_bytes of text from a zeroed buffer of the size the XDP program hashes from. */
static __u64 hash_text(const char *text, size_t len, int lower)
{
	__u8 buf[BLOOMXDP_NAME_BUF + BLOOMXDP_NAME_PAD] = {};

	assert_true(len <= BLOOMXDP_NAME_MAX);
	memcpy(buf, text, len);
	return bloomxdp_hash_bytes(vector_key, buf, 0, len, lower);
}

/* The rightmost n labels of name. */
static const char *rightmost_labels(const char *name, int n)
{
	const char *p;
	int labels = 1;

	for (p = name; *p; p++)
		labels += *p == '.';
	for (p = name; labels > n; labels--)
		p = strchr(p, '.') + 1;
	return p;
}

/* A name of len characters: labels of label_len 'a'..'z' letters, separated by dots. */
static void make_name(char *out, size_t len, size_t label_len)
{
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = (i + 1) % (label_len + 1) ? 'a' + i % 26 : '.';
	out[len] = '\0';
}

/* ---- name_normalize ---------------------------------------------------- */

static void expect_normalized(const char *in, const char *want)
{
	char out[NAME_TEXT_MAX];
	const char *why = NULL;

	if (name_normalize(in, out, &why))
		fail_msg("'%s' was refused: %s", in, why);
	if (strcmp(out, want))
		fail_msg("'%s' normalised to '%s', want '%s'", in, out, want);
}

/* why_part: a part of the reason, or NULL for any reason (libidn2's own words). */
static void expect_refused(const char *in, const char *why_part)
{
	char out[NAME_TEXT_MAX];
	const char *why = NULL;

	if (name_normalize(in, out, &why) != -EINVAL)
		fail_msg("'%s' was accepted as '%s'", in, out);
	if (!why || (why_part && !strstr(why, why_part)))
		fail_msg("'%s' refused with '%s', want a reason with '%s'", in,
			 why ? why : "(none)", why_part ? why_part : "anything");
}

static void test_normalize_accepts(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "EVIL.Example", "evil.example" },
		{ "evil.example.", "evil.example" },
		{ "_dmarc.mail-1.example", "_dmarc.mail-1.example" },
		{ "-a_.example", "-a_.example" },
		{ "a", "a" },
		{ "localhost", "localhost" },
		{ "0.example", "0.example" },
		/* IDN: Unicode to its xn-- form, whatever the case and with a trailing dot. */
		{ "bücher.example", "xn--bcher-kva.example" },
		{ "BÜCHER.Example.", "xn--bcher-kva.example" },
		{ "例え.テスト", "xn--r8jz45g.xn--zckzah" },
		{ "_dmarc.bücher.example", "_dmarc.xn--bcher-kva.example" },
		/* IDNA 2008 non-transitional: ß stays a letter of its own. */
		{ "straße.example", "xn--strae-oqa.example" },
		{ "xn--bcher-kva.example", "xn--bcher-kva.example" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		expect_normalized(cases[i].in, cases[i].out);
}

static void test_normalize_refuses(void **state)
{
	static const struct {
		const char *in, *why;
	} cases[] = {
		{ "evil example", "only letters, digits" },
		{ "*.example", "only letters, digits" },
		{ "evil.example/x", "only letters, digits" },
		{ "user@evil.example", "only letters, digits" },
		{ "evil.example:80", "only letters, digits" },
		{ "evil\t.example", "only letters, digits" },
		{ "evil\x01.example", "only letters, digits" },
		{ "evil\x1f.example", "only letters, digits" },
		{ "evil\x7f.example", "only letters, digits" },
		{ "a..b", "empty label" },
		{ ".evil.example", "empty label" },
		{ "evil.example..", "empty label" },
		{ ".", "empty label" },
		{ "..", "empty label" },
		{ "", "empty name" },
		/* Not UTF-8, or Unicode that IDNA refuses: libidn2 gives the reason. */
		{ "\xff.example", NULL },
		{ "b\xc3.example", NULL },
		{ "bü cher.example", NULL },
		{ "bücher..example", NULL },
		{ "☺.example", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		expect_refused(cases[i].in, cases[i].why);
}

static void test_normalize_limits(void **state)
{
	char name[400], dotted[401];

	(void)state;
	/* Labels: 63 characters at most. */
	make_name(name, 63, 63);
	strcat(name, ".example");
	expect_normalized(name, name);
	make_name(name, 64, 64);
	strcat(name, ".example");
	expect_refused(name, "label longer than 63");

	/* Names: 253 characters at most, 254 with the trailing dot. */
	make_name(name, 253, 63);
	expect_normalized(name, name);
	snprintf(dotted, sizeof(dotted), "%s.", name);
	expect_normalized(dotted, name);
	make_name(name, 254, 63);
	expect_refused(name, "longer than 253");
	make_name(name, 399, 63);
	expect_refused(name, "longer than 253");

	/* 16 labels at most: the XDP program examines the rightmost 16. */
	make_name(name, 31, 1);
	expect_normalized(name, name);
	make_name(name, 33, 1);
	expect_refused(name, "more than 16 labels");

	/* A Unicode label whose xn-- form is over 63 characters. */
	name[0] = '\0';
	while (strlen(name) < 120)
		strcat(name, "ü");
	strcat(name, ".example");
	expect_refused(name, NULL);
}

/* ---- suffix hashes ----------------------------------------------------- */

static __u64 fold_reference(const __u64 k[2], __u64 suffix, const char *label, size_t len);

static void test_suffix_hashes_fold_labels(void **state)
{
	static const char *const labels[] = { "example", "evil", "b", "a" };	/* right to left */
	const char *name = "a.b.evil.example";
	__u64 suffix[BLOOMXDP_MAX_LABELS], s = BLOOMXDP_NAME_SEED;
	int n, j;

	(void)state;
	n = name_suffix_hashes(vector_key, name, suffix);
	assert_int_equal(n, 4);
	assert_true(suffix[n - 1] == name_hash(vector_key, name));
	for (j = 0; j < n; j++) {
		/* suffix[j]: the key a listed "example", "evil.example", ... inserts. */
		assert_true(suffix[j] == name_hash(vector_key, rightmost_labels(name, j + 1)));
		/* S_j = SipHash-1-3(S_{j-1} || label j), as name.h specifies, by the paper. */
		s = fold_reference(vector_key, s, labels[j], strlen(labels[j]));
		assert_true(suffix[j] == s);
	}
}

static void test_suffix_hashes_fold_case(void **state)
{
	(void)state;
	assert_true(hash_text("EVIL.example", 12, 1) == hash_text("evil.example", 12, 1));
	assert_true(hash_text("EVIL.example", 12, 0) != hash_text("evil.example", 12, 0));
	/* Packets carry names in any case (DNS 0x20 randomisation): all of them match. */
	assert_true(name_hash(vector_key, "EVIL.Example") == name_hash(vector_key, "evil.example"));
	assert_true(name_hash(vector_key, "eViL.eXaMpLe") == name_hash(vector_key, "evil.example"));
}

static void test_suffix_hashes_keep_rightmost_16(void **state)
{
	const char *name = "q.p.o.n.m.l.k.j.i.h.g.f.e.d.c.b.a";	/* 17 labels */
	__u64 suffix[BLOOMXDP_MAX_LABELS];
	int n, j;

	(void)state;
	n = name_suffix_hashes(vector_key, name, suffix);
	assert_int_equal(n, BLOOMXDP_MAX_LABELS);
	for (j = 0; j < n; j++)
		assert_true(suffix[j] == name_hash(vector_key, rightmost_labels(name, j + 1)));
	assert_true(suffix[15] == name_hash(vector_key, "p.o.n.m.l.k.j.i.h.g.f.e.d.c.b.a"));
	/* The 17th label is not examined: a 17-label name hashes as its rightmost 16. */
	assert_true(name_hash(vector_key, name) == name_hash(vector_key, name + 2));
}

/* Suffixes are whole labels: two names share exactly their common rightmost labels. */
static void test_suffix_hashes_label_boundaries(void **state)
{
	static const struct {
		const char *a, *b;
		int shared;	/* rightmost labels in common */
	} cases[] = {
		{ "evil.example", "notevil.example", 1 },	/* "example" only */
		{ "evil.example", "evil.example.org", 0 },
		{ "evil.example", "vil.example", 1 },
		{ "evil.example", "e.vil.example", 1 },
		{ "evil.example", "evil.exampl", 0 },
		{ "evil.example", "a.evil.example", 2 },
		{ "evil.example", "example", 1 },
		{ "a.b", "ab", 0 },
		{ "a.b", "b.a", 0 },
	};
	__u64 sa[BLOOMXDP_MAX_LABELS], sb[BLOOMXDP_MAX_LABELS];
	size_t c;
	int na, nb, i, j, shared;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		na = name_suffix_hashes(vector_key, cases[c].a, sa);
		nb = name_suffix_hashes(vector_key, cases[c].b, sb);
		shared = 0;
		for (i = 0; i < na; i++)
			for (j = 0; j < nb; j++)
				if (sa[i] == sb[j]) {
					if (i != j || i >= cases[c].shared)
						fail_msg("%s and %s: suffix %d equals suffix %d",
							 cases[c].a, cases[c].b, i, j);
					shared++;
				}
		if (shared != cases[c].shared)
			fail_msg("%s and %s share %d suffixes, want %d", cases[c].a, cases[c].b,
				 shared, cases[c].shared);
	}
}

/* ---- ASCII lower case, eight bytes at a time --------------------------- */

static __u64 lower_reference(__u64 w)
{
	__u64 out = 0, b;
	int i;

	for (i = 0; i < 8; i++) {
		b = w >> (8 * i) & 0xff;
		if (b >= 'A' && b <= 'Z')
			b += 'a' - 'A';
		out |= b << (8 * i);
	}
	return out;
}

static void check_lower(__u64 w)
{
	__u64 got = bloomxdp_ascii_lower(w), want = lower_reference(w);

	if (got != want)
		fail_msg("bloomxdp_ascii_lower(%016llx) = %016llx, want %016llx",
			 (unsigned long long)w, (unsigned long long)got, (unsigned long long)want);
}

static __u64 with_byte(__u64 w, int pos, __u64 b)
{
	return (w & ~(0xffULL << (8 * pos))) | b << (8 * pos);
}

/*
 * Every byte value in every position, over backgrounds that sit on the
 * boundaries of the per-byte arithmetic; then every pair of adjacent bytes,
 * since a carry could only leak into the next byte up.
 */
static void test_ascii_lower_exhaustive(void **state)
{
	__u64 backgrounds[16 + 48] = {
		0, ~0ULL, 0x4141414141414141ULL, 0x5a5a5a5a5a5a5a5aULL, 0x4040404040404040ULL,
		0x5b5b5b5b5b5b5b5bULL, 0x8080808080808080ULL, 0xc1c1c1c1c1c1c1c1ULL,
		0xdadadadadadadadaULL, 0x7f7f7f7f7f7f7f7fULL, 0x6161616161616161ULL,
		0x7a7a7a7a7a7a7a7aULL, 0x3f3f3f3f3f3f3f3fULL, 0x2525252525252525ULL,
		0xbfbfbfbfbfbfbfbfULL, 0xdbdbdbdbdbdbdbdbULL,
	};
	__u64 rng = 1, w;
	size_t i;
	int pos, b, b2;

	(void)state;
	for (i = 16; i < ARRAY_SIZE(backgrounds); i++)
		backgrounds[i] = rng_next(&rng);
	for (i = 0; i < ARRAY_SIZE(backgrounds); i++)
		for (pos = 0; pos < 8; pos++)
			for (b = 0; b < 256; b++)
				check_lower(with_byte(backgrounds[i], pos, b));
	for (i = 0; i < 2; i++)
		for (pos = 0; pos < 7; pos++)
			for (b = 0; b < 256; b++)
				for (b2 = 0; b2 < 256; b2++) {
					w = with_byte(backgrounds[i], pos, b);
					check_lower(with_byte(w, pos + 1, b2));
				}
}

/* ---- SipHash-1-3 of byte strings --------------------------------------- */

#define REF_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(__u64 v[4])
{
	v[0] += v[1]; v[1] = REF_ROTL(v[1], 13); v[1] ^= v[0]; v[0] = REF_ROTL(v[0], 32);
	v[2] += v[3]; v[3] = REF_ROTL(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = REF_ROTL(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = REF_ROTL(v[1], 17); v[1] ^= v[2]; v[2] = REF_ROTL(v[2], 32);
}

/*
 * SipHash-c-d as the paper (Aumasson & Bernstein, 2012) specifies it: the
 * message in little-endian 8-byte words, the last one holding the remaining
 * bytes and len mod 256 in its top byte; c rounds per word, d to finish.
 */
static __u64 siphash_reference(int c, int d, const __u64 k[2], const __u8 *msg, size_t len)
{
	__u64 v[4] = {
		k[0] ^ 0x736f6d6570736575ULL, k[1] ^ 0x646f72616e646f6dULL,
		k[0] ^ 0x6c7967656e657261ULL, k[1] ^ 0x7465646279746573ULL,
	};
	size_t i = 0, j;
	__u64 m;
	int r;

	for (;;) {
		m = 0;
		for (j = 0; j < 8 && i + j < len; j++)
			m |= (__u64)msg[i + j] << (8 * j);
		if (j < 8)
			m |= (__u64)(len & 0xff) << 56;
		v[3] ^= m;
		for (r = 0; r < c; r++)
			sip_round(v);
		v[0] ^= m;
		if (j < 8)
			break;
		i += 8;
	}
	v[2] ^= 0xff;
	for (r = 0; r < d; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/*
 * SipHash-1-3 of the bytes 00 01 .. len-1 under the key (k0, 0), from the
 * reference implementation github.com/veorq/SipHash (as OCaml's test suite
 * publishes them).
 */
static const struct {
	size_t len;
	__u64 k0, hash;
} sip13_vectors[] = {
	{ 0, 0, 0xd1fba762150c532cULL },  { 1, 0, 0x68a914128e01e473ULL },
	{ 7, 0, 0x2f098ab0c751325aULL },  { 8, 0, 0xead411e67ebe2eeaULL },
	{ 9, 0, 0x75927f9d95124362ULL },  { 15, 0, 0xf30eb725bb91c9eaULL },
	{ 16, 0, 0x8972188433a5c5b7ULL }, { 31, 0, 0x169739443111d49bULL },
	{ 63, 0, 0x385d3e39e5f37359ULL }, { 0, 1, 0xc44a0ebf4e962581ULL },
	{ 8, 1, 0x51738227823e2309ULL },  { 63, 1, 0xa35bf11b84b78be0ULL },
};

/* The reference is checked against published values before it judges anything. */
/* S_j by the reference: the 8 bytes of S_{j-1}, little-endian, then the label lower-cased. */
static __u64 fold_reference(const __u64 k[2], __u64 suffix, const char *label, size_t len)
{
	__u8 msg[8 + BLOOMXDP_LABEL_MAX];
	size_t i;

	assert_true(len <= BLOOMXDP_LABEL_MAX);
	for (i = 0; i < 8; i++)
		msg[i] = suffix >> (8 * i);
	for (i = 0; i < len; i++)
		msg[8 + i] = label[i] >= 'A' && label[i] <= 'Z' ? label[i] + 32 : label[i];
	return siphash_reference(1, 3, k, msg, 8 + len);
}

static void test_siphash_reference_known_answers(void **state)
{
	__u8 msg[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	/* SipHash-2-4: the paper's appendix A, and the reference vectors.h (empty message). */
	assert_true(siphash_reference(2, 4, vector_key, msg, 15) == 0xa129ca6149be45e5ULL);
	assert_true(siphash_reference(2, 4, vector_key, msg, 0) == 0x726fdb47dd0e0e31ULL);
	/* SipHash-1-3: the reference implementation's values. */
	for (i = 0; i < ARRAY_SIZE(sip13_vectors); i++) {
		__u64 key[2] = { sip13_vectors[i].k0, 0 };

		assert_true(siphash_reference(1, 3, key, msg, sip13_vectors[i].len) ==
			    sip13_vectors[i].hash);
	}
}

/* Keys of evil.example and evil.example/malware under vector_key, as recorded. */
#define NAME_HASH_EVIL_EXAMPLE		0x0b0485039ab3d4f9ULL
#define URL_KEY_EVIL_EXAMPLE_MALWARE	0x76b7addb06f966ecULL
#define URL_HOST_KEY_EVIL_EXAMPLE	0xf6f66a3ce255aee4ULL

/* Fixed answers: any change of the hashing, which the XDP program must follow, fails here. */
static void test_hash_known_answers(void **state)
{
	__u8 buf[BLOOMXDP_NAME_BUF + BLOOMXDP_NAME_PAD] = {};
	__u64 prefix[BLOOMXDP_MAX_PATH_PREFIXES], host, word;
	size_t i;

	(void)state;
	for (i = 0; i < 64; i++)
		buf[i] = i;
	for (i = 0; i < ARRAY_SIZE(sip13_vectors); i++) {
		__u64 key[2] = { sip13_vectors[i].k0, 0 };

		assert_true(bloomxdp_hash_bytes(key, buf, 0, sip13_vectors[i].len, 0) ==
			    sip13_vectors[i].hash);
		/* Bytes 00..3e hold no 'A'..'Z': folding case changes nothing. */
		assert_true(bloomxdp_hash_bytes(key, buf, 0, sip13_vectors[i].len, 1) ==
			    sip13_vectors[i].hash);
	}
	/* Whole words, as address keys are hashed. */
	memcpy(&word, buf, sizeof(word));
	assert_true(bloomxdp_siphash13_words(vector_key, &word, 1) ==
		    siphash_reference(1, 3, vector_key, buf, 8));
	/* The name and URL keys (values of this implementation, recorded). */
	assert_true(name_hash(vector_key, "evil.example") == NAME_HASH_EVIL_EXAMPLE);
	assert_int_equal(path_prefix_hashes(vector_key, "/malware", 8, prefix, NULL), 2);
	host = name_hash(vector_key, "evil.example");
	assert_true(bloomxdp_url_key(vector_key, host, prefix[1]) == URL_KEY_EVIL_EXAMPLE_MALWARE);
	assert_true(bloomxdp_url_host_key(vector_key, host) == URL_HOST_KEY_EVIL_EXAMPLE);
}

/*
 * The word-at-a-time bloomxdp_hash_bytes equals the byte-wise reference for
 * every length a name or path may have, at offsets anywhere in the buffer
 * that leave the string inside it, with random bytes around the string (so
 * the masking of the last word is tested too), with and without case folding;
 * and so do its bounded forms for labels (up to 63 bytes) and paths.
 */
static void test_hash_bytes_equals_reference(void **state)
{
	__u8 buf[BLOOMXDP_NAME_BUF + BLOOMXDP_NAME_PAD], lowered[BLOOMXDP_NAME_BUF];
	__u64 rng = 0x5eed, key[2], want, got;
	size_t len, i, off;
	int trial;

	(void)state;
	for (len = 0; len <= BLOOMXDP_NAME_MAX; len++) {
		for (trial = 0; trial < 16; trial++) {
			for (i = 0; i < sizeof(buf); i++)
				buf[i] = rng_next(&rng);
			if (trial & 1)	/* letters and their neighbours: case folding at work */
				for (i = 0; i < sizeof(buf); i++)
					buf[i] = "AbcXYZaz@[`{" "MNOPQRST"[buf[i] % 20];
			off = trial == 0 ? 0 : trial == 1 ? BLOOMXDP_NAME_BUF - len :
			      rng_next(&rng) % (BLOOMXDP_NAME_BUF - len + 1);
			key[0] = rng_next(&rng);
			key[1] = rng_next(&rng);

			want = siphash_reference(1, 3, key, buf + off, len);
			got = bloomxdp_hash_bytes(key, buf, off, len, 0);
			if (got != want)
				fail_msg("len %zu off %zu: %016llx, reference %016llx", len, off,
					 (unsigned long long)got, (unsigned long long)want);

			for (i = 0; i < len; i++)
				lowered[i] = buf[off + i] >= 'A' && buf[off + i] <= 'Z' ?
					     buf[off + i] + 32 : buf[off + i];
			want = siphash_reference(1, 3, key, lowered, len);
			got = bloomxdp_hash_bytes(key, buf, off, len, 1);
			if (got != want)
				fail_msg("len %zu off %zu lower: %016llx, reference %016llx", len,
					 off, (unsigned long long)got, (unsigned long long)want);
			if (len >= 1 && len <= BLOOMXDP_LABEL_MAX &&
			    bloomxdp_name_fold(key, key[0] ^ len, buf, off, len) !=
			    fold_reference(key, key[0] ^ len, (const char *)buf + off, len))
				fail_msg("fold of a %zu-byte label at %zu: not the reference", len,
					 off);

			if (bloomxdp_hash_path(key, buf, len) !=
			    siphash_reference(1, 3, key, buf, len))
				fail_msg("path of %zu bytes: not the reference", len);
		}
	}
}

/* ---- URL path prefixes ------------------------------------------------- */

static void check_prefixes(const char *path, size_t len, const char *const *want)
{
	__u64 prefix[BLOOMXDP_MAX_PATH_PREFIXES], again[BLOOMXDP_MAX_PATH_PREFIXES];
	size_t ends[BLOOMXDP_MAX_PATH_PREFIXES];
	int n, nwant = 0, i;

	while (want[nwant])
		nwant++;
	n = path_prefix_hashes(vector_key, path, len, prefix, ends);
	if (n != nwant)
		fail_msg("'%.40s' (%zu bytes): %d prefixes, want %d", path, len, n, nwant);
	for (i = 0; i < n; i++) {
		size_t wlen = strlen(want[i]);

		if (ends[i] != wlen || memcmp(path, want[i], wlen))
			fail_msg("'%.40s': prefix %d ends at %zu, want '%.40s'", path, i, ends[i],
				 want[i]);
		assert_true(prefix[i] == hash_text(want[i], wlen, 0));
	}
	/* ends is optional. */
	assert_int_equal(path_prefix_hashes(vector_key, path, len, again, NULL), n);
	assert_memory_equal(again, prefix, n * sizeof(prefix[0]));
}

static void test_path_prefixes(void **state)
{
	static const struct {
		const char *path;
		const char *prefixes[BLOOMXDP_MAX_PATH_PREFIXES + 1];
	} cases[] = {
		{ "/malware/x/y", { "", "/malware", "/malware/x", "/malware/x/y" } },
		{ "/malware/", { "", "/malware" } },
		{ "/malware", { "", "/malware" } },
		{ "", { "" } },
		{ "/", { "" } },
		{ "/a//b", { "", "/a", "/a/", "/a//b" } },
		{ "/Case/X", { "", "/Case", "/Case/X" } },
		/* At most BLOOMXDP_MAX_PATH_PREFIXES: "" and 8 segments. */
		{ "/1/2/3/4/5/6/7/8/9/10",
		  { "", "/1", "/1/2", "/1/2/3", "/1/2/3/4", "/1/2/3/4/5", "/1/2/3/4/5/6",
		    "/1/2/3/4/5/6/7", "/1/2/3/4/5/6/7/8" } },
		{ "/1/2/3/4/5/6/7/8",
		  { "", "/1", "/1/2", "/1/2/3", "/1/2/3/4", "/1/2/3/4/5", "/1/2/3/4/5/6",
		    "/1/2/3/4/5/6/7", "/1/2/3/4/5/6/7/8" } },
	};
	char path[400], head[200];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_prefixes(cases[i].path, strlen(cases[i].path), cases[i].prefixes);

	/* 255 bytes: whole. 256 or more: cut to 255, and the cut whole is no prefix. */
	path[0] = '/';
	memset(path + 1, 'a', 254);
	path[255] = '\0';
	check_prefixes(path, 255, (const char *const[]){ "", path, NULL });
	memset(path + 1, 'a', 299);
	path[300] = '\0';
	check_prefixes(path, 256, (const char *const[]){ "", NULL });
	check_prefixes(path, 300, (const char *const[]){ "", NULL });
	/* "/a{100}/b{200}": the boundary before the cut still counts. */
	memset(path + 1, 'a', 100);
	path[101] = '/';
	memset(path + 102, 'b', 200);
	path[302] = '\0';
	memcpy(head, path, 101);
	head[101] = '\0';
	check_prefixes(path, 302, (const char *const[]){ "", head, NULL });
}

/* ---- list line formats ------------------------------------------------- */

/* An entry as text: "A addr", "N name" or "U host/path". */
static void render_entry(const struct entry *e, char *out, size_t len)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	const struct bloomxdp_key *k = &e->addr;
	__u8 bytes[16];
	__u32 v4;

	switch (e->kind) {
	case ENTRY_ADDR:
		if (k->nwords == 1 && (__u32)k->word[0] == (BLOOMXDP_KEY_IPV4 | 32 << 8)) {
			v4 = k->word[0] >> 32;
			inet_ntop(AF_INET, &v4, addr, sizeof(addr));
		} else if (k->nwords == 3 && k->word[0] == (BLOOMXDP_KEY_IPV6 | 128 << 8)) {
			memcpy(bytes, &k->word[1], 8);
			memcpy(bytes + 8, &k->word[2], 8);
			inet_ntop(AF_INET6, bytes, addr, sizeof(addr));
		}
		snprintf(out, len, "A %s", addr);
		return;
	case ENTRY_NAME:
		snprintf(out, len, "N %s", e->name);
		return;
	case ENTRY_URL:
		snprintf(out, len, "U %s%s", e->name, e->path);
		return;
	}
	snprintf(out, len, "? kind %d", e->kind);
}

struct rendered {
	char text[2048];
	int n;
};

static int render_cb(const struct entry *e, void *arg)
{
	struct rendered *r = arg;
	size_t used = strlen(r->text);
	char one[600];

	render_entry(e, one, sizeof(one));
	snprintf(r->text + used, sizeof(r->text) - used, "%s%s", r->n ? ", " : "", one);
	r->n++;
	return 0;
}

static int parse_line(const char *line, enum list_format format, struct rendered *r,
		      const char **why)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s", line);
	memset(r, 0, sizeof(*r));
	*why = NULL;
	return entry_parse_line(text, format, render_cb, r, why);
}

static const char *const format_name[] = {
	[FORMAT_AUTO] = "auto", [FORMAT_ADDR] = "addr", [FORMAT_DOMAIN] = "domain",
	[FORMAT_HOSTS] = "hosts", [FORMAT_ADBLOCK] = "adblock", [FORMAT_URL] = "url",
};

static void expect_entries(const char *line, enum list_format format, const char *want)
{
	struct rendered r;
	const char *why;
	int ret;

	ret = parse_line(line, format, &r, &why);
	if (ret)
		fail_msg("'%s' (%s): refused: %d %s", line, format_name[format], ret,
			 why ? why : "");
	if (strcmp(r.text, want))
		fail_msg("'%s' (%s): got '%s', want '%s'", line, format_name[format], r.text, want);
}

/* Each line is read the same in auto format and in its own format. */
static void test_parse_accepted(void **state)
{
	static const struct {
		const char *line;
		enum list_format format;
		const char *want;	/* entries rendered, ", " between; "" for none */
	} cases[] = {
		{ "203.0.113.7", FORMAT_ADDR, "A 203.0.113.7" },
		{ "2001:DB8::1", FORMAT_ADDR, "A 2001:db8::1" },
		{ "::ffff:192.0.2.1", FORMAT_ADDR, "A 192.0.2.1" },
		{ "::", FORMAT_ADDR, "A ::" },

		{ "evil.example", FORMAT_DOMAIN, "N evil.example" },
		{ "0.0.0.0 localhost. LOCALHOST", FORMAT_AUTO, "" },
		{ "evil.example/r?u=http://x", FORMAT_AUTO, "U evil.example/r" },
		{ "EVIL.Example.", FORMAT_DOMAIN, "N evil.example" },
		{ "bücher.example", FORMAT_DOMAIN, "N xn--bcher-kva.example" },
		{ "例え.テスト", FORMAT_DOMAIN, "N xn--r8jz45g.xn--zckzah" },
		{ "_dmarc.evil.example", FORMAT_DOMAIN, "N _dmarc.evil.example" },
		{ "localhost", FORMAT_DOMAIN, "N localhost" },

		{ "0.0.0.0 evil.example", FORMAT_HOSTS, "N evil.example" },
		{ "127.0.0.1 a.example b.example c.example", FORMAT_HOSTS,
		  "N a.example, N b.example, N c.example" },
		{ "127.0.0.1\tA.example \t bücher.example.", FORMAT_HOSTS,
		  "N a.example, N xn--bcher-kva.example" },
		{ "127.0.0.1 localhost", FORMAT_HOSTS, "" },
		{ "::1 localhost ip6-localhost ip6-loopback", FORMAT_HOSTS, "" },
		{ "255.255.255.255 broadcasthost", FORMAT_HOSTS, "" },
		{ "0.0.0.0 0.0.0.0", FORMAT_HOSTS, "" },
		{ "127.0.0.1 localhost.localdomain LOCALHOST evil.example", FORMAT_HOSTS,
		  "N evil.example" },

		{ "||evil.example^", FORMAT_ADBLOCK, "N evil.example" },
		{ "||EVIL.example.^", FORMAT_ADBLOCK, "N evil.example" },
		{ "||bücher.example^", FORMAT_ADBLOCK, "N xn--bcher-kva.example" },
		{ "! comment", FORMAT_ADBLOCK, "" },
		{ "!", FORMAT_ADBLOCK, "" },
		{ "[Adblock Plus 2.0]", FORMAT_ADBLOCK, "" },

		{ "http://evil.example/path", FORMAT_URL, "U evil.example/path" },
		{ "https://EVIL.example:8443/Path/x/?q=1#f", FORMAT_URL, "U evil.example/Path/x" },
		{ "evil.example/malware/", FORMAT_URL, "U evil.example/malware" },
		{ "evil.example/", FORMAT_URL, "U evil.example" },
		{ "http://evil.example", FORMAT_URL, "U evil.example" },
		{ "HTTP://evil.example/", FORMAT_URL, "U evil.example" },
		{ "http://evil.example?q=/x", FORMAT_URL, "U evil.example" },
		{ "http://evil.example#/x", FORMAT_URL, "U evil.example" },
		{ "evil.example:8080/x", FORMAT_URL, "U evil.example/x" },
		/* Userinfo ends at the last '@', as the XDP program reads absolute-form targets. */
		{ "http://user@evil.example/", FORMAT_URL, "U evil.example" },
		{ "http://user:pw@evil.example/a", FORMAT_URL, "U evil.example/a" },
		{ "HTTPS://U:P@EVIL.example:8443/a?q", FORMAT_URL, "U evil.example/a" },
		{ "http://a@b@evil.example/a", FORMAT_URL, "U evil.example/a" },
		{ "http://u:p@q@evil.example/a", FORMAT_URL, "U evil.example/a" },
		{ "http://evil.example@fine.example/", FORMAT_URL, "U fine.example" },
		{ "http://fine.example/@evil.example", FORMAT_URL, "U fine.example/@evil.example" },
		{ "user@evil.example/a", FORMAT_URL, "U evil.example/a" },
		{ "http://bücher.example/a", FORMAT_URL, "U xn--bcher-kva.example/a" },
		{ "evil.example/1/2/3/4/5/6/7/8", FORMAT_URL, "U evil.example/1/2/3/4/5/6/7/8" },
		{ "evil.example/1/2/3/4/5/6/7/8/", FORMAT_URL, "U evil.example/1/2/3/4/5/6/7/8" },
		/* Beyond the 8 segments the XDP program examines: stored by the first 8. */
		{ "evil.example/1/2/3/4/5/6/7/8/9", FORMAT_URL, "U evil.example/1/2/3/4/5/6/7/8" },
		{ "http://evil.example/1/2/3/4/5/6/7/8/9/10/", FORMAT_URL,
		  "U evil.example/1/2/3/4/5/6/7/8" },
		{ "||evil.example/ads^", FORMAT_ADBLOCK, "U evil.example/ads" },
		{ "evil.example", FORMAT_ADBLOCK, "N evil.example" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		expect_entries(cases[i].line, FORMAT_AUTO, cases[i].want);
		expect_entries(cases[i].line, cases[i].format, cases[i].want);
	}
}

static void expect_line_refused(const char *line, enum list_format format, const char *why_part)
{
	struct rendered r;
	const char *why;
	int ret;

	ret = parse_line(line, format, &r, &why);
	if (ret != -EINVAL)
		fail_msg("'%.60s' (%s): returned %d with '%s', want -EINVAL", line,
			 format_name[format], ret, r.text);
	if (!why || (why_part && !strstr(why, why_part)))
		fail_msg("'%.60s' (%s): reason '%s', want one with '%s'", line, format_name[format],
			 why ? why : "(none)", why_part ? why_part : "anything");
	if (r.n)
		fail_msg("'%.60s' (%s): refused, yet passed on '%s'", line, format_name[format],
			 r.text);
}

static void test_parse_refused(void **state)
{
	static const struct {
		const char *line;
		enum list_format format;
		const char *why;	/* a part of the reason; NULL: any reason */
	} cases[] = {
		{ "198.51.100.1/24", FORMAT_AUTO, "host bits set after /24: did you mean "
						   "198.51.100.0/24?" },
		{ "198.51.100.0/33", FORMAT_ADDR, "a prefix length is 0 to 32" },
		{ "2001:db8::1/32", FORMAT_AUTO, "did you mean 2001:db8::/32?" },
		{ "2001:db8::/129", FORMAT_AUTO, "a prefix length is 0 to 128" },
		{ "::ffff:0:0/95", FORMAT_AUTO, "an IPv4-mapped prefix is at least /96" },
		{ "evil.example", FORMAT_ADDR, "not an IPv4 or IPv6 address" },
		{ "0.0.0.0 evil.example", FORMAT_ADDR, "not an IPv4 or IPv6 address" },

		{ "0.0.0.0 evil.example", FORMAT_DOMAIN, "only letters, digits" },
		{ "evil..example", FORMAT_AUTO, "empty label" },
		{ "evil.example..", FORMAT_DOMAIN, "empty label" },
		{ "*.evil.example", FORMAT_AUTO, "only letters, digits" },

		{ "evil.example other.example", FORMAT_AUTO, "hosts line starts with an address" },
		{ "evil.example", FORMAT_HOSTS, "a hosts line starts with an address" },
		{ "0.0.0.0 evil..example", FORMAT_AUTO, "empty label" },
		{ "0.0.0.0 *.example", FORMAT_HOSTS, "only letters, digits" },

		{ "||a.example^$third-party", FORMAT_AUTO, "option $third-party narrows the rule" },
		{ "||a.example^$third-party", FORMAT_ADBLOCK, "option $third-party narrows" },
		{ "@@||a.example^$script", FORMAT_ADBLOCK, "exception with option $script" },
		{ "example.com##.ad", FORMAT_AUTO, "adblock cosmetic" },
		{ "/ads/*", FORMAT_AUTO, "not anchored at a host" },
		{ "x.example:abc/p", FORMAT_AUTO, "port after ':' must be a number" },
		{ "http://x.example:/p", FORMAT_AUTO, "port after ':' must be a number" },
		{ "example.com##.ad", FORMAT_ADBLOCK, "adblock cosmetic" },
		{ "example.com##.ad", FORMAT_AUTO, NULL },
		{ "/ads/*", FORMAT_ADBLOCK, "not anchored at a host" },
		{ "/ads/*", FORMAT_AUTO, NULL },
		{ "||evil.example", FORMAT_AUTO, "without '^' after the host" },
		{ "||^", FORMAT_AUTO, "empty name" },
		{ "evil..example", FORMAT_ADBLOCK, "not anchored at a host" },
		{ "||*.example^", FORMAT_AUTO, "wildcard" },
		{ "||evil.example/ads", FORMAT_AUTO, "does not end at a separator" },

		{ "ftp://x.example/", FORMAT_AUTO, "only http:// and https:// URLs are supported" },
		{ "ftp://x.example/", FORMAT_URL, "only http:// and https://" },
		{ "http://user@/a", FORMAT_AUTO, "empty name" },
		{ "http://user:pw@x.example:/a", FORMAT_URL, "port after ':' must be a number" },
		{ "evil.example", FORMAT_URL, "a URL needs a path" },
		{ "http://*.example/", FORMAT_AUTO, "only letters, digits" },
		{ "http:///path", FORMAT_AUTO, "empty name" },
	};
	char line[400], want[400];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		expect_line_refused(cases[i].line, cases[i].format, cases[i].why);

	/* URL paths: 254 bytes at most. */
	strcpy(line, "http://evil.example/");
	memset(line + 20, 'p', 253);
	line[273] = '\0';
	snprintf(want, sizeof(want), "U evil.example%s", line + 19);
	expect_entries(line, FORMAT_AUTO, want);
	strcat(line, "p");
	expect_line_refused(line, FORMAT_AUTO, "first segment is longer than 254 bytes");
	/* With segments: cut at the last '/' that fits, as widened. */
	line[100] = '/';
	line[19 + 254] = '\0';
	snprintf(want, sizeof(want), "U evil.example%.81s", line + 19);
	strcat(line, "pp/q");
	expect_entries(line, FORMAT_AUTO, want);
}

static void test_list_format_parse(void **state)
{
	static const char *const bad[] = { "AUTO", "", "hostsfile", "domains", "ip", "urls" };
	enum list_format f;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(format_name); i++) {
		f = -1;
		assert_int_equal(list_format_parse(format_name[i], &f), 0);
		assert_int_equal(f, i);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(list_format_parse(bad[i], &f), -EINVAL);
}

/* ---- what entries block ----------------------------------------------- */

/* A heap filter of the geometry the CLI would choose, as test_fpr.c builds it. */
static void filter_alloc(struct filter *f, __u64 capacity, double fpr, __u64 *rng)
{
	struct bloomxdp_config cfg = {};
	struct bloom_plan plan;

	assert_int_equal(bloom_plan_compute(capacity, fpr, &plan), 0);
	cfg.bits = plan.bits;
	cfg.hashes = plan.hashes;
	cfg.hash_key[0] = rng_next(rng);
	cfg.hash_key[1] = rng_next(rng);
	assert_int_equal(filter_init_memory(&cfg, f), 0);
}

static int insert_cb(const struct entry *e, void *arg)
{
	entry_keys_insert(arg, e);
	return 0;
}

/* Inserts the entries of list lines, read in auto format. */
static void insert_lines(struct filter *f, const char *const *lines, size_t n)
{
	char text[512];
	const char *why = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "%s", lines[i]);
		if (entry_parse_line(text, FORMAT_AUTO, insert_cb, f, &why))
			fail_msg("list line '%s' refused: %s", lines[i], why);
	}
}

/* What a packet carries: an address, a name (DNS, SNI, Host) or an HTTP request. */
struct lookup_case {
	enum entry_kind kind;
	const char *text;	/* address, name, or the host of a URL */
	const char *path;	/* ENTRY_URL */
	const char *why;	/* what blocks it, NULL when nothing does */
};

static void check_lookups(const struct filter *f, const struct lookup_case *cases, size_t n)
{
	static const char *const kind_name[] = { "address", "name", "URL" };
	struct entry e;
	char why[512];
	const char *err;
	bool blocked;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&e, 0, sizeof(e));
		e.kind = cases[i].kind;
		if (e.kind == ENTRY_ADDR)
			assert_int_equal(key_parse(cases[i].text, &e.addr, &err), 0);
		else
			snprintf(e.name, sizeof(e.name), "%s", cases[i].text);
		if (e.kind == ENTRY_URL)
			snprintf(e.path, sizeof(e.path), "%s", cases[i].path);
		blocked = entry_keys_lookup(f, &e, why, sizeof(why));
		if (blocked != !!cases[i].why)
			fail_msg("%s %s%s: %s, want %s", kind_name[e.kind], cases[i].text,
				 e.kind == ENTRY_URL ? cases[i].path : "",
				 blocked ? "blocked" : "not blocked", blocked ? "not" : "blocked");
		if (blocked && strcmp(why, cases[i].why))
			fail_msg("%s %s%s: blocked by '%s', want '%s'", kind_name[e.kind],
				 cases[i].text, e.kind == ENTRY_URL ? cases[i].path : "", why,
				 cases[i].why);
	}
}

/* Each filter is sized so that no false positive is to be expected: 1e-9. */
static void check_blocking(const char *const *lines, size_t nlines,
			   const struct lookup_case *cases, size_t ncases)
{
	__u64 rng = 0xb10c;
	struct filter f;

	filter_alloc(&f, 1000, 1e-9, &rng);
	insert_lines(&f, lines, nlines);
	check_lookups(&f, cases, ncases);
	filter_close(&f);
}

#define DEEP "l17.l16.l15.l14.l13.l12.l11.l10.l9.l8.l7.l6.l5.l4.l3."

static void test_block_domain(void **state)
{
	static const char *const lines[] = { "evil.example" };
	static const struct lookup_case cases[] = {
		{ ENTRY_NAME, "evil.example", NULL, "evil.example" },
		{ ENTRY_NAME, "a.evil.example", NULL, "evil.example" },
		{ ENTRY_NAME, "x.y.evil.example", NULL, "evil.example" },
		/* 17 labels: the rightmost 16 are examined, and suffice. */
		{ ENTRY_NAME, DEEP "evil.example", NULL, "evil.example" },
		{ ENTRY_NAME, "notevil.example", NULL, NULL },
		{ ENTRY_NAME, "vil.example", NULL, NULL },
		{ ENTRY_NAME, "evil.example.org", NULL, NULL },
		{ ENTRY_NAME, "evil.exampl", NULL, NULL },
		{ ENTRY_NAME, "example", NULL, NULL },
		{ ENTRY_NAME, "evil", NULL, NULL },
		/* Every HTTP request to a listed domain. */
		{ ENTRY_URL, "evil.example", "/x", "evil.example" },
		{ ENTRY_URL, "a.evil.example", "", "evil.example" },
		{ ENTRY_URL, "notevil.example", "/x", NULL },
	};

	(void)state;
	check_blocking(lines, ARRAY_SIZE(lines), cases, ARRAY_SIZE(cases));
}

static void test_block_url(void **state)
{
	static const char *const lines[] = { "evil.example/malware/",
					     "http://deep.example/a/b/c/d/e/f/g/h" };
	static const struct lookup_case cases[] = {
		{ ENTRY_URL, "evil.example", "/malware", "evil.example/malware/" },
		{ ENTRY_URL, "evil.example", "/malware/", "evil.example/malware/" },
		{ ENTRY_URL, "evil.example", "/malware/x.exe", "evil.example/malware/" },
		{ ENTRY_URL, "sub.evil.example", "/malware/a", "evil.example/malware/" },
		/* Any case matches; what matched is quoted from the request. */
		{ ENTRY_URL, "EVIL.example", "/malware", "EVIL.example/malware/" },
		{ ENTRY_URL, "evil.example", "/malwarex", NULL },
		{ ENTRY_URL, "evil.example", "/other", NULL },
		{ ENTRY_URL, "evil.example", "/other/malware", NULL },
		{ ENTRY_URL, "evil.example", "/", NULL },
		{ ENTRY_URL, "evil.example", "", NULL },
		{ ENTRY_URL, "evil.example", "/MALWARE", NULL },	/* paths keep their case */
		{ ENTRY_URL, "notevil.example", "/malware", NULL },
		{ ENTRY_URL, "evil.example.org", "/malware", NULL },
		{ ENTRY_URL, "example", "/malware", NULL },
		/* A URL entry never blocks its host as a whole. */
		{ ENTRY_NAME, "evil.example", NULL, NULL },
		{ ENTRY_NAME, "sub.evil.example", NULL, NULL },
		/* 8 segments, the most an entry may have, match in longer paths too. */
		{ ENTRY_URL, "deep.example", "/a/b/c/d/e/f/g/h", "deep.example/a/b/c/d/e/f/g/h/" },
		{ ENTRY_URL, "deep.example", "/a/b/c/d/e/f/g/h/i/j/k",
		  "deep.example/a/b/c/d/e/f/g/h/" },
		{ ENTRY_URL, "deep.example", "/a/b/c/d/e/f/g/hx", NULL },
		{ ENTRY_URL, "deep.example", "/a/b/c/d/e/f/g", NULL },
	};

	(void)state;
	check_blocking(lines, ARRAY_SIZE(lines), cases, ARRAY_SIZE(cases));
}

static void test_block_url_empty_path(void **state)
{
	static const char *const lines[] = { "http://evil.example" };
	static const struct lookup_case cases[] = {
		{ ENTRY_URL, "evil.example", "/", "evil.example/" },
		{ ENTRY_URL, "evil.example", "", "evil.example/" },
		{ ENTRY_URL, "evil.example", "/anything/x?y", "evil.example/" },
		{ ENTRY_URL, "a.evil.example", "/x", "evil.example/" },
		{ ENTRY_URL, "notevil.example", "/", NULL },
		{ ENTRY_URL, "example", "/", NULL },
		{ ENTRY_NAME, "evil.example", NULL, NULL },
		{ ENTRY_NAME, "a.evil.example", NULL, NULL },
	};

	(void)state;
	check_blocking(lines, ARRAY_SIZE(lines), cases, ARRAY_SIZE(cases));
}

/* Addresses, names and URLs hash in separate domains: listing one never lists another. */
static void test_block_kinds_apart(void **state)
{
	static const char *const lines[] = { "203.0.113.7", "2001:db8::1", "evil.example",
					     "evil.example/x" };
	static const struct lookup_case cases[] = {
		{ ENTRY_ADDR, "203.0.113.7", NULL, "" },
		{ ENTRY_ADDR, "::ffff:203.0.113.7", NULL, "" },
		{ ENTRY_ADDR, "2001:db8::1", NULL, "" },
		{ ENTRY_ADDR, "203.0.113.8", NULL, NULL },
		{ ENTRY_ADDR, "2001:db8::2", NULL, NULL },
		{ ENTRY_NAME, "203.0.113.7", NULL, NULL },
		{ ENTRY_URL, "203.0.113.7", "/", NULL },
		{ ENTRY_NAME, "evil.example", NULL, "evil.example" },
		{ ENTRY_NAME, "x", NULL, NULL },
	};

	(void)state;
	check_blocking(lines, ARRAY_SIZE(lines), cases, ARRAY_SIZE(cases));
}

/*
 * Measured against fill^k, the FPR of the filter at hand, within 5 binomial
 * sigma; and against the design (1 - e^(-kn/m))^k within 5 sigma + 2%, as in
 * test_fpr.c, which explains the tolerance.
 */
static void check_rate(const struct filter *f, __u64 inserted, __u64 hits, __u64 trials,
		       const char *what)
{
	double q = bloom_fpr_for_fill((double)filter_popcount(f) / f->bits, f->hashes);
	double design = bloom_fpr_for_entries(f->bits, f->hashes, inserted);
	double measured = (double)hits / trials, sigma = sqrt(q * (1 - q) / trials);

	print_message("# %s: measured %.5f, fill^k %.5f, design %.5f, sigma %.5f\n", what,
		      measured, q, design, sigma);
	if (fabs(measured - q) > 5 * sigma)
		fail_msg("%s: %.5f is more than 5 sigma from fill^k %.5f", what, measured, q);
	if (fabs(measured - design) > 5 * sigma + 0.02 * design)
		fail_msg("%s: %.5f is off the design FPR %.5f", what, measured, design);
}

/* A random name of 1 to 3 labels (the TLD of 5 to 10 letters, so names hardly repeat). */
static void random_name(__u64 *rng, int labels, char *out)
{
	char label[16];
	int i;

	bool tld;

	out[0] = '\0';
	for (i = 0; i < labels; i++) {
		tld = i == labels - 1;
		random_text(rng, tld ? "abcdefghijklmnopqrstuvwxyz" :
				 "abcdefghijklmnopqrstuvwxyz0123456789-_",
			    tld ? 5 + rng_next(rng) % 6 : 1 + rng_next(rng) % 15, label);
		strcat(out, label);
		if (i < labels - 1)
			strcat(out, ".");
	}
}

static void random_addr(__u64 *rng, struct entry *e)
{
	__u64 addr[2] = { rng_next(rng), rng_next(rng) };

	e->kind = ENTRY_ADDR;
	if (rng_next(rng) & 1)
		bloomxdp_key_ipv4(&e->addr, addr, 32);
	else
		bloomxdp_key_ipv6(&e->addr, addr, 128);
}

/* Names do not make addresses hit, nor addresses names: only the FPR does. */
static void insert_text(struct filter *f, const char *text)
{
	insert_lines(f, &text, 1);
}

/*
 * Keys of different kinds never collide: in a filter full of names, addresses
 * hit only at the false-positive rate of the fill (and not at all while the
 * list holds no address of their family: the header skips the lookup); and
 * the other way round.
 */
static void test_names_and_addresses_apart_fpr(void **state)
{
	struct entry e = {};
	__u64 rng = 0xadd7e55, i, hits;
	struct filter f;
	char why[512];

	(void)state;
	filter_alloc(&f, 10000, 0.01, &rng);
	e.kind = ENTRY_NAME;
	for (i = 0; i < 10000; i++) {
		random_name(&rng, 2 + i % 2, e.name);
		entry_keys_insert(&f, &e);
	}
	for (i = hits = 0; i < 10000; i++) {
		random_addr(&rng, &e);
		hits += entry_keys_lookup(&f, &e, why, sizeof(why));
	}
	assert_int_equal(hits, 0);
	insert_text(&f, "192.0.2.1");
	insert_text(&f, "2001:db8::1");
	for (i = hits = 0; i < 100000; i++) {
		random_addr(&rng, &e);
		hits += entry_keys_lookup(&f, &e, why, sizeof(why));
	}
	check_rate(&f, 10002, hits, 100000, "addresses in 10,000 names");
	filter_close(&f);

	filter_alloc(&f, 10000, 0.01, &rng);
	for (i = 0; i < 10000; i++) {
		random_addr(&rng, &e);
		entry_keys_insert(&f, &e);
	}
	e.kind = ENTRY_NAME;
	for (i = hits = 0; i < 10000; i++) {
		random_name(&rng, 1, e.name);
		hits += entry_keys_lookup(&f, &e, why, sizeof(why));
	}
	assert_int_equal(hits, 0);
	/* One single-label name listed: single-label names are probed, once each. */
	insert_text(&f, "zz");
	e.kind = ENTRY_NAME;
	for (i = hits = 0; i < 100000; i++) {
		random_name(&rng, 1, e.name);
		hits += entry_keys_lookup(&f, &e, why, sizeof(why));
	}
	check_rate(&f, 10001, hits, 100000, "names in 10,000 addresses");
	filter_close(&f);
}

/* A list without single-label names never probes a TLD: no TLD-wide false positive. */
static void test_tld_not_probed_without_single_labels(void **state)
{
	__u64 rng = 0x71d, i, hits = 0;
	struct entry e = { .kind = ENTRY_NAME };
	struct filter f;
	char why[512];

	(void)state;
	/* A tiny, overfull filter: nearly every key is a false positive. */
	filter_alloc(&f, 10, 0.5, &rng);
	for (i = 0; i < 1000; i++) {
		random_name(&rng, 2, e.name);
		entry_keys_insert(&f, &e);
	}
	for (i = 0; i < 1000; i++) {
		random_name(&rng, 1, e.name);
		hits += entry_keys_lookup(&f, &e, why, sizeof(why));
	}
	assert_int_equal(hits, 0);
	filter_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize_accepts),
		cmocka_unit_test(test_normalize_refuses),
		cmocka_unit_test(test_normalize_limits),
		cmocka_unit_test(test_suffix_hashes_fold_labels),
		cmocka_unit_test(test_suffix_hashes_fold_case),
		cmocka_unit_test(test_suffix_hashes_keep_rightmost_16),
		cmocka_unit_test(test_suffix_hashes_label_boundaries),
		cmocka_unit_test(test_ascii_lower_exhaustive),
		cmocka_unit_test(test_siphash_reference_known_answers),
		cmocka_unit_test(test_hash_known_answers),
		cmocka_unit_test(test_hash_bytes_equals_reference),
		cmocka_unit_test(test_path_prefixes),
		cmocka_unit_test(test_parse_accepted),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_list_format_parse),
		cmocka_unit_test(test_block_domain),
		cmocka_unit_test(test_block_url),
		cmocka_unit_test(test_block_url_empty_path),
		cmocka_unit_test(test_block_kinds_apart),
		cmocka_unit_test(test_names_and_addresses_apart_fpr),
		cmocka_unit_test(test_tld_not_probed_without_single_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
