// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A fleet node's state, report, versions and deltas (fleet/node_int.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "fleet/node_int.h"
#include "util/log.h"
#include "lists/savefile.h"
#include "kernel/state_dir.h"

__u64 fleet_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

__u64 fleet_wall_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000ULL + t.tv_nsec / 1000000;
}

void fleet_note_error(struct fleet_node *f, const char *why, bool count)
{
	snprintf(f->last_error, sizeof(f->last_error), "%s", why);
	if (count)
		f->errors++;
	/* Said once, not at every retry of an outage. */
	if (strcmp(f->logged, why))
		log_error("fleet %s: %s", f->ifname, why);
	snprintf(f->logged, sizeof(f->logged), "%s", why);
}

const char *const fleet_failure_names[FLEET_FAILURES] = {
	[FLEET_FAIL_PAYLOAD] = "payload", [FLEET_FAIL_SIGNATURE] = "signature",
	[FLEET_FAIL_STALE] = "stale", [FLEET_FAIL_STATE] = "state", [FLEET_FAIL_APPLY] = "apply",
};

int fleet_refuse(struct fleet_node *f, enum fleet_failure why)
{
	f->refusal = why;
	return -EBADMSG;
}

void fleet_note_failure(struct fleet_node *f, const char *why, int ret)
{
	if (ret == -EBADMSG)
		f->refused++;
	f->failures[ret == -EBADMSG ? f->refusal : FLEET_FAIL_APPLY]++;
	f->refusal = FLEET_FAIL_PAYLOAD;
	fleet_note_error(f, why, true);
}

/* An entry as a delta carries it: printable, no space, bounded (the node parses it again). */
bool fleet_entry_ok(const char *s, size_t len)
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

int fleet_state_save(struct fleet_node *f)
{
	struct state_dir sd;
	char *buf;
	size_t i, len = 0, cap = 256;
	int ret;

	/* Unreadable: kept as it is for the operator, never replaced by a state that forgot. */
	if (f->state_bad)
		return -EBADMSG;
	for (i = 0; i < f->inforce.n; i++)
		cap += strlen(f->inforce.e[i]) + 32;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	len += snprintf(buf, cap, STATE_MAGIC_LINE "\nid %s\nversion %llu\nsha256 %s\n"
			"delta_seq %llu\n", f->last_id[0] ? f->last_id : "-",
			(unsigned long long)f->version, f->sha[0] ? f->sha : "-",
			(unsigned long long)f->delta_seq);
	for (i = 0; i < f->inforce.n; i++)
		len += snprintf(buf + len, cap - len, "entry %llu %s\n",
				(unsigned long long)f->inforce.deadline[i], f->inforce.e[i]);
	ret = state_open(state_root(f->state_dir), f->ifname, true, &sd);
	if (!ret) {
		ret = state_write(&sd, f->state_name, buf, len);
		state_close(&sd);
	}
	free(buf);
	if (ret)
		log_warn("fleet %s: its place in the stream could not be saved (%s): a restart "
			 "reads the stream from the newest full version", f->ifname,
			 strerror(-ret));
	return ret;
}

/* "DEADLINE ENTRY" of the state file. */
static void state_entry(struct fleet_node *f, const char *text)
{
	const char *space = strchr(text, ' ');
	unsigned long long deadline;
	char *end;

	if (!space || f->inforce.n >= FLEET_INFORCE_MAX)
		return;
	errno = 0;
	deadline = strtoull(text, &end, 10);
	if (errno || end != space || !fleet_entry_ok(space + 1, strlen(space + 1)))
		return;
	fleet_entries_add(&f->inforce, space + 1, deadline);
}

