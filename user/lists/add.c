// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* add: entries into the live list, in place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel/attachment.h"
#include "lists/bitcounts.h"
#include "lists/expiry.h"
#include "filter/layout.h"
#include "filter/entry_keys.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/duration.h"
#include "util/log.h"
#include "filter/packet_fpr.h"
#include "lists/named.h"
#include "lists/report.h"
#include "parse/prefixes.h"
#include "filter/bloom_plan.h"
#include "parse/public_suffix.h"
#include "filter/suffix_map.h"

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
			} else if (!o->allow && e->kind == ENTRY_ADDR && !o->allow_wide &&
				   prefix_too_wide(&e->addr)) {
				log_error("%s: %s; nothing was added", args[i],
					  prefix_too_wide_why);
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
static int add_allowed(struct attachment *att, const struct parsed_args *p, struct add_result *r)
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
	r->added = r->allow = true;
	r->entries = p->n;
	return attachment_check_enforced(att);
}

/*
 * add: -EOVERFLOW when the entries add a probe per packet (a new prefix
 * length, name depth or URL host depth) that takes the worst unlisted
 * packet's chance of a false drop past the target, at the filter's size with
 * keys keys. A generation that was already past it (sized per probe by an
 * older bloomxdp) is not made to refuse adds that add no probe.
 */
static int add_check_probes(const struct attachment *att, const struct filter *f,
			    const struct entry *parsed, int n, double keys)
{
	double target = (double)att->config.fpr_ppb / BLOOMXDP_PPB, p, before, after;
	__u64 bits = f->ops->bits(f);
	struct packet_probes now, then;

	if (!(keys < (double)~0ULL))
		return -EOVERFLOW;
	p = bloom_layout_fpr(att->config.layout, bits, f->hashes, (__u64)keys);
	packet_probes_of_header(&now, att->config.match, filter_header(f),
				filter_header_word(f, BLOOMXDP_HDR_V4_LENGTHS),
				filter_header_word(f, BLOOMXDP_HDR_V6_LENGTHS));
	entry_keys_probes_after(f, parsed, n, att->config.match, &then);
	before = packet_worst_fpr(&now, p);
	after = packet_worst_fpr(&then, p);
	return after > target && after > before ? -EOVERFLOW : 0;
}

/*
 * add: refused, with nothing changed, when the keys would take the live
 * filter past the keys it is sized for, i.e. its FPR past the target:
 * -EOVERFLOW, unprinted, when the state (sd) can rebuild the list with them
 * (add_rebuild()); else said, with -ENOSPC.
 */
