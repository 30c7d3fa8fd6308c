// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "listbuild.h"
#include "suffixes.h"

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
	range_set_init(&b->ranges[0], BLOOMXDP_KEY_IPV4);
	range_set_init(&b->ranges[1], BLOOMXDP_KEY_IPV6);
}

void list_build_free(struct list_build *b)
{
	free(b->addrs);
	b->addrs = NULL;
	free(b->exceptions);
	b->exceptions = NULL;
	free(b->hashes);
	b->hashes = NULL;
	range_set_free(&b->ranges[0]);
	range_set_free(&b->ranges[1]);
}

/* Doubles an array of n elements of size each, from 4096; -ENOMEM leaves it. */
static int grow(void **array, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 4096;
	void *grown = realloc(*array, n * size);

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
	int n = blocklist_name_keys(b->hash_key, e, keys, &kinds), i;

	b->kinds |= kinds;
	for (i = 0; i < n; i++) {
		if (b->nhashes == b->hcap && grow((void **)&b->hashes, &b->hcap, sizeof(__u64)))
			return -ENOMEM;
		b->hashes[b->nhashes++] = keys[i];
	}
	return 0;
}

static int build_entry(const struct entry *e, void *arg)
{
	struct list_build *b = arg;
	int ret = 0;

	if (b->allowlist && e->kind == ENTRY_URL)
		return -EPROTONOSUPPORT;
	if (e->kind == ENTRY_NAME && public_suffix_is(e->name))
		note_suffix(b->allowlist || e->allow ? &b->allowed_suffixes : &b->suffixes,
			    &b->opts, e->name);
	/* In a blocklist, an exception is kept for the allowlist; in the allowlist it is one. */
	if (e->allow && !b->allowlist) {
		ret = keep_exception(b, e);
		return ret < 0 ? ret : 0;
	}
	if (b->exact) {
		/* The original entries: prefixes are not expanded in an LPM trie. */
		ret = exact_set_add(b->exact, b->hash_key, e);
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
	size_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->entries = b->plan[fam].entries;
	c->expanded = b->plan[fam].expanded;
	c->probes = b->plan[fam].ntargets;
	if (!b->ranges_ok || !c->entries || !(b->filter || b->bloom))
		return 0;
	s->n = 0;
	for (i = 0; i < b->naddrs; i++) {
		if (family_index(&b->addrs[i]) != fam)
			continue;
		ret = range_set_add_key(s, &b->addrs[i]);
		if (ret)
			return ret;
	}
	range_set_merge(s);
	c->intervals = s->n;
	range_cost_decide(c, s->family, bits_per_key, b->store);
	return 0;
}

int list_build_finish(struct list_build *b, char err[LIST_ERROR_LEN])
{
	int fam, ret;

	if (b->progress && b->read >= PROGRESS_EVERY)
		fputc('\n', stderr);
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

int list_build_insert(struct list_build *b, struct filter *f, char err[LIST_ERROR_LEN])
{
	static const __u32 families[2] = { BLOOMXDP_KEY_IPV4, BLOOMXDP_KEY_IPV6 };
	struct entry e = { .kind = ENTRY_ADDR };
	size_t i;
	int fam, ret;
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
	for (i = 0; i < b->nhashes; i++)
		filter_insert_hash(f, b->hashes[i]);
	for (i = 0; i < b->naddrs; i++) {
		if (b->cost[family_index(&b->addrs[i])].use_ranges)
			continue;
		e.addr = b->addrs[i];
		ret = blocklist_insert(f, &e);
		if (ret < 0) {
			snprintf(err, LIST_ERROR_LEN, "cannot insert the prefixes: %s",
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}
