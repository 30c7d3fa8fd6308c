// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A load's exact copy kept aside while its lists are read (exact_set_defer()),
 * then put in its hash maps by exact_set_flush(): every distinct host and name
 * there and counted once, duplicates or not; more distinct keys than the room
 * refused (-ENOSPC) as a copy growing key by key is, duplicates not counted
 * against it. Creates BPF maps: needs root (or CAP_BPF).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "filter/exact.h"
#include "parse/entries.h"
#include "parse/keys.h"

/* A hashed set of room max, or the test skipped where BPF maps cannot be made (not root). */
static void create(struct exact_set *x, __u32 max)
{
	if (exact_set_create_hashed(x, max))
		skip();
}

static const __u64 hash_key[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };

static void host(struct entry *e, const char *fmt, unsigned int i)
{
	char text[64];
	const char *why = NULL;

	memset(e, 0, sizeof(*e));
	e->kind = ENTRY_ADDR;
	snprintf(text, sizeof(text), fmt, i >> 8 & 255, i & 255);
	assert_int_equal(key_parse(text, &e->addr, &why), 0);
}

/* Adds host(fmt, i % mod) for i in 0..n, each accepted. */
static void add_hosts(struct exact_set *x, const char *fmt, unsigned int n, unsigned int mod)
{
	struct entry e;
	unsigned int i;

	for (i = 0; i < n; i++) {
		host(&e, fmt, i % mod);
		assert_int_equal(exact_set_add(x, hash_key, &e), 0);
	}
}

static void name(struct entry *e, unsigned int i)
{
	memset(e, 0, sizeof(*e));
	e->kind = ENTRY_NAME;
	snprintf(e->name, sizeof(e->name), "host%u.example", i);
}

/* Hosts (IPv4 and IPv6) and names, each added twice, all in once flushed. */
static void test_flush(void **state)
{
	struct exact_set x;
	struct entry e;
	unsigned int i, round;

	(void)state;
	create(&x, 100000);
	exact_set_defer(&x);
	for (round = 0; round < 2; round++)
		for (i = 0; i < 3000; i++) {
			host(&e, "10.1.%u.%u", i);
			assert_int_equal(exact_set_add(&x, hash_key, &e), 0);
			host(&e, "2001:db8::%x:%x", i);
			assert_int_equal(exact_set_add(&x, hash_key, &e), 0);
			name(&e, i);
			assert_int_equal(exact_set_add(&x, hash_key, &e), 0);
		}
	/* Nothing in the maps until the flush. */
	host(&e, "10.1.%u.%u", 7);
	assert_false(exact_set_has(&x, hash_key, &e));
	assert_int_equal(exact_set_flush(&x), 0);
	assert_int_equal(x.added[0], 3000);
	assert_int_equal(x.added[1], 3000);
	assert_int_equal(x.added[2], 3000);
	assert_true(x.room[0] >= 3000);
	for (i = 0; i < 3000; i++) {
		host(&e, "10.1.%u.%u", i);
		assert_true(exact_set_has(&x, hash_key, &e));
		host(&e, "2001:db8::%x:%x", i);
		assert_true(exact_set_has(&x, hash_key, &e));
		name(&e, i);
		assert_true(exact_set_has(&x, hash_key, &e));
	}
	host(&e, "10.2.%u.%u", 7);
	assert_false(exact_set_has(&x, hash_key, &e));
	name(&e, 3000);
	assert_false(exact_set_has(&x, hash_key, &e));
	/* Not deferred any more: an add goes in at once. */
	assert_int_equal(exact_set_add(&x, hash_key, &e), 0);
	assert_true(exact_set_has(&x, hash_key, &e));
	exact_set_close(&x);
}

/* One more distinct host than the room: -ENOSPC, a few put in to tell the size. */
static void test_overflow(void **state)
{
	struct exact_set x;
	struct entry e;
	unsigned int i;
	int ret = 0;

	(void)state;
	create(&x, 100);
	exact_set_defer(&x);
	for (i = 0; i < 150 && !ret; i++) {
		host(&e, "10.1.%u.%u", i);
		ret = exact_set_add(&x, hash_key, &e);
	}
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(i, 101);
	assert_int_equal(x.added[0], 100);
	assert_false(x.deferred);
	exact_set_close(&x);
}

/* As many distinct hosts as the room, each three times: they fit. */
static void test_duplicates_fit(void **state)
{
	struct exact_set x;
	struct entry e;
	unsigned int i;

	(void)state;
	create(&x, 100);
	exact_set_defer(&x);
	add_hosts(&x, "10.1.%u.%u", 300, 100);
	assert_int_equal(exact_set_flush(&x), 0);
	assert_int_equal(x.added[0], 100);
	for (i = 0; i < 100; i++) {
		host(&e, "10.1.%u.%u", i);
		assert_true(exact_set_has(&x, hash_key, &e));
	}
	exact_set_close(&x);
}

/*
 * Too many found only at the flush: 101 adds of 60 hosts (judged then: 60
 * distinct, judged again at 120 aside), then 41 more (101 aside, all distinct).
 */
static void test_overflow_at_flush(void **state)
{
	struct exact_set x;

	(void)state;
	create(&x, 100);
	exact_set_defer(&x);
	add_hosts(&x, "10.1.%u.%u", 101, 60);
	add_hosts(&x, "10.2.%u.%u", 41, 41);
	assert_int_equal(exact_set_flush(&x), -ENOSPC);
	exact_set_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_duplicates_fit),
		cmocka_unit_test(test_overflow_at_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
