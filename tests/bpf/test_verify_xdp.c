// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verify stage (attach --verify), the allowlist, the drop events and the
 * generations of bpf/bloomxdp.bpf.c, through BPF_PROG_TEST_RUN on loaded but
 * never attached programs (see verify_harness.h).
 *
 *  - table: one row per frame, run under verify off / on, drop / monitor:
 *    listed hosts and prefixes drop (bloom_hits, confirmed with verify);
 *    keys put into the Bloom filter only (forced false positives) drop
 *    without verify and pass with it (false_positives); allowlisted hosts
 *    and prefixes inside blocked prefixes, and an allowlisted subdomain,
 *    pass (allowed) while their neighbours drop. Every counter is checked,
 *    and every drop (or would-drop) must leave exactly one event on the
 *    ring buffer with the right family, addresses, ports, field, key kind,
 *    key length and verdict.
 *  - a false positive found, not forced, in an overfull filter;
 *  - events at --events-per-sec 3: 10 blocked frames in one test run give
 *    3 events and 7 rate-limited, the budget renews in the next second;
 *    once spent, it stays spent across ticks and refills a tick after the second;
 *  - generations: slot 1 filled and made live by the active word, for the
 *    blocklist and the allowlist separately;
 *  - statistics: 20,000 random IPv4 prefixes /16../32 in a filter at FPR
 *    0.05, 200,000 random addresses outside all of them: without verify the
 *    block rate is within 5 sigma of 1 - (1 - fill^k)^probes, with verify it
 *    is 0; 10,000 addresses inside are blocked either way. User space
 *    (entry_keys_lookup, entry_keys_confirm) and the XDP program agree on
 *    every address.
 */
#define _GNU_SOURCE	/* sched_getcpu, CPU_SET */
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "dns_wire.h"
#include "verify_harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const __u64 fixed_key[2] = { 0x0f1e2d3c4b5a6978ULL, 0x8796a5b4c3d2e1f0ULL };

/* ------------------------------------------------------------ events */

#define EV_MAX 64

struct ev_log {
	struct bloomxdp_event ev[EV_MAX];
	int n;
	int bad_size;
};

static int ev_collect(void *ctx, void *data, size_t size)
{
	struct ev_log *log = ctx;

	if (size != sizeof(struct bloomxdp_event)) {
		log->bad_size++;
		return 0;
	}
	if (log->n < EV_MAX)
		memcpy(&log->ev[log->n], data, sizeof(log->ev[0]));
	log->n++;
	return 0;
}

/* A loaded program and a reader of its ring buffer. */
struct prog {
	struct vh v;
	struct ring_buffer *rb;
	struct ev_log log;
	bool open;
};

static void prog_close(struct prog *p)
{
	ring_buffer__free(p->rb);
	p->rb = NULL;
	if (p->open)
		vh_close(&p->v);
	p->open = false;
}

static int prog_open(struct prog *p, const struct vh_config *c)
{
	int ret;

	memset(p, 0, sizeof(*p));
	ret = vh_open(&p->v, c);
	if (ret)
		return ret;
	p->open = true;
	p->rb = ring_buffer__new(p->v.events_fd, ev_collect, &p->log, NULL);
	if (!p->rb) {
		ret = -errno;
		prog_close(p);
	}
	return ret;
}

/* Reads every event waiting in the ring buffer into p->log (emptied first). */
static int prog_events(struct prog *p)
{
	int ret;

	p->log.n = 0;
	p->log.bad_size = 0;
	ret = ring_buffer__consume(p->rb);
	return ret < 0 ? ret : p->log.n;
}

/* ------------------------------------------------------------ counters */

