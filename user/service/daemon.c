// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's loop: one thread, one poll() over the signals (signalfd), the
 * events ring buffer and the metrics server, with each list's refresh as a
 * timer. Lists change only through list_load(), which swaps a whole new
 * filter in or leaves the live one as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <bpf/libbpf.h>

#include "kernel/attach.h"
#include "kernel/attachment.h"
#include "service/config.h"
#include "service/control.h"
#include "service/crowdsec.h"
#include "service/daemon.h"
#include "lists/expiry.h"
#include "lists/learned.h"
#include "kernel/events.h"
#include "service/top.h"
#include "fleet/node.h"
#include "lists/lists.h"
#include "lists/load_options.h"
#include "lists/report.h"
#include "util/log.h"
#include "util/notify.h"
#include "service/metrics.h"
#include "service/refresh.h"
#include "service/status.h"
#include "util/json.h"

struct daemon {
	const char *ifname;
	const char *config_path;
	struct daemon_hooks hooks;
	struct refresh_ops feed_ops;	/* refresh_feed, its ctx feed_ctx */
	struct refresh_feed_ctx feed_ctx;
	struct config cfg;
	struct daemon_source *src;
	int nsrc;
	struct attachment att;
	bool att_open;
	struct ring_buffer *rb;
	struct events_clock clock;
	FILE *events_out;	/* events = json: hooks.events */
	bool syslog_open;
	struct metrics_server *metrics;
	/* What GET /metrics serves of the daemon, on the server's thread: the loop's last. */
	pthread_mutex_t snap_lock;
	char *snap;
	size_t snap_len;
	struct crowdsec *crowdsec;	/* the bouncer, with a [crowdsec] section */
	int sigfd;
	/* For the metrics. */
	__u64 started;
	__u64 reloads, reload_failures;
	__u64 loads, load_failures;
	__u64 events;
	struct top_table *top;		/* the most-hit entries of the events (stats --top) */
	/* Expiry (expiry.h): when to look again, and what the timeouts file was then. */
	__u64 expiry_check_ms;
	__u64 expiry_next;		/* the next deadline, seconds since the epoch; 0: none */
	__u64 expiry_stamp;		/* size and mtime of the timeouts file, hashed */
	bool expiry_seen;		/* the file was there at the last look */
	__u64 learned_sweep_ms;		/* when to sweep the expired learned addresses again */
	__u64 expired;
	struct fleet_node *fleet;	/* a fleet node (subscribe = ...), or NULL */
	struct control_server *control;	/* the control socket (service/control.h) */
};

/* How often the timeouts are looked at while some are there: well within a second. */
#define EXPIRY_CHECK_MS 250
/* The learned addresses' sweep: every so often, LEARNED_SWEEP_BUDGET entries at most. */
#define LEARNED_SWEEP_MS 10000

static __u64 now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

/* A line of the log with the journal's LIST= and EVENT= (INTERFACE=: log_interface). */
#define SAY(prio, list_name, event_name, ...)							\
	log_at(prio, &(struct log_fields){ .list = (list_name), .event = (event_name) },	\
	       __VA_ARGS__)

/* What a load (or a drop) did, as 'bloomxdp load' prints it, into the log. */
static void report_said(int priority, const char *list, const char *event,
			const struct load_result *r)
{
	LOG_REPORT(priority, (&(struct log_fields){ .list = list, .event = event }),
		   load_result_print, r);
}

/*
 * What systemd shows of the daemon (STATUS=): the sources enforced, those
 * that are not and why to look at the log, the last load.
 */
static void status_said(const struct daemon *d, bool ready)
{
	char line[256], last[32] = "never";
	__u64 entries = 0, newest = 0;
	int i, on = 0;

	for (i = 0; i < d->nsrc; i++) {
		on += !!d->src[i].last_ok;
		entries += d->src[i].entries;
		if (d->src[i].last_ok > newest)
			newest = d->src[i].last_ok;
	}
	if (newest)
		strftime(last, sizeof(last), "%Y-%m-%d %H:%M:%S",
			 localtime(&(time_t){ (time_t)newest }));
	snprintf(line, sizeof(line), "%d of %d source%s enforced (%llu entries, last load %s)%s; "
		 "%llu load%s failed, %llu event%s", on, d->nsrc, d->nsrc == 1 ? "" : "s",
		 (unsigned long long)entries, last, on < d->nsrc ? ", see the log" : "",
		 (unsigned long long)d->load_failures, d->load_failures == 1 ? "" : "s",
		 (unsigned long long)d->events, d->events == 1 ? "" : "s");
	if (ready)
		notify_ready("%s", line);
	else
		notify_status("%s", line);
}

static const char *kind_name(bool allow)
{
	return allow ? "allowlist" : "blocklist";
}

static int on_event(void *arg, void *data, size_t size)
{
	struct daemon *d = arg;
	char line[BLOOMXDP_EVENT_NAME_MAX * 4 + 256];

	if (events_stale(&d->clock, data, size))
		return 0;
	d->events++;
	if (d->top) {
		char entry[TOP_ENTRY_MAX], list[BLOOMXDP_LIST_NAME_MAX + 8];

		event_entry(&d->clock, data, entry, sizeof(entry), list, sizeof(list));
		top_add(d->top, entry, list, now_ms() / 1000);
	}
	if (d->cfg.events == CONFIG_EVENTS_JSON) {
		if (d->events_out)
			event_write_json(&d->clock, data, d->events_out);
	} else if (d->cfg.events == CONFIG_EVENTS_SYSLOG) {
		event_text(&d->clock, data, line, sizeof(line));
		syslog(LOG_NOTICE, "%s", line);
	}
	return 0;
}

static void events_mode(struct daemon *d)
{
	bool want = d->cfg.events == CONFIG_EVENTS_SYSLOG;

	if (want && !d->syslog_open)
		openlog("bloomxdp", LOG_PID, LOG_DAEMON);
	else if (!want && d->syslog_open)
		closelog();
	d->syslog_open = want;
}

/* The ring buffer of drop events, read unless events = none. */
static int events_open(struct daemon *d)
{
	int ret;

	events_mode(d);
	if (d->cfg.events == CONFIG_EVENTS_NONE || d->rb)
		return 0;
	if (!d->att_open) {
		ret = attachment_open(d->ifname, false, &d->att);
		if (ret)
			return ret;
		d->att_open = true;
	}
	if (!d->att.config.events_per_sec)
		log_warn("%s was attached with events-per-sec 0: no drop event will come",
			 d->ifname);
	events_clock_now(&d->clock);
	d->clock.lists_fd = d->att.lists_fd;
	d->rb = ring_buffer__new(d->att.events_fd, on_event, d, NULL);
	if (!d->rb) {
		ret = -errno;
		log_error("cannot read the drop events of %s: %s", d->ifname, strerror(-ret));
		return ret;
	}
	return 0;
}

