/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The DNS wire form of names, for the tests and benchmarks that build queries. */
#ifndef BLOOMXDP_TESTS_DNS_WIRE_H
#define BLOOMXDP_TESTS_DNS_WIRE_H

#include <stddef.h>
#include <string.h>

/* A dotted name (no trailing dot) as length-prefixed labels and the root label; its length. */
static inline size_t dns_wire_name(const char *name, unsigned char *out)
{
	const char *p = name, *dot;
	size_t n = 0, len;

	while (*p) {
		dot = strchr(p, '.');
		len = dot ? (size_t)(dot - p) : strlen(p);
		out[n++] = len;
		memcpy(out + n, p, len);
		n += len;
		p += len + (dot ? 1 : 0);
	}
	out[n++] = 0;
	return n;
}

#endif
