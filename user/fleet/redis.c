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
