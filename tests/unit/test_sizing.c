// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Sizing formulas and the CLI's parsing of --capacity and --fpr. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <sys/resource.h>
#include <cmocka.h>

#include <bloomxdp/common.h>
#include "util/numbers.h"
#include "filter/bloom_plan.h"

static void test_plan_one_million_at_one_percent(void **state)
{
	struct bloom_plan p;

	(void)state;
	assert_int_equal(bloom_plan_compute(1000000, 0.01, &p), 0);
	/* m = ceil(-n ln p / ln(2)^2) = 9,585,059, rounded up to whole 64-bit words. */
	assert_true(p.bits >= 9585059 && p.bits < 9585059 + 64);
	assert_int_equal(p.bits % 64, 0);
	assert_int_equal(p.hashes, 7);
	assert_int_equal(p.bytes, p.bits / 8);
	assert_true(p.bytes > 1.13 * 1048576 && p.bytes < 1.15 * 1048576);
	assert_true(fabs(bloom_fpr_for_entries(p.bits, p.hashes, 1000000) - 0.01) < 0.0005);
}

static void test_plan_hashes_follow_fpr(void **state)
{
	struct bloom_plan p;

	(void)state;
	assert_int_equal(bloom_plan_compute(1000, 0.5, &p), 0);
	assert_int_equal(p.hashes, 1);
	assert_int_equal(bloom_plan_compute(1000, 0.001, &p), 0);
	assert_int_equal(p.hashes, 10);
	assert_int_equal(bloom_plan_compute(1000, 1e-9, &p), 0);
	assert_int_equal(p.hashes, 30);
	/* A single entry still gets a whole word and at least one hash. */
	assert_int_equal(bloom_plan_compute(1, 0.9, &p), 0);
	assert_int_equal(p.bits, 64);
	assert_true(p.hashes >= 1);
}

static void test_plan_rejects_bad_arguments(void **state)
{
	struct bloom_plan p;

	(void)state;
	assert_int_equal(bloom_plan_compute(0, 0.01, &p), -EINVAL);
	assert_int_equal(bloom_plan_compute(1000, 0.0, &p), -EINVAL);
	assert_int_equal(bloom_plan_compute(1000, 1.0, &p), -EINVAL);
	assert_int_equal(bloom_plan_compute(1000, -0.1, &p), -EINVAL);
	assert_int_equal(bloom_plan_compute(1000, NAN, &p), -EINVAL);
	/* 1e9 entries at 1e-6 need ~28.8e9 bits: beyond 32-bit probe arithmetic. */
	assert_int_equal(bloom_plan_compute(1000000000ULL, 1e-6, &p), -E2BIG);
}

static void test_fpr_estimates(void **state)
{
	(void)state;
	assert_true(bloom_fpr_for_entries(1000, 5, 0) == 0.0);
	assert_true(fabs(bloom_fpr_for_fill(0.5, 7) - 0.0078125) < 1e-12);
	/* The fill after n inserts is 1 - e^(-kn/m); inverting it gives n back. */
	assert_true(fabs(bloom_entries_for_fill(9585088, 7, 1 - exp(-7.0 * 1e6 / 9585088)) - 1e6)
		    < 1);
	assert_true(isinf(bloom_entries_for_fill(64, 1, 1.0)));
}

