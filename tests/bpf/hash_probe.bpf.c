// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test-only XDP program: computes, with the shared include/ code, the hash and
 * the probe positions of the key carried in the frame, and writes them back
 * into the frame for BPF_PROG_TEST_RUN's data_out. Proves that the kernel side
 * computes the same positions as user space.
 *
 * Frame in:  struct hash_probe_frame with key, hash_key, addr_key, bits, hashes set.
 * Frame out: the same with hash (SipHash), pos[] (its positions) and
 * addr_hash (the address hash) filled in.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloomxdp/hash.h>
#include "hash_probe.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int hash_probe(struct xdp_md *ctx)
{
	struct hash_probe_frame *f = (void *)(long)ctx->data;
	struct bloomxdp_probe probe;
	struct bloomxdp_key key;
	__u64 hash_key[2];
	__u32 i;

	if ((void *)(f + 1) > (void *)(long)ctx->data_end)
		return XDP_ABORTED;
	if (f->bits == 0 || f->key.nwords > BLOOMXDP_KEY_MAX_WORDS)
		return XDP_ABORTED;
	__builtin_memcpy(&key, &f->key, sizeof(key));
	hash_key[0] = f->hash_key[0];
	hash_key[1] = f->hash_key[1];
	if (!(f->skip & HASH_PROBE_SKIP_SIP))
		f->hash = bloomxdp_siphash13(hash_key, &key);
	if (!(f->skip & HASH_PROBE_SKIP_ADDR))
		f->addr_hash = bloomxdp_addr_hash(f->addr_key, &key);
	bloomxdp_probe_init(&probe, f->hash, f->bits);
	for (i = 0; i < BLOOMXDP_MAX_HASHES; i++) {
		if (i >= f->hashes)
			break;
		f->pos[i] = probe.pos;
		bloomxdp_probe_next(&probe, f->bits);
	}
	return XDP_PASS;
}
