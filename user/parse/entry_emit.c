// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An entry handed on from its text, as every line format needs it (entry_emit.h):
 * a name, an address, prefix or range, a URL; and a field of its own (auto's guess).
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

#include "parse/entry_emit.h"
#include "parse/keys.h"
#include "parse/prefixes.h"

__thread char entry_why[ENTRY_WHY_MAX];

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

int entry_parse_url(char *text, struct list_parse *p, entry_fn fn, void *ctx, const char **why)
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

int entry_parse_addr(char *text, const struct list_parse *p, entry_fn fn, void *ctx,
		     const char **why)
{
	char *dash = range_dash(text);

	return dash ? emit_range(text, dash, 0, p, fn, ctx, why) :
		      entry_emit_addr(text, fn, ctx, why);
}

/* One entry without white space: an address, prefix or range, a domain, or a URL. */
enum list_format entry_single_format(const char *text)
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
	switch (entry_single_format(text)) {
	case FORMAT_ADDR:
		return entry_parse_addr(text, p, fn, ctx, why);
	case FORMAT_URL:
		return entry_parse_url(text, p, fn, ctx, why);
	default:
		return entry_emit_name(text, false, fn, ctx, why);
	}
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
