// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a fleet node trusts (user/fleet/trust.h), without Redis: a payload that
 * passes its CRC32C and SHA-256 but is inconsistent with itself (an all-ones
 * filter claiming 2 keys) is refused, a real one is not, of format version 2
 * (its writer, this bloomxdp) or 1 (an older publisher's); Ed25519 signatures
 * over announcements verify, and one made for another version, channel,
 * payload, rollback or delta does not; key files are refused when unsafe; a
 * node refuses older versions, unsigned or wrongly signed ones with
 * verify_key, and applies nothing while its state is unreadable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <hiredis/hiredis.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "bloomxdp/common.h"
#include "filter/bloom_plan.h"
#include "fleet/node_int.h"
#include "fleet/payload.h"
#include "fleet/trust.h"
#include "lists/savefile.h"
#include "util/version.h"

static char dir[] = "/tmp/bxdp-trust.XXXXXX";
static char priv_path[64], pub_path[64], other_path[64];
static const char SHA_A[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char SHA_B[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static void put64(unsigned char *p, __u64 v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static void *slurp(const char *path, size_t *len)
{
	void *data = NULL;

	assert_int_equal(fleet_read_file(path, 1 << 26, &data, len), 0);
	return data;
}

static void spit(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* 3000 names compiled as publish compiles them (into the Bloom filter), into dir/payload. */
static void compile_payload(char *out, size_t len)
{
	struct fleet_compile_opts o = { .layout = DEFAULT_LAYOUT, .fpr = 0.01,
					.hash_key = { 0x1234, 0x5678 }, .version = 1 };
	char list[64], *files[1] = { list };
	FILE *f;
	int i;

	snprintf(list, sizeof(list), "%s/list.txt", dir);
	f = fopen(list, "we");
	assert_non_null(f);
	for (i = 0; i < 3000; i++)
		fprintf(f, "h%d.evil%d.example\n", i, i % 97);
	assert_int_equal(fclose(f), 0);
	snprintf(out, len, "%s/payload", dir);
	assert_int_equal(fleet_compile(files, 1, &o, out, NULL), 0);
}

static void put_crc(unsigned char *data, size_t len)
{
	__u32 crc = savefile_crc32c(0, data, len - SAVEFILE_TRAILER_BYTES);
	size_t i;

	for (i = 0; i < 4; i++)
		data[len - 4 + i] = crc >> (8 * i);
}

/*
 * A payload of format version 1, as an older publisher wrote it: the same
 * file without the writer (bytes 160 to 191), its version, header length and
 * size said so, its checksum recomputed.
 */
static void payload_v1(const unsigned char *v2, size_t len, const char *path)
{
	unsigned char *v1 = malloc(len - 32);

	assert_non_null(v1);
	memcpy(v1, v2, SAVEFILE_V1_HEADER_BYTES);
	memcpy(v1 + SAVEFILE_V1_HEADER_BYTES, v2 + SAVEFILE_HEADER_BYTES,
	       len - SAVEFILE_HEADER_BYTES);
	v1[8] = SAVEFILE_V1_VERSION;
	v1[12] = SAVEFILE_V1_HEADER_BYTES;
	put64(v1 + 152, len - 32);
	put_crc(v1, len - 32);
	spit(path, v1, len - 32);
	free(v1);
}

static void test_payload_plausible(void **state)
{
	char path[64], forged[64], why[512];
	struct savefile_info in;
	unsigned char *data, *old;
	size_t len, oldlen, i;

	(void)state;
	compile_payload(path, sizeof(path));
	assert_int_equal(savefile_check(path, &in, why, sizeof(why)), 0);
	assert_int_equal(in.keys, 3000);
	/* Format version 2, its writer this bloomxdp; its bits after its own header. */
	assert_int_equal(in.version, 2);
	assert_int_equal(in.header_bytes, SAVEFILE_HEADER_BYTES);
	assert_string_equal(in.writer, bloomxdp_version());
	data = slurp(path, &len);
	assert_int_equal(fleet_payload_plausible(&in, data + in.header_bytes, why,
						 sizeof(why)), 0);
	/* The same payload of format version 1 (an older publisher): read, and as plausible. */
	snprintf(forged, sizeof(forged), "%s/v1", dir);
	payload_v1(data, len, forged);
	assert_int_equal(savefile_check(forged, &in, why, sizeof(why)), 0);
	assert_int_equal(in.version, 1);
	assert_int_equal(in.header_bytes, SAVEFILE_V1_HEADER_BYTES);
	assert_string_equal(in.writer, "");
	assert_int_equal(in.keys, 3000);
	old = slurp(forged, &oldlen);
	assert_int_equal(oldlen, len - 32);
	assert_int_equal(fleet_payload_plausible(&in, old + in.header_bytes, why, sizeof(why)),
			 0);
	/* Its bits all set, as below: refused as well. */
	memset(old + in.header_bytes, 0xff, in.bits / 8);
	assert_int_equal(fleet_payload_plausible(&in, old + in.header_bytes, why, sizeof(why)),
			 -EBADMSG);
	free(old);
	assert_int_equal(savefile_check(path, &in, why, sizeof(why)), 0);

	/* The attack: every bit set, 2 entries claimed, CRC32C (and so SHA-256) made right. */
	for (i = 0; i < in.bits / 8; i++)
		data[in.header_bytes + i] = 0xff;
	put64(data + 80, 2);	/* entries */
	put64(data + 88, 2);	/* keys */
	put_crc(data, len);
	snprintf(forged, sizeof(forged), "%s/forged", dir);
	spit(forged, data, len);
	/* Its own checks pass: they stop accidents, not a writer... */
	assert_int_equal(savefile_check(forged, &in, why, sizeof(why)), 0);
	assert_int_equal(in.keys, 2);
	/* ...consistency does not. */
	assert_int_equal(fleet_payload_plausible(&in, data + in.header_bytes, why,
						 sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "100.0% of its filter's bits are set"));

	/* Claiming keys enough for its bits: its estimated FPR (1) is then above the target. */
	in.keys = 1000000000ULL;
	assert_int_equal(fleet_payload_plausible(&in, data + in.header_bytes, why,
						 sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "estimated false-positive rate"));

	/* Empty bits, but more exact intervals than entries. */
	memset(data + in.header_bytes, 0, in.bits / 8);
	in.keys = in.entries = 2;
	in.ranges[0] = 3;
	assert_int_equal(fleet_payload_plausible(&in, data + in.header_bytes, why,
						 sizeof(why)), -EBADMSG);
	in.ranges[0] = 1;
	in.ranges[1] = ~0ULL;	/* no wrap-around in the sum */
	assert_int_equal(fleet_payload_plausible(&in, data + in.header_bytes, why,
						 sizeof(why)), -EBADMSG);
	in.ranges[1] = 1;
	assert_int_equal(fleet_payload_plausible(&in, data + in.header_bytes, why,
						 sizeof(why)), 0);
	free(data);
}

/* An Ed25519 key pair written as openssl genpkey and pkey -pubout would. */
static void write_key(const char *priv, const char *pub)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
	EVP_PKEY *k = NULL;
	FILE *f;

	assert_non_null(ctx);
	assert_int_equal(EVP_PKEY_keygen_init(ctx), 1);
	assert_int_equal(EVP_PKEY_keygen(ctx, &k), 1);
	f = fopen(priv, "we");
	assert_non_null(f);
	assert_int_equal(fchmod(fileno(f), 0600), 0);
	assert_int_equal(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL), 1);
	fclose(f);
	if (pub) {
		f = fopen(pub, "we");
		assert_non_null(f);
		assert_int_equal(PEM_write_PUBKEY(f, k), 1);
		fclose(f);
	}
	EVP_PKEY_free(k);
	EVP_PKEY_CTX_free(ctx);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(priv_path, sizeof(priv_path), "%s/publisher.pem", dir);
	snprintf(pub_path, sizeof(pub_path), "%s/publisher.pub", dir);
	snprintf(other_path, sizeof(other_path), "%s/other.pem", dir);
	write_key(priv_path, pub_path);
	write_key(other_path, NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void test_sign_verify(void **state)
{
	struct fleet_key priv, pub, other;
	struct fleet_signed s = { .channel = "edge", .type = "full", .version = 7, .size = 1000,
				  .sha256 = SHA_A };
	struct fleet_signed d = { .channel = "edge", .type = "add", .seq = 3, .expires = 0,
				  .entries = "192.0.2.1 evil.example" };
	struct fleet_signed t;
	char why[512], sig[FLEET_SIG_HEX], dsig[FLEET_SIG_HEX];

	(void)state;
	assert_int_equal(fleet_key_load(priv_path, true, &priv, why, sizeof(why)), 0);
	assert_int_equal(fleet_key_load(pub_path, false, &pub, why, sizeof(why)), 0);
	assert_int_equal(fleet_key_load(other_path, true, &other, why, sizeof(why)), 0);
	assert_string_equal(priv.fingerprint, pub.fingerprint);
	assert_string_not_equal(priv.fingerprint, other.fingerprint);
	assert_int_equal(strncmp(pub.fingerprint, "SHA256:", 7), 0);

	assert_int_equal(fleet_sign(&priv, &s, sig), 0);
	assert_int_equal(strlen(sig), 2 * FLEET_SIG_BYTES);
	assert_int_equal(fleet_verify(&pub, &s, sig, strlen(sig)), 0);
	/* The same signature over anything else a node acts on: refused. */
	t = s;
	t.version = 8;
	assert_int_equal(fleet_verify(&pub, &t, sig, strlen(sig)), -EBADMSG);
	t = s;
	t.channel = "edge2";
	assert_int_equal(fleet_verify(&pub, &t, sig, strlen(sig)), -EBADMSG);
	t = s;
	t.sha256 = SHA_B;
	assert_int_equal(fleet_verify(&pub, &t, sig, strlen(sig)), -EBADMSG);
	t = s;
	t.size = 1001;
	assert_int_equal(fleet_verify(&pub, &t, sig, strlen(sig)), -EBADMSG);
	t = s;
	t.rollback = 3;
	assert_int_equal(fleet_verify(&pub, &t, sig, strlen(sig)), -EBADMSG);
	/* Another key's signature, a cut or a garbled one. */
	assert_int_equal(fleet_verify(&other, &s, sig, strlen(sig)), -EBADMSG);
	assert_int_equal(fleet_verify(&pub, &s, sig, strlen(sig) - 2), -EBADMSG);
	sig[10] = sig[10] == '0' ? '1' : '0';
	assert_int_equal(fleet_verify(&pub, &s, sig, strlen(sig)), -EBADMSG);
	sig[10] = 'x';
	assert_int_equal(fleet_verify(&pub, &s, sig, strlen(sig)), -EBADMSG);
	assert_int_equal(fleet_verify(&pub, &s, NULL, 0), -EBADMSG);

	/* Deltas: the seq, the type, the entries and the deadline are signed. */
	assert_int_equal(fleet_sign(&priv, &d, dsig), 0);
	assert_int_equal(fleet_verify(&pub, &d, dsig, strlen(dsig)), 0);
	t = d;
	t.seq = 4;
	assert_int_equal(fleet_verify(&pub, &t, dsig, strlen(dsig)), -EBADMSG);
	t = d;
	t.type = "del";
	assert_int_equal(fleet_verify(&pub, &t, dsig, strlen(dsig)), -EBADMSG);
	t = d;
	t.entries = "192.0.2.1 evil.example 0.0.0.0/1";
	assert_int_equal(fleet_verify(&pub, &t, dsig, strlen(dsig)), -EBADMSG);
	t = d;
	t.expires = 1;
	assert_int_equal(fleet_verify(&pub, &t, dsig, strlen(dsig)), -EBADMSG);
	fleet_key_free(&priv);
	fleet_key_free(&pub);
	fleet_key_free(&other);
}

static void test_key_files(void **state)
{
	struct fleet_key k;
	char why[512], link[80], junk[80];

	(void)state;
	/* A private key others may read: refused, saying what to do. */
	assert_int_equal(chmod(priv_path, 0640), 0);
	assert_int_equal(fleet_key_load(priv_path, true, &k, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "chmod 600"));
	assert_int_equal(chmod(priv_path, 0600), 0);
	/* A symlink is not followed; a relative path is refused. */
	snprintf(link, sizeof(link), "%s/link.pem", dir);
	assert_int_equal(symlink(priv_path, link), 0);
	assert_int_equal(fleet_key_load(link, true, &k, why, sizeof(why)), -ELOOP);
	assert_int_equal(fleet_key_load("publisher.pem", true, &k, why, sizeof(why)), -EINVAL);
	/* A public key is no private key; garbage is no key; a directory is no file. */
	assert_int_equal(fleet_key_load(pub_path, true, &k, why, sizeof(why)), -EPERM);
	assert_int_equal(chmod(pub_path, 0600), 0);
	assert_int_equal(fleet_key_load(pub_path, true, &k, why, sizeof(why)), -EINVAL);
	assert_int_equal(chmod(pub_path, 0644), 0);
	snprintf(junk, sizeof(junk), "%s/junk.pem", dir);
	spit(junk, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", 56);
	assert_int_equal(fleet_key_load(junk, false, &k, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "openssl genpkey -algorithm ed25519"));
	assert_int_equal(fleet_key_load(dir, false, &k, why, sizeof(why)), -EINVAL);
	assert_null(k.pkey);
}

/* An announcement of a full version: field/value pairs as XREAD gives them. */
struct announcement {
	redisReply r, *el[12], v[12];
	char text[12][160];
};

static const redisReply *announce(struct announcement *a, __u64 version, const char *sha,
				  const char *sig)
{
	const char *names[] = { "type", "version", "size", "sha256", "rollback", "sig" };
	int i, n = sig ? 6 : 5;

	memset(a, 0, sizeof(*a));
	snprintf(a->text[1], sizeof(a->text[1]), "full");
	snprintf(a->text[3], sizeof(a->text[3]), "%llu", (unsigned long long)version);
	snprintf(a->text[5], sizeof(a->text[5]), "1000");
	snprintf(a->text[7], sizeof(a->text[7]), "%s", sha);
	snprintf(a->text[9], sizeof(a->text[9]), "0");
	if (sig)
		snprintf(a->text[11], sizeof(a->text[11]), "%s", sig);
	for (i = 0; i < n; i++)
		snprintf(a->text[2 * i], sizeof(a->text[0]), "%s", names[i]);
	for (i = 0; i < 2 * n; i++) {
		a->v[i].type = REDIS_REPLY_STRING;
		a->v[i].str = a->text[i];
		a->v[i].len = strlen(a->text[i]);
		a->el[i] = &a->v[i];
	}
	a->r.type = REDIS_REPLY_ARRAY;
	a->r.elements = 2 * n;
	a->r.element = a->el;
	return &a->r;
}

static void test_node_versions(void **state)
{
	struct fleet_node *f = calloc(1, sizeof(*f));
	struct fleet_key priv, other;
	struct fleet_signed s = { .channel = "edge", .type = "full", .size = 1000 };
	struct announcement a;
	char why[512], sig6[FLEET_SIG_HEX], sig[FLEET_SIG_HEX];
	__u64 v;

	(void)state;
	assert_non_null(f);
	snprintf(f->channel, sizeof(f->channel), "edge");
	snprintf(f->sha, sizeof(f->sha), "%s", SHA_A);
	f->version = 5;
	/* The payload applied: nothing to do; an older version: refused; a newer one: taken. */
	assert_int_equal(fleet_full_allowed(f, announce(&a, 5, SHA_A, NULL), &v, why, 512), 1);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 4, SHA_B, NULL), &v, why, 512),
			 -EBADMSG);
	assert_non_null(strstr(why, "not newer than version 5"));
	assert_int_equal(fleet_full_allowed(f, announce(&a, 5, SHA_B, NULL), &v, why, 512),
			 -EBADMSG);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 6, SHA_B, NULL), &v, why, 512), 0);
	assert_int_equal(v, 6);

	/* With verify_key: unsigned, signed by another key, or for another version: refused. */
	assert_int_equal(fleet_key_load(priv_path, true, &priv, why, sizeof(why)), 0);
	assert_int_equal(fleet_key_load(other_path, true, &other, why, sizeof(why)), 0);
	assert_int_equal(fleet_key_load(pub_path, false, &f->verify, why, sizeof(why)), 0);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 6, SHA_B, NULL), &v, why, 512),
			 -EBADMSG);
	assert_non_null(strstr(why, "not signed"));
	s.version = 6;
	s.sha256 = SHA_B;
	assert_int_equal(fleet_sign(&other, &s, sig), 0);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 6, SHA_B, sig), &v, why, 512),
			 -EBADMSG);
	assert_int_equal(fleet_sign(&priv, &s, sig6), 0);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 6, SHA_B, sig6), &v, why, 512), 0);
	/* Version 6's signature replayed on a version 7 announcement. */
	assert_int_equal(fleet_full_allowed(f, announce(&a, 7, SHA_B, sig6), &v, why, 512),
			 -EBADMSG);
	/* A signed older version (a replay of version 4's announcement): refused too. */
	s.version = 4;
	assert_int_equal(fleet_sign(&priv, &s, sig), 0);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 4, SHA_B, sig), &v, why, 512),
			 -EBADMSG);
	/* A rollback is a new version whose payload is an older one: taken. */
	s.version = 8;
	s.sha256 = SHA_A;
	f->version = 7;
	snprintf(f->sha, sizeof(f->sha), "%s", SHA_B);
	assert_int_equal(fleet_sign(&priv, &s, sig), 0);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 8, SHA_A, sig), &v, why, 512), 0);
	/* The payload applied announced again as a newer version (a rollback to it): signed,
	 * only the number moves; unsigned, refused. */
	f->version = 8;
	snprintf(f->sha, sizeof(f->sha), "%s", SHA_A);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 9, SHA_A, NULL), &v, why, 512),
			 -EBADMSG);
	assert_int_equal(f->version, 8);
	s.version = 9;
	assert_int_equal(fleet_sign(&priv, &s, sig), 0);
	assert_int_equal(fleet_full_allowed(f, announce(&a, 9, SHA_A, sig), &v, why, 512), 1);
	assert_int_equal(f->version, 9);
	/* A node whose state is unreadable takes nothing. */
	f->state_bad = true;
	assert_int_equal(fleet_full_allowed(f, announce(&a, 10, SHA_B, NULL), &v, why, 512),
			 -EBADMSG);
	assert_non_null(strstr(why, "state is unreadable"));
	fleet_key_free(&priv);
	fleet_key_free(&other);
	fleet_key_free(&f->verify);
	free(f);
}

