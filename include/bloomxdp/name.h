/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hashing of domain names and URL paths, shared by the XDP program and the CLI.
 *
 * A name is a sequence of labels; suffix hashes are folded from the right,
 * one SipHash-1-3 per label:
 *
 *   S_0 = BLOOMXDP_NAME_SEED
 *   S_j = SipHash-1-3(S_{j-1} as 8 little-endian bytes || label j from the right)
 *
 * the label's bytes ASCII lower-cased and taken 8 at a time. The message is
 * 8 + (1..63) bytes, and SipHash's last word carries its length: the encoding
 * is injective, so S_j stays a PRF of the suffix under the secret key. The
 * suffixes "example", "evil.example", "a.evil.example" of "a.evil.example" are
 * S_1, S_2, S_3. A
 * listed domain inserts its own S; a packet's name probes every S_j: listing
 * evil.example blocks it and every name under it, at label boundaries only.
 *
 * A URL entry host/path inserts two keys: a marker for the host, and the pair
 * (host, path). A request probes the path prefixes only for a host suffix
 * whose marker is present, so URL entries cost nothing on other hosts.
 *
 * Both sides hash from a byte buffer of BLOOMXDP_NAME_BUF + BLOOMXDP_NAME_PAD
 * bytes, read as little-endian words at masked offsets: what the verifier
 * needs, and what makes user space compute the very same values.
 */
#ifndef BLOOMXDP_NAME_H
#define BLOOMXDP_NAME_H

#include "hash.h"

#define BLOOMXDP_NAME_MAX	255	/* bytes of a name, wire or text form */
#define BLOOMXDP_LABEL_MAX	63
#define BLOOMXDP_MAX_LABELS	16	/* labels examined, the rightmost ones */
#define BLOOMXDP_NAME_BUF	256	/* a power of two: offsets are masked with it */
#define BLOOMXDP_NAME_PAD	8	/* a word read may run 7 bytes past the end */
#define BLOOMXDP_PATH_MAX	255	/* bytes of a URL path examined */
#define BLOOMXDP_MAX_PATH_PREFIXES 9	/* "", "/a", ..., "/a/.../h": 8 segments */

/* Domain-separation words: the first word of each kind of name key. */
#define BLOOMXDP_NAME_SEED	0x454d414e7870626cULL	/* "lbpxNAME" */
#define BLOOMXDP_URL_HOST_TAG	0x54534f487870626cULL	/* "lbpxHOST" */
#define BLOOMXDP_URL_PATH_TAG	0x485441507870626cULL	/* "lbpxPATH" */

static __always_inline __u64 bloomxdp_buf_word(const __u8 *buf, __u32 off)
{
	__u64 w;

	__builtin_memcpy(&w, buf + (off & (BLOOMXDP_NAME_BUF - 1)), sizeof(w));
	return w;
}

/* ASCII 'A'..'Z' to lower case in all eight bytes at once; other bytes unchanged. */
static __always_inline __u64 bloomxdp_ascii_lower(__u64 w)
{
	__u64 low7 = w & 0x7f7f7f7f7f7f7f7fULL;
	__u64 ge_a = low7 + 0x3f3f3f3f3f3f3f3fULL;	/* bit 7 set where byte >= 'A' */
	__u64 gt_z = low7 + 0x2525252525252525ULL;	/* bit 7 set where byte > 'Z' */
	__u64 upper = ge_a & ~gt_z & ~w & 0x8080808080808080ULL;

	return w | upper >> 2;
}

/*
 * Feeds the whole words of buf[off, off + len) to s and returns the last 0..7
 * bytes as SipHash's final word; lower: fold ASCII case. max_words bounds the
 * loop for the verifier: len must be below max_words * 8.
 */
static __always_inline __u64 bloomxdp_sip_bytes(struct bloomxdp_sip *s, const __u8 *buf,
						__u32 off, __u32 len, int lower, __u32 max_words)
{
	__u32 i, rem;
	__u64 w;

	for (i = 0; i < max_words; i++) {
		if (i * 8 + 8 > len)
			break;
		w = bloomxdp_buf_word(buf, off + i * 8);
		bloomxdp_sip_word(s, lower ? bloomxdp_ascii_lower(w) : w);
	}
	rem = len - i * 8;
	w = 0;
	if (rem) {
		w = bloomxdp_buf_word(buf, off + i * 8) & ((1ULL << (rem * 8)) - 1);
		if (lower)
			w = bloomxdp_ascii_lower(w);
	}
	return w;
}

/* SipHash-1-3 of buf[off, off + len); lower: fold ASCII case; len below max_words * 8. */
static __always_inline __u64 bloomxdp_hash_bytes_bounded(const __u64 hash_key[2], const __u8 *buf,
							 __u32 off, __u32 len, int lower,
							 __u32 max_words)
{
	struct bloomxdp_sip s;
	__u64 last;

	bloomxdp_sip_init(&s, hash_key);
	last = bloomxdp_sip_bytes(&s, buf, off, len, lower, max_words);
	return bloomxdp_sip_finish(&s, last, len);
}

/* Any string of the buffer, len <= BLOOMXDP_NAME_MAX. */
static __always_inline __u64 bloomxdp_hash_bytes(const __u64 hash_key[2], const __u8 *buf,
						 __u32 off, __u32 len, int lower)
{
	return bloomxdp_hash_bytes_bounded(hash_key, buf, off, len, lower, BLOOMXDP_NAME_BUF / 8);
}

