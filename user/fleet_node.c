// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A fleet node's subscriber: the channel's stream read in the daemon's loop (fleet_node.h). */
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

#include "fleet_node.h"
#include "fleet_redis.h"
#include "log.h"
#include "state.h"

/* XREAD waits this long on the server; a reply later than that and FLEET_TIMEOUT_S: lost. */
#define FLEET_BLOCK_MS		5000
/* Entries read at once: a batch whose later full version makes earlier ones moot. */
#define FLEET_BATCH		64
/* Reconnect after 0.2 s, doubling to 5 s: an outage is noticed and left quickly. */
#define FLEET_BACKOFF_MIN_MS	200
#define FLEET_BACKOFF_MAX_MS	5000
#define FLEET_STATE_MAX		(FLEET_DELTA_MAX * (FLEET_ENTRY_MAX + 8) + 4096)
#define STATE_MAGIC_LINE	"bloomxdp-fleet 1"
#define WHY_LEN			512

struct fleet_node {
	struct fleet_config cfg;
	char ifname[IFNAMSIZ], state_dir[PATH_MAX], channel[FLEET_CHANNEL_MAX];
	char node[FLEET_NODE_MAX], host[64];
	char stream_key[FLEET_KEY_MAX], state_name[FLEET_CHANNEL_MAX + 16];
	char payload_name[FLEET_CHANNEL_MAX + 16], download_name[FLEET_CHANNEL_MAX + 16];
	struct fleet_url url;
	redisContext *c;
	bool waiting;			/* an XREAD is in flight */
	__u64 sent_ms, retry_ms;
	__u32 backoff_ms;
	/* What it applied: kept in its state across restarts. */
	char last_id[FLEET_ID_MAX];	/* "": none yet */
	__u64 version;
	char sha[65];			/* of the payload applied: versions restart with Redis */
	struct fleet_entries inforce;
	/* For the report. */
	__u64 applied_at, deltas, refused, errors;
	__u64 entry_ms;			/* CLOCK_REALTIME ms when the last entry was applied */
	char last_error[WHY_LEN], logged[WHY_LEN];
	bool reattached;
};

static __u64 now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

static __u64 wall_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

static void note_error(struct fleet_node *f, const char *why, bool count)
{
	snprintf(f->last_error, sizeof(f->last_error), "%s", why);
	if (count)
		f->errors++;
	/* Said once, not at every retry of an outage. */
	if (strcmp(f->logged, why))
		log_error("fleet %s: %s", f->ifname, why);
	snprintf(f->logged, sizeof(f->logged), "%s", why);
}

/* An entry as a delta carries it: printable, no space, bounded (the node parses it again). */
static bool entry_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len > FLEET_ENTRY_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return true;
}

/* ------------------------------------------------------------ its state */

static int state_save(struct fleet_node *f)
{
	struct state_dir sd;
	char *buf;
	size_t i, len = 0, cap = 256;
	int ret;

	for (i = 0; i < f->inforce.n; i++)
		cap += strlen(f->inforce.e[i]) + 8;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	len += snprintf(buf, cap, STATE_MAGIC_LINE "\nid %s\nversion %llu\nsha256 %s\n",
			f->last_id[0] ? f->last_id : "-", (unsigned long long)f->version,
			f->sha[0] ? f->sha : "-");
	for (i = 0; i < f->inforce.n; i++)
		len += snprintf(buf + len, cap - len, "entry %s\n", f->inforce.e[i]);
	ret = state_open(state_root(f->state_dir), f->ifname, true, &sd);
	if (!ret) {
		ret = state_write(&sd, f->state_name, buf, len);
		state_close(&sd);
	}
	free(buf);
	if (ret)
		log_warn("fleet %s: its place in the stream could not be saved (%s): a restart "
			 "reads the stream from the newest full version", f->ifname, strerror(-ret));
	return ret;
}

