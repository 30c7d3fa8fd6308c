// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fleet's publisher (publish.h): a full version (a compiled filter) or a
 * delta (add, del) for a channel, through Redis. The keys are in redis.h; the
 * nodes' side is the daemon's (node.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include <hiredis/hiredis.h>

#include "kernel/attachment.h"
#include "fleet/node.h"
#include "fleet/payload.h"
#include "fleet/publish.h"
#include "fleet/redis.h"
#include "fleet/trust.h"
#include "util/log.h"
#include "util/sha256.h"
#include "lists/savefile.h"

/* Node reports read to carry the counters past a Redis that lost them, at most. */
#define NODES_SCANNED 10000

/*
 * The highest value of field (version, delta_seq) that the channel's nodes
 * report: a counter that restarted (a Redis that lost its data) is carried
 * past it, or every node would refuse what follows as older.
 */
static __u64 nodes_highest(redisContext *c, const char *channel, const char *field)
{
	char k[FLEET_KEY_MAX], nk[FLEET_KEY_MAX + FLEET_NODE_MAX], why[FLEET_WHY_LEN], v[24], *end;
	redisReply *r = NULL, *h = NULL;
	__u64 top = 0, n;
	size_t i;
	const char *smembers[] = { "SMEMBERS", fleet_key(k, sizeof(k), channel, "nodes"), NULL };

	if (fleet_cmd(c, &r, why, sizeof(why), smembers) || r->type != REDIS_REPLY_ARRAY) {
		freeReplyObject(r);
		return 0;
	}
	for (i = 0; i < r->elements && i < NODES_SCANNED; i++) {
		const redisReply *e = r->element[i];

		if (e->type != REDIS_REPLY_STRING || e->len >= FLEET_NODE_MAX)
			continue;
		snprintf(nk, sizeof(nk), FLEET_KEY_ROOT "%s:node:%.*s", channel, (int)e->len,
			 e->str);
		{
			const char *hget[] = { "HGET", nk, field, NULL };

			if (fleet_cmd(c, &h, why, sizeof(why), hget))
				break;
		}
		if (h->type == REDIS_REPLY_STRING && h->len < sizeof(v)) {
			memcpy(v, h->str, h->len);
			v[h->len] = '\0';
			n = strtoull(v, &end, 10);
			if (!*end && n > top)
				top = n;
		}
		freeReplyObject(h);
		h = NULL;
	}
	freeReplyObject(r);
	return top;
}

/* The channel's counter what (version, delta) incremented, past what its nodes applied. */
static int next_number(redisContext *c, const char *channel, const char *what,
		       const char *node_field, __u64 *out, char *why, size_t len)
{
	char k[FLEET_KEY_MAX], by[24];
	redisReply *r = NULL;
	__u64 top;
	int ret;
	const char *incr[] = { "INCR", fleet_key(k, sizeof(k), channel, what), NULL };

	ret = fleet_cmd(c, &r, why, len, incr);
	if (!ret && (r->type != REDIS_REPLY_INTEGER || r->integer < 1)) {
		ret = -EPROTO;
		snprintf(why, len, "%s is not a counter", k);
	}
	if (ret)
		goto out;
	*out = r->integer;
	top = nodes_highest(c, channel, node_field);
	if (*out > top)
		goto out;
	log_warn("publish: %s is %llu, and nodes applied %llu already (Redis lost its data?): "
		 "%s %llu follows", k, (unsigned long long)*out, (unsigned long long)top, what,
		 (unsigned long long)(top + 1));
	snprintf(by, sizeof(by), "%llu", (unsigned long long)(top + 1 - *out));
	freeReplyObject(r);
	r = NULL;
	{
		const char *incrby[] = { "INCRBY", k, by, NULL };

		ret = fleet_cmd(c, &r, why, len, incrby);
	}
	if (!ret && (r->type != REDIS_REPLY_INTEGER || r->integer < 1)) {
		ret = -EPROTO;
		snprintf(why, len, "%s is not a counter", k);
	}
	if (!ret)
		*out = r->integer;
out:
	freeReplyObject(r);
	return ret;
}

/* The hash key of the channel's latest payload: the fleet keeps it unless --new-key. */
static int latest_key(redisContext *c, const char *channel, __u64 key[2], bool *found)
{
	char k[FLEET_KEY_MAX], pk[FLEET_KEY_MAX], why[FLEET_WHY_LEN];
	redisReply *r = NULL, *h = NULL;
	int ret, i;

	*found = false;
	{
		const char *argv[] = { "HGETALL", fleet_key(k, sizeof(k), channel, "latest"),
				       NULL };

		ret = fleet_cmd(c, &h, why, sizeof(why), argv);
	}
	if (ret)
		goto out;
	if (!fleet_field_text(h, "key", pk, sizeof(pk)))
		goto out;
	{
		/* The key's 16 bytes at offset 56 of the header (savefile.h). */
		const char *argv[] = { "GETRANGE", pk, "56", "71", NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), argv);
	}
	if (ret || r->type != REDIS_REPLY_STRING || r->len != 16)
		goto out;
	for (i = 0; i < 2; i++) {
		const unsigned char *b = (const unsigned char *)r->str + 8 * i;
		int j;

		key[i] = 0;
		for (j = 7; j >= 0; j--)
			key[i] = key[i] << 8 | b[j];
	}
	*found = true;
out:
	if (ret)
		log_error("%s", why);
	freeReplyObject(r);
	freeReplyObject(h);
	return ret;
}