const char *daemon_ifname(const struct daemon *d)
{
	return d->ifname;
}

int daemon_sources(const struct daemon *d, const struct daemon_source **src)
{
	*src = d->src;
	return d->nsrc;
}

/* One metric family with a sample per source: a __u64 field of struct daemon_source. */
static void source_family(FILE *out, const struct daemon *d, const char *name, const char *help,
			  const char *type, size_t field)
{
	int i;

	fprintf(out, "# HELP bloomxdp_daemon_%s %s\n# TYPE bloomxdp_daemon_%s %s\n", name, help,
		name, type);
	for (i = 0; i < d->nsrc; i++) {
		fprintf(out, "bloomxdp_daemon_%s{ifname=\"", name);
		metrics_label_value(out, d->ifname);
		fprintf(out, "\",list=\"%s\"} %llu\n", d->src[i].spec.name,
			*(const unsigned long long *)((const char *)&d->src[i] + field));
	}
}

/*
 * A fleet node's (subscribe = ...): its families always, so that a dashboard's
 * queries stay valid; their samples only on a fleet node.
 */
static void render_fleet(const struct daemon *d, FILE *out)
{
	static const struct {
		const char *name, *help, *type;
		size_t field;
	} one[] = {
#define FLEET_ONE(name, help, type, field) \
	{ "bloomxdp_fleet_" name, help, type, offsetof(struct fleet_node_stats, field) }
		FLEET_ONE("version", "The fleet version the node applied (0: none yet).", "gauge",
			  version),
		FLEET_ONE("applied_total", "Fleet versions applied.", "counter", applied),
		FLEET_ONE("last_apply_seconds", "When the node last applied a version, seconds "
			  "since the epoch (0: not since the daemon started).", "gauge", applied_at),
		FLEET_ONE("deltas_total", "Fleet deltas (publish --add, --del) applied.", "counter",
			  deltas),
		FLEET_ONE("inforce_entries", "Entries in force from the fleet's deltas.", "gauge",
			  inforce),
		FLEET_ONE("reconnects_total", "Connections to Redis made again after one was lost "
			  "or failed.", "counter", reconnects),
#undef FLEET_ONE
	};
	struct fleet_node_stats st = {};
	size_t i;

	if (d->fleet)
		fleet_node_stats(d->fleet, &st);
#define FLEET_SAMPLE(name, labels, value)						\
	do {										\
		fprintf(out, "%s{ifname=\"", name);					\
		metrics_label_value(out, d->ifname);					\
		fputs("\",channel=\"", out);						\
		metrics_label_value(out, st.channel);					\
		fprintf(out, "\"%s} %llu\n", labels, (unsigned long long)(value));	\
	} while (0)
	fputs("# HELP bloomxdp_fleet_connected 1 while the fleet node reads its channel's "
	      "stream from Redis, else 0.\n# TYPE bloomxdp_fleet_connected gauge\n", out);
	if (d->fleet)
		FLEET_SAMPLE("bloomxdp_fleet_connected", "", st.connected);
	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", one[i].name, one[i].help,
			one[i].name, one[i].type);
		if (d->fleet)
			FLEET_SAMPLE(one[i].name, "",
				     *(const __u64 *)((const char *)&st + one[i].field));
	}
	fputs("# HELP bloomxdp_fleet_failures_total Versions, deltas or sets in force not "
	      "applied, by reason: signature (not signed with verify_key's key), stale (not "
	      "newer than the one applied), payload (fails its checks), state (the node's state "
	      "is unreadable), apply (could not be applied).\n"
	      "# TYPE bloomxdp_fleet_failures_total counter\n", out);
	for (i = 0; d->fleet && i < FLEET_FAILURES; i++) {
		char label[32];

		snprintf(label, sizeof(label), ",reason=\"%s\"", fleet_failure_names[i]);
		FLEET_SAMPLE("bloomxdp_fleet_failures_total", label, st.failures[i]);
	}
#undef FLEET_SAMPLE
}

/* The daemon's own gauges and counters, on the loop's thread. */
static int render_own(const struct daemon *d, FILE *out)
{
#define GAUGE(name, help, type, value)							\
	do {										\
		fprintf(out, "# HELP bloomxdp_daemon_" name " " help "\n"			\
			     "# TYPE bloomxdp_daemon_" name " " type "\n"			\
			     "bloomxdp_daemon_" name "{ifname=\"");				\
		metrics_label_value(out, d->ifname);					\
		fprintf(out, "\"} %llu\n", (unsigned long long)(value));		\
	} while (0)
	GAUGE("start_time_seconds", "When the daemon started, seconds since the epoch.", "gauge",
	      d->started);
	GAUGE("sources", "List sources in the configuration.", "gauge", d->nsrc);
	GAUGE("reloads_total", "SIGHUPs whose configuration was applied.", "counter", d->reloads);
	GAUGE("reload_failures_total", "SIGHUPs whose configuration was refused.", "counter",
	      d->reload_failures);
	GAUGE("list_loads_total", "Lists loaded (a blocklist or allowlist swapped in).",
	      "counter", d->loads);
	GAUGE("list_load_failures_total", "Loads refused: the list before stayed enforced.",
	      "counter", d->load_failures);
	GAUGE("events_total", "Drop events read from the ring buffer.", "counter", d->events);
#undef GAUGE
	source_family(out, d, "source_failures_total", "Refreshes or loads of a source that failed.",
		      "counter", offsetof(struct daemon_source, failures));
	source_family(out, d, "source_refreshes_total", "New copies of a source found.", "counter",
		      offsetof(struct daemon_source, refreshes));
	source_family(out, d, "source_last_success_seconds",
		      "When a copy of the source was last applied (0: never).", "gauge",
		      offsetof(struct daemon_source, last_ok));
	source_family(out, d, "source_entries",
		      "Entries read from the source's copy by the last load that applied it.",
		      "gauge", offsetof(struct daemon_source, entries));
	if (d->crowdsec)
		crowdsec_render_metrics(d->crowdsec, out);
	render_fleet(d, out);
	return ferror(out) ? -EIO : 0;
}

