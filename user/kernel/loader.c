// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* open -> rodata config -> inner-map templates -> load -> generation 0, for attach and tests. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/loader.h"
#include "kernel/attachment.h"
#include "bloomxdp.skel.h"
#include "bloomxdp_tc.skel.h"
#include "filter/layout.h"
#include "util/log.h"
#include "filter/bloom_plan.h"
#include "filter/suffix_map.h"

void loader_config_plan(struct bloomxdp_config *cfg, const struct bloom_plan *plan)
{
	cfg->bits = layout_config_bits(plan);
	cfg->hashes = plan->hashes;
	cfg->capacity = plan->capacity;
	cfg->fpr_ppb = (__u64)(plan->fpr * BLOOMXDP_PPB + 0.5);
	cfg->layout = plan->layout;
}

/* Each list's outer maps of the skeleton, with the first inner maps as their templates. */
static int set_templates(struct loaded_prog *lp)
{
	struct bloomxdp *skel = lp->skel;
	const struct {
		struct bpf_map *outer;
		int inner;
	} outers[] = {
		{ skel->maps.filter, lp->filter.map_fd },
		{ skel->maps.kfilter, lp->filter.kbloom_fd },
		{ skel->maps.verify_v4, lp->verify.v4_fd },
		{ skel->maps.verify_v6, lp->verify.v6_fd },
		{ skel->maps.verify_names, lp->verify.names_fd },
		{ skel->maps.verify_prefix_v4, lp->verify.p4_fd },
		{ skel->maps.verify_prefix_v6, lp->verify.p6_fd },
		{ skel->maps.allow_v4, lp->allow.v4_fd },
		{ skel->maps.allow_v6, lp->allow.v6_fd },
		{ skel->maps.allow_names, lp->allow.names_fd },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(outers) / sizeof(outers[0]); i++) {
		/* A layout without a map of its own keeps the object's template. */
		if (outers[i].inner < 0)
			continue;
		ret = bpf_map__set_inner_map_fd(outers[i].outer, outers[i].inner);
		if (ret)
			return ret;
	}
	return 0;
}

int loader_write_state0(const struct loaded_prog *lp, __u64 max_memory)
{
	struct bloomxdp_state st = { .capacity = lp->filter.capacity, .max_memory = max_memory };
	__u32 zero = 0;

	return bpf_map_update_elem(bpf_map__fd(lp->skel->maps.state), &zero, &st, BPF_ANY) ?
	       -errno : 0;
}

/*
 * The public suffixes, at which a Bloom hit drops nothing unless the list
 * holds that key: without the list, single labels (TLDs) only, and a warning.
 */
static int install_suffixes(struct loaded_prog *lp)
{
	int ret = suffix_map_fill(bpf_map__fd(lp->skel->maps.suffixes),
				   lp->skel->rodata_config->config.hash_key);

	if (ret == -ENOENT) {
		log_warn("%s: no such file: hits at public suffixes other than top-level domains "
			 "are not confirmed exactly (install Debian's publicsuffix)",
			 SUFFIX_LIST_FILE);
		return 0;
	}
	if (ret < 0)
		log_error("cannot read the public suffixes of %s: %s", SUFFIX_LIST_FILE,
			  strerror(-ret));
	return ret < 0 ? ret : 0;
}

void loader_exact_outers(const struct bloomxdp *skel, struct exact_outer *verify,
			 struct exact_outer *allow)
{
	*verify = (struct exact_outer){
		bpf_map__fd(skel->maps.verify_v4), bpf_map__fd(skel->maps.verify_v6),
		bpf_map__fd(skel->maps.verify_names), bpf_map__fd(skel->maps.verify_prefix_v4),
		bpf_map__fd(skel->maps.verify_prefix_v6), bpf_map__fd(skel->maps.verify_ranges_v4),
		bpf_map__fd(skel->maps.verify_ranges_v6), bpf_map__fd(skel->maps.verify_table_v4),
		bpf_map__fd(skel->maps.verify_table_v6),
	};
	*allow = (struct exact_outer){
		bpf_map__fd(skel->maps.allow_v4), bpf_map__fd(skel->maps.allow_v6),
		bpf_map__fd(skel->maps.allow_names), -1, -1, -1, -1, -1, -1,
	};
}