/* Older payloads than the newest FLEET_PAYLOADS_KEEP + 1 deleted; errors only warned. */
static void trim_payloads(redisContext *c, const char *channel, __u64 version)
{
	char zk[FLEET_KEY_MAX], max[32], why[FLEET_WHY_LEN], pk[FLEET_KEY_MAX + 24];
	redisReply *r = NULL, *d = NULL;
	size_t i;

	if (version <= FLEET_PAYLOADS_KEEP)
		return;
	snprintf(max, sizeof(max), "%llu", (unsigned long long)(version - FLEET_PAYLOADS_KEEP - 1));
	fleet_key(zk, sizeof(zk), channel, "payloads");
	{
		const char *argv[] = { "ZRANGEBYSCORE", zk, "-inf", max, NULL };

		if (fleet_cmd(c, &r, why, sizeof(why), argv))
			goto warn;
	}
	for (i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
		const redisReply *e = r->element[i];
		char v[32];

		if (e->type != REDIS_REPLY_STRING || e->len >= sizeof(v))
			continue;
		memcpy(v, e->str, e->len);
		v[e->len] = '\0';
		snprintf(pk, sizeof(pk), FLEET_KEY_ROOT "%s:payload:%s", channel, v);
		{
			const char *argv[] = { "DEL", pk, NULL };

			if (fleet_cmd(c, &d, why, sizeof(why), argv))
				goto warn;
			freeReplyObject(d);
		}
	}
	{
		const char *argv[] = { "ZREMRANGEBYSCORE", zk, "-inf", max, NULL };

		if (fleet_cmd(c, &d, why, sizeof(why), argv))
			goto warn;
		freeReplyObject(d);
	}
	freeReplyObject(r);
	return;
warn:
	freeReplyObject(r);
	log_warn("publish: older payloads were not trimmed: %s", why);
}

/*
 * The payload whole under its versioned key, then its announcement: a
 * publisher killed in between leaves a payload no node is told of (trimmed
 * with the next ones), never an announcement of a partial payload.
 */
