// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* List files and entries: what is accepted, what is refused and how it is reported. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "parse/keys.h"
#include "parse/listfile.h"
#include "parse/prefixes.h"

/* list_read() in a format, strict, nothing noted: as before the options. */
static int list_read_format(const char *path, enum list_format format, entry_fn fn, void *ctx,
			    char err[LIST_ERROR_LEN])
{
	struct list_read_opts o = { .format = format };

	return list_read(path, &o, fn, ctx, err);
}

struct collected {
	struct entry entries[16];
	int n;
};

static int collect(const struct entry *e, void *arg)
{
	struct collected *c = arg;

	if (c->n >= 16)
		return -E2BIG;
	c->entries[c->n++] = *e;
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

static int read_text(const char *content, enum list_format format, struct collected *c,
		     char err[LIST_ERROR_LEN], char path[32])
{
	int ret;

	write_list(path, content, strlen(content));
	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	ret = list_read_format(path, format, collect, c, err);
	unlink(path);
	return ret;
}

static void assert_keys_equal(const struct bloomxdp_key *a, const struct bloomxdp_key *b)
{
	assert_int_equal(a->nwords, b->nwords);
	assert_memory_equal(a->word, b->word, a->nwords * sizeof(__u64));
}

/* An address entry holding the key of text. */
static void assert_addr_entry(const struct entry *e, const char *text)
{
	struct bloomxdp_key k;
	const char *why;

	assert_int_equal(e->kind, ENTRY_ADDR);
	assert_int_equal(key_parse(text, &k, &why), 0);
	assert_keys_equal(&e->addr, &k);
}

static void assert_name_entry(const struct entry *e, const char *name)
{
	assert_int_equal(e->kind, ENTRY_NAME);
	assert_string_equal(e->name, name);
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

/* '#' starts a comment at the start of a line or after white space only. */
static void test_line_entry_hash_sign(void **state)
{
	static const struct {
		const char *line, *entry;	/* entry NULL: a comment line */
	} cases[] = {
		{ "example.com##.ad\n", "example.com##.ad" },
		{ "example.com#@#.ad", "example.com#@#.ad" },
		{ "http://evil.example/p#frag", "http://evil.example/p#frag" },
		{ "evil.example#", "evil.example#" },
		{ "evil.example\t#tab comment", "evil.example" },
		{ "evil.example #a#b", "evil.example" },
		{ "0.0.0.0 evil.example # hosts comment", "0.0.0.0 evil.example" },
		{ "  # indented comment", NULL },
		{ "##", NULL },
	};
	char line[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *entry;

		snprintf(line, sizeof(line), "%s", cases[i].line);
		entry = list_line_entry(line);
		if (!cases[i].entry && entry)
			fail_msg("'%s': got entry '%s', want a comment", cases[i].line, entry);
		if (cases[i].entry && (!entry || strcmp(entry, cases[i].entry)))
			fail_msg("'%s': got '%s', want '%s'", cases[i].line,
				 entry ? entry : "(null)", cases[i].entry);
	}
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

/*
 * The fast path of plain IPv4 lines (list_parse_plain) takes a line exactly
 * as the general parser does, or leaves it to it: never another key, never a
 * line the general parser refuses.
 */
static void test_plain_ipv4_lines(void **state)
{
	static const char *const lines[] = {
		"203.0.113.7", "0.0.0.0", "255.255.255.255", "10.0.0.0/8", "0.0.0.0/0",
		"198.51.100.0/24", "198.51.100.128/25", "192.0.2.1/32", "192.0.2.0/024",
		"192.0.2.0/00", "1.2.3", "1.2.3.4.5", "256.1.1.1", "010.1.1.1", "1.2.3.04",
		"1.2.3.4x", "1.2.3.4/24", "1.2.3.4/33", "1.2.3.4/", "1.2.3.4/3x", "1.2.3.",
		".1.2.3", "1..2.3", "1000.1.1.1", "1.2.3.4-1.2.3.9", "1.2.3.0/24/1", "",
	};
	static const enum list_format formats[] = { FORMAT_AUTO, FORMAT_ADDR, FORMAT_DOMAIN };
	size_t i, f, fast = 0;

	(void)state;
	for (f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			struct collected plain = { .n = 0 }, general = { .n = 0 };
			struct list_parse p;
			const char *why = NULL;
			char text[64];
			int ret, want;

			list_parse_init(&p, formats[f], NULL);
			ret = list_parse_plain(&p, lines[i], collect, &plain);
			snprintf(text, sizeof(text), "%s", lines[i]);
			list_parse_init(&p, formats[f], NULL);
			want = list_parse_line(&p, text, collect, &general, &why);
			if (ret == 1)
				continue;
			fast++;
			if (ret != want || want != 0 || plain.n != 1 || general.n != 1 ||
			    plain.entries[0].kind != ENTRY_ADDR || plain.entries[0].allow ||
			    plain.entries[0].name[0] || plain.entries[0].path[0] ||
			    plain.entries[0].addr.nwords != general.entries[0].addr.nwords ||
			    memcmp(plain.entries[0].addr.word, general.entries[0].addr.word,
				   plain.entries[0].addr.nwords * sizeof(__u64)))
				fail_msg("'%s' (format %zu): fast path %d (%d entries), general %d "
					 "(%d entries)", lines[i], f, ret, plain.n, want, general.n);
		}
	}
	/* The lines it is for: the eight plain ones, in formats auto and addr. */
	assert_int_equal(fast, 2 * 8);
}

/* A random line near a dotted quad: octets of 0-4 digits, leading zeros, a prefix, junk. */
static size_t random_near_quad(char *buf, size_t room, unsigned int *seed)
{
	static const char junk[] = "0123456789./\n x#";
	size_t n = 0, part, k, digits;

	for (part = 0; part < 4 + (rand_r(seed) % 8 == 0); part++) {
		if (part)
			buf[n++] = '.';
		digits = rand_r(seed) % 16 == 0 ? rand_r(seed) % 5 : 1 + rand_r(seed) % 3;
		for (k = 0; k < digits; k++)
			buf[n++] = '0' + (rand_r(seed) % (k || rand_r(seed) % 4 ? 10 : 3));
	}
	if (rand_r(seed) % 8 == 0)
		n += snprintf(buf + n, room - n, "/%u", rand_r(seed) % 40);
	if (rand_r(seed) % 8 == 0)	/* one byte changed anywhere */
		buf[rand_r(seed) % n] = junk[rand_r(seed) % (sizeof(junk) - 1)];
	buf[n++] = rand_r(seed) % 4 ? '\n' : junk[rand_r(seed) % (sizeof(junk) - 1)];
	while (n < room)	/* what follows the line: more lines, or anything */
		buf[n++] = junk[rand_r(seed) % (sizeof(junk) - 1)];
	return n;
}

/* ipv4_plain_scan16() as ipv4_plain_scan(): the same end (or NULL) and key, for any text. */
static void test_plain_scan16(void **state)
{
	static const char *const lines[] = {
		"203.0.113.7\n", "0.0.0.0\n", "255.255.255.255\n", "10.0.0.0/8\n",
		"1.2.3\n", "1.2.3.4.5\n", "256.1.1.1\n", "010.1.1.1\n", "1.2.3.04\n",
		"1.2.3.4x\n", "1.2.3.4/24\n", "1.2.3.\n", ".1.2.3\n", "1..2.3\n",
		"1000.1.1.1\n", "1.2.3.4-1.2.3.9\n", "1.2.3.4 # c\n", "255.255.255.2555\n",
		"1.2.3.4", "9.9.9.9\r\n", "199.299.1.1\n", "1.1.1.1\0", "\n",
	};
	unsigned int seed = 27;
	struct bloomxdp_key k1, k2;
	const char *e1, *e2;
	size_t i, taken = 0;
	char buf[32];

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]) + 300000; i++) {
		memset(buf, '7', sizeof(buf));
		if (i < sizeof(lines) / sizeof(lines[0]))
			memcpy(buf, lines[i], strlen(lines[i]) + 1);
		else
			random_near_quad(buf, sizeof(buf) - 1, &seed);
		buf[sizeof(buf) - 1] = '\0';
		memset(&k1, 0, sizeof(k1));
		memset(&k2, 0, sizeof(k2));
		e1 = ipv4_plain_scan(buf, &k1);
		e2 = ipv4_plain_scan16(buf, &k2);
		if (e1 != e2 || (e1 && k1.word[0] != k2.word[0]))
			fail_msg("'%.16s': ends %td and %td", buf, e1 ? e1 - buf : -1,
				 e2 ? e2 - buf : -1);
		taken += e1 && *e1 == '\n';
	}
	/* A tenth of the random lines are plain ones (35,257 with this seed), the rest near it. */
	assert_true(taken > 30000);
}

