// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/entry_keys.h"
#include "lists/build.h"
#include "filter/packet_fpr.h"
#include "filter/bloom_plan.h"
#include "lists/lists.h"
#include "parse/public_suffix.h"
#include "filter/suffix_map.h"
#include "util/hugemem.h"

#define PROGRESS_EVERY (1U << 20)

void list_build_init(struct list_build *b, struct filter *filter, __u32 max_probes)
{
	memset(b, 0, sizeof(*b));
	b->filter = filter;
	if (filter)
		memcpy(b->hash_key, filter->hash_key, sizeof(b->hash_key));
	b->max_probes = max_probes;
	b->counts[0].width = 32;
	b->counts[1].width = 128;
	b->opts.notes = &b->notes;
	/* What load allows by default: half of a generation for one family's intervals. */
	b->range_budget = default_max_memory() / 2;
	range_set_init(&b->ranges[0], BLOOMXDP_KEY_IPV4);
	range_set_init(&b->ranges[1], BLOOMXDP_KEY_IPV6);
}

void list_build_free(struct list_build *b)
{
	huge_free(b->addrs);
	b->addrs = NULL;
	huge_free(b->v4);
	b->v4 = NULL;
	free(b->exceptions);
	b->exceptions = NULL;
	huge_free(b->hashes);
	b->hashes = NULL;
	huge_free(b->at_public);
	huge_free(b->spare);
	b->spare = NULL;
	b->at_public = NULL;
	range_set_free(&b->ranges[0]);
	range_set_free(&b->ranges[1]);
}

/* Doubles an array of n elements of size each, from 4096 (huge_realloc()); -ENOMEM leaves it. */
static int grow(void **array, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 4096;
	void *grown = huge_realloc(*array, n * size);

	if (!grown)
		return -ENOMEM;
	*array = grown;
	*cap = n;
	return 0;
}

static int family_index(const struct bloomxdp_key *key)
{
	return key_family(key) == BLOOMXDP_KEY_IPV4 ? 0 : 1;
}

static int keep_addr(struct list_build *b, const struct bloomxdp_key *key)
{
	/* An IPv4 key is its word 0: a quarter of the memory, for lists of millions of hosts. */
	if (key_family(key) == BLOOMXDP_KEY_IPV4) {
		if (b->nv4 == b->v4cap && grow((void **)&b->v4, &b->v4cap, sizeof(*b->v4)))
			return -ENOMEM;
		b->v4[b->nv4++] = key->word[0];
		return 0;
	}
	if (b->naddrs == b->cap && grow((void **)&b->addrs, &b->cap, sizeof(*b->addrs)))
		return -ENOMEM;
	b->addrs[b->naddrs++] = *key;
	return 0;
}