static int announce_full(redisContext *c, const struct publish_opts *o,
			 const struct fleet_key *key, const void *data, size_t len,
			 const struct savefile_info *info, struct publish_result *res)
{
	const char *channel = o->channel;
	char k[FLEET_KEY_MAX], pk[FLEET_KEY_MAX + 24], sha[SHA256_HEX], v[32], size[32], entries[32];
	char stream[FLEET_KEY_MAX], keep[32], id[FLEET_ID_MAX], why[FLEET_WHY_LEN];
	char sig[FLEET_SIG_HEX] = "", rollback[24];
	redisReply *r = NULL;
	__u64 version;
	int ret;

	ret = sha256_hex(data, len, sha);
	if (ret)
		return ret;
	ret = next_number(c, channel, "version", "version", &version, why, sizeof(why));
	if (ret)
		goto fail;
	snprintf(rollback, sizeof(rollback), "%llu", (unsigned long long)o->rollback);
	if (key) {
		struct fleet_signed sg = { .channel = channel, .type = "full", .version = version,
					   .size = len, .sha256 = sha, .rollback = o->rollback };

		ret = fleet_sign(key, &sg, sig);
		if (ret) {
			snprintf(why, sizeof(why), "cannot sign version %llu",
				 (unsigned long long)version);
			goto fail;
		}
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)version);
	snprintf(size, sizeof(size), "%zu", len);
	snprintf(entries, sizeof(entries), "%llu", (unsigned long long)info->entries);
	snprintf(pk, sizeof(pk), FLEET_KEY_ROOT "%s:payload:%s", channel, v);
	{
		const char *argv[] = { "ZADD", fleet_key(k, sizeof(k), channel, "payloads"), v, v,
				       NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), argv);
		freeReplyObject(r);
	}
	if (!ret) {
		const char *argv[] = { "SET", pk, data };
		size_t lens[] = { 3, strlen(pk), len };

		ret = fleet_command(c, 3, argv, lens, &r, why, sizeof(why));
		freeReplyObject(r);
	}
	if (ret)
		goto fail;
	snprintf(keep, sizeof(keep), "%d", FLEET_STREAM_KEEP);
	{
		const char *argv[] = { "XADD", fleet_key(stream, sizeof(stream), channel, "stream"),
				       "MAXLEN", "~", keep, "*", "type", "full", "version", v,
				       "key", pk, "size", size, "sha256", sha, "entries", entries,
				       "rollback", rollback, key ? "sig" : NULL, sig, NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), argv);
	}
	if (ret)
		goto fail;
	if (r->type != REDIS_REPLY_STRING || r->len >= sizeof(id)) {
		ret = -EPROTO;
		snprintf(why, sizeof(why), "XADD answered no stream id");
		goto fail;
	}
	memcpy(id, r->str, r->len);
	id[r->len] = '\0';
	freeReplyObject(r);
	r = NULL;
	{
		/* Where a node that lost its place (trimmed stream, no state) starts. */
		const char *argv[] = { "HSET", fleet_key(k, sizeof(k), channel, "latest"), "id", id,
				       "version", v, "key", pk, "size", size, "sha256", sha,
				       "rollback", rollback, "sig", sig, NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), argv);
		freeReplyObject(r);
		r = NULL;
	}
	if (ret)
		goto fail;
	trim_payloads(c, channel, version);
	res->published = true;
	res->version = version;
	res->entries = info->entries;
	res->bytes = len;
	memcpy(res->saved_by, info->writer, sizeof(res->saved_by));
	memcpy(res->sha256, sha, sizeof(res->sha256));
	res->rollback = o->rollback;
	memcpy(res->id, id, sizeof(res->id));
	snprintf(res->signer, sizeof(res->signer), "%s", key ? key->fingerprint : "");
	return 0;
fail:
	freeReplyObject(r);
	log_error("publish: %s; nodes keep the version they have", why);
	return ret;
}

/* The payload file of a full version into tmp (or the saved file given): its path. */
static int make_payload(redisContext *c, const struct publish_opts *o, char **files, int n,
			const char *tmp, const char **path, struct publish_result *res)
{
	struct fleet_compile_opts co = { .layout = o->layout, .fpr = o->fpr,
					 .max_memory = o->max_memory };
	struct attachment att;
	bool found = false;
	int ret;

	*path = tmp;
	if (o->from) {
		if (n) {
			log_error("publish: --from IFNAME or FILEs, not both");
			return -EINVAL;
		}
		ret = attachment_open(o->from, true, &att);
		if (ret)
			return ret;
		ret = savefile_save(&att, tmp, NULL, 0, &res->saved);
		attachment_close(&att);
		return ret;
	}
	if (!n) {
		log_error("publish: give the list FILEs, a file of 'bloomxdp save', or --from "
			  "IFNAME");
		return -EINVAL;
	}
	if (n == 1 && fleet_is_savefile(files[0])) {
		*path = files[0];
		return 0;
	}
	if (!o->new_key) {
		ret = latest_key(c, o->channel, co.hash_key, &found);
		if (ret)
			return ret;
	}
	if (!found && getrandom(co.hash_key, sizeof(co.hash_key), 0) != sizeof(co.hash_key)) {
		log_error("publish: no random hash key: %s", strerror(errno));
		return -EIO;
	}
	res->new_key = !found;
	return fleet_compile(files, n, &co, tmp, NULL);
}