static void test_good_file(void **state)
{
	char err[LIST_ERROR_LEN], path[32];
	struct collected c;
	enum list_format formats[] = { FORMAT_AUTO, FORMAT_ADDR };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		assert_int_equal(read_text("# blocklist\n\n203.0.113.7\n  2001:db8::9\t# host\r\n"
					   "203.0.113.7\n198.51.100.1", formats[i], &c, err,
					   path), 0);
		/* Duplicates are passed on (inserting twice is harmless); no final newline. */
		assert_int_equal(c.n, 4);
		assert_addr_entry(&c.entries[0], "203.0.113.7");
		assert_addr_entry(&c.entries[1], "2001:db8::9");
		assert_addr_entry(&c.entries[2], "203.0.113.7");
		assert_addr_entry(&c.entries[3], "198.51.100.1");
	}
}

/* Auto format decides per line: one file may mix every format. */
static void test_mixed_file(void **state)
{
	char err[LIST_ERROR_LEN], path[32];
	struct collected c;

	(void)state;
	assert_int_equal(read_text("[Adblock Plus 2.0]\n! adblock comment\n# comment\n"
				   "203.0.113.7\n"
				   "EVIL.example.\n"
				   "0.0.0.0 a.example b.example # two names\n"
				   "127.0.0.1 localhost\n"
				   "||ads.example^\n"
				   "https://www.example:8443/malware/?x=1#frag\n",
				   FORMAT_AUTO, &c, err, path), 0);
	assert_int_equal(c.n, 6);
	assert_addr_entry(&c.entries[0], "203.0.113.7");
	assert_name_entry(&c.entries[1], "evil.example");
	assert_name_entry(&c.entries[2], "a.example");
	assert_name_entry(&c.entries[3], "b.example");
	assert_name_entry(&c.entries[4], "ads.example");
	assert_int_equal(c.entries[5].kind, ENTRY_URL);
	assert_string_equal(c.entries[5].name, "www.example");
	assert_string_equal(c.entries[5].path, "/malware");
}

