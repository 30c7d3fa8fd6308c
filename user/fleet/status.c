// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fleet status: every node of a channel, as it reported in Redis (fleet/redis.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "cli/commands.h"
#include "cli/cmd_fleet.h"
#include "fleet/redis.h"
#include "util/json.h"
#include "util/log.h"

#define WHY_LEN 512

struct fleet_opts {
	const char *redis;
	const char *channel;
};

static __u64 field_u64(const redisReply *h, const char *name)
{
	char buf[32], *end;
	unsigned long long v;

	if (!fleet_field_text(h, name, buf, sizeof(buf)))
		return 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	return errno || *end ? 0 : v;
}

static const char *when_text(__u64 t, char *buf, size_t len)
{
	time_t tt = t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
	return buf;
}

/* The stream's newest id (what every node should have reached), or "0-0". */
static void stream_top(redisContext *c, const char *channel, struct fleet_id *top, __u64 *version,
		       bool *is_signed)
{
	char k[FLEET_KEY_MAX], why[WHY_LEN];
	redisReply *r = NULL;

	*top = (struct fleet_id){ 0, 0 };
	{
		const char *argv[] = { "XREVRANGE", fleet_key(k, sizeof(k), channel, "stream"), "+",
				       "-", "COUNT", "1", NULL };

		if (!fleet_cmd(c, &r, why, sizeof(why), argv) && r->type == REDIS_REPLY_ARRAY &&
		    r->elements == 1 && r->element[0]->type == REDIS_REPLY_ARRAY &&
		    r->element[0]->elements == 2 &&
		    r->element[0]->element[0]->type == REDIS_REPLY_STRING)
			fleet_id_parse(r->element[0]->element[0]->str,
				       r->element[0]->element[0]->len, top);
	}
	freeReplyObject(r);
	r = NULL;
	{
		const char *argv[] = { "HGETALL", fleet_key(k, sizeof(k), channel, "latest"),
				       NULL };

		*version = !fleet_cmd(c, &r, why, sizeof(why), argv) ? field_u64(r, "version") : 0;
		/* Signed by publish --sign-key (which key: the nodes with verify_key say). */
		*is_signed = *version && fleet_field(r, "sig") && fleet_field(r, "sig")->len;
	}
	freeReplyObject(r);
}

static void status_node(const char *id, const redisReply *h, const struct fleet_id *top,
			__u64 latest, struct json *j, bool json)
{
	char ifname[64], err[256], sid[FLEET_ID_MAX], a[32], b[32], lag[32], vk[32];
	struct fleet_id at = { 0, 0 };
	__u64 version = field_u64(h, "version");
	bool have_id;

	if (!fleet_field_text(h, "ifname", ifname, sizeof(ifname)))
		snprintf(ifname, sizeof(ifname), "?");
	if (!fleet_field_text(h, "last_error", err, sizeof(err)))
		err[0] = '\0';
	/* The key it verifies announcements with (verify_key), or none. */
	if (!fleet_field_text(h, "verify_key", vk, sizeof(vk)) || !strcmp(vk, "none"))
		snprintf(vk, sizeof(vk), "-");
	have_id = fleet_field_text(h, "stream_id", sid, sizeof(sid)) &&
		  !fleet_id_parse(sid, strlen(sid), &at);
	/* Lag: how long ago the newest announcement the node has not applied was made. */
	if (!have_id)
		snprintf(lag, sizeof(lag), "-");
	else if (fleet_id_cmp(&at, top) >= 0)
		snprintf(lag, sizeof(lag), "0");
	else
		snprintf(lag, sizeof(lag), "%.1fs", (double)(top->ms - at.ms) / 1000);
	if (json) {
		json_object_start(j);
		json_kv_string(j, "node", id);
		json_kv_string(j, "ifname", ifname);
		json_kv_u64(j, "version", version);
		json_kv_bool(j, "latest", version == latest && fleet_id_cmp(&at, top) >= 0);
		json_kv_string(j, "stream_id", have_id ? sid : "");
		json_kv_u64(j, "applied_at", field_u64(h, "applied_at"));
		json_kv_u64(j, "seen_at", field_u64(h, "seen_at"));
		json_kv_double(j, "lag_seconds", "%.3f",
			       have_id && fleet_id_cmp(&at, top) < 0 ?
			       (double)(top->ms - at.ms) / 1000 : 0);
		json_kv_u64(j, "deltas", field_u64(h, "deltas"));
		json_kv_u64(j, "refused", field_u64(h, "refused"));
		json_kv_u64(j, "errors", field_u64(h, "errors"));
		json_kv_string(j, "last_error", err);
		json_kv_string(j, "verify_key", strcmp(vk, "-") ? vk : "");
		json_kv_u64(j, "delta_seq", field_u64(h, "delta_seq"));
		json_object_end(j);
		return;
	}
	printf("%-20s %-12s %7llu%c %-20s %-20s %8s %7llu %6llu  %-23s  %s\n", id, ifname,
	       (unsigned long long)version, version == latest ? ' ' : '*',
	       when_text(field_u64(h, "applied_at"), a, sizeof(a)),
	       when_text(field_u64(h, "seen_at"), b, sizeof(b)), lag,
	       (unsigned long long)field_u64(h, "refused"),
	       (unsigned long long)field_u64(h, "errors"), vk, err[0] ? err : "-");
}