/* Fails with every counter that moved otherwise than want says. */
static void check_delta(const char *what, const struct bloomxdp_counters *want,
			const struct bloomxdp_counters *got)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < HARNESS_NCOUNTERS; i++) {
		__u64 w = *counter_at((struct bloomxdp_counters *)want, i);
		__u64 g = *counter_at((struct bloomxdp_counters *)got, i);

		if (w != g) {
			print_error("%s: counter %s moved by %lld, expected %llu\n", what,
				    harness_counter_names[i], (long long)g, (unsigned long long)w);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* packets, bytes, passed and dropped: what a frame of len bytes with verdict adds. */
static void add_frame(struct bloomxdp_counters *d, __u32 len, __u32 verdict, __u64 times)
{
	d->packets += times;
	d->bytes += (__u64)len * times;
	if (verdict == XDP_DROP)
		d->dropped += times;
	else
		d->passed += times;
}

/* ------------------------------------------------------------ the table */

enum cfg_id { OFF, ON, MON_OFF, MON_ON, N_CFGS };

static const char *const cfg_names[N_CFGS] = {
	[OFF] = "verify off", [ON] = "verify on",
	[MON_OFF] = "monitor, verify off", [MON_ON] = "monitor, verify on",
};

#define TABLE_MATCH (BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST | BLOOMXDP_MATCH_DNS)
/* High enough that no row is rate-limited: every drop leaves its event. */
#define TABLE_EVENTS 1000000

static struct prog progs[N_CFGS];

static bool cfg_verify(enum cfg_id c)
{
	return c == ON || c == MON_ON;
}

static bool cfg_monitor(enum cfg_id c)
{
	return c == MON_OFF || c == MON_ON;
}

/* The blocklist: in the Bloom filter and in the exact copy. */
static const char *const blocklist[] = {
	"192.0.2.77",			/* hosts */
	"2001:db8::42",
	"::ffff:192.0.2.88",		/* IPv4-mapped: counts as 192.0.2.88 */
	"198.51.100.0/24",		/* prefixes */
	"203.0.113.64/26",
	"2001:db8:1::/48",
	"evil.example",			/* names */
	"tracker.example.org",
	"deep.shadow.test",
};

/*
 * Forced false positives: in the Bloom filter only, after the list was
 * built (as if their bits had been set by other keys).
 */
static const char *const bloom_only[] = {
	"192.0.2.99",
	"203.0.113.0/28",		/* a new length: expanded to the probed /32 */
	"2001:db8:dead::5",
	"phantom.example",
	"shadow.test",			/* a suffix of the listed deep.shadow.test */
	"198.51.100.7",			/* inside the listed 198.51.100.0/24 */
};

/* The allowlist: hosts and a prefix inside the blocked prefixes, a subdomain. */
static const char *const allowlist[] = {
	"198.51.100.0",			/* first address of the blocked /24 */
	"198.51.100.255",		/* last */
	"198.51.100.64/28",		/* a /28 inside */
	"2001:db8:1::",			/* first of the blocked /48 */
	"2001:db8:1:ffff:ffff:ffff:ffff:ffff",	/* last */
	"2001:db8:1:2::/64",
	"good.evil.example",
};

enum outcome {
	O_MISS,		/* no Bloom hit */
	O_HIT,		/* listed: confirmed with verify */
	O_FP,		/* Bloom only: dropped without verify, refused with it */
	O_ALLOWED,	/* listed and allowlisted */
	O_FP_THEN_HIT,	/* a refused hit, then a listed one (verify): .ev_on */
};

struct ev_want {
	__u8 field;
	__u8 kind;
	__u8 len;
};

#define EV(f, k, l)	{ BLOOMXDP_FIELD_##f, BLOOMXDP_EVKEY_##k, (l) }

struct row {
	const char *name;
	const char *src;	/* NULL: the unlisted default of the family */
	const char *dst;
	const char *qname;	/* a DNS query for it; NULL: a UDP datagram to port 9 */
	__u16 dstopts;		/* IPv6: the datagram behind destination options this long */
	enum outcome o;
	struct ev_want ev;	/* the event of a drop (without verify for O_FP_THEN_HIT) */
	struct ev_want ev_on;	/* with verify, when it differs (O_FP_THEN_HIT, O_HIT) */
};

#define SRC4	"192.0.2.1"
#define DST4	"192.0.2.53"
#define SRC6	"2001:db8:ffff::1"
#define DST6	"2001:db8:eeee::53"

#define A(nm, s, d, out, ...) { .name = (nm), .src = (s), .dst = (d), .o = (out), __VA_ARGS__ }
#define DNS(nm, q, out, ...) { .name = (nm), .qname = (q), .o = (out), __VA_ARGS__ }

static const struct row rows[] = {
	/* (a) listed hosts and prefixes. */
	A("listed v4 host as source", "192.0.2.77", NULL, O_HIT, .ev = EV(SRC, ADDRESS, 32)),
	A("listed v4 host as destination", NULL, "192.0.2.77", O_HIT,
	  .ev = EV(DST, ADDRESS, 32)),
	A("unlisted neighbour of the v4 host", "192.0.2.76", "192.0.2.78", O_MISS),
	A("listed v6 host", "2001:db8::42", NULL, O_HIT, .ev = EV(SRC, ADDRESS, 128)),
	A("unlisted neighbour of the v6 host", "2001:db8::43", NULL, O_MISS),
	A("host listed as ::ffff:a.b.c.d, v4 frame", "192.0.2.88", NULL, O_HIT,
	  .ev = EV(SRC, ADDRESS, 32)),
	A("host listed as ::ffff:a.b.c.d, v6 frame from it", "::ffff:192.0.2.88", SRC6, O_HIT,
	  .ev = EV(SRC, ADDRESS, 32)),
	A("v4 /24: an address inside", "198.51.100.42", NULL, O_HIT, .ev = EV(SRC, PREFIX, 24)),
	A("v4 /24: just before it", "198.51.99.255", NULL, O_MISS),
	A("v4 /24: just after it", "198.51.101.0", NULL, O_MISS),
	A("v4 /26: first address", "203.0.113.64", NULL, O_HIT, .ev = EV(SRC, PREFIX, 26)),
	A("v4 /26: last address, as destination", NULL, "203.0.113.127", O_HIT,
	  .ev = EV(DST, PREFIX, 26)),
	A("v4 /26: just before it", "203.0.113.63", NULL, O_MISS),
	A("v4 /26: just after it", "203.0.113.128", NULL, O_MISS),
	A("v6 /48: an address inside", "2001:db8:1:1234::99", NULL, O_HIT,
	  .ev = EV(SRC, PREFIX, 48)),
	A("v6 /48: as destination", NULL, "2001:db8:1:1:ffff:ffff:ffff:ffff", O_HIT,
	  .ev = EV(DST, PREFIX, 48)),
	A("v6 /48: just before it", "2001:db8:0:ffff:ffff:ffff:ffff:ffff", NULL, O_MISS),
	A("v6 /48: just after it", "2001:db8:2::", NULL, O_MISS),
	DNS("DNS: listed domain", "evil.example", O_HIT, .ev = EV(DNS, NAME, 2)),
	DNS("DNS: name under a listed domain", "a.b.evil.example", O_HIT, .ev = EV(DNS, NAME, 2)),
	DNS("DNS: 3-label listed domain, a name under it", "x.tracker.example.org", O_HIT,
	    .ev = EV(DNS, NAME, 3)),
	DNS("DNS: its parent is not listed", "example.org", O_MISS),
	/* The event's ports and name are read at L4's offset, byte 1,078 here. */
	DNS("DNS: listed domain behind 1,024 bytes of IPv6 dstopts", "evil.example", O_HIT,
	    .src = SRC6, .dstopts = 1024, .ev = EV(DNS, NAME, 2)),
	DNS("DNS: no label boundary", "notevil.example", O_MISS),

	/* (b) forced false positives. */
	A("Bloom-only v4 host", "192.0.2.99", NULL, O_FP, .ev = EV(SRC, ADDRESS, 32)),
	A("Bloom-only v4 host as destination", NULL, "192.0.2.99", O_FP,
	  .ev = EV(DST, ADDRESS, 32)),
	A("Bloom-only v4 /28 (probed at /32)", "203.0.113.5", NULL, O_FP,
	  .ev = EV(SRC, ADDRESS, 32)),
	A("Bloom-only v6 host", "2001:db8:dead::5", NULL, O_FP, .ev = EV(SRC, ADDRESS, 128)),
	DNS("DNS: Bloom-only domain", "www.phantom.example", O_FP, .ev = EV(DNS, NAME, 2)),
	A("Bloom-only source, listed destination", "192.0.2.99", "192.0.2.77", O_FP_THEN_HIT,
	  .ev = EV(SRC, ADDRESS, 32), .ev_on = EV(DST, ADDRESS, 32)),
	DNS("DNS: Bloom-only suffix, listed deeper suffix", "www.deep.shadow.test",
	    O_FP_THEN_HIT, .ev = EV(DNS, NAME, 2), .ev_on = EV(DNS, NAME, 3)),
	DNS("DNS: Bloom-only suffix alone", "other.shadow.test", O_FP, .ev = EV(DNS, NAME, 2)),
	/*
	 * A Bloom-only /32 inside a listed /24: the exact copy confirms it (its
	 * intervals hold the /24). Without verify the event reports the Bloom
	 * hit's length; with it, an interval of the exact copy's prefixes.
	 */
	A("Bloom-only host inside a listed prefix", "198.51.100.7", NULL, O_HIT,
	  .ev = EV(SRC, ADDRESS, 32), .ev_on = EV(SRC, RANGE, 0)),

	/* (c) the allowlist inside blocked prefixes. */
	A("allowlisted first address of the /24", "198.51.100.0", NULL, O_ALLOWED),
	A("its neighbour", "198.51.100.1", NULL, O_HIT, .ev = EV(SRC, PREFIX, 24)),
	A("allowlisted last address of the /24", "198.51.100.255", NULL, O_ALLOWED),
	A("its neighbour", "198.51.100.254", NULL, O_HIT, .ev = EV(SRC, PREFIX, 24)),
	A("allowlisted /28: first address", "198.51.100.64", NULL, O_ALLOWED),
	A("allowlisted /28: last address", "198.51.100.79", NULL, O_ALLOWED),
	A("allowlisted /28: address before", "198.51.100.63", NULL, O_HIT,
	  .ev = EV(SRC, PREFIX, 24)),
	A("allowlisted /28: address after", "198.51.100.80", NULL, O_HIT,
	  .ev = EV(SRC, PREFIX, 24)),
	A("allowlisted address as destination", SRC4, "198.51.100.255", O_ALLOWED),
	A("allowlisted, as ::ffff:a.b.c.d in a v6 frame", "::ffff:198.51.100.70", SRC6, O_ALLOWED),
	A("allowlisted first address of the v6 /48", "2001:db8:1::", NULL, O_ALLOWED),
	A("its neighbour", "2001:db8:1::1", NULL, O_HIT, .ev = EV(SRC, PREFIX, 48)),
	A("allowlisted last address of the v6 /48", "2001:db8:1:ffff:ffff:ffff:ffff:ffff", NULL,
	  O_ALLOWED),
	A("its neighbour", "2001:db8:1:ffff:ffff:ffff:ffff:fffe", NULL, O_HIT,
	  .ev = EV(SRC, PREFIX, 48)),
	A("allowlisted v6 /64 inside the /48", "2001:db8:1:2::7", NULL, O_ALLOWED),
	A("the /64 before it", "2001:db8:1:1:ffff:ffff:ffff:ffff", NULL, O_HIT,
	  .ev = EV(SRC, PREFIX, 48)),
	A("the /64 after it", "2001:db8:1:3::", NULL, O_HIT, .ev = EV(SRC, PREFIX, 48)),
	DNS("DNS: allowlisted subdomain of a blocked domain", "good.evil.example", O_ALLOWED),
	DNS("DNS: a name under the allowlisted subdomain", "www.good.evil.example", O_ALLOWED),
	DNS("DNS: a sibling of the allowlisted subdomain", "bad.evil.example", O_HIT,
	    .ev = EV(DNS, NAME, 2)),
	DNS("DNS: allowlisted label without boundary", "notgood.evil.example", O_HIT,
	    .ev = EV(DNS, NAME, 2)),
};

#define N_ROWS ARRAY_SIZE(rows)

/* Moves the datagram of an IPv6 frame without tags behind destination options of len bytes. */
static void frame_add_dstopts(struct frame *f, __u32 len)
{
	struct ip6_hdr *ip6h = (struct ip6_hdr *)(f->data + ETH_HLEN);
	__u32 l4 = ETH_HLEN + IP6_HLEN, n = f->len - l4;
	__u8 *h;

	frame_put(f, len);
	h = f->data + l4;
	memmove(h + len, h, n);
	memset(h, 0, len);
	h[0] = ip6h->ip6_nxt;
	h[1] = len / 8 - 1;
	ipv6_padn(h, 2, len);
	ip6h->ip6_nxt = IPPROTO_DSTOPTS;
	frame_finish(f, ETH_P_IPV6, ETH_HLEN);
}

static int frame_of_row(const struct row *r, struct frame *f, bool *v6)
{
	const char *src = r->src, *dst = r->dst;
	int ret;

	*v6 = (src && strchr(src, ':')) || (dst && strchr(dst, ':'));
	if (!src)
		src = *v6 ? SRC6 : SRC4;
	if (!dst)
		dst = *v6 ? DST6 : DST4;
	ret = r->qname ? frame_dns_query(f, *v6, src, dst, r->qname) : frame_udp(f, src, dst);
	if (!ret && r->dstopts)
		frame_add_dstopts(f, r->dstopts);
	return ret;
}

/* What a row must do under a configuration: verdict, counters, event. */
static const struct ev_want *expect(const struct row *r, enum cfg_id c, bool v6,
				    struct bloomxdp_counters *d, __u32 *verdict)
{
	bool verify = cfg_verify(c), hit = false;
	const struct ev_want *ev = NULL;

	memset(d, 0, sizeof(*d));
	if (v6)
		d->checked_v6 = 1;
	else
		d->checked_v4 = 1;
	if (r->qname)
		d->checked_dns = 1;
	switch (r->o) {
	case O_MISS:
		break;
	case O_HIT:
		d->bloom_hits = 1;
		d->confirmed = verify;
		hit = true;
		/* With verify the event names what the exact copy matched, when given. */
		ev = verify && r->ev_on.field ? &r->ev_on : &r->ev;
		break;
	case O_FP:
		d->bloom_hits = 1;
		d->false_positives = verify;
		hit = !verify;
		ev = verify ? NULL : &r->ev;
		break;
	case O_ALLOWED:
		d->bloom_hits = 1;
		d->confirmed = verify;
		d->allowed = 1;
		break;
	case O_FP_THEN_HIT:
		d->bloom_hits = verify ? 2 : 1;
		d->false_positives = verify;
		d->confirmed = verify;
		hit = true;
		ev = verify ? &r->ev_on : &r->ev;
		break;
	}
	if (hit) {
		if (r->qname)
			d->hits_dns = 1;
		else if (v6)
			d->hits_v6 = 1;
		else
			d->hits_v4 = 1;
		d->events_sent = 1;
		d->would_drop = cfg_monitor(c);
	}
	*verdict = hit && !cfg_monitor(c) ? XDP_DROP : XDP_PASS;
	return ev;
}

/* The address bytes of an event field (IPv4 in the first 4 of 16). */
static void addr_bytes(const char *text, bool v6, __u8 out[16])
{
	memset(out, 0, 16);
	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, text, out), 1);
}

