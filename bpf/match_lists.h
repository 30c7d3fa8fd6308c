/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Named lists (include/bloomxdp/common.h): after a hit of the union filter,
 * list_verdict() tells which lists hold the key and returns the strongest
 * action, for the struct addr_query (query.h) of the hit.
 */
#ifndef BLOOMXDP_MATCH_LISTS_H
#define BLOOMXDP_MATCH_LISTS_H

#include "filter.h"
#include "loop.h"
#include "maps.h"
#include "query.h"
#include "scratch.h"

/*
 * After a hit of the union: which named lists hold the key (their exact
 * copies), each one's hits counted, the strongest action kept. A bpf_loop
 * callback: checked once, whatever the number of lists.
 */
struct list_probe {
	__u32 addr[4];		/* network order */
	__u64 key;		/* the host's address hash (/32, /128), or the name or URL key */
	__u32 kind;		/* 0 IPv4, 1 IPv6, 2 a name or URL key */
	__u32 present;		/* BLOOMXDP_ACTIVE_LISTS */
	__u32 slots;		/* BLOOMXDP_ACTIVE_LIST_SLOTS */
	__u32 best;		/* enum bloomxdp_list_action */
	__u32 best_id;
	__u32 mask;		/* the lists whose keys hold p->key (list_keys) */
	/*
	 * A DNS name: learning lists decide nothing (BLOOMXDP_LIST_LEARN); the
	 * strongest of them holding it goes to the scratch's learn_list (not
	 * here: a field the callback changes keeps the verifier's walk of it
	 * from converging, three times the instructions).
	 */
	__u32 dns;
};

/*
 * A name's suffixes deeper than the one that hit the union: the name walk
 * stops at the shortest listed suffix, and a longer one may be in a list
 * whose action is stronger (ads.example.com to drop under example.com to
 * monitor). Each is folded on from the last and looked up in the keys map.
 * The walk's state is in the scratch (struct name_deeper), but for the
 * map: the stack of list_verdict() is short, and its walk converges.
 */
static long name_deeper_step(__u32 i, void *data)
{
	void **keys = data;
	struct scratch *s = scratch_get();
	struct name_deeper *d;
	__u32 j, *mask;

	if (!s)
		return 1;
	d = &s->deeper;
	j = (d->first + i) & (BLOOMXDP_MAX_LABELS - 1);
	if (!(d->depths >> j))
		return 1;	/* no listed name this deep or deeper */
	d->suffix = name_suffix_at(j, d->suffix);
	if (!(d->depths & (1ULL << j)))
		return 0;
	mask = bpf_map_lookup_elem(*keys, &d->suffix);
	if (mask)
		d->mask |= *mask;
	return 0;
}

/* The lists holding a suffix of the name deeper than the one that hit, s->match_len labels. */
static __always_inline __u32 name_deeper_lists(void *keys, struct scratch *s, __u32 block_slot)
{
	void *union_bits = bpf_map_lookup_elem(&filter, &block_slot);
	__u64 *hdr = union_bits ? bloomxdp_filter_line(union_bits, 0) : NULL;
	__u32 examined = bloomxdp_labels_examined(&s->labels);

	if (!hdr || s->match_len >= examined)
		return 0;
	s->deeper.suffix = s->match_key;
	s->deeper.first = s->match_len;
	s->deeper.mask = 0;
	s->deeper.depths = hdr[BLOOMXDP_HDR_KINDS] & BLOOMXDP_HAS_NAME_DEPTHS;
	bpf_loop_bounded(examined - s->match_len, name_deeper_step, &keys);
	return s->deeper.mask;
}

/* The default list's action: the attachment's --action and --dns-reply. */
static __always_inline __u32 attach_action(void)
{
	if (config.action == BLOOMXDP_ACTION_MONITOR)
		return BLOOMXDP_LIST_MONITOR;
	if (config.action == BLOOMXDP_ACTION_REJECT)
		return BLOOMXDP_LIST_REJECT;
	return config.dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? BLOOMXDP_LIST_NXDOMAIN :
								 BLOOMXDP_LIST_DROP;
}

