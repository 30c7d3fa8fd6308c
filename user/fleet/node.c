// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A fleet node's subscriber: the channel's stream read in the daemon's loop (fleet/node.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if.h>

#include <hiredis/hiredis.h>

#include "fleet/node_int.h"
#include "util/log.h"
#include "kernel/state_dir.h"

static void drop(struct fleet_node *f, const char *why)
{
	if (f->c)
		fleet_disconnect(f->c);
	f->c = NULL;
	f->waiting = false;
	f->retry_ms = fleet_now_ms() + f->backoff_ms;
	f->backoff_ms = f->backoff_ms * 2 > FLEET_BACKOFF_MAX_MS ? FLEET_BACKOFF_MAX_MS :
								   f->backoff_ms * 2;
	fleet_note_error(f, why, false);
}

/* The set in force as Redis holds it: entry, deadline pairs; those past their deadline left out. */
static int snapshot_inforce(const redisReply *set, struct fleet_entries *next)
{
	size_t i;
	int ret = 0;

	for (i = 0; i + 1 < set->elements && !ret && next->n < FLEET_INFORCE_MAX; i += 2) {
		const redisReply *k = set->element[i], *d = set->element[i + 1];
		char e[FLEET_ENTRY_MAX + 1], dl[24], *end;
		__u64 deadline;

		if (k->type != REDIS_REPLY_STRING || !fleet_entry_ok(k->str, k->len) ||
		    d->type != REDIS_REPLY_STRING || d->len >= sizeof(dl))
			continue;
		snprintf(e, sizeof(e), "%.*s", (int)k->len, k->str);
		snprintf(dl, sizeof(dl), "%.*s", (int)d->len, d->str);
		deadline = strtoull(dl, &end, 10);
		if (*end || (deadline && deadline <= (__u64)time(NULL)))
			continue;
		ret = fleet_entries_add(next, e, deadline);
	}
	return ret;
}

/*
 * Where a node that lost its place starts (no state, a stream trimmed past
 * it, a Redis that lost its data): the newest full version and the set in
 * force, read at one instant (MULTI) with the stream's newest id.
 */
static int sync_latest(struct fleet_node *f)
{
	char latest[FLEET_KEY_MAX], inforce[FLEET_KEY_MAX], signed_set[FLEET_KEY_MAX];
	char why[FLEET_WHY_LEN] = "", sha[SHA256_HEX];
	struct fleet_entries next = {};
	redisReply *r = NULL, *q = NULL;
	const redisReply *top;
	__u64 version = 0;
	size_t i;
	int ret, allowed;

	fleet_key(latest, sizeof(latest), f->channel, "latest");
	fleet_key(inforce, sizeof(inforce), f->channel, "inforce");
	fleet_key(signed_set, sizeof(signed_set), f->channel, "inforce_signed");
	f->refusal = FLEET_FAIL_PAYLOAD;
	{
		const char *multi[] = { "MULTI", NULL }, *hget[] = { "HGETALL", latest, NULL },
			   *smem[] = { "HGETALL", inforce, NULL },
			   *xrev[] = { "XREVRANGE", f->stream_key, "+", "-", "COUNT", "1", NULL },
			   *sset[] = { "HGETALL", signed_set, NULL }, *exec[] = { "EXEC", NULL };
		const char *const *cmds[] = { multi, hget, smem, xrev, sset };

		for (i = 0, ret = 0; i < 5 && !ret; i++) {
			ret = fleet_cmd(f->c, &q, why, sizeof(why), cmds[i]);
			freeReplyObject(q);
			q = NULL;
		}
		if (!ret)
			ret = fleet_cmd(f->c, &r, why, sizeof(why), exec);
	}
	if (ret)
		goto out;
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 4 ||
	    r->element[1]->type != REDIS_REPLY_ARRAY || r->element[2]->type != REDIS_REPLY_ARRAY ||
	    r->element[3]->type != REDIS_REPLY_ARRAY) {
		ret = -EPROTO;
		snprintf(why, sizeof(why), "Redis answered the snapshot with something else");
		goto out;
	}
	/* With verify_key, only the set the publisher signed; else the set as Redis holds it. */
	if (f->verify.pkey)
		ret = fleet_signed_inforce(f, r->element[3], r->element[1]->elements, &next);
	else
		ret = snapshot_inforce(r->element[1], &next);
	top = r->element[2];
	if (!fleet_field_text(r->element[0], "sha256", sha, sizeof(sha)))
		sha[0] = '\0';
	/* Nothing published (or Redis lost it): 1, as for the version applied. */
	allowed = sha[0] && !ret ? fleet_full_allowed(f, r->element[0], &version, why,
						      sizeof(why)) : 1;
	if (!ret && !allowed) {
		ret = fleet_fetch_payload(f, r->element[0], why, sizeof(why));
		if (!ret)
			ret = fleet_apply_download(f, &next, version, sha, why, sizeof(why));
	} else if (!ret && allowed < 0) {
		ret = allowed;
	} else if (!ret) {
		/* The same version: rebuilt only if the set in force changed. */
		bool same = next.n == f->inforce.n;

		for (i = 0; same && i < next.n; i++)
			same = fleet_entries_has(&f->inforce, next.e[i]);
		if (!same && f->sha[0])
			ret = fleet_rebuild(f, &next, why, sizeof(why));
		else if (!same)
			ret = fleet_apply_add(&f->cfg, next.e, (int)next.n, why, sizeof(why));
	}
	if (ret == -EIO)
		goto out;
	if (ret) {
		fleet_note_failure(f, why, ret);
		ret = 0;
	} else {
		fleet_entries_free(&f->inforce);
		f->inforce = next;
		memset(&next, 0, sizeof(next));
	}
	/* From the stream's newest entry on: what came before is in the snapshot. */
	if (top->elements == 1 && top->element[0]->type == REDIS_REPLY_ARRAY &&
	    top->element[0]->elements == 2 &&
	    top->element[0]->element[0]->type == REDIS_REPLY_STRING &&
	    top->element[0]->element[0]->len < sizeof(f->last_id))
		snprintf(f->last_id, sizeof(f->last_id), "%.*s",
			 (int)top->element[0]->element[0]->len, top->element[0]->element[0]->str);
	else
		snprintf(f->last_id, sizeof(f->last_id), "0-0");
	fleet_state_save(f);
