// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/keys.h"

/* The reason of a refused prefix; a suggestion needs a buffer of its own. */
static __thread char prefix_why[128];

/* "/24": the length after the address, or -1. */
static int parse_len(const char *text, int width)
{
	char *end;
	long v;

	if (!*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 3)
		return -1;
	v = strtol(text, &end, 10);
	return v <= width ? (int)v : -1;
}

int key_parse(const char *text, struct bloomxdp_key *key, const char **why)
{
	/* Aligned for bloomxdp_load_le32(). */
	__u32 addr[4];
	char buf[INET6_ADDRSTRLEN + 8], masked[INET6_ADDRSTRLEN];
	const char *slash = strchr(text, '/');
	struct bloomxdp_key host;
	int len = -1, width;

	if (strlen(text) >= sizeof(buf)) {
		*why = "not an IPv4 or IPv6 address";
		return -EINVAL;
	}
	strcpy(buf, text);
	if (slash)
		buf[slash - text] = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1) {
		width = 32;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		width = 128;
	} else {
		*why = "not an IPv4 or IPv6 address";
		return -EINVAL;
	}
	len = slash ? parse_len(slash + 1, width) : width;
	if (len < 0) {
		*why = width == 32 ? "a prefix length is 0 to 32" : "a prefix length is 0 to 128";
		return -EINVAL;
	}
	if (width == 128 && bloomxdp_ipv6_is_v4mapped(addr)) {
		if (len < 96) {
			*why = "an IPv4-mapped prefix is at least /96";
			return -EINVAL;
		}
		memmove(addr, &addr[3], 4);
		width = 32;
		len -= 96;
	}
	if (width == 32) {
		bloomxdp_key_ipv4(key, addr, len);
		bloomxdp_key_ipv4(&host, addr, 32);
	} else {
		bloomxdp_key_ipv6(key, addr, len);
		bloomxdp_key_ipv6(&host, addr, 128);
	}
	/* Refused, not masked: a set host bit is more often a typo than intent. */
	if (width == 32 ? host.word[0] >> 32 != key->word[0] >> 32 :
			  host.word[1] != key->word[1] || host.word[2] != key->word[2]) {
		__u32 out[4];

		if (width == 32) {
			__u32 v = key->word[0] >> 32;

			memcpy(out, &v, 4);
		} else {
			memcpy(out, &key->word[1], 16);
		}
		inet_ntop(width == 32 ? AF_INET : AF_INET6, out, masked, sizeof(masked));
		snprintf(prefix_why, sizeof(prefix_why),
			 "host bits set after /%d: did you mean %s/%d?", len, masked, len);
		*why = prefix_why;
		return -EINVAL;
	}
	return 0;
}

typedef unsigned __int128 u128;

/* An address as a number, and its width (32 or 128); -EINVAL if it is none. */
static int addr_number(const char *text, unsigned int flags, u128 *value, int *width)
{
	__u32 a[4];
	__u8 *b = (__u8 *)a;
	size_t i;

	if ((flags & KEY_DECIMAL) && *text && strspn(text, "0123456789") == strlen(text)) {
		u128 v = 0, max = ~(u128)0;

		/* No leading zero: "010" would read as octal elsewhere. */
		if (text[0] == '0' && text[1])
			return -EINVAL;
		for (i = 0; text[i]; i++) {
			if (v > (max - (text[i] - '0')) / 10)
				return -EINVAL;
			v = v * 10 + (text[i] - '0');
		}
		*value = v;
		*width = v <= 0xffffffffU ? 32 : 128;
		return 0;
	}
	if (inet_pton(AF_INET, text, b) == 1) {
		*width = 32;
		i = 4;
	} else if (inet_pton(AF_INET6, text, b) == 1) {
		*width = 128;
		i = 16;
		if (bloomxdp_ipv6_is_v4mapped(a)) {
			memmove(b, b + 12, 4);
			*width = 32;
			i = 4;
		}
	} else {
		return -EINVAL;
	}
	*value = 0;
	for (size_t j = 0; j < i; j++)
		*value = *value << 8 | b[j];
	return 0;
}

/* The key of prefix value/len of a family. */
static void number_key(u128 value, int width, int len, struct bloomxdp_key *key)
{
	__u32 addr[4];
	__u8 *b = (__u8 *)addr;
	int i, n = width / 8;

	for (i = n - 1; i >= 0; i--, value >>= 8)
		b[i] = (__u8)value;
	if (width == 32)
		bloomxdp_key_ipv4(key, addr, len);
	else
		bloomxdp_key_ipv6(key, addr, len);
}

int key_parse_range(const char *start, const char *end, unsigned int flags,
		    int (*fn)(const struct bloomxdp_key *key, void *ctx), void *ctx,
		    const char **why)
{
	u128 lo, hi, max, size;
	int wlo, whi, k, ret;
	struct bloomxdp_key key;

	if (addr_number(start, flags, &lo, &wlo) || addr_number(end, flags, &hi, &whi)) {
		*why = "a range is two IPv4 or two IPv6 addresses: START-END";
		return -EINVAL;
	}
	if (wlo != whi) {
		*why = "a range's start and end are of different address families";
		return -EINVAL;
	}
	if (lo > hi) {
		*why = "a range's start comes after its end";
		return -EINVAL;
	}
	max = wlo == 32 ? 0xffffffffU : ~(u128)0;
	for (;;) {
		/* The largest aligned block at lo that ends within the range. */
		for (k = 0; k < wlo && !(lo >> k & 1); k++)
			;
		for (; k > 0; k--) {
			size = k == 128 ? 0 : (u128)1 << k;
			if (k < 128 && lo + size - 1 <= hi)
				break;
			if (k == 128 && lo == 0 && hi == max)
				break;
		}
		number_key(lo, wlo, wlo - k, &key);
		ret = fn(&key, ctx);
		if (ret < 0)
			return ret;
		if (k == 128)
			return 0;
		size = (u128)1 << k;
		if (lo + size - 1 >= hi)
			return 0;
		lo += size;
	}
}
