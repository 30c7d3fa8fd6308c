/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Test harness of the verify stage, the allowlist, the generations and the
 * drop events of bpf/bloomxdp.bpf.c, on top of xdp_harness.h: loads the
 * program as do_attach() (user/kernel/attach.c) does, with config.verify,
 * config.events_per_sec and the exact sets (verify_*, allow_*) installed in
 * generation slot 0 of their outer maps, never attached. Lists go in as
 * a load builds them (list_load_union() and load_allowlist(), user/lists/load.c).
 *
 * Header-only; every function is static inline.
 */
#ifndef VERIFY_HARNESS_H
#define VERIFY_HARNESS_H

#include <time.h>

#include "xdp_harness.h"
#include "filter/entry_keys.h"
#include "filter/exact.h"

struct vh_config {
	__u32 match;		/* BLOOMXDP_MATCH_* */
	__u32 action;		/* enum bloomxdp_action */
	__u32 verify;		/* config.verify */
	__u32 events_per_sec;	/* config.events_per_sec */
	const __u64 *hash_key;	/* NULL: random */
	__u64 capacity;		/* 0: HARNESS_CAPACITY */
	double fpr;		/* 0: HARNESS_FPR */
	__u32 exact_room;	/* entries of each exact map; 0: 2 * capacity, as attach */
	__u32 layout;		/* enum bloomxdp_layout */
	__u32 dns_reply;	/* enum bloomxdp_dns_reply */
	__u32 quic_per_sec;	/* as harness_config's: 0, the CLI's default */
	__u32 learn_ttl_max;	/* config.learn_ttl_max; 0: the program's default */
};

/* Generation slots of everything; the h.lp.filter of xdp_harness is slot 0's. */
struct vh {
	struct xdp_harness h;		/* skel, slot 0 filter, config, prog and counters fds */
	struct filter filter1;		/* slot 1's filter, once vh_slot1_create() made it */
	struct exact_set verify[BLOOMXDP_GENERATIONS];
	struct exact_set allow[BLOOMXDP_GENERATIONS];
	struct exact_outer outer_verify;
	struct exact_outer outer_allow;
	int filter_outer_fd;
	int active_fd;
	int events_fd;
	int budgets_fd;
	__u32 room;
};

static inline void vh_close(struct vh *v)
{
	int i;

	filter_close(&v->filter1);
	for (i = 0; i < BLOOMXDP_GENERATIONS; i++) {
		exact_set_close(&v->verify[i]);
		exact_set_close(&v->allow[i]);
	}
	harness_close(&v->h);
}

/* do_attach() minus the attach: the skeleton with every template and slot 0 installed. */
/* Every kind an allowlist can hold: the tests' allowlists hold them all. */
#define VH_ALLOW_HAS_ALL (BLOOMXDP_ALLOW_HAS_V4 | BLOOMXDP_ALLOW_HAS_V6 | BLOOMXDP_ALLOW_HAS_NAMES)

/*
 * Writes the active word of which (BLOOMXDP_ACTIVE_BLOCK / _ALLOW); the
 * allowlist's also says it holds every kind, as load_allowlist() would.
 */
static inline int vh_set_active(struct vh *v, __u32 which, __u32 value)
{
	if (which == BLOOMXDP_ACTIVE_ALLOW)
		value |= VH_ALLOW_HAS_ALL;
	return bpf_map_update_elem(v->active_fd, &which, &value, BPF_ANY) ? -errno : 0;
}

static inline int vh_open(struct vh *v, const struct vh_config *c)
{
	const struct harness_config hc = {
		.match = c->match, .action = c->action, .verify = c->verify,
		.events_per_sec = c->events_per_sec, .hash_key = c->hash_key,
		.capacity = c->capacity, .fpr = c->fpr, .layout = c->layout,
		.dns_reply = c->dns_reply, .quic_per_sec = c->quic_per_sec,
		.learn_ttl_max = c->learn_ttl_max,
	};
	struct bloomxdp_config cfg;
	struct bloomxdp *skel;
	int i, ret;

	memset(v, 0, sizeof(*v));
	v->filter1.map_fd = v->filter1.kbloom_fd = -1;
	for (i = 0; i < BLOOMXDP_GENERATIONS; i++) {
		exact_set_init(&v->verify[i]);
		exact_set_init(&v->allow[i]);
	}
	ret = harness_config(&hc, &cfg);
	if (ret)
		return ret;
	v->room = c->exact_room ? c->exact_room : exact_room(cfg.capacity);
	/* As attach loads it: generation 0 of every list installed. */
	ret = harness_load(&v->h, &cfg, v->room, false);
	if (ret)
		return ret;
	/* Slot 0's exact sets are the harness's from now on (vh_close closes them). */
	v->verify[0] = v->h.lp.verify;
	v->allow[0] = v->h.lp.allow;
	exact_set_init(&v->h.lp.verify);
	exact_set_init(&v->h.lp.allow);
	skel = v->h.lp.skel;
	loader_exact_outers(skel, &v->outer_verify, &v->outer_allow);
	v->filter_outer_fd = bpf_map__fd(skel->maps.filter);
	v->active_fd = bpf_map__fd(skel->maps.active);
	v->events_fd = bpf_map__fd(skel->maps.events);
	v->budgets_fd = bpf_map__fd(skel->maps.event_budgets);
	ret = vh_set_active(v, BLOOMXDP_ACTIVE_ALLOW, 0);
	if (ret)
		vh_close(v);
	return ret;
}

