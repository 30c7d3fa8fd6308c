/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The hook a packet program runs at. bloomxdp.bpf.c is one source built
 * twice: for XDP (bloomxdp.bpf.o, ingress in the driver) and, with
 * -DBLOOMXDP_BUILD_TC, for tc (bloomxdp_tc.bpf.o: ingress or egress through
 * tcx, or a clsact filter where the kernel has no tcx). The parsers and
 * matchers take a struct hook_ctx * and read the packet through these; the
 * direction (config.direction) is rodata, not a build.
 */
#ifndef BLOOMXDP_HOOK_H
#define BLOOMXDP_HOOK_H

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#ifdef BLOOMXDP_BUILD_TC

#define hook_ctx __sk_buff
#define HOOK_SECTION "tc"
#define HOOK_PROG bloomxdp_tc
/* TC_ACT_UNSPEC is tcx's TCX_NEXT: the programs after this one still run. */
#define HOOK_PASS TC_ACT_UNSPEC
#define HOOK_DROP TC_ACT_SHOT
/* No answer is sent from tc: an NXDOMAIN list's or a reject list's hit is dropped. */
#define HOOK_CAN_TX 0
/* Bytes of headers direct access needs in the linear part (hook_prepare()). */
#define HOOK_PULL 256

static __always_inline long hook_load_bytes(struct __sk_buff *ctx, __u32 off, void *to,
					    __u32 len)
{
	return bpf_skb_load_bytes(ctx, off, to, len);
}

/* The whole packet, paged data included (a GSO packet on egress: all its segments). */
static __always_inline __u32 hook_len(struct __sk_buff *ctx)
{
	return ctx->len;
}

static __always_inline __u32 hook_ifindex(struct __sk_buff *ctx)
{
	return ctx->ifindex;
}

/*
 * The headers into the linear part, where direct access reads them: a
 * socket's packets have them there already, and this costs one comparison.
 */
static __always_inline void hook_prepare(struct __sk_buff *ctx)
{
	__u32 want = ctx->len < HOOK_PULL ? ctx->len : HOOK_PULL;

	if (ctx->data_end - ctx->data < want)
		(void)bpf_skb_pull_data(ctx, want);	/* on failure the parsers see less */
}

#else

#define hook_ctx xdp_md
#define HOOK_SECTION "xdp.frags"
#define HOOK_PROG bloomxdp_xdp
#define HOOK_PASS XDP_PASS
#define HOOK_DROP XDP_DROP
#define HOOK_CAN_TX 1

static __always_inline long hook_load_bytes(struct xdp_md *ctx, __u32 off, void *to, __u32 len)
{
	return bpf_xdp_load_bytes(ctx, off, to, len);
}

/* The whole frame, its fragments included (xdp.frags). */
static __always_inline __u32 hook_len(struct xdp_md *ctx)
{
	return bpf_xdp_get_buff_len(ctx);
}

static __always_inline __u32 hook_ifindex(struct xdp_md *ctx)
{
	return ctx->ingress_ifindex;
}

static __always_inline void hook_prepare(struct xdp_md *ctx)
{
}

#endif /* BLOOMXDP_BUILD_TC */

/*
 * Longer than the part direct access reaches: an XDP multi-buffer frame
 * (xdp.frags), or an skb with paged data. The helpers read all of it.
 */
static __always_inline int hook_has_frags(struct hook_ctx *ctx)
{
	__u32 linear = ctx->data_end - ctx->data;

	return hook_len(ctx) > linear;
}

#endif /* BLOOMXDP_HOOK_H */
