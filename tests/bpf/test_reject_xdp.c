// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --action reject (bpf/reject.h) through BPF_PROG_TEST_RUN: each answer is
 * compared byte for byte with one built here from the RFCs (RST: RFC 9293
 * 3.10.7.1; ICMP: RFC 792; ICMPv6: RFC 4443), and its checksums are summed
 * again. Also: what is dropped, not answered (a RST, an ICMP error, a later
 * fragment), the ICMP budget per CPU, the counters.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <cmocka.h>

#include "xdp_harness.h"

#define UNLISTED4 "192.0.2.200"
#define BUDGET 3	/* ICMP answers per second of the rate-limited harness */

static struct xdp_harness h, h_limited;

/* -------------------------------------------------------- checksums here */

static __u32 sum16(const __u8 *p, __u32 len, __u32 sum)
{
	__u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static __u16 fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* The L4 checksum of seg (len bytes) behind the pseudo-header of the IP header ip. */
static __u16 l4_csum(const __u8 *ip, int v6, __u8 proto, const __u8 *seg, __u32 len)
{
	__u32 sum = v6 ? sum16(ip + 8, 32, 0) : sum16(ip + 12, 8, 0);

	sum += proto + (len & 0xffff) + (len >> 16);
	return fold(sum16(seg, len, sum));
}

/* ------------------------------------------------------------- frames */

struct seg {
	const char *src;	/* NULL: the listed FRAME_SRC4/6 */
	int v6, tags;		/* VLAN tags: 0, 1 (802.1Q) or 2 (802.1ad, 802.1Q) */
	__u8 flags;		/* TCP flags */
	__u32 seq, ack, payload;
	__u8 ihl;		/* IPv4 IHL, 0: 5 */
};

static __u32 l3_of(const struct seg *s)
{
	return ETH_HLEN + s->tags * VLAN_HLEN;
}

static void build(struct frame *f, const struct seg *s, __u8 l4)
{
	struct frame_desc d = { .ethertype = s->v6 ? ETH_P_IPV6 : ETH_P_IP, .src = s->src,
				.l4 = l4, .payload = s->payload, .ihl = s->ihl };
	__u8 *t;

	if (s->tags == 1)
		d.tags[0] = ETH_P_8021Q;
	if (s->tags == 2) {
		d.tags[0] = ETH_P_8021AD;
		d.tags[1] = ETH_P_8021Q;
	}
	assert_int_equal(frame_build(f, &d), 0);
	if (l4 != IPPROTO_TCP)
		return;
	t = f->data + l3_of(s) + (s->v6 ? IP6_HLEN : (s->ihl ? s->ihl : 5) * 4);
	put_be16(t + 4, s->seq >> 16);
	put_be16(t + 6, s->seq & 0xffff);
	put_be16(t + 8, s->ack >> 16);
	put_be16(t + 10, s->ack & 0xffff);
	t[13] = s->flags;
}

/* The L2 header of the answer: MACs swapped, tags and EtherType as they were. */
static void expect_l2(struct frame *e, const struct frame *f, __u32 l3)
{
	memcpy(e->data, f->data + 6, 6);
	memcpy(e->data + 6, f->data, 6);
	memcpy(e->data + 12, f->data + 12, l3 - 12);
	e->len = l3;
}

/* A new IP header of the answer, addresses of the query's at in swapped; checksum set. */
static __u8 *expect_ip(struct frame *e, const __u8 *in, int v6, __u8 proto, __u32 l4_len,
		       __u8 tos, __u16 frag)
{
	__u8 *ip = frame_put(e, v6 ? IP6_HLEN : IP4_HLEN);

	if (v6) {
		ip[0] = 0x60;
		put_be16(ip + 4, l4_len);
		ip[6] = proto;
		ip[7] = 64;
		memcpy(ip + 8, in + 24, 16);
		memcpy(ip + 24, in + 8, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = tos;
		put_be16(ip + 2, IP4_HLEN + l4_len);
		put_be16(ip + 6, frag);
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, in + 16, 4);
		memcpy(ip + 16, in + 12, 4);
		put_be16(ip + 10, fold(sum16(ip, IP4_HLEN, 0)));
	}
	return ip;
}

static void expect_rst(struct frame *e, const struct frame *f, const struct seg *s)
{
	__u32 l3 = l3_of(s), l4 = l3 + (s->v6 ? IP6_HLEN : (s->ihl ? s->ihl : 5) * 4), seq, ack;
	const __u8 *th = f->data + l4;
	__u8 *ip, *t;

	expect_l2(e, f, l3);
	ip = expect_ip(e, f->data + l3, s->v6, IPPROTO_TCP, TCP_HLEN, 0, 0x4000);
	t = frame_put(e, TCP_HLEN);
	memcpy(t, th + 2, 2);
	memcpy(t + 2, th, 2);
	t[12] = 5 << 4;
	if (s->flags & 0x10) {		/* ACK: seq = its ack, RST alone */
		seq = s->ack;
		ack = 0;
		t[13] = 0x04;
	} else {			/* seq 0, RST|ACK, ack = seq + length + SYN + FIN */
		seq = 0;
		ack = s->seq + s->payload + !!(s->flags & 0x02) + !!(s->flags & 0x01);
		t[13] = 0x14;
	}
	put_be16(t + 4, seq >> 16);
	put_be16(t + 6, seq & 0xffff);
	put_be16(t + 8, ack >> 16);
	put_be16(t + 10, ack & 0xffff);
	put_be16(t + 16, l4_csum(ip, s->v6, IPPROTO_TCP, t, TCP_HLEN));
}

static void expect_icmp(struct frame *e, const struct frame *f, const struct seg *s)
{
	__u32 l3 = l3_of(s), ihl = s->ihl ? s->ihl * 4 : IP4_HLEN;
	__u32 quote = s->v6 ? f->len - l3 : ihl + UDP_HLEN;
	__u8 *ip, *icmp;

	if (quote > 1232)
		quote = 1232;
	expect_l2(e, f, l3);
	ip = expect_ip(e, f->data + l3, s->v6, s->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP, 8 + quote,
		       0xc0, 0);
	icmp = frame_put(e, 8 + quote);
	icmp[0] = s->v6 ? 1 : 3;
	icmp[1] = s->v6 ? 4 : 3;
	memcpy(icmp + 8, f->data + l3, quote);
	put_be16(icmp + 2, s->v6 ? l4_csum(ip, 1, IPPROTO_ICMPV6, icmp, 8 + quote) :
				   fold(sum16(icmp, 8 + quote, 0)));
}

/* The answer's checksums summed again over the frame as sent: each must come out 0. */
static void check_sums(const __u8 *out, __u32 len, __u32 l3, int v6)
{
	const __u8 *ip = out + l3, *l4 = ip + (v6 ? IP6_HLEN : IP4_HLEN);
	__u32 l4_len = out + len - l4, sum;
	__u8 proto = ip[v6 ? 6 : 9];

	if (!v6)
		assert_int_equal(fold(sum16(ip, IP4_HLEN, 0)), 0);
	if (proto == IPPROTO_ICMP) {
		assert_int_equal(fold(sum16(l4, l4_len, 0)), 0);
		return;
	}
	sum = v6 ? sum16(ip + 8, 32, 0) : sum16(ip + 12, 8, 0);
	sum += proto + l4_len;
	assert_int_equal(fold(sum16(l4, l4_len, sum)), 0);
}

/* Runs f: its verdict, the frame that came out, the counters it moved. */
static __u32 run(struct xdp_harness *x, const struct frame *f, __u8 *out, __u32 *out_len,
		 struct bloomxdp_counters *d)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f->data, .data_size_in = f->len,
		    .data_out = out, .data_size_out = FRAME_MAX);
	struct bloomxdp_counters before;

	assert_int_equal(harness_counters(x, &before), 0);
	assert_int_equal(bpf_prog_test_run_opts(x->prog_fd, &opts), 0);
	assert_int_equal(harness_counters(x, d), 0);
	for (size_t i = 0; i < HARNESS_NCOUNTERS; i++)
		*counter_at(d, i) -= *counter_at(&before, i);
	*out_len = opts.data_size_out;
	return opts.retval;
}