/* The filter of a generation slot (slot 1 once vh_slot1_create() made it). */
static inline struct filter *vh_filter(struct vh *v, __u32 slot)
{
	return slot ? &v->filter1 : &v->h.lp.filter;
}

/* A new, empty filter and exact sets for slot 1, installed there (not yet live). */
static inline int vh_slot1_create(struct vh *v)
{
	int ret;

	ret = filter_create(&v->h.config, &v->filter1);
	if (!ret)
		ret = exact_set_create_hashed(&v->verify[1], v->room);
	if (!ret)
		ret = exact_set_create(&v->allow[1], v->room);
	if (!ret)
		ret = filter_install(v->filter_outer_fd, 1, &v->filter1);
	if (!ret)
		ret = filter_install_kernel(bpf_map__fd(v->h.lp.skel->maps.kfilter), 1, &v->filter1);
	if (!ret)
		ret = exact_set_install(&v->outer_verify, 1, &v->verify[1]);
	if (!ret)
		ret = exact_set_install(&v->outer_allow, 1, &v->allow[1]);
	return ret;
}


/*
 * The blocklist of slot, as a load builds it (list_load_union()): into the slot's
 * filter, and its exact set whether or not the program verifies (an exact
 * set the program does not consult changes nothing).
 */
static inline int vh_load_blocklist(struct vh *v, __u32 slot, const char *const *entries,
				    size_t n, __u32 probes, struct prefix_plan plan[2],
				    char err[LIST_ERROR_LEN])
{
	struct list_build b;
	char path[64];
	int ret;

	err[0] = '\0';
	ret = harness_write_list(entries, n, path);
	if (ret)
		return ret;
	list_build_init(&b, vh_filter(v, slot), probes);
	b.exact = &v->verify[slot];
	ret = harness_build_read(&b, bpf_map__fd(v->h.lp.skel->maps.suffixes), slot, path, err);
	/* As a load installs its copy: grown hash maps, the prefixes' intervals. */
	if (!ret && exact_outer_has(&v->outer_verify, slot))
		ret = exact_set_install(&v->outer_verify, slot, &v->verify[slot]);
	if (plan)
		memcpy(plan, b.plan, sizeof(b.plan));
	list_build_free(&b);
	unlink(path);
	return ret;
}

/* The allowlist of slot, as load_allowlist() builds it. */
static inline int vh_load_allowlist(struct vh *v, __u32 slot, const char *const *entries,
				    size_t n, char err[LIST_ERROR_LEN])
{
	struct list_build b;
	char path[64];
	int ret;

	err[0] = '\0';
	ret = harness_write_list(entries, n, path);
	if (ret)
		return ret;
	list_build_init(&b, NULL, LIST_DEFAULT_PREFIX_PROBES);
	b.allowlist = true;
	b.exact = &v->allow[slot];
	memcpy(b.hash_key, v->h.config.hash_key, sizeof(b.hash_key));
	ret = list_build_read(&b, path, FORMAT_AUTO, err);
	if (!ret)
		ret = list_build_finish(&b, err);
	list_build_free(&b);
	unlink(path);
	return ret;
}

static inline int vh_take_entry(const struct entry *e, void *arg)
{
	*(struct entry *)arg = *e;
	return 0;
}

/* One entry text (format auto), as 'bloomxdp add' parses an argument. */
static inline int vh_parse_entry(const char *text, struct entry *e)
{
	char buf[1024];
	const char *why = NULL;

	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	return entry_parse_line(buf, FORMAT_AUTO, vh_take_entry, e, &why);
}

/*
 * A forced false positive: the entry's keys into the Bloom filter of slot
 * only, not into its exact set. Returns entry_keys_insert()'s result.
 */
static inline int vh_bloom_only(struct vh *v, __u32 slot, const char *text)
{
	struct entry e;

	if (vh_parse_entry(text, &e))
		return -EINVAL;
	return entry_keys_insert(vh_filter(v, slot), &e);
}

/* ------------------------------------------------------------ frames */

/*
 * A DNS query for name (dotted) over UDP to port 53, IPv4 or IPv6 after
 * the family of src/dst: one question, type A, class IN, RD set.
 */
