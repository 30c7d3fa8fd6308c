// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The socket guard: cgroup connect4/connect6/sendmsg4/sendmsg6 hooks that
 * refuse at once (the caller gets EPERM) a local connect() or UDP sendmsg()
 * to an address the attachment's lists block, looked up as the packet program
 * looks up --match src (the remote host): the same maps by name (the loader
 * reuses the attachment's pins, so a load's generation swap reaches the guard
 * in the same store), the allowlist, --verify, the named lists' actions, the
 * attachment's --action. Counters of its own (guard_counters); events on the
 * shared ring, marked BLOOMXDP_EVORIGIN_SOCKET.
 *
 * Only sockets of the attachment's network namespace are looked at (its
 * cookie, guard_netns_cookie): every socket of that namespace in the cgroup,
 * whatever interface it would leave by.
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/in6.h>
#include "loop.h"
#include "maps.h"
#include "filter.h"
#include "query.h"
#include "addr.h"
#include "match_lists.h"
#include "events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader (user/kernel/guard.c): the attachment's netns and interface. */
const volatile __u64 guard_netns_cookie;
const volatile __u32 guard_ifindex;

/* What a hook returns: the call goes on (1), or fails with EPERM (0). */
#define GUARD_PASS 1
#define GUARD_REFUSE 0

/* A refused (or, for a monitor list, let through) call on the events ring. */
static __always_inline void guard_event(struct bpf_sock_addr *ctx, struct bloomxdp_counters *cnt,
					const struct addr_query *q, const __u32 *remote,
					int ipv6, __u32 verdict)
{
	struct bloomxdp_event *ev;

	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		cnt->events_lost++;
		return;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->ts_ns = bpf_ktime_get_ns();
	ev->ifindex = guard_ifindex;
	ev->origin = BLOOMXDP_EVORIGIN_SOCKET;
	ev->direction = BLOOMXDP_DIR_EGRESS;	/* a local call going out */
	ev->family = ipv6 ? 6 : 4;
	ev->field = q->mi.field;
	ev->key_kind = q->mi.key_kind;
	ev->key_len = q->mi.key_len;
	ev->verdict = verdict;
	ev->list = q->mi.list;
	ev->l4_proto = ctx->protocol;
	/* The remote end is the destination; the local one is not chosen yet: zero. */
	__builtin_memcpy(ev->dst, remote, ipv6 ? 16 : 4);
	ev->dport = ctx->user_port;	/* network order, in the low 16 bits */
	bpf_ringbuf_submit(ev, 0);
	cnt->events_sent++;
}

/*
 * The verdict on a call to remote (network order; 4 bytes, or 16 with ipv6),
 * the remote host as --match src looks it up in a packet.
 */
static __always_inline int guard(struct bpf_sock_addr *ctx, const __u32 *remote, int ipv6)
{
	struct filter_header fh = {};
	struct bloomxdp_counters *cnt;
	struct addr_query q = {};
	__u64 kinds, *hdr;
	__u32 zero = 0, ev;
	void *bits;
	int hit;

	if (!(config.match & BLOOMXDP_MATCH_SRC) || bpf_get_netns_cookie(ctx) != guard_netns_cookie)
		return GUARD_PASS;
	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (!cnt)
		return GUARD_PASS;
	q.gen.block_slot = active_slot(BLOOMXDP_ACTIVE_BLOCK);
	bits = bpf_map_lookup_elem(&filter, &q.gen.block_slot);
	hdr = bits ? bloomxdp_filter_line(bits, 0) : NULL;
	if (!hdr) {
		cnt->no_filter++;
		goto pass;
	}
	kinds = hdr[BLOOMXDP_HDR_KINDS];
	fh.v4_lengths = hdr[BLOOMXDP_HDR_V4_LENGTHS];
	fh.v6_lengths = hdr[BLOOMXDP_HDR_V6_LENGTHS];
	q.filter_bits = config.layout == BLOOMXDP_LAYOUT_KERNEL ? 0 : hdr[BLOOMXDP_HDR_BITS];
	if (ipv6) {
		cnt->checked_v6++;
		hit = v6_or_mapped_blocked(&q, bits, kinds, &fh, (const struct in6_addr *)remote,
					   BLOOMXDP_FIELD_SRC);
		if (hit)
			cnt->hits_v6++;
	} else {
		cnt->checked_v4++;
		q.lengths = fh.v4_lengths;
		hit = v4_blocked(&q, bits, kinds, remote, BLOOMXDP_FIELD_SRC);
		if (hit)
			cnt->hits_v4++;
	}
	/* The lists holding it decide, as for a packet: monitor lets it through. */
	if (hit)
		hit = list_verdict(&q);
	if (!hit)
		goto pass;
	ev = hit == BLOOMXDP_LIST_MONITOR ? BLOOMXDP_EVVERDICT_WOULD_DROP : BLOOMXDP_EVVERDICT_DROP;
	if (config.events_per_sec && event_allowed(cnt))
		guard_event(ctx, cnt, &q, remote, ipv6, ev);
	if (hit == BLOOMXDP_LIST_MONITOR) {
		cnt->would_drop++;
		goto pass;
	}
	cnt->dropped++;
	return GUARD_REFUSE;
pass:
	cnt->passed++;
	return GUARD_PASS;
}

static __always_inline int guard4(struct bpf_sock_addr *ctx)
{
	__u32 remote = ctx->user_ip4;

	return guard(ctx, &remote, 0);
}

/* The context's address read a word at a time: the only loads it allows. */
static __always_inline int guard6(struct bpf_sock_addr *ctx)
{
	__u32 remote[4];

	remote[0] = ctx->user_ip6[0];
	remote[1] = ctx->user_ip6[1];
	remote[2] = ctx->user_ip6[2];
	remote[3] = ctx->user_ip6[3];
	return guard(ctx, remote, 1);
}

SEC("cgroup/connect4")
int bloomxdp_connect4(struct bpf_sock_addr *ctx)
{
	return guard4(ctx);
}

SEC("cgroup/connect6")
int bloomxdp_connect6(struct bpf_sock_addr *ctx)
{
	return guard6(ctx);
}

SEC("cgroup/sendmsg4")
int bloomxdp_sendmsg4(struct bpf_sock_addr *ctx)
{
	return guard4(ctx);
}

SEC("cgroup/sendmsg6")
int bloomxdp_sendmsg6(struct bpf_sock_addr *ctx)
{
	return guard6(ctx);
}
