// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What a fleet node trusts: payloads consistent with themselves, signed announcements. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "bloomxdp/common.h"
#include "fleet/trust.h"
#include "lists/savefile.h"
#include "util/sha256.h"

int fleet_payload_plausible(const struct savefile_info *in, const void *bits, char *why,
			    size_t len)
{
	const unsigned char *p = bits;
	double m = (double)in->bits, k = in->hashes, fill, expect, est, target;
	__u64 set = 0, word, i, bytes = in->bits / 8;

	for (i = 0; i + 8 <= bytes; i += 8) {
		memcpy(&word, p + i, 8);
		set += __builtin_popcountll(word);
	}
	for (; i < bytes; i++)
		set += __builtin_popcount(p[i]);
	fill = m > 0 ? set / m : 1;
	expect = m > 0 ? 1 - exp(-k * (double)in->keys / m) : 0;
	target = (double)(in->fpr_ppb ? in->fpr_ppb : 1) / BLOOMXDP_PPB;
	est = pow(fill, k);
	if (fill > expect + FLEET_FILL_SLACK) {
		snprintf(why, len, "payload refused: %.1f%% of its filter's bits are set, and the "
			 "%llu keys it claims set about %.1f%%: a forged or damaged filter",
			 100 * fill, (unsigned long long)in->keys, 100 * expect);
		return -EBADMSG;
	}
	if (est > FLEET_FPR_SLACK * target) {
		snprintf(why, len, "payload refused: its estimated false-positive rate %.3g%% "
			 "(%.1f%% of %llu bits set, k %u) is above its target %.3g%%", 100 * est,
			 100 * fill, (unsigned long long)in->bits, in->hashes, 100 * target);
		return -EBADMSG;
	}
	if (in->ranges[0] > in->entries || in->ranges[1] > in->entries - in->ranges[0]) {
		snprintf(why, len, "payload refused: %llu exact intervals for %llu entries",
			 (unsigned long long)(in->ranges[0] + in->ranges[1]),
			 (unsigned long long)in->entries);
		return -EBADMSG;
	}
	return 0;
}

char *fleet_signed_text(const struct fleet_signed *s, size_t *len)
{
	bool full = !strcmp(s->type, "full");
	size_t cap = 512 + (s->entries && !full ? strlen(s->entries) : 0);
	char *buf = malloc(cap);
	int n;

	if (!buf)
		return NULL;
	if (full)
		n = snprintf(buf, cap, "bloomxdp-fleet-signed 1\nchannel %s\ntype full\n"
			     "version %llu\nsize %llu\nsha256 %s\nrollback %llu\n", s->channel,
			     (unsigned long long)s->version, (unsigned long long)s->size,
			     s->sha256 ? s->sha256 : "", (unsigned long long)s->rollback);
	else
		n = snprintf(buf, cap, "bloomxdp-fleet-signed 1\nchannel %s\ntype %s\nseq %llu\n"
			     "expires %llu\nentries %s\n", s->channel, s->type,
			     (unsigned long long)s->seq, (unsigned long long)s->expires,
			     s->entries ? s->entries : "");
	if (n < 0 || (size_t)n >= cap) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* A key file read whole: a regular file, not a symlink, bounded; private: 0600 and ours. */
static int read_key_file(const char *path, bool private, char **data, size_t *n, char *why,
			 size_t len)
{
	struct stat st;
	ssize_t got;
	int fd, ret = 0;

	*data = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, len, "cannot open the key %s: %s%s", path, strerror(errno),
			 errno == ELOOP ? " (a symlink: give the file itself)" : "");
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > FLEET_KEYFILE_MAX) {
		ret = -EINVAL;
		snprintf(why, len, "the key %s is not a PEM file of at most %d bytes", path,
			 FLEET_KEYFILE_MAX);
		goto out;
	}
	if (private && (st.st_uid != geteuid() || (st.st_mode & 077))) {
		ret = -EPERM;
		snprintf(why, len, "the private key %s may be read by others (mode %04o, owner "
			 "%u): chown it to this user and chmod 600 it", path,
			 (unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid);
		goto out;
	}
	*data = malloc(st.st_size);
	if (!*data) {
		ret = -ENOMEM;
		snprintf(why, len, "out of memory");
		goto out;
	}
	got = read(fd, *data, st.st_size);
	if (got != st.st_size) {
		ret = -EIO;
		snprintf(why, len, "cannot read the key %s", path);
		free(*data);
		*data = NULL;
		goto out;
	}
	*n = got;
out:
	close(fd);
	return ret;
}

