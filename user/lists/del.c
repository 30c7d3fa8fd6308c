// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * del: entries out of the live list, in place, and out of its state. The
 * Bloom filter's bits are cleared through the counting filter (bitcounts.h),
 * each only when no other key still counts on it; families held as exact
 * intervals get a new intervals array without the entry, as add does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel/attachment.h"
#include "lists/bitcounts.h"
#include "filter/entry_keys.h"
#include "filter/layout.h"
#include "lists/build.h"
#include "lists/expiry.h"
#include "lists/lists.h"
#include "util/log.h"
#include "parse/prefixes.h"

/* What the state holds of the entries to delete, read in one pass over it. */
struct del_scan {
	const struct parsed_args *p;
	char **args;			/* as given, for messages */
	struct entry_set wanted;	/* p's entries */
	__u64 *in_copies;		/* per entry of p: how often the copies list it */
	__u64 *in_journals;		/* and the journals */
	bool copy;			/* reading a copy: what del took out is skipped */
	const struct entry_set *deleted;
	/* The families held in exact intervals: every other entry of theirs, kept. */
	bool ranged[2];
	struct range_set ranges[2];
	/* The copies' index (del_index): used instead of reading them, or made as they are read. */
	bool use_index;
	__u64 *fps;			/* INDEX_HEADER_WORDS, then one per entry of the copies */
	size_t nfps, fcap;
	bool oom;
};

/*
 * The index of a list's copies, "<which>-<serial>.index": a header, then the
 * fingerprint (entry_fingerprint()) of every entry of the copies, sorted. Made
 * by the first del of a load (which reads the copies whole), mmap-ed by the
 * next ones: a delete then reads a few pages and the journals, not the list.
 */
#define INDEX_MAGIC "bloomxdp-index"
#define INDEX_HEADER_WORDS 4	/* magic (2 words), serial, count */

struct del_index {
	const __u64 *fp;
	size_t n;
	void *map;
	size_t bytes;
};

static void index_name(const struct list_inputs *in, char name[STATE_NAME_MAX])
{
	snprintf(name, STATE_NAME_MAX, "%s-%llu.index", in->which, in->list.serial);
}

static int index_open(struct list_inputs *in, struct del_index *x)
{
	char name[STATE_NAME_MAX];
	struct stat st;
	const __u64 *h;
	int fd, ret = 0;

	memset(x, 0, sizeof(*x));
	index_name(in, name);
	fd = state_open_file(&in->sd, name);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || st.st_size < INDEX_HEADER_WORDS * 8) {
		ret = -EINVAL;
		goto out;
	}
	x->map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (x->map == MAP_FAILED) {
		x->map = NULL;
		ret = -errno;
		goto out;
	}
	x->bytes = st.st_size;
	h = x->map;
	if (memcmp(h, INDEX_MAGIC, sizeof(INDEX_MAGIC)) || h[2] != in->list.serial ||
	    (__u64)st.st_size != (INDEX_HEADER_WORDS + h[3]) * 8) {
		munmap(x->map, x->bytes);
		x->map = NULL;
		ret = -EINVAL;
		goto out;
	}
	x->fp = h + INDEX_HEADER_WORDS;
	x->n = h[3];
out:
	close(fd);
	return ret;
}

static void index_close(struct del_index *x)
{
	if (x->map)
		munmap(x->map, x->bytes);
	memset(x, 0, sizeof(*x));
}

/* How many entries of the copies have this fingerprint. */
static __u64 index_count(const struct del_index *x, __u64 fp)
{
	size_t lo = 0, hi = x->n, mid, n = 0;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x->fp[mid] < fp)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n && x->fp[lo] == fp; lo++)
		n++;
	return n;
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The index of what the scan read of the copies; without it, del reads them again. */
static void index_write(struct list_inputs *in, struct del_scan *s)
{
	char name[STATE_NAME_MAX];
	size_t n = s->nfps - INDEX_HEADER_WORDS;

	if (s->oom || !s->fps)
		return;
	qsort(s->fps + INDEX_HEADER_WORDS, n, sizeof(__u64), u64_cmp);
	memset(s->fps, 0, 2 * sizeof(__u64));
	memcpy(s->fps, INDEX_MAGIC, sizeof(INDEX_MAGIC));
	s->fps[2] = in->list.serial;
	s->fps[3] = n;
	index_name(in, name);
	if (state_write(&in->sd, name, s->fps, s->nfps * sizeof(__u64)))
		log_warn("the index of the list could not be saved: the next del reads the list "
			 "again");
}

