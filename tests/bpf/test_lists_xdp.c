// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Named lists in bpf/bloomxdp.bpf.c (list_verdict()): behind a hit of the
 * union filter, the lists whose exact copies hold the key decide. Two
 * lists with different actions: drop wins over monitor, each list's hits
 * counted, the event names the list whose action applied; a hit of the
 * union no list holds passes (unattributed) unless the default list has
 * entries; nxdomain answers a DNS query; no named list: as one list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <cmocka.h>

#include "verify_harness.h"
#include "lists_harness.h"

#define ID_WATCH 1		/* monitor */
#define ID_BAD	 2		/* drop */
#define ID_NX	 3		/* nxdomain */

static const char *const watch_list[] = { "192.0.2.1", "192.0.2.3", "2001:db8::1",
					  "parent.example" };
static const char *const bad_list[] = { "192.0.2.2", "192.0.2.3", "198.51.100.0/24",
					"ads.parent.example" };
static const char *const nx_list[] = { "evil.example" };
/* The union: every list's entries (the default list is empty). */
static const char *const union_list[] = { "192.0.2.1", "192.0.2.3", "2001:db8::1", "192.0.2.2",
					  "198.51.100.0/24", "evil.example", "parent.example",
					  "ads.parent.example" };
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define FALSE_POSITIVE "192.0.2.99"	/* in the union's Bloom filter only */
#define UNLISTED4 "203.0.113.50"	/* FRAME_SRC4 is in bad's prefix */

static struct vh v;
static struct ring_buffer *rb;
static struct bloomxdp_event last;
static int nevents;
static struct named_copy copies[BLOOMXDP_LIST_IDS];

static int ev_collect(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size == sizeof(last))
		last = *(struct bloomxdp_event *)data;
	nevents++;
	return 0;
}

/* A named list as load --list builds it (lists_harness.h). */
static int list_install(__u32 id, const char *name, __u32 action, const char *const *entries,
			size_t n)
{
	return lists_harness_install(&v, &copies[id], id, name, action, 0, entries, n);
}

/* The keys of every list, in one map of masks, at the union's slot 0. */
static int keys_install(void)
{
	struct named_copy *all[] = { &copies[ID_WATCH], &copies[ID_BAD], &copies[ID_NX] };

	return lists_harness_keys(&v, all, 3);
}

static int set_present(__u32 present)
{
	__u32 which = BLOOMXDP_ACTIVE_LISTS;

	return bpf_map_update_elem(v.active_fd, &which, &present, BPF_ANY) ? -errno : 0;
}

/* Each list's hits, summed over CPUs. */
static __u64 list_hits(__u32 id)
{
	int ncpus = libbpf_num_possible_cpus(), c;
	__u64 vals[512] = {}, sum = 0;

	assert_true(ncpus > 0 && ncpus <= 512);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(v.h.lp.skel->maps.list_hits), &id, vals),
			 0);
	for (c = 0; c < ncpus; c++)
		sum += vals[c];
	return sum;
}

static int setup(void **state)
{
	const struct vh_config c = { .match = BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DNS,
				     .action = BLOOMXDP_ACTION_DROP, .events_per_sec = 1000000 };
	char err[LIST_ERROR_LEN];
	__u32 i;

	(void)state;
	for (i = 0; i < BLOOMXDP_LIST_IDS; i++)
		named_copy_init(&copies[i], &v.h.config);
	if (vh_open(&v, &c) ||
	    vh_load_blocklist(&v, 0, union_list, ARRAY_LEN(union_list),
			      LIST_DEFAULT_PREFIX_PROBES, NULL, err) ||
	    vh_bloom_only(&v, 0, FALSE_POSITIVE) < 0 ||
	    list_install(ID_WATCH, "watch", BLOOMXDP_LIST_MONITOR, watch_list, ARRAY_LEN(watch_list)) ||
	    list_install(ID_BAD, "bad", BLOOMXDP_LIST_DROP, bad_list, ARRAY_LEN(bad_list)) ||
	    list_install(ID_NX, "nx", BLOOMXDP_LIST_NXDOMAIN, nx_list, ARRAY_LEN(nx_list)) || keys_install())
		return -1;
	rb = ring_buffer__new(v.events_fd, ev_collect, NULL, NULL);
	return rb ? 0 : -1;
}

static int teardown(void **state)
{
	__u32 i;

	(void)state;
	ring_buffer__free(rb);
	for (i = 0; i < BLOOMXDP_LIST_IDS; i++)
		named_copy_close(&copies[i]);
	vh_close(&v);
	return 0;
}

/* One frame from src (or a DNS query for name): its verdict, counters and event. */
static __u32 run(const char *src, const char *name, struct bloomxdp_counters *delta)
{
	struct frame f;
	__u32 verdict = 0;

	if (name)
		assert_int_equal(frame_dns_query(&f, 0, UNLISTED4, FRAME_DST4, name), 0);
	else
		assert_int_equal(frame_udp(&f, src, strchr(src, ':') ? FRAME_DST6 : FRAME_DST4),
				 0);
	nevents = 0;
	assert_int_equal(harness_run_counted(&v.h, &f, &verdict, delta), 0);
	assert_true(ring_buffer__consume(rb) >= 0);
	return verdict;
}

#define ALL_NAMED ((1U << ID_WATCH) | (1U << ID_BAD) | (1U << ID_NX))

