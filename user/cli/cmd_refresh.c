// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* refresh: one feed fetched now and applied if it passes the guards (refresh.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/log.h"
#include "service/control.h"
#include "service/refresh.h"
#include "kernel/state_dir.h"

struct refresh_opts {
	struct list_opts load;		/* how the feed is read (with --source) */
	const char *source;
	__u64 max_shrink, timeout, max_bytes;
	bool max_shrink_given, timeout_given, max_bytes_given, ca_file_given;
	const char *ca_file;
	bool accept;
	const char *state_dir;
};

static const struct refresh_opts refresh_defaults = {
	.load = { .format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES },
	.max_shrink = FEED_DEFAULT_MAX_SHRINK, .timeout = FEED_DEFAULT_TIMEOUT_S,
	.max_bytes = FEED_DEFAULT_MAX_BYTES,
};

/* The load options describe the feed: they change its spec, so they go with --source. */
static int check_refresh(const struct cli_call *call)
{
	const struct refresh_opts *o = call->opts;
	const struct list_opts *l = &o->load, *d = &refresh_defaults.load;
	const char *why;

	if (feed_name_check(call->argv[0]))
		return -EINVAL;
	if (!o->source && (l->format != d->format || l->prefix_probes != d->prefix_probes ||
			   l->store != d->store || l->allow || l->lenient ||
			   l->allow_public_suffix || l->allow_wide || l->column ||
			   l->where.count)) {
		log_error("refresh: --format, --lenient, --allow, --column, --where, "
			  "--prefix-probes, --store, --allow-public-suffix and --allow-wide go with "
			  "--source, which registers the feed's spec as a whole");
		return -EINVAL;
	}
	why = csv_options_check(l->format, l->column, l->where.count);
	if (why) {
		log_error("%s", why);
		return -EINVAL;
	}
	if (o->source && strlen(o->source) >= FEED_SOURCE_MAX) {
		log_error("refresh: the source is longer than %d bytes", FEED_SOURCE_MAX - 1);
		return -EINVAL;
	}
	if (o->ca_file && strlen(o->ca_file) >= FEED_SOURCE_MAX) {
		log_error("refresh: the --ca-file path is longer than %d bytes",
			  FEED_SOURCE_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * refresh --accept of a feed of a running daemon: the daemon refreshes it and
 * loads the accepted copy at once with its other sources. -ENOENT: no daemon
 * runs on the interface, or it has no feed of that name (nothing printed).
 */
static int refresh_by_daemon(const struct cli_call *call)
{
	const struct refresh_opts *o = call->opts;
	struct control_request req = { .cmd = CONTROL_REFRESH, .accept = true };
	struct control_reply r;
	int ret;

	/* Options that change the feed's spec, or another state: refreshed here. */
	if (!o->accept || o->source || o->max_shrink_given || o->timeout_given ||
	    o->max_bytes_given || o->ca_file_given || o->state_dir)
		return -ENOENT;
	snprintf(req.list, sizeof(req.list), "%s", call->argv[0]);
	ret = control_ask(call->ifname, &req, NULL, CONTROL_REFRESH_MS, &r);
	if (!ret)
		fputs(r.text ? r.text : "", stdout);
	else if (ret != -ENOENT)
		log_error("%s", r.error[0] ? r.error : strerror(-ret));
	control_reply_free(&r);
	return ret;
}

static int run_refresh(const struct cli_call *call)
{
	const struct refresh_opts *o = call->opts;
	const char *state = state_root(o->state_dir), *name = call->argv[0];
	char said[FEED_SUMMARY_MAX];
	struct refresh_result res;
	struct feed_stored st;
	struct feed_spec *spec = &st.spec;
	char path[PATH_MAX];
	int ret;

	ret = refresh_by_daemon(call);
	if (ret != -ENOENT)
		return ret;
	if (o->source) {
		feed_spec_defaults(spec);
		snprintf(spec->name, sizeof(spec->name), "%s", name);
		snprintf(spec->source, sizeof(spec->source), "%s", o->source);
		/* Kept for later refreshes, from another directory (cron, the daemon). */
		if (!strstr(o->source, "://")) {
			if (!realpath(o->source, path)) {
				ret = -errno;
				log_error("refresh: cannot find %s: %s", o->source,
					  strerror(-ret));
				return ret;
			}
			if (snprintf(spec->source, sizeof(spec->source), "%s", path) >=
			    (int)sizeof(spec->source)) {
				log_error("refresh: the path of %s is too long", o->source);
				return -ENAMETOOLONG;
			}
		}
		spec->load = o->load;
	} else {
		ret = feed_spec_read(state, call->ifname, name, &st);
		if (ret)
			return ret;
	}
	/* Given alone, these change the registered spec (kept for the next refreshes). */
	if (o->source || o->max_shrink_given)
		spec->max_shrink_pct = o->max_shrink;
	if (o->source || o->timeout_given)
		spec->timeout_s = o->timeout;
	if (o->source || o->max_bytes_given)
		spec->max_bytes = o->max_bytes;
	if (o->source || o->ca_file_given)
		snprintf(spec->ca_file, sizeof(spec->ca_file), "%s", o->ca_file ? o->ca_file : "");
	ret = feed_refresh(state, call->ifname, spec, o->accept, &res);
	load_result_print(&res.load, stdout);
	fputs(feed_refresh_summary(call->ifname, spec, &res, said, sizeof(said)), stdout);
	return ret;
}

#define R(field) offsetof(struct refresh_opts, field)
#define L(field) (offsetof(struct refresh_opts, load) + offsetof(struct list_opts, field))
static const struct option_spec refresh_options[] = {
	OPTION("source", 's', OPT_TEXT, R(source), "URL|PATH",
	       "register the feed (or change it): an http(s)://\n"
	       "URL or a local file, read with the load options\n"
	       "given here; kept in the state directory, so that\n"
	       "later refreshes need only IFNAME LIST"),
	OPTION("accept", 0, OPT_FLAG, R(accept), NULL,
	       "apply the copy the guards refused (pending), or\n"
	       "else the next one fetched, even if it is empty or\n"
	       "shrank past --max-shrink; a bad line is never\n"
	       "accepted"),
	OPTION("max-shrink", 0, OPT_COUNT, R(max_shrink), "P",
	       "refuse a copy with more than P percent fewer\n"
	       "entries than the good one", .min = 0, .max = 100,
	       .given = OPTION_GIVEN(struct refresh_opts, max_shrink_given)),
	OPTION("timeout", 0, OPT_DURATION, R(timeout), "S",
	       "seconds a whole fetch may take", .min = 1, .max = 86400,
	       .given = OPTION_GIVEN(struct refresh_opts, timeout_given)),
	OPTION("max-bytes", 0, OPT_COUNT, R(max_bytes), "N",
	       "refuse a larger body (stopped as it arrives)", .min = 1, .max = COUNT_MAX,
	       .given = OPTION_GIVEN(struct refresh_opts, max_bytes_given)),
	OPTION("ca-file", 0, OPT_TEXT, R(ca_file), "FILE",
	       "verify https against the CAs in FILE (PEM), e.g.\n"
	       "a private CA, instead of the system's; TLS is\n"
	       "always verified",
	       .given = OPTION_GIVEN(struct refresh_opts, ca_file_given)),
	OPTION_STATE_DIR(struct refresh_opts),
	OPTION("format", 'F', OPT_ENUM, L(format), "FORMAT", "how lines are read, as for load",
	       .values = list_format_values),
	OPTION("lenient", 0, OPT_FLAG, L(lenient), NULL,
	       "skip the lines that cannot be honoured, as load"),
	OPTION("allow", 'A', OPT_FLAG, L(allow), NULL,
	       "the feed is (part of) the allowlist"),
	OPTION("allow-public-suffix", 0, OPT_FLAG, L(allow_public_suffix), NULL,
	       "block public suffixes too, as load"),
	OPTION("allow-wide", 0, OPT_FLAG, L(allow_wide), NULL,
	       "take prefixes shorter than /8 or /32 too, as load"),
	OPTION("column", 0, OPT_TEXT, L(column), "N[,M]", "--format csv: as for load"),
	OPTION("where", 0, OPT_FILES, L(where), "COL=VALUE", "--format csv: as for load"),
	OPTION("prefix-probes", 'P', OPT_COUNT, L(prefix_probes), "N",
	       "as for load", .min = 1, .max = BLOOMXDP_MAX_PREFIX_LENGTHS),
	OPTION("store", 0, OPT_ENUM, L(store), "S", "as for load",
	       .values = range_store_values),
	{}
};
#undef L
#undef R

const struct command command_refresh = {
	.name = "refresh",
	.args = "IFNAME LIST",
	.summary = "fetch a feed now and apply it if it passes the guards",
	.description =
		"Fetches the feed LIST of IFNAME (registered with --source; the daemon's\n"
		"configuration registers its [list NAME] sections the same way), conditionally\n"
		"on the last good copy's ETag and Last-Modified, within --timeout and\n"
		"--max-bytes, TLS verified, redirects bounded and http(s) only. The new copy is\n"
		"read as load reads it and refused, with the last good copy left enforced,\n"
		"when the fetch or a line fails, when it holds no entry, or when it has more\n"
		"than --max-shrink percent fewer entries than the good copy (default 50): the\n"
		"failure is said on one line and counted. Otherwise every feed of IFNAME of the\n"
		"same kind (blocklist or allowlist), each good copy read with its own spec, is\n"
		"loaded in one atomic swap, and the new copy becomes the good one.\n\n"
		"With --accept alone, when a daemon runs on IFNAME with the feed LIST, the\n"
		"daemon refreshes it through its control socket and loads the accepted copy at\n"
		"once with its other sources.\n\n"
		"The feed cache is STATE/IFNAME/feeds/LIST/. Exit status: 0 applied or not\n"
		"modified, 1 refused (or nothing to accept), 2 usage.\n",
	.options = refresh_options,
	.opts_size = sizeof(struct refresh_opts),
	.defaults = &refresh_defaults,
	.ifname = true,
	.min_args = 1,
	.max_args = 1,
	.what_args = "LIST (the feed's name)",
	.check = check_refresh,
	.run = run_refresh,
};
