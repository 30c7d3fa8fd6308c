// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The exact stage's tables of hosts (user/filter/exact_table.c), in memory:
 * every key placed is found where the program looks (its bucket), none not
 * placed is; no table for a key 0 (0.0.0.0, ::, the empty slot), for more
 * than BLOOMXDP_TABLE_MAX_KEYS keys, for keys that do not fit their buckets
 * (an address key of zero multipliers puts every key in one bucket), or for
 * none; the header says the mask, the count and the key's check.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <bloomxdp/hash.h>
#include "filter/exact_table.h"

static const __u64 hash_key[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };

static __u8 *random_keys(__u32 n, __u32 size, unsigned int seed)
{
	__u8 *keys = malloc((size_t)n * size);
	__u32 i, j;

	assert_non_null(keys);
	srand(seed);
	/* Distinct: the index in the first 4 bytes, random after, never 0. */
	for (i = 0; i < n; i++) {
		memcpy(keys + (size_t)i * size, &(__u32){ i + 1 }, 4);
		for (j = 4; j < size; j++)
			keys[(size_t)i * size + j] = rand();
	}
	return keys;
}

static void check_family(__u32 size, __u32 n)
{
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS];
	struct bloomxdp_table_hdr hdr;
	__u8 *keys = random_keys(2 * n, size, n), other[16];
	struct exact_table t;
	__u32 i;

	bloomxdp_addr_key_derive(hash_key, addr_key);
	assert_int_equal(exact_table_build(&t, addr_key, keys, n, size), 0);
	memcpy(&hdr, t.line, sizeof(hdr));
	assert_int_equal(hdr.mask, t.mask);
	assert_int_equal(hdr.keys, n);
	assert_int_equal(hdr.check, bloomxdp_table_check(addr_key));
	/* A quarter full on average at most, a power of two of buckets. */
	assert_int_equal(t.mask & (t.mask + 1), 0);
	assert_true((__u64)(t.mask + 1) * (size == 4 ? 16 : 8) >= 4ULL * n);
	for (i = 0; i < n; i++)
		assert_true(exact_table_has(&t, addr_key, keys + (size_t)i * size));
	for (i = n; i < 2 * n; i++)
		assert_false(exact_table_has(&t, addr_key, keys + (size_t)i * size));
	memset(other, 0, sizeof(other));
	assert_false(exact_table_has(&t, addr_key, other));
	exact_table_free(&t);
	free(keys);
}

static void test_placed(void **state)
{
	(void)state;
	check_family(4, 1);
	check_family(4, 3000);
	check_family(4, BLOOMXDP_TABLE_MAX_KEYS);
	check_family(16, 1);
	check_family(16, 3000);
	check_family(16, 20000);
}

static void test_none(void **state)
{
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS];
	__u8 *keys = random_keys(BLOOMXDP_TABLE_MAX_KEYS + 1, 4, 1);
	struct exact_table t;

	(void)state;
	bloomxdp_addr_key_derive(hash_key, addr_key);
	assert_int_equal(exact_table_build(&t, addr_key, keys, 0, 4), -ENOENT);
	assert_int_equal(exact_table_build(&t, addr_key, keys, BLOOMXDP_TABLE_MAX_KEYS + 1, 4),
			 -ENOENT);
	/* A key 0 is an empty slot: the hash map holds such a list. */
	memset(keys + 4 * 10, 0, 4);
	assert_int_equal(exact_table_build(&t, addr_key, keys, 100, 4), -ENOENT);
	free(keys);
	keys = random_keys(100, 16, 2);
	memset(keys + 16 * 99, 0, 16);
	assert_int_equal(exact_table_build(&t, addr_key, keys, 100, 16), -ENOENT);
	assert_int_equal(exact_table_build(&t, addr_key, keys, 99, 16), 0);
	exact_table_free(&t);
	/* Every key in one bucket: 17 do not fit 16 slots at any size. */
	memset(addr_key, 0, sizeof(addr_key));
	free(keys);
	keys = random_keys(17, 4, 3);
	assert_int_equal(exact_table_build(&t, addr_key, keys, 16, 4), 0);
	exact_table_free(&t);
	assert_int_equal(exact_table_build(&t, addr_key, keys, 17, 4), -ENOENT);
	assert_null(t.line);
	free(keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placed),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
