// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * publish: a full version (a compiled filter) or a delta (add, del) for a
 * fleet, through Redis; fleet status: what every node applied. The keys are
 * in fleet_redis.h; the nodes' side is the daemon's (fleet_node.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include <hiredis/hiredis.h>

#include "attachment.h"
#include "cli.h"
#include "fleet_payload.h"
#include "fleet_redis.h"
#include "json.h"
#include "layout.h"
#include "log.h"
#include "savefile.h"
#include "cmd_fleet.h"
#include "expiry.h"

struct publish_opts {
	const char *redis;
	const char *channel;
	const char *from;
	bool add, del;
	const char *timeout;	/* --add: "10m": the entries expire then on every node */
	bool new_key;
	__u32 layout;
	double fpr;
	__u64 max_memory;
};

#define WHY_LEN 512

/* The hash key of the channel's latest payload: the fleet keeps it unless --new-key. */
static int latest_key(redisContext *c, const char *channel, __u64 key[2], bool *found)
{
	char k[FLEET_KEY_MAX], pk[FLEET_KEY_MAX], why[WHY_LEN];
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
	char zk[FLEET_KEY_MAX], max[32], why[WHY_LEN], pk[FLEET_KEY_MAX + 24];
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
static int announce_full(redisContext *c, const char *channel, const void *data, size_t len,
			 const struct savefile_info *info)
{
	char k[FLEET_KEY_MAX], pk[FLEET_KEY_MAX + 24], sha[65], v[32], size[32], entries[32];
	char stream[FLEET_KEY_MAX], keep[32], id[FLEET_ID_MAX], why[WHY_LEN];
	redisReply *r = NULL;
	__u64 version;
	int ret;

	ret = fleet_sha256_hex(data, len, sha);
	if (ret)
		return ret;
	{
		const char *argv[] = { "INCR", fleet_key(k, sizeof(k), channel, "version"), NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), argv);
	}
	if (ret || r->type != REDIS_REPLY_INTEGER || r->integer < 1) {
		if (!ret) {
			ret = -EPROTO;
			snprintf(why, sizeof(why), "%s is not a counter", k);
		}
		goto fail;
	}
	version = r->integer;
	freeReplyObject(r);
	r = NULL;
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
				       NULL };

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
				       "version", v, "key", pk, "size", size, "sha256", sha, NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), argv);
		freeReplyObject(r);
		r = NULL;
	}
	if (ret)
		goto fail;
	trim_payloads(c, channel, version);
	printf("published version %llu on channel %s: %llu entries, %zu bytes, sha256 %.16s..., "
	       "announced as %s\n", (unsigned long long)version, channel,
	       (unsigned long long)info->entries, len, sha, id);
	return 0;
fail:
	freeReplyObject(r);
	log_error("publish: %s; nodes keep the version they have", why);
	return ret;
}

/* The payload file of a full version into tmp (or the saved file given): its path. */
static int make_payload(redisContext *c, const struct publish_opts *o, char **files, int n,
			const char *tmp, const char **path)
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
		ret = savefile_save(&att, tmp, NULL, 0);
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
	if (!found)
		printf("publish: a new hash key for channel %s: every node attaches again with "
		       "it\n", o->channel);
	return fleet_compile(files, n, &co, tmp, NULL);
}