out:
	fleet_entries_free(&next);
	freeReplyObject(r);
	if (ret)
		drop(f, why);
	return ret;
}

/* After a (re)connection: read on from its place, or from the snapshot if the place is lost. */
static int catch_up(struct fleet_node *f)
{
	struct fleet_id mine, first;
	char why[FLEET_WHY_LEN];
	redisReply *r = NULL;
	int ret;

	if (!f->last_id[0] || fleet_id_parse(f->last_id, strlen(f->last_id), &mine))
		return sync_latest(f);
	{
		const char *argv[] = { "XRANGE", f->stream_key, "-", "+", "COUNT", "1", NULL };

		ret = fleet_cmd(f->c, &r, why, sizeof(why), argv);
	}
	if (ret) {
		drop(f, why);
		return ret;
	}
	/* Empty (Redis lost its data), or trimmed past the node's place: the snapshot. */
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 ||
	    r->element[0]->type != REDIS_REPLY_ARRAY || r->element[0]->elements != 2 ||
	    r->element[0]->element[0]->type != REDIS_REPLY_STRING ||
	    fleet_id_parse(r->element[0]->element[0]->str, r->element[0]->element[0]->len,
			   &first) || fleet_id_cmp(&first, &mine) > 0) {
		freeReplyObject(r);
		return sync_latest(f);
	}
	freeReplyObject(r);
	return 0;
}

static void send_xread(struct fleet_node *f)
{
	char count[16], block[16];
	const char *argv[] = { "XREAD", "COUNT", count, "BLOCK", block, "STREAMS", f->stream_key,
			       f->last_id[0] ? f->last_id : "0-0" };
	size_t lens[8];
	int i, done = 0;

	snprintf(count, sizeof(count), "%d", FLEET_BATCH);
	snprintf(block, sizeof(block), "%d", FLEET_BLOCK_MS);
	for (i = 0; i < 8; i++)
		lens[i] = strlen(argv[i]);
	if (redisAppendCommandArgv(f->c, 8, argv, lens) != REDIS_OK) {
		drop(f, "cannot send XREAD to Redis");
		return;
	}
	while (!done)
		if (redisBufferWrite(f->c, &done) != REDIS_OK) {
			drop(f, "the connection to Redis was lost while sending XREAD");
			return;
		}
	f->waiting = true;
	f->sent_ms = fleet_now_ms();
}

