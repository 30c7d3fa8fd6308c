// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The exact stage's tables of hosts (verify_table_v4/v6, include/bloomxdp/
 * common.h), through BPF_PROG_TEST_RUN (verify_harness.h):
 *  - a load of 3,000 IPv4 and 500 IPv6 hosts makes both tables; every listed
 *    host drops confirmed, read from the table (a host taken out of the hash
 *    map behind its back still drops); a Bloom false positive passes
 *    (false_positives);
 *  - add and del on the live generation, as bloomxdp add/del do them: a new
 *    table each time, the added host drops, the deleted one passes, the
 *    others drop throughout; 0.0.0.0 or :: added takes that family's table
 *    away (the hash map then), deleted gives it back;
 *  - a list of more than BLOOMXDP_TABLE_MAX_KEYS hosts has no table: the
 *    hash map confirms, its false positives pass;
 *  - exact_set_open() of the live slot (what add, del and restore's
 *    commands open) finds the tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "verify_harness.h"

static const __u64 fixed_key[2] = { 0x1122334455667788ULL, 0x99aabbccddeeff00ULL };

#define DST4 "10.255.255.254"
#define DST6 "fd00::fe"
#define HOSTS4 3000
#define HOSTS6 500

static void host4(char *buf, size_t len, __u32 i)
{
	snprintf(buf, len, "10.%u.%u.%u", 1 + i / 65536, i / 256 % 256, i % 256);
}

static void host6(char *buf, size_t len, __u32 i)
{
	snprintf(buf, len, "2001:db8:%x::%x", 1 + i / 65536, i % 65536 + 1);
}

/* n4 IPv4 and n6 IPv6 hosts, as a list's lines. */
static char **hosts(__u32 n4, __u32 n6)
{
	char **list = calloc(n4 + n6 + 1, sizeof(*list));
	__u32 i;

	assert_non_null(list);
	for (i = 0; i < n4 + n6; i++) {
		list[i] = malloc(48);
		assert_non_null(list[i]);
		if (i < n4)
			host4(list[i], 48, i);
		else
			host6(list[i], 48, i - n4);
	}
	return list;
}

static void hosts_free(char **list)
{
	size_t i;

	for (i = 0; list[i]; i++)
		free(list[i]);
	free(list);
}

static __u32 run(struct vh *v, const char *src, struct bloomxdp_counters *d)
{
	struct frame f;
	__u32 verdict = ~0U;

	memset(d, 0, sizeof(*d));
	assert_int_equal(frame_udp(&f, src, strchr(src, ':') ? DST6 : DST4), 0);
	assert_int_equal(harness_run_counted(&v->h, &f, &verdict, d), 0);
	return verdict;
}

static void drops_confirmed(struct vh *v, const char *src)
{
	struct bloomxdp_counters d;

	if (run(v, src, &d) != XDP_DROP)
		fail_msg("%s: not dropped", src);
	assert_int_equal(d.confirmed, 1);
}

static void passes_refused(struct vh *v, const char *src)
{
	struct bloomxdp_counters d;

	if (run(v, src, &d) != XDP_PASS)
		fail_msg("%s: not passed", src);
	assert_int_equal(d.bloom_hits, 1);
	assert_int_equal(d.false_positives, 1);
}

/* The id of the table of a family in slot, 0 when there is none. */
static __u32 table_id(struct vh *v, int fam, __u32 slot)
{
	__u32 id;

	if (bpf_map_lookup_elem(fam ? v->outer_verify.t6_fd : v->outer_verify.t4_fd, &slot, &id))
		return 0;
	return id;
}

static int open_loaded(struct vh *v, char **list, size_t n, __u32 capacity)
{
	struct vh_config vc = { .match = BLOOMXDP_MATCH_SRC, .verify = BLOOMXDP_VERIFY_ON,
				.hash_key = fixed_key, .capacity = capacity, .fpr = 1e-6 };
	char err[LIST_ERROR_LEN];
	int ret = vh_open(v, &vc);

	if (!ret)
		ret = vh_load_blocklist(v, 0, (const char *const *)list, n, 6, NULL, err);
	if (ret)
		print_error("open_loaded: %d %s\n", ret, err);
	return ret;
}

