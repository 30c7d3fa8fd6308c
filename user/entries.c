// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* List line formats: addresses, domains, hosts files, adblock ||domain^, URLs. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "entries.h"
#include "keys.h"
#include "options.h"

const struct enum_value list_format_values[] = {
	ENUM_VALUE("auto", FORMAT_AUTO, "decided per line (the default)"),
	ENUM_VALUE("addr", FORMAT_ADDR, "203.0.113.7, 2001:db8::9, 198.51.100.0/24"),
	ENUM_VALUE("domain", FORMAT_DOMAIN, "evil.example: it and every name under it"),
	ENUM_VALUE("hosts", FORMAT_HOSTS, "0.0.0.0 evil.example (localhost skipped)"),
	ENUM_VALUE("adblock", FORMAT_ADBLOCK, "||evil.example^ ('!' comments skipped)"),
	ENUM_VALUE("url", FORMAT_URL, "http://evil.example/path, evil.example/path"),
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

static int emit_name(const char *text, entry_fn fn, void *ctx, const char **why)
{
	struct entry e = { .kind = ENTRY_NAME };

	if (name_normalize(text, e.name, why))
		return -EINVAL;
	return fn(&e, ctx);
}

static int emit_addr(const char *text, entry_fn fn, void *ctx, const char **why)
{
	struct entry e = { .kind = ENTRY_ADDR };

	if (key_parse(text, &e.addr, why))
		return -EINVAL;
	return fn(&e, ctx);
}

static size_t path_segments(const char *path)
{
	size_t n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

/*
 * "[userinfo@]host[:port]/path[?query][#fragment]", the scheme already cut.
 * Without a scheme the '/' is what makes it a URL and is required.
 */
static int emit_url(char *text, bool had_scheme, entry_fn fn, void *ctx, const char **why)
{
	struct entry e = { .kind = ENTRY_URL };
	char *path, *port, *end, *at;
	size_t len = 0;

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
	if (len > BLOOMXDP_PATH_MAX - 1) {
		*why = "URL path longer than 254 bytes";
		return -EINVAL;
	}
	memcpy(e.path, path, len);
	e.path[len] = '\0';
	if (path_segments(e.path) >= BLOOMXDP_MAX_PATH_PREFIXES) {
		*why = "URL path of more than 8 segments: the XDP program examines 8";
		return -EINVAL;
	}
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

static int parse_url_line(char *text, entry_fn fn, void *ctx, const char **why)
{
	char *rest = url_scheme_end(text);

	if (!rest)
		return emit_url(text, false, fn, ctx, why);
	if (strncasecmp(text, "http://", 7) && strncasecmp(text, "https://", 8)) {
		*why = "only http:// and https:// URLs are supported";
		return -EINVAL;
	}
	return emit_url(rest + 3, true, fn, ctx, why);
}

static int parse_adblock_line(char *text, entry_fn fn, void *ctx, const char **why)
{
	size_t len = strlen(text);

	if (text[0] == '!' || text[0] == '[')
		return 0;	/* adblock comment or header */
	if (strncmp(text, "||", 2) || len < 4 || text[len - 1] != '^') {
		*why = strchr(text, '$') ? "adblock options ($...) are not supported" :
		       !strncmp(text, "@@", 2) ? "adblock exception rules are not supported" :
		       "adblock rules other than ||domain^ are not supported";
		return -EINVAL;
	}
	text[len - 1] = '\0';
	return emit_name(text + 2, fn, ctx, why);
}

/* "IP name [name...]": the names; localhost and the like are skipped. */
static int parse_hosts_line(char *text, entry_fn fn, void *ctx, const char **why)
{
	struct bloomxdp_key unused;
	char *save, *tok;
	int ret;

	tok = strtok_r(text, " \t", &save);
	if (!tok || key_parse(tok, &unused, why)) {
		*why = "a hosts line starts with an address";
		return -EINVAL;
	}
	while ((tok = strtok_r(NULL, " \t", &save))) {
		struct entry e = { .kind = ENTRY_NAME };

		if (name_normalize(tok, e.name, why))
			return -EINVAL;
		/* After normalising: "localhost." is localhost too. */
		if (hosts_name_skipped(e.name))
			continue;
		ret = fn(&e, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

static enum list_format detect_format(const char *text)
{
	const char *slash;
	char first[64];
	size_t n;

	/* Adblock syntax, so that unsupported rules get an adblock reason. */
	if (!strncmp(text, "||", 2) || !strncmp(text, "@@", 2) || text[0] == '!' ||
	    text[0] == '[' || strstr(text, "##") || strstr(text, "#@#") || strchr(text, '$') ||
	    (text[0] == '/' && text[1] != '\0'))
		return FORMAT_ADBLOCK;
	if (url_scheme_end(text))
		return FORMAT_URL;
	n = strcspn(text, " \t");
	if (text[n])
		return FORMAT_HOSTS;
	slash = strchr(text, '/');
	if (!slash)
		return strchr(text, ':') || strspn(text, "0123456789.") == strlen(text) ?
		       FORMAT_ADDR : FORMAT_DOMAIN;
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

int entry_parse_line(char *text, enum list_format format, entry_fn fn, void *ctx,
		     const char **why)
{
	if (format == FORMAT_AUTO)
		format = detect_format(text);
	switch (format) {
	case FORMAT_ADDR:
		return emit_addr(text, fn, ctx, why);
	case FORMAT_DOMAIN:
		return emit_name(text, fn, ctx, why);
	case FORMAT_HOSTS:
		return parse_hosts_line(text, fn, ctx, why);
	case FORMAT_ADBLOCK:
		return parse_adblock_line(text, fn, ctx, why);
	case FORMAT_URL:
		return parse_url_line(text, fn, ctx, why);
	case FORMAT_AUTO:
		break;
	}
	*why = "unknown format";
	return -EINVAL;
}
