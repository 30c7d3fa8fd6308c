/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-CPU scratch space of the name matchers: too large for the 512-byte BPF
 * stack, and indexed with masked offsets, which the verifier accepts.
 */
#ifndef BLOOMXDP_SCRATCH_H
#define BLOOMXDP_SCRATCH_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloomxdp/common.h>
#include <bloomxdp/name.h>
#include "loop.h"
#include "maps.h"	/* config */
#include "query.h"

#define PAYLOAD_MAX 2048	/* a power of two; PAYLOAD_MAX - 1 payload bytes are examined */

/*
 * A DNS name being read from a message in the payload (dns_answers.h).
 * Kept here, not on the stack: the verifier then sees each step's position
 * as any value, and its walk of the steps converges at once.
 */
struct dns_name_read {
	__u32 pos;		/* the next label or pointer */
	__u32 end;		/* the message's length */
	__u32 floor;		/* a pointer must point below this */
	__u32 next;		/* out: where the name ends in the message (past a pointer) */
	__u32 n;		/* bytes copied to name */
	__u32 pointers;
	__u32 copy;		/* 1: into name and labels */
	int done;		/* 1: the root reached; -1: malformed, cut, looping */
};

/* A DNS response's walk over its records (dns_answers.h), kept here for the same reason. */
struct answer_state {
	__u32 pos;		/* the next record */
	__u32 end;		/* the message's length */
	__u32 left;		/* records left to read */
	__u32 learn;		/* the learning list of the names so far, 0: none */
	__u32 bad;		/* 1: a record could not be read, or records were left unread */
	__u32 ttl;		/* the TTL of the record found */
	__u64 kinds;		/* the filter's header word of kinds */
	__u64 v4_lengths;	/* the filter's header words of prefix lengths */
	__u64 v6_lengths;
	__u32 action;		/* out: the action of the address that decided, 0: none */
	__u32 pad;
	struct addr_query q;	/* the address lookups' query, made in the record walk */
};

/* A name's suffixes deeper than the one that hit (match_lists.h). */
struct name_deeper {
	__u64 suffix;		/* S_j-1, then S_j */
	__u64 depths;		/* the union's BLOOMXDP_HAS_NAME_DEPTHS: bit j, j + 1 labels */
	__u32 first;		/* j of the first step: the labels of the suffix that hit */
	__u32 mask;		/* out: the lists holding a deeper suffix */
};

