// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What an entry puts into the filter, and how a packet's fields are looked up. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "filter/entry_keys.h"
#include "filter/ranges.h"
#include "filter/exact.h"
#include "filter/packet_fpr.h"
#include "parse/prefixes.h"
#include "filter/suffix_map.h"

/* More keys than this for one prefix is a mistake of plan, not a list: refuse. */
#define BLOCKLIST_MAX_EXPANSION (1ULL << PREFIX_MAX_EXPANSION_BITS)
/* A query of a prefix stored longer checks its sub-prefixes, this many at most. */
#define QUERY_MAX_EXPANSION_BITS 16

static int name_labels(const char *name)
{
	int n = 1;

	for (; *name; name++)
		n += *name == '.';
	return n;
}

static __u32 lengths_word(__u32 family)
{
	return family == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_HDR_V4_LENGTHS : BLOOMXDP_HDR_V6_LENGTHS;
}

/* The shortest probed length >= len, or -1. */
static int target_length(const struct filter *f, __u32 family, __u32 len)
{
	__u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS];
	__u32 n = prefix_word_lengths(filter_header_word(f, lengths_word(family)), lengths);
	int target = -1;

	while (n-- > 0)
		if (lengths[n] >= len) {
			target = lengths[n];
			break;
		}
	return target;
}

struct expand_ctx {
	struct filter *filter;
	bool changed;
};

static int insert_sub(const struct bloomxdp_key *sub, void *arg)
{
	struct expand_ctx *ctx = arg;

	ctx->changed |= filter_insert(ctx->filter, sub);
	return 0;
}

/* A host or prefix: stored as the sub-prefixes of the shortest probed length >= its own. */
static int insert_addr(struct filter *f, const struct bloomxdp_key *key)
{
	struct expand_ctx ctx = { .filter = f };
	__u32 family = key_family(key), len = key_prefix_len(key);
	int target = target_length(f, family, len), ret;

	if (target < 0) {
		ret = filter_length_add(f, family, len);
		if (ret)
			return ret;
		target = len;
	}
	if (target - len >= 64 || (1ULL << (target - len)) > BLOCKLIST_MAX_EXPANSION)
		return -E2BIG;
	ret = prefix_expand(key, target, insert_sub, &ctx);
	return ret < 0 ? ret : ctx.changed;
}

int entry_keys_name(const __u64 hash_key[2], const struct entry *e, __u64 out[2],
			__u64 *kinds)
{
	__u64 prefix[BLOOMXDP_MAX_PATH_PREFIXES], host;
	int n;

	switch (e->kind) {
	case ENTRY_ADDR:
		break;
	case ENTRY_NAME:
		*kinds = BLOOMXDP_HAS_NAME_DEPTH(name_labels(e->name));
		out[0] = name_hash(hash_key, e->name);
		return 1;
	case ENTRY_URL:
		*kinds = BLOOMXDP_HAS_URLS | BLOOMXDP_HAS_URL_DEPTH(name_labels(e->name));
		host = name_hash(hash_key, e->name);
		/* The entry's own path is the last of its prefixes. */
		n = path_prefix_hashes(hash_key, e->path, strlen(e->path), prefix, NULL);
		out[0] = bloomxdp_url_host_key(hash_key, host);
		out[1] = bloomxdp_url_key(hash_key, host, prefix[n - 1]);
		return 2;
	}
	*kinds = 0;
	return 0;
}

int entry_keys_insert(struct filter *f, const struct entry *e)
{
	__u64 keys[2], kinds;
	int n, i, changed = 0;

	if (e->kind == ENTRY_ADDR)
		return insert_addr(f, &e->addr);
	n = entry_keys_name(f->hash_key, e, keys, &kinds);
	filter_header_set(f, kinds);
	for (i = 0; i < n; i++)
		changed |= filter_insert_hash(f, keys[i]);
	return changed;
}

struct remove_ctx {
	struct filter *filter;
	bool check;
	__u64 cleared;
};

static int remove_key(struct remove_ctx *ctx, __u64 hash)
{
	return filter_count_remove(ctx->filter, hash, ctx->check, &ctx->cleared);
}

static int remove_sub(const struct bloomxdp_key *sub, void *arg)
{
	struct remove_ctx *ctx = arg;

	return remove_key(ctx, filter_key_hash(ctx->filter, sub));
}

int entry_keys_remove(struct filter *f, const struct entry *e, bool check, __u64 *cleared)
{
	struct remove_ctx ctx = { .filter = f, .check = check };
	__u64 keys[2], kinds;
	int n, i, target, ret = 0;

	if (e->kind == ENTRY_ADDR) {
		/* Where insert put it: at the shortest probed length at or past its own. */
		target = target_length(f, key_family(&e->addr), key_prefix_len(&e->addr));
		if (target < 0)
			return -EUCLEAN;
		ret = prefix_expand(&e->addr, target, remove_sub, &ctx);
	} else {
		n = entry_keys_name(f->hash_key, e, keys, &kinds);
		for (i = 0; i < n && !ret; i++)
			ret = remove_key(&ctx, keys[i]);
	}
	if (cleared)
		*cleared += ctx.cleared;
	return ret < 0 ? ret : 0;
}

