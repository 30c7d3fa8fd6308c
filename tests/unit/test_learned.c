// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Learned addresses (user/lists/learned.c): the key of an address, the
 * question's name of wire form as text (hostile bytes escaped, cut names
 * said), and the program's CLOCK_MONOTONIC times as wall-clock dates.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>

#include "lists/learned.h"
#include "parse/keys.h"

static void check_name(const char *wire, __u32 len, int ret, const char *text)
{
	char buf[LEARNED_NAME_TEXT_MAX];

	assert_int_equal(learned_name_text((const __u8 *)wire, len, buf, sizeof(buf)), ret);
	assert_string_equal(buf, text);
}

static void test_name_text(void **state)
{
	char small[6];

	(void)state;
	check_name("\1x\7example\0", 11, 0, "x.example");
	check_name("\0", 1, 0, ".");
	/* Cut before its end (the map keeps 64 bytes): said. */
	check_name("\7tracker\7exam", 13, 0, "tracker.exam...");
	check_name("\7tracker", 8, 0, "tracker...");
	/* Dots, backslashes, spaces and control bytes inside a label: escaped. */
	check_name("\3a.b\2\\ \1\n\0", 10, 0, "a\\046b.\\092\\032.\\010");
	/* A compression pointer or a label past 63 bytes: not a name the question holds. */
	check_name("\300\14", 2, -EINVAL, "?");
	check_name("\100abc", 4, -EINVAL, "?");
	/* Nothing at all. */
	check_name("", 0, 0, "...");
	/* A short buffer: cut there, said. */
	assert_int_equal(learned_name_text((const __u8 *)"\7example\0", 9, small, sizeof(small)),
			 -ENOSPC);
	assert_true(strlen(small) < sizeof(small));
}

static void test_time_text(void **state)
{
	/* 2026-12-02T18:33:27Z at monotonic 1000 s. */
	struct clock_pair now = { .mono_ns = 1000000000000ULL,
				  .real = { .tv_sec = 1796236407, .tv_nsec = 0 } };
	char buf[LEARNED_TIME_TEXT_MAX];

	(void)state;
	assert_string_equal(learned_time_text(now.mono_ns, &now, buf, sizeof(buf)),
			    "2026-12-02T18:33:27Z");
	/* An hour later, and 30 s before: offsets of the monotonic clock. */
	assert_string_equal(learned_time_text(now.mono_ns + 3600000000000ULL, &now, buf,
					      sizeof(buf)), "2026-12-02T19:33:27Z");
	assert_string_equal(learned_time_text(now.mono_ns - 30000000000ULL, &now, buf,
					      sizeof(buf)), "2026-12-02T18:32:57Z");
	/* The second it falls in, as a clock shows it. */
	assert_string_equal(learned_time_text(now.mono_ns + 999999999ULL, &now, buf,
					      sizeof(buf)), "2026-12-02T18:33:27Z");
	assert_string_equal(learned_time_text(now.mono_ns - 1ULL, &now, buf, sizeof(buf)),
			    "2026-12-02T18:33:26Z");
	now.real.tv_nsec = 600000000;
	assert_string_equal(learned_time_text(now.mono_ns + 400000000ULL, &now, buf,
					      sizeof(buf)), "2026-12-02T18:33:28Z");
	/* Before boot: still a date. */
	assert_string_equal(learned_time_text(0, &now, buf, sizeof(buf)), "2026-12-02T18:16:47Z");
}