static void check_event(const char *what, const struct bloomxdp_event *ev,
			const struct ev_want *want, __u8 verdict, bool v6, const char *src,
			const char *dst, const char *qname, __u64 t0, __u64 t1)
{
	__u8 s[16], d[16], wire[300];
	__u32 n;

	(void)what;
	assert_int_equal(ev->family, v6 ? 6 : 4);
	assert_int_equal(ev->field, want->field);
	assert_int_equal(ev->key_kind, want->kind);
	assert_int_equal(ev->key_len, want->len);
	assert_int_equal(ev->verdict, verdict);
	assert_int_equal(ev->l4_proto, IPPROTO_UDP);
	assert_int_equal(ntohs(ev->sport), 40000);
	assert_int_equal(ntohs(ev->dport), qname ? 53 : VH_UDP_PORT);
	assert_int_equal(ev->ifindex, if_nametoindex("lo"));
	/* bpf_ktime_get_ns() and CLOCK_MONOTONIC: the same clock, read differently. */
	assert_true(ev->ts_ns + 1000000 >= t0 && ev->ts_ns <= t1 + 1000000);
	addr_bytes(src, v6, s);
	addr_bytes(dst, v6, d);
	assert_memory_equal(ev->src, s, 16);
	assert_memory_equal(ev->dst, d, 16);
	if (qname) {
		n = dns_wire_name(qname, wire);
		assert_int_equal(ev->name_wire, 1);
		assert_int_equal(ev->name_len, n > BLOOMXDP_EVENT_NAME_MAX ?
				 BLOOMXDP_EVENT_NAME_MAX : n);
		assert_memory_equal(ev->name, wire, ev->name_len);
	} else {
		assert_int_equal(ev->name_len, 0);
	}
}

static __u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static void test_row(void **state)
{
	size_t i = (size_t)(uintptr_t)*state;
	const struct row *r = &rows[i / N_CFGS];
	enum cfg_id c = i % N_CFGS;
	struct prog *p = &progs[c];
	struct bloomxdp_counters want = { 0 }, got = { 0 };
	const struct ev_want *ev;
	const char *src, *dst;
	__u32 want_verdict, verdict;
	struct frame f;
	__u64 t0, t1;
	bool v6;

	assert_true(p->open);
	assert_int_equal(frame_of_row(r, &f, &v6), 0);
	ev = expect(r, c, v6, &want, &want_verdict);
	assert_int_equal(prog_events(p), 0);	/* none left over */
	t0 = mono_ns();
	assert_int_equal(harness_run_counted(&p->v.h, &f, &verdict, &got), 0);
	t1 = mono_ns();
	add_frame(&want, f.len, want_verdict, 1);
	if (verdict != want_verdict)
		print_error("verdict %u, expected %u\n", verdict, want_verdict);
	assert_int_equal(verdict, want_verdict);
	check_delta(r->name, &want, &got);
	assert_int_equal(prog_events(p), ev ? 1 : 0);
	assert_int_equal(p->log.bad_size, 0);
	if (ev) {
		src = r->src ? r->src : v6 ? SRC6 : SRC4;
		dst = r->dst ? r->dst : v6 ? DST6 : DST4;
		check_event(r->name, &p->log.ev[0], ev,
			    cfg_monitor(c) ? BLOOMXDP_EVVERDICT_WOULD_DROP : BLOOMXDP_EVVERDICT_DROP,
			    v6, src, dst, r->qname, t0, t1);
	}
}

/* Loads the four programs with the list, the Bloom-only keys and the allowlist. */
static int setup_table(void **state)
{
	struct prefix_plan plan[2];
	char err[LIST_ERROR_LEN];
	int c, ret;
	size_t i;

	(void)state;
	for (c = 0; c < N_CFGS; c++) {
		struct vh_config vc = {
			.match = TABLE_MATCH,
			.action = cfg_monitor(c) ? BLOOMXDP_ACTION_MONITOR : BLOOMXDP_ACTION_DROP,
			.verify = cfg_verify(c), .events_per_sec = TABLE_EVENTS,
			.hash_key = fixed_key, .capacity = 1000, .fpr = 1e-6,
		};

		ret = prog_open(&progs[c], &vc);
		if (ret) {
			fprintf(stderr, "# cannot load the program (%s): %s\n", cfg_names[c],
				strerror(-ret));
			return -1;
		}
		ret = vh_load_blocklist(&progs[c].v, 0, blocklist, ARRAY_SIZE(blocklist),
					LIST_DEFAULT_PREFIX_PROBES, plan, err);
		for (i = 0; !ret && i < ARRAY_SIZE(bloom_only); i++)
			ret = vh_bloom_only(&progs[c].v, 0, bloom_only[i]) < 0 ? -EINVAL : 0;
		if (!ret)
			ret = vh_load_allowlist(&progs[c].v, 0, allowlist, ARRAY_SIZE(allowlist),
						err);
		if (ret) {
			fprintf(stderr, "# cannot load the lists (%s): %s %s\n", cfg_names[c],
				strerror(-ret), err);
			return -1;
		}
	}
	return 0;
}

static int teardown_table(void **state)
{
	int c;

	(void)state;
	for (c = 0; c < N_CFGS; c++)
		prog_close(&progs[c]);
	return 0;
}

/* The lengths the table's filter probes: what the rows' key lengths assume. */
static void test_table_lengths(void **state)
{
	__u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS];
	static const __u8 want4[] = { 32, 26, 24 }, want6[] = { 128, 48 };
	struct filter *f = &progs[ON].v.h.lp.filter;
	__u32 n;

	(void)state;
	n = prefix_word_lengths(filter_header_word(f, BLOOMXDP_HDR_V4_LENGTHS), lengths);
	assert_int_equal(n, ARRAY_SIZE(want4));
	assert_memory_equal(lengths, want4, n);
	n = prefix_word_lengths(filter_header_word(f, BLOOMXDP_HDR_V6_LENGTHS), lengths);
	assert_int_equal(n, ARRAY_SIZE(want6));
	assert_memory_equal(lengths, want6, n);
}

/* "198.51.100.0/24": the prefix of length len of an address. */
static void prefix_text_of(const char *addr, __u32 len, char *out, size_t out_len)
{
	struct bloomxdp_key key, prefix;
	const char *why;
	__u8 bytes[16];

	assert_int_equal(key_parse(addr, &key, &why), 0);
	if (key_family(&key) == BLOOMXDP_KEY_IPV4) {
		memcpy(bytes, (const __u8 *)&key.word[0] + 4, 4);
		bloomxdp_key_ipv4(&prefix, bytes, len);
	} else {
		bloomxdp_key_ipv6(&prefix, &key.word[1], len);
	}
	prefix_text(&prefix, out, out_len);
}

/* The user-space verdicts (bloomxdp query) agree with the rows under verify on. */
static void test_table_query(void **state)
{
	struct vh *v = &progs[ON].v;
	char why[256], text[300];
	const struct row *r;
	bool blocked, allowed, want_blocked;
	struct entry e;
	size_t i;

	(void)state;
	for (i = 0; i < N_ROWS; i++) {
		r = &rows[i];
		if (r->o == O_FP_THEN_HIT || (!r->qname && r->src && r->dst))
			continue;	/* two fields: not one query */
		snprintf(text, sizeof(text), "%s", r->qname ? r->qname : r->src ? r->src : r->dst);
		assert_int_equal(vh_parse_entry(text, &e), 0);
		blocked = entry_keys_lookup(&v->h.lp.filter, &e, why, sizeof(why));
		if (blocked)
			blocked = entry_keys_confirm(&v->verify[0], v->h.config.hash_key, &e);
		allowed = blocked && entry_keys_allowed(&v->allow[0], v->h.config.hash_key, &e);
		want_blocked = r->o == O_HIT || r->o == O_ALLOWED;
		if (blocked != want_blocked || allowed != (r->o == O_ALLOWED))
			print_error("%s (%s): blocked %d allowed %d\n", r->name, text, blocked,
				    allowed);
		assert_int_equal(blocked, want_blocked);
		assert_int_equal(allowed, r->o == O_ALLOWED);
		/* What 'query' names: the prefix of the event's length, or nothing for a host. */
		if (r->o == O_HIT && !r->qname) {
			char want[64] = "";

			if (r->ev.kind == BLOOMXDP_EVKEY_PREFIX)
				prefix_text_of(text, r->ev.len, want, sizeof(want));
			if (strcmp(why, want))
				print_error("%s (%s): matched '%s', expected '%s'\n", r->name, text,
					    why, want);
			assert_string_equal(why, want);
		}
	}
}

