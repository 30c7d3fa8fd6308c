// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The state of the lists (lists/state_dir.h): what a load reads is a copy made in the
 * state directory, recorded after the swap; add appends to a journal; restore
 * and a rebuild read the copies and journals back.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lists/load_options.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/log.h"
#include "kernel/state_dir.h"

struct entry_set_item {
	__u64 fp;
	size_t idx;		/* in the order added */
	struct entry e;
};

/* FNV-1a over what makes an entry: the same entry read from any format, the same. */
__u64 entry_fingerprint(const struct entry *e)
{
	__u64 h = 0xcbf29ce484222325ULL;
	const unsigned char *p;
	size_t i;

#define FP_BYTES(ptr, len)						\
	for (p = (const unsigned char *)(ptr), i = 0; i < (len); i++)	\
		h = (h ^ p[i]) * 0x100000001b3ULL
	FP_BYTES(&e->kind, sizeof(e->kind));
	if (e->kind == ENTRY_ADDR) {
		/* Its words only: the rest is not set by every parser. */
		FP_BYTES(e->addr.word, e->addr.nwords * sizeof(e->addr.word[0]));
	} else {
		FP_BYTES(e->name, strlen(e->name));
		FP_BYTES("/", 1);
		FP_BYTES(e->path, strlen(e->path));
	}
#undef FP_BYTES
	return h;
}

bool entry_same(const struct entry *a, const struct entry *b)
{
	if (a->kind != b->kind || a->allow != b->allow)
		return false;
	if (a->kind == ENTRY_ADDR)
		return a->addr.nwords == b->addr.nwords && a->addr.nwords <= BLOOMXDP_KEY_MAX_WORDS &&
		       !memcmp(a->addr.word, b->addr.word, a->addr.nwords * sizeof(a->addr.word[0]));
	return !strcmp(a->name, b->name) && !strcmp(a->path, b->path);
}

void entry_set_free(struct entry_set *s)
{
	free(s->items);
	memset(s, 0, sizeof(*s));
}

int entry_set_add(struct entry_set *s, const struct entry *e)
{
	struct entry_set_item *grown;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		grown = realloc(s->items, s->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		s->items = grown;
	}
	s->items[s->n].fp = entry_fingerprint(e);
	s->items[s->n].idx = s->n;
	s->items[s->n++].e = *e;
	s->sorted = false;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	__u64 x = ((const struct entry_set_item *)a)->fp, y = ((const struct entry_set_item *)b)->fp;

	return x < y ? -1 : x > y;
}

void entry_set_sort(struct entry_set *s)
{
	if (!s->sorted && s->n)
		qsort(s->items, s->n, sizeof(*s->items), item_cmp);
	s->sorted = true;
}

long entry_set_find(const struct entry_set *s, const struct entry *e)
{
	size_t lo = 0, hi = s->n, mid;
	__u64 fp;

	if (!s->n)
		return -1;
	fp = entry_fingerprint(e);
	if (!s->sorted) {
		for (mid = 0; mid < s->n; mid++)
			if (s->items[mid].fp == fp && entry_same(&s->items[mid].e, e))
				return s->items[mid].idx;
		return -1;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->items[mid].fp < fp)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->n && s->items[lo].fp == fp; lo++)
		if (entry_same(&s->items[lo].e, e))
			return s->items[lo].idx;
	return -1;
}

bool entry_set_has(const struct entry_set *s, const struct entry *e)
{
	return entry_set_find(s, e) >= 0;
}

void state_deleted_name(const char *which, unsigned long long serial, char *out, size_t len)
{
	snprintf(out, len, "%s-%llu.deleted", which, serial);
}

/* Deletions: a list of arguments, one a line, rarely more than a few megabytes. */
#define STATE_DELETED_MAX (256 << 20)

