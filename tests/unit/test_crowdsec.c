// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CrowdSec bouncer's reading of what the LAPI sends: Go durations,
 * decision values, whole replies (real ones, and hostile: huge, deep, wrong
 * types, bad durations and addresses), the API key file; and the plan of
 * changes a reply makes against the bans held (deletes, extensions, resync).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "service/crowdsec.h"

static void test_durations(void **state)
{
	static const struct { const char *text; __s64 ms; } good[] = {
		{ "3h59m58.5s", (3 * 3600 + 59 * 60 + 58) * 1000LL + 500 },
		{ "1h59m58.329932591s", (3600 + 59 * 60 + 58) * 1000LL + 330 },
		{ "9m59.329934009s", (9 * 60 + 59) * 1000LL + 330 },
		{ "2.329935972s", 2330 },
		{ "-1.686893692s", -1687 },
		{ "-12.144064ms", -13 },
		{ "0s", 0 }, { "0", 0 }, { "1ns", 1 }, { "1500us", 2 }, { "1500\xc2\xb5s", 2 },
		{ "1.5h", 5400000 }, { "72h", 72 * 3600000LL }, { ".5s", 500 }, { "1m0s", 60000 },
		{ "+2s", 2000 }, { "876000h", 876000LL * 3600000 },
	};
	static const char *const bad[] = {
		"", "-", "s", "1", "1x", "h", "1.s5", "1 s", " 1s", "1s ", "1hh", "--1s", "1e3s",
		"0x10s", ".s", "1.2.3s", "1s\n", "10sm", "\xc2\xb5s",
	};
	static const char *const too_long[] = {
		"876001h", "99999999999999999999h", "18446744073709551616ns", "1000000000000h",
		"876000h1s", "-9999999h",
	};
	__s64 ms;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ms = 12345;
		assert_int_equal(crowdsec_duration_parse(good[i].text, &ms), 0);
		if (ms != good[i].ms)
			fail_msg("%s: %lld ms, expected %lld", good[i].text, (long long)ms,
				 (long long)good[i].ms);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (crowdsec_duration_parse(bad[i], &ms) != -EINVAL)
			fail_msg("'%s' accepted as a duration", bad[i]);
	for (i = 0; i < sizeof(too_long) / sizeof(too_long[0]); i++)
		if (crowdsec_duration_parse(too_long[i], &ms) != -ERANGE)
			fail_msg("'%s' not refused as too long", too_long[i]);
}