__u64 entry_keys_count(const struct filter *f, const struct entry *e)
{
	__u32 family, len;
	int target;

	if (e->kind == ENTRY_NAME)
		return 1;
	if (e->kind == ENTRY_URL)
		return 2;
	family = key_family(&e->addr);
	len = key_prefix_len(&e->addr);
	/* A family in exact intervals puts no key in the filter. */
	if (BLOOMXDP_IS_RANGES_WORD(filter_header_word(f, lengths_word(family))))
		return 0;
	target = target_length(f, family, len);
	/* No probed length covers it: it becomes one of its own, one key. */
	if (target < 0 || (__u32)target == len)
		return 1;
	return target - len >= 64 ? ~0ULL : 1ULL << (target - len);
}

void entry_keys_probes_after(const struct filter *f, const struct entry *entries, int n,
			    __u32 match, struct packet_probes *pp)
{
	__u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS];
	__u64 kinds = filter_header(f), more, word, keys[2];
	__u64 added[2][3] = {};	/* per family, the new lengths 0..128 as a bit set */
	__u32 probes[2], fam, len, i;
	int j;

	for (j = 0; j < n; j++) {
		if (entries[j].kind != ENTRY_ADDR) {
			if (entry_keys_name(f->hash_key, &entries[j], keys, &more) > 0)
				kinds |= more;
			continue;
		}
		fam = key_family(&entries[j].addr) == BLOOMXDP_KEY_IPV6;
		len = key_prefix_len(&entries[j].addr);
		kinds |= fam ? BLOOMXDP_HAS_IPV6 : BLOOMXDP_HAS_IPV4;
		/* No probed length covers it: it becomes one of its own (insert_addr()). */
		if (target_length(f, key_family(&entries[j].addr), len) < 0 && len <= 128)
			added[fam][len / 64] |= 1ULL << (len % 64);
	}
	for (fam = 0; fam < 2; fam++) {
		word = filter_header_word(f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
						   BLOOMXDP_HDR_V4_LENGTHS);
		probes[fam] = prefix_word_lengths(word, lengths);
		if (BLOOMXDP_IS_RANGES_WORD(word))
			continue;
		for (i = 0; i < 3; i++)
			probes[fam] += __builtin_popcountll(added[fam][i]);
		if (probes[fam] > BLOOMXDP_MAX_PREFIX_LENGTHS)
			probes[fam] = BLOOMXDP_MAX_PREFIX_LENGTHS;
	}
	packet_probes_set(pp, match, kinds, probes[0], probes[1]);
}

struct cover_ctx {
	const struct filter *filter;
	bool all;
};

static int test_sub(const struct bloomxdp_key *sub, void *arg)
{
	struct cover_ctx *ctx = arg;

	ctx->all &= filter_test(ctx->filter, sub);
	return ctx->all ? 0 : -1;
}

/*
 * As the XDP program: the address at each probed length, longest first. A
 * queried prefix (shorter than a host) is blocked when it lies in a listed
 * prefix, or when every sub-prefix at a longer probed length is listed.
 */
static bool lookup_addr(const struct filter *f, const struct bloomxdp_key *key, char *why,
			size_t len)
{
	__u32 family = key_family(key), plen = key_prefix_len(key), n, i;
	__u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS];
	struct cover_ctx cover = { .filter = f };
	struct bloomxdp_key probe;
	char text[64];

	n = prefix_word_lengths(filter_header_word(f, lengths_word(family)), lengths);
	for (i = 0; i < n; i++) {
		if (lengths[i] > plen) {
			if (lengths[i] - plen > QUERY_MAX_EXPANSION_BITS)
				continue;
			cover.all = true;
			if (prefix_expand(key, lengths[i], test_sub, &cover) == 0 && cover.all) {
				snprintf(why, len, "%s", prefix_text(key, text, sizeof(text)));
				return true;
			}
			continue;
		}
		if (family == BLOOMXDP_KEY_IPV4)
			bloomxdp_key_ipv4(&probe, (const __u8 *)&key->word[0] + 4, lengths[i]);
		else
			bloomxdp_key_ipv6(&probe, &key->word[1], lengths[i]);
		if (filter_test(f, &probe)) {
			if (lengths[i] < key_width(key))
				snprintf(why, len, "%s", prefix_text(&probe, text, sizeof(text)));
			return true;
		}
	}
	return false;
}

/* The rightmost j + 1 labels of name: suffix j (0-based), counted from the right. */
static const char *suffix_text(const char *name, int j)
{
	const char *p = name + strlen(name);

	/* From the right: the name may hold more labels than the 16 examined. */
	while (p > name && (p[-1] != '.' || j-- > 0))
		p--;
	return p;
}

