/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The verdict on one address, whatever hook asks: Bloom probes at each prefix
 * length, the exact intervals, the exact copy (--verify), the allowlist. The
 * packet programs (bloomxdp.bpf.c, XDP and tc) and the socket hooks
 * (connect.bpf.c) include it; addr_lookup() is a global function in each.
 */
#ifndef BLOOMXDP_ADDR_H
#define BLOOMXDP_ADDR_H

#include <linux/in6.h>
#include <bpf/bpf_endian.h>
#include "loop.h"
#include "maps.h"
#include "filter.h"
#include "query.h"
/* m: bits of the live generation's array (its header word BLOOMXDP_HDR_BITS). */
static __always_inline int filter_has(void *bits, __u32 m, const struct bloomxdp_key *key)
{
	/* Read through the volatile config: a cast would let clang fold the key to zero. */
	__u64 hash = bloomxdp_addr_hash(config.addr_key, key);

	return bloomxdp_filter_test(bits, config.layout, m, config.hashes, hash);
}

/* What the live filter holds: its header words, read once per packet. */
struct filter_view {
	void *bits;
	__u32 filter_bits;	/* m of the live filter: each generation is sized for its list */
	struct generations gen;
	__u64 kinds;		/* BLOOMXDP_HAS_* */
	__u64 v4_lengths;	/* prefix lengths probed, one per byte, longest first */
	__u64 v6_lengths;
};

static __always_inline __u64 filter_header_word(void *bits, __u32 word)
{
	__u64 *value = bloomxdp_filter_word(bits, word);

	return value ? *value : 0;
}

/* The prefix lengths word of a list of IPv4 hosts only: one probe, at /32. */
#define V4_HOSTS_ONLY (BLOOMXDP_NO_LENGTHS << 8 | 32)

/* One address probed at each prefix length the list holds, longest first. */
struct addr_probe {
	void *bits;
	__u64 lengths;		/* one per byte, BLOOMXDP_NO_LENGTH after the last */
	__u32 addr[4];		/* network order: 4 bytes for IPv4, 16 for IPv6 */
	__u32 filter_bits;	/* m */
	__u16 ipv6;
	__u16 hit;		/* 0, or the matched length + 1 */
};	/* 40 bytes: at 48, --match src cost the verifier 17% more (test_verifier_cost) */

/*
 * A bpf_loop callback: the verifier checks it once, where an inline loop
 * over up to 8 lengths of k probes each was walked path by path.
 */
static __always_inline long addr_probe_at(struct addr_probe *p, __u32 i)
{
	struct bloomxdp_key key;
	__u32 len = (p->lengths >> (8 * (i & 7))) & 0xff;

	if (len == BLOOMXDP_NO_LENGTH)
		return 1;
	if (p->ipv6)
		bloomxdp_key_ipv6(&key, p->addr, len);
	else
		bloomxdp_key_ipv4(&key, p->addr, len);
	if (!filter_has(p->bits, p->filter_bits, &key))
		return 0;
	p->hit = len + 1;
	return 1;
}

static long addr_probe_step(__u32 i, void *data)
{
	return addr_probe_at(data, i);
}

/*
 * Returns 0, or the matched prefix length + 1. A family the list does not
 * hold is not looked up at all.
 */
static __always_inline int ipv4_listed(const struct filter_view *fv, const __be32 *addr)
{
	struct addr_probe p = { .bits = fv->bits, .lengths = fv->v4_lengths,
				.filter_bits = fv->filter_bits };

	if (!(fv->kinds & BLOOMXDP_HAS_IPV4))
		return 0;
	p.addr[0] = *addr;
	/*
	 * A list of hosts only: one probe, inline, without the cost of a bpf_loop
	 * call. The step's result only stops a loop: the answer is p.hit.
	 */
	if (fv->v4_lengths == V4_HOSTS_ONLY) {
		(void)addr_probe_at(&p, 0);
		return p.hit;
	}
	bpf_loop_bounded(BLOOMXDP_MAX_PREFIX_LENGTHS, addr_probe_step, &p);
	return p.hit;
}

