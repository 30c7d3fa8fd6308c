// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The most-hit entries over drop events (user/service/top.c): exact counts
 * while the distinct entries fit; past TOP_CAPACITY, Space-Saving's promises
 * (every entry seen more than events / capacity times is reported, its true
 * count within [count - error, count]); two windows, the older one dropped
 * once two windows have passed; N bounded.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "service/top.h"

static struct top_table *table(void)
{
	struct top_table *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	top_init(t, 1000);
	return t;
}

static void test_exact(void **state)
{
	struct top_table *t = table();
	struct top_report r;
	int i;

	(void)state;
	for (i = 0; i < 5; i++)
		top_add(t, "name evil.example", "default", 1000 + i);
	for (i = 0; i < 3; i++)
		top_add(t, "address 192.0.2.1", "default", 1001);
	top_add(t, "address 192.0.2.1", "ads", 1002);	/* another list: another entry */
	assert_int_equal(top_report(t, 10, 1003, &r), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.events, 9);
	assert_string_equal(r.items[0].entry, "name evil.example");
	assert_int_equal(r.items[0].count, 5);
	assert_int_equal(r.items[0].error, 0);
	assert_string_equal(r.items[1].entry, "address 192.0.2.1");
	assert_string_equal(r.items[1].list, "default");
	assert_int_equal(r.items[1].count, 3);
	assert_string_equal(r.items[2].list, "ads");
	assert_int_equal(top_report(t, 1, 1003, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(top_report(t, 0, 1003, &r), -EINVAL);
	assert_int_equal(top_report(t, TOP_MAX + 1, 1003, &r), -EINVAL);
	free(t);
}

/* A heavy hitter among many more distinct entries than counters, interleaved. */
static void test_space_saving(void **state)
{
	struct top_table *t = table();
	struct top_report r;
	char entry[64];
	unsigned int i, heavy = 0;

	(void)state;
	for (i = 0; i < 20000; i++) {
		if (i % 10 == 0) {
			top_add(t, "prefix 198.51.100.0/24", "default", 1000);
			heavy++;
			continue;
		}
		snprintf(entry, sizeof(entry), "address 10.0.%u.%u", (i / 256) % 256, i % 256);
		top_add(t, entry, "default", 1000);
	}
	assert_int_equal(top_report(t, 5, 1000, &r), 0);
	assert_int_equal(r.events, 20000);
	assert_string_equal(r.items[0].entry, "prefix 198.51.100.0/24");
	assert_true(r.items[0].count >= heavy);
	assert_true(r.items[0].count - r.items[0].error <= heavy);
	for (i = 1; i < r.n; i++)	/* each other is seen once: its count is its error + 1 at most */
		assert_true(r.items[i].count - r.items[i].error <= 1);
	free(t);
}

static void test_windows(void **state)
{
	struct top_table *t = table();
	struct top_report r;

	(void)state;
	top_add(t, "name old.example", "default", 1000);
	top_add(t, "name new.example", "default", 1000 + TOP_WINDOW_SEC + 1);
	assert_int_equal(top_report(t, 10, 1000 + TOP_WINDOW_SEC + 2, &r), 0);
	assert_int_equal(r.n, 2);		/* the previous window is still reported */
	assert_int_equal(r.seconds, TOP_WINDOW_SEC + 2);
	assert_int_equal(top_report(t, 10, 1000 + 2 * TOP_WINDOW_SEC + 1, &r), 0);
	assert_int_equal(r.n, 1);		/* old.example's window has gone */
	assert_string_equal(r.items[0].entry, "name new.example");
	assert_int_equal(top_report(t, 10, 1000 + 4 * TOP_WINDOW_SEC, &r), 0);
	assert_int_equal(r.n, 0);		/* nothing for two windows: nothing */
	assert_int_equal(r.events, 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_space_saving),
		cmocka_unit_test(test_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