/*
 * As the XDP program: a Bloom hit on key at host suffix j stands when that
 * suffix is no public one, or the generation holds key exactly.
 */
static bool suffix_hit_stands(const struct filter *f, const __u64 *suffix, int j, __u64 key)
{
	if (!f->public_suffixes || !suffix_map_public(f->public_suffixes, suffix, j))
		return true;
	return suffix_map_flags(f->public_suffixes, key) & BLOOMXDP_SUFFIX_LISTED(f->slot);
}

static bool lookup_name(const struct filter *f, const char *name, char *why, size_t len)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS], depths = filter_header(f);
	int n = name_suffix_hashes(f->hash_key, name, suffix), j;

	for (j = 0; j < n; j++) {
		if ((depths & BLOOMXDP_HAS_NAME_DEPTH(j + 1)) && filter_test_hash(f, suffix[j]) &&
		    suffix_hit_stands(f, suffix, j, suffix[j])) {
			snprintf(why, len, "%s", suffix_text(name, j));
			return true;
		}
	}
	return false;
}

static bool lookup_url(const struct filter *f, const struct entry *e, char *why, size_t len)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS], prefix[BLOOMXDP_MAX_PATH_PREFIXES];
	size_t ends[BLOOMXDP_MAX_PATH_PREFIXES];
	int nlabels, nprefix, j, i;

	if (lookup_name(f, e->name, why, len))
		return true;
	if (!(filter_header(f) & BLOOMXDP_HAS_URLS))
		return false;
	nlabels = name_suffix_hashes(f->hash_key, e->name, suffix);
	nprefix = path_prefix_hashes(f->hash_key, e->path, strlen(e->path), prefix, ends);
	for (j = 0; j < nlabels; j++) {
		if (!filter_test_hash(f, bloomxdp_url_host_key(f->hash_key, suffix[j])))
			continue;
		for (i = 0; i < nprefix; i++) {
			__u64 key = bloomxdp_url_key(f->hash_key, suffix[j], prefix[i]);

			if (filter_test_hash(f, key) && suffix_hit_stands(f, suffix, j, key)) {
				snprintf(why, len, "%s%.*s/", suffix_text(e->name, j),
					 (int)ends[i], e->path);
				return true;
			}
		}
	}
	return false;
}

bool entry_keys_lookup(const struct filter *f, const struct entry *e, char *why, size_t len)
{
	why[0] = '\0';
	switch (e->kind) {
	case ENTRY_ADDR:
		return lookup_addr(f, &e->addr, why, len);
	case ENTRY_NAME:
		return lookup_name(f, e->name, why, len);
	case ENTRY_URL:
		return lookup_url(f, e, why, len);
	}
	return false;
}

/* A suffix of name (host) is in the exact set. */
static bool exact_has_suffix(const struct exact_set *x, const __u64 hash_key[2], const char *name)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS];
	int n = name_suffix_hashes(hash_key, name, suffix), j;

	for (j = 0; j < n; j++)
		if (exact_set_has_key(x, suffix[j]))
			return true;
	return false;
}

bool entry_keys_confirm(const struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS], prefix[BLOOMXDP_MAX_PATH_PREFIXES];
	int nlabels, nprefix, j, i;

	switch (e->kind) {
	case ENTRY_ADDR:
		return exact_set_has(x, hash_key, e);
	case ENTRY_NAME:
		return exact_has_suffix(x, hash_key, e->name);
	case ENTRY_URL:
		if (exact_has_suffix(x, hash_key, e->name))
			return true;
		nlabels = name_suffix_hashes(hash_key, e->name, suffix);
		nprefix = path_prefix_hashes(hash_key, e->path, strlen(e->path), prefix, NULL);
		for (j = 0; j < nlabels; j++)
			for (i = 0; i < nprefix; i++)
				if (exact_set_has_key(x, bloomxdp_url_key(hash_key, suffix[j],
									  prefix[i])))
					return true;
		return false;
	}
	return false;
}

bool entry_keys_allowed(const struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	return e->kind == ENTRY_ADDR ? exact_set_has(x, hash_key, e) :
				       exact_has_suffix(x, hash_key, e->name);
}

bool entry_keys_lookup_range(const struct range_set *s, const struct entry *e, char *why,
			    size_t len)
{
	struct range_set one;
	range_addr last;
	long i;

	/* The entry's own interval: its first and last addresses. */
	range_set_init(&one, s->family);
	if (range_set_add_key(&one, &e->addr))
		return false;
	last = one.r[0].end;
	i = range_set_find(s, one.r[0].start);
	range_set_free(&one);
	if (i < 0 || last > s->r[i].end)
		return false;
	range_text(s->family, &s->r[i], why, len);
	return true;
}
