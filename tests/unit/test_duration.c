// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Durations (user/util/duration.c), the one syntax of the command line and
 * the configuration: whole seconds with a unit ("30s", "10m", "2h", "7d") up
 * to a year, and with a fraction for the options that take one ("0.5", "2m");
 * hostile texts refused (signs, spaces, overflow, huge numbers, a unit alone
 * or twice, inf and nan); and the option kinds built on them (OPT_DURATION,
 * OPT_SECONDS) as argv and the configuration file reach them, errors said.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/duration.h"
#include "util/options.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_whole(void **state)
{
	static const struct { const char *text; __u64 s; } good[] = {
		{ "0", 0 }, { "45", 45 }, { "30s", 30 }, { "5m", 300 }, { "1h", 3600 },
		{ "2d", 172800 }, { "365d", 365 * 86400ULL }, { "8760h", 365 * 86400ULL },
		{ "525600m", 365 * 86400ULL }, { "31536000", 365 * 86400ULL },
		{ "31536000s", 365 * 86400ULL }, { "007s", 7 }, { "0s", 0 }, { "0d", 0 },
	};
	static const char *const bad[] = {
		/* Not a number, or not only one. */
		"", "h", "s", "d", "1x", "1hh", "1ms", "1m1s", "1S", "1M", "1H", "1D",
		"1.5", "1.5h", ".5", "1e3", "0x10", "1,5",
		/* Signs and spaces. */
		"-1", "-0", "+1", " 1", "1 ", "1 h", "\t1", "1\n",
		/* Longer than a year. */
		"366d", "31536001", "31536001s", "8761h", "525601m",
		/* Huge: strtoull's overflow, and a product with the unit past 2^64. */
		"99999999999999999999", "18446744073709551615", "18446744073709551616",
		"18446744073709551615d", "213503982334602d", "307445734561826h",
		"99999999999999999999999999999999999999999999999999999999999999999999s",
		/* Bytes past ASCII. */
		"\xef\xbc\x91", "1\xff", "\xff",
	};
	size_t i;
	__u64 s;

	(void)state;
	for (i = 0; i < N(good); i++) {
		s = ~0ULL;
		if (duration_parse(good[i].text, &s))
			fail_msg("refused duration '%s'", good[i].text);
		assert_int_equal(s, good[i].s);
	}
	for (i = 0; i < N(bad); i++) {
		s = 12345;
		if (duration_parse(bad[i], &s) != -EINVAL)
			fail_msg("accepted duration '%s'", bad[i]);
		/* Nothing written on a refusal. */
		assert_int_equal(s, 12345);
	}
}

static void test_real(void **state)
{
	static const struct { const char *text; double s; } good[] = {
		{ "0", 0 }, { "0.5", 0.5 }, { "2", 2 }, { "1.5s", 1.5 }, { "2m", 120 },
		{ "0.5h", 1800 }, { "1d", 86400 }, { "0.001", 0.001 },
		/* What strtod() reads, as OPT_SECONDS took before it had units. */
		{ ".5", 0.5 }, { "1e-3", 0.001 }, { "1e2s", 100 }, { " 1", 1 }, { "+2", 2 },
	};
	static const char *const bad[] = {
		"", "s", "m", "x", "1x", "1ss", "1 s", "1s ", "0.5 ", "-1", "-0.5s", "-1e-3",
		"inf", "-inf", "infinity", "nan", "NaN", "infs", "nanm",
		/* Out of a double's range, alone or times the unit. */
		"1e400", "1e-400", "1e308d", "1.7e308m",
	};
	size_t i;
	double s;

	(void)state;
	for (i = 0; i < N(good); i++) {
		s = -1;
		if (duration_parse_real(good[i].text, &s))
			fail_msg("refused duration '%s'", good[i].text);
		assert_true(fabs(s - good[i].s) < 1e-9);
	}
	for (i = 0; i < N(bad); i++) {
		s = 12345;
		if (duration_parse_real(bad[i], &s) != -EINVAL)
			fail_msg("accepted duration '%s' (%g)", bad[i], s);
		assert_true(s == 12345);
	}
}

static void test_text(void **state)
{
	static const struct { __u64 s; const char *text; } cases[] = {
		{ 365 * 86400ULL, "365d" }, { 86400, "1d" }, { 3600, "1h" }, { 120, "2m" },
		{ 90, "90s" }, { 1, "1s" }, { 0, "0s" }, { 86401, "86401s" }, { 7200, "2h" },
	};
	char buf[24];
	size_t i;
	__u64 back;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		assert_string_equal(duration_text(cases[i].s, buf, sizeof(buf)), cases[i].text);
		/* What it writes reads back. */
		assert_int_equal(duration_parse(buf, &back), 0);
		assert_int_equal(back, cases[i].s);
	}
}

/* A command with the option kinds under test, as a table declares them. */
struct opts {
	__u64 timeout, fetch;
	double interval;
};

static const struct opts defaults = { .fetch = 60, .interval = 1 };

