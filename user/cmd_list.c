// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* load, add, query: the commands that write or read the live list. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "attachment.h"
#include "cli.h"
#include "filter.h"
#include "blocklist.h"
#include "exact.h"
#include "listbuild.h"
#include "prefixes.h"
#include "listfile.h"
#include "layout.h"
#include "log.h"
#include "sizing.h"
#include "suffixes.h"

struct list_opts {
	__u32 format;		/* enum list_format */
	__u64 prefix_probes;
	__u32 store;		/* enum range_store: --store */
	bool allow;		/* load/add the allowlist */
	bool allow_empty;	/* load: an input without entries may empty the list */
	bool lenient;		/* load: skip the lines that cannot be honoured, and say so */
	bool allow_public_suffix;	/* load/add: block public suffixes (edu.pl) too */
	const char *column;	/* --format csv: "N" or "N,M" */
	struct file_list where;	/* --format csv: "COL=VALUE", repeatable */
	__u64 max_memory;	/* load: bytes a generation may take, from now on */
	bool max_memory_given;
};

/* The expansion of prefixes, for load's report. */
static void print_prefix_plans(const struct prefix_plan plan[2], const struct range_cost cost[2])
{
	static const char *const family[2] = { "IPv4", "IPv6" };
	int i;

	for (i = 0; i < 2; i++) {
		if (cost[i].use_ranges) {
			printf("%s prefixes: %llu entries stored exact as %llu intervals (%llu "
			       "bytes, %u search steps) instead of %.0f Bloom keys\n", family[i],
			       (unsigned long long)plan[i].entries,
			       (unsigned long long)cost[i].intervals,
			       (unsigned long long)cost[i].range_bytes, cost[i].steps,
			       plan[i].expanded);
			continue;
		}
		if (!plan[i].entries || (plan[i].ntargets == 1 &&
					 plan[i].target[0] == (i ? 128 : 32)))
			continue;
		printf("%s prefixes: %llu entries stored as %.0f keys, %u probes per packet\n",
		       family[i], (unsigned long long)plan[i].entries, plan[i].expanded,
		       plan[i].ntargets);
	}
}

/*
 * A list whose entries the attachment never looks at is most likely a
 * mistake (a typo that made an address a domain, a names list on a src-only
 * attachment): say so, once.
 */
static void warn_unmatched_kinds(const struct filter *f, const struct bloomxdp_config *cfg,
				 const char *ifname)
{
	__u64 kinds = filter_header(f);
	char match[64];

	match_text(cfg->match, match, sizeof(match));
	if ((kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS)) &&
	    !(cfg->match & BLOOMXDP_MATCH_NAMES))
		log_warn("the list holds domains or URLs, but %s matches only %s: they block "
			 "nothing (attach with --match including dns, http or sni)", ifname, match);
	if ((kinds & (BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6)) &&
	    !(cfg->match & (BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST)))
		log_warn("the list holds addresses, but %s matches only %s: they block nothing "
			 "(attach with --match including src or dst)", ifname, match);
	if ((kinds & BLOOMXDP_HAS_URLS) && !(cfg->match & BLOOMXDP_MATCH_HTTP))
		log_warn("the list holds URLs, but %s does not match http: they block nothing",
			 ifname);
}

/*
 * Distinct keys in a filter: estimated from the fill where the bits can be
 * read, so that duplicates do not count; else the keys inserted.
 */
static double filter_keys_now(const struct filter *f, const struct bloomxdp_state *st)
{
	if (!f->ops->readable)
		return st->keys;
	return bloom_entries_for_fill(f->bits, f->hashes, (double)filter_popcount(f) / f->bits);
}

/* The memory limit of a load: --max-memory (kept from then on), else the live list's. */
static __u64 load_max_memory(const struct list_opts *o, const struct bloomxdp_state *live)
{
	if (o->max_memory_given)
		return o->max_memory;
	return live->max_memory ? live->max_memory : default_max_memory();
}

/* A list that would need more than --max-memory: what it needs, and what to do. */
static void explain_too_big(const struct attachment *att, const struct list_build *b,
			    const struct list_opts *o, __u64 need_bytes, __u64 exact_bytes,
			    __u64 max_memory)
{
	double fpr = (double)att->config.fpr_ppb / BLOOMXDP_PPB;
	char exact[128] = "", hint[128] = "";

	if (exact_bytes)
		snprintf(exact, sizeof(exact), ", %llu of them %s", (unsigned long long)exact_bytes,
			 b->cost[0].use_ranges || b->cost[1].use_ranges ?
			 "exact (the intervals, and the copy of --verify if on)" :
			 "the exact copy of --verify");
	/* Prefixes stored as many more keys than entries: more probes expand them less. */
	if (b->keys > 2 * b->read && o->prefix_probes < BLOOMXDP_MAX_PREFIX_LENGTHS)
		snprintf(hint, sizeof(hint), ", or more --prefix-probes than %llu (fewer keys)",
			 (unsigned long long)o->prefix_probes);
	if (!need_bytes)
		log_error("the list makes %llu keys: no filter holds that many at FPR %g (m is "
			  "at most 2^32 bits); load a shorter list%s; the live list of %s is "
			  "unchanged", (unsigned long long)b->keys, fpr, hint, att->ifname);
	else
		log_error("the list makes %llu keys, which need %llu bytes at FPR %g%s, over "
			  "--max-memory %llu: load it with --max-memory %llu or more%s; the live "
			  "list of %s is unchanged", (unsigned long long)b->keys,
			  (unsigned long long)need_bytes, fpr, exact,
			  (unsigned long long)max_memory, (unsigned long long)need_bytes, hint,
			  att->ifname);
}