static void collect_fp(struct del_scan *s, const struct entry *e)
{
	__u64 *grown;

	if (s->oom)
		return;
	if (s->nfps == s->fcap) {
		s->fcap = s->fcap ? s->fcap * 2 : 1 << 16;
		grown = realloc(s->fps, s->fcap * sizeof(__u64));
		if (!grown) {
			s->oom = true;
			return;
		}
		s->fps = grown;
		if (!s->nfps)
			s->nfps = INDEX_HEADER_WORDS;
	}
	s->fps[s->nfps++] = entry_fingerprint(e);
}

static int scan_entry(const struct entry *e, void *ctx)
{
	struct del_scan *s = ctx;
	long idx;
	int fam;

	if (s->copy && !s->use_index)
		collect_fp(s, e);
	if (s->copy && entry_set_has(s->deleted, e))
		return 0;
	idx = entry_set_find(&s->wanted, e);
	if (idx >= 0) {
		(s->copy ? s->in_copies : s->in_journals)[idx]++;
		return 0;
	}
	if (e->kind != ENTRY_ADDR || e->allow)
		return 0;
	fam = key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1;
	return s->ranged[fam] ? range_set_add_key(&s->ranges[fam], &e->addr) : 0;
}

/* Reads the list as the state records it, as the load read it. */
static int del_scan_run(struct list_inputs *in, const struct list_opts *lo, struct del_scan *s)
{
	struct list_read_opts ro = { 0 };
	char err[LIST_ERROR_LEN];
	struct csv_spec csv;
	const char *why;
	int i, ret = 0;

	s->deleted = &in->deleted;
	for (i = 0; i < in->n && !ret; i++) {
		const struct list_opts *so = in->in[i].opts ? in->in[i].opts : lo;

		if (csv_spec_parse(so->column, so->where.items, so->where.count, &csv, &why)) {
			log_error("%s: %s", in->in[i].name, why);
			return -EINVAL;
		}
		ro.csv = &csv;
		ro.lenient = so->lenient;
		ro.format = in->in[i].format;
		s->copy = i < in->list.nsources;
		if (s->copy && s->use_index)
			continue;
		if (lseek(in->in[i].fd, 0, SEEK_SET))
			return -errno;
		ret = list_read_fd(in->in[i].fd, in->in[i].name, &ro, scan_entry, s, err);
		if (ret)
			log_error("%s", err[0] ? err : strerror(-ret));
	}
	return ret;
}

/*
 * The journals without the lines of the entries deleted, made before anything
 * changes: -EINVAL when a line holds some of them only (a range).
 */
struct journal_edit {
	char name[STATE_NAME_MAX];
	char *text;
	size_t len;
	bool changed;
};

static int journals_edit(struct list_inputs *in, const struct entry_set *wanted,
			 struct journal_edit **out, int *nout)
{
	struct parsed_args p = {};
	struct journal_edit *j;
	char *text, *line, *save;
	const char *base;
	size_t len, i, hit;
	FILE *f;
	int k, ret = 0;

