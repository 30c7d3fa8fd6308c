// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A feed's body into a file: libcurl for http(s), a bounded copy for a local file. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "service/fetch.h"
#include "util/notify.h"

bool fetch_is_url(const char *source)
{
	return !strncasecmp(source, "http://", 7) || !strncasecmp(source, "https://", 8);
}

struct sink {
	int fd;
	__u64 bytes, max;
	bool too_large;
	int write_errno;
	struct fetch_result *r;
};

/* Stops the transfer (returns short) past max_bytes: a huge body is never stored whole. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t len = size * nmemb, done = 0;
	ssize_t n;

	if (s->bytes + len > s->max) {
		s->too_large = true;
		return 0;
	}
	while (done < len) {
		n = write(s->fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->write_errno = n < 0 ? errno : EIO;
			return 0;
		}
		done += n;
	}
	s->bytes += len;
	return len;
}

/* "Name: value" into out when the header is name; control bytes refuse the value. */
static void take_header(const char *line, size_t len, const char *name, char *out)
{
	size_t nlen = strlen(name), i;

	if (len <= nlen || strncasecmp(line, name, nlen) || line[nlen] != ':')
		return;
	line += nlen + 1;
	len -= nlen + 1;
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len && isspace((unsigned char)line[len - 1]))
		len--;
	if (!len || len >= FETCH_VALIDATOR_MAX)
		return;
	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			return;
	memcpy(out, line, len);
	out[len] = '\0';
}

/*
 * libcurl's progress, about once a second while a fetch runs (its timeout
 * bounds it): the daemon's watchdog stays fed through a slow feed.
 */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)arg, (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	notify_watchdog();
	return 0;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t len = size * nmemb;

	/* Each response of a redirect chain starts again: only the last one's validators count. */
	if (len > 5 && !strncmp(data, "HTTP/", 5)) {
		s->r->etag[0] = '\0';
		s->r->last_modified[0] = '\0';
	}
	take_header(data, len, "ETag", s->r->etag);
	take_header(data, len, "Last-Modified", s->r->last_modified);
	return len;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_status;

static void curl_init(void)
{
	curl_init_status = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int fetch_curl_limits(CURL *curl, __u64 timeout_s, __u64 max_bytes, const char *ca_file)
{
	CURLcode code = CURLE_OK;

#define SET(opt, val)								\
	do {									\
		if (code == CURLE_OK)						\
			code = curl_easy_setopt(curl, opt, val);		\
	} while (0)
	SET(CURLOPT_NOSIGNAL, 1L);
	/* Never file://, ftp://, ldap://...: only what was asked for. */
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_TIMEOUT, (long)timeout_s);
	SET(CURLOPT_CONNECTTIMEOUT, (long)(timeout_s < FETCH_CONNECT_TIMEOUT_S ?
					   timeout_s : FETCH_CONNECT_TIMEOUT_S));
	/* A Content-Length over the limit is refused before the body; the caller bounds the rest. */
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	if (ca_file && ca_file[0])
		SET(CURLOPT_CAINFO, ca_file);
#undef SET
	return code;
}

int fetch_curl_init(const char **why)
{
	pthread_once(&curl_once, curl_init);
	*why = curl_easy_strerror(curl_init_status);
	return curl_init_status == CURLE_OK ? 0 : -EIO;
}

__attribute__((format(printf, 3, 4)))
static int fail(struct fetch_result *r, int err, const char *fmt, ...)
{
	va_list ap;

	r->status = FETCH_FAILED;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return err;
}

/* What curl's error means, on one line, and its errno. */
static int explain(const struct fetch_opts *o, struct fetch_result *r, const struct sink *s,
		   CURL *curl, CURLcode code, const char *detail)
{
	double connect = 0;

	switch (code) {
	case CURLE_OPERATION_TIMEDOUT:
		curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME, &connect);
		if (connect <= 0)
			return fail(r, -ETIMEDOUT, "no connection within %llu s",
				    (unsigned long long)(o->timeout_s < FETCH_CONNECT_TIMEOUT_S ?
				    o->timeout_s : FETCH_CONNECT_TIMEOUT_S));
		return fail(r, -ETIMEDOUT, "timed out after %llu s",
			    (unsigned long long)o->timeout_s);
	case CURLE_FILESIZE_EXCEEDED:
		return fail(r, -EFBIG, "too large: over max_bytes %llu",
			    (unsigned long long)o->max_bytes);
	case CURLE_WRITE_ERROR:
		if (s->too_large)
			return fail(r, -EFBIG, "too large: over max_bytes %llu",
				    (unsigned long long)o->max_bytes);
		return fail(r, -(s->write_errno ? s->write_errno : EIO),
			    "cannot write the body: %s",
			    strerror(s->write_errno ? s->write_errno : EIO));
	case CURLE_UNSUPPORTED_PROTOCOL:
		return fail(r, -EPROTONOSUPPORT, "%s (http and https only, also on redirects)",
			    detail);
	case CURLE_TOO_MANY_REDIRECTS:
		return fail(r, -ELOOP, "more than %d redirects", FETCH_MAX_REDIRECTS);
	default:
		return fail(r, -EIO, "%s", detail);
	}
}

