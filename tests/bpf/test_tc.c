// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tc build of bpf/bloomxdp.bpf.c (bpf/hook.h) by BPF_PROG_TEST_RUN on
 * skbs: attach --direction egress and --hook tc. Fields go by role: on
 * egress, src is the packet's destination (the remote host) and dst its
 * source; names are matched in outgoing queries. A pass is TC_ACT_UNSPEC
 * (tcx's TCX_NEXT: the programs after it run), a drop TC_ACT_SHOT; nothing is
 * sent back from tc (an NXDOMAIN list's query is dropped). A program loaded
 * beside another (loader_load_beside: --direction both) shares its lists and
 * keeps counters of its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <linux/pkt_cls.h>
#include <cmocka.h>

#include "names_harness.h"

#define TC_PASS ((__u32)TC_ACT_UNSPEC)
#define TC_DROP ((__u32)TC_ACT_SHOT)

#define REMOTE4 "203.0.113.9"		/* FRAME_DST4: an outgoing packet's destination */
#define LOCAL4 "198.51.100.1"		/* FRAME_SRC4 */
#define REMOTE6 "2001:db8:eeee::9"	/* FRAME_DST6 */
#define OTHER4 "192.0.2.77"
#define MAPPED6 "::ffff:203.0.113.9"
#define NAME "evil.example"

static const char *const listed[] = { REMOTE4, REMOTE6, NAME };

static int open_listed(struct xdp_harness *h, const struct harness_config *hc)
{
	const char *why;
	size_t i;
	int ret;

	ret = harness_open(h, hc);
	for (i = 0; !ret && i < sizeof(listed) / sizeof(listed[0]); i++)
		ret = harness_insert_entry(h, listed[i], &why);
	return ret;
}

/* One frame of d through h: its verdict, and what it added to the counters. */
static __u32 run(struct xdp_harness *h, const struct frame_desc *d,
		 struct bloomxdp_counters *delta)
{
	__u32 verdict = 0;
	struct frame f;

	assert_int_equal(frame_build(&f, d), 0);
	assert_int_equal(harness_run_frame(h, &f, NULL, &verdict, delta), 0);
	return verdict;
}

#define V4(...) (&(struct frame_desc){ .ethertype = ETH_P_IP, __VA_ARGS__ })
#define V6(...) (&(struct frame_desc){ .ethertype = ETH_P_IPV6, __VA_ARGS__ })

static const struct harness_config egress_src = {
	.match = BLOOMXDP_MATCH_SRC, .hook = BLOOMXDP_HOOK_TC, .direction = BLOOMXDP_DIR_EGRESS,
};

/* --match src on egress: the destination is the remote host. */
static void test_egress_src_is_the_destination(void **state)
{
	struct bloomxdp_counters d;
	struct xdp_harness h;

	(void)state;
	assert_int_equal(open_listed(&h, &egress_src), 0);
	assert_int_equal(run(&h, V4(.dst = REMOTE4, .src = LOCAL4), &d), TC_DROP);
	assert_int_equal(d.dropped, 1);
	assert_int_equal(d.hits_v4, 1);
	assert_int_equal(d.packets, 1);
	/* A listed address as the source of a leaving packet is the local one: passed. */
	assert_int_equal(run(&h, V4(.src = REMOTE4, .dst = OTHER4), &d), TC_PASS);
	assert_int_equal(d.passed, 1);
	assert_int_equal(d.dropped, 0);
	assert_int_equal(run(&h, V6(.dst = REMOTE6), &d), TC_DROP);
	assert_int_equal(d.hits_v6, 1);
	assert_int_equal(run(&h, V6(.src = REMOTE6, .dst = "2001:db8::77"), &d), TC_PASS);
	/* ::ffff:a.b.c.d is the IPv4 address. */
	assert_int_equal(run(&h, V6(.dst = MAPPED6), &d), TC_DROP);
	assert_int_equal(run(&h, V4(.dst = OTHER4), &d), TC_PASS);
	harness_close(&h);
}

/* --match dst on egress: the source, the local address. */
static void test_egress_dst_is_the_source(void **state)
{
	struct harness_config hc = egress_src;
	struct xdp_harness h;

	(void)state;
	hc.match = BLOOMXDP_MATCH_DST;
	assert_int_equal(open_listed(&h, &hc), 0);
	assert_int_equal(run(&h, V4(.src = REMOTE4, .dst = OTHER4), NULL), TC_DROP);
	assert_int_equal(run(&h, V4(.src = OTHER4, .dst = REMOTE4), NULL), TC_PASS);
	harness_close(&h);
}

/* --hook tc on ingress: as XDP, the source is the remote host. */
static void test_tc_ingress_src_is_the_source(void **state)
{
	struct harness_config hc = egress_src;
	struct bloomxdp_counters d;
	struct xdp_harness h;

	(void)state;
	hc.direction = BLOOMXDP_DIR_INGRESS;
	assert_int_equal(open_listed(&h, &hc), 0);
	assert_int_equal(run(&h, V4(.src = REMOTE4, .dst = OTHER4), &d), TC_DROP);
	assert_int_equal(d.dropped, 1);
	assert_int_equal(run(&h, V4(.src = OTHER4, .dst = REMOTE4), &d), TC_PASS);
	assert_int_equal(d.passed, 1);
	harness_close(&h);
}

/*
 * An outgoing DNS query for a listed name is dropped; with --dns-reply
 * nxdomain too, since tc sends nothing back: counted dropped, not answered.
 */
static void test_egress_dns_query(void **state)
{
	struct harness_config hc = egress_src;
	struct pkt q = { .app = APP_DNS, .dns = { .qname = "www." NAME } };
	struct pkt ok = { .app = APP_DNS, .dns = { .qname = "fine.example" } };
	struct bloomxdp_counters d;
	struct xdp_harness h;
	struct built b;
	__u32 verdict, i;

	(void)state;
	hc.match = BLOOMXDP_MATCH_DNS;
	for (i = 0; i < 2; i++) {
		hc.dns_reply = i ? BLOOMXDP_DNS_REPLY_NXDOMAIN : BLOOMXDP_DNS_REPLY_NONE;
		assert_int_equal(open_listed(&h, &hc), 0);
		assert_int_equal(pkt_build(&q, &b), 0);
		assert_int_equal(harness_run_frame(&h, &b.f, NULL, &verdict, &d), 0);
		assert_int_equal(verdict, TC_DROP);
		assert_int_equal(d.hits_dns, 1);
		assert_int_equal(d.dropped, 1);
		assert_int_equal(d.dns_replies, 0);
		assert_int_equal(pkt_build(&ok, &b), 0);
		assert_int_equal(harness_run_frame(&h, &b.f, NULL, &verdict, &d), 0);
		assert_int_equal(verdict, TC_PASS);
		assert_int_equal(d.checked_dns, 1);
		harness_close(&h);
	}
}

/* bytes: the skb's length. */
static void test_counts_bytes(void **state)
{
	struct bloomxdp_counters d = { 0 };
	struct xdp_harness h;
	struct frame f;
	__u32 verdict = 0;

	(void)state;
	assert_int_equal(open_listed(&h, &egress_src), 0);
	assert_int_equal(frame_build(&f, V4(.dst = OTHER4, .payload = 333)), 0);
	assert_int_equal(harness_run_frame(&h, &f, NULL, &verdict, &d), 0);
	assert_int_equal(d.bytes, f.len);
	assert_int_equal(d.non_ip + d.malformed, 0);
	harness_close(&h);
}

static __u32 map_id(const struct bpf_map *map)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	assert_int_equal(bpf_obj_get_info_by_fd(bpf_map__fd(map), &info, &len), 0);
	return info.id;
}

/*
 * --direction both: the egress program loaded beside the ingress (XDP) one
 * reads its lists (an entry inserted after both loads is seen by both) and
 * counts in counters of its own.
 */
static void test_beside_shares_lists_not_counters(void **state)
{
	struct harness_config hc = { .match = BLOOMXDP_MATCH_SRC };
	struct bloomxdp_config cfg;
	struct xdp_harness in;
	struct loaded_prog eg;
	struct frame f;
	__u32 verdict, zero = 0;
	struct bloomxdp_counters percpu[512], sum = { 0 };
	int ncpus = libbpf_num_possible_cpus(), c;

	(void)state;
	assert_true(ncpus > 0 && ncpus <= 512);
	assert_int_equal(harness_open(&in, &hc), 0);
	cfg = in.config;
	cfg.hook = BLOOMXDP_HOOK_TC;
	cfg.direction = BLOOMXDP_DIR_EGRESS;
	assert_int_equal(loader_load_beside(&cfg, &in.lp, -1, -1, &eg), 0);
	/* The very same filter map, and a counters map of its own. */
	assert_int_equal(map_id(eg.skel->maps.filter), map_id(in.lp.skel->maps.filter));
	assert_int_not_equal(map_id(eg.skel->maps.counters), map_id(in.lp.skel->maps.counters));
	assert_int_equal(harness_insert(&in, REMOTE4), 0);
	/* Egress: the listed destination dropped. */
	assert_int_equal(frame_build(&f, V4(.dst = REMOTE4)), 0);
	assert_int_equal(xdp_test_run(loader_prog_fd(&eg), f.data, f.len, NULL, 0, &verdict), 0);
	assert_int_equal(verdict, TC_DROP);
	/* Ingress (XDP): the listed source dropped. */
	assert_int_equal(frame_build(&f, V4(.src = REMOTE4)), 0);
	assert_int_equal(harness_run(&in, &f, &verdict), 0);
	assert_int_equal(verdict, XDP_DROP);
	/* Each its own counters: one packet each. */
	assert_int_equal(harness_counters(&in, &sum), 0);
	assert_int_equal(sum.packets, 1);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(eg.skel->maps.counters), &zero, percpu),
			 0);
	memset(&sum, 0, sizeof(sum));
	for (c = 0; c < ncpus; c++)
		sum.packets += percpu[c].packets, sum.dropped += percpu[c].dropped;
	assert_int_equal(sum.packets, 1);
	assert_int_equal(sum.dropped, 1);
	loader_close(&eg);
	harness_close(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_egress_src_is_the_destination),
		cmocka_unit_test(test_egress_dst_is_the_source),
		cmocka_unit_test(test_tc_ingress_src_is_the_source),
		cmocka_unit_test(test_egress_dns_query),
		cmocka_unit_test(test_counts_bytes),
		cmocka_unit_test(test_beside_shares_lists_not_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