static void check_answer(const struct seg *s, __u8 l4)
{
	__u8 out[FRAME_MAX];
	struct bloomxdp_counters d;
	struct frame f, e = {};
	__u32 len;

	build(&f, s, l4);
	if (l4 == IPPROTO_TCP)
		expect_rst(&e, &f, s);
	else
		expect_icmp(&e, &f, s);
	assert_int_equal(run(&h, &f, out, &len, &d), XDP_TX);
	assert_int_equal(len, e.len);
	assert_memory_equal(out, e.data, e.len);
	check_sums(out, len, l3_of(s), s->v6);
	assert_int_equal(d.rejected, 1);
	assert_int_equal(d.dropped + d.passed + d.dns_replies, 0);
}

static void test_rst(void **state)
{
	static const struct seg segs[] = {
		{ .flags = 0x02, .seq = 1000 },					/* SYN */
		{ .flags = 0x02, .seq = 0xfffffff0, .tags = 1 },		/* SYN, wraps */
		{ .flags = 0x10, .seq = 5000, .ack = 7000, .payload = 10 },	/* ACK */
		{ .flags = 0x18, .seq = 5000, .ack = 0x80000001, .payload = 100, .tags = 2 },
		{ .flags = 0x03, .seq = 42, .payload = 5 },			/* SYN|FIN + data */
		{ .flags = 0x02, .seq = 99, .ihl = 7 },				/* IPv4 options */
		{ .v6 = 1, .flags = 0x02, .seq = 1000 },
		{ .v6 = 1, .flags = 0x02, .seq = 1000, .tags = 1 },
		{ .v6 = 1, .flags = 0x11, .seq = 3, .ack = 123456, .payload = 33, .tags = 2 },
		{ .v6 = 1, .flags = 0x01, .seq = 77, .payload = 1 },		/* FIN, no ACK */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(segs) / sizeof(segs[0]); i++) {
		print_message("# segment %zu\n", i);
		check_answer(&segs[i], IPPROTO_TCP);
	}
}

