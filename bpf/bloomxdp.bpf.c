// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bloomxdp: drop (or count) packets whose IPv4/IPv6 address is in a Bloom
 * filter. Fails open: whatever cannot be parsed passes and is counted.
 */
#include "parsing.h"

static __always_inline __u64 *bloomxdp_filter_word(void *filter, __u32 index)
{
	return bpf_map_lookup_elem(filter, &index);
}

#include <bloomxdp/bloom.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Its own section, so that the pinned map holds exactly this struct. */
const volatile struct bloomxdp_config config SEC(".rodata.config");

/* Template of the inner map; the CLI creates every real one with the same geometry. */
struct filter_bits {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct filter_bits);
} filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bloomxdp_counters);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bloomxdp_state);
} state SEC(".maps");

static __always_inline int filter_has(void *bits, const struct bloomxdp_key *key)
{
	/*
	 * Read through the volatile config: casting it away lets clang fold the
	 * loads to the zero initializer, i.e. hash with key {0, 0}.
	 */
	__u64 hash_key[2] = { config.hash_key[0], config.hash_key[1] };
	__u64 hash = bloomxdp_siphash13(hash_key, key);

	return bloomxdp_bits_test(bits, config.bits, config.hashes, hash);
}

static __always_inline int ipv4_listed(void *bits, const __be32 *addr)
{
	struct bloomxdp_key key;

	bloomxdp_key_ipv4(&key, addr, 32);
	return filter_has(bits, &key);
}

static __always_inline int ipv6_listed(void *bits, const struct in6_addr *addr)
{
	struct bloomxdp_key key;

	if (bloomxdp_ipv6_is_v4mapped(addr))
		bloomxdp_key_ipv4(&key, &addr->in6_u.u6_addr32[3], 32);
	else
		bloomxdp_key_ipv6(&key, addr, 128);
	return filter_has(bits, &key);
}

static __always_inline void count_malformed(struct bloomxdp_counters *cnt, int err)
{
	cnt->malformed++;
	switch (err) {
	case PARSE_BAD_ETH:
		cnt->bad_eth++;
		break;
	case PARSE_BAD_VLAN:
		cnt->bad_vlan++;
		break;
	case PARSE_BAD_IPV4:
		cnt->bad_ipv4++;
		break;
	case PARSE_BAD_IPV4_IHL:
		cnt->bad_ipv4_ihl++;
		break;
	case PARSE_BAD_IPV6:
		cnt->bad_ipv6++;
		break;
	}
}

SEC("xdp")
int bloomxdp_xdp(struct xdp_md *ctx)
{
	struct cursor c = { .pos = (void *)(long)ctx->data, .end = (void *)(long)ctx->data_end };
	struct bloomxdp_counters *cnt;
	struct ipv6_ext_result ext;
	struct ipv6hdr *ip6h;
	struct iphdr *iph;
	__u32 zero = 0;
	int verdict = XDP_PASS;
	int hit = 0;
	void *bits;
	int proto;

	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!cnt)
		return XDP_PASS;	/* cannot happen: a one-slot per-CPU array */
	cnt->packets++;
	cnt->bytes += c.end - c.pos;

	proto = parse_ethhdr(&c);
	if (proto == PARSE_VLAN_TOO_DEEP) {
		cnt->vlan_too_deep++;
		goto out;
	}
	if (proto < 0) {
		count_malformed(cnt, proto);
		goto out;
	}
	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6)) {
		cnt->non_ip++;
		goto out;
	}

	bits = bpf_map_lookup_elem(&filter, &zero);

	if (proto == bpf_htons(ETH_P_IP)) {
		proto = parse_iphdr(&c, &iph);
		if (proto < 0) {
			count_malformed(cnt, proto);
			goto out;
		}
		if (ipv4_is_fragment(iph))
			cnt->fragments++;
		if (!bits) {
			cnt->no_filter++;
			goto out;
		}
		cnt->checked_v4++;
		if (config.match & BLOOMXDP_MATCH_SRC)
			hit = ipv4_listed(bits, &iph->saddr);
		if (!hit && (config.match & BLOOMXDP_MATCH_DST))
			hit = ipv4_listed(bits, &iph->daddr);
		if (hit)
			cnt->hits_v4++;
	} else {
		proto = parse_ip6hdr(&c, &ip6h);
		if (proto < 0) {
			count_malformed(cnt, proto);
			goto out;
		}
		/* The L4 offset serves later matchers; the address is known already. */
		skip_ip6hdrext(&c, proto, &ext);
		if (ext.l4_proto < 0)
			cnt->ipv6_ext_unparsed++;
		if (ext.is_fragment)
			cnt->fragments++;
		if (!bits) {
			cnt->no_filter++;
			goto out;
		}
		cnt->checked_v6++;
		if (config.match & BLOOMXDP_MATCH_SRC)
			hit = ipv6_listed(bits, &ip6h->saddr);
		if (!hit && (config.match & BLOOMXDP_MATCH_DST))
			hit = ipv6_listed(bits, &ip6h->daddr);
		if (hit)
			cnt->hits_v6++;
	}

	if (hit) {
		if (config.action == BLOOMXDP_ACTION_MONITOR)
			cnt->would_drop++;
		else
			verdict = XDP_DROP;
	}
out:
	if (verdict == XDP_DROP)
		cnt->dropped++;
	else
		cnt->passed++;
	return verdict;
}
