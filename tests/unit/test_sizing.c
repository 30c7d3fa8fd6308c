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
#include "cli.h"
#include "sizing.h"

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