/* A forced format refuses the lines of other formats, with file and line. */
static void test_forced_format(void **state)
{
	char err[LIST_ERROR_LEN], path[32], want[LIST_ERROR_LEN];
	struct collected c;

	(void)state;
	assert_int_equal(read_text("0.0.0.0 a.example\n0.0.0.0 b.example\n", FORMAT_HOSTS, &c, err,
				   path), 0);
	assert_int_equal(c.n, 2);
	assert_name_entry(&c.entries[1], "b.example");

	assert_int_equal(read_text("a.example\n0.0.0.0 b.example\n", FORMAT_DOMAIN, &c, err, path),
			 -EINVAL);
	snprintf(want, sizeof(want), "%s:2: 0.0.0.0 b.example: a name holds only letters, "
		 "digits, '-', '_' and dots; --lenient skips such lines", path);
	assert_string_equal(err, want);
	assert_int_equal(c.n, 1);
}

static void test_empty_file(void **state)
{
	char err[LIST_ERROR_LEN], path[32];
	struct collected c;

	(void)state;
	assert_int_equal(read_text("", FORMAT_AUTO, &c, err, path), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(read_text("# only comments\n\n", FORMAT_AUTO, &c, err, path), 0);
	assert_int_equal(c.n, 0);
}

static void test_bad_line_reports_file_and_line(void **state)
{
	char err[LIST_ERROR_LEN], path[32], want[LIST_ERROR_LEN];
	struct collected c;

	(void)state;
	/* With --format addr a domain is a bad line. */
	assert_int_equal(read_text("203.0.113.7\n# fine\n\n  evil.example  \n198.51.100.1\n",
				   FORMAT_ADDR, &c, err, path), -EINVAL);
	/* The file, the line, the text, why, and what reads the rest (issue 21). */
	snprintf(want, sizeof(want), "%s:4: evil.example: not an IPv4 or IPv6 address; "
		 "--lenient skips such lines", path);
	assert_string_equal(err, want);
	/* Entries before the bad line were handed on; the caller discards them. */
	assert_int_equal(c.n, 1);

	/* In auto format too, where evil.example is fine but evil..example is not. */
	assert_int_equal(read_text("203.0.113.7\n# fine\nevil.example\n  evil..example  \n"
				   "198.51.100.1\n", FORMAT_AUTO, &c, err, path), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:4: evil..example: empty label (two dots, or a leading dot); "
		 "--lenient skips such lines", path);
	assert_string_equal(err, want);
	assert_int_equal(c.n, 2);

	assert_int_equal(read_text("198.51.100.1/24\n", FORMAT_AUTO, &c, err, path), -EINVAL);
	snprintf(want, sizeof(want), "%s:1: 198.51.100.1/24: host bits set after /24: did you "
		 "mean 198.51.100.0/24?; --lenient skips such lines", path);
	assert_string_equal(err, want);
}

static void test_bad_line_is_quoted_safely(void **state)
{
	char err[LIST_ERROR_LEN], path[32], line[300];
	struct collected c;

	(void)state;
	assert_int_equal(read_text("1.2.3.4\x01\x7f\n", FORMAT_AUTO, &c, err, path), -EINVAL);
	assert_non_null(strstr(err, ":1: 1.2.3.4\\x01\\x7f: "));

	memset(line, 'a', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(read_text(line, FORMAT_ADDR, &c, err, path), -EINVAL);
	assert_non_null(strstr(err, "aaa...: not an IPv4"));
	assert_true(strlen(err) < 200);
	/* The same line read as a domain: quoted as short, with the name's reason. */
	assert_int_equal(read_text(line, FORMAT_AUTO, &c, err, path), -EINVAL);
	assert_non_null(strstr(err, "aaa...: name longer than 253 characters"));
	assert_true(strlen(err) < 200);
}

static void test_nul_byte_is_refused(void **state)
{
	char err[LIST_ERROR_LEN], path[32];
	struct collected c = {};

	(void)state;
	write_list(path, "203.0.113.7\n1.2\0.3.4\n", 21);
	assert_int_equal(list_read_format(path, FORMAT_AUTO, collect, &c, err), -EINVAL);
	unlink(path);
	assert_non_null(strstr(err, ":2: NUL byte"));
}

static void test_missing_file(void **state)
{
	char err[LIST_ERROR_LEN];
	struct collected c = {};

	(void)state;
	assert_int_equal(list_read_format("/nonexistent/list.txt", FORMAT_AUTO, collect, &c, err),
			 -ENOENT);
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
	assert_int_equal(read_text(text, FORMAT_AUTO, &c, err, path), -E2BIG);
	assert_int_equal(c.n, 16);

	/* Also in the middle of a hosts line of several names, with no message of its own. */
	text[0] = '\0';
	for (i = 0; i < 15; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "n%d.example\n", i);
	snprintf(text + strlen(text), sizeof(text) - strlen(text),
		 "0.0.0.0 a.example b.example\n");
	assert_int_equal(read_text(text, FORMAT_AUTO, &c, err, path), -E2BIG);
	assert_int_equal(c.n, 16);
	assert_name_entry(&c.entries[15], "a.example");
	assert_string_equal(err, "");
}

static int refuse_second(const struct entry *e, void *arg)
{
	int *n = arg;

	(void)e;
	return ++*n == 2 ? -EINVAL : 0;
}

/* The callback's own -EINVAL is no bad line: returned as is, with no message. */
static void test_callback_einval_is_not_a_bad_line(void **state)
{
	char err[LIST_ERROR_LEN] = "", path[32];
	int n = 0;

	(void)state;
	write_list(path, "a.example\nb.example\nc.example\n", 30);
	assert_int_equal(list_read_format(path, FORMAT_AUTO, refuse_second, &n, err), -EINVAL);
	unlink(path);
	assert_int_equal(n, 2);
	assert_string_equal(err, "");
}

/* A line longer than any entry is an error at that line: memory stays bounded. */
static void test_overlong_line_is_refused(void **state)
{
	size_t long_len = 3 * LIST_READ_BLOCK, len = 8 + long_len + 1 + 8;
	char err[LIST_ERROR_LEN], path[32];
	struct collected c = {};
	char *text = malloc(len);

	(void)state;
	assert_non_null(text);
	memcpy(text, "1.1.1.1\n", 8);
	memset(text + 8, 'a', long_len);
	memcpy(text + 8 + long_len, "\n2.2.2.2\n", 9);
	write_list(path, text, len);
	assert_int_equal(list_read_format(path, FORMAT_AUTO, collect, &c, err), -EINVAL);
	unlink(path);
	free(text);
	assert_int_equal(c.n, 1);
	assert_non_null(strstr(err, ":2: line longer than 8192 bytes"));

	/* At the limit itself a line is read (here: a comment). */
	text = malloc(LIST_LINE_MAX + 16);
	assert_non_null(text);
	text[0] = '#';
	memset(text + 1, 'b', LIST_LINE_MAX - 1);
	memcpy(text + LIST_LINE_MAX, "\n3.3.3.3", 8);
	write_list(path, text, LIST_LINE_MAX + 8);
	memset(&c, 0, sizeof(c));
	assert_int_equal(list_read_format(path, FORMAT_AUTO, collect, &c, err), 0);
	unlink(path);
	free(text);
	assert_int_equal(c.n, 1);
	assert_addr_entry(&c.entries[0], "3.3.3.3");
}

/* Lines that straddle the read blocks, and a last line without a newline. */
static void test_lines_across_blocks(void **state)
{
	char err[LIST_ERROR_LEN], path[32], *text;
	size_t used = 0, cap = 3 * LIST_READ_BLOCK;
	struct collected c = {};
	int i;

	(void)state;
	text = malloc(cap);
	assert_non_null(text);
	/* Comments of odd lengths push the entries across block boundaries. */
	for (i = 0; used + 8200 < cap; i++) {
		memset(text + used, '#', 4093 + i);
		used += 4093 + i;
		text[used++] = '\n';
	}
	used += sprintf(text + used, "10.0.0.1\n10.0.0.2");
	write_list(path, text, used);
	assert_int_equal(list_read_format(path, FORMAT_AUTO, collect, &c, err), 0);
	unlink(path);
	free(text);
	assert_int_equal(c.n, 2);
	assert_addr_entry(&c.entries[0], "10.0.0.1");
	assert_addr_entry(&c.entries[1], "10.0.0.2");
}

/*
 * The fast path of list_read() (plain IPv4 lines taken from the read buffer)
 * against the general one: every line between two plain ones read as
 * list_parse_line() reads it alone, or refused with the same message at the
 * same line number. White space, comments, '\r' and the rest leave it.
 */
static void test_plain_lines_in_a_file(void **state)
{
	static const char *const lines[] = {
		"203.0.113.7", "203.0.113.7   ", "203.0.113.7\t# c", "203.0.113.7 ;x",
		"203.0.113.7\r", "  203.0.113.7", "", "\r", "# only", "198.51.100.0/24",
		"198.51.100.0/24\r", "256.1.1.1", "1.2.3.256", "010.1.1.1", "1.2.3.04",
		"00.1.2.3", "1.2.3.4/24", "1.2.3.4/33", "1.2.3.0/024", "1.2.3.4.5", "1.2.3",
		"1.2.3.4#x", "1.2.3.4x", "1.2.3.4-1.2.3.9", "1000.1.1.1", "evil.example",
	};
	static const enum list_format formats[] = { FORMAT_AUTO, FORMAT_ADDR };
	char err[LIST_ERROR_LEN], path[32], text[96], line[32], want[LIST_ERROR_LEN], *entry;
	size_t i, f, refused = 0;
	struct collected c, general;
	const char *why;
	int ret, want_ret;

	(void)state;
	for (f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			memset(&general, 0, sizeof(general));
			snprintf(line, sizeof(line), "%s", lines[i]);
			entry = list_line_entry(line);
			why = NULL;
			want_ret = entry ? entry_parse_line(entry, formats[f], collect, &general,
							    &why) : 0;
			snprintf(text, sizeof(text), "192.0.2.1\n%s\n192.0.2.2\n", lines[i]);
			ret = read_text(text, formats[f], &c, err, path);
			if (want_ret == -EINVAL) {
				refused++;
				snprintf(want, sizeof(want), "%s:2: %s: %s; --lenient skips such "
					 "lines", path, entry, why);
				if (ret != -EINVAL || strcmp(err, want) || c.n != 1)
					fail_msg("'%s' (format %zu): %d '%s', want '%s'", lines[i],
						 f, ret, err, want);
				continue;
			}
			assert_int_equal(want_ret, 0);
			if (ret || c.n != general.n + 2)
				fail_msg("'%s' (format %zu): %d, %d entries, want %d", lines[i], f,
					 ret, c.n, general.n + 2);
			assert_addr_entry(&c.entries[0], "192.0.2.1");
			if (general.n) {
				/* What an entry says: the fast path leaves the rest unset. */
				assert_int_equal(c.entries[1].kind, general.entries[0].kind);
				assert_int_equal(c.entries[1].allow, general.entries[0].allow);
				assert_keys_equal(&c.entries[1].addr, &general.entries[0].addr);
				assert_string_equal(c.entries[1].name, general.entries[0].name);
				assert_string_equal(c.entries[1].path, general.entries[0].path);
			}
			assert_addr_entry(&c.entries[general.n + 1], "192.0.2.2");
		}
	}
	/* Not vacuous: 256, the leading zeros, the host bits... are refused in both formats. */
	assert_true(refused >= 2 * 10);
	/* The last line, without a newline, at the end of the input. */
	assert_int_equal(read_text("192.0.2.1\n198.51.100.0/24", FORMAT_AUTO, &c, err, path), 0);
	assert_int_equal(c.n, 2);
	assert_addr_entry(&c.entries[1], "198.51.100.0/24");
	assert_int_equal(read_text("192.0.2.1\n1.2.3.256", FORMAT_AUTO, &c, err, path), -EINVAL);
	assert_non_null(strstr(err, ":2: 1.2.3.256: "));
}

/* Too wide a prefix in a blocklist: refused by the general path, with its message. */
static void test_plain_wide_prefix(void **state)
{
	struct list_read_opts o = { .format = FORMAT_AUTO, .refuse_wide = true };
	char err[LIST_ERROR_LEN], path[32], want[LIST_ERROR_LEN];
	struct collected c = {};

	(void)state;
	write_list(path, "10.0.0.0/8\n10.0.0.0/7\n", 22);
	assert_int_equal(list_read(path, &o, collect, &c, err), -EINVAL);
	unlink(path);
	snprintf(want, sizeof(want), "%s:2: 10.0.0.0/7: %s; --lenient skips such lines", path,
		 prefix_too_wide_why);
	assert_string_equal(err, want);
	assert_int_equal(c.n, 1);
}

struct numbered {
	unsigned int n;
	unsigned int skip;	/* the number of a line skipped (leniently), or ~0 */
	struct list_read_opts *o;
};

/* Entry n must be 10.0.n>>8.n&255 (in order), seen at line n + 1. */
static int numbered_entry(const struct entry *e, void *arg)
{
	struct numbered *nb = arg;
	char text[32];
	struct bloomxdp_key k;
	const char *why;

	if (nb->n == nb->skip)
		nb->n++;
	snprintf(text, sizeof(text), "10.0.%u.%u", nb->n >> 8 & 255, nb->n & 255);
	assert_int_equal(key_parse(text, &k, &why), 0);
	assert_int_equal(e->kind, ENTRY_ADDR);
	assert_keys_equal(&e->addr, &k);
	assert_int_equal(nb->o->line, nb->n + 1);
	nb->n++;
	return 0;
}

/*
 * Plain lines across many read blocks (so that some straddle them), the last
 * without a newline; line numbers kept, as in a bad line's message far in.
 */
static void test_plain_lines_across_blocks(void **state)
{
	unsigned int lines = 40000, bad = 30000, i;
	char err[LIST_ERROR_LEN], path[32], *text;
	struct list_read_opts o = { .format = FORMAT_AUTO };
	struct numbered nb = { .o = &o, .skip = ~0U };
	size_t used = 0;

	(void)state;
	text = malloc(lines * 16);
	assert_non_null(text);
	for (i = 0; i < lines; i++)
		used += sprintf(text + used, "10.0.%u.%u%s", i >> 8 & 255, i & 255,
				i + 1 < lines ? "\n" : "");
	write_list(path, text, used);
	assert_int_equal(list_read(path, &o, numbered_entry, &nb, err), 0);
	unlink(path);
	assert_int_equal(nb.n, lines);

	/* A bad line far in: its number, and every line before it handed on. */
	used = 0;
	for (i = 0; i < lines; i++)
		used += sprintf(text + used, i == bad ? "10.0.0.256\n" : "10.0.%u.%u\n",
				i >> 8 & 255, i & 255);
	write_list(path, text, used);
	nb.n = 0;
	assert_int_equal(list_read(path, &o, numbered_entry, &nb, err), -EINVAL);
	assert_int_equal(nb.n, bad);
	assert_non_null(strstr(err, ":30001: 10.0.0.256: "));

	/* Leniently: noted at that line, and the rest read on. */
	{
		struct list_notes notes = {};

		o.lenient = true;
		o.notes = &notes;
		nb.n = 0;
		nb.skip = bad;
		assert_int_equal(list_read(path, &o, numbered_entry, &nb, err), 0);
		assert_int_equal(nb.n, lines);
		assert_int_equal(notes.skipped, 1);
		assert_int_equal(notes.note[0].first[0].line, bad + 1);
	}
	unlink(path);
	free(text);
}

static int last_entry(const struct entry *e, void *arg)
{
	struct collected *c = arg;

	c->entries[0] = c->entries[1];
	c->entries[1] = *e;
	c->n++;
	return 0;
}

/*
 * A plain line cut by the end of the first read (LIST_READ_BLOCK - 1 bytes)
 * within its last octet: "10.0.0.2" there is not a line yet, "10.0.0.255" is.
 */
static void test_plain_line_cut_by_the_read(void **state)
{
	size_t used = 0, cut = LIST_READ_BLOCK - 1 - strlen("10.0.0.2");
	char err[LIST_ERROR_LEN], path[32], *text;
	struct collected c = {};

	(void)state;
	text = malloc(LIST_READ_BLOCK + 64);
	assert_non_null(text);
	/* A comment line, then lines of 9 bytes up to the cut. */
	used = sprintf(text, "#%.*s\n", (int)((cut - 2) % 9), "xxxxxxxxx");
	while (used < cut)
		used += sprintf(text + used, "10.0.0.1\n");
	assert_int_equal(used, cut);
	used += sprintf(text + used, "10.0.0.255\n10.0.0.3");
	write_list(path, text, used);
	free(text);
	assert_int_equal(list_read_format(path, FORMAT_AUTO, last_entry, &c, err), 0);
	unlink(path);
	assert_int_equal(c.n, (cut - (cut - 2) % 9 - 2) / 9 + 2);
	assert_addr_entry(&c.entries[0], "10.0.0.255");
	assert_addr_entry(&c.entries[1], "10.0.0.3");
}

/* A read that fails is an error, never the end of the list. */
static void test_read_error_is_not_eof(void **state)
{
	char err[LIST_ERROR_LEN];
	struct collected c = {};

	(void)state;
	/* open() of a directory succeeds; read() then fails with EISDIR. */
	assert_int_equal(list_read_format("/tmp", FORMAT_AUTO, collect, &c, err), -EISDIR);
	assert_non_null(strstr(err, "/tmp: read failed after line 0: Is a directory"));
}

/* Counts the entries; stops (-ECANCELED) at entry stop_at, if given. */
struct counted {
	unsigned long n, stop_at, last_line;
	bool yield;
	struct list_read_opts *o;
};

static int count_entry(const struct entry *e, void *arg)
{
	struct counted *c = arg;

	(void)e;
	/* Now and then the reading thread gets ahead, as far as its ring of chunks. */
	if (c->yield && c->n % 4093 == 0)
		usleep(200);
	c->last_line = c->o->line;
	return ++c->n == c->stop_at ? -ECANCELED : 0;
}

/* list_read_fd() of path through a pipe (no reading thread: not a regular file). */
static int read_piped(const char *path, struct list_read_opts *o, struct counted *c,
		      char err[LIST_ERROR_LEN])
{
	int fds[2], ret, status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[0]);
		_exit(dup2(fds[1], STDOUT_FILENO) < 0 ||
		      execlp("cat", "cat", path, (char *)NULL) < 0);
	}
	close(fds[1]);
	ret = list_read_fd(fds[0], "(pipe)", o, count_entry, c, err);
	close(fds[0]);
	waitpid(pid, &status, 0);
	return ret;
}