static void test_values(void **state)
{
	static const struct { const char *in; bool range; const char *out; } good[] = {
		{ "192.0.2.7", false, "192.0.2.7" },
		{ "2001:DB8:0:0::5", false, "2001:db8::5" },
		{ "198.51.100.0/24", true, "198.51.100.0/24" },
		{ "198.51.100.77/24", true, "198.51.100.0/24" },
		{ "192.0.2.7/32", true, "192.0.2.7" },
		{ "2001:db8:1:2::9/48", true, "2001:db8:1::/48" },
		{ "10.0.0.0/8", true, "10.0.0.0/8" },
	};
	static const struct { const char *in; bool range; } bad[] = {
		{ "evil.example", false }, { "192.0.2.7/24", false }, { "192.0.2.256", false },
		{ "192.0.2.7 ", false }, { " 192.0.2.7", false }, { "", false },
		{ "0.0.0.0/0", true }, { "10.0.0.0/7", true }, { "2001::/31", true },
		{ "192.0.2.0/33", true }, { "192.0.2.0/", true }, { "192.0.2.0/-1", true },
		{ "192.0.2.0/24x", true }, { "192.0.2.0/24/1", true },
		{ "example.com/24", true }, { "1.2.3.4\n5.6.7.8", false },
		{ "0192.0.2.1", false }, { "192.0.2.1%eth0", false },
		{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false },
	};
	char out[CROWDSEC_VALUE_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(crowdsec_value_canonical(good[i].in, good[i].range, out), 0);
		assert_string_equal(out, good[i].out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!crowdsec_value_canonical(bad[i].in, bad[i].range, out))
			fail_msg("'%s' accepted as %s: %s", bad[i].in,
				 bad[i].range ? "a range" : "an address", out);
}

static int parse(const char *text, struct crowdsec_batch *b)
{
	char why[256];
	int ret = crowdsec_parse(text, strlen(text), true, true, b, why, sizeof(why));

	if (ret)
		printf("# refused: %s\n", why);
	return ret;
}

/* A reply of Debian's crowdsec 1.4.6 LAPI (startup=true), as it came. */
static const char real_reply[] =
	"{\"deleted\":[{\"duration\":\"-1.686893692s\",\"id\":3,\"origin\":\"cscli\","
	"\"scenario\":\"manual 'ban' from 'bxm'\",\"scope\":\"Ip\",\"type\":\"ban\","
	"\"value\":\"2001:db8::5\"}],\"new\":[{\"duration\":\"9m59.329934009s\",\"id\":6,"
	"\"origin\":\"cscli\",\"scenario\":\"manual 'ban' from 'bxm'\",\"scope\":\"Ip\","
	"\"type\":\"ban\",\"value\":\"192.0.2.7\"},{\"duration\":\"59m59.329933211s\",\"id\":4,"
	"\"origin\":\"cscli\",\"scenario\":\"manual 'captcha' from 'bxm'\",\"scope\":\"Ip\","
	"\"type\":\"captcha\",\"value\":\"192.0.2.9\"},{\"duration\":\"1h59m58.329932591s\","
	"\"id\":2,\"origin\":\"cscli\",\"scenario\":\"manual 'ban' from 'bxm'\","
	"\"scope\":\"Range\",\"type\":\"ban\",\"value\":\"198.51.100.0/24\"},"
	"{\"duration\":\"1h\",\"id\":7,\"origin\":\"cscli\",\"scenario\":\"x\","
	"\"scope\":\"Country\",\"type\":\"ban\",\"value\":\"FR\"}]}\n";

static void test_real_reply(void **state)
{
	struct crowdsec_batch b;

	(void)state;
	assert_int_equal(parse(real_reply, &b), 0);
	assert_int_equal(b.nadded, 2);
	assert_string_equal(b.added[0].value, "192.0.2.7");
	assert_int_equal(b.added[0].duration_ms, (9 * 60 + 59) * 1000 + 330);
	assert_string_equal(b.added[1].value, "198.51.100.0/24");
	assert_int_equal(b.ndeleted, 1);
	assert_string_equal(b.deleted[0].value, "2001:db8::5");
	assert_int_equal(b.ignored[CS_IGNORED_TYPE], 1);
	assert_int_equal(b.ignored[CS_IGNORED_SCOPE], 1);
	crowdsec_batch_free(&b);

	/* Nothing new: both null, or absent. */
	assert_int_equal(parse("{\"deleted\":null,\"new\":null}", &b), 0);
	assert_int_equal(b.nadded + b.ndeleted, 0);
	assert_int_equal(parse("{}", &b), 0);
	crowdsec_batch_free(&b);

	/* A scope not configured is ignored as such. */
	char why[64];
	const char *range_only = "{\"new\":[{\"duration\":\"1h\",\"scope\":\"Ip\",\"type\":"
				 "\"ban\",\"value\":\"192.0.2.1\"}]}";
	assert_int_equal(crowdsec_parse(range_only, strlen(range_only), false, true, &b, why,
					sizeof(why)), 0);
	assert_int_equal(b.nadded, 0);
	assert_int_equal(b.ignored[CS_IGNORED_SCOPE], 1);
	crowdsec_batch_free(&b);
}

/* Decisions that are not applied are counted under their reason, the rest applied. */
static void test_bad_decisions(void **state)
{
	/* D(duration, scope, type, value): a decision, each argument JSON text. */
#define D(dur, scope, type, value)							\
	"{\"duration\":" dur ",\"scope\":" scope ",\"type\":" type ",\"value\":" value "},"
	static const char reply[] =
		"{\"new\":["
		D("\"1h\"", "\"Ip\"", "\"ban\"", "\"192.0.2.1\"")
		D("3600", "\"Ip\"", "\"ban\"", "\"192.0.2.2\"")
		D("\"1h\"", "\"Ip\"", "\"ban\"", "[\"192.0.2.3\"]")
		"{\"duration\":\"1h\",\"scope\":\"Ip\",\"type\":\"ban\"},"
		D("\"1h\"", "null", "\"ban\"", "\"192.0.2.4\"")
		"\"192.0.2.5\", 17, null, [],"
		D("\"1h\"", "\"Ip\"", "\"ban\"", "\"evil.example\"")
		D("\"1h\"", "\"Ip\"", "\"ban\"", "\"192.0.2.0/24\"")
		D("\"1h\"", "\"Range\"", "\"ban\"", "\"0.0.0.0/0\"")
		D("\"1h\"", "\"Ip\"", "\"ban\"", "\"192.0.2.6\\u0000\"")
		D("\"forever\"", "\"Ip\"", "\"ban\"", "\"192.0.2.7\"")
		D("\"-3s\"", "\"Ip\"", "\"ban\"", "\"192.0.2.8\"")
		D("\"0s\"", "\"Ip\"", "\"ban\"", "\"192.0.2.9\"")
		D("\"9999999999h\"", "\"Ip\"", "\"ban\"", "\"192.0.2.10\"")
		D("\"1h\"", "\"ip\"", "\"BAN\"", "\"192.0.2.11\"")
		D("\"1h\"", "\"AS\"", "\"ban\"", "\"64496\"")
		"{\"duration\":\"1h\",\"scope\":\"Ip\",\"type\":\"throttle\","
		"\"value\":\"192.0.2.12\"}"
		"],\"deleted\":[{\"duration\":\"-1s\",\"scope\":\"Ip\",\"type\":\"ban\","
		"\"value\":\"192.0.2.13\"}],\"extra\":{\"anything\":[1,2]}}";
#undef D
	struct crowdsec_batch b;

	(void)state;
	assert_int_equal(parse(reply, &b), 0);
	assert_int_equal(b.nadded, 2);
	assert_string_equal(b.added[0].value, "192.0.2.1");
	assert_string_equal(b.added[1].value, "192.0.2.11");
	/* A delete's duration is negative: that is what a delete looks like. */
	assert_int_equal(b.ndeleted, 1);
	assert_int_equal(b.ignored[CS_IGNORED_FIELDS], 9);
	assert_int_equal(b.ignored[CS_IGNORED_VALUE], 3);
	assert_int_equal(b.ignored[CS_IGNORED_DURATION], 4);
	assert_int_equal(b.ignored[CS_IGNORED_SCOPE], 1);
	assert_int_equal(b.ignored[CS_IGNORED_TYPE], 1);
	crowdsec_batch_free(&b);
}

/* Replies refused whole: not the stream's object, too deep, too dense, cut, trailing text. */
static void test_bad_replies(void **state)
{
	static const char *const bad[] = {
		"", "null", "[]", "\"new\"", "{\"new\":{}}", "{\"new\":\"x\"}",
		"{\"deleted\":7}", "{\"new\":[]", "{\"new\":[]} x", "{\"new\":[]}{}",
		"{\"new\":[{\"a\":{\"b\":{\"c\":1}}}]}", "{\"new\":[,]}",
		"{\"new\":[1,]}", "{\"new\":[\"\xff\xfe\"]}", "\xef\xbb\xbf{}",
		"{\"new\":[{},{},{},{},{},{},{},{}]}",
	};
	struct crowdsec_batch b;
	char *big;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &b) != -EBADMSG)
			fail_msg("reply '%s' not refused", bad[i]);
	/* Deep nesting, a million levels: refused at the tokener's depth, no recursion. */
	n = 1000000;
	big = malloc(2 * n + 16);
	assert_non_null(big);
	strcpy(big, "{\"new\":");
	for (i = 0; i < n; i++)
		big[7 + i] = '[';
	big[7 + n] = '\0';
	assert_int_equal(parse(big, &b), -EBADMSG);
	/* Dense values: a million "1," are not decisions. */
	strcpy(big, "{\"new\":[");
	for (i = 0; i < n; i++)
		memcpy(big + 8 + 2 * i, "1,", 2);
	strcpy(big + 8 + 2 * n - 1, "]}");
	assert_int_equal(parse(big, &b), -EBADMSG);
	free(big);
}

