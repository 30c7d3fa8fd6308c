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
#include "service/status.h"


/* Each list: its name, action, entries and hits (the default list first, always). */
static void print_lists(const struct named_view *v, const struct bloomxdp_config *cfg,
			struct json *j)
{
	__u32 id;

	if (j) {
		json_key(j, "lists");
		json_array_start(j);
	}
	for (id = 0; id < BLOOMXDP_LIST_IDS; id++) {
		const char *name = id ? v->list[id].name : "default";
		__u32 action = id ? list_action_of(&v->list[id], cfg) : list_default_action(cfg);
		bool learn = id && (v->list[id].has & BLOOMXDP_LIST_LEARN);

		if (id && !(v->present & (1U << id)))
			continue;
		if (!j) {
			printf("list %-13s %20llu hits, %llu entries, action %s%s\n", name,
			       (unsigned long long)v->hits[id],
			       (unsigned long long)v->list[id].entries, list_action_name(action),
			       learn ? ", learns addresses from DNS answers" : "");
			continue;
		}
		/* Keys of their own: status and stats have "action" and "entries" already. */
		json_object_start(j);
		json_kv_string(j, "list", name);
		json_kv_string(j, "list_action", list_action_name(action));
		json_kv_u64(j, "list_entries", v->list[id].entries);
		json_kv_u64(j, "list_hits", v->hits[id]);
		json_kv_bool(j, "learn", learn);
		json_object_end(j);
	}
	if (j)
		json_array_end(j);
}

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
		print_lists(v, cfg, &j);
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
		print_lists(v, cfg, NULL);
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
		print_lists(v, cfg, &j);
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
	print_lists(v, cfg, NULL);
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
};

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
		"text exposition format, for node_exporter's textfile collector.\n",
	.options = stats_options,
	.opts_size = sizeof(struct stats_opts),
	.defaults = &stats_defaults,
	.json = true,
	.ifname = true,
	.check = check_stats,
	.run = run_stats,
};

/* "32,24,16": the probed prefix lengths of a header word, or "none". */
static const char *lengths_text(__u64 word, char *buf, size_t len)
{
	__u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS];
	__u32 n = prefix_word_lengths(word, lengths), i;
	size_t used = 0;

	snprintf(buf, len, "none");
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%u", i ? "," : "", lengths[i]);
	return buf;
}

/* "replaced_xdp": what attach --force replaced, and whether it still exists. */
static void replaced_json(struct json *j, const struct xdp_hook *h)
{
	unsigned int i;

	json_key(j, "replaced_xdp");
	json_array_start(j);
	for (i = 0; i < h->n; i++) {
		json_object_start(j);
		json_kv_u64(j, "id", h->prog[i].id);
		json_kv_string(j, "name", h->prog[i].name);
		json_kv_string(j, "mode", xdp_held_mode_name(h->prog[i].mode));
		json_kv_string(j, "tag", h->prog[i].tag);
		json_kv_bool(j, "exists", xdp_held_alive(&h->prog[i]));
		json_object_end(j);
	}
	json_array_end(j);
}

