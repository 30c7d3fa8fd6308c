// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test-only XDP programs over include/bloomxdp/quic.h: the frame carries a
 * struct quic_probe_frame, the program computes what its op asks with the
 * work space in a per-CPU map (as the packet program keeps it) and writes the
 * results back into the frame for BPF_PROG_TEST_RUN's data_out.
 * quic_probe does every op; quic_probe_derive and quic_probe_aes only one
 * part each, so that their verified_insns tell the parts' costs apart;
 * quic_probe_loop derives and encrypts in a bpf_loop callback, as the packet
 * program would (the callback's stack and the global functions' add up).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "quic_probe.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct quic_work {
	struct bloomxdp_quic_derive d;
	struct bloomxdp_aes128 ks;
	struct bloomxdp_block blk;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct quic_work);
} quic_work SEC(".maps");

static __always_inline struct quic_work *work(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&quic_work, &zero);
}

static __always_inline int derive(struct quic_probe_frame *f, struct quic_work *w)
{
	w->d.version = f->version;
	w->d.dcid_len = f->dcid_len;
	__builtin_memcpy(w->d.dcid, f->dcid, sizeof(w->d.dcid));
	if (f->cold)
		w->d.salt_version = 0;
	f->ret = bloomxdp_quic_derive(&w->d);
	__builtin_memcpy(&f->keys, &w->d.keys, sizeof(f->keys));
	__builtin_memcpy(f->initial_secret, w->d.initial_secret.b, sizeof(f->initial_secret));
	__builtin_memcpy(f->client_secret, w->d.client_secret.b, sizeof(f->client_secret));
	return f->ret;
}

static __always_inline void aes(struct quic_probe_frame *f, struct quic_work *w)
{
	__u32 i;

	__builtin_memcpy(&w->blk, &f->key, sizeof(w->blk));
	bloomxdp_aes128_expand(&w->ks, &w->blk);
	for (i = 0; i < QUIC_PROBE_BLOCKS; i++) {
		if (i >= f->nblocks)
			break;
		__builtin_memcpy(&w->blk, &f->blocks[i], sizeof(w->blk));
		bloomxdp_aes128_encrypt(&w->ks, &w->blk);
		__builtin_memcpy(&f->blocks[i], &w->blk, sizeof(w->blk));
	}
}

/* What a packet costs: its keys, the header's mask, nblocks of payload decrypted. */
static __always_inline void packet(struct quic_probe_frame *f, struct quic_work *w)
{
	__u32 i, j;

	if (derive(f, w))
		return;
	bloomxdp_aes128_expand(&w->ks, &w->d.keys.hp);
	__builtin_memcpy(&w->blk, &f->sample, sizeof(w->blk));
	bloomxdp_aes128_encrypt(&w->ks, &w->blk);
	__builtin_memcpy(&f->sample, &w->blk, sizeof(w->blk));
	bloomxdp_aes128_expand(&w->ks, &w->d.keys.key);
	for (i = 0; i < QUIC_PROBE_BLOCKS; i++) {
		if (i >= f->nblocks)
			break;
		bloomxdp_quic_ctr_block(&w->d.keys.iv, f->pn, 2 + i, &w->blk);
		bloomxdp_aes128_encrypt(&w->ks, &w->blk);
		for (j = 0; j < 4; j++)
			f->blocks[i].w[j] ^= w->blk.w[j];
	}
}

static __always_inline struct quic_probe_frame *frame(struct xdp_md *ctx)
{
	struct quic_probe_frame *f = (void *)(long)ctx->data;

	if ((void *)(f + 1) > (void *)(long)ctx->data_end)
		return NULL;
	return f;
}

SEC("xdp")
int quic_probe(struct xdp_md *ctx)
{
	struct quic_probe_frame *f = frame(ctx);
	struct quic_work *w = work();

	if (!f || !w)
		return XDP_ABORTED;
	switch (f->op) {
	case QUIC_PROBE_DERIVE:
		derive(f, w);
		break;
	case QUIC_PROBE_AES:
		aes(f, w);
		break;
	case QUIC_PROBE_PACKET:
		packet(f, w);
		break;
	default:
		return XDP_ABORTED;
	}
	return XDP_PASS;
}

SEC("xdp")
int quic_probe_derive(struct xdp_md *ctx)
{
	struct quic_probe_frame *f = frame(ctx);
	struct quic_work *w = work();

	if (!f || !w)
		return XDP_ABORTED;
	derive(f, w);
	return XDP_PASS;
}

SEC("xdp")
int quic_probe_aes(struct xdp_md *ctx)
{
	struct quic_probe_frame *f = frame(ctx);
	struct quic_work *w = work();

	if (!f || !w)
		return XDP_ABORTED;
	aes(f, w);
	return XDP_PASS;
}

/* The callback: the keys of the work's input, and AES(hp, blk) (the header's mask). */
static long loop_step(__u32 index, void *ctx)
{
	struct quic_work *w = work();

	(void)index;
	(void)ctx;
	if (!w || bloomxdp_quic_derive(&w->d))
		return 1;
	bloomxdp_aes128_expand(&w->ks, &w->d.keys.hp);
	bloomxdp_aes128_encrypt(&w->ks, &w->blk);
	return 1;
}

/* DERIVE's inputs and outputs, and the sample's mask in sample, from a bpf_loop callback. */
SEC("xdp")
int quic_probe_loop(struct xdp_md *ctx)
{
	struct quic_probe_frame *f = frame(ctx);
	struct quic_work *w = work();

	if (!f || !w)
		return XDP_ABORTED;
	w->d.version = f->version;
	w->d.dcid_len = f->dcid_len;
	__builtin_memcpy(w->d.dcid, f->dcid, sizeof(w->d.dcid));
	__builtin_memcpy(&w->blk, &f->sample, sizeof(w->blk));
	w->d.keys.hp.w[0] = 0;
	bpf_loop(1, loop_step, NULL, 0);
	__builtin_memcpy(&f->keys, &w->d.keys, sizeof(f->keys));
	__builtin_memcpy(&f->sample, &w->blk, sizeof(f->sample));
	return XDP_PASS;
}
