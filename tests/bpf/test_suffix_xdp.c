// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hits at public suffixes and top-level domains (issue 21): a Bloom hit on
 * the key of co.uk, com or a name under a wildcard rule (*.ck) must not drop
 * every name registered under it. Through BPF_PROG_TEST_RUN on a loaded,
 * never attached program whose suffixes map attach filled from Debian's
 * publicsuffix list.
 *
 * A false positive is forced: the suffix's key goes into the Bloom filter
 * only, as a false hit of a full filter would look, not through the list
 * (which marks the keys it holds at public depths, as load and add do).
 * Every such hit must pass DNS queries, ClientHellos and HTTP requests for
 * names under it, counted in suffix_false_positives; a public suffix or
 * single label the list holds (load --allow-public-suffix) and ordinary
 * listed domains still drop; a deeper listed name under a refused suffix
 * still drops; a key listed in the other generation slot only does not
 * count; query (entry_keys_lookup) says what the program does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#define FRAME_MAX	4096
#include "names_harness.h"
#include "parse/domain.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct xdp_harness harness;
static const struct harness_config cfg = {
	.capacity = 1000, .fpr = 1e-9, .match = BLOOMXDP_MATCH_NAMES,
};

/* The name's key in the Bloom filter only: a false positive of the filter, forced. */
static void bloom_only(const char *name)
{
	char norm[NAME_TEXT_MAX];
	const char *why;
	int labels = 1;
	const char *c;

	if (name_normalize(name, norm, &why))
		fail_msg("%s: %s", name, why);
	for (c = norm; *c; c++)
		labels += *c == '.';
	filter_insert_hash(&harness.lp.filter, name_hash(harness.config.hash_key, norm));
	filter_header_set(&harness.lp.filter, BLOOMXDP_HAS_NAME_DEPTH(labels));
}

static int take_entry_cb(const struct entry *e, void *ctx)
{
	*(struct entry *)ctx = *e;
	return 0;
}

/* A URL's two keys in the Bloom filter only. */
static void bloom_only_url(const char *line)
{
	struct entry e;
	const char *why;
	__u64 keys[2], kinds;
	char text[256];
	int n, i;

	snprintf(text, sizeof(text), "%s", line);
	if (entry_parse_line(text, FORMAT_AUTO, take_entry_cb, &e, &why))
		fail_msg("%s: %s", line, why);
	n = entry_keys_name(harness.config.hash_key, &e, keys, &kinds);
	for (i = 0; i < n; i++)
		filter_insert_hash(&harness.lp.filter, keys[i]);
	filter_header_set(&harness.lp.filter, kinds);
}

static void listed(const char *line)
{
	const char *why;

	if (harness_insert_entry(&harness, line, &why))
		fail_msg("%s: %s", line, why);
}

enum field { F_DNS, F_SNI, F_HTTP };
static const char *const field_names[] = { "DNS", "SNI", "HTTP" };

/* One frame for host (and path, HTTP) over IPv4 or IPv6; verdict and counter deltas. */
static void run(enum field field, bool v6, const char *host, const char *path, __u32 *verdict,
		struct bloomxdp_counters *delta)
{
	char http[512];
	struct pkt p = { .v6 = v6 };
	struct built b;

	snprintf(http, sizeof(http), "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: */*\r\n\r\n",
		 path ? path : "/", host);
	if (field == F_DNS) {
		p.app = APP_DNS;
		p.dns.qname = host;
	} else if (field == F_SNI) {
		p.app = APP_TLS;
		p.tls.sni = host;
	} else {
		p.app = APP_HTTP;
		p.http = http;
	}
	if (pkt_build(&p, &b) || harness_run_frame(&harness, &b.f, NULL, verdict, delta))
		fail_msg("%s %s: cannot run the frame", field_names[field], host);
}

/*
 * host (path) in every field and both families: want XDP_DROP or XDP_PASS,
 * and refused: the suffix_false_positives each frame adds.
 */
