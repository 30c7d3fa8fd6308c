/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HTTP/1.x: the host (absolute-form target, http:// or https://, after any
 * userinfo; else the Host header) and the path of a request that starts in
 * this segment, read by one bounded pass over the payload.
 */
#ifndef BLOOMXDP_HTTP_H
#define BLOOMXDP_HTTP_H

#include "loop.h"
#include "scratch.h"

enum http_state {
	HTTP_METHOD,
	HTTP_TARGET,		/* first byte of the request target */
	HTTP_ABS_HOST,		/* host of an absolute-form target */
	HTTP_ABS_PORT,
	HTTP_PATH,
	HTTP_TARGET_REST,	/* query string or fragment: ignored */
	HTTP_VERSION,
	HTTP_LINE_START,
	HTTP_HOST_SPACE,
	HTTP_HOST,
	HTTP_SKIP_LINE,
	HTTP_DONE,
	HTTP_FAIL,
};

/* Little-endian words of the lower-cased tokens looked for. */
#define HTTP_TOKEN_HTTP_SLASHES	0x2f2f3a70747468ULL	/* "http://" */
#define HTTP_TOKEN_HTTPS_SLASHES 0x2f2f3a7370747468ULL	/* "https://" */
#define HTTP_TOKEN_VERSION	0x2e312f50545448ULL	/* "HTTP/1." */
#define HTTP_TOKEN_HOST		0x3a74736f68ULL		/* "host:" */
#define HTTP_MASK_8		0xffffffffffffffffULL
#define HTTP_MASK_7		0xffffffffffffffULL
#define HTTP_MASK_5		0xffffffffffULL
#define HTTP_METHOD_MAX		7			/* "OPTIONS" */

struct http_walk {
	__u32 len;		/* payload bytes in s->payload */
	__u32 state;
	__u32 skip;		/* bytes still to skip */
	int host_from_target;
	int path_truncated;
	__u32 path_len;
	struct name_builder nb;
};

static __always_inline int http_token_at(const struct scratch *s, const struct http_walk *w,
					 __u32 i, __u64 token, __u64 mask, __u32 token_len,
					 int lower)
{
	__u64 word = payload_word(s, i);

	if (i + token_len > w->len)
		return 0;
	if (lower)
		word = bloomxdp_ascii_lower(word);
	return (word & mask) == token;
}

static __always_inline void http_prefix_add(struct scratch *s, __u32 end)
{
	__u32 n = s->nprefixes;

	if (n < BLOOMXDP_MAX_PATH_PREFIXES) {
		barrier_var(n);
		s->prefix_end[n & 15] = end;
		s->nprefixes = n + 1;
	}
}

static __always_inline void http_path_add(struct scratch *s, struct http_walk *w, __u8 c)
{
	if (w->path_len >= BLOOMXDP_PATH_MAX) {
		w->path_truncated = 1;
		return;
	}
	if (c == '/')
		http_prefix_add(s, w->path_len);
	s->path[w->path_len & (BLOOMXDP_NAME_BUF - 1)] = c;
	w->path_len++;
}

/* The whole path is a prefix too, unless it ends in '/' or was cut short. */
static __always_inline void http_path_end(struct scratch *s, struct http_walk *w)
{
	/* path_len <= BLOOMXDP_PATH_MAX once checked non-zero: the mask is a no-op. */
	if (w->path_len && !w->path_truncated &&
	    s->path[(w->path_len - 1) & (BLOOMXDP_NAME_BUF - 1)] != '/')
		http_prefix_add(s, w->path_len);
}

/* After the target, " HTTP/1." must follow: returns the next state. */
static __always_inline __u32 http_target_end(struct scratch *s, struct http_walk *w, __u32 i)
{
	if (!http_token_at(s, w, i + 1, HTTP_TOKEN_VERSION, HTTP_MASK_7, 7, 0))
		return HTTP_FAIL;
	return HTTP_VERSION;
}

/*
 * What ends the authority (the path, the target's end, a query or fragment),
 * or an '@' that ends userinfo, in the host or the port: 1 if c was one.
 */
static __always_inline int http_authority_delim(struct scratch *s, struct http_walk *w, __u8 c,
						__u32 i)
{
	if (c == '/') {
		/* The absolute path starts with this '/'. */
		http_path_add(s, w, c);
		w->state = HTTP_PATH;
	} else if (c == ' ') {
		http_path_add(s, w, '/');
		w->state = http_target_end(s, w, i);
	} else if (c == '?' || c == '#') {
		http_path_add(s, w, '/');
		w->state = HTTP_TARGET_REST;
	} else if (c == '@') {
		s->host_start = i + 1;
		w->state = HTTP_ABS_HOST;
	} else {
		return 0;
	}
	return 1;
}

