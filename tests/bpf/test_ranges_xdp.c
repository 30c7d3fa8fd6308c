// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Exact intervals (load --store intervals) in bpf/bloomxdp.bpf.c, through
 * BPF_PROG_TEST_RUN: random lists of prefixes of every length, both families,
 * crowded into small windows so that they overlap, nest and touch (IPv6 ones
 * across the carry from the low 64 bits into the high ones), are built as
 * load builds them, and every address a brute-force reference says a listed
 * prefix covers must drop, every other pass: the first and last address of
 * each prefix, the ones just outside, and random ones in the window. The
 * Bloom filter holds no key then (no false positive possible), a hit counts
 * as range_hits, never as a Bloom hit, and with --verify a hit needs no confirmation
 * (the exact copy is left empty here). User space's search
 * (range_set_find, what query uses) must agree on every address too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "xdp_harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define N_LISTS		12
#define N_V4		60
#define N_V6		60
#define N_RANDOM	60

typedef unsigned __int128 u128;

struct pfx {
	u128 start, end;	/* the prefix's first and last address */
	__u32 width;
};

/* Room for the random lists and for the shapes' (test_shapes()). */
#define LIST_MAX	3000

struct list {
	struct pfx p[LIST_MAX];
	char text[LIST_MAX][INET6_ADDRSTRLEN + 8];
	const char *entries[LIST_MAX];
	size_t n;
};

static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void value_bytes(u128 v, __u32 width, __u8 *out)
{
	int i;

	for (i = width / 8 - 1; i >= 0; i--, v >>= 8)
		out[i] = (__u8)v;
}

static const char *value_text(u128 v, __u32 width, char buf[INET6_ADDRSTRLEN])
{
	__u8 b[16] = { 0 };

	value_bytes(v, width, b);
	return inet_ntop(width == 32 ? AF_INET : AF_INET6, b, buf, INET6_ADDRSTRLEN);
}

static void list_put(struct list *l, u128 addr, __u32 width, __u32 len)
{
	u128 span = width - len >= 128 ? ~(u128)0 : ((u128)1 << (width - len)) - 1;
	struct pfx *p = &l->p[l->n];
	char a[INET6_ADDRSTRLEN];

	p->width = width;
	p->start = addr & ~span;
	p->end = p->start | span;
	snprintf(l->text[l->n], sizeof(l->text[0]), "%s/%u", value_text(p->start, width, a), len);
	l->entries[l->n] = l->text[l->n];
	l->n++;
}

/* IPv4 in 10.0.0.0/18, lengths 18..32; IPv6 around the carry at bit 64, lengths 58..128. */
#define V4_BASE		((u128)0x0a000000)
#define V6_BASE		((u128)0x20010db800000000ULL << 64)
#define V6_HI_MASK	0x3ULL

static void list_make(struct list *l, __u64 seed)
{
	__u64 s = seed * 0x9e3779b97f4a7c15ULL + 1, k;
	int i;

	l->n = 0;
	for (i = 0; i < N_V4; i++)
		list_put(l, V4_BASE + (rng_next(&s) & 0x3fff), 32, 18 + rng_next(&s) % 15);
	for (i = 0; i < N_V6; i++) {
		u128 hi = rng_next(&s) & V6_HI_MASK, lo = rng_next(&s);

		/* Most near either end of the low half: the carry is where merging can slip. */
		if (i % 3 == 0)
			lo |= 0xffffffffffff0000ULL;
		else if (i % 3 == 1)
			lo &= 0xffffULL;
		list_put(l, V6_BASE + (hi << 64) + lo, 128, 58 + rng_next(&s) % 71);
	}
	/* Two that touch across the carry: ...:ffff:ff00/120 and the next /72. */
	k = rng_next(&s) % V6_HI_MASK;
	list_put(l, V6_BASE + ((u128)k << 64) + 0xffffffffffffff00ULL, 128, 120);
	list_put(l, V6_BASE + ((u128)(k + 1) << 64), 128, 72);
}

static bool ref_covers(const struct list *l, u128 v, __u32 width)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->p[i].width == width && l->p[i].start <= v && v <= l->p[i].end)
			return true;
	return false;
}

struct ctx {
	struct xdp_harness h;
	struct list l;
	struct list_build b;
	int fds[2];
	bool verify;
};

