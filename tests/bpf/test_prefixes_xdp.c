// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prefixes in bpf/bloomxdp.bpf.c, through BPF_PROG_TEST_RUN on loaded but
 * unattached programs: lists are loaded as 'bloomxdp load' loads them
 * (planned target lengths, prefixes expanded), then the first and the last
 * address of each listed prefix and a few inside must be dropped, the
 * addresses just outside either end passed, as source and as destination,
 * with one probe per family (everything expanded to one length: the inline
 * path), two, six (the default) and eight. What a row expects comes from a
 * bit-by-bit reference over the list, and every counter is checked as in
 * test_xdp.c. A list of hosts (one inline probe) and a list of hosts and
 * prefixes (bpf_loop over the lengths) must agree on the hosts; monitor
 * counts would_drop.
 *
 * The hash key is fixed and the filters are sized at an FPR of 1e-6 for their
 * keys after expansion, so that a false positive cannot fail a row at random.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "xdp_harness.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const __u64 fixed_key[2] = { 0x0123456789abcdefULL, 0x5a5aa5a5c3c33c3cULL };

#define PREFIX_FPR 1e-6

/* The prefixes under test, IPv4 also as mapped IPv6 (entries of that form count as IPv4). */
#define V4_PREFIXES "198.51.100.0/24", "::ffff:203.0.113.128/121", "198.18.0.0/15", \
		    "192.0.2.77/32"
static const char *const full_list[] = {
	V4_PREFIXES, "2001:db8:1::/48", "2001:db8:2:3::/64", "2001:db8::42/128",
};

/*
 * One probe stores every IPv6 prefix as /128s: a /48 would be 2^80 keys,
 * which load refuses (E2BIG). The one-probe rows use IPv6 prefixes that fit.
 */
static const char *const narrow_list[] = {
	V4_PREFIXES, "2001:db8:1::/112", "2001:db8:2:3::ff00/120", "2001:db8::42/128",
};

/* Hosts only: the XDP program probes /32 and /128 inline, without bpf_loop. */
#define HOSTS "192.0.2.77", "192.0.2.200", "203.0.113.5", "198.51.100.255", \
	      "2001:db8::42", "2001:db8:ffff::7", "2001:db8:2:3::"
static const char *const hosts_list[] = { HOSTS };
/* The same hosts and prefixes that cover none of them: bpf_loop over the lengths. */
static const char *const mixed_list[] = { HOSTS, "198.51.102.0/24", "198.18.0.0/15",
					  "2001:db8:1::/48", "2001:db8:2:4::/64" };
/* Every address: the prefixes of length 0. */
static const char *const everything_list[] = { "0.0.0.0/0", "::/0" };

/* Addresses that no list covers: the other address of a frame. */
#define OTHER4 "192.0.2.1"
#define OTHER6 "2001:db8:ffff::1"

enum cfg_id {
	P1_SRC, P1_DST, P2_SRC, P2_DST, P6_SRC, P6_DST, P8_SRC, P8_DST, P6_MONITOR,
	HOSTS_ONLY, MIXED, EVERYTHING, N_CFGS
};

struct prefix_cfg {
	const char *name;
	const char *const *list;
	size_t n;
	__u32 probes;
	struct harness_config hc;
};

#define LIST(l) .list = (l), .n = ARRAY_SIZE(l)
#define DROP_ON(m) { .match = (m), .action = BLOOMXDP_ACTION_DROP, .hash_key = fixed_key, \
		     .fpr = PREFIX_FPR }

