// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reference receivers of the throughput benchmark, attached (native XDP) to
 * the receiving end of a veth pair by bench/rx.c:
 *   rx_bare  reads the source address and gives the verdict the generator
 *            stamped in the IPv4 ID (1: listed), with no lookup at all: the
 *            limit of the receive path on this machine;
 *   rx_hash  the list held exactly in a BPF hash map (key: the address);
 *   rx_lpm   the list held exactly in an LPM trie (/32 entries);
 *   rx_pass  passes everything: put in front of nftables and ipset, because
 *            a veth receives the frames of its peer's XDP_TX only while an
 *            XDP program is attached to it;
 *   rx_floor the floor of a filter's footprint: hashes the source address
 *            (multiplicative) and reads one 64-byte line of floor_table, an
 *            array sized by rx.c to the bytes of bloomxdp's live filter
 *            (filled with ones: the verdict is the generator's stamp ANDed
 *            with a bit of the line, so the read stays; the same read for
 *            listed and unlisted frames).
 * Each counts frames and drops per CPU (rx_counters: 0 packets, 1 dropped).
 * Listed: XDP_DROP; not listed: XDP_PASS (into the stack, the same for all).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} rx_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* set by rx.c */
	__type(key, __u32);
	__type(value, __u8);
} list_hash SEC(".maps");

struct lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);		/* set by rx.c */
	__type(key, struct lpm_key);
	__type(value, __u8);
} list_lpm SEC(".maps");

/* One 64-byte line of the floor's table. */
struct floor_line {
	__u64 w[8];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* set by rx.c: the filter's bytes / 64 */
	__type(key, __u32);
	__type(value, struct floor_line);
} floor_table SEC(".maps");

const volatile __u32 floor_lines = 1;	/* max_entries of floor_table */

static __always_inline int verdict(int listed)
{
	__u32 key = 0;
	__u64 *c = bpf_map_lookup_elem(&rx_counters, &key);

	if (c)
		(*c)++;
	if (!listed)
		return XDP_PASS;
	key = 1;
	c = bpf_map_lookup_elem(&rx_counters, &key);
	if (c)
		(*c)++;
	return XDP_DROP;
}

/* The IPv4 header of an untagged frame, or NULL. */
static __always_inline struct iphdr *ipv4(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return NULL;
	return ip;
}

SEC("xdp")
int rx_bare(struct xdp_md *ctx)
{
	struct iphdr *ip = ipv4(ctx);
	volatile __u32 saddr;

	if (!ip)
		return verdict(0);
	saddr = ip->saddr;
	(void)saddr;
	return verdict(ip->id != 0);
}

SEC("xdp")
int rx_hash(struct xdp_md *ctx)
{
	struct iphdr *ip = ipv4(ctx);
	__u32 saddr;

	if (!ip)
		return verdict(0);
	saddr = ip->saddr;
	return verdict(bpf_map_lookup_elem(&list_hash, &saddr) != NULL);
}

SEC("xdp")
int rx_lpm(struct xdp_md *ctx)
{
	struct iphdr *ip = ipv4(ctx);
	struct lpm_key key = { .prefixlen = 32 };

	if (!ip)
		return verdict(0);
	key.addr = ip->saddr;
	return verdict(bpf_map_lookup_elem(&list_lpm, &key) != NULL);
}

SEC("xdp")
int rx_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return verdict(0);
}

SEC("xdp")
int rx_floor(struct xdp_md *ctx)
{
	struct iphdr *ip = ipv4(ctx);
	struct floor_line *line;
	__u32 h, key;
	__u64 w;

	if (!ip)
		return verdict(0);
	h = ip->saddr * 0x9e3779b1u;
	key = ((__u64)h * floor_lines) >> 32;	/* in [0, floor_lines) */
	line = bpf_map_lookup_elem(&floor_table, &key);
	if (!line)
		return verdict(0);
	/* Volatile: read for every frame. Without it the load sinks under the
	 * test of the stamp, and unlisted frames would skip the line. */
	w = *(volatile __u64 *)&line->w[h & 7];
	return verdict(ip->id != 0 && ((w >> (h >> 26)) & 1));
}