static int add_check_room(const struct attachment *att, const struct filter *f,
			  const struct bloomxdp_state *st, const struct entry *parsed, int n,
			  __u64 *added, const struct state_dir *sd)
{
	__u64 capacity = st->capacity ? st->capacity : att->config.capacity, keys;
	double now = filter_keys_now(f, st);
	int i, ret;

	*added = 0;
	for (i = 0; i < n; i++) {
		keys = entry_keys_count(f, &parsed[i]);
		*added = keys > ~0ULL - *added ? ~0ULL : *added + keys;
	}
	if (generation_has_room(now, *added, capacity)) {
		ret = add_check_probes(att, f, parsed, n, now + *added);
		if (ret != -EOVERFLOW || !list_state_current_at(sd, false, st->generation))
			return ret;
		log_error("%d entr%s would add a probe per packet (a new prefix length or name "
			  "depth) and take the chance that %s drops an unlisted packet past %g: "
			  "nothing was added; 'bloomxdp load' the whole list with them, which sizes "
			  "a new filter for its probes", n, n == 1 ? "y" : "ies", att->ifname,
			  (double)att->config.fpr_ppb / BLOOMXDP_PPB);
		return -ENOSPC;
	}
	if (!list_state_current_at(sd, false, st->generation))
		return -EOVERFLOW;
	log_error("%d entr%s (%llu keys) would take the filter of %s past the %llu keys it is "
		  "sized for (it holds about %.0f), and its FPR past %g: nothing was added; "
		  "'bloomxdp load' the whole list with them, which sizes a new filter for it",
		  n, n == 1 ? "y" : "ies", (unsigned long long)*added, att->ifname,
		  (unsigned long long)capacity, now, (double)att->config.fpr_ppb / BLOOMXDP_PPB);
	return -ENOSPC;
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
		if (entry_ranged_family(f, &e[i]) == fam)
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

/*
 * The counters of del (bitcounts.h), counting what add sets; when they are
 * there but cannot be kept up to date, removed: del then refuses rather
 * than clear a bit a key of this add still needs.
 */
static void add_counts_open(struct filter *f, __u64 generation, const struct state_dir *sd,
			    struct bitcounts *counts)
{
	int ret;

	if (!f->ops->readable || sd->fd < 0)
		return;
	ret = bitcounts_map(counts, sd->fd, f->layout, f->bits, f->hashes, generation);
	if (!ret)
		f->counts = counts;
	else if (ret != -ENOENT && ret != -ESTALE)
		unlinkat(sd->fd, BITCOUNTS_FILE, 0);
}

/* The entries' keys at public depths, marked in the live slot before the filter holds them. */
static int add_mark_public(const struct attachment *att, __u32 slot, const struct entry *e,
			   int n)
{
	struct suffix_map sk;
	int i, ret = 0;
	__u64 key;

	suffix_map_init(&sk);
	/* The whole map, in a few batches: a lookup per name made 50,000 adds take seconds. */
	for (i = 0; i < n && (e[i].kind == ENTRY_ADDR || e[i].allow); i++)
		;
	if (i < n)
		ret = suffix_map_read(&sk, att->suffixes_fd);
	for (; i < n && !ret; i++) {
		if (e[i].kind == ENTRY_ADDR || e[i].allow)
			continue;
		if (suffix_map_entry(&sk, att->config.hash_key, &e[i], &key))
			ret = suffix_map_mark(att->suffixes_fd, slot, &key, 1);
	}
	suffix_map_free(&sk);
	if (ret)
		log_error("cannot mark the public suffixes added to %s: %s; nothing was added",
			  att->ifname, ret == -E2BIG ? "too many are listed" : strerror(-ret));
	return ret;
}

/*
 * add: the entries into the live generation's exact copy (--verify), if it has
 * one, made live. Returns how many went in (n without a copy); *err the error
 * of the one after them, else 0.
 */
static int exact_add_live(const struct attachment *att, __u32 slot, struct exact_set *live,
			  const struct entry *parsed, int n, int *err)
{
	int i, ret = 0, r;

	*err = 0;
	if (live->names_fd < 0)
		return n;
	for (i = 0; i < n; i++) {
		ret = exact_set_add(live, att->config.hash_key, &parsed[i]);
		if (ret < 0)
			break;
	}
	r = exact_set_update_live(&att->verify, slot, live);
	if (r < 0) {
		/* Not live: no Bloom insert may count on it. */
		*err = r;
		return 0;
	}
	*err = ret < 0 ? ret : 0;
	return i;
}

/* An add: its entries, and the state it opens once, when first needed. */
struct add_op {
	const char *ifname;
	const struct list_opts *o;
	char **entries;
	int n;
	struct parsed_args parsed;
	struct op_state state;
	struct add_result *r;
};

/* The entries of the live filter's families held in exact intervals: their new arrays. */
static int add_intervals(struct attachment *att, const struct live_filter *lf,
			 const struct entry *e, int n, __u32 ranged)
{
	int fam, r, ret = 0;

	for (fam = 0; fam < 2; fam++) {
		if (!(ranged & (1U << fam)))
			continue;
		r = add_ranges(att, &lf->f, lf->slot, e, n, fam);
		if (r < 0) {
			log_error("cannot add to the %s intervals of %s: %s; they are unchanged",
				  fam ? "IPv6" : "IPv4", att->ifname, strerror(-r));
			if (!ret)
				ret = r;
		}
	}
	return ret;
}

/*
 * The entries into the live filter: the exact copy first, live (grown maps,
 * the prefixes' intervals) before any Bloom insert: a packet must not see a
 * Bloom hit it cannot confirm. *done: how many went in; ret of the one after.
 */
static int add_inserts(struct attachment *att, struct live_filter *lf, const struct entry *e,
		       int n, int *done, __u64 *inserted)
{
	__u32 ranged = 0;
	int i, ret = 0, xn, xret, r;

	xn = exact_add_live(att, lf->slot, &lf->exact, e, n, &xret);
	lf->st.exact_keys += lf->exact.added[0] + lf->exact.added[1] + lf->exact.added[2] +
			     lf->exact.added_prefixes[0] + lf->exact.added_prefixes[1];
	for (i = 0; i < xn; i++) {
		/* Counted before it goes in: a prefix may add a length, and expand less. */
		__u64 keys = entry_keys_count(&lf->f, &e[i]);

		if (entry_ranged_family(&lf->f, &e[i]) >= 0) {
			/* Into the intervals, all at once below. */
			ranged |= 1U << entry_ranged_family(&lf->f, &e[i]);
			(*inserted)++;
			lf->st.entries++;
			continue;
		}
		ret = entry_keys_insert(&lf->f, &e[i]);
		if (ret < 0)
			break;
		*inserted += ret;
		lf->st.entries++;
		lf->st.keys += keys;
	}
	if (ret >= 0 && xret < 0)
		ret = xret;	/* i == xn: the entry the exact copy refused */
	*done = i;
	/* The intervals of the entries before a failed one too: as the filter's. */
	r = add_intervals(att, lf, e, i, ranged);
	return ret < 0 ? ret : r;
}

/* add: into the live filter (and exact copy) in place: Bloom inserts only set bits. */
static int add_blocked(struct attachment *att, struct add_op *a)
{
	const struct entry *parsed = a->parsed.e;
	struct bitcounts counts = {};
	struct live_filter lf;
	int done, ret, n = a->parsed.n;
	__u64 added;

	ret = live_filter_open(att, true, &lf);
	if (ret) {
		log_error("cannot open the live filter of %s: %s", att->ifname, strerror(-ret));
		goto cleanup;
	}
	/* The state as add_live() found it, journaling the entries. */
	ret = add_check_room(att, &lf.f, &lf.st, parsed, n, &added, &a->state.sd);
	if (!ret)
		ret = add_mark_public(att, lf.slot, parsed, n);
	if (ret)
		goto cleanup;
	add_counts_open(&lf.f, lf.st.generation, &a->state.sd, &counts);
	ret = add_inserts(att, &lf, parsed, n, &done, &a->r->inserted);
	if (ret < 0 && done < n)
		log_error("%s: %s; 'bloomxdp load' the whole list to re-plan the prefix lengths%s",
			  a->entries[a->parsed.arg[done]],
			  ret == -ENOSPC ? "a new prefix length, and all 8 are taken" :
			  ret == -E2BIG ? "its expansion to the probed lengths is too large" :
			  strerror(-ret), done ? " (the entries before it were added)" : "");
	if (attachment_write_state(att, lf.slot, &lf.st))
		log_warn("entries added, but the entry count could not be saved");
	if (ret < 0)
		goto cleanup;
	a->r->added = true;
	a->r->entries = n;
	warn_unmatched_kinds(&lf.f, &att->config, att->ifname);
	ret = attachment_check_enforced(att);
cleanup:
	if (counts.hdr && bitcounts_sync(&counts))
		log_warn("the counters of del could not be saved: 'bloomxdp load' the list "
			 "before deleting from it");
	bitcounts_free(&counts);
	live_filter_close(&lf);
	return ret;
}

/* add --list: into the named list's live copy, before the union: a hit is then its. */
static int add_named(struct attachment *att, const struct list_opts *o,
		     const struct parsed_args *p)
{
	struct named_view v;
	struct named_copy x;
	size_t i;
	int id, ret;

	named_copy_init(&x, &att->config);
	ret = named_view_read(att, &v);
	id = ret ? ret : named_view_find(&v, o->list);
	if (id < 0) {
		log_error("cannot open list %s of %s: %s; nothing was added", o->list, att->ifname,
			  strerror(-id));
		return id;
	}
	ret = named_list_open(att, &v, id, &x);
	for (i = 0; i < p->n && ret >= 0; i++)
		ret = named_copy_add(&x, &p->e[i]);
	v.list[id].has |= x.has;
	named_copy_close(&x);
	/* Its key map is full: the list is rebuilt with room (add_rebuild()). */
	if (ret == -EOVERFLOW)
		return ret;
	if (ret < 0) {
		log_error("cannot add to list %s of %s: %s; load it again", o->list, att->ifname,
			  ret == -ENOSPC ? "it is full" : strerror(-ret));
		return ret;
	}
	v.list[id].entries += p->n;
	if (bpf_map_update_elem(att->lists_fd, &id, &v.list[id], BPF_ANY))
		log_warn("the entry count of list %s could not be saved", o->list);
	return 0;
}

/* The default list holds entries: a hit no named list holds is then its (common.h). */
static void default_present(const struct attachment *att)
{
	__u32 which = BLOOMXDP_ACTIVE_LISTS, present;

	if (!bpf_map_lookup_elem(att->active_fd, &which, &present) &&
	    !(present & BLOOMXDP_LIST_DEFAULT_PRESENT)) {
		present |= BLOOMXDP_LIST_DEFAULT_PRESENT;
		bpf_map_update_elem(att->active_fd, &which, &present, BPF_ANY);
	}
}

/*
 * add --list NAME of a list the state does not record: loaded from the
 * entries, as 'load --list' would (then 1), with attach's action.
 */
static int named_make(struct add_op *a)
{
	const struct list_opts *o = a->o;
	list_name_t names[BLOOMXDP_MAX_LISTS + 1];
	struct list_opts lo = { .format = o->format, .list = o->list,
				.allow_public_suffix = o->allow_public_suffix,
				.allow_wide = o->allow_wide,
				.prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
				.state_dir = o->state_dir };
	char path[] = "/tmp/bloomxdp-add.XXXXXX", *files[] = { path };
	int i, nlists, fd, ret;
	FILE *f;

	ret = op_state_get(&a->state);
	if (!ret)
		ret = named_lists_recorded(&a->state.sd, names, &nlists);
	for (i = 0; !ret && i < nlists; i++)
		if (!strcmp(names[i], o->list))
			return 0;
	if (ret && ret != -ENOENT)
		return ret;
	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		log_error("cannot write a temporary file: %s; nothing was added", strerror(-ret));
		goto out;
	}
	for (i = 0; i < a->n; i++)
		fprintf(f, "%s\n", a->entries[i]);
	ret = fclose(f) ? -errno : 0;
	if (!ret) {
		a->r->making = true;
		ret = list_load(a->ifname, &lo, files, 1, &a->r->load);
	}
	ret = ret ? ret : 1;
out:
	if (fd >= 0)
		unlink(path);
	return ret;
}

