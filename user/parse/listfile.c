// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Reads a list from a descriptor in blocks; every line is bounded by LIST_LINE_MAX. */
struct line_reader {
	int fd;
	size_t start, end;	/* unread bytes: buf[start, end) */
	bool eof;
	int (*tee)(void *ctx, const void *buf, size_t n);
	void *tee_ctx;
	char buf[LIST_READ_BLOCK];
};

/*
 * The next line, NUL-terminated in place, its newline cut: 1 and *line, *len;
 * 0 at the end of the input; -E2BIG for a line over LIST_LINE_MAX; -errno
 * when the read fails. A failed read is never taken for the end of the input.
 */
static int next_line(struct line_reader *r, char **line, size_t *len)
{
	char *nl;
	ssize_t got;

	for (;;) {
		nl = memchr(r->buf + r->start, '\n', r->end - r->start);
		if (nl || (r->eof && r->start < r->end)) {
			*line = r->buf + r->start;
			*len = (nl ? nl : r->buf + r->end) - *line;
			if (*len > LIST_LINE_MAX)
				return -E2BIG;
			(*line)[*len] = '\0';
			r->start += *len + (nl ? 1 : 0);
			return 1;
		}
		if (r->eof)
			return 0;
		if (r->end - r->start > LIST_LINE_MAX)
			return -E2BIG;
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
		/* One byte kept for the NUL of a last line without newline. */
		got = read(r->fd, r->buf + r->end, sizeof(r->buf) - 1 - r->end);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		r->eof = got == 0;
		if (got > 0 && r->tee) {
			int ret = r->tee(r->tee_ctx, r->buf + r->end, got);

			if (ret)
				return ret;
		}
		r->end += got;
	}
}

/*
 * The fast path of a long address list: a line that is a plain IPv4 address
 * or prefix and nothing else (no white space, comment or '\r'), taken
 * straight from the buffer, without looking for its newline first. 1 and
 * e->addr with the line consumed; 0 for any other line, left for
 * next_line() and the general parsers (which also refuse too wide a prefix,
 * with their message), as is a line not wholly read yet.
 */
static int plain_line(struct line_reader *r, const struct list_parse *p, bool refuse_wide,
		      struct entry *e)
{
	const char *end;

	if (!list_parse_plain_on(p))
		return 0;
	/* The byte next_line() keeps for a NUL stops the scan at the end of what was read. */
	r->buf[r->end] = '\0';
	end = ipv4_plain_scan(r->buf + r->start, &e->addr);
	if (!end || (*end != '\n' && !(end == r->buf + r->end && r->eof)))
		return 0;
	if (refuse_wide && prefix_too_wide(&e->addr))
		return 0;
	r->start = end - r->buf + (*end == '\n');
	return 1;
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

static int read_fd(int fd, const char *name, struct list_read_opts *o, entry_fn fn, void *ctx,
		   char err[LIST_ERROR_LEN])
{
	struct wide_check wide = { .fn = fn, .ctx = ctx };
	struct entry plain = { .kind = ENTRY_ADDR };
	char quoted[LIST_QUOTE_MAX * 4 + 8];
	entry_fn efn = fn;
	void *ectx = ctx;
	struct line_reader *r;
	struct list_parse parse;
	unsigned long lineno = 0;
	const char *why;
	char *line = NULL, *entry;
	size_t len = 0;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = fd;
	r->tee = o->tee;
	r->tee_ctx = o->tee_ctx;
	list_parse_init(&parse, o->format, o->csv);
	parse.refuse_wide = o->refuse_wide;
	if (o->refuse_wide) {
		efn = wide_check_entry;
		ectx = &wide;
	}
	o->file = name;
	for (;;) {
		if (plain_line(r, &parse, o->refuse_wide, &plain)) {
			o->line = ++lineno;
			/* What list_parse_plain() makes of the line; fn returns 0 or -errno. */
			parse.widened = NULL;
			parse.reason = NULL;
			ret = fn(&plain, ctx);
			if (ret < 0)
				goto out;
			continue;
		}
		ret = next_line(r, &line, &len);
		if (ret <= 0)
			break;
		lineno++;
		o->line = lineno;
		if (memchr(line, '\0', len)) {
			snprintf(err, LIST_ERROR_LEN, "%s:%lu: NUL byte in line: not a text list",
				 name, lineno);
			ret = -EINVAL;
			goto out;
		}
		entry = o->format == FORMAT_ADBLOCK ? adblock_cosmetic_line(line) : NULL;
		if (!entry)
			entry = list_line_entry(line);
		if (!entry)
			continue;
		wide.refused = false;
		ret = list_parse_plain(&parse, entry, efn, ectx);
		if (ret == 0)
			continue;
		if (ret < 0 && !wide.refused)
			goto out;
		quote_entry(entry, quoted, sizeof(quoted));
		why = NULL;
		if (ret > 0)	/* the parsers may cut the text: quoted before */
			ret = list_parse_line(&parse, entry, efn, ectx, &why);
		if (wide.refused) {
			parse.reason = NULL;
			why = prefix_too_wide_why;
			ret = -EINVAL;
		}
		if (ret == -EINVAL && why && o->lenient) {
			if (o->notes)
				list_note(o->notes, parse.reason ? parse.reason : why, false, name,
					  lineno);
			continue;
		}
		if (ret == -EINVAL && why) {
			snprintf(err, LIST_ERROR_LEN, "%s:%lu: %s: %s; --lenient skips such lines",
				 name, lineno, quoted, why);
			goto out;
		}
		if (ret < 0)
			goto out;
		if (parse.widened && o->notes)
			list_note(o->notes, parse.widened, true, name, lineno);
	}
	if (ret == -E2BIG) {
		snprintf(err, LIST_ERROR_LEN, "%s:%lu: line longer than %d bytes: not a list entry",
			 name, lineno + 1, LIST_LINE_MAX);
		ret = -EINVAL;
	} else if (ret < 0) {
		snprintf(err, LIST_ERROR_LEN, "%s: read failed after line %lu: %s", name, lineno,
			 strerror(-ret));
	}
out:
	free(r);
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