/* "SHA256:" and the first 16 hex digits of the SHA-256 of the raw public key. */
static void fingerprint(struct fleet_key *k)
{
	unsigned char raw[64];
	char hex[SHA256_HEX];
	size_t n = sizeof(raw);

	snprintf(k->fingerprint, sizeof(k->fingerprint), "SHA256:");
	if (EVP_PKEY_get_raw_public_key(k->pkey, raw, &n) != 1 || sha256_hex(raw, n, hex))
		return;
	snprintf(k->fingerprint, sizeof(k->fingerprint), "SHA256:%.16s", hex);
}

int fleet_key_load(const char *path, bool private, struct fleet_key *k, char *why, size_t len)
{
	EVP_PKEY *pkey = NULL;
	char *data = NULL;
	size_t n = 0;
	BIO *bio;
	int ret;

	memset(k, 0, sizeof(*k));
	if (!path || path[0] != '/') {
		snprintf(why, len, "the key '%s' must be an absolute path", path ? path : "");
		return -EINVAL;
	}
	ret = read_key_file(path, private, &data, &n, why, len);
	if (ret)
		return ret;
	bio = BIO_new_mem_buf(data, (int)n);
	if (bio && !private)
		pkey = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	if (bio && !pkey) {
		BIO_free(bio);
		bio = BIO_new_mem_buf(data, (int)n);
		/* No passphrase callback: an encrypted key is refused, not prompted for. */
		if (bio)
			pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)"");
	}
	BIO_free(bio);
	OPENSSL_cleanse(data, n);
	free(data);
	if (!pkey || EVP_PKEY_id(pkey) != EVP_PKEY_ED25519) {
		snprintf(why, len, "%s is not a PEM %s Ed25519 key: make one with 'openssl genpkey "
			 "-algorithm ed25519 -out FILE'%s", path, private ? "private" : "public",
			 private ? "" : ", its public key with 'openssl pkey -in FILE -pubout'");
		EVP_PKEY_free(pkey);
		return -EINVAL;
	}
	k->pkey = pkey;
	fingerprint(k);
	return 0;
}

void fleet_key_free(struct fleet_key *k)
{
	EVP_PKEY_free(k->pkey);
	k->pkey = NULL;
}

int fleet_sign(const struct fleet_key *k, const struct fleet_signed *s, char hex[FLEET_SIG_HEX])
{
	unsigned char sig[FLEET_SIG_BYTES];
	size_t n, siglen = sizeof(sig);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char *text = fleet_signed_text(s, &n);
	int ret = -EIO, i;

	if (ctx && text && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestSign(ctx, sig, &siglen, (unsigned char *)text, n) == 1 &&
	    siglen == FLEET_SIG_BYTES) {
		for (i = 0; i < FLEET_SIG_BYTES; i++)
			snprintf(hex + 2 * i, 3, "%02x", sig[i]);
		ret = 0;
	}
	EVP_MD_CTX_free(ctx);
	free(text);
	return ret;
}

static int unhex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int fleet_verify(const struct fleet_key *k, const struct fleet_signed *s, const char *hex,
		 size_t len)
{
	unsigned char sig[FLEET_SIG_BYTES];
	EVP_MD_CTX *ctx;
	char *text;
	size_t n, i;
	int ret = -EBADMSG;

	if (!hex || len != 2 * FLEET_SIG_BYTES)
		return -EBADMSG;
	for (i = 0; i < FLEET_SIG_BYTES; i++) {
		int hi = unhex(hex[2 * i]), lo = unhex(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EBADMSG;
		sig[i] = hi << 4 | lo;
	}
	text = fleet_signed_text(s, &n);
	ctx = EVP_MD_CTX_new();
	if (text && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, sizeof(sig), (unsigned char *)text, n) == 1)
		ret = 0;
	EVP_MD_CTX_free(ctx);
	free(text);
	return ret;
}