static void try_connect(struct fleet_node *f)
{
	char why[FLEET_WHY_LEN];
	int ret;

	ret = fleet_connect(&f->url, &f->c, why, sizeof(why));
	if (ret) {
		f->c = NULL;
		drop(f, why);
		return;
	}
	f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	f->connects++;
	if (f->logged[0])
		log_info("fleet %s: connected to Redis again", f->ifname);
	f->logged[0] = '\0';
	if (!strncmp(f->last_error, "cannot reach", 12) || strstr(f->last_error, "lost"))
		f->last_error[0] = '\0';
	if (!catch_up(f))
		fleet_report(f);
}

/*
 * Entries in force whose deadline came: out of every node's list, each node on
 * its own clock, by one swap of the applied payload with the set without them.
 */
static void expire_due(struct fleet_node *f)
{
	struct fleet_entries next = {};
	__u64 now = time(NULL), due = fleet_entries_next_deadline(&f->inforce);
	char why[FLEET_WHY_LEN];
	size_t i, gone = 0;
	int ret = 0;

	if (!due || due > now)
		return;
	for (i = 0; i < f->inforce.n && !ret; i++) {
		if (f->inforce.deadline[i] && f->inforce.deadline[i] <= now)
			gone++;
		else
			ret = fleet_entries_add(&next, f->inforce.e[i], f->inforce.deadline[i]);
	}
	if (!ret)
		ret = fleet_rebuild(f, &next, why, sizeof(why));
	if (ret) {
		/* Retried a second later: the entries stay until then. */
		if (ret == -ENOMEM)
			snprintf(why, sizeof(why), "out of memory");
		f->failures[FLEET_FAIL_APPLY]++;
		fleet_note_error(f, why, true);
		for (i = 0; i < f->inforce.n; i++)
			if (f->inforce.deadline[i] && f->inforce.deadline[i] <= now)
				f->inforce.deadline[i] = now + 1;
		fleet_entries_free(&next);
		return;
	}
	fleet_entries_free(&f->inforce);
	f->inforce = next;
	f->entry_ms = fleet_wall_ms();
	log_info("fleet %s: %zu entr%s in force expired", f->ifname, gone, gone == 1 ? "y" : "ies");
	fleet_state_save(f);
	fleet_report(f);
}

void fleet_node_run(struct fleet_node *f, bool readable)
{
	redisReply *r = NULL;
	void *reply = NULL;
	int ret;

	expire_due(f);
	if (!f->c) {
		if (fleet_now_ms() < f->retry_ms)
			return;
		try_connect(f);
		if (!f->c)
			return;
	}
	if (f->waiting && readable) {
		if (redisBufferRead(f->c) != REDIS_OK) {
			drop(f, "the connection to Redis was lost");
			return;
		}
		if (redisReaderGetReply(f->c->reader, &reply) != REDIS_OK) {
			drop(f, "Redis sent what is not a reply");
			return;
		}
		if (reply) {
			r = reply;
			f->waiting = false;
			if (r->type == REDIS_REPLY_ERROR) {
				char why[FLEET_WHY_LEN];

				snprintf(why, sizeof(why), "Redis answered XREAD with %s", r->str);
				freeReplyObject(r);
				drop(f, why);
				return;
			}
			ret = fleet_apply_batch(f, r);
			freeReplyObject(r);
			if (ret) {
				drop(f, ret == -EIO ? "the connection to Redis was lost" :
					"Redis answered XREAD with something else");
				return;
			}
			fleet_report(f);
		}
	}
	if (f->waiting && fleet_now_ms() - f->sent_ms > FLEET_BLOCK_MS + FLEET_TIMEOUT_S * 1000) {
		drop(f, "Redis did not answer XREAD in time");
		return;
	}
	if (!f->waiting && f->c)
		send_xread(f);
}

int fleet_node_fd(const struct fleet_node *f)
{
	return f && f->c && f->waiting ? f->c->fd : -1;
}

int fleet_node_timeout_ms(const struct fleet_node *f)
{
	__u64 now = fleet_now_ms(), due;

	if (!f)
		return -1;
	if (!f->c)
		due = f->retry_ms;
	else if (f->waiting)
		due = f->sent_ms + FLEET_BLOCK_MS + FLEET_TIMEOUT_S * 1000 + 1;
	else
		due = now;
	/* A deadline in force: looked at within a second of it (the wall clock's seconds). */
	if (fleet_entries_next_deadline(&f->inforce) && due > now + 1000)
		due = now + 1000;
	return due <= now ? 0 : due - now > 60000 ? 60000 : (int)(due - now);
}

