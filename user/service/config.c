// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The daemon's configuration file (see config.h), read with inih. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ini.h>

#include "lists/load_options.h"
#include "service/config.h"
#include "util/duration.h"
#include "util/log.h"
#include "fleet/redis.h"
#include "service/metrics_http.h"
#include "kernel/state_dir.h"
#include "util/numbers.h"

#define MAX_SECTION_KEYS 48
#define KEY_MAX 32

enum section_kind { SEC_NONE, SEC_ATTACH, SEC_DAEMON, SEC_LIST, SEC_ALLOW, SEC_CROWDSEC, SEC_BAD };

/* The state of one reading: inih calls read_line() for each line, then on_key() for a key. */
struct parse {
	struct config *cfg;
	FILE *file;
	char *buf;
	size_t cap;
	unsigned int line;
	int errors;
	char context[PATH_MAX + 32];
	enum section_kind kind;
	struct config_source *src;	/* SEC_LIST, SEC_ALLOW */
	unsigned int daemon_line;
	char seen[MAX_SECTION_KEYS][KEY_MAX];	/* the keys of this section so far */
	int nseen;
	bool syntax_error;		/* on this line, said */
};

static const struct enum_value events_values[] = {
	ENUM_VALUE("json", CONFIG_EVENTS_JSON, "one JSON object per line on standard output"),
	ENUM_VALUE("syslog", CONFIG_EVENTS_SYSLOG, "syslog(3), facility daemon"),
	ENUM_VALUE("none", CONFIG_EVENTS_NONE, "not read"),
	{}
};

void config_default_path(const char *ifname, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.conf", CONFIG_DIR, ifname);
}

/* Errors name the file and the line: "bloomxdp: FILE:LINE: ...". */
static void at_line(struct parse *p, unsigned int line)
{
	snprintf(p->context, sizeof(p->context), "%s:%u: ", p->cfg->path, line);
	log_context = p->context;
}

static void __attribute__((format(printf, 3, 4)))
parse_error(struct parse *p, unsigned int line, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	at_line(p, line);
	log_error("%s", text);
	log_context = NULL;
	p->errors++;
}

static char *keep(struct config *cfg, const char *value)
{
	char **grown, *copy = strdup(value);

	if (!copy)
		return NULL;
	grown = realloc(cfg->strings, (cfg->nstrings + 1) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return NULL;
	}
	cfg->strings = grown;
	cfg->strings[cfg->nstrings++] = copy;
	return copy;
}

bool config_source_is_url(const char *source)
{
	return !strncmp(source, "http://", 7) || !strncmp(source, "https://", 8);
}

static bool valid_list_name(const char *name)
{
	size_t n = strlen(name);

	if (n < 1 || n >= FEED_NAME_MAX)
		return false;
	for (; *name; name++)
		if (!islower((unsigned char)*name) && !isdigit((unsigned char)*name) &&
		    *name != '_' && *name != '-')
			return false;
	return true;
}

/* "[list NAME]", "[allowlist]" or "[allowlist NAME]": the section as written, for errors. */
static const char *section_title(const struct feed_spec *spec, char *buf, size_t len)
{
	if (spec->load.allow && !strcmp(spec->name, "allowlist"))
		snprintf(buf, len, "[allowlist]");
	else
		snprintf(buf, len, "[%s %s]", spec->load.allow ? "allowlist" : "list", spec->name);
	return buf;
}

static struct config_source *find_source(struct config *cfg, const char *name)
{
	int i;

	for (i = 0; i < cfg->nsources; i++)
		if (!strcmp(cfg->sources[i].spec.name, name))
			return &cfg->sources[i];
	return NULL;
}

