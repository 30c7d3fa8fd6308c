/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_ENTRIES_H
#define BLOOMXDP_ENTRIES_H

#include <bloomxdp/name.h>
#include "names.h"
#include "options.h"

/* What one list entry is. */
enum entry_kind {
	ENTRY_ADDR,	/* an IPv4/IPv6 address */
	ENTRY_NAME,	/* a domain: itself and every name under it */
	ENTRY_URL,	/* HTTP requests to a host (or under it) whose path starts with path */
};

/* How the lines of a list are read; auto decides per line. */
enum list_format {
	FORMAT_AUTO,
	FORMAT_ADDR,
	FORMAT_DOMAIN,
	FORMAT_HOSTS,
	FORMAT_ADBLOCK,
	FORMAT_URL,
};

struct entry {
	enum entry_kind kind;
	struct bloomxdp_key addr;		/* ENTRY_ADDR */
	char name[NAME_TEXT_MAX];		/* ENTRY_NAME, and the host of ENTRY_URL */
	char path[BLOOMXDP_PATH_MAX + 1];	/* ENTRY_URL: "" or "/a/b", no trailing '/' */
};

/* Called for each entry of a line (a hosts line may hold several). */
typedef int (*entry_fn)(const struct entry *e, void *ctx);

/*
 * Parses one list line's entry text (comments and white space already cut)
 * in the given format. Returns 0, the callback's negative return, or -EINVAL
 * with the reason in why.
 */
int entry_parse_line(char *text, enum list_format format, entry_fn fn, void *ctx,
		     const char **why);

/* The names of the formats, as the values of --format. */
extern const struct enum_value list_format_values[];
/* "auto", "addr", "domain", "hosts", "adblock", "url": -EINVAL for others. */
int list_format_parse(const char *name, enum list_format *format);

#endif