void fleet_node_stats(const struct fleet_node *f, struct fleet_node_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->channel = f->channel;
	st->connected = f->c != NULL;
	st->version = f->version;
	st->applied = f->applied;
	st->applied_at = f->applied_at;
	st->deltas = f->deltas;
	st->inforce = f->inforce.n;
	st->reconnects = f->connects ? f->connects - 1 : 0;
	memcpy(st->failures, f->failures, sizeof(st->failures));
}

bool fleet_node_reattached(struct fleet_node *f)
{
	bool was = f && f->reattached;

	if (f)
		f->reattached = false;
	return was;
}

/* <hostname>-<ifname>, with what a key should not hold replaced by '_'. */
static void default_node(struct fleet_node *f)
{
	size_t i;

	snprintf(f->node, sizeof(f->node), "%.40s-%s", f->host, f->ifname);
	for (i = 0; f->node[i]; i++)
		if (!isalnum((unsigned char)f->node[i]) && !strchr("_-.", f->node[i]))
			f->node[i] = '_';
}

int fleet_node_start(const struct fleet_config *cfg, struct fleet_node **out)
{
	struct fleet_node *f;
	int ret;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = fleet_url_parse(cfg->subscribe, &f->url);
	if (ret)
		goto fail;
	if (!fleet_channel_valid(cfg->channel) || (cfg->node && cfg->node[0] &&
						  !fleet_channel_valid(cfg->node))) {
		log_error("fleet: channel '%s' or node '%s': use 1 to %d of a-z, A-Z, 0-9, '_', "
			  "'-' and '.'", cfg->channel, cfg->node ? cfg->node : "",
			  FLEET_CHANNEL_MAX - 1);
		ret = -EINVAL;
		goto fail;
	}
	snprintf(f->ifname, sizeof(f->ifname), "%s", cfg->ifname);
	snprintf(f->state_dir, sizeof(f->state_dir), "%s", cfg->state_dir ? cfg->state_dir : "");
	snprintf(f->channel, sizeof(f->channel), "%s", cfg->channel);
	if (gethostname(f->host, sizeof(f->host) - 1))
		snprintf(f->host, sizeof(f->host), "host");
	if (cfg->node && cfg->node[0])
		snprintf(f->node, sizeof(f->node), "%s", cfg->node);
	else
		default_node(f);
	f->cfg = *cfg;
	f->cfg.ifname = f->ifname;
	f->cfg.state_dir = cfg->state_dir ? f->state_dir : NULL;
	f->cfg.channel = f->channel;
	f->cfg.node = f->node;
	f->cfg.subscribe = NULL;	/* the password is in f->url only */
	fleet_key(f->stream_key, sizeof(f->stream_key), f->channel, "stream");
	snprintf(f->state_name, sizeof(f->state_name), "fleet-%s.state", f->channel);
	snprintf(f->payload_name, sizeof(f->payload_name), "fleet-%s.payload", f->channel);
	snprintf(f->download_name, sizeof(f->download_name), "fleet-%s.download", f->channel);
	f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	/* Its state directory, where payloads are fetched to, before anything is attached. */
	{
		struct state_dir sd;

		ret = state_open(state_root(f->state_dir), f->ifname, true, &sd);
		if (ret)
			goto fail;
		state_close(&sd);
	}
	if (cfg->verify_key && cfg->verify_key[0]) {
		char why[FLEET_WHY_LEN];

		ret = fleet_key_load(cfg->verify_key, false, &f->verify, why, sizeof(why));
		if (ret) {
			log_error("fleet %s: verify_key: %s", cfg->ifname, why);
			goto fail;
		}
	}
	f->cfg.verify_key = NULL;
	fleet_state_load(f);
	log_info("fleet %s: node %s on channel %s, from %s; %s%s", f->ifname, f->node, f->channel,
		 f->last_id[0] ? f->last_id : "the newest full version",
		 f->verify.pkey ? "only versions signed with " : "versions are not signed (no "
		 "verify_key)", f->verify.pkey ? f->verify.fingerprint : "");
	try_connect(f);
	*out = f;
	return 0;
fail:
	free(f);
	return ret;
}

void fleet_node_set_attach(struct fleet_node *f, const struct attach_opts *attach)
{
	if (f)
		f->cfg.attach = attach;
}

void fleet_node_stop(struct fleet_node *f)
{
	if (!f)
		return;
	if (f->c)
		fleet_disconnect(f->c);
	fleet_entries_free(&f->inforce);
	fleet_key_free(&f->verify);
	free(f);
}