static int install_generation0(struct loaded_prog *lp)
{
	struct bloomxdp *skel = lp->skel;
	struct exact_outer verify, allow;
	int ret;

	loader_exact_outers(skel, &verify, &allow);
	/* The active words start at 0: generation 0 of everything is live. */
	ret = filter_install(bpf_map__fd(skel->maps.filter), 0, &lp->filter);
	if (!ret)
		ret = filter_install_kernel(bpf_map__fd(skel->maps.kfilter), 0, &lp->filter);
	if (!ret)
		ret = exact_set_install(&verify, 0, &lp->verify);
	if (!ret)
		ret = exact_set_install(&allow, 0, &lp->allow);
	if (!ret)
		ret = loader_write_state0(lp, default_max_memory());
	if (!ret)
		ret = install_suffixes(lp);
	return ret;
}

/*
 * The skeleton of the program for hook. Both builds of bloomxdp.bpf.c have
 * the same maps and .rodata (bpf/hook.h): the tc build opens through the XDP
 * skeleton, with its own ELF and program name, so that one struct bloomxdp
 * serves every caller (skel->progs.bloomxdp_xdp is then the tc program).
 */
static struct bloomxdp *skel_open(__u32 hook)
{
	struct bloomxdp *skel;
	int err;

	if (hook != BLOOMXDP_HOOK_TC)
		return bloomxdp__open();
	skel = calloc(1, sizeof(*skel));
	if (!skel)
		return NULL;
	err = bloomxdp__create_skeleton(skel);
	if (!err) {
		skel->skeleton->data = (void *)bloomxdp_tc__elf_bytes(&skel->skeleton->data_sz);
		skel->skeleton->progs[0].name = "bloomxdp_tc";
		err = bpf_object__open_skeleton(skel->skeleton, NULL);
	}
	if (err) {
		bloomxdp__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/*
 * The opened skeleton loaded; a refusal said, with "; UNCHANGED is unchanged"
 * when an attachment stays as it was.
 */
static int skel_load(const struct bloomxdp_config *cfg, struct loaded_prog *lp,
		     const char *unchanged)
{
	int ret = bloomxdp__load(lp->skel);

	if (ret)
		log_error("the kernel refused the %s program (%s); rerun with -v for the "
			  "verifier's log%s%s%s", cfg->hook == BLOOMXDP_HOOK_TC ? "tc" : "XDP",
			  strerror(-ret), unchanged ? "; " : "", unchanged ? unchanged : "",
			  unchanged ? " is unchanged" : "");
	return ret;
}

/* The BPF object opened, cfg set as its .rodata; nothing made yet. */
static int loader_open(const struct bloomxdp_config *cfg, struct loaded_prog *lp)
{
	int ret;

	memset(lp, 0, sizeof(*lp));
	lp->filter.map_fd = lp->filter.kbloom_fd = -1;
	exact_set_init(&lp->verify);
	exact_set_init(&lp->allow);
	lp->skel = skel_open(cfg->hook);
	if (!lp->skel) {
		ret = -errno;
		log_error("cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	lp->skel->rodata_config->config = *cfg;
	/* Derived here, where every program is loaded: callers set the hash key only. */
	bloomxdp_addr_key_derive(cfg->hash_key, lp->skel->rodata_config->config.addr_key);
	return 0;
}

int loader_load(const struct bloomxdp_config *cfg, struct loaded_prog *lp)
{
	return loader_load_room(cfg, exact_room(cfg->capacity), lp);
}

int loader_load_room(const struct bloomxdp_config *cfg, __u32 room, struct loaded_prog *lp)
{
	return loader_load_room_by(cfg, room, NULL, NULL, lp);
}

int loader_load_room_by(const struct bloomxdp_config *cfg, __u32 room, loader_load_fn load,
			void *ctx, struct loaded_prog *lp)
{
	int ret;

	ret = loader_open(cfg, lp);
	if (ret)
		return ret;
	ret = filter_create(cfg, &lp->filter);
	if (!ret)
		ret = exact_set_create_hashed(&lp->verify, room);
	if (!ret)
		ret = exact_set_create(&lp->allow, room);
	if (ret) {
		log_error("cannot create the maps of a %u-bit filter: %s", cfg->bits,
			  strerror(-ret));
		goto err;
	}
	ret = set_templates(lp);
	if (!ret && load)
		ret = load(lp->skel->obj, ctx);	/* a refusal is the caller's to say */
	else if (!ret)
		ret = skel_load(cfg, lp, NULL);
	if (ret)
		goto err;
	ret = install_generation0(lp);
	if (ret) {
		log_error("cannot install the empty maps: %s", strerror(-ret));
		goto err;
	}
	return 0;
err:
	loader_close(lp);
	return ret;
}

static int load_reusing(const struct bloomxdp_config *cfg, const struct attachment *att,
			int (*reuse)(const struct attachment *, struct bloomxdp *),
			struct loaded_prog *lp)
{
	int ret;

	ret = loader_open(cfg, lp);
	if (ret)
		return ret;
	ret = reuse(att, lp->skel);
	if (ret) {
		log_error("cannot reuse the maps of %s: %s", att->ifname, strerror(-ret));
		goto err;
	}
	ret = skel_load(cfg, lp, att->ifname);
	if (ret)
		goto err;
	return 0;
err:
	loader_close(lp);
	return ret;
}

int loader_load_reusing(const struct bloomxdp_config *cfg, const struct attachment *att,
			struct loaded_prog *lp)
{
	return load_reusing(cfg, att, attachment_reuse_maps, lp);
}

int loader_load_own_active(const struct bloomxdp_config *cfg, const struct attachment *att,
			   struct loaded_prog *lp)
{
	return load_reusing(cfg, att, attachment_reuse_maps_but_active, lp);
}

int loader_load_member(const struct bloomxdp_config *cfg, const struct attachment *att,
		       struct loaded_prog *lp)
{
	return load_reusing(cfg, att, attachment_reuse_maps_member, lp);
}

/* Maps each program has of its own: its configuration, counters, and scratch space. */
static bool map_own(const char *name)
{
	static const char *const own[] = { ".rodata.config", "counters", "list_hits", "scratch",
					   NULL };
	const char *const *o;

	for (o = own; *o; o++)
		if (!strcmp(name, *o))
			return true;
	return false;
}

int loader_load_beside(const struct bloomxdp_config *cfg, const struct loaded_prog *primary,
		       int counters_fd, int list_hits_fd, struct loaded_prog *lp)
{
	struct bpf_map *map, *theirs;
	int ret;

	ret = loader_open(cfg, lp);
	if (ret)
		return ret;
	bpf_object__for_each_map(map, lp->skel->obj) {
		if (map_own(bpf_map__name(map)))
			continue;
		theirs = bpf_object__find_map_by_name(primary->skel->obj, bpf_map__name(map));
		ret = theirs ? bpf_map__reuse_fd(map, bpf_map__fd(theirs)) : -ENOENT;
		if (ret)
			break;
	}
	if (!ret && counters_fd >= 0)
		ret = bpf_map__reuse_fd(lp->skel->maps.counters, counters_fd);
	if (!ret && list_hits_fd >= 0)
		ret = bpf_map__reuse_fd(lp->skel->maps.list_hits, list_hits_fd);
	if (ret) {
		log_error("cannot share the maps with the %s program: %s",
			  primary->skel->rodata_config->config.direction == BLOOMXDP_DIR_EGRESS ?
			  "egress" : "ingress", strerror(-ret));
		goto err;
	}
	ret = skel_load(cfg, lp, NULL);
	if (ret)
		goto err;
	return 0;
err:
	loader_close(lp);
	return ret;
}

void loader_close(struct loaded_prog *lp)
{
	filter_close(&lp->filter);
	exact_set_close(&lp->verify);
	exact_set_close(&lp->allow);
	bloomxdp__destroy(lp->skel);
	lp->skel = NULL;
}

int loader_program_frags(bool *frags)
{
	static const char frags_section[] = "xdp.frags";
	/* Quiet: with -v, libbpf's log of this open would come before the load's own. */
	libbpf_print_fn_t print = libbpf_set_print(NULL);
	struct bloomxdp *skel = bloomxdp__open();
	const struct bpf_program *prog;
	int err = -errno;

	libbpf_set_print(print);
	if (!skel)
		return err;
	prog = skel->progs.bloomxdp_xdp;
	*frags = !strncmp(bpf_program__section_name(prog), frags_section,
			  sizeof(frags_section) - 1) ||
		 (bpf_program__flags(prog) & BPF_F_XDP_HAS_FRAGS);
	bloomxdp__destroy(skel);
	return 0;
}

const struct bloomxdp_config *loader_config(const struct loaded_prog *lp)
{
	return &lp->skel->rodata_config->config;
}

int loader_prog_fd(const struct loaded_prog *lp)
{
	return bpf_program__fd(lp->skel->progs.bloomxdp_xdp);
}