static void state_load(struct fleet_node *f)
{
	struct state_dir sd;
	char *buf = NULL, *line, *save;
	size_t len;
	int ret;

	if (state_open(state_root(f->state_dir), f->ifname, false, &sd))
		return;
	ret = state_read(&sd, f->state_name, FLEET_STATE_MAX, &buf, &len);
	state_close(&sd);
	if (ret)
		return;
	line = strtok_r(buf, "\n", &save);
	if (!line || strcmp(line, STATE_MAGIC_LINE)) {
		log_warn("fleet %s: %s is not of this version: starting from the newest full "
			 "version", f->ifname, f->state_name);
		free(buf);
		return;
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct fleet_id id;

		if (!strncmp(line, "id ", 3) && !fleet_id_parse(line + 3, strlen(line + 3), &id))
			snprintf(f->last_id, sizeof(f->last_id), "%s", line + 3);
		else if (!strncmp(line, "version ", 8))
			f->version = strtoull(line + 8, NULL, 10);
		else if (!strncmp(line, "sha256 ", 7) && strlen(line + 7) == 64)
			snprintf(f->sha, sizeof(f->sha), "%s", line + 7);
		else if (!strncmp(line, "entry ", 6) && entry_ok(line + 6, strlen(line + 6)))
			fleet_entries_add(&f->inforce, line + 6);
	}
	free(buf);
}

/* The path of a file of its state directory. */
static const char *state_path(const struct fleet_node *f, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", state_root(f->state_dir), f->ifname, name);
	return buf;
}

/* ----------------------------------------------------------- the report */

static void report(struct fleet_node *f)
{
	char k[FLEET_KEY_MAX], v[32], at[32], seen[32], d[32], r[32], e[32], n[32], pid[16];
	char ems[32];
	char why[WHY_LEN];
	redisReply *reply = NULL;

	if (!f->c || f->waiting)
		return;
	snprintf(k, sizeof(k), FLEET_KEY_ROOT "%s:node:%s", f->channel, f->node);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)f->version);
	snprintf(at, sizeof(at), "%llu", (unsigned long long)f->applied_at);
	snprintf(seen, sizeof(seen), "%llu", (unsigned long long)time(NULL));
	snprintf(d, sizeof(d), "%llu", (unsigned long long)f->deltas);
	snprintf(r, sizeof(r), "%llu", (unsigned long long)f->refused);
	snprintf(e, sizeof(e), "%llu", (unsigned long long)f->errors);
	snprintf(n, sizeof(n), "%zu", f->inforce.n);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(ems, sizeof(ems), "%llu", (unsigned long long)f->entry_ms);
	{
		const char *argv[] = { "HSET", k, "ifname", f->ifname, "host", f->host, "pid", pid,
				       "version", v, "sha256", f->sha, "stream_id", f->last_id,
				       "applied_at", at, "seen_at", seen, "deltas", d, "refused", r,
				       "errors", e, "inforce", n, "last_error", f->last_error,
				       "entry_ms", ems, NULL };

		if (fleet_cmd(f->c, &reply, why, sizeof(why), argv))
			goto fail;
		freeReplyObject(reply);
	}
	{
		const char *argv[] = { "SADD", fleet_key(k, sizeof(k), f->channel, "nodes"),
				       f->node, NULL };

		if (fleet_cmd(f->c, &reply, why, sizeof(why), argv))
			goto fail;
		freeReplyObject(reply);
	}
	return;
fail:
	log_warn("fleet %s: cannot report: %s", f->ifname, why);
}

/* ------------------------------------------------------ full versions */

/*
 * The payload an announcement names, read in bounded pieces, checked against
 * its size and SHA-256, written to the download file. -EBADMSG: refused
 * (counted); -ENOENT: gone (trimmed); -EIO: Redis lost (retried).
 */
