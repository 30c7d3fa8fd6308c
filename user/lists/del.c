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
#include "lists/learned.h"
#include "lists/lists.h"
#include "lists/report.h"
#include "util/log.h"
#include "parse/prefixes.h"
#include "parse/keys.h"

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

/* Every entry taken out of the counters, checked whole before a bit changes: all, or nothing. */
static int del_check_counted(const struct attachment *att, struct filter *f,
			     const struct bitcounts *counts, const struct del_scan *s)
{
	size_t i, n = s->p->n;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		if (entry_ranged_family(f, &s->p->e[i]) >= 0)
			continue;
		if (!lengths_as_counted(f, counts, &s->p->e[i]))
			ret = -ERANGE;
		else
			ret = entry_keys_remove(f, &s->p->e[i], true, NULL);
	}
	if (ret)
		log_error("the counters of %s do not hold %s (%s): 'bloomxdp load' the list "
			  "without it; nothing was deleted", att->ifname, s->args[s->p->arg[i - 1]],
			  ret == -ERANGE ? "an add planned new prefix lengths since the load" :
			  "added before the counters were kept");
	return ret;
}

/* The entries out of the live filter (lf), its exact copy and intervals, in place. */
static int del_blocked(struct attachment *att, struct live_filter *lf, const struct list_inputs *in,
		       struct del_scan *s, const struct state_dir *sd, __u64 *cleared)
{
	struct bitcounts counts = {};
	char why[512];
	size_t i, n = s->p->n;
	__u64 t, times;
	int ret, fam;