/* Version N's announcement: found in the stream, newest first, in pages (bounded). */
static redisReply *find_announcement(redisContext *c, const char *channel, __u64 n,
				     const redisReply **fields)
{
	char stream[FLEET_KEY_MAX], end[FLEET_ID_MAX + 1] = "+", v[24], want[24], why[FLEET_WHY_LEN];
	redisReply *r = NULL;
	size_t i;
	int page;

	fleet_key(stream, sizeof(stream), channel, "stream");
	snprintf(want, sizeof(want), "%llu", (unsigned long long)n);
	for (page = 0; page < FLEET_STREAM_KEEP / 100 + 1; page++) {
		const char *argv[] = { "XREVRANGE", stream, end, "-", "COUNT", "100", NULL };

		if (fleet_cmd(c, &r, why, sizeof(why), argv) || r->type != REDIS_REPLY_ARRAY ||
		    !r->elements)
			break;
		for (i = 0; i < r->elements; i++) {
			const redisReply *e = r->element[i];
			char type[8];

			if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
			    e->element[0]->type != REDIS_REPLY_STRING ||
			    e->element[0]->len >= FLEET_ID_MAX)
				goto out;
			snprintf(end, sizeof(end), "(%.*s", (int)e->element[0]->len,
				 e->element[0]->str);
			if (fleet_field_text(e->element[1], "type", type, sizeof(type)) &&
			    !strcmp(type, "full") &&
			    fleet_field_text(e->element[1], "version", v, sizeof(v)) &&
			    !strcmp(v, want)) {
				*fields = e->element[1];
				return r;
			}
		}
		freeReplyObject(r);
		r = NULL;
	}
out:
	freeReplyObject(r);
	return NULL;
}

/*
 * publish --rollback N: version N's payload, as its announcement describes it
 * (size, SHA-256; with --sign-key, its signature by this key), into tmp.
 */
static int rollback_payload(redisContext *c, const struct publish_opts *o,
			    const struct fleet_key *key, const char *tmp)
{
	char pk[FLEET_KEY_MAX + 24], sha[SHA256_HEX], got[SHA256_HEX], why[FLEET_WHY_LEN] = "";
	const redisReply *fields = NULL, *sig;
	redisReply *a, *r = NULL;
	struct fleet_signed sg = { .channel = o->channel, .type = "full", .version = o->rollback };
	FILE *out;
	int ret = -ENOENT;

	a = find_announcement(c, o->channel, o->rollback, &fields);
	if (!a) {
		log_error("publish --rollback %llu: no announcement of version %llu on channel %s "
			  "(trimmed?): publish its lists or its saved file instead",
			  (unsigned long long)o->rollback, (unsigned long long)o->rollback,
			  o->channel);
		return -ENOENT;
	}
	if (!fleet_field_text(fields, "key", pk, sizeof(pk)) ||
	    !fleet_field_text(fields, "sha256", sha, sizeof(sha)))
		goto gone;
	sig = fleet_field(fields, "sig");
	if (key) {
		char size[24], rb[24] = "0";

		fleet_field_text(fields, "size", size, sizeof(size));
		fleet_field_text(fields, "rollback", rb, sizeof(rb));
		sg.size = strtoull(size, NULL, 10);
		sg.rollback = strtoull(rb, NULL, 10);
		sg.sha256 = sha;
		if (!sig || fleet_verify(key, &sg, sig->str, sig->len)) {
			log_error("publish --rollback %llu: version %llu was not signed with %s: "
				  "its payload is not republished; publish its lists instead",
				  (unsigned long long)o->rollback, (unsigned long long)o->rollback,
				  key->fingerprint);
			ret = -EBADMSG;
			goto out;
		}
	}
	{
		const char *argv[] = { "GET", pk, NULL };

		if (fleet_cmd(c, &r, why, sizeof(why), argv) || r->type != REDIS_REPLY_STRING)
			goto gone;
	}
	if (sha256_hex(r->str, r->len, got) || strcmp(got, sha)) {
		log_error("publish --rollback %llu: %s is not the payload announced (SHA-256 "
			  "%.16s..., announced %.16s...): publish its lists instead",
			  (unsigned long long)o->rollback, pk, got, sha);
		ret = -EBADMSG;
		goto out;
	}
	out = fopen(tmp, "wxe");
	ret = out && fwrite(r->str, 1, r->len, out) == r->len ? 0 : -EIO;
	if (out && fclose(out))
		ret = -EIO;
	if (ret)
		log_error("publish --rollback: cannot write %s", tmp);
	goto out;
gone:
	log_error("publish --rollback %llu: the payload of version %llu is gone (only the last %d "
		  "are kept)%s%s: publish its lists or its saved file instead",
		  (unsigned long long)o->rollback, (unsigned long long)o->rollback,
		  FLEET_PAYLOADS_KEEP + 1, why[0] ? ": " : "", why);
	ret = -ENOENT;
out:
	freeReplyObject(r);
	freeReplyObject(a);
	return ret;
}

