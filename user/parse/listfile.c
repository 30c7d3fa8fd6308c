// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse/entries.h"
#include "parse/listfile.h"
#include "util/log.h"
#include "parse/prefixes.h"

/* How much of a bad line an error message quotes. */
#define LIST_QUOTE_MAX 64

char *list_line_entry(char *line)
{
	char *end;

	/*
	 * Not "a##b": adblock element-hiding rules must not shrink to a domain.
	 * ';' for zone files and Spamhaus DROP ("192.0.2.0/24 ; SBL1").
	 */
	for (end = line; *end; end++)
		if ((*end == '#' || *end == ';') &&
		    (end == line || isspace((unsigned char)end[-1])))
			break;
	while (end > line && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	while (isspace((unsigned char)*line))
		line++;
	return *line ? line : NULL;
}

/*
 * In an adblock list "##.ad" is a generic cosmetic rule, not a comment: the
 * rule (trimmed), for the parser to count it as skipped; NULL for other lines.
 */
static char *adblock_cosmetic_line(char *line)
{
	static const char *const marks[] = { "##", "#@#", "#?#", "#@?#", "#$#", "#@$#", "#%#" };
	char *end;
	size_t i;

	while (isspace((unsigned char)*line))
		line++;
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		if (!strncmp(line, marks[i], strlen(marks[i]))) {
			end = line + strlen(line);
			while (end > line && isspace((unsigned char)end[-1]))
				*--end = '\0';
			return line;
		}
	}
	return NULL;
}

/* Printable, bounded copy of a bad entry for the error message. */
static void quote_entry(const char *entry, char *out, size_t out_len)
{
	size_t i, o = 0;

	for (i = 0; entry[i] && o + 5 < out_len; i++) {
		unsigned char ch = entry[i];

		if (i == LIST_QUOTE_MAX) {
			o += snprintf(out + o, out_len - o, "...");
			break;
		}
		if (isprint(ch))
			out[o++] = ch;
		else
			o += snprintf(out + o, out_len - o, "\\x%02x", ch);
	}
	out[o] = '\0';
}

/*
 * A list is read in chunks of whole lines: one thread reads a chunk (and
 * gives its blocks to the tee) and finds its lines, scanning the plain IPv4
 * ones as it goes, while the caller's thread takes the lines of the chunk
 * before, in their order, through the parsers and the callback: what the
 * callback sees, line by line, is what one thread reading alone would give
 * it. A short input is read in one chunk, by the caller's thread alone.
 */
#define CHUNK_FILL (4 * LIST_READ_BLOCK)
/* Room for a line carried from the chunk before (at most LIST_LINE_MAX) and the reads. */
#define CHUNK_TEXT (CHUNK_FILL + LIST_LINE_MAX + LIST_READ_BLOCK)
/* Chunks between the two threads. */
#define CHUNK_RING 4

/* A line of a chunk: its length, and its key when it is a plain IPv4 address or prefix. */
struct chunk_line {
	__u64 key;		/* word 0 of the key (ipv4_plain_scan()); 0: not plain */
	__u32 len;		/* without its newline */
};

struct chunk {
	size_t nlines;
	int err;		/* after the lines: -E2BIG, the read's or the tee's -errno */
	bool eof;		/* the lines are the input's last */
	char text[CHUNK_TEXT + 1];	/* + 1: a NUL after the last line */
	struct chunk_line line[CHUNK_TEXT + 1];
};

/* What the reading side keeps from a chunk to the next: the line it had not seen the end of. */
struct chunk_reader {
	int fd;
	int (*tee)(void *ctx, const void *buf, size_t n);
	void *tee_ctx;
	bool eof;
	size_t ncarry;
	char carry[LIST_LINE_MAX + 1];
};

/* Reads into c->text after *len until CHUNK_FILL bytes are there or the input ends. */
static int chunk_fill(struct chunk_reader *r, struct chunk *c, size_t *len)
{
	size_t room, block = LIST_READ_BLOCK;
	ssize_t got;
	int ret;

	while (*len < CHUNK_FILL && !r->eof) {
		room = CHUNK_TEXT - *len < block ? CHUNK_TEXT - *len : block;
		got = read(r->fd, c->text + *len, room);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		r->eof = got == 0;
		if (got > 0 && r->tee) {
			ret = r->tee(r->tee_ctx, c->text + *len, got);
			if (ret)
				return ret;
		}
		*len += got;
	}
	return 0;
}

