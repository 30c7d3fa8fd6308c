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

struct list {
	struct pfx p[N_V4 + N_V6 + 2];
	char text[N_V4 + N_V6 + 2][INET6_ADDRSTRLEN + 8];
	const char *entries[N_V4 + N_V6 + 2];
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

static int ctx_open(struct ctx *c, __u64 seed, bool verify)
{
	struct harness_config hc = { .match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_DROP,
				     .verify = verify };
	char err[LIST_ERROR_LEN], path[64];
	__u32 zero = 0;
	int ret, fam;

	c->fds[0] = c->fds[1] = -1;
	c->verify = verify;
	list_make(&c->l, seed);
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
		print_error("list %llu: %s\n", (unsigned long long)seed, err);
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

static void ctx_close(struct ctx *c)
{
	list_build_free(&c->b);
	if (c->fds[0] >= 0)
		close(c->fds[0]);
	if (c->fds[1] >= 0)
		close(c->fds[1]);
	harness_close(&c->h);
}

/* One address as the source of a frame: the verdict and counters the reference wants. */
static int check_one(struct ctx *c, u128 v, __u32 width, const char *what)
{
	bool want = ref_covers(&c->l, v, width), v6 = width == 128;
	const struct range_set *s = &c->b.ranges[v6];
	struct bloomxdp_counters got, exp;
	char text[INET6_ADDRSTRLEN];
	struct frame_desc d = { .ethertype = v6 ? ETH_P_IPV6 : ETH_P_IP };
	struct frame f;
	__u32 verdict = ~0U;
	int bad = 0;
	size_t i;

	d.src = value_text(v, width, text);
	if ((range_set_find(s, v) >= 0) != want) {
		print_error("%s %s: user space says %s\n", what, text, want ? "no" : "yes");
		bad++;
	}
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

static void run_lists(bool verify)
{
	u128 max;
	int bad = 0, seed, i, fam;

	for (seed = 1; seed <= N_LISTS; seed++) {
		struct ctx *c = calloc(1, sizeof(*c));
		__u64 s = seed;

		assert_non_null(c);
		if (ctx_open(c, seed, verify))
			fail_msg("list %d: cannot load it", seed);
		/* The Bloom filter holds nothing: no address can be a false positive. */
		assert_int_equal(filter_popcount(&c->h.lp.filter), 0);
		for (i = 0; i < (int)c->l.n; i++) {
			const struct pfx *p = &c->l.p[i];

			max = p->width == 32 ? 0xffffffffULL : ~(u128)0;
			if (p->start > 0)
				bad += check_one(c, p->start - 1, p->width, "start-1");
			bad += check_one(c, p->start, p->width, "start");
			bad += check_one(c, p->end, p->width, "end");
			if (p->end < max)
				bad += check_one(c, p->end + 1, p->width, "end+1");
		}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_lists),
		cmocka_unit_test(test_random_lists_verify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
