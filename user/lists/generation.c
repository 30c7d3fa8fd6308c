// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The swap of a blocklist generation (generation.h). */
#include <errno.h>
#include <time.h>

#include <bpf/bpf.h>

#include "kernel/attachment.h"
#include "filter/exact.h"
#include "filter/filter.h"
#include "filter/suffix_map.h"
#include "lists/generation.h"

/* The outer maps of a generation, the filter first (attachment_flip() waits on it). */
static int generation_outers(const struct attachment *att, const struct filter *f,
			     int outers[GENERATION_OUTERS])
{
	int n = 0;

	outers[n++] = att->filter_fd;
	if (f->kbloom_fd >= 0)
		outers[n++] = att->kfilter_fd;
	/* Always: a family that leaves its intervals leaves no stale map behind. */
	outers[n++] = att->ranges_v4_fd;
	outers[n++] = att->ranges_v6_fd;
	outers[n++] = att->list.keys_fd;	/* the named lists' keys, with the union */
	/* Always: a generation without an exact copy leaves none of an older one behind. */
	outers[n++] = att->verify.v4_fd;
	outers[n++] = att->verify.v6_fd;
	outers[n++] = att->verify.names_fd;
	return n;
}

/* The new slot's maps, its bookkeeping first: status then never lags the filter. */
static int generation_install(const struct attachment *att, __u32 slot,
			      const struct bloomxdp_state *st, const struct generation *g)
{
	int fam, ret;

	ret = attachment_write_state(att, slot, st);
	/* Its keys at public depths, confirmed exactly: with the generation. */
	if (!ret)
		ret = suffix_map_sync(att->suffixes_fd, slot, g->at_public, g->nat_public);
	if (!ret)
		ret = filter_install(att->filter_fd, slot, g->f);
	if (!ret)
		ret = filter_install_kernel(att->kfilter_fd, slot, g->f);
	if (!ret && g->exact)
		ret = exact_set_install(&att->verify, slot, g->exact);
	else if (!ret)
		exact_outer_clear(&att->verify, slot);	/* the program reads: no exact copy */
	for (fam = 0; fam < 2 && !ret; fam++)
		if (g->range_fds[fam] >= 0 &&
		    bpf_map_update_elem(fam ? att->ranges_v6_fd : att->ranges_v4_fd, &slot,
					&g->range_fds[fam], BPF_ANY))
			ret = -errno;
	return ret;
}

int generation_swap(struct attachment *att, __u32 live_slot, struct bloomxdp_state *st,
		    const struct generation *g, __u32 *slot)
{
	int outers[GENERATION_OUTERS], n, ret;
	struct timespec wall;

	*slot = live_slot ^ 1;
	clock_gettime(CLOCK_REALTIME, &wall);
	st->generation++;
	st->loaded_at_ns = wall.tv_sec * 1000000000ULL + wall.tv_nsec;
	n = generation_outers(att, g->f, outers);
	ret = generation_install(att, *slot, st, g);
	if (!ret && g->fill)
		ret = g->fill(g->ctx, *slot);
	if (ret)
		return ret;
	if (g->flip)
		return g->flip(g->ctx, *slot, outers, n);
	return attachment_flip(att, BLOOMXDP_ACTIVE_BLOCK, *slot, 0, outers, n);
}
