/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * QUIC Initial packets read as a middlebox reads them (RFC 9001 5, RFC 9369 3.3):
 * the client's Initial keys derived from the Destination Connection ID (HKDF-SHA256 with
 * the version's salt), AES-128 for header protection and for the payload's counter mode
 * (AES-128-GCM without its tag: the filter only reads, and nothing decrypted is sent on).
 * One source for the XDP program (clang -target bpf) and for user space (the tests' twin).
 *
 * In BPF, the functions marked BLOOMXDP_QUIC_FN are global functions: the verifier checks
 * each once, whatever calls it, and a caller pays one call instruction. Their arguments
 * are pointers to whole structs (the verifier sizes the memory from the BTF type), checked
 * for NULL first; their work space is in those structs (a per-CPU map's value), not on the
 * 512-byte stack a bpf_loop callback shares with what it calls. Every loop is bounded by a
 * constant and every table index masked. Bytes are read and written as whole words through
 * unions: clang knows nothing of the alignment behind a global function's argument, and
 * the BPF target breaks a word access it cannot prove aligned into bytes. -mcpu=v1 has no
 * 32-bit subregisters, so a 32-bit word lives in a 64-bit register: a rotation is one
 * shift of the word held twice (x | x << 32), and upper bits are cleared only where a
 * right shift would bring them down. In user space the same functions are static inline.
 */
#ifndef BLOOMXDP_QUIC_H
#define BLOOMXDP_QUIC_H

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "big-endian words are loaded with a byte swap: port bloomxdp_be32() first"
#endif

#ifdef __bpf__
#define BLOOMXDP_QUIC_FN __attribute__((noinline))
#define BLOOMXDP_QUIC_BARRIER() asm volatile("" ::: "memory")
#else
#define BLOOMXDP_QUIC_FN static inline
#define BLOOMXDP_QUIC_BARRIER() do { } while (0)
#endif

#define BLOOMXDP_QUIC_V1	0x00000001	/* RFC 9000 */
#define BLOOMXDP_QUIC_V2	0x6b3343cf	/* RFC 9369 */
#define BLOOMXDP_QUIC_CID_MAX	20		/* bytes of a connection ID (RFC 9000 17.2) */
#define BLOOMXDP_QUIC_SAMPLE_LEN 16		/* header protection's sample (RFC 9001 5.4.2) */
#define BLOOMXDP_QUIC_TAG_LEN	16		/* AES-128-GCM's tag, ending the payload */
#define BLOOMXDP_QUIC_LONG_HEADER 0x80		/* the first byte's form bit */

/* The frame types an Initial may carry (RFC 9000 12.4, 19). */
#define BLOOMXDP_QUIC_FRAME_PADDING	0x00
#define BLOOMXDP_QUIC_FRAME_PING	0x01
#define BLOOMXDP_QUIC_FRAME_ACK		0x02
#define BLOOMXDP_QUIC_FRAME_ACK_ECN	0x03
#define BLOOMXDP_QUIC_FRAME_CRYPTO	0x06
#define BLOOMXDP_QUIC_FRAME_CLOSE	0x1c	/* CONNECTION_CLOSE of QUIC's layer */

/* The long header's packet type of an Initial: 0 in v1, 1 in v2 (RFC 9369 3.2); -1: neither. */
static __always_inline int bloomxdp_quic_initial_type(__u32 version)
{
	if (version == BLOOMXDP_QUIC_V1)
		return 0;
	if (version == BLOOMXDP_QUIC_V2)
		return 1;
	return -1;
}

/* A big-endian word of memory as a number, and back. */
static __always_inline __u32 bloomxdp_be32(__u32 w)
{
	return __builtin_bswap32(w);
}

struct bloomxdp_block {
	union {
		__u8 b[16];
		__u32 w[4];	/* the same bytes, as words */
	};
};

/* AES-128's round keys as numbers of big-endian words (FIPS-197 5.2). */
struct bloomxdp_aes128 {
	__u32 rk[44];
};

/* A client's Initial keys: payload key, IV (its first 12 bytes), header protection key. */
struct bloomxdp_quic_keys {
	struct bloomxdp_block key, iv, hp;
};

/* A SHA-256 digest. */
union bloomxdp_digest {
	__u8 b[32];
	__u32 w[8];
};

/* SHA-256 of one 64-byte block at a time (FIPS 180-4 6.2). */
struct bloomxdp_sha256 {
	__u32 h[8];		/* the chaining value */
	union {
		__u8 b[64];
		__u32 w[16];
		__u64 q[8];
	} block;		/* the block to compress */
	__u32 w[16];		/* work space: the message schedule */
	__u32 v[8];		/* work space: the working variables */
};

/* HMAC-SHA256 of one key: SHA-256's state after (key ^ ipad) and after (key ^ opad). */
struct bloomxdp_hmac {
	__u32 ipad[8], opad[8];
};

/*
 * In: version, dcid_len (0 to BLOOMXDP_QUIC_CID_MAX), dcid (bytes past dcid_len are
 * ignored). Out: keys, and on the way initial_secret and client_secret (RFC 9001 5.2's
 * initial_secret and client_initial_secret). The rest is work space; salt keeps the
 * version's salt's HMAC state from one call to the next (salt_version says for which
 * version, 0 none): leave the struct as the last call left it, or zero it.
 */
struct bloomxdp_quic_derive {
	__u32 version;
	__u32 dcid_len;
	__u8 dcid[BLOOMXDP_QUIC_CID_MAX];
	struct bloomxdp_quic_keys keys;
	union bloomxdp_digest initial_secret, client_secret;
	struct bloomxdp_sha256 sha;
	struct bloomxdp_hmac mac;
	struct bloomxdp_hmac salt;
	__u32 salt_version;
};

/* ---------------------------------------------------------------- SHA-256 */

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const __u32 bloomxdp_sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* x (32 bits, upper half clear) twice: a right rotation of x is then a right shift. */
static __always_inline __u64 bloomxdp_sha256_twice(__u64 x)
{
	return x | x << 32;
}

/* FIPS 180-4 4.1.2's functions; their low 32 bits are the value, the rest is noise. */
static __always_inline __u64 bloomxdp_sha256_S0(__u64 x)
{
	__u64 y = bloomxdp_sha256_twice(x);

	return (y >> 2) ^ (y >> 13) ^ (y >> 22);
}

static __always_inline __u64 bloomxdp_sha256_S1(__u64 x)
{
	__u64 y = bloomxdp_sha256_twice(x);

	return (y >> 6) ^ (y >> 11) ^ (y >> 25);
}

static __always_inline __u64 bloomxdp_sha256_s0(__u64 x)
{
	__u64 y = bloomxdp_sha256_twice(x);

	return (y >> 7) ^ (y >> 18) ^ (x >> 3);
}

static __always_inline __u64 bloomxdp_sha256_s1(__u64 x)
{
	__u64 y = bloomxdp_sha256_twice(x);

	return (y >> 17) ^ (y >> 19) ^ (x >> 10);
}

/*
 * One round over the working variables v[], which live in the struct, not in registers:
 * the BPF target has ten registers, and the spills of eight variables and their
 * temporaries took 176 to 248 bytes of the stack that a bpf_loop callback shares with
 * what it calls. They rotate by renaming (indices a to h; d and h are the ones written);
 * a 32-bit store drops the sums' upper halves. The barrier keeps the compiler from
 * holding values in registers from one round to the next.
 */
#define BLOOMXDP_SHA256_ROUND(v, a, b, c, d, e, f, g, h, kw)				\
	do {										\
		__u64 t1_ = (v)[h] + bloomxdp_sha256_S1((v)[e]) +				\
			    ((v)[g] ^ ((v)[e] & ((v)[f] ^ (v)[g]))) + (kw);		\
		(v)[d] += t1_;								\
		(v)[h] = t1_ + bloomxdp_sha256_S0((v)[a]) +					\
			 (((v)[a] & (v)[b]) | ((v)[c] & ((v)[a] | (v)[b])));		\
		BLOOMXDP_QUIC_BARRIER();						\
	} while (0)

/* Rounds j to j + 7 of the 16 whose constants start at k and words at w. */
#define BLOOMXDP_SHA256_EIGHT(v, k, w, j)						\
	do {										\
		BLOOMXDP_SHA256_ROUND(v, 0, 1, 2, 3, 4, 5, 6, 7, (k)[j] + (__u64)(w)[j]);	\
		BLOOMXDP_SHA256_ROUND(v, 7, 0, 1, 2, 3, 4, 5, 6,				\
				      (k)[(j) + 1] + (__u64)(w)[(j) + 1]);			\
		BLOOMXDP_SHA256_ROUND(v, 6, 7, 0, 1, 2, 3, 4, 5,				\
				      (k)[(j) + 2] + (__u64)(w)[(j) + 2]);			\
		BLOOMXDP_SHA256_ROUND(v, 5, 6, 7, 0, 1, 2, 3, 4,				\
				      (k)[(j) + 3] + (__u64)(w)[(j) + 3]);			\
		BLOOMXDP_SHA256_ROUND(v, 4, 5, 6, 7, 0, 1, 2, 3,				\
				      (k)[(j) + 4] + (__u64)(w)[(j) + 4]);			\
		BLOOMXDP_SHA256_ROUND(v, 3, 4, 5, 6, 7, 0, 1, 2,				\
				      (k)[(j) + 5] + (__u64)(w)[(j) + 5]);			\
		BLOOMXDP_SHA256_ROUND(v, 2, 3, 4, 5, 6, 7, 0, 1,				\
				      (k)[(j) + 6] + (__u64)(w)[(j) + 6]);			\
		BLOOMXDP_SHA256_ROUND(v, 1, 2, 3, 4, 5, 6, 7, 0,				\
				      (k)[(j) + 7] + (__u64)(w)[(j) + 7]);			\
	} while (0)

/* The message schedule's next 16 words, in place (a 16-word window of FIPS 180-4 6.2.2). */
static __always_inline void bloomxdp_sha256_schedule(__u32 *w)
{
	__u32 j;

	for (j = 0; j < 16; j++) {
		w[j] += bloomxdp_sha256_s1(w[(j + 14) & 15]) + w[(j + 9) & 15] +
			bloomxdp_sha256_s0(w[(j + 1) & 15]);
		BLOOMXDP_QUIC_BARRIER();
	}
}

/* s->h updated with s->block (left as it was). */
BLOOMXDP_QUIC_FN int bloomxdp_sha256_block(struct bloomxdp_sha256 *s)
{
	__u32 i, j, *w, *v;
	const __u32 *k;

	if (!s)
		return -1;
	w = s->w;
	v = s->v;
	for (j = 0; j < 16; j++)
		w[j] = bloomxdp_be32(s->block.w[j]);
	for (j = 0; j < 8; j++)
		v[j] = s->h[j];
	for (i = 0; i < 64; i += 16) {
		if (i)
			bloomxdp_sha256_schedule(w);
		k = bloomxdp_sha256_k + (i & 48);
		BLOOMXDP_SHA256_EIGHT(v, k, w, 0);
		BLOOMXDP_SHA256_EIGHT(v, k, w, 8);
	}
	for (j = 0; j < 8; j++)
		s->h[j] += v[j];
	return 0;
}

/* The initial hash value: the fractional parts of the square roots of the first 8 primes. */
static __always_inline void bloomxdp_sha256_init(struct bloomxdp_sha256 *s)
{
	s->h[0] = 0x6a09e667;
	s->h[1] = 0xbb67ae85;
	s->h[2] = 0x3c6ef372;
	s->h[3] = 0xa54ff53a;
	s->h[4] = 0x510e527f;
	s->h[5] = 0x9b05688c;
	s->h[6] = 0x1f83d9ab;
	s->h[7] = 0x5be0cd19;
}

/* The last block of a message of total bytes, the final len (< 56) of them in the block. */
static __always_inline void bloomxdp_sha256_pad(struct bloomxdp_sha256 *s, __u32 len,
						 __u32 total)
{
	__u64 bits = (__u64)total * 8;

	s->block.b[len & 63] = 0x80;
	s->block.w[14] = bloomxdp_be32(bits >> 32);
	s->block.w[15] = bloomxdp_be32(bits);
}

/* The digest's first nwords words, as bytes (big-endian words). */
static __always_inline void bloomxdp_sha256_out(const struct bloomxdp_sha256 *s, __u32 *out,
						 __u32 nwords)
{
	__u32 j;

	for (j = 0; j < 8; j++)
		if (j < nwords)
			out[j] = bloomxdp_be32(s->h[j]);
}

/* ------------------------------------------------- HMAC-SHA256 (RFC 2104) */

#define BLOOMXDP_HMAC_IPAD	0x3636363636363636ULL
#define BLOOMXDP_HMAC_OPAD	0x5c5c5c5c5c5c5c5cULL

/*
 * m for a key of nwords (at most 16) words of its bytes, zero-padded: HMAC pads a short
 * key with zeros anyway. In BPF nwords is a constant. The block is left as key ^ opad.
 */
static __always_inline void bloomxdp_hmac_key(struct bloomxdp_sha256 *s, struct bloomxdp_hmac *m,
					      const __u32 *key, __u32 nwords)
{
	__u32 j;

	for (j = 0; j < 8; j++)
		s->block.q[j] = BLOOMXDP_HMAC_IPAD;
	for (j = 0; j < 16; j++)
		if (j < nwords)
			s->block.w[j] ^= key[j];
	bloomxdp_sha256_init(s);
	bloomxdp_sha256_block(s);
	__builtin_memcpy(m->ipad, s->h, sizeof(m->ipad));
	for (j = 0; j < 8; j++)
		s->block.q[j] ^= BLOOMXDP_HMAC_IPAD ^ BLOOMXDP_HMAC_OPAD;
	bloomxdp_sha256_init(s);
	bloomxdp_sha256_block(s);
	__builtin_memcpy(m->opad, s->h, sizeof(m->opad));
}

/*
 * HMAC(key, msg) into s->h, for a message of len (< 56) bytes the caller wrote at the
 * start of s->block, the rest of the block zero.
 */
static __always_inline void bloomxdp_hmac_short(struct bloomxdp_sha256 *s,
						const struct bloomxdp_hmac *m, __u32 len)
{
	__u32 j;

	bloomxdp_sha256_pad(s, len, 64 + len);
	__builtin_memcpy(s->h, m->ipad, sizeof(s->h));
	bloomxdp_sha256_block(s);
	/* The outer hash: the inner digest, then its padding. */
	for (j = 0; j < 8; j++)
		s->block.q[j] = 0;
	bloomxdp_sha256_out(s, s->block.w, 8);
	bloomxdp_sha256_pad(s, 32, 64 + 32);
	__builtin_memcpy(s->h, m->opad, sizeof(s->h));
	bloomxdp_sha256_block(s);
}

/* ----------------------------------------------------------- AES-128 */

/*
 * FIPS-197's round tables in one: entry x is the column (2s, s, s, 3s) of s = S-box(x),
 * most significant byte first, held twice, so that each of the three other tables of a
 * T-table implementation (that column rotated right by 8, 16, 24 bits) is one right shift
 * of it, and the S-box itself is its bits 8 to 15. tests/unit/test_quic_crypto.c makes it
 * again from GF(2^8) arithmetic.
 */
static const __u64 bloomxdp_aes_t[256] = {
	0xc66363a5c66363a5, 0xf87c7c84f87c7c84, 0xee777799ee777799, 0xf67b7b8df67b7b8d,
	0xfff2f20dfff2f20d, 0xd66b6bbdd66b6bbd, 0xde6f6fb1de6f6fb1, 0x91c5c55491c5c554,
	0x6030305060303050, 0x0201010302010103, 0xce6767a9ce6767a9, 0x562b2b7d562b2b7d,
	0xe7fefe19e7fefe19, 0xb5d7d762b5d7d762, 0x4dababe64dababe6, 0xec76769aec76769a,
	0x8fcaca458fcaca45, 0x1f82829d1f82829d, 0x89c9c94089c9c940, 0xfa7d7d87fa7d7d87,
	0xeffafa15effafa15, 0xb25959ebb25959eb, 0x8e4747c98e4747c9, 0xfbf0f00bfbf0f00b,
	0x41adadec41adadec, 0xb3d4d467b3d4d467, 0x5fa2a2fd5fa2a2fd, 0x45afafea45afafea,
	0x239c9cbf239c9cbf, 0x53a4a4f753a4a4f7, 0xe4727296e4727296, 0x9bc0c05b9bc0c05b,
	0x75b7b7c275b7b7c2, 0xe1fdfd1ce1fdfd1c, 0x3d9393ae3d9393ae, 0x4c26266a4c26266a,
	0x6c36365a6c36365a, 0x7e3f3f417e3f3f41, 0xf5f7f702f5f7f702, 0x83cccc4f83cccc4f,
	0x6834345c6834345c, 0x51a5a5f451a5a5f4, 0xd1e5e534d1e5e534, 0xf9f1f108f9f1f108,
	0xe2717193e2717193, 0xabd8d873abd8d873, 0x6231315362313153, 0x2a15153f2a15153f,
	0x0804040c0804040c, 0x95c7c75295c7c752, 0x4623236546232365, 0x9dc3c35e9dc3c35e,
	0x3018182830181828, 0x379696a1379696a1, 0x0a05050f0a05050f, 0x2f9a9ab52f9a9ab5,
	0x0e0707090e070709, 0x2412123624121236, 0x1b80809b1b80809b, 0xdfe2e23ddfe2e23d,
	0xcdebeb26cdebeb26, 0x4e2727694e272769, 0x7fb2b2cd7fb2b2cd, 0xea75759fea75759f,
	0x1209091b1209091b, 0x1d83839e1d83839e, 0x582c2c74582c2c74, 0x341a1a2e341a1a2e,
	0x361b1b2d361b1b2d, 0xdc6e6eb2dc6e6eb2, 0xb45a5aeeb45a5aee, 0x5ba0a0fb5ba0a0fb,
	0xa45252f6a45252f6, 0x763b3b4d763b3b4d, 0xb7d6d661b7d6d661, 0x7db3b3ce7db3b3ce,
	0x5229297b5229297b, 0xdde3e33edde3e33e, 0x5e2f2f715e2f2f71, 0x1384849713848497,
	0xa65353f5a65353f5, 0xb9d1d168b9d1d168, 0x0000000000000000, 0xc1eded2cc1eded2c,
	0x4020206040202060, 0xe3fcfc1fe3fcfc1f, 0x79b1b1c879b1b1c8, 0xb65b5bedb65b5bed,
	0xd46a6abed46a6abe, 0x8dcbcb468dcbcb46, 0x67bebed967bebed9, 0x7239394b7239394b,
	0x944a4ade944a4ade, 0x984c4cd4984c4cd4, 0xb05858e8b05858e8, 0x85cfcf4a85cfcf4a,
	0xbbd0d06bbbd0d06b, 0xc5efef2ac5efef2a, 0x4faaaae54faaaae5, 0xedfbfb16edfbfb16,
	0x864343c5864343c5, 0x9a4d4dd79a4d4dd7, 0x6633335566333355, 0x1185859411858594,
	0x8a4545cf8a4545cf, 0xe9f9f910e9f9f910, 0x0402020604020206, 0xfe7f7f81fe7f7f81,
	0xa05050f0a05050f0, 0x783c3c44783c3c44, 0x259f9fba259f9fba, 0x4ba8a8e34ba8a8e3,
	0xa25151f3a25151f3, 0x5da3a3fe5da3a3fe, 0x804040c0804040c0, 0x058f8f8a058f8f8a,
	0x3f9292ad3f9292ad, 0x219d9dbc219d9dbc, 0x7038384870383848, 0xf1f5f504f1f5f504,
	0x63bcbcdf63bcbcdf, 0x77b6b6c177b6b6c1, 0xafdada75afdada75, 0x4221216342212163,
	0x2010103020101030, 0xe5ffff1ae5ffff1a, 0xfdf3f30efdf3f30e, 0xbfd2d26dbfd2d26d,
	0x81cdcd4c81cdcd4c, 0x180c0c14180c0c14, 0x2613133526131335, 0xc3ecec2fc3ecec2f,
	0xbe5f5fe1be5f5fe1, 0x359797a2359797a2, 0x884444cc884444cc, 0x2e1717392e171739,
	0x93c4c45793c4c457, 0x55a7a7f255a7a7f2, 0xfc7e7e82fc7e7e82, 0x7a3d3d477a3d3d47,
	0xc86464acc86464ac, 0xba5d5de7ba5d5de7, 0x3219192b3219192b, 0xe6737395e6737395,
	0xc06060a0c06060a0, 0x1981819819818198, 0x9e4f4fd19e4f4fd1, 0xa3dcdc7fa3dcdc7f,
	0x4422226644222266, 0x542a2a7e542a2a7e, 0x3b9090ab3b9090ab, 0x0b8888830b888883,
	0x8c4646ca8c4646ca, 0xc7eeee29c7eeee29, 0x6bb8b8d36bb8b8d3, 0x2814143c2814143c,
	0xa7dede79a7dede79, 0xbc5e5ee2bc5e5ee2, 0x160b0b1d160b0b1d, 0xaddbdb76addbdb76,
	0xdbe0e03bdbe0e03b, 0x6432325664323256, 0x743a3a4e743a3a4e, 0x140a0a1e140a0a1e,
	0x924949db924949db, 0x0c06060a0c06060a, 0x4824246c4824246c, 0xb85c5ce4b85c5ce4,
	0x9fc2c25d9fc2c25d, 0xbdd3d36ebdd3d36e, 0x43acacef43acacef, 0xc46262a6c46262a6,
	0x399191a8399191a8, 0x319595a4319595a4, 0xd3e4e437d3e4e437, 0xf279798bf279798b,
	0xd5e7e732d5e7e732, 0x8bc8c8438bc8c843, 0x6e3737596e373759, 0xda6d6db7da6d6db7,
	0x018d8d8c018d8d8c, 0xb1d5d564b1d5d564, 0x9c4e4ed29c4e4ed2, 0x49a9a9e049a9a9e0,
	0xd86c6cb4d86c6cb4, 0xac5656faac5656fa, 0xf3f4f407f3f4f407, 0xcfeaea25cfeaea25,
	0xca6565afca6565af, 0xf47a7a8ef47a7a8e, 0x47aeaee947aeaee9, 0x1008081810080818,
	0x6fbabad56fbabad5, 0xf0787888f0787888, 0x4a25256f4a25256f, 0x5c2e2e725c2e2e72,
	0x381c1c24381c1c24, 0x57a6a6f157a6a6f1, 0x73b4b4c773b4b4c7, 0x97c6c65197c6c651,
	0xcbe8e823cbe8e823, 0xa1dddd7ca1dddd7c, 0xe874749ce874749c, 0x3e1f1f213e1f1f21,
	0x964b4bdd964b4bdd, 0x61bdbddc61bdbddc, 0x0d8b8b860d8b8b86, 0x0f8a8a850f8a8a85,
	0xe0707090e0707090, 0x7c3e3e427c3e3e42, 0x71b5b5c471b5b5c4, 0xcc6666aacc6666aa,
	0x904848d8904848d8, 0x0603030506030305, 0xf7f6f601f7f6f601, 0x1c0e0e121c0e0e12,
	0xc26161a3c26161a3, 0x6a35355f6a35355f, 0xae5757f9ae5757f9, 0x69b9b9d069b9b9d0,
	0x1786869117868691, 0x99c1c15899c1c158, 0x3a1d1d273a1d1d27, 0x279e9eb9279e9eb9,
	0xd9e1e138d9e1e138, 0xebf8f813ebf8f813, 0x2b9898b32b9898b3, 0x2211113322111133,
	0xd26969bbd26969bb, 0xa9d9d970a9d9d970, 0x078e8e89078e8e89, 0x339494a7339494a7,
	0x2d9b9bb62d9b9bb6, 0x3c1e1e223c1e1e22, 0x1587879215878792, 0xc9e9e920c9e9e920,
	0x87cece4987cece49, 0xaa5555ffaa5555ff, 0x5028287850282878, 0xa5dfdf7aa5dfdf7a,
	0x038c8c8f038c8c8f, 0x59a1a1f859a1a1f8, 0x0989898009898980, 0x1a0d0d171a0d0d17,
	0x65bfbfda65bfbfda, 0xd7e6e631d7e6e631, 0x844242c6844242c6, 0xd06868b8d06868b8,
	0x824141c3824141c3, 0x299999b0299999b0, 0x5a2d2d775a2d2d77, 0x1e0f0f111e0f0f11,
	0x7bb0b0cb7bb0b0cb, 0xa85454fca85454fc, 0x6dbbbbd66dbbbbd6, 0x2c16163a2c16163a,
};

#define BLOOMXDP_AES_T(x)	bloomxdp_aes_t[(x) & 0xff]
#define BLOOMXDP_AES_S(x)	((BLOOMXDP_AES_T(x) >> 8) & 0xff)

/* The key schedule (FIPS-197 5.2). */
BLOOMXDP_QUIC_FN int bloomxdp_aes128_expand(struct bloomxdp_aes128 *ks,
					    const struct bloomxdp_block *key)
{
	__u32 i, t, rcon = 1;

	if (!ks || !key)
		return -1;
	for (i = 0; i < 4; i++)
		ks->rk[i] = bloomxdp_be32(key->w[i]);
	for (i = 4; i < 44; i += 4) {
		t = ks->rk[i - 1];
		/* SubWord(RotWord(t)) ^ Rcon */
		t = (BLOOMXDP_AES_S(t >> 16) << 24 | BLOOMXDP_AES_S(t >> 8) << 16 |
		     BLOOMXDP_AES_S(t) << 8 | BLOOMXDP_AES_S(t >> 24)) ^ (rcon << 24);
		rcon = (rcon << 1) ^ ((rcon >> 7) * 0x11b);
		ks->rk[i] = ks->rk[i - 4] ^ t;
		ks->rk[i + 1] = ks->rk[i - 3] ^ ks->rk[i];
		ks->rk[i + 2] = ks->rk[i - 2] ^ ks->rk[i + 1];
		ks->rk[i + 3] = ks->rk[i - 1] ^ ks->rk[i + 2];
	}
	return 0;
}

/* A round's column: row r taken from column c + r (ShiftRows), then MixColumns and the key. */
#define BLOOMXDP_AES_COL(s0, s1, s2, s3, k)						\
	(BLOOMXDP_AES_T((s0) >> 24) ^ (BLOOMXDP_AES_T((s1) >> 16) >> 8) ^			\
	 (BLOOMXDP_AES_T((s2) >> 8) >> 16) ^ (BLOOMXDP_AES_T(s3) >> 24) ^ (k))

/* The last round's column: no MixColumns. */
#define BLOOMXDP_AES_LAST(s0, s1, s2, s3, k)						\
	((BLOOMXDP_AES_S((s0) >> 24) << 24 | BLOOMXDP_AES_S((s1) >> 16) << 16 |		\
	  BLOOMXDP_AES_S((s2) >> 8) << 8 | BLOOMXDP_AES_S(s3)) ^ (k))

/* blk encrypted in place with the round keys of ks (FIPS-197 5.1). */
BLOOMXDP_QUIC_FN int bloomxdp_aes128_encrypt(const struct bloomxdp_aes128 *ks,
					     struct bloomxdp_block *blk)
{
	__u64 s0, s1, s2, s3, t0, t1, t2, t3;
	const __u32 *rk;
	__u32 r;

	if (!ks || !blk)
		return -1;
	s0 = bloomxdp_be32(blk->w[0]) ^ ks->rk[0];
	s1 = bloomxdp_be32(blk->w[1]) ^ ks->rk[1];
	s2 = bloomxdp_be32(blk->w[2]) ^ ks->rk[2];
	s3 = bloomxdp_be32(blk->w[3]) ^ ks->rk[3];
	for (r = 1; r < 10; r++) {
		rk = ks->rk + 4 * r;
		t0 = BLOOMXDP_AES_COL(s0, s1, s2, s3, rk[0]);
		t1 = BLOOMXDP_AES_COL(s1, s2, s3, s0, rk[1]);
		t2 = BLOOMXDP_AES_COL(s2, s3, s0, s1, rk[2]);
		t3 = BLOOMXDP_AES_COL(s3, s0, s1, s2, rk[3]);
		s0 = t0;
		s1 = t1;
		s2 = t2;
		s3 = t3;
	}
	rk = ks->rk + 40;
	blk->w[0] = bloomxdp_be32(BLOOMXDP_AES_LAST(s0, s1, s2, s3, rk[0]));
	blk->w[1] = bloomxdp_be32(BLOOMXDP_AES_LAST(s1, s2, s3, s0, rk[1]));
	blk->w[2] = bloomxdp_be32(BLOOMXDP_AES_LAST(s2, s3, s0, s1, rk[2]));
	blk->w[3] = bloomxdp_be32(BLOOMXDP_AES_LAST(s3, s0, s1, s2, rk[3]));
	return 0;
}

/*
 * The AES-GCM counter block of payload block `counter`: the nonce (iv XOR the packet
 * number, left-padded to 12 bytes, big-endian; RFC 9001 5.3), then the counter,
 * big-endian. GCM encrypts from inc32(J0) with J0 = nonce || 1: payload byte i is XORed
 * with AES(key, ctr_block(2 + i / 16)) byte i % 16.
 */
static __always_inline void bloomxdp_quic_ctr_block(const struct bloomxdp_block *iv, __u64 pn,
						    __u32 counter, struct bloomxdp_block *out)
{
	out->w[0] = iv->w[0];
	out->w[1] = iv->w[1] ^ bloomxdp_be32(pn >> 32);
	out->w[2] = iv->w[2] ^ bloomxdp_be32(pn);
	out->w[3] = bloomxdp_be32(counter);
}

/* ------------------------------------------------- the Initial keys */

/* initial_salt of v1 (RFC 9001 5.2) and v2 (RFC 9369 3.3.1). */
static const union {
	__u8 b[20];
	__u32 w[5];
} bloomxdp_quic_salt[2] = {
	{ .b = { 0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
		 0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a } },
	{ .b = { 0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
		 0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9 } },
};

/*
 * HKDF-Expand-Label's HkdfLabel (RFC 8446 7.1) with an empty context, as it starts the
 * message: the output's length, the label's length and "tls13 " + label, zero-padded (the
 * zero after the label is the context's length). Named arrays, not string literals
 * copied: those would make a map of their own (.rodata.str1.1).
 */
struct bloomxdp_quic_label {
	union {
		struct {
			__u8 len_hi, len;
			__u8 text_len;
			char text[17];
		};
		__u32 w[5];
	};
};

#define BLOOMXDP_QUIC_LABEL(length, label)	{ { { .len = (length),			\
						      .text_len = sizeof(label) - 1,	\
						      .text = label } } }