/*
 * The new generation's filter, sized for the list's keys (and room for adds)
 * at the target FPR with the attachment's k, within max_memory.
 */
static int size_generation(const struct attachment *att, const struct list_build *b,
			   const struct list_opts *o, __u64 max_memory, __u64 exact_bytes,
			   struct bloom_plan *plan)
{
	struct generation_need need = {
		.layout = att->config.layout, .hashes = att->config.hashes,
		.fpr = (double)att->config.fpr_ppb / BLOOMXDP_PPB, .keys = b->keys,
		.floor = att->config.capacity, .max_memory = max_memory,
		.other_bytes = exact_bytes,
	};
	__u64 need_bytes;
	int ret;

	ret = generation_plan(&need, plan, &need_bytes);
	if (ret == -E2BIG)
		explain_too_big(att, b, o, need_bytes, exact_bytes, max_memory);
	else if (ret)
		log_error("cannot size a filter for the list at FPR %g: %s; the live list of %s is "
			  "unchanged", need.fpr, strerror(-ret), att->ifname);
	return ret;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * Reads the list files into the new filter (and exact set), as a whole. An
 * input without a single entry (an empty file, a feed that failed upstream)
 * would silently remove all blocking: refused unless --allow-empty.
 */
static int build_lists(struct list_build *b, const struct list_opts *o, char **files, int nfiles,
		       char err[LIST_ERROR_LEN])
{
	char places[LIST_ERROR_LEN / 2];
	struct csv_spec csv;
	const char *why;
	int i, ret = 0;

	if (csv_spec_parse(o->column, o->where.items, o->where.count, &csv, &why)) {
		snprintf(err, LIST_ERROR_LEN, "%s", why);
		return -EINVAL;
	}
	b->progress = isatty(STDERR_FILENO);
	b->opts.csv = &csv;
	b->opts.lenient = o->lenient;
	for (i = 0; i < nfiles && !ret; i++)
		ret = list_build_read(b, files[i], o->format, err);
	list_notes_print(&b->notes);
	if (!ret && b->suffixes.count && !o->allow_public_suffix) {
		snprintf(err, LIST_ERROR_LEN, "%llu public suffix%s in the list, which would block "
			 "every domain registered under %s: %s; remove %s or give "
			 "--allow-public-suffix", (unsigned long long)b->suffixes.count,
			 b->suffixes.count == 1 ? "" : "es", b->suffixes.count == 1 ? "it" : "them",
			 list_suffixes_text(&b->suffixes, places, sizeof(places)),
			 b->suffixes.count == 1 ? "it" : "them");
		ret = -EPERM;
	}
	if (!ret && b->allowed_suffixes.count)
		log_warn("%llu public suffix%s in the allowlist: nothing under %s is ever dropped: "
			 "%s", (unsigned long long)b->allowed_suffixes.count,
			 b->allowed_suffixes.count == 1 ? "" : "es",
			 b->allowed_suffixes.count == 1 ? "it" : "them",
			 list_suffixes_text(&b->allowed_suffixes, places, sizeof(places)));
	if (!ret)
		ret = list_build_finish(b, err);
	if (!ret && !b->read && !o->allow_empty) {
		snprintf(err, LIST_ERROR_LEN, "no entry in %s%s (give --allow-empty to empty the "
			 "list on purpose)", strcmp(files[0], LIST_STDIN) ? files[0] :
			 "the standard input", nfiles > 1 ? " nor in the other files" : "");
		ret = -ENODATA;
	}
	return ret;
}

static __u32 entry_allow_flag(const struct entry *e)
{
	if (e->kind != ENTRY_ADDR)
		return BLOOMXDP_ALLOW_HAS_NAMES;
	return key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_ALLOW_HAS_V4 :
							   BLOOMXDP_ALLOW_HAS_V6;
}

/*
 * Inserts entries into the live allowlist, in place; *added says how many
 * made it when one fails (the allowlist is full).
 */
static int allowlist_insert(struct attachment *att, const struct entry *e, size_t n,
			    size_t *added)
{
	struct exact_set live;
	__u32 slot;
	int ret;

	*added = 0;
	ret = attachment_active(att, BLOOMXDP_ACTIVE_ALLOW, &slot);
	if (!ret)
		ret = exact_set_open(&att->allow, slot, &live);
	if (ret)
		return ret;
	for (; *added < n && !ret; ++*added) {
		ret = exact_set_add(&live, att->config.hash_key, &e[*added]);
		/* After the entry: a packet may then look it up. */
		if (!ret)
			ret = attachment_allow_add_flags(att, entry_allow_flag(&e[*added]));
		if (ret)
			break;
	}
	exact_set_close(&live);
	return ret;
}

/*
 * A blocklist's exceptions (@@||host^, rpz-passthru) go into the live
 * allowlist before its blocks go live, so that an excepted name is never
 * dropped in between. They stay there until 'load --allow' replaces the
 * allowlist: a blocklist and its exceptions cannot be swapped in one step.
 */
static int allow_exceptions(struct attachment *att, const struct list_build *b)
{
	size_t added;
	int ret;

	if (!b->nexceptions)
		return 0;
	ret = allowlist_insert(att, b->exceptions, b->nexceptions, &added);
	if (ret) {
		log_error("cannot add the list's exceptions to the allowlist of %s: %s (%zu of %zu "
			  "were added); the live list is unchanged", att->ifname,
			  ret == -E2BIG || ret == -ENOSPC ? "it is full" : strerror(-ret), added,
			  b->nexceptions);
		return ret;
	}
	printf("added %zu exception%s of the list (@@, rpz-passthru) to the allowlist of %s; "
	       "they stay until 'load --allow' replaces it\n", b->nexceptions,
	       b->nexceptions == 1 ? "" : "s", att->ifname);
	return 0;
}

/*
 * The blocklist: a new filter (and exact copy with --verify) in the other
 * generation, sized for the list. The input is read before the writers' lock
 * is taken, so that a slow feed holds up no other writer; the lock covers
 * only the swap.
 */
static int load_blocklist(struct attachment *att, const struct list_opts *o, char **files,
			  int nfiles)
{
	/* The outer maps of this generation: filter first, as attachment_flip() wants. */
	int outers[7] = { att->filter_fd, att->kfilter_fd }, nouters = 1;
	int range_fds[2] = { -1, -1 }, fam;
	double fpr = (double)att->config.fpr_ppb / BLOOMXDP_PPB;
	struct exact_set exact;
	struct filter f = { .map_fd = -1 };
	struct bloomxdp_state st = {}, live = {};
	char err[LIST_ERROR_LEN];
	struct timespec start, wall;
	struct list_build build;
	struct bloom_plan plan;
	__u64 max_memory, exact_bytes = 0;
	__u32 slot;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &start);
	exact_set_init(&exact);
	list_build_init(&build, NULL, o->prefix_probes);
	build.bloom = true;
	build.ranges_ok = true;
	build.store = o->store;
	build.bits_per_key = -log(fpr) / (M_LN2 * M_LN2);
	memcpy(build.hash_key, att->config.hash_key, sizeof(build.hash_key));
	/* The limit this load sizes within: the live list's, unless --max-memory sets another. */
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = attachment_read_state(att, slot, &live);
	if (ret) {
		log_error("cannot read the live generation of %s: %s; the live list is unchanged",
			  att->ifname, strerror(-ret));
		goto cleanup;
	}
	max_memory = load_max_memory(o, &live);
	if (att->config.verify) {
		ret = exact_set_create(&exact, exact_room_for_memory(max_memory));
		if (ret) {
			log_error("cannot create the new maps of %s: %s", att->ifname,
				  strerror(-ret));
			goto cleanup;
		}
		build.exact = &exact;
	}
	ret = build_lists(&build, o, files, nfiles, err);
	if (ret) {
		log_error("%s; the live list of %s is unchanged", err, att->ifname);
		goto cleanup;
	}
	if (att->config.verify)
		exact_bytes = exact_set_bytes(&exact);
	/* The intervals count against --max-memory as the exact copy does. */
	for (fam = 0; fam < 2; fam++)
		if (build.cost[fam].use_ranges)
			exact_bytes += build.cost[fam].range_bytes;
	ret = size_generation(att, &build, o, max_memory, exact_bytes, &plan);
	if (ret)
		goto cleanup;
	ret = filter_create_plan(&att->config, &plan, &f);
	if (ret) {
		log_error("cannot create a filter of %llu bytes for %s: %s; the live list is "
			  "unchanged", (unsigned long long)bloom_plan_map_bytes(&plan), att->ifname,
			  strerror(-ret));
		goto cleanup;
	}
	ret = list_build_insert(&build, &f, err);
	if (ret) {
		log_error("%s; the live list of %s is unchanged", err, att->ifname);
		goto cleanup;
	}
	for (fam = 0; fam < 2; fam++) {
		if (!build.cost[fam].use_ranges)
			continue;
		range_fds[fam] = range_set_create_map(&build.ranges[fam]);
		if (range_fds[fam] < 0) {
			ret = range_fds[fam];
			log_error("cannot create the %s intervals of %s (%llu bytes): %s; the live "
				  "list is unchanged", fam ? "IPv6" : "IPv4", att->ifname,
				  (unsigned long long)build.cost[fam].range_bytes, strerror(-ret));
			goto cleanup;
		}
	}
	ret = attachment_lock(att);
	if (ret)
		goto cleanup;
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = attachment_read_state(att, slot, &st);
	if (ret) {
		log_error("cannot read the live generation of %s: %s; the live list is unchanged",
			  att->ifname, strerror(-ret));
		goto cleanup;
	}
	ret = allow_exceptions(att, &build);
	if (ret)
		goto cleanup;
	slot ^= 1;
	if (f.kbloom_fd >= 0)
		nouters = 2;
	/* Always: a family that leaves its intervals leaves no stale map behind. */
	outers[nouters++] = att->ranges_v4_fd;
	outers[nouters++] = att->ranges_v6_fd;
	if (att->config.verify) {
		outers[nouters++] = att->verify.v4_fd;
		outers[nouters++] = att->verify.v6_fd;
		outers[nouters++] = att->verify.names_fd;
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	st.entries = build.read;
	st.keys = build.keys;
	st.generation++;
	st.loaded_at_ns = wall.tv_sec * 1000000000ULL + wall.tv_nsec;
	st.capacity = plan.capacity;
	st.max_memory = max_memory;
	/* The new slot's bookkeeping before the flip: status then never lags the filter. */
	ret = attachment_write_state(att, slot, &st);
	if (!ret)
		ret = filter_install(att->filter_fd, slot, &f);
	if (!ret)
		ret = filter_install_kernel(att->kfilter_fd, slot, &f);
	if (!ret && att->config.verify)
		ret = exact_set_install(&att->verify, slot, &exact);
	for (fam = 0; fam < 2 && !ret; fam++)
		if (range_fds[fam] >= 0 &&
		    bpf_map_update_elem(fam ? att->ranges_v6_fd : att->ranges_v4_fd, &slot,
					&range_fds[fam], BPF_ANY))
			ret = -errno;
	if (!ret)
		ret = attachment_flip(att, BLOOMXDP_ACTIVE_BLOCK, slot, 0, outers, nouters);
	if (ret) {
		log_error("cannot swap in the new filter: %s; the live list is unchanged",
			  strerror(-ret));
		goto cleanup;
	}
	printf("loaded %llu entries into %s in %.2f s\n", (unsigned long long)build.read,
	       att->ifname, seconds_since(&start));
	print_prefix_plans(build.plan, build.cost);
	printf("filter sized for %llu keys (the list makes %llu; the previous filter was sized "
	       "for %llu): %llu bytes, estimated FPR %.3g at FPR %g asked\n",
	       (unsigned long long)plan.capacity, (unsigned long long)build.keys,
	       (unsigned long long)live.capacity, (unsigned long long)filter_map_bytes(&f),
	       bloom_layout_fpr(plan.layout, plan.bits, plan.hashes, build.keys),
	       (double)att->config.fpr_ppb / BLOOMXDP_PPB);
	warn_unmatched_kinds(&f, &att->config, att->ifname);
	ret = attachment_check_enforced(att);
cleanup:
	list_build_free(&build);
	exact_set_close(&exact);
	filter_close(&f);
	for (fam = 0; fam < 2; fam++)
		if (range_fds[fam] >= 0)
			close(range_fds[fam]);
	return ret;
}

/* What an allowlist holds, for the XDP program to skip the lookups of the rest. */
static __u32 allow_flags(const struct list_build *b)
{
	return (b->plan[0].entries ? BLOOMXDP_ALLOW_HAS_V4 : 0) |
	       (b->plan[1].entries ? BLOOMXDP_ALLOW_HAS_V6 : 0) |
	       (b->names ? BLOOMXDP_ALLOW_HAS_NAMES : 0);
}

/* The allowlist: a new exact set in the other generation of allow_*. */
static int load_allowlist(struct attachment *att, const struct list_opts *o, char **files,
			  int nfiles)
{
	const int outers[] = { att->allow.v4_fd, att->allow.v6_fd, att->allow.names_fd };
	char err[LIST_ERROR_LEN];
	struct bloomxdp_state live = {};
	struct list_build build;
	struct exact_set exact;
	__u64 max_memory, bytes;
	__u32 slot;
	int ret;

	list_build_init(&build, NULL, o->prefix_probes);
	build.allowlist = true;
	exact_set_init(&exact);
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = attachment_read_state(att, slot, &live);
	if (ret) {
		log_error("cannot read the live generation of %s: %s; the allowlist is unchanged",
			  att->ifname, strerror(-ret));
		return ret;
	}
	/* The allowlist is held to the same limit as a generation of the blocklist. */
	max_memory = load_max_memory(o, &live);
	ret = exact_set_create(&exact, exact_room_for_memory(max_memory));
	if (ret) {
		log_error("cannot create the new allowlist maps of %s: %s", att->ifname,
			  strerror(-ret));
		return ret;
	}
	build.exact = &exact;
	memcpy(build.hash_key, att->config.hash_key, sizeof(build.hash_key));
	ret = build_lists(&build, o, files, nfiles, err);
	if (ret) {
		log_error("%s; the allowlist of %s is unchanged", err, att->ifname);
		goto cleanup;
	}
	bytes = exact_set_bytes(&exact);
	if (bytes > max_memory) {
		log_error("the allowlist takes %llu bytes, over --max-memory %llu: load it with "
			  "--max-memory %llu or more; the allowlist of %s is unchanged",
			  (unsigned long long)bytes, (unsigned long long)max_memory,
			  (unsigned long long)bytes, att->ifname);
		ret = -E2BIG;
		goto cleanup;
	}
	ret = attachment_lock(att);
	if (ret)
		goto cleanup;
	ret = attachment_active(att, BLOOMXDP_ACTIVE_ALLOW, &slot);
	if (ret) {
		log_error("cannot read the live allowlist generation of %s: %s; it is unchanged",
			  att->ifname, strerror(-ret));
		goto cleanup;
	}
	slot ^= 1;
	ret = exact_set_install(&att->allow, slot, &exact);
	if (!ret)
		ret = attachment_flip(att, BLOOMXDP_ACTIVE_ALLOW, slot, allow_flags(&build),
				      outers, 3);
	if (ret) {
		log_error("cannot swap in the new allowlist: %s; it is unchanged", strerror(-ret));
		goto cleanup;
	}
	printf("loaded %llu allowlist entries into %s\n", (unsigned long long)build.read,
	       att->ifname);
	ret = attachment_check_enforced(att);
cleanup:
	list_build_free(&build);
	exact_set_close(&exact);
	return ret;
}

static int do_load(const char *ifname, const struct list_opts *o, char **files, int nfiles)
{
	struct attachment att;
	int ret;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = o->allow ? load_allowlist(&att, o, files, nfiles) :
			 load_blocklist(&att, o, files, nfiles);
	attachment_close(&att);
	return ret;
}

/* The entries of command-line arguments (a range is several), and the argument of each. */
struct parsed_args {
	struct entry *e;
	int *arg;
	size_t n, cap;
	int current;
};

static int take_entry(const struct entry *e, void *ctx)
{
	struct parsed_args *p = ctx;
	struct entry *grown_e;
	int *grown_a;

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		grown_e = realloc(p->e, p->cap * sizeof(*grown_e));
		if (grown_e)
			p->e = grown_e;
		grown_a = realloc(p->arg, p->cap * sizeof(*grown_a));
		if (grown_a)
			p->arg = grown_a;
		if (!grown_e || !grown_a)
			return -ENOMEM;
	}
	p->e[p->n] = *e;
	p->arg[p->n++] = p->current;
	return 0;
}

