// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fleet status: its options and help, and the nodes it read (fleet/status.c) as text or JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/cmd_fleet.h"
#include "fleet/status.h"
#include "util/json.h"
#include "util/log.h"

struct fleet_opts {
	const char *redis;
	const char *channel;
};

static const char *when_text(__u64 t, char *buf, size_t len)
{
	time_t tt = t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
	return buf;
}

static void node_json(const struct fleet_node_view *v, const struct fleet_status *s,
		      struct json *j)
{
	json_object_start(j);
	json_kv_string(j, "node", v->id);
	json_kv_string(j, "ifname", v->ifname);
	json_kv_u64(j, "version", v->version);
	json_kv_bool(j, "latest", fleet_node_current(v, s));
	json_kv_string(j, "stream_id", v->stream_id);
	json_kv_u64(j, "applied_at", v->applied_at);
	json_kv_u64(j, "seen_at", v->seen_at);
	json_kv_double(j, "lag_seconds", "%.3f", fleet_node_lag(v, s));
	json_kv_u64(j, "deltas", v->deltas);
	json_kv_u64(j, "refused", v->refused);
	json_kv_u64(j, "errors", v->errors);
	json_kv_string(j, "last_error", v->last_error);
	json_kv_string(j, "verify_key", strcmp(v->verify_key, "-") ? v->verify_key : "");
	json_kv_u64(j, "delta_seq", v->delta_seq);
	json_object_end(j);
}

static void node_text(const struct fleet_node_view *v, const struct fleet_status *s)
{
	char a[32], b[32], lag[32];

	/* Lag: how long ago the newest announcement the node has not applied was made. */
	if (!v->have_id)
		snprintf(lag, sizeof(lag), "-");
	else if (fleet_id_cmp(&v->at, &s->top) >= 0)
		snprintf(lag, sizeof(lag), "0");
	else
		snprintf(lag, sizeof(lag), "%.1fs", fleet_node_lag(v, s));
	printf("%-20s %-12s %7llu%c %-20s %-20s %8s %7llu %6llu  %-23s  %s\n", v->id, v->ifname,
	       (unsigned long long)v->version, v->version == s->latest ? ' ' : '*',
	       when_text(v->applied_at, a, sizeof(a)), when_text(v->seen_at, b, sizeof(b)), lag,
	       (unsigned long long)v->refused, (unsigned long long)v->errors, v->verify_key,
	       v->last_error[0] ? v->last_error : "-");
}

static void status_print(const struct fleet_status *s, const char *channel, bool json)
{
	struct json j;
	size_t i;

	if (json) {
		json_start(&j, stdout);
		json_object_start(&j);
		json_kv_string(&j, "channel", channel);
		json_kv_u64(&j, "latest_version", s->latest);
		json_kv_bool(&j, "latest_signed", s->latest_signed);
		json_key(&j, "nodes");
		json_array_start(&j);
		for (i = 0; i < s->n; i++)
			node_json(&s->nodes[i], s, &j);
		json_array_end(&j);
		json_object_end(&j);
		json_end(&j);
		return;
	}
	printf("channel %s: latest version %llu (%s), %zu node%s\n", channel,
	       (unsigned long long)s->latest, s->latest_signed ? "signed" : "unsigned",
	       s->members, s->members == 1 ? "" : "s");
	printf("%-20s %-12s %8s %-20s %-20s %8s %7s %6s  %-23s  %s\n", "NODE", "IFNAME",
	       "VERSION", "APPLIED", "SEEN", "LAG", "REFUSED", "ERRORS", "VERIFY KEY",
	       "LAST ERROR");
	for (i = 0; i < s->n; i++)
		node_text(&s->nodes[i], s);
}

static int run_fleet(const struct cli_call *call)
{
	const struct fleet_opts *o = call->opts;
	struct fleet_status s;
	int ret;

	if (strcmp(call->argv[0], "status")) {
		log_error("fleet: unknown subcommand '%s': expected status", call->argv[0]);
		return -EINVAL;
	}
	ret = fleet_status_read(o->redis, o->channel, &s);
	/* What was read before an error is shown, as the nodes came. */
	if (s.listed)
		status_print(&s, o->channel, call->json);
	fleet_status_free(&s);
	return ret;
}
static const struct option_spec fleet_options[] = {
	OPT_REDIS(struct fleet_opts),
	OPT_CHANNEL(struct fleet_opts),
	{}
};

const struct command command_fleet = {
	.name = "fleet",
	.args = "status",
	.summary = "every node of a fleet: applied version, when, lag, errors",
	.description =
		"fleet status: the nodes that reported on the channel, each with the version it\n"
		"applied ('*': not the latest), when, when it was last heard of, how far behind\n"
		"the newest announcement it is (LAG), the payloads it refused (REFUSED: size,\n"
		"checksum, format, consistency, order or signature), the publisher's key it\n"
		"verifies announcements with (VERIFY KEY: verify_key's fingerprint, '-' none)\n"
		"and its last error.\n",
	.options = fleet_options,
	.opts_size = sizeof(struct fleet_opts),
	.json = true,
	.min_args = 1,
	.max_args = 1,
	.what_args = "status",
	.run = run_fleet,
};
