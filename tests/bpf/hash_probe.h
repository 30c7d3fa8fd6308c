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
};

#endif
