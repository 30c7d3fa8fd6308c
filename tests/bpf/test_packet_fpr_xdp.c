// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --fpr is a promise per packet (issue 21). A country-like list of IPv4
 * prefixes of every length /12 to /32 is loaded as 'bloomxdp load --store
 * bloom' loads it at --fpr 1% on an attachment matching src and dst: its
 * lengths planned (6 target lengths), the filter sized by load's own code
 * (list_build_probes, packet_probe_fpr, generation_plan) with attach's k, the
 * keys inserted, the generation made live. Then 200,000 frames whose source
 * and destination are random addresses outside every listed prefix go
 * through the loaded XDP program (BPF_PROG_TEST_RUN): each takes 12 probes,
 * and at most 1% of them may be dropped (the count within 5 standard
 * deviations of 1%); the per-packet estimate that status and
 * bloomxdp_filter_packet_fpr report for field ipv4 (from the key count) must
 * be at least what is seen, and the same estimate from the filter's fill
 * (overlapping prefixes expand to the same keys) must agree with it, within
 * 5 standard deviations and 10%. Before the per-packet sizing, the
 * filter was sized for 1% per probe and dropped 3.9% of them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "xdp_harness.h"
#include "packet_fpr.h"

#define TARGET_FPR	0.01
#define PREFIXES	30000
#define QUERIES		200000

static const __u64 fixed_key[2] = { 0x0f1e2d3c4b5a6978ULL, 0x1122334455667788ULL };

/* xorshift64*: the same list and queries at every run. */
static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static __u64 rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Prefix lengths of a country list: mostly /24 and /20-/23, some of every other length. */
static __u32 random_length(void)
{
	static const __u8 lengths[] = { 12, 13, 14, 15, 16, 16, 17, 18, 18, 19, 19, 20, 20, 20,
					21, 21, 21, 22, 22, 22, 22, 23, 23, 24, 24, 24, 24, 24,
					24, 25, 26, 27, 28, 29, 30, 31, 32, 32 };

	return lengths[rng() % sizeof(lengths)];
}

/* Writes the list, and its exact intervals into s (to draw unlisted addresses). */
static void write_list(char path[64], struct range_set *s)
{
	struct bloomxdp_key key;
	char text[INET_ADDRSTRLEN];
	__u32 i, len, a;
	FILE *out;
	int fd;

	snprintf(path, 64, "/tmp/bloomxdp-packet-fpr-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	assert_non_null(out);
	range_set_init(s, BLOOMXDP_KEY_IPV4);
	for (i = 0; i < PREFIXES; i++) {
		len = random_length();
		/* 1.0.0.0 to 223.255.255.255, masked to the length. */
		a = (__u32)(rng() % (0xe0000000u - 0x01000000u)) + 0x01000000u;
		a &= len == 32 ? ~0u : ~(~0u >> len);
		a = htonl(a);
		inet_ntop(AF_INET, &a, text, sizeof(text));
		fprintf(out, "%s/%u\n", text, len);
		bloomxdp_key_ipv4(&key, &a, len);
		assert_int_equal(range_set_add_key(s, &key), 0);
	}
	assert_int_equal(fclose(out), 0);
	range_set_merge(s);
}

/*
 * PACKET_FPR_LIST=FILE measures a list of one's own instead (its IPv4
 * prefixes are what the drawn addresses avoid), PACKET_FPR_SRC=1 with match
 * src only: the figures of README's Sizing.
 */
static void read_list(const char *path, struct range_set *s)
{
	struct bloomxdp_key key;
	char line[256];
	const char *why;
	FILE *in = fopen(path, "r");

	assert_non_null(in);
	range_set_init(s, BLOOMXDP_KEY_IPV4);
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!key_parse(line, &key, &why) && key_family(&key) == BLOOMXDP_KEY_IPV4)
			assert_int_equal(range_set_add_key(s, &key), 0);
	}
	fclose(in);
	range_set_merge(s);
}

/* An address no listed prefix covers, network order. */
static __u32 unlisted(const struct range_set *s)
{
	__u32 a;

	do
		a = htonl((__u32)rng());
	while (range_set_find(s, range_addr_of(BLOOMXDP_KEY_IPV4, &a)) >= 0);
	return a;
}

/* Reads the list as load does, sizes the generation as load does, makes it live. */
static void load_list(struct xdp_harness *h, const char *path, struct list_build *b,
		      struct filter *f, struct bloom_plan *plan, double *probe_fpr)
{
	struct bpf_map *filter = h->lp.skel->maps.filter, *kfilter = h->lp.skel->maps.kfilter;
	int active = bpf_map__fd(h->lp.skel->maps.active);
	__u32 which = BLOOMXDP_ACTIVE_BLOCK, slot;
	char err[LIST_ERROR_LEN];
	struct packet_probes pp;
	struct generation_need need = {
		.layout = h->config.layout, .hashes = h->config.hashes, .fpr = TARGET_FPR,
		.floor = GENERATION_MIN_KEYS, .max_memory = MAX_MEMORY_CEILING,
	};
	__u64 need_bytes;