static void parsed_args_free(struct parsed_args *p)
{
	free(p->e);
	free(p->arg);
}

/* One command-line argument, its entries into p; after ends the error line. */
static int parse_arg(const char *arg, enum list_format format, struct parsed_args *p,
		     const char *after)
{
	struct list_parse parse;
	const char *why = NULL;
	char text[1024];
	int ret;

	if (strlen(arg) >= sizeof(text) || strpbrk(arg, " \t")) {
		log_error("%s: one address, domain or URL per argument%s", arg, after);
		return -EINVAL;
	}
	strcpy(text, arg);
	list_parse_init(&parse, format, NULL);
	ret = list_parse_line(&parse, text, take_entry, p, &why);
	if (ret == -ENOMEM) {
		log_error("%s: out of memory%s", arg, after);
		return ret;
	}
	if (ret) {
		log_error("%s: %s%s", arg, why ? why : "not an entry", after);
		return -EINVAL;
	}
	/* What add stores; query looks up what the XDP program examines, the same. */
	if (parse.widened && *after)
		log_warn("%s: %s", arg, parse.widened);
	return 0;
}

/* Parses every entry before touching the filter: all or nothing. */
static int parse_entries(char **args, int n, const struct list_opts *o, struct parsed_args *p)
{
	size_t first;
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		first = p->n;
		p->current = i;
		if (parse_arg(args[i], o->format, p, "; nothing was added")) {
			bad++;
			continue;
		}
		for (; first < p->n; first++) {
			const struct entry *e = &p->e[first];

			if (o->allow && e->kind == ENTRY_URL) {
				log_error("%s: the allowlist takes addresses, prefixes and "
					  "domains; nothing was added", args[i]);
			} else if (!o->allow && e->allow) {
				log_error("%s: an exception: add it with --allow; nothing was "
					  "added", args[i]);
			} else if (!o->allow && e->kind == ENTRY_NAME && !o->allow_public_suffix &&
				   public_suffix_is(e->name)) {
				log_error("%s: a public suffix, under which others register "
					  "their domains: blocking it blocks every one of them; "
					  "give --allow-public-suffix to add it anyway; nothing "
					  "was added", args[i]);
			} else {
				continue;
			}
			bad++;
			break;
		}
	}
	return bad ? -EINVAL : 0;
}

