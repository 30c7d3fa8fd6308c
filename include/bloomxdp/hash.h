/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Keyed hashing of filter keys and the Bloom probe sequence, compiled both by
 * clang -target bpf and by the user-space compiler, so that the XDP program
 * and the CLI compute the very same bit positions.
 *
 * Hash of names: SipHash-1-3 (Aumasson & Bernstein; the variant Rust's HashMap
 * and CPython use against hash flooding) over whole 64-bit words. The 128-bit
 * key is random per attachment: without it nobody can craft list entries or
 * addresses whose bits collide with another address on purpose. Addresses,
 * on the packet's hot path, have a cheaper keyed hash with the guarantee that
 * needs: bloomxdp_addr_hash() below, keyed from the same 128 bits.
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

/* SipHash-1-3 in three steps, so that words and byte strings share one implementation. */
struct bloomxdp_sip {
	__u64 v0, v1, v2, v3;
};

static __always_inline void bloomxdp_sip_init(struct bloomxdp_sip *s, const __u64 hash_key[2])
{
	s->v0 = 0x736f6d6570736575ULL ^ hash_key[0];
	s->v1 = 0x646f72616e646f6dULL ^ hash_key[1];
	s->v2 = 0x6c7967656e657261ULL ^ hash_key[0];
	s->v3 = 0x7465646279746573ULL ^ hash_key[1];
}

static __always_inline void bloomxdp_sip_word(struct bloomxdp_sip *s, __u64 m)
{
	s->v3 ^= m;
	BLOOMXDP_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	s->v0 ^= m;
}

