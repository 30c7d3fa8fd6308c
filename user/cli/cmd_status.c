// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status and stats: read-only views of an attachment. */
#include <errno.h>
#include <stddef.h>
#include <linux/if_link.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/attach.h"
#include "kernel/attachment.h"
#include "cli/commands.h"
#include "filter/filter.h"
#include "util/json.h"
#include "kernel/features.h"
#include "filter/layout.h"
#include "lists/lists.h"
#include "kernel/loader.h"
#include "filter/ranges.h"
#include "util/log.h"
#include "service/metrics.h"
#include "lists/named.h"
#include "parse/prefixes.h"
#include "filter/bloom_plan.h"
#include "kernel/state_dir.h"
#include "lists/bitcounts.h"
#include "lists/expiry.h"
#include "service/control.h"
#include "service/status.h"



/* stats --interval --json: the seconds between samples and each counter's rate over them. */
static void json_rates(struct json *j, const __u64 *now, const __u64 *before, double secs)
{
	size_t i;

	json_kv_double(j, "interval", "%.3f", secs);
	json_key(j, "rates");
	json_object_start(j);
	for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
		json_kv_double(j, counter_names[i], "%.1f", (now[i] - before[i]) / secs);
	json_object_end(j);
}

/* "ingress", "egress" or "both": the directions the counters come from. */
static const char *directions_name(const struct direction_counters *dc)
{
	return dc->present == 3 ? "both" : direction_name(dc->present == 2);
}

/*
 * The counters: with one direction, its program's, as always; with both,
 * their sum and each direction's (JSON: "ingress" and "egress" objects; text:
 * a column each). Rates are of the sum.
 */
static void print_counters(const struct direction_counters *dc, const __u64 *before,
			   double secs, bool json, const struct named_view *v,
			   const struct bloomxdp_config *cfg)
{
	const __u64 *now = dc->total;
	bool both = dc->present == 3;
	size_t i, d;

	if (json) {
		struct json j;

		json_start(&j, stdout);
		json_object_start(&j);
		json_kv_string(&j, "direction", directions_name(dc));
		for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
			json_kv_u64(&j, counter_names[i], now[i]);
		for (d = 0; both && d < 2; d++) {
			json_key(&j, direction_name(d));
			json_object_start(&j);
			for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
				json_kv_u64(&j, counter_names[i], dc->dir[d][i]);
			json_object_end(&j);
		}
		if (dc->guard) {
			json_key(&j, "guard");
			json_object_start(&j);
			for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
				json_kv_u64(&j, counter_names[i], dc->guard_counters[i]);
			json_object_end(&j);
		}
		if (before)
			json_rates(&j, now, before, secs);
		status_lists_write(v, cfg, &j, NULL);
		json_object_end(&j);
		json_end(&j);
	} else {
		if (both)
			printf("%-18s %20s %20s %20s\n", "", "total", "ingress", "egress");
		else if (dc->present == 2)
			printf("%-18s %20s\n", "", "egress");
		for (i = 0; i < BLOOMXDP_NCOUNTERS; i++) {
			printf("%-18s %20llu", counter_names[i], (unsigned long long)now[i]);
			for (d = 0; both && d < 2; d++)
				printf(" %20llu", (unsigned long long)dc->dir[d][i]);
			if (before)
				printf(" %14.1f/s", (now[i] - before[i]) / secs);
			printf("\n");
		}
		if (dc->guard)
			printf("socket guard       %20llu calls looked up, %llu refused\n",
			       (unsigned long long)(dc->guard_counters[COUNTER_INDEX(checked_v4)] +
						    dc->guard_counters[COUNTER_INDEX(checked_v6)]),
			       (unsigned long long)dc->guard_counters[COUNTER_INDEX(dropped)]);
		status_lists_write(v, cfg, NULL, stdout);
		if (before)
			printf("\n");
	}
	fflush(stdout);
}

/* One member's counters in JSON: its sum, and each direction's with both. */
static void member_json(struct json *j, const struct direction_counters *dc)
{
	size_t i, d;

	json_object_start(j);
	json_kv_string(j, "direction", directions_name(dc));
	for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
		json_kv_u64(j, counter_names[i], dc->total[i]);
	for (d = 0; dc->present == 3 && d < 2; d++) {
		json_key(j, direction_name(d));
		json_object_start(j);
		for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
			json_kv_u64(j, counter_names[i], dc->dir[d][i]);
		json_object_end(j);
	}
	json_object_end(j);
}

/*
 * attach IF1 IF2 ...: the group's sum and each interface's counters (JSON:
 * "interfaces", by name; text: a column each). Rates are of the sum.
 */