static void status_json(const struct status_view *v)
{
	const struct bloomxdp_config *cfg = v->cfg;
	const struct filter_gauges *g = &v->g;
	char l4[64], l6[64];
	struct json j;
	size_t i;

	json_start(&j, stdout);
	json_object_start(&j);
	json_kv_string(&j, "ifname", v->ifname);
	if (v->group) {
		json_key(&j, "group");
		json_object_start(&j);
		json_kv_string(&j, "home", v->group->members[0]);
		json_key(&j, "members");
		json_array_start(&j);
		for (i = 0; i < v->group->n; i++)
			json_string(&j, v->group->members[i]);
		json_array_end(&j);
		json_object_end(&j);
	}
	json_kv_u64(&j, "ifindex", v->link.ifindex);
	json_kv_u64(&j, "prog_id", v->link.prog_id);
	json_kv_string(&j, "mode", v->link.mode);
	json_kv_string(&j, "direction", v->egress.hook ? "both" : v->link.direction);
	json_kv_string(&j, "hook", v->link.hook);
	if (v->egress.hook) {
		json_key(&j, "egress");
		json_object_start(&j);
		json_kv_u64(&j, "prog_id", v->egress.prog_id);
		json_kv_string(&j, "mode", v->egress.mode);
		json_kv_string(&j, "hook", v->egress.hook);
		json_object_end(&j);
	}
	json_kv_string(&j, "match", v->match);
	json_kv_string(&j, "action", attach_action_name(cfg->action));
	json_kv_string(&j, "dns_reply",
		       cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? "nxdomain" : "none");
	json_kv_string(&j, "dns_ports", v->dns_ports);
	json_kv_string(&j, "http_ports", v->http_ports);
	json_kv_string(&j, "tls_ports", v->tls_ports);
	json_kv_string(&j, "quic_ports", v->quic_ports);
	json_kv_string(&j, "quic_unparsed",
		       cfg->quic_unparsed == BLOOMXDP_POLICY_DROP ? "drop" : "pass");
	json_kv_u64(&j, "quic_budget", cfg->quic_per_sec);
	json_kv_string(&j, "ech", cfg->ech == BLOOMXDP_POLICY_DROP ? "drop" : "pass");
	json_kv_u64(&j, "learn_ttl_max", cfg->learn_ttl_max);
	json_kv_u64(&j, "learned", v->learned);
	json_kv_bool(&j, "doh_canary", cfg->doh_canary);
	json_kv_string(&j, "layout", layout_name(cfg->layout));
	json_kv_u64(&j, "capacity", cfg->capacity);
	json_kv_u64(&j, "sized_for", g->sized_for);
	json_kv_u64(&j, "max_memory", g->st.max_memory);
	json_kv_u64(&j, "entries", g->st.entries);
	json_kv_u64(&j, "keys", g->keys);
	/* JSON has no NaN nor infinity: unknown (or past counting) is null. */
	json_kv_double(&j, "distinct_estimate", "%.0f", g->distinct);
	json_kv_u64(&j, "bits", g->bits);
	json_kv_u64(&j, "hashes", cfg->hashes);
	json_kv_u64(&j, "bytes", g->bytes);
	json_kv_u64(&j, "set_bits", g->set_bits);
	json_kv_double(&j, "fill_ratio", "%.6g", g->fill);
	json_kv_double(&j, "estimated_fpr", "%.6g", g->fpr);
	json_kv_double(&j, "estimated_fpr_fill", "%.6g", g->fpr_fill);
	json_kv_double(&j, "target_fpr", "%g", g->target);
	/* --fpr is per packet: each field's chance, from the per-key estimate. */
	json_kv_double(&j, "probe_fpr", "%.6g", g->probe_fpr);
	packet_fpr_json(&j, &g->probes, g->fpr);
	json_kv_u64(&j, "generation", g->st.generation);
	json_kv_string(&j, "loaded_at", v->loaded);
	json_kv_bool(&j, "verify", v->exact_on);
	json_kv_string(&j, "verify_mode", verify_mode_name(cfg->verify));
	json_kv_string(&j, "verify_reason", v->verify_reason);
	json_kv_u64(&j, "exact_keys", g->st.exact_keys);
	json_kv_u64(&j, "exact_bytes", g->st.exact_bytes);
	json_kv_double(&j, "observed_fpr", "%.6g", v->observed_fpr);
	json_kv_u64(&j, "false_positives", v->fps);
	json_kv_string(&j, "prefix_lengths_v4", lengths_text(g->v4_lengths, l4, sizeof(l4)));
	json_kv_string(&j, "prefix_lengths_v6", lengths_text(g->v6_lengths, l6, sizeof(l6)));
	json_kv_u64(&j, "ranges_v4", g->ranges_v4);
	json_kv_u64(&j, "ranges_v6", g->ranges_v6);
	json_kv_u64(&j, "ranges_bytes", g->ranges_bytes);
	json_kv_u64(&j, "events_per_sec", cfg->events_per_sec);
	json_kv_u64(&j, "icmp_per_sec", cfg->icmp_per_sec);
	json_kv_bool(&j, "guard", v->guard.on);
	json_kv_string(&j, "guard_cgroup", v->guard.cgroup);
	json_kv_u64(&j, "guard_checked", v->guard.checked);
	json_kv_u64(&j, "guard_refused", v->guard.refused);
	json_kv_string(&j, "state", v->state);
	json_kv_u64(&j, "del_counters_bytes", v->del_bytes);
	json_kv_u64(&j, "del_counters_saturated", v->del_saturated);
	json_kv_u64(&j, "timeouts", v->timeouts);
	json_kv_u64(&j, "next_expiry", v->next_expiry);
	json_kv_string(&j, "kernel", v->kernel);
	json_key(&j, "features");
	json_array_start(&j);
	for (i = 0; i < kernel_features_count; i++)
		if (v->features & (1ULL << i))
			json_string(&j, kernel_features[i].name);
	json_array_end(&j);
	print_lists(&v->lists, cfg, &j);
	replaced_json(&j, &v->before);
	json_object_end(&j);
	json_end(&j);
}

