// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rediss:// through a socketpair and a bridge thread (fleet/tls.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "fleet/redis.h"
#include "fleet/tls.h"
#include "fleet/url.h"

/* Bytes in flight each way: a TLS record's worth. */
#define BRIDGE_BUF	16384

struct pipe_buf {
	char data[BRIDGE_BUF];
	size_t off, len;
};

struct fleet_tls {
	SSL_CTX *ctx;
	SSL *ssl;
	int tcp_fd;
	int side_fd;		/* the bridge's end of the socketpair */
	pthread_t thread;
	bool started;
	struct pipe_buf up;	/* hiredis -> Redis */
	struct pipe_buf down;	/* Redis -> hiredis */
};

static int live;	/* bridges open (main thread only) */

static long ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Waits for events on fd until the deadline: 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short events, const struct timespec *deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	long left;
	int n;

	do {
		left = ms_left(deadline);
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)left);
	} while (n < 0 && errno == EINTR);
	return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

/* A non-blocking TCP connection to host:port within the deadline: the fd, or -errno. */
static int tcp_connect(const struct fleet_url *u, const struct timespec *deadline)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *a;
	int fd = -1, ret, err = -ECONNREFUSED, on = 1, idle = 15, intvl = 5, cnt = 3;
	socklen_t elen = sizeof(int);
	char port[8];

	snprintf(port, sizeof(port), "%d", u->port);
	ret = getaddrinfo(u->host, port, &hints, &res);
	if (ret)
		return -EADDRNOTAVAIL;	/* said as "cannot resolve" */
	for (a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    a->ai_protocol);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) && errno != EINPROGRESS) {
			err = -errno;
		} else if (!(err = wait_fd(fd, POLLOUT, deadline)) &&
			   !getsockopt(fd, SOL_SOCKET, SO_ERROR, &ret, &elen)) {
			err = -ret;
			if (!ret)
				break;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return err;
	/* A dead peer noticed as hiredis would on its own TCP (redisEnableKeepAlive). */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	return fd;
}

/* The context: verification on, the CAs, TLS 1.2 at least. */
static int tls_setup(struct fleet_tls *t, const struct fleet_url *u, char *why, size_t len)
{
	unsigned char ip[16];
	bool is_ip = inet_pton(AF_INET, u->host, ip) == 1 || inet_pton(AF_INET6, u->host, ip) == 1;

	t->ctx = SSL_CTX_new(TLS_client_method());
	if (!t->ctx || !SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION))
		goto nomem;
	SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
	if (u->cacert[0] ? !SSL_CTX_load_verify_locations(t->ctx, u->cacert, NULL) :
			   !SSL_CTX_set_default_verify_paths(t->ctx)) {
		snprintf(why, len, "cannot read the CA certificates %s: give a readable PEM file "
			 "with ?cacert=PATH", u->cacert[0] ? u->cacert : "of the system");
		return -ENOENT;	/* not -EINVAL: fleet_open() says it */
	}
	/* Partial writes: the bridge writes what it has, moving its buffer. */
	SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	t->ssl = SSL_new(t->ctx);
	if (!t->ssl || !SSL_set_fd(t->ssl, t->tcp_fd))
		goto nomem;
	/* An address is checked as one (SNI carries names only); a name as a name. */
	if (is_ip ? !X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), u->host) :
		    !SSL_set1_host(t->ssl, u->host) || !SSL_set_tlsext_host_name(t->ssl, u->host))
		goto nomem;
	return 0;
nomem:
	snprintf(why, len, "cannot set up TLS (OpenSSL: %s)",
		 ERR_reason_error_string(ERR_get_error()) ?: "out of memory");
	return -ENOMEM;
}

/* The handshake within the deadline; SIGPIPE held back (a peer closing mid-handshake). */
static int tls_handshake(struct fleet_tls *t, const char *where, const struct timespec *deadline,
			 char *why, size_t len)
{
	sigset_t pipe_set, old, pending;
	struct timespec zero = {};
	int ret = 0, r, e;
	long verify;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	ERR_clear_error();
	while ((r = SSL_connect(t->ssl)) != 1) {
		e = SSL_get_error(t->ssl, r);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			ret = wait_fd(t->tcp_fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
				      deadline);
			if (ret) {
				snprintf(why, len, "the TLS handshake with Redis at %s timed out: "
					 "is it its TLS port (tls-port)?", where);
				break;
			}
			continue;
		}
		verify = SSL_get_verify_result(t->ssl);
		if (verify != X509_V_OK) {
			snprintf(why, len, "the certificate of Redis at %s is refused: %s; %s",
				 where, X509_verify_cert_error_string(verify),
				 verify == X509_V_ERR_HOSTNAME_MISMATCH ||
				 verify == X509_V_ERR_IP_ADDRESS_MISMATCH ?
				 "connect by a name or address the certificate holds" :
				 "give the CA that signed it with ?cacert=PATH");
			ret = -EACCES;
		} else {
			snprintf(why, len, "the TLS handshake with Redis at %s failed (%s): is it "
				 "its TLS port (tls-port)? redis:// for a port without TLS", where,
				 ERR_reason_error_string(ERR_peek_last_error()) ?:
				 "the connection was closed");
			ret = -EPROTO;
		}
		break;
	}
	if (!sigpending(&pending) && sigismember(&pending, SIGPIPE) && !sigismember(&old, SIGPIPE))
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * One step of TLS I/O: > 0 bytes moved, 0 nothing now (*want set to the
 * POLL event it waits for on TCP), -1 the TLS side is over.
 */
