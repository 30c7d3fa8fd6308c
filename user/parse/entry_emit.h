/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the line formats share, below them (entry_emit.c): an entry handed on
 * from its text (a name, an address, prefix or range, a URL), one field read
 * as auto guesses it, and where a reason built from a line's text is written.
 * entries.c dispatches a line to its format (adblock.c, formats.c); each
 * format calls these.
 */
#ifndef BLOOMXDP_ENTRY_EMIT_H
#define BLOOMXDP_ENTRY_EMIT_H

#include <stdbool.h>

#include "parse/entries.h"

/* Reasons built from a line's text (an option's name) are written here. */
extern __thread char entry_why[ENTRY_WHY_MAX];

int entry_emit_name(const char *text, bool allow, entry_fn fn, void *ctx, const char **why);
int entry_emit_addr(const char *text, entry_fn fn, void *ctx, const char **why);
/* "[userinfo@]host[:port]/path...", the scheme cut (had_scheme: the path may be left out). */
int entry_emit_url(char *text, bool had_scheme, struct list_parse *p, entry_fn fn, void *ctx,
		   const char **why);
/* A CSV row's field (end: the range's end field, or NULL): decimal numbers are addresses. */
int entry_emit_csv_field(char *field, char *end, struct list_parse *p, entry_fn fn, void *ctx,
			 const char **why);

/* An address, a prefix or a range "START-END" (its covering prefixes). */
int entry_parse_addr(char *text, const struct list_parse *p, entry_fn fn, void *ctx,
		     const char **why);
/* http(s)://host/path, or host/path without a scheme. */
int entry_parse_url(char *text, struct list_parse *p, entry_fn fn, void *ctx, const char **why);
/* One field of a line: an address, prefix, range, domain or URL. */
int entry_parse_single(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why);
/* What a field without white space is: FORMAT_ADDR, FORMAT_URL or FORMAT_DOMAIN. */
enum list_format entry_single_format(const char *text);

#endif