/* ------------------------------------------------------------ a false positive found */

/*
 * 300 hosts in a filter sized for 100 at FPR 0.05: about half of all
 * addresses are false positives. One found by the user-space lookup must be
 * dropped by the program without verify and passed with it.
 */
static void test_natural_false_positive(void **state)
{
	struct prog off, on;
	struct vh_config vc = { .match = BLOOMXDP_MATCH_SRC, .capacity = 100, .fpr = 0.05,
				.exact_room = 1000,
				.events_per_sec = 0 };
	const char *list[300];
	char (*texts)[32], found[32] = "", why[128];
	struct bloomxdp_counters want = { 0 }, got = { 0 };
	struct frame f;
	struct entry e;
	__u32 verdict, i, tries;
	__u64 key[2];

	(void)state;
	texts = calloc(ARRAY_SIZE(list), sizeof(*texts));
	assert_non_null(texts);
	for (i = 0; i < ARRAY_SIZE(list); i++) {
		snprintf(texts[i], sizeof(texts[i]), "10.1.%u.%u", i / 200, i % 200);
		list[i] = texts[i];
	}
	assert_int_equal(getrandom(key, sizeof(key), 0), sizeof(key));
	vc.hash_key = key;
	assert_int_equal(prog_open(&off, &vc), 0);
	vc.verify = 1;
	assert_int_equal(prog_open(&on, &vc), 0);
	{
		char err[LIST_ERROR_LEN];

		assert_int_equal(vh_load_blocklist(&off.v, 0, list, ARRAY_SIZE(list), 6, NULL,
						   err), 0);
		assert_int_equal(vh_load_blocklist(&on.v, 0, list, ARRAY_SIZE(list), 6, NULL,
						   err), 0);
	}
	for (tries = 0; tries < 100000 && !found[0]; tries++) {
		snprintf(found, sizeof(found), "10.2.%u.%u", tries / 250, tries % 250);
		assert_int_equal(vh_parse_entry(found, &e), 0);
		if (!entry_keys_lookup(&on.v.h.lp.filter, &e, why, sizeof(why)))
			found[0] = '\0';
	}
	assert_true(found[0]);
	print_message("# false positive found: %s after %u tries\n", found, tries);
	assert_false(entry_keys_confirm(&on.v.verify[0], on.v.h.config.hash_key, &e));

	assert_int_equal(frame_udp(&f, found, DST4), 0);
	assert_int_equal(harness_run_counted(&off.v.h, &f, &verdict, &got), 0);
	assert_int_equal(verdict, XDP_DROP);
	memset(&want, 0, sizeof(want));
	want.checked_v4 = want.hits_v4 = want.bloom_hits = 1;
	add_frame(&want, f.len, XDP_DROP, 1);
	check_delta("verify off", &want, &got);

	assert_int_equal(harness_run_counted(&on.v.h, &f, &verdict, &got), 0);
	assert_int_equal(verdict, XDP_PASS);
	memset(&want, 0, sizeof(want));
	want.checked_v4 = want.bloom_hits = want.false_positives = 1;
	add_frame(&want, f.len, XDP_PASS, 1);
	check_delta("verify on", &want, &got);

	/* Every listed host still drops with verify. */
	for (i = 0; i < ARRAY_SIZE(list); i++) {
		assert_int_equal(frame_udp(&f, list[i], DST4), 0);
		assert_int_equal(harness_run(&on.v.h, &f, &verdict), 0);
		assert_int_equal(verdict, XDP_DROP);
	}
	prog_close(&off);
	prog_close(&on);
	free(texts);
}

/* ------------------------------------------------------------ events and their rate */

#define RATE 3
#define BURST 10

struct burst_case {
	const char *name;
	enum bloomxdp_action action;
	const char *src, *dst, *qname;
	struct ev_want ev;
};

static const struct burst_case bursts[] = {
	{ "v4 listed host as source", BLOOMXDP_ACTION_DROP, "192.0.2.77", DST4, NULL,
	  EV(SRC, ADDRESS, 32) },
	{ "v4 address in a listed prefix", BLOOMXDP_ACTION_DROP, "198.51.100.9", DST4, NULL,
	  EV(SRC, PREFIX, 24) },
	{ "v6 listed host as destination", BLOOMXDP_ACTION_DROP, SRC6, "2001:db8::42", NULL,
	  EV(DST, ADDRESS, 128) },
	{ "v6 address in a listed prefix", BLOOMXDP_ACTION_DROP, "2001:db8:1:5::5", DST6, NULL,
	  EV(SRC, PREFIX, 48) },
	{ "DNS query for a listed domain", BLOOMXDP_ACTION_DROP, SRC4, DST4, "www.evil.example",
	  EV(DNS, NAME, 2) },
	{ "monitor: v4 address in a listed prefix", BLOOMXDP_ACTION_MONITOR, "203.0.113.100",
	  DST4, NULL, EV(SRC, PREFIX, 26) },
};

/* Keeps this thread on the CPU it runs on: the event budget is per CPU. */
static int pin_to_cpu(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(*old), old))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/*
 * BURST runs of a case, whose counters and events must be as wanted when the
 * runs all fell in second sec of CLOCK_MONOTONIC (the budget's clock, coarse);
 * false, with nothing checked, when they ran past it (a slow or loaded machine,
 * a kernel under emulation): the caller tries again. sec 0: any second.
 */
static bool burst_run_in(struct prog *p, const struct burst_case *b, __u32 want_events,
			 __u32 want_limited, __u64 sec)
{
	struct bloomxdp_counters before = { 0 }, after = { 0 }, want = { 0 };
	__u32 want_verdict, verdict, i;
	bool v6 = strchr(b->src, ':') != NULL;
	struct frame f;
	__u64 t0, t1;
	size_t k;

	if (b->qname)
		assert_int_equal(frame_dns_query(&f, v6, b->src, b->dst, b->qname), 0);
	else
		assert_int_equal(frame_udp(&f, b->src, b->dst), 0);
	want_verdict = b->action == BLOOMXDP_ACTION_MONITOR ? XDP_PASS : XDP_DROP;
	assert_int_equal(harness_counters(&p->v.h, &before), 0);
	t0 = mono_ns();
	assert_int_equal(vh_run_repeat(&p->v, &f, BURST, &verdict), 0);
	t1 = mono_ns();
	assert_int_equal(harness_counters(&p->v.h, &after), 0);
	assert_int_equal(verdict, want_verdict);
	if (sec && t1 >= (sec + 1) * 1000000000ULL)
		return false;
	for (k = 0; k < HARNESS_NCOUNTERS; k++)
		*counter_at(&after, k) -= *counter_at(&before, k);
	add_frame(&want, f.len, want_verdict, BURST);
	if (v6)
		want.checked_v6 = BURST;
	else
		want.checked_v4 = BURST;
	want.bloom_hits = want.confirmed = BURST;
	if (b->qname) {
		want.checked_dns = want.hits_dns = BURST;
	} else if (v6) {
		want.hits_v6 = BURST;
	} else {
		want.hits_v4 = BURST;
	}
	if (b->action == BLOOMXDP_ACTION_MONITOR)
		want.would_drop = BURST;
	want.events_sent = want_events;
	want.events_ratelimited = want_limited;
	check_delta(b->name, &want, &after);
	assert_int_equal(prog_events(p), want_events);
	for (i = 0; i < want_events; i++)
		check_event(b->name, &p->log.ev[i], &b->ev,
			    b->action == BLOOMXDP_ACTION_MONITOR ? BLOOMXDP_EVVERDICT_WOULD_DROP :
								   BLOOMXDP_EVVERDICT_DROP,
			    v6, b->src, b->dst, b->qname, t0, t1);
	return true;
}

static void burst_run(struct prog *p, const struct burst_case *b, __u32 want_events,
		      __u32 want_limited)
{
	burst_run_in(p, b, want_events, want_limited, 0);
}

static __u64 mono_sec(void)
{
	return mono_ns() / 1000000000ULL;
}

/* Tries of a sequence of bursts that must fit in one second before the test fails. */
#define SECOND_TRIES 5