static inline int frame_dns_query(struct frame *f, int ipv6, const char *src, const char *dst,
				  const char *name)
{
	__u8 wire[300], *p;
	__u32 n = 0, l3;
	const char *label = name, *dot;
	__u8 s[16], d[16];
	size_t len;

	/* Header: id, flags RD, QDCOUNT 1. */
	memset(wire, 0, 12);
	wire[0] = 0x12;
	wire[1] = 0x34;
	wire[2] = 0x01;
	wire[5] = 1;
	n = 12;
	while (*label) {
		dot = strchr(label, '.');
		len = dot ? (size_t)(dot - label) : strlen(label);
		if (len == 0 || len > 63 || n + 1 + len + 5 > sizeof(wire))
			return -EINVAL;
		wire[n++] = len;
		memcpy(wire + n, label, len);
		n += len;
		label += len + (dot ? 1 : 0);
	}
	wire[n++] = 0;
	wire[n++] = 0;
	wire[n++] = 1;		/* QTYPE A */
	wire[n++] = 0;
	wire[n++] = 1;		/* QCLASS IN */

	if (inet_pton(ipv6 ? AF_INET6 : AF_INET, src, s) != 1 ||
	    inet_pton(ipv6 ? AF_INET6 : AF_INET, dst, d) != 1)
		return -EINVAL;
	f->len = 0;
	frame_eth(f, ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	l3 = f->len;
	if (ipv6)
		frame_ipv6(f, s, d, IPPROTO_UDP);
	else
		frame_ipv4(f, s, d, 5, IPPROTO_UDP, 0);
	frame_l4(f, IPPROTO_UDP, n);	/* to port 53 */
	p = f->data + f->len - n;
	memcpy(p, wire, n);
	frame_finish(f, ipv6 ? ETH_P_IPV6 : ETH_P_IP, l3);
	return 0;
}

#define VH_UDP_PORT	9	/* discard: no name matcher looks at it */

/* A UDP datagram from port 40000 to VH_UDP_PORT, 16 payload bytes, between two addresses. */
static inline int frame_udp(struct frame *f, const char *src, const char *dst)
{
	struct frame_desc d = { .ethertype = strchr(src, ':') ? ETH_P_IPV6 : ETH_P_IP,
				.src = src, .dst = dst, .payload = 16 };
	int ret = frame_build(f, &d);

	if (!ret)	/* frame_l4() sends UDP to port 53 */
		put_be16(f->data + f->len - 16 - UDP_HLEN + 2, VH_UDP_PORT);
	return ret;
}

/* ------------------------------------------------------------ runs */

/* One frame repeated times in a single BPF_PROG_TEST_RUN: one CPU, one call. */
static inline int vh_run_repeat(struct vh *v, const struct frame *f, __u32 repeat,
				__u32 *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	__u8 buf[FRAME_MAX];

	memcpy(buf, f->data, f->len);
	opts.data_in = buf;
	opts.data_size_in = f->len;
	opts.repeat = repeat;
	if (bpf_prog_test_run_opts(v->h.prog_fd, &opts))
		return -errno;
	*verdict = opts.retval;
	return 0;
}

/* Every CPU's event budget back to "no event sent in any second". */
static inline int vh_reset_budgets(struct vh *v)
{
	int ncpus = libbpf_num_possible_cpus();
	__u32 zero = 0;
	void *values;
	int ret = 0;

	if (ncpus < 0)
		return ncpus;
	values = calloc(ncpus, 16);	/* struct event_budget (bpf/maps.h): 16 bytes */
	if (!values)
		return -ENOMEM;
	if (bpf_map_update_elem(v->budgets_fd, &zero, values, BPF_ANY))
		ret = -errno;
	free(values);
	return ret;
}

/*
 * A tick at the lowest HZ (100) and a margin: how far the budget's coarse
 * clock (bpf_ktime_get_coarse_ns(), updated once a tick) may lag behind.
 */
#define VH_COARSE_LAG_NS 12000000ULL

/*
 * Sleeps until CLOCK_MONOTONIC is at least margin_ns before the next whole
 * second and past its start by more than the coarse clock can lag, so that a
 * short run stays within one second of the per-CPU event budget as the
 * program sees it (1 ms past the start was within the previous second at HZ
 * 250, Debian's).
 */
static inline void vh_wait_second_start(__u64 margin_ns)
{
	struct timespec now, nap = { 0 };

	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((__u64)now.tv_nsec >= VH_COARSE_LAG_NS &&
	    (__u64)now.tv_nsec + margin_ns < 1000000000ULL)
		return;
	if ((__u64)now.tv_nsec < VH_COARSE_LAG_NS)
		nap.tv_nsec = VH_COARSE_LAG_NS - now.tv_nsec;
	else
		nap.tv_nsec = 1000000000L - now.tv_nsec + VH_COARSE_LAG_NS;
	nanosleep(&nap, NULL);
}

#endif /* VERIFY_HARNESS_H */