/* A decimal u64, whole: 0, or -EINVAL. */
static int parse_u64(const char *text, __u64 *out)
{
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(text, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/*
 * Its state: where it is in the stream and the newest version and delta it
 * applied. None (a new node): it takes the channel's latest. There but
 * unreadable: it cannot tell an older version from a newer one, so it
 * applies nothing (the kernel enforces what it has) until the file is
 * removed (fleet/trust.h).
 */
void fleet_state_load(struct fleet_node *f)
{
	struct state_dir sd;
	char *buf = NULL, *line, *save;
	size_t len;
	int ret;

	ret = state_open(state_root(f->state_dir), f->ifname, false, &sd);
	if (ret == -ENOENT)
		return;
	if (!ret) {
		ret = state_read(&sd, f->state_name, FLEET_STATE_MAX, &buf, &len);
		state_close(&sd);
	}
	if (ret == -ENOENT)
		return;
	line = ret ? NULL : strtok_r(buf, "\n", &save);
	if (!line || strcmp(line, STATE_MAGIC_LINE))
		goto bad;
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct fleet_id id;

		if (!strncmp(line, "id ", 3) && !fleet_id_parse(line + 3, strlen(line + 3), &id))
			snprintf(f->last_id, sizeof(f->last_id), "%s", line + 3);
		else if (!strncmp(line, "version ", 8) && parse_u64(line + 8, &f->version))
			goto bad;
		else if (!strncmp(line, "delta_seq ", 10) && parse_u64(line + 10, &f->delta_seq))
			goto bad;
		else if (!strncmp(line, "sha256 ", 7) && strlen(line + 7) == 64)
			snprintf(f->sha, sizeof(f->sha), "%s", line + 7);
		else if (!strncmp(line, "entry ", 6))
			state_entry(f, line + 6);
	}
	free(buf);
	return;
bad:
	free(buf);
	f->state_bad = true;
	log_error("fleet %s: its state %s/%s/%s is unreadable (%s): it cannot tell an older "
		  "version from a newer one, so it applies none and enforces what it has; remove "
		  "the file to take the channel's latest version", f->ifname,
		  state_root(f->state_dir), f->ifname, f->state_name,
		  ret ? strerror(-ret) : "not a state of this bloomxdp");
}

/* The path of a file of its state directory. */
static const char *fleet_state_path(const struct fleet_node *f, const char *name, char *buf,
				    size_t len)
{
	snprintf(buf, len, "%s/%s/%s", state_root(f->state_dir), f->ifname, name);
	return buf;
}

/* ----------------------------------------------------------- the report */

void fleet_report(struct fleet_node *f)
{
	char k[FLEET_KEY_MAX], v[32], at[32], seen[32], d[32], r[32], e[32], n[32], pid[16];
	char ems[32], ds[32];
	char why[FLEET_WHY_LEN];
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
	snprintf(ds, sizeof(ds), "%llu", (unsigned long long)f->delta_seq);
	{
		const char *argv[] = { "HSET", k, "ifname", f->ifname, "host", f->host, "pid", pid,
				       "version", v, "sha256", f->sha, "stream_id", f->last_id,
				       "applied_at", at, "seen_at", seen, "deltas", d, "refused", r,
				       "errors", e, "inforce", n, "last_error", f->last_error,
				       "entry_ms", ems, "verify_key",
				       f->verify.pkey ? f->verify.fingerprint : "none",
				       "delta_seq", ds, NULL };

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
int fleet_fetch_payload(struct fleet_node *f, const redisReply *fields, char *why, size_t len)
{
	char key[FLEET_KEY_MAX + 24], prefix[FLEET_KEY_MAX], sha[SHA256_HEX], want[SHA256_HEX];
	char size_text[24];
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
		snprintf(why, len, "payload %s is gone (trimmed): waiting for a newer version",
			 key);
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
		snprintf(why, len, "no memory for a payload of %llu bytes",
			 (unsigned long long)size);
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
	ret = sha256_hex(data, size, sha);
	if (!ret && strcmp(sha, want)) {
		snprintf(why, len, "payload refused: %s has SHA-256 %.16s..., announced %.16s...",
			 key, sha, want);
		ret = -EBADMSG;
	}
	if (ret)
		goto out;
	/* Not fsync'd: it is fetched again if lost; the file's CRC32C catches a torn write. */
	fleet_state_path(f, f->download_name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		ret = errno ? -errno : -EIO;
		snprintf(why, len, "cannot write %.200s: %s", path, strerror(-ret));
		goto out;
	}
	/* Its header checked (bounded, the size it computes), then its bits against it. */
	{
		struct savefile_info info;
		char whyf[FLEET_WHY_LEN - 64];

		ret = savefile_read_header(path, &info, whyf, sizeof(whyf));
		if (ret) {
			snprintf(why, len, "payload refused: %s", whyf);
			ret = -EBADMSG;
		} else {
			ret = fleet_payload_plausible(&info, data + info.header_bytes, why, len);
		}
		if (ret)
			unlink(path);
	}
out:
	if (fd >= 0)
		close(fd);
	freeReplyObject(r);
	free(data);
	return ret;
}

/* The downloaded payload swapped in with the entries in force; kept as the applied one. */
int fleet_apply_download(struct fleet_node *f, const struct fleet_entries *inforce,
			  __u64 version, const char *sha, char *why, size_t len)
{
	char dl[PATH_MAX + 64], kept[PATH_MAX + 64];
	bool reattached;
	int ret;

	fleet_state_path(f, f->download_name, dl, sizeof(dl));
	ret = fleet_apply_payload(&f->cfg, dl, inforce, &reattached, why, len);
	f->reattached |= reattached;
	if (ret) {
		unlink(dl);
		return ret;
	}
	rename(dl, fleet_state_path(f, f->payload_name, kept, sizeof(kept)));
	f->version = version;
	snprintf(f->sha, sizeof(f->sha), "%s", sha);
	f->applied_at = time(NULL);
	f->applied++;
	log_info("fleet %s: version %llu applied", f->ifname, (unsigned long long)version);
	return 0;
}

/* A decimal u64 field of an announcement, whole: 0, or -EBADMSG. */
static int field_u64(const redisReply *fields, const char *name, __u64 *out)
{
	char text[24];

	if (!fleet_field_text(fields, name, text, sizeof(text)) || parse_u64(text, out))
		return -EBADMSG;
	return 0;
}

static int verify_full(struct fleet_node *f, const redisReply *fields, __u64 version,
		       const char *sha, __u64 size, char *why, size_t len);

/*
 * Whether a full version's announcement may be applied (fleet/trust.h): 0,
 * 1 when its payload is the one applied, -EBADMSG refused (why says it).
 */
int fleet_full_allowed(struct fleet_node *f, const redisReply *fields, __u64 *version,
		       char *why, size_t len)
{
	char sha[SHA256_HEX];
	__u64 size;

	if (field_u64(fields, "version", version) || field_u64(fields, "size", &size) ||
	    !fleet_field_text(fields, "sha256", sha, sizeof(sha)) || strlen(sha) != 64) {
		snprintf(why, len, "payload refused: an announcement without its version, size or "
			 "sha256");
		return -EBADMSG;
	}
	if (!strcmp(sha, f->sha) && *version <= f->version)
		return 1;
	if (f->state_bad) {
		snprintf(why, len, "version %llu refused: the node's state is unreadable (its log "
			 "says which file to remove)", (unsigned long long)*version);
		return fleet_refuse(f, FLEET_FAIL_STATE);
	}
	if (*version <= f->version) {
		snprintf(why, len, "version %llu refused: it is not newer than version %llu applied "
			 "(a rollback is published as a new version: publish --rollback N)",
			 (unsigned long long)*version, (unsigned long long)f->version);
		return fleet_refuse(f, FLEET_FAIL_STALE);
	}
	if (f->verify.pkey && verify_full(f, fields, *version, sha, size, why, len))
		return -EBADMSG;
	/* The payload applied, as a newer version (a rollback to it): only the number moves. */
	if (!strcmp(sha, f->sha)) {
		f->version = *version;
		f->applied_at = time(NULL);
		f->applied++;
		return 1;
	}
	return 0;
}

/* A full version's signature by verify_key: 0, or -EBADMSG with why said. */
static int verify_full(struct fleet_node *f, const redisReply *fields, __u64 version,
		       const char *sha, __u64 size, char *why, size_t len)
{
	struct fleet_signed s = { .channel = f->channel, .type = "full", .size = size };
	const redisReply *sig;

	s.version = version;
	s.sha256 = sha;
	if (fleet_field(fields, "rollback") && field_u64(fields, "rollback", &s.rollback))
		s.rollback = ~0ULL;	/* not a number: the signature cannot match */
	sig = fleet_field(fields, "sig");
	if (!sig || fleet_verify(&f->verify, &s, sig->str, sig->len)) {
		snprintf(why, len, "version %llu refused: %s the publisher's key %s (verify_key)",
			 (unsigned long long)version,
			 sig ? "its signature is not one of" : "it is not signed with",
			 f->verify.fingerprint);
		return fleet_refuse(f, FLEET_FAIL_SIGNATURE);
	}
	return 0;
}

/* The version an announcement names: fetched, checked, applied. */
static int apply_full(struct fleet_node *f, const redisReply *fields, char *why, size_t len)
{
	char sha[SHA256_HEX];
	__u64 version;
	int ret;

	ret = fleet_full_allowed(f, fields, &version, why, len);
	if (ret)
		return ret > 0 ? 0 : ret;	/* applied already, or refused */
	fleet_field_text(fields, "sha256", sha, sizeof(sha));
	ret = fleet_fetch_payload(f, fields, why, len);
	if (!ret)
		ret = fleet_apply_download(f, &f->inforce, version, sha, why, len);
	return ret;
}

/* The applied payload again with another set in force: a del undone by rebuilding. */
int fleet_rebuild(struct fleet_node *f, const struct fleet_entries *inforce, char *why,
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
	ret = fleet_apply_payload(&f->cfg, fleet_state_path(f, f->payload_name, kept, sizeof(kept)),
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
		if (*n == FLEET_DELTA_MAX || !fleet_entry_ok(tok, strlen(tok)))
			return -EBADMSG;
		(*argv)[(*n)++] = tok;
	}
	return *n ? 0 : -EBADMSG;
}

/*
 * Whether a delta may be applied: its sequence number (seq) after the last
 * one applied, and with verify_key, signed. 0, or -EBADMSG (why says it).
 */
static int delta_allowed(struct fleet_node *f, bool add, const redisReply *fields,
			 __u64 deadline, __u64 *seq, char *why, size_t len)
{
	struct fleet_signed s = { .channel = f->channel, .type = add ? "add" : "del",
				  .expires = add ? deadline : 0 };
	const redisReply *sig = fleet_field(fields, "sig"), *e = fleet_field(fields, "entries");
	bool has_seq = fleet_field(fields, "seq");

	*seq = 0;
	if (f->state_bad) {
		snprintf(why, len, "a delta refused: the node's state is unreadable (its log says "
			 "which file to remove)");
		return fleet_refuse(f, FLEET_FAIL_STATE);
	}
	if (has_seq && field_u64(fields, "seq", seq)) {
		snprintf(why, len, "a delta refused: its seq is not a number");
		return -EBADMSG;
	}
	if (has_seq && *seq <= f->delta_seq) {
		snprintf(why, len, "a delta refused: its seq %llu is not after %llu, the last "
			 "applied (a replay)", (unsigned long long)*seq,
			 (unsigned long long)f->delta_seq);
		return fleet_refuse(f, FLEET_FAIL_STALE);
	}
	if (!f->verify.pkey)
		return 0;
	s.seq = *seq;
	s.entries = e ? e->str : "";
	if (!has_seq || !sig || fleet_verify(&f->verify, &s, sig->str, sig->len)) {
		snprintf(why, len, "a delta (%s) refused: %s the publisher's key %s (verify_key)",
			 s.type, sig && has_seq ? "its signature is not one of" :
			 "it is not signed with", f->verify.fingerprint);
		return fleet_refuse(f, FLEET_FAIL_SIGNATURE);
	}
	return 0;
}

static int apply_delta(struct fleet_node *f, bool add, const redisReply *fields, char *why,
		       size_t len)
{
	struct fleet_entries next = {};
	char *text = NULL, **argv = NULL, expires[24], *end;
	int i, n, ret, known = 0;
	__u64 deadline = 0, seq = 0;

	if (fleet_field_text(fields, "expires", expires, sizeof(expires))) {
		deadline = strtoull(expires, &end, 10);
		if (*end)
			deadline = 0;
	}
	ret = delta_entries(fields, &text, &argv, &n);
	if (ret) {
		snprintf(why, len, "a delta refused: its entries are not a list of entries");
		goto out;
	}
	ret = delta_allowed(f, add, fields, deadline, &seq, why, len);
	if (ret)
		goto out;
	if (add && f->inforce.n + n > FLEET_INFORCE_MAX) {
		snprintf(why, len, "a delta refused: more than %d entries would be in force",
			 FLEET_INFORCE_MAX);
		ret = -E2BIG;
		goto out;
	}
	/* A deadline already past (a node catching up): nothing to add. */
	if (add && deadline && deadline <= (__u64)time(NULL))
		goto out;
	if (add) {
		ret = fleet_apply_add(&f->cfg, argv, n, why, len);
		for (i = 0; !ret && i < n; i++)
			ret = fleet_entries_add(&f->inforce, argv[i], deadline);
		goto out;
	}
	for (i = 0; i < (int)f->inforce.n && !ret; i++)
		ret = fleet_entries_add(&next, f->inforce.e[i], f->inforce.deadline[i]);
	for (i = 0; i < n && !ret; i++)
		known += fleet_entries_remove(&next, argv[i]);
	if (!ret && known)
		ret = fleet_rebuild(f, &next, why, len);
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
	if (!ret || ret == -ENOENT)
		f->delta_seq = seq > f->delta_seq ? seq : f->delta_seq;
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
	char type[8], why[FLEET_WHY_LEN] = "";
	int ret;

	f->refusal = FLEET_FAIL_PAYLOAD;
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
	if (ret) {
		fleet_note_failure(f, why, ret);
	} else {
		f->last_error[0] = '\0';
		f->logged[0] = '\0';
	}
	/* When the entry took effect (or was refused): the time from its announcement (bench). */
	f->entry_ms = fleet_wall_ms();
	return 0;
}

/* An XREAD reply: [[stream, [[id, [field, value...]]...]]]; nil when it timed out. */
int fleet_apply_batch(struct fleet_node *f, const redisReply *r)
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
		fleet_state_save(f);
	}
	return 0;
}

/* ------------------------------------------------- the signed set in force */

/* "ENTRY=DEADLINE ..." (the signed set's text) into next; those past their deadline left out. */
static int signed_entries(const char *text, struct fleet_entries *next)
{
	char *copy = strdup(text), *p, *tok, *save, *eq;
	__u64 deadline;
	int ret = copy ? 0 : -ENOMEM;

	for (p = copy; !ret && (tok = strtok_r(p, " ", &save)); p = NULL) {
		eq = strrchr(tok, '=');
		if (!eq || parse_u64(eq + 1, &deadline) || !fleet_entry_ok(tok, eq - tok) ||
		    next->n >= FLEET_INFORCE_MAX) {
			ret = -EBADMSG;
			break;
		}
		*eq = '\0';
		if (!deadline || deadline > (__u64)time(NULL))
			ret = fleet_entries_add(next, tok, deadline);
	}
	free(copy);
	return ret;
}

/*
 * With verify_key, the set in force of a snapshot: the copy the publisher
 * signed (bloomxdp:<channel>:inforce_signed: seq, entries, sig), not the
 * hash any writer can change. unsigned_n: the entries of that hash. A copy
 * missing (while the hash has entries), not signed, older than the last delta
 * applied or malformed is refused (counted, said): next is then the node's
 * own set, unchanged. 0, or -ENOMEM.
 */
int fleet_signed_inforce(struct fleet_node *f, const redisReply *h, size_t unsigned_n,
			 struct fleet_entries *next)
{
	struct fleet_signed s = { .channel = f->channel, .type = "inforce" };
	const redisReply *e = fleet_field(h, "entries"), *sig = fleet_field(h, "sig");
	char refused[FLEET_WHY_LEN];
	size_t i;
	int ret = 0;

	if (!e && !unsigned_n)
		return 0;	/* no delta was ever published */
	if (!e || !sig || field_u64(h, "seq", &s.seq) || memchr(e->str, 0, e->len) ||
	    e->len > (size_t)FLEET_INFORCE_MAX * (FLEET_ENTRY_MAX + 24)) {
		snprintf(refused, sizeof(refused), "the set in force refused: it has no signed "
			 "copy (publish --add or --del with --sign-key writes one)");
		fleet_refuse(f, FLEET_FAIL_SIGNATURE);
		goto refuse;
	}
	s.entries = e->str;
	if (fleet_verify(&f->verify, &s, sig->str, sig->len)) {
		snprintf(refused, sizeof(refused), "the set in force refused: its signature is "
			 "not one of the publisher's key %s (verify_key)", f->verify.fingerprint);
		fleet_refuse(f, FLEET_FAIL_SIGNATURE);
		goto refuse;
	}
	if (s.seq < f->delta_seq) {
		snprintf(refused, sizeof(refused), "the set in force refused: it is of delta %llu, "
			 "older than delta %llu applied (a replay)", (unsigned long long)s.seq,
			 (unsigned long long)f->delta_seq);
		fleet_refuse(f, FLEET_FAIL_STALE);
		goto refuse;
	}
	ret = signed_entries(e->str, next);
	if (ret == -EBADMSG) {
		snprintf(refused, sizeof(refused), "the set in force refused: its signed copy is "
			 "not a list of ENTRY=DEADLINE");
		fleet_refuse(f, FLEET_FAIL_PAYLOAD);
		goto refuse;
	}
	if (!ret)
		f->delta_seq = s.seq;
	return ret;
refuse:
	fleet_entries_free(next);
	fleet_note_failure(f, refused, -EBADMSG);
	for (i = 0; i < f->inforce.n && !ret; i++)
		ret = fleet_entries_add(next, f->inforce.e[i], f->inforce.deadline[i]);
	return ret;
}