/* add --allow: into the live allowlist, in place. */
static int add_allowed(struct attachment *att, const struct parsed_args *p)
{
	size_t added;
	int ret;

	ret = allowlist_insert(att, p->e, p->n, &added);
	if (ret) {
		log_error("cannot add to the allowlist of %s: %s (%zu of %zu entries were added)",
			  att->ifname, ret == -E2BIG || ret == -ENOSPC ? "it is full" :
			  strerror(-ret), added, p->n);
		return ret;
	}
	printf("added %zu entr%s to the allowlist of %s\n", p->n, p->n == 1 ? "y" : "ies",
	       att->ifname);
	return attachment_check_enforced(att);
}

/*
 * add: refused, with nothing changed, when the keys would take the live
 * filter past the keys it is sized for, i.e. its FPR past the target. A
 * load of the whole list sizes a new filter instead.
 */
static int add_check_room(const struct attachment *att, const struct filter *f,
			  const struct bloomxdp_state *st, const struct entry *parsed, int n,
			  __u64 *added)
{
	__u64 capacity = st->capacity ? st->capacity : att->config.capacity, keys;
	double now = filter_keys_now(f, st);
	int i;

	*added = 0;
	for (i = 0; i < n; i++) {
		keys = blocklist_keys(f, &parsed[i]);
		*added = keys > ~0ULL - *added ? ~0ULL : *added + keys;
	}
	if (generation_has_room(now, *added, capacity))
		return 0;
	log_error("%d entr%s (%llu keys) would take the filter of %s past the %llu keys it is "
		  "sized for (it holds about %.0f), and its FPR past %g: nothing was added; "
		  "'bloomxdp load' the whole list with them, which sizes a new filter for it",
		  n, n == 1 ? "y" : "ies", (unsigned long long)*added, att->ifname,
		  (unsigned long long)capacity, now, (double)att->config.fpr_ppb / BLOOMXDP_PPB);
	return -ENOSPC;
}