static void test_event_rate(void **state)
{
	struct prog drop, monitor;
	struct vh_config vc = { .match = TABLE_MATCH, .verify = 1, .events_per_sec = RATE,
				.hash_key = fixed_key, .capacity = 1000, .fpr = 1e-6 };
	char err[LIST_ERROR_LEN];
	cpu_set_t old;
	struct prog *p;
	__u64 sec;
	size_t i;
	int try;

	(void)state;
	assert_int_equal(prog_open(&drop, &vc), 0);
	vc.action = BLOOMXDP_ACTION_MONITOR;
	assert_int_equal(prog_open(&monitor, &vc), 0);
	assert_int_equal(vh_load_blocklist(&drop.v, 0, blocklist, ARRAY_SIZE(blocklist), 6, NULL,
					   err), 0);
	assert_int_equal(vh_load_blocklist(&monitor.v, 0, blocklist, ARRAY_SIZE(blocklist), 6,
					   NULL, err), 0);
	assert_int_equal(pin_to_cpu(&old), 0);
	for (i = 0; i < ARRAY_SIZE(bursts); i++) {
		p = bursts[i].action == BLOOMXDP_ACTION_MONITOR ? &monitor : &drop;
		assert_int_equal(vh_reset_budgets(&p->v), 0);
		assert_int_equal(prog_events(p), 0);
		/* All BURST runs in one second: the budget is per second. */
		vh_wait_second_start(100000000);
		burst_run(p, &bursts[i], RATE, BURST - RATE);
	}
	/*
	 * Without a reset: a second burst in the same second finds the budget
	 * spent (both bursts within it, else tried again: a loaded machine or a
	 * kernel under emulation may take the rest of the second); one in the
	 * next second gets RATE events again.
	 */
	for (try = 0; try < SECOND_TRIES; try++) {
		vh_wait_second_start(200000000);
		assert_int_equal(vh_reset_budgets(&drop.v), 0);
		assert_true(prog_events(&drop) >= 0);	/* what a try past its second left */
		sec = mono_sec();
		if (burst_run_in(&drop, &bursts[0], RATE, BURST - RATE, sec) &&
		    burst_run_in(&drop, &bursts[1], 0, BURST, sec))
			break;
		print_message("# the two bursts ran past their second (try %d of %d): again\n",
			      try + 1, SECOND_TRIES);
	}
	if (try == SECOND_TRIES) {
		sched_setaffinity(0, sizeof(old), &old);
		prog_close(&drop);
		prog_close(&monitor);
		/* The host's run checks it; under qemu TCG two bursts may not fit in a second. */
		if (getenv("BLOOMXDP_EMULATED"))
			skip();
		fail_msg("%d tries, none with both bursts within their second: the machine is too "
			 "slow for this test", SECOND_TRIES);
	}
	{
		struct timespec nap = { 1, 0 };

		nanosleep(&nap, NULL);
	}
	vh_wait_second_start(100000000);
	burst_run(&drop, &bursts[1], RATE, BURST - RATE);
	sched_setaffinity(0, sizeof(old), &old);
	prog_close(&drop);
	prog_close(&monitor);
}

/*
 * The spent budget (bpf/bloomxdp.bpf.c, event_allowed()): hits over it read
 * the clock only when jiffies moves, and must still send nothing however many
 * ticks pass within the second; the first hits of the next second, a few
 * ticks into it, get the whole budget again (at most a tick late).
 */
static void test_event_budget_spent(void **state)
{
	struct vh_config vc = { .match = TABLE_MATCH, .verify = 1, .events_per_sec = RATE,
				.hash_key = fixed_key, .capacity = 1000, .fpr = 1e-6 };
	struct timespec now, nap = { 0, 10000000L };	/* 10 ms: a tick at HZ >= 100 */
	char err[LIST_ERROR_LEN];
	bool in_second = false;
	struct prog drop;
	int i, try;
	cpu_set_t old;
	__u64 sec;

	(void)state;
	assert_int_equal(prog_open(&drop, &vc), 0);
	assert_int_equal(vh_load_blocklist(&drop.v, 0, blocklist, ARRAY_SIZE(blocklist), 6, NULL,
					   err), 0);
	assert_int_equal(pin_to_cpu(&old), 0);
	for (try = 0; try < SECOND_TRIES; try++) {
		assert_int_equal(vh_reset_budgets(&drop.v), 0);
		assert_true(prog_events(&drop) >= 0);	/* what a try past its second left */
		/* At most 100 ms into a second: the budget, then ticks of hits over it (~500 ms). */
		vh_wait_second_start(900000000);
		sec = mono_sec();
		in_second = burst_run_in(&drop, &bursts[0], RATE, BURST - RATE, sec);
		for (i = 0; in_second && i < 15; i++) {
			nanosleep(&nap, NULL);
			in_second = burst_run_in(&drop, &bursts[i % 2], 0, BURST, sec);
		}
		/* 20 ms into the next second: the coarse clock is there too. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		nap.tv_nsec = 1000000000L - now.tv_nsec + 20000000L;
		nanosleep(&nap, NULL);
		nap.tv_nsec = 10000000L;
		if (in_second && burst_run_in(&drop, &bursts[1], RATE, BURST - RATE, sec + 1))
			break;
		print_message("# the bursts ran past their second (try %d of %d): again\n",
			      try + 1, SECOND_TRIES);
	}
	if (try == SECOND_TRIES && getenv("BLOOMXDP_EMULATED")) {
		/* The host's run checks it; under qemu TCG the bursts rarely fit in a second. */
		sched_setaffinity(0, sizeof(old), &old);
		prog_close(&drop);
		skip();
	}
	if (try == SECOND_TRIES)
		fail_msg("%d tries, none with each burst within its second: the machine is too slow "
			 "for this test", SECOND_TRIES);
	sched_setaffinity(0, sizeof(old), &old);
	prog_close(&drop);
}

/* events_per_sec 0: no event, nothing counted as rate-limited. */
static void test_events_off(void **state)
{
	struct vh_config vc = { .match = BLOOMXDP_MATCH_SRC, .verify = 1, .events_per_sec = 0,
				.hash_key = fixed_key, .capacity = 1000, .fpr = 1e-6 };
	struct bloomxdp_counters want = { 0 }, got = { 0 };
	char err[LIST_ERROR_LEN];
	struct prog p;
	__u32 verdict;
	struct frame f;

	(void)state;
	assert_int_equal(prog_open(&p, &vc), 0);
	assert_int_equal(vh_load_blocklist(&p.v, 0, blocklist, ARRAY_SIZE(blocklist), 6, NULL,
					   err), 0);
	assert_int_equal(frame_udp(&f, "192.0.2.77", DST4), 0);
	assert_int_equal(harness_run_counted(&p.v.h, &f, &verdict, &got), 0);
	assert_int_equal(verdict, XDP_DROP);
	want.checked_v4 = want.hits_v4 = want.bloom_hits = want.confirmed = 1;
	add_frame(&want, f.len, XDP_DROP, 1);
	check_delta("events off", &want, &got);
	assert_int_equal(prog_events(&p), 0);
	prog_close(&p);
}

/* ------------------------------------------------------------ generations */

static const char *const list_a[] = { "192.0.2.10", "198.51.100.0/25", "a.example" };
static const char *const list_b[] = { "192.0.2.20", "198.51.100.128/25", "b.example" };
static const char *const allow_a[] = { "198.51.100.5", "ok.a.example" };
static const char *const allow_b[] = { "198.51.100.200", "ok.b.example" };

struct gen_probe {
	const char *what;	/* an address, or a name (DNS query) */
	int verdict[2][2];	/* [block slot][allow slot]: 'D' drop, 'P' pass, 'A' allowed */
};

static const struct gen_probe gen_probes[] = {
	{ "192.0.2.10",		{ { 'D', 'D' }, { 'P', 'P' } } },
	{ "192.0.2.20",		{ { 'P', 'P' }, { 'D', 'D' } } },
	{ "198.51.100.5",	{ { 'A', 'D' }, { 'P', 'P' } } },
	{ "198.51.100.6",	{ { 'D', 'D' }, { 'P', 'P' } } },
	{ "198.51.100.200",	{ { 'P', 'P' }, { 'D', 'A' } } },
	{ "198.51.100.201",	{ { 'P', 'P' }, { 'D', 'D' } } },
	{ "192.0.2.30",		{ { 'P', 'P' }, { 'P', 'P' } } },
	{ "x.a.example",	{ { 'D', 'D' }, { 'P', 'P' } } },
	{ "ok.a.example",	{ { 'A', 'D' }, { 'P', 'P' } } },
	{ "x.b.example",	{ { 'P', 'P' }, { 'D', 'D' } } },
	{ "ok.b.example",	{ { 'P', 'P' }, { 'D', 'A' } } },
};

