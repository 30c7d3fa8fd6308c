// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's configuration file: a good file read into attach's and load's
 * own option structs and the feed specs; each kind of mistake refused with
 * FILE:LINE of the line that holds it; metrics addresses; the local-file
 * refresh. (Durations: test_duration.c.)
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "kernel/attach.h"
#include "service/config.h"
#include "service/daemon.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/log.h"
#include "service/metrics_http.h"

static char dir[] = "/tmp/bx-test-config.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Parses text as a file; its stderr into err. */
static int parse_text(const char *text, struct config *cfg, char *path, size_t plen, char *err,
		      size_t elen)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), ret;
	size_t n;

	snprintf(path, plen, "%s/test.conf", dir);
	write_file(path, text);
	assert_non_null(tmp);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	ret = config_parse(path, cfg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, elen - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return ret;
}

/* The value of attach's option name in the configuration's attach struct. */
static const void *attach_value(const struct config *cfg, const char *name)
{
	const struct option_spec *o = option_find(attach_options, name);

	assert_non_null(o);
	return (const char *)cfg->attach + o->offset;
}

static __u32 attach_enum(const char *name, const char *value)
{
	const struct option_spec *o = option_find(attach_options, name);
	__u32 v = 0;

	assert_int_equal(enum_value_parse(o->values, value, &v), 0);
	return v;
}

static const char good[] =
	"# eth0\n"
	"[attach]\n"
	"mode = generic\n"
	"capacity = 100k\n"
	"fpr = 0.1%\n"
	"match = src,dns\n"
	"verify = yes\n"
	"events_per_sec = 50\n"
	"\n"
	"[list spamhaus]\n"
	"source = https://www.spamhaus.org/drop/drop.txt\n"
	"refresh = 12h\n"
	"max_shrink = 20%\n"
	"timeout = 1m\n"
	"max-bytes = 10M\n"
	"format = csv\n"
	"column = 1\n"
	"where = 2=x\n"
	"where = 2=y\n"
	"\n"
	"[list local-1]\n"
	"source = /etc/bloomxdp/local.txt ; a comment\n"
	"format = csv\n"
	"column = 1\n"
	"where = 2=x\n"
	"where = 2=y\n"
	"\n"
	"[allowlist]\n"
	"source = /etc/bloomxdp/allow.txt\n"
	"lenient = true\n"
	"\n"
	"[daemon]\n"
	"state_dir = /srv/bloomxdp\n"
	"metrics = [::1]:9100\n"
	"events = syslog\n";

/* [attach] verify: auto, on, off and the booleans of a flag; auto when not given. */
static void test_verify_key(void **state)
{
	static const struct {
		const char *text;
		__u32 mode;
	} cases[] = {
		{ "[attach]\ncapacity = 10\n", BLOOMXDP_VERIFY_AUTO },
		{ "[attach]\nverify = auto\n", BLOOMXDP_VERIFY_AUTO },
		{ "[attach]\nverify = on\n", BLOOMXDP_VERIFY_ON },
		{ "[attach]\nverify = true\n", BLOOMXDP_VERIFY_ON },
		{ "[attach]\nverify = off\n", BLOOMXDP_VERIFY_OFF },
		{ "[attach]\nverify = no\n", BLOOMXDP_VERIFY_OFF },
	};
	char path[256], err[4096];
	struct config cfg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_text(cases[i].text, &cfg, path, sizeof(path), err,
					    sizeof(err)), 0);
		assert_int_equal(*(const __u32 *)attach_value(&cfg, "verify"), cases[i].mode);
		config_free(&cfg);
	}
}