static void print_group(const struct group_counters *gc, const __u64 *before, double secs,
			bool json, const struct named_view *v, const struct bloomxdp_config *cfg)
{
	size_t i;
	int m;

	if (json) {
		struct json j;

		json_start(&j, stdout);
		json_object_start(&j);
		json_kv_string(&j, "group", gc->names[0]);
		for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
			json_kv_u64(&j, counter_names[i], gc->total[i]);
		json_key(&j, "interfaces");
		json_object_start(&j);
		for (m = 0; m < gc->n; m++) {
			json_key(&j, gc->names[m]);
			member_json(&j, &gc->dc[m]);
		}
		json_object_end(&j);
		if (before)
			json_rates(&j, gc->total, before, secs);
		status_lists_write(v, cfg, &j, NULL);
		json_object_end(&j);
		json_end(&j);
		fflush(stdout);
		return;
	}
	printf("%-18s %20s", "", "total");
	for (m = 0; m < gc->n; m++)
		printf(" %20s", gc->names[m]);
	printf("\n");
	for (i = 0; i < BLOOMXDP_NCOUNTERS; i++) {
		printf("%-18s %20llu", counter_names[i], (unsigned long long)gc->total[i]);
		for (m = 0; m < gc->n; m++)
			printf(" %20llu", (unsigned long long)gc->dc[m].total[i]);
		if (before)
			printf(" %14.1f/s", (gc->total[i] - before[i]) / secs);
		printf("\n");
	}
	status_lists_write(v, cfg, NULL, stdout);
	if (before)
		printf("\n");
	fflush(stdout);
}

/* The counters of att, or of its whole group (gc: then its sum in dc->total too). */
static int stats_read(const struct attachment *att, struct direction_counters *dc,
		      struct group_counters *gc, struct named_view *v)
{
	int ret = direction_counters_read(att, dc);

	if (!ret)
		ret = named_view_read(att, v);
	if (!ret && att->grouped) {
		ret = group_counters_read(att, gc);
		memcpy(dc->total, gc->total, sizeof(dc->total));
		/* The lists are the group's: their hits on every member. */
		memcpy(v->hits, gc->list_hits, sizeof(v->hits));
	}
	return ret;
}

static void stats_print(const struct attachment *att, const struct direction_counters *dc,
			const struct group_counters *gc, const __u64 *before, double secs,
			bool json, const struct named_view *v)
{
	if (att->grouped)
		print_group(gc, before, secs, json, v, &att->config);
	else
		print_counters(dc, before, secs, json, v, &att->config);
}

static volatile sig_atomic_t stop_sampling;