/* A URL path prefix buf[0, len), case kept. */
static __always_inline __u64 bloomxdp_hash_path(const __u64 hash_key[2], const __u8 *buf,
						__u32 len)
{
	return bloomxdp_hash_bytes(hash_key, buf, 0, len, 0);
}

/*
 * S_j from S_{j-1} (suffix) and the label buf[off, off + len) to its left,
 * len <= BLOOMXDP_LABEL_MAX (so at most 8 words): one SipHash-1-3.
 */
static __always_inline __u64 bloomxdp_name_fold(const __u64 hash_key[2], __u64 suffix,
						const __u8 *buf, __u32 off, __u32 len)
{
	struct bloomxdp_sip s;
	__u64 last;

	bloomxdp_sip_init(&s, hash_key);
	bloomxdp_sip_word(&s, suffix);
	last = bloomxdp_sip_bytes(&s, buf, off, len, 1, BLOOMXDP_LABEL_MAX / 8 + 1);
	return bloomxdp_sip_finish(&s, last, 8 + len);
}

/* The marker of a host suffix that has URL entries. */
static __always_inline __u64 bloomxdp_url_host_key(const __u64 hash_key[2], __u64 suffix)
{
	__u64 w[3] = { BLOOMXDP_URL_HOST_TAG, suffix, 0 };

	return bloomxdp_siphash13_words(hash_key, w, 3);
}

/* The key of a URL: host suffix hash and path prefix hash. */
static __always_inline __u64 bloomxdp_url_key(const __u64 hash_key[2], __u64 suffix,
					      __u64 path_hash)
{
	__u64 w[3] = { BLOOMXDP_URL_PATH_TAG, suffix, path_hash };

	return bloomxdp_siphash13_words(hash_key, w, 3);
}

/*
 * The labels of a name found in a buffer, rightmost BLOOMXDP_MAX_LABELS kept:
 * label i (0 = leftmost) sits at off[i % MAX], len[i % MAX], for i < count.
 */
struct bloomxdp_labels {
	__u8 off[BLOOMXDP_MAX_LABELS];
	__u8 len[BLOOMXDP_MAX_LABELS];
	__u32 count;
};

static __always_inline void bloomxdp_labels_push(struct bloomxdp_labels *l, __u32 off, __u32 len)
{
	__u32 slot = l->count % BLOOMXDP_MAX_LABELS;

	l->off[slot] = off;
	l->len[slot] = len;
	l->count++;
}

/* Labels from the right that are examined: all of them, up to BLOOMXDP_MAX_LABELS. */
static __always_inline __u32 bloomxdp_labels_examined(const struct bloomxdp_labels *l)
{
	return l->count < BLOOMXDP_MAX_LABELS ? l->count : BLOOMXDP_MAX_LABELS;
}

/* Label j counted from the right (j = 0 is the top-level label). */
static __always_inline __u32 bloomxdp_label_slot(const struct bloomxdp_labels *l, __u32 j)
{
	return (l->count - 1 - j) % BLOOMXDP_MAX_LABELS;
}

/*
 * S_{j+1} from S_j: suffix folded with label j counted from the right, of a
 * name whose labels were found in buf. The mask keeps the index in bounds
 * for the verifier.
 */
static __always_inline __u64 bloomxdp_suffix_fold(const __u64 hash_key[2], const __u8 *buf,
						  const struct bloomxdp_labels *l, __u32 j,
						  __u64 suffix)
{
	__u32 slot = bloomxdp_label_slot(l, j) & (BLOOMXDP_MAX_LABELS - 1);

	return bloomxdp_name_fold(hash_key, suffix, buf, l->off[slot], l->len[slot]);
}

/*
 * Public suffixes. A Bloom hit at a public suffix (co.uk, github.io) or a
 * top-level domain would block every name registered under it, so such a hit
 * drops nothing on the Bloom filter's word alone: it stands only when the
 * list holds that very key. The suffixes map (BLOOMXDP_PIN_SUFFIXES, a HASH
 * of name keys S to these flags) holds the rules of the Public Suffix List,
 * written at attach, and, per generation slot, the keys the list holds at a
 * public depth (entries loaded with --allow-public-suffix, single labels, URLs
 * on such a host): a load sets its new slot's bits before it swaps, so the
 * flags change with the generation. Looked up only after a Bloom hit.
 */
#define BLOOMXDP_SUFFIX_PUBLIC		(1U << 0)	/* a rule: this name is a public suffix */
#define BLOOMXDP_SUFFIX_WILDCARD	(1U << 1)	/* a rule *.this: its children are */
#define BLOOMXDP_SUFFIX_EXCEPTION	(1U << 2)	/* a rule !this: not one, wildcard or not */
#define BLOOMXDP_SUFFIX_RULES		0xfU
#define BLOOMXDP_SUFFIX_LISTED(slot)	(1U << (4 + ((slot) & 1)))	/* held by generation slot */
#define BLOOMXDP_SUFFIX_MAX_LABELS	6	/* deeper hosts are never public suffixes */
#define BLOOMXDP_SUFFIX_MAX_KEYS	65536	/* rules (~9,700 today) and listed keys */

/*
 * Whether host suffix j (j + 1 labels) is public: self and parent are the
 * flags of S_{j+1} and S_j (0 when absent). A single label always is.
 */
static __always_inline int bloomxdp_suffix_public(__u32 j, __u32 self, __u32 parent)
{
	if (!j)
		return 1;
	if (self & BLOOMXDP_SUFFIX_EXCEPTION)
		return 0;
	return (self & BLOOMXDP_SUFFIX_PUBLIC) || (parent & BLOOMXDP_SUFFIX_WILDCARD);
}

#endif /* BLOOMXDP_NAME_H */
