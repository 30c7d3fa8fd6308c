// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One pull of the CrowdSec LAPI's decision stream into memory, bounded: a
 * libcurl multi transfer that the daemon's poll() drives, so that a slow LAPI
 * holds up nothing else.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <curl/curl.h>

#include "service/crowdsec.h"
#include "service/fetch.h"

struct reply {
	char *data;
	size_t len, cap, max;
	bool too_large, oom;
};

/* Stops the transfer (returns short) past max: a huge reply is never held whole. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct reply *r = arg;
	size_t len = size * nmemb, cap;
	char *grown;

	if (len > r->max - r->len) {
		r->too_large = true;
		return 0;
	}
	if (r->len + len + 1 > r->cap) {
		cap = r->cap ? r->cap : 64 * 1024;
		while (cap < r->len + len + 1)
			cap *= 2;
		if (cap > r->max + 1)
			cap = r->max + 1;
		grown = realloc(r->data, cap);
		if (!grown) {
			r->oom = true;
			return 0;
		}
		r->data = grown;
		r->cap = cap;
	}
	memcpy(r->data + r->len, data, len);
	r->len += len;
	r->data[r->len] = '\0';
	return len;
}


__attribute__((format(printf, 4, 5)))
static int fail(int err, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

struct crowdsec_pull {
	CURLM *multi;
	CURL *curl;
	struct curl_slist *headers;
	struct reply r;
	__u64 timeout_s, max_bytes;
	char url[FEED_SOURCE_MAX + 128];
	char errbuf[CURL_ERROR_SIZE];
};

void crowdsec_pull_free(struct crowdsec_pull *p)
{
	if (!p)
		return;
	if (p->multi && p->curl)
		curl_multi_remove_handle(p->multi, p->curl);
	curl_easy_cleanup(p->curl);
	curl_multi_cleanup(p->multi);
	curl_slist_free_all(p->headers);
	free(p->r.data);
	free(p);
}

int crowdsec_pull_start(const struct crowdsec_config *c, bool startup, struct crowdsec_pull **out,
			char *why, size_t whylen)
{
	char header[CROWDSEC_KEY_MAX + 16];
	size_t n = strlen(c->lapi_url);
	struct crowdsec_pull *p;
	const char *curl_why;
	CURLcode code;
	int ret = 0;

	*out = NULL;
	if (fetch_curl_init(&curl_why))
		return fail(-EIO, why, whylen, "cannot initialise libcurl: %s", curl_why);
	p = calloc(1, sizeof(*p));
	if (!p)
		return fail(-ENOMEM, why, whylen, "out of memory");
	p->r.max = c->max_bytes;
	p->timeout_s = c->timeout_s;
	p->max_bytes = c->max_bytes;
	snprintf(p->url, sizeof(p->url), "%s%sv1/decisions/stream?startup=%s&scopes=%s",
		 c->lapi_url, n && c->lapi_url[n - 1] == '/' ? "" : "/",
		 startup ? "true" : "false",
		 c->scope_ip && c->scope_range ? "ip,range" : c->scope_ip ? "ip" : "range");
	snprintf(header, sizeof(header), "X-Api-Key: %s", c->api_key);
	p->multi = curl_multi_init();
	p->curl = curl_easy_init();
	p->headers = curl_slist_append(NULL, header);
	if (!p->multi || !p->curl || !p->headers) {
		ret = fail(-ENOMEM, why, whylen, "out of memory");
		goto out;
	}
	code = CURLE_OK;
#define SET(opt, val)								\
	do {									\
		if (code == CURLE_OK)						\
			code = curl_easy_setopt(p->curl, opt, val);		\
	} while (0)
	SET(CURLOPT_URL, p->url);
	SET(CURLOPT_ERRORBUFFER, p->errbuf);
	if (code == CURLE_OK)
		code = fetch_curl_limits(p->curl, c->timeout_s, c->max_bytes, c->ca_file);
	/* No redirect: the key goes to the LAPI configured, nowhere else. */
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	/* max_bytes bounds what a compressed reply inflates to (on_body). */
	SET(CURLOPT_ACCEPT_ENCODING, "");
	SET(CURLOPT_USERAGENT, "bloomxdp");
	SET(CURLOPT_HTTPHEADER, p->headers);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, &p->r);
