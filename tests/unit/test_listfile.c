// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* List files and entries: what is accepted, what is refused and how it is reported. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "keys.h"
#include "listfile.h"

struct collected {
	struct bloomxdp_key keys[16];
	int n;
};

static int collect(const struct bloomxdp_key *key, void *arg)
{
	struct collected *c = arg;

	if (c->n >= 16)
		return -E2BIG;
	c->keys[c->n++] = *key;
	return 0;
}

/* Writes content to a temporary file; the caller unlinks path. */
static void write_list(char path[32], const char *content, size_t len)
{
	int fd;

	strcpy(path, "/tmp/bloomxdp-listXXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
}

static int read_text(const char *content, struct collected *c, char err[LIST_ERROR_LEN],
		     char path[32])
{
	int ret;

	write_list(path, content, strlen(content));
	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	ret = list_read(path, collect, c, err);
	unlink(path);
	return ret;
}

static void assert_keys_equal(const struct bloomxdp_key *a, const struct bloomxdp_key *b)
{
	assert_int_equal(a->nwords, b->nwords);
	assert_memory_equal(a->word, b->word, a->nwords * sizeof(__u64));
}

static void test_line_entry(void **state)
{
	char l1[] = "  203.0.113.7  \r\n", l2[] = "# a comment\n", l3[] = "   \t\n",
	     l4[] = "2001:db8::1 # trailing comment\n", l5[] = "", l6[] = "#";

	(void)state;
	assert_string_equal(list_line_entry(l1), "203.0.113.7");
	assert_null(list_line_entry(l2));
	assert_null(list_line_entry(l3));
	assert_string_equal(list_line_entry(l4), "2001:db8::1");
	assert_null(list_line_entry(l5));
	assert_null(list_line_entry(l6));
}

static void test_keys(void **state)
{
	struct bloomxdp_key v4, mapped, v6, zero4, zero6;
	const char *why = NULL;

	(void)state;
	assert_int_equal(key_parse("203.0.113.7", &v4, &why), 0);
	assert_int_equal(v4.nwords, 1);
	assert_int_equal(v4.word[0] & 0xff, BLOOMXDP_KEY_IPV4);
	/* Network order bytes 203.0.113.7 sit in the upper half of word 0. */
	assert_int_equal(v4.word[0] >> 32, 203 | 0 << 8 | 113 << 16 | 7U << 24);
	assert_int_equal(key_parse("::ffff:203.0.113.7", &mapped, &why), 0);
	assert_keys_equal(&v4, &mapped);
	assert_int_equal(key_parse("2001:db8::9", &v6, &why), 0);
	assert_int_equal(v6.nwords, 3);
	assert_int_equal(v6.word[0] & 0xff, BLOOMXDP_KEY_IPV6);
	/* Same address bits, different family: different keys. */
	assert_int_equal(key_parse("0.0.0.0", &zero4, &why), 0);
	assert_int_equal(key_parse("::", &zero6, &why), 0);
	assert_true(zero4.nwords != zero6.nwords || zero4.word[0] != zero6.word[0]);
}

static void test_bad_entries(void **state)
{
	static const char *const bad[] = {
		"1.2.3", "1.2.3.4.5", "256.1.1.1", "010.1.1.1", "1.2.3.4x", "evil.example",
		"fe80::1%eth0", "2001:db8:::1", "gggg::1", "1.2.3.4/24", "-",
	};
	struct bloomxdp_key key;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		if (key_parse(bad[i], &key, &why) != -EINVAL || !why)
			fail_msg("'%s' was accepted", bad[i]);
	}
}

static void test_good_file(void **state)
{
	char err[LIST_ERROR_LEN], path[32];
	struct collected c;
	struct bloomxdp_key k;
	const char *why;

	(void)state;
	assert_int_equal(read_text("# blocklist\n\n203.0.113.7\n  2001:db8::9\t# host\r\n"
				   "203.0.113.7\n198.51.100.1", &c, err, path), 0);
	/* Duplicates are passed on (inserting twice is harmless); no final newline needed. */
	assert_int_equal(c.n, 4);
	key_parse("2001:db8::9", &k, &why);
	assert_keys_equal(&c.keys[1], &k);
	key_parse("198.51.100.1", &k, &why);
	assert_keys_equal(&c.keys[3], &k);
}

static void test_empty_file(void **state)
{
	char err[LIST_ERROR_LEN], path[32];
	struct collected c;

	(void)state;
	assert_int_equal(read_text("", &c, err, path), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(read_text("# only comments\n\n", &c, err, path), 0);
	assert_int_equal(c.n, 0);
}

static void test_bad_line_reports_file_and_line(void **state)
{
	char err[LIST_ERROR_LEN], path[32], want[LIST_ERROR_LEN];
	struct collected c;

	(void)state;
	assert_int_equal(read_text("203.0.113.7\n# fine\n\n  evil.example  \n198.51.100.1\n",
				   &c, err, path), -EINVAL);
	snprintf(want, sizeof(want), "%s:4: evil.example: not an IPv4 or IPv6 address", path);
	assert_string_equal(err, want);
	/* Entries before the bad line were handed on; the caller discards them. */
	assert_int_equal(c.n, 1);

	assert_int_equal(read_text("198.51.100.0/24\n", &c, err, path), -EINVAL);
	snprintf(want, sizeof(want), "%s:1: 198.51.100.0/24: CIDR prefixes are not supported yet; "
		 "list host addresses", path);
	assert_string_equal(err, want);
}

static void test_bad_line_is_quoted_safely(void **state)
{
	char err[LIST_ERROR_LEN], path[32], line[300];
	struct collected c;

	(void)state;
	assert_int_equal(read_text("1.2.3.4\x01\x7f\n", &c, err, path), -EINVAL);
	assert_non_null(strstr(err, ":1: 1.2.3.4\\x01\\x7f: "));

	memset(line, 'a', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(read_text(line, &c, err, path), -EINVAL);
	assert_non_null(strstr(err, "aaa...: not an IPv4"));
	assert_true(strlen(err) < 200);
}

static void test_nul_byte_is_refused(void **state)
{
	char err[LIST_ERROR_LEN], path[32];
	struct collected c = {};

	(void)state;
	write_list(path, "203.0.113.7\n1.2\0.3.4\n", 21);
	assert_int_equal(list_read(path, collect, &c, err), -EINVAL);
	unlink(path);
	assert_non_null(strstr(err, ":2: NUL byte"));
}

static void test_missing_file(void **state)
{
	char err[LIST_ERROR_LEN];
	struct collected c = {};

	(void)state;
	assert_int_equal(list_read("/nonexistent/list.txt", collect, &c, err), -ENOENT);
	assert_string_equal(err, "/nonexistent/list.txt: cannot open: No such file or directory");
}

static void test_callback_error_stops_the_read(void **state)
{
	char err[LIST_ERROR_LEN], path[32], text[20 * 13 + 1] = "";
	struct collected c;
	int i;

	(void)state;
	for (i = 0; i < 20; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "192.0.2.%d\n", i);
	assert_int_equal(read_text(text, &c, err, path), -E2BIG);
	assert_int_equal(c.n, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_entry),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_bad_entries),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_bad_line_reports_file_and_line),
		cmocka_unit_test(test_bad_line_is_quoted_safely),
		cmocka_unit_test(test_nul_byte_is_refused),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_callback_error_stops_the_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
