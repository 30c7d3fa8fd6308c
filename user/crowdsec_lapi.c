// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One pull of the CrowdSec LAPI's decision stream (libcurl), into memory, bounded. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "crowdsec.h"
#include "fetch.h"

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

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_status;

static void curl_init(void)
{
	curl_init_status = curl_global_init(CURL_GLOBAL_DEFAULT);
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

int crowdsec_pull(const struct crowdsec_config *c, bool startup, char **body, size_t *body_len,
		  char *why, size_t whylen)
{
	char url[FEED_SOURCE_MAX + 128], header[CROWDSEC_KEY_MAX + 16], errbuf[CURL_ERROR_SIZE] = "";
	struct reply r = { .max = c->max_bytes };
	struct curl_slist *headers = NULL;
	size_t n = strlen(c->lapi_url);
	CURL *curl = NULL;
	CURLcode code;
	long http = 0;
	int ret = 0;

	*body = NULL;
	*body_len = 0;
	pthread_once(&curl_once, curl_init);
	if (curl_init_status != CURLE_OK)
		return fail(-EIO, why, whylen, "cannot initialise libcurl: %s",
			    curl_easy_strerror(curl_init_status));
	snprintf(url, sizeof(url), "%s%sv1/decisions/stream?startup=%s&scopes=%s", c->lapi_url,
		 n && c->lapi_url[n - 1] == '/' ? "" : "/", startup ? "true" : "false",
		 c->scope_ip && c->scope_range ? "ip,range" : c->scope_ip ? "ip" : "range");
	snprintf(header, sizeof(header), "X-Api-Key: %s", c->api_key);
	curl = curl_easy_init();
	headers = curl_slist_append(NULL, header);
	if (!curl || !headers) {
		ret = fail(-ENOMEM, why, whylen, "out of memory");
		goto cleanup;
	}
	code = CURLE_OK;
#define SET(opt, val)								\
	do {									\
		if (code == CURLE_OK)						\
			code = curl_easy_setopt(curl, opt, val);		\
	} while (0)
	SET(CURLOPT_URL, url);
	SET(CURLOPT_ERRORBUFFER, errbuf);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	/* No redirect: the key goes to the LAPI configured, nowhere else. */
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_TIMEOUT, (long)c->timeout_s);
	SET(CURLOPT_CONNECTTIMEOUT, (long)(c->timeout_s < FETCH_CONNECT_TIMEOUT_S ?
					   c->timeout_s : FETCH_CONNECT_TIMEOUT_S));
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->max_bytes);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	if (c->ca_file[0])
		SET(CURLOPT_CAINFO, c->ca_file);
	/* max_bytes bounds what a compressed reply inflates to (on_body). */
	SET(CURLOPT_ACCEPT_ENCODING, "");
	SET(CURLOPT_USERAGENT, "bloomxdp");
	SET(CURLOPT_HTTPHEADER, headers);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, &r);
#undef SET
	if (code != CURLE_OK) {
		ret = fail(-EINVAL, why, whylen, "libcurl refused an option: %s",
			   curl_easy_strerror(code));
		goto cleanup;
	}
	code = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http);
	if (r.too_large || code == CURLE_FILESIZE_EXCEEDED) {
		ret = fail(-EFBIG, why, whylen, "the reply is over max_bytes %llu",
			   (unsigned long long)c->max_bytes);
	} else if (r.oom) {
		ret = fail(-ENOMEM, why, whylen, "out of memory for the reply");
	} else if (code == CURLE_OPERATION_TIMEDOUT) {
		ret = fail(-ETIMEDOUT, why, whylen, "no reply within %llu s",
			   (unsigned long long)c->timeout_s);
	} else if (code != CURLE_OK) {
		ret = fail(-EIO, why, whylen, "%s", errbuf[0] ? errbuf : curl_easy_strerror(code));
	} else if (http == 403 || http == 401) {
		ret = fail(-EACCES, why, whylen, "HTTP %ld: the LAPI refuses the API key (make "
			   "one with 'cscli bouncers add NAME')", http);
	} else if (http != 200) {
		ret = fail(-EPROTO, why, whylen, "HTTP %ld", http);
	} else {
		*body = r.data ? r.data : strdup("");
		*body_len = r.len;
		r.data = NULL;
		if (!*body)
			ret = fail(-ENOMEM, why, whylen, "out of memory");
	}
cleanup:
	free(r.data);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	return ret;
}