static void test_node_state(void **state)
{
	struct fleet_node *f = calloc(1, sizeof(*f));
	char root[80], path[160];

	(void)state;
	assert_non_null(f);
	snprintf(root, sizeof(root), "%s/state", dir);
	snprintf(f->state_dir, sizeof(f->state_dir), "%s", root);
	snprintf(f->ifname, sizeof(f->ifname), "bxt0");
	snprintf(f->state_name, sizeof(f->state_name), "fleet-edge.state");
	/* None: a new node. */
	fleet_state_load(f);
	assert_false(f->state_bad);
	f->version = 41;
	f->delta_seq = 9;
	assert_int_equal(fleet_state_save(f), 0);
	f->version = f->delta_seq = 0;
	fleet_state_load(f);
	assert_false(f->state_bad);
	assert_int_equal(f->version, 41);
	assert_int_equal(f->delta_seq, 9);
	/* Unreadable: fail closed, and never overwritten by a state that forgot. */
	snprintf(path, sizeof(path), "%s/bxt0/fleet-edge.state", root);
	spit(path, "bloomxdp-fleet 1\nversion 4x1\n", 29);
	fleet_state_load(f);
	assert_true(f->state_bad);
	assert_int_equal(fleet_state_save(f), -EBADMSG);
	f->state_bad = false;
	spit(path, "garbage", 7);
	fleet_state_load(f);
	assert_true(f->state_bad);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_payload_plausible),
		cmocka_unit_test(test_sign_verify),
		cmocka_unit_test(test_key_files),
		cmocka_unit_test(test_node_versions),
		cmocka_unit_test(test_node_state),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