/*
 * The next chunk: the line carried, what is read after it, cut into lines. A
 * line over LIST_LINE_MAX ends the chunk with -E2BIG, before the error of a
 * read after it (as a reader that had stopped at that line would); a failed
 * read or tee ends it with its error after the whole lines read before.
 */
static void chunk_read(struct chunk_reader *r, struct chunk *c)
{
	size_t len = r->ncarry, pos = 0, n;
	struct bloomxdp_key key;
	const char *end, *nl;
	int err;

	memcpy(c->text, r->carry, r->ncarry);
	err = chunk_fill(r, c, &len);
	c->text[len] = '\0';
	c->nlines = 0;
	c->err = 0;
	while (pos < len) {
		/* A plain line needs no search for its newline: the scan stops there. */
		end = len - pos >= 16 ? ipv4_plain_scan16(c->text + pos, &key) :
					ipv4_plain_scan(c->text + pos, &key);
		if (end && (*end == '\n' || (end == c->text + len && r->eof && !err))) {
			c->line[c->nlines].key = key.word[0];
			c->line[c->nlines++].len = end - (c->text + pos);
			pos = end - c->text + 1;
			continue;
		}
		nl = memchr(c->text + pos, '\n', len - pos);
		n = (nl ? (size_t)(nl - c->text) : len) - pos;
		if (n > LIST_LINE_MAX) {
			err = -E2BIG;
			break;
		}
		if (!nl && (!r->eof || err))
			break;	/* not whole yet */
		c->line[c->nlines].key = 0;
		c->line[c->nlines++].len = n;
		pos += n + 1;
	}
	r->ncarry = err || pos >= len ? 0 : len - pos;
	memcpy(r->carry, c->text + pos, r->ncarry);
	c->err = err;
	c->eof = r->eof && !err && !r->ncarry;
}

/* Chunks read by a thread of their own, CHUNK_RING of them at most ahead of the parsing. */
struct chunk_pipe {
	struct chunk_reader r;
	struct chunk *ring[CHUNK_RING];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t head, full;	/* the next chunk to parse; chunks read and not parsed */
	bool threaded, stop;
	pthread_t thread;
};