/* The client's Initial secret (RFC 9001 5.2). */
static const struct bloomxdp_quic_label bloomxdp_quic_client_in =
	BLOOMXDP_QUIC_LABEL(32, "tls13 client in");

/* Its key, iv and hp: v1's labels (RFC 9001 5.1, 5.4), v2's (RFC 9369 3.3.2). */
static const struct bloomxdp_quic_label bloomxdp_quic_labels[2][3] = {
	{ BLOOMXDP_QUIC_LABEL(16, "tls13 quic key"), BLOOMXDP_QUIC_LABEL(12, "tls13 quic iv"),
	  BLOOMXDP_QUIC_LABEL(16, "tls13 quic hp") },
	{ BLOOMXDP_QUIC_LABEL(16, "tls13 quicv2 key"), BLOOMXDP_QUIC_LABEL(12, "tls13 quicv2 iv"),
	  BLOOMXDP_QUIC_LABEL(16, "tls13 quicv2 hp") },
};

/*
 * HKDF-Expand-Label(secret, label, "", len) for len <= 32, secret's HMAC in m: one HMAC
 * of HkdfLabel and HKDF-Expand's counter 1 (RFC 5869 2.3). Its first len / 4 words into out.
 */
static __always_inline void bloomxdp_quic_expand(struct bloomxdp_sha256 *s,
						 const struct bloomxdp_hmac *m,
						 const struct bloomxdp_quic_label *label,
						 __u32 *out)
{
	__u32 j, n;

	for (j = 0; j < 8; j++)
		s->block.q[j] = 0;
	for (j = 0; j < 5; j++)
		s->block.w[j] = label->w[j];
	n = label->text_len & 31;	/* the bound the verifier sees */
	s->block.b[4 + n] = 1;
	bloomxdp_hmac_short(s, m, 5 + n);
	bloomxdp_sha256_out(s, out, label->len / 4);
}

