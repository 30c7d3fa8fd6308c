// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fleet's Redis URLs (url.h). */
#define _GNU_SOURCE	/* memrchr */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/url.h"
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
