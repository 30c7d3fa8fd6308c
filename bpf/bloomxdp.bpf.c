// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bloomxdp: drop (or count) packets whose IPv4/IPv6 address, DNS query name,
 * HTTP host or URL, or TLS SNI is in a Bloom filter. Fails open: whatever
 * cannot be parsed passes and is counted.
 */
#include <linux/tcp.h>
#include <linux/udp.h>
#include "parsing.h"

static __always_inline __u64 *bloomxdp_filter_word(void *filter, __u32 index)
{
	return bpf_map_lookup_elem(filter, &index);
}

#include <bloomxdp/bloom.h>
#include "match_names.h"
#include "dns.h"
#include "http.h"
#include "tls.h"

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

/* kinds: the filter's header word; a family the list does not hold is not looked up. */
static __always_inline int ipv4_listed(void *bits, __u64 kinds, const __be32 *addr)
{
	struct bloomxdp_key key;

	if (!(kinds & BLOOMXDP_HAS_IPV4))
		return 0;
	bloomxdp_key_ipv4(&key, addr, 32);
	return filter_has(bits, &key);
}

static __always_inline int ipv6_listed(void *bits, __u64 kinds, const struct in6_addr *addr)
{
	struct bloomxdp_key key;

	if (bloomxdp_ipv6_is_v4mapped(addr))
		return ipv4_listed(bits, kinds, &addr->in6_u.u6_addr32[3]);
	if (!(kinds & BLOOMXDP_HAS_IPV6))
		return 0;
	bloomxdp_key_ipv6(&key, addr, 128);
	return filter_has(bits, &key);
}

