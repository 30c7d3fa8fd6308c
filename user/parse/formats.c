// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Resolver blocklists and data feeds: dnsmasq (address=/d/, server=/d/),
 * Unbound (local-zone:), response policy zones, and CSV rows. Only what
 * blocks a name (or an address) as a whole is taken; a line that forwards,
 * redirects or allows is refused with the reason (or, for RPZ
 * rpz-passthru, is an exception for the allowlist).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse/entries.h"
#include "parse/entry_emit.h"
#include "parse/keys.h"
#include "parse/prefixes.h"

static bool in_set(const char *word, const char *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(word, set[i]))
			return true;
	return false;
}

#define IN_SET(word, set) in_set(word, set, sizeof(set) / sizeof(set[0]))

/* ---------------------------------------------------------------- dnsmasq */

/* address=/d/VALUE answers these: nothing reaches d. */
static const char *const dnsmasq_null_answers[] = { "", "#", "0.0.0.0", "::", "127.0.0.1", "::1" };

/*
 * address=/d1/d2/VALUE, server=/d1/d2/VALUE, local=/d1/d2/: a block when
 * the answer is none (NXDOMAIN), a null address, or no upstream at all.
 */
int dnsmasq_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why)
{
	char *eq = strchr(text, '='), *rest, *value, *name, *next;
	char checked[NAME_TEXT_MAX];
	bool address;
	int pass, ret;

	if (!eq) {
		*why = "not a dnsmasq option (KEY=VALUE)";
		return -EINVAL;
	}
	*eq = '\0';
	address = !strcmp(text, "address");
	if (!address && strcmp(text, "server") && strcmp(text, "local")) {
		snprintf(entry_why, sizeof(entry_why), "dnsmasq option %.40s=: only address=, "
			 "server= and local= name domains to block", text);
		*why = entry_why;
		p->reason = "dnsmasq option other than address=, server= and local=: not read";
		return -EINVAL;
	}
	rest = eq + 1;
	value = strrchr(rest, '/');
	if (rest[0] != '/' || value == rest) {
		*why = address ? "dnsmasq address= without /DOMAIN/: it answers every domain" :
				 "dnsmasq server= without /DOMAIN/ sets an upstream for every "
				 "domain: not a block";
		return -EINVAL;
	}
	*value++ = '\0';
	if (address ? !IN_SET(value, dnsmasq_null_answers) : value[0] != '\0') {
		snprintf(entry_why, sizeof(entry_why), address ?
			 "dnsmasq address=/DOMAIN/%.60s answers with an address: a redirect, not "
			 "a block" : !strcmp(value, "#") ?
			 "dnsmasq server=/DOMAIN/%.60s sends the domain to the usual servers: not "
			 "a block" : "dnsmasq server=/DOMAIN/%.60s forwards the domain to that "
			 "server: not a block", value);
		*why = entry_why;
		p->reason = address ? "dnsmasq address=/DOMAIN/ADDRESS that is no null address: "
				      "a redirect, not a block" :
				      "dnsmasq server=/DOMAIN/SERVER: forwarded, not a block";
		return -EINVAL;
	}
	/* Every domain checked before the first is handed on: a line is taken whole or not. */
	for (pass = 0; pass < 2; pass++) {
		for (name = rest + 1; name; name = next) {
			next = strchr(name, '/');
			if (next)
				*next = '\0';
			if (!strcmp(name, "#")) {
				*why = "dnsmasq /#/ matches every domain: refused";
				return -EINVAL;
			}
			if (!name[0]) {
				*why = "dnsmasq empty domain (//, unqualified names): not "
				       "supported";
				return -EINVAL;
			}
			/* "/.evil.example/" is the older spelling of the same. */
			ret = pass ? entry_emit_name(name + (name[0] == '.'), false, fn, ctx, why) :
				     name_normalize(name + (name[0] == '.'), checked, why);
			if (ret)
				return ret;
			if (next)
				*next++ = '/';
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- Unbound */

/* local-zone types that answer nothing useful for the zone and every name under it. */
static const char *const unbound_block_types[] = {
	"deny", "refuse", "static", "inform_deny", "always_refuse", "always_nxdomain",
	"always_null", "always_deny",
};
static const char *const unbound_other_types[] = {
	"transparent", "typetransparent", "always_transparent", "redirect", "inform",
	"inform_redirect", "noview", "nodefault", "block_a",
};

/* The next token: a "quoted string" or a word; NULL at the end. */
static char *next_token(char **cursor)
{
	char *s = *cursor, *start;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return NULL;
	if (*s == '"') {
		start = ++s;
		s += strcspn(s, "\"");
	} else {
		start = s;
		s += strcspn(s, " \t");
	}
	if (*s)
		*s++ = '\0';
	*cursor = s;
	return start;
}

int unbound_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why)
{
	char *cursor, *name, *type;

	(void)p;
	if (!strcmp(text, "server:"))
		return 0;	/* the clause that local-zone lines sit in */
	if (!strncmp(text, "local-data:", 11)) {
		*why = "unbound local-data gives a name a record: only local-zone block types "
		       "are read";
		return -EINVAL;
	}
	if (strncmp(text, "local-zone:", 11)) {
		*why = "unbound option other than local-zone: not read";
		return -EINVAL;
	}
	cursor = text + 11;
	name = next_token(&cursor);
	type = next_token(&cursor);
	if (!name || !type || next_token(&cursor)) {
		*why = "unbound local-zone: takes a zone and a type";
		return -EINVAL;
	}
	if (IN_SET(type, unbound_other_types)) {
		snprintf(entry_why, sizeof(entry_why),
			 "unbound local-zone type %s: not a block", type);
		*why = entry_why;
		return -EINVAL;
	}
	if (!IN_SET(type, unbound_block_types)) {
		*why = "unbound local-zone type unknown: the block types are deny, refuse, static, "
		       "always_refuse, always_nxdomain, always_null, inform_deny";
		return -EINVAL;
	}
	if (!strcmp(name, ".")) {
		*why = "unbound local-zone of the root zone: every domain";
		return -EINVAL;
	}
	return entry_emit_name(name, false, fn, ctx, why);
}

/* ---------------------------------------------------------------- RPZ */

static const char *const rr_types[] = {
	"CNAME", "A", "AAAA", "SOA", "NS", "TXT", "MX", "PTR", "DNAME", "SRV", "HINFO",
};
static const char *const rr_classes[] = { "IN", "CH", "HS", "CS" };
static const char *const zone_directives[] = { "$TTL", "$ORIGIN", "$INCLUDE", "$GENERATE" };

/* A TTL: "3600", "1h30m". */
static bool is_ttl(const char *tok)
{
	size_t n = strspn(tok, "0123456789");

	return n && strspn(tok + n, "0123456789smhdwSMHDW") == strlen(tok + n);
}

#define ZONE_TOKENS 8

/* Splits a zone line into white-space separated tokens (in place); returns how many. */
static int zone_tokens(char *text, char *tok[ZONE_TOKENS])
{
	char *save, *t;
	int n = 0;

	for (t = strtok_r(text, " \t", &save); t && n < ZONE_TOKENS;
	     t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	return n;
}

/* The index of the record type after owner, TTL and class; -1 if none. */
static int zone_type_index(char *const *tok, int n)
{
	int i = 1;

	if (i < n && is_ttl(tok[i]))
		i++;
	if (i < n && IN_SET(tok[i], rr_classes))
		i++;
	if (i < n && is_ttl(tok[i]))
		i++;
	return i < n && IN_SET(tok[i], rr_types) ? i : -1;
}

bool rpz_line_is(const char *text)
{
	char copy[256], *tok[ZONE_TOKENS];
	struct bloomxdp_key unused;
	const char *why;
	size_t len = strcspn(text, " \t");
	int n;

	if (text[0] == '$') {
		if (len >= sizeof(copy))
			return false;
		memcpy(copy, text, len);
		copy[len] = '\0';
		return IN_SET(copy, zone_directives);
	}
	if (strlen(text) >= sizeof(copy))
		return false;
	strcpy(copy, text);
	n = zone_tokens(copy, tok);
	/* "0.0.0.0 a" is a hosts line, whatever its names. */
	if (n < 2 || !key_parse(tok[0], &unused, &why))
		return false;
	return zone_type_index(tok, n) > 0;
}

/* A name of the zone, lower case, without the trailing dot. */
static void zone_name(const char *tok, char out[NAME_TEXT_MAX])
{
	size_t i, len = strlen(tok);

	if (len && tok[len - 1] == '.')
		len--;
	if (len > NAME_TEXT_MAX - 1)
		len = NAME_TEXT_MAX - 1;
	for (i = 0; i < len; i++)
		out[i] = tolower((unsigned char)tok[i]);
	out[len] = '\0';
}

/*
 * "32.7.2.0.192" (the labels before .rpz-ip): 192.0.2.7/32; IPv6 labels are
 * the groups reversed, "zz" standing for "::".
 */
static int rpz_ip(const char *labels, struct bloomxdp_key *key, const char **why)
{
	char copy[NAME_TEXT_MAX], text[128], *part[40], *save, *t;
	size_t used = 0;
	int n = 0, i;

	snprintf(copy, sizeof(copy), "%s", labels);
	for (t = strtok_r(copy, ".", &save); t && n < 40; t = strtok_r(NULL, ".", &save))
		part[n++] = t;
	if (n == 5 && strspn(labels, "0123456789.") == strlen(labels)) {
		snprintf(text, sizeof(text), "%s.%s.%s.%s/%s", part[4], part[3], part[2], part[1],
			 part[0]);
	} else if (n >= 2 && n <= 9) {
		for (i = n - 1; i >= 1 && used < sizeof(text); i--)
			used += snprintf(text + used, sizeof(text) - used, "%s%s",
					 strcmp(part[i], "zz") ? part[i] : "", i > 1 ? ":" : "");
		/* "zz" last: "2001:db8:" needs its "::" whole. */
		if (used < sizeof(text) && used && text[used - 1] == ':')
			used += snprintf(text + used, sizeof(text) - used, ":");
		if (used < sizeof(text))
			snprintf(text + used, sizeof(text) - used, "/%s", part[0]);
	} else {
		*why = "RPZ rpz-ip owner is PREFIXLEN.REVERSED-ADDRESS.rpz-ip";
		return -EINVAL;
	}
	if (key_parse(text, key, why)) {
		*why = "RPZ rpz-ip owner is not a prefix length and an address, reversed";
		return -EINVAL;
	}
	return 0;
}

static bool ends_with_label(const char *name, const char *label)
{
	size_t n = strlen(name), l = strlen(label);

	return n > l && name[n - l - 1] == '.' && !strcmp(name + n - l, label);
}

/* The owner name as the policy's trigger: relative to the zone, '*.' cut. */
static int rpz_owner(struct list_parse *p, const char *tok, char out[NAME_TEXT_MAX],
		     const char **why)
{
	size_t n, o = strlen(p->zone_origin);
	bool absolute = tok[0] && tok[strlen(tok) - 1] == '.';

	if (!strcmp(tok, "@")) {
		*why = "RPZ record at the zone's apex (@): not a trigger";
		return -EINVAL;
	}
	zone_name(tok, out);
	n = strlen(out);
	if (absolute && o) {
		if (n <= o + 1 || out[n - o - 1] != '.' || strcmp(out + n - o, p->zone_origin)) {
			*why = "RPZ owner name outside the zone's $ORIGIN";
			return -EINVAL;
		}
		out[n - o - 1] = '\0';
	}
	if (!strncmp(out, "*.", 2))
		memmove(out, out + 2, strlen(out + 2) + 1);
	return 0;
}

int rpz_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx, const char **why)
{
	char *tok[ZONE_TOKENS], owner[NAME_TEXT_MAX], *open, *rdata;
	struct entry e = { .kind = ENTRY_ADDR };
	bool allow = false;
	int n, t;

	if (p->zone_open_paren) {
		/* The rest of a record in parentheses: the SOA's numbers. */
		if (strchr(text, ')'))
			p->zone_open_paren = false;
		return 0;
	}
	open = strchr(text, '(');
	if (open && !strchr(open, ')'))
		p->zone_open_paren = true;
	n = zone_tokens(text, tok);
	if (tok[0][0] == '$') {
		if (!strcasecmp(tok[0], "$ORIGIN") && n >= 2) {
			zone_name(tok[1], p->zone_origin);
			return 0;
		}
		if (!strcasecmp(tok[0], "$TTL"))
			return 0;
		*why = !strcasecmp(tok[0], "$INCLUDE") ?
		       "zone $INCLUDE: the file is not read; give it to load as well" :
		       "zone directive other than $ORIGIN and $TTL: not supported";
		return -EINVAL;
	}
	t = zone_type_index(tok, n);
	if (t < 0) {
		*why = "not a zone record (OWNER [TTL] [CLASS] TYPE DATA)";
		return -EINVAL;
	}
	if (!strcasecmp(tok[t], "SOA") || !strcasecmp(tok[t], "NS")) {
		/* Zone boilerplate; an absolute SOA owner names the zone when $ORIGIN does not. */
		if (!strcasecmp(tok[t], "SOA") && !p->zone_origin[0] &&
		    tok[0][strlen(tok[0]) - 1] == '.')
			zone_name(tok[0], p->zone_origin);
		return 0;
	}
	rdata = t + 1 < n ? tok[t + 1] : "";
	if (!strcasecmp(tok[t], "CNAME")) {
		if (!strcmp(rdata, "rpz-passthru.")) {
			allow = true;
		} else if (strcmp(rdata, ".") && strcmp(rdata, "*.") &&
			   strcmp(rdata, "rpz-drop.")) {
			snprintf(entry_why, sizeof(entry_why), strcmp(rdata, "rpz-tcp-only.") ?
				 "RPZ CNAME to %.60s: a redirect to another name, not a block" :
				 "RPZ %.60s: not a block", rdata);
			*why = entry_why;
			p->reason = "RPZ CNAME to a name: a redirect, not a block";
			return -EINVAL;
		}
	} else if (!strcasecmp(tok[t], "A") || !strcasecmp(tok[t], "AAAA")) {
		if (strcmp(rdata, "0.0.0.0") && strcmp(rdata, "::")) {
			*why = "RPZ local data with an address other than 0.0.0.0 or ::: a "
			       "redirect, not a block";
			return -EINVAL;
		}
	} else {
		*why = "RPZ record type other than CNAME, A and AAAA: not a policy bloomxdp takes";
		return -EINVAL;
	}
	if (rpz_owner(p, tok[0], owner, why))
		return -EINVAL;
	if (ends_with_label(owner, "rpz-ip")) {
		owner[strlen(owner) - strlen(".rpz-ip")] = '\0';
		if (rpz_ip(owner, &e.addr, why))
			return -EINVAL;
		e.allow = allow;
		return fn(&e, ctx);
	}
	if (ends_with_label(owner, "rpz-client-ip") || ends_with_label(owner, "rpz-nsip") ||
	    ends_with_label(owner, "rpz-nsdname")) {
		*why = "RPZ client or name-server trigger (rpz-client-ip, rpz-nsip, "
		       "rpz-nsdname): not a name or an address to block";
		return -EINVAL;
	}
	return entry_emit_name(owner, allow, fn, ctx, why);
}

/* ---------------------------------------------------------------- CSV */

static int parse_column(const char *text, size_t len, __u32 *column)
{
	char buf[16];
	unsigned long v;

	if (!len || len >= sizeof(buf) || strspn(text, "0123456789") < len)
		return -EINVAL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	v = strtoul(buf, NULL, 10);
	if (v < 1 || v > CSV_COLUMN_MAX)
		return -EINVAL;
	*column = v;
	return 0;
}

const char *csv_options_check(__u32 format, const char *columns, int nwhere)
{
	if ((columns || nwhere) && format != FORMAT_CSV)
		return "--column and --where go with --format csv";
	if (format == FORMAT_CSV && !columns)
		return "--format csv needs --column: N, the column of the entries (from 1), or "
		       "N,M, a range from the address in column N to the one in column M";
	return NULL;
}

int csv_spec_parse(const char *columns, const char *const *where, int nwhere,
		   struct csv_spec *spec, const char **why)
{
	size_t len;
	int i;

	memset(spec, 0, sizeof(*spec));
	spec->column[0] = 1;
	if (columns) {
		len = strcspn(columns, ",-");
		if (parse_column(columns, len, &spec->column[0]) ||
		    (columns[len] && parse_column(columns + len + 1, strlen(columns + len + 1),
						  &spec->column[1]))) {
			*why = "--column takes N (the entry's column) or N,M (a range from column "
			       "N to M), from 1 to 1024";
			return -EINVAL;
		}
	}
	if (nwhere > CSV_WHERE_MAX) {
		*why = "--where may be given at most 16 times";
		return -EINVAL;
	}
	for (i = 0; i < nwhere; i++) {
		len = strcspn(where[i], "=");
		if (!where[i][len] || parse_column(where[i], len, &spec->where[i].column)) {
			*why = "--where takes COLUMN=VALUE, COLUMN from 1 to 1024";
			return -EINVAL;
		}
		spec->where[i].value = where[i] + len + 1;
	}
	spec->nwhere = nwhere;
	return 0;
}

/*
 * The fields of a row, in place: separated by ',', "quoted" ones may hold
 * ',' and "" for '"'; white space around a field is cut. Returns how many.
 */
static int csv_fields(char *text, char **field, int max)
{
	char *r = text, *w, *start;
	int n = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t')
			r++;
		w = start = r;
		if (n < max)
			field[n] = w;
		if (*r == '"') {
			for (r++; *r; r++) {
				if (*r == '"' && r[1] == '"')
					r++;
				else if (*r == '"')
					break;
				*w++ = *r;
			}
			if (*r == '"')
				r++;
			r += strcspn(r, ",");
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
			while (w > start && (w[-1] == ' ' || w[-1] == '\t'))
				w--;
		}
		n++;
		if (!*r) {
			*w = '\0';
			return n;
		}
		*w = '\0';
		r++;
	}
}

int csv_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx, const char **why)
{
	const struct csv_spec *s = p->csv;
	char *field[CSV_COLUMN_MAX];
	__u32 i, j, need = 0;
	bool first = !p->csv_rows, ok;
	int n, ret;

	if (!s) {
		*why = "csv needs --column";
		return -EINVAL;
	}
	p->csv_rows = true;
	n = csv_fields(text, field, CSV_COLUMN_MAX);
	need = s->column[0] > s->column[1] ? s->column[0] : s->column[1];
	for (i = 0; i < s->nwhere; i++)
		if (s->where[i].column > need)
			need = s->where[i].column;
	if ((__u32)n < need) {
		snprintf(entry_why, sizeof(entry_why), "CSV row of %d columns: --column and "
			 "--where need %u", n, need);
		*why = entry_why;
		p->reason = "CSV row with fewer columns than --column and --where need";
		return -EINVAL;
	}
	/* Each column named by --where must hold one of the values given for it. */
	for (i = 0; i < s->nwhere; i++) {
		ok = false;
		for (j = 0; j < s->nwhere && !ok; j++)
			ok = s->where[j].column == s->where[i].column &&
			     !strcmp(field[s->where[j].column - 1], s->where[j].value);
		if (!ok)
			return 0;
	}
	/*
	 * A first row without an entry is the header ("start,end,country"), and
	 * so is one whose entry would be a single label ("domain", "hostname").
	 */
	if (first && !s->column[1] && !strpbrk(field[s->column[0] - 1], ".:"))
		return 0;
	ret = entry_emit_csv_field(field[s->column[0] - 1],
				   s->column[1] ? field[s->column[1] - 1] : NULL, p, fn, ctx, why);
	/* A first row refused as too wide is no header: it says so. */
	if (ret == -EINVAL && first && *why != prefix_too_wide_why)
		return 0;
	return ret;
}
