// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * user/filter/suffix_map.c: the Public Suffix List's rules as the XDP program's
 * suffixes map holds them (plain, *.wildcard, !exception, IDN in xn-- form;
 * comments, overlong lines and rules deeper than the program looks skipped),
 * which host suffixes are public by the rule the program applies, and the key
 * an entry marks listed at a public depth.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "parse/domain.h"
#include "filter/suffix_map.h"

static const __u64 key[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };

static int write_file(const char *text, char path[64])
{
	FILE *f;
	int fd;

	snprintf(path, 64, "/tmp/bloomxdp-psl-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

static __u32 flags_of(const struct suffix_map *s, const char *name)
{
	return suffix_map_flags(s, name_hash(key, name));
}

/* Public as the program decides, for the name's whole host (its last suffix). */
static bool is_public(const struct suffix_map *s, const char *name)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS];
	int n = name_suffix_hashes(key, name, suffix);

	return suffix_map_public(s, suffix, n - 1);
}

static struct suffix_map parsed;

static int setup(void **state)
{
	char line[700], text[2048], path[64];
	int ret;

	(void)state;
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	snprintf(text, sizeof(text),
		 "// ===BEGIN ICANN DOMAINS===\n"
		 "uk\nco.uk\n  gov.uk   // a comment after the rule\n"
		 "*.ck\n!www.ck\n"
		 "公司.cn\n"
		 "*.compute.amazonaws.com.cn\n"
		 "a.b.c.d.e.f.toodeep\n"
		 "x.*.middle\n"
		 "%s.overlong\n"
		 "\n// ===BEGIN PRIVATE DOMAINS===\ngithub.io\n", line);
	if (write_file(text, path))
		return -1;
	suffix_map_init(&parsed);
	ret = suffix_map_parse(&parsed, key, path);
	unlink(path);
	return ret == 8 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	suffix_map_free(&parsed);
	return 0;
}

static void test_rules(void **state)
{
	(void)state;
	assert_int_equal(parsed.n, 8);
	assert_int_equal(flags_of(&parsed, "co.uk"), BLOOMXDP_SUFFIX_PUBLIC);
	assert_int_equal(flags_of(&parsed, "gov.uk"), BLOOMXDP_SUFFIX_PUBLIC);
	assert_int_equal(flags_of(&parsed, "github.io"), BLOOMXDP_SUFFIX_PUBLIC);
	assert_int_equal(flags_of(&parsed, "ck"), BLOOMXDP_SUFFIX_WILDCARD);
	assert_int_equal(flags_of(&parsed, "www.ck"), BLOOMXDP_SUFFIX_EXCEPTION);
	assert_int_equal(flags_of(&parsed, "xn--55qx5d.cn"), BLOOMXDP_SUFFIX_PUBLIC);
	assert_int_equal(flags_of(&parsed, "compute.amazonaws.com.cn"), BLOOMXDP_SUFFIX_WILDCARD);
	/* Skipped: deeper than 6 labels, a wildcard inside, an overlong line. */
	assert_int_equal(flags_of(&parsed, "a.b.c.d.e.f.toodeep"), 0);
	assert_int_equal(flags_of(&parsed, "middle"), 0);
	assert_int_equal(flags_of(&parsed, "overlong"), 0);
}

static void test_public(void **state)
{
	(void)state;
	assert_true(is_public(&parsed, "com"));		/* a single label always */
	assert_true(is_public(&parsed, "wpad"));
	assert_true(is_public(&parsed, "co.uk"));
	assert_true(is_public(&parsed, "foo.ck"));	/* *.ck */
	assert_false(is_public(&parsed, "www.ck"));	/* !www.ck */
	assert_true(is_public(&parsed, "x.compute.amazonaws.com.cn"));
	assert_false(is_public(&parsed, "example.co.uk"));
	assert_false(is_public(&parsed, "evil.example"));
	assert_false(is_public(&parsed, "a.foo.ck"));
}

static void test_entry_keys(void **state)
{
	struct entry e = { .kind = ENTRY_NAME };
	__u64 k;

	(void)state;
	strcpy(e.name, "co.uk");
	assert_int_equal(suffix_map_entry(&parsed, key, &e, &k), 1);
	assert_true(k == name_hash(key, "co.uk"));
	strcpy(e.name, "zzlisted");
	assert_int_equal(suffix_map_entry(&parsed, key, &e, &k), 1);
	strcpy(e.name, "evil.co.uk");
	assert_int_equal(suffix_map_entry(&parsed, key, &e, &k), 0);
	e.allow = true;			/* an exception blocks nothing */
	strcpy(e.name, "co.uk");
	assert_int_equal(suffix_map_entry(&parsed, key, &e, &k), 0);
	e = (struct entry){ .kind = ENTRY_URL };
	strcpy(e.name, "github.io");
	strcpy(e.path, "/malware");
	assert_int_equal(suffix_map_entry(&parsed, key, &e, &k), 1);
	assert_true(k != name_hash(key, "github.io"));	/* the (host, path) key */
}

static void test_room(void **state)
{
	struct suffix_map s;
	__u64 i;

	(void)state;
	suffix_map_init(&s);
	for (i = 0; i < BLOOMXDP_SUFFIX_MAX_KEYS; i++)
		assert_int_equal(suffix_map_or(&s, i * 0x9e3779b97f4a7c15ULL + 1, 1), 0);
	assert_int_equal(suffix_map_or(&s, 1, 2), 0);	/* an existing key: more flags */
	assert_int_equal(suffix_map_or(&s, 0, 1), -E2BIG);
	suffix_map_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_public),
		cmocka_unit_test(test_entry_keys),
		cmocka_unit_test(test_room),
	};

	return cmocka_run_group_tests_name("suffix_keys", tests, setup, teardown);
}