/* An address entry of a family the live filter leaves to exact intervals: 0 IPv4, 1 IPv6, or -1. */
static int ranged_family(const struct filter *f, const struct entry *e)
{
	int fam;

	if (e->kind != ENTRY_ADDR)
		return -1;
	fam = key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1;
	return BLOOMXDP_IS_RANGES_WORD(filter_header_word(f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
							     BLOOMXDP_HDR_V4_LENGTHS)) ? fam : -1;
}

/*
 * add of addresses of a family held in exact intervals: the live intervals
 * and these, merged into a new array that replaces the live one in one
 * update of the outer map (the array holds its own count).
 */
static int add_ranges(struct attachment *att, const struct filter *f, __u32 slot,
		      const struct entry *e, int n, int fam)
{
	int outer = fam ? att->ranges_v6_fd : att->ranges_v4_fd, fd, i, ret;
	struct range_set s;

	ret = range_set_open(outer, slot, fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4, &s);
	for (i = 0; i < n && !ret; i++)
		if (ranged_family(f, &e[i]) == fam)
			ret = range_set_add_key(&s, &e[i].addr);
	if (ret)
		goto cleanup;
	range_set_merge(&s);
	fd = range_set_create_map(&s);
	if (fd < 0) {
		ret = fd;
		goto cleanup;
	}
	if (bpf_map_update_elem(outer, &slot, &fd, BPF_ANY))
		ret = -errno;
	close(fd);
cleanup:
	range_set_free(&s);
	return ret;
}

