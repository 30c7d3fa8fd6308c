// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <endian.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "util/options.h"
#include "parse/prefixes.h"
#include "filter/ranges.h"
#include "util/hugemem.h"

const struct enum_value range_store_values[] = {
	ENUM_VALUE("auto", RANGE_STORE_AUTO, "by the cost model (plan --list shows it)"),
	ENUM_VALUE("intervals", RANGE_STORE_INTERVALS, "exact intervals, every family listed"),
	ENUM_VALUE("bloom", RANGE_STORE_BLOOM, "the Bloom filter, prefixes expanded"),
	{}
};

void range_set_init(struct range_set *s, __u32 family)
{
	memset(s, 0, sizeof(*s));
	s->family = family;
}

void range_set_free(struct range_set *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}

static __u32 family_width(__u32 family)
{
	return family == BLOOMXDP_KEY_IPV4 ? 32 : 128;
}

range_addr range_addr_of(__u32 family, const void *addr)
{
	const __u8 *b = addr;
	range_addr v = 0;
	__u32 i;

	for (i = 0; i < family_width(family) / 8; i++)
		v = v << 8 | b[i];
	return v;
}

static int range_push(struct range_set *s, range_addr start, range_addr end)
{
	struct range *grown;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		grown = realloc(s->r, s->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		s->r = grown;
	}
	s->r[s->n].start = start;
	s->r[s->n].end = end;
	s->n++;
	return 0;
}

