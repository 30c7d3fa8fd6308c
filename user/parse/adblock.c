// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Adblock filter lists (Adblock Plus, uBlock Origin, AdGuard syntax): the
 * rules that block a host or a URL as a whole, and their exceptions. The
 * rest (cosmetic rules, options that narrow a rule to some requests,
 * regular expressions, wildcards) is refused with the reason, so that a
 * list is never read as blocking less, or more, than bloomxdp can honour.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse/entries.h"
#include "parse/entry_emit.h"
#include "parse/keys.h"

/*
 * Options that keep a rule blocking every request to its host: the kind of
 * page (document, popup) is no narrower than the host for a packet filter,
 * important and match-case change nothing here (paths are matched
 * case-sensitively anyway).
 */
static const char *const block_options[] = {
	"all", "important", "doc", "document", "popup", "popunder", "match-case",
};
/* An exception with these still unblocks every request to its host. */
static const char *const exception_options[] = { "important", "match-case" };

static bool option_in(const char *opt, size_t len, const char *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(set[i]) == len && !strncmp(opt, set[i], len))
			return true;
	return false;
}

/* The options after '$': 0 when all are in the set; else -EINVAL naming the first other. */
static int check_options(const char *opts, bool exception, struct list_parse *p,
			 const char **why)
{
	const char *const *set = exception ? exception_options : block_options;
	size_t n = exception ? sizeof(exception_options) / sizeof(exception_options[0]) :
			       sizeof(block_options) / sizeof(block_options[0]);
	size_t len, name_len;

	while (*opts) {
		len = strcspn(opts, ",");
		name_len = strcspn(opts, ",=");
		if (name_len > len)
			name_len = len;
		if (!option_in(opts, name_len, set, n)) {
			snprintf(entry_why, sizeof(entry_why), exception ?
				 "adblock exception with option $%.*s: only whole-host exceptions "
				 "go to the allowlist" :
				 "adblock option $%.*s narrows the rule to some requests: bloomxdp "
				 "blocks all or nothing", (int)(name_len > 40 ? 40 : name_len),
				 opts);
			*why = entry_why;
			p->reason = exception ?
				"adblock exception with an option ($domain=, $generichide...): "
				"only whole-host exceptions go to the allowlist" :
				"adblock option that narrows the rule to some requests "
				"($third-party, $script, $domain=...): bloomxdp blocks all or "
				"nothing";
			return -EINVAL;
		}
		opts += len + (opts[len] == ',');
	}
	return 0;
}

static bool is_cosmetic(const char *text)
{
	static const char *const marks[] = {
		"##", "#@#", "#?#", "#@?#", "#$#", "#@$#", "#%#", "#@%#", "#+js", "$$", "$@$",
	};
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(text, marks[i]))
			return true;
	return false;
}

/*
 * A bare host in an adblock list ("evil.example", as uBlock Origin reads it);
 * not "-ad-banner." or ".ads.", which are patterns found anywhere in a URL.
 */
static bool is_bare_host(const char *text)
{
	size_t len = strlen(text);

	return len && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789.-_:") == len &&
	       isalnum((unsigned char)text[0]) && isalnum((unsigned char)text[len - 1]);
}

int adblock_parse_line(char *text, struct list_parse *p, entry_fn fn, void *ctx,
		       const char **why)
{
	bool exception = false;
	char *opts, *host, *end, *path, name[NAME_TEXT_MAX];
	struct bloomxdp_key unused;
	const char *unused_why;

	if (text[0] == '!' || text[0] == '[')
		return 0;	/* adblock comment, preprocessor directive or header */
	if (is_cosmetic(text)) {
		*why = "adblock cosmetic or scriptlet rule (##, #$#, #%#...): it hides page "
		       "elements, nothing to block in packets";
		return -EINVAL;
	}
	if (!strncmp(text, "@@", 2)) {
		exception = true;
		text += 2;
	}
	if (text[0] == '/' && strlen(text) > 1 && strchr(text + 1, '/') &&
	    (text[strlen(text) - 1] == '/' || strstr(text, "/$"))) {
		*why = "adblock regular expression rule (/.../): not supported";
		return -EINVAL;
	}
	/* The first '$': a pattern holds none, an option's value (a regex) may. */
	opts = strchr(text, '$');
	if (opts) {
		*opts++ = '\0';
		if (check_options(opts, exception, p, why))
			return -EINVAL;
	}
	if (strncmp(text, "||", 2)) {
		/* uBlock Origin's plain host lines: an address or a domain. */
		if (!exception && is_bare_host(text) && !key_parse(text, &unused, &unused_why))
			return entry_emit_addr(text, fn, ctx, why);
		if (!exception && is_bare_host(text) && !name_normalize(text, name, &unused_why))
			return entry_emit_name(text, false, fn, ctx, why);
		*why = "adblock rule not anchored at a host (||host): it matches text anywhere "
		       "in a URL";
		return -EINVAL;
	}
	host = text + 2;
	if (strchr(host, '*')) {
		*why = "adblock rule with a wildcard (*): not supported";
		return -EINVAL;
	}
	end = host + strcspn(host, "/^|:?");
	switch (*end) {
	case '^':
		/* ||host^ and ||host^|: the host and every name under it. */
		if (end[1] && strcmp(end + 1, "|")) {
			*why = "adblock rule with more after the host's '^': not supported";
			return -EINVAL;
		}
		*end = '\0';
		if (!key_parse(host, &unused, &unused_why)) {
			if (exception) {
				*why = "adblock exception of an address: only domains are taken "
				       "as exceptions";
				return -EINVAL;
			}
			return entry_emit_addr(host, fn, ctx, why);
		}
		return entry_emit_name(host, exception, fn, ctx, why);
	case '/':
		break;
	case ':':
		*why = "adblock rule with a port: the XDP program does not match ports";
		return -EINVAL;
	case '?':
		*why = "adblock rule with a query string: the XDP program ignores query strings";
		return -EINVAL;
	default:
		*why = "adblock rule without '^' after the host: it matches any host name that "
		       "starts so (evil.example.other too)";
		return -EINVAL;
	}
	/* ||host/path^, ||host/path| and ||host/path/: a URL, at a '/' boundary. */
	path = end;
	end = path + strlen(path);
	if (strpbrk(path, "?=&")) {
		*why = "adblock rule with a query string: the XDP program ignores query strings";
		return -EINVAL;
	}
	if (end[-1] == '^' || end[-1] == '|')
		*--end = '\0';
	else if (end[-1] != '/') {
		*why = "adblock URL rule that does not end at a separator ('^' or '/'): it "
		       "matches paths that merely start so";
		return -EINVAL;
	}
	if (strpbrk(path, "^|")) {
		*why = "adblock rule with '^' or '|' inside its path: not supported";
		return -EINVAL;
	}
	if (exception) {
		*why = "adblock URL exception: the allowlist takes addresses and domains";
		return -EINVAL;
	}
	return entry_emit_url(host, false, p, fn, ctx, why);
}