static void expect(const char *host, const char *path, __u32 want, __u64 refused)
{
	struct bloomxdp_counters d;
	__u32 verdict;
	int field, v6;

	for (field = path ? F_HTTP : F_DNS; field <= F_HTTP; field++)
		for (v6 = 0; v6 < 2; v6++) {
			run(field, v6, host, path, &verdict, &d);
			if (verdict != want || d.suffix_false_positives != refused ||
			    d.dropped != (want == XDP_DROP))
				fail_msg("%s %s%s over IPv%d: %s, suffix_false_positives +%llu, "
					 "dropped +%llu; expected %s, +%llu", field_names[field],
					 host, path ? path : "", v6 ? 6 : 4, verdict_name(verdict),
					 (unsigned long long)d.suffix_false_positives,
					 (unsigned long long)d.dropped, verdict_name(want),
					 (unsigned long long)refused);
		}
}

static __u32 suffix_flags_of(const char *name)
{
	__u64 key = name_hash(harness.config.hash_key, name);
	__u32 flags = 0;

	bpf_map_lookup_elem(bpf_map__fd(harness.lp.skel->maps.suffixes), &key, &flags);
	return flags;
}

/* attach wrote the Public Suffix List's rules, wildcards and exceptions. */
static void test_rules_loaded(void **state)
{
	struct suffix_map sk;

	(void)state;
	suffix_map_init(&sk);
	assert_int_equal(suffix_map_read(&sk, bpf_map__fd(harness.lp.skel->maps.suffixes)), 0);
	if (sk.n < 5000)
		fail_msg("%zu rules in the suffixes map, expected the whole list", sk.n);
	suffix_map_free(&sk);
	assert_true(suffix_flags_of("co.uk") & BLOOMXDP_SUFFIX_PUBLIC);
	assert_true(suffix_flags_of("github.io") & BLOOMXDP_SUFFIX_PUBLIC);
	assert_true(suffix_flags_of("ck") & BLOOMXDP_SUFFIX_WILDCARD);
	assert_true(suffix_flags_of("www.ck") & BLOOMXDP_SUFFIX_EXCEPTION);
	/* An IDN rule, in its xn-- form as names are on the wire. */
	assert_true(suffix_flags_of("xn--55qx5d.cn") & BLOOMXDP_SUFFIX_PUBLIC);
	assert_int_equal(suffix_flags_of("example.com"), 0);
}

/* A false hit at a TLD, listed or not in the Public Suffix List, blocks nothing. */
static void test_tld(void **state)
{
	(void)state;
	bloom_only("com");
	bloom_only("zzlocal");
	expect("other9.name8.com", NULL, XDP_PASS, 1);
	expect("com", NULL, XDP_PASS, 1);
	expect("a.b.zzlocal", NULL, XDP_PASS, 1);
}

/* At public suffixes of both sections, the sch.ae among them. */
static void test_public_suffix(void **state)
{
	(void)state;
	bloom_only("sch.ae");
	bloom_only("co.uk");
	bloom_only("github.io");
	expect("other9.name8.sch.ae", NULL, XDP_PASS, 1);
	expect("www.example.co.uk", NULL, XDP_PASS, 1);
	expect("user.github.io", NULL, XDP_PASS, 1);
}

/* *.ck: every child is public; !www.ck: that one is not (a hit there stands). */
static void test_wildcard(void **state)
{
	(void)state;
	bloom_only("foo.ck");
	bloom_only("www.ck");
	bloom_only("bar.kawasaki.jp");
	expect("a.foo.ck", NULL, XDP_PASS, 1);
	expect("a.b.bar.kawasaki.jp", NULL, XDP_PASS, 1);
	expect("a.www.ck", NULL, XDP_DROP, 0);
}

/* Listed at a public depth (--allow-public-suffix, a single label): they drop. */
static void test_listed_public_suffix(void **state)
{
	(void)state;
	listed("blogspot.de");
	listed("zzlisted");
	listed("gov.uk");
	expect("x.blogspot.de", NULL, XDP_DROP, 0);
	expect("a.b.zzlisted", NULL, XDP_DROP, 0);
	expect("www.gov.uk", NULL, XDP_DROP, 0);
	expect("gov.uk", NULL, XDP_DROP, 0);
}