int range_set_add_key(struct range_set *s, const struct bloomxdp_key *key)
{
	__u32 width = family_width(s->family), len = key_prefix_len(key);
	range_addr start, span;
	__u8 addr[16];
	__u32 v4;

	if (key_family(key) != s->family)
		return -EINVAL;
	if (s->family == BLOOMXDP_KEY_IPV4) {
		v4 = key->word[0] >> 32;
		memcpy(addr, &v4, 4);
	} else {
		memcpy(addr, &key->word[1], 8);
		memcpy(addr + 8, &key->word[2], 8);
	}
	start = range_addr_of(s->family, addr);
	/* Keys are masked to their length already; 2^(width-len) - 1 without shifting by 128. */
	span = width - len >= 128 ? ~(range_addr)0 : ((range_addr)1 << (width - len)) - 1;
	return range_push(s, start, start + span);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void range_set_merge(struct range_set *s)
{
	size_t i, out = 0;

	if (!s->n)
		return;
	qsort(s->r, s->n, sizeof(*s->r), range_cmp);
	for (i = 1; i < s->n; i++) {
		struct range *cur = &s->r[out];

		/* Overlapping or adjacent; end + 1 would wrap at the top of the space. */
		if (s->r[i].start <= cur->end || s->r[i].start - 1 == cur->end) {
			if (s->r[i].end > cur->end)
				cur->end = s->r[i].end;
		} else {
			s->r[++out] = s->r[i];
		}
	}
	s->n = out + 1;
}

/* The digits of 11 bits a packed IPv4 interval is sorted by: its start's, low first. */
static const int v4_shifts[3] = { 32, 43, 54 };
#define V4_DIGITS (1 << 11)
#define V4_DIGIT(w, d) (((w) >> v4_shifts[d]) & (V4_DIGITS - 1))
/* Past this many words, two threads sort them (range_v4_sort_two()). */
#define V4_SORT_SPLIT_MIN (1 << 20)

/* The radix sort of range_v4_sort() on one thread; tmp as large as a. */
static void range_v4_sort_one(__u64 *a, __u64 *tmp, size_t n)
{
	size_t count[3][V4_DIGITS] = { { 0 } }, i, sum;
	__u64 *from, *to, *swap;
	int d;

	/* Digits of 11 bits: their counts stay in the L1 cache, their 2048 outputs in the TLB. */
	for (i = 0; i < n; i++)
		for (d = 0; d < 3; d++)
			count[d][V4_DIGIT(a[i], d)]++;
	/* One pass counts all three digits; then each places the words by its own. */
	for (d = 0, from = a, to = tmp; d < 3; d++) {
		for (i = 0, sum = 0; i < V4_DIGITS; i++) {
			size_t c = count[d][i];

			count[d][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[count[d][V4_DIGIT(from[i], d)]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	/* Three passes: the sorted words are in tmp. */
	memcpy(a, from, n * sizeof(*a));
}

/* Two threads sorting one array: each its half of every pass, in step. */
struct v4_sort {
	__u64 *buf[2];		/* the words, and as many to place them in */
	size_t n;
	size_t count[2][V4_DIGITS];	/* each thread's words of each digit, this pass */
	pthread_barrier_t step;
};

struct v4_sort_half {
	struct v4_sort *s;
	int t;			/* 0: the first half of the words, 1: the second */
};

/*
 * One pass a digit, as range_v4_sort_one(): each thread counts the digits of
 * its half of the words, then places them after the words of smaller digits
 * and, for thread 1, after thread 0's of the same digit: the same stable order.
 */
static void *v4_sort_run(void *arg)
{
	const struct v4_sort_half *h = arg;
	struct v4_sort *s = h->s;
	size_t lo = h->t ? s->n / 2 : 0, hi = h->t ? s->n : s->n / 2, at[V4_DIGITS], i, sum;
	__u64 *from, *to;
	int d;

	for (d = 0; d < 3; d++) {
		from = s->buf[d % 2];
		to = s->buf[(d + 1) % 2];
		memset(s->count[h->t], 0, sizeof(s->count[h->t]));
		for (i = lo; i < hi; i++)
			s->count[h->t][V4_DIGIT(from[i], d)]++;
		pthread_barrier_wait(&s->step);
		for (i = 0, sum = 0; i < V4_DIGITS; i++) {
			at[i] = sum + (h->t ? s->count[0][i] : 0);
			sum += s->count[0][i] + s->count[1][i];
		}
		for (i = lo; i < hi; i++)
			to[at[V4_DIGIT(from[i], d)]++] = from[i];
		/* Both halves placed before the next pass reads them (and counts again). */
		pthread_barrier_wait(&s->step);
	}
	/* Three passes: the sorted words are in buf[1]. */
	memcpy(s->buf[0] + lo, s->buf[1] + lo, (hi - lo) * sizeof(__u64));
	return NULL;
}

/* -EAGAIN when no second thread is to be had (nothing moved yet). */
static int range_v4_sort_two(__u64 *a, __u64 *tmp, size_t n)
{
	struct v4_sort s = { .buf = { a, tmp }, .n = n };
	struct v4_sort_half h[2] = { { &s, 0 }, { &s, 1 } };
	pthread_t thread;
	int ret = 0;

	if (pthread_barrier_init(&s.step, NULL, 2))
		return -EAGAIN;
	if (pthread_create(&thread, NULL, v4_sort_run, &h[1])) {
		ret = -EAGAIN;
		goto out;
	}
	v4_sort_run(&h[0]);
	pthread_join(thread, NULL);
out:
	pthread_barrier_destroy(&s.step);
	return ret;
}

/* Sorted already, as many published lists are. */
static bool v4_sorted(const __u64 *a, size_t n)
{
	size_t i;

	for (i = 1; i < n && a[i - 1] <= a[i]; i++)
		;
	return i >= n;
}

static void v4_sort_unsorted(__u64 *a, size_t n, __u64 *tmp)
{
	if (n < V4_SORT_SPLIT_MIN || range_v4_sort_two(a, tmp, n))
		range_v4_sort_one(a, tmp, n);
}

/*
 * IPv4 intervals packed in one word, start in the high half: sorting the
 * words sorts by start. A quarter of the memory of struct range, and sorted by
 * radix (three passes of 11 bits) instead of qsort(): a list of 10 million
 * hosts is merged in a tenth of the time; past a million words, on two threads.
 */
int range_v4_sort(__u64 *a, size_t n)
{
	__u64 *tmp;

	if (v4_sorted(a, n))
		return 0;
	tmp = huge_realloc(NULL, n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	v4_sort_unsorted(a, n, tmp);
	huge_free(tmp);
	return 0;
}

void range_v4_sort_in(__u64 *a, size_t n, __u64 *tmp)
{
	if (!v4_sorted(a, n))
		v4_sort_unsorted(a, n, tmp);
}

void range_v4_pack(__u64 *words, size_t n)
{
	__u64 start;
	size_t i;
	__u32 len;

	for (i = 0; i < n; i++) {
		/* The address's bytes, network order, are the high half of word 0. */
		start = be32toh((__u32)(words[i] >> 32));
		len = (words[i] >> 8) & 0xff;
		words[i] = start << 32 | (start + ((1ULL << (32 - len)) - 1));
	}
}

void range_v4_key(__u64 packed, struct bloomxdp_key *key)
{
	__u64 span = (packed & 0xffffffff) - (packed >> 32) + 1;
	__u32 be = htobe32((__u32)(packed >> 32));

	memset(key, 0, sizeof(*key));
	bloomxdp_key_ipv4(key, &be, 32 - __builtin_ctzll(span));
}

int range_set_from_packed_v4(struct range_set *s, const __u64 *a, size_t m, __u64 keep_max)
{
	size_t i, n = 0;
	__u64 end = 0;

	range_set_free(s);
	/* Counted first: intervals the caller cannot use are not made (a list of hosts). */
	for (i = 0; i < m; i++) {
		/* Overlapping or adjacent (64-bit sums: no wrap at the top of the space). */
		if (n && (a[i] >> 32) <= end + 1) {
			if ((a[i] & 0xffffffff) > end)
				end = a[i] & 0xffffffff;
			continue;
		}
		n++;
		end = a[i] & 0xffffffff;
	}
	s->n = n;
	if (n > keep_max)
		return 0;
	s->r = malloc((n ? n : 1) * sizeof(*s->r));
	if (!s->r) {
		s->n = 0;
		return -ENOMEM;
	}
	s->cap = n;
	for (i = 0, n = 0; i < m; i++) {
		if (n && (a[i] >> 32) <= s->r[n - 1].end + 1) {
			if ((a[i] & 0xffffffff) > s->r[n - 1].end)
				s->r[n - 1].end = a[i] & 0xffffffff;
			continue;
		}
		s->r[n].start = a[i] >> 32;
		s->r[n].end = a[i] & 0xffffffff;
		n++;
	}
	return 0;
}

static int merge_keys_v4(struct range_set *s, const struct bloomxdp_key *keys, size_t n,
			 __u64 keep_max)
{
	size_t i, m = 0;
	__u64 *a;
	int ret;

	a = malloc((n ? n : 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (key_family(&keys[i]) == BLOOMXDP_KEY_IPV4)
			a[m++] = keys[i].word[0];
	range_v4_pack(a, m);
	ret = range_v4_sort(a, m);
	if (!ret)
		ret = range_set_from_packed_v4(s, a, m, keep_max);
	free(a);
	return ret;
}

int range_set_merge_keys(struct range_set *s, const struct bloomxdp_key *keys, size_t n,
			 __u64 keep_max)
{
	size_t i;
	int ret;

	range_set_free(s);
	if (s->family == BLOOMXDP_KEY_IPV4)
		return merge_keys_v4(s, keys, n, keep_max);
	for (i = 0; i < n; i++) {
		if (key_family(&keys[i]) != s->family)
			continue;
		ret = range_set_add_key(s, &keys[i]);
		if (ret)
			return ret;
	}
	range_set_merge(s);
	return 0;
}

long range_set_find(const struct range_set *s, range_addr addr)
{
	size_t lo = 0, hi = s->n;

	/* The first interval starting after addr; the one before may hold it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr <= s->r[lo - 1].end ? (long)(lo - 1) : -1;
}

static void addr_bytes(__u32 family, range_addr v, __u8 out[16])
{
	int i, n = family_width(family) / 8;

	for (i = n - 1; i >= 0; i--, v >>= 8)
		out[i] = v & 0xff;
}

const char *range_text(__u32 family, const struct range *r, char *buf, size_t len)
{
	__u32 width = family_width(family), host = 0;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int af = family == BLOOMXDP_KEY_IPV4 ? AF_INET : AF_INET6;
	range_addr span = r->end - r->start;
	__u8 bytes[16];

	/* One prefix: span + 1 a power of two, start aligned on it. */
	while (host < width && ((span >> host) & 1))
		host++;
	addr_bytes(family, r->start, bytes);
	inet_ntop(af, bytes, a, sizeof(a));
	if ((host == 128 || (span >> host) == 0) &&
	    (host == 128 || (r->start & (((range_addr)1 << host) - 1)) == 0)) {
		snprintf(buf, len, "%s/%u", a, width - host);
		return buf;
	}
	addr_bytes(family, r->end, bytes);
	inet_ntop(af, bytes, b, sizeof(b));
	snprintf(buf, len, "%s-%s", a, b);
	return buf;
}

/*
 * The B+tree of common.h for n intervals of a family: its nodes' size, and
 * the element each level starts at (root first, then the leaves, then past them).
 */
struct range_shape {
	__u32 keys;		/* starts of an inner node */
	__u32 pairs;		/* intervals of a leaf */
	__u32 line;		/* bytes of an element */
	__u32 levels;		/* inner levels */
	__u64 level_at[BLOOMXDP_RANGE_LEVELS + 2];
};

/* -E2BIG past BLOOMXDP_RANGE_LEVELS_V4 (_V6) inner levels or 2^32 - 1 elements. */
static int range_shape_of(__u32 family, __u64 n, struct range_shape *sh)
{
	__u32 most = family == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_RANGE_LEVELS_V4 : BLOOMXDP_RANGE_LEVELS_V6;
	__u64 nodes[BLOOMXDP_RANGE_LEVELS], count;
	__u32 k = 0, l;

	memset(sh, 0, sizeof(*sh));
	sh->keys = family == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_RANGE_KEYS_V4 : BLOOMXDP_RANGE_KEYS_V6;
	sh->pairs = family == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_RANGE_PAIRS_V4 : BLOOMXDP_RANGE_PAIRS_V6;
	sh->line = family == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_RANGE_LINE_V4 : BLOOMXDP_RANGE_LINE_V6;
	count = n ? (n + sh->pairs - 1) / sh->pairs : 1;	/* leaves */
	for (; count > 1; k++) {
		if (k == most)
			return -E2BIG;
		count = (count + sh->keys) / (sh->keys + 1);
		nodes[k] = count;	/* from the leaves up */
	}
	sh->levels = k;
	sh->level_at[0] = 1;	/* after the header */
	for (l = 0; l < k; l++)
		sh->level_at[l + 1] = sh->level_at[l] + nodes[k - 1 - l];
	sh->level_at[k + 1] = sh->level_at[k] + (n ? (n + sh->pairs - 1) / sh->pairs : 1);
	return sh->level_at[k + 1] > UINT32_MAX ? -E2BIG : 0;
}

__u64 range_set_bytes(__u32 family, __u64 n)
{
	struct range_shape sh;

	if (!n)
		return 0;
	if (range_shape_of(family, n, &sh))
		return UINT64_MAX;
	return sh.level_at[sh.levels + 1] * sh.line;
}

/*
 * What the cost model's memory rule weighs: the intervals' own bytes, a start and
 * an end each (8 for IPv4, 32 for IPv6), as the Bloom side weighs its keys' bits.
 * Neither counts its fixed part: the tree's header line and a last leaf partly
 * filled, the filter's header block. Counted whole, the tree's two lines at
 * least (128 bytes) outweighed a Bloom filter's 13 bytes for 11 hosts that merge
 * into 2 intervals (16 bytes), which were held exactly before the tree.
 */
static double range_pair_bytes(__u32 family, __u64 n)
{
	return (double)n * (family == BLOOMXDP_KEY_IPV6 ? sizeof(struct bloomxdp_range_v6) :
							   sizeof(struct bloomxdp_range_v4));
}

/* The most intervals whose array takes at most bytes. */
static __u64 range_set_max_n(__u32 family, double bytes)
{
	__u64 lo = 0, hi = bytes < 0x1p40 ? bytes / 8 + 1 : 1ULL << 37;

	/* range_set_bytes() grows with n: the last n within bytes, by bisection. */
	while (lo < hi) {
		__u64 mid = lo + (hi - lo + 1) / 2;

		if (range_set_bytes(family, mid) <= bytes)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

__u32 range_set_steps(__u32 family, __u64 n)
{
	struct range_shape sh;

	if (!n)
		return 0;
	return range_shape_of(family, n, &sh) ? 0 : sh.levels + 2;
}

/* The interval at i, or the last one past n (the leaves' padding). */
static void range_put_leaf(const struct range_set *s, size_t i, void *leaf)
{
	const struct range *r = &s->r[i < s->n ? i : s->n - 1];
	struct bloomxdp_range_v4 *r4 = leaf;
	struct bloomxdp_range_v6 *r6 = leaf;

	if (s->family == BLOOMXDP_KEY_IPV4) {
		r4->start = r->start;
		r4->end = r->end;
		return;
	}
	r6->start_hi = r->start >> 64;
	r6->start_lo = (__u64)r->start;
	r6->end_hi = r->end >> 64;
	r6->end_lo = (__u64)r->end;
}

static void range_put_key(__u32 family, void *line, __u32 j, range_addr v)
{
	union bloomxdp_range_line_v4 *l4 = line;
	union bloomxdp_range_line_v6 *l6 = line;

	if (family == BLOOMXDP_KEY_IPV4) {
		l4->key[j] = v;
	} else {
		l6->key[j].hi = v >> 64;
		l6->key[j].lo = (__u64)v;
	}
}

/*
 * The tree into mem (the mmap of the array): the header, the leaves, then
 * each inner level from the lowest up. first[] holds the first start under
 * each node of the level below (its leftmost leaf's), in place as levels go up.
 */
static int range_tree_fill(const struct range_set *s, const struct range_shape *sh, void *mem)
{
	__u64 leaves = sh->level_at[sh->levels + 1] - sh->level_at[sh->levels], below, i;
	struct bloomxdp_ranges_hdr *h = mem;
	range_addr *first;
	__u32 j, l;
	char *at;

	first = malloc(leaves * sizeof(*first));
	if (!first)
		return -ENOMEM;
	h->n = s->n;
	h->levels = sh->levels;
	for (l = 0; l < sh->levels + 2; l++)
		h->level_at[l] = sh->level_at[l];
	at = (char *)mem + sh->level_at[sh->levels] * sh->line;
	for (i = 0; i < leaves; i++) {
		for (j = 0; j < sh->pairs; j++)
			range_put_leaf(s, i * sh->pairs + j, at + i * sh->line + j * sh->line / sh->pairs);
		first[i] = s->r[i * sh->pairs].start;
	}
	below = leaves;
	for (l = sh->levels; l-- > 0;) {
		__u64 nodes = sh->level_at[l + 1] - sh->level_at[l], child;

		at = (char *)mem + sh->level_at[l] * sh->line;
		for (i = 0; i < nodes; i++) {
			for (j = 0; j < sh->keys; j++) {
				child = i * (sh->keys + 1) + j + 1;
				range_put_key(s->family, at + i * sh->line, j,
					      child < below ? first[child] : ~(range_addr)0);
			}
			first[i] = first[i * (sh->keys + 1)];
		}
		below = nodes;
	}
	free(first);
	return 0;
}

static size_t page_round(size_t bytes)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (bytes + page - 1) / page * page;
}

int range_set_create_map(const struct range_set *s)
{
	/* As the template of bpf/maps.h: any size in one outer map. */
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	struct range_shape sh;
	size_t bytes;
	__u32 lines;
	void *mem;
	int fd, ret;

	if (!s->n)
		return -EINVAL;
	ret = range_shape_of(s->family, s->n, &sh);
	if (ret)
		return ret;
	lines = sh.level_at[sh.levels + 1];
	bytes = page_round((size_t)lines * sh.line);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, s->family == BLOOMXDP_KEY_IPV4 ? "bloomxdp_r4" :
			    "bloomxdp_r6", sizeof(__u32), sh.line, lines, &opts);
	if (fd < 0)
		return -errno;
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = range_tree_fill(s, &sh, mem);
	munmap(mem, bytes);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * The array of a generation's intervals, its header (the count and shape)
 * and its elements; -EINVAL when the header does not describe the array.
 */
static int range_map_get(int outer_fd, __u32 slot, union bloomxdp_range_line_v6 *hdr,
			 __u32 *lines)
{
	struct bpf_map_info info = {};
	__u32 id, len = sizeof(info), zero = 0;
	int fd, ret = -EINVAL;

	if (bpf_map_lookup_elem(outer_fd, &slot, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		ret = -errno;
		goto fail;
	}
	if (!info.max_entries || info.value_size > sizeof(*hdr) ||
	    info.value_size < sizeof(hdr->hdr))
		goto fail;
	if (bpf_map_lookup_elem(fd, &zero, hdr)) {
		ret = -errno;
		goto fail;
	}
	*lines = info.max_entries;
	return fd;
fail:
	close(fd);
	return ret;
}

/* Whether h describes the array of lines elements of family: the shape its n makes. */
static bool range_hdr_ok(const struct bloomxdp_ranges_hdr *h, __u32 family, __u32 lines,
			 struct range_shape *sh)
{
	__u32 l;

	if (range_shape_of(family, h->n, sh) || sh->levels != h->levels ||
	    sh->level_at[sh->levels + 1] != lines)
		return false;
	for (l = 0; l < sh->levels + 2; l++)
		if (sh->level_at[l] != h->level_at[l])
			return false;
	return true;
}

int range_set_count(int outer_fd, __u32 slot, __u64 *n)
{
	union bloomxdp_range_line_v6 line;
	__u32 lines;
	int fd = range_map_get(outer_fd, slot, &line, &lines);

	*n = 0;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	close(fd);
	*n = line.hdr.n;
	return 0;
}

int range_set_open(int outer_fd, __u32 slot, __u32 family, struct range_set *s)
{
	union bloomxdp_range_line_v6 line;
	const char *leaves;
	struct range_shape sh;
	size_t bytes = 0, i;
	int fd, ret = 0;
	void *mem = MAP_FAILED;
	__u32 lines;

	range_set_init(s, family);
	fd = range_map_get(outer_fd, slot, &line, &lines);
	if (fd < 0)
		return fd;
	if (!line.hdr.n || !range_hdr_ok(&line.hdr, family, lines, &sh)) {
		ret = -EINVAL;
		goto cleanup;
	}
	bytes = page_round((size_t)lines * sh.line);
	s->r = calloc(line.hdr.n, sizeof(*s->r));
	mem = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (!s->r || mem == MAP_FAILED) {
		ret = s->r ? -errno : -ENOMEM;
		goto cleanup;
	}
	s->n = s->cap = line.hdr.n;
	leaves = (const char *)mem + sh.level_at[sh.levels] * sh.line;
	for (i = 0; i < s->n; i++) {
		const void *at = leaves + i / sh.pairs * sh.line + i % sh.pairs * (sh.line / sh.pairs);
		const struct bloomxdp_range_v4 *r4 = at;
		const struct bloomxdp_range_v6 *r6 = at;

		if (family == BLOOMXDP_KEY_IPV4) {
			s->r[i].start = r4->start;
			s->r[i].end = r4->end;
		} else {
			s->r[i].start = (range_addr)r6->start_hi << 64 | r6->start_lo;
			s->r[i].end = (range_addr)r6->end_hi << 64 | r6->end_lo;
		}
	}
cleanup:
	if (mem != MAP_FAILED)
		munmap(mem, bytes);
	if (ret)
		range_set_free(s);
	close(fd);
	return ret;
}

__u64 range_cost_max_intervals(const struct range_cost *c, __u32 family, double bits_per_key,
			       enum range_store store)
{
	struct range_cost most = *c;
	__u64 by_bytes, by_budget = 0;

	/* Merging never makes more intervals than entries; fewer only make them cheaper. */
	most.intervals = c->entries;
	range_cost_decide(&most, family, bits_per_key, store);
	if (most.use_ranges)
		return UINT64_MAX;
	if (!c->entries || store == RANGE_STORE_BLOOM)
		return 0;
	by_bytes = RANGE_MEMORY_FACTOR * most.bloom_bytes / range_pair_bytes(family, 1);
	if (c->probes > 1)
		by_budget = range_set_max_n(family, c->budget);
	return by_bytes > by_budget ? by_bytes : by_budget;
}

void range_cost_decide(struct range_cost *c, __u32 family, double bits_per_key,
		       enum range_store store)
{
	__u64 n = c->intervals;

	c->range_bytes = range_set_bytes(family, n);
	c->steps = range_set_steps(family, n);
	c->bloom_bytes = isfinite(c->expanded) ? c->expanded * bits_per_key / 8 : INFINITY;
	if (!c->entries || store == RANGE_STORE_BLOOM)
		c->use_ranges = false;
	else if (store == RANGE_STORE_INTERVALS)
		c->use_ranges = true;
	else
		c->use_ranges = !isfinite(c->expanded) ||
				c->expanded > RANGE_EXPANSION_BOUND * c->entries ||
				range_pair_bytes(family, n) <= RANGE_MEMORY_FACTOR * c->bloom_bytes ||
				(c->probes > 1 && c->range_bytes <= c->budget);
}