/* The filter's lines of status's text: its size, fill, FPR, prefixes and ranges. */
static void status_text_filter(const struct status_view *v)
{
	const struct bloomxdp_config *cfg = v->cfg;
	const struct filter_gauges *g = &v->g;
	char l4[64], l6[64], text[256];

	printf("capacity        %llu keys at attach; the live filter is sized for %llu\n",
	       (unsigned long long)cfg->capacity, (unsigned long long)g->sized_for);
	printf("entries         %llu inserted as %llu keys, about %.0f distinct (from %s)%s\n",
	       (unsigned long long)g->st.entries, (unsigned long long)g->keys, g->distinct,
	       isnan(g->fill) ? "the keys" : "fill",
	       g->distinct > g->sized_for * 1.01 ? "  OVER CAPACITY" : "");
	printf("bits (m)        %llu\n", (unsigned long long)g->bits);
	printf("hashes (k)      %u\n", cfg->hashes);
	printf("memory          %llu bytes (%.2f MiB); at most %llu per filter (--max-memory)\n",
	       (unsigned long long)g->bytes, g->bytes / 1048576.0,
	       (unsigned long long)g->st.max_memory);
	if (isnan(g->fill))
		printf("fill ratio      n/a (the kernel's Bloom filter map cannot be read)\n");
	else
		printf("fill ratio      %.6f (%llu bits set)\n", g->fill,
		       (unsigned long long)g->set_bits);
	if (isnan(g->fpr_fill))
		printf("estimated FPR   %.3g per key from entries (sized for %.3g)\n", g->fpr,
		       g->probe_fpr);
	else
		printf("estimated FPR   %.3g per key from entries, %.3g from fill (sized for "
		       "%.3g)\n", g->fpr, g->fpr_fill, g->probe_fpr);
	printf("per packet      %.3g at most (target %g): %s\n", g->packet_fpr_worst, g->target,
	       packet_fpr_text(&g->probes, g->fpr, text, sizeof(text)));
	printf("prefix lengths  IPv4 %s, IPv6 %s (probes per packet: one per length)\n",
	       lengths_text(g->v4_lengths, l4, sizeof(l4)),
	       lengths_text(g->v6_lengths, l6, sizeof(l6)));
	if (g->ranges_v4 || g->ranges_v6)
		printf("exact ranges    IPv4 %llu intervals, IPv6 %llu intervals: %llu bytes "
		       "(those families are not in the Bloom filter: no false positive)\n",
		       (unsigned long long)g->ranges_v4, (unsigned long long)g->ranges_v6,
		       (unsigned long long)g->ranges_bytes);
	else
		printf("exact ranges    none\n");
}

/* --match dns-answers and --doh-canary: what is learned, and the canary. */
static void status_text_dns(const struct status_view *v)
{
	const struct bloomxdp_config *cfg = v->cfg;

	if (cfg->match & BLOOMXDP_MATCH_DNS_ANSWERS)
		printf("dns answers     read from ports %s; %llu address%s learned, held %u s at "
		       "most (--learn-ttl-max)\n", v->dns_ports, (unsigned long long)v->learned,
		       v->learned == 1 ? "" : "es", cfg->learn_ttl_max);
	if (cfg->doh_canary)
		printf("doh canary      " BLOOMXDP_DOH_CANARY " answered NXDOMAIN (Firefox keeps "
		       "DNS over HTTPS off by default)\n");
}