static int publish_full(redisContext *c, const struct publish_opts *o,
			const struct fleet_key *key, char **files, int n,
			struct publish_result *res)
{
	char dir[] = "/tmp/bloomxdp-publish.XXXXXX", tmp[64], why[FLEET_WHY_LEN];
	struct savefile_info info;
	const char *path = tmp;
	size_t len = 0;
	void *data = NULL;
	int ret;

	if (!mkdtemp(dir)) {
		log_error("publish: cannot make a temporary directory: %s", strerror(errno));
		return -errno;
	}
	snprintf(tmp, sizeof(tmp), "%s/payload", dir);
	if (o->rollback && (n || o->from)) {
		log_error("publish --rollback N republishes version N's payload: no FILEs, no "
			  "--from");
		ret = -EINVAL;
	} else if (o->rollback) {
		ret = rollback_payload(c, o, key, tmp);
	} else {
		ret = make_payload(c, o, files, n, tmp, &path, res);
	}
	if (ret)
		goto out;
	/* Checked as every node will check it: nothing broken is published. */
	ret = savefile_check(path, &info, why, sizeof(why));
	if (ret) {
		log_error("publish: %s: %s; nothing was published", path, why);
		goto out;
	}
	ret = fleet_read_file(path, FLEET_PAYLOAD_MAX, &data, &len);
	if (ret) {
		log_error("publish: cannot read %s: %s", path, strerror(-ret));
		goto out;
	}
	/* The bytes published are the ones checked: a file changed since is not read past. */
	if (len != info.file_bytes) {
		log_error("publish: %s changed while it was read (%zu bytes, checked %llu); "
			  "nothing was published", path, len,
			  (unsigned long long)info.file_bytes);
		ret = -EAGAIN;
		goto out;
	}
	ret = fleet_payload_plausible(&info, (char *)data + info.header_bytes, why,
				      sizeof(why));
	if (ret) {
		log_error("publish: %s: %s; nothing was published", path, why);
		goto out;
	}
	ret = announce_full(c, o, key, data, len, &info, res);
out:
	free(data);
	unlink(tmp);
	rmdir(dir);
	return ret;
}

/* Entries whose deadline passed, out of the set in force (nodes skip them already). */
static void prune_expired(redisContext *c, const char *inforce)
{
	const char *hgetall[] = { "HGETALL", inforce, NULL };
	redisReply *r = NULL, *d = NULL;
	char why[FLEET_WHY_LEN], *end;
	__u64 now = time(NULL), deadline;
	size_t i;

	if (fleet_cmd(c, &r, why, sizeof(why), hgetall) || r->type != REDIS_REPLY_ARRAY) {
		freeReplyObject(r);
		return;
	}
	for (i = 0; i + 1 < r->elements; i += 2) {
		const redisReply *k = r->element[i], *v = r->element[i + 1];
		char text[24];

		if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING ||
		    v->len >= sizeof(text))
			continue;
		memcpy(text, v->str, v->len);
		text[v->len] = '\0';
		deadline = strtoull(text, &end, 10);
		if (*end || !deadline || deadline > now)
			continue;
		{
			const char *argv[] = { "HDEL", inforce, k->str };
			size_t lens[] = { 4, strlen(inforce), k->len };

			if (!fleet_command(c, 3, argv, lens, &d, why, sizeof(why)))
				freeReplyObject(d);
		}
	}
	freeReplyObject(r);
}

static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The set in force the publisher signed last (bloomxdp:<channel>:inforce_signed),
 * verified with its own key, into set: never the hash that any writer can
 * change. None yet, or not verified: empty (said).
 */
static int signed_set_read(redisContext *c, const char *channel, const struct fleet_key *key,
			   struct fleet_entries *set, char *why, size_t len)
{
	struct fleet_signed sg = { .channel = channel, .type = "inforce" };
	char k[FLEET_KEY_MAX], seq[24], *text = NULL, *p, *tok, *save, *eq, *end;
	const redisReply *e, *sig;
	redisReply *r = NULL;
	__u64 deadline;
	int ret;
	const char *hgetall[] = { "HGETALL", fleet_key(k, sizeof(k), channel, "inforce_signed"),
				  NULL };

