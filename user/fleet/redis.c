// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fleet's Redis connection and helpers (fleet/redis.h). */
#define _GNU_SOURCE	/* memrchr */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "fleet/redis.h"
#include "fleet/tls.h"
#include "util/log.h"

#define CACERT_QUERY	"?cacert="

/* %XX decoded into out (len bytes at most): 0, or -EINVAL. */
static int url_decode(const char *s, size_t n, char *out, size_t len)
{
	size_t i, o = 0;
	unsigned int v;

	for (i = 0; i < n; i++) {
		if (o + 1 >= len)
			return -EINVAL;
		if (s[i] == '%') {
			if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) ||
			    !isxdigit((unsigned char)s[i + 2]) ||
			    sscanf(s + i + 1, "%2x", &v) != 1 || !v)
				return -EINVAL;
			out[o++] = (char)v;
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return 0;
}

/* USER:PASSWORD@ or :PASSWORD@ of [p, at) into u. */
static int parse_userinfo(const char *p, const char *at, struct fleet_url *u)
{
	const char *colon = memchr(p, ':', at - p);

	if (!colon || url_decode(p, colon - p, u->user, sizeof(u->user)) ||
	    url_decode(colon + 1, at - colon - 1, u->pass, sizeof(u->pass))) {
		log_error("redis URL: expected USER:PASSWORD@ or :PASSWORD@ before the host "
			  "(%%-encode ':', '@' and '/' in them)");
		return -EINVAL;
	}
	return 0;
}

/* unix://[[USER]:PASSWORD@]/PATH[?db=N] */
static int parse_unix(const char *p, struct fleet_url *u)
{
	const char *at = strchr(p, '@'), *slash = strchr(p, '/'), *q;
	char *tail;
	size_t n;
	long v;

	if (at && slash && at < slash) {
		if (parse_userinfo(p, at, u))
			return -EINVAL;
		p = at + 1;
	}
	q = strstr(p, "?db=");
	n = q ? (size_t)(q - p) : strlen(p);
	if (p[0] != '/' || n >= sizeof(u->unix_path)) {
		log_error("redis URL: unix:// takes an absolute socket path of at most %zu bytes",
			  sizeof(u->unix_path) - 1);
		return -EINVAL;
	}
	memcpy(u->unix_path, p, n);
	if (q) {
		errno = 0;
		v = strtol(q + 4, &tail, 10);
		if (errno || *tail || v < 0 || v > 65535) {
			log_error("redis URL: ?db=%s: expected a number", q + 4);
			return -EINVAL;
		}
		u->db = (int)v;
	}
	return 0;
}

/* ?cacert=PATH of rediss:// (PATH %-decoded, absolute) into u; the URL before it into head. */
static int parse_cacert(const char *text, struct fleet_url *u, char *head, size_t len)
{
	const char *q = strstr(text, CACERT_QUERY), *path;

	if (strlen(text) >= len) {
		log_error("redis URL: longer than %zu bytes", len - 1);
		return -EINVAL;
	}
	if (!q) {
		strcpy(head, text);
		return 0;
	}
	if (!u->tls) {
		log_error("redis URL: " CACERT_QUERY " is for rediss:// (TLS) only");
		return -EINVAL;
	}
	path = q + strlen(CACERT_QUERY);
	if (url_decode(path, strlen(path), u->cacert, sizeof(u->cacert)) || u->cacert[0] != '/') {
		log_error("redis URL: " CACERT_QUERY " takes an absolute path of at most %zu bytes "
			  "(a PEM file of CA certificates)", sizeof(u->cacert) - 1);
		return -EINVAL;
	}
	memcpy(head, text, q - text);
	head[q - text] = '\0';
	return 0;
}