/* add: into the live filter (and exact copy) in place: Bloom inserts only set bits. */
static int add_blocked(struct attachment *att, const struct parsed_args *p, char **entries)
{
	const struct entry *parsed = p->e;
	struct filter f = { .map_fd = -1 };
	struct bloomxdp_state st = {};
	struct exact_set live;
	__u64 inserted = 0, added;
	int i, fam, r, failed, ret, n = p->n;
	__u32 slot, ranged = 0;

	exact_set_init(&live);
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = filter_open(att->filter_fd, slot, &att->config, &f);
	if (!ret)
		ret = filter_open_kernel(att->kfilter_fd, slot, &f);
	if (!ret && att->config.verify)
		ret = exact_set_open(&att->verify, slot, &live);
	if (!ret)
		ret = attachment_read_state(att, slot, &st);
	if (ret) {
		log_error("cannot open the live filter of %s: %s", att->ifname, strerror(-ret));
		goto cleanup;
	}
	ret = add_check_room(att, &f, &st, parsed, n, &added);
	if (ret)
		goto cleanup;
	for (i = 0; i < n; i++) {
		/* Counted before it goes in: a prefix may add a length, and expand less. */
		__u64 keys = blocklist_keys(&f, &parsed[i]);

		/* The exact copy first: a packet must not see a Bloom hit it cannot confirm. */
		if (att->config.verify) {
			ret = exact_set_add(&live, att->config.hash_key, &parsed[i]);
			if (ret < 0)
				break;
		}
		if (ranged_family(&f, &parsed[i]) >= 0) {
			/* Into the intervals, all at once below. */
			ranged |= 1U << ranged_family(&f, &parsed[i]);
			inserted++;
			st.entries++;
			continue;
		}
		ret = blocklist_insert(&f, &parsed[i]);
		if (ret < 0)
			break;
		inserted += ret;
		st.entries++;
		st.keys += keys;
	}
	failed = ret < 0 ? i : -1;
	/* The intervals of the entries before a failed one too: as the filter's. */
	for (fam = 0; fam < 2; fam++) {
		if (!(ranged & (1U << fam)))
			continue;
		r = add_ranges(att, &f, slot, parsed, i, fam);
		if (r < 0) {
			log_error("cannot add to the %s intervals of %s: %s; they are unchanged",
				  fam ? "IPv6" : "IPv4", att->ifname, strerror(-r));
			if (ret >= 0)
				ret = r;
		}
	}
	i = failed;
	if (failed >= 0)
		log_error("%s: %s; 'bloomxdp load' the whole list to re-plan the prefix lengths%s",
			  entries[p->arg[i]],
			  ret == -ENOSPC ? "a new prefix length, and all 8 are taken" :
			  ret == -E2BIG ? "its expansion to the probed lengths is too large" :
			  strerror(-ret), i ? " (the entries before it were added)" : "");
	if (attachment_write_state(att, slot, &st))
		log_warn("entries added, but the entry count could not be saved");
	if (ret < 0)
		goto cleanup;
	printf("added %d entr%s to %s (%llu not already in the filter)\n", n, n == 1 ? "y" : "ies",
	       att->ifname, (unsigned long long)inserted);
	warn_unmatched_kinds(&f, &att->config, att->ifname);
	ret = attachment_check_enforced(att);
cleanup:
	exact_set_close(&live);
	filter_close(&f);
	return ret;
}

static int do_add(const char *ifname, const struct list_opts *o, char **entries, int n)
{
	struct parsed_args parsed = {};
	struct attachment att;
	int ret;

	ret = parse_entries(entries, n, o, &parsed);
	if (!ret)
		ret = attachment_open(ifname, true, &att);
	if (!ret) {
		ret = o->allow ? add_allowed(&att, &parsed) : add_blocked(&att, &parsed, entries);
		attachment_close(&att);
	}
	parsed_args_free(&parsed);
	return ret;
}

/*
 * With --verify, the listed prefix the exact copy matched (the Bloom hit may
 * have been a false positive at another length): into matched, or "" for a
 * host entry.
 */
static void exact_prefix_text(const struct exact_set *x, const struct bloomxdp_key *addr,
			      char *matched, size_t len)
{
	int len1 = exact_set_match_len(x, addr);
	struct bloomxdp_key listed = *addr;
	__u32 fam = key_family(addr);

	matched[0] = '\0';
	if (!len1 || (__u32)len1 - 1 >= key_width(addr))
		return;
	if (fam == BLOOMXDP_KEY_IPV4)
		bloomxdp_key_ipv4(&listed, (const __u8 *)&addr->word[0] + 4, len1 - 1);
	else
		bloomxdp_key_ipv6(&listed, &addr->word[1], len1 - 1);
	prefix_text(&listed, matched, len);
}

/*
 * What query says after "blocked", for a prefix: which one matched. Only the
 * exact copy (--verify) knows a prefix is listed; the filter alone matches a
 * key that may be a false positive, and says so.
 */
static void print_verdict(const char *arg, const struct entry *e, bool blocked,
			  const char *matched, bool exact)
{
	if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '/') && exact)
		printf("%s: blocked (listed prefix %s)\n", arg, matched);
	else if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '-') && exact)
		printf("%s: blocked (listed range %s)\n", arg, matched);
	else if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '/'))
		printf("%s: blocked (the filter matches %s: listed, or a false positive)\n", arg,
		       matched);
	else
		printf("%s: %s\n", arg, blocked ? "blocked" : "not blocked");
}

