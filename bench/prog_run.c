// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ns per packet of the XDP program in the kernel, by BPF_PROG_TEST_RUN with
 * repeat, and the cost of the keyed hash alone. One hot frame per row: this
 * is the floor of the per-packet cost (caches warm), not a throughput figure.
 * The test-run loop itself costs what the ARP row costs, roughly.
 *
 * Usage: build/bench/prog_run [entries]   (default 1000000)
 * BENCH_LAYOUT=blocked (the attach's default layout) or bits (this table's
 * default since its first rounds: k probes of their own lines).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include <bloomxdp/common.h>
#include "bloomxdp.skel.h"
#include "hash_probe.skel.h"
#include "lookup.skel.h"
#include "filter/entry_keys.h"
#include "dns_wire.h"
#include "tls_hello.h"
#include "hash_probe.h"
#include "parse/keys.h"
#include "filter/layout.h"
#include "filter/ranges.h"
#include "filter/bloom_plan.h"

#define REPEAT 1000000
#define FRAME_MAX 1024

/*
 * Exact intervals (load --store intervals): RANGES_N disjoint intervals per
 * family, both families searched there, the Bloom filter probed for neither.
 */
#define RANGES_N 50000

static int ranges_install(struct bloomxdp *skel, __u32 family)
{
	struct range_set s;
	__u32 zero = 0, i;
	int fd, ret;

	range_set_init(&s, family);
	s.r = calloc(RANGES_N, sizeof(*s.r));
	if (!s.r)
		return -ENOMEM;
	/* Every 65536th /18 of 1.0.0.0 up (IPv4), of 2001:db8:: up by /64s (IPv6). */
	for (i = 0; i < RANGES_N; i++) {
		range_addr base = family == BLOOMXDP_KEY_IPV4 ? 0x01000000 + (range_addr)i * 65536 :
				  ((range_addr)0x20010db800000000ULL << 64) +
				  ((range_addr)i << 64);

		s.r[i].start = base;
		s.r[i].end = base + (family == BLOOMXDP_KEY_IPV4 ? 16383 : 0xffffffffffffULL);
	}
	s.n = s.cap = RANGES_N;
	fd = range_set_create_map(&s);
	range_set_free(&s);
	if (fd < 0)
		return fd;
	ret = bpf_map_update_elem(bpf_map__fd(family == BLOOMXDP_KEY_IPV4 ? skel->maps.ranges_v4 :
					      skel->maps.ranges_v6), &zero, &fd, BPF_ANY);
	close(fd);
	return ret;
}

static double run_ns(int prog_fd, void *frame, size_t len);
static size_t make_frame(__u8 *frame, int ipv6, const char *src, int proto, __u16 dport,
			 const void *payload, size_t len);

static void ranges_rows(struct bloomxdp *skel, struct filter *f, int prog)
{
	__u8 frame[FRAME_MAX];

	if (ranges_install(skel, BLOOMXDP_KEY_IPV4) || ranges_install(skel, BLOOMXDP_KEY_IPV6)) {
		fprintf(stderr, "cannot install the intervals: %s\n", strerror(errno));
		exit(1);
	}
	filter_header_word_set(f, BLOOMXDP_HDR_V4_LENGTHS, BLOOMXDP_RANGES_WORD);
	filter_header_word_set(f, BLOOMXDP_HDR_V6_LENGTHS, BLOOMXDP_RANGES_WORD);
	printf("| IPv4, not listed, %d exact intervals (%u lines read) | %.0f |\n", RANGES_N,
	       range_set_steps(BLOOMXDP_KEY_IPV4, RANGES_N),
	       run_ns(prog, frame, make_frame(frame, 0, "1.1.64.1", 17, 9, "x", 1)));
	printf("| IPv4, listed, %d exact intervals | %.0f |\n", RANGES_N,
	       run_ns(prog, frame, make_frame(frame, 0, "1.1.0.1", 17, 9, "x", 1)));
	printf("| IPv6, not listed, %d exact intervals | %.0f |\n", RANGES_N,
	       run_ns(prog, frame, make_frame(frame, 1, "2001:db8:0:1:1::1", 17, 9, "x", 1)));
	printf("| IPv6, listed, %d exact intervals | %.0f |\n", RANGES_N,
	       run_ns(prog, frame, make_frame(frame, 1, "2001:db8:0:1::1", 17, 9, "x", 1)));
}

