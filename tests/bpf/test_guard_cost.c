// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The socket guard (bpf/connect.bpf.c) passes the verifier, and what it
 * walks: its four programs loaded per layout, with --match src (what it
 * looks up), events on, --verify auto or off, and the attachment's action
 * drop or monitor; bpf_prog_info.verified_insns printed as a TAP diagnostic
 * and kept below CEILING, as test_verifier_cost does for the packet program.
 * (BPF_PROG_TEST_RUN takes no sock_addr program before Linux 6.13: what the
 * guard decides is tested end to end, tests/e2e/test_guard.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "xdp_harness.h"
#include "guard.skel.h"

#define COMPLEXITY_LIMIT	1000000		/* BPF_COMPLEXITY_LIMIT_INSNS */
#define CEILING			(COMPLEXITY_LIMIT / 10 * 9)

static const struct harness_config configs[] = {
	{ .match = BLOOMXDP_MATCH_SRC, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_AUTO },
	{ .match = BLOOMXDP_MATCH_SRC, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_OFF },
	{ .match = BLOOMXDP_MATCH_SRC, .events_per_sec = 1, .verify = BLOOMXDP_VERIFY_AUTO,
	  .action = BLOOMXDP_ACTION_MONITOR },
};

static const char *const config_names[] = {
	"match src",
	"match src --verify off",
	"match src --action monitor",
};

static const char *const layout_names[BLOOMXDP_LAYOUT_COUNT] = {
	[BLOOMXDP_LAYOUT_BITS] = "bits",
	[BLOOMXDP_LAYOUT_BLOCKED] = "blocked",
	[BLOOMXDP_LAYOUT_KERNEL] = "kernel",
};

static void check_cost(size_t config, __u32 layout)
{
	struct harness_config hc = configs[config];
	struct bpf_program *prog;
	struct bpf_prog_info info;
	struct bloomxdp_config cfg;
	struct guard *skel;
	__u32 info_len;
	int ret;

	hc.layout = layout;
	assert_int_equal(harness_config(&hc, &cfg), 0);
	skel = guard__open();
	assert_non_null(skel);
	skel->rodata_config->config = cfg;
	ret = guard__load(skel);
	if (ret) {
		guard__destroy(skel);
		fail_msg("loading the guard (%s, layout %s): %d", config_names[config],
			 layout_names[layout], ret);
	}
	bpf_object__for_each_program(prog, skel->obj) {
		memset(&info, 0, sizeof(info));
		info_len = sizeof(info);
		ret = bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &info_len);
		assert_int_equal(ret, 0);
		print_message("# verified_insns %7u (%4.1f%% of %u)  layout %-7s  %-17s %s\n",
			      info.verified_insns, 100.0 * info.verified_insns / COMPLEXITY_LIMIT,
			      COMPLEXITY_LIMIT, layout_names[layout], bpf_program__name(prog),
			      config_names[config]);
		/* 0 would be a kernel that does not report it: nothing measured. */
		assert_true(info.verified_insns > 0);
		assert_true(info.verified_insns < CEILING);
	}
	guard__destroy(skel);
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
	};

	return cmocka_run_group_tests_name("guard_cost", tests, NULL, NULL);
}
