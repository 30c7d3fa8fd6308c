/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef HASH_PROBE_H
#define HASH_PROBE_H

#include <bloomxdp/hash.h>

/* The frame exchanged with tests/bpf/hash_probe.bpf.c. */
struct hash_probe_frame {
	struct bloomxdp_key key;
	__u32 pad;
	__u64 hash_key[2];
	__u32 bits;
	__u32 hashes;
	__u64 hash;
	__u32 pos[BLOOMXDP_MAX_HASHES];
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS];	/* in: bloomxdp_addr_key_derive()'s */
	__u64 addr_hash;			/* out: bloomxdp_addr_hash() of key */
	__u32 skip;				/* in: HASH_PROBE_SKIP_* (timing) */
	__u32 pad2;
};

#define HASH_PROBE_SKIP_SIP	1
#define HASH_PROBE_SKIP_ADDR	2

#endif
