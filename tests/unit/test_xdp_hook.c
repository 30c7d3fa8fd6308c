// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The state's record of what attach --force replaced (kernel/xdp_hook.h): a
 * line written is read back the same, a settings text without one (an older
 * bloomxdp's) reads as nothing replaced, and a hostile line is refused whole.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/xdp_hook.h"

static void test_round_trip(void **state)
{
	struct xdp_held p = { .id = 33207, .mode = XDP_HELD_GENERIC, .name = "xdpfilt_alw_all",
			      .tag = "2d8506cc913c856b" };
	struct xdp_hook h = {};
	char line[128];

	(void)state;
	xdp_held_write(&p, line, sizeof(line));
	assert_string_equal(line, "replaced-xdp=33207,generic,2d8506cc913c856b,xdpfilt_alw_all");
	assert_int_equal(xdp_held_parse(line, &h), 1);
	assert_int_equal(h.n, 1);
	assert_int_equal(h.prog[0].id, 33207);
	assert_int_equal(h.prog[0].mode, XDP_HELD_GENERIC);
	assert_string_equal(h.prog[0].name, p.name);
	assert_string_equal(h.prog[0].tag, p.tag);
	/* A program the kernel would not describe: no name, no tag. */
	p = (struct xdp_held){ .id = 7, .mode = XDP_HELD_OFFLOAD };
	xdp_held_write(&p, line, sizeof(line));
	assert_string_equal(line, "replaced-xdp=7,offload,-,-");
	h.n = 0;
	assert_int_equal(xdp_held_parse(line, &h), 1);
	assert_int_equal(h.prog[0].id, 7);
	assert_int_equal(h.prog[0].mode, XDP_HELD_OFFLOAD);
	assert_string_equal(h.prog[0].name, "");
	assert_string_equal(h.prog[0].tag, "");
}

static void test_settings(void **state)
{
	static const char old[] = "bloomxdp-state 2\n--capacity=1000\n--mode=auto\n";
	static const char two[] = "bloomxdp-state 2\n--mode=auto\n"
				  "replaced-xdp=12,native,0011223344556677,a\n"
				  "replaced-xdp=13,generic,8899aabbccddeeff,b.c\n";
	struct xdp_hook h;
	char text[256];

	(void)state;
	assert_int_equal(xdp_hook_from_settings(old, sizeof(old) - 1, &h), 0);
	assert_int_equal(h.n, 0);
	assert_int_equal(xdp_hook_from_settings(two, sizeof(two) - 1, &h), 0);
	assert_int_equal(h.n, 2);
	assert_string_equal(xdp_hook_text(&h, text, sizeof(text)),
			    "a (id 12, native), b.c (id 13, generic)");
	/* Not one of its lines: left to the option parser. */
	assert_int_equal(xdp_held_parse("--mode=auto", &h), 0);
	assert_int_equal(xdp_held_parse("replaced-xdpx=1,native,-,-", &h), 0);
}

static void test_hostile(void **state)
{
	static const char *const bad[] = {
		"replaced-xdp=", "replaced-xdp=0,native,-,-", "replaced-xdp=1,native,-",
		"replaced-xdp=1,sideways,-,-", "replaced-xdp=1,native,0011,-",
		"replaced-xdp=1,native,00112233445566778,-", "replaced-xdp=1,native,-,a/b",
		"replaced-xdp=1,native,-,a b", "replaced-xdp=1,native,-,\x1b[31m",
		"replaced-xdp=1,native,-,sixteen_chars_xx", "replaced-xdp=1,native,-,a-b",
		"replaced-xdp=1,native,-,a,extra", "replaced-xdp=-1,native,-,-",
		"replaced-xdp=99999999999,native,-,-", "replaced-xdp= 1,native,-,-",
		"replaced-xdp=4294967296,native,-,-", "replaced-xdp=1,native,-,-\r",
	};
	static const char text[] = "bloomxdp-state 2\nreplaced-xdp=1,native,-,\x01\n";
	struct xdp_hook h = {};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h.n = 0;
		if (xdp_held_parse(bad[i], &h) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(h.n, 0);
	}
	assert_int_equal(xdp_hook_from_settings(text, sizeof(text) - 1, &h), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
