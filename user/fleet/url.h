/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The URL of the fleet's Redis: what the connection (redis.c) and its TLS (tls.c) read of it. */
#ifndef BLOOMXDP_FLEET_URL_H
#define BLOOMXDP_FLEET_URL_H

#include <stdbool.h>
#include <stddef.h>

/* A parsed redis:// URL. */
struct fleet_url {
	char host[256];
	int port;
	char unix_path[108];	/* unix://: a socket path instead of host and port */
	char user[128];		/* "": none (AUTH PASSWORD) */
	char pass[256];		/* "": no AUTH */
	int db;
	bool tls;		/* rediss:// (tls.h) */
	char cacert[256];	/* rediss://...?cacert=PATH: the CAs, else the system's */
};

/*
 * redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] (HOST a name, an IPv4 address or
 * [IPv6]; USER and PASSWORD may be %-encoded), or
 * rediss://...[?cacert=PATH] (TLS; PATH absolute, a PEM file of CAs), or
 * unix://[[USER]:PASSWORD@]/PATH/TO/SOCKET[?db=DB] (a socket reached from any
 * network namespace). Prints the error; -EINVAL.
 */
int fleet_url_parse(const char *text, struct fleet_url *u);
/* HOST:PORT/DB (and ?cacert=), without the password: for messages. */
const char *fleet_url_text(const struct fleet_url *u, char *buf, size_t len);

#endif