static const struct prefix_cfg cfgs[N_CFGS] = {
	[P1_SRC] = { "1 probe, match src", LIST(narrow_list), 1, DROP_ON(BLOOMXDP_MATCH_SRC) },
	[P1_DST] = { "1 probe, match dst", LIST(narrow_list), 1, DROP_ON(BLOOMXDP_MATCH_DST) },
	[P2_SRC] = { "2 probes, match src", LIST(full_list), 2, DROP_ON(BLOOMXDP_MATCH_SRC) },
	[P2_DST] = { "2 probes, match dst", LIST(full_list), 2, DROP_ON(BLOOMXDP_MATCH_DST) },
	[P6_SRC] = { "6 probes, match src", LIST(full_list), 6, DROP_ON(BLOOMXDP_MATCH_SRC) },
	[P6_DST] = { "6 probes, match dst", LIST(full_list), 6, DROP_ON(BLOOMXDP_MATCH_DST) },
	[P8_SRC] = { "8 probes, match src", LIST(full_list), 8, DROP_ON(BLOOMXDP_MATCH_SRC) },
	[P8_DST] = { "8 probes, match dst", LIST(full_list), 8, DROP_ON(BLOOMXDP_MATCH_DST) },
	[P6_MONITOR] = { "6 probes, monitor", LIST(full_list), 6,
			 { .match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_MONITOR,
			   .hash_key = fixed_key, .fpr = PREFIX_FPR } },
	[HOSTS_ONLY] = { "hosts only", LIST(hosts_list), 6, DROP_ON(BLOOMXDP_MATCH_SRC) },
	[MIXED] = { "hosts and prefixes", LIST(mixed_list), 6, DROP_ON(BLOOMXDP_MATCH_SRC) },
	[EVERYTHING] = { "0.0.0.0/0 and ::/0", LIST(everything_list), 6,
			 DROP_ON(BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST) },
};

static struct xdp_harness harnesses[N_CFGS];
static struct prefix_plan plans[N_CFGS][2];

/* ---------------------------------------------------------------- reference */

/* An address or prefix: network-order bytes, 4 or 16 of them. */
struct addr {
	__u8 b[16];
	__u32 width;
	__u32 len;
};

static int addr_parse(const char *text, struct addr *a)
{
	struct bloomxdp_key key;
	const char *why;
	__u32 v4;

	if (key_parse(text, &key, &why))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->len = (key.word[0] >> 8) & 0xff;
	if ((key.word[0] & 0xff) == BLOOMXDP_KEY_IPV4) {
		v4 = key.word[0] >> 32;
		memcpy(a->b, &v4, 4);
		a->width = 32;
	} else {
		memcpy(a->b, &key.word[1], 16);
		a->width = 128;
	}
	return 0;
}

static bool bit_of(const __u8 *b, __u32 i)
{
	return b[i / 8] >> (7 - i % 8) & 1;
}

/* Bit by bit: a host address is in the prefix p. */
static bool prefix_covers(const struct addr *p, const struct addr *host)
{
	__u32 i;

	if (p->width != host->width)
		return false;
	for (i = 0; i < p->len; i++)
		if (bit_of(p->b, i) != bit_of(host->b, i))
			return false;
	return true;
}

static bool list_covers(enum cfg_id id, const struct addr *host)
{
	struct addr p;
	size_t i;

	for (i = 0; i < cfgs[id].n; i++) {
		assert_int_equal(addr_parse(cfgs[id].list[i], &p), 0);
		if (prefix_covers(&p, host))
			return true;
	}
	return false;
}

static unsigned __int128 addr_value(const struct addr *a)
{
	unsigned __int128 v = 0;
	__u32 i;

	for (i = 0; i < a->width / 8; i++)
		v = v << 8 | a->b[i];
	return v;
}

static void addr_set_value(struct addr *a, unsigned __int128 v)
{
	__u32 i;

	for (i = a->width / 8; i-- > 0; v >>= 8)
		a->b[i] = (__u8)v;
	a->len = a->width;
}

static unsigned __int128 width_max(__u32 width)
{
	return width == 128 ? ~(unsigned __int128)0 : ((unsigned __int128)1 << width) - 1;
}

static const char *addr_text(const struct addr *a, char buf[INET6_ADDRSTRLEN])
{
	return inet_ntop(a->width == 32 ? AF_INET : AF_INET6, a->b, buf, INET6_ADDRSTRLEN);
}

/* xorshift64*: the addresses inside a prefix, the same at every run. */
static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* ------------------------------------------------------------------- rows */

/* Frames: the arguments set struct frame_desc fields. */
#define V4(...)		{ .ethertype = ETH_P_IP, __VA_ARGS__ }
#define V6(...)		{ .ethertype = ETH_P_IPV6, __VA_ARGS__ }