static int run_fleet(const struct cli_call *call)
{
	const struct fleet_opts *o = call->opts;
	char k[FLEET_KEY_MAX], nk[FLEET_KEY_MAX + FLEET_NODE_MAX], why[WHY_LEN];
	redisReply *nodes = NULL, *h = NULL;
	struct fleet_id top;
	redisContext *c = NULL;
	bool is_signed = false;
	struct json j;
	__u64 latest;
	size_t i;
	int ret;

	if (strcmp(call->argv[0], "status")) {
		log_error("fleet: unknown subcommand '%s': expected status", call->argv[0]);
		return -EINVAL;
	}
	ret = fleet_open(o->redis, o->channel, &c);
	if (ret)
		return ret;
	{
		const char *argv[] = { "SMEMBERS", fleet_key(k, sizeof(k), o->channel, "nodes"),
				       NULL };

		ret = fleet_cmd(c, &nodes, why, sizeof(why), argv);
	}
	if (ret) {
		log_error("fleet status: %s", why);
		goto out;
	}
	stream_top(c, o->channel, &top, &latest, &is_signed);
	if (call->json) {
		json_start(&j, stdout);
		json_object_start(&j);
		json_kv_string(&j, "channel", o->channel);
		json_kv_u64(&j, "latest_version", latest);
		json_kv_bool(&j, "latest_signed", is_signed);
		json_key(&j, "nodes");
		json_array_start(&j);
	} else {
		printf("channel %s: latest version %llu (%s), %zu node%s\n", o->channel,
		       (unsigned long long)latest, is_signed ? "signed" : "unsigned",
		       nodes->elements, nodes->elements == 1 ? "" : "s");
		printf("%-20s %-12s %8s %-20s %-20s %8s %7s %6s  %-23s  %s\n", "NODE", "IFNAME",
		       "VERSION", "APPLIED", "SEEN", "LAG", "REFUSED", "ERRORS", "VERIFY KEY",
		       "LAST ERROR");
	}
	for (i = 0; nodes->type == REDIS_REPLY_ARRAY && i < nodes->elements; i++) {
		const redisReply *e = nodes->element[i];
		char id[FLEET_NODE_MAX];

		if (e->type != REDIS_REPLY_STRING || !e->len || e->len >= sizeof(id) ||
		    memchr(e->str, 0, e->len))
			continue;
		memcpy(id, e->str, e->len);
		id[e->len] = '\0';
		snprintf(nk, sizeof(nk), FLEET_KEY_ROOT "%s:node:%s", o->channel, id);
		{
			const char *argv[] = { "HGETALL", nk, NULL };

			ret = fleet_cmd(c, &h, why, sizeof(why), argv);
		}
		if (ret) {
			log_error("fleet status: %s", why);
			break;
		}
		status_node(id, h, &top, latest, &j, call->json);
		freeReplyObject(h);
		h = NULL;
	}
	if (call->json) {
		json_array_end(&j);
		json_object_end(&j);
		json_end(&j);
	}
out:
	freeReplyObject(nodes);
	fleet_disconnect(c);
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
