// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SHA-256 as hex (sha256.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "util/sha256.h"

#define SHA256_BYTES ((SHA256_HEX - 1) / 2)

static int to_hex(const unsigned char *md, unsigned int n, char hex[SHA256_HEX])
{
	unsigned int i;

	if (n != SHA256_BYTES)
		return -EIO;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_Digest(buf, len, md, &n, EVP_sha256(), NULL))
		return -ENOMEM;
	return to_hex(md, n, hex);
}

int sha256_init(struct sha256 *s)
{
	s->md = EVP_MD_CTX_new();
	if (!s->md || !EVP_DigestInit_ex(s->md, EVP_sha256(), NULL))
		return -ENOMEM;
	return 0;
}

int sha256_update(struct sha256 *s, const void *buf, size_t len)
{
	return EVP_DigestUpdate(s->md, buf, len) ? 0 : -EIO;
}

int sha256_final(struct sha256 *s, char hex[SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_DigestFinal_ex(s->md, md, &n))
		return -EIO;
	return to_hex(md, n, hex);
}

void sha256_free(struct sha256 *s)
{
	EVP_MD_CTX_free(s->md);
	s->md = NULL;
}

int sha256_fd_hex(int fd, char hex[SHA256_HEX])
{
	unsigned char buf[64 * 1024];
	struct sha256 s;
	off_t off = 0;
	ssize_t n;
	int ret;

	ret = sha256_init(&s);
	while (!ret) {
		n = pread(fd, buf, sizeof(buf), off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : sha256_final(&s, hex);
			break;
		}
		ret = sha256_update(&s, buf, n);
		off += n;
	}
	sha256_free(&s);
	return ret;
}