/* c->l (both families) loaded as exact intervals into generation 0. */
static int ctx_load(struct ctx *c, bool verify)
{
	struct harness_config hc = { .match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_DROP,
				     .verify = verify };
	char err[LIST_ERROR_LEN], path[64];
	__u32 zero = 0;
	int ret, fam;

	c->fds[0] = c->fds[1] = -1;
	c->verify = verify;
	ret = harness_open(&c->h, &hc);
	if (ret)
		return ret;
	ret = harness_write_list(c->l.entries, c->l.n, path);
	if (ret)
		return ret;
	list_build_init(&c->b, &c->h.lp.filter, LIST_DEFAULT_PREFIX_PROBES);
	c->b.ranges_ok = true;
	c->b.store = RANGE_STORE_INTERVALS;
	ret = list_build_read(&c->b, path, FORMAT_AUTO, err);
	if (!ret)
		ret = list_build_finish(&c->b, err);
	unlink(path);
	if (ret) {
		print_error("%s\n", err);
		return ret;
	}
	for (fam = 0; fam < 2; fam++) {
		if (!c->b.cost[fam].use_ranges)
			return -EINVAL;
		c->fds[fam] = range_set_create_map(&c->b.ranges[fam]);
		if (c->fds[fam] < 0)
			return c->fds[fam];
		if (bpf_map_update_elem(bpf_map__fd(fam ? c->h.lp.skel->maps.ranges_v6 :
						    c->h.lp.skel->maps.ranges_v4),
					&zero, &c->fds[fam], BPF_ANY))
			return -errno;
	}
	return 0;
}

static int ctx_open(struct ctx *c, __u64 seed, bool verify)
{
	list_make(&c->l, seed);
	return ctx_load(c, verify);
}

static void ctx_close(struct ctx *c)
{
	list_build_free(&c->b);
	if (c->fds[0] >= 0)
		close(c->fds[0]);
	if (c->fds[1] >= 0)
		close(c->fds[1]);
	harness_close(&c->h);
}

/*
 * One address as the source of a frame: dropped when want, with the counters
 * of an interval hit; else passed, and counted in bad_ranges when malformed.
 */
static int check_want(struct ctx *c, u128 v, __u32 width, bool want, bool malformed,
		      const char *what)
{
	bool v6 = width == 128;
	struct bloomxdp_counters got, exp;
	char text[INET6_ADDRSTRLEN];
	struct frame_desc d = { .ethertype = v6 ? ETH_P_IPV6 : ETH_P_IP };
	struct frame f;
	__u32 verdict = ~0U;
	int bad = 0;
	size_t i;

	d.src = value_text(v, width, text);
	assert_int_equal(frame_build(&f, &d), 0);
	assert_int_equal(harness_run_counted(&c->h, &f, &verdict, &got), 0);
	memset(&exp, 0, sizeof(exp));
	exp.packets = 1;
	exp.bytes = f.len;
	exp.checked_v4 = !v6;
	exp.checked_v6 = v6;
	exp.hits_v4 = want && !v6;
	exp.hits_v6 = want && v6;
	exp.range_hits = want;
	exp.dropped = want;
	exp.passed = !want;
	exp.bad_ranges = malformed;
	if (verdict != (want ? XDP_DROP : XDP_PASS)) {
		print_error("%s %s: verdict %u, the reference says %s\n", what, text, verdict,
			    want ? "covered" : "not covered");
		bad++;
	}
	for (i = 0; i < HARNESS_NCOUNTERS; i++)
		if (*counter_at(&got, i) != *counter_at(&exp, i)) {
			print_error("%s %s: counter %s moved by %llu, expected %llu\n", what, text,
				    harness_counter_names[i],
				    (unsigned long long)*counter_at(&got, i),
				    (unsigned long long)*counter_at(&exp, i));
			bad++;
		}
	return bad;
}

/* The verdict and counters the brute-force reference wants, and user space's search agreeing. */
static int check_one(struct ctx *c, u128 v, __u32 width, const char *what)
{
	bool want = ref_covers(&c->l, v, width), v6 = width == 128;
	char text[INET6_ADDRSTRLEN];
	int bad = 0;

	if ((range_set_find(&c->b.ranges[v6], v) >= 0) != want) {
		print_error("%s %s: user space says %s\n", what, value_text(v, width, text),
			    want ? "no" : "yes");
		bad++;
	}
	return bad + check_want(c, v, width, want, false, what);
}