static int publish_full(redisContext *c, const struct publish_opts *o, char **files, int n)
{
	char dir[] = "/tmp/bloomxdp-publish.XXXXXX", tmp[64], why[WHY_LEN];
	struct savefile_info info;
	const char *path = NULL;
	size_t len = 0;
	void *data = NULL;
	int ret;

	if (!mkdtemp(dir)) {
		log_error("publish: cannot make a temporary directory: %s", strerror(errno));
		return -errno;
	}
	snprintf(tmp, sizeof(tmp), "%s/payload", dir);
	ret = make_payload(c, o, files, n, tmp, &path);
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
	ret = announce_full(c, o->channel, data, len, &info);
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
	char why[WHY_LEN], *end;
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

/* A delta: the entries into (or out of) the set in force and onto the stream, in one MULTI. */
static int publish_delta(redisContext *c, const struct publish_opts *o, char **entries, int n)
{
	const char *type = o->add ? "add" : "del";
	char inforce[FLEET_KEY_MAX], stream[FLEET_KEY_MAX], keep[32], count[16], why[WHY_LEN];
	char expires[24] = "0";
	const char **argv = NULL;
	redisReply *r = NULL;
	char *joined = NULL;
	size_t total = 1, i;
	__u64 secs;
	int ret;

	if (o->timeout && (!o->add || expiry_parse(o->timeout, &secs))) {
		log_error("publish --timeout %s: goes with --add, as a duration such as 30s, 10m, "
			  "2h or 7d (at most 365d)", o->timeout);
		return -EINVAL;
	}
	/* A deadline, not a duration: every node, started or caught up later, agrees on it. */
	if (o->timeout)
		snprintf(expires, sizeof(expires), "%llu", (unsigned long long)(time(NULL) + secs));

	if (n < 1 || n > FLEET_DELTA_MAX) {
		log_error("publish --%s: give 1 to %d entries", type, FLEET_DELTA_MAX);
		return -EINVAL;
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
			return -EINVAL;
		}
		total += len + 1;
	}
	joined = calloc(1, total);
	argv = calloc(2 * n + 2, sizeof(*argv));
	if (!joined || !argv) {
		ret = -ENOMEM;
		snprintf(why, sizeof(why), "out of memory");
		goto out;
	}
	for (i = 0; i < (size_t)n; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, entries[i]);
	}
	fleet_key(inforce, sizeof(inforce), o->channel, "inforce");
	fleet_key(stream, sizeof(stream), o->channel, "stream");
	snprintf(keep, sizeof(keep), "%d", FLEET_STREAM_KEEP);
	snprintf(count, sizeof(count), "%d", n);
	if (o->add) {
		/* Bounded: each node re-adds the whole set after every full version. */
		const char *scard[] = { "HLEN", inforce, NULL };

		prune_expired(c, inforce);
		ret = fleet_cmd(c, &r, why, sizeof(why), scard);
		if (!ret && (r->type != REDIS_REPLY_INTEGER ||
			     r->integer + n > FLEET_INFORCE_MAX)) {
			snprintf(why, sizeof(why), "the channel holds %lld entries from deltas, "
				 "and at most %d stay in force: put them in the lists of a full "
				 "version, then --del them",
				 r->type == REDIS_REPLY_INTEGER ? r->integer : -1LL,
				 FLEET_INFORCE_MAX);
			ret = -ENOSPC;
		}
		freeReplyObject(r);
		r = NULL;
		if (ret)
			goto out;
	}
	{
		const char *multi[] = { "MULTI", NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), multi);
		freeReplyObject(r);
		r = NULL;
	}
	if (ret)
		goto out;
	/* The set in force: each entry with its deadline (0: none). */
	argv[0] = o->add ? "HSET" : "HDEL";
	argv[1] = inforce;
	for (i = 0; i < (size_t)n; i++) {
		if (o->add) {
			argv[2 + 2 * i] = entries[i];
			argv[3 + 2 * i] = expires;
		} else {
			argv[2 + i] = entries[i];
		}
	}
	{
		int argc = o->add ? 2 * n + 2 : n + 2;
		size_t *lens = calloc(argc, sizeof(*lens));

		if (!lens) {
			ret = -ENOMEM;
			snprintf(why, sizeof(why), "out of memory");
			goto out;
		}
		for (i = 0; i < (size_t)argc; i++)
			lens[i] = strlen(argv[i]);
		ret = fleet_command(c, argc, argv, lens, &r, why, sizeof(why));
		free(lens);
		freeReplyObject(r);
		r = NULL;
	}
	if (!ret) {
		const char *xadd[] = { "XADD", stream, "MAXLEN", "~", keep, "*", "type", type,
				       "entries", joined, "count", count, "expires", expires,
				       NULL };

		ret = fleet_cmd(c, &r, why, sizeof(why), xadd);
		freeReplyObject(r);
		r = NULL;
	}
	{
		const char *exec[] = { ret ? "DISCARD" : "EXEC", NULL };
		int ex = fleet_cmd(c, &r, ret ? why + strlen(why) : why,
				   ret ? sizeof(why) - strlen(why) : sizeof(why), exec);

		ret = ret ? ret : ex;
	}
	if (!ret && (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		     r->element[1]->type != REDIS_REPLY_STRING)) {
		ret = -EPROTO;
		snprintf(why, sizeof(why), "the delta was not recorded (EXEC answered %s)",
			 r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
			 r->element[1]->type == REDIS_REPLY_ERROR ? r->element[1]->str :
			 "otherwise");
	}
	if (!ret)
		printf("published %s of %d entr%s on channel %s, announced as %.*s\n", type, n,
		       n == 1 ? "y" : "ies", o->channel, (int)r->element[1]->len,
		       r->element[1]->str);