/*
 * add past the room of the live filter: the list as the state recorded it
 * (its copies and journal) and these entries, loaded into a new generation
 * sized for them all and swapped in, as load does. The entries are on the
 * journal already (list_add()), and come off it if this fails.
 */
static int add_rebuild(struct attachment *att, struct add_op *a, bool journaled)
{
	struct list_opts lo = {
		.format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
	};
	struct list_inputs in = { .sd = { -1, -1 } };
	int ret;

	a->r->rebuilding = true;
	if (!journaled) {
		log_error("%s has no state to rebuild its filter from; nothing was added: load "
			  "the whole list with them", att->ifname);
		return -ENOENT;
	}
	ret = list_inputs_state_at(&in, &a->state.sd, STATE_BLOCK, true, true, &lo);
	if (!ret) {
		/* Checked when it was loaded; its journal may be all that is left of it. */
		lo.allow_empty = true;
		lo.state_dir = a->o->state_dir;
		ret = list_load_inputs(att, &lo, &in, &a->r->load);
	}
	if (ret)
		log_error("nothing was added to %s", att->ifname);
	list_inputs_free(&in);
	free(lo.where.items);
	return ret;
}

/* --timeout: its deadline; refused for the allowlist, and without a state to keep it in. */
static int timeout_check(struct add_op *a, __u64 *deadline)
{
	const struct list_opts *o = a->o;
	char most[24];
	struct timespec now;
	int ret;

	/* The command line bounds it (OPT_DURATION); a caller of the library is held to the same. */
	if (o->timeout > DURATION_MAX_S) {
		log_error("--timeout %llus: expected a duration such as " DURATION_EXAMPLES " (at "
			  "most %s); nothing was added", (unsigned long long)o->timeout,
			  duration_text(DURATION_MAX_S, most, sizeof(most)));
		return -EINVAL;
	}
	if (o->allow) {
		log_error("--timeout: allowlist entries do not expire; nothing was added");
		return -EINVAL;
	}
	ret = op_state_get(&a->state);
	if (ret) {
		log_error("--timeout needs the state of %s, where deadlines are kept (%s); "
			  "nothing was added", a->ifname, ret == -ENOENT ? "there is none" :
			  strerror(-ret));
		return ret;
	}
	/* Rounded up: an entry never leaves before its time. */
	clock_gettime(CLOCK_REALTIME, &now);
	*deadline = now.tv_sec + (now.tv_nsec > 0) + o->timeout;
	return 0;
}

