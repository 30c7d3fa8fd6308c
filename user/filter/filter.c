// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

static inline __u64 *bloomxdp_filter_word(void *filter, __u32 index)
{
	return (__u64 *)filter + index;
}

static inline __u64 *bloomxdp_filter_line(void *filter, __u32 first)
{
	return (__u64 *)filter + first;
}

/* Layout "kernel" is tested by its own ops (layout_kernel.c), never through here. */
static inline int bloomxdp_kernel_has(void *filter, __u64 hash)
{
	(void)filter;
	(void)hash;
	return 0;
}

#include <bloomxdp/bloom.h>
#include "lists/bitcounts.h"
#include "filter/filter.h"
#include "util/hugemem.h"
#include "filter/layout.h"
#include "filter/bloom_plan.h"

static int filter_init(struct filter *f, const struct bloomxdp_config *cfg, __u64 capacity,
		       __u32 bits)
{
	memset(f, 0, sizeof(*f));
	f->map_fd = -1;
	f->kbloom_fd = -1;
	f->capacity = capacity;
	f->bits = bits;
	f->hashes = cfg->hashes;
	f->layout = cfg->layout;
	f->bytes = ((size_t)bits / BLOOMXDP_WORD_BITS + BLOOMXDP_HDR_WORDS) * sizeof(__u64);
	memcpy(f->hash_key, cfg->hash_key, sizeof(f->hash_key));
	bloomxdp_addr_key_derive(f->hash_key, f->addr_key);
	f->ops = layout_get(cfg->layout);
	return f->ops ? 0 : -EPROTO;
}

/* Lines of the map holding bytes of words: the last one may be padded. */
static __u32 filter_lines(size_t bytes)
{
	return (bytes + sizeof(struct bloomxdp_line) - 1) / sizeof(struct bloomxdp_line);
}

static int filter_map(struct filter *f)
{
	void *mem;

	mem = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f->map_fd, 0);
	if (mem == MAP_FAILED)
		return -errno;
	f->words = mem;
	return 0;
}

static int filter_create_sized(const struct bloomxdp_config *cfg, __u64 capacity, __u32 bits,
			       struct filter *f)
{
	/* Inner maps of any size in one outer map: see bpf/maps.h. */
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	int ret;

	ret = filter_init(f, cfg, capacity, bits);
	if (ret)
		return ret;
	if (bits % BLOOMXDP_WORD_BITS || (f->ops->readable && !bits))
		return -EINVAL;
	f->map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bloomxdp_bits", sizeof(__u32),
				   sizeof(struct bloomxdp_line), filter_lines(f->bytes), &opts);
	if (f->map_fd < 0)
		return -errno;
	ret = filter_map(f);
	if (!ret && f->ops->create)
		ret = f->ops->create(f);
	if (ret) {
		filter_close(f);
		return ret;
	}
	filter_header_clear(f);
	filter_header_word_set(f, BLOOMXDP_HDR_BITS, bits);
	return 0;
}

int filter_create_plan(const struct bloomxdp_config *cfg, const struct bloom_plan *plan,
		       struct filter *f)
{
	if (plan->layout != cfg->layout || plan->hashes != cfg->hashes)
		return -EINVAL;
	return filter_create_sized(cfg, plan->capacity, layout_config_bits(plan), f);
}

int filter_create(const struct bloomxdp_config *cfg, struct filter *f)
{
	return filter_create_sized(cfg, cfg->capacity, cfg->bits, f);
}

int filter_install_kernel(int kouter_fd, __u32 slot, const struct filter *f)
{
	if (!f->ops->create)
		return 0;
	return bpf_map_update_elem(kouter_fd, &slot, &f->kbloom_fd, BPF_ANY) ? -errno : 0;
}