static __always_inline int ipv6_listed(const struct filter_view *fv, const struct in6_addr *addr)
{
	struct addr_probe p = { .bits = fv->bits, .lengths = fv->v6_lengths, .ipv6 = 1,
				.filter_bits = fv->filter_bits };

	/* No ::ffff:a.b.c.d here: v6_or_mapped_blocked() sent it to IPv4. */
	if (!(fv->kinds & BLOOMXDP_HAS_IPV6))
		return 0;
	__builtin_memcpy(p.addr, addr, sizeof(p.addr));
	if (fv->v6_lengths == (BLOOMXDP_NO_LENGTHS << 8 | 128)) {
		(void)addr_probe_at(&p, 0);	/* as for IPv4 */
		return p.hit;
	}
	bpf_loop_bounded(BLOOMXDP_MAX_PREFIX_LENGTHS, addr_probe_step, &p);
	return p.hit;
}

/* The map the probes read: the bit array, or the kernel's Bloom filter. */
static __always_inline void *probe_map(__u32 slot)
{
	if (config.layout == BLOOMXDP_LAYOUT_KERNEL)
		return bpf_map_lookup_elem(&kfilter, &slot);
	return bpf_map_lookup_elem(&filter, &slot);
}

/*
 * m of the filter a probe reads: each generation is sized for its list, and
 * says so in its header. Layout "kernel"'s map knows its own size.
 */
static __always_inline __u32 probe_bits(void *map)
{
	if (config.layout == BLOOMXDP_LAYOUT_KERNEL)
		return 0;
	return filter_header_word(map, BLOOMXDP_HDR_BITS);
}

/*
 * The allowlist (LPM trie of generation slot) holding the address or a prefix
 * of it. One branch on the family, the map chosen inside it: the 6.1 verifier
 * learns nothing from "ipv6 != 0", so a map picked by one test of ipv6 and a
 * key by another would pair the IPv6 trie with the IPv4 key on a path it walks.
 */
static __always_inline int addr_allowed(__u32 slot, int ipv6, const void *addr)
{
	void *trie;

	if (ipv6) {
		struct bloomxdp_lpm_v6 k6 = { .prefixlen = 128 };

		trie = bpf_map_lookup_elem(&allow_v6, &slot);
		if (!trie)
			return 0;
		__builtin_memcpy(k6.addr, addr, sizeof(k6.addr));
		return bpf_map_lookup_elem(trie, &k6) != NULL;
	} else {
		struct bloomxdp_lpm_v4 k4 = { .prefixlen = 32 };

		trie = bpf_map_lookup_elem(&allow_v4, &slot);
		if (!trie)
			return 0;
		__builtin_memcpy(k4.addr, addr, sizeof(k4.addr));
		return bpf_map_lookup_elem(trie, &k4) != NULL;
	}
}

/* addr_verdict()'s len1 of an interval hit: beyond any length + 1. */
#define RANGE_HIT 0x100
/* A malformed array of intervals (a bad header, an element past its end): passed, counted. */
#define RANGE_BAD 0x200

/*
 * The exact intervals of a family (BLOOMXDP_RANGES_WORD): a descent of the
 * B+tree of common.h, one line a level, the keys <= the address counted by
 * straight-line code: a - key borrows when key > a, no branch, so the
 * verifier walks one path a level. The loop over levels is bounded by
 * BLOOMXDP_RANGE_LEVELS_V4 (_V6); no callback, one lookup a level.
 */

/* 1 when y > x: the borrow of x - y, of 64-bit x and y, less the borrow b in. */
static __always_inline __u64 range_borrow(__u64 x, __u64 y, __u64 b)
{
	return ((~x & y) | (~(x ^ y) & (x - y - b))) >> 63;
}

/*
 * 1 when key > a, of a zero-extended 32-bit a and key: the borrow of a - key.
 * The empty asm hides that it is a comparison, which clang would turn into a
 * branch (one the CPU mispredicts on half the addresses, and the verifier
 * walks both ways of).
 */
static __always_inline __u64 range_gt4(__u64 a, __u32 key)
{
	__u64 d = a - key;

	asm volatile("" : "+r"(d));
	return d >> 63;
}

