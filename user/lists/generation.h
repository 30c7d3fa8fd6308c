/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one swap of a blocklist generation, whoever made it: a load (and so a
 * rebuild and restore from the state), a saved filter (restore --file) and a
 * fleet's version. The generation goes into the slot the live one does not
 * use: its bookkeeping first (status never lags the filter), then its maps;
 * then the active word flips, and once no packet reads the old slot its maps
 * go, so that none is left behind for a later generation to inherit.
 */
#ifndef BLOOMXDP_GENERATION_H
#define BLOOMXDP_GENERATION_H

#include <stddef.h>
#include <linux/types.h>

struct attachment;
struct bloomxdp_state;
struct exact_set;
struct filter;

/* The outer maps a generation has a slot in: filter, kernel filter, intervals, lists, exact. */
#define GENERATION_OUTERS 8

struct generation {
	struct filter *f;		/* the filter (and its kernel map with layout kernel) */
	int range_fds[2];		/* the exact intervals of IPv4, IPv6; -1: none */
	struct exact_set *exact;	/* --verify's exact copy (its tables made at install); NULL: none */
	__u64 *at_public;		/* its keys at public depths (suffix_map.h) */
	size_t nat_public;
	/* More of the new slot before the flip (a load's named lists); NULL: nothing. */
	int (*fill)(void *ctx, __u32 slot);
	/*
	 * The flip, when it is not the attachment's active word alone (a saved
	 * filter of another hash key replaces the program); NULL: attachment_flip().
	 */
	int (*flip)(void *ctx, __u32 slot, const int *outers, int n);
	void *ctx;
};

/*
 * Swaps g in after the live generation (in live_slot): st is the live
 * generation's bookkeeping with the new one's counts (entries, keys,
 * capacity, max_memory, exact_*); its generation is bumped and its time
 * stamped here. *slot: the new generation's. -errno, unprinted (fill and
 * flip say their own); the live list is then unchanged.
 */
int generation_swap(struct attachment *att, __u32 live_slot, struct bloomxdp_state *st,
		    const struct generation *g, __u32 *slot);

#endif
