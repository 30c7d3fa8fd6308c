/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LOADER_H
#define BLOOMXDP_LOADER_H

#include <bloomxdp/common.h>
#include "filter/exact.h"
#include "filter/filter.h"

struct bloom_plan;

/*
 * The XDP program loaded, not attached: what attach pins, and what the tests
 * run with BPF_PROG_TEST_RUN, loaded the one same way. Generation 0 of every
 * list is installed and live (empty); its first maps are also the templates
 * every later generation must match.
 */
struct loaded_prog {
	struct bloomxdp *skel;
	struct filter filter;
	struct exact_set verify;
	struct exact_set allow;
};

/* The geometry of a plan into cfg: bits, hashes, capacity, fpr_ppb, layout. */
void loader_config_plan(struct bloomxdp_config *cfg, const struct bloom_plan *plan);

/*
 * Opens the BPF object, freezes cfg (its hash key included) as the program's
 * .rodata, creates the first maps, sets them as the inner-map templates,
 * loads, and installs them as generation 0. Prints the error.
 */
int loader_load(const struct bloomxdp_config *cfg, struct loaded_prog *lp);

/* The same with exact maps of room entries each (tests that fill them up). */
int loader_load_room(const struct bloomxdp_config *cfg, __u32 room, struct loaded_prog *lp);
/*
 * The same, the object loaded by load(obj, ctx) rather than by its skeleton:
 * libxdp, which loads the program as an extension of its dispatcher and
 * attaches it there (kernel/multiprog.h). A failure of load is the caller's
 * to say; generation 0 is installed after it.
 */
struct bpf_object;
typedef int (*loader_load_fn)(struct bpf_object *obj, void *ctx);
int loader_load_room_by(const struct bloomxdp_config *cfg, __u32 room, loader_load_fn load,
			void *ctx, struct loaded_prog *lp);
/*
 * The same program over the maps of an attachment (every pinned map but the
 * configuration): its lists, counters, generations and events carry over.
 * Nothing is installed. Prints the error.
 */
struct attachment;
int loader_load_reusing(const struct bloomxdp_config *cfg, const struct attachment *att,
			struct loaded_prog *lp);
/* The same with an active array of its own (attachment_reuse_maps_but_active()). */
int loader_load_own_active(const struct bloomxdp_config *cfg, const struct attachment *att,
			   struct loaded_prog *lp);
/*
 * A group's member (attach IF1 IF2 ...): a program over the maps of the
 * home's attachment but its own configuration, counters, list hits and
 * scratch (attachment_reuse_maps_member()). Nothing is installed.
 */
int loader_load_member(const struct bloomxdp_config *cfg, const struct attachment *att,
		       struct loaded_prog *lp);
/*
 * Another program of the same attachment (cfg->direction, cfg->hook): every
 * map of primary shared but its own configuration, counters, list hits and
 * scratch, which are new, or counters_fd and list_hits_fd where >= 0 (a
 * replaced program's). Nothing is installed. Prints the error.
 */
int loader_load_beside(const struct bloomxdp_config *cfg, const struct loaded_prog *primary,
		       int counters_fd, int list_hits_fd, struct loaded_prog *lp);
void loader_close(struct loaded_prog *lp);

/* The outer maps of the skeleton's exact stage (verify_*) and allowlist (allow_*). */
struct bloomxdp;
void loader_exact_outers(const struct bloomxdp *skel, struct exact_outer *verify,
			 struct exact_outer *allow);

/*
 * Generation 0's bookkeeping (struct bloomxdp_state): sized for the keys of
 * its filter, and max_memory bytes for each generation (loader_load() sets
 * default_max_memory()).
 */
int loader_write_state0(const struct loaded_prog *lp, __u64 max_memory);

/*
 * Whether the XDP program is built for multi-buffer frames (an "xdp.frags"
 * section, or BPF_F_XDP_HAS_FRAGS set): the BPF object opened, nothing loaded.
 */
int loader_program_frags(bool *frags);

/* The configuration the program was loaded with (its .rodata). */
const struct bloomxdp_config *loader_config(const struct loaded_prog *lp);

/* The fd of the program, for attaching or BPF_PROG_TEST_RUN. */
int loader_prog_fd(const struct loaded_prog *lp);

#endif