static void test_good_file(void **state)
{
	char path[256], err[4096], summary[512];
	const struct feed_spec *s;
	struct config cfg;

	(void)state;
	assert_int_equal(parse_text(good, &cfg, path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* [attach], through attach's own table. */
	assert_int_equal(cfg.attach_keys, 6);
	assert_int_equal(*(const __u64 *)attach_value(&cfg, "capacity"), 100000);
	assert_true(*(const double *)attach_value(&cfg, "fpr") == 0.001);
	assert_int_equal(*(const __u32 *)attach_value(&cfg, "match"),
			 BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DNS);
	assert_int_equal(*(const __u32 *)attach_value(&cfg, "mode"),
			 attach_enum("mode", "generic"));
	/* "yes": --verify alone, on. */
	assert_int_equal(*(const __u32 *)attach_value(&cfg, "verify"), BLOOMXDP_VERIFY_ON);
	assert_int_equal(*(const __u64 *)attach_value(&cfg, "events-per-sec"), 50);
	/* What is not given keeps attach's default. */
	assert_int_equal(*(const __u32 *)attach_value(&cfg, "action"),
			 attach_enum("action", "drop"));
	assert_false(*(const bool *)attach_value(&cfg, "force"));

	assert_int_equal(cfg.nsources, 3);
	s = &cfg.sources[0].spec;
	assert_string_equal(s->name, "spamhaus");
	assert_string_equal(s->source, "https://www.spamhaus.org/drop/drop.txt");
	assert_int_equal(s->refresh_s, 12 * 3600);
	assert_int_equal(s->max_shrink_pct, 20);
	assert_int_equal(s->timeout_s, 60);
	assert_int_equal(s->max_bytes, 10000000);
	assert_int_equal(s->load.format, FORMAT_CSV);
	assert_string_equal(s->load.column, "1");
	assert_int_equal(s->load.where.count, 2);
	assert_string_equal(s->load.where.items[1], "2=y");
	assert_false(s->load.allow);
	assert_int_equal(cfg.sources[0].line, 10);
	s = &cfg.sources[1].spec;
	assert_string_equal(s->name, "local-1");
	assert_string_equal(s->source, "/etc/bloomxdp/local.txt");
	assert_int_equal(s->refresh_s, FEED_DEFAULT_REFRESH_S);
	assert_int_equal(s->max_shrink_pct, FEED_DEFAULT_MAX_SHRINK);
	s = &cfg.sources[2].spec;
	assert_string_equal(s->name, "allowlist");
	assert_true(s->load.allow);
	assert_true(s->load.lenient);
	assert_int_equal(s->load.prefix_probes, LIST_DEFAULT_PREFIX_PROBES);

	assert_string_equal(cfg.state_dir, "/srv/bloomxdp");
	assert_string_equal(cfg.metrics, "[::1]:9100");
	assert_int_equal(cfg.events, CONFIG_EVENTS_SYSLOG);
	config_summary(&cfg, summary, sizeof(summary));
	assert_non_null(strstr(summary, ": ok: 2 lists and 1 allowlist source (1 feed), 6 attach "
				"settings, metrics [::1]:9100, events syslog, state in "
				"/srv/bloomxdp"));
	config_free(&cfg);
}

/* [attach] multiprog: auto by default, yes and no by name, anything else refused. */
static void test_multiprog(void **state)
{
	char path[256], err[1024];
	struct config cfg;

	(void)state;
	assert_int_equal(parse_text("; nothing\n", &cfg, path, sizeof(path), err, sizeof(err)), 0);
	assert_int_equal(*(const __u32 *)attach_value(&cfg, "multiprog"), ATTACH_MULTIPROG_AUTO);
	config_free(&cfg);
	assert_int_equal(parse_text("[attach]\nmultiprog = yes\n", &cfg, path, sizeof(path), err,
				    sizeof(err)), 0);
	assert_int_equal(*(const __u32 *)attach_value(&cfg, "multiprog"), ATTACH_MULTIPROG_YES);
	config_free(&cfg);
	assert_int_equal(attach_enum("multiprog", "no"), ATTACH_MULTIPROG_NO);
	assert_int_not_equal(parse_text("[attach]\nmultiprog = maybe\n", &cfg, path,
					sizeof(path), err, sizeof(err)), 0);
	assert_non_null(strstr(err, "multiprog"));
	config_free(&cfg);
}

/* [attach] learn-ttl-max: default when not given, held to [30 s, 1 day]; doh-canary: a flag. */
static void test_dns_answers_keys(void **state)
{
	char path[256], err[1024];
	struct config cfg;

	(void)state;
	assert_int_equal(parse_text("; nothing\n", &cfg, path, sizeof(path), err, sizeof(err)), 0);
	assert_int_equal(*(const __u64 *)attach_value(&cfg, "learn-ttl-max"),
			 BLOOMXDP_LEARN_TTL_MAX_DEFAULT);
	assert_false(*(const bool *)attach_value(&cfg, "doh-canary"));
	config_free(&cfg);
	assert_int_equal(parse_text("[attach]\nmatch = dns,dns-answers\nlearn_ttl_max = 10m\n"
				    "dns-reply = nxdomain\ndoh-canary = yes\n", &cfg, path,
				    sizeof(path), err, sizeof(err)), 0);
	assert_int_equal(*(const __u32 *)attach_value(&cfg, "match"),
			 BLOOMXDP_MATCH_DNS | BLOOMXDP_MATCH_DNS_ANSWERS);
	assert_int_equal(*(const __u64 *)attach_value(&cfg, "learn-ttl-max"), 600);
	assert_true(*(const bool *)attach_value(&cfg, "doh-canary"));
	config_free(&cfg);
	assert_int_equal(parse_text("[attach]\nlearn-ttl-max = 30\n", &cfg, path, sizeof(path),
				    err, sizeof(err)), 0);
	assert_int_equal(*(const __u64 *)attach_value(&cfg, "learn-ttl-max"),
			 BLOOMXDP_LEARN_TTL_MIN);
	config_free(&cfg);
	assert_int_equal(parse_text("[attach]\nlearn-ttl-max = 1d\n", &cfg, path, sizeof(path),
				    err, sizeof(err)), 0);
	assert_int_equal(*(const __u64 *)attach_value(&cfg, "learn-ttl-max"), 86400);
	config_free(&cfg);
	/* [list NAME] learn = yes: load --learn; not given: no. */
	assert_int_equal(parse_text("[attach]\nmatch = dns-answers\n[list trk]\nsource = /a\n"
				    "learn = yes\n[list b]\nsource = /b\n", &cfg, path,
				    sizeof(path), err, sizeof(err)), 0);
	assert_true(cfg.sources[0].spec.load.learn);
	assert_false(cfg.sources[1].spec.load.learn);
	config_free(&cfg);
}

static void test_defaults(void **state)
{
	char path[256], err[1024];
	struct config cfg;

	(void)state;
	assert_int_equal(parse_text("; nothing\n", &cfg, path, sizeof(path), err, sizeof(err)), 0);
	assert_int_equal(cfg.nsources, 0);
	assert_int_equal(cfg.attach_keys, 0);
	assert_string_equal(cfg.state_dir, STATE_ROOT_DEFAULT);
	assert_string_equal(cfg.metrics, "");
	assert_int_equal(cfg.events, CONFIG_EVENTS_JSON);
	assert_int_equal(*(const __u64 *)attach_value(&cfg, "capacity"), DEFAULT_CAPACITY);
	config_free(&cfg);
	/* metrics = nothing: no server. */
	assert_int_equal(parse_text("[daemon]\nmetrics =\n", &cfg, path, sizeof(path), err,
				    sizeof(err)), 0);
	assert_string_equal(cfg.metrics, "");
	config_free(&cfg);
	/* [crowdsec]: its defaults, and the key as given. */
	assert_int_equal(parse_text("[crowdsec]\nlapi_url = http://127.0.0.1:8080/\n"
				    "api_key = 74b1af83834f1d7a\nscopes = range\n", &cfg, path,
				    sizeof(path), err, sizeof(err)), 0);
	assert_true(cfg.crowdsec.enabled);
	assert_string_equal(cfg.crowdsec.api_key, "74b1af83834f1d7a");
	assert_int_equal(cfg.crowdsec.interval_s, CROWDSEC_DEFAULT_INTERVAL_S);
	assert_int_equal(cfg.crowdsec.max_bytes, CROWDSEC_DEFAULT_MAX_BYTES);
	assert_false(cfg.crowdsec.scope_ip);
	assert_true(cfg.crowdsec.scope_range);
	config_free(&cfg);
}

/* Each mistake, the line that holds it, and words of its error. */
static const struct bad_case {
	const char *text;
	int line;
	const char *says;
} bad_cases[] = {
	{ "capacity = 10\n", 1, "outside any section" },
	{ "[attach]\n[nope]\nx = 1\n", 2, "unknown section [nope]" },
	{ "[list]\nsource = /a\n", 1, "unknown section [list]" },
	{ "[list a b]\nsource = /a\n", 1, "unknown section [list a b]" },
	{ "[attach]\ncolour = red\n", 2, "unknown key 'colour' in [attach]" },
	{ "[list a]\nsource = /a\nurl = /b\n", 3, "unknown key 'url' in [list a]" },
	{ "[allowlist]\nsource = /a\nallow = true\n", 3, "'allow' is not a key" },
	{ "[daemon]\nport = 1\n", 2, "unknown key 'port' in [daemon]" },
	{ "[attach]\nfpr = 2\n", 2, "fpr = 2: expected a rate" },
	{ "[attach]\n\nmode = turbo\n", 3, "mode = turbo: expected native, generic or auto" },
	{ "[attach]\ncapacity = 0\n", 2, "capacity = 0" },
	{ "[attach]\nmatch = src,foo\n", 2, "match = src,foo: expected a comma list" },
	{ "[attach]\ndns-ports = 0\n", 2, "dns-ports = 0: expected a comma list" },
	{ "[attach]\nverify = maybe\n", 2, "verify = maybe: expected auto, on or off" },
	{ "[attach]\nlearn-ttl-max = 29s\n", 2, "learn-ttl-max = 29s: expected a duration" },
	{ "[attach]\nlearn-ttl-max = 25h\n", 2, "(30s to 1d)" },
	{ "[attach]\ndoh-canary = maybe\n", 2, "doh-canary = maybe" },
	{ "[allowlist]\nsource = /a\nlearn = yes\n", 3, "'learn' goes in a [list NAME]" },
	{ "[list a]\nsource = /a\nlearn = often\n", 3, "learn = often" },
	{ "[attach]\nmatch = src,dns\n[list a]\nsource = /a\nlearn = yes\n", 3,
	  "[list a] learns addresses from DNS answers: add dns-answers to [attach] match" },
	{ "[attach]\nfpr = 0.1\nfpr = 0.2\n", 3, "'fpr' is given twice" },
	{ "[attach]\nmax_memory = 1M\nmax-memory = 2M\n", 3, "'max-memory' is given twice" },
	{ "[attach]\n[attach]\n", 2, "a second [attach] (the first is at line 1)" },
	{ "[daemon]\n[daemon]\n", 2, "a second [daemon]" },
	{ "[list a]\nsource = /a\n[list a]\nsource = /b\n", 3, "'a' is used already at line 1" },
	{ "[list a]\nsource = /a\n[allowlist a]\nsource = /b\n", 3, "used already at line 1" },
	{ "[list Big]\nsource = /a\n", 1, "list name 'Big'" },
	{ "[list a.b]\nsource = /a\n", 1, "list name 'a.b'" },
	{ "[list abcdefghijabcdefghijabcdefghijklm]\nsource = /a\n", 1, "list name" },
	{ "[list a]\nrefresh = 1h\n", 1, "[list a] has no source" },
	{ "[allowlist]\n", 1, "[allowlist] has no source" },
	{ "[list a]\nsource = a.txt\n", 2, "a path must be absolute" },
	{ "[attach]\nstate_dir = /srv/x\n", 2, "state_dir goes in [daemon]" },
	{ "[list a]\nsource = /a\nstate-dir = /srv/x\n", 3, "state_dir goes in [daemon]" },
	{ "[list a]\nsource = ftp://x/y\n", 2, "expected an absolute path or an http" },
	{ "[list a]\nsource = /a\nrefresh = 1y\n", 3, "refresh = 1y" },
	{ "[list a]\nsource = /a\nrefresh = 366d\n", 3, "refresh = 366d" },
	{ "[list a]\nsource = /a\nmax_shrink = 101%\n", 3, "max_shrink = 101%" },
	{ "[list a]\nsource = /a\nmax_shrink = -1\n", 3, "max_shrink = -1" },
	{ "[list a]\nsource = /a\ntimeout = 0\n", 3, "timeout = 0" },
	{ "[list a]\nsource = /a\nmax_bytes = lots\n", 3, "max_bytes = lots" },
	{ "[list a]\nsource = /a\nformat = xml\n", 3, "format = xml" },
	{ "[list a]\nsource = /a\nwhere = 2=x\n", 1, "--where go with --format csv" },
	{ "[list a]\nsource = /a\n[list b]\nsource = /b\nstore = bloom\n", 3,
	  "[list b] sets other prefix-probes, store" },
	{ "[daemon]\nmetrics = localhost:9725\n", 2, "metrics = localhost:9725" },
	{ "[daemon]\nmetrics = 127.0.0.1\n", 2, "metrics = 127.0.0.1" },
	{ "[daemon]\nmetrics = 127.0.0.1:0\n", 2, "metrics = 127.0.0.1:0" },
	{ "[daemon]\nmetrics = ::1:80\n", 2, "metrics = ::1:80" },
	{ "[daemon]\nevents = loud\n", 2, "events = loud: expected json, syslog or none" },
	{ "[daemon]\nstate_dir = var/lib\n", 2, "state_dir = var/lib" },
	{ "[daemon]\nevents\n", 2, "expected 'key = value'" },
	{ "[daemon\nevents = json\n", 1, "needs its ']'" },
	{ "[crowdsec]\napi_key = abc\n", 1, "[crowdsec] has no lapi_url" },
	{ "[crowdsec]\nlapi_url = http://127.0.0.1:8080/\n", 1, "[crowdsec] has no key" },
	{ "[crowdsec]\nlapi_url = 127.0.0.1:8080\napi_key = k\n", 2, "lapi_url = 127.0.0.1" },
	{ "[crowdsec]\nlapi_url = http://a/?x=1\napi_key = k\n", 2, "lapi_url = http://a/?x" },
	{ "[crowdsec]\nlapi_url = http://a/\napi_key = k\napi_key_file = /k\n", 4,
	  "api_key or api_key_file, not both" },
	{ "[crowdsec]\nlapi_url = http://a/\napi_key = k\nscopes = ip,country\n", 4,
	  "scopes = ip,country" },
	{ "[crowdsec]\nlapi_url = http://a/\napi_key = k\ninterval = 0\n", 4, "interval = 0" },
	{ "[crowdsec]\nlapi_url = http://a/\napi_key = k\ntypes = ban\n", 4,
	  "unknown key 'types' in [crowdsec]" },
	{ "[crowdsec]\nlapi_url = http://a/\napi_key_file = /nonexistent/key\n", 3,
	  "api_key_file = /nonexistent/key: cannot open it" },
	{ "[crowdsec]\n[crowdsec]\n", 2, "a second [crowdsec]" },
	{ "[daemon]\nsubscribe = redis://127.0.0.1/\nchannel = edge\n"
	  "[crowdsec]\nlapi_url = http://a/\napi_key = k\n", 4,
	  "[crowdsec]: a fleet node (subscribe)" },
};

static void test_bad_files(void **state)
{
	char path[256], err[4096], where[300];
	struct config cfg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		int ret = parse_text(c->text, &cfg, path, sizeof(path), err, sizeof(err));

		snprintf(where, sizeof(where), "bloomxdp: %s:%d: ", path, c->line);
		if (ret != -EINVAL || !strstr(err, where) || !strstr(err, c->says))
			fail_msg("case %zu (%s): ret %d, expected '%s...%s', got: %s", i, c->text,
				 ret, where, c->says, err);
		config_free(&cfg);
	}
}

/* Every error is said, each at its own line, not only the first. */
static void test_every_error_said(void **state)
{
	char path[256], err[4096];
	struct config cfg;

	(void)state;
	assert_int_equal(parse_text("[attach]\nfpr = 2\nmode = x\n[list a]\n", &cfg, path,
				    sizeof(path), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: fpr = 2"));
	assert_non_null(strstr(err, ":3: mode = x"));
	assert_non_null(strstr(err, ":4: [list a] has no source"));
	config_free(&cfg);
}

/*
 * A relative source is refused as such, not also as a missing one; a list's
 * name takes as many characters as load --list (32); [list default] is the
 * default list, not a named list of that name.
 */
static void test_sources_said(void **state)
{
	char path[256], err[4096];
	struct config cfg;

	(void)state;
	assert_int_equal(parse_text("[list a]\nsource = lists/a.txt\n", &cfg, path,
				    sizeof(path), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: source = lists/a.txt: a path must be absolute"));
	assert_null(strstr(err, "has no source"));
	config_free(&cfg);
	assert_int_equal(parse_text("[list abcdefghijabcdefghijabcdefghijkl]\nsource = /a\n"
				    "[list default]\nsource = /b\n", &cfg, path, sizeof(path),
				    err, sizeof(err)), 0);
	assert_int_equal(cfg.nsources, 2);
	config_source_list(&cfg.sources[0].spec);
	assert_string_equal(cfg.sources[0].spec.load.list, "abcdefghijabcdefghijabcdefghijkl");
	config_source_list(&cfg.sources[1].spec);
	assert_null(cfg.sources[1].spec.load.list);
	config_free(&cfg);
}

static void test_long_line(void **state)
{
	char path[256], err[4096];
	struct config cfg;
	size_t n = CONFIG_MAX_LINE + 10;
	char *text = malloc(n + 64);

	(void)state;
	assert_non_null(text);
	/* A URL as long as a feed spec holds is fine. */
	strcpy(text, "[list a]\nsource = https://x/");
	memset(text + strlen(text), 'a', FEED_SOURCE_MAX - 1 - strlen("https://x/"));
	strcpy(text + strlen("[list a]\nsource = ") + FEED_SOURCE_MAX - 1, "\n");
	if (parse_text(text, &cfg, path, sizeof(path), err, sizeof(err)))
		fail_msg("a long URL refused: %s", err);
	assert_int_equal(strlen(cfg.sources[0].spec.source), FEED_SOURCE_MAX - 1);
	config_free(&cfg);
	/* Longer than inih's buffer: refused, not split into two lines. */
	strcpy(text, "[list a]\nsource = /");
	memset(text + strlen(text), 'a', n);
	strcpy(text + strlen("[list a]\nsource = /") + n, "\nrefresh = 1h\n");
	assert_int_equal(parse_text(text, &cfg, path, sizeof(path), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: line longer than"));
	config_free(&cfg);
	free(text);
}

/* The example of README.md (its ```ini block) is a valid file, comments after values included. */
static void test_readme_example(void **state)
{
	char line[4096], path[256], err[4096];
	char *text = calloc(1, 65536);
	struct config cfg;
	bool in = false;
	FILE *f;

	(void)state;
	assert_non_null(text);
	f = fopen("README.md", "r");
	if (!f)
		fail_msg("README.md: run from the top of the tree (tests/run.sh does)");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "```", 3)) {
			if (in)
				break;
			in = !strncmp(line, "```ini", 6);
			continue;
		}
		if (in && strlen(text) + strlen(line) < 65536)
			strcat(text, line);
	}
	fclose(f);
	assert_true(strlen(text) > 100);
	if (parse_text(text, &cfg, path, sizeof(path), err, sizeof(err)))
		fail_msg("README's example refused: %s", err);
	assert_int_equal(cfg.sources[0].spec.refresh_s, 12 * 3600);
	assert_string_equal(cfg.sources[1].spec.source, "/etc/bloomxdp/local.txt");
	assert_string_equal(cfg.metrics, "127.0.0.1:9725");
	config_free(&cfg);
	free(text);
}

static void test_missing_file(void **state)
{
	struct config cfg;

	(void)state;
	assert_int_equal(config_parse("/nonexistent/bloomxdp.conf", &cfg), -ENOENT);
	config_free(&cfg);
}

static void test_equal(void **state)
{
	char path[256], err[4096];
	struct config a, b;

	(void)state;
	assert_int_equal(parse_text(good, &a, path, sizeof(path), err, sizeof(err)), 0);
	assert_int_equal(parse_text(good, &b, path, sizeof(path), err, sizeof(err)), 0);
	assert_true(config_attach_equal(&a, &b));
	assert_true(config_source_equal(&a.sources[0].spec, &b.sources[0].spec));
	assert_false(config_source_equal(&a.sources[0].spec, &b.sources[1].spec));
	b.sources[0].spec.refresh_s++;
	assert_false(config_source_equal(&a.sources[0].spec, &b.sources[0].spec));
	config_free(&b);
	assert_int_equal(parse_text("[attach]\nfpr = 0.1%\nmode = native\n", &b, path, sizeof(path),
				    err, sizeof(err)), 0);
	assert_false(config_attach_equal(&a, &b));
	config_free(&a);
	config_free(&b);
}

static void test_metrics_addresses(void **state)
{
	static const char *const good_a[] = {
		"127.0.0.1:9725", "0.0.0.0:80", "[::1]:9725", "[::]:1", "192.0.2.1:65535",
	};
	static const char *const bad_a[] = {
		"localhost:9725", "127.0.0.1", ":80", "127.0.0.1:0", "127.0.0.1:65536",
		"::1:80", "[::1]", "[::1]:", "[127.0.0.1]:80", "1.2.3.4:+80", "1.2.3.4:80x", "",
	};
	struct sockaddr_storage sa;
	socklen_t len;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good_a) / sizeof(good_a[0]); i++)
		if (metrics_parse_address(good_a[i], &sa, &len))
			fail_msg("refused address '%s'", good_a[i]);
	for (i = 0; i < sizeof(bad_a) / sizeof(bad_a[0]); i++)
		if (!metrics_parse_address(bad_a[i], &sa, &len))
			fail_msg("accepted address '%s'", bad_a[i]);
}

/* A file is read again when it changes, not before; a missing one is a failure. */
static void test_refresh_local(void **state)
{
	struct daemon_source src = {};
	char tmp[300];

	(void)state;
	snprintf(src.spec.name, sizeof(src.spec.name), "a");
	snprintf(src.spec.source, sizeof(src.spec.source), "%s/list.txt", dir);
	snprintf(tmp, sizeof(tmp), "%s/list.tmp", dir);
	write_file(src.spec.source, "192.0.2.1\n");
	assert_int_equal(refresh_local.refresh(NULL, &src), 1);
	assert_string_equal(src.path, src.spec.source);
	assert_int_equal(refresh_local.refresh(NULL, &src), 0);
	/* Replaced by rename, same size and maybe the same mtime: another inode. */
	write_file(tmp, "192.0.2.2\n");
	assert_int_equal(rename(tmp, src.spec.source), 0);
	assert_int_equal(refresh_local.refresh(NULL, &src), 1);
	assert_int_equal(refresh_local.refresh(NULL, &src), 0);
	/* Rewritten in place. */
	write_file(src.spec.source, "192.0.2.3\n192.0.2.4\n");
	assert_int_equal(refresh_local.refresh(NULL, &src), 1);
	assert_int_equal(unlink(src.spec.source), 0);
	assert_int_equal(refresh_local.refresh(NULL, &src), -ENOENT);
	refresh_local.forget(NULL, &src);
	assert_null(src.priv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_verify_key),
		cmocka_unit_test(test_dns_answers_keys),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_multiprog),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_every_error_said),
		cmocka_unit_test(test_sources_said),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_readme_example),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_metrics_addresses),
		cmocka_unit_test(test_refresh_local),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
