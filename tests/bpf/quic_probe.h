/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef QUIC_PROBE_H
#define QUIC_PROBE_H

#include <bloomxdp/quic.h>

/* Blocks a frame carries: 256 bytes of payload, the RFCs' whole CRYPTO frame. */
#define QUIC_PROBE_BLOCKS	16

enum quic_probe_op {
	QUIC_PROBE_DERIVE = 1,	/* keys and secrets of version, dcid */
	QUIC_PROBE_AES,		/* key expanded, nblocks blocks encrypted (ECB) */
	QUIC_PROBE_PACKET,	/* a packet's work: derive, the header's mask, nblocks decrypted */
};

/* The frame exchanged with tests/bpf/quic_probe.bpf.c. */
struct quic_probe_frame {
	__u32 op;			/* enum quic_probe_op */
	__u32 cold;			/* derive without the salt's cached HMAC state */
	__u32 version;
	__u32 dcid_len;
	__u8 dcid[BLOOMXDP_QUIC_CID_MAX];
	__s32 ret;			/* out: bloomxdp_quic_derive()'s */
	__u32 nblocks;			/* at most QUIC_PROBE_BLOCKS */
	__u64 pn;			/* the packet number (PACKET) */
	struct bloomxdp_block key;	/* AES's key */
	struct bloomxdp_block sample;	/* PACKET: in, the sample; out, AES(hp, sample) */
	/* AES: plaintext, encrypted; PACKET: payload, decrypted */
	struct bloomxdp_block blocks[QUIC_PROBE_BLOCKS];
	struct bloomxdp_quic_keys keys;	/* out */
	__u8 initial_secret[32];	/* out */
	__u8 client_secret[32];		/* out */
};

#endif
