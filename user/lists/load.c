// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* load: a new generation sized for the list, swapped in atomically. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel/attachment.h"
#include "lists/bitcounts.h"
#include "filter/layout.h"
#include "lists/expiry.h"
#include "lists/build.h"
#include "filter/packet_fpr.h"
#include "lists/lists.h"
#include "util/log.h"
#include "lists/named.h"
#include "filter/bloom_plan.h"
#include "filter/suffix_map.h"

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
			    __u64 max_memory, double fpr, __u32 probes)
{
	double target = (double)att->config.fpr_ppb / BLOOMXDP_PPB;
	char exact[128] = "", hint[128] = "", per[128] = "";

	if (exact_bytes)
		snprintf(exact, sizeof(exact), ", %llu of them %s", (unsigned long long)exact_bytes,
			 b->cost[0].use_ranges || b->cost[1].use_ranges ?
			 "exact (the intervals, and the copy of --verify if on)" :
			 "the exact copy of --verify");
	/* Prefixes stored as many more keys than entries: more probes expand them less. */
	if (b->keys > 2 * b->read && o->prefix_probes < BLOOMXDP_MAX_PREFIX_LENGTHS)
		snprintf(hint, sizeof(hint), ", or more --prefix-probes than %llu (fewer keys)",
			 (unsigned long long)o->prefix_probes);
	/* Why the rate is lower than --fpr: a packet takes several probes. */
	if (fpr < target)
		snprintf(per, sizeof(per), " per probe (--fpr %g per packet, which takes up to %u "
			 "probes)", target, probes);
	if (!need_bytes)
		log_error("the list makes %llu keys: no filter holds that many at FPR %g%s (m is "
			  "at most 2^32 bits); load a shorter list%s; the live list of %s is "
			  "unchanged", (unsigned long long)b->keys, fpr, per, hint, att->ifname);
	else
		log_error("the list makes %llu keys, which need %llu bytes at FPR %g%s%s, over "
			  "--max-memory %llu: load it with --max-memory %llu or more%s; the live "
			  "list of %s is unchanged", (unsigned long long)b->keys,
			  (unsigned long long)need_bytes, fpr, per, exact,
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
	double target = (double)att->config.fpr_ppb / BLOOMXDP_PPB;
	struct packet_probes pp;
	struct generation_need need = {
		.layout = att->config.layout, .hashes = att->config.hashes,
		.fpr = target, .keys = b->keys,
		/* attach's --capacity sized generation 0; loads follow their lists. */
		.floor = GENERATION_MIN_KEYS, .max_memory = max_memory,
		.other_bytes = exact_bytes,
	};
	__u64 need_bytes;
	int ret;

	/* --fpr is per packet: each probe at the rate that keeps the worst packet within it. */
	list_build_probes(b, att->config.match, &pp);
	need.fpr = packet_probe_fpr(&pp, target);
	ret = generation_plan(&need, plan, &need_bytes);
	if (ret == -E2BIG)
		explain_too_big(att, b, o, need_bytes, exact_bytes, max_memory, need.fpr,
				packet_worst_probes(&pp));
	else if (ret)
		log_error("cannot size a filter for the list at FPR %g: %s; the live list of %s is "
			  "unchanged", need.fpr, strerror(-ret), att->ifname);
	return ret;
}

/* The new filter: its size, and its estimated FPR per key and per packet. */
static void print_filter(const struct attachment *att, const struct list_build *b,
			 const struct bloom_plan *plan, __u64 previous, __u64 bytes)
{
	double key_fpr = bloom_layout_fpr(plan->layout, plan->bits, plan->hashes, b->keys);
	struct packet_probes pp;

	list_build_probes(b, att->config.match, &pp);
	printf("filter sized for %llu keys (the list makes %llu; the previous filter was sized "
	       "for %llu): %llu bytes, estimated FPR %.3g per key, %.3g per packet at most (up "
	       "to %u probes), at FPR %g asked\n", (unsigned long long)plan->capacity,
	       (unsigned long long)b->keys, (unsigned long long)previous,
	       (unsigned long long)bytes, key_fpr, packet_worst_fpr(&pp, key_fpr),
	       packet_worst_probes(&pp), (double)att->config.fpr_ppb / BLOOMXDP_PPB);
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * Reads the list sources into the new filter (and exact set), each as its
 * own options say (format, csv, lenient, public suffixes).
 */
static int read_inputs(struct list_build *b, const struct list_opts *o,
		       const struct list_inputs *in, char err[LIST_ERROR_LEN])
{
	struct list_suffixes kept;
	struct csv_spec csv;
	const char *why;
	__u64 before;
	int i, ret = 0;

	b->progress = isatty(STDERR_FILENO);
	for (i = 0; i < in->n && !ret; i++) {
		/* Each source as its own options say; the journals as the load's. */
		const struct list_opts *so = in->in[i].opts ? in->in[i].opts : o;

		if (csv_spec_parse(so->column, so->where.items, so->where.count, &csv, &why)) {
			snprintf(err, LIST_ERROR_LEN, "%s", why);
			return -EINVAL;
		}
		b->opts.csv = &csv;
		b->opts.lenient = so->lenient;
		/* New input only: the state's copies and journals were taken once already. */
		b->opts.refuse_wide = !in->keep && !b->allowlist && !so->allow_wide;
		b->skip_suffixes = so->lenient && !so->allow_public_suffix;
		/* What is read is what the state records: copied as it is read. */
		b->opts.tee = in->in[i].copy_index >= 0 ? list_input_tee : NULL;
		b->opts.tee_ctx = in->in[i].copy_index >= 0 ? &in->copies[in->in[i].copy_index] :
							       NULL;
		kept = b->suffixes;
		before = b->read;
		/* What del took out of the list stays out of its copies. */
		b->skip = i < in->list.nsources ? &in->deleted : NULL;
		ret = list_build_read_fd(b, in->in[i].fd, in->in[i].name, in->in[i].format, err);
		/* Its copy could not be written (a full disk): that, not the list, failed. */
		if (ret && b->opts.tee && ((struct state_copy *)b->opts.tee_ctx)->err)
			snprintf(err, LIST_ERROR_LEN, "cannot write the copy of %.200s in the "
				 "state directory %.200s: %s; free space there (or fix the error) "
				 "and load it again", in->in[i].name, in->sd.path,
				 strerror(-((struct state_copy *)b->opts.tee_ctx)->err));
		if (!ret && in->in[i].entries)
			*in->in[i].entries = b->read - before;
		/* A source that allows its public suffixes adds none to refuse. */
		if (!ret && so->allow_public_suffix)
			b->suffixes = kept;
	}
	b->opts.csv = NULL;
	b->opts.refuse_wide = false;
	b->skip = NULL;
	b->skip_suffixes = false;
	return ret;
}

/*
 * read_inputs(), its skipped and widened lines noted (and warned of) only when
 * noted: a load warns of the input it loads, not of the other lists' copies,
 * read again for the union, whose notes their own loads gave.
 */
static int read_inputs_noted(struct list_build *b, const struct list_opts *o,
			     const struct list_inputs *in, bool noted, char err[LIST_ERROR_LEN])
{
	struct list_notes unsaid = {};
	int ret;

	if (!noted)
		b->opts.notes = &unsaid;
	ret = read_inputs(b, o, in, err);
	b->opts.notes = &b->notes;
	return ret;
}

/*
 * An input without a single entry (an empty file, a feed that failed
 * upstream) would silently remove all blocking: refused unless --allow-empty
 * (o and in: the list checked, read: its entries).
 */
static int check_nonempty(const struct list_opts *o, const struct list_inputs *in, __u64 read,
			  char err[LIST_ERROR_LEN])
{
	if (read || o->allow_empty)
		return 0;
	snprintf(err, LIST_ERROR_LEN, "no entry in %s%s (give --allow-empty to empty the list "
		 "on purpose)", !in->n ? "the list" : strcmp(in->in[0].name, LIST_STDIN) ?
		 in->in[0].name : "the standard input", in->n > 1 ? " nor in the other files" : "");
	return -ENODATA;
}

/* After read_inputs(): the list as a whole. */
static int finish_lists(struct list_build *b, char err[LIST_ERROR_LEN])
{
	char places[LIST_ERROR_LEN / 2];
	int ret = 0;

	list_notes_print(&b->notes);
	if (!ret && b->suffixes.count) {
		const char *them = b->suffixes.count == 1 ? "it" : "them";

		snprintf(err, LIST_ERROR_LEN, "%llu public suffix%s in the list, which would block "
			 "every domain registered under %s: %s; remove %s, give "
			 "--allow-public-suffix to block %s anyway, or --lenient to skip %s",
			 (unsigned long long)b->suffixes.count, b->suffixes.count == 1 ? "" : "es",
			 them, list_suffixes_text(&b->suffixes, places, sizeof(places)), them, them,
			 them);
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
	return ret;
}

static int build_lists(struct list_build *b, const struct list_opts *o,
		       const struct list_inputs *in, char err[LIST_ERROR_LEN])
{
	int ret = read_inputs(b, o, in, err);

	if (ret) {
		list_notes_print(&b->notes);
		return ret;
	}
	ret = finish_lists(b, err);
	return ret ? ret : check_nonempty(o, in, b->read, err);
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

/* The counters of a new generation, under it: del can then take its entries out. */
static void write_bitcounts(struct list_inputs *in, struct filter *f, __u64 generation)
{
	int ret;

	bitcounts_stamp(f->counts, generation, filter_header_word(f, BLOOMXDP_HDR_V4_LENGTHS),
			filter_header_word(f, BLOOMXDP_HDR_V6_LENGTHS));
	ret = bitcounts_write(f->counts, in->sd.fd);
	if (ret) {
		/* Older counters must not stay: they count another generation, but be sure. */
		unlinkat(in->sd.fd, BITCOUNTS_FILE, 0);
		log_warn("'bloomxdp del' cannot take entries out of this list: cannot write "
			 "%s/%s: %s; load it again to retry", in->sd.path, BITCOUNTS_FILE,
			 strerror(-ret));
	}
}

/*
 * Before the swap, under the writers' lock: the state of every list the load
 * changes, written and fsync'd but for the manifests' names. A failure (a
 * full disk, EIO) refuses the load: nothing is swapped.
 */
static int states_prepare(struct list_inputs *in, const struct list_opts *o,
			  struct named_targets *ts, const struct named_parts *np, int first,
			  __u64 generation, __u64 max_memory, const char *ifname)
{
	int i, ret = 0;

	for (i = 0; ts && i < ts->n && !ret; i++)
		if (!np->part[first + i].dropped)
			ret = list_inputs_prepare(&ts->t[i].in, &ts->t[i].opts, generation,
						  max_memory);
	if (!ret)
		ret = list_inputs_prepare(in, o, generation, max_memory);
	if (ret)
		log_error("the state of %s cannot record the new list (see above), so it is not "
			  "swapped in: the live list is unchanged; free space there (or fix the "
			  "error) and load it again", ifname);
	return ret;
}

/* After the swap: the manifests named, or a dropped named list's state removed. */
static int states_publish(struct list_inputs *in, struct named_targets *ts,
			  const struct named_parts *np, int first, const char *ifname)
{
	struct state_list none = {};
	int i, ret = 0;

	for (i = 0; ts && i < ts->n && !ret; i++) {
		struct list_inputs *t = &ts->t[i].in;

		if (!np->part[first + i].dropped) {
			ret = list_inputs_publish(t);
			continue;
		}
		if (unlinkat(t->sd.fd, t->which, 0) && errno != ENOENT)
			ret = -errno;
		else
			state_prune(&t->sd, t->which, &none);
	}
	if (!ret)
		ret = list_inputs_publish(in);
	if (ret)
		log_error("the new list of %s is live, but its state could not record it (see "
			  "above): a reboot or 'bloomxdp restore' would bring back the previous "
			  "list; fix the error and load it again", ifname);
	return ret;
}

/*
 * The writers' lock, then the other lists as the state records them, and the
 * named lists a load replaces (ts): each add that completed is then in their
 * journals, and one that did not waits for the swap. A list from the state
 * (in->keep) was opened by the caller under the lock already.
 */
static int parts_open(struct named_parts *np, struct attachment *att, const struct list_opts *o,
		      struct named_targets *ts, __u32 room, int *first)
{
	const char *skip[BLOOMXDP_MAX_LISTS];
	int i, nt = ts ? ts->n : 0, ret;

	memset(np, 0, sizeof(*np));
	ret = attachment_lock(att);
	if (ret)
		return ret;
	for (i = 0; i < nt; i++)
		skip[i] = ts->t[i].name;
	ret = named_parts_open(np, att, o->state_dir, skip, nt, room);
	*first = np->n;
	for (i = 0; i < nt && !ret; i++)
		ret = named_parts_add(np, att, ts->t[i].name, &ts->t[i].in, &ts->t[i].opts, room);
	return ret;
}

/*
 * --verify: whether this load's generation keeps its exact copy. Mode auto
 * keeps it when it fits within a quarter of max_memory (a copy that outgrew
 * its room while the list was read was left then: its size is extrapolated
 * from the part made); mode on always (the filter sizes around it). Sets the
 * generation's exact_keys and exact_bytes (what the copy takes, or would);
 * returns the bytes it counts against max_memory, closing a copy left off.
 */
static __u64 exact_decide(const struct attachment *att, const struct list_build *b,
			  struct exact_set *x, __u64 max_memory, struct bloomxdp_state *st)
{
	__u64 added = x->added[0] + x->added[1] + x->added[2] + x->added_prefixes[0] +
		      x->added_prefixes[1], bytes;

	st->exact_keys = st->exact_bytes = 0;
	if (x->names_fd < 0)
		return 0;	/* --verify off */
	bytes = exact_set_bytes(x);
	st->exact_keys = b->exact_overflow ? b->read : added;
	st->exact_bytes = b->exact_overflow && added ?
			  (__u64)((double)bytes * b->read / added) : bytes;
	if (att->config.verify == BLOOMXDP_VERIFY_AUTO &&
	    (b->exact_overflow || st->exact_bytes > verify_auto_limit(max_memory))) {
		if (!st->exact_bytes)
			st->exact_bytes = verify_auto_limit(max_memory) + 1;
		exact_set_close(x);
		return 0;
	}
	return bytes;
}

/*
 * The blocklist: a new filter (and exact copy with --verify) in the other
 * generation, sized for the list. A new default list is read before the
 * writers' lock is taken, so that a slow input holds up no other writer; the
 * lock then covers the other lists' state, read under it, and the swap.
 */
int list_load_union(struct attachment *att, const struct list_opts *o, struct list_inputs *in,
		    struct named_targets *ts)
{
	struct named_parts np = {};
	int first = 0, nt = ts ? ts->n : 0;
	/* The outer maps of this generation: filter first, as attachment_flip() wants. */
	int outers[8] = { att->filter_fd, att->kfilter_fd }, nouters = 1;
	int range_fds[2] = { -1, -1 }, fam;
	double fpr = (double)att->config.fpr_ppb / BLOOMXDP_PPB;
	struct exact_set exact;
	struct filter f = { .map_fd = -1 };
	struct bloomxdp_state st = {}, live = {}, decided = {};
	char err[LIST_ERROR_LEN];
	struct timespec start, wall;
	struct list_build build;
	struct bloom_plan plan;
	struct bitcounts counts = {};
	struct suffix_keys public_suffixes;
	__u64 max_memory, exact_bytes = 0, default_read, before;
	__u32 slot;
	int i, ret;

	clock_gettime(CLOCK_MONOTONIC, &start);
	exact_set_init(&exact);
	suffix_keys_init(&public_suffixes);
	list_build_init(&build, NULL, o->prefix_probes);
	build.bloom = true;
	build.ranges_ok = true;
	build.store = o->store;
	build.bits_per_key = -log(fpr) / (M_LN2 * M_LN2);
	memcpy(build.hash_key, att->config.hash_key, sizeof(build.hash_key));
	/* The limit this load sizes within: the live list's, unless --max-memory sets another. */
	ret = attachment_read_live(att, &slot, &live, "the live list");
	if (ret)
		goto cleanup;
	max_memory = load_max_memory(o, &live);
	build.range_budget = max_memory / 2;
	ret = suffix_keys_read(&public_suffixes, att->suffixes_fd);
	if (ret) {
		log_error("cannot read the public suffixes of %s: %s", att->ifname, strerror(-ret));
		goto cleanup;
	}
	build.public_suffixes = &public_suffixes;
	if (att->config.verify != BLOOMXDP_VERIFY_OFF) {
		build.exact_optional = att->config.verify == BLOOMXDP_VERIFY_AUTO;
		ret = exact_set_create_hashed(&exact, exact_room_for_memory(build.exact_optional ?
						verify_auto_limit(max_memory) : max_memory));
		if (ret) {
			log_error("cannot create the new maps of %s: %s", att->ifname,
				  strerror(-ret));
			goto cleanup;
		}
		build.exact = &exact;
	}
	/* The union: the default list, then every named list, each into its exact copy too. */
	if (!in->keep)
		ret = read_inputs_noted(&build, o, in, !nt, err);
	if (!ret) {
		ret = parts_open(&np, att, o, ts, exact_room_for_memory(max_memory), &first);
		if (ret) {
			log_error("the live list of %s is unchanged", att->ifname);
			goto cleanup;
		}
	}
	/* Loading named lists (nt), the default list is its state copy: read unnoted. */
	if (!ret && in->keep)
		ret = read_inputs_noted(&build, o, in, !nt, err);
	default_read = build.read;
	for (i = 0; i < np.n && !ret; i++) {
		before = build.read;
		build.also = named_part_take;
		build.also_ctx = &np.part[i];
		ret = read_inputs_noted(&build, &np.part[i].opts, np.part[i].in,
					i >= first && i < first + nt, err);
		np.part[i].entries = build.read - before;
	}
	build.also = NULL;
	if (ret)
		list_notes_print(&build.notes);
	else
		ret = finish_lists(&build, err);

	if (!ret && !nt)
		ret = check_nonempty(o, in, default_read, err);
	for (i = 0; i < nt && !ret; i++) {
		ret = check_nonempty(&ts->t[i].opts, &ts->t[i].in, np.part[first + i].entries,
				     err);
		/* A named list loaded empty (--allow-empty) is no longer a list. */
		np.part[first + i].dropped = !np.part[first + i].entries;
	}
	if (ret) {
		log_error("%s; the live list of %s is unchanged", err, att->ifname);
		goto cleanup;
	}
	exact_bytes = exact_decide(att, &build, &exact, max_memory, &decided);
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
	/* The counting filter of del, with the state it belongs to (bitcounts.h). */
	if (in->recording && f.ops->readable &&
	    !bitcounts_alloc(&counts, f.layout, f.bits, f.hashes))
		f.counts = &counts;
	filter_stage(&f);
	ret = list_build_insert(&build, &f, err);
	filter_unstage(&f);
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
	ret = attachment_read_live(att, &slot, &st, "the live list");
	if (!ret)
		ret = states_prepare(in, o, ts, &np, first, st.generation + 1, max_memory,
				     att->ifname);
	if (ret)
		goto cleanup;
	ret = allow_exceptions(att, &build);
	if (ret)
		goto cleanup;
	slot ^= 1;
	if (f.kbloom_fd >= 0)
		nouters = 2;
	/* Always: a family that leaves its intervals leaves no stale map behind. */
	outers[nouters++] = att->ranges_v4_fd;
	outers[nouters++] = att->ranges_v6_fd;
	outers[nouters++] = att->list.keys_fd;	/* the named lists' keys, with the union */
	/* Always: a generation without an exact copy leaves none of an older one behind. */
	outers[nouters++] = att->verify.v4_fd;
	outers[nouters++] = att->verify.v6_fd;
	outers[nouters++] = att->verify.names_fd;
	clock_gettime(CLOCK_REALTIME, &wall);
	st.entries = build.read;
	st.keys = build.keys;
	st.generation++;
	st.loaded_at_ns = wall.tv_sec * 1000000000ULL + wall.tv_nsec;
	st.capacity = plan.capacity;
	st.max_memory = max_memory;
	st.exact_keys = decided.exact_keys;
	st.exact_bytes = decided.exact_bytes;
	/* The new slot's bookkeeping before the flip: status then never lags the filter. */
	ret = attachment_write_state(att, slot, &st);
	/* Its keys at public depths, confirmed exactly: with the generation. */
	if (!ret)
		ret = suffix_keys_sync(att->suffixes_fd, slot, build.at_public, build.nat_public);
	if (!ret)
		ret = filter_install(att->filter_fd, slot, &f);
	if (!ret)
		ret = filter_install_kernel(att->kfilter_fd, slot, &f);
	if (!ret && exact.names_fd >= 0)
		ret = exact_set_install(&att->verify, slot, &exact);
	else if (!ret)
		exact_outer_clear(&att->verify, slot);	/* the program reads: no exact copy */
	for (fam = 0; fam < 2 && !ret; fam++)
		if (range_fds[fam] >= 0 &&
		    bpf_map_update_elem(fam ? att->ranges_v6_fd : att->ranges_v4_fd, &slot,
					&range_fds[fam], BPF_ANY))
			ret = -errno;
	/* Each named list's new copy before the union that holds it. */
	if (!ret)
		ret = named_parts_install(&np, att, default_read, slot);
	if (!ret)
		ret = attachment_flip(att, BLOOMXDP_ACTIVE_BLOCK, slot, 0, outers, nouters);
	if (ret) {
		log_error("cannot swap in the new filter: %s; the live list is unchanged",
			  strerror(-ret));
		goto cleanup;
	}
	named_parts_clear(&np, att);
	for (i = 0; i < nt; i++) {
		const struct named_part *p = &np.part[first + i];

		if (p->dropped)
			printf("dropped list %s of %s: it is empty\n", p->name, att->ifname);
		else
			printf("loaded %llu entries into list %s of %s (action %s)\n",
			       (unsigned long long)p->entries, p->name, att->ifname,
			       list_action_name(p->opts.action_given ? p->opts.action :
						list_default_action(&att->config)));
	}
	printf("loaded %llu entries into %s in %.2f s%s\n", (unsigned long long)build.read,
	       att->ifname, seconds_since(&start), np.n ? " (the union of its lists)" : "");
	print_prefix_plans(build.plan, build.cost);
	print_filter(att, &build, &plan, live.capacity, filter_map_bytes(&f));
	if (att->config.verify != BLOOMXDP_VERIFY_OFF) {
		char why[160];

		verify_reason(att->config.verify, exact.names_fd >= 0, &st, why, sizeof(why));
		printf("%s\n", why);
	}
	warn_unmatched_kinds(&f, &att->config, att->ifname);
	/* After the swap: a crash here leaves the state one load behind (docs/operations.md). */
	ret = states_publish(in, ts, &np, first, att->ifname);
	if (!ret && f.counts)
		write_bitcounts(in, &f, st.generation);
	if (!ret)
		ret = attachment_check_enforced(att);
cleanup:
	named_parts_free(&np);
	bitcounts_free(&counts);
	list_build_free(&build);
	suffix_keys_free(&public_suffixes);
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
static int load_allowlist(struct attachment *att, const struct list_opts *o,
			  struct list_inputs *in)
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
	ret = attachment_read_live(att, &slot, &live, "the allowlist");
	if (ret)
		return ret;
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
	ret = build_lists(&build, o, in, err);
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
	ret = list_inputs_prepare(in, o, live.generation, max_memory);
	if (ret) {
		log_error("the state of %s cannot record the new allowlist (see above), so it is "
			  "not swapped in: it is unchanged; free space there (or fix the error) "
			  "and load it again", att->ifname);
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
	ret = list_inputs_publish(in);
	if (ret)
		log_error("the new allowlist of %s is live, but its state could not record it "
			  "(see above): a reboot or 'bloomxdp restore' would bring back the "
			  "previous one; fix the error and load it again", att->ifname);
	else
		ret = attachment_check_enforced(att);
cleanup:
	list_build_free(&build);
	exact_set_close(&exact);
	return ret;
}

int list_load_inputs(struct attachment *att, const struct list_opts *o, struct list_inputs *in)
{
	return o->allow ? load_allowlist(att, o, in) : list_load_union(att, o, in, NULL);
}

int list_load_sources(const char *ifname, const struct list_opts *o,
		      const struct list_source *src, int n)
{
	struct list_opts carried_opts[EXPIRY_CARRY_FILES];
	struct expiry_carried carried = {};
	struct list_source *all = NULL;
	struct list_inputs in = { .sd = { .fd = -1, .root_fd = -1 } };
	struct attachment att;
	int i, ret;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	for (i = 0; i < n && !list_source_list(o, &src[i]); i++)
		;
	if (n && i < n) {
		ret = list_load_named(&att, o, src, n);
		attachment_close(&att);
		return ret;
	}
	/* Entries added with a deadline to come (bans) stay in the new list, until then. */
	if (!o->allow && expiry_carry(ifname, o->state_dir, time(NULL), &carried))
		memset(&carried, 0, sizeof(carried));
	all = calloc(n + carried.nfiles, sizeof(*all));
	if (!all) {
		log_error("out of memory; the live list of %s is unchanged", ifname);
		ret = -ENOMEM;
		goto cleanup;
	}
	memcpy(all, src, n * sizeof(*all));
	for (i = 0; i < carried.nfiles; i++) {
		/* Read as add read them: each accepted once already. */
		carried_opts[i] = (struct list_opts){ .format = carried.format[i],
						      .allow_public_suffix = true,
						      .allow_wide = true };
		all[n + i] = (struct list_source){ .path = carried.path[i],
						   .opts = &carried_opts[i] };
	}
	ret = list_inputs_sources(&in, ifname, o, all, n + carried.nfiles);
	if (!ret)
		ret = list_load_inputs(&att, o, &in);
	if (!ret && carried.entries) {
		if (expiry_recarry(ifname, o->state_dir, &carried))
			log_warn("the deadlines of the %llu entries added with --timeout that the "
				 "new list keeps could not be recorded: they stay until deleted",
				 (unsigned long long)carried.entries);
		else
			printf("kept %llu entr%s added with --timeout (until %s deadline%s)\n",
			       (unsigned long long)carried.entries,
			       carried.entries == 1 ? "y" : "ies",
			       carried.entries == 1 ? "its" : "their",
			       carried.entries == 1 ? "" : "s");
	}
cleanup:
	list_inputs_free(&in);
	free(all);
	expiry_carried_free(&carried);
	attachment_close(&att);
	return ret;
}

int list_load(const char *ifname, const struct list_opts *o, char **files, int nfiles)
{
	struct list_source *src = calloc(nfiles, sizeof(*src));
	int i, ret;

	if (!src) {
		log_error("out of memory; the live list of %s is unchanged", ifname);
		return -ENOMEM;
	}
	for (i = 0; i < nfiles; i++) {
		src[i].path = files[i];
		src[i].opts = o;
	}
	ret = list_load_sources(ifname, o, src, nfiles);
	free(src);
	return ret;
}

int list_check_sources(const struct list_opts *o, const struct list_source *src, int n,
		       __u64 *entries, char err[LIST_ERROR_LEN])
{
	struct list_inputs in;
	struct list_build build;
	int ret;

	list_build_init(&build, NULL, o->prefix_probes);
	build.opts.notes = NULL;	/* what --lenient skips is said once, by the load */
	/* As load builds it: the keys kept, the cost model free to choose intervals. */
	build.bloom = !o->allow;
	build.allowlist = o->allow;
	build.ranges_ok = !o->allow;
	build.store = o->store;
	ret = list_inputs_plain(&in, o, src, n);
	if (!ret)
		ret = build_lists(&build, o, &in, err);
	else
		snprintf(err, LIST_ERROR_LEN, "out of memory");
	*entries = build.read;
	list_build_free(&build);
	list_inputs_free(&in);
	return ret;
}