	ret = fleet_cmd(c, &r, why, len, hgetall);
	if (ret)
		return ret;
	e = fleet_field(r, "entries");
	sig = fleet_field(r, "sig");
	if (!e || !sig || !fleet_field_text(r, "seq", seq, sizeof(seq)) ||
	    memchr(e->str, 0, e->len))
		goto out;
	sg.seq = strtoull(seq, NULL, 10);
	sg.entries = e->str;
	if (fleet_verify(key, &sg, sig->str, sig->len)) {
		log_warn("publish: %s is not signed with %s: the signed set in force starts "
			 "over from this delta", k, key->fingerprint);
		goto out;
	}
	text = strdup(e->str);
	ret = text ? 0 : -ENOMEM;
	for (p = text; !ret && (tok = strtok_r(p, " ", &save)); p = NULL) {
		eq = strrchr(tok, '=');
		if (!eq || set->n >= FLEET_INFORCE_MAX)
			continue;
		*eq = '\0';
		deadline = strtoull(eq + 1, &end, 10);
		if (!*end && (!deadline || deadline > (__u64)time(NULL)))
			ret = fleet_entries_add(set, tok, deadline);
	}
	if (ret)
		snprintf(why, len, "out of memory");
out:
	free(text);
	freeReplyObject(r);
	return ret;
}

/*
 * With --sign-key, after a delta: the set in force for the nodes that start
 * from a snapshot (bloomxdp:<channel>:inforce_signed: seq, entries as
 * "ENTRY=DEADLINE ..." sorted, sig): the last signed set with this delta
 * applied, signed with its seq. Entries added unsigned are not in it. Two
 * publishers at once: the set of one of them; the next delta writes it again.
 */
static int sign_inforce(redisContext *c, const struct publish_opts *o, const struct fleet_key *key,
			char **entries, int n, __u64 expires, __u64 seq, char *why, size_t len)
{
	char sk[FLEET_KEY_MAX], seqt[24], sig[FLEET_SIG_HEX];
	struct fleet_signed sg = { .channel = o->channel, .type = "inforce", .seq = seq };
	struct fleet_entries set = {};
	redisReply *w = NULL;
	char **items = NULL, *text = NULL;
	size_t i, total = 1;
	int ret;

	ret = signed_set_read(c, o->channel, key, &set, why, len);
	for (i = 0; !ret && i < (size_t)n; i++) {
		if (o->add)
			ret = fleet_entries_add(&set, entries[i], expires);
		else
			fleet_entries_remove(&set, entries[i]);
	}
	items = ret ? NULL : calloc(set.n + 1, sizeof(*items));
	for (i = 0; items && i < set.n; i++) {
		items[i] = malloc(strlen(set.e[i]) + 24);
		if (!items[i])
			break;
		snprintf(items[i], strlen(set.e[i]) + 24, "%s=%llu", set.e[i],
			 (unsigned long long)set.deadline[i]);
		total += strlen(items[i]) + 1;
	}
	if (items && i == set.n) {
		qsort(items, set.n, sizeof(*items), cmp_text);
		text = calloc(1, total);
	}
	for (i = 0; text && i < set.n; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, items[i]);
	}
	if (!ret && !text) {
		ret = -ENOMEM;
		snprintf(why, len, "out of memory");
	}
	sg.entries = text;
	if (!ret && fleet_sign(key, &sg, sig)) {
		ret = -EIO;
		snprintf(why, len, "cannot sign the set in force");
	}
	snprintf(seqt, sizeof(seqt), "%llu", (unsigned long long)seq);
	if (!ret) {
		const char *hset[] = { "HSET", fleet_key(sk, sizeof(sk), o->channel,
							 "inforce_signed"),
				       "seq", seqt, "entries", text, "sig", sig, NULL };

		ret = fleet_cmd(c, &w, why, len, hset);
		freeReplyObject(w);
	}
	for (i = 0; items && i < set.n; i++)
		free(items[i]);
	free(items);
	free(text);
	fleet_entries_free(&set);
	return ret;
}

/* A delta's entries checked and joined with spaces (malloc-ed), or NULL with the error said. */
static char *join_entries(const char *type, char **entries, int n)
{
	size_t total = 1, i;
	char *joined;

	if (n < 1 || n > FLEET_DELTA_MAX) {
		log_error("publish --%s: give 1 to %d entries", type, FLEET_DELTA_MAX);
		return NULL;
	}
	for (i = 0; i < (size_t)n; i++) {
		size_t j, len = strlen(entries[i]);

		for (j = 0; j < len; j++)
			if (entries[i][j] <= ' ' || entries[i][j] == 0x7f)
				break;
		if (!len || len > FLEET_ENTRY_MAX || j < len) {
			log_error("publish --%s: '%s': an entry is 1 to %d printable characters, "
				  "no spaces; nothing was published", type, entries[i],
				  FLEET_ENTRY_MAX);
			return NULL;
		}
		total += len + 1;
	}
	joined = calloc(1, total);
	if (!joined) {
		log_error("publish --%s: out of memory", type);
		return NULL;
	}
	for (i = 0; i < (size_t)n; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, entries[i]);
	}
	return joined;
}