/* 1 when key > a, 128-bit: the borrow of a - key. */
static __always_inline __u64 range_gt6(__u64 a_hi, __u64 a_lo, __u64 k_hi, __u64 k_lo)
{
	return range_borrow(a_hi, k_hi, range_borrow(a_lo, k_lo, 0));
}

/*
 * The line of level l + 1 under inner node line of level l, whose keys <= the
 * address are c of them: clamped into that level (all-ones keys of children
 * that do not exist count for the address all ones; the last child is its).
 */
static __always_inline __u32 range_child(const struct bloomxdp_ranges_hdr *h, __u32 l,
					 __u32 line, __u32 c, __u32 fanout)
{
	__u32 next = h->level_at[l + 1] + (line - h->level_at[l]) * fanout + c;
	__u32 end = h->level_at[l + 2];

	return next < end ? next : end - 1;
}

/* RANGE_HIT when an interval of map (IPv4) holds a, host order. */
static __always_inline int range_search_v4(void *map, __u64 a)
{
	const union bloomxdp_range_line_v4 *h, *line;
	__u32 key = 0, l, levels, gt, q, hit = 0;
	int i;

	h = bpf_map_lookup_elem(map, &key);
	if (!h)
		return RANGE_BAD;
	levels = h->hdr.levels;
	if (!h->hdr.n)
		return 0;
	if (levels > BLOOMXDP_RANGE_LEVELS_V4)
		return RANGE_BAD;
	key = h->hdr.level_at[0];
	for (l = 0; l < BLOOMXDP_RANGE_LEVELS_V4; l++) {
		if (l >= levels)
			continue;
		line = bpf_map_lookup_elem(map, &key);
		if (!line)
			return RANGE_BAD;
		/*
		 * In two stages: q, the quarters whose last key <= a (of the first
		 * three), then the keys <= a of quarter q: 7 compares, not 16.
		 */
		q = 3 - (range_gt4(a, line->key[3]) + range_gt4(a, line->key[7]) +
			 range_gt4(a, line->key[11]));
		asm volatile("" : "+r"(q));	/* the mask kept: the verifier's bound */
		q &= 3;
		gt = 0;
#pragma clang loop unroll(full)
		for (i = 0; i < 4; i++)
			gt += range_gt4(a, line->key[q * 4 + i]);
		key = range_child(&h->hdr, l, key, q * 4 + 4 - gt, BLOOMXDP_RANGE_KEYS_V4 + 1);
	}
	line = bpf_map_lookup_elem(map, &key);
	if (!line)
		return RANGE_BAD;
	/* Disjoint: one interval at most holds a (or the last one's copies, padding the line). */
	for (i = 0; i < BLOOMXDP_RANGE_PAIRS_V4; i++)
		hit |= ~(((a - line->leaf[i].start) | ((__u64)line->leaf[i].end - a)) >> 63) & 1;
	return hit ? RANGE_HIT : 0;
}

static __always_inline int range_search_v6(void *map, __u64 hi, __u64 lo)
{
	const union bloomxdp_range_line_v6 *h, *line;
	__u32 key = 0, l, levels, gt, q, hit = 0;
	int i;

	h = bpf_map_lookup_elem(map, &key);
	if (!h)
		return RANGE_BAD;
	levels = h->hdr.levels;
	if (!h->hdr.n)
		return 0;
	if (levels > BLOOMXDP_RANGE_LEVELS_V6)
		return RANGE_BAD;
	key = h->hdr.level_at[0];
	for (l = 0; l < BLOOMXDP_RANGE_LEVELS_V6; l++) {
		if (l >= levels)
			continue;
		line = bpf_map_lookup_elem(map, &key);
		if (!line)
			return RANGE_BAD;
		/* Two stages: the half whose keys to count (key 3 <= a: the second), 5 compares. */
		q = (1 - range_gt6(hi, lo, line->key[3].hi, line->key[3].lo)) & 1;
		gt = 0;
#pragma clang loop unroll(disable)
		for (i = 0; i < 4; i++)
			gt += range_gt6(hi, lo, line->key[q * 4 + i].hi, line->key[q * 4 + i].lo);
		key = range_child(&h->hdr, l, key, q * 4 + 4 - gt, BLOOMXDP_RANGE_KEYS_V6 + 1);
	}
	line = bpf_map_lookup_elem(map, &key);
	if (!line)
		return RANGE_BAD;
	for (i = 0; i < BLOOMXDP_RANGE_PAIRS_V6; i++) {
		const struct bloomxdp_range_v6 *r = &line->leaf[i];

		hit |= ~(range_gt6(hi, lo, r->start_hi, r->start_lo) |
			 range_gt6(r->end_hi, r->end_lo, hi, lo)) & 1;
	}
	return hit ? RANGE_HIT : 0;
}

