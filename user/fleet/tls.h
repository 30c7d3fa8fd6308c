/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rediss:// for hiredis 0.14, which has no TLS (Debian 12): the TCP
 * connection and its TLS session (OpenSSL) are ours, and hiredis is given one
 * end of a socketpair (redisConnectFd). A bridge thread per connection pumps
 * bytes between the other end and the TLS session, both non-blocking, in one
 * poll(): hiredis's side stays an ordinary fd the daemon's loop can poll.
 *
 * The handshake happens before the thread starts, in the caller, within
 * FLEET_TIMEOUT_S: a refused certificate is said there. The certificate is
 * always verified (the system's CAs, or u->cacert), its name or address
 * checked against the URL's host, SNI sent for a name, TLS 1.2 at least.
 *
 * The thread ends when hiredis closes its end (redisFree) and is joined by
 * fleet_tls_close(); when the TLS side ends first, hiredis reads EOF and what
 * it writes is discarded until it closes. At most FLEET_TLS_MAX at once.
 */
#ifndef BLOOMXDP_FLEET_TLS_H
#define BLOOMXDP_FLEET_TLS_H

#include <stddef.h>

#include "fleet/url.h"

#define FLEET_TLS_MAX	4

struct fleet_tls;

/*
 * Connects to u->host:u->port, does the TLS handshake, starts the bridge:
 * *app_fd is hiredis's end. 0, or -errno with why in one line (-EACCES: the
 * certificate refused; -EPROTO: no TLS there; -ECONNREFUSED, -ETIMEDOUT...).
 */
int fleet_tls_open(const struct fleet_url *u, struct fleet_tls **out, int *app_fd, char *why,
		   size_t len);
/* After hiredis closed app_fd (redisFree): the thread joined, everything freed. */
void fleet_tls_close(struct fleet_tls *t);

#endif
