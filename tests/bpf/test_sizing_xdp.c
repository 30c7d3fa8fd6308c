// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Each generation of the filter is sized for its list: a load may swap in a
 * filter of another size than attach's, larger or smaller, and the XDP
 * program must probe it with its own m (the header word BLOOMXDP_HDR_BITS),
 * not attach's. For every layout, generations of 10x more and 10x fewer keys
 * than the attach capacity go live as load makes them live (the idle slot,
 * then the active word); through the loaded program (BPF_PROG_TEST_RUN),
 * every listed address must drop and unlisted ones drop at the design FPR.
 *
 * The larger generation is filled as load fills a list (filter_insert_hashes:
 * batches, prefetched; layout kernel's fill program, over several runs).
 *
 * Tolerance: as tests/bpf/test_layout_fpr.c, 5 standard deviations of the
 * count of false positives plus 3% of the design for the models' error.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "xdp_harness.h"

#define ATTACH_CAPACITY	10000
#define TARGET_FPR	0.01
#define QUERIES		20000

static const char *const layout_names[BLOOMXDP_LAYOUT_COUNT] = {
	[BLOOMXDP_LAYOUT_BITS] = "bits",
	[BLOOMXDP_LAYOUT_BLOCKED] = "blocked",
	[BLOOMXDP_LAYOUT_KERNEL] = "kernel",
};

/* Listed addresses: 10.0.0.0/8 by a multiplicative walk; unlisted: 11.0.0.0/8 the same. */
static __u32 address(__u32 net, __u32 i)
{
	return htonl(net << 24 | ((i * 2654435761u) & 0xffffff));
}

static void ipv4_frame(struct frame *f, __u32 src)
{
	char text[INET_ADDRSTRLEN];
	struct frame_desc d = { .ethertype = ETH_P_IP, .src = text, .payload = 8 };

	inet_ntop(AF_INET, &src, text, sizeof(text));
	assert_int_equal(frame_build(f, &d), 0);
}

/* A filter of keys listed addresses made live as load does: the idle slot, then the flip. */
static void load_generation(struct xdp_harness *h, __u64 keys, struct filter *f,
			    struct bloom_plan *plan)
{
	struct bpf_map *filter = h->lp.skel->maps.filter, *kfilter = h->lp.skel->maps.kfilter;
	__u32 which = BLOOMXDP_ACTIVE_BLOCK, slot, i;
	int active = bpf_map__fd(h->lp.skel->maps.active);
	struct bloomxdp_key key;
	__u32 a;

	assert_int_equal(bloom_plan_compute_layout_k(keys, TARGET_FPR, h->config.layout,
						     h->config.hashes, plan), 0);
	assert_int_equal(filter_create_plan(&h->config, plan, f), 0);
	if (keys > ATTACH_CAPACITY) {
		/*
		 * As load inserts a list: hashed, then in batches, more keys than
		 * one run of layout kernel's fill program takes.
		 */
		__u64 *hashes = calloc(keys, sizeof(*hashes));

		assert_non_null(hashes);
		for (i = 0; i < keys; i++) {
			a = address(10, i);
			bloomxdp_key_ipv4(&key, &a, 32);
			hashes[i] = filter_key_hash(f, &key);
		}
		assert_int_equal(filter_length_add(f, BLOOMXDP_KEY_IPV4, 32), 0);
		filter_insert_hashes(f, hashes, keys);
		filter_header_set(f, BLOOMXDP_HAS_IPV4);
		free(hashes);
	} else {
		for (i = 0; i < keys; i++) {
			a = address(10, i);
			bloomxdp_key_ipv4(&key, &a, 32);
			filter_insert(f, &key);
		}
	}
	assert_int_equal(bpf_map_lookup_elem(active, &which, &slot), 0);
	slot ^= 1;
	assert_int_equal(filter_install(bpf_map__fd(filter), slot, f), 0);
	assert_int_equal(filter_install_kernel(bpf_map__fd(kfilter), slot, f), 0);
	assert_int_equal(bpf_map_update_elem(active, &which, &slot, BPF_ANY), 0);
}

static void check_generation(struct xdp_harness *h, __u64 keys)
{
	__u64 i, missed = 0, false_pos = 0;
	struct bloom_plan plan;
	double measured, design, sigma;
	struct filter f;
	struct frame fr;
	__u32 verdict = 0;

	load_generation(h, keys, &f, &plan);
	for (i = 0; i < keys; i++) {
		ipv4_frame(&fr, address(10, i));
		assert_int_equal(harness_run(h, &fr, &verdict), 0);
		missed += verdict != XDP_DROP;
	}
	for (i = 0; i < QUERIES; i++) {
		ipv4_frame(&fr, address(11, i));
		assert_int_equal(harness_run(h, &fr, &verdict), 0);
		false_pos += verdict == XDP_DROP;
	}
	/*
	 * A filter's FPR varies with its fill around the formula's (by 7% at
	 * 1000 keys and 1%): where the fill can be read, the design is this
	 * filter's, from its fill, which is what status reports.
	 */
	if (f.ops->readable)
		design = bloom_layout_fpr_for_fill(plan.layout, f.bits, f.hashes,
						   (double)filter_popcount(&f) / f.bits);
	else
		design = bloom_layout_fpr(plan.layout, plan.bits, plan.hashes, keys);
	filter_close(&f);
	measured = (double)false_pos / QUERIES;
	sigma = sqrt(design * (1 - design) / QUERIES);
	print_message("# %-7s attached for %u keys, live generation of %llu keys: m=%llu k=%u, "
		      "measured FPR %.5f, design %.5f\n", layout_names[h->config.layout],
		      ATTACH_CAPACITY, (unsigned long long)keys, (unsigned long long)plan.bits,
		      plan.hashes, measured, design);
	if (missed)
		fail_msg("%llu of %llu listed addresses passed", (unsigned long long)missed,
			 (unsigned long long)keys);
	if (fabs(measured - design) > 5 * sigma + 0.03 * design)
		fail_msg("measured FPR %.5f is off the design %.5f", measured, design);
}

static void check_layout(__u32 layout)
{
	struct harness_config hc = { .match = BLOOMXDP_MATCH_SRC, .layout = layout,
				     .capacity = ATTACH_CAPACITY, .fpr = TARGET_FPR };
	struct xdp_harness h;

	assert_int_equal(harness_open(&h, &hc), 0);
	check_generation(&h, ATTACH_CAPACITY * 10);	/* a list beyond the attach size */
	check_generation(&h, ATTACH_CAPACITY / 10);	/* then a much shorter one */
	harness_close(&h);
}

static void test_bits(void **state)
{
	(void)state;
	check_layout(BLOOMXDP_LAYOUT_BITS);
}

static void test_blocked(void **state)
{
	(void)state;
	check_layout(BLOOMXDP_LAYOUT_BLOCKED);
}

static void test_kernel(void **state)
{
	(void)state;
	check_layout(BLOOMXDP_LAYOUT_KERNEL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_kernel),
	};

	return cmocka_run_group_tests_name("sizing_xdp", tests, NULL, NULL);
}
