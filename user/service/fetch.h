/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One fetch of a feed's body into a file: an http(s):// URL with libcurl
 * (conditional, bounded in time, size and redirects, TLS verified), or a
 * local regular file copied under the same size limit.
 */
#ifndef BLOOMXDP_FETCH_H
#define BLOOMXDP_FETCH_H

#include <stdbool.h>
#include <linux/types.h>
#include <curl/curl.h>

#define FETCH_VALIDATOR_MAX	256	/* an ETag or a Last-Modified date, as the server sent it */
#define FETCH_WHY_MAX		256
#define FETCH_MAX_REDIRECTS	5
#define FETCH_CONNECT_TIMEOUT_S	10	/* or the whole timeout, if shorter */

struct fetch_opts {
	const char *source;		/* http://, https:// or a local path */
	int dir_fd;			/* the body goes to tmp_name in this directory */
	const char *tmp_name;
	/* From the previous good fetch ("" or NULL: an unconditional request). */
	const char *etag;
	const char *last_modified;
	__u64 timeout_s;		/* the whole transfer, redirects included */
	__u64 max_bytes;		/* a larger body is refused while it arrives */
	const char *ca_file;		/* PEM CAs to verify https with; NULL: the system's */
};

enum fetch_status {
	FETCH_NEW,		/* 200: a body in tmp_name */
	FETCH_NOT_MODIFIED,	/* 304: nothing written */
	FETCH_FAILED,		/* why says it; nothing left in tmp_name */
};

struct fetch_result {
	enum fetch_status status;
	long http_code;			/* 0 for a local file */
	__u64 bytes;			/* of the body written */
	char etag[FETCH_VALIDATOR_MAX];	/* of this response: "" if none */
	char last_modified[FETCH_VALIDATOR_MAX];
	char why[FETCH_WHY_MAX];	/* FETCH_FAILED: "HTTP 500", "timed out after 2 s"... */
};

bool fetch_is_url(const char *source);

/* Returns 0 (FETCH_NEW, FETCH_NOT_MODIFIED) or -errno (FETCH_FAILED, why filled in). */
int fetch(const struct fetch_opts *o, struct fetch_result *r);
/*
 * What every transfer of bloomxdp's is held to: http(s) only, a timeout for
 * the whole and for the connection, a size bound, the peer's certificate
 * and name verified (ca_file: NULL or "" for the system's CAs). A CURLcode.
 */
int fetch_curl_limits(CURL *curl, __u64 timeout_s, __u64 max_bytes, const char *ca_file);
/* libcurl's global initialisation, once per process (thread-safe); *why: its message. */
int fetch_curl_init(const char **why);

#endif