static int keep_exception(struct list_build *b, const struct entry *e)
{
	struct entry *grown;

	if (b->nexceptions == b->exceptions_cap) {
		b->exceptions_cap = b->exceptions_cap ? b->exceptions_cap * 2 : 64;
		grown = realloc(b->exceptions, b->exceptions_cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		b->exceptions = grown;
	}
	b->exceptions[b->nexceptions++] = *e;
	return 0;
}

static void note_suffix(struct list_suffixes *s, const struct list_read_opts *o, const char *name)
{
	if (s->count < LIST_SUFFIX_PLACES) {
		s->first[s->count].place.file = o->file;
		s->first[s->count].place.line = o->line;
		snprintf(s->first[s->count].name, sizeof(s->first[s->count].name), "%s", name);
	}
	s->count++;
}

const char list_suffix_why[] =
	"a public suffix, under which others register their domains: blocking it blocks every "
	"one of them (give --allow-public-suffix to block it anyway)";

const char *list_suffixes_text(const struct list_suffixes *s, char *buf, size_t len)
{
	size_t used = 0;
	__u64 i;

	buf[0] = '\0';
	for (i = 0; i < s->count && i < LIST_SUFFIX_PLACES && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s:%lu (%s)", i ? ", " : "",
				 s->first[i].place.file, s->first[i].place.line,
				 s->first[i].name);
	if (s->count > LIST_SUFFIX_PLACES && used < len)
		snprintf(buf + used, len - used, " and %llu more",
			 (unsigned long long)(s->count - LIST_SUFFIX_PLACES));
	return buf;
}

/* A name's or URL's keys, for the filter that list_build_finish() or the caller fills. */
static int keep_name(struct list_build *b, const struct entry *e)
{
	__u64 keys[2], kinds;
	int n = entry_keys_name(b->hash_key, e, keys, &kinds), i;

	b->kinds |= kinds;
	for (i = 0; i < n; i++) {
		if (b->nhashes == b->hcap && grow((void **)&b->hashes, &b->hcap, sizeof(__u64)))
			return -ENOMEM;
		b->hashes[b->nhashes++] = keys[i];
	}
	return 0;
}

/* A key the XDP program confirms exactly: a public suffix, single label or URL on one. */
static int keep_at_public(struct list_build *b, const struct entry *e)
{
	__u64 key;

	/* Not an address: suffix_map_entry() takes none, and is called for every line. */
	if (e->kind == ENTRY_ADDR || !b->public_suffixes ||
	    !suffix_map_entry(b->public_suffixes, b->hash_key, e, &key))
		return 0;
	if (b->nat_public == b->at_public_cap) {
		if (b->nat_public >= BLOOMXDP_SUFFIX_MAX_KEYS)
			return -EMLINK;
		if (grow((void **)&b->at_public, &b->at_public_cap, sizeof(__u64)))
			return -ENOMEM;
	}
	b->at_public[b->nat_public++] = key;
	return 0;
}

static int build_entry(const struct entry *e, void *arg)
{
	struct list_build *b = arg;
	int ret = 0;

	if (b->skip && entry_set_has(b->skip, e))
		return 0;
	if (b->allowlist && e->kind == ENTRY_URL)
		return -EPROTONOSUPPORT;
	if (e->kind == ENTRY_NAME && public_suffix_is(e->name)) {
		if (b->skip_suffixes && !b->allowlist && !e->allow) {
			if (b->opts.notes)
				list_note(b->opts.notes, list_suffix_why, false, b->opts.file,
					  b->opts.line);
			return 0;
		}
		note_suffix(b->allowlist || e->allow ? &b->allowed_suffixes : &b->suffixes,
			    &b->opts, e->name);
	}
	/* In a blocklist, an exception is kept for the allowlist; in the allowlist it is one. */
	if (e->allow && !b->allowlist) {
		ret = keep_exception(b, e);
		return ret < 0 ? ret : 0;
	}
	if (!b->allowlist) {
		ret = keep_at_public(b, e);
		if (ret < 0)
			return ret;
	}
	if (b->exact) {
		/* The original entries: prefixes are not expanded in an LPM trie. */
		ret = exact_set_add(b->exact, b->hash_key, e);
		if ((ret == -ENOSPC || ret == -E2BIG) && b->exact_optional) {
			b->exact = NULL;
			b->exact_overflow = true;
			ret = 0;
		} else if (ret < 0) {
			return ret;
		}
	}
	if (b->also) {
		ret = b->also(b->also_ctx, e);
		if (ret < 0)
			return ret;
	}
	b->names += e->kind == ENTRY_NAME;
	b->urls += e->kind == ENTRY_URL;
	if (e->kind == ENTRY_ADDR) {
		b->counts[family_index(&e->addr)].count[key_prefix_len(&e->addr)]++;
		if (b->filter || b->bloom)
			ret = keep_addr(b, &e->addr);
	} else if (b->filter || b->bloom) {
		ret = keep_name(b, e);
	}
	if (++b->read % PROGRESS_EVERY == 0 && b->progress)
		fprintf(stderr, "\rbloomxdp: reading... %llu entries", (unsigned long long)b->read);
	return ret < 0 ? ret : 0;
}

int list_build_read(struct list_build *b, const char *path, enum list_format format,
		    char err[LIST_ERROR_LEN])
{
	return list_build_read_fd(b, -1, path, format, err);
}

int list_build_read_fd(struct list_build *b, int fd, const char *path, enum list_format format,
		       char err[LIST_ERROR_LEN])
{
	int ret;

	err[0] = '\0';
	b->opts.format = format;
	ret = fd >= 0 ? list_read_fd(fd, path, &b->opts, build_entry, b, err) :
			list_read(path, &b->opts, build_entry, b, err);

	if (ret == -ENOMEM)
		snprintf(err, LIST_ERROR_LEN, "%s: out of memory", path);
	else if (ret == -EPROTONOSUPPORT)
		snprintf(err, LIST_ERROR_LEN, "%s: the allowlist takes addresses, prefixes and "
			 "domains, not URLs", path);
	else if (ret == -EMLINK)
		snprintf(err, LIST_ERROR_LEN, "%s: more than %d entries are public suffixes, single "
			 "labels or URLs on them, each confirmed exactly: list fewer", path,
			 BLOOMXDP_SUFFIX_MAX_KEYS);
	else if (ret == -E2BIG || ret == -ENOSPC)
		snprintf(err, LIST_ERROR_LEN, "%s: more entries than an exact copy may hold within "
			 "--max-memory: raise it ('load --max-memory BYTES')", path);
	else if (ret < 0 && !err[0])
		snprintf(err, LIST_ERROR_LEN, "%s: %s", path, strerror(-ret));
	return ret;
}

/* A family's intervals and the cost model's choice (ranges.h). */
static int plan_ranges(struct list_build *b, int fam)
{
	double ln2 = log(2), bits_per_key = b->bits_per_key ? b->bits_per_key :
					    -log(0.01) / (ln2 * ln2);
	struct range_cost *c = &b->cost[fam];
	struct range_set *s = &b->ranges[fam];
	int ret, pass;
	__u64 keep;

	memset(c, 0, sizeof(*c));
	c->entries = b->plan[fam].entries;
	c->expanded = b->plan[fam].expanded;
	c->probes = b->plan[fam].ntargets;
	c->budget = b->range_budget;
	/* In the Bloom filter, its keys would be sized for the target over its probes. */
	if (c->probes > 1)
		bits_per_key += log(c->probes) / (ln2 * ln2);
	if (!b->ranges_ok || !c->entries || !(b->filter || b->bloom))
		return 0;
	/* Intervals the model cannot choose are counted, not kept (a list of hosts). */
	keep = range_cost_max_intervals(c, s->family, bits_per_key, b->store);
	for (pass = 0; pass < 2; pass++) {
		ret = fam ? range_set_merge_keys(s, b->addrs, b->naddrs, keep) :
			    range_set_from_packed_v4(s, b->v4, b->nv4, keep);
		if (ret)
			return ret;
		c->intervals = s->n;
		range_cost_decide(c, s->family, bits_per_key, b->store);
		if (!c->use_ranges || s->r || !s->n)
			break;
		keep = UINT64_MAX;
	}
	return 0;
}

int list_build_finish(struct list_build *b, char err[LIST_ERROR_LEN])
{
	__u64 *grown;
	int fam, ret;

	if (b->progress && b->read >= PROGRESS_EVERY)
		fputc('\n', stderr);
	/* From here on, the IPv4 keys are packed intervals, sorted: merged by plan_ranges(). */
	range_v4_pack(b->v4, b->nv4);
	/* Its second buffer kept for the insert's batches: memory mapped once, not twice. */
	grown = huge_realloc(b->spare, b->nv4 * sizeof(*b->v4));
	if (!grown) {
		snprintf(err, LIST_ERROR_LEN, "cannot sort the IPv4 keys: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	b->spare = grown;
	range_v4_sort_in(b->v4, b->nv4, b->spare);
	for (fam = 0; fam < 2; fam++) {
		prefix_plan(&b->counts[fam], b->max_probes, &b->plan[fam]);
		ret = plan_ranges(b, fam);
		if (ret) {
			snprintf(err, LIST_ERROR_LEN, "cannot merge the prefixes: %s",
				 strerror(-ret));
			return ret;
		}
		if (b->plan[fam].entries && !isfinite(b->plan[fam].expanded) &&
		    !b->cost[fam].use_ranges) {
			snprintf(err, LIST_ERROR_LEN, "%s prefixes would expand to over 2^%d keys "
				 "each with %u probes per packet: allow more with --prefix-probes "
				 "(at most %d)", fam ? "IPv6" : "IPv4", PREFIX_MAX_EXPANSION_BITS,
				 b->max_probes, BLOOMXDP_MAX_PREFIX_LENGTHS);
			return -E2BIG;
		}
	}
	b->keys = b->names + 2 * b->urls;
	for (fam = 0; fam < 2; fam++)
		if (!b->cost[fam].use_ranges)
			b->keys += (__u64)b->plan[fam].expanded;
	return b->filter ? list_build_insert(b, b->filter, err) : 0;
}

void list_build_probes(const struct list_build *b, __u32 match, struct packet_probes *pp)
{
	__u64 kinds = b->kinds;
	__u32 t[2], fam;

	for (fam = 0; fam < 2; fam++) {
		t[fam] = b->cost[fam].use_ranges ? 0 : b->plan[fam].ntargets;
		if (b->plan[fam].entries)
			kinds |= fam ? BLOOMXDP_HAS_IPV6 : BLOOMXDP_HAS_IPV4;
	}
	packet_probes_set(pp, match, kinds, t[0], t[1]);
}

/* target[len]: the shortest probed length >= len, or 255 when none is. */
static void target_table(const struct prefix_plan *plan, __u32 width, __u8 *target)
{
	__u32 len, t;

	for (len = 0; len <= width; len++) {
		target[len] = 255;
		for (t = 0; t < plan->ntargets; t++)
			if (plan->target[t] >= len && plan->target[t] < target[len])
				target[len] = plan->target[t];
	}
}

/*
 * Hashes inserted at a time: enough for filter_insert_hashes() to split them
 * over two threads and, in a blocked filter, to set each block's bits (and
 * counters) many times while its lines are in the cache (32 MB, and as much
 * for their sorted copy).
 */
#define INSERT_BATCH (1 << 22)

/* Keys hashed by two threads at once past this many (hash_two()). */
#define HASH_SPLIT_MIN 65536

/* Keys [lo, hi) of the build's addresses (IPv4, then the others) hashed for the filter. */
struct hash_part {
	const struct list_build *b;
	const struct filter *f;
	const __u8 (*target)[129];
	size_t lo, hi;
	__u64 *out;		/* the hashes of keys at a probed length */
	size_t n;
	size_t rest;		/* keys between probed lengths, to expand (entry_keys_insert()) */
	__u64 kinds;
};

/* The i-th address of b, and its family's index (0: IPv4); false when it is in intervals. */
static bool address_key(const struct list_build *b, size_t i, struct bloomxdp_key *key, int *fam)
{
	if (i < b->nv4)
		range_v4_key(b->v4[i], key);
	else
		*key = b->addrs[i - b->nv4];
	*fam = i < b->nv4 ? 0 : 1;
	return !b->cost[*fam].use_ranges;
}

static void *hash_part_run(void *arg)
{
	struct hash_part *h = arg;
	struct bloomxdp_key key;
	size_t i;
	int fam;

	for (i = h->lo; i < h->hi; i++) {
		if (!address_key(h->b, i, &key, &fam))
			continue;
		/* At a probed length already (hosts, mostly): one key, hashed here. */
		if (h->target[fam][key_prefix_len(&key)] != key_prefix_len(&key)) {
			h->rest++;
			continue;
		}
		h->out[h->n++] = filter_key_hash(h->f, &key);
		h->kinds |= fam ? BLOOMXDP_HAS_IPV6 : BLOOMXDP_HAS_IPV4;
	}
	return NULL;
}

/*
 * Keys [lo, hi) hashed into out, in their order, by two threads (each half of
 * them) when there are many: the count of hashes; *rest and *kinds as
 * hash_part_run() counts them.
 */
static size_t hash_two(struct hash_part *h, size_t lo, size_t hi, __u64 *out)
{
	struct hash_part second = *h;
	pthread_t thread;
	bool threaded;

	h->lo = lo;
	h->hi = hi - lo < HASH_SPLIT_MIN ? hi : lo + (hi - lo) / 2;
	h->out = out;
	h->n = h->rest = second.rest = 0;
	second.lo = h->hi;
	second.hi = hi;
	second.out = out + (h->hi - lo);
	second.n = 0;
	second.kinds = 0;
	threaded = second.lo < hi && !pthread_create(&thread, NULL, hash_part_run, &second);
	hash_part_run(h);
	if (threaded)
		pthread_join(thread, NULL);
	else if (second.lo < hi)
		hash_part_run(&second);
	if (out + h->n != second.out)	/* keys of the first half left out (in intervals) */
		memmove(out + h->n, second.out, second.n * sizeof(*out));
	h->rest += second.rest;
	h->kinds |= second.kinds;
	return h->n + second.n;
}

/* The keys [lo, hi) between probed lengths, expanded into the filter one at a time. */
static int insert_rest(const struct hash_part *h, struct filter *f, size_t lo, size_t hi,
		       char err[LIST_ERROR_LEN])
{
	struct entry e = { .kind = ENTRY_ADDR };
	size_t i;
	int fam, ret;

	for (i = lo; i < hi; i++) {
		if (!address_key(h->b, i, &e.addr, &fam) ||
		    h->target[fam][key_prefix_len(&e.addr)] == key_prefix_len(&e.addr))
			continue;
		ret = entry_keys_insert(f, &e);
		if (ret < 0) {
			snprintf(err, LIST_ERROR_LEN, "cannot insert the prefixes: %s",
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int list_build_insert(struct list_build *b, struct filter *f, char err[LIST_ERROR_LEN])
{
	static const __u32 families[2] = { BLOOMXDP_KEY_IPV4, BLOOMXDP_KEY_IPV6 };
	__u8 target[2][129];
	struct hash_part h = { .b = b, .f = f, .target = target };
	size_t lo, hi, n, total = b->nv4 + b->naddrs;
	size_t room = total < INSERT_BATCH ? total : INSERT_BATCH;
	__u64 *batch;
	int fam, ret = 0;
	__u32 t;

	for (fam = 0; fam < 2; fam++) {
		if (b->cost[fam].use_ranges) {
			/* Looked up in its intervals only: the Bloom filter holds none of it. */
			filter_header_word_set(f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
						  BLOOMXDP_HDR_V4_LENGTHS,
					       BLOOMXDP_RANGES_WORD);
			filter_header_set(f, fam ? BLOOMXDP_HAS_IPV6 : BLOOMXDP_HAS_IPV4);
			continue;
		}
		for (t = 0; t < b->plan[fam].ntargets; t++)
			filter_length_add(f, families[fam], b->plan[fam].target[t]);
	}
	filter_header_set(f, b->kinds);
	filter_insert_hashes(f, b->hashes, b->nhashes);
	/* A batch of hashes and its sorted copy, in the sort's buffer (shrunk, or grown). */
	batch = huge_realloc(b->spare, 2 * (room ? room : 1) * sizeof(*batch));
	if (!batch) {
		snprintf(err, LIST_ERROR_LEN, "cannot insert the addresses: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	b->spare = NULL;	/* batch's now, freed below */
	for (fam = 0; fam < 2; fam++)
		target_table(&b->plan[fam], fam ? 128 : 32, target[fam]);
	for (lo = 0; lo < total && !ret; lo = hi) {
		hi = total - lo < INSERT_BATCH ? total : lo + INSERT_BATCH;
		n = hash_two(&h, lo, hi, batch);
		filter_insert_hashes_in(f, batch, n, batch + room);
		if (h.rest)
			ret = insert_rest(&h, f, lo, hi, err);
	}
	/* Published after the bits, as filter_insert() does. */
	if (!ret)
		filter_header_set(f, h.kinds);
	huge_free(batch);
	return ret;
}
