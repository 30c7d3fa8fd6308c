/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LISTFILE_H
#define BLOOMXDP_LISTFILE_H

#include <stddef.h>
#include "entries.h"

#define LIST_STDIN "-"
#define LIST_ERROR_LEN 512
/*
 * The longest line a list may have: a URL entry is at most ~530 bytes, a
 * hosts line may name several hosts. Longer is an error at that line, so a
 * hostile input (a stream without newlines) cannot grow memory without bound.
 */
#define LIST_LINE_MAX 8192
#define LIST_READ_BLOCK (64 * 1024)

/*
 * Reads a list: one entry per line in the given format (auto: decided per
 * line); '#' at the start of a line or after white space starts a comment;
 * blank lines and surrounding white space are ignored. fn is called for each
 * entry; a negative return stops the read and is returned. On a bad line
 * returns -EINVAL with "FILE:LINE: <text>: <why>" in err (also for a line over
 * LIST_LINE_MAX bytes or with a NUL byte); on a read error, -errno with a
 * message: a failed read never passes for the end of the list.
 */
int list_read(const char *path, enum list_format format, entry_fn fn, void *ctx,
	      char err[LIST_ERROR_LEN]);

/*
 * The entry in a line, or NULL for a blank or comment line. Modifies line.
 * Exposed for the unit tests.
 */
char *list_line_entry(char *line);

#endif
