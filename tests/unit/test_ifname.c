// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Interface names: the kernel's rules (dev_valid_name), which keep a name one
 * path component under the bpffs, and errors that echo a hostile name on one
 * line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/command.h"
#include "util/ifname.h"
#include "util/log.h"

/* The bytes the kernel refuses anywhere in a name: '/', ':' and its isspace(). */
static int refused_byte(unsigned int b)
{
	return b == '/' || b == ':' || b == ' ' || (b >= '\t' && b <= '\r') || b == 0xa0;
}

static void test_accepts_what_the_kernel_accepts(void **state)
{
	static const char *const good[] = {
		"eth0", "lo", "a", "veth-a_b.1", "123456789012345", "...", ".a", "a.", "a..b",
		"a\x01" "b", "\x7f", "\x1b[31m", "b\xc3\xbc" "cher", "\x85", "-", "@", "a\\b",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (ifname_invalid(good[i]))
			fail_msg("refused valid name #%zu: %s", i, ifname_invalid(good[i]));
		assert_int_equal(ifname_check(good[i]), 0);
	}
}

static void test_refuses_path_tricks(void **state)
{
	static const struct {
		const char *name;
		const char *why;
	} bad[] = {
		{ "", "empty" },
		{ ".", "'.' or '..'" },
		{ "..", "'.' or '..'" },
		{ "/", "'/'" },
		{ "a/b", "'/'" },
		{ "../x", "'/'" },
		{ "../other", "'/'" },
		{ "rlp1/../rlp1", "'/'" },
		{ "a:b", "':'" },
		{ "a b", "white space" },
		{ "a\nb", "white space" },
		{ "\n", "white space" },
		{ "a\tb", "white space" },
		{ "a\rb", "white space" },
		{ "a\xa0" "b", "white space" },
		{ "1234567890123456", "longer than 15 bytes" },
		{ "12345678901234567890123456789012345678901234567890", "longer than 15 bytes" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = ifname_invalid(bad[i].name);

		if (!why)
			fail_msg("accepted invalid name #%zu", i);
		if (!strstr(why, bad[i].why))
			fail_msg("name #%zu: reason '%s', expected '%s'", i, why, bad[i].why);
		assert_int_equal(ifname_check(bad[i].name), -EINVAL);
	}
}

/* Every byte value, alone and at the start, middle and end of a name. */
static void test_every_byte_value(void **state)
{
	unsigned int b, refused = 0;
	char name[4];

	(void)state;
	for (b = 1; b < 256; b++) {
		int want = refused_byte(b);

		snprintf(name, sizeof(name), "%c", b);
		assert_int_equal(ifname_invalid(name) != NULL, want || b == '.');
		snprintf(name, sizeof(name), "%cxx", b);
		assert_int_equal(ifname_invalid(name) != NULL, want);
		snprintf(name, sizeof(name), "x%cx", b);
		assert_int_equal(ifname_invalid(name) != NULL, want);
		snprintf(name, sizeof(name), "xx%c", b);
		assert_int_equal(ifname_invalid(name) != NULL, want);
		refused += want;
	}
	/* '/', ':', ' ', \t \n \v \f \r and 0xa0: nothing else. */
	assert_int_equal(refused, 9);
}

static void test_length_limit(void **state)
{
	char name[64];
	size_t n;

	(void)state;
	for (n = 1; n < sizeof(name); n++) {
		memset(name, 'a', n);
		name[n] = '\0';
		assert_int_equal(ifname_invalid(name) != NULL, n > 15);
	}
}

static const char *ran_with;

static int record_ifname(const struct cli_call *call)
{
	ran_with = call->ifname;
	return 0;
}

/* The entry point of every command that takes an interface refuses them too. */
static void test_take_ifname_refuses(void **state)
{
	static const struct command detach = {
		.name = "detach", .ifname = true, .run = record_ifname,
	};
	static const struct command load = {
		.name = "load", .ifname = true, .min_args = 1, .max_args = -1,
		.what_args = "FILE", .run = record_ifname,
	};
	static const struct command *const all[] = { &detach, &load, NULL };
	char cmd[] = "detach", dots[] = "..", path[] = "../other", good[] = "eth0", extra[] = "x";
	char lcmd[] = "load", file[] = "f";
	char *argv_dots[] = { cmd, dots, NULL }, *argv_path[] = { cmd, path, NULL };
	char *argv_good[] = { cmd, good, NULL }, *argv_extra[] = { cmd, good, extra, NULL };
	char *argv_load[] = { lcmd, path, file, NULL };

	(void)state;
	assert_int_equal(command_main(all, &detach, 2, argv_dots), 2);
	assert_int_equal(command_main(all, &detach, 2, argv_path), 2);
	assert_int_equal(command_main(all, &load, 3, argv_load), 2);
	assert_null(ran_with);
	assert_int_equal(command_main(all, &detach, 2, argv_good), 0);
	assert_string_equal(ran_with, "eth0");
	assert_int_equal(command_main(all, &detach, 3, argv_extra), 2);
}

static void test_text_escape(void **state)
{
	char out[64], small[16];

	(void)state;
	assert_string_equal(text_escape("eth0", out, sizeof(out)), "eth0");
	assert_string_equal(text_escape("a\nb", out, sizeof(out)), "a\\x0ab");
	assert_string_equal(text_escape("a\\b", out, sizeof(out)), "a\\x5cb");
	assert_string_equal(text_escape("\x1b[2J\x7f", out, sizeof(out)), "\\x1b[2J\\x7f");
	assert_string_equal(text_escape("b\xc3\xbc", out, sizeof(out)), "b\\xc3\\xbc");
	assert_string_equal(text_escape("a b", out, sizeof(out)), "a b");
	assert_string_equal(text_escape("", out, sizeof(out)), "");
	/* 15 bytes fit in 16 exactly; one more and it is cut with "...". */
	assert_string_equal(text_escape("123456789012345", small, sizeof(small)),
			    "123456789012345");
	assert_string_equal(text_escape("1234567890123456", small, sizeof(small)),
			    "123456789012...");
	/* An escape is never cut in half. */
	assert_string_equal(text_escape("12345678901\n\n\n", small, sizeof(small)),
			    "12345678901...");
	assert_string_equal(text_escape("\n\n\n\n\n", small, sizeof(small)),
			    "\\x0a\\x0a\\x0a...");
	assert_string_equal(text_escape("abcdef", small, 4), "...");
}

/* What log_error writes, read back from a temporary file in place of stderr. */
static void capture_error(const char *fmt, const char *arg, char *out, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	if (fmt)
		log_error(fmt, arg);
	else
		ifname_check(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void test_errors_are_one_line(void **state)
{
	char out[8192];

	(void)state;
	capture_error(NULL, "a\nb", out, sizeof(out));
	assert_int_equal(count_lines(out), 1);
	assert_non_null(strstr(out, "'a\\x0ab' is not an interface name"));
	capture_error(NULL, "evil\r\n\x1b[2Jname/../..", out, sizeof(out));
	assert_int_equal(count_lines(out), 1);
	assert_null(strchr(out, '\r'));
	assert_null(strchr(out, '\x1b'));
	/* Any message: control bytes of what it echoes come out escaped. */
	capture_error("%s: no such interface", "a\x01\n\tb", out, sizeof(out));
	assert_string_equal(out, "bloomxdp: a\\x01\\x0a\\x09b: no such interface\n");
	/* Longer than log_error's buffer: still whole, still one line. */
	{
		char big[3000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		big[2000] = '\n';
		capture_error("%s", big, out, sizeof(out));
		assert_int_equal(count_lines(out), 1);
		assert_int_equal(strlen(out), strlen("bloomxdp: ") + 2998 + 4 + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_what_the_kernel_accepts),
		cmocka_unit_test(test_refuses_path_tricks),
		cmocka_unit_test(test_every_byte_value),
		cmocka_unit_test(test_length_limit),
		cmocka_unit_test(test_take_ifname_refuses),
		cmocka_unit_test(test_text_escape),
		cmocka_unit_test(test_errors_are_one_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