int filter_open_kernel(int kouter_fd, __u32 slot, struct filter *f)
{
	struct bpf_map_info info = {};
	__u32 id, len = sizeof(info);

	if (!f->ops->create)
		return 0;
	if (bpf_map_lookup_elem(kouter_fd, &slot, &id))
		return -errno;
	f->kbloom_fd = bpf_map_get_fd_by_id(id);
	if (f->kbloom_fd < 0)
		return -errno;
	/* Sized for its list: max_entries says for how many keys. */
	if (bpf_obj_get_info_by_fd(f->kbloom_fd, &info, &len))
		return -errno;
	f->capacity = info.max_entries;
	return 0;
}

int filter_init_memory(const struct bloomxdp_config *cfg, struct filter *f)
{
	int ret = filter_init(f, cfg, cfg->capacity, cfg->bits);

	if (ret)
		return ret;
	f->words = calloc(f->bytes / sizeof(__u64), sizeof(__u64));
	if (!f->words)
		return -ENOMEM;
	filter_header_clear(f);
	filter_header_word_set(f, BLOOMXDP_HDR_BITS, f->bits);
	return 0;
}

int filter_open(int outer_fd, __u32 slot, const struct bloomxdp_config *cfg, struct filter *f)
{
	struct bpf_map_info info = {};
	__u32 id, len = sizeof(info);
	struct bloomxdp_line header;
	__u64 bits;
	int ret;

	ret = filter_init(f, cfg, 0, 0);
	if (ret)
		return ret;
	if (bpf_map_lookup_elem(outer_fd, &slot, &id))
		return -errno;
	f->map_fd = bpf_map_get_fd_by_id(id);
	if (f->map_fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(f->map_fd, &info, &len)) {
		ret = -errno;
		goto err;
	}
	ret = -EPROTO;
	if (info.value_size != sizeof(struct bloomxdp_line) ||
	    bpf_map_lookup_elem(f->map_fd, &(__u32){ 0 }, &header))
		goto err;
	/* The map says how many bits follow its header; the two must agree. */
	bits = header.word[BLOOMXDP_HDR_BITS];
	f->bytes = (bits / BLOOMXDP_WORD_BITS + BLOOMXDP_HDR_WORDS) * sizeof(__u64);
	if (bits % BLOOMXDP_WORD_BITS || bits > BLOOMXDP_MAX_BITS ||
	    filter_lines(f->bytes) != info.max_entries || !bits != !f->ops->readable)
		goto err;
	ret = filter_map(f);
	if (ret)
		goto err;
	f->bits = bits;
	return 0;
err:
	filter_close(f);
	return ret;
}

int filter_install(int outer_fd, __u32 slot, const struct filter *f)
{
	if (bpf_map_update_elem(outer_fd, &slot, &f->map_fd, BPF_ANY))
		return -errno;
	return 0;
}

void filter_stage(struct filter *f)
{
	void *mem;

	if (f->map_words || !f->words || f->map_fd < 0)
		return;
	mem = huge_zeroed(f->bytes);
	if (!mem)
		return;
	memcpy(mem, f->words, f->bytes);
	f->map_words = f->words;
	f->words = mem;
}

void filter_unstage(struct filter *f)
{
	if (!f->map_words)
		return;
	memcpy(f->map_words, f->words, f->bytes);
	munmap(f->words, f->bytes);
	f->words = f->map_words;
	f->map_words = NULL;
}

void filter_close(struct filter *f)
{
	if (f->map_words) {
		munmap(f->words, f->bytes);
		f->words = f->map_words;
		f->map_words = NULL;
	}
	if (f->ops && f->ops->release && f->kbloom_fd >= 0)
		f->ops->release(f);
	if (f->words && f->map_fd < 0)
		free(f->words);
	else if (f->words)
		munmap(f->words, f->bytes);
	if (f->map_fd >= 0)
		close(f->map_fd);
	if (f->kbloom_fd >= 0)
		close(f->kbloom_fd);
	f->kbloom_fd = -1;
	f->words = NULL;
	f->map_fd = -1;
}