/* The addresses around prefix p: the one before, its first and last, the one after. */
static int check_bounds(struct ctx *c, const struct pfx *p)
{
	u128 max = p->width == 32 ? 0xffffffffULL : ~(u128)0;
	int bad = 0;

	if (p->start > 0)
		bad += check_one(c, p->start - 1, p->width, "start-1");
	bad += check_one(c, p->start, p->width, "start");
	bad += check_one(c, p->end, p->width, "end");
	if (p->end < max)
		bad += check_one(c, p->end + 1, p->width, "end+1");
	return bad;
}

static void run_lists(bool verify)
{
	int bad = 0, seed, i, fam;

	for (seed = 1; seed <= N_LISTS; seed++) {
		struct ctx *c = calloc(1, sizeof(*c));
		__u64 s = seed;

		assert_non_null(c);
		if (ctx_open(c, seed, verify))
			fail_msg("list %d: cannot load it", seed);
		/* The Bloom filter holds nothing: no address can be a false positive. */
		assert_int_equal(filter_popcount(&c->h.lp.filter), 0);
		for (i = 0; i < (int)c->l.n; i++)
			bad += check_bounds(c, &c->l.p[i]);
		for (i = 0; i < N_RANDOM; i++) {
			bad += check_one(c, V4_BASE + (rng_next(&s) & 0x7fff), 32, "random");
			fam = rng_next(&s) & V6_HI_MASK;
			bad += check_one(c, V6_BASE + ((u128)fam << 64) + rng_next(&s), 128,
					 "random");
		}
		/* Merging shrank the list: fewer intervals than prefixes. */
		assert_true(c->b.ranges[1].n < N_V6 + 2);
		ctx_close(c);
		free(c);
		if (bad)
			fail_msg("list %d: %d mismatch(es), see above", seed, bad);
	}
}

static void test_random_lists(void **state)
{
	(void)state;
	run_lists(false);
}

/* --verify: an interval hit is exact, the (empty) exact copy is not asked. */
static void test_random_lists_verify(void **state)
{
	(void)state;
	run_lists(true);
}

/* n4 and n6 hosts two apart (n disjoint intervals), and with ends the first and last addresses. */
static void list_hosts(struct list *l, __u32 n4, __u32 n6, bool ends)
{
	__u32 i;

	l->n = 0;
	if (ends) {
		list_put(l, 0, 32, 32);
		list_put(l, 0xffffffffULL, 32, 32);
		list_put(l, 0, 128, 128);
		list_put(l, ~(u128)0, 128, 128);
	}
	for (i = 0; i < n4; i++)
		list_put(l, V4_BASE + 2 * i, 32, 32);
	for (i = 0; i < n6; i++)
		list_put(l, V6_BASE + 2 * i, 128, 128);
}

/* What range_set_open() and range_set_count() read back is what was stored. */
static int check_read_back(struct ctx *c)
{
	int fam, bad = 0;

	for (fam = 0; fam < 2; fam++) {
		const struct range_set *want = &c->b.ranges[fam];
		int outer = bpf_map__fd(fam ? c->h.lp.skel->maps.ranges_v6 :
					c->h.lp.skel->maps.ranges_v4);
		struct range_set got;
		__u64 n;

		assert_int_equal(range_set_open(outer, 0, want->family, &got), 0);
		assert_int_equal(range_set_count(outer, 0, &n), 0);
		if (got.n != want->n || n != want->n ||
		    memcmp(got.r, want->r, want->n * sizeof(*want->r))) {
			print_error("family %d: %zu intervals stored, %zu read back (count %llu)\n",
				    fam, want->n, got.n, (unsigned long long)n);
			bad++;
		}
		range_set_free(&got);
	}
	return bad;
}

/*
 * Trees of every shape: one leaf, full and part-full leaves and nodes, one
 * level and the next (IPv4: leaves of 8, nodes of 17; IPv6: 4 and 9), the
 * first and last addresses of the space listed or not. Every bound of the
 * first and last 12 intervals, of every 61st between (the kernel tier runs
 * this under TCG), and of the space.
 */
