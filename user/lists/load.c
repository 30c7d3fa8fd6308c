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
#include "filter/match.h"
#include "lists/expiry.h"
#include "lists/build.h"
#include "filter/packet_fpr.h"
#include "lists/generation.h"
#include "lists/lists.h"
#include "lists/report.h"
#include "util/log.h"
#include "lists/named.h"
#include "filter/bloom_plan.h"
#include "filter/suffix_map.h"

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
static void report_filter(const struct attachment *att, const struct list_build *b,
			  const struct bloom_plan *plan, const struct filter *f,
			  struct load_result *r)
{
	struct packet_probes pp;

	list_build_probes(b, att->config.match, &pp);
	r->capacity = plan->capacity;
	r->keys = b->keys;
	r->bytes = filter_map_bytes(f);
	r->key_fpr = bloom_layout_fpr(plan->layout, plan->bits, plan->hashes, b->keys);
	r->packet_fpr = packet_worst_fpr(&pp, r->key_fpr);
	r->probes = packet_worst_probes(&pp);
	r->fpr = (double)att->config.fpr_ppb / BLOOMXDP_PPB;
	memcpy(r->plan, b->plan, sizeof(r->plan));
	memcpy(r->cost, b->cost, sizeof(r->cost));
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
		/* Its copy written to its end: a write that failed after the last read fails it. */
		if (b->opts.tee && state_copy_drain(b->opts.tee_ctx) && !ret)
			ret = ((struct state_copy *)b->opts.tee_ctx)->err;
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
static int allow_exceptions(struct attachment *att, const struct list_build *b,
			    struct load_result *r)
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
	r->exceptions = b->nexceptions;
	return 0;
}

/*
 * The counters of a new generation, under it: del can then take its entries
 * out. Their writer (w) started when they were made, before the swap.
 */
static void write_bitcounts(struct list_inputs *in, struct filter *f, __u64 generation,
			    struct bitcounts_writer *w)
{
	int ret;

