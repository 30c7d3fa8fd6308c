/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `bloomxdp daemon IFNAME`: keeps an attachment's lists fresh, writes its
 * drop events, serves its metrics. The filter never depends on it: the
 * kernel enforces the last list loaded whether the daemon runs or not.
 *
 * A list's refresh is one call through struct refresh_ops: local files are
 * read again when they change (refresh_local); http(s) feeds through the
 * feed refresher (refresh_feed: user/service/refresh.h, the same as 'bloomxdp refresh').
 */
#ifndef BLOOMXDP_DAEMON_H
#define BLOOMXDP_DAEMON_H

#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <linux/types.h>

#include "service/feed_spec.h"
#include "service/metrics_http.h"

struct refresh_ops;

/* One [list NAME] or [allowlist] source as the daemon runs it. */
struct daemon_source {
	struct feed_spec spec;
	char path[PATH_MAX];	/* the copy that the next load reads; "": none yet */
	__u64 due_ms;		/* CLOCK_MONOTONIC milliseconds of its next refresh; 0: none */
	__u64 refreshes;	/* new copies found */
	__u64 failures;		/* refreshes or loads that failed */
	__u64 last_ok;		/* CLOCK_REALTIME seconds of the last load; 0: never */
	__u64 entries;		/* read from its copy by the last load that succeeded */
	__u64 entries_read;	/* ... by the load under way */
	bool pending;		/* a new copy (or a new way to read it) to load */
	const struct refresh_ops *ops;
	void *priv;		/* ops' own state of this source */
};

struct refresh_ops {
	const char *name;	/* for the log: "file", "feed" */
	/*
	 * Looks for a new copy of src: 1 with src->path naming it, 0 when
	 * nothing changed, or -errno with the failure said on stderr (the
	 * copy loaded last stays enforced).
	 */
	int (*refresh)(void *ctx, struct daemon_source *src);
	/* After the load that read src->path: 0, or its -errno (refused: bad or guarded). */
	void (*applied)(void *ctx, struct daemon_source *src, int result);
	/* src leaves the configuration, or the daemon exits: frees src->priv. */
	void (*forget)(void *ctx, struct daemon_source *src);
	void *ctx;
};

/* Local files: a new copy when the file's identity, size or mtime changed. */
extern const struct refresh_ops refresh_local;
/*
 * http(s) feeds: conditional fetch and guards, the good copy in the feed
 * cache; ctx: a struct refresh_feed_ctx.
 */
extern const struct refresh_ops refresh_feed;
/*
 * refresh_feed's refresh, with accept ('refresh --accept': the copy the
 * guards refused, or else the next one fetched): its summary (a line, as
 * 'bloomxdp refresh' prints it) in said too. ctx: a struct refresh_feed_ctx.
 */
int refresh_feed_run(void *ctx, struct daemon_source *src, bool accept, char *said,
		     size_t said_len);
/* What refresh_feed reads of the daemon that runs it. */
struct refresh_feed_ctx {
	const char *ifname;
	const char *state_dir;	/* [daemon] state_dir, as reloaded */
};

/* What the lead plugs in; NULL members take the daemon's own. */
struct daemon_hooks {
	metrics_render_fn render;		/* GET /metrics; NULL: the daemon's gauges */
	void *render_ctx;			/* NULL: struct daemon * */
	bool config_optional;	/* no file at config_path: the defaults (no lists), said */
	/*
	 * Where events = json goes, a line each: the command's standard output
	 * (nothing else writes there: what the daemon does goes to stderr).
	 * NULL: nowhere.
	 */
	FILE *events;
};

/* Runs until SIGTERM or SIGINT (0), or fails to start (-errno, said). */
int daemon_run(const char *ifname, const char *config_path, const struct daemon_hooks *hooks);

/*
 * What a renderer of GET /metrics is given as ctx when daemon_hooks.render_ctx
 * is NULL: the daemon, read through these (on the loop's thread, no lock).
 */
struct daemon;
const char *daemon_ifname(const struct daemon *d);
/* The sources as configured now, with their refresh counters; returns how many. */
int daemon_sources(const struct daemon *d, const struct daemon_source **src);
/* The daemon's own gauges and counters, Prometheus text: the stub renderer. */
int daemon_render_metrics(void *daemon, FILE *out);

#endif