/* Runs a probe: 'D', 'P' or 'A' from the verdict and the allowed counter. */
static char gen_verdict(struct prog *p, const char *what)
{
	struct bloomxdp_counters d = { 0 };
	struct frame f;
	__u32 verdict;

	if (strchr(what, 'e'))
		assert_int_equal(frame_dns_query(&f, 0, SRC4, DST4, what), 0);
	else
		assert_int_equal(frame_udp(&f, what, DST4), 0);
	assert_int_equal(harness_run_counted(&p->v.h, &f, &verdict, &d), 0);
	assert_int_equal(d.false_positives, 0);
	if (verdict == XDP_DROP) {
		assert_int_equal(d.confirmed, 1);
		return 'D';
	}
	assert_int_equal(verdict, XDP_PASS);
	return d.allowed ? 'A' : 'P';
}

static void gen_check_all(struct prog *p, __u32 block, __u32 allow)
{
	char got;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gen_probes); i++) {
		got = gen_verdict(p, gen_probes[i].what);
		if (got != gen_probes[i].verdict[block & 1][allow & 1])
			print_error("active block %u allow %u: %s got %c, expected %c\n", block,
				    allow, gen_probes[i].what, got,
				    gen_probes[i].verdict[block & 1][allow & 1]);
		assert_int_equal(got, gen_probes[i].verdict[block & 1][allow & 1]);
	}
}

static void test_generations(void **state)
{
	struct vh_config vc = { .match = TABLE_MATCH, .verify = 1, .hash_key = fixed_key,
				.capacity = 1000, .fpr = 1e-6 };
	struct bloomxdp_counters d = { 0 };
	char err[LIST_ERROR_LEN];
	struct frame f;
	struct prog p;
	__u32 verdict;

	(void)state;
	assert_int_equal(prog_open(&p, &vc), 0);
	assert_int_equal(vh_load_blocklist(&p.v, 0, list_a, ARRAY_SIZE(list_a), 6, NULL, err), 0);
	assert_int_equal(vh_load_allowlist(&p.v, 0, allow_a, ARRAY_SIZE(allow_a), err), 0);
	gen_check_all(&p, 0, 0);

	/* Slot 1 is empty: a live empty slot is "no filter", and every packet passes. */
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 1), 0);
	assert_int_equal(frame_udp(&f, "192.0.2.10", DST4), 0);
	assert_int_equal(harness_run_counted(&p.v.h, &f, &verdict, &d), 0);
	assert_int_equal(verdict, XDP_PASS);
	assert_int_equal(d.no_filter, 1);
	assert_int_equal(d.bloom_hits, 0);
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 0), 0);

	/* Slot 1 filled while slot 0 is live: nothing changes until the flip. */
	assert_int_equal(vh_slot1_create(&p.v), 0);
	assert_int_equal(vh_load_blocklist(&p.v, 1, list_b, ARRAY_SIZE(list_b), 6, NULL, err), 0);
	assert_int_equal(vh_load_allowlist(&p.v, 1, allow_b, ARRAY_SIZE(allow_b), err), 0);
	gen_check_all(&p, 0, 0);

	/* The blocklist and the allowlist flip independently. */
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 1), 0);
	gen_check_all(&p, 1, 0);
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_ALLOW, 1), 0);
	gen_check_all(&p, 1, 1);
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 0), 0);
	gen_check_all(&p, 0, 1);
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_ALLOW, 0), 0);
	gen_check_all(&p, 0, 0);
	/* Only the low bit of the active word counts. */
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 3), 0);
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_ALLOW, 2), 0);
	gen_check_all(&p, 1, 0);

	/*
	 * The verify stage reads the live generation's exact copy: a key of
	 * list A put into slot 1's Bloom filter only is refused there.
	 */
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 1), 0);
	assert_true(vh_bloom_only(&p.v, 1, "192.0.2.10") >= 0);
	assert_int_equal(frame_udp(&f, "192.0.2.10", DST4), 0);
	assert_int_equal(harness_run_counted(&p.v.h, &f, &verdict, &d), 0);
	assert_int_equal(verdict, XDP_PASS);
	assert_int_equal(d.bloom_hits, 1);
	assert_int_equal(d.false_positives, 1);
	prog_close(&p);
}

/* ------------------------------------------------------------ --verify auto: per generation */

#define AUTO_HOSTS 300

struct auto_case {
	char addr_fp[32];	/* an address the saturated filter matches, not listed */
	char name_fp[64];	/* a name it matches, not listed */
};

/* One run: the verdict and the counters' moves of a frame from addr, or a DNS query for name. */
static __u32 auto_run(struct prog *p, const char *addr, const char *name,
		      struct bloomxdp_counters *d)
{
	struct frame f;
	__u32 verdict = ~0U;

	memset(d, 0, sizeof(*d));
	if (name)
		assert_int_equal(frame_dns_query(&f, 1, SRC6, DST6, name), 0);
	else
		assert_int_equal(frame_udp(&f, addr, DST4), 0);
	assert_int_equal(harness_run_counted(&p->v.h, &f, &verdict, d), 0);
	return verdict;
}

/* False positives of slot 0's filter: an address and a name, found by the user-space lookup. */
static void auto_find(struct prog *p, struct auto_case *c)
{
	char why[128];
	struct entry e;
	__u32 i;

	c->addr_fp[0] = c->name_fp[0] = '\0';
	for (i = 0; i < 100000 && !c->addr_fp[0]; i++) {
		snprintf(c->addr_fp, sizeof(c->addr_fp), "10.2.%u.%u", i / 250, i % 250);
		assert_int_equal(vh_parse_entry(c->addr_fp, &e), 0);
		if (!entry_keys_lookup(&p->v.h.lp.filter, &e, why, sizeof(why)))
			c->addr_fp[0] = '\0';
	}
	for (i = 0; i < 100000 && !c->name_fp[0]; i++) {
		snprintf(c->name_fp, sizeof(c->name_fp), "fp%u.example.net", i);
		assert_int_equal(vh_parse_entry(c->name_fp, &e), 0);
		if (!entry_keys_lookup(&p->v.h.lp.filter, &e, why, sizeof(why)))
			c->name_fp[0] = '\0';
	}
	assert_true(c->addr_fp[0] && c->name_fp[0]);
}

/* With an exact copy in the live slot: false positives pass, listed keys drop, confirmed. */
static void auto_check_exact(struct prog *p, const struct auto_case *c)
{
	struct bloomxdp_counters d;

	assert_int_equal(auto_run(p, c->addr_fp, NULL, &d), XDP_PASS);
	assert_int_equal(d.bloom_hits, 1);
	assert_int_equal(d.false_positives, 1);
	assert_int_equal(d.hits_v4, 0);
	assert_int_equal(auto_run(p, NULL, c->name_fp, &d), XDP_PASS);
	assert_int_equal(d.false_positives, 1);
	assert_int_equal(d.hits_dns, 0);
	assert_int_equal(auto_run(p, "10.1.0.7", NULL, &d), XDP_DROP);
	assert_int_equal(d.confirmed, 1);
	assert_int_equal(auto_run(p, "10.9.0.200", NULL, &d), XDP_DROP);	/* in 10.9.0.0/24 */
	assert_int_equal(d.confirmed, 1);
	assert_int_equal(auto_run(p, NULL, "www.n7.example.org", &d), XDP_DROP);
	assert_int_equal(d.confirmed, 1);
}

/* Without one: every Bloom hit drops, none confirmed or refused. */
static void auto_check_bloom(struct prog *p, const struct auto_case *c)
{
	struct bloomxdp_counters d;

	assert_int_equal(auto_run(p, c->addr_fp, NULL, &d), XDP_DROP);
	assert_int_equal(d.bloom_hits, 1);
	assert_int_equal(d.hits_v4, 1);
	assert_int_equal(d.false_positives + d.confirmed, 0);
	assert_int_equal(auto_run(p, NULL, c->name_fp, &d), XDP_DROP);
	assert_int_equal(d.hits_dns, 1);
	assert_int_equal(d.false_positives + d.confirmed, 0);
	assert_int_equal(auto_run(p, "10.1.0.7", NULL, &d), XDP_DROP);
	assert_int_equal(d.confirmed, 0);
}

/*
 * --verify auto decides at each load: the program reads whether the live
 * generation has an exact copy from the generation itself (its slot of
 * verify_*), so that a load that switches the stage on or off swaps it with
 * the filter. A filter sized for 100 keys holding 600 at FPR 0.05 gives
 * false positives of addresses and names at once.
 */