/* The verdict of the last run_ns(): the rows that must drop or pass check it. */
static __u32 run_retval;

static double run_ns(int prog_fd, void *frame, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .repeat = REPEAT);

	if (bpf_prog_test_run_opts(prog_fd, &opts)) {
		fprintf(stderr, "test run failed: %s\n", strerror(errno));
		exit(1);
	}
	run_retval = opts.retval;
	return opts.duration;
}

/* Ethernet + IPv4 (or IPv6) + UDP/TCP header + payload; returns the frame length. */
static size_t make_frame(__u8 *buf, int ipv6, const char *src, int proto, __u16 dport,
			 const void *payload, size_t len)
{
	size_t l3 = ETH_HLEN, l4 = l3 + (ipv6 ? 40 : 20), l4len = proto == 6 ? 20 : 8;
	__u8 *ip = buf + l3, *th = buf + l4;

	memset(buf, 0, FRAME_MAX);
	((struct ethhdr *)buf)->h_proto = htons(ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	if (ipv6) {
		ip[0] = 0x60;
		ip[6] = proto;
		inet_pton(AF_INET6, src, ip + 8);
		inet_pton(AF_INET6, "2001:db8::1", ip + 24);
	} else {
		ip[0] = 0x45;
		ip[9] = proto;
		inet_pton(AF_INET, src, ip + 12);
		inet_pton(AF_INET, "192.0.2.1", ip + 16);
	}
	th[2] = dport >> 8;
	th[3] = dport & 0xff;
	if (proto == 6) {
		th[12] = 5 << 4;	/* data offset */
	} else {
		th[4] = (l4len + len) >> 8;
		th[5] = (l4len + len) & 0xff;
	}
	memcpy(th + l4len, payload, len);
	/* The IP lengths: the program ignores bytes past them (Ethernet padding). */
	if (ipv6) {
		ip[4] = (l4len + len) >> 8;
		ip[5] = (l4len + len) & 0xff;
	} else {
		ip[2] = (20 + l4len + len) >> 8;
		ip[3] = (20 + l4len + len) & 0xff;
	}
	return l4 + l4len + len;
}

/* A standard query for name (dotted text). */
static size_t dns_query(__u8 *out, const char *name)
{
	size_t n = 12;

	memset(out, 0, 12);
	out[5] = 1;	/* QDCOUNT */
	n += dns_wire_name(name, out + n);
	memcpy(out + n, "\0\1\0\1", 4);
	return n + 4;
}

/* A resource record's fixed part owned by a compression pointer to owner: 12 bytes. */
static size_t dns_rr(__u8 *out, __u32 owner, __u32 type, __u32 rdlen)
{
	out[0] = 0xc0 | owner >> 8;
	out[1] = owner & 0xff;
	out[2] = type >> 8;
	out[3] = type & 0xff;
	out[4] = 0;
	out[5] = BLOOMXDP_DNS_CLASS_IN;
	memcpy(out + 6, "\0\0\1\x2c", 4);	/* TTL 300 */
	out[10] = rdlen >> 8;
	out[11] = rdlen & 0xff;
	return 12;
}

/*
 * A response to the query for qname (type A, RD and RA set): with cname, a
 * CNAME record to it (uncompressed), then a A records of 198.51.100.x owned
 * by the last name; the last one's address is last_a when given.
 */
static size_t dns_response(__u8 *out, const char *qname, const char *cname, int a,
			   const char *last_a)
{
	size_t n = dns_query(out, qname), owner = 12;
	int i;

	out[2] = 0x81;	/* QR, RD */
	out[3] = 0x80;	/* RA */
	out[7] = a + !!cname;	/* ANCOUNT */
	if (cname) {
		n += dns_rr(out + n, owner, BLOOMXDP_DNS_TYPE_CNAME, dns_wire_name(cname, out + n + 12));
		owner = n;
		n += dns_wire_name(cname, out + n);
	}
	for (i = 0; i < a; i++) {
		n += dns_rr(out + n, owner, BLOOMXDP_DNS_TYPE_A, 4);
		inet_pton(AF_INET, "198.51.100.1", out + n);
		out[n + 3] += i;
		if (last_a && i == a - 1)
			inet_pton(AF_INET, last_a, out + n);
		n += 4;
	}
	return n;
}

/* "l1.l2.....ln.example" with labels of 8 letters: labels + 1 labels in all. */
static void deep_name(char *out, int labels, const char *suffix)
{
	int i;

	out[0] = '\0';
	for (i = 0; i < labels; i++)
		strcat(out, "abcdefgh.");
	strcat(out, suffix);
}

/* The counters, summed over the CPUs (a per-CPU array of one slot). */
static struct bloomxdp_counters counters_sum(struct bloomxdp *skel)
{
	int ncpus = libbpf_num_possible_cpus(), c;
	struct bloomxdp_counters sum = {}, *v;
	__u32 zero = 0;

	v = ncpus > 0 ? calloc(ncpus, sizeof(*v)) : NULL;
	if (!v || bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &zero, v)) {
		fprintf(stderr, "cannot read the counters: %s\n", strerror(errno));
		exit(1);
	}
	for (c = 0; c < ncpus; c++) {
		sum.checked_dns_answers += v[c].checked_dns_answers;
		sum.unparsed_dns_answers += v[c].unparsed_dns_answers;
		sum.hits_dns_answers += v[c].hits_dns_answers;
	}
	free(v);
	return sum;
}

