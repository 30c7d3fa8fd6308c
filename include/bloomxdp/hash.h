/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Keyed hashing of filter keys and the Bloom probe sequence, compiled both by
 * clang -target bpf and by the user-space compiler, so that the XDP program
 * and the CLI compute the very same bit positions.
 *
 * Hash: SipHash-1-3 (Aumasson & Bernstein; the variant Rust's HashMap and
 * CPython use against hash flooding) over whole 64-bit words. The 128-bit key
 * is random per attachment: without it nobody can craft list entries or
 * addresses whose bits collide with another address on purpose.
 *
 * Probes: Kirsch-Mitzenmacher double hashing, g_i = (h1 + i*h2) mod m, with
 * h1 and h2 the two 32-bit halves of one hash.
 */
#ifndef BLOOMXDP_HASH_H
#define BLOOMXDP_HASH_H

#include <linux/types.h>
#include "common.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "key words are defined as little-endian loads; port bloomxdp_load_le*() first"
#endif

#define BLOOMXDP_KEY_MAX_WORDS 3

/* A key as hashed: whole little-endian words; word 0 starts with kind, prefix length. */
struct bloomxdp_key {
	__u64 word[BLOOMXDP_KEY_MAX_WORDS];
	__u32 nwords;
};

#define BLOOMXDP_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define BLOOMXDP_SIPROUND(v0, v1, v2, v3)					\
	do {								\
		v0 += v1; v1 = BLOOMXDP_ROTL(v1, 13); v1 ^= v0; v0 = BLOOMXDP_ROTL(v0, 32); \
		v2 += v3; v3 = BLOOMXDP_ROTL(v3, 16); v3 ^= v2;			\
		v0 += v3; v3 = BLOOMXDP_ROTL(v3, 21); v3 ^= v0;			\
		v2 += v1; v1 = BLOOMXDP_ROTL(v1, 17); v1 ^= v2; v2 = BLOOMXDP_ROTL(v2, 32); \
	} while (0)

static __always_inline __u64 bloomxdp_siphash13(const __u64 hash_key[2],
						 const struct bloomxdp_key *key)
{
	__u64 v0 = 0x736f6d6570736575ULL ^ hash_key[0];
	__u64 v1 = 0x646f72616e646f6dULL ^ hash_key[1];
	__u64 v2 = 0x6c7967656e657261ULL ^ hash_key[0];
	__u64 v3 = 0x7465646279746573ULL ^ hash_key[1];
	__u64 last = (__u64)(key->nwords * 8) << 56;
	__u32 i;

	for (i = 0; i < BLOOMXDP_KEY_MAX_WORDS; i++) {
		if (i >= key->nwords)
			break;
		v3 ^= key->word[i];
		BLOOMXDP_SIPROUND(v0, v1, v2, v3);
		v0 ^= key->word[i];
	}
	v3 ^= last;
	BLOOMXDP_SIPROUND(v0, v1, v2, v3);
	v0 ^= last;
	v2 ^= 0xff;
	BLOOMXDP_SIPROUND(v0, v1, v2, v3);
	BLOOMXDP_SIPROUND(v0, v1, v2, v3);
	BLOOMXDP_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* Callers pass at least 4-byte aligned pointers (header fields, key buffers). */
static __always_inline __u64 bloomxdp_load_le32(const void *p)
{
	__u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static __always_inline __u64 bloomxdp_load_le64(const void *p)
{
	const __u8 *b = (const __u8 *)p;

	return bloomxdp_load_le32(b) | bloomxdp_load_le32(b + 4) << 32;
}

/* addr: 4 bytes in network order, as on the wire. */
static __always_inline void bloomxdp_key_ipv4(struct bloomxdp_key *key, const void *addr,
					      __u32 prefix_len)
{
	key->word[0] = BLOOMXDP_KEY_IPV4 | (__u64)prefix_len << 8 | bloomxdp_load_le32(addr) << 32;
	key->nwords = 1;
}

/* addr: 16 bytes in network order. */
static __always_inline void bloomxdp_key_ipv6(struct bloomxdp_key *key, const void *addr,
					      __u32 prefix_len)
{
	key->word[0] = BLOOMXDP_KEY_IPV6 | (__u64)prefix_len << 8;
	key->word[1] = bloomxdp_load_le64(addr);
	key->word[2] = bloomxdp_load_le64((const __u8 *)addr + 8);
	key->nwords = 3;
}

/* ::ffff:a.b.c.d stands for the IPv4 address a.b.c.d. */
static __always_inline int bloomxdp_ipv6_is_v4mapped(const void *addr)
{
	const __u8 *b = (const __u8 *)addr;

	return bloomxdp_load_le64(b) == 0 && bloomxdp_load_le32(b + 8) == 0xffff0000ULL;
}

/* Position g_i, advanced one i at a time without overflow (bits < 2^32). */
struct bloomxdp_probe {
	__u32 pos;
	__u32 step;
};

static __always_inline void bloomxdp_probe_init(struct bloomxdp_probe *probe, __u64 hash,
						__u32 bits)
{
	probe->pos = (__u32)hash % bits;
	probe->step = (__u32)(hash >> 32) % bits;
	if (probe->step == 0)
		probe->step = 1;
}

static __always_inline void bloomxdp_probe_next(struct bloomxdp_probe *probe, __u32 bits)
{
	__u64 next = (__u64)probe->pos + probe->step;

	if (next >= bits)
		next -= bits;
	probe->pos = (__u32)next;
}

static __always_inline __u32 bloomxdp_word_index(__u32 pos)
{
	return pos / BLOOMXDP_WORD_BITS;
}

static __always_inline __u64 bloomxdp_word_mask(__u32 pos)
{
	return 1ULL << (pos % BLOOMXDP_WORD_BITS);
}

#endif /* BLOOMXDP_HASH_H */