static void test_verify_auto_generations(void **state)
{
	struct vh_config vc = { .match = BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DNS,
				.verify = BLOOMXDP_VERIFY_AUTO, .capacity = 100, .fpr = 0.05,
				.exact_room = 4000 };
	const char *list[2 * AUTO_HOSTS + 1];
	char (*texts)[32], err[LIST_ERROR_LEN];
	struct auto_case c;
	struct prog p, off;
	__u64 key[2];
	__u32 i;

	(void)state;
	texts = calloc(ARRAY_SIZE(list), sizeof(*texts));
	assert_non_null(texts);
	for (i = 0; i < AUTO_HOSTS; i++) {
		snprintf(texts[i], sizeof(texts[i]), "10.1.%u.%u", i / 200, i % 200);
		snprintf(texts[AUTO_HOSTS + i], sizeof(texts[0]), "n%u.example.org", i);
	}
	snprintf(texts[2 * AUTO_HOSTS], sizeof(texts[0]), "10.9.0.0/24");
	for (i = 0; i < ARRAY_SIZE(list); i++)
		list[i] = texts[i];
	assert_int_equal(getrandom(key, sizeof(key), 0), sizeof(key));
	vc.hash_key = key;
	assert_int_equal(prog_open(&p, &vc), 0);
	/* Slot 0: a load that kept its exact copy (auto, within its share). */
	assert_int_equal(vh_load_blocklist(&p.v, 0, list, ARRAY_SIZE(list), 6, NULL, err), 0);
	auto_find(&p, &c);
	print_message("# false positives: %s, %s\n", c.addr_fp, c.name_fp);
	auto_check_exact(&p, &c);

	/* Slot 1: the same list loaded without a copy (auto, over its share). */
	assert_int_equal(vh_slot1_create(&p.v), 0);
	exact_outer_clear(&p.v.outer_verify, 1);
	assert_false(exact_outer_has(&p.v.outer_verify, 1));
	assert_int_equal(vh_load_blocklist(&p.v, 1, list, ARRAY_SIZE(list), 6, NULL, err), 0);
	assert_false(exact_outer_has(&p.v.outer_verify, 1));
	/* The same filter bits in both slots: the key is the attachment's. */
	assert_int_equal(filter_popcount(&p.v.filter1), filter_popcount(&p.v.h.lp.filter));
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 1), 0);
	auto_check_bloom(&p, &c);
	/* And back: the stage follows the live generation, whatever the configuration. */
	assert_int_equal(vh_set_active(&p.v, BLOOMXDP_ACTIVE_BLOCK, 0), 0);
	auto_check_exact(&p, &c);

	/* --verify off: a copy in the slot is never read. */
	vc.verify = BLOOMXDP_VERIFY_OFF;
	assert_int_equal(prog_open(&off, &vc), 0);
	assert_int_equal(vh_load_blocklist(&off.v, 0, list, ARRAY_SIZE(list), 6, NULL, err), 0);
	assert_true(exact_outer_has(&off.v.outer_verify, 0));
	auto_check_bloom(&off, &c);
	prog_close(&off);

	/* --verify on: the copy confirms, as auto's. */
	vc.verify = BLOOMXDP_VERIFY_ON;
	assert_int_equal(prog_open(&off, &vc), 0);
	assert_int_equal(vh_load_blocklist(&off.v, 0, list, ARRAY_SIZE(list), 6, NULL, err), 0);
	auto_check_exact(&off, &c);
	prog_close(&off);
	prog_close(&p);
	free(texts);
}

/*
 * A load in mode auto reads a list whose copy outgrows its room: the copy is
 * left (list_load_union() then makes the generation without one), the list
 * itself loads; mode on stops with -ENOSPC instead.
 */
static void test_verify_auto_overflow(void **state)
{
	const char *list[64];
	char texts[64][32], err[LIST_ERROR_LEN], path[64];
	const __u64 hash_key[2] = { 1, 2 };
	struct exact_set x;
	struct list_build b;
	int i, pass;

	(void)state;
	for (i = 0; i < 64; i++) {
		snprintf(texts[i], sizeof(texts[i]), "10.3.0.%d", i);
		list[i] = texts[i];
	}
	assert_int_equal(harness_write_list(list, 64, path), 0);
	for (pass = 0; pass < 2; pass++) {
		assert_int_equal(exact_set_create_hashed(&x, 16), 0);
		list_build_init(&b, NULL, LIST_DEFAULT_PREFIX_PROBES);
		memcpy(b.hash_key, hash_key, sizeof(b.hash_key));
		b.exact = &x;
		b.exact_optional = pass == 0;
		if (pass == 0) {
			assert_int_equal(list_build_read(&b, path, FORMAT_AUTO, err), 0);
			assert_true(b.exact_overflow);
			assert_null(b.exact);
			assert_int_equal(b.read, 64);
			assert_int_equal(x.added[0], 16);
		} else {
			assert_int_equal(list_build_read(&b, path, FORMAT_AUTO, err), -ENOSPC);
			assert_false(b.exact_overflow);
		}
		list_build_free(&b);
		exact_set_close(&x);
	}
	unlink(path);
}

/* ------------------------------------------------------------ statistics */

#define STAT_PREFIXES	20000
#define STAT_OUTSIDE	200000
#define STAT_INSIDE	10000
#define STAT_FPR	0.05
#define STAT_SIGMAS	5.0

struct interval {
	__u32 lo, hi;		/* inclusive, host order */
};

static int interval_cmp(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorted, merged: returns the new count. */
static size_t intervals_merge(struct interval *iv, size_t n)
{
	size_t i, m = 0;

	qsort(iv, n, sizeof(*iv), interval_cmp);
	for (i = 0; i < n; i++) {
		if (m && (iv[m - 1].hi == UINT32_MAX || iv[i].lo <= iv[m - 1].hi + 1)) {
			if (iv[i].hi > iv[m - 1].hi)
				iv[m - 1].hi = iv[i].hi;
		} else {
			iv[m++] = iv[i];
		}
	}
	return m;
}

static bool intervals_cover(const struct interval *iv, size_t n, __u32 a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (iv[mid].hi < a)
			lo = mid + 1;
		else if (iv[mid].lo > a)
			hi = mid;
		else
			return true;
	}
	return false;
}

/* xorshift64*: reproducible from the seed. */
static __u64 rng_state;

static __u32 rnd32(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (__u32)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

static void addr_text(__u32 a, char out[INET_ADDRSTRLEN])
{
	__u32 be = htonl(a);

	inet_ntop(AF_INET, &be, out, INET_ADDRSTRLEN);
}

/* One address through user space (lookup, confirm) and both programs. */
struct stat_counts {
	__u64 user_bloom, user_confirmed, xdp_off_drops, xdp_on_drops, disagree;
};

static void stat_one(struct prog *off, struct prog *on, __u32 a, struct stat_counts *s)
{
	char text[INET_ADDRSTRLEN], why[64];
	bool bloom, confirmed;
	__u32 v_off = 0, v_on = 0;
	struct frame f;
	struct entry e = { .kind = ENTRY_ADDR };
	__u32 be = htonl(a);

	bloomxdp_key_ipv4(&e.addr, &be, 32);
	bloom = entry_keys_lookup(&off->v.h.lp.filter, &e, why, sizeof(why));
	confirmed = bloom && entry_keys_confirm(&off->v.verify[0], off->v.h.config.hash_key, &e);
	addr_text(a, text);
	assert_int_equal(frame_udp(&f, text, DST4), 0);
	assert_int_equal(harness_run(&off->v.h, &f, &v_off), 0);
	assert_int_equal(harness_run(&on->v.h, &f, &v_on), 0);
	s->user_bloom += bloom;
	s->user_confirmed += confirmed;
	s->xdp_off_drops += v_off == XDP_DROP;
	s->xdp_on_drops += v_on == XDP_DROP;
	if ((v_off == XDP_DROP) != bloom || (v_on == XDP_DROP) != confirmed) {
		if (s->disagree++ < 5)
			print_error("%s: user space bloom %d confirmed %d, XDP off %u on %u\n",
				    text, bloom, confirmed, v_off, v_on);
	}
}


static int u32_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The variance of the number of false positives among n addresses, each
 * probed at the plan's lengths, every probe key a false positive with
 * probability q independently. Addresses in the same /L share their probe
 * key at length L (random addresses often share a /16), so the count is
 * overdispersed: two addresses sharing s probe keys have covariance
 * r^(2T) (r^-s - 1), r = 1 - q, T probes. Sorts addrs.
 */
static double fp_count_variance(__u32 *addrs, size_t n, const struct prefix_plan *plan, double q)
{
	double r = 1 - q, T = plan->ntargets, p = 1 - pow(r, T), var = n * p * (1 - p);
	__u64 pairs[BLOOMXDP_MAX_PREFIX_LENGTHS + 2] = { 0 };
	__u32 k, len, mask;
	size_t i, j;

	qsort(addrs, n, sizeof(*addrs), u32_cmp);
	/* pairs[k]: ordered pairs sharing the k shortest probed lengths' prefixes. */
	for (k = 1; k <= plan->ntargets; k++) {
		len = plan->target[plan->ntargets - k];	/* longest first in the plan */
		mask = len ? ~0U << (32 - len) : 0;
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && (addrs[j] & mask) == (addrs[i] & mask); j++)
				;
			pairs[k] += (__u64)(j - i) * (j - i - 1);
		}
	}
	for (k = 1; k <= plan->ntargets; k++)
		var += (double)(pairs[k] - pairs[k + 1]) * pow(r, 2 * T) * (pow(r, -(double)k) - 1);
	return var;
}