/* The client's Initial keys of d->version from d->dcid: 0, or -1 for bad input. */
BLOOMXDP_QUIC_FN int bloomxdp_quic_derive(struct bloomxdp_quic_derive *d)
{
	const struct bloomxdp_quic_label *labels;
	__u32 version, len, i;
	int v2;

	if (!d)
		return -1;
	version = d->version;
	len = d->dcid_len;
	if (bloomxdp_quic_initial_type(version) < 0 || len > BLOOMXDP_QUIC_CID_MAX)
		return -1;
	v2 = version == BLOOMXDP_QUIC_V2;
	if (d->salt_version != version) {
		bloomxdp_hmac_key(&d->sha, &d->salt, bloomxdp_quic_salt[v2 & 1].w, 5);
		d->salt_version = version;
	}
	/* initial_secret = HKDF-Extract(initial_salt, DCID) */
	for (i = 0; i < 8; i++)
		d->sha.block.q[i] = 0;
	for (i = 0; i < BLOOMXDP_QUIC_CID_MAX; i++)
		if (i < len)
			d->sha.block.b[i] = d->dcid[i];
	bloomxdp_hmac_short(&d->sha, &d->salt, len);
	bloomxdp_sha256_out(&d->sha, d->initial_secret.w, 8);
	/* client_initial_secret = HKDF-Expand-Label(initial_secret, "client in", "", 32) */
	bloomxdp_hmac_key(&d->sha, &d->mac, d->initial_secret.w, 8);
	bloomxdp_quic_expand(&d->sha, &d->mac, &bloomxdp_quic_client_in, d->client_secret.w);
	bloomxdp_hmac_key(&d->sha, &d->mac, d->client_secret.w, 8);
	labels = bloomxdp_quic_labels[v2 & 1];
	bloomxdp_quic_expand(&d->sha, &d->mac, &labels[0], d->keys.key.w);
	d->keys.iv.w[3] = 0;		/* 12 bytes of IV */
	bloomxdp_quic_expand(&d->sha, &d->mac, &labels[1], d->keys.iv.w);
	bloomxdp_quic_expand(&d->sha, &d->mac, &labels[2], d->keys.hp.w);
	return 0;
}

#endif /* BLOOMXDP_QUIC_H */
