// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ns per packet of the XDP program in the kernel, by BPF_PROG_TEST_RUN with
 * repeat, and the cost of the keyed hash alone. One hot frame per row: this
 * is the floor of the per-packet cost (caches warm), not a throughput figure.
 *
 * Usage: bench/prog_run [entries]   (default 1000000)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include <bloomxdp/common.h>
#include "bloomxdp.skel.h"
#include "hash_probe.skel.h"
#include "filter.h"
#include "hash_probe.h"
#include "keys.h"
#include "sizing.h"

#define REPEAT 2000000

static double run_ns(int prog_fd, void *frame, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .repeat = REPEAT);

	if (bpf_prog_test_run_opts(prog_fd, &opts)) {
		fprintf(stderr, "test run failed: %s\n", strerror(errno));
		exit(1);
	}
	return opts.duration;
}

static size_t ipv4_frame(__u8 *buf, const char *src)
{
	struct ethhdr *eth = (void *)buf;
	__u8 *ip = buf + sizeof(*eth);

	memset(buf, 0, 64);
	eth->h_proto = htons(ETH_P_IP);
	ip[0] = 0x45;
	ip[9] = 17;
	inet_pton(AF_INET, src, ip + 12);
	inet_pton(AF_INET, "192.0.2.1", ip + 16);
	return 64;
}

static size_t ipv6_frame(__u8 *buf, const char *src)
{
	struct ethhdr *eth = (void *)buf;
	__u8 *ip = buf + sizeof(*eth);

	memset(buf, 0, 80);
	eth->h_proto = htons(ETH_P_IPV6);
	ip[0] = 0x60;
	ip[6] = 17;
	inet_pton(AF_INET6, src, ip + 8);
	inet_pton(AF_INET6, "2001:db8::1", ip + 24);
	return 80;
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
	__u8 frame[128];
	double arp, v4_miss, v4_hit, v6_miss, v6_hit, hash_full, hash_none;
	int prog;
	__u32 a;

	if (bloom_plan_compute(entries, 0.01, &plan))
		return 1;
	skel = bloomxdp__open();
	hp = hash_probe__open_and_load();
	if (!skel || !hp)
		return 1;
	cfg = &skel->rodata_config->config;
	cfg->hash_key[0] = 0x0706050403020100ULL;
	cfg->hash_key[1] = 0x0f0e0d0c0b0a0908ULL;
	cfg->bits = plan.bits;
	cfg->hashes = plan.hashes;
	cfg->match = BLOOMXDP_MATCH_SRC;
	cfg->capacity = entries;
	if (filter_create(cfg, &f))
		return 1;
	bpf_map__set_inner_map_fd(skel->maps.filter, f.map_fd);
	if (bloomxdp__load(skel) || filter_install(bpf_map__fd(skel->maps.filter), &f))
		return 1;
	/* entries - 2 random IPv4 keys, plus the two hot hit addresses. */
	for (i = 0; i + 2 < entries; i++) {
		a = (__u32)(i * 2654435761u) | 0x01000000;
		bloomxdp_key_ipv4(&key, &a, 32);
		filter_insert(&f, &key);
	}
	key_parse("203.0.113.7", &key, &(const char *){ NULL });
	filter_insert(&f, &key);
	key_parse("2001:db8::7", &key, &(const char *){ NULL });
	filter_insert(&f, &key);
	prog = bpf_program__fd(skel->progs.bloomxdp_xdp);

	memset(frame, 0, sizeof(frame));
	((struct ethhdr *)frame)->h_proto = htons(ETH_P_ARP);
	arp = run_ns(prog, frame, 64);
	v4_miss = run_ns(prog, frame, ipv4_frame(frame, "192.0.2.99"));
	v4_hit = run_ns(prog, frame, ipv4_frame(frame, "203.0.113.7"));
	v6_miss = run_ns(prog, frame, ipv6_frame(frame, "2001:db8::99"));
	v6_hit = run_ns(prog, frame, ipv6_frame(frame, "2001:db8::7"));

	bloomxdp_key_ipv4(&hf.key, &(__u32){ 0x07710bcb }, 32);
	hf.hash_key[0] = 1;
	hf.bits = plan.bits;
	hf.hashes = 0;
	hash_full = run_ns(bpf_program__fd(hp->progs.hash_probe), &hf, sizeof(hf));
	hf.bits = 0;	/* returns before hashing */
	hash_none = run_ns(bpf_program__fd(hp->progs.hash_probe), &hf, sizeof(hf));

	printf("| frame (hot, %llu entries, k=%u) | ns/packet |\n|---|---|\n",
	       (unsigned long long)entries, plan.hashes);
	printf("| ARP (parse only, no lookup) | %.1f |\n", arp);
	printf("| IPv4, not listed | %.1f |\n", v4_miss);
	printf("| IPv4, listed (k probes) | %.1f |\n", v4_hit);
	printf("| IPv6, not listed | %.1f |\n", v6_miss);
	printf("| IPv6, listed (k probes) | %.1f |\n", v6_hit);
	printf("| SipHash-1-3 of an IPv4 key in the kernel (difference of two runs) | %.1f |\n",
	       hash_full - hash_none);
	printf("| SipHash-1-3 of an IPv4 key in user space | %.1f |\n",
	       user_hash_ns(cfg->hash_key));
	filter_close(&f);
	bloomxdp__destroy(skel);
	hash_probe__destroy(hp);
	return 0;
}
