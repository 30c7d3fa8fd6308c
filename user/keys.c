// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"

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
