// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fills a BPF_MAP_TYPE_BLOOM_FILTER (layout "kernel") with many keys per
 * syscall: the kernel has no batch update for that map type (ENOTSUPP), so
 * user space writes up to KBLOOM_FILL_BATCH keys into keys[] (its mmap-ed
 * .bss), sets count, and runs this program once (BPF_PROG_TEST_RUN), which
 * pushes each key as bpf_map_update_elem() would. kbloom is replaced by the
 * filter's own map (bpf_map__reuse_fd) before load. Not attached anywhere.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloomxdp/common.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(map_extra, 1);
	__type(value, __u64);
} kbloom SEC(".maps");

__u64 keys[BLOOMXDP_KBLOOM_FILL_BATCH];
__u32 count;
__u32 failed;

static long push_one(__u32 i, void *ctx)
{
	(void)ctx;
	if (i >= BLOOMXDP_KBLOOM_FILL_BATCH)
		return 1;
	if (bpf_map_push_elem(&kbloom, &keys[i], BPF_ANY))
		failed++;
	return 0;
}

SEC("xdp")
int kbloom_fill(struct xdp_md *ctx)
{
	(void)ctx;
	bpf_loop(count, push_one, NULL, 0);
	return XDP_PASS;
}