/* Room in the set in force for n more: each node re-adds the whole set after every version. */
static int inforce_room(redisContext *c, const char *inforce, int n, char *why, size_t len)
{
	const char *hlen[] = { "HLEN", inforce, NULL };
	redisReply *r = NULL;
	int ret;

	prune_expired(c, inforce);
	ret = fleet_cmd(c, &r, why, len, hlen);
	if (!ret && (r->type != REDIS_REPLY_INTEGER || r->integer + n > FLEET_INFORCE_MAX)) {
		snprintf(why, len, "the channel holds %lld entries from deltas, and at most %d "
			 "stay in force: put them in the lists of a full version, then --del them",
			 r->type == REDIS_REPLY_INTEGER ? r->integer : -1LL, FLEET_INFORCE_MAX);
		ret = -ENOSPC;
	}
	freeReplyObject(r);
	return ret;
}

/* HSET (add: each entry with its deadline, 0 none) or HDEL of the set in force. */
static int inforce_command(redisContext *c, const struct publish_opts *o, const char *inforce,
			   char **entries, int n, const char *expires, char *why, size_t len)
{
	int i, argc = o->add ? 2 * n + 2 : n + 2;
	const char **argv = calloc(argc, sizeof(*argv));
	size_t *lens = calloc(argc, sizeof(*lens));
	redisReply *r = NULL;
	int ret = -ENOMEM;

	if (!argv || !lens) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	argv[0] = o->add ? "HSET" : "HDEL";
	argv[1] = inforce;
	for (i = 0; i < n; i++) {
		if (o->add) {
			argv[2 + 2 * i] = entries[i];
			argv[3 + 2 * i] = expires;
		} else {
			argv[2 + i] = entries[i];
		}
	}
	for (i = 0; i < argc; i++)
		lens[i] = strlen(argv[i]);
	ret = fleet_command(c, argc, argv, lens, &r, why, len);
	freeReplyObject(r);
out:
	free(argv);
	free(lens);
	return ret;
}

/*
 * The delta in one MULTI: its entries into (or out of) the set in force, its
 * announcement onto the stream (sig: its signature, or NULL); the
 * announcement's stream id into id.
 */
static int delta_record(redisContext *c, const struct publish_opts *o, const char *inforce,
			char **entries, int n, const char *joined, const char *expires,
			const char *seq, const char *sig, char id[FLEET_ID_MAX], char *why,
			size_t len)
{
	const char *type = o->add ? "add" : "del";
	char stream[FLEET_KEY_MAX], keep[32], count[16];
	const char *multi[] = { "MULTI", NULL };
	redisReply *r = NULL;
	size_t used;
	int ret, ex;

	fleet_key(stream, sizeof(stream), o->channel, "stream");
	snprintf(keep, sizeof(keep), "%d", FLEET_STREAM_KEEP);
	snprintf(count, sizeof(count), "%d", n);
	ret = fleet_cmd(c, &r, why, len, multi);
	freeReplyObject(r);
	r = NULL;
	if (ret)
		return ret;
	ret = inforce_command(c, o, inforce, entries, n, expires, why, len);
	if (!ret) {
		const char *xadd[] = { "XADD", stream, "MAXLEN", "~", keep, "*", "type", type,
				       "entries", joined, "count", count, "expires", expires,
				       "seq", seq, sig ? "sig" : NULL, sig, NULL };

		ret = fleet_cmd(c, &r, why, len, xadd);
		freeReplyObject(r);
		r = NULL;
	}
	{
		const char *exec[] = { ret ? "DISCARD" : "EXEC", NULL };

		/* After a failure, DISCARD's own error (if any) follows the first. */
		used = ret ? strlen(why) : 0;
		ex = fleet_cmd(c, &r, why + used, len - used, exec);
		ret = ret ? ret : ex;
	}
	if (!ret && (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		     r->element[1]->type != REDIS_REPLY_STRING)) {
		ret = -EPROTO;
		snprintf(why, len, "the delta was not recorded (EXEC answered %s)",
			 r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
			 r->element[1]->type == REDIS_REPLY_ERROR ? r->element[1]->str :
			 "otherwise");
	}
	if (!ret)
		snprintf(id, FLEET_ID_MAX, "%.*s", (int)r->element[1]->len, r->element[1]->str);
	freeReplyObject(r);
	return ret;
}