/* Many real decisions parse, each checked; the count stays within bounds. */
static void test_large_reply(void **state)
{
	const size_t n = 50000;
	struct crowdsec_batch b;
	FILE *f;
	char *text = NULL;
	size_t len = 0, i;

	(void)state;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	fputs("{\"new\":[", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s{\"duration\":\"3h59m%zu.5s\",\"id\":%zu,\"origin\":\"CAPI\","
			"\"scenario\":\"crowdsecurity/ssh-bf\",\"scope\":\"Ip\",\"type\":\"ban\","
			"\"value\":\"10.%zu.%zu.%zu\"}", i ? "," : "", i % 60, i, i >> 16,
			(i >> 8) & 255, i & 255);
	fputs("],\"deleted\":null}", f);
	fclose(f);
	assert_int_equal(parse(text, &b), 0);
	assert_int_equal(b.nadded, n);
	assert_string_equal(b.added[n - 1].value, "10.0.195.79");
	crowdsec_batch_free(&b);
	free(text);
}

static void test_key_file(void **state)
{
	char path[] = "/tmp/bx-test-crowdsec-key.XXXXXX", key[CROWDSEC_KEY_MAX], why[256];
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "74b1af83834f1d7a\n", 17), 17);
	assert_int_equal(fchmod(fd, 0600), 0);
	assert_int_equal(crowdsec_key_read(path, key, why, sizeof(why)), 0);
	assert_string_equal(key, "74b1af83834f1d7a");
	assert_int_equal(fchmod(fd, 0640), 0);
	assert_int_equal(crowdsec_key_read(path, key, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "chmod 600"));
	/* A key that would break the header: refused. */
	assert_int_equal(fchmod(fd, 0600), 0);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "abc def\r\nX-Evil: 1\n", 19, 0), 19);
	assert_int_equal(crowdsec_key_read(path, key, why, sizeof(why)), -EINVAL);
	close(fd);
	unlink(path);
	assert_false(crowdsec_key_valid(""));
	assert_false(crowdsec_key_valid("a\nb"));
	assert_true(crowdsec_key_valid("a-b_c.d"));
}