static const char *verdict_name(__u32 verdict)
{
	static const char *const names[] = { "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
					     "XDP_REDIRECT" };

	return verdict < ARRAY_SIZE(names) ? names[verdict] : "unknown";
}

/*
 * Sends host as the matched address of the configuration (source, or
 * destination under match dst), as IPv4 and, for IPv4, also as ::ffff:a.b.c.d
 * in IPv6. Returns the number of mismatches, each printed.
 */
static int check_addr(enum cfg_id id, const struct addr *host, const char *what, bool want_hit)
{
	const struct prefix_cfg *c = &cfgs[id];
	char text[INET6_ADDRSTRLEN], mapped[INET6_ADDRSTRLEN + 8];
	bool dst = c->hc.match == BLOOMXDP_MATCH_DST, monitor;
	struct bloomxdp_counters want, got;
	struct frame_desc d;
	struct frame f;
	int bad = 0, pass, ret;
	__u32 verdict;
	size_t i;

	monitor = c->hc.action == BLOOMXDP_ACTION_MONITOR;
	addr_text(host, text);
	snprintf(mapped, sizeof(mapped), "::ffff:%s", text);
	for (pass = 0; pass < (host->width == 32 ? 2 : 1); pass++) {
		const char *a = pass ? mapped : text;
		bool v6 = host->width == 128 || pass;

		d = (struct frame_desc)V4();
		if (v6)
			d = (struct frame_desc)V6();
		d.src = dst ? (v6 ? OTHER6 : OTHER4) : a;
		d.dst = dst ? a : (v6 ? OTHER6 : OTHER4);
		if (frame_build(&f, &d))
			fail_msg("%s: %s %s does not parse", c->name, what, a);
		verdict = ~0U;
		ret = harness_run_counted(&harnesses[id], &f, &verdict, &got);
		if (ret)
			fail_msg("%s: BPF_PROG_TEST_RUN failed: %s", c->name, strerror(-ret));
		memset(&want, 0, sizeof(want));
		want.packets = 1;
		want.bytes = f.len;
		if (v6) {
			want.checked_v6 = 1;
			want.hits_v6 = want_hit;
		} else {
			want.checked_v4 = 1;
			want.hits_v4 = want_hit;
		}
		/* One lookup said yes: without --verify, no exact copy to ask. */
		want.bloom_hits = want_hit;
		want.would_drop = want_hit && monitor;
		want.dropped = want_hit && !monitor;
		want.passed = !want.dropped;
		if (verdict != (want.dropped ? XDP_DROP : XDP_PASS)) {
			print_error("%s: %s %s: verdict %s, expected %s\n", c->name, what, a,
				    verdict_name(verdict),
				    verdict_name(want.dropped ? XDP_DROP : XDP_PASS));
			bad++;
		}
		for (i = 0; i < HARNESS_NCOUNTERS; i++) {
			if (*counter_at(&got, i) == *counter_at(&want, i))
				continue;
			print_error("%s: %s %s: counter %s moved by %lld, expected %lld\n",
				    c->name, what, a, harness_counter_names[i],
				    (long long)*counter_at(&got, i),
				    (long long)*counter_at(&want, i));
			bad++;
		}
	}
	return bad;
}

/* One listed prefix of a configuration. */
struct prefix_case {
	enum cfg_id cfg;
	const char *entry;
	char name[96];
};

/*
 * The first and last address and three inside: dropped; one before the
 * first and one after the last: passed (both checked against the reference,
 * so that a list that covers a neighbour fails here, not in the program).
 */