	*nout = in->n - in->list.nsources;
	*out = j = calloc(*nout ? *nout : 1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	for (k = 0; k < *nout && !ret; k++) {
		base = strrchr(in->in[in->list.nsources + k].name, '/');
		snprintf(j[k].name, sizeof(j[k].name), "%s", base ? base + 1 : "");
		/* Its records checked; written back as one (del_record()). */
		ret = state_journal_read(&in->sd, j[k].name, in->list.legacy, &text, &len);
		if (ret)
			break;
		j[k].changed = in->list.legacy;
		f = open_memstream(&j[k].text, &j[k].len);
		if (!f) {
			free(text);
			return -ENOMEM;
		}
		for (line = strtok_r(text, "\n", &save); line && !ret;
		     line = strtok_r(NULL, "\n", &save)) {
			p.n = 0;
			if (parse_arg(line, in->in[in->list.nsources + k].format, &p, "")) {
				fprintf(f, "%s\n", line);	/* kept as it was */
				continue;
			}
			for (i = hit = 0; i < p.n; i++)
				hit += entry_set_has(wanted, &p.e[i]);
			if (hit && hit < p.n) {
				log_error("%s was added with other entries as '%s': delete '%s' "
					  "whole; nothing was deleted", in->sd.path, line, line);
				ret = -EINVAL;
			} else if (hit) {
				j[k].changed = true;
			} else {
				fprintf(f, "%s\n", line);
			}
		}
		if (fclose(f) && !ret)
			ret = -ENOMEM;
		free(text);
	}
	parsed_args_free(&p);
	return ret;
}

static void journals_free(struct journal_edit *j, int n)
{
	int i;

	for (i = 0; j && i < n; i++)
		free(j[i].text);
	free(j);
}

/* The state after the live list changed: journals rewritten, copies' deletions appended. */
static int del_record(struct list_inputs *in, struct journal_edit *j, int nj,
		      const struct del_scan *s, char **entries)
{
	char name[STATE_NAME_MAX], *text = NULL;
	size_t len = 0, i;
	off_t before;
	FILE *f;
	int k, ret = 0;

	for (k = 0; k < nj && !ret; k++) {
		char *record;
		size_t rlen;

		if (!j[k].changed)
			continue;
		record = state_journal_record(j[k].text, j[k].len, &rlen);
		ret = !record ? -ENOMEM : state_write(&in->sd, j[k].name, j[k].len ? record : "",
						      j[k].len ? rlen : 0);
		free(record);
	}
	if (ret)
		return ret;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	/* Each argument once, when one of its entries is in a copy. */
	for (i = 0; i < s->p->n; i++)
		if (s->in_copies[i] && (!i || s->p->arg[i] != s->p->arg[i - 1]))
			fprintf(f, "%s\n", entries[s->p->arg[i]]);
	if (fclose(f))
		return -ENOMEM;
	state_deleted_name(in->which, in->list.serial, name, sizeof(name));
	if (len)
		ret = state_append(&in->sd, name, text, &before);
	free(text);
	return ret;
}

/* The prefix lengths probed now, as the counters' load planned them: keys where they were. */
static bool lengths_as_counted(const struct filter *f, const struct bitcounts *c,
			       const struct entry *e)
{
	if (e->kind != ENTRY_ADDR || key_prefix_len(&e->addr) == key_width(&e->addr))
		return true;
	return filter_header_word(f, BLOOMXDP_HDR_V4_LENGTHS) == c->hdr->v4_lengths &&
	       filter_header_word(f, BLOOMXDP_HDR_V6_LENGTHS) == c->hdr->v6_lengths;
}

/* The families in intervals that lose entries: their new arrays, live in one update each. */
static int del_ranges(struct attachment *att, __u32 slot, struct del_scan *s)
{
	int fam, fd, ret = 0;

	for (fam = 0; fam < 2 && !ret; fam++) {
		if (!s->ranged[fam])
			continue;
		range_set_merge(&s->ranges[fam]);
		fd = range_set_create_map(&s->ranges[fam]);
		if (fd < 0)
			return fd;
		if (bpf_map_update_elem(fam ? att->ranges_v6_fd : att->ranges_v4_fd, &slot, &fd,
					BPF_ANY))
			ret = -errno;
		close(fd);
	}
	return ret;
}

static int del_blocked(struct attachment *att, struct list_inputs *in, struct del_scan *s,
		       const char *state_dir, __u64 *cleared)
{
	struct filter f = { .map_fd = -1 };
	struct bloomxdp_state st = {};
	struct bitcounts counts = {};
	struct exact_set live;
	struct state_dir sd = { .root_fd = -1, .fd = -1 };
	char why[512];
	size_t i, n = s->p->n;
	__u64 t, times;
	int ret, fam;
	__u32 slot;

	exact_set_init(&live);
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = filter_open(att->filter_fd, slot, &att->config, &f);
	/*
	 * The live generation's exact copy, if its load made one (--verify), kept
	 * whole even under --verify off: attach --force may turn the stage on again.
	 */
	if (!ret && exact_outer_has(&att->verify, slot))
		ret = exact_set_open(&att->verify, slot, &live);
	if (!ret)
		ret = attachment_read_state(att, slot, &st);
	if (ret) {
		log_error("cannot open the live filter of %s: %s", att->ifname, strerror(-ret));
		goto cleanup;
	}
	if (in->list.generation != st.generation) {
		log_error("the state of %s records another generation than the live one (a load "
			  "did not complete its state write): 'bloomxdp load' the list again; nothing "
			  "was deleted", att->ifname);
		ret = -ESTALE;
		goto cleanup;
	}
	ret = state_open(state_root(state_dir), att->ifname, false, &sd);
	if (!ret)
		ret = bitcounts_map(&counts, sd.fd, f.layout, f.bits, f.hashes, st.generation);
	if (ret) {
		log_error("%s has no counters of its live filter (%s): 'bloomxdp load' the list "
			  "again, which builds them; nothing was deleted", att->ifname,
			  ret == -ENOENT || ret == -ESTALE ? "loaded by an older bloomxdp, or "
			  "without a state" : strerror(-ret));
		goto cleanup;
	}
	f.counts = &counts;
	/* Checked whole before a bit changes: all deleted, or nothing. */
	for (i = 0; i < n && !ret; i++) {
		if (entry_ranged_family(&f, &s->p->e[i]) >= 0)
			continue;
		if (!lengths_as_counted(&f, &counts, &s->p->e[i]))
			ret = -ERANGE;
		else
			ret = blocklist_remove(&f, &s->p->e[i], true, NULL);
	}
	if (ret) {
		log_error("the counters of %s do not hold %s (%s): 'bloomxdp load' the list "
			  "without it; nothing was deleted", att->ifname, s->args[s->p->arg[i - 1]],
			  ret == -ERANGE ? "an add planned new prefix lengths since the load" :
			  "added before the counters were kept");
		goto cleanup;
	}
	/* The exact copy first, in batches: the entries stop matching, the rest still do. */
	if (live.names_fd >= 0)
		ret = exact_set_remove_many(&live, att->config.hash_key, s->p->e, n);
	for (i = 0; i < n && !ret; i++) {
		fam = entry_ranged_family(&f, &s->p->e[i]);
		times = s->in_copies[i] + s->in_journals[i];
		/* A listed key counted once per time it was inserted: each one undone. */
		for (t = 0; fam < 0 && t < times && !ret; t++)
			ret = blocklist_remove(&f, &s->p->e[i], false, cleared);
		if (ret)
			break;
		st.entries -= st.entries >= times ? times : st.entries;
	}
	/* The exact copy's intervals without the deleted prefixes. */
	if (!ret && live.names_fd >= 0)
		ret = exact_set_update_live(&att->verify, slot, &live);
	if (!ret)
		ret = del_ranges(att, slot, s);
	if (ret) {
		log_error("cannot delete from the live list of %s: %s; 'bloomxdp load' the list "
			  "to be sure of what it holds", att->ifname, strerror(-ret));
		unlinkat(sd.fd, BITCOUNTS_FILE, 0);
		goto cleanup;
	}
	if (attachment_write_state(att, slot, &st))
		log_warn("entries deleted, but the entry count could not be saved");
	if (bitcounts_sync(&counts)) {
		log_warn("the counters of %s could not be saved: 'bloomxdp load' the list before "
			 "deleting again", att->ifname);
		unlinkat(sd.fd, BITCOUNTS_FILE, 0);
	}
	for (i = 0; i < n; i++)
		if (entry_ranged_family(&f, &s->p->e[i]) < 0 &&
		    (live.names_fd < 0 || att->config.verify == BLOOMXDP_VERIFY_OFF) &&
		    blocklist_lookup(&f, &s->p->e[i], why, sizeof(why)))
			log_warn("%s: deleted, but still matched by the filter: its bits are "
				 "shared with other keys or saturated (a false positive now; "
				 "attach --verify refuses it)", s->args[s->p->arg[i]]);
cleanup:
	bitcounts_free(&counts);
	state_close(&sd);
	exact_set_close(&live);
	filter_close(&f);
	return ret;
}

static int del_allowed(struct attachment *att, struct del_scan *s)
{
	struct exact_set allow;
	__u32 slot;
	size_t i;
	int ret;

	exact_set_init(&allow);
	ret = attachment_active(att, BLOOMXDP_ACTIVE_ALLOW, &slot);
	if (!ret)
		ret = exact_set_open(&att->allow, slot, &allow);
	for (i = 0; i < s->p->n && !ret; i++)
		ret = exact_set_remove(&allow, att->config.hash_key, &s->p->e[i]);
	if (ret)
		log_error("cannot delete from the allowlist of %s: %s", att->ifname,
			  strerror(-ret));
	exact_set_close(&allow);
	return ret;
}

static int parse_del(char **args, int n, const struct list_opts *o, struct parsed_args *p)
{
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		p->current = i;
		if (parse_arg(args[i], o->format, p, "; nothing was deleted"))
			bad++;
	}
	return bad ? -EINVAL : 0;
}