int fleet_url_parse(const char *text, struct fleet_url *u)
{
	const char *p, *at, *host, *end, *colon, *slash;
	char port[16], head[4096], *tail;	/* a %-encoded USER:PASSWORD may be long */
	size_t n;
	long v;

	memset(u, 0, sizeof(*u));
	u->port = 6379;
	if (!strncmp(text, "unix://", 7))
		return parse_unix(text + 7, u);
	if (!strncmp(text, "redis://", 8)) {
		p = text + 8;
	} else if (!strncmp(text, "rediss://", 9)) {
		p = text + 9;
		u->tls = true;
	} else {
		/* Not echoed: it may hold a password. */
		log_error("redis URL: expected redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB] or "
			  "unix://[[USER]:PASSWORD@]/PATH");
		return -EINVAL;
	}
	if (parse_cacert(p, u, head, sizeof(head)))
		return -EINVAL;
	p = head;
	slash = strchr(p, '/');
	at = memrchr(p, '@', slash ? (size_t)(slash - p) : strlen(p));
	if (at) {
		if (parse_userinfo(p, at, u))
			return -EINVAL;
		p = at + 1;
	}
	host = p;
	end = slash ? slash : p + strlen(p);
	if (*host == '[') {
		colon = memchr(host, ']', end - host);
		if (!colon)
			goto bad_host;
		n = colon - host - 1;
		host++;
		colon = colon + 1 < end && colon[1] == ':' ? colon + 1 : NULL;
	} else {
		colon = memchr(host, ':', end - host);
		n = (colon ? colon : end) - host;
	}
	if (!n || n >= sizeof(u->host))
		goto bad_host;
	memcpy(u->host, host, n);
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)u->host[i]) && !strchr(".-_:", u->host[i]))
			goto bad_host;
	if (colon) {
		n = end - colon - 1;
		if (!n || n >= sizeof(port))
			goto bad_port;
		memcpy(port, colon + 1, n);
		port[n] = '\0';
		errno = 0;
		v = strtol(port, &tail, 10);
		if (errno || *tail || v < 1 || v > 65535)
			goto bad_port;
		u->port = (int)v;
	}
	if (slash && slash[1]) {
		errno = 0;
		v = strtol(slash + 1, &tail, 10);
		if (errno || *tail || v < 0 || v > 65535) {
			log_error("redis URL: database '%s': expected a number", slash + 1);
			return -EINVAL;
		}
		u->db = (int)v;
	}
	return 0;
bad_host:
	/* The host only: the URL may hold a password. */
	log_error("redis URL: host '%.*s': expected a host name, an IPv4 address or [IPv6]",
		  (int)(end - p > 255 ? 255 : end - p), p);
	return -EINVAL;
bad_port:
	log_error("redis URL: expected a port from 1 to 65535 after the host");
	return -EINVAL;
}

const char *fleet_url_text(const struct fleet_url *u, char *buf, size_t len)
{
	if (u->unix_path[0]) {
		snprintf(buf, len, "unix://%s?db=%d", u->unix_path, u->db);
		return buf;
	}
	snprintf(buf, len, "%s%s%s%s:%d/%d%s%s", u->tls ? "rediss://" : "redis://",
		 strchr(u->host, ':') ? "[" : "", u->host, strchr(u->host, ':') ? "]" : "",
		 u->port, u->db, u->cacert[0] ? CACERT_QUERY : "", u->cacert);
	return buf;
}

bool fleet_channel_valid(const char *channel)
{
	size_t i, n = strlen(channel);

	if (!n || n >= FLEET_CHANNEL_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)channel[i]) && !strchr("_-.", channel[i]))
			return false;
	return true;
}

const char *fleet_key(char *buf, size_t len, const char *channel, const char *what)
{
	snprintf(buf, len, FLEET_KEY_ROOT "%s:%s", channel, what);
	return buf;
}

int fleet_command(struct redisContext *c, int argc, const char **argv, const size_t *argvlen,
		  struct redisReply **reply, char *why, size_t len)
{
	redisReply *r;