/* last: the final 0..7 message bytes, little-endian; len: message length in bytes. */
static __always_inline __u64 bloomxdp_sip_finish(struct bloomxdp_sip *s, __u64 last, __u32 len)
{
	bloomxdp_sip_word(s, last | (__u64)(len & 0xff) << 56);
	s->v2 ^= 0xff;
	BLOOMXDP_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	BLOOMXDP_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	BLOOMXDP_SIPROUND(s->v0, s->v1, s->v2, s->v3);
	return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

/* SipHash-1-3 of nwords whole words (nwords <= BLOOMXDP_KEY_MAX_WORDS). */
static __always_inline __u64 bloomxdp_siphash13_words(const __u64 hash_key[2], const __u64 *word,
						       __u32 nwords)
{
	struct bloomxdp_sip s;
	__u32 i;

	bloomxdp_sip_init(&s, hash_key);
	for (i = 0; i < BLOOMXDP_KEY_MAX_WORDS; i++) {
		if (i >= nwords)
			break;
		bloomxdp_sip_word(&s, word[i]);
	}
	return bloomxdp_sip_finish(&s, 0, nwords * 8);
}

static __always_inline __u64 bloomxdp_siphash13(const __u64 hash_key[2],
						 const struct bloomxdp_key *key)
{
	return bloomxdp_siphash13_words(hash_key, key->word, key->nwords);
}

/*
 * Address keys: vector multiply-add-shift (Dietzfelbinger), two multiplies per
 * 32-bit piece of the key where SipHash-1-3 takes five rounds (~10 ns a packet
 * in the kernel). The key is read as six 32-bit pieces x_0..x_5 (its words,
 * low half first; an IPv4 key's missing words are zero, and its kind byte
 * keeps it apart from any IPv6 key), and hashed by two functions of the family
 *
 *	h_j(x) = ((a_j0 x_0 + ... + a_j5 x_5 + b_j) mod 2^64) >> 32,
 *
 * with a_ji, b_j uniform 64-bit words (the CLI derives them from the hash key
 * with SipHash: bloomxdp_addr_key_derive()). For pieces of w = 32 bits and
 * 32-bit values, 64 >= w + 32 - 1, the family is strongly universal: for
 * any two distinct keys x, y and any values u, v, Pr[h(x) = u, h(y) = v] =
 * 2^-64 (Dietzfelbinger, "Universal hashing and k-wise independent random
 * variables via integer arithmetic without primes", STACS 1996; Thorup, "High
 * speed hashing for integers and strings", arXiv:1504.06804, on vector
 * multiply-shift). h_0 and h_1 have independent multipliers, so the 64-bit
 * h_1:h_0 is strongly universal as well; fmix64 (MurmurHash3's finalizer, a
 * fixed bijection, so strong universality stays) then mixes every input bit
 * into every output bit, so that the probe positions of neighbouring
 * addresses are not a linear sequence.
 *
 * Why that is safe: the key exists so that nobody who does not know it can
 * pick list entries or addresses whose probes hit those of another address.
 * Whatever keys such a party picks, each hashes to a uniform 64-bit value
 * independent of any other key's: a chosen key covers a given address's
 * probes no more often than a random one would, and collides with it fully
 * with probability 2^-64. The FPR of the whole filter asks for more than
 * pairwise independence in theory; for keys with some entropy, as addresses
 * of real lists have, 2-universal hashing gives the FPR of truly random
 * hashing (Mitzenmacher & Vadhan, "Why simple hash functions work: exploiting
 * the entropy in a data stream", SODA 2008), and the FPR tests measure it on
 * random and on sequential addresses (tests/unit/test_fpr.c). What it gives
 * up: it is not a pseudo-random function. Someone who sees which of very many
 * addresses of theirs are dropped learns something of the multipliers, where
 * SipHash would show nothing: they may find more of their own addresses that
 * are false positives; to get someone else's address blocked they would also
 * have to put entries in the list. No false negative either way: a listed
 * key has all its bits set whatever the hash.
 */
#define BLOOMXDP_ADDR_PIECES	(2 * BLOOMXDP_KEY_MAX_WORDS)
/* addr_key: a_0 (pieces), a_1 (pieces), b_0, b_1. */
_Static_assert(BLOOMXDP_ADDR_KEY_WORDS == 2 * BLOOMXDP_ADDR_PIECES + 2, "addr_key layout");

static __always_inline __u64 bloomxdp_fmix64(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/*
 * addr_key: BLOOMXDP_ADDR_KEY_WORDS words. Volatile, so that the XDP program
 * can pass its .rodata (a cast to non-volatile lets clang fold the loads).
 */
static __always_inline __u64 bloomxdp_addr_hash(const volatile __u64 *addr_key,
						const struct bloomxdp_key *key)
{
	__u64 h0 = addr_key[2 * BLOOMXDP_ADDR_PIECES], h1 = addr_key[2 * BLOOMXDP_ADDR_PIECES + 1];
	__u64 lo, hi;
	__u32 i;

	for (i = 0; i < BLOOMXDP_KEY_MAX_WORDS; i++) {
		if (i >= key->nwords)
			break;
		lo = (__u32)key->word[i];
		hi = key->word[i] >> 32;
		h0 += addr_key[2 * i] * lo + addr_key[2 * i + 1] * hi;
		h1 += addr_key[BLOOMXDP_ADDR_PIECES + 2 * i] * lo +
		      addr_key[BLOOMXDP_ADDR_PIECES + 2 * i + 1] * hi;
	}
	return bloomxdp_fmix64((h1 & 0xffffffff00000000ULL) | h0 >> 32);
}

/*
 * The bucket of a host in the exact stage's table (common.h), before the
 * mask: vector multiply-add-shift of the address's 32-bit words (as loaded
 * from network order, 1 or 4 of them) with words of the address key, as
 * bloomxdp_addr_hash()'s h_1 (strongly universal to 32 bits). One multiply
 * for IPv4: a second hash of the packet's address, but not an expensive one.
 */
static __always_inline __u32 bloomxdp_table_hash4(const volatile __u64 *addr_key, __u32 a)
{
	return (addr_key[BLOOMXDP_ADDR_PIECES] * a + addr_key[2 * BLOOMXDP_ADDR_PIECES + 1]) >> 32;
}

static __always_inline __u32 bloomxdp_table_hash6(const volatile __u64 *addr_key, const __u32 *a)
{
	const volatile __u64 *m = addr_key + BLOOMXDP_ADDR_PIECES;

	return (m[0] * a[0] + m[1] * a[1] + m[2] * a[2] + m[3] * a[3] +
		addr_key[2 * BLOOMXDP_ADDR_PIECES + 1]) >> 32;
}

/* The address hash's words from the hash key: SipHash of a tag and the index. */
static __always_inline void bloomxdp_addr_key_derive(const __u64 hash_key[2],
						     __u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS])
{
	__u64 w;
	__u32 i;

	for (i = 0; i < BLOOMXDP_ADDR_KEY_WORDS; i++) {
		w = 0x79656b72646461ULL | (__u64)i << 56;	/* "addrkey", i */
		addr_key[i] = bloomxdp_siphash13_words(hash_key, &w, 1);
	}
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

/*
 * The first len bits of an address word loaded little-endian from network
 * order bytes: the mask is built in network (big-endian) order and swapped.
 */
static __always_inline __u64 bloomxdp_prefix_mask32(__u32 len)
{
	/* len 0..32; branch-free, so that the verifier walks one path. */
	return __builtin_bswap32((__u32)(~0ULL << (32 - (len & 63))));
}

static __always_inline __u64 bloomxdp_prefix_mask64(__u32 len)
{
	/* len 0..64; nonzero is 1 for len >= 1: no shift by 64, no branch. */
	__u64 nonzero = ((__u64)len + 63) >> 6;

	return __builtin_bswap64(~0ULL << ((64 - len) & 63)) & -nonzero;
}

/* addr: 4 bytes in network order, as on the wire; the key of its first prefix_len bits. */
static __always_inline void bloomxdp_key_ipv4(struct bloomxdp_key *key, const void *addr,
					      __u32 prefix_len)
{
	__u64 masked = bloomxdp_load_le32(addr) & bloomxdp_prefix_mask32(prefix_len);

	key->word[0] = BLOOMXDP_KEY_IPV4 | (__u64)prefix_len << 8 | masked << 32;
	key->nwords = 1;
}

/* addr: 16 bytes in network order. */
static __always_inline void bloomxdp_key_ipv6(struct bloomxdp_key *key, const void *addr,
					      __u32 prefix_len)
{
	__u32 high_len = prefix_len > 64 ? 64 : prefix_len;
	__u32 low_len = prefix_len - high_len;

	key->word[0] = BLOOMXDP_KEY_IPV6 | (__u64)prefix_len << 8;
	key->word[1] = bloomxdp_load_le64(addr) & bloomxdp_prefix_mask64(high_len);
	key->word[2] = bloomxdp_load_le64((const __u8 *)addr + 8) &
		       bloomxdp_prefix_mask64(low_len);
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

/*
 * Branch-free on purpose: a branch here would double the paths the verifier
 * walks at every probe (2^k in all).
 */
static __always_inline void bloomxdp_probe_next(struct bloomxdp_probe *probe, __u32 bits)
{
	__u64 next = (__u64)probe->pos + probe->step;
	/* All ones when next >= bits: both are below 2^33, so the sign bit tells. */
	__u64 wrap = (__u64)((__s64)((__u64)bits - 1 - next) >> 63);

	probe->pos = (__u32)(next - (bits & wrap));
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