static int fetch_payload(struct fleet_node *f, const redisReply *fields, char *why, size_t len)
{
	char key[FLEET_KEY_MAX + 24], prefix[FLEET_KEY_MAX], sha[65], want[65], size_text[24];
	char from[24], to[24], path[PATH_MAX + 64];
	redisReply *r = NULL;
	__u64 size, off;
	char *data = NULL, *end;
	int fd = -1, ret;

	snprintf(prefix, sizeof(prefix), FLEET_KEY_ROOT "%s:payload:", f->channel);
	if (!fleet_field_text(fields, "key", key, sizeof(key)) ||
	    strncmp(key, prefix, strlen(prefix)) ||
	    !fleet_field_text(fields, "sha256", want, sizeof(want)) || strlen(want) != 64 ||
	    !fleet_field_text(fields, "size", size_text, sizeof(size_text))) {
		snprintf(why, len, "payload refused: an announcement without its key, size or "
			 "sha256");
		return -EBADMSG;
	}
	errno = 0;
	size = strtoull(size_text, &end, 10);
	if (errno || *end || !size || size > FLEET_PAYLOAD_MAX) {
		snprintf(why, len, "payload refused: announced size '%s'", size_text);
		return -EBADMSG;
	}
	{
		const char *argv[] = { "STRLEN", key, NULL };

		ret = fleet_cmd(f->c, &r, why, len, argv);
	}
	if (ret)
		return ret;
	if (r->type != REDIS_REPLY_INTEGER || !r->integer) {
		freeReplyObject(r);
		snprintf(why, len, "payload %s is gone (trimmed): waiting for a newer version", key);
		return -ENOENT;
	}
	if ((__u64)r->integer != size) {
		snprintf(why, len, "payload refused: %s holds %lld bytes, announced %llu", key,
			 r->integer, (unsigned long long)size);
		freeReplyObject(r);
		return -EBADMSG;
	}
	freeReplyObject(r);
	r = NULL;
	data = malloc(size);
	if (!data) {
		snprintf(why, len, "no memory for a payload of %llu bytes", (unsigned long long)size);
		return -ENOMEM;
	}
	for (off = 0; off < size; off += FLEET_CHUNK) {
		__u64 n = size - off < FLEET_CHUNK ? size - off : FLEET_CHUNK;
		const char *argv[] = { "GETRANGE", key, from, to, NULL };

		snprintf(from, sizeof(from), "%llu", (unsigned long long)off);
		snprintf(to, sizeof(to), "%llu", (unsigned long long)(off + n - 1));
		ret = fleet_cmd(f->c, &r, why, len, argv);
		if (ret)
			goto out;
		if (r->type != REDIS_REPLY_STRING || (__u64)r->len != n) {
			snprintf(why, len, "payload refused: %s is truncated at %llu of %llu bytes",
				 key, (unsigned long long)off, (unsigned long long)size);
			ret = -EBADMSG;
			goto out;
		}
		memcpy(data + off, r->str, n);
		freeReplyObject(r);
		r = NULL;
	}
	ret = fleet_sha256_hex(data, size, sha);
	if (!ret && strcmp(sha, want)) {
		snprintf(why, len, "payload refused: %s has SHA-256 %.16s..., announced %.16s...",
			 key, sha, want);
		ret = -EBADMSG;
	}
	if (ret)
		goto out;
	/* Not fsync'd: it is fetched again if lost; the file's CRC32C catches a torn write. */
	state_path(f, f->download_name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		ret = errno ? -errno : -EIO;
		snprintf(why, len, "cannot write %.200s: %s", path, strerror(-ret));
	}
out:
	if (fd >= 0)
		close(fd);
	freeReplyObject(r);
	free(data);
	return ret;
}

/* The downloaded payload swapped in with the entries in force; kept as the applied one. */
static int apply_download(struct fleet_node *f, const struct fleet_entries *inforce,
			  __u64 version, const char *sha, char *why, size_t len)
{
	char dl[PATH_MAX + 64], kept[PATH_MAX + 64];
	bool reattached;
	int ret;

	state_path(f, f->download_name, dl, sizeof(dl));
	ret = fleet_apply_payload(&f->cfg, dl, inforce, &reattached, why, len);
	f->reattached |= reattached;
	if (ret) {
		unlink(dl);
		return ret;
	}
	rename(dl, state_path(f, f->payload_name, kept, sizeof(kept)));
	f->version = version;
	snprintf(f->sha, sizeof(f->sha), "%s", sha);
	f->applied_at = time(NULL);
	log_info("fleet %s: version %llu applied", f->ifname, (unsigned long long)version);
	return 0;
}

/* The version an announcement names: fetched, checked, applied. */
static int apply_full(struct fleet_node *f, const redisReply *fields, char *why, size_t len)
{
	char v[24], sha[65];
	int ret;

	if (!fleet_field_text(fields, "version", v, sizeof(v)) ||
	    !fleet_field_text(fields, "sha256", sha, sizeof(sha)))
		v[0] = sha[0] = '\0';
	if (sha[0] && !strcmp(sha, f->sha))
		return 0;	/* applied already */
	ret = fetch_payload(f, fields, why, len);
	if (!ret)
		ret = apply_download(f, &f->inforce, strtoull(v, NULL, 10), sha, why, len);
	return ret;
}