static __u32 prog_verified_insns(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(prog_fd, &info, &len) ? 0 : info.verified_insns;
}

/* The frame's UDP or TCP source port (make_frame() leaves it 0). */
static void frame_sport(__u8 *frame, int ipv6, __u16 sport)
{
	__u8 *th = frame + ETH_HLEN + (ipv6 ? 40 : 20);

	th[0] = sport >> 8;
	th[1] = sport & 0xff;
}

/*
 * A DNS response row: ns per packet, checked to be read whole by
 * dns_answers() (checked, not unparsed) and to get the verdict expected.
 */
static double answer_row(struct bloomxdp *skel, int prog, const __u8 *msg, size_t len,
			 __u32 verdict)
{
	struct bloomxdp_counters a = counters_sum(skel), b;
	__u8 frame[FRAME_MAX];
	size_t flen = make_frame(frame, 0, "192.0.2.53", 17, 40000, msg, len);
	double ns;

	frame_sport(frame, 0, BLOOMXDP_DNS_PORT);
	ns = run_ns(prog, frame, flen);
	b = counters_sum(skel);
	if (run_retval != verdict || b.checked_dns_answers - a.checked_dns_answers != REPEAT ||
	    b.unparsed_dns_answers != a.unparsed_dns_answers) {
		fprintf(stderr, "DNS response row: verdict %u (expected %u), %llu checked, %llu "
			"unparsed: fix the bench's message or the program\n", run_retval, verdict,
			(unsigned long long)(b.checked_dns_answers - a.checked_dns_answers),
			(unsigned long long)(b.unparsed_dns_answers - a.unparsed_dns_answers));
		exit(1);
	}
	return ns;
}

/* The same program with another --match, on the same filter; exits on failure. */
static struct bloomxdp *skel_with_match(const struct bloomxdp_config *base, struct filter *f,
					__u32 match)
{
	struct bloomxdp *skel = bloomxdp__open();

	if (skel) {
		skel->rodata_config->config = *base;
		skel->rodata_config->config.match = match;
		bpf_map__set_inner_map_fd(skel->maps.filter, f->map_fd);
	}
	if (!skel || bloomxdp__load(skel) || filter_install(bpf_map__fd(skel->maps.filter), 0, f)) {
		fprintf(stderr, "cannot load the program with match %#x: %s\n", match,
			strerror(errno));
		exit(1);
	}
	return skel;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The ratio of issue 25's bound, within rounds: the 3-label query and the
 * CNAME + 3 A response run one after the other in each round, so that what
 * else runs on the machine weighs on both alike; the median of the rounds'
 * ratios, and their range (BENCH_ANSWER_ROUNDS, default 9).
 */
static void answer_ratio_rounds(struct bloomxdp *skel, int prog, const __u8 *query, size_t qlen,
				const __u8 *resp, size_t rlen)
{
	const char *env = getenv("BENCH_ANSWER_ROUNDS");
	int rounds = env ? atoi(env) : 9, r;
	double ratio[64], qmin = 0, amin = 0;
	__u8 frame[FRAME_MAX];

	if (rounds < 1 || rounds > 64)
		rounds = 9;
	for (r = 0; r < rounds; r++) {
		double q = run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 17, 53, query,
							  qlen));
		double a = answer_row(skel, prog, resp, rlen, XDP_PASS);

		ratio[r] = a / q;
		qmin = r && qmin < q ? qmin : q;
		amin = r && amin < a ? amin : a;
	}
	qsort(ratio, rounds, sizeof(ratio[0]), cmp_double);
	printf("| ratio: response with CNAME and 3 A / 3-label query, median of %d rounds "
	       "(min-max) | %.2f (%.2f-%.2f) |\n", rounds, ratio[rounds / 2], ratio[0],
	       ratio[rounds - 1]);
	printf("| the same rounds, lowest ns: 3-label query / response with CNAME and 3 A | "
	       "%.0f / %.0f (%.2f) |\n", qmin, amin, amin / qmin);
}