/* An ordinary listed domain drops; a refused suffix hit does not stop the walk. */
static void test_listed_domain(void **state)
{
	(void)state;
	listed("evil.example");
	listed("bad.net");
	bloom_only("net");
	expect("a.evil.example", NULL, XDP_DROP, 0);
	expect("x.bad.net", NULL, XDP_DROP, 1);
	expect("x.good.net", NULL, XDP_PASS, 1);
}

/* A URL on a public suffix host: its pair key stands only when listed. */
static void test_url(void **state)
{
	(void)state;
	bloom_only_url("ac.uk/evil/");
	listed("gitlab.io/malware/");
	expect("ac.uk", "/evil/x", XDP_PASS, 1);
	expect("gitlab.io", "/malware/x", XDP_DROP, 0);
	expect("gitlab.io", "/fine", XDP_PASS, 0);
}

/* The listed bits follow the generation: the other slot's do not count; sync clears. */
static void test_generations(void **state)
{
	int fd = bpf_map__fd(harness.lp.skel->maps.suffixes);
	__u64 key = name_hash(harness.config.hash_key, "org"), keys[1] = { key };

	(void)state;
	bloom_only("org");
	assert_int_equal(suffix_map_mark(fd, 1, &key, 1), 0);
	expect("a.org", NULL, XDP_PASS, 1);
	assert_int_equal(suffix_map_sync(fd, 0, keys, 1), 0);
	expect("a.org", NULL, XDP_DROP, 0);
	assert_int_equal(suffix_map_sync(fd, 0, NULL, 0), 0);
	expect("a.org", NULL, XDP_PASS, 1);
	assert_int_equal(suffix_map_sync(fd, 1, NULL, 0), 0);
	assert_false(suffix_flags_of("org") & (BLOOMXDP_SUFFIX_LISTED(0) |
					       BLOOMXDP_SUFFIX_LISTED(1)));
}

/* query: entry_keys_lookup() with the suffixes map gives the program's verdict. */
static void test_query_agrees(void **state)
{
	static const char *const names[] = {
		"other9.name8.com", "a.b.zzlocal", "other9.name8.sch.ae", "www.example.co.uk",
		"a.foo.ck", "a.www.ck", "x.blogspot.de", "a.b.zzlisted", "a.evil.example",
		"x.bad.net", "x.good.net", "a.org", "fine.example",
	};
	struct filter *f = &harness.lp.filter;
	struct bloomxdp_counters d;
	struct suffix_map sk;
	char text[256], why[256];
	const char *err;
	struct entry e;
	__u32 verdict;
	size_t i;
	bool blocked;

	(void)state;
	suffix_map_init(&sk);
	assert_int_equal(suffix_map_read(&sk, bpf_map__fd(harness.lp.skel->maps.suffixes)), 0);
	f->public_suffixes = &sk;
	f->slot = 0;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(text, sizeof(text), "%s", names[i]);
		if (entry_parse_line(text, FORMAT_AUTO, take_entry_cb, &e, &err))
			fail_msg("%s: %s", names[i], err);
		blocked = entry_keys_lookup(f, &e, why, sizeof(why));
		run(F_DNS, false, names[i], NULL, &verdict, &d);
		if (blocked != (verdict == XDP_DROP))
			fail_msg("%s: query says %s, the program %s", names[i],
				 blocked ? "blocked" : "not blocked", verdict_name(verdict));
	}
	f->public_suffixes = NULL;
	suffix_map_free(&sk);
}

static int setup(void **state)
{
	(void)state;
	return harness_open(&harness, &cfg) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	harness_close(&harness);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_loaded),
		cmocka_unit_test(test_tld),
		cmocka_unit_test(test_public_suffix),
		cmocka_unit_test(test_wildcard),
		cmocka_unit_test(test_listed_public_suffix),
		cmocka_unit_test(test_listed_domain),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_generations),
		cmocka_unit_test(test_query_agrees),
	};

	return cmocka_run_group_tests_name("suffix_xdp", tests, setup, teardown);
}
