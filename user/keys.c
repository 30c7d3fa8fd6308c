// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "keys.h"

int key_parse(const char *text, struct bloomxdp_key *key, const char **why)
{
	/* Aligned for bloomxdp_load_le32(). */
	__u32 addr[4];

	if (inet_pton(AF_INET, text, addr) == 1) {
		bloomxdp_key_ipv4(key, addr, 32);
		return 0;
	}
	if (inet_pton(AF_INET6, text, addr) == 1) {
		if (bloomxdp_ipv6_is_v4mapped(addr))
			bloomxdp_key_ipv4(key, &addr[3], 32);
		else
			bloomxdp_key_ipv6(key, addr, 128);
		return 0;
	}
	if (strchr(text, '/'))
		*why = "CIDR prefixes are not supported yet; list host addresses";
	else
		*why = "not an IPv4 or IPv6 address";
	return -EINVAL;
}