static struct crowdsec_decision dec(const char *value, __s64 ms)
{
	struct crowdsec_decision d = { .duration_ms = ms };

	snprintf(d.value, sizeof(d.value), "%s", value);
	return d;
}

static struct crowdsec_ban ban(const char *value, __u64 until, __u64 applied)
{
	struct crowdsec_ban b = { .until = until, .applied = applied };

	snprintf(b.value, sizeof(b.value), "%s", value);
	return b;
}

static bool has(const struct crowdsec_ban *b, size_t n, const char *value)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(b[i].value, value))
			return true;
	return false;
}

static void test_plan(void **state)
{
	const __u64 now = 1000000;
	struct crowdsec_ban held[] = {
		ban("192.0.2.1", now + 100, now + 104),		/* deleted by the LAPI */
		ban("192.0.2.2", now + 100, now + 104),		/* untouched */
		ban("192.0.2.3", now + 100, now + 104),		/* extended */
		ban("192.0.2.4", now - 1, now + 2),		/* its decision is over */
		ban("192.0.2.5", now + 100, now + 104),		/* deleted and added again */
	};
	struct crowdsec_decision added[] = {
		dec("192.0.2.3", 3600 * 1000), dec("192.0.2.9", 60 * 1000),
		dec("192.0.2.9", 30 * 1000), dec("192.0.2.5", 10 * 1000),
	};
	struct crowdsec_decision deleted[] = { dec("192.0.2.1", -1), dec("192.0.2.5", -1),
					       dec("192.0.2.77", -1) };
	struct crowdsec_batch b = { .added = added, .nadded = 4, .deleted = deleted,
				    .ndeleted = 3 };
	struct crowdsec_plan p;
	size_t i;

	(void)state;
	assert_int_equal(crowdsec_plan(held, 5, &b, false, now, &p), 0);
	/* Lifted: the deleted, the one over, and the one cut short (then added again). */
	assert_int_equal(p.ndel, 3);
	assert_true(has(p.del, p.ndel, "192.0.2.1"));
	assert_true(has(p.del, p.ndel, "192.0.2.4"));
	assert_true(has(p.del, p.ndel, "192.0.2.5"));
	assert_int_equal(p.nadd, 3);
	assert_true(has(p.add, p.nadd, "192.0.2.3"));
	assert_true(has(p.add, p.nadd, "192.0.2.5"));
	assert_true(has(p.add, p.nadd, "192.0.2.9"));
	assert_int_equal(p.nnext, 4);
	for (i = 0; i < p.nnext; i++) {
		const struct crowdsec_ban *n = &p.next[i];

		if (i)
			assert_true(strcmp(p.next[i - 1].value, n->value) < 0);
		/* A ban never ends before its decision, nor much after. */
		assert_true(n->applied >= n->until);
		assert_true(n->applied - now <= (n->until - now) + (n->until - now) / 16 + 1);
		if (!strcmp(n->value, "192.0.2.9"))
			assert_int_equal(n->until, now + 60);	/* the longest of two */
		if (!strcmp(n->value, "192.0.2.2"))
			assert_int_equal(n->applied, now + 104);
		if (!strcmp(n->value, "192.0.2.5"))
			assert_int_equal(n->until, now + 10);
	}
	crowdsec_plan_free(&p);

	/* startup: the LAPI's set is the whole truth; what it lacks is lifted. */
	struct crowdsec_decision full[] = { dec("192.0.2.2", 100 * 1000) };
	struct crowdsec_batch s = { .added = full, .nadded = 1 };

	assert_int_equal(crowdsec_plan(held, 5, &s, true, now, &p), 0);
	assert_int_equal(p.ndel, 4);
	assert_int_equal(p.nadd, 0);
	assert_int_equal(p.nnext, 1);
	assert_string_equal(p.next[0].value, "192.0.2.2");
	crowdsec_plan_free(&p);
}

