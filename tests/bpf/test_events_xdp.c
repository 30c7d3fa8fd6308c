// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The drop events of bpf/bloomxdp.bpf.c for every field an event names and
 * every way the packet reaches it: HTTP host and URL, SNI, DNS answered with
 * NXDOMAIN (the event shows the query, written before the answer rewrites
 * it), addresses of fragments (no L4 protocol: 0xff, no ports), TCP behind
 * IPv6 extension headers and a VLAN tag, ports cut off by the end of the
 * frame (zero in the event), multi-buffer frames (the name, or the ports,
 * in a fragment). One frame, one event, every field of it checked.
 * test_verify_xdp.c covers addresses and DNS over UDP under --verify, the
 * allowlist and the rate limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <cmocka.h>

#include "names_harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const list[] = {
	"evil.example",
	"good.example/malware/",	/* URL: host/path */
	"192.0.2.1",
	"2001:db8::1",
};

#define LISTED4 "192.0.2.1"
#define LISTED6 "2001:db8::1"
#define NO_L4	0xff		/* the event's l4_proto when L4 was not reached */

struct row {
	const char *name;
	struct pkt pkt;
	__u32 verdict;		/* XDP_* */
	__u8 family;
	__u8 field;		/* enum bloomxdp_field */
	__u8 key_kind;		/* enum bloomxdp_event_key */
	__u8 key_len;
	__u8 ev_verdict;	/* enum bloomxdp_event_verdict */
	__u8 l4_proto;
	const char *ev_name;	/* the name the event carries (dotted); NULL: none */
	bool wire;		/* ... in DNS wire form */
	__u32 l4_kept;		/* the frame cut this many bytes into L4; 0: whole */
};

#define REQ(target, host) "GET " target " HTTP/1.1\r\nHost: " host "\r\n\r\n"
#define HBH_DSTOPTS .ext = (const __u8[]){ IPPROTO_HOPOPTS, IPPROTO_DSTOPTS }, .n_ext = 2

/* The event a row's frame makes; then .pkt and, for a name, .ev_name (and .wire). */
#define ROW(nm, xdp, fam, f, k, l, v, proto, ...)					\
	{ .name = (nm), .verdict = (xdp), .family = (fam), .field = BLOOMXDP_FIELD_##f,	\
	  .key_kind = BLOOMXDP_EVKEY_##k, .key_len = (l), .ev_verdict = BLOOMXDP_EVVERDICT_##v, \
	  .l4_proto = (proto), __VA_ARGS__ }