	bitcounts_stamp(f->counts, generation, filter_header_word(f, BLOOMXDP_HDR_V4_LENGTHS),
			filter_header_word(f, BLOOMXDP_HDR_V6_LENGTHS));
	ret = bitcounts_write_end(w, true);
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

/* A load of the union (list_load_union()): what it reads, builds and swaps in. */
struct union_load {
	struct attachment *att;
	const struct list_opts *o;
	struct list_inputs *in;		/* the default list's */
	struct named_targets *ts;	/* the named lists it replaces, or NULL */
	int nt, first;			/* how many; the first's part in np */
	struct named_parts np;		/* every named list of the union */
	struct list_build build;
	struct exact_set exact;
	struct suffix_map public_suffixes;
	struct filter f;
	struct bitcounts counts;
	struct bitcounts_writer counts_out;	/* written while the filter is swapped in */
	struct bloom_plan plan;
	struct bloomxdp_state live;	/* before: its limit, the filter it replaces */
	struct bloomxdp_state st;	/* the new generation's */
	struct bloomxdp_state decided;	/* what --verify decided */
	int range_fds[2];
	__u64 max_memory, default_read;
	struct timespec start;
	char err[LIST_ERROR_LEN];
	struct load_result *r;
};

/*
 * The writers' lock, then the other lists as the state records them, and the
 * named lists a load replaces (ts): each add that completed is then in their
 * journals, and one that did not waits for the swap. A list from the state
 * (in->keep) was opened by the caller under the lock already. The named lists
 * are those of the state directory the default list's inputs hold.
 */
static int parts_open(struct union_load *u)
{
	const char *skip[BLOOMXDP_MAX_LISTS];
	struct named_targets *ts = u->ts;
	__u32 room = exact_room_for_memory(u->max_memory);
	int i, ret;

	ret = attachment_lock(u->att);
	if (ret)
		return ret;
	for (i = 0; i < u->nt; i++)
		skip[i] = ts->t[i].name;
	if (u->in->sd.fd >= 0)
		ret = named_parts_open(&u->np, u->att, &u->in->sd, skip, u->nt, room);
	else if (u->in->state_err != -ENOENT)
		ret = u->in->state_err;	/* said when it was opened */
	u->first = u->np.n;
	for (i = 0; i < u->nt && !ret; i++)
		ret = named_parts_add(&u->np, u->att, ts->t[i].name, &ts->t[i].in, &ts->t[i].opts,
				      room);
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
 * The exact copy's keys kept aside while the lists were read into its maps;
 * in mode auto, too many of them leave it, as when its maps outgrow their room.
 */
static int exact_flush(struct list_build *b)
{
	int ret;

	if (!b->exact)
		return 0;
	ret = exact_set_flush(b->exact);
	if ((ret == -ENOSPC || ret == -E2BIG) && b->exact_optional) {
		b->exact = NULL;
		b->exact_overflow = true;
		ret = 0;
	}
	return ret;
}

/* What a load starts from: the live generation's limit, the public suffixes, the exact copy. */
static int union_begin(struct union_load *u)
{
	const struct attachment *att = u->att;
	double fpr = (double)att->config.fpr_ppb / BLOOMXDP_PPB;
	struct list_build *b = &u->build;
	__u32 slot;
	int ret;

	b->bloom = true;
	b->ranges_ok = true;
	b->store = u->o->store;
	b->bits_per_key = -log(fpr) / (M_LN2 * M_LN2);
	memcpy(b->hash_key, att->config.hash_key, sizeof(b->hash_key));
	/* The limit this load sizes within: the live list's, unless --max-memory sets another. */
	ret = attachment_read_live(u->att, &slot, &u->live, "the live list");
	if (ret)
		return ret;
	u->max_memory = load_max_memory(u->o, &u->live);
	b->range_budget = u->max_memory / 2;
	ret = suffix_map_read(&u->public_suffixes, att->suffixes_fd);
	if (ret) {
		log_error("cannot read the public suffixes of %s: %s", att->ifname, strerror(-ret));
		return ret;
	}
	b->public_suffixes = &u->public_suffixes;
	if (att->config.verify == BLOOMXDP_VERIFY_OFF)
		return 0;
	b->exact_optional = att->config.verify == BLOOMXDP_VERIFY_AUTO;
	ret = exact_set_create_hashed(&u->exact, exact_room_for_memory(b->exact_optional ?
				      verify_auto_limit(u->max_memory) : u->max_memory));
	if (ret) {
		log_error("cannot create the new maps of %s: %s", att->ifname, strerror(-ret));
		return ret;
	}
	exact_set_defer(&u->exact);
	b->exact = &u->exact;
	return 0;
}

/*
 * The union read: the default list, then every named list, each into its
 * exact copy too; a new default list is read before the writers' lock. Then
 * checked as a whole. Said, with the live list unchanged.
 */
static int union_read(struct union_load *u)
{
	struct list_build *b = &u->build;
	struct named_parts *np = &u->np;
	__u64 before;
	int i, ret = 0;

	if (!u->in->keep)
		ret = read_inputs_noted(b, u->o, u->in, !u->nt, u->err);
	if (!ret) {
		ret = parts_open(u);
		if (ret) {
			log_error("the live list of %s is unchanged", u->att->ifname);
			return ret;
		}
	}
	/* Loading named lists (nt), the default list is its state copy: read unnoted. */
	if (!ret && u->in->keep)
		ret = read_inputs_noted(b, u->o, u->in, !u->nt, u->err);
	u->default_read = b->read;
	for (i = 0; i < np->n && !ret; i++) {
		before = b->read;
		b->also = named_part_take;
		b->also_ctx = &np->part[i];
		ret = read_inputs_noted(b, &np->part[i].opts, np->part[i].in,
					i >= u->first && i < u->first + u->nt, u->err);
		np->part[i].entries = b->read - before;
	}
	b->also = NULL;
	if (ret)
		list_notes_print(&b->notes);
	else
		ret = finish_lists(b, u->err);
	if (!ret && !u->nt)
		ret = check_nonempty(u->o, u->in, u->default_read, u->err);
	for (i = 0; i < u->nt && !ret; i++) {
		struct named_part *p = &np->part[u->first + i];

		ret = check_nonempty(&u->ts->t[i].opts, &u->ts->t[i].in, p->entries, u->err);
		/* A named list loaded empty (--allow-empty) is no longer a list. */
		p->dropped = !p->entries;
	}
	if (ret)
		log_error("%s; the live list of %s is unchanged", u->err, u->att->ifname);
	return ret;
}

/* The new generation built aside: its filter sized for the union, its intervals. */
static int union_build(struct union_load *u)
{
	const struct attachment *att = u->att;
	struct list_build *b = &u->build;
	__u64 exact_bytes;
	int fam, ret;

	ret = exact_flush(b);
	if (ret) {
		log_error("cannot fill the exact copy of %s: %s; the live list is unchanged",
			  att->ifname, strerror(-ret));
		return ret;
	}
	exact_bytes = exact_decide(att, b, &u->exact, u->max_memory, &u->decided);
	/* The intervals count against --max-memory as the exact copy does. */
	for (fam = 0; fam < 2; fam++)
		if (b->cost[fam].use_ranges)
			exact_bytes += b->cost[fam].range_bytes;
	ret = size_generation(att, b, u->o, u->max_memory, exact_bytes, &u->plan);
	if (ret)
		return ret;
	ret = filter_create_plan(&att->config, &u->plan, &u->f);
	if (ret) {
		log_error("cannot create a filter of %llu bytes for %s: %s; the live list is "
			  "unchanged", (unsigned long long)bloom_plan_map_bytes(&u->plan),
			  att->ifname, strerror(-ret));
		return ret;
	}
	/* The counting filter of del, with the state it belongs to (bitcounts.h). */
	if (u->in->recording && u->f.ops->readable &&
	    !bitcounts_alloc(&u->counts, u->f.layout, u->f.bits, u->f.hashes))
		u->f.counts = &u->counts;
	filter_stage(&u->f);
	ret = list_build_insert(b, &u->f, u->err);
	filter_unstage(&u->f);
	if (ret) {
		log_error("%s; the live list of %s is unchanged", u->err, att->ifname);
		return ret;
	}
	for (fam = 0; fam < 2; fam++) {
		if (!b->cost[fam].use_ranges)
			continue;
		u->range_fds[fam] = range_set_create_map(&b->ranges[fam]);
		if (u->range_fds[fam] < 0) {
			ret = u->range_fds[fam];
			log_error("cannot create the %s intervals of %s (%llu bytes): %s; the live "
				  "list is unchanged", fam ? "IPv6" : "IPv4", att->ifname,
				  (unsigned long long)b->cost[fam].range_bytes, strerror(-ret));
			return ret;
		}
	}
	/* del's counters written by a thread while the filter is swapped in (write_bitcounts()). */
	if (u->f.counts)
		bitcounts_write_start(&u->counts_out, u->f.counts, u->in->sd.fd);
	return 0;
}

/* generation.fill of a load: each named list's new copy, before the union that holds it. */
static int union_fill(void *ctx, __u32 slot)
{
	struct union_load *u = ctx;

	return named_parts_install(&u->np, u->att, u->default_read, slot);
}

/* Under the writers' lock: the state written but for its names, then the swap. */
static int union_swap(struct union_load *u)
{
	struct attachment *att = u->att;
	struct generation g = {
		.f = &u->f, .range_fds = { u->range_fds[0], u->range_fds[1] },
		.exact = u->exact.names_fd >= 0 ? &u->exact : NULL,
		.at_public = u->build.at_public, .nat_public = u->build.nat_public,
		.fill = union_fill, .ctx = u,
	};
	__u32 slot;
	int ret;

	ret = attachment_lock(att);
	if (ret)
		return ret;
	ret = attachment_read_live(att, &slot, &u->st, "the live list");
	if (!ret)
		ret = states_prepare(u->in, u->o, u->ts, &u->np, u->first, u->st.generation + 1,
				     u->max_memory, att->ifname);
	if (!ret)
		ret = allow_exceptions(att, &u->build, u->r);
	if (ret)
		return ret;
	u->st.entries = u->build.read;
	u->st.keys = u->build.keys;
	u->st.capacity = u->plan.capacity;
	u->st.max_memory = u->max_memory;
	u->st.exact_keys = u->decided.exact_keys;
	u->st.exact_bytes = u->decided.exact_bytes;
	ret = generation_swap(att, slot, &u->st, &g, &slot);
	if (ret) {
		log_error("cannot swap in the new filter: %s; the live list is unchanged",
			  strerror(-ret));
		return ret;
	}
	named_parts_clear(&u->np, att);
	return 0;
}

/* What the load did, for its caller to print. */
static void union_report(struct union_load *u)
{
	const struct attachment *att = u->att;
	struct load_result *r = u->r;
	int i;

	r->swapped = true;
	for (i = 0; i < u->nt; i++) {
		const struct named_part *p = &u->np.part[u->first + i];
		struct load_named_result *n = &r->named[r->nnamed++];

		snprintf(n->name, sizeof(n->name), "%s", p->name);
		n->entries = p->entries;
		n->dropped = p->dropped;
		n->action = p->opts.action_given ? p->opts.action :
			    list_default_action(&att->config);
	}
	r->entries = u->build.read;
	r->seconds = seconds_since(&u->start);
	r->is_union = u->np.n;
	r->previous_capacity = u->live.capacity;
	report_filter(att, &u->build, &u->plan, &u->f, r);
	if (att->config.verify != BLOOMXDP_VERIFY_OFF)
		verify_reason(att->config.verify, u->exact.names_fd >= 0, &u->st, r->verify,
			      sizeof(r->verify));
}

static void union_free(struct union_load *u)
{
	int fam;

	named_parts_free(&u->np);
	/* A load that failed, or never came to its counters: their file removed. */
	bitcounts_write_end(&u->counts_out, false);
	bitcounts_free(&u->counts);
	list_build_free(&u->build);
	suffix_map_free(&u->public_suffixes);
	exact_set_close(&u->exact);
	filter_close(&u->f);
	for (fam = 0; fam < 2; fam++)
		if (u->range_fds[fam] >= 0)
			close(u->range_fds[fam]);
}

/*
 * The blocklist: a new filter (and exact copy with --verify) in the other
 * generation, sized for the list. A new default list is read before the
 * writers' lock is taken, so that a slow input holds up no other writer; the
 * lock then covers the other lists' state, read under it, and the swap.
 */
/* load --learn: the program reads answers only with --match dns-answers. */
static int check_learning(const struct attachment *att, const struct named_targets *ts)
{
	char match[64];
	int i;

	for (i = 0; ts && i < ts->n; i++) {
		if (!ts->t[i].opts.learn || att->config.match & BLOOMXDP_MATCH_DNS_ANSWERS)
			continue;
		log_error("list %s learns addresses from DNS answers: attach with --match "
			  "%s,dns-answers ('bloomxdp attach --force %s ...'); the live list of %s "
			  "is unchanged", ts->t[i].name,
			  match_text(att->config.match, match, sizeof(match)), att->ifname,
			  att->ifname);
		return -EINVAL;
	}
	return 0;
}

int list_load_union(struct attachment *att, const struct list_opts *o, struct list_inputs *in,
		    struct named_targets *ts, struct load_result *r)
{
	struct union_load u = {
		.att = att, .o = o, .in = in, .ts = ts, .nt = ts ? ts->n : 0, .r = r,
		.f = { .map_fd = -1, .kbloom_fd = -1 }, .range_fds = { -1, -1 },
	};
	int ret;

	ret = check_learning(att, ts);
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &u.start);
	exact_set_init(&u.exact);
	suffix_map_init(&u.public_suffixes);
	list_build_init(&u.build, NULL, o->prefix_probes);
	ret = union_begin(&u);
	if (!ret)
		ret = union_read(&u);
	if (!ret)
		ret = union_build(&u);
	if (!ret)
		ret = union_swap(&u);
	if (ret)
		goto cleanup;
	union_report(&u);
	warn_unmatched_kinds(&u.f, &att->config, att->ifname);
	/* After the swap: a crash here leaves the state one load behind (docs/operations.md). */
	ret = states_publish(in, ts, &u.np, u.first, att->ifname);
	if (!ret && u.f.counts)
		write_bitcounts(in, &u.f, u.st.generation, &u.counts_out);
	if (!ret)
		ret = attachment_check_enforced(att);
cleanup:
	union_free(&u);
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
			  struct list_inputs *in, struct load_result *r)
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
	r->allowlist = true;
	r->entries = build.read;
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

int list_load_inputs(struct attachment *att, const struct list_opts *o, struct list_inputs *in,
		     struct load_result *r)
{
	return o->allow ? load_allowlist(att, o, in, r) : list_load_union(att, o, in, NULL, r);
}

/*
 * The default list (or the allowlist) from sources, recorded in the state it
 * opens; entries added with a deadline to come (bans) stay in the new list,
 * until then.
 */
static int load_default(struct attachment *att, const struct list_opts *o,
			const struct list_source *src, int n, struct load_result *r)
{
	struct list_opts carried_opts[EXPIRY_CARRY_FILES];
	struct expiry_carried carried = {};
	struct list_source *all = NULL;
	struct list_inputs in;
	int i, ret;

	list_inputs_open(&in, NULL, att->ifname, o);
	if (!o->allow && in.recording && expiry_carry(&in.sd, time(NULL), &carried))
		memset(&carried, 0, sizeof(carried));
	all = calloc(n + carried.nfiles, sizeof(*all));
	if (!all) {
		log_error("out of memory; the live list of %s is unchanged", att->ifname);
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
	ret = list_inputs_add(&in, o, all, n + carried.nfiles);
	if (!ret)
		ret = list_load_inputs(att, o, &in, r);
	if (!ret && carried.entries) {
		if (expiry_recarry(&in.sd, &carried))
			log_warn("the deadlines of the %llu entries added with --timeout that the "
				 "new list keeps could not be recorded: they stay until deleted",
				 (unsigned long long)carried.entries);
		else
			r->kept = carried.entries;
	}
cleanup:
	list_inputs_free(&in);
	free(all);
	expiry_carried_free(&carried);
	return ret;
}

int list_load_sources(const char *given, const struct list_opts *o,
		      const struct list_source *src, int n, struct load_result *r)
{
	char ifname[IF_NAMESIZE];
	struct attachment att;
	int i, ret;

	/* A group's member: its lists are its home's (attach IF1 IF2 ...). */
	attachment_home(given, ifname);

	load_result_init(r, ifname);
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	for (i = 0; i < n && !list_source_list(o, &src[i]); i++)
		;
	if (n && i < n)
		ret = list_load_named(&att, o, src, n, r);
	else
		ret = load_default(&att, o, src, n, r);
	attachment_close(&att);
	return ret;
}

int list_load(const char *given, const struct list_opts *o, char **files, int nfiles,
	      struct load_result *r)
{
	char ifname[IF_NAMESIZE];
	struct list_source *src = calloc(nfiles, sizeof(*src));
	int i, ret;

	/* A group's member: its lists are its home's (attach IF1 IF2 ...). */
	attachment_home(given, ifname);

	if (!src) {
		load_result_init(r, ifname);
		log_error("out of memory; the live list of %s is unchanged", ifname);
		return -ENOMEM;
	}
	for (i = 0; i < nfiles; i++) {
		src[i].path = files[i];
		src[i].opts = o;
	}
	ret = list_load_sources(ifname, o, src, nfiles, r);
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