/* The applied payload again with another set in force: a del undone by rebuilding. */
static int rebuild(struct fleet_node *f, const struct fleet_entries *inforce, char *why,
		   size_t len)
{
	char kept[PATH_MAX + 64];
	bool reattached;
	int ret;

	if (!f->sha[0]) {
		snprintf(why, len, "a del needs a full version to rebuild from, and none was "
			 "applied yet");
		return -ENODATA;
	}
	ret = fleet_apply_payload(&f->cfg, state_path(f, f->payload_name, kept, sizeof(kept)),
				  inforce, &reattached, why, len);
	f->reattached |= reattached;
	return ret;
}

/* ------------------------------------------------------------- deltas */

/* The entries of a delta, split in place into argv (FLEET_DELTA_MAX at most). */
static int delta_entries(const redisReply *fields, char **text, char ***argv, int *n)
{
	const redisReply *v = fleet_field(fields, "entries");
	char *p, *save, *tok;

	*n = 0;
	*argv = NULL;
	*text = NULL;
	if (!v || !v->len || v->len > (size_t)FLEET_DELTA_MAX * (FLEET_ENTRY_MAX + 1) ||
	    memchr(v->str, 0, v->len))
		return -EBADMSG;
	*text = strndup(v->str, v->len);
	*argv = calloc(FLEET_DELTA_MAX, sizeof(**argv));
	if (!*text || !*argv)
		return -ENOMEM;
	for (p = *text; (tok = strtok_r(p, " ", &save)); p = NULL) {
		if (*n == FLEET_DELTA_MAX || !entry_ok(tok, strlen(tok)))
			return -EBADMSG;
		(*argv)[(*n)++] = tok;
	}
	return *n ? 0 : -EBADMSG;
}

static int apply_delta(struct fleet_node *f, bool add, const redisReply *fields, char *why,
		       size_t len)
{
	struct fleet_entries next = {};
	char *text = NULL, **argv = NULL;
	int i, n, ret, known = 0;

	ret = delta_entries(fields, &text, &argv, &n);
	if (ret) {
		snprintf(why, len, "a delta refused: its entries are not a list of entries");
		goto out;
	}
	if (add) {
		ret = fleet_apply_add(&f->cfg, argv, n, why, len);
		for (i = 0; !ret && i < n; i++)
			ret = fleet_entries_add(&f->inforce, argv[i]);
		goto out;
	}
	for (i = 0; i < (int)f->inforce.n && !ret; i++)
		ret = fleet_entries_add(&next, f->inforce.e[i]);
	for (i = 0; i < n && !ret; i++)
		known += fleet_entries_remove(&next, argv[i]);
	if (!ret && known)
		ret = rebuild(f, &next, why, len);
	if (!ret) {
		fleet_entries_free(&f->inforce);
		f->inforce = next;
		memset(&next, 0, sizeof(next));
	}
	if (!ret && known < n) {
		snprintf(why, len, "del: %d of %d entries were not added by a delta: they are in "
			 "the full version; publish one without them", n - known, n);
		ret = -ENOENT;
	}
out:
	if (!ret)
		f->deltas++;
	fleet_entries_free(&next);
	free(text);
	free(argv);
	return ret;
}

/* -------------------------------------------------------- the stream */

/* One entry of the stream, in order. -EIO: Redis lost, the entry is read again later. */
static int apply_entry(struct fleet_node *f, const redisReply *fields)
{
	char type[8], why[WHY_LEN] = "";
	int ret;

	if (!fleet_field_text(fields, "type", type, sizeof(type)))
		type[0] = '\0';
	if (!strcmp(type, "full"))
		ret = apply_full(f, fields, why, sizeof(why));
	else if (!strcmp(type, "add") || !strcmp(type, "del"))
		ret = apply_delta(f, type[0] == 'a', fields, why, sizeof(why));
	else
		ret = 0;	/* a kind of a later version: not ours */
	if (ret == -EIO)
		return ret;
	if (ret == -EBADMSG)
		f->refused++;
	if (ret) {
		note_error(f, why, true);
	} else {
		f->last_error[0] = '\0';
		f->logged[0] = '\0';
	}
	/* When the entry took effect (or was refused): the time from its announcement (bench). */
	f->entry_ms = wall_ms();
	return 0;
}