	if (in->list.generation != lf->st.generation) {
		log_error("the state of %s records another generation than the live one (a load "
			  "did not complete its state write): 'bloomxdp load' the list again; nothing "
			  "was deleted", att->ifname);
		return -ESTALE;
	}
	ret = bitcounts_map(&counts, sd->fd, lf->f.layout, lf->f.bits, lf->f.hashes,
			    lf->st.generation);
	if (ret) {
		log_error("%s has no counters of its live filter (%s): 'bloomxdp load' the list "
			  "again, which builds them; nothing was deleted", att->ifname,
			  ret == -ENOENT || ret == -ESTALE ? "loaded by an older bloomxdp, or "
			  "without a state" : strerror(-ret));
		goto cleanup;
	}
	lf->f.counts = &counts;
	ret = del_check_counted(att, &lf->f, &counts, s);
	if (ret)
		goto cleanup;
	/* The exact copy first, in batches: the entries stop matching, the rest still do. */
	if (lf->exact.names_fd >= 0)
		ret = exact_set_remove_many(&lf->exact, att->config.hash_key, s->p->e, n);
	for (i = 0; i < n && !ret; i++) {
		fam = entry_ranged_family(&lf->f, &s->p->e[i]);
		times = s->in_copies[i] + s->in_journals[i];
		/* A listed key counted once per time it was inserted: each one undone. */
		for (t = 0; fam < 0 && t < times && !ret; t++)
			ret = entry_keys_remove(&lf->f, &s->p->e[i], false, cleared);
		if (ret)
			break;
		lf->st.entries -= lf->st.entries >= times ? times : lf->st.entries;
	}
	/* The exact copy's intervals without the deleted prefixes. */
	if (!ret && lf->exact.names_fd >= 0)
		ret = exact_set_update_live(&att->verify, lf->slot, &lf->exact);
	if (!ret)
		ret = del_ranges(att, lf->slot, s);
	if (ret) {
		log_error("cannot delete from the live list of %s: %s; 'bloomxdp load' the list "
			  "to be sure of what it holds", att->ifname, strerror(-ret));
		unlinkat(sd->fd, BITCOUNTS_FILE, 0);
		goto cleanup;
	}
	if (attachment_write_state(att, lf->slot, &lf->st))
		log_warn("entries deleted, but the entry count could not be saved");
	if (bitcounts_sync(&counts)) {
		log_warn("the counters of %s could not be saved: 'bloomxdp load' the list before "
			 "deleting again", att->ifname);
		unlinkat(sd->fd, BITCOUNTS_FILE, 0);
	}
	for (i = 0; i < n; i++)
		if (entry_ranged_family(&lf->f, &s->p->e[i]) < 0 &&
		    (lf->exact.names_fd < 0 || att->config.verify == BLOOMXDP_VERIFY_OFF) &&
		    entry_keys_lookup(&lf->f, &s->p->e[i], why, sizeof(why)))
			log_warn("%s: deleted, but still matched by the filter: its bits are "
				 "shared with other keys or saturated (a false positive now; "
				 "attach --verify refuses it)", s->args[s->p->arg[i]]);
cleanup:
	lf->f.counts = NULL;
	bitcounts_free(&counts);
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

/* A del: its entries, what the state holds of them, the live list it changes. */
/*
 * Addresses learned from DNS answers (load --learn): del deletes them from the
 * learned map too, after the lists. An argument only learned is no error.
 */
struct del_learned {
	bool *arg;		/* per argument: an unexpired learned address */
	int nargs;
	int n;			/* learned ones */
	bool none_listed;	/* every argument the state does not list was learned */
};

/* Which arguments are learned addresses (key_parse: quiet; del says what else is wrong). */
static int learned_args(const char *ifname, char **entries, int n, struct del_learned *dl)
{
	struct bloomxdp_learn_key k;
	struct attachment att;
	struct learned_view v;
	struct bloomxdp_key key;
	const char *why;
	int i, ret;

	dl->arg = calloc(n + 1, sizeof(*dl->arg));
	if (!dl->arg)
		return -ENOMEM;
	dl->nargs = n;
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (!key_parse(entries[i], &key, &why) && !learned_key_of(&key, &k) &&
		    !learned_find(att.learned_fd, &k, &v)) {
			dl->arg[i] = true;
			dl->n++;
		}
	attachment_close(&att);
	return 0;
}

/* After the lists: the learned ones out of the learned map; *deleted: how many. */
static void learned_delete(const char *ifname, char **entries, const struct del_learned *dl,
			   __u64 *deleted)
{
	struct bloomxdp_learn_key k;
	struct attachment att;
	struct bloomxdp_key key;
	const char *why;
	int i;

	*deleted = 0;
	if (!dl->n || attachment_open(ifname, false, &att))
		return;
	for (i = 0; i < dl->nargs; i++) {
		if (!dl->arg[i] || key_parse(entries[i], &key, &why) || learned_key_of(&key, &k))
			continue;
		if (!bpf_map_delete_elem(att.learned_fd, &k))
			(*deleted)++;
		else if (errno != ENOENT)
			log_warn("%s: cannot delete its learned entry of %s: %s", entries[i],
				 ifname, strerror(errno));
	}
	attachment_close(&att);
}

struct del_op {
	const char *ifname;
	const struct list_opts *o;
	char **entries;
	int n;
	struct op_state *state;		/* opened once, when first needed */
	struct list_opts lo;		/* the options the list was loaded with */
	struct list_inputs in;
	struct parsed_args parsed;
	struct del_scan s;
	struct del_index index;
	struct attachment att;
	bool opened;			/* att: not with state_only */
	struct live_filter lf;		/* of att, but for the allowlist */
	bool live;			/* lf opened */
	bool *keep;
	__u64 cleared;
	struct del_learned *learned;	/* NULL: not looked for (the allowlist, expiry) */
};

/* The list as its state records it, read with the options it was loaded with. */
static int del_inputs(struct del_op *d, bool check_copies)
{
	char which[STATE_NAME_MAX];
	int ret;

	list_inputs_free(&d->in);
	free(d->lo.where.items);
	memset(&d->lo, 0, sizeof(d->lo));
	d->lo.format = FORMAT_AUTO;
	ret = op_state_get(d->state);
	return ret ? ret : list_inputs_state_at(&d->in, &d->state->sd,
						list_opts_which(d->o, which), true, check_copies,
						&d->lo);
}

/* The entries parsed, the attachment and the live filter open, the state's list read. */
static int del_begin(struct del_op *d)
{
	const struct list_opts *o = d->o;
	int ret;

	ret = parse_del(d->entries, d->n, o, &d->parsed);
	if (!ret)
		ret = wanted_build(&d->parsed, &d->s.wanted);
	if (ret || o->state_only)
		return ret;
	ret = attachment_open(d->ifname, true, &d->att);
	if (ret)
		return ret;
	d->opened = true;
	if (o->allow)
		return 0;
	if (d->att.config.layout == BLOOMXDP_LAYOUT_KERNEL) {
		log_error("%s uses layout kernel: a BPF_MAP_TYPE_BLOOM_FILTER cannot delete; "
			  "attach with another layout (--layout blocked), or 'load' the list "
			  "without the entries", d->ifname);
		return -EOPNOTSUPP;
	}
	ret = live_filter_open(&d->att, true, &d->lf);
	d->live = true;
	if (ret)
		log_error("cannot open the live filter of %s: %s", d->ifname, strerror(-ret));
	return ret;
}

/* What the state holds of the entries: the copies' index, or the copies read, and journals. */
static int del_scan(struct del_op *d)
{
	struct del_scan *s = &d->s;
	size_t i;
	int ret, fam;

	s->p = &d->parsed;
	s->args = d->entries;
	s->in_copies = calloc(d->parsed.n + 1, sizeof(__u64));
	s->in_journals = calloc(d->parsed.n + 1, sizeof(__u64));
	d->keep = calloc(d->parsed.n + 1, sizeof(*d->keep));
	if (!s->in_copies || !s->in_journals || !d->keep)
		return -ENOMEM;
	/* Only the families the live filter holds in intervals are rebuilt. */
	for (i = 0; i < d->parsed.n && d->opened && !d->o->allow; i++)
		if (d->parsed.e[i].kind == ENTRY_ADDR)
			s->ranged[key_family(&d->parsed.e[i].addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1] =
				true;
	for (fam = 0; fam < 2 && d->opened && !d->o->allow; fam++)
		s->ranged[fam] &= BLOOMXDP_IS_RANGES_WORD(filter_header_word(&d->lf.f, fam ?
				  BLOOMXDP_HDR_V6_LENGTHS : BLOOMXDP_HDR_V4_LENGTHS));
	/* The families in intervals are rebuilt from every other entry: the copies are read. */
	if (!s->ranged[0] && !s->ranged[1] && !index_open(&d->in, &d->index)) {
		s->use_index = true;
	} else {
		/* The copies are read: checked first, as restore reads them. */
		ret = del_inputs(d, true);
		if (ret)
			return ret;
		entry_set_sort(&d->in.deleted);
	}
	ret = del_scan_run(&d->in, &d->lo, s);
	if (ret)
		return ret;
	if (s->use_index) {
		for (i = 0; i < d->parsed.n; i++)
			if (!entry_set_has(&d->in.deleted, &d->parsed.e[i]))
				s->in_copies[i] = index_count(&d->index,
							      entry_fingerprint(&d->parsed.e[i]));
	} else if (d->in.list.nsources) {
		index_write(&d->in, s);
	}
	return 0;
}

/*
 * The entries the state does not list: refused (nothing deleted), or with
 * --lenient (expiry) left out quietly; 1 when none is left to delete.
 */
static int del_missing(struct del_op *d)
{
	const struct list_opts *o = d->o;
	struct parsed_args *p = &d->parsed;
	int i, missing = 0, refused = 0, ret;
	bool learned;

	for (i = 0; i < (int)p->n; i++) {
		d->keep[i] = d->s.in_copies[i] + d->s.in_journals[i];
		if (d->keep[i])
			continue;
		missing++;
		/* An argument once, however many entries it makes; expiry skips them quietly. */
		learned = d->learned && d->learned->arg[p->arg[i]];
		if (o->lenient || learned) {
			log_debug("%s: %s", d->entries[p->arg[i]],
				  learned ? "learned, not listed" : "no longer listed");
			continue;
		}
		refused++;
		if (!i || p->arg[i] != p->arg[i - 1])
			log_error("%s: not in the %s of %s (as its state records it); nothing was "
				  "deleted", d->entries[p->arg[i]],
				  o->allow ? "allowlist" : "list", d->ifname);
	}
	if (refused)
		return -ENOENT;
	if (missing) {
		parsed_keep(p, d->keep, d->s.in_copies, d->s.in_journals);
		ret = wanted_build(p, &d->s.wanted);
		if (!ret && !p->n && d->learned)
			d->learned->none_listed = true;
		if (ret || !p->n)
			return ret ? ret : 1;
	}
	for (i = 0; i < 2; i++) {
		if (!d->s.ranged[i] || d->s.ranges[i].n)
			continue;
		/* An empty intervals array is no array: the family would leave them. */
		log_error("%s: the last %s entries of %s, held in exact intervals: 'bloomxdp load' "
			  "the list without them; nothing was deleted", d->ifname,
			  i ? "IPv6" : "IPv4", d->ifname);
		return -EINVAL;
	}
	return 0;
}

/* Out of the live list (unless state_only), then out of the state and the timeouts. */
static int del_apply(struct del_op *d)
{
	struct journal_edit *journals = NULL;
	const struct list_opts *o = d->o;
	int nj = 0, ret;

	ret = journals_edit(&d->in, &d->s.wanted, &journals, &nj);
	if (!ret && d->opened)
		ret = o->allow ? del_allowed(&d->att, &d->s) :
				 del_blocked(&d->att, &d->lf, &d->in, &d->s, &d->state->sd,
					     &d->cleared);
	if (ret)
		goto out;
	if (del_record(&d->in, journals, nj, &d->s, d->entries)) {
		log_warn("the entries are out of the live list of %s, but its state still lists "
			 "them: restore would bring them back; delete them again after a load",
			 d->ifname);
		unlinkat(d->in.sd.fd, BITCOUNTS_FILE, 0);
	}
	/* A deleted entry has no deadline left: a load does not carry it. */
	if (!o->allow && expiry_forget(&d->state->sd, o->list, d->entries, d->n) == -ENOMEM)
		log_warn("out of memory: the deleted entries keep their deadlines, and a load "
			 "would keep them until then; delete them again");
out:
	journals_free(journals, nj);
	return ret;
}

static void del_free(struct del_op *d)
{
	free(d->keep);
	index_close(&d->index);
	free(d->s.fps);
	free(d->s.in_copies);
	free(d->s.in_journals);
	entry_set_free(&d->s.wanted);
	range_set_free(&d->s.ranges[0]);
	range_set_free(&d->s.ranges[1]);
	list_inputs_free(&d->in);
	free(d->lo.where.items);
	parsed_args_free(&d->parsed);
	if (d->live)
		live_filter_close(&d->lf);
	if (d->opened)
		attachment_close(&d->att);
}

/* The entries out of the list o names (with state_only, out of its state alone). */
static int del_entries(const char *ifname, const struct list_opts *o, struct op_state *state,
		       char **entries, int n, struct del_learned *dl, struct del_result *r)
{
	struct del_op d = { .ifname = ifname, .o = o, .state = state, .entries = entries, .n = n,
			    .in = { .sd = { -1, -1 } }, .learned = dl };
	int ret;

	range_set_init(&d.s.ranges[0], BLOOMXDP_KEY_IPV4);
	range_set_init(&d.s.ranges[1], BLOOMXDP_KEY_IPV6);
	ret = del_begin(&d);
	if (!ret) {
		ret = del_inputs(&d, false);
		if (ret == -ENOENT)
			log_error("%s has no state of its %s (its counters and copies live there): "
				  "'bloomxdp load' the list with a state directory, then delete; "
				  "nothing was deleted", ifname, o->allow ? "allowlist" : "list");
	}
	if (!ret)
		ret = del_scan(&d);
	if (!ret)
		ret = del_missing(&d);
	if (!ret)
		ret = del_apply(&d);
	if (!ret && !o->state_only) {
		r->deleted = true;
		r->n = d.parsed.n;
		r->cleared = d.cleared;
	}
	del_free(&d);
	return ret == 1 ? 0 : ret;
}

/* A named list: out of its state, then every list rebuilt from the state. */
static int del_named(const char *ifname, const struct list_opts *o, struct op_state *state,
		     char **entries, int n, struct del_learned *dl, struct del_result *r)
{
	struct list_opts so = *o;
	int ret;

	so.state_only = true;
	ret = del_entries(ifname, &so, state, entries, n, dl, r);
	/* Only learned addresses: no list to rebuild. */
	if (!ret && dl && dl->none_listed)
		return 0;
	if (!ret)
		ret = list_rebuild(ifname, &state->sd, &r->load);
	if (!ret) {
		r->deleted = true;
		r->n = n;
	} else if (ret != -ENOENT && ret != -EINVAL) {
		log_error("the entries are out of the state of list %s, but not out of the live "
			  "list of %s: load the list again", o->list, ifname);
	}
	return ret;
}

int list_del(const char *given, const struct list_opts *o, char **entries, int n,
	     struct del_result *r)
{
	char ifname[IF_NAMESIZE];
	struct op_state state = { .ifname = ifname, .state_dir = o->state_dir };
	struct del_learned dl = {};
	int ret = 0;

	/* A group's member: its lists are its home's (attach IF1 IF2 ...). */
	attachment_home(given, ifname);

	memset(r, 0, sizeof(*r));
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	snprintf(r->list, sizeof(r->list), "%s", o->list && !o->state_only ? o->list : "");
	r->allow = o->allow;
	load_result_init(&r->load, ifname);
	/* A blocked address may be learned too (load --learn): looked for first. */
	if (!o->allow && !o->state_only && !o->lenient)
		ret = learned_args(ifname, entries, n, &dl);
	/* The state: the list's copies, journals, counters and timeouts. */
	if (!ret && o->list && !o->state_only)
		ret = del_named(ifname, o, &state, entries, n, dl.arg ? &dl : NULL, r);
	else if (!ret)
		ret = del_entries(ifname, o, &state, entries, n, dl.arg ? &dl : NULL, r);
	if (!ret && dl.n)
		learned_delete(ifname, entries, &dl, &r->unlearned);
	op_state_close(&state);
	free(dl.arg);
	return ret;
}