/* The filter's header word (BLOOMXDP_HAS_*). */
static __always_inline __u64 filter_kinds(void *bits)
{
	__u32 index = bloomxdp_header_index(config.bits);
	__u64 *header = bpf_map_lookup_elem(bits, &index);

	return header ? *header : 0;
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

/* Which name matcher a packet goes to, from its L4 protocol and destination port. */
enum name_field {
	FIELD_NONE,
	FIELD_DNS,		/* UDP to a DNS port */
	FIELD_HTTP,		/* TCP to an HTTP port */
	FIELD_TLS,		/* TCP to a TLS port */
	FIELD_DNS_TCP,		/* TCP to a DNS port: not parsed, counted */
	FIELD_QUIC,		/* UDP to a TLS port: not parsed, counted */
};

/* Where the parsers left off, for the name matchers. */
struct packet {
	__u32 l3_off;
	__u32 l4_off;
	__u32 field;		/* enum name_field */
	__u32 ip_end;		/* end of the IP packet: Ethernet padding may follow */
	int ipv6;
};

static __always_inline int port_listed(const volatile __u16 *ports, __u16 port)
{
	int i;

	for (i = 0; i < BLOOMXDP_MAX_PORTS; i++)
		if (ports[i] && ports[i] == port)
			return 1;
	return 0;
}

static __always_inline __u32 name_field(int l4_proto, __u16 dport)
{
	__u32 match = config.match;

	if (l4_proto == IPPROTO_UDP) {
		if ((match & BLOOMXDP_MATCH_DNS) && port_listed(config.dns_ports, dport))
			return FIELD_DNS;
		if ((match & BLOOMXDP_MATCH_SNI) && port_listed(config.tls_ports, dport))
			return FIELD_QUIC;
	} else if (l4_proto == IPPROTO_TCP) {
		if ((match & BLOOMXDP_MATCH_HTTP) && port_listed(config.http_ports, dport))
			return FIELD_HTTP;
		if ((match & BLOOMXDP_MATCH_SNI) && port_listed(config.tls_ports, dport))
			return FIELD_TLS;
		if ((match & BLOOMXDP_MATCH_DNS) && port_listed(config.dns_ports, dport))
			return FIELD_DNS_TCP;
	}
	return FIELD_NONE;
}

/*
 * Records where L4 starts and which name matcher applies, as soon as the IP
 * headers are parsed. Only scalars leave: the packet pointer is then dead,
 * and the verifier can merge the many parse paths (VLANs, IPv6 extension
 * chains) instead of walking the rest of the program once for each.
 */
static __always_inline void packet_set_l4(struct xdp_md *ctx, const struct cursor *c,
					  int l4_proto, struct packet *pkt)
{
	__be16 *ports = c->pos;	/* UDP and TCP both start with source, destination */
	__u32 off = c->pos - (void *)(long)ctx->data;

	barrier_var(off);
	pkt->l4_off = off & 0x3ff;
	pkt->field = FIELD_NONE;
	if (!(config.match & BLOOMXDP_MATCH_NAMES) || l4_proto < 0 ||
	    (void *)(ports + 2) > c->end)
		return;
	pkt->field = name_field(l4_proto, bpf_ntohs(ports[1]));
}

static __always_inline void name_walk_init(struct name_walk *w, void *bits, __u64 kinds)
{
	w->bits = bits;
	w->kinds = kinds;
	/* Read through the volatile: a cast would let clang fold the key to zero. */
	w->hash_key[0] = config.hash_key[0];
	w->hash_key[1] = config.hash_key[1];
	w->filter_bits = config.bits;
	w->hashes = config.hashes;
}

/* DNS over UDP: 1 on a hit, with *question_end set for an NXDOMAIN answer. */
static __always_inline int match_dns(struct xdp_md *ctx, struct bloomxdp_counters *cnt,
				     struct scratch *s, void *bits, __u64 kinds, __u32 off,
				     __u32 len, __u32 *question_end)
{
	struct name_walk w;

	if (dns_parse_query(ctx, off, len, s, question_end)) {
		cnt->unparsed_dns++;
		return 0;
	}
	cnt->checked_dns++;
	name_walk_init(&w, bits, kinds);
	if (!name_listed(s, &w))
		return 0;
	cnt->hits_dns++;
	return 1;
}

static __always_inline int match_http(struct xdp_md *ctx, struct bloomxdp_counters *cnt,
				      struct scratch *s, void *bits, __u64 kinds, __u32 off,
				      __u32 len)
{
	struct name_walk w;

	if (http_parse_request(ctx, off, len, s)) {
		cnt->unparsed_http++;
		return 0;
	}
	cnt->checked_http++;
	name_walk_init(&w, bits, kinds);
	if (!name_listed(s, &w) && !url_listed(s, &w))
		return 0;
	cnt->hits_http++;
	return 1;
}

static __always_inline int match_sni(struct xdp_md *ctx, struct bloomxdp_counters *cnt,
				     struct scratch *s, void *bits, __u64 kinds, __u32 off,
				     __u32 len)
{
	struct name_walk w;

	if (tls_parse_client_hello(ctx, off, len, s)) {
		cnt->unparsed_tls++;
		return 0;
	}
	cnt->checked_sni++;
	name_walk_init(&w, bits, kinds);
	if (!name_listed(s, &w))
		return 0;
	cnt->hits_sni++;
	return 1;
}

/*
 * Looks up the name a packet carries in the given field. A global function:
 * the verifier checks it once, not once per path through the parsers above.
 * Returns 0, or on a hit 1, or for a DNS query the length of its question
 * (for an NXDOMAIN answer).
 */
__attribute__((noinline)) int match_names(struct xdp_md *ctx, __u32 field, __u32 l4_off,
					 __u64 kinds, __u32 ip_end)
{
	__u32 frame_len = ctx->data_end - ctx->data, off, len, question_end = 0;
	struct bloomxdp_counters *cnt;
	__u32 zero = 0;
	struct scratch *s;
	struct tcphdr tcp;
	void *bits;

	s = scratch_get();
	cnt = bpf_map_lookup_elem(&counters, &zero);
	bits = bpf_map_lookup_elem(&filter, &zero);
	if (!s || !cnt || !bits)
		return 0;
	if (ip_end < frame_len)
		frame_len = ip_end;
	if (field == FIELD_DNS) {
		off = l4_off + sizeof(struct udphdr);
		if (off >= frame_len)
			return 0;
		return match_dns(ctx, cnt, s, bits, kinds, off, frame_len - off, &question_end) ?
		       question_end : 0;
	}
	if (bpf_xdp_load_bytes(ctx, l4_off, &tcp, sizeof(tcp)) || tcp.doff < 5)
		return 0;
	off = l4_off + tcp.doff * 4;
	if (off >= frame_len)
		return 0;	/* no payload: handshakes and ACKs */
	len = frame_len - off;
	if (field == FIELD_DNS_TCP) {
		cnt->unseen_dns_tcp++;
		return 0;
	}
	if (field == FIELD_HTTP)
		return match_http(ctx, cnt, s, bits, kinds, off, len);
	if (field == FIELD_TLS)
		return match_sni(ctx, cnt, s, bits, kinds, off, len);
	return 0;
}

/* Global for the same reason; 0 when the query became its answer. */
__attribute__((noinline)) int answer_nxdomain(struct xdp_md *ctx, __u32 ipv6, __u32 l3_off,
					     __u32 l4_off, __u32 question_end)
{
	struct scratch *s = scratch_get();

	if (!s)
		return -1;
	return dns_answer_nxdomain(ctx, s, ipv6, l3_off, l4_off, question_end);
}

SEC("xdp")
int bloomxdp_xdp(struct xdp_md *ctx)
{
	struct cursor c = { .pos = (void *)(long)ctx->data, .end = (void *)(long)ctx->data_end };
	struct packet pkt = {};
	struct bloomxdp_counters *cnt;
	struct ipv6_ext_result ext;
	__u32 dns_question_end = 0;
	struct ipv6hdr *ip6h;
	struct iphdr *iph;
	__u32 zero = 0;
	int verdict = XDP_PASS;
	int hit = 0;
	__u64 kinds = 0;
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
	if (bits)
		kinds = filter_kinds(bits);
	pkt.l3_off = c.pos - (void *)(long)ctx->data;

	if (proto == bpf_htons(ETH_P_IP)) {
		proto = parse_iphdr(&c, &iph);
		if (proto < 0) {
			count_malformed(cnt, proto);
			goto out;
		}
		if (ipv4_is_fragment(iph)) {
			cnt->fragments++;
			proto = -1;	/* names are not looked for in fragments */
		}
		packet_set_l4(ctx, &c, proto, &pkt);
		pkt.ip_end = pkt.l3_off + bpf_ntohs(iph->tot_len);
		if (!bits) {
			cnt->no_filter++;
			goto out;
		}
		cnt->checked_v4++;
		if (config.match & BLOOMXDP_MATCH_SRC)
			hit = ipv4_listed(bits, kinds, &iph->saddr);
		if (!hit && (config.match & BLOOMXDP_MATCH_DST))
			hit = ipv4_listed(bits, kinds, &iph->daddr);
		if (hit)
			cnt->hits_v4++;
	} else {
		pkt.ipv6 = 1;
		proto = parse_ip6hdr(&c, &ip6h);
		if (proto < 0) {
			count_malformed(cnt, proto);
			goto out;
		}
		/* The address is known already; the L4 offset serves the name matchers. */
		skip_ip6hdrext(&c, proto, &ext);
		if (ext.l4_proto < 0)
			cnt->ipv6_ext_unparsed++;
		if (ext.is_fragment)
			cnt->fragments++;
		packet_set_l4(ctx, &c, ext.is_fragment ? -1 : ext.l4_proto, &pkt);
		pkt.ip_end = pkt.l3_off + sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
		if (!bits) {
			cnt->no_filter++;
			goto out;
		}
		cnt->checked_v6++;
		if (config.match & BLOOMXDP_MATCH_SRC)
			hit = ipv6_listed(bits, kinds, &ip6h->saddr);
		if (!hit && (config.match & BLOOMXDP_MATCH_DST))
			hit = ipv6_listed(bits, kinds, &ip6h->daddr);
		if (hit)
			cnt->hits_v6++;
	}

	if (!hit && pkt.field == FIELD_QUIC) {
		cnt->unseen_quic++;
	} else if (!hit && (pkt.field == FIELD_DNS_TCP ||
			    (pkt.field != FIELD_NONE &&
			     (kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS))))) {
		/* DNS over TCP: counted there, when the segment has a payload. */
		hit = match_names(ctx, pkt.field, pkt.l4_off, kinds, pkt.ip_end);
		if (hit > 1)
			dns_question_end = hit;
	}

	if (hit) {
		if (config.action == BLOOMXDP_ACTION_MONITOR)
			cnt->would_drop++;
		else if (dns_question_end && config.dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN &&
			 !answer_nxdomain(ctx, pkt.ipv6, pkt.l3_off, pkt.l4_off, dns_question_end))
			verdict = XDP_TX;
		else
			verdict = XDP_DROP;
	}
out:
	if (verdict == XDP_DROP)
		cnt->dropped++;
	else if (verdict == XDP_TX)
		cnt->dns_replies++;
	else
		cnt->passed++;
	return verdict;
}