/* The loop publishes its gauges for the metrics server's thread: between loads, never in one. */
static void snapshot(struct daemon *d)
{
	char *text = NULL, *old;
	size_t len = 0;
	FILE *out;

	if (!d->metrics)
		return;
	out = open_memstream(&text, &len);
	if (!out)
		return;
	if (render_own(d, out) | fclose(out)) {
		free(text);
		return;
	}
	pthread_mutex_lock(&d->snap_lock);
	old = d->snap;
	d->snap = text;
	d->snap_len = len;
	pthread_mutex_unlock(&d->snap_lock);
	free(old);
}

int daemon_render_metrics(void *arg, FILE *out)
{
	struct daemon *d = arg;

	pthread_mutex_lock(&d->snap_lock);
	if (d->snap_len)
		fwrite(d->snap, 1, d->snap_len, out);
	pthread_mutex_unlock(&d->snap_lock);
	return ferror(out) ? -EIO : 0;
}

static int metrics_start(struct daemon *d, const char *address, struct metrics_server **out)
{
	metrics_render_fn render = d->hooks.render ? d->hooks.render : daemon_render_metrics;
	void *ctx = d->hooks.render_ctx ? d->hooks.render_ctx : d;
	int ret;

	ret = metrics_server_start(address, render, ctx, out);
	if (!ret && !d->metrics) {
		d->metrics = *out;	/* the first snapshot before the first scrape */
		snapshot(d);
		d->metrics = NULL;
	}
	if (!ret)
		log_info("daemon %s: metrics at http://%s/metrics", d->ifname, address);
	return ret;
}

static const struct refresh_ops *source_ops(const struct daemon *d, const struct feed_spec *s)
{
	return config_source_is_url(s->source) ? &d->feed_ops : &refresh_local;
}

/* The daemon's sources from the configuration's, before any refresh. */
static int sources_from_config(const struct daemon *d, const struct config *cfg,
			       struct daemon_source **out)
{
	struct daemon_source *src;
	int i;