static void *chunk_pipe_run(void *arg)
{
	struct chunk_pipe *p = arg;
	struct chunk *c;
	bool last = false;

	pthread_mutex_lock(&p->lock);
	while (!last) {
		while (p->full == CHUNK_RING && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop)
			break;
		c = p->ring[(p->head + p->full) % CHUNK_RING];
		pthread_mutex_unlock(&p->lock);
		chunk_read(&p->r, c);
		last = c->err || c->eof;
		pthread_mutex_lock(&p->lock);
		p->full++;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/*
 * The first chunk, read here; when the input goes on past it (and thread_ok),
 * the reading thread started for the rest. Without it (or the memory of its
 * chunks), each chunk is read when it is to be parsed.
 */
static void chunk_pipe_start(struct chunk_pipe *p, bool thread_ok)
{
	struct chunk *first = p->ring[0];
	int i;

	chunk_read(&p->r, first);
	p->full = 1;
	if (first->err || first->eof || !thread_ok)
		return;
	for (i = 1; i < CHUNK_RING; i++) {
		p->ring[i] = malloc(sizeof(*p->ring[i]));
		if (!p->ring[i])
			return;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->threaded = !pthread_create(&p->thread, NULL, chunk_pipe_run, p);
	if (!p->threaded) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
	}
}

/* The next chunk to parse (read now without the thread). */
static struct chunk *chunk_pipe_next(struct chunk_pipe *p)
{
	struct chunk *c;

	if (!p->threaded) {
		if (!p->full)
			chunk_read(&p->r, p->ring[0]);
		p->full = 0;
		return p->ring[0];
	}
	pthread_mutex_lock(&p->lock);
	while (!p->full)
		pthread_cond_wait(&p->cond, &p->lock);
	c = p->ring[p->head];
	pthread_mutex_unlock(&p->lock);
	return c;
}

/* The chunk of chunk_pipe_next() parsed: its place free for the reading thread. */
static void chunk_pipe_done(struct chunk_pipe *p)
{
	if (!p->threaded)
		return;
	pthread_mutex_lock(&p->lock);
	p->head = (p->head + 1) % CHUNK_RING;
	p->full--;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* The reading thread stopped (at the end, or where the parsing stopped) and the chunks freed. */
static void chunk_pipe_end(struct chunk_pipe *p)
{
	int i;

	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
	}
	for (i = 0; i < CHUNK_RING; i++)
		free(p->ring[i]);
}

void list_note(struct list_notes *n, const char *why, bool widened, const char *file,
	       unsigned long line)
{
	struct list_note *note = NULL;
	int i;

	if (widened)
		n->widened++;
	else
		n->skipped++;
	for (i = 0; i < n->n && !note; i++)
		if (n->note[i].widened == widened && !strcmp(n->note[i].why, why))
			note = &n->note[i];
	if (!note && n->n == LIST_NOTE_REASONS) {
		n->other++;
		return;
	}
	if (!note) {
		note = &n->note[n->n++];
		snprintf(note->why, sizeof(note->why), "%s", why);
		note->widened = widened;
	}
	if (note->count < LIST_NOTE_PLACES) {
		note->first[note->count].file = file;
		note->first[note->count].line = line;
	}
	note->count++;
}

void list_notes_print(const struct list_notes *n)
{
	char places[1024];
	size_t used;
	__u64 j;
	int i;

	for (i = 0; i < n->n; i++) {
		const struct list_note *note = &n->note[i];

		used = 0;
		for (j = 0; j < note->count && j < LIST_NOTE_PLACES && used < sizeof(places); j++)
			/* "a.txt:20, 21" : the file once while it is the same. */
			if (j && note->first[j].file == note->first[j - 1].file)
				used += snprintf(places + used, sizeof(places) - used, ", %lu",
						 note->first[j].line);
			else
				used += snprintf(places + used, sizeof(places) - used, "%s%s:%lu",
						 j ? ", " : "", note->first[j].file,
						 note->first[j].line);
		log_warn("%s %llu line%s (%s%s): %s", note->widened ? "widened" : "skipped",
			 (unsigned long long)note->count, note->count == 1 ? "" : "s", places,
			 note->count > LIST_NOTE_PLACES ? ", ..." : "", note->why);
	}
	if (n->other)
		log_warn("skipped %llu more lines for other reasons",
			 (unsigned long long)n->other);
}

/* Between the parsers and the caller's callback: refuses too wide a prefix (refuse_wide). */
struct wide_check {
	entry_fn fn;
	void *ctx;
	bool refused;
};

static int wide_check_entry(const struct entry *e, void *arg)
{
	struct wide_check *w = arg;

	if (e->kind == ENTRY_ADDR && !e->allow && prefix_too_wide(&e->addr)) {
		w->refused = true;
		return -EINVAL;
	}
	return w->fn(e, w->ctx);
}

/* What the parsing of one input keeps from a line to the next. */
struct line_parse {
	struct list_read_opts *o;
	const char *name;
	entry_fn fn, efn;	/* efn: fn, or wide_check_entry() in front of it */
	void *ctx, *ectx;
	struct wide_check wide;
	struct list_parse parse;
	char *err;
};

/* A line of any kind, NUL-terminated in place, through the parsers: 0, or -errno (said in err). */
static int general_line(struct line_parse *lp, char *line, size_t len, unsigned long lineno)
{
	char quoted[LIST_QUOTE_MAX * 4 + 8], *entry;
	struct list_read_opts *o = lp->o;
	const char *why;
	int ret;

	if (memchr(line, '\0', len)) {
		snprintf(lp->err, LIST_ERROR_LEN, "%s:%lu: NUL byte in line: not a text list",
			 lp->name, lineno);
		return -EINVAL;
	}
	entry = o->format == FORMAT_ADBLOCK ? adblock_cosmetic_line(line) : NULL;
	if (!entry)
		entry = list_line_entry(line);
	if (!entry)
		return 0;
	lp->wide.refused = false;
	ret = list_parse_plain(&lp->parse, entry, lp->efn, lp->ectx);
	if (ret == 0)
		return 0;
	if (ret < 0 && !lp->wide.refused)
		return ret;
	quote_entry(entry, quoted, sizeof(quoted));
	why = NULL;
	if (ret > 0)	/* the parsers may cut the text: quoted before */
		ret = list_parse_line(&lp->parse, entry, lp->efn, lp->ectx, &why);
	if (lp->wide.refused) {
		lp->parse.reason = NULL;
		why = prefix_too_wide_why;
		ret = -EINVAL;
	}
	if (ret == -EINVAL && why && o->lenient) {
		if (o->notes)
			list_note(o->notes, lp->parse.reason ? lp->parse.reason : why, false,
				  lp->name, lineno);
		return 0;
	}
	if (ret == -EINVAL && why) {
		snprintf(lp->err, LIST_ERROR_LEN, "%s:%lu: %s: %s; --lenient skips such lines",
			 lp->name, lineno, quoted, why);
		return ret;
	}
	if (ret < 0)
		return ret;
	if (lp->parse.widened && o->notes)
		list_note(o->notes, lp->parse.widened, true, lp->name, lineno);
	return 0;
}

/*
 * The lines of a chunk, in order: a plain IPv4 line, where the format takes
 * one (and not too wide a prefix in a blocklist), as list_parse_plain() would
 * make it; any other through general_line(). 0, or -errno.
 */
static int chunk_parse(struct line_parse *lp, struct chunk *c, unsigned long *lineno)
{
	struct entry plain = { .kind = ENTRY_ADDR, .addr.nwords = 1 };
	char *line = c->text;
	size_t i;
	int ret;

	for (i = 0; i < c->nlines; line += c->line[i++].len + 1) {
		lp->o->line = ++*lineno;
		plain.addr.word[0] = c->line[i].key;
		if (c->line[i].key && list_parse_plain_on(&lp->parse) &&
		    !(lp->o->refuse_wide && prefix_too_wide(&plain.addr))) {
			/* What list_parse_plain() makes of the line; fn returns 0 or -errno. */
			lp->parse.widened = NULL;
			lp->parse.reason = NULL;
			ret = lp->fn(&plain, lp->ctx);
		} else {
			line[c->line[i].len] = '\0';
			ret = general_line(lp, line, c->line[i].len, *lineno);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int read_fd(int fd, const char *name, struct list_read_opts *o, entry_fn fn, void *ctx,
		   char err[LIST_ERROR_LEN])
{
	struct line_parse lp = { .o = o, .name = name, .fn = fn, .efn = fn, .ctx = ctx,
				 .ectx = ctx, .wide = { .fn = fn, .ctx = ctx }, .err = err };
	struct chunk_pipe pipe = { .r = { .fd = fd, .tee = o->tee, .tee_ctx = o->tee_ctx } };
	unsigned long lineno = 0;
	bool read_err = false, eof = false;
	struct chunk *c;
	struct stat st;
	int ret = 0;

	list_parse_init(&lp.parse, o->format, o->csv);
	lp.parse.refuse_wide = o->refuse_wide;
	if (o->refuse_wide) {
		lp.efn = wide_check_entry;
		lp.ectx = &lp.wide;
	}
	o->file = name;
	pipe.ring[0] = malloc(sizeof(*pipe.ring[0]));
	if (!pipe.ring[0])
		return -ENOMEM;
	/* A regular file only: a read of it never waits long for the thread to end. */
	chunk_pipe_start(&pipe, !fstat(fd, &st) && S_ISREG(st.st_mode));
	while (!ret && !eof) {
		c = chunk_pipe_next(&pipe);
		ret = chunk_parse(&lp, c, &lineno);
		if (!ret && c->err) {
			ret = c->err;
			read_err = true;
		}
		eof = c->eof;
		/* c is the reading thread's again from here on. */
		chunk_pipe_done(&pipe);
	}
	chunk_pipe_end(&pipe);
	if (read_err && ret == -E2BIG) {
		snprintf(err, LIST_ERROR_LEN, "%s:%lu: line longer than %d bytes: not a list entry",
			 name, lineno + 1, LIST_LINE_MAX);
		ret = -EINVAL;
	} else if (read_err) {
		snprintf(err, LIST_ERROR_LEN, "%s: read failed after line %lu: %s", name, lineno,
			 strerror(-ret));
	}
	return ret < 0 ? ret : 0;
}

int list_read_fd(int fd, const char *name, struct list_read_opts *o, entry_fn fn, void *ctx,
		 char err[LIST_ERROR_LEN])
{
	return read_fd(fd, name, o, fn, ctx, err);
}

int list_read(const char *path, struct list_read_opts *o, entry_fn fn, void *ctx,
	      char err[LIST_ERROR_LEN])
{
	int fd, ret;

	if (!strcmp(path, LIST_STDIN))
		return read_fd(STDIN_FILENO, "(standard input)", o, fn, ctx, err);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, LIST_ERROR_LEN, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	ret = read_fd(fd, path, o, fn, ctx, err);
	close(fd);
	return ret;
}