static long list_probe_step(__u32 i, void *data)
{
	struct list_probe *p = data;
	__u32 id = (i + 1) & 31, idx, action;
	struct bloomxdp_list *desc;
	void *trie, *found;
	__u64 *hits;

	if (id >= BLOOMXDP_LIST_IDS)
		return 1;
	if (!(p->present & (1U << id)))
		return 0;
	desc = bpf_map_lookup_elem(&lists, &id);
	if (!desc)
		return 0;
	idx = BLOOMXDP_LIST_INDEX(id, (p->slots >> id) & 1);
	/* The keys' lookup was made once, before the walk; a trie only for a list's prefixes. */
	found = p->mask & (1U << id) ? (void *)p : NULL;
	if (!found && p->kind == 1 && (desc->has & BLOOMXDP_LIST_HAS_PREFIX_V6)) {
		struct bloomxdp_lpm_v6 k = { .prefixlen = 128 };

		__builtin_memcpy(k.addr, p->addr, sizeof(k.addr));
		trie = bpf_map_lookup_elem(&list_v6, &idx);
		found = trie ? bpf_map_lookup_elem(trie, &k) : NULL;
	} else if (!found && p->kind == 0 && (desc->has & BLOOMXDP_LIST_HAS_PREFIX_V4)) {
		struct bloomxdp_lpm_v4 k = { .prefixlen = 32 };

		__builtin_memcpy(k.addr, p->addr, sizeof(k.addr));
		trie = bpf_map_lookup_elem(&list_v4, &idx);
		found = trie ? bpf_map_lookup_elem(trie, &k) : NULL;
	}
	if (!found)
		return 0;
	hits = bpf_map_lookup_elem(&list_hits, &id);
	if (hits)
		(*hits)++;
	action = desc->action;
	if (action > BLOOMXDP_LIST_LAST)
		action = attach_action();	/* BLOOMXDP_LIST_AS_ATTACH */
	if (p->dns && (desc->has & BLOOMXDP_LIST_LEARN)) {
		struct scratch *s = scratch_get();

		if (s && (!s->learn_list ||
			  BLOOMXDP_LIST_RANK(action) > BLOOMXDP_LIST_RANK(s->learn_action))) {
			s->learn_list = id;
			s->learn_action = action;
		}
		return 0;
	}
	if (BLOOMXDP_LIST_RANK(action) > BLOOMXDP_LIST_RANK(p->best)) {
		p->best = action;
		p->best_id = id;
	}
	return 0;
}

/* The highest bit set in m, 1-based (0 for none): the lists a walk must reach. */
static __always_inline __u32 highest_bit(__u32 m)
{
	__u32 n = 0;

	if (m >> 16) {
		n += 16;
		m >>= 16;
	}
	if (m >> 8) {
		n += 8;
		m >>= 8;
	}
	if (m >> 4) {
		n += 4;
		m >>= 4;
	}
	if (m >> 2) {
		n += 2;
		m >>= 2;
	}
	return n + (m > 1 ? 2 : m);	/* m is 0 to 3 here */
}

/* A hit on an address learned from a learning list's answer: that list's action now. */
static __always_inline int learned_action(struct addr_query *q)
{
	__u32 id = q->mi.list, action;
	struct bloomxdp_list *desc;
	__u64 *hits;

	if (id >= BLOOMXDP_LIST_IDS || !(active_word(BLOOMXDP_ACTIVE_LISTS) & (1U << id)))
		return BLOOMXDP_LIST_PASS;	/* the list is gone */
	desc = bpf_map_lookup_elem(&lists, &id);
	if (!desc)
		return BLOOMXDP_LIST_PASS;
	hits = bpf_map_lookup_elem(&list_hits, &id);
	if (hits)
		(*hits)++;
	action = desc->action;
	return action > BLOOMXDP_LIST_LAST ? attach_action() : action;
}

/*
 * The action of a hit (enum bloomxdp_list_action), after the allowlist: with
 * named lists present, the strongest of those holding the key; else the
 * default list's (the attachment's --action and --dns-reply). Sets
 * q->mi.list, and q->learn for a DNS name a learning list holds (which that
 * list does not decide: its answers' addresses are learned). Global:
 * verified once, called once per hit, never on the path of unlisted traffic.
 */