static void test_prefix(void **state)
{
	const struct prefix_case *pc = *state;
	unsigned __int128 first, last, size;
	struct addr p, a;
	__u64 s = 0x9e3779b97f4a7c15ULL ^ (uintptr_t)pc->entry;
	int bad = 0, i;

	assert_int_equal(addr_parse(pc->entry, &p), 0);
	size = p.width - p.len == 128 ? 0 : (unsigned __int128)1 << (p.width - p.len);
	first = addr_value(&p);
	last = first + size - 1;
	a = p;
	addr_set_value(&a, first);
	bad += check_addr(pc->cfg, &a, "first", true);
	addr_set_value(&a, last);
	bad += check_addr(pc->cfg, &a, "last", true);
	for (i = 0; i < 3 && size > 2; i++) {
		unsigned __int128 r = rng_next(&s);

		r = r << 64 | rng_next(&s);
		addr_set_value(&a, first + 1 + r % (size - 2));
		bad += check_addr(pc->cfg, &a, "inside", true);
	}
	if (first > 0) {
		addr_set_value(&a, first - 1);
		if (list_covers(pc->cfg, &a))
			fail_msg("%s: the list covers the address before the prefix", pc->name);
		bad += check_addr(pc->cfg, &a, "before", false);
	}
	if (last < width_max(p.width)) {
		addr_set_value(&a, last + 1);
		if (list_covers(pc->cfg, &a))
			fail_msg("%s: the list covers the address after the prefix", pc->name);
		bad += check_addr(pc->cfg, &a, "after", false);
	}
	if (bad)
		fail_msg("%s: %d mismatch(es), see above", pc->name, bad);
}

/* The header words are the plan's: as many lengths as probes at most, longest first. */
static void test_header_words(void **state)
{
	__u64 v4, v6;
	int id;

	(void)state;
	for (id = 0; id < N_CFGS; id++) {
		v4 = filter_header_word(&harnesses[id].lp.filter, BLOOMXDP_HDR_V4_LENGTHS);
		v6 = filter_header_word(&harnesses[id].lp.filter, BLOOMXDP_HDR_V6_LENGTHS);
		if (v4 != prefix_plan_word(&plans[id][0]) || v6 != prefix_plan_word(&plans[id][1]))
			fail_msg("%s: header words %016llx %016llx are not the plan's", cfgs[id].name,
				 (unsigned long long)v4, (unsigned long long)v6);
		if (plans[id][0].ntargets > cfgs[id].probes || plans[id][1].ntargets > cfgs[id].probes)
			fail_msg("%s: more lengths than probes", cfgs[id].name);
		print_message("# %s: IPv4 %llu entries -> %.0f keys at %u length(s), IPv6 %llu -> "
			      "%.0f at %u\n", cfgs[id].name,
			      (unsigned long long)plans[id][0].entries, plans[id][0].expanded,
			      plans[id][0].ntargets, (unsigned long long)plans[id][1].entries,
			      plans[id][1].expanded, plans[id][1].ntargets);
	}
	/* One probe and hosts only: the program's inline single-length path. */
	assert_true(filter_header_word(&harnesses[P1_SRC].lp.filter, BLOOMXDP_HDR_V4_LENGTHS) ==
		    (BLOOMXDP_NO_LENGTHS << 8 | 32));
	assert_true(filter_header_word(&harnesses[P1_SRC].lp.filter, BLOOMXDP_HDR_V6_LENGTHS) ==
		    (BLOOMXDP_NO_LENGTHS << 8 | 128));
	assert_true(filter_header_word(&harnesses[HOSTS_ONLY].lp.filter, BLOOMXDP_HDR_V4_LENGTHS) ==
		    (BLOOMXDP_NO_LENGTHS << 8 | 32));
	assert_true(filter_header_word(&harnesses[HOSTS_ONLY].lp.filter, BLOOMXDP_HDR_V6_LENGTHS) ==
		    (BLOOMXDP_NO_LENGTHS << 8 | 128));
	/* The others: bpf_loop over several lengths. */
	assert_true(plans[MIXED][0].ntargets > 1 && plans[MIXED][1].ntargets > 1);
	assert_true(plans[P8_SRC][0].ntargets == 4 && plans[P8_SRC][1].ntargets == 3);
	assert_true(filter_header_word(&harnesses[EVERYTHING].lp.filter, BLOOMXDP_HDR_V4_LENGTHS) ==
		    (BLOOMXDP_NO_LENGTHS << 8 | 0));
}

/*
 * A list of hosts and the same hosts with prefixes around them: the same
 * verdict on each host, its neighbours and unlisted addresses, whichever
 * path the program takes.
 */
