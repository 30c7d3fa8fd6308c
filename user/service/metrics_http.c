// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * GET /metrics over libmicrohttpd, on a thread of its own (MHD's internal
 * epoll thread): a scrape is answered while the daemon's loop loads a list.
 * The renderer runs on that thread: it reads the attachment's maps and the
 * daemon's snapshot (daemon.c), never the loop's state. Bounded: connections
 * in all and per client address, a short idle timeout, a small memory pool
 * per connection; a client over its limit is closed at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "util/log.h"
#include "service/metrics_http.h"

struct metrics_server {
	struct MHD_Daemon *mhd;
	metrics_render_fn render;
	void *ctx;
	atomic_ullong requests;
};

int metrics_parse_address(const char *text, struct sockaddr_storage *sa, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *h = text;
	unsigned long port;
	size_t hlen;
	char *end;

	memset(sa, 0, sizeof(*sa));
	colon = strrchr(text, ':');
	if (!colon || colon == text)
		return -EINVAL;
	hlen = colon - text;
	if (text[0] == '[') {
		if (hlen < 3 || text[hlen - 1] != ']')
			return -EINVAL;
		h = text + 1;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port == 0 || port > 65535 || colon[1] == '+' ||
	    colon[1] == '-' || colon[1] == ' ')
		return -EINVAL;
	if (text[0] != '[' &&
	    inet_pton(AF_INET, host, &((struct sockaddr_in *)sa)->sin_addr) == 1) {
		((struct sockaddr_in *)sa)->sin_family = AF_INET;
		((struct sockaddr_in *)sa)->sin_port = htons(port);
		*len = sizeof(struct sockaddr_in);
		return 0;
	}
	if (text[0] == '[' &&
	    inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)sa)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)sa)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
		*len = sizeof(struct sockaddr_in6);
		return 0;
	}
	return -EINVAL;
}

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned int status, char *body,
			      size_t len, const char *type)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result answer_text(struct MHD_Connection *conn, unsigned int status,
				   const char *text)
{
	char *body = strdup(text);

	return body ? answer(conn, status, body, strlen(body), "text/plain; charset=utf-8") :
		      MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct metrics_server *s = cls;
	char *body = NULL;
	size_t len = 0;
	FILE *out;
	int ret;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	atomic_fetch_add(&s->requests, 1);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /metrics\n");
	if (strcmp(url, "/metrics"))
		return answer_text(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at "
				   "/metrics\n");
	out = open_memstream(&body, &len);
	if (!out)
		return answer_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	ret = s->render(s->ctx, out);
	if (fclose(out) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(body);
		return answer_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "cannot read the counters; see the daemon's log\n");
	}
	return answer(conn, MHD_HTTP_OK, body, len, "text/plain; version=0.0.4; charset=utf-8");
}

/* Descriptors for every connection allowed: the soft limit raised toward the hard one. */
static void files_enough(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= METRICS_FILES)
		return;
	r.rlim_cur = r.rlim_max < METRICS_FILES ? r.rlim_max : METRICS_FILES;
	if (setrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur < METRICS_FILES)
		log_warn("metrics: %llu descriptors (RLIMIT_NOFILE) for %d connections: a "
			 "scrape may wait while many are open", (unsigned long long)r.rlim_cur,
			 METRICS_MAX_CONNECTIONS);
}

int metrics_server_start(const char *address, metrics_render_fn render, void *ctx,
			 struct metrics_server **out)
{
	struct metrics_server *s;
	struct sockaddr_storage sa;
	socklen_t len;
	unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD;

	*out = NULL;
	if (metrics_parse_address(address, &sa, &len)) {
		log_error("metrics = %s: expected ADDRESS:PORT, e.g. 127.0.0.1:9725", address);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->render = render;
	s->ctx = ctx;
	files_enough();
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s->mhd = MHD_start_daemon(flags, ntohs(((struct sockaddr_in *)&sa)->sin_port), NULL, NULL,
				  on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				  MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned int)METRICS_MAX_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				  (unsigned int)METRICS_MAX_PER_CLIENT,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				  (size_t)METRICS_CONNECTION_MEMORY,
				  MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)METRICS_BACKLOG,
				  MHD_OPTION_END);
	if (!s->mhd) {
		int err = errno ? errno : EADDRINUSE;

		log_error("cannot serve metrics on %s: %s; pick another 'metrics =' in [daemon]",
			  address, strerror(err));
		free(s);
		return -err;
	}
	*out = s;
	return 0;
}

void metrics_server_stop(struct metrics_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->mhd);
	free(s);
}

unsigned long long metrics_server_requests(const struct metrics_server *s)
{
	return s ? atomic_load(&s->requests) : 0;
}