	*reply = NULL;
	r = redisCommandArgv(c, argc, argv, argvlen);
	if (!r) {
		snprintf(why, len, "the connection to Redis was lost (%s)",
			 c->errstr[0] ? c->errstr : "no reply");
		return -EIO;
	}
	if (r->type == REDIS_REPLY_ERROR) {
		snprintf(why, len, "Redis answered %s to %s", r->str ? r->str : "an error",
			 argv[0]);
		freeReplyObject(r);
		return -EPROTO;
	}
	*reply = r;
	return 0;
}

int fleet_cmd(struct redisContext *c, struct redisReply **reply, char *why, size_t len,
	      const char *const *argv)
{
	const char *args[32];
	size_t lens[32];
	int n;

	for (n = 0; argv[n] && n < 32; n++) {
		args[n] = argv[n];
		lens[n] = strlen(argv[n]);
	}
	return fleet_command(c, n, args, lens, reply, why, len);
}

/* AUTH and SELECT: an error that says what to change. */
static int handshake(redisContext *c, const struct fleet_url *u, char *why, size_t len)
{
	char db[16], where[600];
	redisReply *r = NULL;
	int ret = 0;

	fleet_url_text(u, where, sizeof(where));
	if (u->pass[0]) {
		const char *with_user[] = { "AUTH", u->user, u->pass, NULL };
		const char *plain[] = { "AUTH", u->pass, NULL };

		ret = fleet_cmd(c, &r, why, len, u->user[0] ? with_user : plain);
		if (ret == -EPROTO) {
			snprintf(why, len, "Redis at %s refused the %s: check the URL's "
				 "%sPASSWORD (its requirepass, or the ACL user's)", where,
				 u->user[0] ? "user and password" : "password",
				 u->user[0] ? "USER:" : ":");
			return -EACCES;
		}
		freeReplyObject(r);
		if (ret)
			return ret;
	}
	snprintf(db, sizeof(db), "%d", u->db);
	{
		const char *sel[] = { "SELECT", db, NULL };

		ret = fleet_cmd(c, &r, why, len, sel);
	}
	if (ret == -EPROTO && strstr(why, "NOAUTH")) {
		snprintf(why, len, "Redis at %s requires a password (NOAUTH): give it in the URL, "
			 "%s://:PASSWORD@HOST:PORT (or USER:PASSWORD@ for an ACL user)", where,
			 u->tls ? "rediss" : "redis");
		return -EACCES;
	}
	freeReplyObject(r);
	return ret;
}

/* The TLS bridge of each rediss:// context (fleet/tls.h): its own thread, ended on close. */
static struct {
	redisContext *c;
	struct fleet_tls *t;
} bridges[FLEET_TLS_MAX];

/* A TLS connection given to hiredis: the context, or NULL with why. */
static redisContext *connect_tls(const struct fleet_url *u, int *ret, char *why, size_t len)
{
	struct fleet_tls *t;
	redisContext *c;
	int fd, i;

	*ret = fleet_tls_open(u, &t, &fd, why, len);
	if (*ret)
		return NULL;
	c = redisConnectFd(fd);
	for (i = 0; c && !c->err && i < FLEET_TLS_MAX; i++)
		if (!bridges[i].c) {
			bridges[i].c = c;
			bridges[i].t = t;
			return c;
		}
	/* fleet_tls_open() bounds them to FLEET_TLS_MAX: out of memory. */
	if (c)
		redisFree(c);
	else
		close(fd);
	fleet_tls_close(t);
	snprintf(why, len, "out of memory");
	*ret = -ENOMEM;
	return NULL;
}

void fleet_disconnect(redisContext *c)
{
	int i;

	if (!c)
		return;
	redisFree(c);
	for (i = 0; i < FLEET_TLS_MAX; i++)
		if (bridges[i].c == c) {
			fleet_tls_close(bridges[i].t);
			bridges[i].c = NULL;
			bridges[i].t = NULL;
		}
}

