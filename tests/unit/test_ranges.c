// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The interval builder and the cost model of user/filter/ranges.c: merging of
 * overlapping, nested and adjacent prefixes, the carry of IPv6 across its
 * two 64-bit halves, the ends of the address space, the search query uses,
 * the text of an interval, and which store the cost model picks.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parse/keys.h"
#include "parse/prefixes.h"
#include "filter/ranges.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The set of entries, merged, as "first-last" texts joined by spaces. */
static void merged(__u32 family, const char *const *entries, size_t n, char *out, size_t len)
{
	struct bloomxdp_key key;
	struct range_set s;
	const char *why;
	size_t i, used = 0;
	char buf[96];

	range_set_init(&s, family);
	for (i = 0; i < n; i++) {
		assert_int_equal(key_parse(entries[i], &key, &why), 0);
		assert_int_equal(range_set_add_key(&s, &key), 0);
	}
	range_set_merge(&s);
	out[0] = '\0';
	for (i = 0; i < s.n; i++)
		used += snprintf(out + used, len - used, "%s%s", i ? " " : "",
				 range_text(family, &s.r[i], buf, sizeof(buf)));
	range_set_free(&s);
}

#define MERGED(family, want, ...)						\
	do {									\
		static const char *const in[] = { __VA_ARGS__ };		\
		char got[1024];							\
										\
		merged(family, in, ARRAY_SIZE(in), got, sizeof(got));		\
		assert_string_equal(got, want);					\
	} while (0)

static void test_merge_v4(void **state)
{
	(void)state;
	/* Nested: the /24 holds the hosts and the /26. */
	MERGED(BLOOMXDP_KEY_IPV4, "198.51.100.0/24", "198.51.100.7", "198.51.100.0/24",
	       "198.51.100.64/26", "198.51.100.255");
	/* Adjacent halves make one prefix; a gap of one address keeps two. */
	MERGED(BLOOMXDP_KEY_IPV4, "10.0.0.0/23", "10.0.0.0/24", "10.0.1.0/24");
	MERGED(BLOOMXDP_KEY_IPV4, "10.0.0.0/24 10.0.1.1/32", "10.0.0.0/24", "10.0.1.1");
	/* Adjacent but not one prefix: a range. */
	MERGED(BLOOMXDP_KEY_IPV4, "10.0.1.0-10.0.2.255", "10.0.2.0/24", "10.0.1.0/24");
	/* Unsorted input, overlapping. */
	MERGED(BLOOMXDP_KEY_IPV4, "10.0.0.0-10.0.0.9 10.0.0.11/32", "10.0.0.11", "10.0.0.8/31",
	       "10.0.0.0/29", "10.0.0.9");
	/* The ends of the space: no wrap at 255.255.255.255. */
	MERGED(BLOOMXDP_KEY_IPV4, "0.0.0.0/32 255.255.255.254/31", "255.255.255.255",
	       "0.0.0.0", "255.255.255.254");
	MERGED(BLOOMXDP_KEY_IPV4, "0.0.0.0/0", "255.255.255.255", "0.0.0.0/0", "1.2.3.4");
}