/*
 * RANGE_HIT when an interval of generation slot holds the address, else 0
 * (RANGE_BAD: a malformed array): in the blocklist's intervals
 * (ranges_v4/v6) or the exact stage's (verify_ranges_v4/v6), outer4 and outer6.
 */
static __always_inline int range_listed_in(void *outer4, void *outer6, __u32 slot, int ipv6,
					   const __u32 *addr)
{
	void *map;

	if (ipv6) {
		map = bpf_map_lookup_elem(outer6, &slot);
		if (!map)
			return 0;
		return range_search_v6(map, (__u64)bpf_ntohl(addr[0]) << 32 | bpf_ntohl(addr[1]),
				       (__u64)bpf_ntohl(addr[2]) << 32 | bpf_ntohl(addr[3]));
	}
	map = bpf_map_lookup_elem(outer4, &slot);
	if (!map)
		return 0;
	return range_search_v4(map, bpf_ntohl(addr[0]));
}

#define range_listed(slot, ipv6, addr) range_listed_in(&ranges_v4, &ranges_v6, slot, ipv6, addr)

/*
 * 1 when x == 0, of a zero-extended 32-bit x: the borrow of x - 1, hidden
 * from clang as range_gt4()'s, so that a bucket's compares are no branches.
 */
static __always_inline __u64 table_zero(__u64 x)
{
	__u64 d = x - 1;

	asm volatile("" : "+r"(d));
	return d >> 63;
}

/*
 * The exact stage's table of a family (common.h) in generation slot: 1 when
 * it holds the host, 0 when not, -1 when there is none (or it is malformed):
 * the hash map then. One bucket read, its keys compared without a branch.
 */
static __always_inline int table_has(__u32 slot, int ipv6, const __u32 *addr)
{
	const struct bloomxdp_table_hdr *h;
	__u32 key = 0, i, hit = 0;
	void *table;

	if (ipv6) {
		const union bloomxdp_table_line_v6 *b;

		table = bpf_map_lookup_elem(&verify_table_v6, &slot);
		if (!table)
			return -1;
		h = bpf_map_lookup_elem(table, &key);
		if (!h || h->check != bloomxdp_table_check(config.addr_key))
			return -1;
		key = 1 + (bloomxdp_table_hash6(config.addr_key, addr) & h->mask);
		b = bpf_map_lookup_elem(table, &key);
		if (!b)
			return -1;
#pragma clang loop unroll(full)
		for (i = 0; i < BLOOMXDP_TABLE_KEYS_V6; i++)
			hit |= table_zero((b->key[i][0] ^ addr[0]) | (b->key[i][1] ^ addr[1]) |
					  (b->key[i][2] ^ addr[2]) | (b->key[i][3] ^ addr[3]));
		/* ::, an empty slot, is in no table. */
		return hit & !table_zero(addr[0] | addr[1] | addr[2] | addr[3]);
	} else {
		const union bloomxdp_table_line_v4 *b;

		table = bpf_map_lookup_elem(&verify_table_v4, &slot);
		if (!table)
			return -1;
		h = bpf_map_lookup_elem(table, &key);
		if (!h || h->check != bloomxdp_table_check(config.addr_key))
			return -1;
		key = 1 + (bloomxdp_table_hash4(config.addr_key, addr[0]) & h->mask);
		b = bpf_map_lookup_elem(table, &key);
		if (!b)
			return -1;
#pragma clang loop unroll(full)
		for (i = 0; i < BLOOMXDP_TABLE_KEYS_V4; i++)
			hit |= table_zero(b->key[i] ^ addr[0]);
		return hit & !table_zero(addr[0]);
	}
}