static int new_source(struct parse *p, const char *name, bool allow)
{
	struct config *cfg = p->cfg;
	struct config_source *grown, *s;

	grown = realloc(cfg->sources, (cfg->nsources + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	cfg->sources = grown;
	s = &cfg->sources[cfg->nsources++];
	memset(s, 0, sizeof(*s));
	snprintf(s->spec.name, sizeof(s->spec.name), "%s", name);
	s->spec.load = list_opts_defaults;
	s->spec.load.allow = allow;
	s->spec.refresh_s = FEED_DEFAULT_REFRESH_S;
	s->spec.max_shrink_pct = FEED_DEFAULT_MAX_SHRINK;
	s->spec.timeout_s = FEED_DEFAULT_TIMEOUT_S;
	s->spec.max_bytes = FEED_DEFAULT_MAX_BYTES;
	s->line = p->line;
	p->src = s;
	return 0;
}

/* A "[...]" line: which section the keys after it go to. */
static void start_section(struct parse *p, const char *text, size_t len)
{
	char head[64], kind[16], name[64], extra[2];
	struct config_source *other;
	bool allow;
	int n;

	p->nseen = 0;
	p->src = NULL;
	p->kind = SEC_BAD;
	if (len >= sizeof(head)) {
		parse_error(p, p->line, "section name too long");
		return;
	}
	memcpy(head, text, len);
	head[len] = '\0';
	n = sscanf(head, "%15s %63s %1s", kind, name, extra);
	if (n == 1 && !strcmp(kind, "attach")) {
		if (p->cfg->attach_line)
			parse_error(p, p->line, "a second [attach] (the first is at line %u)",
				    p->cfg->attach_line);
		else
			p->kind = SEC_ATTACH;
		p->cfg->attach_line = p->cfg->attach_line ? p->cfg->attach_line : p->line;
		return;
	}
	if (n == 1 && !strcmp(kind, "daemon")) {
		if (p->daemon_line)
			parse_error(p, p->line, "a second [daemon] (the first is at line %u)",
				    p->daemon_line);
		else
			p->kind = SEC_DAEMON;
		p->daemon_line = p->daemon_line ? p->daemon_line : p->line;
		return;
	}
	if (n == 1 && !strcmp(kind, "crowdsec")) {
		if (p->cfg->crowdsec.enabled)
			parse_error(p, p->line, "a second [crowdsec] (the first is at line %u)",
				    p->cfg->crowdsec.line);
		else
			p->kind = SEC_CROWDSEC;
		if (!p->cfg->crowdsec.enabled)
			p->cfg->crowdsec.line = p->line;
		p->cfg->crowdsec.enabled = true;
		return;
	}
	allow = !strcmp(kind, "allowlist");
	if ((n == 2 && (allow || !strcmp(kind, "list"))) || (n == 1 && allow)) {
		if (n == 1)
			strcpy(name, "allowlist");
		if (!valid_list_name(name)) {
			parse_error(p, p->line, "list name '%s': use 1 to %d of a-z, 0-9, '_' "
				    "and '-' (it names a file in the state directory)", name,
				    FEED_NAME_MAX - 1);
			return;
		}
		other = find_source(p->cfg, name);
		if (other) {
			parse_error(p, p->line, "list name '%s' is used already at line %u", name,
				    other->line);
			return;
		}
		if (new_source(p, name, allow)) {
			parse_error(p, p->line, "out of memory");
			return;
		}
		p->kind = allow ? SEC_ALLOW : SEC_LIST;
		return;
	}
	parse_error(p, p->line, "unknown section [%s]: expected [attach], [list NAME], "
		    "[allowlist], [allowlist NAME], [daemon] or [crowdsec]", head);
}

/*
 * inih's line reader, wrapped: it counts lines for the errors (Debian's inih
 * is built without INI_HANDLER_LINENO), sees the section lines (inih calls
 * the handler only for keys, so an empty or unknown section would pass
 * unseen) and refuses lines longer than inih's buffer, which it would split.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *s, *end;
	ssize_t n;

	n = getline(&p->buf, &p->cap, p->file);
	if (n < 0)
		return NULL;
	p->line++;
	p->syntax_error = false;
	if (n >= num - 2) {
		parse_error(p, p->line, "line longer than %d bytes", num - 3);
		p->syntax_error = true;
		snprintf(str, num, "\n");
		return str;
	}
	memcpy(str, p->buf, n + 1);
	s = p->buf;
	if (p->line == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == ';' || *s == '#')
		return str;
	if (*s == '[') {
		end = strchr(s, ']');
		if (!end) {
			parse_error(p, p->line, "a section line needs its ']'");
			p->syntax_error = true;
			p->kind = SEC_BAD;
		} else {
			start_section(p, s + 1, end - s - 1);
		}
		return str;
	}
	if (!strpbrk(s, "=:")) {
		parse_error(p, p->line, "expected 'key = value', a [section] or a comment");
		p->syntax_error = true;
	}
	return str;
}

/* "max_shrink" and "max-shrink" alike: the command line's spelling. */
static void key_name(const char *name, char *out)
{
	size_t i;

	for (i = 0; name[i] && i < KEY_MAX - 1; i++)
		out[i] = name[i] == '_' ? '-' : name[i];
	out[i] = '\0';
}

static bool seen_twice(struct parse *p, const char *key)
{
	int i;

	for (i = 0; i < p->nseen; i++)
		if (!strcmp(p->seen[i], key))
			return true;
	if (p->nseen < MAX_SECTION_KEYS)
		snprintf(p->seen[p->nseen++], KEY_MAX, "%s", key);
	return false;
}

/* An option of table (attach's or load's) into opts, its errors at this line. */
static int set_table_option(struct parse *p, const struct option_spec *table, void *opts,
			    const char *key, const char *value)
{
	const char *copy = keep(p->cfg, value);
	int ret;

	if (!copy) {
		parse_error(p, p->line, "out of memory");
		return -ENOMEM;
	}
	at_line(p, p->line);
	ret = options_set(table, opts, key, copy);
	log_context = NULL;
	if (ret)
		p->errors++;
	return ret;
}

static void daemon_key(struct parse *p, const char *key, const char *value)
{
	struct config *cfg = p->cfg;
	struct sockaddr_storage sa;
	struct fleet_url url;
	char choices[128];
	socklen_t len;

	if (!strcmp(key, "state-dir")) {
		if (value[0] != '/' || strlen(value) >= sizeof(cfg->state_dir))
			parse_error(p, p->line, "state_dir = %s: expected an absolute path", value);
		else
			snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", value);
	} else if (!strcmp(key, "metrics")) {
		if (value[0] && (strlen(value) >= sizeof(cfg->metrics) ||
				 metrics_parse_address(value, &sa, &len)))
			parse_error(p, p->line, "metrics = %s: expected ADDRESS:PORT "
				    "(127.0.0.1:9725, [::1]:9725), or nothing for no metrics server",
				    value);
		else
			snprintf(cfg->metrics, sizeof(cfg->metrics), "%s", value);
	} else if (!strcmp(key, "events")) {
		if (enum_value_parse(events_values, value, &cfg->events))
			parse_error(p, p->line, "events = %s: expected %s", value,
				    enum_value_choices(events_values, choices, sizeof(choices)));
	} else if (!strcmp(key, "subscribe")) {
		if (strlen(value) >= sizeof(cfg->subscribe) || fleet_url_parse(value, &url))
			parse_error(p, p->line, "subscribe = ...: expected "
				    "redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB][?cacert=PATH]");
		else
			snprintf(cfg->subscribe, sizeof(cfg->subscribe), "%s", value);
	} else if (!strcmp(key, "channel") || !strcmp(key, "node")) {
		if (!fleet_channel_valid(value))
			parse_error(p, p->line, "%s = %s: use 1 to 63 of a-z, A-Z, 0-9, '_', '-' "
				    "and '.'", key, value);
		else
			snprintf(key[0] == 'c' ? cfg->channel : cfg->node, sizeof(cfg->channel),
				 "%s", value);
	} else if (!strcmp(key, "verify-key")) {
		if (value[0] != '/' || strlen(value) >= sizeof(cfg->verify_key))
			parse_error(p, p->line, "verify_key = %s: expected the absolute path of the "
				    "publisher's public key (PEM, Ed25519)", value);
		else
			snprintf(cfg->verify_key, sizeof(cfg->verify_key), "%s", value);
	} else {
		parse_error(p, p->line, "unknown key '%s' in [daemon]: expected state_dir, metrics, "
			    "events, subscribe, channel, node or verify_key", key);
	}
}

static void crowdsec_key(struct parse *p, const char *key, const char *value)
{
	struct crowdsec_config *c = &p->cfg->crowdsec;
	char why[256], *copy, *item, *save;
	__u64 v;

	if (!strcmp(key, "lapi-url")) {
		if (strlen(value) >= sizeof(c->lapi_url) || !config_source_is_url(value) ||
		    strpbrk(value, "?# \t"))
			parse_error(p, p->line, "lapi_url = %s: expected the LAPI's http:// or "
				    "https:// URL, such as http://127.0.0.1:8080/", value);
		else
			snprintf(c->lapi_url, sizeof(c->lapi_url), "%s", value);
	} else if (!strcmp(key, "api-key")) {
		if (!crowdsec_key_valid(value))
			parse_error(p, p->line, "api_key: expected 1 to %d printable characters "
				    "without space (the output of 'cscli bouncers add NAME')",
				    CROWDSEC_KEY_MAX - 1);
		else
			snprintf(c->api_key, sizeof(c->api_key), "%s", value);
	} else if (!strcmp(key, "api-key-file")) {
		if (value[0] != '/' || strlen(value) >= sizeof(c->api_key_file))
			parse_error(p, p->line, "api_key_file = %s: expected an absolute path",
				    value);
		else if (crowdsec_key_read(value, c->api_key, why, sizeof(why)))
			parse_error(p, p->line, "api_key_file = %s: %s", value, why);
		/* Kept even when refused: the section does not also lack a key. */
		if (strlen(value) < sizeof(c->api_key_file))
			snprintf(c->api_key_file, sizeof(c->api_key_file), "%s", value);
	} else if (!strcmp(key, "interval")) {
		if (duration_parse(value, &v) || !v)
			parse_error(p, p->line, "interval = %s: expected a time such as 10s or 1m, "
				    "at most 365d", value);
		else
			c->interval_s = v;
	} else if (!strcmp(key, "timeout")) {
		if (duration_parse(value, &v) || !v || v > CONFIG_MAX_TIMEOUT_S)
			parse_error(p, p->line, "timeout = %s: expected a time from 1s to 1h",
				    value);
		else
			c->timeout_s = v;
	} else if (!strcmp(key, "max-bytes")) {
		at_line(p, p->line);
		if (parse_count_range("max_bytes =", value, 1024, 1ULL << 30, &c->max_bytes))
			p->errors++;
		log_context = NULL;
	} else if (!strcmp(key, "scopes")) {
		copy = strdup(value);
		c->scope_ip = c->scope_range = false;
		for (item = copy ? strtok_r(copy, ", ", &save) : NULL; item;
		     item = strtok_r(NULL, ", ", &save)) {
			if (!strcasecmp(item, "ip"))
				c->scope_ip = true;
			else if (!strcasecmp(item, "range"))
				c->scope_range = true;
			else
				break;
		}
		if (!copy || item || (!c->scope_ip && !c->scope_range))
			parse_error(p, p->line, "scopes = %s: expected ip, range or ip,range",
				    value);
		free(copy);
	} else if (!strcmp(key, "ca-file")) {
		if (value[0] != '/' || strlen(value) >= sizeof(c->ca_file))
			parse_error(p, p->line, "ca_file = %s: expected an absolute path", value);
		else
			snprintf(c->ca_file, sizeof(c->ca_file), "%s", value);
	} else {
		parse_error(p, p->line, "unknown key '%s' in [crowdsec]: expected lapi_url, "
			    "api_key, api_key_file, interval, timeout, max_bytes, scopes or "
			    "ca_file", key);
	}
}

/* [crowdsec] as a whole: an LAPI and one key. */
static void check_crowdsec(struct parse *p)
{
	const struct crowdsec_config *c = &p->cfg->crowdsec;

	if (!c->enabled)
		return;
	if (!c->lapi_url[0])
		parse_error(p, c->line, "[crowdsec] has no lapi_url: add 'lapi_url = "
			    "http://127.0.0.1:8080/' (the LAPI's address)");
	if (!c->api_key[0] && !c->api_key_file[0])
		parse_error(p, c->line, "[crowdsec] has no key: add 'api_key_file = PATH' (mode "
			    "0600) holding the key 'cscli bouncers add NAME' printed");
}

static void source_key(struct parse *p, const char *key, const char *value)
{
	struct feed_spec *spec = &p->src->spec;
	char title[FEED_NAME_MAX + 16];
	__u64 v;
	char *end;

	if (!strcmp(key, "source")) {
		p->src->source_refused = true;
		if (strlen(value) >= sizeof(spec->source))
			parse_error(p, p->line, "source: longer than %d bytes",
				    FEED_SOURCE_MAX - 1);
		else if (value[0] != '/' && strstr(value, "://") && !config_source_is_url(value))
			parse_error(p, p->line, "source = %s: expected an absolute path or an "
				    "http:// or https:// URL", value);
		else if (value[0] != '/' && !config_source_is_url(value))
			parse_error(p, p->line, "source = %s: a path must be absolute (from '/'), "
				    "or an http:// or https:// URL", value);
		else
			p->src->source_refused = false;
		if (!p->src->source_refused)
			snprintf(spec->source, sizeof(spec->source), "%s", value);
	} else if (!strcmp(key, "refresh")) {
		if (duration_parse(value, &spec->refresh_s))
			parse_error(p, p->line, "refresh = %s: expected an interval such as 30s, "
				    "15m, 1h or 1d (0: only at start and on SIGHUP), at most "
				    "365d", value);
	} else if (!strcmp(key, "timeout")) {
		if (duration_parse(value, &v) || !v || v > CONFIG_MAX_TIMEOUT_S)
			parse_error(p, p->line, "timeout = %s: expected a time from 1s to 1h",
				    value);
		else
			spec->timeout_s = v;
	} else if (!strcmp(key, "max-shrink")) {
		errno = 0;
		v = strtoull(value, &end, 10);
		if (!isdigit((unsigned char)value[0]) || errno || (*end && strcmp(end, "%")) ||
		    v > 100)
			parse_error(p, p->line, "max_shrink = %s: expected a percentage from 0%% "
				    "to 100%%", value);
		else
			spec->max_shrink_pct = v;
	} else if (!strcmp(key, "max-bytes")) {
		at_line(p, p->line);
		if (parse_count_range("max_bytes =", value, 1, COUNT_MAX, &spec->max_bytes))
			p->errors++;
		log_context = NULL;
	} else if (!strcmp(key, "allow")) {
		parse_error(p, p->line, "'allow' is not a key: put the allowlist's sources in "
			    "[allowlist]");
	} else if (!strcmp(key, "list")) {
		parse_error(p, p->line, "'list' is not a key: [list NAME] is the named list NAME");
	} else if (!strcmp(key, "action") && spec->load.allow) {
		parse_error(p, p->line, "'action' goes in a [list NAME]: the allowlist passes");
	} else if (!strcmp(key, "learn") && spec->load.allow) {
		parse_error(p, p->line, "'learn' goes in a [list NAME]: the allowlist learns "
			    "nothing");
	} else if (!strcmp(key, "state-dir")) {
		parse_error(p, p->line, "state_dir goes in [daemon]: the daemon's lists, "
			    "attachment and timeouts share one state directory");
	} else if (option_find(load_options, key)) {
		set_table_option(p, load_options, &spec->load, key, value);
	} else {
		parse_error(p, p->line, "unknown key '%s' in %s: expected source, refresh, "
			    "max_shrink, timeout, max_bytes or an option of 'bloomxdp load' "
			    "(format, lenient, prefix-probes, store, column, where...)", key,
			    section_title(spec, title, sizeof(title)));
	}
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	char key[KEY_MAX];

	(void)section;	/* what read_line saw: inih's copy is cut at 50 bytes */
	if (p->syntax_error)
		return 1;
	key_name(name, key);
	if (p->kind == SEC_BAD)
		return 1;	/* the section's error is said; not one per key */
	if (p->kind == SEC_NONE) {
		parse_error(p, p->line, "'%s' is outside any section: put it under [attach], "
			    "[list NAME], [allowlist] or [daemon]", name);
		return 1;
	}
	if (strcmp(key, "where") && seen_twice(p, key)) {
		parse_error(p, p->line, "'%s' is given twice in this section", name);
		return 1;
	}
	switch (p->kind) {
	case SEC_ATTACH:
		if (!strcmp(key, "state-dir")) {
			parse_error(p, p->line, "state_dir goes in [daemon]: the daemon's lists, "
				    "attachment and timeouts share one state directory");
			break;
		}
		if (!option_find(attach_options, key)) {
			parse_error(p, p->line, "unknown key '%s' in [attach]: expected an "
				    "option of 'bloomxdp attach' by its long name (see 'bloomxdp "
				    "attach --help')", name);
			break;
		}
		if (!set_table_option(p, attach_options, p->cfg->attach, key, value))
			p->cfg->attach_keys++;
		break;
	case SEC_DAEMON:
		daemon_key(p, key, value);
		break;
	case SEC_CROWDSEC:
		if ((!strcmp(key, "api-key") && p->cfg->crowdsec.api_key_file[0]) ||
		    (!strcmp(key, "api-key-file") && p->cfg->crowdsec.api_key[0]))
			parse_error(p, p->line, "[crowdsec] takes api_key or api_key_file, not "
				    "both");
		else
			crowdsec_key(p, key, value);
		break;
	case SEC_LIST:
	case SEC_ALLOW:
		source_key(p, key, value);
		break;
	default:
		break;
	}
	return 1;
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_files(const struct file_list *a, const struct file_list *b)
{
	int i;

	if (a->count != b->count)
		return false;
	for (i = 0; i < a->count; i++)
		if (strcmp(a->items[i], b->items[i]))
			return false;
	return true;
}

/* The options that one 'load' of several sources takes for all of them. */
static bool same_whole_load(const struct list_opts *a, const struct list_opts *b)
{
	return a->prefix_probes == b->prefix_probes && a->store == b->store &&
	       a->allow == b->allow && a->allow_empty == b->allow_empty &&
	       a->max_memory_given == b->max_memory_given &&
	       (!a->max_memory_given || a->max_memory == b->max_memory);
}

/* ... and those each source is read with. */
static bool same_load(const struct list_opts *a, const struct list_opts *b)
{
	return same_whole_load(a, b) && a->format == b->format && a->lenient == b->lenient &&
	       a->allow_public_suffix == b->allow_public_suffix && a->allow_wide == b->allow_wide &&
	       a->action_given == b->action_given && a->action == b->action &&
	       a->learn == b->learn &&
	       same_text(a->column, b->column) && same_files(&a->where, &b->where);
}

bool config_load_read_equal(const struct list_opts *a, const struct list_opts *b)
{
	return a->format == b->format && a->lenient == b->lenient &&
	       a->allow_public_suffix == b->allow_public_suffix &&
	       a->action_given == b->action_given && (!a->action_given || a->action == b->action) &&
	       a->learn == b->learn &&
	       same_text(a->column, b->column) && same_files(&a->where, &b->where) &&
	       a->prefix_probes == b->prefix_probes && a->store == b->store;
}

bool config_source_equal(const struct feed_spec *a, const struct feed_spec *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->source, b->source) &&
	       a->refresh_s == b->refresh_s && a->max_shrink_pct == b->max_shrink_pct &&
	       a->timeout_s == b->timeout_s && a->max_bytes == b->max_bytes &&
	       same_load(&a->load, &b->load);
}

bool config_attach_equal(const struct config *a, const struct config *b)
{
	return !memcmp(a->attach, b->attach, sizeof(*a->attach));
}

void config_source_list(struct feed_spec *spec)
{
	spec->load.list = spec->load.allow || !strcmp(spec->name, CONFIG_DEFAULT_LIST) ? NULL :
			  spec->name;
}

/* What the file as a whole must hold: a source per list, load options that go together. */
static void check_sources(struct parse *p)
{
	struct config *cfg = p->cfg;
	const struct config_source *first[2] = { NULL, NULL };
	int i, lists = 0;

	for (i = 0; i < cfg->nsources; i++) {
		/* Each [list NAME] is the named list NAME (config_source_list()). */
		if (!cfg->sources[i].spec.load.allow && ++lists == BLOOMXDP_MAX_LISTS + 1)
			parse_error(p, cfg->sources[i].line, "more than %d [list NAME] sections: "
				    "each is a named list, and there are at most %d; put several "
				    "sources' entries in one file", BLOOMXDP_MAX_LISTS,
				    BLOOMXDP_MAX_LISTS);
	}
	for (i = 0; i < cfg->nsources; i++) {
		struct config_source *s = &cfg->sources[i];
		const struct config_source **f = &first[s->spec.load.allow];
		char title[FEED_NAME_MAX + 16];

		section_title(&s->spec, title, sizeof(title));
		config_source_list(&s->spec);
		at_line(p, s->line);
		if (load_opts_check(&s->spec.load))
			p->errors++;
		log_context = NULL;
		if (!s->spec.source[0] && !s->source_refused) {
			parse_error(p, s->line, "%s has no source: add 'source = PATH' or "
				    "'source = https://...'", title);
			continue;
		}
		if (!s->spec.source[0])
			continue;
		/* The program reads answers only with dns-answers (lists/load.c says so too). */
		if (s->spec.load.learn && !(cfg->attach->match & BLOOMXDP_MATCH_DNS_ANSWERS))
			parse_error(p, s->line, "%s learns addresses from DNS answers: add "
				    "dns-answers to [attach] match", title);
		/* One load takes every source of the list; each is read with its own format. */
		if (!*f)
			*f = s;
		else if (!same_whole_load(&(*f)->spec.load, &s->spec.load))
			parse_error(p, s->line, "%s sets other prefix-probes, store, allow-empty "
				    "or max-memory than '%s' at line %u: the sources of the %s are "
				    "loaded together, with one set",
				    title, (*f)->spec.name, (*f)->line,
				    s->spec.load.allow ? "allowlist" : "blocklist");
	}
}

/* A fleet node: its channel named; its blocklist is the fleet's, which a [list] would replace. */
static void check_fleet(struct parse *p)
{
	int i;

	if (!p->cfg->subscribe[0]) {
		if (p->cfg->channel[0] || p->cfg->node[0] || p->cfg->verify_key[0])
			parse_error(p, p->daemon_line, "channel, node and verify_key go with "
				    "subscribe = redis://...");
		return;
	}
	if (!p->cfg->channel[0])
		parse_error(p, p->daemon_line, "subscribe needs channel = NAME (publish's "
			    "--channel)");
	for (i = 0; i < p->cfg->nsources; i++)
		if (!p->cfg->sources[i].spec.load.allow) {
			parse_error(p, p->cfg->sources[i].line, "[list %s]: a fleet node (subscribe) "
				    "takes its blocklist from the fleet, which this list would "
				    "replace: remove one of them", p->cfg->sources[i].spec.name);
			break;
		}
	/* Its bans are a named list, which each version of the fleet sets aside (savefile.c). */
	if (p->cfg->crowdsec.enabled)
		parse_error(p, p->cfg->crowdsec.line, "[crowdsec]: a fleet node (subscribe) takes "
			    "its blocklist from the fleet, whose next version would set the bans "
			    "aside: remove one of them");
}

int config_defaults(const char *path, struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", state_root(NULL));
	cfg->events = CONFIG_EVENTS_JSON;
	crowdsec_config_defaults(&cfg->crowdsec);
	cfg->attach = malloc(sizeof(*cfg->attach));
	if (!cfg->attach) {
		log_error("%s: out of memory", path);
		return -ENOMEM;
	}
	*cfg->attach = attach_defaults;
	return 0;
}

int config_parse(const char *path, struct config *cfg)
{
	struct parse p = { .cfg = cfg };
	int ret;

	ret = config_defaults(path, cfg);
	if (ret)
		return ret;
	p.file = fopen(path, "re");
	if (!p.file) {
		ret = -errno;
		log_error("cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	/* Debian builds these as variables: whole lines, no continuation lines. */
	ini_allow_multiline = false;
	ini_use_stack = false;
	ini_allow_realloc = false;
	ini_max_line = CONFIG_MAX_LINE;
	ini_initial_alloc = CONFIG_MAX_LINE;
	ini_stop_on_first_error = false;
	/* After white space, as at the start of a line: "refresh = 1h  # hourly". */
	ini_inline_comment_prefixes = (char *)";#";
	ret = ini_parse_stream(read_line, &p, on_key, &p);
	if (ret > 0 && !p.errors)
		parse_error(&p, ret, "cannot read this line");
	else if (ret < 0)
		parse_error(&p, p.line, "out of memory");
	if (ferror(p.file))
		parse_error(&p, p.line, "read error");
	check_sources(&p);
	check_fleet(&p);
	check_crowdsec(&p);
	fclose(p.file);
	free(p.buf);
	return p.errors ? -EINVAL : 0;
}

void config_free(struct config *cfg)
{
	int i;

	if (cfg->attach)
		options_free(attach_options, cfg->attach);
	free(cfg->attach);
	for (i = 0; i < cfg->nsources; i++)
		options_free(load_options, &cfg->sources[i].spec.load);
	free(cfg->sources);
	for (i = 0; i < cfg->nstrings; i++)
		free(cfg->strings[i]);
	free(cfg->strings);
	memset(cfg, 0, sizeof(*cfg));
}

void config_summary(const struct config *cfg, char *buf, size_t len)
{
	int i, lists = 0, feeds = 0, allow = 0;

	for (i = 0; i < cfg->nsources; i++) {
		if (cfg->sources[i].spec.load.allow)
			allow++;
		else
			lists++;
		feeds += config_source_is_url(cfg->sources[i].spec.source);
	}
	snprintf(buf, len, "%s: ok: %d list%s and %d allowlist source%s (%d feed%s), %u attach "
		 "setting%s, metrics %s, events %s, state in %s%s%s", cfg->path, lists,
		 lists == 1 ? "" : "s", allow, allow == 1 ? "" : "s", feeds, feeds == 1 ? "" : "s",
		 cfg->attach_keys, cfg->attach_keys == 1 ? "" : "s",
		 cfg->metrics[0] ? cfg->metrics : "off",
		 enum_value_name(events_values, cfg->events), cfg->state_dir,
		 cfg->crowdsec.enabled ? ", crowdsec decisions from " : "",
		 cfg->crowdsec.enabled ? cfg->crowdsec.lapi_url : "");
}