static void test_icmp(void **state)
{
	static const struct seg dgrams[] = {
		{ .payload = 20 },
		{ .payload = 0, .tags = 1 },		/* the answer is longer than the datagram */
		{ .payload = 300, .ihl = 6, .tags = 2 },
		{ .v6 = 1, .payload = 100 },
		{ .v6 = 1, .payload = 1400, .tags = 1 },	/* quote cut at 1280 - 48 */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(dgrams) / sizeof(dgrams[0]); i++) {
		print_message("# datagram %zu\n", i);
		check_answer(&dgrams[i], IPPROTO_UDP);
	}
}

/* Dropped, not answered: the frame, and the counters it must move. */
static void check_dropped(struct frame *f)
{
	struct bloomxdp_counters d;
	__u8 out[FRAME_MAX];
	__u32 len;

	assert_int_equal(run(&h, f, out, &len, &d), XDP_DROP);
	assert_int_equal(d.dropped, 1);
	assert_int_equal(d.rejected + d.icmp_ratelimited, 0);
}

static void test_not_answered(void **state)
{
	struct seg rst = { .flags = 0x04, .seq = 1 }, rst_ack = { .v6 = 1, .flags = 0x14 };
	struct seg udp4 = { .payload = 8 }, udp6 = { .v6 = 1, .payload = 8 };
	struct frame f;

	(void)state;
	build(&f, &rst, IPPROTO_TCP);
	check_dropped(&f);
	build(&f, &rst_ack, IPPROTO_TCP);
	check_dropped(&f);
	/* An ICMP error (a port unreachable in it) and an ICMPv6 one. */
	build(&f, &udp4, IPPROTO_UDP);
	f.data[ETH_HLEN + 9] = IPPROTO_ICMP;
	f.data[ETH_HLEN + IP4_HLEN] = 3;
	check_dropped(&f);
	build(&f, &udp6, IPPROTO_UDP);
	f.data[ETH_HLEN + 6] = IPPROTO_ICMPV6;
	f.data[ETH_HLEN + IP6_HLEN] = 1;
	check_dropped(&f);
	/* A later IPv4 fragment (offset 64 bytes), and a TCP first fragment. */
	build(&f, &udp4, IPPROTO_UDP);
	put_be16(f.data + ETH_HLEN + 6, 8);
	check_dropped(&f);
	build(&f, &rst, IPPROTO_TCP);
	f.data[ETH_HLEN + IP4_HLEN + 13] = 0x02;
	put_be16(f.data + ETH_HLEN + 6, 0x2000);	/* MF */
	check_dropped(&f);
	/* To a broadcast MAC. */
	build(&f, &udp4, IPPROTO_UDP);
	memset(f.data, 0xff, 6);
	check_dropped(&f);
}