/*
 * DNS responses (--match dns-answers) beside the 3-label query, and what a
 * packet from port 53 costs where dns-answers is not matched.
 */
static void dns_answer_rows(struct bloomxdp *skel, struct filter *f, int prog)
{
	static const struct {
		__u32 match;
		const char *name;
	} others[] = {
		{ BLOOMXDP_MATCH_SRC, "--match src" },
		{ BLOOMXDP_MATCH_SRC | (BLOOMXDP_MATCH_NAMES & ~BLOOMXDP_MATCH_DNS_ANSWERS),
		  "--match src,dns,http,sni" },
	};
	__u8 frame[FRAME_MAX], msg[FRAME_MAX], qmsg[FRAME_MAX];
	double query, cname, plain;
	size_t qlen;
	struct bloomxdp *other;
	size_t len, i, flen;
	int fd;

	len = dns_query(msg, "abcdefgh.good.example");
	query = run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 17, 53, msg, len));
	printf("| DNS query, 3 labels, not listed (again, beside the responses) | %.0f |\n", query);
	len = dns_response(msg, "abcdefgh.good.example", "abcdefgh.cdn.example", 3, NULL);
	cname = answer_row(skel, prog, msg, len, XDP_PASS);
	printf("| DNS response, 3-label question, CNAME to 3 labels, 3 A, none listed | %.0f |\n",
	       cname);
	len = dns_response(msg, "abcdefgh.good.example", "abcdefgh.evil.example", 3, NULL);
	printf("| DNS response, the same, CNAME target listed (dropped there) | %.0f |\n",
	       answer_row(skel, prog, msg, len, XDP_DROP));
	len = dns_response(msg, "abcdefgh.good.example", NULL, 3, NULL);
	plain = answer_row(skel, prog, msg, len, XDP_PASS);
	printf("| DNS response, 3-label question, 3 A, none listed | %.0f |\n", plain);
	len = dns_response(msg, "abcdefgh.good.example", NULL, 3, "203.0.113.7");
	printf("| DNS response, 3-label question, 3 A, the third listed | %.0f |\n",
	       answer_row(skel, prog, msg, len, XDP_DROP));
	/* The parts: the question alone, then one record of each kind. */
	len = dns_response(msg, "abcdefgh.good.example", NULL, 0, NULL);
	printf("| DNS response, 3-label question only (ANCOUNT 0) | %.0f |\n",
	       answer_row(skel, prog, msg, len, XDP_PASS));
	len = dns_response(msg, "abcdefgh.good.example", NULL, 1, NULL);
	printf("| DNS response, 3-label question, 1 A, none listed | %.0f |\n",
	       answer_row(skel, prog, msg, len, XDP_PASS));
	len = dns_response(msg, "abcdefgh.good.example", "abcdefgh.cdn.example", 0, NULL);
	printf("| DNS response, 3-label question, CNAME to 3 labels, none listed | %.0f |\n",
	       answer_row(skel, prog, msg, len, XDP_PASS));
	printf("| ratio: response with CNAME and 3 A / 3-label query | %.2f |\n", cname / query);
	printf("| ratio: response with 3 A / 3-label query | %.2f |\n", plain / query);
	len = dns_response(msg, "abcdefgh.good.example", "abcdefgh.cdn.example", 3, NULL);
	qlen = dns_query(qmsg, "abcdefgh.good.example");
	answer_ratio_rounds(skel, prog, qmsg, qlen, msg, len);
	printf("| verified_insns, --match src,dns,http,sni,dns-answers | %u |\n",
	       prog_verified_insns(prog));
	len = dns_response(msg, "abcdefgh.good.example", "abcdefgh.cdn.example", 3, NULL);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		other = skel_with_match(&skel->rodata_config->config, f, others[i].match);
		fd = bpf_program__fd(other->progs.bloomxdp_xdp);
		flen = make_frame(frame, 0, "192.0.2.53", 17, 40000, msg, len);
		frame_sport(frame, 0, BLOOMXDP_DNS_PORT);
		printf("| %s: the response with CNAME and 3 A (from port 53) | %.0f |\n",
		       others[i].name, run_ns(fd, frame, flen));
		printf("| %s: IPv4, not listed | %.0f |\n", others[i].name,
		       run_ns(fd, frame, make_frame(frame, 0, "192.0.2.99", 17, 9, "x", 1)));
		printf("| verified_insns, %s | %u |\n", others[i].name, prog_verified_insns(fd));
		bloomxdp__destroy(other);
	}
}

