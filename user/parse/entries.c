// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* List line formats: addresses and ranges, domains, hosts files, URLs; the dispatch per line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include "parse/entries.h"
#include "parse/keys.h"
#include "util/options.h"
#include "parse/prefixes.h"

__thread char entry_why[ENTRY_WHY_MAX];

const struct enum_value list_format_values[] = {
	ENUM_VALUE("auto", FORMAT_AUTO, "decided per line (the default; not csv)"),
	ENUM_VALUE("addr", FORMAT_ADDR, "203.0.113.7, 198.51.100.0/24, 192.0.2.1-192.0.2.9"),
	ENUM_VALUE("domain", FORMAT_DOMAIN, "evil.example: it and every name under it"),
	ENUM_VALUE("hosts", FORMAT_HOSTS, "0.0.0.0 evil.example (localhost skipped)"),
	ENUM_VALUE("adblock", FORMAT_ADBLOCK,
		   "||evil.example^, ||evil.example/path^, @@||ok.example^"),
	ENUM_VALUE("url", FORMAT_URL, "http://evil.example/path, evil.example/path"),
	ENUM_VALUE("dnsmasq", FORMAT_DNSMASQ,
		   "address=/evil.example/0.0.0.0, server=/evil.example/"),
	ENUM_VALUE("unbound", FORMAT_UNBOUND, "local-zone: \"evil.example\" always_nxdomain"),
	ENUM_VALUE("rpz", FORMAT_RPZ, "evil.example CNAME . (a response policy zone)"),
	ENUM_VALUE("csv", FORMAT_CSV, "rows of comma-separated values: see --column, --where"),
	{}
};

int list_format_parse(const char *name, enum list_format *format)
{
	__u32 value;

	if (enum_value_parse(list_format_values, name, &value))
		return -EINVAL;
	*format = value;
	return 0;
}

