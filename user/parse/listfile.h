/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LISTFILE_H
#define BLOOMXDP_LISTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include "parse/entries.h"

#define LIST_STDIN "-"
#define LIST_ERROR_LEN 512
/*
 * The longest line a list may have: a URL entry is at most ~530 bytes, a
 * hosts line may name several hosts. Longer is an error at that line, so a
 * hostile input (a stream without newlines) cannot grow memory without bound.
 */
#define LIST_LINE_MAX 8192
#define LIST_READ_BLOCK (64 * 1024)

/* Lines skipped (or widened), per reason: the first few places and a count. */
#define LIST_NOTE_REASONS 32
#define LIST_NOTE_PLACES 3
struct list_place {
	const char *file;		/* as given: argv outlives the read */
	unsigned long line;
};
struct list_note {
	char why[ENTRY_WHY_MAX];
	bool widened;			/* read, but wider than the line: not skipped */
	__u64 count;
	struct list_place first[LIST_NOTE_PLACES];
};
struct list_notes {
	struct list_note note[LIST_NOTE_REASONS];
	int n;
	__u64 skipped, widened;		/* lines, all reasons */
	__u64 other;			/* skipped lines of reasons beyond LIST_NOTE_REASONS */
};

/* How list_read() reads, and where it is: the callback may look at file and line. */
struct list_read_opts {
	enum list_format format;
	const struct csv_spec *csv;	/* FORMAT_CSV */
	/* Skip the lines that cannot be read or honoured (noted), instead of stopping. */
	bool lenient;
	/* A prefix wider than prefixes.h allows makes a bad line (a blocklist without --allow-wide). */
	bool refuse_wide;
	struct list_notes *notes;	/* NULL: nothing noted (and lenient then skips silently) */
	/* Given every block as it is read (a copy of the input as read); an error stops it. */
	int (*tee)(void *ctx, const void *buf, size_t n);
	void *tee_ctx;
	const char *file;		/* the line being read, for the callback */
	unsigned long line;
};

/*
 * Reads a list: one entry per line in the given format (auto: decided per
 * line); '#' or ';' at the start of a line or after white space starts a
 * comment; blank lines and surrounding white space are ignored. fn is called
 * for each entry; a negative return stops the read and is returned. On a bad
 * line returns -EINVAL with "FILE:LINE: <text>: <why>" in err, unless
 * lenient, which notes it and goes on (a line over LIST_LINE_MAX bytes or
 * with a NUL byte always stops); on a read error, -errno with a message: a
 * failed read never passes for the end of the list.
 */
int list_read(const char *path, struct list_read_opts *o, entry_fn fn, void *ctx,
	      char err[LIST_ERROR_LEN]);

/* The same from an open file (read from where it is), named name in messages. */
int list_read_fd(int fd, const char *name, struct list_read_opts *o, entry_fn fn, void *ctx,
		 char err[LIST_ERROR_LEN]);

/* Notes a line (a skip, or widened) under its reason. */
void list_note(struct list_notes *n, const char *why, bool widened, const char *file,
	       unsigned long line);

/* One warning line per reason on stderr: what was skipped or widened, where. */
void list_notes_print(const struct list_notes *n);

/*
 * The entry in a line, or NULL for a blank or comment line. Modifies line.
 * Exposed for the unit tests.
 */
char *list_line_entry(char *line);

#endif