/*
 * A list of many chunks, read by the reading thread (a file) and without it
 * (a pipe): the same entries at the same lines; an overlong line far in, and
 * a callback that stops the read there, as a single reader would give them.
 */
static void test_long_list_file_and_pipe(void **state)
{
	unsigned int lines = 200000, i, pass;
	char err[LIST_ERROR_LEN], path[32], *text;
	struct list_read_opts o = { .format = FORMAT_AUTO };
	struct counted c = { .o = &o };
	size_t used = 0;

	(void)state;
	text = malloc(lines * 20 + 3 * LIST_LINE_MAX);
	assert_non_null(text);
	for (i = 0; i < lines; i++)
		used += sprintf(text + used, i % 1000 ? "10.%u.%u.%u\n" : "# %u %u %u\n",
				i >> 16, i >> 8 & 255, i & 255);
	write_list(path, text, used);
	/* The reading thread ahead of the parsing, each chunk given back and filled again. */
	for (pass = 0; pass < 10; pass++) {
		c = (struct counted){ .o = &o, .yield = true };
		assert_int_equal(list_read(path, &o, count_entry, &c, err), 0);
		assert_int_equal(c.n, lines - lines / 1000);
	}
	for (pass = 0; pass < 2; pass++) {
		c = (struct counted){ .o = &o };
		assert_int_equal(pass ? read_piped(path, &o, &c, err) :
			  list_read(path, &o, count_entry, &c, err), 0);
		assert_int_equal(c.n, lines - lines / 1000);
		assert_int_equal(c.last_line, lines);
		c = (struct counted){ .o = &o, .stop_at = 150000 };
		err[0] = '\0';
		assert_int_equal(pass ? read_piped(path, &o, &c, err) :
			  list_read(path, &o, count_entry, &c, err), -ECANCELED);
		assert_int_equal(c.n, 150000);
		assert_int_equal(c.last_line, 150000 + 150000 / 999 + 1);
		assert_string_equal(err, "");
	}
	unlink(path);
	/* A line over LIST_LINE_MAX after 200,000 lines: its number, and every line before it. */
	memset(text + used, 'a', LIST_LINE_MAX + 1);
	used += LIST_LINE_MAX + 1;
	used += sprintf(text + used, "\n10.0.0.1\n");
	write_list(path, text, used);
	for (pass = 0; pass < 2; pass++) {
		c = (struct counted){ .o = &o };
		assert_int_equal(pass ? read_piped(path, &o, &c, err) :
			  list_read(path, &o, count_entry, &c, err), -EINVAL);
		assert_int_equal(c.n, lines - lines / 1000);
		assert_non_null(strstr(err, ":200001: line longer than 8192 bytes"));
	}
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_entry),
		cmocka_unit_test(test_line_entry_hash_sign),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_bad_entries),
		cmocka_unit_test(test_plain_ipv4_lines),
		cmocka_unit_test(test_plain_scan16),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_mixed_file),
		cmocka_unit_test(test_forced_format),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_bad_line_reports_file_and_line),
		cmocka_unit_test(test_bad_line_is_quoted_safely),
		cmocka_unit_test(test_nul_byte_is_refused),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_overlong_line_is_refused),
		cmocka_unit_test(test_lines_across_blocks),
		cmocka_unit_test(test_read_error_is_not_eof),
		cmocka_unit_test(test_plain_lines_in_a_file),
		cmocka_unit_test(test_plain_wide_prefix),
		cmocka_unit_test(test_plain_lines_across_blocks),
		cmocka_unit_test(test_plain_line_cut_by_the_read),
		cmocka_unit_test(test_callback_error_stops_the_read),
		cmocka_unit_test(test_callback_einval_is_not_a_bad_line),
		cmocka_unit_test(test_long_list_file_and_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