static int fetch_url(const struct fetch_opts *o, struct fetch_result *r, int fd)
{
	char errbuf[CURL_ERROR_SIZE] = "", header[FETCH_VALIDATOR_MAX + 32];
	struct sink s = { .fd = fd, .max = o->max_bytes, .r = r };
	struct curl_slist *headers = NULL, *more;
	CURL *curl = NULL;
	const char *why;
	CURLcode code;
	int ret = 0;

	if (fetch_curl_init(&why))
		return fail(r, -EIO, "cannot initialise libcurl: %s", why);
	curl = curl_easy_init();
	if (!curl)
		return fail(r, -ENOMEM, "cannot initialise libcurl");
	if (o->etag && o->etag[0]) {
		snprintf(header, sizeof(header), "If-None-Match: %s", o->etag);
		more = curl_slist_append(headers, header);
		if (!more)
			goto nomem;
		headers = more;
	}
	if (o->last_modified && o->last_modified[0]) {
		snprintf(header, sizeof(header), "If-Modified-Since: %s", o->last_modified);
		more = curl_slist_append(headers, header);
		if (!more)
			goto nomem;
		headers = more;
	}
	code = CURLE_OK;
#define SET(opt, val)								\
	do {									\
		if (code == CURLE_OK)						\
			code = curl_easy_setopt(curl, opt, val);		\
	} while (0)
	SET(CURLOPT_URL, o->source);
	SET(CURLOPT_ERRORBUFFER, errbuf);
	if (code == CURLE_OK)
		code = fetch_curl_limits(curl, o->timeout_s, o->max_bytes, o->ca_file);
	/* Never file://, ftp://, ldap://... on a redirect either. */
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_FOLLOWLOCATION, 1L);
	SET(CURLOPT_MAXREDIRS, (long)FETCH_MAX_REDIRECTS);
	/* Compressed transfers are welcome; max_bytes bounds what they inflate to. */
	SET(CURLOPT_ACCEPT_ENCODING, "");
	SET(CURLOPT_USERAGENT, "bloomxdp");
	SET(CURLOPT_HTTPHEADER, headers);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, &s);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, &s);
	SET(CURLOPT_XFERINFOFUNCTION, on_progress);
	SET(CURLOPT_NOPROGRESS, 0L);
#undef SET
	if (code != CURLE_OK) {
		ret = fail(r, -EINVAL, "libcurl refused an option: %s",
			   curl_easy_strerror(code));
		goto cleanup;
	}
	code = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->http_code);
	if (code != CURLE_OK) {
		ret = explain(o, r, &s, curl, code, errbuf[0] ? errbuf : curl_easy_strerror(code));
		goto cleanup;
	}
	r->bytes = s.bytes;
	if (r->http_code == 304) {
		r->status = FETCH_NOT_MODIFIED;
	} else if (r->http_code == 200) {
		r->status = FETCH_NEW;
	} else {
		ret = fail(r, -EPROTO, "HTTP %ld", r->http_code);
	}
	goto cleanup;
nomem:
	ret = fail(r, -ENOMEM, "out of memory");
cleanup:
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	return ret;
}

/* A local list: a regular file (never a FIFO or a device that could block), copied. */
static int fetch_file(const struct fetch_opts *o, struct fetch_result *r, int out)
{
	char buf[64 * 1024];
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	fd = open(o->source, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return fail(r, -errno, "cannot open it: %s", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = fail(r, -EINVAL, "not a regular file");
		goto cleanup;
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = fail(r, -errno, "read failed: %s", strerror(errno));
			goto cleanup;
		}
		if (!n)
			break;
		if (r->bytes + n > o->max_bytes) {
			ret = fail(r, -EFBIG, "too large: over max_bytes %llu",
			    (unsigned long long)o->max_bytes);
			goto cleanup;
		}
		if (write(out, buf, n) != n) {
			ret = fail(r, -EIO, "cannot write the copy: %s", strerror(errno));
			goto cleanup;
		}
		r->bytes += n;
	}
	r->status = FETCH_NEW;
cleanup:
	close(fd);
	return ret;
}

int fetch(const struct fetch_opts *o, struct fetch_result *r)
{
	int fd, ret;

	memset(r, 0, sizeof(*r));
	fd = openat(o->dir_fd, o->tmp_name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return fail(r, -errno, "cannot create the temporary file %s: %s", o->tmp_name,
			    strerror(errno));
	ret = fetch_is_url(o->source) ? fetch_url(o, r, fd) : fetch_file(o, r, fd);
	if (!ret && r->status == FETCH_NEW && fsync(fd))
		ret = fail(r, -errno, "cannot write the body: %s", strerror(errno));
	close(fd);
	if (ret || r->status != FETCH_NEW)
		unlinkat(o->dir_fd, o->tmp_name, 0);
	return ret;
}
