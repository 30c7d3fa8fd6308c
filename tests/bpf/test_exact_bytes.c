// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What --verify's exact copy and the allowlist are charged against
 * --max-memory: exact_set_bytes() of a set filled with known entries. Linux
 * 6.4 on accounts what an LPM trie holds (memlock in fdinfo); 6.1 reports
 * the room of its max_entries there, which for a load's room bound is
 * hundreds of MB for a handful of keys (every `load` with --verify was
 * refused on 6.1). On every kernel the figure must be the entries' own cost,
 * counted once each however often added, and where the kernel accounts
 * usage it must be the kernel's own figure. Runs in the kernel tier too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "xdp_harness.h"
#include "parse/entries.h"
#include "filter/exact.h"
#include "filter/ranges.h"

#define N_EACH	1000
#define N_HASHED 20000
/* 6.4's accounting of an entry: struct lpm_trie_node (40 bytes), the key's data, the value. */
#define V4_BYTES	(40 + 4 + 1)
#define V6_BYTES	(40 + 16 + 1)
#define NAME_BYTES	(40 + 8 + 1)

static const __u64 hash_key[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };

static int add_entry(const struct entry *e, void *ctx)
{
	return exact_set_add(ctx, hash_key, e);
}

static void add_line(struct exact_set *x, const char *line)
{
	char text[128];
	const char *why = NULL;

	snprintf(text, sizeof(text), "%s", line);
	if (entry_parse_line(text, FORMAT_AUTO, add_entry, x, &why))
		fail_msg("cannot add %s: %s", line, why ? why : "error");
}

static void test_exact_bytes(void **state)
{
	__u64 memlock, bytes, want = N_EACH * (__u64)(V4_BYTES + V6_BYTES + NAME_BYTES);
	struct exact_set x;
	char line[64];
	int i, pass;

	(void)state;
	/* The room of a load of the default --max-memory: what 6.1 reported as the cost. */
	assert_int_equal(exact_set_create(&x, exact_room_for_memory(256ULL << 20)), 0);
	for (pass = 0; pass < 2; pass++) {	/* the second pass adds every entry again */
		for (i = 0; i < N_EACH; i++) {
			snprintf(line, sizeof(line), "10.%d.%d.1", i >> 8, i & 0xff);
			add_line(&x, line);
			snprintf(line, sizeof(line), "2001:db8::%x:1", i);
			add_line(&x, line);
			snprintf(line, sizeof(line), "host%d.example.org", i);
			add_line(&x, line);
		}
	}
	bytes = exact_set_bytes(&x);
	memlock = map_fd_bytes(x.v4_fd) + map_fd_bytes(x.v6_fd) + map_fd_bytes(x.names_fd);
	print_message("# %d entries each: exact_set_bytes %llu, memlock %llu\n", N_EACH,
		      (unsigned long long)bytes, (unsigned long long)memlock);
	assert_int_equal(x.added[0], N_EACH);
	assert_int_equal(x.added[1], N_EACH);
	assert_int_equal(x.added[2], N_EACH);
	if (memlock < 100 * want) {
		/* What the tries hold, the kernel's figure (a node: 40 bytes in 6.4, 24 in 6.18). */
		assert_int_equal(bytes, memlock);
		assert_in_range(bytes, want - N_EACH * 3 * 16, want + N_EACH * 3 * 16);
	} else {
		/* The room of max_entries (6.1): the entries' cost as 6.4 would account it. */
		assert_int_equal(bytes, want);
	}
	exact_set_close(&x);
}

/*
 * The exact stage of --verify (a hashed set): hosts and name keys in hash
 * maps that grow, prefixes in a trie and as intervals. exact_set_bytes()
 * is the kernel's figure where it accounts usage, with the intervals; the
 * estimate made from the keys (what 6.1 gets) must stay near it: the
 * kernel's own bpf_htab and per-CPU locks are left out (a few KB per map).
 */
static void test_hashed_bytes(void **state)
{
	__u64 memlock, bytes, estimate, entries = 3 * N_HASHED + 2;
	struct exact_set x;
	char line[64];
	int i, pass;

	(void)state;
	assert_int_equal(exact_set_create_hashed(&x, exact_room_for_memory(256ULL << 20)), 0);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < N_HASHED; i++) {
			snprintf(line, sizeof(line), "10.%d.%d.%d", i >> 16, (i >> 8) & 0xff, i & 0xff);
			add_line(&x, line);
			snprintf(line, sizeof(line), "2001:db8::%x:%x", i >> 16, i & 0xffff);
			add_line(&x, line);
			snprintf(line, sizeof(line), "host%d.example.org", i);
			add_line(&x, line);
		}
		add_line(&x, "192.0.2.0/24");
		add_line(&x, "2001:db8:ff::/48");
	}
	assert_int_equal(x.added[0], N_HASHED);
	assert_int_equal(x.added[1], N_HASHED);
	assert_int_equal(x.added[2], N_HASHED);
	assert_int_equal(x.added_prefixes[0] + x.added_prefixes[1], 2);
	/* Grown from 1024 by doubling: the room of the least power of two that holds them. */
	assert_int_equal(x.room[0], 1U << 15);
	bytes = exact_set_bytes(&x);
	estimate = exact_set_bytes_estimate(&x);
	memlock = map_fd_bytes(x.v4_fd) + map_fd_bytes(x.v6_fd) + map_fd_bytes(x.names_fd) +
		  map_fd_bytes(x.p4_fd) + map_fd_bytes(x.p6_fd);
	print_message("# %llu entries: exact_set_bytes %llu (%.1f per entry), estimate %llu, "
		      "memlock %llu\n", (unsigned long long)entries, (unsigned long long)bytes,
		      (double)bytes / entries, (unsigned long long)estimate,
		      (unsigned long long)memlock);
	if (memlock < 10 * estimate) {
		/* The kernel's figure and the arrays of the two intervals (a header and a leaf each). */
		assert_int_equal(bytes, memlock + range_set_bytes(BLOOMXDP_KEY_IPV4, 1) +
					range_set_bytes(BLOOMXDP_KEY_IPV6, 1));
		assert_int_equal(range_set_bytes(BLOOMXDP_KEY_IPV4, 1) +
				 range_set_bytes(BLOOMXDP_KEY_IPV6, 1), 2 * 64 + 2 * 128);
		assert_in_range(estimate, bytes - bytes / 20, bytes + bytes / 20);
	} else {
		assert_int_equal(bytes, estimate);
	}
	exact_set_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_bytes),
		cmocka_unit_test(test_hashed_bytes),
	};

	return cmocka_run_group_tests_name("exact_bytes", tests, NULL, NULL);
}