static const struct row rows[] = {
	ROW("HTTP: listed host", XDP_DROP, 4, HTTP, NAME, 2, DROP, IPPROTO_TCP,
	    .pkt = { .app = APP_HTTP, .http = REQ("/", "www.evil.example") },
	    .ev_name = "www.evil.example"),
	ROW("HTTP: listed URL", XDP_DROP, 4, HTTP, URL, 2, DROP, IPPROTO_TCP,
	    .pkt = { .app = APP_HTTP, .http = REQ("/malware/x", "good.example") },
	    .ev_name = "good.example"),
	ROW("HTTP: IPv6 behind hop-by-hop and destination options", XDP_DROP, 6, HTTP, NAME, 2,
	    DROP, IPPROTO_TCP,
	    .pkt = { .app = APP_HTTP, .http = REQ("/", "evil.example"), .v6 = true, HBH_DSTOPTS },
	    .ev_name = "evil.example"),
	ROW("SNI: IPv6 in 802.1Q", XDP_DROP, 6, SNI, NAME, 2, DROP, IPPROTO_TCP,
	    .pkt = { .app = APP_TLS, .tls.sni = "a.evil.example", .v6 = true, .vlan = true },
	    .ev_name = "a.evil.example"),
	ROW("SNI: IPv4", XDP_DROP, 4, SNI, NAME, 2, DROP, IPPROTO_TCP,
	    .pkt = { .app = APP_TLS, .tls.sni = "evil.example" }, .ev_name = "evil.example"),
	ROW("DNS: answered NXDOMAIN", XDP_TX, 4, DNS, NAME, 2, NXDOMAIN, IPPROTO_UDP,
	    .pkt = { .app = APP_DNS, .dns.qname = "x.y.evil.example" },
	    .ev_name = "x.y.evil.example", .wire = true),
	ROW("DNS: answered NXDOMAIN, IPv6", XDP_TX, 6, DNS, NAME, 2, NXDOMAIN, IPPROTO_UDP,
	    .pkt = { .app = APP_DNS, .dns.qname = "evil.example", .v6 = true },
	    .ev_name = "evil.example", .wire = true),
	ROW("address: listed source over TCP", XDP_DROP, 4, SRC, ADDRESS, 32, DROP, IPPROTO_TCP,
	    .pkt = { .src = LISTED4 }),
	ROW("address: listed destination, IPv6", XDP_DROP, 6, DST, ADDRESS, 128, DROP,
	    IPPROTO_TCP, .pkt = { .dst = LISTED6, .v6 = true }),
	ROW("address: listed source, the frame ends in the TCP source port", XDP_DROP, 4, SRC,
	    ADDRESS, 32, DROP, IPPROTO_TCP, .pkt = { .src = LISTED4 }, .l4_kept = 1),
	/* A later fragment: no L4 header (a first one has its ports). */
	ROW("address: IPv4 fragment from a listed source", XDP_DROP, 4, SRC, ADDRESS, 32, DROP,
	    NO_L4, .pkt = { .src = LISTED4, .frag_off = 0x2000 | 185 }),
	ROW("address: IPv6 fragment to a listed destination", XDP_DROP, 6, DST, ADDRESS, 128, DROP,
	    NO_L4, .pkt = { .dst = LISTED6, .v6 = true, .frag6 = 185 << 3 | 1,
			    .ext = (const __u8[]){ IPPROTO_FRAGMENT }, .n_ext = 1 }),
	/* Multi-buffer frames: what lies in a fragment is read from there. */
	ROW("SNI: past the first buffer, behind 4,800 bytes of padding", XDP_DROP, 6, SNI, NAME, 2,
	    DROP, IPPROTO_TCP,
	    .pkt = { .app = APP_TLS, .tls.sni = "evil.example", .tls.pad = 4800, .v6 = true },
	    .ev_name = "evil.example"),
	ROW("DNS: answered NXDOMAIN, 4,800 bytes of EDNS padding", XDP_TX, 4, DNS, NAME, 2,
	    NXDOMAIN, IPPROTO_UDP,
	    .pkt = { .app = APP_DNS, .dns.qname = "evil.example", .dns.pad = 4800 },
	    .ev_name = "evil.example", .wire = true),
	ROW("address: listed source, the TCP ports in a fragment", XDP_DROP, 4, SRC, ADDRESS, 32,
	    DROP, IPPROTO_TCP, .pkt = { .src = LISTED4, .linear = ETH_HLEN + IP4_HLEN + 1 }),
};

#define MAX_EVENTS 4

struct ev_log {
	struct bloomxdp_event ev[MAX_EVENTS];
	int n;
	int bad_size;
};

static int ev_collect(void *ctx, void *data, size_t size)
{
	struct ev_log *log = ctx;

	if (size != sizeof(struct bloomxdp_event))
		log->bad_size++;
	else if (log->n < MAX_EVENTS)
		log->ev[log->n] = *(struct bloomxdp_event *)data;
	log->n++;
	return 0;
}

static struct xdp_harness harness;
static struct ring_buffer *rb;
static struct ev_log evlog;

static void addr_bytes(const char *text, const char *dflt4, const char *dflt6, bool v6,
		       __u8 out[16])
{
	memset(out, 0, 16);
	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, text ? text : v6 ? dflt6 : dflt4, out),
			 1);
}