/* An XREAD reply: [[stream, [[id, [field, value...]]...]]]; nil when it timed out. */
static int apply_batch(struct fleet_node *f, const redisReply *r)
{
	const redisReply *entries, *e;
	char type[8];
	size_t i, last_full = 0;
	bool any_full = false;
	int ret;

	if (r->type == REDIS_REPLY_NIL)
		return 0;
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 ||
	    r->element[0]->type != REDIS_REPLY_ARRAY || r->element[0]->elements != 2 ||
	    r->element[0]->element[1]->type != REDIS_REPLY_ARRAY)
		return -EPROTO;
	entries = r->element[0]->element[1];
	for (i = 0; i < entries->elements; i++) {
		e = entries->element[i];
		if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
		    e->element[0]->type != REDIS_REPLY_STRING)
			return -EPROTO;
		if (fleet_field_text(e->element[1], "type", type, sizeof(type)) &&
		    !strcmp(type, "full")) {
			last_full = i;
			any_full = true;
		}
	}
	for (i = 0; i < entries->elements; i++) {
		struct fleet_id id;

		e = entries->element[i];
		if (fleet_id_parse(e->element[0]->str, e->element[0]->len, &id))
			return -EPROTO;
		/* A full version that a later one in the batch replaces is skipped. */
		if (!(any_full && i < last_full &&
		      fleet_field_text(e->element[1], "type", type, sizeof(type)) &&
		      !strcmp(type, "full"))) {
			ret = apply_entry(f, e->element[1]);
			if (ret)
				return ret;
		}
		snprintf(f->last_id, sizeof(f->last_id), "%.*s", (int)e->element[0]->len,
			 e->element[0]->str);
		state_save(f);
	}
	return 0;
}

static void drop(struct fleet_node *f, const char *why)
{
	if (f->c)
		redisFree(f->c);
	f->c = NULL;
	f->waiting = false;
	f->retry_ms = now_ms() + f->backoff_ms;
	f->backoff_ms = f->backoff_ms * 2 > FLEET_BACKOFF_MAX_MS ? FLEET_BACKOFF_MAX_MS :
								   f->backoff_ms * 2;
	note_error(f, why, false);
}

/*
 * Where a node that lost its place starts (no state, a stream trimmed past
 * it, a Redis that lost its data): the newest full version and the set in
 * force, read at one instant (MULTI) with the stream's newest id.
 */