static double user_hash_ns(const __u64 hash_key[2])
{
	struct bloomxdp_key key;
	struct timespec a, b;
	__u64 sink = 0, i;
	__u32 addr = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < 10000000; i++) {
		addr = (__u32)i;
		bloomxdp_key_ipv4(&key, &addr, 32);
		sink += bloomxdp_siphash13(hash_key, &key);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (sink == 42)
		puts("");
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e7;
}

static int insert_entry(const struct entry *e, void *filter)
{
	entry_keys_insert(filter, e);
	return 0;
}

static void insert_text(struct filter *f, const char *text)
{
	const char *why = NULL;
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", text);
	if (entry_parse_line(buf, FORMAT_AUTO, insert_entry, f, &why)) {
		fprintf(stderr, "%s: %s\n", text, why);
		exit(1);
	}
}

#define LOOKUP_QUERIES 1000000U

/*
 * ns per lookup (keyed hash + probes) over LOOKUP_QUERIES different IPv4
 * keys, all listed or none listed, in a filter of n entries of a layout.
 */
static void lookup_row(__u32 layout, __u64 n)
{
	struct bloomxdp_config cfg = { .capacity = n, .layout = layout };
	double ns[2] = { 0, 0 };
	struct lookup *skel;
	struct bloom_plan plan;
	struct bloomxdp_key key;
	struct filter f;
	__u32 *addrs, i, *keys, count = LOOKUP_QUERIES;
	int listed;

	if (bloom_plan_compute_layout(n, 0.01, layout, &plan))
		return;
	cfg.bits = layout_config_bits(&plan);
	cfg.hashes = plan.hashes;
	cfg.hash_key[0] = 0x0706050403020100ULL;
	cfg.hash_key[1] = 0x0f0e0d0c0b0a0908ULL;
	if (filter_create(&cfg, &f))
		return;
	/* Listed: addresses i * 2654435761 | 1 << 24; other: the same with bit 0 flipped... */
	for (i = 0; i < n; i++) {
		__u32 a = htonl((__u32)(i * 2654435761u) | 0x01000000);

		bloomxdp_key_ipv4(&key, &a, 32);
		filter_insert(&f, &key);
	}
	addrs = calloc(count, sizeof(*addrs));
	keys = calloc(count, sizeof(*keys));
	for (listed = 1; listed >= 0 && addrs && keys; listed--) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = 1);
		LIBBPF_OPTS(bpf_map_batch_opts, bopts);
		__u8 frame[64] = {};

		opts.data_in = frame;
		opts.data_size_in = sizeof(frame);
		for (i = 0; i < count; i++) {
			__u64 j = listed ? (i * 7919ULL) % n : n + i;

			keys[i] = i;
			addrs[i] = htonl((__u32)(j * 2654435761u) | 0x01000000);
		}
		skel = lookup__open();
		if (!skel)
			break;
		skel->rodata_config->config = cfg;
		bloomxdp_addr_key_derive(cfg.hash_key, skel->rodata_config->config.addr_key);
		bpf_map__set_max_entries(skel->maps.addrs, count);
		if (f.kbloom_fd >= 0)
			bpf_map__reuse_fd(skel->maps.kbloom, f.kbloom_fd);
		else
			bpf_map__reuse_fd(skel->maps.words, f.map_fd);
		if (lookup__load(skel) ||
		    bpf_map_update_batch(bpf_map__fd(skel->maps.addrs), keys, addrs, &count, &bopts) ||
		    bpf_prog_test_run_opts(bpf_program__fd(skel->progs.lookup), &opts)) {
			fprintf(stderr, "lookup bench (%s, %llu): %s\n", layout_name(layout),
				(unsigned long long)n, strerror(errno));
			lookup__destroy(skel);
			break;
		}
		ns[listed] = (double)opts.duration / count;
		lookup__destroy(skel);
	}
	printf("| %s | %llu | %.2f | %.1f | %.1f |\n", layout_name(layout), (unsigned long long)n,
	       (double)plan.bits / n, ns[1], ns[0]);
	free(addrs);
	free(keys);
	filter_close(&f);
}