static void test_first_fragment_answered(void **state)
{
	struct seg udp4 = { .payload = 40 };
	struct bloomxdp_counters d;
	__u8 out[FRAME_MAX];
	struct frame f;
	__u32 len;

	(void)state;
	build(&f, &udp4, IPPROTO_UDP);
	put_be16(f.data + ETH_HLEN + 6, 0x2000);	/* MF, offset 0 */
	assert_int_equal(run(&h, &f, out, &len, &d), XDP_TX);
	assert_int_equal(len, ETH_HLEN + IP4_HLEN + 8 + IP4_HLEN + UDP_HLEN);
	assert_int_equal(d.rejected, 1);
}

static void test_unlisted(void **state)
{
	struct seg s = { .src = UNLISTED4, .flags = 0x02 };
	struct bloomxdp_counters d;
	__u8 out[FRAME_MAX];
	struct frame f;
	__u32 len;

	(void)state;
	build(&f, &s, IPPROTO_TCP);
	assert_int_equal(run(&h, &f, out, &len, &d), XDP_PASS);
	assert_int_equal(len, f.len);
	assert_memory_equal(out, f.data, f.len);
	assert_int_equal(d.rejected, 0);
}

/* BUDGET answers a second on this CPU; the rest dropped, counted. */
static void test_rate_limit(void **state)
{
	struct seg s = { .payload = 4 }, syn = { .flags = 0x02 };
	struct bloomxdp_counters d, sum = {};
	struct timespec t0, t1;
	__u8 out[FRAME_MAX];
	struct frame f;
	__u32 len;
	int i, tx, attempt;

	(void)state;
	build(&f, &s, IPPROTO_UDP);
	/* Again if the runs straddled a second (of the coarse clock the budget reads). */
	for (attempt = 0; attempt < 3; attempt++) {
		memset(&sum, 0, sizeof(sum));
		clock_gettime(CLOCK_MONOTONIC_COARSE, &t0);
		for (i = 0, tx = 0; i < 10; i++) {
			tx += run(&h_limited, &f, out, &len, &d) == XDP_TX;
			sum.icmp_ratelimited += d.icmp_ratelimited;
			sum.dropped += d.dropped;
		}
		clock_gettime(CLOCK_MONOTONIC_COARSE, &t1);
		if (t0.tv_sec == t1.tv_sec)
			break;
	}
	print_message("# %d of 10 answered (budget %d), attempt %d\n", tx, BUDGET, attempt);
	/* A later attempt's second may have been spent in part by the one before. */
	assert_true(tx <= BUDGET && (attempt > 0 || tx == BUDGET));
	assert_int_equal(sum.icmp_ratelimited, 10 - tx);
	assert_int_equal(sum.dropped, 10 - tx);
	/* RSTs are not rate-limited. */
	build(&f, &syn, IPPROTO_TCP);
	assert_int_equal(run(&h_limited, &f, out, &len, &d), XDP_TX);
}

static int setup(void **state)
{
	struct harness_config hc = { .match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_REJECT,
				     .icmp_per_sec = 1000000 };
	cpu_set_t cpus;

	(void)state;
	/* One CPU: the ICMP budget is per CPU. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return -1;
	if (harness_open(&h, &hc) || harness_insert(&h, FRAME_SRC4) ||
	    harness_insert(&h, FRAME_SRC6))
		return -1;
	hc.icmp_per_sec = BUDGET;
	return harness_open(&h_limited, &hc) || harness_insert(&h_limited, FRAME_SRC4) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	harness_close(&h);
	harness_close(&h_limited);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rst),
		cmocka_unit_test(test_icmp),
		cmocka_unit_test(test_not_answered),
		cmocka_unit_test(test_first_fragment_answered),
		cmocka_unit_test(test_unlisted),
		cmocka_unit_test(test_rate_limit),
	};

	return cmocka_run_group_tests_name("reject_xdp", tests, setup, teardown);
}