/*
 * The exact stage of generation slot (--verify) after a Bloom hit: -1 when
 * the generation has no exact copy (its load made none), 0 when the address
 * is not listed, else the host's length + 1, or RANGE_HIT for a listed prefix
 * holding it (RANGE_BAD: its intervals are malformed). One hash lookup for a listed host; the exact
 * intervals of the prefixes only after it missed. Never an LPM trie.
 */
static __always_inline int addr_verified(__u32 slot, int ipv6, const __u32 *addr)
{
	void *hosts;
	int in_table = table_has(slot, ipv6, addr);

	/* A table holds the hosts of a small list: the hash map only without one. */
	if (in_table > 0)
		return (ipv6 ? 128 : 32) + 1;
	if (!in_table)
		goto prefixes;
	if (ipv6) {
		__u32 k6[4];

		hosts = bpf_map_lookup_elem(&verify_v6, &slot);
		if (!hosts)
			return -1;
		__builtin_memcpy(k6, addr, sizeof(k6));
		if (bpf_map_lookup_elem(hosts, k6))
			return 128 + 1;
	} else {
		__u32 k4 = addr[0];

		hosts = bpf_map_lookup_elem(&verify_v4, &slot);
		if (!hosts)
			return -1;
		if (bpf_map_lookup_elem(hosts, &k4))
			return 32 + 1;
	}
prefixes:
	return range_listed_in(&verify_ranges_v4, &verify_ranges_v6, slot, ipv6, addr);
}

/*
 * After a Bloom hit at length len1 - 1: confirmed by the exact copy with
 * --verify, then let through if allowlisted. 1 when the packet is blocked.
 */
static __always_inline int addr_verdict(const struct filter_view *fv,
					struct bloomxdp_counters *cnt, int len1, int ipv6,
					const __u32 *addr, struct match_info *mi, __u32 field)
{
	__u32 allow;
	int exact;

	if (!len1)
		return 0;
	if (len1 == RANGE_BAD) {
		cnt->bad_ranges++;
		return 0;
	}
	/* An interval hit is exact: neither a Bloom hit nor anything to confirm. */
	if (len1 == RANGE_HIT) {
		cnt->range_hits++;
		goto range;
	}
	cnt->bloom_hits++;
	if (config.verify != BLOOMXDP_VERIFY_OFF) {
		/* The generation's exact copy, if its load made one. */
		exact = addr_verified(fv->gen.block_slot, ipv6, addr);
		if (exact == RANGE_BAD) {
			cnt->bad_ranges++;
			return 0;
		}
		if (!exact) {
			cnt->false_positives++;
			return 0;
		}
		if (exact > 0)
			cnt->confirmed++;
		/*
		 * A listed prefix holds it: the event keeps the Bloom hit's length
		 * (as without the exact stage), or names an interval when that hit
		 * was at the host's length (the host itself is not listed).
		 */
		if (exact == RANGE_HIT && len1 - 1 == (ipv6 ? 128 : 32))
			goto range;
		if (exact > 0 && exact != RANGE_HIT)
			len1 = exact;
	}
	mi->key_len = len1 - 1;
	mi->key_kind = len1 - 1 < (ipv6 ? 128 : 32) ? BLOOMXDP_EVKEY_PREFIX :
						     BLOOMXDP_EVKEY_ADDRESS;
	goto allow;
range:
	mi->key_kind = BLOOMXDP_EVKEY_RANGE;
	mi->key_len = 0;
allow:
	allow = active_word(BLOOMXDP_ACTIVE_ALLOW);
	if ((allow & (ipv6 ? BLOOMXDP_ALLOW_HAS_V6 : BLOOMXDP_ALLOW_HAS_V4)) &&
	    addr_allowed(allow & (BLOOMXDP_GENERATIONS - 1), ipv6, addr)) {
		cnt->allowed++;
		return 0;
	}
	mi->field = field;
	return 1;
}

