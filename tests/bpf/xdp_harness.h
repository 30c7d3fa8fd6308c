/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Test harness for bpf/bloomxdp.bpf.c: loads the program with a given
 * configuration and filter, runs single frames through BPF_PROG_TEST_RUN on
 * the loaded, never attached program, and reads the per-CPU counters. Also
 * builds the frames: Ethernet, VLAN tags, IPv4 (options, fragments), IPv6
 * (extension headers), UDP/TCP, truncation.
 *
 * Header-only; every function is static inline so that a test uses only what
 * it needs without -Wunused-function.
 */
#ifndef XDP_HARNESS_H
#define XDP_HARNESS_H

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <bloomxdp/common.h>	/* before the skeleton: it names struct bloomxdp_config */
#include "bloomxdp.skel.h"
#include "filter/filter.h"
#include "filter/layout.h"
#include "kernel/loader.h"
#include "parse/keys.h"
#include "filter/suffix_map.h"
#include "filter/bloom_plan.h"

/* ---------------------------------------------------------------- frames */

/*
 * The first buffer BPF_PROG_TEST_RUN gives a frame on 4 KiB pages: 4096
 * bytes less 256 of headroom and 320 of tailroom (struct skb_shared_info).
 * The rest of a longer frame goes to fragments (a page each, MAX_SKB_FRAGS),
 * which only a program with frags (xdp.frags) may be given.
 */
#define FRAME_LINEAR	3520
/* A 9000-byte MTU's frame and more, so multi-buffer; a test may define it otherwise first. */
#ifndef FRAME_MAX
#define FRAME_MAX	10240
#endif
#define VLAN_HLEN	4
#define IP4_HLEN	20
#define IP6_HLEN	40
#define UDP_HLEN	8
#define TCP_HLEN	20

struct frame {
	__u8 data[FRAME_MAX];
	__u32 len;
};

/* Appends len zeroed bytes and returns them. */
static inline __u8 *frame_put(struct frame *f, __u32 len)
{
	__u8 *p = f->data + f->len;

	assert(f->len + len <= FRAME_MAX);
	memset(p, 0, len);
	f->len += len;
	return p;
}

static inline void put_be16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void frame_eth(struct frame *f, __u16 proto)
{
	static const __u8 macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	__u8 *h = frame_put(f, ETH_HLEN);

	memcpy(h, macs, sizeof(macs));
	put_be16(h + 12, proto);
}

/* One 802.1Q/802.1ad tag; the TPID is the previous header's EtherType. */
static inline void frame_vlan(struct frame *f, __u16 vid, __u16 proto)
{
	__u8 *h = frame_put(f, VLAN_HLEN);

	put_be16(h, vid & 0xfff);
	put_be16(h + 2, proto);
}

/*
 * IPv4 header with IHL field ihl; above 5 the options are NOPs ended by EOL,
 * below 5 the header is still 20 bytes long. Lengths: see frame_finish().
 */
static inline struct iphdr *frame_ipv4(struct frame *f, const void *src, const void *dst,
				       __u8 ihl, __u8 protocol, __u16 frag_off)
{
	__u32 len = ihl > 5 ? ihl * 4u : IP4_HLEN;
	struct iphdr *iph = (struct iphdr *)frame_put(f, len);

	iph->version = 4;
	iph->ihl = ihl;
	iph->id = htons(0x1234);
	iph->frag_off = htons(frag_off);
	iph->ttl = 64;
	iph->protocol = protocol;
	memcpy(&iph->saddr, src, 4);
	memcpy(&iph->daddr, dst, 4);
	memset(iph + 1, IPOPT_NOOP, len - IP4_HLEN);
	if (len > IP4_HLEN)
		((__u8 *)iph)[len - 1] = IPOPT_EOL;
	return iph;
}

