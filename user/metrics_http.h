/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's metrics endpoint: GET /metrics over HTTP (libmicrohttpd),
 * answered by a render callback (the Prometheus text of user/metrics.c);
 * 404 for any other path, 405 for another method. Runs in the caller's
 * event loop: no thread, so render reads the daemon's state without locks.
 */
#ifndef BLOOMXDP_METRICS_HTTP_H
#define BLOOMXDP_METRICS_HTTP_H

#include <stdio.h>
#include <sys/socket.h>

/* Writes the whole exposition to out; 0, or -errno (the answer is then a 500). */
typedef int (*metrics_render_fn)(void *ctx, FILE *out);

struct metrics_server;

/* "127.0.0.1:9725" or "[::1]:9725": a literal address and a port. 0, or -EINVAL. */
int metrics_parse_address(const char *text, struct sockaddr_storage *sa, socklen_t *len);
/* Listens on address (as metrics_parse_address reads it) only. Prints the error. */
int metrics_server_start(const char *address, metrics_render_fn render, void *ctx,
			 struct metrics_server **out);
/* The descriptor to poll for input, then call metrics_server_run(). */
int metrics_server_fd(const struct metrics_server *s);
/* Milliseconds until metrics_server_run() is due anyway; -1: none. */
int metrics_server_timeout_ms(const struct metrics_server *s);
void metrics_server_run(struct metrics_server *s);
/* Closes the socket and every connection; NULL is fine. */
void metrics_server_stop(struct metrics_server *s);
/* Requests answered so far. */
unsigned long long metrics_server_requests(const struct metrics_server *s);

#endif