static void test_statistics(void **state)
{
	struct vh_config vc = { .match = BLOOMXDP_MATCH_SRC, .fpr = STAT_FPR };
	struct bloomxdp_counters c_off = { 0 }, c_on = { 0 }, z_off = { 0 }, z_on = { 0 };
	struct stat_counts out = { 0 }, in = { 0 };
	struct prefix_plan plan[2] = { 0 };
	char err[LIST_ERROR_LEN], text[INET_ADDRSTRLEN + 4], path[64];
	struct interval *iv;
	const char **entries;
	char (*texts)[24];
	struct prog off, on;
	double fill, q, p, mean, sigma;
	size_t i, n_iv;
	__u64 key[2], seed, keys, drawn = 0;
	const char *env = getenv("BLOOMXDP_TEST_SEED");
	__u32 a, len, probes, *outside;
	struct list_build b;

	(void)state;
	seed = env ? strtoull(env, NULL, 0) : 0x5eed5eed1234ULL;
	/* splitmix64 of the seed: a nonzero xorshift state for every seed. */
	rng_state = seed + 0x9e3779b97f4a7c15ULL;
	rng_state = (rng_state ^ (rng_state >> 30)) * 0xbf58476d1ce4e5b9ULL;
	rng_state = (rng_state ^ (rng_state >> 27)) * 0x94d049bb133111ebULL;
	rng_state ^= rng_state >> 31;
	rng_state |= 1;
	key[0] = (__u64)rnd32() << 32 | rnd32();
	key[1] = (__u64)rnd32() << 32 | rnd32();
	vc.hash_key = key;

	iv = calloc(STAT_PREFIXES, sizeof(*iv));
	entries = calloc(STAT_PREFIXES, sizeof(*entries));
	texts = calloc(STAT_PREFIXES, sizeof(*texts));
	outside = calloc(STAT_OUTSIDE, sizeof(*outside));
	assert_true(iv && entries && texts && outside);
	for (i = 0; i < STAT_PREFIXES; i++) {
		len = 16 + rnd32() % 17;
		a = rnd32() & (len == 32 ? ~0U : ~(~0U >> len));
		iv[i].lo = a;
		iv[i].hi = a | (len == 32 ? 0 : ~0U >> len);
		addr_text(a, text);
		snprintf(texts[i], sizeof(texts[i]), "%s/%u", text, len);
		entries[i] = texts[i];
	}
	n_iv = intervals_merge(iv, STAT_PREFIXES);

	/* The keys after expansion, as 'plan --list' counts them: the capacity. */
	assert_int_equal(harness_write_list(entries, STAT_PREFIXES, path), 0);
	list_build_init(&b, NULL, LIST_DEFAULT_PREFIX_PROBES);
	assert_int_equal(list_build_read(&b, path, FORMAT_AUTO, err), 0);
	assert_int_equal(list_build_finish(&b, err), 0);
	keys = (__u64)ceil(b.plan[0].expanded);
	list_build_free(&b);
	unlink(path);
	vc.capacity = keys;
	vc.exact_room = 2 * STAT_PREFIXES;

	assert_int_equal(prog_open(&off, &vc), 0);
	vc.verify = 1;
	assert_int_equal(prog_open(&on, &vc), 0);
	assert_int_equal(vh_load_blocklist(&off.v, 0, entries, STAT_PREFIXES,
					   LIST_DEFAULT_PREFIX_PROBES, plan, err), 0);
	/* One filter and one exact copy, live in both programs. */
	assert_int_equal(filter_install(on.v.filter_outer_fd, 0, &off.v.h.lp.filter), 0);
	assert_int_equal(exact_set_install(&on.v.outer_verify, 0, &off.v.verify[0]), 0);

	probes = plan[0].ntargets;
	fill = (double)filter_popcount(&off.v.h.lp.filter) / off.v.h.config.bits;
	q = pow(fill, off.v.h.config.hashes);
	p = 1 - pow(1 - q, probes);
	print_message("# seed %#llx: %d prefixes /16../32 (%zu disjoint ranges) -> %llu keys "
		      "at %u lengths; m %u bits, k %u, fill %.4f, q %.5f, p %.5f\n",
		      (unsigned long long)seed, STAT_PREFIXES, n_iv, (unsigned long long)keys,
		      probes, off.v.h.config.bits, off.v.h.config.hashes, fill, q, p);

	assert_int_equal(harness_counters(&off.v.h, &z_off), 0);
	assert_int_equal(harness_counters(&on.v.h, &z_on), 0);
	for (i = 0; i < STAT_OUTSIDE; i++) {
		do {
			a = rnd32();
			drawn++;
		} while (intervals_cover(iv, n_iv, a));
		outside[i] = a;
		stat_one(&off, &on, a, &out);
	}
	assert_int_equal(harness_counters(&off.v.h, &c_off), 0);
	assert_int_equal(harness_counters(&on.v.h, &c_on), 0);

	mean = STAT_OUTSIDE * p;
	sigma = sqrt(fp_count_variance(outside, STAT_OUTSIDE, &plan[0], q));
	print_message("# outside: %d addresses (%llu drawn): blocked without verify %llu "
		      "(%.4f; expected %.0f +- %.0f, z %+.2f), with verify %llu\n", STAT_OUTSIDE,
		      (unsigned long long)drawn, (unsigned long long)out.xdp_off_drops,
		      (double)out.xdp_off_drops / STAT_OUTSIDE, mean, sigma,
		      ((double)out.xdp_off_drops - mean) / sigma,
		      (unsigned long long)out.xdp_on_drops);
	assert_int_equal(out.disagree, 0);
	assert_true(fabs((double)out.xdp_off_drops - mean) <= STAT_SIGMAS * sigma);
	assert_int_equal(out.user_confirmed, 0);
	assert_int_equal(out.xdp_on_drops, 0);
	/* The counters say the same. */
	assert_int_equal(c_off.dropped - z_off.dropped, out.xdp_off_drops);
	assert_int_equal(c_off.bloom_hits - z_off.bloom_hits, out.xdp_off_drops);
	assert_int_equal(c_on.dropped - z_on.dropped, 0);
	assert_int_equal(c_on.bloom_hits - z_on.bloom_hits, out.xdp_off_drops);
	assert_int_equal(c_on.false_positives - z_on.false_positives, out.xdp_off_drops);
	assert_int_equal(c_on.confirmed - z_on.confirmed, 0);

	/* Addresses inside: in a random listed prefix, anywhere in it. */
	z_on = c_on;
	for (i = 0; i < STAT_INSIDE; i++) {
		size_t j = rnd32() % STAT_PREFIXES;
		struct bloomxdp_key k;
		const char *why;

		assert_int_equal(key_parse(entries[j], &k, &why), 0);
		len = key_prefix_len(&k);
		a = ntohl((__u32)(k.word[0] >> 32)) | (len == 32 ? 0 : rnd32() & (~0U >> len));
		stat_one(&off, &on, a, &in);
	}
	assert_int_equal(harness_counters(&on.v.h, &c_on), 0);
	print_message("# inside: %d addresses: blocked without verify %llu, with verify %llu\n",
		      STAT_INSIDE, (unsigned long long)in.xdp_off_drops,
		      (unsigned long long)in.xdp_on_drops);
	assert_int_equal(in.disagree, 0);
	assert_int_equal(in.xdp_off_drops, STAT_INSIDE);
	assert_int_equal(in.xdp_on_drops, STAT_INSIDE);
	assert_int_equal(in.user_confirmed, STAT_INSIDE);
	assert_int_equal(c_on.confirmed - z_on.confirmed, STAT_INSIDE);
	assert_int_equal(c_on.false_positives - z_on.false_positives, 0);

	prog_close(&off);
	prog_close(&on);
	free(iv);
	free(outside);
	free(entries);
	free(texts);
}

int main(void)
{
	struct CMUnitTest table[N_ROWS * N_CFGS + 2];
	static char names[N_ROWS * N_CFGS][160];
	const struct CMUnitTest others[] = {
		cmocka_unit_test(test_natural_false_positive),
		cmocka_unit_test(test_event_rate),
		cmocka_unit_test(test_event_budget_spent),
		cmocka_unit_test(test_events_off),
		cmocka_unit_test(test_generations),
		cmocka_unit_test(test_verify_auto_generations),
		cmocka_unit_test(test_verify_auto_overflow),
		cmocka_unit_test(test_statistics),
	};
	size_t i, n = 0;
	int failed;

	table[n++] = (struct CMUnitTest)cmocka_unit_test(test_table_lengths);
	table[n++] = (struct CMUnitTest)cmocka_unit_test(test_table_query);
	for (i = 0; i < N_ROWS * N_CFGS; i++) {
		snprintf(names[i], sizeof(names[i]), "%s: %s", cfg_names[i % N_CFGS],
			 rows[i / N_CFGS].name);
		table[n++] = (struct CMUnitTest){ .name = names[i], .test_func = test_row,
						  .initial_state = (void *)(uintptr_t)i };
	}
	failed = _cmocka_run_group_tests("verify_table", table, n, setup_table, teardown_table);
	failed += cmocka_run_group_tests_name("verify_other", others, NULL, NULL);
	return failed ? 1 : 0;
}