static long http_step(__u32 i, void *data)
{
	struct http_walk *w = data;
	struct scratch *s = scratch_get();
	__u8 c;

	if (!s || i >= w->len)
		return 1;
	if (w->skip) {
		w->skip--;
		return 0;
	}
	c = s->payload[i & (PAYLOAD_MAX - 1)];

	switch (w->state) {
	case HTTP_METHOD:
		if (c == ' ' && i >= 3)
			w->state = HTTP_TARGET;
		else if (c < 'A' || c > 'Z' || i >= HTTP_METHOD_MAX)
			w->state = HTTP_FAIL;
		break;
	case HTTP_TARGET:
		if (c == '/') {
			http_path_add(s, w, c);
			w->state = HTTP_PATH;
		} else if (http_token_at(s, w, i, HTTP_TOKEN_HTTP_SLASHES, HTTP_MASK_7, 7, 1)) {
			w->skip = 6;
			w->host_from_target = 1;
			w->state = HTTP_ABS_HOST;
		} else if (http_token_at(s, w, i, HTTP_TOKEN_HTTPS_SLASHES, HTTP_MASK_8, 8, 1)) {
			w->skip = 7;	/* as a proxy may be asked */
			w->host_from_target = 1;
			w->state = HTTP_ABS_HOST;
		} else {
			w->state = HTTP_TARGET_REST;	/* "*", or CONNECT's authority */
		}
		break;
	/*
	 * The authority (RFC 3986 3.2). Userinfo ends at its last '@': the host
	 * after it, payload[host_start, host_end), is named after the walk.
	 */
	case HTTP_ABS_HOST:
		if (c == '/' || c == ':' || c == ' ' || c == '?' || c == '#')
			s->host_end = i;
		if (c == ':')
			w->state = HTTP_ABS_PORT;	/* or a password, until an '@' */
		else if (!http_authority_delim(s, w, c, i))
			name_add(s, &w->nb, c);
		break;
	case HTTP_ABS_PORT:
		http_authority_delim(s, w, c, i);
		break;
	case HTTP_PATH:
		if (c == ' ' || c == '?' || c == '#') {
			http_path_end(s, w);
			w->state = c == ' ' ? http_target_end(s, w, i) : HTTP_TARGET_REST;
		} else {
			http_path_add(s, w, c);
		}
		break;
	case HTTP_TARGET_REST:
		if (c == ' ')
			w->state = http_target_end(s, w, i);
		break;
	case HTTP_VERSION:
	case HTTP_SKIP_LINE:
		if (c == '\n')
			w->state = HTTP_LINE_START;
		break;
	case HTTP_LINE_START:
		if (c == '\n') {
			w->state = HTTP_DONE;	/* end of the headers */
		} else if (c == '\r') {
			break;
		} else if (!w->host_from_target && w->nb.len == 0 &&
			   http_token_at(s, w, i, HTTP_TOKEN_HOST, HTTP_MASK_5, 5, 1)) {
			w->skip = 4;
			w->state = HTTP_HOST_SPACE;
		} else {
			w->state = HTTP_SKIP_LINE;
		}
		break;
	case HTTP_HOST_SPACE:
		if (c == ' ' || c == '\t')
			break;
		w->state = HTTP_HOST;
		/* fall through */
	case HTTP_HOST:
		if (c == ':' || c == ' ' || c == '\t' || c == '\r' || c == '\n')
			w->state = c == '\n' ? HTTP_LINE_START : HTTP_SKIP_LINE;
		else
			name_add(s, &w->nb, c);
		break;
	}
	return w->state == HTTP_DONE || w->state == HTTP_FAIL;
}

/*
 * The host after the userinfo of an absolute-form target, one byte a step.
 * Restarting the name at each '@' during the walk, or keeping these bounds
 * on the stack, makes the verifier's walk of http_step exceed its limit.
 */
static long http_host_step(__u32 i, void *data)
{
	struct name_builder *nb = data;
	struct scratch *s = scratch_get();
	__u32 at;

	if (!s)
		return 1;
	at = s->host_start + i;
	if (at >= s->host_end)
		return 1;
	/* host_end < len < PAYLOAD_MAX: the mask is a no-op. */
	name_add(s, nb, s->payload[at & (PAYLOAD_MAX - 1)]);
	return 0;
}

/*
 * Reads a request from the TCP payload at off (len bytes) into s: the host's
 * labels, and the path prefixes (s->nprefixes). Returns 0, or -1 when the
 * payload is not the start of an HTTP/1.x request or has no usable host.
 */
static __always_inline int http_parse_request(struct xdp_md *ctx, __u32 off, __u32 len,
					      struct scratch *s)
{
	struct http_walk w = {};

	if (len > PAYLOAD_MAX - 1)
		len = PAYLOAD_MAX - 1;
	barrier_var(len);
	len &= PAYLOAD_MAX - 1;		/* a no-op the compiler must keep: the verifier needs it */
	if (len < 16 || bpf_xdp_load_bytes(ctx, off, s->payload, len))
		return -1;
	w.len = len;
	name_reset(s, &w.nb);
	s->nprefixes = 0;
	s->host_start = 0;	/* no userinfo */
	bpf_loop_bounded(PAYLOAD_MAX, http_step, &w);
	if (w.state < HTTP_VERSION || w.state == HTTP_FAIL)
		return -1;
	if (w.host_from_target && s->host_start) {
		/* A name longer than BLOOMXDP_NAME_MAX is refused at its next byte. */
		name_reset(s, &w.nb);
		bpf_loop_bounded(BLOOMXDP_NAME_MAX + 1, http_host_step, &w.nb);
	}
	if (w.nb.len == 0 && w.state != HTTP_DONE)
		return -1;	/* the Host header may be in a later segment */
	if (w.state == HTTP_HOST)
		return -1;	/* so may the rest of the host */
	return name_finish(s, &w.nb);
}

#endif /* BLOOMXDP_HTTP_H */
