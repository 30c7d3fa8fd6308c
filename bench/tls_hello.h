/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The benchmarks' TLS ClientHello (prog_run's frames, gen's flood): a minimal TLS 1.2
 * record whose only extension is server_name; the name ends the payload.
 */
#ifndef BLOOMXDP_BENCH_TLS_HELLO_H
#define BLOOMXDP_BENCH_TLS_HELLO_H

#include <string.h>

/* Writes the hello for name into out; returns its length (the name is its last nlen bytes). */
static inline size_t client_hello(unsigned char *out, const char *name)
{
	size_t nlen = strlen(name), ext = 9 + nlen, hs = 2 + 32 + 1 + 4 + 2 + 2 + ext, n = 0;

	out[n++] = 22; out[n++] = 3; out[n++] = 1;
	out[n++] = (hs + 4) >> 8; out[n++] = (hs + 4) & 0xff;
	out[n++] = 1; out[n++] = 0; out[n++] = hs >> 8; out[n++] = hs & 0xff;
	out[n++] = 3; out[n++] = 3;
	memset(out + n, 0x5a, 32); n += 32;
	out[n++] = 0;					/* session id */
	out[n++] = 0; out[n++] = 2; out[n++] = 0x13; out[n++] = 0x01;	/* cipher suites */
	out[n++] = 1; out[n++] = 0;			/* compression */
	out[n++] = ext >> 8; out[n++] = ext & 0xff;	/* extensions */
	out[n++] = 0; out[n++] = 0;			/* server_name */
	out[n++] = (nlen + 5) >> 8; out[n++] = (nlen + 5) & 0xff;
	out[n++] = (nlen + 3) >> 8; out[n++] = (nlen + 3) & 0xff;
	out[n++] = 0;
	out[n++] = nlen >> 8; out[n++] = nlen & 0xff;
	memcpy(out + n, name, nlen);
	return n + nlen;
}

#endif