/* A delta: the entries into (or out of) the set in force and onto the stream, in one MULTI. */
static int publish_delta(redisContext *c, const struct publish_opts *o,
			 const struct fleet_key *key, char **entries, int n,
			 struct publish_result *res)
{
	const char *type = o->add ? "add" : "del";
	char inforce[FLEET_KEY_MAX], why[FLEET_WHY_LEN], expires[24] = "0";
	char seqt[24], sig[FLEET_SIG_HEX] = "";
	char *joined = NULL;
	__u64 seq = 0;
	int ret;

	if (o->timeout && !o->add) {
		log_error("publish --timeout: goes with --add");
		return -EINVAL;
	}
	/* A deadline, not a duration: every node, started or caught up later, agrees on it. */
	if (o->timeout)
		snprintf(expires, sizeof(expires), "%llu",
			 (unsigned long long)(time(NULL) + o->timeout));

	joined = join_entries(type, entries, n);
	if (!joined)
		return -EINVAL;
	fleet_key(inforce, sizeof(inforce), o->channel, "inforce");
	if (o->add) {
		ret = inforce_room(c, inforce, n, why, sizeof(why));
		if (ret)
			goto out;
	}
	/* Its number: a node applies each delta once, in order (a replay is refused). */
	ret = next_number(c, o->channel, "delta", "delta_seq", &seq, why, sizeof(why));
	if (ret)
		goto out;
	snprintf(seqt, sizeof(seqt), "%llu", (unsigned long long)seq);
	if (key) {
		struct fleet_signed sg = { .channel = o->channel, .type = type, .seq = seq,
					   .expires = strtoull(expires, NULL, 10),
					   .entries = joined };

		if (fleet_sign(key, &sg, sig)) {
			ret = -EIO;
			snprintf(why, sizeof(why), "cannot sign the delta");
			goto out;
		}
	}
	ret = delta_record(c, o, inforce, entries, n, joined, expires, seqt, key ? sig : NULL,
			   res->id, why, sizeof(why));
	if (!ret && key &&
	    sign_inforce(c, o, key, entries, n, strtoull(expires, NULL, 10), seq, why,
			 sizeof(why))) {
		log_error("publish --%s: the delta is published, but its signed set in force was "
			  "not written (%s): nodes with verify_key that start from a snapshot "
			  "refuse the set until the next signed delta", type, why);
		ret = -EIO;
		goto out_published;
	}
	if (!ret) {
		res->published = res->delta = true;
		res->type = type;
		res->count = n;
		res->seq = seq;
		snprintf(res->signer, sizeof(res->signer), "%s", key ? key->fingerprint : "");
	}
out:
	if (ret)
		log_error("publish --%s: %s; nothing was published", type, why);
out_published:
	free(joined);
	return ret;
}

int fleet_publish(const struct publish_opts *o, char **args, int n, struct publish_result *res)
{
	struct fleet_key key = {};
	redisContext *c = NULL;
	int ret;

	memset(res, 0, sizeof(*res));
	if (o->add && o->del) {
		log_error("publish: --add or --del, not both");
		return -EINVAL;
	}
	if ((o->add || o->del) && (o->from || o->new_key)) {
		log_error("publish: a delta (--add, --del) takes entries, not --from or --new-key");
		return -EINVAL;
	}
	if ((o->add || o->del) && o->rollback) {
		log_error("publish: --rollback N republishes a full version: no --add, --del");
		return -EINVAL;
	}
	if (o->sign_key) {
		char why[FLEET_WHY_LEN];

		ret = fleet_key_load(o->sign_key, true, &key, why, sizeof(why));
		if (ret) {
			log_error("publish --sign-key: %s; nothing was published", why);
			return ret;
		}
	}
	ret = fleet_open(o->redis, o->channel, &c);
	if (ret)
		goto out;
	if (o->add || o->del)
		ret = publish_delta(c, o, o->sign_key ? &key : NULL, args, n, res);
	else
		ret = publish_full(c, o, o->sign_key ? &key : NULL, args, n, res);
	fleet_disconnect(c);
out:
	fleet_key_free(&key);
	return ret;
}