/*
 * One whole-word store: the XDP program may read this word right now.
 * Writers are serialised by the attachment lock. True when the bit was new.
 */
static bool set_bit(struct filter *f, __u32 word_index, __u64 mask)
{
	__u64 *word = &f->words[word_index];

	if (*word & mask)
		return false;
	__atomic_store_n(word, *word | mask, __ATOMIC_RELAXED);
	return true;
}

/* The bit a position names, counted from the first bit after the header. */
static __u64 position_bit(__u32 word, __u64 mask)
{
	return (__u64)(word - BLOOMXDP_HDR_WORDS) * BLOOMXDP_WORD_BITS + __builtin_ctzll(mask);
}

/* Words [lo, hi) of the filter: what one inserting thread writes (filter_insert_hashes()). */
struct insert_part {
	struct filter *f;
	const __u64 *hashes;
	size_t n;
	__u32 lo, hi;
};

/* Sets (and counts) the bits of hash that fall in the part's words; true when one was new. */
static bool insert_in_part(const struct insert_part *part, __u64 hash)
{
	struct filter *f = part->f;
	struct bloomxdp_positions p;
	bool changed = false;
	__u32 i, word;
	__u64 mask;

	bloomxdp_positions_init(&p, f->layout, f->bits, hash);
	for (i = 0; i < f->hashes; i++) {
		bloomxdp_positions_next(&p, f->layout, f->bits, &word, &mask);
		if (word < part->lo || word >= part->hi)
			continue;
		changed |= set_bit(f, word, mask);
		if (f->counts)
			bitcount_inc(f->counts, position_bit(word, mask));
	}
	return changed;
}

bool layout_array_insert(struct filter *f, __u64 hash)
{
	struct insert_part all = { .f = f, .lo = 0, .hi = UINT32_MAX };

	return insert_in_part(&all, hash);
}

int filter_count_remove(struct filter *f, __u64 hash, bool check, __u64 *cleared)
{
	struct bloomxdp_positions p;
	__u32 i, word;
	__u64 mask, bit;

	if (!f->counts || !f->ops->readable)
		return -EOPNOTSUPP;
	bloomxdp_positions_init(&p, f->layout, f->bits, hash);
	for (i = 0; i < f->hashes; i++) {
		bloomxdp_positions_next(&p, f->layout, f->bits, &word, &mask);
		bit = position_bit(word, mask);
		if (check) {
			if (!bitcount_get(f->counts, bit) || !(f->words[word] & mask))
				return -EUCLEAN;
			continue;
		}
		if (bitcount_dec(f->counts, bit)) {
			__atomic_fetch_and(&f->words[word], ~mask, __ATOMIC_RELAXED);
			(*cleared)++;
		}
	}
	return 0;
}

bool layout_array_test(const struct filter *f, __u64 hash)
{
	return bloomxdp_filter_test(f->words, f->layout, f->bits, f->hashes, hash);
}

__u64 layout_array_bits(const struct filter *f)
{
	return f->bits;
}

bool filter_insert_hash(struct filter *f, __u64 hash)
{
	return f->ops->insert(f, hash);
}

bool filter_test_hash(const struct filter *f, __u64 hash)
{
	return f->ops->test(f, hash);
}

static __u64 key_kind(const struct bloomxdp_key *key)
{
	return (key->word[0] & 0xff) == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_HAS_IPV4 : BLOOMXDP_HAS_IPV6;
}