	list_build_init(b, NULL, LIST_DEFAULT_PREFIX_PROBES);
	memcpy(b->hash_key, h->config.hash_key, sizeof(b->hash_key));
	b->bloom = true;
	b->ranges_ok = true;
	b->store = RANGE_STORE_BLOOM;
	if (list_build_read(b, path, FORMAT_AUTO, err) || list_build_finish(b, err))
		fail_msg("%s", err);
	list_build_probes(b, h->config.match, &pp);
	*probe_fpr = packet_probe_fpr(&pp, TARGET_FPR);
	need.fpr = *probe_fpr;
	need.keys = b->keys;
	assert_int_equal(generation_plan(&need, plan, &need_bytes), 0);
	assert_int_equal(filter_create_plan(&h->config, plan, f), 0);
	if (list_build_insert(b, f, err))
		fail_msg("%s", err);
	assert_int_equal(bpf_map_lookup_elem(active, &which, &slot), 0);
	slot ^= 1;
	assert_int_equal(filter_install(bpf_map__fd(filter), slot, f), 0);
	assert_int_equal(filter_install_kernel(bpf_map__fd(kfilter), slot, f), 0);
	assert_int_equal(bpf_map_update_elem(active, &which, &slot, BPF_ANY), 0);
}

static void check_layout(__u32 layout)
{
	struct harness_config hc = { .match = BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST,
				     .layout = layout, .hash_key = fixed_key, .fpr = TARGET_FPR };
	char path[64], src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
	struct frame_desc d = { .ethertype = ETH_P_IP, .src = src, .dst = dst, .payload = 8 };
	double probe_fpr, key_fpr, estimate, fill_fpr, fill_estimate, measured, sigma;
	struct packet_probes pp;
	struct xdp_harness h;
	struct list_build b;
	struct bloom_plan plan;
	struct range_set s;
	struct filter f;
	struct frame fr;
	__u32 verdict = 0, a, i;
	__u64 drops = 0;

	if (getenv("PACKET_FPR_SRC"))
		hc.match = BLOOMXDP_MATCH_SRC;
	if (getenv("PACKET_FPR_LIST")) {
		snprintf(path, sizeof(path), "%s", getenv("PACKET_FPR_LIST"));
		read_list(path, &s);
	} else {
		write_list(path, &s);
	}
	assert_int_equal(harness_open(&h, &hc), 0);
	load_list(&h, path, &b, &f, &plan, &probe_fpr);
	if (!getenv("PACKET_FPR_LIST"))
		unlink(path);
	for (i = 0; i < QUERIES; i++) {
		a = unlisted(&s);
		inet_ntop(AF_INET, &a, src, sizeof(src));
		a = unlisted(&s);
		inet_ntop(AF_INET, &a, dst, sizeof(dst));
		assert_int_equal(frame_build(&fr, &d), 0);
		assert_int_equal(harness_run(&h, &fr, &verdict), 0);
		drops += verdict == XDP_DROP;
	}
	/* What status reports: the per-key estimate of the live keys, per packet for ipv4. */
	packet_probes_of_header(&pp, hc.match, filter_header(&f),
				filter_header_word(&f, BLOOMXDP_HDR_V4_LENGTHS),
				filter_header_word(&f, BLOOMXDP_HDR_V6_LENGTHS));
	key_fpr = bloom_layout_fpr(layout, plan.bits, plan.hashes, b.keys);
	estimate = packet_field_fpr(&pp, PACKET_FIELD_IPV4, key_fpr);
	/* Expanded prefixes overlap: the fill knows the distinct keys, the count does not. */
	fill_fpr = bloom_layout_fpr_for_fill(layout, f.bits, f.hashes,
					     (double)filter_popcount(&f) / f.bits);
	fill_estimate = packet_field_fpr(&pp, PACKET_FIELD_IPV4, fill_fpr);
	measured = (double)drops / QUERIES;
	print_message("# %-7s %llu keys at %u probes per address, match 0x%x: "
		      "%llu bytes, %.5f per probe (sized for %.5f); %llu of %u unlisted packets "
		      "dropped (%.4f), estimated %.4f per packet (%.4f from the fill), target %g\n",
		      layout_name(layout), (unsigned long long)b.keys, b.plan[0].ntargets, hc.match,
		      (unsigned long long)bloom_plan_map_bytes(&plan), key_fpr, probe_fpr,
		      (unsigned long long)drops, QUERIES, measured, estimate, fill_estimate,
		      TARGET_FPR);
	assert_int_equal(pp.probes[PACKET_FIELD_IPV4],
			 (hc.match & BLOOMXDP_MATCH_DST ? 2 : 1) * b.plan[0].ntargets);
	assert_true(b.plan[0].ntargets > 1);
	sigma = sqrt(TARGET_FPR * (1 - TARGET_FPR) / QUERIES);
	if (measured > TARGET_FPR + 5 * sigma)
		fail_msg("%.4f of unlisted packets dropped, over the target %g", measured,
			 TARGET_FPR);
	/* status's figure, from the key count, is at least what is seen; the fill's agrees. */
	sigma = sqrt(estimate * (1 - estimate) / QUERIES);
	if (measured > estimate + 5 * sigma)
		fail_msg("%.4f of unlisted packets dropped, over the estimate per packet %.4f",
			 measured, estimate);
	sigma = sqrt(fill_estimate * (1 - fill_estimate) / QUERIES);
	if (fabs(measured - fill_estimate) > 5 * sigma + 0.1 * fill_estimate)
		fail_msg("%.4f of unlisted packets dropped, but the estimate per packet from the "
			 "fill is %.4f", measured, fill_estimate);
	filter_close(&f);
	list_build_free(&b);
	range_set_free(&s);
	harness_close(&h);
}

static void test_blocked(void **state)
{
	(void)state;
	check_layout(BLOOMXDP_LAYOUT_BLOCKED);
}

static void test_bits(void **state)
{
	(void)state;
	check_layout(BLOOMXDP_LAYOUT_BITS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_bits),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
