// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traffic generator of the throughput benchmark. Run by BPF_PROG_TEST_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES (bench/gen.c) on one end of a veth pair: every
 * iteration stamps the frame with the next source address of the traffic map
 * (and its IPv4 ID, 1 for a listed address, which only the bare receiver
 * reads), fixes the IPv4 header checksum and returns XDP_TX, which the test
 * run turns into a redirect out of ingress_ifindex: the frame arrives at the
 * peer, where the receiver under test runs.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Traffic: low 4 bytes the source address, bytes 4-5 the IPv4 ID (both as stored in the frame). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* set by gen.c */
	__type(key, __u32);
	__type(value, __u64);
} traffic SEC(".maps");

/* Where each CPU is in the traffic map, and how many frames it stamped. */
struct cursor {
	__u64 next;
	__u64 frames;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cursor);
} cursors SEC(".maps");

/*
 * The part of the traffic map in use (one traffic mix), and the one's
 * complement sum of the frame's IPv4 header with saddr, ID and checksum zero:
 * set by gen.c between test runs.
 */
volatile __u32 traffic_base;
volatile __u32 traffic_len;
volatile __u32 csum_base;

/*
 * DNS flood (gen --dns-zone): the frame carries a query whose first
 * name_labels labels, of 8 letters each, start at name_off; each frame gets
 * new random letters there (a water-torture flood: every name new). id_or is
 * ORed into the IPv4 ID: the bare receiver's "listed" for a listed zone.
 */
volatile __u32 name_off;
volatile __u32 name_labels;
volatile __u32 id_or;

#define MAX_RANDOM_LABELS 4

/* splitmix64: 8 random bytes from a counter. */
static __always_inline __u64 mix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static __always_inline void stamp_labels(void *data, void *end, __u64 seed)
{
	__u32 off = name_off, j, k;
	__u8 *p;
	__u64 r;

	for (j = 0; j < MAX_RANDOM_LABELS; j++) {
		if (j >= name_labels)
			break;
		p = data + ((off + j * 9) & 0xff);
		if ((void *)(p + 8) > end)
			return;
		r = mix64(seed * MAX_RANDOM_LABELS + j);
		for (k = 0; k < 8; k++)
			p[k] = 'a' + (((r >> (k * 8)) & 0xff) * 26 >> 8);
	}
}

SEC("xdp")
int gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct iphdr *ip = data + sizeof(struct ethhdr);
	struct cursor *c;
	__u32 zero = 0, i, sum;
	__u64 *e, v;

	if ((void *)(ip + 1) > end)
		return XDP_ABORTED;
	c = bpf_map_lookup_elem(&cursors, &zero);
	if (!c)
		return XDP_ABORTED;
	i = c->next;
	c->next = i + 1 >= traffic_len ? 0 : i + 1;
	c->frames++;
	i += traffic_base;
	e = bpf_map_lookup_elem(&traffic, &i);
	if (!e)
		return XDP_ABORTED;
	v = *e;
	if (name_off)
		stamp_labels(data, end, c->frames + ((__u64)bpf_get_smp_processor_id() << 48));
	v |= (__u64)(__u16)id_or << 32;
	ip->saddr = (__u32)v;
	ip->id = (__u16)(v >> 32);
	sum = csum_base + ((__u32)v & 0xffff) + ((__u32)v >> 16) + (__u16)(v >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->check = (__u16)~sum;
	return XDP_TX;
}