/*
 * The live filter's verdict on one address: Bloom probes at each prefix
 * length, the exact copy with --verify, the allowlist. A global function:
 * the verifier checks it once, not once per parse path (VLANs, IPv6
 * extension chains) that leads to it. Returns 1 when blocked.
 */
__attribute__((noinline)) int addr_lookup(struct addr_query *q)
{
	/* The caller checked that the list holds the family: kinds need not be read. */
	struct filter_view fv = { .kinds = BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6 };
	struct bloomxdp_counters *cnt;
	__u32 zero = 0;
	int len1;

	if (!q)
		return 0;
	fv.gen = q->gen;
	/* A hit the caller's probe found (v4_blocked()): the verdict only. */
	len1 = q->len1;
	q->len1 = 0;
	if (len1)
		goto verdict;
	if (BLOOMXDP_IS_RANGES_WORD(q->lengths)) {
		len1 = range_listed(fv.gen.block_slot, q->ipv6, q->addr);
		goto verdict;
	}
	fv.bits = probe_map(fv.gen.block_slot);
	if (!fv.bits)
		return 0;
	fv.filter_bits = q->filter_bits;
	fv.v4_lengths = fv.v6_lengths = q->lengths;
	if (q->ipv6)
		len1 = ipv6_listed(&fv, (const struct in6_addr *)q->addr);
	else
		len1 = ipv4_listed(&fv, q->addr);
verdict:
	if (!len1)
		return 0;
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!cnt)
		return 0;
	return addr_verdict(&fv, cnt, len1, q->ipv6, q->addr, &q->mi, q->field);
}

/* The live filter's header words main reads, in one lookup, as scalars. */
struct filter_header {
	__u64 v4_lengths;
	__u64 v6_lengths;
};

/*
 * q->gen and q->lengths are set by the caller (from the live filter's
 * header); kinds gates the lookup by family. One query serves src and dst:
 * the packet program's is in its per-CPU scratch (struct scratch, main_q),
 * the socket hooks' on their stack.
 * bits: the live generation's filter map the caller looked up (or NULL). A
 * list of IPv4 hosts is probed here, inline: an unlisted address (most
 * packets) costs no call of addr_lookup(), and its second lookup of the
 * outer map; a hit goes there for the verdict (q->len1).
 */
static __always_inline int v4_blocked(struct addr_query *q, void *bits, __u64 kinds,
				      const __be32 *addr, __u32 field)
{
	struct bloomxdp_key key;

	if (!(kinds & BLOOMXDP_HAS_IPV4))
		return 0;
	q->ipv6 = 0;
	q->field = field;
	q->addr[0] = *addr;
	q->len1 = 0;
	if (bits && config.layout != BLOOMXDP_LAYOUT_KERNEL && q->lengths == V4_HOSTS_ONLY) {
		bloomxdp_key_ipv4(&key, q->addr, 32);
		if (!filter_has(bits, q->filter_bits, &key))
			return 0;
		q->len1 = 32 + 1;
	}
	return addr_lookup(q);
}

static __always_inline int v6_blocked(struct addr_query *q, __u64 kinds, __u32 field)
{
	if (!(kinds & BLOOMXDP_HAS_IPV6))
		return 0;
	q->ipv6 = 1;
	q->field = field;
	return addr_lookup(q);
}

/*
 * ::ffff:a.b.c.d is the IPv4 address a.b.c.d, probed at the IPv4 lengths.
 * Told apart in the query's copy: the header's copy is of unknown alignment,
 * which clang reads a byte at a time.
 */
static __always_inline int v6_or_mapped_blocked(struct addr_query *q, void *bits, __u64 kinds,
						const struct filter_header *h,
						const struct in6_addr *addr, __u32 field)
{
	__builtin_memcpy(q->addr, addr, sizeof(q->addr));
	if (bloomxdp_ipv6_is_v4mapped(q->addr)) {
		q->lengths = h->v4_lengths;
		return v4_blocked(q, bits, kinds, &q->addr[3], field);
	}
	q->lengths = h->v6_lengths;
	return v6_blocked(q, kinds, field);
}

#endif /* BLOOMXDP_ADDR_H */