out:
	if (ret)
		log_error("publish --%s: %s; nothing was published", type, why);
	freeReplyObject(r);
	free(joined);
	free(argv);
	return ret;
}

static int run_publish(const struct cli_call *call)
{
	const struct publish_opts *o = call->opts;
	redisContext *c = NULL;
	int ret;

	if (o->add && o->del) {
		log_error("publish: --add or --del, not both");
		return -EINVAL;
	}
	if ((o->add || o->del) && (o->from || o->new_key)) {
		log_error("publish: a delta (--add, --del) takes entries, not --from or --new-key");
		return -EINVAL;
	}
	ret = fleet_open(o->redis, o->channel, &c);
	if (ret)
		return ret;
	if (o->add || o->del)
		ret = publish_delta(c, o, call->argv, call->argc);
	else
		ret = publish_full(c, o, call->argv, call->argc);
	fleet_disconnect(c);
	return ret;
}

#define P(field) offsetof(struct publish_opts, field)

static const struct option_spec publish_options[] = {
	OPT_REDIS(struct publish_opts),
	OPT_CHANNEL(struct publish_opts),
	OPTION("from", 0, OPT_TEXT, P(from), "IFNAME",
	       "publish the live blocklist of this node's IFNAME\n"
	       "(as 'bloomxdp save' writes it) instead of FILEs"),
	OPTION("add", 0, OPT_FLAG, P(add), NULL,
	       "a delta: the ENTRYs go into every node's list"),
	OPTION("timeout", 0, OPT_TEXT, P(timeout), "DURATION",
	       "with --add: the ENTRYs leave every node's list then\n"
	       "(30s, 10m, 2h, 7d; a deadline every node agrees on)"),
	OPTION("del", 0, OPT_FLAG, P(del), NULL,
	       "a delta: the ENTRYs added by --add leave every node's list"),
	OPTION("new-key", 0, OPT_FLAG, P(new_key), NULL,
	       "compile with a new hash key (rotation): every node\n"
	       "attaches again with it"),
	OPTION("layout", 0, OPT_ENUM, P(layout), "L", "filter layout of the compiled lists",
	       .values_fn = layout_values),
	OPTION("fpr", 0, OPT_RATE, P(fpr), "P", "target false-positive rate of the compiled lists"),
	OPTION("max-memory", 0, OPT_COUNT, P(max_memory), "BYTES",
	       "the most the compiled filter may take", .min = 1, .max = COUNT_MAX),
	{}
};

static const struct publish_opts publish_defaults = {
	.layout = DEFAULT_LAYOUT, .fpr = DEFAULT_FPR,
};

const struct command command_publish = {
	.name = "publish",
	.args = "[FILE... | --from IFNAME | --add ENTRY... | --del ENTRY...]",
	.summary = "publish a new version (or a delta) of the blocklist to a fleet through Redis",
	.description =
		"A full version: the list FILEs compiled into one filter (with the channel's\n"
		"hash key, kept from the version before unless --new-key), or a file of\n"
		"'bloomxdp save', or the live blocklist of --from IFNAME. Its payload is stored\n"
		"whole under a versioned key with its size and SHA-256, then announced on the\n"
		"channel's Redis stream; every node's daemon (subscribe = ...) checks and swaps\n"
		"it in. Older payloads are trimmed. A delta (--add, --del): the entries, applied\n"
		"by every node in order, kept in force across full versions until deleted.\n",
	.options = publish_options,
	.opts_size = sizeof(struct publish_opts),
	.defaults = &publish_defaults,
	.min_args = 0,
	.max_args = -1,
	.what_args = "FILE",
	.run = run_publish,
};