/* The entries of p whose keep is set, in order; the rest dropped. */
static void parsed_keep(struct parsed_args *p, const bool *keep, __u64 *a, __u64 *b)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++) {
		if (!keep[i])
			continue;
		p->e[n] = p->e[i];
		p->arg[n] = p->arg[i];
		if (a)
			a[n] = a[i];
		if (b)
			b[n] = b[i];
		n++;
	}
	p->n = n;
}

/* The set of p's entries, each once (an entry given twice is deleted once). */
static int wanted_build(struct parsed_args *p, struct entry_set *w)
{
	bool *keep;
	size_t i;
	int ret = 0;

	entry_set_free(w);
	for (i = 0; i < p->n && !ret; i++)
		ret = entry_set_add(w, &p->e[i]);
	if (ret)
		return ret;
	entry_set_sort(w);
	keep = calloc(p->n ? p->n : 1, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (i = 0; i < p->n; i++)
		keep[i] = entry_set_find(w, &p->e[i]) == (long)i;
	for (i = 0; i < p->n && keep[i]; i++)
		;
	if (i < p->n) {
		parsed_keep(p, keep, NULL, NULL);
		ret = wanted_build(p, w);
	}
	free(keep);
	return ret;
}

int list_del(const char *ifname, const struct list_opts *o, char **entries, int n)
{
	struct list_opts lo = { .format = FORMAT_AUTO };
	struct list_inputs in = { .sd = { -1, -1 } };
	struct parsed_args parsed = {};
	struct journal_edit *journals = NULL;
	struct del_scan s = {};
	struct del_index index = {};
	struct attachment att;
	bool opened = false, *keep = NULL;
	char which[STATE_NAME_MAX];
	__u64 cleared = 0;
	int i, nj = 0, missing = 0, ret;

	/* A named list: out of its state, then every list rebuilt from the state. */
	if (o->list && !o->state_only) {
		struct list_opts so = *o;

		so.state_only = true;
		ret = list_del(ifname, &so, entries, n);
		if (!ret)
			ret = list_rebuild(ifname, o->state_dir);
		if (!ret)
			printf("deleted %d entr%s from list %s of %s\n", n, n == 1 ? "y" : "ies",
			       o->list, ifname);
		else if (ret != -ENOENT && ret != -EINVAL)
			log_error("the entries are out of the state of list %s, but not out of "
				  "the live list of %s: load the list again", o->list, ifname);
		return ret;
	}
	range_set_init(&s.ranges[0], BLOOMXDP_KEY_IPV4);
	range_set_init(&s.ranges[1], BLOOMXDP_KEY_IPV6);
	ret = parse_del(entries, n, o, &parsed);
	if (!ret)
		ret = wanted_build(&parsed, &s.wanted);
	if (ret)
		goto out;
	if (!o->state_only) {
		ret = attachment_open(ifname, true, &att);
		if (ret)
			goto out;
		opened = true;
	}
	if (opened && !o->allow && att.config.layout == BLOOMXDP_LAYOUT_KERNEL) {
		log_error("%s uses layout kernel: a BPF_MAP_TYPE_BLOOM_FILTER cannot delete; "
			  "attach with another layout (--layout blocked), or 'load' the list "
			  "without the entries", ifname);
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = list_inputs_state_which(&in, ifname, o->state_dir, list_opts_which(o, which), true,
				      false, &lo);
	if (ret == -ENOENT)
		log_error("%s has no state of its %s (its counters and copies live there): "
			  "'bloomxdp load' the list with a state directory, then delete; nothing "
			  "was deleted", ifname, o->allow ? "allowlist" : "list");
	if (ret)
		goto out;
	s.p = &parsed;
	s.args = entries;
	s.in_copies = calloc(parsed.n + 1, sizeof(__u64));
	s.in_journals = calloc(parsed.n + 1, sizeof(__u64));
	keep = calloc(parsed.n + 1, sizeof(*keep));
	ret = s.in_copies && s.in_journals && keep ? 0 : -ENOMEM;
	for (i = 0; i < (int)parsed.n && !ret; i++) {
		const struct entry *e = &parsed.e[i];

		if (opened && !o->allow && e->kind == ENTRY_ADDR)
			s.ranged[key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1] = true;
	}
	if (!ret && opened && !o->allow) {
		/* Only the families the live filter holds in intervals are rebuilt. */
		struct filter f = { .map_fd = -1 };
		__u32 slot;

		ret = attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &slot);
		if (!ret)
			ret = filter_open(att.filter_fd, slot, &att.config, &f);
		for (i = 0; i < 2 && !ret; i++)
			s.ranged[i] &= BLOOMXDP_IS_RANGES_WORD(filter_header_word(&f, i ?
					BLOOMXDP_HDR_V6_LENGTHS : BLOOMXDP_HDR_V4_LENGTHS));
		filter_close(&f);
	}
	/* The families in intervals are rebuilt from every other entry: the copies are read. */
	if (!ret && !s.ranged[0] && !s.ranged[1] && !index_open(&in, &index)) {
		s.use_index = true;
	} else if (!ret) {
		/* The copies are read: checked first, as restore reads them. */
		list_inputs_free(&in);
		free(lo.where.items);
		memset(&lo, 0, sizeof(lo));
		lo.format = FORMAT_AUTO;
		ret = list_inputs_state_which(&in, ifname, o->state_dir, list_opts_which(o, which),
					      true, true, &lo);
		if (!ret)
			entry_set_sort(&in.deleted);
	}
	if (!ret)
		ret = del_scan_run(&in, &lo, &s);
	if (ret)
		goto out;
	if (s.use_index) {
		for (i = 0; i < (int)parsed.n; i++)
			if (!entry_set_has(&in.deleted, &parsed.e[i]))
				s.in_copies[i] = index_count(&index,
							     entry_fingerprint(&parsed.e[i]));
	} else if (in.list.nsources) {
		index_write(&in, &s);
	}
	for (i = 0; i < (int)parsed.n; i++) {
		keep[i] = s.in_copies[i] + s.in_journals[i];
		if (keep[i])
			continue;
		missing++;
		/* An argument once, however many entries it makes; expiry skips them quietly. */
		if (o->lenient)
			log_debug("%s: no longer listed", entries[parsed.arg[i]]);
		else if (!i || parsed.arg[i] != parsed.arg[i - 1])
			log_error("%s: not in the %s of %s (as its state records it); nothing was "
				  "deleted", entries[parsed.arg[i]],
				  o->allow ? "allowlist" : "list", ifname);
	}
	if (missing && !o->lenient) {
		ret = -ENOENT;
		goto out;
	}
	if (missing) {
		parsed_keep(&parsed, keep, s.in_copies, s.in_journals);
		ret = wanted_build(&parsed, &s.wanted);
		if (ret || !parsed.n)
			goto out;
	}
	for (i = 0; i < 2; i++) {
		if (!s.ranged[i] || s.ranges[i].n)
			continue;
		/* An empty intervals array is no array: the family would leave them. */
		log_error("%s: the last %s entries of %s, held in exact intervals: 'bloomxdp load' "
			  "the list without them; nothing was deleted", ifname, i ? "IPv6" : "IPv4",
			  ifname);
		ret = -EINVAL;
		goto out;
	}
	ret = journals_edit(&in, &s.wanted, &journals, &nj);
	if (ret)
		goto out;
	if (opened)
		ret = o->allow ? del_allowed(&att, &s) :
				 del_blocked(&att, &in, &s, o->state_dir, &cleared);
	if (ret)
		goto out;
	if (del_record(&in, journals, nj, &s, entries)) {
		log_warn("the entries are out of the live list of %s, but its state still lists "
			 "them: restore would bring them back; delete them again after a load",
			 ifname);
		unlinkat(in.sd.fd, BITCOUNTS_FILE, 0);
	}
	/* A deleted entry has no deadline left: a load does not carry it. */
	if (!o->allow && expiry_forget(ifname, o->state_dir, o->list, entries, n) == -ENOMEM)
		log_warn("out of memory: the deleted entries keep their deadlines, and a load "
			 "would keep them until then; delete them again");
	if (o->state_only)
		goto out;
	printf("deleted %zu entr%s from the %s of %s", parsed.n, parsed.n == 1 ? "y" : "ies",
	       o->allow ? "allowlist" : "list", ifname);
	if (!o->allow)
		printf(" (%llu bits cleared)", (unsigned long long)cleared);
	printf("\n");
out:
	free(keep);
	index_close(&index);
	free(s.fps);
	journals_free(journals, nj);
	free(s.in_copies);
	free(s.in_journals);
	entry_set_free(&s.wanted);
	range_set_free(&s.ranges[0]);
	range_set_free(&s.ranges[1]);
	list_inputs_free(&in);
	free(lo.where.items);
	parsed_args_free(&parsed);
	if (opened)
		attachment_close(&att);
	return ret;
}