static void lookup_table(void)
{
	static const __u64 sizes[] = { 10000, 1000000, 10000000 };
	__u32 l, i;

	printf("\n| layout | entries | bits/entry | ns per lookup, listed | ns per lookup, "
	       "not listed |\n|---|---|---|---|---|\n");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (l = 0; l < LAYOUT_COUNT; l++)
			lookup_row(l, sizes[i]);
}

int main(int argc, char **argv)
{
	__u64 entries = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000, i;
	struct hash_probe_frame hf = {};
	struct hash_probe *hp = NULL;
	struct bloomxdp *skel = NULL;
	struct bloomxdp_config *cfg;
	struct filter f = { .map_fd = -1 };
	struct bloom_plan plan;
	struct bloomxdp_key key;
	__u8 frame[FRAME_MAX], payload[FRAME_MAX];
	static const int depths[] = { 1, 3, 7, 15 };
	double hash_full, hash_addr, hash_none;
	char name[300], http[400];
	const char *layout_env = getenv("BENCH_LAYOUT");
	__u32 layout = BLOOMXDP_LAYOUT_BITS;
	size_t d, len;
	int prog;
	__u32 a;

	if (layout_env && layout_parse(layout_env, &layout)) {
		fprintf(stderr, "BENCH_LAYOUT=%s: not a layout (bits, blocked, kernel)\n",
			layout_env);
		return 1;
	}

	if (bloom_plan_compute_layout(entries, 0.01, layout, &plan))
		return 1;
	skel = bloomxdp__open();
	hp = hash_probe__open_and_load();
	if (!skel || !hp)
		return 1;
	cfg = &skel->rodata_config->config;
	cfg->hash_key[0] = 0x0706050403020100ULL;
	cfg->hash_key[1] = 0x0f0e0d0c0b0a0908ULL;
	bloomxdp_addr_key_derive(cfg->hash_key, cfg->addr_key);
	cfg->bits = plan.bits;
	cfg->hashes = plan.hashes;
	cfg->layout = layout;
	cfg->match = BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_NAMES;
	cfg->dns_ports[0] = BLOOMXDP_DNS_PORT;
	cfg->http_ports[0] = BLOOMXDP_HTTP_PORT;
	cfg->tls_ports[0] = BLOOMXDP_TLS_PORT;
	cfg->capacity = entries;
	if (filter_create(cfg, &f))
		return 1;
	bpf_map__set_inner_map_fd(skel->maps.filter, f.map_fd);
	if (bloomxdp__load(skel) || filter_install(bpf_map__fd(skel->maps.filter), 0, &f))
		return 1;
	/* entries - 3 random IPv4 keys, and the hot hits: two addresses, one domain. */
	for (i = 0; i + 3 < entries; i++) {
		a = (__u32)(i * 2654435761u) | 0x01000000;
		bloomxdp_key_ipv4(&key, &a, 32);
		filter_insert(&f, &key);
	}
	insert_text(&f, "203.0.113.7");
	insert_text(&f, "2001:db8::7");
	insert_text(&f, "evil.example");
	prog = bpf_program__fd(skel->progs.bloomxdp_xdp);

	printf("| frame (hot, %llu entries, layout %s, k=%u) | ns/packet |\n|---|---|\n",
	       (unsigned long long)entries, layout_name(layout), plan.hashes);
	memset(frame, 0, sizeof(frame));
	((struct ethhdr *)frame)->h_proto = htons(ETH_P_ARP);
	printf("| ARP (parse only, no lookup) | %.0f |\n", run_ns(prog, frame, 64));
	printf("| IPv4, not listed | %.0f |\n",
	       run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 17, 9, "x", 1)));
	printf("| IPv4, listed (k probes) | %.0f |\n",
	       run_ns(prog, frame, make_frame(frame, 0, "203.0.113.7", 17, 9, "x", 1)));
	printf("| IPv6, not listed | %.0f |\n",
	       run_ns(prog, frame, make_frame(frame, 1, "2001:db8::99", 17, 9, "x", 1)));
	printf("| IPv6, listed (k probes) | %.0f |\n",
	       run_ns(prog, frame, make_frame(frame, 1, "2001:db8::7", 17, 9, "x", 1)));
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		deep_name(name, depths[d], "good.example");
		len = dns_query(payload, name);
		printf("| DNS query, %d labels, not listed | %.0f |\n", depths[d] + 2,
		       run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 17, 53, payload,
							len)));
	}
	deep_name(name, 3, "evil.example");
	len = dns_query(payload, name);
	printf("| DNS query, 5 labels, under a listed domain | %.0f |\n",
	       run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 17, 53, payload, len)));
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		deep_name(name, depths[d], "good.example");
		len = client_hello(payload, name);
		printf("| TLS ClientHello, SNI of %d labels, not listed | %.0f |\n", depths[d] + 2,
		       run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 6, 443, payload,
							len)));
	}
	deep_name(name, 1, "good.example");
	len = snprintf(http, sizeof(http), "GET /a/b/c HTTP/1.1\r\nHost: %s\r\nUser-Agent: "
		       "bench\r\nAccept: */*\r\n\r\n", name);
	printf("| HTTP GET, Host of 3 labels, not listed | %.0f |\n",
	       run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 6, 80, http, len)));
	dns_answer_rows(skel, &f, prog);

	/*
	 * Suffixes deeper than any listed name are not hashed: with a name of 16
	 * labels listed, every label of every name is.
	 */
	insert_text(&f, "p.o.n.m.l.k.j.i.h.g.f.e.d.c.b.a");
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d += 3) {
		deep_name(name, depths[d], "good.example");
		len = dns_query(payload, name);
		printf("| DNS query, %d labels, not listed, a 16-label name listed | %.0f |\n",
		       depths[d] + 2, run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 17, 53,
								     payload, len)));
		len = client_hello(payload, name);
		printf("| TLS ClientHello, SNI of %d labels, not listed, a 16-label name listed | "
		       "%.0f |\n", depths[d] + 2,
		       run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 6, 443, payload,
							len)));
	}
	deep_name(name, 1, "good.example");
	len = snprintf(http, sizeof(http), "GET /a/b/c HTTP/1.1\r\nHost: %s\r\nUser-Agent: "
		       "bench\r\nAccept: */*\r\n\r\n", name);
	printf("| HTTP GET, Host of 3 labels, not listed, a 16-label name listed | %.0f |\n",
	       run_ns(prog, frame, make_frame(frame, 0, "192.0.2.99", 6, 80, http, len)));

	ranges_rows(skel, &f, prog);

	bloomxdp_key_ipv4(&hf.key, &(__u32){ 0x07710bcb }, 32);
	hf.hash_key[0] = 1;
	bloomxdp_addr_key_derive(hf.hash_key, hf.addr_key);
	hf.bits = plan.bits;
	hf.hashes = 0;
	hf.skip = HASH_PROBE_SKIP_ADDR;
	hash_full = run_ns(bpf_program__fd(hp->progs.hash_probe), &hf, sizeof(hf));
	hf.skip = HASH_PROBE_SKIP_SIP;
	hash_addr = run_ns(bpf_program__fd(hp->progs.hash_probe), &hf, sizeof(hf));
	hf.bits = 0;	/* returns before hashing */
	hash_none = run_ns(bpf_program__fd(hp->progs.hash_probe), &hf, sizeof(hf));
	printf("| SipHash-1-3 of an IPv4 key in the kernel (difference of two runs) | %.0f |\n",
	       hash_full - hash_none);
	printf("| address hash (multiply-add-shift) of an IPv4 key in the kernel (the same) | %.0f |\n",
	       hash_addr - hash_none);
	printf("| SipHash-1-3 of an IPv4 key in user space | %.1f |\n",
	       user_hash_ns(cfg->hash_key));
	filter_close(&f);
	bloomxdp__destroy(skel);
	hash_probe__destroy(hp);
	if (!getenv("BENCH_NO_LOOKUP"))
		lookup_table();
	return 0;
}
