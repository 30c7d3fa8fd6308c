// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Measured FPR of every layout at capacity, against its design FPR: 1M
 * random IPv6 keys inserted, 1M others queried, through the same filter
 * code the CLI uses (layout "kernel" through the kernel's own
 * BPF_MAP_TYPE_BLOOM_FILTER, so this needs root).
 *
 * Tolerance: each query of a non-member is a Bernoulli trial of the design
 * probability p up to the model's error, so the count of false positives
 * over N queries has standard deviation sqrt(N p (1-p)); the measurement must
 * lie within 5 of those (a 1-in-1.7-million chance of a spurious failure) plus
 * 3% of p for the models' approximations (double hashing for "bits", the
 * Poisson model for "blocked", the power-of-two rounding the kernel applies
 * and the formula follows exactly for "kernel"). And no false negative.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <bloomxdp/common.h>
#include "filter/filter.h"
#include "filter/layout.h"
#include "filter/bloom_plan.h"

#define ENTRIES 1000000ULL
#define QUERIES 1000000ULL

static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void random_key(__u64 *s, struct bloomxdp_key *key)
{
	__u64 addr[2] = { rng_next(s), rng_next(s) };

	bloomxdp_key_ipv6(key, addr, 128);
}

static void check_layout(__u32 layout, double fpr, __u64 seed)
{
	struct bloomxdp_config cfg = { .capacity = ENTRIES, .layout = layout };
	__u64 s = seed, i, false_neg = 0, false_pos = 0;
	struct bloom_plan plan;
	struct bloomxdp_key key;
	double measured, design, sigma;
	struct filter f;

	assert_int_equal(bloom_plan_compute_layout(ENTRIES, fpr, layout, &plan), 0);
	cfg.bits = layout_config_bits(&plan);
	cfg.hashes = plan.hashes;
	cfg.hash_key[0] = rng_next(&s);
	cfg.hash_key[1] = rng_next(&s);
	assert_int_equal(filter_create(&cfg, &f), 0);
	for (i = 0; i < ENTRIES; i++) {
		random_key(&s, &key);
		filter_insert(&f, &key);
	}
	s = seed;
	rng_next(&s);
	rng_next(&s);
	for (i = 0; i < ENTRIES; i++) {
		random_key(&s, &key);
		false_neg += !filter_test(&f, &key);
	}
	for (i = 0; i < QUERIES; i++) {
		random_key(&s, &key);
		false_pos += filter_test(&f, &key);
	}
	filter_close(&f);

	design = plan.expected_fpr;
	measured = (double)false_pos / QUERIES;
	sigma = sqrt(design * (1 - design) / QUERIES);
	print_message("# %-7s m=%llu k=%u (%.2f bits/entry): measured FPR %.6f, design %.6f, "
		      "sigma %.6f\n", layout == BLOOMXDP_LAYOUT_BITS ? "bits" :
		      layout == BLOOMXDP_LAYOUT_BLOCKED ? "blocked" : "kernel",
		      (unsigned long long)plan.bits, plan.hashes, (double)plan.bits / ENTRIES,
		      measured, design, sigma);
	if (false_neg)
		fail_msg("%llu false negatives", (unsigned long long)false_neg);
	if (fabs(measured - design) > 5 * sigma + 0.03 * design)
		fail_msg("measured FPR %.6f is off the design %.6f", measured, design);
}

static void test_bits(void **state)
{
	(void)state;
	check_layout(BLOOMXDP_LAYOUT_BITS, 0.01, 11);
}

static void test_blocked(void **state)
{
	(void)state;
	check_layout(BLOOMXDP_LAYOUT_BLOCKED, 0.01, 12);
}

static void test_kernel(void **state)
{
	(void)state;
	/* Its power-of-two rounding leaves little at 1%: 10% shows the rate. */
	check_layout(BLOOMXDP_LAYOUT_KERNEL, 0.1, 13);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_kernel),
	};

	return cmocka_run_group_tests_name("layout_fpr", tests, NULL, NULL);
}