/* What del took out of the copies of the list, into in->deleted. */
static int read_deleted(struct list_inputs *in, bool messages)
{
	struct parsed_args p = {};
	char name[STATE_NAME_MAX], *text, *line, *save;
	size_t len, i;
	int ret;

	state_deleted_name(in->which, in->list.serial, name, sizeof(name));
	ret = state_read(&in->sd, name, STATE_DELETED_MAX, &text, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		p.n = 0;
		ret = parse_arg(line, FORMAT_AUTO, &p, "");
		for (i = 0; i < p.n && !ret; i++)
			ret = entry_set_add(&in->deleted, &p.e[i]);
	}
	if (ret && messages)
		log_error("%s/%s: cannot be read back: check it, or load the list again",
			  in->sd.path, name);
	entry_set_sort(&in->deleted);
	parsed_args_free(&p);
	free(text);
	return ret;
}

static int inputs_grow(struct list_inputs *in, const char *name, int fd, enum list_format format,
		       const struct list_opts *opts)
{
	struct list_input *grown = realloc(in->in, (in->n + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	in->in = grown;
	grown[in->n].name = strdup(name);
	grown[in->n].fd = fd;
	grown[in->n].format = opts ? opts->format : format;
	grown[in->n].opts = opts;
	grown[in->n].entries = NULL;
	grown[in->n].copy_index = -1;
	if (!grown[in->n].name)
		return -ENOMEM;
	in->n++;
	return 0;
}

void list_inputs_free(struct list_inputs *in)
{
	int i;

	for (i = 0; i < in->n; i++) {
		if (in->in[i].fd >= 0)
			close(in->in[i].fd);
		free((char *)in->in[i].name);
	}
	for (i = 0; i < in->ncopies; i++)
		state_copy_close(&in->sd, &in->copies[i]);
	for (i = 0; i < in->nsrc_opts; i++) {
		free(in->src_opts[i].where.items);	/* its own --where list */
		free(in->src_parsed[i]);
	}
	free(in->src_opts);
	free(in->src_parsed);
	free(in->in);
	free(in->copies);
	free(in->parsed);
	entry_set_free(&in->deleted);
	state_list_free(&in->list);
	if (in->sd.fd >= 0)
		state_write_abandon(&in->sd, in->pending);
	state_close(&in->sd);
	memset(in, 0, sizeof(*in));
	in->sd.fd = in->sd.root_fd = -1;
}

/* The copy of one input, written as the load reads it (list_read_opts.tee). */
static int copy_input(struct list_inputs *in, const char *file, const struct list_opts *opts)
{
	struct state_copy *grown;
	int ret;

	grown = realloc(in->copies, (in->ncopies + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	in->copies = grown;
	ret = state_copy_begin(&in->sd, &in->copies[in->ncopies]);
	in->ncopies++;
	if (!ret)
		ret = inputs_grow(in, file, -1, FORMAT_AUTO, opts);
	if (!ret)
		in->in[in->n - 1].copy_index = in->ncopies - 1;
	return ret;
}

int list_input_tee(void *ctx, const void *buf, size_t n)
{
	return state_copy_write(ctx, buf, n);
}

const char *list_opts_which(const struct list_opts *o, char buf[STATE_NAME_MAX])
{
	if (o->allow)
		return STATE_ALLOW;
	if (!o->list)
		return STATE_BLOCK;
	snprintf(buf, STATE_NAME_MAX, STATE_LIST_PREFIX "%s", o->list);
	return buf;
}

/* in->which: one of the constants, or a named list's kept in in->which_buf. */
static void inputs_which(struct list_inputs *in, const char *which)
{
	if (!strcmp(which, STATE_ALLOW) || !strcmp(which, STATE_BLOCK)) {
		in->which = !strcmp(which, STATE_ALLOW) ? STATE_ALLOW : STATE_BLOCK;
		return;
	}
	snprintf(in->which_buf, sizeof(in->which_buf), "%s", which);
	in->which = in->which_buf;
}

void list_inputs_open(struct list_inputs *in, const struct state_dir *sd, const char *ifname,
		      const struct list_opts *o)
{
	char which[STATE_NAME_MAX];
	int ret;

	memset(in, 0, sizeof(*in));
	in->sd.fd = in->sd.root_fd = -1;
	inputs_which(in, list_opts_which(o, which));
	ret = sd ? state_dup(sd, &in->sd) : state_open(state_root(o->state_dir), ifname, true,
							 &in->sd);
	in->recording = !ret;
	in->state_err = ret;
	if (ret)
		log_warn("the state of %s cannot be kept (see above): this list will not be "
			 "restored after a reboot, and query cannot tell listed entries from "
			 "false positives", ifname);
}

int list_inputs_add(struct list_inputs *in, const struct list_opts *o,
		    const struct list_source *src, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		/* A source read as the load's options say needs no options of its own. */
		const struct list_opts *so = src[i].opts == o ? NULL : src[i].opts;

		ret = in->recording ? copy_input(in, src[i].path, so ? so : o) :
				      inputs_grow(in, src[i].path, -1, FORMAT_AUTO, so ? so : o);
		if (!ret && !so)
			in->in[in->n - 1].opts = NULL;
		if (!ret)
			in->in[in->n - 1].entries = src[i].entries;
		if (ret) {
			if (ret == -ENOMEM)
				log_error("out of memory");
			return ret;
		}
	}
	return 0;
}

int list_inputs_plain(struct list_inputs *in, const struct list_opts *o,
		      const struct list_source *src, int n)
{
	int i, ret = 0;

	memset(in, 0, sizeof(*in));
	in->sd.fd = in->sd.root_fd = -1;
	for (i = 0; i < n && !ret; i++)
		ret = inputs_grow(in, src[i].path, -1, FORMAT_AUTO, src[i].opts ? src[i].opts : o);
	for (i = 0; i < n && !ret; i++)
		in->in[i].entries = src[i].entries;
	return ret;
}

/* A journal's entries, each record's checksum checked, in a memory file to read; -errno. */
static int journal_checked(struct list_inputs *in, const char *name)
{
	char *body;
	size_t len, done;
	ssize_t w;
	int fd, ret;

	ret = state_journal_read(&in->sd, name, in->list.legacy, &body, &len);
	if (ret)
		return ret;
	fd = memfd_create("bloomxdp-journal", MFD_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	for (done = 0; !ret && done < len; done += w) {
		w = write(fd, body + done, len - done);
		if (w < 0 && errno == EINTR)
			w = 0;
		else if (w < 0)
			ret = -errno;
	}
	if (!ret && lseek(fd, 0, SEEK_SET))
		ret = -errno;
	free(body);
	if (ret && fd >= 0)
		close(fd);
	return ret ? ret : fd;
}

/* Every journal of a list as last applied, with the format of its entries. */
static int open_journals(struct list_inputs *in, bool messages)
{
	char name[STATE_NAME_MAX], shown[PATH_MAX + STATE_NAME_MAX];
	const struct enum_value *f;
	int fd, ret;

	for (f = list_format_values; f->name; f++) {
		if (f->alias)
			continue;
		state_journal_name(in->which, in->list.serial, f->name, name, sizeof(name));
		fd = journal_checked(in, name);
		if (fd == -ENOENT)
			continue;
		snprintf(shown, sizeof(shown), "%s/%s", in->sd.path, name);
		if (fd < 0) {
			/* Its checksums' failures are said by state_journal_read(). */
			if (messages && fd != -EBADMSG)
				log_error("cannot read %s: %s", shown, strerror(-fd));
			return fd;
		}
		ret = inputs_grow(in, shown, fd, f->value, NULL);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	return 0;
}

/* The options a load recorded, back into o; their text values point into in->parsed. */
static int parse_recorded(struct list_inputs *in, struct list_opts *o)
{
	char *line, *save;
	int ret = 0;

	if (!in->list.options)
		return 0;
	in->parsed = strdup(in->list.options);
	if (!in->parsed)
		return -ENOMEM;
	for (line = strtok_r(in->parsed, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = options_parse_line(load_options, line, o);
	if (ret)
		log_error("%s/%s: the options it records cannot be read back", in->sd.path,
			  in->which);
	return ret;
}

/* A source's own recorded options: the load's, then its lines over them. */
static int source_options(struct list_inputs *in, const struct state_source *s,
			  const struct list_opts *o)
{
	struct list_opts *grown_o;
	char **grown_p, *line, *save;
	int ret = 0;

	if (!s->options || !o)
		return 0;
	grown_o = realloc(in->src_opts, (in->nsrc_opts + 1) * sizeof(*grown_o));
	if (grown_o)
		in->src_opts = grown_o;
	grown_p = realloc(in->src_parsed, (in->nsrc_opts + 1) * sizeof(*grown_p));
	if (grown_p)
		in->src_parsed = grown_p;
	if (!grown_o || !grown_p)
		return -ENOMEM;
	in->src_parsed[in->nsrc_opts] = strdup(s->options);
	if (!in->src_parsed[in->nsrc_opts])
		return -ENOMEM;
	in->src_opts[in->nsrc_opts] = *o;
	/* Its repeatable options are its own, not the load's. */
	memset(&in->src_opts[in->nsrc_opts].where, 0, sizeof(in->src_opts[0].where));
	in->src_opts[in->nsrc_opts].column = NULL;
	in->nsrc_opts++;
	for (line = strtok_r(in->src_parsed[in->nsrc_opts - 1], "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = options_parse_line(load_options, line,
					 &in->src_opts[in->nsrc_opts - 1]);
	if (ret)
		log_error("%s/%s: the options of source %s cannot be read back", in->sd.path,
			  in->which, s->source);
	return ret;
}

int list_inputs_state_at(struct list_inputs *in, const struct state_dir *sd, const char *which,
			 bool messages, bool check_copies, struct list_opts *o)
{
	char shown[PATH_MAX + STATE_NAME_MAX], hex[SHA256_HEX];
	bool allow = !strcmp(which, STATE_ALLOW);
	int i, fd, ret;

	memset(in, 0, sizeof(*in));
	in->sd.fd = in->sd.root_fd = -1;
	inputs_which(in, which);
	in->keep = true;
	ret = sd->fd < 0 ? -ENOENT : state_dup(sd, &in->sd);
	if (!ret)
		ret = state_list_read(&in->sd, in->which, &in->list);
	if (ret)
		return ret;
	in->recording = true;
	if (o) {
		ret = parse_recorded(in, o);
		o->allow = allow;
		if (ret)
			return ret;
	}
	for (i = 0; i < in->list.nsources; i++) {
		const struct state_source *s = &in->list.src[i];

		snprintf(shown, sizeof(shown), "%s/%s", in->sd.path, s->copy);
		fd = state_open_file(&in->sd, s->copy);
		ret = fd < 0 ? fd : check_copies ? sha256_fd_hex(fd, hex) : 0;
		if (!ret && check_copies && strcmp(hex, s->sha256))
			ret = -EBADMSG;
		if (ret) {
			if (fd >= 0)
				close(fd);
			if (messages)
				log_error("%s, the copy of %s: %s", shown, s->source,
					  ret == -EBADMSG ? "its SHA-256 is not the one recorded "
					  "(changed or damaged): load the list again" :
					  strerror(-ret));
			return ret;
		}
		/* As the load read it: its own options if it had some, else the load's. */
		ret = source_options(in, s, o);
		if (!ret)
			ret = inputs_grow(in, shown, fd, o ? o->format : FORMAT_AUTO,
					  s->options && o ? &in->src_opts[in->nsrc_opts - 1] : NULL);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	ret = read_deleted(in, messages);
	return ret ? ret : open_journals(in, messages);
}

int list_inputs_state_which(struct list_inputs *in, const char *ifname, const char *state_dir,
			    const char *which, bool messages, bool check_copies,
			    struct list_opts *o)
{
	struct state_dir sd;
	int ret;

	memset(in, 0, sizeof(*in));
	in->sd.fd = in->sd.root_fd = -1;
	ret = state_open(state_root(state_dir), ifname, false, &sd);
	if (!ret)
		ret = list_inputs_state_at(in, &sd, which, messages, check_copies, o);
	if (o)
		o->state_dir = state_dir;
	state_close(&sd);
	return ret;
}

int list_inputs_state(struct list_inputs *in, const char *ifname, const char *state_dir,
		      bool allow, bool messages, struct list_opts *o)
{
	return list_inputs_state_which(in, ifname, state_dir, allow ? STATE_ALLOW : STATE_BLOCK,
				       messages, true, o);
}

/* What a source read with options of its own records: those a source can have. */
static char *source_recorded_options(const struct list_opts *so)
{
	static const char *const skip[] = { "allow", "list", "action", "learn", "state-dir",
					     "prefix-probes", "store", "allow-empty",
					     "max-memory", NULL };
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	options_write(load_options, so, skip, out);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

/* What a load records of its options: all but which list and where the state is. */
static char *recorded_options(const struct list_opts *o, __u64 max_memory)
{
	static const char *const skip[] = { "allow", "list", "state-dir", NULL };
	struct list_opts rec = *o;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	/* The limit the load used: restore sizes within it, whoever set it. */
	if (max_memory) {
		rec.max_memory = max_memory;
		rec.max_memory_given = true;
	}
	out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	options_write(load_options, &rec, skip, out);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * An older bloomxdp's journals, read once as they were, each rewritten as one
 * record before the manifest is sealed: its journals are then checked.
 */
static int journals_seal(struct list_inputs *in)
{
	char name[STATE_NAME_MAX], *body, *record;
	const struct enum_value *f;
	size_t len, rlen;
	int ret = 0;

	for (f = list_format_values; f->name && !ret; f++) {
		if (f->alias)
			continue;
		state_journal_name(in->which, in->list.serial, f->name, name, sizeof(name));
		ret = state_journal_read(&in->sd, name, true, &body, &len);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		record = state_journal_record(body, len, &rlen);
		ret = !record ? -ENOMEM : state_write(&in->sd, name, len ? record : "",
						      len ? rlen : 0);
		free(record);
		free(body);
	}
	return ret;
}

int list_inputs_prepare(struct list_inputs *in, const struct list_opts *o, __u64 generation,
			__u64 max_memory)
{
	struct state_list old = {}, *l = &in->list;
	char name[STATE_NAME_MAX];
	int i, ret = 0;

	if (!in->recording)
		return 0;
	if (in->keep) {
		/* The same sources and journals, to be live under another generation. */
		l->generation = generation;
		ret = l->legacy ? journals_seal(in) : 0;
		return ret ? ret : state_list_write_begin(&in->sd, l, in->pending);
	}
	ret = state_list_read(&in->sd, in->which, &old);
	if (ret && ret != -ENOENT)
		goto out;
	ret = 0;	/* a named list's first load */
	state_list_free(l);
	l->serial = old.serial + 1;
	l->generation = generation;
	l->time = time(NULL);
	l->options = recorded_options(o, max_memory);
	if (!l->options) {
		ret = -ENOMEM;
		goto out;
	}
	/* The copies under names of the new serial: no manifest names them yet. */
	for (i = 0; i < in->n && !ret; i++) {
		struct state_copy *c;

		if (in->in[i].copy_index < 0)
			continue;
		c = &in->copies[in->in[i].copy_index];
		ret = state_copy_finish(c);
		if (ret) {
			log_error("cannot write %s/%s, the copy of %s: %s", in->sd.path, c->tmp,
				  in->in[i].name, strerror(-ret));
			break;
		}
		state_copy_name(in->which, l->serial, l->nsources, name, sizeof(name));
		ret = state_copy_commit(&in->sd, c, name);
		if (!ret)
			ret = state_list_add_source(l, strcmp(in->in[i].name, LIST_STDIN) ?
						    in->in[i].name : "stdin", name, c->sha256,
						    c->bytes);
		if (!ret && in->in[i].opts) {
			l->src[l->nsources - 1].options = source_recorded_options(in->in[i].opts);
			if (!l->src[l->nsources - 1].options)
				ret = -ENOMEM;
		}
	}
	/* The manifest written, not yet named: until it is, the old one and its copies stand. */
	if (!ret)
		ret = state_list_write_begin(&in->sd, l, in->pending);
out:
	state_list_free(&old);
	return ret;
}

int list_inputs_publish(struct list_inputs *in)
{
	int ret;

	if (!in->recording || !in->pending[0])
		return 0;
	ret = state_write_finish(&in->sd, in->pending, in->which);
	if (!ret && !in->keep)
		state_prune(&in->sd, in->which, &in->list);
	return ret;
}

int list_inputs_commit(struct list_inputs *in, const struct list_opts *o, __u64 generation,
		       __u64 max_memory)
{
	int ret = list_inputs_prepare(in, o, generation, max_memory);

	return ret ? ret : list_inputs_publish(in);
}

/* The journal add appends to: of the list as last applied, per format. */
static int journal_name(const struct state_dir *sd, const struct list_opts *o,
			char name[STATE_NAME_MAX])
{
	char which[STATE_NAME_MAX];
	struct state_list l;
	int ret;

	if (sd->fd < 0)
		return -ENOENT;
	ret = state_list_read(sd, list_opts_which(o, which), &l);
	if (ret)
		return ret;
	state_journal_name(list_opts_which(o, which), l.serial,
			   enum_value_name(list_format_values, o->format), name, STATE_NAME_MAX);
	state_list_free(&l);
	return 0;
}

void list_state_unjournal(const struct state_dir *sd, const struct list_opts *o, off_t before)
{
	char name[STATE_NAME_MAX];

	if (journal_name(sd, o, name))
		return;
	if (state_truncate(sd, name, before))
		log_warn("%s/%s: the entries just added could not be taken out of it", sd->path,
			 name);
}

int list_state_current_at(const struct state_dir *sd, bool allow, __u64 generation)
{
	struct state_list l;
	int ret;

	if (sd->fd < 0)
		return -ENOENT;
	ret = state_list_read(sd, allow ? STATE_ALLOW : STATE_BLOCK, &l);
	if (!ret) {
		ret = l.generation == generation ? 0 : -ESTALE;
		state_list_free(&l);
	}
	return ret;
}

int list_state_current(const char *ifname, const char *state_dir, bool allow, __u64 generation)
{
	struct state_dir sd;
	int ret;

	ret = state_open(state_root(state_dir), ifname, false, &sd);
	if (!ret)
		ret = list_state_current_at(&sd, allow, generation);
	state_close(&sd);
	return ret;
}

int list_state_journal(const struct state_dir *sd, const struct list_opts *o, char **entries,
		       int n, off_t *before)
{
	char name[STATE_NAME_MAX], *text = NULL, *record = NULL;
	size_t len = 0, rlen;
	FILE *out;
	int i, ret;

	ret = journal_name(sd, o, name);
	if (ret)
		return ret;
	out = open_memstream(&text, &len);
	if (!out)
		return -ENOMEM;
	/* A line of its own per entry: an entry never holds a line break (parse_arg()). */
	for (i = 0; i < n; i++)
		if (strpbrk(entries[i], "\r\n"))
			ret = -EINVAL;
		else
			fprintf(out, "%s\n", entries[i]);
	if (fclose(out) && !ret)
		ret = -ENOMEM;
	if (!ret) {
		record = state_journal_record(text, len, &rlen);
		ret = record ? state_append(sd, name, record, before) : -ENOMEM;
	}
	free(record);
	free(text);
	return ret;
}
