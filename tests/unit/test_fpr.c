// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Statistics of the filter as the CLI fills it: no false negatives, and a
 * measured false-positive rate that matches the estimates.
 *
 * Tolerance. Given a filter, each query of a non-member is a Bernoulli trial
 * with probability q = fill^k (positions are close to independent under
 * double hashing when m >> k). Over N queries the count of false positives
 * has standard deviation sqrt(N q (1-q)); the measured rate must lie within
 * 5 of those (a 1-in-1.7-million chance of a spurious failure). The design
 * formula (1 - e^(-kn/m))^k is the expectation of fill^k up to O(1/m) terms,
 * so the measurement must also lie within 5 sigma + 2% of it.
 *
 * Layout "blocked": a query tests k bits of one 512-bit block, so given the
 * filter q is the mean over blocks of (block fill)^k, and the design formula
 * is the Poisson model of bloom_blocked_fpr(); the same tolerances apply.
 *
 * Keys: random IPv6 addresses, and sequential IPv4 addresses (a list of
 * 10.0.0.0 + i queried with 11.0.0.0 + i), the structured input on which a
 * weak address hash (bloomxdp_addr_hash() is strongly universal, not a PRF)
 * would show.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include <bloomxdp/common.h>
#include "filter/filter.h"
#include "filter/bloom_plan.h"

/* xorshift64*: reproducible keys; the seed is printed on failure. */
static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Random IPv6 keys: 2^128 of them, so members and non-members never coincide. */
static void random_key(__u64 *s, struct bloomxdp_key *key)
{
	__u64 addr[2] = { rng_next(s), rng_next(s) };

	bloomxdp_key_ipv6(key, addr, 128);
}

/* Key i of the list (query 0) or of the queries: random, or sequential IPv4. */
static void next_key(__u64 *s, __u64 i, int query, int sequential, struct bloomxdp_key *key)
{
	__u32 addr = htonl((query ? 0x0b000000U : 0x0a000000U) + (__u32)i);

	if (sequential)
		bloomxdp_key_ipv4(key, &addr, 32);
	else
		random_key(s, key);
}

/* The FPR of this very filter, were positions independent within what a query covers. */
static double filter_q(const struct filter *f)
{
	__u64 blocks = f->bits / BLOOMXDP_BLOCK_BITS, b, set;
	double sum = 0;
	__u32 w;

	if (f->layout != BLOOMXDP_LAYOUT_BLOCKED)
		return bloom_fpr_for_fill((double)filter_popcount(f) / f->bits, f->hashes);
	for (b = 0; b < blocks; b++) {
		for (set = 0, w = 0; w < BLOOMXDP_BLOCK_WORDS; w++)
			set += __builtin_popcountll(f->words[b * BLOOMXDP_BLOCK_WORDS + w]);
		sum += pow((double)set / BLOOMXDP_BLOCK_BITS, f->hashes);
	}
	return sum / blocks;
}

static void check_fpr_keys(__u64 capacity, double fpr, __u64 queries, __u64 seed, __u32 layout,
			   int sequential)
{
	struct bloom_plan plan;
	struct bloomxdp_key key;
	struct bloomxdp_config cfg = {};
	struct filter f = {};
	__u64 s = seed, i, false_neg = 0, false_pos = 0;
	double fill, q, measured, design, sigma;

	assert_int_equal(bloom_plan_compute_layout(capacity, fpr, layout, &plan), 0);
	cfg.bits = plan.bits;
	cfg.hashes = plan.hashes;
	cfg.layout = plan.layout;
	cfg.hash_key[0] = rng_next(&s);
	cfg.hash_key[1] = rng_next(&s);
	assert_int_equal(filter_init_memory(&cfg, &f), 0);

	for (i = 0; i < capacity; i++) {
		next_key(&s, i, 0, sequential, &key);
		filter_insert(&f, &key);
	}
	/* Replay the same keys: every member must test positive. */
	s = seed;
	rng_next(&s);
	rng_next(&s);
	for (i = 0; i < capacity; i++) {
		next_key(&s, i, 0, sequential, &key);
		false_neg += !filter_test(&f, &key);
	}
	for (i = 0; i < queries; i++) {
		next_key(&s, i, 1, sequential, &key);
		false_pos += filter_test(&f, &key);
	}

	fill = (double)filter_popcount(&f) / f.bits;
	q = filter_q(&f);
	design = bloom_layout_fpr(f.layout, f.bits, f.hashes, capacity);
	measured = (double)false_pos / queries;
	sigma = sqrt(q * (1 - q) / queries);
	print_message("# %s%s n=%llu m=%u k=%u fill %.3f: measured FPR %.6f, given the filter %.6f, "
		      "design %.6f, sigma %.6f\n", f.layout ? "blocked" : "bits",
		      sequential ? " sequential IPv4" : "",
		      (unsigned long long)capacity, f.bits, f.hashes, fill, measured, q, design,
		      sigma);
	filter_close(&f);

	if (false_neg)
		fail_msg("%llu false negatives (seed %llu)", (unsigned long long)false_neg,
			 (unsigned long long)seed);
	if (fabs(measured - q) > 5 * sigma)
		fail_msg("measured FPR %.6f is more than 5 sigma from %.6f (seed %llu)",
			 measured, q, (unsigned long long)seed);
	if (fabs(measured - design) > 5 * sigma + 0.02 * design)
		fail_msg("measured FPR %.6f is off the design estimate %.6f (seed %llu)", measured,
			 design, (unsigned long long)seed);
}

static void check_fpr(__u64 capacity, double fpr, __u64 queries, __u64 seed, __u32 layout)
{
	check_fpr_keys(capacity, fpr, queries, seed, layout, 0);
}

static void test_sequential_ipv4(void **state)
{
	(void)state;
	check_fpr_keys(1000000, 0.01, 1000000, 3, BLOOMXDP_LAYOUT_BITS, 1);
	check_fpr_keys(1000000, 0.01, 1000000, 5, BLOOMXDP_LAYOUT_BLOCKED, 1);
}

static void test_one_million_at_one_percent(void **state)
{
	(void)state;
	check_fpr(1000000, 0.01, 1000000, 0x9e3779b97f4a7c15ULL, BLOOMXDP_LAYOUT_BITS);
}

static void test_blocked_one_million_at_one_percent(void **state)
{
	(void)state;
	check_fpr(1000000, 0.01, 1000000, 0x9e3779b97f4a7c15ULL, BLOOMXDP_LAYOUT_BLOCKED);
}

static void test_blocked_small_filter_at_one_per_mille(void **state)
{
	(void)state;
	check_fpr(100000, 0.001, 1000000, 42, BLOOMXDP_LAYOUT_BLOCKED);
}

static void test_small_filter_at_one_per_mille(void **state)
{
	(void)state;
	check_fpr(100000, 0.001, 1000000, 42, BLOOMXDP_LAYOUT_BITS);
}

static void test_tiny_filter_at_ten_percent(void **state)
{
	(void)state;
	check_fpr(1000, 0.1, 1000000, 7, BLOOMXDP_LAYOUT_BITS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_million_at_one_percent),
		cmocka_unit_test(test_small_filter_at_one_per_mille),
		cmocka_unit_test(test_tiny_filter_at_ten_percent),
		cmocka_unit_test(test_blocked_one_million_at_one_percent),
		cmocka_unit_test(test_blocked_small_filter_at_one_per_mille),
		cmocka_unit_test(test_sequential_ipv4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