struct scratch {
	__u8 name[BLOOMXDP_NAME_BUF + BLOOMXDP_NAME_PAD];
	__u8 path[BLOOMXDP_NAME_BUF + BLOOMXDP_NAME_PAD];
	__u8 payload[PAYLOAD_MAX + BLOOMXDP_NAME_PAD];
	struct bloomxdp_labels labels;
	__u32 nprefixes;			/* path prefixes found, 0: no URL lookup */
	__u32 prefix_end[16];			/* BLOOMXDP_MAX_PATH_PREFIXES used; indices masked */
	__u64 prefix_hash[16];			/* their hashes, for URL keys */
	__u64 suffix[BLOOMXDP_MAX_LABELS];	/* S_1.. of the last name walked */
	__u32 name_len;				/* bytes of name the parser found */
	__u32 name_wire;			/* 1: DNS wire form, 0: dotted text */
	__u32 match_kind;			/* enum bloomxdp_event_key of the last hit */
	__u32 match_len;			/* labels of the suffix that hit */
	__u64 match_key;			/* the name or URL key that hit (named lists) */
	__u32 host_start;			/* HTTP: the Host header's value, in payload */
	__u32 host_end;
	__u32 walk_pos;				/* HTTP: where the header walk is */
	/* Bloom hits at public depths, decided after a walk (match_names.h). */
	__u32 suffix_cand;			/* bit j: on S_{j+1}, j < BLOOMXDP_SUFFIX_MAX_LABELS */
	__u32 suffix_refused;			/* hits refused: no listed key there */
	__u64 url_cand;				/* bit i * MAX_LABELS + j: URL pair on such a host */
	__u32 suffix_slot;			/* the live generation, for the listed bits */
	__u32 name_hits;			/* bit j: the walk's confirmed Bloom hit at S_{j+1} */
	__u32 cand_n;				/* the URL candidate that stood */
	__u32 ech;				/* the ClientHello has an ECH extension */
	__u32 quic;				/* 1: the name came from QUIC (quic_read()) */
	__u32 question_end;			/* a DNS message: its length up to the question's end */
	__u32 rr_type;				/* a DNS response: the record that hit, 0: question */
	/* An A or AAAA record's address (its event), written as two words. */
	__u8 answer[16] __attribute__((aligned(8)));
	struct bloomxdp_learn_key learn_key;	/* dns_answers.h: an address to learn */
	struct bloomxdp_learned learn_value;
	__u32 walk_bloom_hits;			/* a name's walk: Bloom hits, and those refused */
	__u32 walk_false_positives;
	__u32 learn_list;			/* list_verdict(): a DNS name's learning list */
	__u32 learn_action;
	struct name_deeper deeper;
	struct dns_name_read dn;
	struct answer_state an;
	/*
	 * The program's address query (addr_lookup(), list_verdict(), the
	 * event's match): here, not on main's stack, which 6.1 counts with the
	 * deepest chain of calls against 512 bytes (v4_blocked()'s inline probe
	 * took main's frame from 192 to 224 bytes with it there).
	 */
	struct addr_query main_q;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

static __always_inline struct scratch *scratch_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/*
 * S_{j+1} from S_j of the name in scratch (bloomxdp_suffix_fold() with the
 * configured key); 0 without scratch. A global function, checked once: the
 * SipHash rounds of a label, inlined in each walk's callback, were walked
 * again in each of its states (a fifth of the verifier's work with names).
 */
__attribute__((noinline)) __u64 name_suffix_at(__u32 j, __u64 suffix)
{
	struct scratch *s = scratch_get();
	/* Read through the volatile: a cast would let clang fold the key to zero. */
	__u64 hash_key[2] = { config.hash_key[0], config.hash_key[1] };

	if (!s)
		return 0;
	return bloomxdp_suffix_fold(hash_key, s->name, &s->labels, j, suffix);
}

/* 8 bytes of the payload at i, little-endian; bytes past the payload's end are stale. */
static __always_inline __u64 payload_word(const struct scratch *s, __u32 i)
{
	__u64 w;

	__builtin_memcpy(&w, s->payload + (i & (PAYLOAD_MAX - 1)), sizeof(w));
	return w;
}

/* 0x80 in each byte of w equal to c, 0 in the others: exact, no carry between bytes. */
static __always_inline __u64 word_bytes_eq(__u64 w, __u8 c)
{
	__u64 x = w ^ (0x0101010101010101ULL * c), low7 = 0x7f7f7f7f7f7f7f7fULL;

	return ~(((x & low7) + low7) | x | low7);
}

/* The byte index (0..7) of the lowest byte flagged in a non-zero word_bytes_eq() mask. */
static __always_inline __u32 word_first_byte(__u64 mask)
{
	return (((mask & -mask) >> 7) * 0x0001020304050607ULL) >> 56;
}

/* Splits the dotted text in s->name into labels, 8 bytes a step. */
struct text_split {
	__u32 len;
	__u32 label_start;
	int bad;		/* an empty label, or one over BLOOMXDP_LABEL_MAX bytes */
};

static __always_inline void text_label_end(struct scratch *s, struct text_split *sp, __u32 end)
{
	__u32 len = end - sp->label_start;

	if (len == 0 || len > BLOOMXDP_LABEL_MAX)
		sp->bad = 1;
	else
		bloomxdp_labels_push(&s->labels, sp->label_start, len);
	sp->label_start = end + 1;
}

static long text_split_step(__u32 i, void *data)
{
	struct text_split *sp = data;
	struct scratch *s = scratch_get();
	__u32 base = i * 8, k;
	__u64 dots;

	if (!s || base >= sp->len)
		return 1;
	dots = word_bytes_eq(bloomxdp_buf_word(s->name, base), '.');
	if (sp->len - base < 8)
		dots &= (1ULL << ((sp->len - base) * 8)) - 1;
	for (k = 0; k < 8 && dots; k++) {
		text_label_end(s, sp, base + word_first_byte(dots));
		dots &= dots - 1;
	}
	return 0;
}

/*
 * The labels of the len bytes of dotted text already in s->name (len <=
 * BLOOMXDP_NAME_MAX), a word a step. Returns 0, or -1 for an empty label, one
 * over BLOOMXDP_LABEL_MAX bytes, or no label at all; a trailing dot is fine.
 */
static __always_inline int name_from_text(struct scratch *s, __u32 len)
{
	struct text_split sp = { .len = len };

	s->labels.count = 0;
	s->name_len = len;
	s->name_wire = 0;
	bpf_loop_bounded((BLOOMXDP_NAME_MAX + 7) / 8, text_split_step, &sp);
	if (len > sp.label_start)
		text_label_end(s, &sp, len);
	return sp.bad || s->labels.count == 0 ? -1 : 0;
}

#endif /* BLOOMXDP_SCRATCH_H */