/*
 * A ban longer than add --timeout's year: its entry's deadline is capped at
 * a year, below the decision's end. Later pulls (an empty batch, a second
 * start's full set) must not see it as extended: no add, until the capped
 * deadline is within half a year, then one add.
 */
static void test_plan_long_ban(void **state)
{
	const __u64 now = 1700000000, year = 365 * 86400ULL, ten = 10 * year;
	struct crowdsec_decision added[] = { dec("192.0.2.10", ten * 1000) };
	struct crowdsec_batch first = { .added = added, .nadded = 1 }, empty = {};
	struct crowdsec_plan p, q;
	struct crowdsec_ban held;
	__u64 t;

	(void)state;
	assert_int_equal(crowdsec_plan(NULL, 0, &first, true, now, &p), 0);
	assert_int_equal(p.nadd, 1);
	assert_int_equal(p.nnext, 1);
	held = p.next[0];
	crowdsec_plan_free(&p);
	assert_int_equal(held.until, now + ten);
	assert_true(held.applied <= now + year);
	/* Pulls every 10 s, then every day for a while: nothing to add, nothing to lift. */
	for (t = now + 10; t < now + 100; t += 10) {
		assert_int_equal(crowdsec_plan(&held, 1, &empty, false, t, &q), 0);
		assert_int_equal(q.nadd, 0);
		assert_int_equal(q.ndel, 0);
		assert_int_equal(q.nnext, 1);
		assert_int_equal(q.next[0].applied, held.applied);
		crowdsec_plan_free(&q);
	}
	for (t = now + 86400; t < now + year / 4; t += 86400) {
		assert_int_equal(crowdsec_plan(&held, 1, &empty, false, t, &q), 0);
		assert_int_equal(q.nadd, 0);
		crowdsec_plan_free(&q);
	}
	/* A start again: the LAPI's whole set holds the same decision, a bit shorter now. */
	added[0].duration_ms = (ten - 3600) * 1000;
	assert_int_equal(crowdsec_plan(&held, 1, &first, true, now + 3600, &q), 0);
	assert_int_equal(q.nadd, 0);
	assert_int_equal(q.ndel, 0);
	crowdsec_plan_free(&q);
	/* Within half a year of the capped deadline: added once more, a year from then. */
	t = held.applied - year / 2 + 1;
	assert_int_equal(crowdsec_plan(&held, 1, &empty, false, t, &q), 0);
	assert_int_equal(q.nadd, 1);
	assert_int_equal(q.ndel, 0);
	assert_true(q.next[0].applied > held.applied);
	assert_true(q.next[0].applied <= t + year);
	crowdsec_plan_free(&q);
}

static void test_deadline(void **state)
{
	const __u64 now = 1700000000;
	__u64 left, d;

	(void)state;
	assert_int_equal(crowdsec_deadline(now + 5, now), now + 5);
	for (left = 1; left < 400 * 86400ULL; left = left * 3 / 2 + 1) {
		d = crowdsec_deadline(now + left, now);
		if (left <= 365 * 86400ULL)
			assert_true(d >= now + left);
		assert_true(d - now <= left + left / 16 + 1);
		assert_true(d - now <= 365 * 86400ULL);
	}
	/* Decisions a few seconds apart share a deadline: one add for them. */
	assert_int_equal(crowdsec_deadline(now + 14400, now), crowdsec_deadline(now + 14390, now));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_real_reply),
		cmocka_unit_test(test_bad_decisions),
		cmocka_unit_test(test_bad_replies),
		cmocka_unit_test(test_large_reply),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_long_ban),
		cmocka_unit_test(test_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