/* Into the live list of an open attachment, journaled first: all or nothing. */
static int add_live(struct attachment *att, struct add_op *a)
{
	const struct list_opts *o = a->o;
	bool named_full = false, journaled;
	off_t before = 0;
	int ret, r;

	/* The state first, durably: an add it cannot record is not made (then nothing is). */
	r = op_state_get(&a->state);
	if (!r)
		r = list_state_journal(&a->state.sd, o, a->entries, a->n, &before);
	journaled = !r;
	if (r && r != -ENOENT) {
		log_error("the state of %s cannot record the entries (see above): nothing was "
			  "added; free space there (or fix the error) and add them again",
			  a->ifname);
		return r;
	}
	ret = 0;
	if (o->list) {
		ret = add_named(att, o, &a->parsed);
		named_full = ret == -EOVERFLOW;
		if (named_full)
			ret = 0;
	}
	if (!ret)
		ret = o->allow ? add_allowed(att, &a->parsed, a->r) : add_blocked(att, a);
	if (!ret && named_full)
		ret = -EOVERFLOW;	/* rebuilt below, with room */
	if (!ret && !o->allow && !o->list)
		default_present(att);
	if (ret == -EOVERFLOW)
		ret = add_rebuild(att, a, journaled);
	if (ret && journaled)
		list_state_unjournal(&a->state.sd, o, before);
	return ret;
}