#undef SET
	if (code != CURLE_OK) {
		ret = fail(-EINVAL, why, whylen, "libcurl refused an option: %s",
			   curl_easy_strerror(code));
		goto out;
	}
	if (curl_multi_add_handle(p->multi, p->curl) != CURLM_OK)
		ret = fail(-ENOMEM, why, whylen, "libcurl cannot start the transfer");
out:
	if (ret)
		crowdsec_pull_free(p);
	else
		*out = p;
	return ret;
}

int crowdsec_pull_fds(struct crowdsec_pull *p, struct pollfd *fds, int max, int *timeout_ms)
{
	fd_set rd, wr, ex;
	long wait_ms = -1;
	int maxfd = -1, fd, n = 0;

	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_ZERO(&ex);
	if (curl_multi_fdset(p->multi, &rd, &wr, &ex, &maxfd) != CURLM_OK)
		maxfd = -1;
	for (fd = 0; fd <= maxfd && n < max; fd++) {
		short events = (FD_ISSET(fd, &rd) ? POLLIN : 0) |
			       (FD_ISSET(fd, &wr) ? POLLOUT : 0) |
			       (FD_ISSET(fd, &ex) ? POLLPRI : 0);

		if (events)
			fds[n++] = (struct pollfd){ .fd = fd, .events = events };
	}
	curl_multi_timeout(p->multi, &wait_ms);
	/* No socket yet (a name being resolved): looked at again soon. */
	if (wait_ms < 0 || maxfd < 0 || n == max)
		wait_ms = wait_ms >= 0 && wait_ms < 50 ? wait_ms : 50;
	if (wait_ms < *timeout_ms)
		*timeout_ms = (int)wait_ms;
	return n;
}

int crowdsec_pull_step(struct crowdsec_pull *p, char **body, size_t *body_len, char *why,
		       size_t whylen)
{
	CURLcode code = CURLE_OK;
	CURLMsg *msg;
	long http = 0;
	int running = 0, left;

	*body = NULL;
	*body_len = 0;
	if (curl_multi_perform(p->multi, &running) != CURLM_OK)
		return fail(-EIO, why, whylen, "libcurl failed");
	if (running)
		return -EINPROGRESS;
	while ((msg = curl_multi_info_read(p->multi, &left)))
		if (msg->msg == CURLMSG_DONE)
			code = msg->data.result;
	curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &http);
	if (p->r.too_large || code == CURLE_FILESIZE_EXCEEDED)
		return fail(-EFBIG, why, whylen, "the reply is over max_bytes %llu",
			    (unsigned long long)p->max_bytes);
	if (p->r.oom)
		return fail(-ENOMEM, why, whylen, "out of memory for the reply");
	if (code == CURLE_OPERATION_TIMEDOUT)
		return fail(-ETIMEDOUT, why, whylen, "no reply within %llu s",
			    (unsigned long long)p->timeout_s);
	if (code != CURLE_OK)
		return fail(-EIO, why, whylen, "%s",
			    p->errbuf[0] ? p->errbuf : curl_easy_strerror(code));
	if (http == 403 || http == 401)
		return fail(-EACCES, why, whylen, "HTTP %ld: the LAPI refuses the API key (make "
			    "one with 'cscli bouncers add NAME')", http);
	if (http != 200)
		return fail(-EPROTO, why, whylen, "HTTP %ld", http);
	*body = p->r.data ? p->r.data : strdup("");
	*body_len = p->r.len;
	p->r.data = NULL;
	if (!*body)
		return fail(-ENOMEM, why, whylen, "out of memory");
	return 0;
}