static int sync_latest(struct fleet_node *f)
{
	char latest[FLEET_KEY_MAX], inforce[FLEET_KEY_MAX], why[WHY_LEN] = "", sha[65], v[24];
	struct fleet_entries next = {};
	redisReply *r = NULL, *q = NULL;
	const redisReply *set, *top;
	size_t i;
	int ret;

	fleet_key(latest, sizeof(latest), f->channel, "latest");
	fleet_key(inforce, sizeof(inforce), f->channel, "inforce");
	{
		const char *multi[] = { "MULTI", NULL }, *hget[] = { "HGETALL", latest, NULL },
			   *smem[] = { "SMEMBERS", inforce, NULL },
			   *xrev[] = { "XREVRANGE", f->stream_key, "+", "-", "COUNT", "1", NULL },
			   *exec[] = { "EXEC", NULL };
		const char *const *cmds[] = { multi, hget, smem, xrev };

		for (i = 0, ret = 0; i < 4 && !ret; i++) {
			ret = fleet_cmd(f->c, &q, why, sizeof(why), cmds[i]);
			freeReplyObject(q);
			q = NULL;
		}
		if (!ret)
			ret = fleet_cmd(f->c, &r, why, sizeof(why), exec);
	}
	if (ret)
		goto out;
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
	    r->element[1]->type != REDIS_REPLY_ARRAY || r->element[2]->type != REDIS_REPLY_ARRAY) {
		ret = -EPROTO;
		snprintf(why, sizeof(why), "Redis answered the snapshot with something else");
		goto out;
	}
	set = r->element[1];
	for (i = 0; i < set->elements && !ret; i++)
		if (set->element[i]->type == REDIS_REPLY_STRING &&
		    entry_ok(set->element[i]->str, set->element[i]->len) && i < FLEET_DELTA_MAX) {
			char e[FLEET_ENTRY_MAX + 1];

			snprintf(e, sizeof(e), "%.*s", (int)set->element[i]->len,
				 set->element[i]->str);
			ret = fleet_entries_add(&next, e);
		}
	top = r->element[2];
	if (!fleet_field_text(r->element[0], "sha256", sha, sizeof(sha)))
		sha[0] = '\0';
	if (!fleet_field_text(r->element[0], "version", v, sizeof(v)))
		v[0] = '\0';
	if (!ret && sha[0] && strcmp(sha, f->sha)) {
		ret = fetch_payload(f, r->element[0], why, sizeof(why));
		if (!ret)
			ret = apply_download(f, &next, strtoull(v, NULL, 10), sha, why, sizeof(why));
	} else if (!ret) {
		/* The same version: rebuilt only if the set in force changed. */
		bool same = next.n == f->inforce.n;

		for (i = 0; same && i < next.n; i++)
			same = fleet_entries_has(&f->inforce, next.e[i]);
		if (!same && f->sha[0])
			ret = rebuild(f, &next, why, sizeof(why));
		else if (!same)
			ret = fleet_apply_add(&f->cfg, next.e, (int)next.n, why, sizeof(why));
	}
	if (ret == -EIO)
		goto out;
	if (ret == -EBADMSG)
		f->refused++;
	if (ret) {
		note_error(f, why, true);
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
	state_save(f);
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
	char why[WHY_LEN];
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
	f->sent_ms = now_ms();
}

static void try_connect(struct fleet_node *f)
{
	char why[WHY_LEN];
	int ret;

	ret = fleet_connect(&f->url, &f->c, why, sizeof(why));
	if (ret) {
		f->c = NULL;
		drop(f, why);
		return;
	}
	f->backoff_ms = FLEET_BACKOFF_MIN_MS;
	if (f->logged[0])
		log_info("fleet %s: connected to Redis again", f->ifname);
	f->logged[0] = '\0';
	if (!strncmp(f->last_error, "cannot reach", 12) || strstr(f->last_error, "lost"))
		f->last_error[0] = '\0';
	if (!catch_up(f))
		report(f);
}

void fleet_node_run(struct fleet_node *f, bool readable)
{
	redisReply *r = NULL;
	void *reply = NULL;
	int ret;

	if (!f->c) {
		if (now_ms() < f->retry_ms)
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
				char why[WHY_LEN];

				snprintf(why, sizeof(why), "Redis answered XREAD with %s", r->str);
				freeReplyObject(r);
				drop(f, why);
				return;
			}
			ret = apply_batch(f, r);
			freeReplyObject(r);
			if (ret) {
				drop(f, ret == -EIO ? "the connection to Redis was lost" :
					"Redis answered XREAD with something else");
				return;
			}
			report(f);
		}
	}
	if (f->waiting && now_ms() - f->sent_ms > FLEET_BLOCK_MS + FLEET_TIMEOUT_S * 1000) {
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
	__u64 now = now_ms(), due;

	if (!f)
		return -1;
	if (!f->c)
		due = f->retry_ms;
	else if (f->waiting)
		due = f->sent_ms + FLEET_BLOCK_MS + FLEET_TIMEOUT_S * 1000 + 1;
	else
		due = now;
	return due <= now ? 0 : due - now > 60000 ? 60000 : (int)(due - now);
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
	state_load(f);
	log_info("fleet %s: node %s on channel %s, from %s", f->ifname, f->node, f->channel,
		 f->last_id[0] ? f->last_id : "the newest full version");
	try_connect(f);
	*out = f;
	return 0;
fail:
	free(f);
	return ret;
}

void fleet_node_set_attach(struct fleet_node *f, const void *attach)
{
	if (f)
		f->cfg.attach = attach;
}

void fleet_node_stop(struct fleet_node *f)
{
	if (!f)
		return;
	if (f->c)
		redisFree(f->c);
	fleet_entries_free(&f->inforce);
	free(f);
}