static void test_hosts_agree(void **state)
{
	static const char *const unlisted[] = { "192.0.2.1", "203.0.113.200", "198.51.100.0",
						"2001:db8::43", "2001:db8:fffe::7", "2001:db8:2:2::" };
	struct addr a, h;
	unsigned __int128 v;
	int bad = 0, d;
	size_t i;
	bool hit;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(hosts_list) + ARRAY_SIZE(unlisted); i++) {
		assert_int_equal(addr_parse(i < ARRAY_SIZE(hosts_list) ? hosts_list[i] :
					    unlisted[i - ARRAY_SIZE(hosts_list)], &h), 0);
		for (d = -1; d <= 1; d++) {
			a = h;
			v = addr_value(&h);
			if ((d < 0 && v == 0) || (d > 0 && v == width_max(h.width)))
				continue;
			addr_set_value(&a, v + d);
			hit = list_covers(HOSTS_ONLY, &a);
			/* The prefixes of the mixed list must not decide these rows. */
			if (list_covers(MIXED, &a) != hit)
				fail_msg("row %zu%+d: the mixed list's prefixes cover it", i, d);
			bad += check_addr(HOSTS_ONLY, &a, "host row", hit);
			bad += check_addr(MIXED, &a, "host row", hit);
		}
	}
	if (bad)
		fail_msg("%d mismatch(es), see above", bad);
}

/* Length 0: every address, of either family, as source or destination. */
static void test_everything(void **state)
{
	static const char *const any[] = { "0.0.0.0", "255.255.255.255", "203.0.113.9", "::",
					   "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db8::1",
					   "::ffff:0.0.0.0", "::1" };
	struct addr a;
	int bad = 0;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(any); i++) {
		assert_int_equal(addr_parse(any[i], &a), 0);
		assert_true(list_covers(EVERYTHING, &a));
		bad += check_addr(EVERYTHING, &a, "any", true);
	}
	if (bad)
		fail_msg("%d mismatch(es), see above", bad);
}

static int setup(void **state)
{
	char err[LIST_ERROR_LEN];
	int id, ret;

	(void)state;
	for (id = 0; id < N_CFGS; id++) {
		ret = harness_open_list(&harnesses[id], &cfgs[id].hc, cfgs[id].list, cfgs[id].n,
					cfgs[id].probes, plans[id], err);
		if (ret) {
			print_error("cannot load '%s': %s (%s)\n", cfgs[id].name, strerror(-ret),
				    err);
			return -1;
		}
	}
	return 0;
}

static int teardown(void **state)
{
	int id;

	(void)state;
	for (id = 0; id < N_CFGS; id++)
		harness_close(&harnesses[id]);
	return 0;
}

/* The configurations whose listed prefixes each get a test. */
static const enum cfg_id prefix_cfgs[] = { P1_SRC, P1_DST, P2_SRC, P2_DST, P6_SRC, P6_DST,
					   P8_SRC, P8_DST, P6_MONITOR };

#define N_PREFIX_CASES (ARRAY_SIZE(prefix_cfgs) * ARRAY_SIZE(full_list))

int main(void)
{
	static struct prefix_case cases[N_PREFIX_CASES];
	struct CMUnitTest tests[N_PREFIX_CASES + 3];
	size_t i, j, n = 0;

	_Static_assert(ARRAY_SIZE(full_list) == ARRAY_SIZE(narrow_list), "one row per entry");
	for (i = 0; i < ARRAY_SIZE(prefix_cfgs); i++) {
		for (j = 0; j < cfgs[prefix_cfgs[i]].n; j++) {
			struct prefix_case *pc = &cases[n];

			pc->cfg = prefix_cfgs[i];
			pc->entry = cfgs[pc->cfg].list[j];
			snprintf(pc->name, sizeof(pc->name), "%s: %s", cfgs[pc->cfg].name,
				 pc->entry);
			tests[n++] = (struct CMUnitTest){ .name = pc->name, .test_func = test_prefix,
							  .initial_state = pc };
		}
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_header_words);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_hosts_agree);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_everything);
	return _cmocka_run_group_tests("prefixes_xdp", tests, n, setup, teardown);
}
