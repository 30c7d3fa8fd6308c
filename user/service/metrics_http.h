/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's metrics endpoint: GET /metrics over HTTP (libmicrohttpd),
 * answered by a render callback (the Prometheus text of user/service/metrics.c);
 * 404 for any other path, 405 for another method. Served by a thread of its
 * own, apart from the caller's loop: render runs on that thread, and reads
 * nothing the loop changes without a lock.
 */
#ifndef BLOOMXDP_METRICS_HTTP_H
#define BLOOMXDP_METRICS_HTTP_H

#include <stdio.h>
#include <sys/socket.h>

/*
 * Documented limits: connections open at once (in all; per client address),
 * seconds a connection may stay without a byte either way, bytes of one
 * request's headers, connections waiting to be accepted. A client over its
 * limit is closed at once; one that sends a header line now and then keeps
 * only its own slots.
 */
#define METRICS_MAX_CONNECTIONS		2048
#define METRICS_MAX_PER_CLIENT		64
#define METRICS_TIMEOUT_S		3
#define METRICS_CONNECTION_MEMORY	(16 * 1024)
#define METRICS_BACKLOG			1024
/* The descriptors the daemon asks for (RLIMIT_NOFILE): the connections and its own. */
#define METRICS_FILES			(METRICS_MAX_CONNECTIONS + 256)

/* Writes the whole exposition to out; 0, or -errno (the answer is then a 500). */
typedef int (*metrics_render_fn)(void *ctx, FILE *out);

struct metrics_server;

/* "127.0.0.1:9725" or "[::1]:9725": a literal address and a port. 0, or -EINVAL. */
int metrics_parse_address(const char *text, struct sockaddr_storage *sa, socklen_t *len);
/* Listens on address (as metrics_parse_address reads it) only. Prints the error. */
int metrics_server_start(const char *address, metrics_render_fn render, void *ctx,
			 struct metrics_server **out);
/* Closes the socket and every connection; NULL is fine. */
void metrics_server_stop(struct metrics_server *s);
/* Requests answered so far (any thread). */
unsigned long long metrics_server_requests(const struct metrics_server *s);

#endif