__attribute__((noinline)) int list_verdict(struct addr_query *q)
{
	struct list_probe p = {};
	struct bloomxdp_counters *cnt;
	__u32 zero = 0, present, slot, *mask, kind;
	void *keys;
	struct scratch *s = NULL;
	__u64 *hits;

	if (!q)
		return BLOOMXDP_LIST_PASS;
	kind = q->mi.key_kind;
	/* Each only where it can happen: the verifier walks none of it elsewhere. */
	if (config.doh_canary && kind == BLOOMXDP_EVKEY_CANARY)
		return BLOOMXDP_LIST_NXDOMAIN;	/* --doh-canary: no list holds it */
	if ((config.match & BLOOMXDP_MATCH_DNS_ANSWERS) && kind == BLOOMXDP_EVKEY_LEARNED)
		return learned_action(q);
	present = active_word(BLOOMXDP_ACTIVE_LISTS);
	if (present & BLOOMXDP_LISTS_NAMED) {
		p.present = present;
		p.slots = active_word(BLOOMXDP_ACTIVE_LIST_SLOTS);
		if (kind == BLOOMXDP_EVKEY_NAME || kind == BLOOMXDP_EVKEY_URL) {
			s = scratch_get();
			if (!s)
				return BLOOMXDP_LIST_PASS;
			p.kind = 2;
			p.key = s->match_key;
			s->learn_list = 0;
			p.dns = (config.match & BLOOMXDP_MATCH_DNS_ANSWERS) &&
				(present & BLOOMXDP_LISTS_LEARNING) &&
				(q->mi.field == BLOOMXDP_FIELD_DNS ||
				 q->mi.field == BLOOMXDP_FIELD_DNS_ANSWER);
		} else {
			struct bloomxdp_key key;

			p.kind = q->ipv6 ? 1 : 0;
			__builtin_memcpy(p.addr, q->addr, sizeof(p.addr));
			/* The host's key, as a named list holds it (the hit may be a prefix's). */
			if (q->ipv6)
				bloomxdp_key_ipv6(&key, p.addr, 128);
			else
				bloomxdp_key_ipv4(&key, p.addr, 32);
			p.key = bloomxdp_addr_hash(config.addr_key, &key);
		}
		/* Step i probes id i + 1: up to the highest present id, no further. */
		slot = q->gen.block_slot;	/* a key on the stack: 6.1 takes no arg memory */
		keys = bpf_map_lookup_elem(&list_keys, &slot);
		mask = keys ? bpf_map_lookup_elem(keys, &p.key) : NULL;
		p.mask = mask ? *mask : 0;
		if (keys && s && s->match_kind == BLOOMXDP_EVKEY_NAME)
			p.mask |= name_deeper_lists(keys, s, q->gen.block_slot);
		bpf_loop_bounded(highest_bit(present & BLOOMXDP_LISTS_NAMED) - 1, list_probe_step,
				 &p);
		if (p.best) {
			q->mi.list = p.best_id;
			return p.best;
		}
		if (s && s->learn_list) {
			/* The learning list's: not the default list's. */
			q->learn = s->learn_list;
			return BLOOMXDP_LIST_PASS;
		}
		if (!(present & BLOOMXDP_LIST_DEFAULT_PRESENT)) {
			cnt = bpf_map_lookup_elem(&counters, &zero);
			if (cnt)
				cnt->unattributed++;
			return BLOOMXDP_LIST_PASS;
		}
	}
	q->mi.list = BLOOMXDP_LIST_DEFAULT_ID;
	hits = bpf_map_lookup_elem(&list_hits, &zero);
	if (hits)
		(*hits)++;
	return attach_action();
}

/*
 * An address hit's list_verdict(), without its call where no named list is
 * present (most attachments) and no address was learned (dns-answers): the
 * default list's action, counted as list_verdict() counts it.
 */
static __always_inline int addr_list_verdict(struct addr_query *q)
{
	__u32 zero = 0;
	__u64 *hits;

	if ((config.match & BLOOMXDP_MATCH_DNS_ANSWERS) ||
	    (active_word(BLOOMXDP_ACTIVE_LISTS) & BLOOMXDP_LISTS_NAMED))
		return list_verdict(q);
	q->mi.list = BLOOMXDP_LIST_DEFAULT_ID;
	hits = bpf_map_lookup_elem(&list_hits, &zero);
	if (hits)
		(*hits)++;
	return attach_action();
}

#endif /* BLOOMXDP_MATCH_LISTS_H */
