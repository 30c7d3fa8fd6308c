// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bench-only: the cost of one filter lookup (keyed hash + probes) over many
 * different keys, so that a large filter is read from memory as packets
 * would read it, not from a hot cache line. Run once with BPF_PROG_TEST_RUN;
 * it walks every address of the addrs map with bpf_loop and counts hits.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloomxdp/common.h>

const volatile struct bloomxdp_config config SEC(".rodata.config");

/* The probes as the XDP program runs them: the same header. */
#include "../bpf/filter.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The filter under test: the bit array, or a BLOOM_FILTER (layout kernel). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bloomxdp_line);
} words SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, sizeof(__u64));
	__uint(map_extra, 1);
} kbloom SEC(".maps");

/* IPv4 addresses to look up, network order. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} addrs SEC(".maps");

__u64 hits;

static long lookup_step(__u32 i, void *data)
{
	struct bloomxdp_key key;
	__u32 *addr = bpf_map_lookup_elem(&addrs, &i);
	void *filter;

	(void)data;
	if (!addr)
		return 1;
	filter = config.layout == BLOOMXDP_LAYOUT_KERNEL ? (void *)&kbloom : (void *)&words;
	bloomxdp_key_ipv4(&key, addr, 32);
	hits += bloomxdp_filter_test(filter, config.layout, config.bits, config.hashes,
				     bloomxdp_addr_hash(config.addr_key, &key));
	return 0;
}

SEC("xdp")
int lookup(struct xdp_md *ctx)
{
	(void)ctx;
	bpf_loop(1 << 23, lookup_step, NULL, 0);
	return XDP_PASS;
}