static void test_shapes(void **state)
{
	static const struct { __u32 n4, n6; bool ends; } shapes[] = {
		{ 1, 1, false }, { 0, 0, true }, { 7, 3, true }, { 8, 4, false },
		{ 9, 5, true }, { 136, 36, false }, { 137, 37, true }, { 2312, 324, false },
		{ 2313, 325, true },
	};
	size_t k, i;
	int bad = 0;

	(void)state;
	for (k = 0; k < ARRAY_SIZE(shapes); k++) {
		struct ctx *c = calloc(1, sizeof(*c));

		assert_non_null(c);
		list_hosts(&c->l, shapes[k].n4, shapes[k].n6, shapes[k].ends);
		if (ctx_load(c, false))
			fail_msg("shape %zu: cannot load it", k);
		bad += check_read_back(c);
		for (i = 0; i < c->l.n; i++)
			if (i < 12 || i + 12 >= c->l.n || i % 61 == 0)
				bad += check_bounds(c, &c->l.p[i]);
		bad += check_one(c, 0, 32, "0.0.0.0") + check_one(c, 1, 32, "0.0.0.1");
		bad += check_one(c, 0xfffffffeULL, 32, "max-1") + check_one(c, 0xffffffffULL, 32, "max");
		bad += check_one(c, 0, 128, "::") + check_one(c, 1, 128, "::1");
		bad += check_one(c, ~(u128)1, 128, "max-1") + check_one(c, ~(u128)0, 128, "max");
		ctx_close(c);
		free(c);
		if (bad)
			fail_msg("shape %zu (%u IPv4, %u IPv6%s): %d mismatch(es), see above", k,
				 shapes[k].n4, shapes[k].n6, shapes[k].ends ? ", ends" : "", bad);
	}
}

/* An array of lines lines of family fam (0: IPv4), line 0 hdr and the rest all ones. */
static int malformed_map(int fam, const struct bloomxdp_ranges_hdr *hdr, __u32 lines)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	union bloomxdp_range_line_v6 line;
	__u32 vsize = fam ? BLOOMXDP_RANGE_LINE_V6 : BLOOMXDP_RANGE_LINE_V4, i;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bad_ranges", sizeof(__u32), vsize, lines, &opts);
	if (fd < 0)
		return -errno;
	for (i = 0; i < lines; i++) {
		memset(&line, 0xff, sizeof(line));
		if (!i)
			memcpy(&line, hdr, sizeof(*hdr));
		if (bpf_map_update_elem(fd, &i, &line, BPF_ANY)) {
			close(fd);
			return -errno;
		}
	}
	return fd;
}

/*
 * A malformed array (too many levels, a level past its end) fails open: the
 * packet passes, counted in bad_ranges, and user space refuses to read it;
 * an empty one (n 0) passes uncounted.
 */
static void test_malformed(void **state)
{
	static const struct { struct bloomxdp_ranges_hdr hdr; bool bad; } cases[] = {
		{ { .n = 5, .levels = BLOOMXDP_RANGE_LEVELS + 1 }, true },
		{ { .n = 5, .levels = 1, .level_at = { 1, 7, 9 } }, true },
		{ { .n = 5, .levels = 0, .level_at = { 4, 9 } }, true },
		{ { .n = 0 }, false },
	};
	struct ctx *c = calloc(1, sizeof(*c));
	struct range_set got;
	__u32 zero = 0;
	size_t k;
	int fam, fd, bad = 0;

	(void)state;
	assert_non_null(c);
	list_hosts(&c->l, 9, 5, false);
	if (ctx_load(c, false))
		fail_msg("cannot load the list");
	for (k = 0; k < ARRAY_SIZE(cases); k++)
		for (fam = 0; fam < 2; fam++) {
			int outer = bpf_map__fd(fam ? c->h.lp.skel->maps.ranges_v6 :
						c->h.lp.skel->maps.ranges_v4);

			fd = malformed_map(fam, &cases[k].hdr, 3);
			assert_true(fd >= 0);
			assert_int_equal(bpf_map_update_elem(outer, &zero, &fd, BPF_ANY), 0);
			close(fd);
			/* Listed in the list loaded, not in the array now there. */
			bad += check_want(c, fam ? V6_BASE : V4_BASE, fam ? 128 : 32, false,
					  cases[k].bad, "malformed");
			assert_int_equal(range_set_open(outer, 0, fam ? BLOOMXDP_KEY_IPV6 :
							BLOOMXDP_KEY_IPV4, &got), -EINVAL);
		}
	ctx_close(c);
	free(c);
	if (bad)
		fail_msg("%d mismatch(es), see above", bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_lists),
		cmocka_unit_test(test_random_lists_verify),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