static inline struct ip6_hdr *frame_ipv6(struct frame *f, const void *src, const void *dst,
					 __u8 nexthdr)
{
	struct ip6_hdr *ip6h = (struct ip6_hdr *)frame_put(f, IP6_HLEN);

	ip6h->ip6_flow = htonl(6U << 28);
	ip6h->ip6_nxt = nexthdr;
	ip6h->ip6_hlim = 64;
	memcpy(&ip6h->ip6_src, src, 16);
	memcpy(&ip6h->ip6_dst, dst, 16);
	return ip6h;
}

/* Lengths differ per type so that the walker's length arithmetic matters. */
static inline __u32 ipv6_ext_len(__u8 type)
{
	switch (type) {
	case IPPROTO_ROUTING:	/* segment routing header with one segment */
	case IPPROTO_AH:	/* 12 bytes of fields, 12 of ICV */
		return 24;
	case IPPROTO_DSTOPTS:
		return 16;
	default:		/* hop-by-hop, fragment */
		return 8;
	}
}

/* Options bytes [pos, end) of header h as PadN options (a Pad1 for a single byte). */
static inline void ipv6_padn(__u8 *h, __u32 pos, __u32 end)
{
	__u32 n;

	while (pos < end) {
		if (end - pos == 1)
			break;		/* Pad1 is a zero byte */
		n = end - pos - 2 > 255 ? 255 : end - pos - 2;
		h[pos] = 1;		/* PadN */
		h[pos + 1] = n;
		pos += 2 + n;
	}
}

/* frag is the fragment header's offset<<3 | M field (ignored by other types). */
static inline void frame_ipv6_ext(struct frame *f, __u8 type, __u8 nexthdr, __u16 frag)
{
	__u32 len = ipv6_ext_len(type);
	__u8 *h = frame_put(f, len);

	h[0] = nexthdr;
	switch (type) {
	case IPPROTO_FRAGMENT:
		put_be16(h + 2, frag);
		h[7] = 0x42;			/* identification */
		break;
	case IPPROTO_AH:
		h[1] = len / 4 - 2;
		h[7] = 1;			/* SPI */
		break;
	case IPPROTO_ROUTING:
		h[1] = len / 8 - 1;
		h[2] = 4;			/* segment routing, 0 segments left */
		break;
	default:
		h[1] = len / 8 - 1;
		h[2] = 1;			/* one PadN option fills the header */
		h[3] = len - 4;
		break;
	}
}

/*
 * A destination options header of len bytes (a multiple of 8), PadN-filled;
 * opt (opt_len bytes, one whole option) at its byte 8 unless NULL.
 */
static inline void frame_ipv6_dstopts(struct frame *f, __u8 nexthdr, __u32 len, const __u8 *opt,
				      __u32 opt_len)
{
	__u8 *h = frame_put(f, len);

	h[0] = nexthdr;
	h[1] = len / 8 - 1;
	if (!opt) {
		ipv6_padn(h, 2, len);
		return;
	}
	assert(8 + opt_len <= len);
	ipv6_padn(h, 2, 8);
	memcpy(h + 8, opt, opt_len);
	ipv6_padn(h, 8 + opt_len, len);
}

/* UDP or TCP header followed by payload bytes. */
static inline void frame_l4(struct frame *f, __u8 proto, __u32 payload)
{
	__u8 *h = frame_put(f, proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN);
	__u32 i;

	put_be16(h, 40000);
	put_be16(h + 2, proto == IPPROTO_TCP ? 443 : 53);
	if (proto == IPPROTO_TCP) {
		h[12] = 5 << 4;			/* data offset */
		h[13] = 0x18;			/* PSH|ACK */
	} else {
		put_be16(h + 4, UDP_HLEN + payload);
	}
	for (i = 0; i < payload; i++)
		*frame_put(f, 1) = 0xa5 ^ i;
}