int fleet_connect(const struct fleet_url *u, struct redisContext **out, char *why, size_t len)
{
	struct timeval tv = { .tv_sec = FLEET_TIMEOUT_S };
	char where[600];
	redisContext *c;
	int ret;

	*out = NULL;
	fleet_url_text(u, where, sizeof(where));
	if (u->tls) {
		c = connect_tls(u, &ret, why, len);
		if (!c)
			return ret;
	} else {
		c = u->unix_path[0] ? redisConnectUnixWithTimeout(u->unix_path, tv) :
				      redisConnectWithTimeout(u->host, u->port, tv);
	}
	if (!c) {
		snprintf(why, len, "%s: out of memory", where);
		return -ENOMEM;
	}
	if (c->err) {
		ret = c->err == REDIS_ERR_IO && errno ? -errno : -ECONNREFUSED;
		snprintf(why, len, "cannot reach Redis at %s: %s", where, c->errstr);
		fleet_disconnect(c);
		return ret;
	}
	redisSetTimeout(c, tv);
	/* A dead peer noticed on TCP (a unix socket has none, and c would be marked failed). */
	if (!u->unix_path[0] && !u->tls)
		redisEnableKeepAlive(c);
	ret = handshake(c, u, why, len);
	if (ret == -EIO && !u->tls && !u->unix_path[0])
		/* A TLS port closes on the first bytes that are not a ClientHello. */
		snprintf(why, len, "Redis at %s closed the connection at its first command: "
			 "if that is a TLS port (tls-port), use rediss://", where);
	if (ret) {
		fleet_disconnect(c);
		return ret;
	}
	*out = c;
	return 0;
}

int fleet_id_parse(const char *text, size_t len, struct fleet_id *id)
{
	char buf[FLEET_ID_MAX], *dash, *end;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	dash = strchr(buf, '-');
	if (!dash || !isdigit((unsigned char)buf[0]) || !isdigit((unsigned char)dash[1]))
		return -EINVAL;
	*dash = '\0';
	errno = 0;
	id->ms = strtoull(buf, &end, 10);
	if (errno || *end)
		return -EINVAL;
	id->seq = strtoull(dash + 1, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int fleet_id_cmp(const struct fleet_id *a, const struct fleet_id *b)
{
	if (a->ms != b->ms)
		return a->ms < b->ms ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

const struct redisReply *fleet_field(const struct redisReply *pairs, const char *name)
{
	size_t i;

	if (!pairs || pairs->type != REDIS_REPLY_ARRAY)
		return NULL;
	for (i = 0; i + 1 < pairs->elements; i += 2) {
		const redisReply *k = pairs->element[i], *v = pairs->element[i + 1];

		if (k->type == REDIS_REPLY_STRING && k->len == strlen(name) &&
		    !memcmp(k->str, name, k->len) && v->type == REDIS_REPLY_STRING)
			return v;
	}
	return NULL;
}

const char *fleet_field_text(const struct redisReply *pairs, const char *name, char *buf,
			     size_t len)
{
	const redisReply *v = fleet_field(pairs, name);

	if (!v || v->len >= len || memchr(v->str, 0, v->len))
		return NULL;
	memcpy(buf, v->str, v->len);
	buf[v->len] = '\0';
	return buf;
}

/* --redis and --channel, checked, and a connection: the error printed. */
int fleet_open(const char *url_text, const char *channel, struct redisContext **c)
{
	struct fleet_url url;
	char why[512];
	int ret;

	if (!url_text || !channel) {
		log_error("give --redis redis://[USER:PASSWORD@]HOST[:PORT][/DB] and --channel "
			  "NAME");
		return -EINVAL;
	}
	if (!fleet_channel_valid(channel)) {
		log_error("--channel '%s': use 1 to %d of a-z, A-Z, 0-9, '_', '-' and '.'", channel,
			  FLEET_CHANNEL_MAX - 1);
		return -EINVAL;
	}
	ret = fleet_url_parse(url_text, &url);
	if (!ret)
		ret = fleet_connect(&url, c, why, sizeof(why));
	if (ret && ret != -EINVAL)
		log_error("%s", why);
	return ret;
}