static int do_query(const char *ifname, const struct list_opts *o, char **entries, int n)
{
	struct exact_set verify, allow;
	struct filter f = { .map_fd = -1 };
	__u32 block_slot, allow_slot;
	struct parsed_args args = {};
	struct attachment att;
	char matched[512];
	struct entry e;
	struct range_set ranges[2];
	int i, fam, ret, bad = 0;
	bool blocked;

	(void)o;
	range_set_init(&ranges[0], 0);
	range_set_init(&ranges[1], 0);
	exact_set_init(&verify);
	exact_set_init(&allow);
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &block_slot);
	if (!ret)
		ret = attachment_active(&att, BLOOMXDP_ACTIVE_ALLOW, &allow_slot);
	if (!ret)
		ret = filter_open(att.filter_fd, block_slot, &att.config, &f);
	if (!ret)
		ret = filter_open_kernel(att.kfilter_fd, block_slot, &f);
	if (!ret && att.config.verify)
		ret = exact_set_open(&att.verify, block_slot, &verify);
	if (!ret)
		ret = exact_set_open(&att.allow, allow_slot, &allow);
	for (fam = 0; fam < 2 && !ret; fam++) {
		__u64 word = filter_header_word(&f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
						    BLOOMXDP_HDR_V4_LENGTHS);

		if (BLOOMXDP_IS_RANGES_WORD(word))
			ret = range_set_open(fam ? att.ranges_v6_fd : att.ranges_v4_fd, block_slot,
					     fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4,
					     &ranges[fam]);
	}
	if (ret) {
		log_error("cannot open the live lists of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		args.n = 0;
		if (parse_arg(entries[i], FORMAT_AUTO, &args, "")) {
			bad++;
			continue;
		}
		if (args.n != 1) {
			log_error("%s: query one address, prefix, domain or URL at a time",
				  entries[i]);
			bad++;
			continue;
		}
		e = args.e[0];
		fam = e.kind != ENTRY_ADDR ? -1 : key_family(&e.addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1;
		if (fam >= 0 && ranges[fam].family && ranges[fam].r) {
			/* Exact: no false positive to refuse, what matched is listed. */
			blocked = blocklist_lookup_range(&ranges[fam], &e, matched,
							 sizeof(matched));
			if (blocked && blocklist_allowed(&allow, att.config.hash_key, &e)) {
				log_debug("%s: on the allowlist", entries[i]);
				blocked = false;
			}
			print_verdict(entries[i], &e, blocked, matched, true);
			continue;
		}
		blocked = blocklist_lookup(&f, &e, matched, sizeof(matched));
		if (blocked && att.config.verify) {
			blocked = blocklist_confirm(&verify, att.config.hash_key, &e);
			if (!blocked)
				log_debug("%s: a false positive of the filter, refused by --verify",
					  entries[i]);
			else if (e.kind == ENTRY_ADDR)
				exact_prefix_text(&verify, &e.addr, matched, sizeof(matched));
		}
		if (blocked && blocklist_allowed(&allow, att.config.hash_key, &e)) {
			log_debug("%s: on the allowlist", entries[i]);
			blocked = false;
		}
		print_verdict(entries[i], &e, blocked, matched, att.config.verify);
		if (blocked && matched[0])
			log_debug("%s: matched the %s %s %s", entries[i],
				  att.config.verify ? "listed" : "filter's key of a",
				  e.kind == ENTRY_ADDR ? "prefix" :
				  strchr(matched, '/') ? "URL" : "domain", matched);
		if (blocked && !att.config.verify)
			log_debug("%s: the filter alone cannot tell a listed entry from a false "
				  "positive (attach --verify can)", entries[i]);
	}
	ret = bad ? -EINVAL : 0;
cleanup:
	parsed_args_free(&args);
	range_set_free(&ranges[0]);
	range_set_free(&ranges[1]);
	exact_set_close(&verify);
	exact_set_close(&allow);
	filter_close(&f);
	attachment_close(&att);
	return ret;
}

/* --column and --where go with --format csv; their syntax is checked before any work. */
static int check_load(const struct cli_call *call)
{
	const struct list_opts *o = call->opts;
	struct csv_spec csv;
	const char *why;

	if ((o->column || o->where.count) && o->format != FORMAT_CSV) {
		log_error("--column and --where go with --format csv");
		return -EINVAL;
	}
	if (csv_spec_parse(o->column, o->where.items, o->where.count, &csv, &why)) {
		log_error("%s", why);
		return -EINVAL;
	}
	return 0;
}

static int run_load(const struct cli_call *call)
{
	return do_load(call->ifname, call->opts, call->argv, call->argc);
}

static int run_add(const struct cli_call *call)
{
	return do_add(call->ifname, call->opts, call->argv, call->argc);
}

static int run_query(const struct cli_call *call)
{
	return do_query(call->ifname, call->opts, call->argv, call->argc);
}

static const struct list_opts list_defaults = {
	.format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
};

#define L(field) offsetof(struct list_opts, field)
#define OPTION_ALLOW(what)								\
	OPTION("allow", 'A', OPT_FLAG, L(allow), NULL, what)
#define OPTION_PUBLIC_SUFFIX								\
	OPTION("allow-public-suffix", 0, OPT_FLAG, L(allow_public_suffix), NULL,	\
	       "block public suffixes too (edu.pl, github.io:\n"			\
	       "every domain registered under them); refused by\n"			\
	       "default, naming the lines")
#define OPTION_CSV									\
	OPTION("column", 0, OPT_TEXT, L(column), "N[,M]",				\
	       "--format csv: the entry's column (from 1), or\n"			\
	       "N,M: a range from the address in column N to\n"			\
	       "the one in M (default 1)"),						\
	OPTION("where", 0, OPT_FILES, L(where), "COL=VALUE",				\
	       "--format csv: only rows whose column COL is VALUE;\n"			\
	       "repeatable: values of one column are alternatives,\n"		\
	       "different columns must all match")

static const struct option_spec load_options[] = {
	OPTION("format", 'F', OPT_ENUM, L(format), "FORMAT", "how lines are read",
	       .values = list_format_values),
	OPTION("prefix-probes", 'P', OPT_COUNT, L(prefix_probes), "N",
	       "prefix lengths probed per packet and family:\n"
	       "prefixes are stored expanded to N lengths chosen\n"
	       "from the list; fewer probes cost more keys (see\n"
	       "'bloomxdp plan --list')", .min = 1, .max = BLOOMXDP_MAX_PREFIX_LENGTHS),
	OPTION("store", 0, OPT_ENUM, L(store), "S",
	       "where each address family goes: exact intervals\n"
	       "or the Bloom filter (auto: the cheaper, see\n"
	       "'bloomxdp plan --list')", .values = range_store_values),
	OPTION_ALLOW("the FILEs are the allowlist (replaced as a whole)"),
	OPTION("allow-empty", 0, OPT_FLAG, L(allow_empty), NULL,
	       "accept an input without any entry, which empties\n"
	       "the list (refused by default: an empty feed must\n"
	       "not remove all blocking)"),
	OPTION("lenient", 0, OPT_FLAG, L(lenient), NULL,
	       "skip the lines that cannot be read or honoured\n"
	       "(cosmetic rules, narrowing options, forwarders...)\n"
	       "and say, per reason, how many and where; without\n"
	       "it such a line stops the load"),
	OPTION_PUBLIC_SUFFIX,
	OPTION_CSV,
	OPTION("max-memory", 0, OPT_COUNT, L(max_memory), "BYTES",
	       "the memory a filter may take, for this load and\n"
	       "the next ones (default: attach's --max-memory)",
	       .min = MAX_MEMORY_MIN, .max = COUNT_MAX,
	       .given = OPTION_GIVEN(struct list_opts, max_memory_given)),
	{}
};

static const struct option_spec add_options[] = {
	OPTION_ALLOW("the ENTRYs go to the allowlist: never dropped"),
	OPTION("format", 'F', OPT_ENUM, L(format), "FORMAT", "how each ENTRY is read, as for load",
	       .values = list_format_values),
	OPTION_PUBLIC_SUFFIX,
	{}
};
#undef OPTION_ALLOW
#undef OPTION_PUBLIC_SUFFIX
#undef OPTION_CSV
#undef L

/* add and query: an interface, then entries. */
#define ENTRY_COMMAND								\
	.args = "IFNAME ENTRY...", .opts_size = sizeof(struct list_opts),		\
	.defaults = &list_defaults, .ifname = true, .min_args = 1, .max_args = -1,	\
	.what_args = "ENTRY"

const struct command command_load = {
	.name = "load",
	.args = "IFNAME FILE...",
	.summary = "replace the live list with list files, atomically",
	.description =
		"Replaces the live list of IFNAME with the entries of the FILEs ('-' reads\n"
		"standard input). The new filter is sized for the list (its keys and a quarter\n"
		"more for adds, at least attach's --capacity) at the target FPR, built aside and\n"
		"swapped in with one atomic map update: packets see the old list or the new\n"
		"one, never a mix. On any bad line, read error, empty input, or a list that\n"
		"needs more than --max-memory, the live list stays as it was.\n\n"
		"One entry per line; '#' or ';' at the start or after white space starts a\n"
		"comment; blank lines and surrounding white space are ignored; duplicates are\n"
		"fine. Adblock, hosts, dnsmasq, Unbound, RPZ lines and address ranges are told\n"
		"apart per line; CSV needs --format csv. Exceptions (@@||host^, rpz-passthru)\n"
		"are added to the allowlist before the new list goes live. A list holding a\n"
		"public suffix (edu.pl, github.io) is refused unless --allow-public-suffix.\n",
	.options = load_options,
	.opts_size = sizeof(struct list_opts),
	.defaults = &list_defaults,
	.ifname = true,
	.min_args = 1,
	.max_args = -1,
	.what_args = "FILE (or - for standard input)",
	.check = check_load,
	.run = run_load,
};

const struct command command_add = {
	.name = "add",
	ENTRY_COMMAND,
	.summary = "insert entries into the live list",
	.description =
		"Inserts entries (addresses, domains, URLs) into the live list of IFNAME, in\n"
		"place. Nothing is inserted if any entry is invalid, or if they would take the\n"
		"filter past the keys it is sized for (its FPR past the target): 'load' the\n"
		"whole list then, which sizes a new filter. A Bloom filter cannot delete: to\n"
		"remove entries, 'load' the list without them.\n",
	.options = add_options,
	.run = run_add,
};

const struct command command_query = {
	.name = "query",
	ENTRY_COMMAND,
	.summary = "tell whether entries are blocked",
	.description =
		"Prints 'ENTRY: blocked' or 'ENTRY: not blocked' for each entry, as the XDP\n"
		"program would decide: an address as a packet's address, a name as a DNS\n"
		"query, TLS SNI or HTTP Host, host/path as an HTTP request. 'blocked' is either\n"
		"listed or a false positive of the filter (see 'bloomxdp status' for the\n"
		"estimated rate). With -v, also what matched. Exits 1 if an entry is invalid.\n",
	.run = run_query,
};