	src = calloc(cfg->nsources ? cfg->nsources : 1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	for (i = 0; i < cfg->nsources; i++) {
		src[i].spec = cfg->sources[i].spec;
		src[i].ops = source_ops(d, &src[i].spec);
	}
	*out = src;
	return 0;
}

static void source_forget(struct daemon_source *s)
{
	if (s->ops && s->ops->forget)
		s->ops->forget(s->ops->ctx, s);
}

static void schedule(struct daemon_source *s, __u64 now)
{
	s->due_ms = s->spec.refresh_s ? now + s->spec.refresh_s * 1000 : 0;
}

/* One source's refresh: 1 if it has a new copy to load. */
static int refresh_one(struct daemon *d, struct daemon_source *s)
{
	int ret;

	ret = s->ops->refresh(s->ops->ctx, s);
	if (ret < 0)
		s->failures++;
	if (ret > 0) {
		s->pending = true;
		s->refreshes++;
		SAY(LOG_INFO, s->spec.name, "list-new-copy", "daemon %s: list %s: new copy of %s",
		    d->ifname, s->spec.name, s->spec.source);
	}
	return ret > 0;
}

/* The default list ([list default]) or a named list: the list it is loaded into. */
static bool default_list(struct daemon_source *s)
{
	config_source_list(&s->spec);
	return !s->spec.load.list;
}

/*
 * One list_load() of the sources picked (each with a copy): they replace
 * their list(s); the other named lists stay as the state recorded them.
 */
static int load_picked(struct daemon *d, bool allow, const bool *pick)
{
	const struct daemon_source *first = NULL;
	const char *name;
	struct list_source *paths;
	struct load_result r;
	struct list_opts lo;
	int i, n = 0, ret;

	paths = calloc(d->nsrc ? d->nsrc : 1, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	for (i = 0; i < d->nsrc; i++) {
		struct daemon_source *s = &d->src[i];

		if (!pick[i])
			continue;
		first = first ? first : s;
		s->entries_read = 0;
		config_source_list(&s->spec);
		paths[n++] = (struct list_source){ .path = s->path, .opts = &s->spec.load,
						   .entries = &s->entries_read };
	}
	if (!n) {
		free(paths);
		return 0;
	}
	lo = first->spec.load;
	lo.state_dir = d->cfg.state_dir;
	ret = list_load_sources(d->ifname, &lo, paths, n, &r);
	name = n == 1 ? first->spec.name : allow ? "allowlist" : lo.list ? lo.list : "default";
	report_said(ret ? LOG_ERR : LOG_INFO, name, ret ? "list-load-failed" : "list-loaded", &r);
	if (ret) {
		d->load_failures++;
		SAY(LOG_ERR, name, "list-load-failed", "daemon %s: the %s was not loaded (%s); the "
		    "one loaded before stays enforced", d->ifname, kind_name(allow),
		    strerror(-ret));
	} else {
		d->loads++;
		SAY(LOG_INFO, name, "list-loaded", "daemon %s: %s loaded from %d source%s",
		    d->ifname, kind_name(allow), n, n == 1 ? "" : "s");
	}
	notify_watchdog();	/* between two loads of an apply() */
	for (i = 0; i < d->nsrc; i++) {
		struct daemon_source *s = &d->src[i];

		if (!pick[i])
			continue;
		s->pending = false;	/* tried: again when its source changes */
		if (ret) {
			s->failures++;
		} else {
			s->last_ok = time(NULL);
			s->entries = s->entries_read;
		}
		if (s->ops && s->ops->applied)
			s->ops->applied(s->ops->ctx, s, ret);
	}
	free(paths);
	return ret;
}

/*
 * Picks the blocklist's sources of the default list (dflt) or of the named
 * lists that have a new copy to load; says each that has no copy. The other
 * lists stay as loaded. Returns how many lists.
 */
static int pick_lists(struct daemon *d, bool dflt, bool *pick)
{
	int i, j, lists = 0;

	for (i = 0; i < d->nsrc; i++) {
		struct daemon_source *s = &d->src[i];

		pick[i] = false;
		if (s->spec.load.allow || default_list(s) != dflt)
			continue;
		if (!s->path[0]) {
			SAY(LOG_ERR, s->spec.name, "list-no-copy", "daemon %s: list %s has no copy "
			    "yet: it is not enforced until one comes; the other lists are loaded",
			    d->ifname, s->spec.name);
			continue;
		}
		pick[i] = s->pending;
		if (!pick[i])
			continue;
		for (j = 0; j < i && (!pick[j] || strcmp(d->src[j].spec.name, s->spec.name)); j++)
			;
		lists += j == i;
	}
	return lists;
}

/*
 * Loads the blocklist's (or allowlist's) sources. The allowlist is one list
 * of all its sources, held back while one has no copy yet (its exceptions
 * would be blocked). The blocklist's lists are independent: the default list
 * ([list default]) and the named lists are loaded apart, each named list that
 * has a copy is loaded, and when a load of several fails, each alone.
 */
static int apply(struct daemon *d, bool allow)
{
	bool *pick = calloc(d->nsrc ? 2 * d->nsrc : 1, sizeof(*pick)), *alone = pick + d->nsrc;
	int i, j, lists, ret = 0, one;

	if (!pick)
		return -ENOMEM;
	if (allow) {
		for (i = 0; i < d->nsrc; i++) {
			pick[i] = d->src[i].spec.load.allow;
			if (pick[i] && !d->src[i].path[0]) {
				SAY(LOG_ERR, d->src[i].spec.name, "list-no-copy", "daemon %s: "
				    "allowlist source %s has no copy yet: the allowlist is not "
				    "loaded; the one loaded before stays enforced", d->ifname,
				    d->src[i].spec.name);
				free(pick);
				return -ENODATA;
			}
		}
		ret = load_picked(d, true, pick);
		free(pick);
		return ret;
	}
	if (pick_lists(d, true, pick))
		ret = load_picked(d, false, pick);
	lists = pick_lists(d, false, pick);
	one = load_picked(d, false, pick);
	ret = ret ? ret : one;
	/* A list refused keeps only itself out: each [list NAME] has one source. */
	for (i = 0; one && lists > 1 && i < d->nsrc; i++) {
		if (!pick[i])
			continue;
		SAY(LOG_INFO, d->src[i].spec.name, "list-load-alone", "daemon %s: list %s: loaded on "
		    "its own", d->ifname, d->src[i].spec.name);
		for (j = 0; j < d->nsrc; j++)
			alone[j] = j == i;
		load_picked(d, false, alone);
	}
	free(pick);
	return ret;
}

/*
 * Whether the state records s's list as one copy of s's file, SHA-256 and
 * the way it is read alike: the list is enforced so already ('restore', or
 * the daemon's run before: a fresh attach starts the state's lists empty).
 */
static bool enforced_already(const struct daemon *d, struct daemon_source *s)
{
	struct list_opts rec = { .format = FORMAT_AUTO };
	struct list_inputs in;
	char which[STATE_NAME_MAX], hex[SHA256_HEX];
	const struct list_opts *read_as = &rec;
	bool same = false;
	int fd;

	config_source_list(&s->spec);
	if (list_inputs_state_which(&in, d->ifname, d->cfg.state_dir,
				    list_opts_which(&s->spec.load, which), false, false, &rec) ||
	    in.list.nsources != 1 || strcmp(in.list.src[0].source, s->path))
		goto out;
	if (in.nsrc_opts)
		read_as = &in.src_opts[0];
	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	same = !sha256_fd_hex(fd, hex) && !strcmp(hex, in.list.src[0].sha256) &&
	       config_load_read_equal(&s->spec.load, read_as);
	close(fd);
out:
	list_inputs_free(&in);
	return same;
}

/* At start: the lists the state records as they are now are not loaded again. */
static void skip_enforced(struct daemon *d)
{
	int i;

	for (i = 0; i < d->nsrc; i++) {
		struct daemon_source *s = &d->src[i];

		if (!s->pending || s->spec.load.allow || !enforced_already(d, s))
			continue;
		s->pending = false;
		s->last_ok = time(NULL);
		SAY(LOG_INFO, s->spec.name, "list-enforced-already", "daemon %s: list %s: enforced "
		    "already as the state records it (%s): not loaded again", d->ifname,
		    s->spec.name, s->path);
	}
}

/* Refreshes the sources due (all with force), then loads each list that has a new copy. */
static void refresh_due(struct daemon *d, bool force)
{
	bool changed[2] = { false, false };
	__u64 now = now_ms();
	int i;

	for (i = 0; i < d->nsrc; i++) {
		struct daemon_source *s = &d->src[i];

		if (!force && (!s->due_ms || s->due_ms > now))
			continue;
		/* First: a feed's refresh may set an earlier retry (its backoff). */
		schedule(s, now);
		changed[s->spec.load.allow] |= refresh_one(d, s);
	}
	if (force)
		skip_enforced(d);
	/* The blocklist first: its exceptions go to the allowlist, which then replaces them. */
	if (changed[0])
		apply(d, false);
	if (changed[1])
		apply(d, true);
	if (!force && (changed[0] || changed[1]))
		status_said(d, false);
}

/*
 * Entries whose deadline passed leave through del, the next check at most
 * EXPIRY_CHECK_MS after their deadline; the timeouts file is read again only
 * when it changed or a deadline came.
 */
/* What each deletion of an expiry did, into the log. */
static void expired_print(const struct del_result *r, void *ctx)
{
	(void)ctx;
	LOG_REPORT(LOG_INFO, (&(struct log_fields){ .event = "expired" }), del_result_print, r);
}

static void expire_due(struct daemon *d)
{
	__u64 now = now_ms(), stamp, expired, next;
	time_t wall = time(NULL);
	int ret;

	if (now < d->expiry_check_ms)
		return;
	d->expiry_check_ms = now + EXPIRY_CHECK_MS;
	ret = expiry_stat(d->ifname, d->cfg.state_dir, &stamp);
	d->expiry_seen = !ret;
	if (ret)
		return;
	if (stamp == d->expiry_stamp && (!d->expiry_next || (__u64)wall < d->expiry_next))
		return;
	ret = expiry_run(d->ifname, d->cfg.state_dir, wall, false, &expired, &next, expired_print,
			 NULL);
	if (ret && ret != -ENOENT) {
		log_error("daemon %s: cannot expire entries: %s (retried in %d ms)", d->ifname,
			  strerror(-ret), EXPIRY_CHECK_MS);
		return;
	}
	d->expired += expired;
	d->expiry_next = next;
	if (expired)
		SAY(LOG_INFO, NULL, "expired", "daemon %s: %llu entr%s expired, deleted in %llu ms",
		    d->ifname, (unsigned long long)expired, expired == 1 ? "y" : "ies",
		    (unsigned long long)(now_ms() - now));
	/* Its own rewrite is seen as a change once, and read back: cheap, and always right. */
	if (!expiry_stat(d->ifname, d->cfg.state_dir, &stamp))
		d->expiry_stamp = stamp;
}

/*
 * Addresses learned from DNS answers (load --learn) whose TTL passed: the
 * program no longer acts on them; deleted here so that the LRU map keeps its
 * room for live ones. Bounded work per tick; the rest at the next.
 */
static void learned_sweep_due(struct daemon *d)
{
	__u64 now = now_ms();
	struct clock_pair clk;
	struct attachment att;
	__u32 deleted;
	int ret;

	if (now < d->learned_sweep_ms || !(d->cfg.attach->match & BLOOMXDP_MATCH_DNS_ANSWERS))
		return;
	d->learned_sweep_ms = now + LEARNED_SWEEP_MS;
	if (attachment_open(d->ifname, false, &att))
		return;		/* said; the next tick tries again */
	if (att.config.match & BLOOMXDP_MATCH_DNS_ANSWERS) {
		clock_pair_now(&clk);
		ret = learned_sweep(att.learned_fd, clk.mono_ns, LEARNED_SWEEP_BUDGET, &deleted);
		if (ret)
			log_error("daemon %s: cannot sweep the learned addresses: %s (retried in "
				  "%d s)", d->ifname, strerror(-ret), LEARNED_SWEEP_MS / 1000);
		else if (deleted)
			log_debug("daemon %s: %u learned addresses expired, deleted", d->ifname,
				  deleted);
		/* A full budget: more may be due, at once. */
		if (!ret && deleted == LEARNED_SWEEP_BUDGET)
			d->learned_sweep_ms = now;
	}
	attachment_close(&att);
}

static int next_timeout(const struct daemon *d)
{
	__u64 now = now_ms(), next = 0;
	int i, t;

	for (i = 0; i < d->nsrc; i++)
		if (d->src[i].due_ms && (!next || d->src[i].due_ms < next))
			next = d->src[i].due_ms;
	if (d->crowdsec && (!next || crowdsec_due_ms(d->crowdsec) < next))
		next = crowdsec_due_ms(d->crowdsec) ? crowdsec_due_ms(d->crowdsec) : now;
	t = !next ? 60000 : next <= now ? 0 : next - now > 60000 ? 60000 : (int)(next - now);
	if (d->cfg.attach->match & BLOOMXDP_MATCH_DNS_ANSWERS && t > LEARNED_SWEEP_MS)
		t = LEARNED_SWEEP_MS;
	/* New timeouts are noticed within a second; due ones within EXPIRY_CHECK_MS. */
	if (t > (d->expiry_seen ? EXPIRY_CHECK_MS : 1000))
		t = d->expiry_seen ? EXPIRY_CHECK_MS : 1000;
	if (d->fleet) {
		int m = fleet_node_timeout_ms(d->fleet);

		if (m >= 0 && m < t)
			t = m;
	}
	return t;
}

/*
 * 'bloomxdp attach' with [attach], its state in [daemon] state_dir (where the
 * daemon loads, adds and expires); force: replace the program over the live maps.
 * What it did goes to the log, in attach's words.
 */
static int attach_as_configured(struct daemon *d, const struct config *c, bool force)
{
	struct attach_opts o = *c->attach;
	struct attach_result res;
	char text[ATTACH_TEXT_MAX];
	int ret;

	o.state_dir = c->state_dir;
	if (force)
		o.force = true;
	ret = attach_run(d->ifname, &o, &res);
	if (!ret)
		log_text(LOG_INFO, &(struct log_fields){ .event = "attach" },
			 attach_result_text(d->ifname, &res, text, sizeof(text)));
	return ret;
}

/* [attach] changed: attach --force replaces the program over the live maps, list kept. */
static void reattach(struct daemon *d, const struct config *nc)
{
	if (attach_as_configured(d, nc, true))
		log_error("daemon %s: the new [attach] settings were not applied; the "
			  "program before runs on", d->ifname);
}

/* The bouncer as [crowdsec] says: started, given its new settings, or stopped. */
static int crowdsec_configure(struct daemon *d, const struct config *nc)
{
	int ret;

	if (!nc->crowdsec.enabled) {
		crowdsec_free(d->crowdsec);
		d->crowdsec = NULL;
		return 0;
	}
	if (!d->crowdsec) {
		ret = crowdsec_new(d->ifname, nc->state_dir, &nc->crowdsec, &d->crowdsec);
		if (ret)
			log_error("daemon %s: cannot start the crowdsec bouncer: %s", d->ifname,
				  strerror(-ret));
		return ret;
	}
	if (!crowdsec_config_equal(&d->cfg.crowdsec, &nc->crowdsec) ||
	    strcmp(d->cfg.state_dir, nc->state_dir))
		crowdsec_reconfigure(d->crowdsec, nc->state_dir, &nc->crowdsec);
	return 0;
}

/* The bouncer's pull, started when due and driven by the loop; its changes are in place. */
static void crowdsec_due(struct daemon *d)
{
	if (d->crowdsec)
		crowdsec_run(d->crowdsec, now_ms());
}

/*
 * The configuration; without its file, when it is optional (daemon IFNAME
 * without --config), the defaults: attach's, no list of its own, the
 * timeouts of the state directory expired, no metrics.
 */
static int config_read(struct daemon *d, struct config *cfg)
{
	if (d->hooks.config_optional && access(d->config_path, F_OK) && errno == ENOENT) {
		log_info("daemon %s: there is no %s: running with the defaults (attach's "
			 "settings, no list of its own, entries added with --timeout expire, no "
			 "metrics); write it and send SIGHUP to change them", d->ifname,
			 d->config_path);
		return config_defaults(d->config_path, cfg);
	}
	return config_parse(d->config_path, cfg);
}

/* A named list no longer configured, dropped (list_drop()); what it did into the log. */
static int list_drop_said(const char *ifname, const char *state_dir, const char *name)
{
	struct load_result r;
	int ret = list_drop(ifname, state_dir, name, &r);

	(void)ifname;
	report_said(ret ? LOG_ERR : LOG_INFO, name, "list-dropped", &r);
	return ret;
}

/* SIGHUP: the configuration again; applied if it is valid, else refused as a whole. */
static void reload(struct daemon *d)
{
	struct daemon_source *src = NULL, *old;
	bool changed[2] = { false, false }, fresh;
	struct feed_spec spec;
	struct config nc;
	__u64 now = now_ms();
	int i, j;

	SAY(LOG_INFO, NULL, "reload", "daemon %s: SIGHUP: reading %s", d->ifname, d->config_path);
	if (config_read(d, &nc) || sources_from_config(d, &nc, &src)) {
		config_free(&nc);
		d->reload_failures++;
		SAY(LOG_ERR, NULL, "reload-refused", "daemon %s: %s refused (see above): the "
		    "running settings stay; fix it and send SIGHUP again", d->ifname,
		    d->config_path);
		return;
	}
	if (!config_attach_equal(&d->cfg, &nc))
		reattach(d, &nc);
	if (strcmp(d->cfg.subscribe, nc.subscribe) || strcmp(d->cfg.channel, nc.channel) ||
	    strcmp(d->cfg.node, nc.node) || strcmp(d->cfg.verify_key, nc.verify_key))
		log_warn("daemon %s: subscribe, channel, node and verify_key change when the daemon "
			 "restarts; it goes on as it was", d->ifname);
	/* Sources kept as they were keep their copy and timer; the others start over. */
	for (i = 0; i < nc.nsources; i++) {
		fresh = true;
		for (j = 0; j < d->nsrc; j++) {
			old = &d->src[j];
			if (!old->ops || strcmp(old->spec.name, src[i].spec.name))
				continue;
			if (strcmp(old->spec.source, src[i].spec.source) ||
			    old->spec.load.allow != src[i].spec.load.allow ||
			    old->ops != src[i].ops)
				break;
			/* Same source: its state carries over; a new interval, a new timer. */
			memcpy(src[i].path, old->path, sizeof(src[i].path));
			src[i].due_ms = old->due_ms;
			src[i].refreshes = old->refreshes;
			src[i].failures = old->failures;
			src[i].last_ok = old->last_ok;
			src[i].priv = old->priv;
			src[i].pending = old->pending;
			old->ops = NULL;	/* moved */
			if (src[i].spec.refresh_s != old->spec.refresh_s) {
				schedule(&src[i], now);
				log_info("daemon %s: list %s: refresh every %llus", d->ifname,
					 src[i].spec.name,
					 (unsigned long long)src[i].spec.refresh_s);
			}
			/* Read another way (format, column...): loaded again. */
			spec = old->spec;
			spec.refresh_s = src[i].spec.refresh_s;
			if (!config_source_equal(&spec, &src[i].spec))
				changed[src[i].spec.load.allow] = src[i].pending = true;
			fresh = false;
			break;
		}
		if (fresh) {
			SAY(LOG_INFO, src[i].spec.name, "list-added", "daemon %s: list %s: new, "
			    "from %s", d->ifname, src[i].spec.name, src[i].spec.source);
			schedule(&src[i], now);
			changed[src[i].spec.load.allow] = src[i].pending = true;
		}
		/* SIGHUP looks at every source: a refresh of 0 waits for it. */
		changed[src[i].spec.load.allow] |= refresh_one(d, &src[i]);
	}
	for (j = 0; j < d->nsrc; j++) {
		if (!d->src[j].ops)
			continue;
		SAY(LOG_INFO, d->src[j].spec.name, "list-removed", "daemon %s: list %s: removed",
		    d->ifname, d->src[j].spec.name);
		changed[d->src[j].spec.load.allow] = true;
		/* A named list: dropped now; the reload below reads the others. */
		if (!d->src[j].spec.load.allow && default_list(&d->src[j]))
			log_warn("daemon %s: the default list keeps the entries of its last load "
				 "('bloomxdp load %s FILE' replaces them)", d->ifname, d->ifname);
		else if (!d->src[j].spec.load.allow &&
			 list_drop_said(d->ifname, nc.state_dir, d->src[j].spec.name))
			log_error("daemon %s: list %s stays enforced: it could not be dropped",
				  d->ifname, d->src[j].spec.name);
		source_forget(&d->src[j]);
	}
	free(d->src);
	d->src = src;
	d->nsrc = nc.nsources;
	/* Metrics: the new address is listened on before the old one is closed. */
	if (strcmp(d->cfg.metrics, nc.metrics)) {
		struct metrics_server *next = NULL;

		if (nc.metrics[0] && metrics_start(d, nc.metrics, &next)) {
			log_error("daemon %s: metrics stay at %s", d->ifname,
				  d->cfg.metrics[0] ? d->cfg.metrics : "(none)");
			snprintf(nc.metrics, sizeof(nc.metrics), "%s", d->cfg.metrics);
		} else {
			metrics_server_stop(d->metrics);
			d->metrics = next;
			if (!next)
				log_info("daemon %s: metrics server stopped", d->ifname);
		}
	}
	crowdsec_configure(d, &nc);
	/* The old configuration goes only now: the sources' options pointed into it. */
	config_free(&d->cfg);
	d->cfg = nc;
	fleet_node_set_attach(d->fleet, d->cfg.attach);
	events_mode(d);
	if (d->cfg.events != CONFIG_EVENTS_NONE && events_open(d))
		log_error("daemon %s: drop events are not read", d->ifname);
	if (changed[0])
		apply(d, false);
	if (changed[1])
		apply(d, true);
	d->reloads++;
	SAY(LOG_INFO, NULL, "reload-applied", "daemon %s: %s applied: %d source%s", d->ifname,
	    d->config_path, d->nsrc, d->nsrc == 1 ? "" : "s");
}

/* A command's text, written into a memory stream, as the reply's "text". */
static int text_member(struct json *j, void (*write)(const void *arg, FILE *out), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return -ENOMEM;
	write(arg, out);
	if (fclose(out)) {
		free(text);
		return -ENOMEM;
	}
	json_kv_string(j, "text", text);
	free(text);
	return 0;
}

static void status_text_of(const void *v, FILE *out)
{
	status_write_text(v, out);
}

static void query_text_of(const void *r, FILE *out)
{
	query_result_print(r, out);
}

/* {"cmd":"status"}: what 'bloomxdp status IFNAME' shows, with the daemon's state directory. */
static int control_status(struct daemon *d, const struct control_request *req, struct json *j,
			  char *why, size_t len)
{
	struct status_view v = { .ifname = d->ifname };
	struct attachment att;
	int ret;

	ret = attachment_open(d->ifname, false, &att);
	if (!ret) {
		ret = status_view_read(&att, d->cfg.state_dir, &v);
		v.group = att.grouped ? &att.group : NULL;
		if (!ret && req->text) {
			ret = text_member(j, status_text_of, &v);
		} else if (!ret) {
			json_key(j, "status");
			status_json_value(&v, j);
		}
		attachment_close(&att);
	}
	if (ret)
		snprintf(why, len, "cannot read the status of %s: %s (the daemon's log says more)",
			 d->ifname, strerror(-ret));
	return ret;
}

/* {"cmd":"query"}: what 'bloomxdp query IFNAME KEY...' says, learned and timed entries too. */
static int control_query(struct daemon *d, const struct control_request *req, struct json *j,
			 char *why, size_t len)
{
	struct list_opts o = list_opts_defaults;
	struct query_result r;
	int ret;

	o.state_dir = d->cfg.state_dir;
	o.list = req->list[0] ? req->list : NULL;
	ret = list_query(d->ifname, &o, (char **)req->keys, req->nkeys, &r);
	if (ret) {
		snprintf(why, len, "the query of %s failed: %s (the daemon's log says why)",
			 d->ifname, strerror(-ret));
	} else if (req->text) {
		ret = text_member(j, query_text_of, &r);
	} else {
		json_key(j, "query");
		query_result_json(&r, j);
	}
	query_result_free(&r);
	return ret;
}

struct top_text {
	const struct top_report *r;
	const char *ifname;
};

static void top_text_of(const void *v, FILE *out)
{
	const struct top_text *t = v;

	top_write_text(t->r, t->ifname, out);
}

/* {"cmd":"top","n":N}: the N most-hit entries of the drop events the daemon read. */
static int control_top(struct daemon *d, const struct control_request *req, struct json *j,
		       char *why, size_t len)
{
	struct top_report *r;
	int ret;

	if (!d->rb) {
		snprintf(why, len, "the daemon of %s reads no drop events (events = none): set "
			 "events = json or syslog in %s for stats --top", d->ifname,
			 d->config_path);
		return -ENODATA;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = top_report(d->top, req->n, now_ms() / 1000, r);
	if (!ret) {
		r->events_per_sec = d->att.config.events_per_sec;
		if (req->text) {
			ret = text_member(j, top_text_of,
					  &(struct top_text){ .r = r, .ifname = d->ifname });
		} else {
			json_key(j, "top");
			top_write_json(r, j);
		}
	}
	if (ret)
		snprintf(why, len, "cannot count the top entries: %s", strerror(-ret));
	free(r);
	return ret;
}

/* {"cmd":"reload"}: as SIGHUP. */
static int control_reload(struct daemon *d, struct json *j, char *why, size_t len)
{
	__u64 failures = d->reload_failures;
	char text[PATH_MAX + 128];

	notify_reloading();
	reload(d);
	status_said(d, true);
	if (d->reload_failures != failures) {
		snprintf(why, len, "%s refused (its errors are in the daemon's log): the running "
			 "settings stay; fix it ('bloomxdp check-config %s') and reload again",
			 d->config_path, d->config_path);
		return -EINVAL;
	}
	snprintf(text, sizeof(text), "daemon %s: %s applied: %d source%s\n", d->ifname,
		 d->config_path, d->nsrc, d->nsrc == 1 ? "" : "s");
	json_kv_string(j, "text", text);
	return 0;
}

/*
 * {"cmd":"refresh","list":NAME,"accept":BOOL}: the feed refreshed now (with
 * accept, as 'refresh --accept'), and a new copy loaded at once with the
 * daemon's other sources. -ENOENT: the daemon has no feed of that name.
 */
static int control_refresh(struct daemon *d, const struct control_request *req,
			   struct json *j, char *why, size_t len)
{
	__u64 failures = d->load_failures;
	char said[FEED_SUMMARY_MAX];
	struct daemon_source *s = NULL;
	int i, ret;

	for (i = 0; i < d->nsrc && !s; i++)
		if (!strcmp(d->src[i].spec.name, req->list))
			s = &d->src[i];
	if (!s || s->ops != &d->feed_ops) {
		snprintf(why, len, "the daemon of %s has no feed named %s%s", d->ifname, req->list,
			 s ? ": it is a local file, read again when it changes" : "");
		return s ? -EINVAL : -ENOENT;
	}
	SAY(LOG_INFO, s->spec.name, "control-refresh", "daemon %s: list %s: refresh asked%s",
	    d->ifname, s->spec.name, req->accept ? " with --accept" : "");
	ret = refresh_feed_run(s->ops->ctx, s, req->accept, said, sizeof(said));
	if (ret < 0) {
		s->failures++;
		said[strcspn(said, "\n")] = '\0';
		snprintf(why, len, "%s", said);
		return ret;
	}
	if (ret > 0) {
		s->pending = true;
		s->refreshes++;
		apply(d, s->spec.load.allow);
		status_said(d, false);
	}
	if (d->load_failures != failures) {
		snprintf(why, len, "list %s: the new copy was not loaded: the daemon's log says "
			 "why; the list before stays enforced", s->spec.name);
		return -EIO;
	}
	if (ret > 0)
		snprintf(said + strlen(said), sizeof(said) - strlen(said), "daemon %s: list %s "
			 "loaded at once with the daemon's other sources (its log says what it "
			 "loaded)\n", d->ifname, s->spec.name);
	json_kv_string(j, "text", said);
	json_kv_bool(j, "loaded", ret > 0);
	return 0;
}

static int control_handle(void *ctx, const struct control_request *req, struct json *j,
			  char *why, size_t len)
{
	struct daemon *d = ctx;

	switch (req->cmd) {
	case CONTROL_STATUS:
		return control_status(d, req, j, why, len);
	case CONTROL_QUERY:
		return control_query(d, req, j, why, len);
	case CONTROL_RELOAD:
		return control_reload(d, j, why, len);
	case CONTROL_REFRESH:
		return control_refresh(d, req, j, why, len);
	case CONTROL_TOP:
		return control_top(d, req, j, why, len);
	}
	return -EINVAL;
}

/* Attaches with [attach] unless attached already (by 'restore', or by hand). */
static int attach_if_needed(struct daemon *d)
{
	struct pin_dir pd;
	int ret;

	ret = pin_dir_open(d->ifname, false, &pd);
	if (!ret) {
		pin_dir_close(&pd);
		log_info("daemon %s: attached already: its program and settings are kept",
			 d->ifname);
		return 0;
	}
	if (ret != -ENOENT)
		return ret;
	return attach_as_configured(d, &d->cfg, false);
}

static int signals_open(struct daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->sigfd < 0) {
		log_error("signalfd: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* 0 to go on, 1 to stop. */
static int on_signal(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			notify_reloading();
			reload(d);
			status_said(d, true);
		} else {
			notify_stopping();
			SAY(LOG_INFO, NULL, "stop", "daemon %s: %s: exiting; the filter stays "
			    "attached and enforces the lists as last loaded", d->ifname,
			    si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
			return 1;
		}
	}
	return 0;
}

/* The fleet's turn: a version may have attached the interface again (its events map is new). */
static void fleet_due(struct daemon *d, bool readable)
{
	if (!d->fleet)
		return;
	fleet_node_run(d->fleet, readable);
	if (!fleet_node_reattached(d->fleet) || !d->rb)
		return;
	ring_buffer__free(d->rb);
	d->rb = NULL;
	attachment_close(&d->att);
	d->att_open = false;
	if (events_open(d))
		log_error("daemon %s: drop events are not read", d->ifname);
}

static int loop(struct daemon *d)
{
	struct pollfd fds[3 + CONTROL_POLL_FDS + CROWDSEC_POLL_FDS];
	int n, ret, polled, fleet_at, timeout;

	for (;;) {
		notify_watchdog();
		refresh_due(d, false);
		crowdsec_due(d);
		expire_due(d);
		learned_sweep_due(d);
		snapshot(d);
		n = 0;
		fds[n++] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
		if (d->rb && d->cfg.events != CONFIG_EVENTS_NONE)
			fds[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(d->rb),
						    .events = POLLIN };
		fleet_at = fleet_node_fd(d->fleet) >= 0 ? n : -1;
		if (fleet_at >= 0)
			fds[n++] = (struct pollfd){ .fd = fleet_node_fd(d->fleet), .events = POLLIN };
		timeout = next_timeout(d);
		/* systemd's watchdog (WatchdogSec=): fed at half its interval. */
		if (notify_watchdog_ms() >= 0 && notify_watchdog_ms() < timeout)
			timeout = notify_watchdog_ms();
		/* The control socket: its listener and connections, their deadlines. */
		n += control_poll_fds(d->control, fds + n, &timeout);
		/* A pull under way: its sockets, and libcurl's own timeout. */
		if (d->crowdsec)
			n += crowdsec_poll_fds(d->crowdsec, fds + n, CROWDSEC_POLL_FDS, &timeout);
		ret = polled = poll(fds, n, timeout);
		if (ret < 0 && errno != EINTR) {
			log_error("daemon %s: poll: %s", d->ifname, strerror(errno));
			return -errno;
		}
		if (ret > 0 && (fds[0].revents & POLLIN) && on_signal(d))
			return 0;
		if (d->rb && d->cfg.events != CONFIG_EVENTS_NONE) {
			ret = ring_buffer__consume(d->rb);
			if (ret < 0)
				log_error("daemon %s: reading events: %s", d->ifname,
					  strerror(-ret));
		}
		control_run(d->control);
		/* polled, not ret: ring_buffer__consume() has reused ret. */
		fleet_due(d, polled > 0 && fleet_at >= 0 &&
			     (fds[fleet_at].revents & (POLLIN | POLLHUP | POLLERR)));
	}
}

/* subscribe = ...: the node starts before attach, to attach with the fleet's key at once. */
static int fleet_start(struct daemon *d)
{
	struct fleet_config fc = { .ifname = d->ifname, .state_dir = d->cfg.state_dir,
				   .attach = d->cfg.attach, .subscribe = d->cfg.subscribe,
				   .channel = d->cfg.channel, .node = d->cfg.node,
				   .verify_key = d->cfg.verify_key };

	if (!d->cfg.subscribe[0])
		return 0;
	return fleet_node_start(&fc, &d->fleet);
}

int daemon_run(const char *ifname, const char *config_path, const struct daemon_hooks *hooks)
{
	struct daemon d = { .ifname = ifname, .config_path = config_path, .sigfd = -1,
			    .snap_lock = PTHREAD_MUTEX_INITIALIZER };
	int i, ret;

	if (hooks)
		d.hooks = *hooks;
	/* Under systemd: the log into the journal, each line with INTERFACE=. */
	log_journal_setup();
	log_interface = ifname;
	notify_init();
	notify_status("starting: reading %s", config_path);
	/* cfg.state_dir is an array of cfg, which a reload replaces in place: it reads the new. */
	d.feed_ctx = (struct refresh_feed_ctx){ .ifname = ifname, .state_dir = d.cfg.state_dir };
	d.feed_ops = refresh_feed;
	d.feed_ops.ctx = &d.feed_ctx;
	d.started = time(NULL);
	d.top = calloc(1, sizeof(*d.top));
	if (!d.top) {
		ret = -ENOMEM;
		goto cleanup;
	}
	top_init(d.top, now_ms() / 1000);
	ret = config_read(&d, &d.cfg);
	if (ret) {
		log_error("daemon %s: fix %s (check it with 'bloomxdp check-config %s')", ifname,
			  config_path, config_path);
		goto cleanup;
	}
	d.events_out = d.hooks.events;
	ret = signals_open(&d);
	/* First: a second daemon of the interface stops here, before it touches anything. */
	if (!ret)
		ret = control_server_start(ifname, control_handle, &d, &d.control);
	if (!ret)
		ret = fleet_start(&d);
	if (!ret)
		ret = attach_if_needed(&d);
	if (!ret)
		ret = events_open(&d);
	if (!ret && d.cfg.metrics[0])
		ret = metrics_start(&d, d.cfg.metrics, &d.metrics);
	if (!ret)
		ret = sources_from_config(&d, &d.cfg, &d.src);
	if (!ret)
		ret = crowdsec_configure(&d, &d.cfg);
	if (ret)
		goto cleanup;
	d.nsrc = d.cfg.nsources;
	SAY(LOG_INFO, NULL, "start", "daemon %s: running with %s: %d source%s, events %s", ifname,
	    config_path, d.nsrc, d.nsrc == 1 ? "" : "s",
	    d.cfg.events == CONFIG_EVENTS_JSON ? "as JSON on standard output" :
	    d.cfg.events == CONFIG_EVENTS_SYSLOG ? "to syslog" : "not read");
	notify_status("attached; loading %d source%s", d.nsrc, d.nsrc == 1 ? "" : "s");
	refresh_due(&d, true);
	/* Until now a client got ECONNREFUSED, and did the work itself: the loop answers. */
	ret = control_server_listen(d.control);
	if (ret)
		goto cleanup;
	/* Attached, and each list with a copy loaded (or enforced already): ready. */
	status_said(&d, true);
	SAY(LOG_INFO, NULL, "ready", "daemon %s: ready", ifname);
	ret = loop(&d);
cleanup:
	for (i = 0; i < d.nsrc; i++)
		source_forget(&d.src[i]);
	free(d.src);
	crowdsec_free(d.crowdsec);
	metrics_server_stop(d.metrics);
	control_server_stop(d.control);
	free(d.snap);
	free(d.top);
	fleet_node_stop(d.fleet);
	ring_buffer__free(d.rb);
	if (d.att_open)
		attachment_close(&d.att);
	if (d.syslog_open)
		closelog();
	if (d.sigfd >= 0)
		close(d.sigfd);
	config_free(&d.cfg);
	log_interface = NULL;
	return ret;
}
