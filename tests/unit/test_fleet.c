// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet's pieces that need no Redis: URLs (what a node and publish
 * accept, and refuse), channel names that become keys, stream ids and their
 * order, the fields of a reply, the set of entries a node holds in force.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <hiredis/hiredis.h>

#include "fleet/node.h"
#include "fleet/redis.h"

static void test_url_forms(void **state)
{
	struct fleet_url u;

	(void)state;
	assert_int_equal(fleet_url_parse("redis://host.example", &u), 0);
	assert_string_equal(u.host, "host.example");
	assert_int_equal(u.port, 6379);
	assert_int_equal(u.db, 0);
	assert_string_equal(u.pass, "");
	assert_false(u.tls);

	assert_int_equal(fleet_url_parse("redis://edge:s%40cr%3At@10.0.0.1:6380/3", &u), 0);
	assert_string_equal(u.user, "edge");
	assert_string_equal(u.pass, "s@cr:t");
	assert_string_equal(u.host, "10.0.0.1");
	assert_int_equal(u.port, 6380);
	assert_int_equal(u.db, 3);

	assert_int_equal(fleet_url_parse("redis://:pw@[2001:db8::1]:7000", &u), 0);
	assert_string_equal(u.user, "");
	assert_string_equal(u.pass, "pw");
	assert_string_equal(u.host, "2001:db8::1");
	assert_int_equal(u.port, 7000);

	assert_int_equal(fleet_url_parse("rediss://h:6379", &u), 0);
	assert_true(u.tls);
	assert_string_equal(u.cacert, "");	/* the system's CAs */

	assert_int_equal(fleet_url_parse("unix://:pw@/run/redis/redis.sock?db=2", &u), 0);
	assert_string_equal(u.unix_path, "/run/redis/redis.sock");
	assert_string_equal(u.pass, "pw");
	assert_int_equal(u.db, 2);
}

/* rediss://...?cacert=PATH: the CA file, the rest of the URL as without it. */
static void test_url_tls(void **state)
{
	char text[512];
	struct fleet_url u;

	(void)state;
	assert_int_equal(fleet_url_parse("rediss://edge:p%3Fw@10.0.0.1:6380/2"
					 "?cacert=/etc/r%20ca.pem", &u), 0);
	assert_true(u.tls);
	assert_string_equal(u.user, "edge");
	assert_string_equal(u.pass, "p?w");
	assert_string_equal(u.host, "10.0.0.1");
	assert_int_equal(u.port, 6380);
	assert_int_equal(u.db, 2);
	assert_string_equal(u.cacert, "/etc/r ca.pem");
	/* Messages: the CA said, never the password. */
	assert_string_equal(fleet_url_text(&u, text, sizeof(text)),
			    "rediss://10.0.0.1:6380/2?cacert=/etc/r ca.pem");

	/* No /DB: the path's slashes are not taken for one. */
	assert_int_equal(fleet_url_parse("rediss://redis.example?cacert=/etc/ssl/ca.pem", &u), 0);
	assert_string_equal(u.host, "redis.example");
	assert_int_equal(u.port, 6379);
	assert_int_equal(u.db, 0);
	assert_string_equal(u.cacert, "/etc/ssl/ca.pem");

	/* A '/' and an '@' in the path leave the user and host alone. */
	assert_int_equal(fleet_url_parse("rediss://:pw@[::1]:7000?cacert=/a@b/ca.pem", &u), 0);
	assert_string_equal(u.pass, "pw");
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 7000);
	assert_string_equal(u.cacert, "/a@b/ca.pem");
	assert_string_equal(fleet_url_text(&u, text, sizeof(text)),
			    "rediss://[::1]:7000/0?cacert=/a@b/ca.pem");
}

static void test_url_refused(void **state)
{
	static const char *const bad[] = {
		"http://h", "redis://", "redis://h:0", "redis://h:65536", "redis://h:12x",
		"redis://h/db", "redis://nouser@h", "redis://:p%zz@h", "redis://:p%00@h",
		"redis://h o", "redis://[::1", "unix://relative.sock", "unix:///s?db=x",
		"redis://h;rm", "redis://h\n",
		/* ?cacert= is TLS's, an absolute path, decoded without a NUL */
		"redis://h?cacert=/ca.pem", "redis://h/1?cacert=/ca.pem", "rediss://h?cacert=",
		"rediss://h?cacert=ca.pem", "rediss://h?cacert=/a%00b", "rediss://h?cacert=/a%zz",
		"rediss://h?db=1",
	};
	struct fleet_url u;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (fleet_url_parse(bad[i], &u) != -EINVAL)
			fail_msg("accepted %s", bad[i]);
}

