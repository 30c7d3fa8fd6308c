// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The control socket's requests (service/control.h): what is parsed, what is
 * refused and why, and the client's request line read back by the server's
 * parser; replies read as the CLI reads them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "service/control.h"

static struct control_request req;
static char why[512];

static int parse(const char *line)
{
	why[0] = '\0';
	return control_parse(line, strlen(line), &req, why, sizeof(why));
}

static void test_good_requests(void **state)
{
	(void)state;
	assert_int_equal(parse("{\"cmd\":\"status\"}"), 0);
	assert_int_equal(req.cmd, CONTROL_STATUS);
	assert_false(req.text);
	assert_int_equal(parse(" {\"cmd\":\"status\",\"text\":true}\r"), 0);
	assert_true(req.text);
	assert_int_equal(parse("{\"cmd\":\"reload\"}"), 0);
	assert_int_equal(req.cmd, CONTROL_RELOAD);
	assert_int_equal(parse("{\"cmd\":\"refresh\",\"list\":\"urlhaus\",\"accept\":true}"), 0);
	assert_int_equal(req.cmd, CONTROL_REFRESH);
	assert_string_equal(req.list, "urlhaus");
	assert_true(req.accept);
	assert_int_equal(parse("{\"key\":\"example.com\",\"cmd\":\"query\"}"), 0);
	assert_int_equal(req.cmd, CONTROL_QUERY);
	assert_int_equal(req.nkeys, 1);
	assert_string_equal(req.keys[0], "example.com");
	assert_int_equal(parse("{\"cmd\":\"query\",\"keys\":[\"192.0.2.1\",\"a.b\"],"
			       "\"list\":\"ads\"}"), 0);
	assert_int_equal(req.nkeys, 2);
	assert_string_equal(req.keys[1], "a.b");
	assert_string_equal(req.list, "ads");
}

/* Each refused with a reason naming what is wrong. */
static void test_bad_requests(void **state)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "", "not JSON" },
		{ "hello", "not JSON" },
		{ "{\"cmd\":\"status\"", "not JSON" },
		{ "{\"cmd\":\"status\"} {}", "text after" },
		{ "[\"status\"]", "\"cmd\"" },
		{ "{\"command\":\"status\"}", "\"cmd\"" },
		{ "{\"cmd\":7}", "\"cmd\"" },
		{ "{\"cmd\":\"reboot\"}", "unknown cmd \"reboot\"" },
		{ "{\"cmd\":\"reload\",\"force\":true}", "no member \"force\"" },
		{ "{\"cmd\":\"status\",\"key\":\"x\"}", "no member \"key\"" },
		{ "{\"cmd\":\"status\",\"text\":1}", "true or false" },
		{ "{\"cmd\":\"refresh\"}", "needs \"list\"" },
		{ "{\"cmd\":\"refresh\",\"list\":\"\"}", "1 to" },
		{ "{\"cmd\":\"refresh\",\"list\":\"0123456789012345678901234567890123\"}",
		  "1 to 32 bytes" },
		{ "{\"cmd\":\"query\"}", "needs \"key\"" },
		{ "{\"cmd\":\"query\",\"key\":7}", "\"key\" must be a string" },
		{ "{\"cmd\":\"query\",\"keys\":[]}", "array of strings" },
		{ "{\"cmd\":\"query\",\"keys\":\"a\"}", "array of strings" },
		{ "{\"cmd\":\"query\",\"key\":\"a\\u0000b\"}", "text" },
		{ "{\"cmd\":{\"a\":{\"b\":{\"c\":{\"d\":1}}}}}", "not JSON" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].line), -EINVAL);
		if (!strstr(why, bad[i].why))
			fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].line, why, bad[i].why);
		assert_null(strchr(why, '\n'));
	}
	/* A NUL inside the line. */
	assert_int_equal(control_parse("{\"cmd\":\"status\"}\0x", 18, &req, why, sizeof(why)),
			 -EINVAL);
}

/* The client's line is what the server parses back, escapes and all. */
static void test_request_line_round_trip(void **state)
{
	struct control_request out = { .cmd = CONTROL_QUERY, .text = true, .list = "ads",
				       .nkeys = 2, .keys = { "a\"b\\c", "\x01\xc3\xbc" } };
	char *line, many[CONTROL_LINE_MAX];

	(void)state;
	assert_int_equal(control_request_line(&out, &line), 0);
	assert_null(strchr(line, '\n'));
	assert_int_equal(parse(line), 0);
	assert_int_equal(req.cmd, CONTROL_QUERY);
	assert_true(req.text);
	assert_string_equal(req.list, "ads");
	assert_int_equal(req.nkeys, 2);
	assert_string_equal(req.keys[0], "a\"b\\c");
	assert_string_equal(req.keys[1], "\x01\xc3\xbc");
	free(line);
	out = (struct control_request){ .cmd = CONTROL_REFRESH, .accept = true, .list = "web" };
	assert_int_equal(control_request_line(&out, &line), 0);
	assert_string_equal(line, "{\"cmd\":\"refresh\",\"list\":\"web\",\"accept\":true}");
	free(line);
	/* Too long for the server: the client knows before it sends. */
	memset(many, 'a', sizeof(many) - 1);
	many[sizeof(many) - 1] = '\0';
	out = (struct control_request){ .cmd = CONTROL_QUERY, .nkeys = 1, .keys = { many } };
	assert_int_equal(control_request_line(&out, &line), -E2BIG);
}

static void test_replies(void **state)
{
	struct control_reply r = { 0 };

	(void)state;
	assert_int_equal(control_reply_read("{\"ok\":true,\"status\":{\"a\":[1,2]}}", "status",
					    &r), 0);
	assert_int_equal(r.payload_len, strlen("{\"a\":[1,2]}"));
	assert_memory_equal(r.payload, "{\"a\":[1,2]}", r.payload_len);
	control_reply_free(&r);
	assert_int_equal(control_reply_read("{\"ok\":true,\"text\":\"x\\ny\\n\"}", NULL, &r), 0);
	assert_string_equal(r.text, "x\ny\n");
	control_reply_free(&r);
	memset(&r, 0, sizeof(r));
	assert_int_equal(control_reply_read("{\"ok\":false,\"error\":\"no feed\",\"errno\":2}",
					    NULL, &r), -ENOENT);
	assert_string_equal(r.error, "no feed");
	memset(&r, 0, sizeof(r));
	assert_int_equal(control_reply_read("{\"ok\":false,\"error\":\"bad\"}", NULL, &r), -EIO);
	assert_int_equal(control_reply_read("not json", NULL, &r), -EPROTO);
	assert_int_equal(control_reply_read("{\"ok\":true,\"text\":\"t\"}", "status", &r),
			 -EPROTO);
	assert_null(r.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_requests),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_request_line_round_trip),
		cmocka_unit_test(test_replies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