/* Every 97th host of the list drops confirmed. */
static void sample_drops(struct vh *v, __u32 n4, __u32 n6)
{
	char buf[48];
	__u32 i;

	for (i = 0; i < n4; i += 97) {
		host4(buf, sizeof(buf), i);
		drops_confirmed(v, buf);
	}
	for (i = 0; i < n6; i += 97) {
		host6(buf, sizeof(buf), i);
		drops_confirmed(v, buf);
	}
}

static void test_table_hits(void **state)
{
	char **list = hosts(HOSTS4, HOSTS6), buf[48];
	__u32 key4;
	__u8 key6[16];
	struct vh v;

	(void)state;
	assert_int_equal(open_loaded(&v, list, HOSTS4 + HOSTS6, 4000), 0);
	assert_true(table_id(&v, 0, 0) != 0);
	assert_true(table_id(&v, 1, 0) != 0);
	assert_true(exact_set_table_bytes(&v.verify[0]) > 0);
	assert_int_equal(exact_outer_table_bytes(&v.outer_verify, 0),
			 exact_set_table_bytes(&v.verify[0]));
	sample_drops(&v, HOSTS4, HOSTS6);

	/* Out of the hash maps behind the tables' back: the tables still hold them. */
	host4(buf, sizeof(buf), 5);
	assert_int_equal(inet_pton(AF_INET, buf, &key4), 1);
	assert_int_equal(bpf_map_delete_elem(v.verify[0].v4_fd, &key4), 0);
	drops_confirmed(&v, buf);
	host6(buf, sizeof(buf), 7);
	assert_int_equal(inet_pton(AF_INET6, buf, key6), 1);
	assert_int_equal(bpf_map_delete_elem(v.verify[0].v6_fd, key6), 0);
	drops_confirmed(&v, buf);

	/* Bloom false positives the tables do not hold pass, counted. */
	assert_true(vh_bloom_only(&v, 0, "10.200.0.1") >= 0);
	passes_refused(&v, "10.200.0.1");
	assert_true(vh_bloom_only(&v, 0, "2001:db8:ff::1") >= 0);
	passes_refused(&v, "2001:db8:ff::1");
	vh_close(&v);
	hosts_free(list);
}

/* One host added to (del: deleted from) the live slot 0, as bloomxdp add/del do. */
static void live_change(struct vh *v, const char *text, bool add)
{
	struct entry e;

	assert_int_equal(vh_parse_entry(text, &e), 0);
	if (add) {
		assert_int_equal(exact_set_add(&v->verify[0], v->h.config.hash_key, &e), 0);
		assert_int_equal(exact_set_update_live(&v->outer_verify, 0, &v->verify[0]), 0);
		assert_true(entry_keys_insert(vh_filter(v, 0), &e) >= 0);
		return;
	}
	assert_int_equal(exact_set_remove_many(&v->verify[0], v->h.config.hash_key, &e, 1), 0);
	assert_int_equal(exact_set_update_live(&v->outer_verify, 0, &v->verify[0]), 0);
}