static void test_key_of(void **state)
{
	static const __u8 v4[16] = { 192, 0, 2, 7 };
	static const __u8 v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 };
	struct bloomxdp_learn_key k;
	struct bloomxdp_key key;
	const char *why;

	(void)state;
	assert_int_equal(key_parse("192.0.2.7", &key, &why), 0);
	assert_int_equal(learned_key_of(&key, &k), 0);
	assert_int_equal(k.family, 4);
	assert_memory_equal(k.addr, v4, 16);
	assert_int_equal(key_parse("2001:db8::9", &key, &why), 0);
	assert_int_equal(learned_key_of(&key, &k), 0);
	assert_int_equal(k.family, 6);
	assert_memory_equal(k.addr, v6, 16);
	/* An IPv4-mapped address is the IPv4 one, as the program keys it. */
	assert_int_equal(key_parse("::ffff:192.0.2.7", &key, &why), 0);
	assert_int_equal(learned_key_of(&key, &k), 0);
	assert_int_equal(k.family, 4);
	assert_memory_equal(k.addr, v4, 16);
	/* A prefix is not learned. */
	assert_int_equal(key_parse("192.0.2.0/24", &key, &why), 0);
	assert_int_equal(learned_key_of(&key, &k), -EINVAL);
}

/* No map: nothing found, counted or swept. */
static void test_no_map(void **state)
{
	struct bloomxdp_learn_key k = { .family = 4 };
	struct learned_view v;
	__u64 total = 1;
	__u32 deleted = 1;

	(void)state;
	assert_int_equal(learned_find(-1, &k, &v), -ENOENT);
	assert_int_equal(learned_count(-1, 0, &total, NULL), 0);
	assert_int_equal(total, 0);
	assert_int_equal(learned_sweep(-1, 0, LEARNED_SWEEP_BUDGET, &deleted), 0);
	assert_int_equal(deleted, 0);
}

static void put(int fd, __u8 last, __u64 expires_ns, __u32 list)
{
	struct bloomxdp_learn_key k = { .family = 4, .addr = { 192, 0, 2, last } };
	struct bloomxdp_learned v = { .expires_ns = expires_ns, .list = list, .ttl = 60,
				      .name_len = 11, .name = "\1x\7example" };

	assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_ANY), 0);
}

/* A map of the program's kind: found, counted and swept as their expiry says. */
static void test_map(void **state)
{
	struct bloomxdp_learn_key k = { .family = 4, .addr = { 192, 0, 2, 1 } };
	__u64 total, per_list[BLOOMXDP_LIST_IDS];
	struct learned_view v;
	struct clock_pair now;
	__u32 deleted;
	int fd;

	(void)state;
	fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "test_learned", sizeof(k),
			    sizeof(struct bloomxdp_learned), 64, NULL);
	if (fd < 0)
		skip();		/* no BPF here (not root) */
	clock_pair_now(&now);
	put(fd, 1, now.mono_ns + 60000000000ULL, 3);
	put(fd, 2, now.mono_ns - 1, 3);
	put(fd, 3, 1, 99);
	assert_int_equal(learned_find(fd, &k, &v), 0);
	assert_string_equal(v.name, "x.example");
	assert_int_equal(v.v.list, 3);
	k.addr[3] = 2;
	assert_int_equal(learned_find(fd, &k, &v), -ENOENT);
	assert_int_equal(learned_count(fd, now.mono_ns, &total, per_list), 0);
	assert_int_equal(total, 1);
	assert_int_equal(per_list[3], 1);
	/* Two expired, one at a time within the budget; then none. */
	assert_int_equal(learned_sweep(fd, now.mono_ns, 1, &deleted), 0);
	assert_int_equal(deleted, 1);
	assert_int_equal(learned_sweep(fd, now.mono_ns, LEARNED_SWEEP_BUDGET, &deleted), 0);
	assert_int_equal(deleted, 1);
	assert_int_equal(learned_sweep(fd, now.mono_ns, LEARNED_SWEEP_BUDGET, &deleted), 0);
	assert_int_equal(deleted, 0);
	k.addr[3] = 1;
	assert_int_equal(learned_find(fd, &k, &v), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_text),
		cmocka_unit_test(test_time_text),
		cmocka_unit_test(test_key_of),
		cmocka_unit_test(test_no_map),
		cmocka_unit_test(test_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