static int tls_io(struct fleet_tls *t, bool writing, short *want)
{
	struct pipe_buf *b = writing ? &t->up : &t->down;
	int n, e;

	ERR_clear_error();
	n = writing ? SSL_write(t->ssl, b->data + b->off, (int)b->len) :
		      SSL_read(t->ssl, b->data, sizeof(b->data));
	if (n > 0) {
		if (writing) {
			b->off += n;
			b->len -= n;
			if (!b->len)
				b->off = 0;
		} else {
			b->off = 0;
			b->len = n;
		}
		return n;
	}
	e = SSL_get_error(t->ssl, n);
	if (e == SSL_ERROR_WANT_READ)
		*want |= POLLIN;
	else if (e == SSL_ERROR_WANT_WRITE)
		*want |= POLLOUT;
	else
		return -1;
	return 0;
}

/* The pump: until hiredis closes its end. Every read and write is non-blocking. */
static void *bridge(void *arg)
{
	struct fleet_tls *t = arg;
	bool tls_open = true, progress;
	struct pollfd p[2];
	short want;
	ssize_t n;

	for (;;) {
		want = 0;
		do {
			progress = false;
			if (!t->up.len) {
				n = recv(t->side_fd, t->up.data, sizeof(t->up.data), MSG_DONTWAIT);
				if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
					goto out;	/* hiredis closed */
				if (n > 0) {
					t->up.off = 0;
					t->up.len = tls_open ? n : 0;	/* discarded: TLS over */
					progress = true;
				}
			}
			if (tls_open && t->up.len) {
				n = tls_io(t, true, &want);
				tls_open = n >= 0;
				progress |= n > 0;
			}
			if (tls_open && !t->down.len) {
				n = tls_io(t, false, &want);
				tls_open = n >= 0;
				progress |= n > 0;
			}
			if (t->down.len) {
				n = send(t->side_fd, t->down.data + t->down.off, t->down.len,
					 MSG_DONTWAIT | MSG_NOSIGNAL);
				if (n < 0 && errno != EAGAIN && errno != EINTR)
					goto out;
				if (n > 0) {
					t->down.off += n;
					t->down.len -= n;
					progress = true;
				}
			}
			if (!tls_open && !t->down.len) {
				/* hiredis reads EOF: it says the connection is lost. */
				shutdown(t->side_fd, SHUT_WR);
				t->up.len = 0;
			}
		} while (progress);
		p[0] = (struct pollfd){ .fd = t->side_fd,
					.events = (t->up.len ? 0 : POLLIN) |
						  (t->down.len ? POLLOUT : 0) };
		p[1] = (struct pollfd){ .fd = tls_open ? t->tcp_fd : -1, .events = want };
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents & (POLLHUP | POLLERR) && !(p[0].revents & POLLIN))
			break;
	}
out:
	return NULL;
}

static void tls_free(struct fleet_tls *t)
{
	if (t->ssl)
		SSL_free(t->ssl);
	if (t->ctx)
		SSL_CTX_free(t->ctx);
	if (t->tcp_fd >= 0)
		close(t->tcp_fd);
	if (t->side_fd >= 0)
		close(t->side_fd);
	free(t);
}

int fleet_tls_open(const struct fleet_url *u, struct fleet_tls **out, int *app_fd, char *why,
		   size_t len)
{
	struct timespec deadline;
	struct fleet_tls *t;
	char where[600];
	sigset_t all, old;
	int sv[2], ret;

	*out = NULL;
	*app_fd = -1;
	fleet_url_text(u, where, sizeof(where));
	if (live >= FLEET_TLS_MAX) {
		snprintf(why, len, "%s: already %d TLS connections to Redis", where, live);
		return -EMFILE;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(why, len, "%s: out of memory", where);
		return -ENOMEM;
	}
	t->side_fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += FLEET_TIMEOUT_S;
	ret = t->tcp_fd = tcp_connect(u, &deadline);
	if (ret < 0) {
		snprintf(why, len, "cannot reach Redis at %s: %s", where,
			 ret == -EADDRNOTAVAIL ? "cannot resolve its host name" : strerror(-ret));
		goto cleanup;
	}
	ret = tls_setup(t, u, why, len);
	if (!ret)
		ret = tls_handshake(t, where, &deadline, why, len);
	if (ret)
		goto cleanup;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		snprintf(why, len, "%s: socketpair: %s", where, strerror(errno));
		goto cleanup;
	}
	t->side_fd = sv[1];
	/* The thread takes no signal: the daemon's handlers stay on its loop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&t->thread, NULL, bridge, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		close(sv[0]);
		snprintf(why, len, "%s: cannot start the TLS bridge: %s", where, strerror(-ret));
		goto cleanup;
	}
	t->started = true;
	live++;
	*out = t;
	*app_fd = sv[0];
	return 0;
cleanup:
	tls_free(t);
	return ret;
}

void fleet_tls_close(struct fleet_tls *t)
{
	if (!t)
		return;
	if (t->started) {
		/* hiredis's end is closed: the thread sees it at once (POLLHUP, EOF). */
		pthread_join(t->thread, NULL);
		live--;
	}
	tls_free(t);
}