int filter_length_add(struct filter *f, __u32 family, __u32 len)
{
	__u32 word = family == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_HDR_V4_LENGTHS :
						   BLOOMXDP_HDR_V6_LENGTHS;
	__u64 old = filter_header_word(f, word), next = BLOOMXDP_NO_LENGTHS;
	__u32 i, o = 0;
	bool placed = false;

	/* The family is in exact intervals: 'load' replaces them, nothing adds to them. */
	if (BLOOMXDP_IS_RANGES_WORD(old))
		return -EOPNOTSUPP;
	for (i = 0; i < BLOOMXDP_MAX_PREFIX_LENGTHS; i++) {
		__u8 have = old >> (8 * i);

		if (have == len)
			return 0;
		if (have == BLOOMXDP_NO_LENGTH)
			break;
		if (!placed && have < len) {
			next = (next & ~(0xffULL << (8 * o))) | (__u64)len << (8 * o);
			o++;
			placed = true;
		}
		if (o == BLOOMXDP_MAX_PREFIX_LENGTHS)
			return -ENOSPC;
		next = (next & ~(0xffULL << (8 * o))) | (__u64)have << (8 * o);
		o++;
	}
	if (!placed) {
		if (o == BLOOMXDP_MAX_PREFIX_LENGTHS)
			return -ENOSPC;
		next = (next & ~(0xffULL << (8 * o))) | (__u64)len << (8 * o);
	}
	filter_header_word_set(f, word, next);
	return 0;
}

__u64 filter_key_hash(const struct filter *f, const struct bloomxdp_key *key)
{
	return bloomxdp_addr_hash(f->addr_key, key);
}

/* How far ahead the lines of a hash are fetched: a few cache misses in flight. */
#define PREFETCH_AHEAD 16

/*
 * Many keys are inserted by two threads, each setting the bits (and counting
 * them) in its own half of the words: no word or counter is written by both,
 * and the two CPUs' cache misses overlap. Past this many keys a thread pays.
 */
#define INSERT_SPLIT_MIN 65536

/*
 * The lines an insert of hash will write in [lo, hi): its words (one line
 * for blocked, k anywhere for bits) and, for a counting filter, their 4-bit
 * counters (a block's 512 counters are 4 lines). Inlined: GCC takes a
 * function of prefetches alone for one without effect and drops its calls
 * (as it dropped the write prefetches of x86-64 without PRFCHW: these are
 * read prefetches, which every x86-64 has).
 */
static inline __attribute__((always_inline)) void prefetch_insert(const struct insert_part *part,
								  __u64 hash)
{
	const struct filter *f = part->f;
	__u32 j, word, off, n = f->layout == BLOOMXDP_LAYOUT_BLOCKED ? 1 : f->hashes;
	struct bloomxdp_positions p;
	__u64 mask, bit;

	bloomxdp_positions_init(&p, f->layout, f->bits, hash);
	for (j = 0; j < n; j++) {
		bloomxdp_positions_next(&p, f->layout, f->bits, &word, &mask);
		if (word < part->lo || word >= part->hi)
			continue;
		__builtin_prefetch(&f->words[word]);
		if (!f->counts)
			continue;
		bit = position_bit(word, mask);
		if (f->layout == BLOOMXDP_LAYOUT_BLOCKED) {
			bit -= bit % BLOOMXDP_BLOCK_BITS;
			for (off = 0; off < BLOOMXDP_BLOCK_BITS / 2; off += 64)
				__builtin_prefetch(&f->counts->c[bit / 2 + off]);
		} else {
			__builtin_prefetch(&f->counts->c[bit / 2]);
		}
	}
}

static void *insert_part_run(void *arg)
{
	const struct insert_part *part = arg;
	size_t i;

	for (i = 0; i < part->n; i++) {
		if (i + PREFETCH_AHEAD < part->n)
			prefetch_insert(part, part->hashes[i + PREFETCH_AHEAD]);
		(void)insert_in_part(part, part->hashes[i]);
	}
	return NULL;
}

/* Runs low here and high on a thread of its own; both here when no thread is to be had. */
static void insert_two(void *(*run)(void *), struct insert_part *low, struct insert_part *high)
{
	pthread_t thread;

	if (pthread_create(&thread, NULL, run, high)) {
		run(low);
		run(high);
		return;
	}
	run(low);
	pthread_join(thread, NULL);
}