static void test_table_live(void **state)
{
	char **list = hosts(HOSTS4, HOSTS6), buf[48];
	__u32 id4, id6;
	struct vh v;

	(void)state;
	assert_int_equal(open_loaded(&v, list, HOSTS4 + HOSTS6, 4000), 0);
	id4 = table_id(&v, 0, 0);
	id6 = table_id(&v, 1, 0);

	/* add: a new table of each family holding the host. */
	live_change(&v, "10.99.0.1", true);
	live_change(&v, "2001:db8:99::1", true);
	assert_true(table_id(&v, 0, 0) && table_id(&v, 0, 0) != id4);
	assert_true(table_id(&v, 1, 0) && table_id(&v, 1, 0) != id6);
	drops_confirmed(&v, "10.99.0.1");
	drops_confirmed(&v, "2001:db8:99::1");
	sample_drops(&v, HOSTS4, HOSTS6);

	/* del: the deleted hosts are Bloom false positives now, the others drop. */
	host4(buf, sizeof(buf), 195);
	live_change(&v, buf, false);
	passes_refused(&v, buf);
	host6(buf, sizeof(buf), 98);
	live_change(&v, buf, false);
	passes_refused(&v, buf);
	drops_confirmed(&v, "10.99.0.1");
	host4(buf, sizeof(buf), 193);
	drops_confirmed(&v, buf);

	/* 0.0.0.0 and :: are empty slots: no table while listed, the hash map confirms. */
	live_change(&v, "0.0.0.0", true);
	live_change(&v, "::", true);
	assert_int_equal(table_id(&v, 0, 0), 0);
	assert_int_equal(table_id(&v, 1, 0), 0);
	drops_confirmed(&v, "0.0.0.0");
	drops_confirmed(&v, "::");
	drops_confirmed(&v, "10.99.0.1");
	sample_drops(&v, HOSTS4, 0);
	host6(buf, sizeof(buf), 0);
	drops_confirmed(&v, buf);
	host4(buf, sizeof(buf), 195);
	passes_refused(&v, buf);
	live_change(&v, "0.0.0.0", false);
	live_change(&v, "::", false);
	assert_true(table_id(&v, 0, 0) != 0);
	assert_true(table_id(&v, 1, 0) != 0);
	passes_refused(&v, "0.0.0.0");
	passes_refused(&v, "::");
	sample_drops(&v, HOSTS4, 0);
	vh_close(&v);
	hosts_free(list);
}

static void test_table_reopen(void **state)
{
	char **list = hosts(HOSTS4, HOSTS6);
	struct exact_set x;
	struct entry e;
	struct vh v;
	__u32 id4;

	(void)state;
	assert_int_equal(open_loaded(&v, list, HOSTS4 + HOSTS6, 4000), 0);
	/* What add, del and status open: the live slot's maps, its tables among them. */
	assert_int_equal(exact_set_open(&v.outer_verify, 0, &x), 0);
	assert_true(x.table_fd[0] >= 0 && x.table_fd[1] >= 0);
	assert_int_equal(exact_set_table_bytes(&x), exact_set_table_bytes(&v.verify[0]));
	/* Changed through the opened set: a new table that still holds every host. */
	assert_int_equal(vh_parse_entry("10.98.0.1", &e), 0);
	id4 = table_id(&v, 0, 0);
	assert_int_equal(exact_set_add(&x, v.h.config.hash_key, &e), 0);
	assert_int_equal(exact_set_update_live(&v.outer_verify, 0, &x), 0);
	assert_true(entry_keys_insert(vh_filter(&v, 0), &e) >= 0);
	assert_true(table_id(&v, 0, 0) && table_id(&v, 0, 0) != id4);
	drops_confirmed(&v, "10.98.0.1");
	sample_drops(&v, HOSTS4, HOSTS6);
	exact_set_close(&x);
	vh_close(&v);
	hosts_free(list);
}

static void test_table_too_many(void **state)
{
	__u32 n = BLOOMXDP_TABLE_MAX_KEYS + 1;
	char **list = hosts(n, 0), buf[48];
	struct vh v;

	(void)state;
	assert_int_equal(open_loaded(&v, list, n, n + 1000), 0);
	assert_int_equal(table_id(&v, 0, 0), 0);
	assert_int_equal(exact_set_table_bytes(&v.verify[0]), 0);
	host4(buf, sizeof(buf), 0);
	drops_confirmed(&v, buf);
	host4(buf, sizeof(buf), n - 1);
	drops_confirmed(&v, buf);
	assert_true(vh_bloom_only(&v, 0, "10.200.0.1") >= 0);
	passes_refused(&v, "10.200.0.1");
	vh_close(&v);
	hosts_free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_hits),
		cmocka_unit_test(test_table_live),
		cmocka_unit_test(test_table_reopen),
		cmocka_unit_test(test_table_too_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