static void test_merge_v6(void **state)
{
	(void)state;
	/* Adjacent across the carry from the low 64 bits into the high ones. */
	MERGED(BLOOMXDP_KEY_IPV6, "2001:db8:0:1:ffff:ffff:ffff:ff00-2001:db8:0:2:ff:ffff:ffff:ffff",
	       "2001:db8:0:2::/72", "2001:db8:0:1:ffff:ffff:ffff:ff00/120");
	MERGED(BLOOMXDP_KEY_IPV6, "2001:db8::/63", "2001:db8:0:1::/64", "2001:db8::/64");
	MERGED(BLOOMXDP_KEY_IPV6, "2001:db8::1/128 2001:db8::3/128", "2001:db8::3",
	       "2001:db8::1");
	/* The top of the space, and all of it. */
	MERGED(BLOOMXDP_KEY_IPV6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127",
	       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe");
	MERGED(BLOOMXDP_KEY_IPV6, "::/0", "::/0", "2001:db8::/32");
}

/* A reproducible pseudo-random sequence (splitmix64). */
static __u64 next_random(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * range_set_merge_keys() (a load's merge: IPv4 packed and radix-sorted) makes
 * the intervals that adding the keys one by one and merging makes, for lists
 * of both families mixed, of every length, dense enough to overlap and touch,
 * in random order and sorted; over keep_max it counts them and keeps none.
 */
static void test_merge_keys(void **state)
{
	enum { N = 20000 };
	static struct bloomxdp_key keys[N];
	__u64 seed = 7, r;
	__u8 addr[16];
	int round, fam;
	size_t i;

	(void)state;
	for (round = 0; round < 4; round++) {
		for (i = 0; i < N; i++) {
			r = next_random(&seed);
			memset(addr, 0, sizeof(addr));
			/* Within a /10 (IPv4): neighbours meet, some nest, most do not. */
			addr[0] = round == 3 ? 0xff : 10;
			addr[1] = (r >> 8) & 63;
			addr[2] = r >> 16;
			addr[3] = r >> 24;
			if (r & 1)
				bloomxdp_key_ipv4(&keys[i], addr, 24 + (r >> 32) % 9);
			else
				bloomxdp_key_ipv6(&keys[i], addr, 32 + (r >> 32) % 97);
		}
		if (round == 1) {
			/* Sorted input, as published lists are: the sort is skipped. */
			for (i = 0; i < N; i++) {
				__u32 a = htonl(0x0a000000 + i * 64);

				if (key_family(&keys[i]) == BLOOMXDP_KEY_IPV4)
					bloomxdp_key_ipv4(&keys[i], &a, 26 + i % 7);
			}
		}
		for (fam = 0; fam < 2; fam++) {
			__u32 family = fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4;
			struct range_set want, got, counted;

			range_set_init(&want, family);
			for (i = 0; i < N; i++)
				if (key_family(&keys[i]) == family)
					assert_int_equal(range_set_add_key(&want, &keys[i]), 0);
			range_set_merge(&want);
			range_set_init(&got, family);
			assert_int_equal(range_set_merge_keys(&got, keys, N, UINT64_MAX), 0);
			assert_int_equal(got.n, want.n);
			assert_true(want.n > 100);
			assert_memory_equal(got.r, want.r, want.n * sizeof(*want.r));
			if (family == BLOOMXDP_KEY_IPV4) {
				range_set_init(&counted, family);
				assert_int_equal(range_set_merge_keys(&counted, keys, N, want.n - 1),
						 0);
				assert_int_equal(counted.n, want.n);
				assert_null(counted.r);
				range_set_free(&counted);
			}
			range_set_free(&want);
			range_set_free(&got);
		}
	}
}

static void test_find(void **state)
{
	static const char *const in[] = { "10.0.0.0/24", "10.0.2.0/24", "10.0.3.0/24" };
	struct bloomxdp_key key;
	struct range_set s;
	const char *why;
	__u8 a[4] = { 10, 0, 0, 0 };
	size_t i;

	(void)state;
	range_set_init(&s, BLOOMXDP_KEY_IPV4);
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		assert_int_equal(key_parse(in[i], &key, &why), 0);
		assert_int_equal(range_set_add_key(&s, &key), 0);
	}
	range_set_merge(&s);
	assert_int_equal(s.n, 2);
	assert_int_equal(range_set_find(&s, range_addr_of(BLOOMXDP_KEY_IPV4, a)), 0);
	a[3] = 255;
	assert_int_equal(range_set_find(&s, range_addr_of(BLOOMXDP_KEY_IPV4, a)), 0);
	a[2] = 1;
	assert_int_equal(range_set_find(&s, range_addr_of(BLOOMXDP_KEY_IPV4, a)), -1);
	a[2] = 2;
	a[3] = 0;
	assert_int_equal(range_set_find(&s, range_addr_of(BLOOMXDP_KEY_IPV4, a)), 1);
	a[2] = 3;
	a[3] = 255;
	assert_int_equal(range_set_find(&s, range_addr_of(BLOOMXDP_KEY_IPV4, a)), 1);
	a[2] = 4;
	a[3] = 0;
	assert_int_equal(range_set_find(&s, range_addr_of(BLOOMXDP_KEY_IPV4, a)), -1);
	a[0] = 9;
	assert_int_equal(range_set_find(&s, range_addr_of(BLOOMXDP_KEY_IPV4, a)), -1);
	range_set_free(&s);
}

static struct range_cost cost(__u64 entries, double expanded, __u64 intervals, __u32 family,
			      enum range_store store)
{
	struct range_cost c = { .entries = entries, .expanded = expanded, .probes = 6,
				.intervals = intervals };

	/* About 9.6 bits per key: FPR 1%. */
	range_cost_decide(&c, family, 9.6, store);
	return c;
}

/* A word and where it was: the order of a stable sort by start. */
struct placed {
	__u64 w;
	size_t i;
};

static int placed_cmp(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->w >> 32 != y->w >> 32)
		return x->w >> 32 < y->w >> 32 ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * range_v4_sort() as a stable sort by start (the high half), on one thread (a
 * thousand words) and on two (past a million: each half of every pass placed
 * by its own thread): starts of every digit, duplicates, the same start with
 * other ends, and an odd count, so that the halves differ in size.
 */
static void v4_sort_stable(size_t n)
{
	struct placed *b = malloc(n * sizeof(*b));
	__u64 *a = malloc(n * sizeof(*a)), x = 12345;
	size_t i;

	assert_non_null(a);
	assert_non_null(b);
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Every tenth a duplicate of an earlier one; every seventh an earlier start. */
		a[i] = i % 10 == 9 ? a[x % i] : i % 7 == 6 ? (a[x % i] & ~0xffffffffULL) |
			(x >> 40) : x;
		b[i].w = a[i];
		b[i].i = i;
	}
	qsort(b, n, sizeof(*b), placed_cmp);
	assert_int_equal(range_v4_sort(a, n), 0);
	for (i = 0; i < n; i++)
		assert_true(a[i] == b[i].w);
	free(a);
	free(b);
}

static void test_v4_sort(void **state)
{
	(void)state;
	v4_sort_stable(1001);
	v4_sort_stable((1 << 20) + 12345);
}

static void test_cost_model(void **state)
{
	struct range_cost c;

	(void)state;
	/* Refused expansion: intervals whatever they cost. */
	c = cost(12684, INFINITY, 12000, BLOOMXDP_KEY_IPV6, RANGE_STORE_AUTO);
	assert_true(c.use_ranges);
	assert_true(isinf(c.bloom_bytes));
	/* 3000 leaves of 4 and 334 + 38 + 5 + 1 inner nodes of 128 bytes, and the header. */
	assert_int_equal(c.range_bytes, (1 + 1 + 5 + 38 + 334 + 3000) * 128);
	assert_int_equal(c.steps, 6);
	/* The case: 57 million keys for 12,684 prefixes. */
	assert_true(cost(12684, 57e6, 12000, BLOOMXDP_KEY_IPV6, RANGE_STORE_AUTO).use_ranges);
	/*
	 * Within twice the Bloom bytes, the intervals' own (8 each): 117152 <= 2 * 52070 * 1.2;
	 * the tree itself 1831 leaves, 108 + 7 + 1 nodes and the header.
	 */
	c = cost(29407, 52070, 14644, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO);
	assert_true(c.use_ranges);
	assert_int_equal(c.range_bytes, (1 + 1 + 7 + 108 + 1831) * 64);
	/*
	 * 11 hosts that merge into 2 intervals (16 bytes against 13 of Bloom): exact, the
	 * tree's fixed lines (a header and a leaf, 128 bytes) not weighed; 11 that do not merge
	 * (88 bytes): the Bloom filter.
	 */
	c = cost(11, 11, 2, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO);
	assert_true(c.use_ranges);
	assert_int_equal(c.range_bytes, 128);
	assert_false(cost(11, 11, 11, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).use_ranges);
	/* Hosts: no expansion, the Bloom filter is ~7x (IPv4) and ~27x (IPv6) smaller. */
	assert_false(cost(100000, 100000, 99000, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).use_ranges);
	assert_false(cost(100000, 100000, 99000, BLOOMXDP_KEY_IPV6, RANGE_STORE_AUTO).use_ranges);
	/* Expansion past the bound: intervals, even at 10x the memory. */
	assert_true(cost(1000, 4100, 1000, BLOOMXDP_KEY_IPV6, RANGE_STORE_AUTO).use_ranges);
	assert_false(cost(1000, 3900, 1000, BLOOMXDP_KEY_IPV6, RANGE_STORE_AUTO).use_ranges);
	/* --store forces either; nothing listed, nothing stored. */
	assert_true(cost(100000, 100000, 99000, BLOOMXDP_KEY_IPV4,
			 RANGE_STORE_INTERVALS).use_ranges);
	assert_false(cost(12684, 57e6, 12000, BLOOMXDP_KEY_IPV6, RANGE_STORE_BLOOM).use_ranges);
	assert_false(cost(0, 0, 0, BLOOMXDP_KEY_IPV4, RANGE_STORE_INTERVALS).use_ranges);
	/* Steps: lines read, the header, one a level (leaves of 8, nodes of 17), the leaf. */
	assert_int_equal(cost(1, 1, 1, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).steps, 2);
	assert_int_equal(cost(8, 8, 8, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).steps, 2);
	assert_int_equal(cost(9, 9, 9, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).steps, 3);
	assert_int_equal(cost(136, 136, 136, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).steps, 3);
	assert_int_equal(cost(137, 137, 137, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).steps, 4);
	assert_int_equal(cost(50000, 50000, 50000, BLOOMXDP_KEY_IPV4, RANGE_STORE_AUTO).steps, 6);
	/* IPv6: leaves of 4, nodes of 9. */
	assert_int_equal(cost(36, 36, 36, BLOOMXDP_KEY_IPV6, RANGE_STORE_AUTO).steps, 3);
	assert_int_equal(cost(37, 37, 37, BLOOMXDP_KEY_IPV6, RANGE_STORE_AUTO).steps, 4);
	assert_int_equal(range_set_bytes(BLOOMXDP_KEY_IPV4, 0), 0);
	assert_int_equal(range_set_bytes(BLOOMXDP_KEY_IPV4, 1), 2 * 64);
	assert_int_equal(range_set_bytes(BLOOMXDP_KEY_IPV6, 5), 4 * 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_v4),
		cmocka_unit_test(test_merge_v6),
		cmocka_unit_test(test_merge_keys),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_cost_model),
		cmocka_unit_test(test_v4_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