/*
 * A blocked filter's keys, sorted by bucket (insert_bucketed()): the bits and
 * counters insert_in_part() sets, each key's block found once. Its lines are
 * in the cache: no prefetch.
 */
static void *insert_blocked_run(void *arg)
{
	const struct insert_part *part = arg;
	struct filter *f = part->f;
	struct bitcounts *counts = f->counts;
	__u32 i, h, bit, shift;
	__u64 *line, first;
	size_t j;
	__u8 *c;

	for (j = 0; j < part->n; j++) {
		first = (__u64)bloomxdp_block_of(part->hashes[j], f->bits) * BLOOMXDP_BLOCK_BITS;
		line = &f->words[BLOOMXDP_HDR_WORDS + first / BLOOMXDP_WORD_BITS];
		h = part->hashes[j] >> 32;
		for (i = 0; i < f->hashes; i++) {
			bit = bloomxdp_block_next(&h);
			__atomic_store_n(&line[bit / BLOOMXDP_WORD_BITS],
					 line[bit / BLOOMXDP_WORD_BITS] |
					 1ULL << (bit % BLOOMXDP_WORD_BITS), __ATOMIC_RELAXED);
			if (!counts)
				continue;
			/* bitcount_inc(), its nibble added to in place. */
			c = &counts->c[(first + bit) / 2];
			shift = (first + bit) % 2 * 4;
			if (((*c >> shift) & 0xf) == BITCOUNT_SATURATED)
				continue;
			*c += 1U << shift;
			if (((*c >> shift) & 0xf) == BITCOUNT_SATURATED)
				__atomic_fetch_add(&counts->hdr->saturated, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* A blocked filter's buckets are 2^this blocks (fewer when the filter has fewer than 512). */
#define INSERT_BUCKET_SHIFT 8

/*
 * Blocked: the batch sorted by bucket of consecutive blocks first (a counting
 * sort), then inserted bucket after bucket, each thread its half of the
 * buckets. A bucket's words and counters (256 blocks: 80 KiB with counters)
 * stay in the cache while its keys set them, where keys in the order given
 * miss it once or more each. The same bits and counters in any order.
 * -ENOMEM: no room for the sorted copy.
 */
static int insert_bucketed(struct filter *f, const __u64 *hashes, size_t n, __u64 *spare)
{
	__u32 blocks = f->bits / BLOOMXDP_BLOCK_BITS, shift = INSERT_BUCKET_SHIFT, nbuckets, b;
	struct insert_part low = { .f = f, .lo = 0, .hi = UINT32_MAX }, high = low;
	size_t i, *start;
	__u64 *sorted;
	int ret = 0;

	/* Two buckets at least (the caller's filter has two blocks or more): one a thread. */
	while (shift && !((blocks - 1) >> shift))
		shift--;
	nbuckets = ((blocks - 1) >> shift) + 1;
	start = calloc(nbuckets + 1, sizeof(*start));
	sorted = spare ? spare : huge_realloc(NULL, n * sizeof(*sorted));
	if (!start || !sorted) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		start[(bloomxdp_block_of(hashes[i], f->bits) >> shift) + 1]++;
	for (b = 0; b < nbuckets; b++)
		start[b + 1] += start[b];
	for (i = 0; i < n; i++)
		sorted[start[bloomxdp_block_of(hashes[i], f->bits) >> shift]++] = hashes[i];
	/* Each start[b] now ends bucket b: the first half of the buckets ends at start[h - 1]. */
	low.hashes = sorted;
	low.n = start[nbuckets / 2 - 1];
	high.hashes = sorted + low.n;
	high.n = n - low.n;
	insert_two(insert_blocked_run, &low, &high);
out:
	if (sorted != spare)
		huge_free(sorted);
	free(start);
	return ret;
}

void filter_insert_hashes(struct filter *f, const __u64 *hashes, size_t n)
{
	filter_insert_hashes_in(f, hashes, n, NULL);
}

void filter_insert_hashes_in(struct filter *f, const __u64 *hashes, size_t n, __u64 *spare)
{
	struct insert_part low = { .f = f, .hashes = hashes, .n = n, .lo = 0, .hi = UINT32_MAX };
	struct insert_part high = low;
	__u32 mid;
	size_t i;

	if (f->ops->insert_many) {
		f->ops->insert_many(f, hashes, n);
		return;
	}
	if (!f->ops->readable) {
		for (i = 0; i < n; i++)
			f->ops->insert(f, hashes[i]);
		return;
	}
	/* Whole blocks to each half: a block's words and counters stay with one thread. */
	mid = BLOOMXDP_HDR_WORDS + f->bits / BLOOMXDP_BLOCK_BITS / 2 * BLOOMXDP_BLOCK_WORDS;
	if (n < INSERT_SPLIT_MIN || mid <= BLOOMXDP_HDR_WORDS) {
		insert_part_run(&low);
		return;
	}
	if (f->layout == BLOOMXDP_LAYOUT_BLOCKED && !insert_bucketed(f, hashes, n, spare))
		return;
	low.hi = high.lo = mid;
	insert_two(insert_part_run, &low, &high);
}

bool filter_insert(struct filter *f, const struct bloomxdp_key *key)
{
	bool changed = filter_insert_hash(f, filter_key_hash(f, key));

	/* Published after the bits: a packet probes this length only once they are set. */
	if (filter_length_add(f, key->word[0] & 0xff, (key->word[0] >> 8) & 0xff) == 0)
		filter_header_set(f, key_kind(key));
	return changed;
}

bool filter_test(const struct filter *f, const struct bloomxdp_key *key)
{
	return (filter_header(f) & key_kind(key)) &&
	       filter_test_hash(f, filter_key_hash(f, key));
}

/*
 * POPCNT where the CPU has it, chosen when the program loads (GCC's
 * target_clones: x86-64's baseline has no POPCNT): 15 MB (10M entries) in
 * ~3.5 ms instead of ~7 here. add's room check and the metrics count them.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
__u64 filter_popcount(const struct filter *f)
{
	size_t i, nwords = f->bits / BLOOMXDP_WORD_BITS;
	const __u64 *array = f->words + BLOOMXDP_HDR_WORDS;
	__u64 set = 0;

	for (i = 0; i < nwords; i++)
		set += __builtin_popcountll(array[i]);
	return set;
}

__u64 filter_map_bytes(const struct filter *f)
{
	return f->ops->readable ? f->bytes : f->bytes + f->ops->bits(f) / 8;
}

__u64 filter_header_word(const struct filter *f, __u32 word)
{
	return __atomic_load_n(&f->words[word], __ATOMIC_RELAXED);
}

/* One whole-word store, as for the bits; writers hold the attachment lock. */
void filter_header_word_set(struct filter *f, __u32 word, __u64 value)
{
	__atomic_store_n(&f->words[word], value, __ATOMIC_RELAXED);
}

void filter_header_clear(struct filter *f)
{
	filter_header_word_set(f, BLOOMXDP_HDR_KINDS, 0);
	filter_header_word_set(f, BLOOMXDP_HDR_V4_LENGTHS, BLOOMXDP_NO_LENGTHS);
	filter_header_word_set(f, BLOOMXDP_HDR_V6_LENGTHS, BLOOMXDP_NO_LENGTHS);
}

__u64 filter_header(const struct filter *f)
{
	return filter_header_word(f, BLOOMXDP_HDR_KINDS);
}

void filter_header_set(struct filter *f, __u64 kinds)
{
	__u64 old = filter_header(f);

	if ((old | kinds) != old)
		filter_header_word_set(f, BLOOMXDP_HDR_KINDS, old | kinds);
}
