/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_ENTRIES_H
#define BLOOMXDP_ENTRIES_H

#include <stdbool.h>
#include <bloomxdp/name.h>
#include "parse/domain.h"
#include "util/options.h"

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
	FORMAT_DNSMASQ,
	FORMAT_UNBOUND,
	FORMAT_RPZ,
	FORMAT_CSV,
};

struct entry {
	enum entry_kind kind;
	bool allow;				/* an exception (@@, rpz-passthru) */
	struct bloomxdp_key addr;		/* ENTRY_ADDR */
	char name[NAME_TEXT_MAX];		/* ENTRY_NAME, and the host of ENTRY_URL */
	char path[BLOOMXDP_PATH_MAX + 1];	/* ENTRY_URL: "" or "/a/b", no trailing '/' */
};

/* Called for each entry of a line (a hosts line or a range may hold several). */
typedef int (*entry_fn)(const struct entry *e, void *ctx);

/* The rows and columns --format csv takes entries from. */
#define CSV_WHERE_MAX 16
#define CSV_COLUMN_MAX 1024
struct csv_spec {
	__u32 column[2];	/* 1-based; column[1] != 0: a start,end range */
	__u32 nwhere;
	struct {
		__u32 column;
		const char *value;
	} where[CSV_WHERE_MAX];	/* a row is taken when every column has one of its values */
};

/*
 * --format csv without --column: refused (a row "start,end,cc" must not be
 * read as its start alone). NULL when the options agree, else why not.
 */
const char *csv_options_check(__u32 format, const char *columns, int nwhere);

/*
 * "N" or "N,M" (a range from column N to column M) and "COL=VALUE" filters
 * into spec; -EINVAL with the reason in why.
 */
int csv_spec_parse(const char *columns, const char *const *where, int nwhere,
		   struct csv_spec *spec, const char **why);

/*
 * How the lines of one input are read, and what a line leaves for the next
 * (a zone's $ORIGIN, an open parenthesis, a CSV header). One per input.
 */
struct list_parse {
	enum list_format format;
	const struct csv_spec *csv;	/* FORMAT_CSV */
	/* Set for the line just parsed: its entries are wider than the line (why). */
	const char *widened;
	/* And for a refused line whose why names its text: the reason it is counted under. */
	const char *reason;
	/* Carried from line to line. */
	bool zone_open_paren;		/* inside a record's "( ... )" */
	char zone_origin[NAME_TEXT_MAX];	/* $ORIGIN (or the SOA's owner), "" if none */
	bool csv_rows;			/* a CSV row was read: a header can no longer come */
	/* A range covering a prefix wider than prefixes.h allows is a bad line (no part read). */
	bool refuse_wide;
};

void list_parse_init(struct list_parse *p, enum list_format format, const struct csv_spec *csv);

/*
 * Parses one list line's entry text (comments and white space already cut).
 * Returns 0 (zero or more entries handed to fn: zone boilerplate, adblock
 * headers and CSV rows not selected hand none), the callback's negative
 * return, or -EINVAL with the reason in why: a bad line, or one that says
 * what bloomxdp cannot honour (a cosmetic rule, a forwarder).
 */
int list_parse_line(struct list_parse *p, char *text, entry_fn fn, void *ctx, const char **why);

/*
 * The common line of a long address list, an IPv4 address or prefix in
 * formats auto and addr, without copying or scanning it again: what
 * list_parse_line() would make of it. 1 for any other line (then call
 * list_parse_line()), else as list_parse_line().
 */
int list_parse_plain(struct list_parse *p, const char *text, entry_fn fn, void *ctx);

/* Whether list_parse_plain() takes plain IPv4 lines at this point of the input. */
bool list_parse_plain_on(const struct list_parse *p);

/*
 * The plain IPv4 address or prefix at the start of s as list_parse_plain()
 * takes it, and the first byte after it (the caller checks that the line
 * ends there); NULL when s does not start with one.
 */
const char *ipv4_plain_scan(const char *s, struct bloomxdp_key *key);
/* The same, faster, where s has 16 bytes to read (the line and what follows it). */
const char *ipv4_plain_scan16(const char *s, struct bloomxdp_key *key);

/* One line read on its own, in a format other than csv (a test's, a tool's). */
int entry_parse_line(char *text, enum list_format format, entry_fn fn, void *ctx,
		     const char **why);

/* The names of the formats, as the values of --format. */
extern const struct enum_value list_format_values[];
/* "auto", "addr", "domain", "hosts", "adblock", "url"...: -EINVAL for others. */
int list_format_parse(const char *name, enum list_format *format);

/* The longest reason a line is refused for (entry_why, listfile.h). */
#define ENTRY_WHY_MAX 160

/* The line formats that entries.c's list_parse_line() hands a line to (adblock.c, formats.c). */
int adblock_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why);
int dnsmasq_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why);
int unbound_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why);
int rpz_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx, const char **why);
int csv_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx, const char **why);
/* Whether a line looks like a zone file's (an RPZ's) record or directive. */
bool rpz_line_is(const char *text);

#endif