static void test_parse_count(void **state)
{
	__u64 v;

	(void)state;
	assert_int_equal(parse_count("--capacity", "1000000", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(parse_count("--capacity", "1e6", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(parse_count("--capacity", "10M", &v), 0);
	assert_int_equal(v, 10000000);
	assert_int_equal(parse_count("--capacity", "2k", &v), 0);
	assert_int_equal(v, 2000);
	assert_int_equal(parse_count("--capacity", "0", &v), -EINVAL);
	assert_int_equal(parse_count("--capacity", "-5", &v), -EINVAL);
	assert_int_equal(parse_count("--capacity", "1.5", &v), -EINVAL);
	assert_int_equal(parse_count("--capacity", "10X", &v), -EINVAL);
	assert_int_equal(parse_count("--capacity", "", &v), -EINVAL);
	assert_int_equal(parse_count("--capacity", "lots", &v), -EINVAL);
}

static void test_parse_fpr(void **state)
{
	double v;

	(void)state;
	assert_int_equal(parse_fpr("--fpr", "0.01", &v), 0);
	assert_true(v == 0.01);
	assert_int_equal(parse_fpr("--fpr", "1%", &v), 0);
	assert_true(fabs(v - 0.01) < 1e-15);
	assert_int_equal(parse_fpr("--fpr", "1e-4", &v), 0);
	assert_true(v == 1e-4);
	assert_int_equal(parse_fpr("--fpr", "0", &v), -EINVAL);
	assert_int_equal(parse_fpr("--fpr", "1", &v), -EINVAL);
	assert_int_equal(parse_fpr("--fpr", "100%", &v), -EINVAL);
	assert_int_equal(parse_fpr("--fpr", "nan", &v), -EINVAL);
	assert_int_equal(parse_fpr("--fpr", "0.01x", &v), -EINVAL);
}

/*
 * Every valid input is planned at once: the blocked search is bounded (it
 * took 63 s at 1e14 entries and FPR 0.99999). The CPU-time alarm turns a
 * regression into a failure, not a hang; the bound is 100x what it needs.
 */
static void test_plan_is_bounded_for_every_input(void **state)
{
	static const struct { double n, p; int want; } cases[] = {
		{ 1e14, 0.99999, -E2BIG }, { 1e15, 0.999999, -E2BIG }, { 1e15, 1e-9, -E2BIG },
		{ 1e9, 0.5, 0 }, { 3e8, 0.01, 0 }, { 1, 0.999999, 0 }, { 1, 1e-12, 0 },
		{ 4e8, 0.3, 0 }, { 123457, 0.0001, 0 },
	};
	struct bloom_plan plan;
	struct rlimit cpu = { .rlim_cur = 10, .rlim_max = 11 };
	size_t i;
	int ret;

	(void)state;
	assert_int_equal(setrlimit(RLIMIT_CPU, &cpu), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ret = bloom_plan_compute_layout((__u64)cases[i].n, cases[i].p,
						BLOOMXDP_LAYOUT_BLOCKED, &plan);
		if (ret != cases[i].want)
			fail_msg("n %g p %g: %d, want %d", cases[i].n, cases[i].p, ret,
				 cases[i].want);
		if (ret)
			continue;
		/* The fewest whole blocks: one block less misses the target. */
		assert_true(plan.expected_fpr <= cases[i].p);
		assert_int_equal(plan.bits % BLOOMXDP_BLOCK_BITS, 0);
		if (plan.bits > BLOOMXDP_BLOCK_BITS) {
			double fewer = 2;
			__u32 k;

			for (k = 1; k <= 24; k++)
				fewer = fmin(fewer, bloom_blocked_fpr(plan.bits - BLOOMXDP_BLOCK_BITS,
								     k, (__u64)cases[i].n));
			assert_true(fewer > cases[i].p);
		}
	}
	cpu.rlim_cur = cpu.rlim_max = RLIM_INFINITY;
	setrlimit(RLIMIT_CPU, &cpu);
}

static const __u32 layouts[] = { BLOOMXDP_LAYOUT_BITS, BLOOMXDP_LAYOUT_BLOCKED,
				  BLOOMXDP_LAYOUT_KERNEL };
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/*
 * k is a constant of the XDP program while m follows each list: the plan's k
 * must not depend on the size. (It did: "bits" took k = 32 for one entry,
 * "blocked" 7 for 1000 entries and 6 for a million.)
 */
static void test_hashes_depend_on_fpr_only(void **state)
{
	static const double fprs[] = { 0.1, 0.01, 0.001, 1e-5 };
	static const __u64 sizes[] = { 1, 10, 1000, 1000000, 57000000 };
	struct bloom_plan p;
	size_t l, i, j;
	__u32 k;

	(void)state;
	for (l = 0; l < NLAYOUTS; l++) {
		for (i = 0; i < sizeof(fprs) / sizeof(fprs[0]); i++) {
			assert_int_equal(bloom_plan_compute_layout(1000000, fprs[i], layouts[l],
								   &p), 0);
			k = p.hashes;
			for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
				assert_int_equal(bloom_plan_compute_layout(sizes[j], fprs[i],
									   layouts[l], &p), 0);
				if (p.hashes != k)
					fail_msg("layout %u, p %g: k %u for %llu keys, %u for 1M",
						 layouts[l], fprs[i], p.hashes,
						 (unsigned long long)sizes[j], k);
			}
		}
	}
}

static void need_init(struct generation_need *n, __u32 layout, double fpr, __u64 keys,
		      __u64 floor, __u64 max_memory)
{
	struct bloom_plan p;

	assert_int_equal(bloom_plan_compute_layout(floor, fpr, layout, &p), 0);
	*n = (struct generation_need){ .layout = layout, .hashes = p.hashes, .fpr = fpr,
				       .keys = keys, .floor = floor, .max_memory = max_memory };
}

/* The FPR a plan gives its keys: at most the target (+0.5% for the classic formula's k). */
static void assert_meets_target(const struct bloom_plan *p, __u64 keys, double fpr)
{
	double got = bloom_layout_fpr(p->layout, p->bits, p->hashes, keys);

	if (!(got <= fpr * 1.005))
		fail_msg("layout %u: FPR %g for %llu keys in %llu bits, target %g", p->layout, got,
			 (unsigned long long)keys, (unsigned long long)p->bits, fpr);
}

/*
 * The issue: 57 million keys into a filter attached for 2 million. A load
 * sizes for the list (and a quarter more for adds), keeps k, meets the target.
 */
static void test_generation_follows_the_list(void **state)
{
	static const __u64 keys[] = { 0, 10, 1999999, 2000000, 2000001, 57000000 };
	struct generation_need n;
	struct bloom_plan p;
	__u64 need, want;
	size_t l, i;

	(void)state;
	for (l = 0; l < NLAYOUTS; l++) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			need_init(&n, layouts[l], 0.01, keys[i], 2000000, 1ULL << 30);
			assert_int_equal(generation_plan(&n, &p, &need), 0);
			want = keys[i] + keys[i] / GENERATION_ROOM_DIVISOR;
			if (want < 2000000)
				want = 2000000;
			assert_int_equal(p.capacity, want);
			assert_int_equal(p.hashes, n.hashes);
			assert_int_equal(p.layout, layouts[l]);
			assert_meets_target(&p, keys[i], 0.01);
			assert_meets_target(&p, p.capacity, 0.01);
			assert_true(bloom_plan_map_bytes(&p) <= n.max_memory);
		}
	}
}

/* Short of memory, the room for adds goes first; the keys always fit, or it is refused. */
static void test_generation_room_shrinks_within_the_limit(void **state)
{
	struct generation_need n;
	struct bloom_plan p, exact, roomy;
	__u64 need, limit;
	size_t l;

	(void)state;
	for (l = 0; l < NLAYOUTS; l++) {
		need_init(&n, layouts[l], 0.01, 1000000, 1000, 1ULL << 30);
		assert_int_equal(bloom_plan_compute_layout_k(1000000, 0.01, layouts[l], n.hashes,
							     &exact), 0);
		assert_int_equal(bloom_plan_compute_layout_k(1250000, 0.01, layouts[l], n.hashes,
							     &roomy), 0);
		if (bloom_plan_map_bytes(&roomy) == bloom_plan_map_bytes(&exact))
			continue;	/* "kernel": one power of two holds both */
		limit = (bloom_plan_map_bytes(&exact) + bloom_plan_map_bytes(&roomy)) / 2;
		n.max_memory = limit;
		assert_int_equal(generation_plan(&n, &p, &need), 0);
		assert_true(p.capacity >= 1000000 && p.capacity < 1250000);
		assert_true(bloom_plan_map_bytes(&p) <= limit);
		assert_meets_target(&p, p.capacity, 0.01);
		/* The exact copy counts too: with it, the same limit holds fewer keys. */
		n.other_bytes = limit - bloom_plan_map_bytes(&exact);
		assert_int_equal(generation_plan(&n, &p, &need), 0);
		assert_true(p.capacity >= 1000000 && p.capacity < 1000000 + 512);
		assert_int_equal(bloom_plan_map_bytes(&p), bloom_plan_map_bytes(&exact));
		n.other_bytes++;
		assert_int_equal(generation_plan(&n, &p, &need), -E2BIG);
		assert_int_equal(need, bloom_plan_map_bytes(&exact) + n.other_bytes);
	}
}

/* A list over the limit is refused, saying what it needs; one no filter holds, too. */
static void test_generation_refused_past_the_limit(void **state)
{
	struct generation_need n;
	struct bloom_plan p, exact;
	__u64 need;
	size_t l;

	(void)state;
	for (l = 0; l < NLAYOUTS; l++) {
		need_init(&n, layouts[l], 0.01, 57000000, 2000000, 16ULL << 20);
		assert_int_equal(bloom_plan_compute_layout_k(57000000, 0.01, layouts[l], n.hashes,
							     &exact), 0);
		assert_int_equal(generation_plan(&n, &p, &need), -E2BIG);
		assert_int_equal(need, bloom_plan_map_bytes(&exact));
		assert_true(need > n.max_memory);
		n.max_memory = need;
		assert_int_equal(generation_plan(&n, &p, &need), 0);
		/* The most keys those bytes hold at the target (a power of two for "kernel"). */
		assert_true(p.capacity >= 57000000);
		assert_int_equal(bloom_plan_map_bytes(&p), n.max_memory);
		/* Past 2^32 bits no filter holds the list, whatever the limit. */
		need_init(&n, layouts[l], 0.01, 1ULL << 40, 2000000, ~0ULL);
		assert_int_equal(generation_plan(&n, &p, &need), -E2BIG);
		assert_int_equal(need, 0);
	}
	need_init(&n, BLOOMXDP_LAYOUT_BITS, 0.01, 10, 10, 1 << 20);
	n.fpr = 1.5;
	assert_int_equal(generation_plan(&n, &p, &need), -EINVAL);
}

/* add: up to the keys the filter is sized for, not one more. */
static void test_add_room(void **state)
{
	(void)state;
	assert_true(generation_has_room(0, 1000, 1000));
	assert_true(generation_has_room(999.5, 0, 1000));
	assert_false(generation_has_room(999.5, 1, 1000));
	assert_false(generation_has_room(0, 1001, 1000));
	assert_false(generation_has_room(INFINITY, 0, 1000));
}

/* The estimate from the fill agrees with the one from the key count, per layout. */
static void test_fpr_from_fill_agrees(void **state)
{
	struct bloom_plan p;
	double fill;
	size_t l;

	(void)state;
	/* fill^k, up to the whole key the estimate is rounded down to. */
	assert_true(fabs(bloom_layout_fpr_for_fill(BLOOMXDP_LAYOUT_BITS, 9585088, 7, 0.5) /
			 bloom_fpr_for_fill(0.5, 7) - 1) < 1e-5);
	assert_true(bloom_layout_fpr_for_fill(BLOOMXDP_LAYOUT_BLOCKED, 1 << 20, 6, 1.0) == 1.0);
	for (l = 0; l < NLAYOUTS; l++) {
		assert_int_equal(bloom_plan_compute_layout(1000000, 0.01, layouts[l], &p), 0);
		fill = 1 - exp(-(double)p.hashes * 1000000 / p.bits);
		assert_true(fabs(bloom_layout_fpr_for_fill(layouts[l], p.bits, p.hashes, fill) -
				 p.expected_fpr) < 0.0001);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_one_million_at_one_percent),
		cmocka_unit_test(test_plan_hashes_follow_fpr),
		cmocka_unit_test(test_plan_rejects_bad_arguments),
		cmocka_unit_test(test_fpr_estimates),
		cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_parse_fpr),
		cmocka_unit_test(test_plan_is_bounded_for_every_input),
		cmocka_unit_test(test_hashes_depend_on_fpr_only),
		cmocka_unit_test(test_generation_follows_the_list),
		cmocka_unit_test(test_generation_room_shrinks_within_the_limit),
		cmocka_unit_test(test_generation_refused_past_the_limit),
		cmocka_unit_test(test_add_room),
		cmocka_unit_test(test_fpr_from_fill_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