static const struct option_spec options[] = {
	OPTION("timeout", 0, OPT_DURATION, offsetof(struct opts, timeout), "DURATION", "t",
	       .min = 1, .max = DURATION_MAX_S),
	OPTION("fetch", 0, OPT_DURATION, offsetof(struct opts, fetch), "S", "f",
	       .min = 10, .max = 86400),
	OPTION("interval", 'i', OPT_SECONDS, offsetof(struct opts, interval), "S", "i",
	       .min = 0.01, .max = 86400),
	{}
};

/* What log_error() said while fn ran: stderr caught in a file. */
static char said[1024];

static int caught(int (*fn)(const char *, struct opts *), const char *arg, struct opts *o)
{
	FILE *f = tmpfile();
	int saved, ret, n;

	assert_non_null(f);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(f), STDERR_FILENO);
	ret = fn(arg, o);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(said, 1, sizeof(said) - 1, f);
	said[n > 0 ? n : 0] = '\0';
	fclose(f);
	return ret;
}

/* "name=value" through the configuration's door (options_set). */
static int set_config(const char *nv, struct opts *o)
{
	char name[32];
	const char *eq = strchr(nv, '=');

	snprintf(name, sizeof(name), "%.*s", (int)(eq - nv), nv);
	return options_set(options, o, name, eq + 1);
}

/* "--name=value" through the state's and argv's parser (options_parse_line). */
static int set_line(const char *line, struct opts *o)
{
	char copy[256];

	snprintf(copy, sizeof(copy), "%s", line);
	return options_parse_line(options, copy, o);
}

static void test_option_duration(void **state)
{
	struct opts o = defaults;

	(void)state;
	assert_int_equal(caught(set_config, "timeout=10m", &o), 0);
	assert_int_equal(o.timeout, 600);
	assert_int_equal(caught(set_line, "--timeout=7d", &o), 0);
	assert_int_equal(o.timeout, 7 * 86400);
	assert_int_equal(caught(set_line, "--timeout=45", &o), 0);
	assert_int_equal(o.timeout, 45);
	assert_int_equal(caught(set_line, "--fetch=2m", &o), 0);
	assert_int_equal(o.fetch, 120);

	/* Refused, the value kept, the error naming the option, the text and the bounds. */
	assert_int_equal(caught(set_line, "--timeout=10x", &o), -EINVAL);
	assert_int_equal(o.timeout, 45);
	assert_non_null(strstr(said, "--timeout 10x: expected a duration such as 30s, 10m, 2h or "
				     "7d (at most 365d)"));
	assert_int_not_equal(caught(set_config, "timeout=0", &o), 0);
	assert_non_null(strstr(said, "timeout = 0: expected a duration"));
	assert_int_not_equal(caught(set_line, "--timeout=366d", &o), 0);
	assert_int_not_equal(caught(set_line, "--timeout=-1", &o), 0);
	assert_int_not_equal(caught(set_line, "--timeout=1.5h", &o), 0);
	assert_int_not_equal(caught(set_line, "--timeout=", &o), 0);
	assert_int_not_equal(caught(set_line, "--timeout=99999999999999999999d", &o), 0);
	assert_int_not_equal(caught(set_line, "--fetch=9s", &o), 0);
	assert_non_null(strstr(said, "--fetch 9s: expected a duration such as 30s, 10m, 2h or 7d "
				     "(10s to 1d)"));
	assert_int_not_equal(caught(set_line, "--fetch=1d1s", &o), 0);
	assert_int_equal(o.timeout, 45);
	assert_int_equal(o.fetch, 120);
}

static void test_option_seconds(void **state)
{
	static const char *const bad[] = {
		"--interval=0", "--interval=0.001", "--interval=-1", "--interval=inf",
		"--interval=nan", "--interval=2d", "--interval=1x", "--interval=",
	};
	struct opts o = defaults;
	size_t i;

	(void)state;
	assert_int_equal(caught(set_line, "--interval=0.5", &o), 0);
	assert_true(o.interval == 0.5);
	/* Units, as every duration takes them. */
	assert_int_equal(caught(set_line, "--interval=2m", &o), 0);
	assert_true(o.interval == 120);
	assert_int_equal(caught(set_config, "interval=1.5s", &o), 0);
	assert_true(o.interval == 1.5);
	for (i = 0; i < N(bad); i++) {
		if (!caught(set_line, bad[i], &o))
			fail_msg("accepted %s", bad[i]);
		assert_non_null(strstr(said, "expected seconds above 0, from 0.01 to 86400"));
	}
	assert_true(o.interval == 1.5);
}

/* --help's default and the state's "--name=value" lines, as a count's were. */
static void test_option_output(void **state)
{
	struct opts o = defaults;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	option_print_default(&options[0], &defaults, out);
	fputc('|', out);
	option_print_default(&options[1], &defaults, out);
	fclose(out);
	assert_string_equal(text, "| (10 to 86400, default 60)");
	free(text);

	o.timeout = 600;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(options_write(options, &o, NULL, out), 0);
	fclose(out);
	assert_non_null(strstr(text, "--timeout=600\n--fetch=60\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_real),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_option_duration),
		cmocka_unit_test(test_option_seconds),
		cmocka_unit_test(test_option_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