static void on_signal(int sig)
{
	(void)sig;
	stop_sampling = 1;
}

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int do_stats(const char *ifname, bool json, double interval, __u64 count)
{
	__u64 before[BLOOMXDP_NCOUNTERS];
	struct direction_counters dc;
	struct group_counters gc;
	struct named_view v;
	struct attachment att;
	double t_before, t_now;
	struct timespec nap;
	__u64 n;
	int ret;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = stats_read(&att, &dc, &gc, &v);
	if (ret) {
		log_error("cannot read the counters of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	if (interval <= 0) {
		stats_print(&att, &dc, &gc, NULL, 0, json, &v);
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	nap.tv_sec = (time_t)interval;
	nap.tv_nsec = (long)((interval - nap.tv_sec) * 1e9);
	t_before = monotonic_seconds();
	for (n = 0; (!count || n < count) && !stop_sampling; n++) {
		memcpy(before, dc.total, sizeof(before));
		if (nanosleep(&nap, NULL) && stop_sampling)
			break;
		t_now = monotonic_seconds();
		ret = stats_read(&att, &dc, &gc, &v);
		if (ret) {
			log_error("cannot read the counters of %s: %s", ifname, strerror(-ret));
			goto cleanup;
		}
		stats_print(&att, &dc, &gc, before, t_now - t_before, json, &v);
		t_before = t_now;
	}
cleanup:
	attachment_close(&att);
	return ret;
}

struct stats_opts {
	double interval;
	__u64 count;
	bool prometheus;
	__u64 top;
};

/* stats --top N: the daemon's count of its drop events' entries (service/top.h). */
static int do_top(const char *ifname, unsigned int n, bool json)
{
	struct control_request req = { .cmd = CONTROL_TOP, .n = n, .text = !json };
	char error[512] = "";
	int ret;

	ret = control_ask_write(ifname, &req, json ? "top" : NULL, stdout, error, sizeof(error));
	if (ret == -ENOENT)
		log_error("stats --top counts the drop events a daemon reads: no daemon of %s "
			  "answers (start one: bloomxdp daemon %s)", ifname, ifname);
	else if (error[0])
		log_error("stats --top: %s", error);
	return ret;
}

/* stats --prometheus: the counters and the filter's gauges, for a textfile collector. */
static int do_prometheus(const char *ifname)
{
	struct iface_metrics m;
	int ret;

	ret = iface_metrics_read(ifname, &m);
	if (ret)
		return ret;
	ret = metrics_write(stdout, &m, 1);
	if (ret)
		log_error("cannot write the metrics of %s: %s", ifname, strerror(-ret));
	return ret;
}

static int check_stats(const struct cli_call *call)
{
	const struct stats_opts *o = call->opts;

	if (o->top && (o->prometheus || o->interval > 0)) {
		log_error("stats: --top shows the daemon's count once: without --prometheus or "
			  "--interval");
		return -EINVAL;
	}
	if (o->prometheus && (call->json || o->interval > 0)) {
		log_error("stats: --prometheus prints one sample, in its own format: without "
			  "--json or --interval");
		return -EINVAL;
	}
	return 0;
}

static int run_stats(const struct cli_call *call)
{
	const struct stats_opts *o = call->opts;

	if (o->top)
		return do_top(call->ifname, (unsigned int)o->top, call->json);
	if (o->prometheus)
		return do_prometheus(call->ifname);
	return do_stats(call->ifname, call->json, o->interval, o->count);
}

static const struct option_spec stats_options[] = {
	OPTION("interval", 'i', OPT_SECONDS, offsetof(struct stats_opts, interval), "S",
	       "print every S seconds (e.g. 1, 0.5) the counters\nand their rates per second",
	       .min = 0.01, .max = 86400),
	OPTION("count", 'n', OPT_COUNT, offsetof(struct stats_opts, count), "N",
	       "stop after N samples", .min = 1, .max = COUNT_MAX),
	OPTION("prometheus", 0, OPT_FLAG, offsetof(struct stats_opts, prometheus), NULL,
	       "the counters (bloomxdp_NAME_total) and the filter's\ngauges in Prometheus' "
	       "text format"),
	OPTION("top", 0, OPT_COUNT, offsetof(struct stats_opts, top), "N",
	       "the N most-hit listed entries over the running\ndaemon's recent drop events "
	       "(a sample: the\nevents' rate)", .min = 1, .max = TOP_MAX),
	{}
};

static const struct stats_opts stats_defaults;

const struct command command_stats = {
	.name = "stats",
	.args = "IFNAME",
	.summary = "show the packet counters",
	.description =
		"Shows the packet counters of IFNAME summed over all CPUs. With --interval,\n"
		"prints every S seconds the counters and their rates per second, until\n"
		"interrupted or N times. With --prometheus, the counters and the live filter's\n"
		"figures (fill ratio, estimated FPR, entries, bytes, generation) in Prometheus'\n"
		"text exposition format, for node_exporter's textfile collector.\n"
		"With --top N, the N listed entries most hit over the last 10 to 20 minutes,\n"
		"as the running daemon of IFNAME counts its drop events (bloomxdp daemon; its\n"
		"events = json or syslog): a sample at the events' rate (attach\n"
		"--events-per-sec), counts of events and not of packets, over 512 counters\n"
		"(Space-Saving: past 512 distinct entries a count may hold up to 'error' of\n"
		"others'). Per-entry counters in the kernel would cost more than the filter.\n",
	.options = stats_options,
	.opts_size = sizeof(struct stats_opts),
	.defaults = &stats_defaults,
	.json = true,
	.ifname = true,
	.check = check_stats,
	.run = run_stats,
};


/*
 * The daemon's answer, when one runs on ifname: the same text or JSON, with
 * its state directory. Not 0: none answered,
 * or it refused (nothing printed): the command reads the attachment itself.
 */
static int status_by_daemon(const char *ifname, bool json)
{
	struct control_request req = { .cmd = CONTROL_STATUS, .text = !json };

	return control_ask_write(ifname, &req, json ? "status" : NULL, stdout, NULL, 0);
}

static int do_status(const char *ifname, bool json, const char *state_dir)
{
	struct status_view v = { .ifname = ifname };
	struct attachment att;
	int ret;

	/* --state-dir names the state to read: the daemon's is its own. */
	ret = state_dir ? -ENOENT : status_by_daemon(ifname, json);
	if (!ret)
		return 0;
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = status_view_read(&att, state_dir, &v);
	v.group = att.grouped ? &att.group : NULL;
	if (!ret && json)
		status_write_json(&v, stdout);
	else if (!ret)
		status_write_text(&v, stdout);
	attachment_close(&att);
	return ret;
}

struct status_opts {
	const char *state_dir;
};

static int run_status(const struct cli_call *call)
{
	const struct status_opts *o = call->opts;

	return do_status(call->ifname, call->json, o->state_dir);
}

static const struct option_spec status_options[] = {
	OPTION_STATE_DIR(struct status_opts),
	{}
};

const struct command command_status = {
	.name = "status",
	.args = "IFNAME",
	.summary = "show the attachment and the filter's state",
	.description =
		"Shows the attachment (program id, XDP mode) and the live filter: the keys it is\n"
		"sized for, entries and keys, bits m, hashes k, memory and its limit, fill ratio,\n"
		"and the estimated false-positive rate both from the key count,\n"
		"(1 - e^(-kn/m))^k, and from the fill ratio, fill^k; and whether the state\n"
		"records the live list (for 'bloomxdp restore'); the kernel's release and the\n"
		"features of it the attachment needs (each probed at attach). When a daemon\n"
		"runs on IFNAME (and without --state-dir), it is asked through its control\n"
		"socket: the same output, with the daemon's state directory.\n",
	.options = status_options,
	.opts_size = sizeof(struct status_opts),
	.json = true,
	.ifname = true,
	.run = run_status,
};