static void test_actions(void **state)
{
	struct bloomxdp_counters d;
	__u64 watch = list_hits(ID_WATCH), bad = list_hits(ID_BAD);

	(void)state;
	assert_int_equal(set_present(ALL_NAMED), 0);
	/* A monitor list's entry passes, counted as would_drop; the event names the list. */
	assert_int_equal(run("192.0.2.1", NULL, &d), XDP_PASS);
	assert_int_equal(d.would_drop, 1);
	assert_int_equal(nevents, 1);
	assert_int_equal(last.verdict, BLOOMXDP_EVVERDICT_WOULD_DROP);
	assert_int_equal(last.list, ID_WATCH);
	assert_int_equal(run("2001:db8::1", NULL, &d), XDP_PASS);
	assert_int_equal(d.would_drop, 1);
	/* A drop list's prefix drops. */
	assert_int_equal(run("198.51.100.7", NULL, &d), XDP_DROP);
	assert_int_equal(last.list, ID_BAD);
	/* In both: drop wins over monitor; both lists count the hit. */
	assert_int_equal(run("192.0.2.3", NULL, &d), XDP_DROP);
	assert_int_equal(d.dropped, 1);
	assert_int_equal(d.would_drop, 0);
	assert_int_equal(last.verdict, BLOOMXDP_EVVERDICT_DROP);
	assert_int_equal(last.list, ID_BAD);
	assert_int_equal(list_hits(ID_WATCH) - watch, 3);
	assert_int_equal(list_hits(ID_BAD) - bad, 2);
	/* nxdomain: a DNS query answered from XDP. */
	assert_int_equal(run(NULL, "www.evil.example", &d), XDP_TX);
	assert_int_equal(d.dns_replies, 1);
	assert_int_equal(last.verdict, BLOOMXDP_EVVERDICT_NXDOMAIN);
	assert_int_equal(last.list, ID_NX);
}

/* The union's walk stops at the shortest listed suffix: a longer one's list must still count. */
static void test_deeper_name(void **state)
{
	struct bloomxdp_counters d;

	(void)state;
	assert_int_equal(set_present(ALL_NAMED), 0);
	assert_int_equal(run(NULL, "www.parent.example", &d), XDP_PASS);
	assert_int_equal(d.would_drop, 1);
	assert_int_equal(last.list, ID_WATCH);
	/* ads.parent.example (drop) under parent.example (monitor): dropped. */
	assert_int_equal(run(NULL, "x.ads.parent.example", &d), XDP_DROP);
	assert_int_equal(d.would_drop, 0);
	assert_int_equal(last.verdict, BLOOMXDP_EVVERDICT_DROP);
	assert_int_equal(last.list, ID_BAD);
	assert_int_equal(run(NULL, "ads.parent.example", &d), XDP_DROP);
	assert_int_equal(last.list, ID_BAD);
}

static void test_union_false_positive(void **state)
{
	struct bloomxdp_counters d;
	__u64 dflt = list_hits(BLOOMXDP_LIST_DEFAULT_ID);

	(void)state;
	/* No list holds it and the default list is empty: passed, counted, no event. */
	assert_int_equal(set_present(ALL_NAMED), 0);
	assert_int_equal(run(FALSE_POSITIVE, NULL, &d), XDP_PASS);
	assert_int_equal(d.hits_v4, 1);
	assert_int_equal(d.unattributed, 1);
	assert_int_equal(d.would_drop + d.dropped, 0);
	assert_int_equal(nevents, 0);
	/* The default list has entries: the hit is its, with the attachment's action. */
	assert_int_equal(set_present(ALL_NAMED | BLOOMXDP_LIST_DEFAULT_PRESENT), 0);
	assert_int_equal(run(FALSE_POSITIVE, NULL, &d), XDP_DROP);
	assert_int_equal(d.unattributed, 0);
	assert_int_equal(last.list, BLOOMXDP_LIST_DEFAULT_ID);
	assert_int_equal(list_hits(BLOOMXDP_LIST_DEFAULT_ID) - dflt, 1);
}

static void test_one_named_list(void **state)
{
	struct bloomxdp_counters d;

	(void)state;
	/* Only the first id present: the walk reaches it; the others are not looked at. */
	assert_int_equal(set_present(1U << ID_WATCH), 0);
	assert_int_equal(run("192.0.2.1", NULL, &d), XDP_PASS);
	assert_int_equal(d.would_drop, 1);
	assert_int_equal(last.list, ID_WATCH);
	/* bad is not present: its entry is no list's, and passes. */
	assert_int_equal(run("192.0.2.2", NULL, &d), XDP_PASS);
	assert_int_equal(d.unattributed, 1);
	/* Only the last id present. */
	assert_int_equal(set_present(1U << ID_NX), 0);
	assert_int_equal(run(NULL, "evil.example", &d), XDP_TX);
	assert_int_equal(last.list, ID_NX);
}

static void test_no_named_lists(void **state)
{
	struct bloomxdp_counters d;

	(void)state;
	/* No named list present: every hit is the default list's, as with one list. */
	assert_int_equal(set_present(0), 0);
	assert_int_equal(run("192.0.2.1", NULL, &d), XDP_DROP);
	assert_int_equal(last.list, BLOOMXDP_LIST_DEFAULT_ID);
	assert_int_equal(run(FALSE_POSITIVE, NULL, &d), XDP_DROP);
	assert_int_equal(run(UNLISTED4, NULL, &d), XDP_PASS);
	assert_int_equal(d.bloom_hits, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_union_false_positive),
		cmocka_unit_test(test_deeper_name),
		cmocka_unit_test(test_one_named_list),
		cmocka_unit_test(test_no_named_lists),
	};

	return cmocka_run_group_tests_name("lists_xdp", tests, setup, teardown);
}
