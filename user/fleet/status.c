// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fleet status: every node of a channel, as it reported in Redis (fleet/redis.h, status.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "fleet/redis.h"
#include "fleet/status.h"
#include "util/log.h"


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

/* The stream's newest id (what every node should have reached), or "0-0". */
static void stream_top(redisContext *c, const char *channel, struct fleet_id *top, __u64 *version,
		       bool *is_signed)
{
	char k[FLEET_KEY_MAX], why[FLEET_WHY_LEN];
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

/* A node's hash (HGETALL) into v. */
static void node_read(const char *id, const redisReply *h, struct fleet_node_view *v)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->id, sizeof(v->id), "%s", id);
	if (!fleet_field_text(h, "ifname", v->ifname, sizeof(v->ifname)))
		snprintf(v->ifname, sizeof(v->ifname), "?");
	if (!fleet_field_text(h, "last_error", v->last_error, sizeof(v->last_error)))
		v->last_error[0] = '\0';
	/* The key it verifies announcements with (verify_key), or none. */
	if (!fleet_field_text(h, "verify_key", v->verify_key, sizeof(v->verify_key)) ||
	    !strcmp(v->verify_key, "none"))
		snprintf(v->verify_key, sizeof(v->verify_key), "-");
	v->have_id = fleet_field_text(h, "stream_id", v->stream_id, sizeof(v->stream_id)) &&
		     !fleet_id_parse(v->stream_id, strlen(v->stream_id), &v->at);
	if (!v->have_id)
		v->stream_id[0] = '\0';
	v->version = field_u64(h, "version");
	v->applied_at = field_u64(h, "applied_at");
	v->seen_at = field_u64(h, "seen_at");
	v->deltas = field_u64(h, "deltas");
	v->refused = field_u64(h, "refused");
	v->errors = field_u64(h, "errors");
	v->delta_seq = field_u64(h, "delta_seq");
}

bool fleet_node_current(const struct fleet_node_view *v, const struct fleet_status *s)
{
	return v->version == s->latest && fleet_id_cmp(&v->at, &s->top) >= 0;
}

double fleet_node_lag(const struct fleet_node_view *v, const struct fleet_status *s)
{
	return v->have_id && fleet_id_cmp(&v->at, &s->top) < 0 ?
	       (double)(s->top.ms - v->at.ms) / 1000 : 0;
}

/* The node of member e, if its name is one: read and appended to s. */
static int node_add(redisContext *c, const char *channel, const redisReply *e,
		    struct fleet_status *s)
{
	char nk[FLEET_KEY_MAX + FLEET_NODE_MAX], why[FLEET_WHY_LEN], id[FLEET_NODE_MAX];
	redisReply *h = NULL;
	int ret;

	if (e->type != REDIS_REPLY_STRING || !e->len || e->len >= sizeof(id) ||
	    memchr(e->str, 0, e->len))
		return 0;
	memcpy(id, e->str, e->len);
	id[e->len] = '\0';
	snprintf(nk, sizeof(nk), FLEET_KEY_ROOT "%s:node:%s", channel, id);
	{
		const char *argv[] = { "HGETALL", nk, NULL };

		ret = fleet_cmd(c, &h, why, sizeof(why), argv);
	}
	if (ret) {
		log_error("fleet status: %s", why);
		return ret;
	}
	node_read(id, h, &s->nodes[s->n++]);
	freeReplyObject(h);
	return 0;
}

int fleet_status_read(const char *url, const char *channel, struct fleet_status *s)
{
	char k[FLEET_KEY_MAX], why[FLEET_WHY_LEN];
	redisReply *nodes = NULL;
	redisContext *c = NULL;
	size_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = fleet_open(url, channel, &c);
	if (ret)
		return ret;
	{
		const char *argv[] = { "SMEMBERS", fleet_key(k, sizeof(k), channel, "nodes"),
				       NULL };

		ret = fleet_cmd(c, &nodes, why, sizeof(why), argv);
	}
	if (ret) {
		log_error("fleet status: %s", why);
		goto out;
	}
	stream_top(c, channel, &s->top, &s->latest, &s->latest_signed);
	s->listed = true;
	s->members = nodes->elements;
	if (nodes->type == REDIS_REPLY_ARRAY && nodes->elements) {
		s->nodes = calloc(nodes->elements, sizeof(*s->nodes));
		if (!s->nodes) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; nodes->type == REDIS_REPLY_ARRAY && i < nodes->elements && !ret; i++)
		ret = node_add(c, channel, nodes->element[i], s);
out:
	freeReplyObject(nodes);
	fleet_disconnect(c);
	return ret;
}

void fleet_status_free(struct fleet_status *s)
{
	free(s->nodes);
	s->nodes = NULL;
	s->n = 0;
}