void add_result_init(struct add_result *r, const char *ifname, const struct list_opts *o, int n)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	snprintf(r->list, sizeof(r->list), "%s", o->list ? o->list : "");
	r->n = n;
	load_result_init(&r->load, ifname);
}

int list_add(const char *given, const struct list_opts *o, char **entries, int n,
	     struct add_result *r)
{
	char ifname[IF_NAMESIZE];
	struct add_op a = { .ifname = ifname, .o = o, .entries = entries, .n = n, .r = r,
			    .state = { .ifname = ifname, .state_dir = o->state_dir } };
	struct attachment att;
	__u64 deadline = 0;
	bool made = false;
	int ret, rr;

	/* A group's member: its lists are its home's (attach IF1 IF2 ...). */
	attachment_home(given, ifname);

	add_result_init(r, ifname, o, n);
	ret = parse_entries(entries, n, o, &a.parsed);
	if (!ret && o->timeout)
		ret = timeout_check(&a, &deadline);
	if (!ret && o->list) {
		ret = named_make(&a);
		made = ret == 1;
		if (made)
			ret = 0;
	}
	if (!ret && !made) {
		ret = attachment_open(ifname, true, &att);
		if (!ret) {
			ret = add_live(&att, &a);
			attachment_close(&att);
		}
	}
	if (!ret && !o->allow) {
		rr = op_state_get(&a.state);
		if (!rr)
			rr = expiry_record(&a.state.sd, o->list, entries, n, deadline);
		if (rr && rr != -ENOENT)
			log_warn("the entries are in the live list of %s, but their timeout could "
				 "not be recorded: 'bloomxdp del' them when due", ifname);
	}
	op_state_close(&a.state);
	parsed_args_free(&a.parsed);
	return ret;
}
