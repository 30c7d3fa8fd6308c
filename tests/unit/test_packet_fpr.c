// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --fpr per packet (user/filter/packet_fpr.c): the probes each match field takes per
 * packet, the per-probe rate that keeps the worst packet within the target,
 * the filter sized for it, and --store auto's preference for exact intervals
 * over several probes (user/filter/ranges.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <bloomxdp/common.h>
#include <bloomxdp/name.h>
#include "filter/packet_fpr.h"
#include "parse/prefixes.h"
#include "filter/ranges.h"
#include "filter/bloom_plan.h"

#define MATCH_ADDRS (BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST)

static void test_address_probes(void **state)
{
	struct packet_probes pp;

	(void)state;
	/* Six lengths for IPv4, both addresses looked up: 12 probes an IPv4 packet. */
	packet_probes_set(&pp, MATCH_ADDRS, BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6, 6, 1);
	assert_int_equal(pp.probes[PACKET_FIELD_IPV4], 12);
	assert_int_equal(pp.probes[PACKET_FIELD_IPV6], 2);
	assert_int_equal(packet_worst_probes(&pp), 12);
	/* src only: 6. A family the list does not hold: none. */
	packet_probes_set(&pp, BLOOMXDP_MATCH_SRC, BLOOMXDP_HAS_IPV4, 6, 6);
	assert_int_equal(pp.probes[PACKET_FIELD_IPV4], 6);
	assert_int_equal(pp.probes[PACKET_FIELD_IPV6], 0);
	assert_true(pp.used & (1U << PACKET_FIELD_IPV6));
	assert_false(pp.used & (1U << PACKET_FIELD_DNS));
	/* From the header words: a family in exact intervals takes no probe. */
	packet_probes_of_header(&pp, BLOOMXDP_MATCH_SRC, BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6,
				BLOOMXDP_RANGES_WORD, 0xffffffffffff2030ULL);
	assert_int_equal(pp.probes[PACKET_FIELD_IPV4], 0);
	assert_int_equal(pp.probes[PACKET_FIELD_IPV6], 2);
	assert_true(packet_field_fpr(&pp, PACKET_FIELD_IPV4, 0.5) == 0);
}

static void test_name_probes(void **state)
{
	__u64 kinds = BLOOMXDP_HAS_NAME_DEPTH(2) | BLOOMXDP_HAS_NAME_DEPTH(3) |
		      BLOOMXDP_HAS_NAME_DEPTH(5) | BLOOMXDP_HAS_IPV4;
	struct packet_probes pp;

	(void)state;
	packet_probes_set(&pp, BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DNS | BLOOMXDP_MATCH_SNI, kinds,
			  6, 0);
	assert_int_equal(pp.probes[PACKET_FIELD_DNS], 3);
	assert_int_equal(pp.probes[PACKET_FIELD_SNI], 3);
	assert_int_equal(pp.probes[PACKET_FIELD_HTTP], 0);
	/* A DNS query is looked up by its source too: 6 + 3. */
	assert_int_equal(packet_worst_probes(&pp), 9);
	/* URLs at host depths 2 and 3: the path prefixes of each, and the markers' term. */
	kinds |= BLOOMXDP_HAS_URLS | BLOOMXDP_HAS_URL_DEPTH(2) | BLOOMXDP_HAS_URL_DEPTH(3);
	packet_probes_set(&pp, BLOOMXDP_MATCH_HTTP, kinds, 6, 0);
	assert_int_equal(pp.probes[PACKET_FIELD_HTTP], 3 + 2 * BLOOMXDP_MAX_PATH_PREFIXES);
	assert_int_equal(pp.marker_probes, BLOOMXDP_MAX_LABELS - 2);
	assert_true(packet_field_fpr(&pp, PACKET_FIELD_HTTP, 0.001) >
		    1 - pow(0.999, 3 + 2 * BLOOMXDP_MAX_PATH_PREFIXES));
	/* A filter of an older bloomxdp: URLs without depths count as one depth. */
	packet_probes_set(&pp, BLOOMXDP_MATCH_HTTP, BLOOMXDP_HAS_URLS, 0, 0);
	assert_int_equal(pp.probes[PACKET_FIELD_HTTP], BLOOMXDP_MAX_PATH_PREFIXES);
}

/* A DNS response: its question, and every record read at the kind that takes the most probes. */
static void test_dns_answers_probes(void **state)
{
	__u64 kinds = BLOOMXDP_HAS_NAME_DEPTH(2) | BLOOMXDP_HAS_NAME_DEPTH(3) | BLOOMXDP_HAS_IPV4;
	struct packet_probes pp;

	(void)state;
	/* Two name depths, six IPv4 lengths: an A record (6) is the worst record. */
	packet_probes_set(&pp, BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DNS_ANSWERS, kinds, 6, 9);
	assert_true(pp.used & (1U << PACKET_FIELD_DNS_ANSWERS));
	assert_int_equal(pp.probes[PACKET_FIELD_DNS_ANSWERS], 2 + BLOOMXDP_DNS_ANSWERS_MAX * 6);
	assert_int_equal(packet_worst_probes(&pp), 6 + 2 + BLOOMXDP_DNS_ANSWERS_MAX * 6);
	/* No address listed: the names' depths per record. */
	packet_probes_set(&pp, BLOOMXDP_MATCH_DNS_ANSWERS, kinds & ~BLOOMXDP_HAS_IPV4, 6, 9);
	assert_int_equal(pp.probes[PACKET_FIELD_DNS_ANSWERS], 2 + BLOOMXDP_DNS_ANSWERS_MAX * 2);
	/* Not matched: no probe. */
	packet_probes_set(&pp, BLOOMXDP_MATCH_DNS, kinds, 6, 9);
	assert_int_equal(pp.probes[PACKET_FIELD_DNS_ANSWERS], 0);
	assert_false(pp.used & (1U << PACKET_FIELD_DNS_ANSWERS));
}

/* The worst packet within the target, and no lower than it needs to be. */
static void check_probe_fpr(const struct packet_probes *pp, double target, __u32 probes)
{
	double p = packet_probe_fpr(pp, target);

	assert_true(packet_worst_fpr(pp, p) <= target);
	assert_true(packet_worst_fpr(pp, p) > target * 0.999);
	/* At least the union bound's target / T. */
	assert_true(p >= target / probes);
}

static void test_probe_fpr(void **state)
{
	struct packet_probes pp;

	(void)state;
	packet_probes_set(&pp, BLOOMXDP_MATCH_SRC, BLOOMXDP_HAS_IPV4, 6, 0);
	check_probe_fpr(&pp, 0.01, 6);
	/* 1 - 0.99^(1/6) */
	assert_true(fabs(packet_probe_fpr(&pp, 0.01) - 0.0016737) < 1e-6);
	packet_probes_set(&pp, MATCH_ADDRS | (BLOOMXDP_MATCH_NAMES & ~BLOOMXDP_MATCH_DNS_ANSWERS),
			  BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6 | BLOOMXDP_HAS_NAME_DEPTH(2) |
			  BLOOMXDP_HAS_URLS | BLOOMXDP_HAS_URL_DEPTH(2), 6, 8);
	check_probe_fpr(&pp, 0.01, 16 + 1 + BLOOMXDP_MAX_PATH_PREFIXES + 1);
	check_probe_fpr(&pp, 1e-6, 16 + 1 + BLOOMXDP_MAX_PATH_PREFIXES + 1);
	/* With dns-answers, a response of AAAA records is the worst: 16 + 1 + 16 x 8. */
	packet_probes_set(&pp, MATCH_ADDRS | BLOOMXDP_MATCH_NAMES,
			  BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6 | BLOOMXDP_HAS_NAME_DEPTH(2) |
			  BLOOMXDP_HAS_URLS | BLOOMXDP_HAS_URL_DEPTH(2), 6, 8);
	assert_int_equal(packet_worst_probes(&pp), 16 + 1 + BLOOMXDP_DNS_ANSWERS_MAX * 8);
	check_probe_fpr(&pp, 0.01, 16 + 1 + BLOOMXDP_DNS_ANSWERS_MAX * 8);
	/* One probe, or none (everything exact): the target itself. */
	packet_probes_set(&pp, BLOOMXDP_MATCH_SRC, BLOOMXDP_HAS_IPV4, 1, 0);
	assert_true(packet_probe_fpr(&pp, 0.01) == 0.01);
	packet_probes_set(&pp, BLOOMXDP_MATCH_SRC, BLOOMXDP_HAS_IPV4, 0, 0);
	assert_true(packet_probe_fpr(&pp, 0.01) == 0.01);
	assert_true(packet_worst_fpr(&pp, 0.5) == 0);
}

/* A filter sized at the per-probe rate with attach's k (chosen for --fpr) meets that rate. */
static void test_sized_with_attach_k(void **state)
{
	struct bloom_plan plan;
	double p = 0.01 / 12;
	__u32 layout;

	(void)state;
	for (layout = 0; layout < BLOOMXDP_LAYOUT_KERNEL; layout++) {
		struct bloom_plan at;

		assert_int_equal(bloom_plan_compute_layout(1000, 0.01, layout, &at), 0);
		assert_int_equal(bloom_plan_compute_layout_k(100000, p, layout, at.hashes, &plan),
				 0);
		assert_true(bloom_layout_fpr(layout, plan.bits, plan.hashes, 100000) <= p);
	}
}

static void test_store_auto_weighs_false_drops(void **state)
{
	struct range_cost c = { .entries = 30000, .expanded = 60000, .probes = 6,
				.intervals = 30000 };
	double bits_per_key = 9.6;

	(void)state;
	/* 255,168 bytes of intervals against 72,000 of Bloom: over twice, but exact. */
	c.budget = 128 << 20;
	range_cost_decide(&c, BLOOMXDP_KEY_IPV4, bits_per_key, RANGE_STORE_AUTO);
	assert_true(c.use_ranges);
	assert_true(range_cost_max_intervals(&c, BLOOMXDP_KEY_IPV4, bits_per_key,
					     RANGE_STORE_AUTO) == UINT64_MAX);
	/* Over the budget: by bytes, as before. */
	c.budget = 100000;
	range_cost_decide(&c, BLOOMXDP_KEY_IPV4, bits_per_key, RANGE_STORE_AUTO);
	assert_false(c.use_ranges);
	/* One probe (hosts): the Bloom filter, smaller and faster, within the target alone. */
	c.budget = 128 << 20;
	c.probes = 1;
	c.expanded = 30000;
	range_cost_decide(&c, BLOOMXDP_KEY_IPV4, bits_per_key, RANGE_STORE_AUTO);
	assert_false(c.use_ranges);
	/* --store bloom still means it. */
	c.probes = 6;
	range_cost_decide(&c, BLOOMXDP_KEY_IPV4, bits_per_key, RANGE_STORE_BLOOM);
	assert_false(c.use_ranges);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_address_probes),
		cmocka_unit_test(test_name_probes),
		cmocka_unit_test(test_dns_answers_probes),
		cmocka_unit_test(test_probe_fpr),
		cmocka_unit_test(test_sized_with_attach_k),
		cmocka_unit_test(test_store_auto_weighs_false_drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
