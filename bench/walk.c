// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bench-only: the whole XDP program's time per packet (BPF_PROG_TEST_RUN's
 * in-kernel duration, one run per frame) over many different IPv4 source
 * addresses, all listed or none listed, in a filter of n entries: the filter
 * is read from memory as live traffic reads it. Unlike the throughput through
 * a veth, a busy machine hardly moves it (preemption is left out), so it
 * compares builds side by side. Each figure includes the test run's own
 * overhead: the ARP line (parse only) gives it.
 *
 *   build/bench/walk ENTRIES [LAYOUT [EVENTS_PER_SEC [VERIFY]]]
 *	(layout 0 bits, 1 blocked, 2 kernel; VERIFY 1: --verify on, every host in
 *	the exact stage too, so that each listed packet is confirmed there)
 *
 * It builds against an older tree too (the same library calls), for a before/after table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include <bloomxdp/common.h>
#include "bloomxdp.skel.h"
#include "parse/entries.h"
#include "filter/exact.h"
#include "filter/filter.h"
#include "kernel/loader.h"
#include "parse/keys.h"
#include "filter/layout.h"
#include "filter/bloom_plan.h"

#define QUERIES 300000

/* Listed address j, network order (as bench/prog_run's lookup table). */
static __u32 addr_of(__u64 j)
{
	return htonl((__u32)(j * 2654435761u) | 0x01000000);
}

/* The kernel's run_time_ns of the program (bpf_enable_stats() on): the program alone. */
static __u64 prog_time(int prog, __u64 *runs)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog, &info, &len))
		return 0;
	*runs = info.run_cnt;
	return info.run_time_ns;
}

/* The program's own ns per packet of the last walk(), from the kernel's statistics. */
static double walk_prog_ns;

/* Mean ns per run of frames whose source is addr(i) (or an ARP frame: addr NULL). */
static double walk(int prog, __u8 *frame, __u32 (*addr)(__u64 i, __u64 n), __u64 n,
		   double *dropped)
{
	double sum = 0;
	__u64 i, drops = 0, t0, c0, t1, c1;

	t0 = prog_time(prog, &c0);
	for (i = 0; i < QUERIES; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = 60,
			    .repeat = 1);
		__u32 a;

		if (addr) {
			a = addr(i, n);
			memcpy(frame + ETH_HLEN + 12, &a, 4);
		}
		if (bpf_prog_test_run_opts(prog, &opts)) {
			fprintf(stderr, "test run failed: %s\n", strerror(errno));
			exit(1);
		}
		sum += opts.duration;
		drops += opts.retval == 1;	/* XDP_DROP */
	}
	t1 = prog_time(prog, &c1);
	walk_prog_ns = c1 > c0 ? (double)(t1 - t0) / (c1 - c0) : 0;
	*dropped = (double)drops / QUERIES;
	return sum / QUERIES;
}

static __u32 listed_addr(__u64 i, __u64 n)
{
	return addr_of(i * 7919ULL % n);
}

static __u32 unlisted_addr(__u64 i, __u64 n)
{
	return addr_of(n + i);
}

/* The exact stage of generation 0: every listed host in its hash map. */
static int exact_install(struct bloomxdp *skel, __u64 n)
{
	struct exact_outer verify, allow;
	struct entry e = { .kind = ENTRY_ADDR };
	struct exact_set x;
	__u64 i;
	__u32 a;

	if (exact_set_create_hashed(&x, n + 1))
		return -1;
	for (i = 0; i < (getenv("WALK_EMPTY") ? 0 : n); i++) {
		a = addr_of(i);
		bloomxdp_key_ipv4(&e.addr, &a, 32);
		if (exact_set_add(&x, skel->rodata_config->config.hash_key, &e))
			return -1;
	}
	loader_exact_outers(skel, &verify, &allow);
	if (exact_set_install(&verify, 0, &x))
		return -1;
	fprintf(stderr, "exact stage: %llu hosts, %llu bytes\n", (unsigned long long)n,
		(unsigned long long)exact_set_bytes(&x));
	exact_set_close(&x);
	return 0;
}

int main(int argc, char **argv)
{
	__u64 n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000, i;
	__u32 layout = argc > 2 ? atoi(argv[2]) : BLOOMXDP_LAYOUT_BLOCKED;
	struct bloomxdp *skel = bloomxdp__open();
	struct bloomxdp_config *cfg;
	struct bloom_plan plan;
	struct bloomxdp_key key;
	__u8 frame[64] = { 0 };
	struct filter f;
	double ns, dropped;
	int prog;

	if (!skel || !n || bloom_plan_compute_layout(n, 0.01, layout, &plan))
		return 1;
	cfg = &skel->rodata_config->config;
	cfg->hash_key[0] = 0x0706050403020100ULL;
	cfg->hash_key[1] = 0x0f0e0d0c0b0a0908ULL;
#ifdef BLOOMXDP_ADDR_KEY_WORDS	/* a tree without the address hash has none */
	bloomxdp_addr_key_derive(cfg->hash_key, cfg->addr_key);
#endif
	cfg->bits = layout_config_bits(&plan);
	cfg->hashes = plan.hashes;
	cfg->layout = layout;
	cfg->capacity = n;
	cfg->match = BLOOMXDP_MATCH_SRC;
	cfg->events_per_sec = argc > 3 ? atoi(argv[3]) : 100;
	cfg->verify = argc > 4 ? atoi(argv[4]) : BLOOMXDP_VERIFY_OFF;
	if (filter_create(cfg, &f))
		return 1;
	bpf_map__set_inner_map_fd(skel->maps.filter, f.map_fd);
	if (f.kbloom_fd >= 0)
		bpf_map__set_inner_map_fd(skel->maps.kfilter, f.kbloom_fd);
	if (bloomxdp__load(skel) || filter_install(bpf_map__fd(skel->maps.filter), 0, &f) ||
	    filter_install_kernel(bpf_map__fd(skel->maps.kfilter), 0, &f))
		return 1;
	for (i = 0; i < n; i++) {
		__u32 a = addr_of(i);

		bloomxdp_key_ipv4(&key, &a, 32);
		filter_insert(&f, &key);
	}
	if (cfg->verify && exact_install(skel, n))
		return 1;
	prog = bpf_program__fd(skel->progs.bloomxdp_xdp);
	/* run_time_ns and run_cnt kept while this process holds the fd. */
	if (bpf_enable_stats(BPF_STATS_RUN_TIME) < 0)
		fprintf(stderr, "no BPF statistics: %s\n", strerror(errno));
	((struct ethhdr *)frame)->h_proto = htons(ETH_P_ARP);
	ns = walk(prog, frame, NULL, n, &dropped);
	printf("entries %llu layout %s events %u verify %u: ARP (parse only) %.1f ns",
	       (unsigned long long)n, layout_name(layout), cfg->events_per_sec, cfg->verify, ns);
	((struct ethhdr *)frame)->h_proto = htons(ETH_P_IP);
	frame[ETH_HLEN] = 0x45;
	frame[ETH_HLEN + 3] = 46;	/* total length */
	frame[ETH_HLEN + 9] = IPPROTO_UDP;
	ns = walk(prog, frame, listed_addr, n, &dropped);
	printf(", listed %.1f ns (program %.1f; %.1f%% dropped)", ns, walk_prog_ns, dropped * 100);
	ns = walk(prog, frame, unlisted_addr, n, &dropped);
	printf(", unlisted %.1f ns (program %.1f; %.1f%% dropped)\n", ns, walk_prog_ns,
	       dropped * 100);
	filter_close(&f);
	bloomxdp__destroy(skel);
	return 0;
}
