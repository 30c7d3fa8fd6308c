/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LISTFILE_H
#define BLOOMXDP_LISTFILE_H

#include <stddef.h>
#include <bloomxdp/hash.h>

#define LIST_STDIN "-"
#define LIST_ERROR_LEN 512

/* Called once per entry; a negative return stops the read and is returned. */
typedef int (*list_entry_fn)(const struct bloomxdp_key *key, void *ctx);

/*
 * Reads a list: one entry per line, '#' starts a comment, blank lines and
 * surrounding white space are ignored. On a bad line returns -EINVAL with
 * "FILE:LINE: <text>: <why>" in err; on an I/O error, -errno with a message.
 */
int list_read(const char *path, list_entry_fn fn, void *ctx, char err[LIST_ERROR_LEN]);

/*
 * The entry in a line, or NULL for a blank or comment line. Modifies line.
 * Exposed for the unit tests.
 */
char *list_line_entry(char *line);

#endif