static inline __u16 ipv4_checksum(const void *hdr, __u32 len)
{
	const __u8 *b = hdr;
	__u32 sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += b[i] << 8 | b[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

static inline void frame_truncate(struct frame *f, __u32 len)
{
	assert(len <= f->len);
	f->len = len;
}

/* ------------------------------------------------- frames from a description */

/*
 * A frame in a few fields; zero is the common choice everywhere. The address
 * family follows ethertype; other EtherTypes get payload bytes of body.
 */
struct frame_desc {
	__u16 tags[3];		/* VLAN TPIDs, outermost first; 0 ends */
	__u16 ethertype;	/* ETH_P_IP, ETH_P_IPV6, ETH_P_ARP... */
	const char *src;	/* NULL: FRAME_SRC4 / FRAME_SRC6 */
	const char *dst;	/* NULL: FRAME_DST4 / FRAME_DST6 */
	__u8 version;		/* IP version nibble; 0: the right one */
	__u8 ihl;		/* IPv4 IHL; 0: 5 */
	__u16 frag_off;		/* IPv4 flags|offset, or IPv6 fragment header offset<<3|M */
	const __u8 *ext;	/* IPv6 extension headers, in order */
	__u32 n_ext;
	__u16 dopt_len;		/* the length of their destination options; 0: 16 */
	__u8 l4;		/* IPPROTO_TCP, else UDP */
	__u32 payload;		/* bytes after the L4 header (or the body of non-IP) */
	bool cut;		/* truncate the finished frame at cut_len bytes */
	__u32 cut_len;
	__u32 linear;		/* bytes in the first buffer; 0: as the kernel splits it */
};

#define FRAME_SRC4	"198.51.100.1"
#define FRAME_DST4	"203.0.113.9"
#define FRAME_SRC6	"2001:db8:ffff::1"
#define FRAME_DST6	"2001:db8:eeee::9"

/* Sets IP lengths and checksum once everything after the header is in. */
static inline void frame_finish(struct frame *f, __u16 ethertype, __u32 l3)
{
	struct ip6_hdr *ip6h = (struct ip6_hdr *)(f->data + l3);
	struct iphdr *iph = (struct iphdr *)(f->data + l3);

	if (ethertype == ETH_P_IP) {
		iph->tot_len = htons(f->len - l3);
		iph->check = ipv4_checksum(iph, iph->ihl > 5 ? iph->ihl * 4u : IP4_HLEN);
	} else if (ethertype == ETH_P_IPV6) {
		ip6h->ip6_plen = htons(f->len - l3 - IP6_HLEN);
	}
}

/* Returns 0, or -EINVAL when an address does not parse. */
static inline int frame_build(struct frame *f, const struct frame_desc *d)
{
	int af = d->ethertype == ETH_P_IPV6 ? AF_INET6 : AF_INET;
	__u8 l4 = d->l4 == IPPROTO_TCP ? IPPROTO_TCP : IPPROTO_UDP;
	__u8 src[16], dst[16], next;
	__u32 ntags, i, l3;

	f->len = 0;
	for (ntags = 0; ntags < 3 && d->tags[ntags]; ntags++)
		;
	frame_eth(f, ntags ? d->tags[0] : d->ethertype);
	for (i = 0; i < ntags; i++)
		frame_vlan(f, 100 + i, i + 1 < ntags ? d->tags[i + 1] : d->ethertype);
	l3 = f->len;

	if (d->ethertype != ETH_P_IP && d->ethertype != ETH_P_IPV6) {
		frame_put(f, d->payload);
		goto out;
	}
	if (inet_pton(af, d->src ? d->src : af == AF_INET ? FRAME_SRC4 : FRAME_SRC6, src) != 1 ||
	    inet_pton(af, d->dst ? d->dst : af == AF_INET ? FRAME_DST4 : FRAME_DST6, dst) != 1)
		return -EINVAL;
	if (af == AF_INET) {
		struct iphdr *iph = frame_ipv4(f, src, dst, d->ihl ? d->ihl : 5, l4, d->frag_off);

		if (d->version)
			iph->version = d->version;
	} else {
		struct ip6_hdr *ip6h = frame_ipv6(f, src, dst, d->n_ext ? d->ext[0] : l4);

		if (d->version)
			ip6h->ip6_vfc = (ip6h->ip6_vfc & 0x0f) | d->version << 4;
		for (i = 0; i < d->n_ext; i++) {
			next = i + 1 < d->n_ext ? d->ext[i + 1] : l4;
			if (d->ext[i] == IPPROTO_DSTOPTS && d->dopt_len)
				frame_ipv6_dstopts(f, next, d->dopt_len, NULL, 0);
			else
				frame_ipv6_ext(f, d->ext[i], next, d->frag_off);
		}
	}
	frame_l4(f, l4, d->payload);
out:
	frame_finish(f, d->ethertype, l3);
	if (d->cut)
		frame_truncate(f, d->cut_len);
	return 0;
}

/* ------------------------------------------------------------ test runs */

/*
 * Runs a frame of len bytes, linear of them in its first buffer (0: as the
 * kernel splits it, FRAME_LINEAR); the rest goes to fragments, which only a
 * program with frags (xdp.frags) is given. A first buffer shorter than the
 * kernel's is ctx_in.data_end below the size: Debian's 6.1 (6.1.192) and 6.18
 * take it; a kernel that does not says -EINVAL.
 *
 * The kernel refuses data_in shorter than ETH_HLEN (and a first buffer of
 * fewer than ETH_HLEN bytes after metadata): a shorter frame is padded to
 * ETH_HLEN, its len bytes in the first buffer, the padding in a fragment.
 * A program without frags does not see the padding; one with frags sees a
 * frame of ETH_HLEN bytes whose Ethernet header runs into a fragment.
 */
static inline int xdp_test_run_linear(int prog_fd, const void *data, __u32 len, __u32 linear,
				      void *out, __u32 out_len, __u32 *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	__u8 buf[FRAME_MAX] = { 0 };
	struct xdp_md md = { 0 };

	if (len > FRAME_MAX || linear > len || (len < ETH_HLEN && out))
		return -EINVAL;
	memcpy(buf, data, len);
	opts.data_in = buf;
	opts.data_size_in = len < ETH_HLEN ? ETH_HLEN : len;
	opts.data_out = out;
	opts.data_size_out = out ? out_len : 0;
	if (len < ETH_HLEN || linear) {
		md.data_end = len < ETH_HLEN ? len : linear;
		opts.ctx_in = &md;
		opts.ctx_size_in = sizeof(md);
	}
	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	*verdict = opts.retval;
	return 0;
}

static inline int xdp_test_run(int prog_fd, const void *data, __u32 len, void *out,
			       __u32 out_len, __u32 *verdict)
{
	return xdp_test_run_linear(prog_fd, data, len, 0, out, out_len, verdict);
}

/* ----------------------------------------------------- the loaded program */

#define HARNESS_CAPACITY	1000
#define HARNESS_FPR		0.001

struct harness_config {
	__u32 match;		/* BLOOMXDP_MATCH_* */
	__u32 action;		/* enum bloomxdp_action */
	const __u64 *hash_key;	/* NULL: random */
	__u64 capacity;		/* 0: HARNESS_CAPACITY */
	double fpr;		/* 0: HARNESS_FPR */
	bool no_filter;		/* load, but leave the filter slot empty */
	__u32 dns_reply;	/* enum bloomxdp_dns_reply */
	__u32 layout;		/* enum bloomxdp_layout */
	__u32 verify;		/* config.verify (the exact sets are left empty) */
	__u32 events_per_sec;	/* config.events_per_sec; 0: no events */
	__u32 hook;		/* enum bloomxdp_hook: the XDP build, or the tc one */
	__u32 direction;	/* enum bloomxdp_direction (config.direction) */
	__u32 icmp_per_sec;	/* config.icmp_per_sec (action reject) */
	/* Port lists as in struct bloomxdp_config; all zero: the CLI's defaults. */
	__u16 dns_ports[BLOOMXDP_MAX_PORTS];
	__u16 http_ports[BLOOMXDP_MAX_PORTS];
	__u16 tls_ports[BLOOMXDP_MAX_PORTS];
	__u16 quic_ports[BLOOMXDP_MAX_PORTS];
	__u32 quic_per_sec;	/* 0: the CLI's default; HARNESS_QUIC_NONE: none */
	__u32 quic_unparsed;	/* enum bloomxdp_policy */
	__u32 ech;		/* enum bloomxdp_policy */
	__u32 doh_canary;	/* config.doh_canary (--doh-canary) */
	__u32 learn_ttl_max;	/* config.learn_ttl_max; 0: the program's default */
};

#define HARNESS_QUIC_NONE 0xffffffffU

/* A port list, or the CLI's default (one port) when the list is empty. */
static inline void harness_ports(__u16 out[BLOOMXDP_MAX_PORTS], const __u16 in[BLOOMXDP_MAX_PORTS],
				 __u16 dflt)
{
	static const __u16 none[BLOOMXDP_MAX_PORTS];

	memcpy(out, in[0] ? in : none, BLOOMXDP_MAX_PORTS * sizeof(out[0]));
	if (!in[0])
		out[0] = dflt;
}

struct xdp_harness {
	struct loaded_prog lp;		/* skeleton, generation 0's filter and exact sets */
	struct bloomxdp_config config;	/* as loaded */
	int prog_fd;
	int counters_fd;
};

static inline void harness_close(struct xdp_harness *h)
{
	if (h->lp.skel)
		loader_close(&h->lp);
}

/* The configuration attach would freeze for hc (hash key: hc's, or random). */
static inline int harness_config(const struct harness_config *hc, struct bloomxdp_config *cfg)
{
	struct bloom_plan plan;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	ret = bloom_plan_compute_layout(hc->capacity ? hc->capacity : HARNESS_CAPACITY,
					hc->fpr > 0 ? hc->fpr : HARNESS_FPR, hc->layout, &plan);
	if (ret)
		return ret;
	if (hc->hash_key)
		memcpy(cfg->hash_key, hc->hash_key, sizeof(cfg->hash_key));
	else if (getrandom(cfg->hash_key, sizeof(cfg->hash_key), 0) != sizeof(cfg->hash_key))
		return -EIO;
	loader_config_plan(cfg, &plan);
	cfg->match = hc->match;
	cfg->action = hc->action;
	cfg->dns_reply = hc->dns_reply;
	cfg->verify = hc->verify;
	cfg->events_per_sec = hc->events_per_sec;
	cfg->hook = hc->hook;
	cfg->direction = hc->direction;
	cfg->icmp_per_sec = hc->icmp_per_sec;
	harness_ports(cfg->dns_ports, hc->dns_ports, BLOOMXDP_DNS_PORT);
	harness_ports(cfg->http_ports, hc->http_ports, BLOOMXDP_HTTP_PORT);
	harness_ports(cfg->tls_ports, hc->tls_ports, BLOOMXDP_TLS_PORT);
	harness_ports(cfg->quic_ports, hc->quic_ports, BLOOMXDP_QUIC_PORT);
	cfg->quic_per_sec = hc->quic_per_sec == HARNESS_QUIC_NONE ? 0 :
			    hc->quic_per_sec ? hc->quic_per_sec : BLOOMXDP_QUIC_PER_SEC;
	cfg->quic_unparsed = hc->quic_unparsed;
	cfg->ech = hc->ech;
	cfg->doh_canary = hc->doh_canary;
	cfg->learn_ttl_max = hc->learn_ttl_max;
	return 0;
}

/*
 * Loads cfg with the CLI's loader (user/kernel/loader.c), as attach does; room: of
 * each exact map (0: as attach). no_filter: then takes generation 0's filter
 * out again, for the tests of a program without one.
 */
static inline int harness_load(struct xdp_harness *h, const struct bloomxdp_config *cfg,
			       __u32 room, bool no_filter)
{
	__u32 zero = 0;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = loader_load_room(cfg, room ? room : exact_room(cfg->capacity), &h->lp);
	if (ret)
		return ret;
	if (no_filter && (bpf_map_delete_elem(bpf_map__fd(h->lp.skel->maps.filter), &zero) ||
			  (h->lp.filter.kbloom_fd >= 0 &&
			   bpf_map_delete_elem(bpf_map__fd(h->lp.skel->maps.kfilter), &zero)))) {
		ret = -errno;
		harness_close(h);
		return ret;
	}
	h->config = *cfg;
	h->prog_fd = loader_prog_fd(&h->lp);
	h->counters_fd = bpf_map__fd(h->lp.skel->maps.counters);
	return 0;
}

static inline int harness_open(struct xdp_harness *h, const struct harness_config *hc)
{
	struct bloomxdp_config cfg;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = harness_config(hc, &cfg);
	if (ret)
		return ret;
	return harness_load(h, &cfg, 0, hc->no_filter);
}

/* Parses a list entry as the CLI does and sets its bits. */
static inline int harness_insert(struct xdp_harness *h, const char *text)
{
	struct bloomxdp_key key;
	const char *why;

	if (key_parse(text, &key, &why))
		return -EINVAL;
	filter_insert(&h->lp.filter, &key);
	return 0;
}

static inline int harness_run(struct xdp_harness *h, const struct frame *f, __u32 *verdict)
{
	return xdp_test_run(h->prog_fd, f->data, f->len, NULL, 0, verdict);
}

/* ------------------------------------------------------------- counters */

#define HARNESS_COUNTER_NAME(name, help) #name,
static const char *const harness_counter_names[] = { BLOOMXDP_COUNTERS(HARNESS_COUNTER_NAME) };
#undef HARNESS_COUNTER_NAME
#define HARNESS_NCOUNTERS (sizeof(harness_counter_names) / sizeof(harness_counter_names[0]))

_Static_assert(sizeof(struct bloomxdp_counters) == HARNESS_NCOUNTERS * sizeof(__u64),
	       "counters are all __u64, in X-macro order");

/* Counter i of c, i in X-macro order. */
static inline __u64 *counter_at(struct bloomxdp_counters *c, size_t i)
{
	return (__u64 *)c + i;
}

/* The counters summed over all CPUs. */
static inline int harness_counters(struct xdp_harness *h, struct bloomxdp_counters *sum)
{
	int ncpus = libbpf_num_possible_cpus(), cpu, ret = 0;
	struct bloomxdp_counters *percpu;
	__u32 zero = 0;
	size_t i;

	memset(sum, 0, sizeof(*sum));
	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(h->counters_fd, &zero, percpu))
		ret = -errno;
	for (cpu = 0; !ret && cpu < ncpus; cpu++)
		for (i = 0; i < HARNESS_NCOUNTERS; i++)
			*counter_at(sum, i) += *counter_at(&percpu[cpu], i);
	free(percpu);
	return ret;
}

/*
 * Runs one frame, linear bytes of it in the first buffer (0: as the kernel
 * splits it, see xdp_test_run_linear()); delta receives what it added to each
 * counter.
 */
static inline int harness_run_split(struct xdp_harness *h, const struct frame *f, __u32 linear,
				    __u32 *verdict, struct bloomxdp_counters *delta)
{
	struct bloomxdp_counters before;
	size_t i;
	int ret;

	ret = harness_counters(h, &before);
	if (!ret)
		ret = xdp_test_run_linear(h->prog_fd, f->data, f->len, linear, NULL, 0, verdict);
	if (!ret)
		ret = harness_counters(h, delta);
	for (i = 0; !ret && i < HARNESS_NCOUNTERS; i++)
		*counter_at(delta, i) -= *counter_at(&before, i);
	return ret;
}

static inline int harness_run_counted(struct xdp_harness *h, const struct frame *f,
				      __u32 *verdict, struct bloomxdp_counters *delta)
{
	return harness_run_split(h, f, 0, verdict, delta);
}

/* ------------------------------------------------- lists as 'bloomxdp load' */

#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "lists/build.h"

/* Writes entries, one a line, to a new temporary file; the caller unlinks path. */
static inline int harness_write_list(const char *const *entries, size_t n, char path[64])
{
	FILE *out;
	size_t i;
	int fd;

	snprintf(path, 64, "/tmp/bloomxdp-harness-list-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		unlink(path);
		return -errno;
	}
	for (i = 0; i < n; i++)
		fprintf(out, "%s\n", entries[i]);
	if (fclose(out)) {
		unlink(path);
		return -EIO;
	}
	return 0;
}

/* list_build over one file, into filter (NULL: plan only); plan receives the plans. */
/*
 * list_build_read() and _finish() of path into b, as a load reads a list: with
 * suffixes_fd (the program's public suffixes, or -1 for none), the keys the
 * list holds at public depths are marked listed in slot, as a load marks them.
 */
static inline int harness_build_read(struct list_build *b, int suffixes_fd, __u32 slot,
				     const char *path, char err[LIST_ERROR_LEN])
{
	struct suffix_map sk;
	int ret = 0;

	suffix_map_init(&sk);
	if (suffixes_fd >= 0) {
		ret = suffix_map_read(&sk, suffixes_fd);
		b->public_suffixes = &sk;
	}
	if (!ret)
		ret = list_build_read(b, path, FORMAT_AUTO, err);
	if (!ret)
		ret = list_build_finish(b, err);
	if (!ret && suffixes_fd >= 0)
		ret = suffix_map_sync(suffixes_fd, slot, b->at_public, b->nat_public);
	b->public_suffixes = NULL;
	suffix_map_free(&sk);
	return ret;
}

static inline int harness_build_list(const char *path, struct filter *filter, int suffixes_fd,
				     __u32 probes, struct prefix_plan plan[2],
				     char err[LIST_ERROR_LEN])
{
	struct list_build b;
	int ret;

	list_build_init(&b, filter, probes);
	ret = harness_build_read(&b, suffixes_fd, 0, path, err);
	if (plan)
		memcpy(plan, b.plan, sizeof(b.plan));
	list_build_free(&b);
	return ret;
}

/*
 * Loads the program with a filter sized, unless hc->capacity says otherwise,
 * for the keys of the list after expansion (as 'bloomxdp plan --list'
 * counts them), then fills it as 'bloomxdp load --prefix-probes probes'
 * does: plan the prefix lengths, insert the expanded prefixes.
 */
static inline int harness_open_list(struct xdp_harness *h, const struct harness_config *hc,
				    const char *const *entries, size_t n, __u32 probes,
				    struct prefix_plan plan[2], char err[LIST_ERROR_LEN])
{
	struct harness_config sized = *hc;
	char path[64];
	double keys;
	int ret;

	err[0] = '\0';
	ret = harness_write_list(entries, n, path);
	if (ret)
		return ret;
	ret = harness_build_list(path, NULL, -1, probes, plan, err);
	if (!ret && !sized.capacity) {
		keys = ceil(plan[0].expanded + plan[1].expanded);
		sized.capacity = keys > HARNESS_CAPACITY ? (__u64)keys : HARNESS_CAPACITY;
	}
	if (!ret)
		ret = harness_open(h, &sized);
	if (!ret) {
		ret = harness_build_list(path, &h->lp.filter,
					 bpf_map__fd(h->lp.skel->maps.suffixes), probes, plan, err);
		if (ret)
			harness_close(h);
	}
	unlink(path);
	return ret;
}

#endif /* XDP_HARNESS_H */
