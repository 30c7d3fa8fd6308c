// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the verifier walks to accept bpf/bloomxdp.bpf.c, per configuration
 * and layout: the program is loaded as xdp_harness.h loads it (the rodata
 * configuration prunes what it cannot reach, so each configuration is its
 * own program) and bpf_prog_info.verified_insns is printed as a TAP
 * diagnostic. Each must stay below CEILING: the kernel refuses a program
 * whose walk reaches BPF_COMPLEXITY_LIMIT_INSNS, and a change that doubles
 * the cost of the fullest configuration fails here before it fails to load.
 * docs/hacking.md ("Verifier cost") has the table these lines produce.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "xdp_harness.h"

#define COMPLEXITY_LIMIT	1000000		/* BPF_COMPLEXITY_LIMIT_INSNS */
#define CEILING			(COMPLEXITY_LIMIT / 10 * 9)

#define MATCH_ALL (BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST | BLOOMXDP_MATCH_NAMES)

/*
 * Events on, and --verify auto, as 'bloomxdp attach' has them by default:
 * any non-zero rate verifies the same program, and auto the same as on.
 */
static const struct harness_config configs[] = {
	{ .match = BLOOMXDP_MATCH_SRC, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_AUTO },
	{ .match = MATCH_ALL, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_AUTO },
	{ .match = MATCH_ALL, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_ON,
	  .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN },
	{ .match = BLOOMXDP_MATCH_SRC, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_OFF },
	{ .match = MATCH_ALL, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_OFF },
	/* The tc build (bpf/hook.h), on egress: attach --direction egress|both. */
	{ .match = BLOOMXDP_MATCH_SRC, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_AUTO,
	  .hook = BLOOMXDP_HOOK_TC, .direction = BLOOMXDP_DIR_EGRESS },
	{ .match = MATCH_ALL, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_ON,
	  .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN, .hook = BLOOMXDP_HOOK_TC,
	  .direction = BLOOMXDP_DIR_EGRESS },
};

static const char *const config_names[] = {
	"match src",
	"match src,dst,dns,http,sni,dns-answers",
	"match src,dst,dns,http,sni,dns-answers --verify on --dns-reply nxdomain",
	"match src --verify off",
	"match src,dst,dns,http,sni,dns-answers --verify off",
	"tc egress: match src",
	"tc egress: match src,dst,dns,http,sni,dns-answers --verify on --dns-reply nxdomain",
};

static const char *const layout_names[BLOOMXDP_LAYOUT_COUNT] = {
	[BLOOMXDP_LAYOUT_BITS] = "bits",
	[BLOOMXDP_LAYOUT_BLOCKED] = "blocked",
	[BLOOMXDP_LAYOUT_KERNEL] = "kernel",
};

static void check_cost(size_t config, __u32 layout)
{
	struct harness_config hc = configs[config];
	struct bpf_prog_info info;
	__u32 info_len = sizeof(info);
	struct xdp_harness h;
	int ret;

	hc.layout = layout;
	ret = harness_open(&h, &hc);
	if (ret)
		fail_msg("loading the program (%s, layout %s): %d", config_names[config],
			 layout_names[layout], ret);
	memset(&info, 0, sizeof(info));
	ret = bpf_obj_get_info_by_fd(h.prog_fd, &info, &info_len);
	harness_close(&h);
	assert_int_equal(ret, 0);
	print_message("# verified_insns %7u (%4.1f%% of %u)  layout %-7s  %s\n",
		      info.verified_insns, 100.0 * info.verified_insns / COMPLEXITY_LIMIT,
		      COMPLEXITY_LIMIT, layout_names[layout], config_names[config]);
	/* 0 would be a kernel that does not report it: nothing measured. */
	assert_true(info.verified_insns > 0);
	assert_true(info.verified_insns < CEILING);
}

#define COST_TEST(c, l)								\
	static void test_##c##_##l(void **state)				\
	{									\
		(void)state;							\
		check_cost(c, BLOOMXDP_LAYOUT_##l);				\
	}

COST_TEST(0, BITS)
COST_TEST(0, BLOCKED)
COST_TEST(0, KERNEL)
COST_TEST(1, BITS)
COST_TEST(1, BLOCKED)
COST_TEST(1, KERNEL)
COST_TEST(2, BITS)
COST_TEST(2, BLOCKED)
COST_TEST(2, KERNEL)
COST_TEST(3, BITS)
COST_TEST(3, BLOCKED)
COST_TEST(3, KERNEL)
COST_TEST(4, BITS)
COST_TEST(4, BLOCKED)
COST_TEST(4, KERNEL)
COST_TEST(5, BITS)
COST_TEST(5, BLOCKED)
COST_TEST(5, KERNEL)
COST_TEST(6, BITS)
COST_TEST(6, BLOCKED)
COST_TEST(6, KERNEL)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_0_BITS),
		cmocka_unit_test(test_0_BLOCKED),
		cmocka_unit_test(test_0_KERNEL),
		cmocka_unit_test(test_1_BITS),
		cmocka_unit_test(test_1_BLOCKED),
		cmocka_unit_test(test_1_KERNEL),
		cmocka_unit_test(test_2_BITS),
		cmocka_unit_test(test_2_BLOCKED),
		cmocka_unit_test(test_2_KERNEL),
		cmocka_unit_test(test_3_BITS),
		cmocka_unit_test(test_3_BLOCKED),
		cmocka_unit_test(test_3_KERNEL),
		cmocka_unit_test(test_4_BITS),
		cmocka_unit_test(test_4_BLOCKED),
		cmocka_unit_test(test_4_KERNEL),
		cmocka_unit_test(test_5_BITS),
		cmocka_unit_test(test_5_BLOCKED),
		cmocka_unit_test(test_5_KERNEL),
		cmocka_unit_test(test_6_BITS),
		cmocka_unit_test(test_6_BLOCKED),
		cmocka_unit_test(test_6_KERNEL),
	};

	return cmocka_run_group_tests_name("verifier_cost", tests, NULL, NULL);
}