static void test_row(void **state)
{
	const struct row *r = &rows[(uintptr_t)*state];
	struct bloomxdp_counters delta;
	const struct bloomxdp_event *ev;
	struct frame out, wire = { .len = 0 };
	struct built b;
	__u8 src[16], dst[16];
	__u32 verdict, name_len;
	int ret;

	assert_int_equal(pkt_build(&r->pkt, &b), 0);
	if (r->l4_kept)
		frame_truncate(&b.f, b.l4 + r->l4_kept);
	evlog.n = 0;
	assert_true(ring_buffer__consume(rb) >= 0);
	assert_int_equal(evlog.n, 0);		/* none left over */
	evlog.n = evlog.bad_size = 0;
	ret = harness_run_frame_split(&harness, &b.f, r->pkt.linear, &out, &verdict, &delta);
	if (ret == -EINVAL && r->pkt.linear)
		skip();		/* a kernel that takes no first buffer this short */
	assert_int_equal(ret, 0);
	if (verdict != r->verdict)
		print_error("%s: verdict %s, expected %s\n", r->name, verdict_name(verdict),
			    verdict_name(r->verdict));
	assert_int_equal(verdict, r->verdict);
	assert_int_equal(delta.events_sent, 1);
	assert_true(ring_buffer__consume(rb) >= 0);
	assert_int_equal(evlog.bad_size, 0);
	assert_int_equal(evlog.n, 1);
	ev = &evlog.ev[0];

	assert_int_equal(ev->ifindex, if_nametoindex("lo"));
	assert_int_equal(ev->family, r->family);
	assert_int_equal(ev->field, r->field);
	assert_int_equal(ev->key_kind, r->key_kind);
	assert_int_equal(ev->key_len, r->key_len);
	assert_int_equal(ev->verdict, r->ev_verdict);
	assert_int_equal(ev->l4_proto, r->l4_proto);
	/* The query's addresses and ports, not its answer's. */
	addr_bytes(r->pkt.src, FRAME_SRC4, FRAME_SRC6, r->pkt.v6, src);
	addr_bytes(r->pkt.dst, FRAME_DST4, FRAME_DST6, r->pkt.v6, dst);
	assert_memory_equal(ev->src, src, 16);
	assert_memory_equal(ev->dst, dst, 16);
	if (r->l4_proto == NO_L4 || r->l4_kept) {
		assert_int_equal(ev->sport, 0);
		assert_int_equal(ev->dport, 0);
	} else {
		assert_int_equal(ntohs(ev->sport), 40000);
		assert_int_equal(ntohs(ev->dport), pkt_dport(&r->pkt));
	}
	if (!r->ev_name) {
		assert_int_equal(ev->name_len, 0);
		return;
	}
	if (r->wire) {
		name_len = dns_put_name(&wire, r->ev_name);
		assert_int_equal(ev->name_wire, 1);
		assert_int_equal(ev->name_len, name_len);
		assert_memory_equal(ev->name, wire.data, name_len);
	} else {
		name_len = strlen(r->ev_name);
		assert_int_equal(ev->name_wire, 0);
		assert_int_equal(ev->name_len, name_len);
		assert_memory_equal(ev->name, r->ev_name, name_len);
	}
}

static int setup(void **state)
{
	const struct harness_config hc = {
		.match = BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST | BLOOMXDP_MATCH_NAMES,
		.action = BLOOMXDP_ACTION_DROP, .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN,
		.events_per_sec = 1000,
	};
	const char *why;
	size_t i;
	int ret;

	(void)state;
	ret = harness_open(&harness, &hc);
	if (ret) {
		print_error("cannot load bloomxdp: %s\n", strerror(-ret));
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(list); i++) {
		if (harness_insert_entry(&harness, list[i], &why)) {
			print_error("list line %s: %s\n", list[i], why);
			return -1;
		}
	}
	rb = ring_buffer__new(bpf_map__fd(harness.lp.skel->maps.events), ev_collect, &evlog, NULL);
	return rb ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ring_buffer__free(rb);
	harness_close(&harness);
	return 0;
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(rows)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		tests[i] = (struct CMUnitTest){ .name = rows[i].name, .test_func = test_row,
						.initial_state = (void *)(uintptr_t)i };
	return _cmocka_run_group_tests("events_xdp", tests, ARRAY_SIZE(rows), setup, teardown);
}