static void test_channel_names(void **state)
{
	char long_name[FLEET_CHANNEL_MAX + 1];

	(void)state;
	assert_true(fleet_channel_valid("edge"));
	assert_true(fleet_channel_valid("edge-eu_1.a"));
	assert_false(fleet_channel_valid(""));
	assert_false(fleet_channel_valid("edge:node"));	/* ':' separates the key's parts */
	assert_false(fleet_channel_valid("a b"));
	assert_false(fleet_channel_valid("*"));
	memset(long_name, 'a', FLEET_CHANNEL_MAX);
	long_name[FLEET_CHANNEL_MAX] = '\0';
	assert_false(fleet_channel_valid(long_name));
}

static void test_stream_ids(void **state)
{
	struct fleet_id a, b;

	(void)state;
	assert_int_equal(fleet_id_parse("1700000000000-0", 15, &a), 0);
	assert_int_equal(fleet_id_parse("1700000000000-12", 16, &b), 0);
	assert_int_equal(fleet_id_cmp(&a, &b), -1);
	assert_int_equal(fleet_id_cmp(&b, &a), 1);
	assert_int_equal(fleet_id_cmp(&a, &a), 0);
	assert_int_equal(fleet_id_parse("1699999999999-99", 16, &b), 0);
	assert_int_equal(fleet_id_cmp(&b, &a), -1);	/* milliseconds first */
	assert_int_equal(fleet_id_parse("12", 2, &a), -EINVAL);
	assert_int_equal(fleet_id_parse("-1-2", 4, &a), -EINVAL);
	assert_int_equal(fleet_id_parse("1-2x", 4, &a), -EINVAL);
	assert_int_equal(fleet_id_parse("99999999999999999999-0", 22, &a), -EINVAL);
}

static redisReply *str_reply(const char *s)
{
	redisReply *r = calloc(1, sizeof(*r));

	r->type = REDIS_REPLY_STRING;
	r->str = strdup(s);
	r->len = strlen(s);
	return r;
}

static void test_fields(void **state)
{
	redisReply pairs = { .type = REDIS_REPLY_ARRAY, .elements = 4 };
	redisReply *el[4];
	char buf[8];
	int i;

	(void)state;
	el[0] = str_reply("type");
	el[1] = str_reply("full");
	el[2] = str_reply("sha256");
	el[3] = str_reply("0123456789abcdef");
	pairs.element = el;
	assert_string_equal(fleet_field_text(&pairs, "type", buf, sizeof(buf)), "full");
	/* Too long for the buffer: absent, never cut. */
	assert_null(fleet_field_text(&pairs, "sha256", buf, sizeof(buf)));
	assert_null(fleet_field(&pairs, "key"));
	/* A value is never taken for a name. */
	assert_null(fleet_field(&pairs, "full"));
	for (i = 0; i < 4; i++) {
		free(el[i]->str);
		free(el[i]);
	}
}

static void test_entries_in_force(void **state)
{
	struct fleet_entries s = {};
	char name[32];
	int i;

	(void)state;
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "192.0.2.%d", i);
		assert_int_equal(fleet_entries_add(&s, name, 0), 0);
	}
	assert_int_equal(fleet_entries_add(&s, "192.0.2.3", 5), 0);
	assert_int_equal(s.n, 40);
	assert_true(fleet_entries_remove(&s, "192.0.2.3"));
	assert_false(fleet_entries_remove(&s, "192.0.2.3"));
	assert_false(fleet_entries_has(&s, "192.0.2.3"));
	assert_true(fleet_entries_has(&s, "192.0.2.39"));
	assert_int_equal(s.n, 39);
	fleet_entries_free(&s);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_forms),
		cmocka_unit_test(test_url_tls),
		cmocka_unit_test(test_url_refused),
		cmocka_unit_test(test_channel_names),
		cmocka_unit_test(test_stream_ids),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_entries_in_force),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
