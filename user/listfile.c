// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listfile.h"

/* How much of a bad line an error message quotes. */
#define LIST_QUOTE_MAX 64

char *list_line_entry(char *line)
{
	char *end;

	/* Not "a##b": adblock element-hiding rules must not shrink to a domain. */
	for (end = line; *end; end++)
		if (*end == '#' && (end == line || isspace((unsigned char)end[-1])))
			break;
	while (end > line && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	while (isspace((unsigned char)*line))
		line++;
	return *line ? line : NULL;
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

static int read_stream(FILE *in, const char *name, enum list_format format, entry_fn fn,
		       void *ctx, char err[LIST_ERROR_LEN])
{
	char quoted[LIST_QUOTE_MAX * 4 + 8];
	unsigned long lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	const char *why;
	ssize_t len;
	char *entry;
	int ret = 0;

	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (memchr(line, '\0', len)) {
			snprintf(err, LIST_ERROR_LEN, "%s:%lu: NUL byte in line: not a text list",
				 name, lineno);
			ret = -EINVAL;
			goto out;
		}
		entry = list_line_entry(line);
		if (!entry)
			continue;
		quote_entry(entry, quoted, sizeof(quoted));
		why = NULL;
		ret = entry_parse_line(entry, format, fn, ctx, &why);
		if (ret == -EINVAL && why) {
			snprintf(err, LIST_ERROR_LEN, "%s:%lu: %s: %s", name, lineno, quoted, why);
			goto out;
		}
		if (ret < 0)
			goto out;
	}
	if (ferror(in)) {
		ret = -errno;
		snprintf(err, LIST_ERROR_LEN, "%s: read failed: %s", name, strerror(errno));
	}
out:
	free(line);
	return ret < 0 ? ret : 0;
}

int list_read(const char *path, enum list_format format, entry_fn fn, void *ctx,
	      char err[LIST_ERROR_LEN])
{
	FILE *in;
	int ret;

	if (!strcmp(path, LIST_STDIN))
		return read_stream(stdin, "(standard input)", format, fn, ctx, err);

	in = fopen(path, "r");
	if (!in) {
		ret = -errno;
		snprintf(err, LIST_ERROR_LEN, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	ret = read_stream(in, path, format, fn, ctx, err);
	fclose(in);
	return ret;
}