static void status_text(const struct status_view *v)
{
	const struct bloomxdp_config *cfg = v->cfg;
	char features[1024], before[XDP_HOOK_TEXT_MAX];

	__u32 i;

	printf("interface       %s (ifindex %u)\n", v->ifname, v->link.ifindex);
	for (i = 0; v->group && i < v->group->n; i++)
		printf("%s%s%s%s", i ? ", " : "group           ", v->group->members[i],
		       i ? "" : " (home: its lists)", i + 1 == v->group->n ? "\n" : "");
	printf("program         id %u, mode %s\n", v->link.prog_id, v->link.mode);
	if (v->egress.hook)
		printf("direction       both: ingress at %s, egress at tc\n", v->link.hook);
	else if (strcmp(v->link.hook, "xdp") || strcmp(v->link.direction, "ingress"))
		printf("direction       %s at %s\n", v->link.direction, v->link.hook);
	if (v->egress.hook)
		printf("egress program  id %u, mode %s\n", v->egress.prog_id, v->egress.mode);
	if (v->before.n)
		printf("replaced        %s (attach --force; detach does not put it back)\n",
		       xdp_hook_text(&v->before, before, sizeof(before)));
	kernel_features_list(v->features, false, features, sizeof(features));
	printf("kernel          %s\n", v->kernel);
	printf("features        %s\n", v->features ? features :
	       "unknown (the BPF object cannot be opened)");
	printf("match           %s\n", v->match);
	if (cfg->match & BLOOMXDP_MATCH_NAMES)
		printf("ports           dns %s, http %s, tls %s, quic %s\n", v->dns_ports,
		       v->http_ports, v->tls_ports, v->quic_ports);
	if (cfg->match & BLOOMXDP_MATCH_SNI)
		printf("quic            %u Initials decrypted per CPU and second at most; "
		       "unreadable ones %s; ECH %s\n", cfg->quic_per_sec,
		       cfg->quic_unparsed == BLOOMXDP_POLICY_DROP ? "dropped" : "passed",
		       cfg->ech == BLOOMXDP_POLICY_DROP ? "dropped" : "passed");
	printf("action          %s%s\n", attach_action_name(cfg->action),
	       cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? ", NXDOMAIN answers to DNS" : "");
	if (cfg->action == BLOOMXDP_ACTION_REJECT)
		printf("                TCP answered RST, UDP ICMP port unreachable (%u per second "
		       "and CPU at most)\n", cfg->icmp_per_sec);
	if (cfg->match & BLOOMXDP_MATCH_DNS_ANSWERS || cfg->doh_canary)
		status_text_dns(v);
	printf("layout          %s\n", layout_name(cfg->layout));
	status_text_filter(v);
	printf("verify          %s (--verify %s)\n", v->verify_reason,
	       verify_mode_name(cfg->verify));
	if (v->exact_on)
		printf("                %llu false positives refused, observed FPR %.3g\n",
		       (unsigned long long)v->fps, v->observed_fpr);
	else if (cfg->verify == BLOOMXDP_VERIFY_OFF)
		printf("                attach --force --verify auto to never drop a false "
		       "positive where the copy is cheap\n");
	printf("events          %u per second and CPU at most%s\n", cfg->events_per_sec,
	       cfg->events_per_sec ? " (bloomxdp watch)" : "");
	if (v->guard.on)
		printf("socket guard    on, cgroup %s: %llu calls looked up, %llu refused\n",
		       v->guard.cgroup[0] ? v->guard.cgroup : "(not found)",
		       (unsigned long long)v->guard.checked, (unsigned long long)v->guard.refused);
	else
		printf("socket guard    off (attach --cgroup PATH)\n");
	printf("list            generation %llu, loaded %s\n",
	       (unsigned long long)v->g.st.generation, v->loaded);
	printf("state           %s\n", !strcmp(v->state, "current") ?
	       "records this generation ('bloomxdp restore' brings it back)" :
	       !strcmp(v->state, "behind") ? "records another generation: a load did not "
	       "complete its state write; load the list again" :
	       "none for this list ('bloomxdp restore' cannot bring it back)");
	if (cfg->layout == BLOOMXDP_LAYOUT_KERNEL)
		printf("del counters    n/a (layout kernel cannot delete)\n");
	else if (v->del_ret)
		printf("del counters    none for this generation: 'bloomxdp del' refuses until a "
		       "load builds them\n");
	else
		printf("del counters    %llu bytes in the state, %llu saturated (their bits stay "
		       "set: del never clears them)\n", (unsigned long long)v->del_bytes,
		       (unsigned long long)v->del_saturated);
	if (v->timeouts)
		printf("timeouts        %llu entr%s, the next expires at %s (in %lld s)\n",
		       (unsigned long long)v->timeouts, v->timeouts == 1 ? "y" : "ies",
		       v->next_text, (long long)v->next_expiry - (long long)time(NULL));
	else
		printf("timeouts        none\n");
	print_lists(&v->lists, cfg, NULL);
}

static int do_status(const char *ifname, bool json, const char *state_dir)
{
	struct status_view v = { .ifname = ifname };
	struct attachment att;
	int ret;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = status_view_read(&att, state_dir, &v);
	v.group = att.grouped ? &att.group : NULL;
	if (!ret && json)
		status_json(&v);
	else if (!ret)
		status_text(&v);
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
		"features of it the attachment needs (each probed at attach).\n",
	.options = status_options,
	.opts_size = sizeof(struct status_opts),
	.json = true,
	.ifname = true,
	.run = run_status,
};