/* Names that hosts files map to themselves: never list them. */
static bool hosts_name_skipped(const char *name)
{
	static const char *const skipped[] = {
		"localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost",
		"ip6-loopback", "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes",
		"ip6-allrouters", "ip6-allhosts", "0.0.0.0",
	};
	size_t i;

	for (i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		if (!strcasecmp(name, skipped[i]))
			return true;
	return false;
}

int entry_emit_name(const char *text, bool allow, entry_fn fn, void *ctx, const char **why)
{
	struct entry e = { .kind = ENTRY_NAME, .allow = allow };

	if (name_normalize(text, e.name, why))
		return -EINVAL;
	return fn(&e, ctx);
}

int entry_emit_addr(const char *text, entry_fn fn, void *ctx, const char **why)
{
	struct entry e = { .kind = ENTRY_ADDR };

	if (key_parse(text, &e.addr, why))
		return -EINVAL;
	return fn(&e, ctx);
}

struct range_emit {
	entry_fn fn;
	void *ctx;
};

static int emit_range_key(const struct bloomxdp_key *key, void *arg)
{
	struct range_emit *r = arg;
	struct entry e = { .kind = ENTRY_ADDR, .addr = *key };

	return r->fn(&e, r->ctx);
}

static int range_check_key(const struct bloomxdp_key *key, void *arg)
{
	(void)arg;
	return prefix_too_wide(key) ? -ERANGE : 0;
}

/*
 * The covering prefixes of start..end to fn, as key_parse_range(); with
 * p->refuse_wide, a range that covers a prefix too wide is a bad line, none
 * of its prefixes handed on (p may be NULL: none refused).
 */
static int emit_range_keys(const char *start, const char *end, unsigned int flags,
			   const struct list_parse *p, entry_fn fn, void *ctx, const char **why)
{
	struct range_emit r = { .fn = fn, .ctx = ctx };
	int ret;

	if (p && p->refuse_wide) {
		ret = key_parse_range(start, end, flags, range_check_key, NULL, why);
		if (ret == -ERANGE) {
			*why = prefix_too_wide_why;
			return -EINVAL;
		}
		if (ret)
			return ret;
	}
	return key_parse_range(start, end, flags, emit_range_key, &r, why);
}

/* "START-END": its covering prefixes; flags as key_parse_range()'s. */
static int emit_range(char *text, char *dash, unsigned int flags, const struct list_parse *p,
		      entry_fn fn, void *ctx, const char **why)
{
	*dash = '\0';
	return emit_range_keys(text, dash + 1, flags, p, fn, ctx, why);
}

/* The '-' of "a.b.c.d-e.f.g.h" or "a::-b::", or NULL: a name may hold '-' too. */
static char *range_dash(const char *text)
{
	char first[64];
	const char *dash = strchr(text, '-');
	__u8 addr[16];
	size_t n;

	if (!dash || strchr(dash + 1, '-') || strchr(text, '/'))
		return NULL;
	n = dash - text;
	if (n >= sizeof(first))
		return NULL;
	memcpy(first, text, n);
	first[n] = '\0';
	if (inet_pton(AF_INET, first, addr) != 1 && inet_pton(AF_INET6, first, addr) != 1)
		return NULL;
	return (char *)dash;
}

/*
 * A path the XDP program cannot see whole (more than 8 segments, or longer
 * than it reads) is cut at a '/' to what it sees: the entry then blocks
 * every path under that prefix, more than the list asked, and says so.
 * Returns the kept length, or 0 when not even a first segment fits.
 */
static size_t path_fit(const char *path, size_t len, struct list_parse *p)
{
	size_t i, segments = 0, cut = len;

	for (i = 0; i < len; i++) {
		if (path[i] != '/')
			continue;
		if (++segments == BLOOMXDP_MAX_PATH_PREFIXES) {
			cut = i;
			break;
		}
	}
	if (cut > BLOOMXDP_PATH_MAX - 1) {
		for (cut = BLOOMXDP_PATH_MAX - 1; cut > 0 && path[cut] != '/'; cut--)
			;
	}
	if (cut < len) {
		p->widened = "URL path beyond the 8 segments or 254 bytes the XDP program "
			     "examines: stored by its first segments, which blocks every path "
			     "under them";
	}
	return cut;
}

/*
 * "[userinfo@]host[:port]/path[?query][#fragment]", the scheme already cut.
 * Without a scheme the '/' is what makes it a URL and is required.
 */
int entry_emit_url(char *text, bool had_scheme, struct list_parse *p, entry_fn fn, void *ctx,
		   const char **why)
{
	struct entry e = { .kind = ENTRY_URL };
	char *path, *port, *end, *at;
	size_t len = 0, kept;

	path = text + strcspn(text, "/?#");
	if (*path != '/' && !had_scheme) {
		*why = "a URL needs a path after the host, at least '/'";
		return -EINVAL;
	}
	if (*path == '/') {
		end = path + strcspn(path, "?#");
		while (end > path && end[-1] == '/')
			end--;
		len = end - path;
	}
	kept = path_fit(path, len, p);
	if (len && !kept) {
		*why = "URL path whose first segment is longer than 254 bytes";
		return -EINVAL;
	}
	memcpy(e.path, path, kept);
	e.path[kept] = '\0';
	*path = '\0';
	/* Userinfo ends at the last '@' (RFC 3986 3.2), as the XDP program reads it. */
	at = strrchr(text, '@');
	if (at)
		text = at + 1;
	port = strrchr(text, ':');
	if (port) {
		if (!port[1] || strspn(port + 1, "0123456789") != strlen(port + 1) ||
		    strlen(port + 1) > 5) {
			*why = "the port after ':' must be a number";
			return -EINVAL;
		}
		*port = '\0';	/* ports are not matched: a path is blocked on every port */
	}
	if (name_normalize(text, e.name, why))
		return -EINVAL;
	return fn(&e, ctx);
}

/* "scheme://" only before the path: "evil.example/r?u=http://x" has none. */
static char *url_scheme_end(const char *text)
{
	char *rest = strstr(text, "://");

	return rest && !memchr(text, '/', rest - text) ? rest : NULL;
}

static int parse_url_line(char *text, struct list_parse *p, entry_fn fn, void *ctx,
			  const char **why)
{
	char *rest = url_scheme_end(text);

	if (!rest)
		return entry_emit_url(text, false, p, fn, ctx, why);
	if (strncasecmp(text, "http://", 7) && strncasecmp(text, "https://", 8)) {
		*why = "only http:// and https:// URLs are supported";
		return -EINVAL;
	}
	return entry_emit_url(rest + 3, true, p, fn, ctx, why);
}

static int parse_addr_line(char *text, const struct list_parse *p, entry_fn fn, void *ctx,
			   const char **why)
{
	char *dash = range_dash(text);

	return dash ? emit_range(text, dash, 0, p, fn, ctx, why) :
		      entry_emit_addr(text, fn, ctx, why);
}

/* "IP name [name...]": the names; localhost and the like are skipped. */
static int parse_hosts_line(char *text, entry_fn fn, void *ctx, const char **why)
{
	struct entry e = { .kind = ENTRY_NAME };
	struct bloomxdp_key unused;
	char *save, *tok, *name, *end, c;
	int pass, ret;

	tok = strtok_r(text, " \t", &save);
	if (!tok || key_parse(tok, &unused, why)) {
		*why = "a hosts line starts with an address";
		return -EINVAL;
	}
	/* Every name checked before the first is handed on: a line is taken whole or not. */
	for (pass = 0; pass < 2; pass++) {
		for (name = save; *(name += strspn(name, " \t")); name = end) {
			end = name + strcspn(name, " \t");
			c = *end;
			*end = '\0';
			ret = name_normalize(name, e.name, why) ? -EINVAL : 0;
			/* After normalising: "localhost." is localhost too. */
			if (!ret && pass && !hosts_name_skipped(e.name))
				ret = fn(&e, ctx);
			*end = c;
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* One entry without white space: an address, prefix or range, a domain, or a URL. */
static enum list_format detect_single(const char *text)
{
	const char *slash;
	char first[64];
	size_t n;

	if (url_scheme_end(text))
		return FORMAT_URL;
	slash = strchr(text, '/');
	if (!slash)
		return strchr(text, ':') || strspn(text, "0123456789.") == strlen(text) ||
		       range_dash(text) ? FORMAT_ADDR : FORMAT_DOMAIN;
	/* "198.51.100.0/24" is a prefix, "evil.example/path" a URL. */
	n = slash - text;
	if (n < sizeof(first)) {
		memcpy(first, text, n);
		first[n] = '\0';
		/* Not "evil.example:8080/x": a port is no IPv6 address. */
		if (strspn(first, "0123456789.") == n ||
		    (strchr(first, ':') && strspn(first, "0123456789abcdefABCDEF:.") == n))
			return FORMAT_ADDR;
	}
	return FORMAT_URL;
}

int entry_parse_single(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why)
{
	switch (detect_single(text)) {
	case FORMAT_ADDR:
		return parse_addr_line(text, p, fn, ctx, why);
	case FORMAT_URL:
		return parse_url_line(text, p, fn, ctx, why);
	default:
		return entry_emit_name(text, false, fn, ctx, why);
	}
}

static bool starts_with(const char *text, const char *prefix)
{
	return !strncmp(text, prefix, strlen(prefix));
}

/* Where a line's syntax says which format it is; the rest is an entry per line. */
static enum list_format detect_format(const char *text, const struct list_parse *p)
{
	if (p->zone_open_paren || (text[0] == '$' && rpz_line_is(text)))
		return FORMAT_RPZ;
	/* Adblock syntax, so that unsupported rules get an adblock reason. */
	if (starts_with(text, "||") || starts_with(text, "@@") || text[0] == '!' ||
	    text[0] == '[' || text[0] == '|' || strstr(text, "##") || strstr(text, "#@") ||
	    strstr(text, "#?#") || strstr(text, "#$#") || strstr(text, "#%#") ||
	    strchr(text, '$') ||
	    (text[0] == '/' && text[1] != '\0'))
		return FORMAT_ADBLOCK;
	/* A zone record has white space between its fields. */
	if (text[strcspn(text, " \t")] && rpz_line_is(text))
		return FORMAT_RPZ;
	if (starts_with(text, "address=") || starts_with(text, "server=") ||
	    starts_with(text, "local="))
		return FORMAT_DNSMASQ;
	if (starts_with(text, "local-zone:") || starts_with(text, "local-data:") ||
	    !strcmp(text, "server:"))
		return FORMAT_UNBOUND;
	if (text[strcspn(text, " \t")])
		return FORMAT_HOSTS;
	return detect_single(text);
}

void list_parse_init(struct list_parse *p, enum list_format format, const struct csv_spec *csv)
{
	memset(p, 0, sizeof(*p));
	p->format = format;
	p->csv = csv;
}

int entry_parse_line(char *text, enum list_format format, entry_fn fn, void *ctx,
		     const char **why)
{
	struct list_parse p;

	list_parse_init(&p, format, NULL);
	return list_parse_line(&p, text, fn, ctx, why);
}

/*
 * "a.b.c.d" or "a.b.c.d/len" as inet_pton() and key_parse() read them (no
 * leading zeros, octets to 255, no host bits after len): the address key,
 * in a fraction of their time. False for anything else, which the general
 * path then parses and, if need be, refuses with its reason.
 */
static bool ipv4_plain(const char *s, struct bloomxdp_key *key)
{
	__u32 a = 0, v, len = 32, part;
	const char *start;
	__u8 be[4];

	for (part = 0; part < 4; part++) {
		start = s;
		for (v = 0; *s >= '0' && *s <= '9' && s - start < 3; s++)
			v = v * 10 + (*s - '0');
		if (s == start || v > 255 || (*start == '0' && s - start > 1))
			return false;
		a = a << 8 | v;
		if (part < 3 && *s++ != '.')
			return false;
	}
	if (*s == '/') {
		start = ++s;
		for (len = 0; *s >= '0' && *s <= '9' && s - start < 2; s++)
			len = len * 10 + (*s - '0');
		if (s == start || len > 32 || (*start == '0' && s - start > 1))
			return false;
	}
	if (*s || (len < 32 && (a & (0xffffffffU >> len))))
		return false;
	be[0] = a >> 24;
	be[1] = a >> 16;
	be[2] = a >> 8;
	be[3] = a;
	bloomxdp_key_ipv4(key, be, len);
	return true;
}

int list_parse_plain(struct list_parse *p, const char *text, entry_fn fn, void *ctx)
{
	/* Not zeroed whole: its name and path (half a KiB) would cost more than the parse. */
	struct entry e;

	e.kind = ENTRY_ADDR;
	e.allow = false;
	e.name[0] = '\0';
	e.path[0] = '\0';

	/* Auto takes such a line for an address too, unless inside a zone record. */
	if ((p->format != FORMAT_AUTO && p->format != FORMAT_ADDR) || p->zone_open_paren ||
	    !ipv4_plain(text, &e.addr))
		return 1;
	p->widened = NULL;
	p->reason = NULL;
	return fn(&e, ctx);
}

int list_parse_line(struct list_parse *p, char *text, entry_fn fn, void *ctx, const char **why)
{
	enum list_format format = p->format;

	p->widened = NULL;
	p->reason = NULL;
	if (format == FORMAT_AUTO)
		format = detect_format(text, p);
	switch (format) {
	case FORMAT_ADDR:
		return parse_addr_line(text, p, fn, ctx, why);
	case FORMAT_DOMAIN:
		return entry_emit_name(text, false, fn, ctx, why);
	case FORMAT_HOSTS:
		return parse_hosts_line(text, fn, ctx, why);
	case FORMAT_ADBLOCK:
		return adblock_parse_line(text, p, fn, ctx, why);
	case FORMAT_URL:
		return parse_url_line(text, p, fn, ctx, why);
	case FORMAT_DNSMASQ:
		return dnsmasq_parse_line(text, p, fn, ctx, why);
	case FORMAT_UNBOUND:
		return unbound_parse_line(text, p, fn, ctx, why);
	case FORMAT_RPZ:
		return rpz_parse_line(text, p, fn, ctx, why);
	case FORMAT_CSV:
		return csv_parse_line(text, p, fn, ctx, why);
	case FORMAT_AUTO:
		break;
	}
	*why = "unknown format";
	return -EINVAL;
}

int entry_emit_csv_field(char *field, char *end, struct list_parse *p, entry_fn fn, void *ctx,
			 const char **why)
{
	char *dash;

	if (end)
		return emit_range_keys(field, end, KEY_DECIMAL, p, fn, ctx, why);
	/* A lone decimal number is an address too (Tor's geoip, IP2Location). */
	if (*field && strspn(field, "0123456789") == strlen(field))
		return emit_range_keys(field, field, KEY_DECIMAL, p, fn, ctx, why);
	dash = range_dash(field);
	if (dash)
		return emit_range(field, dash, KEY_DECIMAL, p, fn, ctx, why);
	return entry_parse_single(field, p, fn, ctx, why);
}
