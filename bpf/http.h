/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HTTP/1.x: the host (absolute-form target, http:// or https://, after any
 * userinfo; else the Host header) and the path of a request that starts in
 * this segment, read by jumps from one byte that matters to the next.
 */
#ifndef BLOOMXDP_HTTP_H
#define BLOOMXDP_HTTP_H

#include "loop.h"
#include "parsing.h"
#include "scratch.h"

/* Little-endian words of the lower-cased tokens looked for. */
#define HTTP_TOKEN_HTTP_SLASHES	0x2f2f3a70747468ULL	/* "http://" */
#define HTTP_TOKEN_HTTPS_SLASHES 0x2f2f3a7370747468ULL	/* "https://" */
#define HTTP_TOKEN_VERSION	0x2e312f50545448ULL	/* "HTTP/1." */
#define HTTP_TOKEN_HOST		0x3a74736f68ULL		/* "host:" */
#define HTTP_MASK_8		0xffffffffffffffffULL
#define HTTP_MASK_7		0xffffffffffffffULL
#define HTTP_MASK_5		0xffffffffffULL

/* Sets of bytes looked for, packed in a word, ended by a 0 byte. */
#define HTTP_SET(a, b, c, d, e)	((__u64)(a) | (__u64)(b) << 8 | (__u64)(c) << 16 | \
				 (__u64)(d) << 24 | (__u64)(e) << 32)
#define HTTP_TARGET_END		HTTP_SET(' ', '?', '#', 0, 0)	/* of a path */
#define HTTP_AUTHORITY_END	HTTP_SET('/', ' ', '?', '#', 0)
#define HTTP_HOST_END		HTTP_SET(':', ' ', '\t', '\r', '\n')	/* Host header value */

static __always_inline int http_token_at(const struct scratch *s, __u32 len, __u32 i, __u64 token,
					 __u64 mask, __u32 token_len, int lower)
{
	__u64 word = payload_word(s, i);

	if (i + token_len > len)
		return 0;
	if (lower)
		word = bloomxdp_ascii_lower(word);
	return (word & mask) == token;
}

/* 0x80 in each byte of w that is in set, of the payload bytes before len (w is at at). */
static __always_inline __u64 http_set_mask(__u64 w, __u64 set, __u32 at, __u32 len)
{
	__u64 m = 0;
	__u32 k;

	for (k = 0; k < 5; k++) {
		if (!(set >> (k * 8) & 0xff))
			break;
		m |= word_bytes_eq(w, set >> (k * 8) & 0xff);
	}
	if (len - at < 8)
		m &= (1ULL << ((len - at) * 8)) - 1;
	return m;
}

/*
 * Scans payload[from, end) 8 bytes a step for a byte of a set. The context
 * stays the same from step to step until the end (the position is the step's
 * index): the verifier sees the steps converge at once.
 */
struct http_scan {
	__u32 from;
	__u32 end;
	__u64 set;
	__u32 found;		/* end when none */
};

static long http_scan_step(__u32 i, void *data)
{
	struct http_scan *sc = data;
	struct scratch *s = scratch_get();
	__u32 at = sc->from + i * 8;
	__u64 m;

	if (!s || at >= sc->end)
		return 1;
	m = http_set_mask(payload_word(s, at), sc->set, at, sc->end);
	if (!m)
		return 0;
	sc->found = at + word_first_byte(m);
	return 1;
}

/* The first byte of set in payload[from, end), or end. */
static __always_inline __u32 http_find(__u32 from, __u32 end, __u64 set)
{
	struct http_scan sc = { .from = from, .end = end, .set = set, .found = end };

	bpf_loop_bounded(PAYLOAD_MAX / 8 + 1, http_scan_step, &sc);
	return sc.found;
}

/* The same backwards: the last byte c in payload[from, end), or end. */
static long http_scan_back_step(__u32 i, void *data)
{
	struct http_scan *sc = data;
	struct scratch *s = scratch_get();
	__u32 hi = sc->end - i * 8, k;
	__u64 m;

	if (!s || hi <= sc->from || i * 8 > sc->end)
		return 1;
	/* The 8 bytes before hi; those before from (or before the payload) masked off. */
	m = word_bytes_eq(payload_word(s, hi - 8), sc->set);
	if (hi - sc->from < 8)
		m &= ~0ULL << ((8 - (hi - sc->from)) * 8);
	if (!m)
		return 0;
	for (k = 0; k < 7 && (m & (m - 1)); k++)
		m &= m - 1;	/* down to the highest byte found */
	sc->found = hi - 8 + word_first_byte(m);
	return 1;
}

static __always_inline __u32 http_find_last(__u32 from, __u32 end, __u8 c)
{
	struct http_scan sc = { .from = from, .end = end, .set = c, .found = end };

	bpf_loop_bounded(PAYLOAD_MAX / 8 + 1, http_scan_back_step, &sc);
	return sc.found;
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

/* A path prefix ends before each '/' of s->path[0, len), a word a step. */
struct http_slashes {
	__u32 len;
};

static long http_slash_step(__u32 i, void *data)
{
	struct http_slashes *sl = data;
	struct scratch *s = scratch_get();
	__u32 at = i * 8, k;
	__u64 m;

	if (!s || at >= sl->len || s->nprefixes >= BLOOMXDP_MAX_PATH_PREFIXES)
		return 1;
	m = word_bytes_eq(bloomxdp_buf_word(s->path, at), '/');
	if (sl->len - at < 8)
		m &= (1ULL << ((sl->len - at) * 8)) - 1;
	for (k = 0; k < 8 && m; k++) {
		http_prefix_add(s, at + word_first_byte(m));
		m &= m - 1;
	}
	return 0;
}

/*
 * The path payload[from, from + n), n >= 1: its first BLOOMXDP_PATH_MAX bytes
 * in s->path, the prefixes ending before each '/', and the whole path too
 * unless it ends in '/' or was cut short. off: the payload in the frame.
 */
static __always_inline int http_path(struct hook_ctx *ctx, __u32 off, struct scratch *s, __u32 from,
				     __u32 n)
{
	struct http_slashes sl = { .len = n < BLOOMXDP_PATH_MAX ? n : BLOOMXDP_PATH_MAX };

	if (frame_load(ctx, off + from, s->path, sl.len, BLOOMXDP_NAME_BUF - 1))
		return -1;
	bpf_loop_bounded(BLOOMXDP_NAME_BUF / 8, http_slash_step, &sl);
	if (n <= BLOOMXDP_PATH_MAX && s->path[(n - 1) & (BLOOMXDP_NAME_BUF - 1)] != '/')
		http_prefix_add(s, n);
	return 0;
}

/* The host payload[from, end) as the name; -1 when it is no name. */
static __always_inline int http_host_name(struct hook_ctx *ctx, __u32 off, struct scratch *s,
					  __u32 from, __u32 end)
{
	__u32 n = end - from;

	if (end <= from || n > BLOOMXDP_NAME_MAX)
		return -1;
	if (frame_load(ctx, off + from, s->name, n, BLOOMXDP_NAME_BUF - 1))
		return -1;
	return name_from_text(s, n);
}

/* The headers, a line (or a word of one) a step, up to the first Host with a value. */
enum http_hdr_state {
	HTTP_LINE_START,
	HTTP_HOST_SPACE,
	HTTP_HOST,
	HTTP_SKIP_LINE,
	HTTP_HOST_FOUND,
	HTTP_NO_HOST,
};

/*
 * The position and the host's bounds live in scratch, not in the walk's
 * context: read back from a map they are unknown to the verifier, whose walk
 * of the steps then converges instead of following each position.
 */
struct http_headers {
	__u32 len;
	__u32 state;
};

static long http_header_step(__u32 i, void *data)
{
	struct http_headers *h = data;
	struct scratch *s = scratch_get();
	__u32 at;
	__u64 m;
	__u8 c;

	(void)i;
	if (!s)
		return 1;
	at = s->walk_pos;
	if (at >= h->len)
		return 1;
	c = s->payload[at & (PAYLOAD_MAX - 1)];
	switch (h->state) {
	case HTTP_LINE_START:
		if (c == '\n') {
			h->state = HTTP_NO_HOST;	/* the end of the headers */
			return 1;
		}
		if (c == '\r') {
			s->walk_pos = at + 1;
		} else if (http_token_at(s, h->len, at, HTTP_TOKEN_HOST, HTTP_MASK_5, 5, 1)) {
			s->walk_pos = at + 5;
			h->state = HTTP_HOST_SPACE;
		} else {
			s->walk_pos = at + 1;
			h->state = HTTP_SKIP_LINE;
		}
		return 0;
	case HTTP_HOST_SPACE:
		if (c == ' ' || c == '\t') {
			s->walk_pos = at + 1;
			return 0;
		}
		h->state = HTTP_HOST;
		s->host_start = at;
		/* fall through */
	case HTTP_HOST:
		m = http_set_mask(payload_word(s, at), HTTP_HOST_END, at, h->len);
		if (!m) {
			s->walk_pos = at + 8;
			return 0;
		}
		at += word_first_byte(m);
		if (at > s->host_start) {
			s->host_end = at;
			h->state = HTTP_HOST_FOUND;
			return 1;
		}
		/* An empty Host: a later one may still name the host. */
		h->state = s->payload[at & (PAYLOAD_MAX - 1)] == '\n' ? HTTP_LINE_START :
									HTTP_SKIP_LINE;
		s->walk_pos = at + 1;
		return 0;
	case HTTP_SKIP_LINE:
		m = http_set_mask(payload_word(s, at), '\n', at, h->len);
		if (!m) {
			s->walk_pos = at + 8;
			return 0;
		}
		s->walk_pos = at + word_first_byte(m) + 1;
		h->state = HTTP_LINE_START;
		return 0;
	}
	return 1;
}

/*
 * Reads a request from the TCP payload at off (len bytes) into s: the host's
 * labels, and the path prefixes (s->nprefixes). Returns 0, or -1 when the
 * payload is not the start of an HTTP/1.x request or has no usable host.
 *
 * The request line: a method of 3 to 7 capitals, a space, the target, " HTTP/1.".
 * The host: that of an absolute-form target (http:// or https://, after the
 * userinfo's last '@', up to a ':'), else the first non-empty Host header
 * before the blank line, whole in the segment. The walk jumps from one byte
 * that matters to the next, found 8 bytes at a time.
 */
static __always_inline int http_parse_request(struct hook_ctx *ctx, __u32 off, __u32 len,
					      struct scratch *s)
{
	struct http_headers h = { .state = HTTP_LINE_START };
	__u32 t, a, at, host_start = 0, host_end = 0, end;
	__u64 w, ge_a, gt_z, upper, need;
	int form;	/* -1: "*" or an authority, 0: a path, 7 or 8: http:// or https:// */

	if (len > PAYLOAD_MAX - 1)
		len = PAYLOAD_MAX - 1;
	barrier_var(len);
	len &= PAYLOAD_MAX - 1;		/* a no-op the compiler must keep: the verifier needs it */
	if (len < 16 || hook_load_bytes(ctx, off, s->payload, len))
		return -1;
	s->nprefixes = 0;

	/* The method: capitals up to the first space, at byte 3 to 7. */
	w = payload_word(s, 0);
	need = word_bytes_eq(w, ' ');
	if (!need)
		return -1;
	t = word_first_byte(need);
	if (t < 3)
		return -1;
	ge_a = (w & 0x7f7f7f7f7f7f7f7fULL) + 0x3f3f3f3f3f3f3f3fULL;
	gt_z = (w & 0x7f7f7f7f7f7f7f7fULL) + 0x2525252525252525ULL;
	upper = ge_a & ~gt_z & ~w & 0x8080808080808080ULL;
	need = 0x8080808080808080ULL & ((1ULL << (t * 8)) - 1);
	if ((upper & need) != need)
		return -1;
	t++;				/* the target, t <= 8 < len */

	if (s->payload[t & (PAYLOAD_MAX - 1)] == '/')
		form = 0;
	else if (http_token_at(s, len, t, HTTP_TOKEN_HTTP_SLASHES, HTTP_MASK_7, 7, 1))
		form = 7;
	else if (http_token_at(s, len, t, HTTP_TOKEN_HTTPS_SLASHES, HTTP_MASK_8, 8, 1))
		form = 8;	/* as a proxy may be asked */
	else
		form = -1;	/* "*", or CONNECT's authority: no path */
	if (form < 0) {
		end = http_find(t + 1, len, ' ');
		goto version;
	}
	if (form) {
		/* The authority (RFC 3986 3.2): userinfo ends at its last '@'. */
		t += form;
		a = http_find(t, len, HTTP_AUTHORITY_END);
		if (a >= len)
			return -1;
		at = http_find_last(t, a, '@');
		host_start = at < a ? at + 1 : t;
		host_end = http_find(host_start, a, ':');
		if (s->payload[a & (PAYLOAD_MAX - 1)] != '/') {
			s->path[0] = '/';	/* no path: "/" */
			http_prefix_add(s, 0);
			end = a;
			if (s->payload[a & (PAYLOAD_MAX - 1)] != ' ')
				end = http_find(a + 1, len, ' ');
			goto version;
		}
		t = a;
	}
	/* An absolute path, from the '/' at t: up to a space, a query or a fragment. */
	end = http_find(t + 1, len, HTTP_TARGET_END);
	if (end >= len)
		return -1;
	if (http_path(ctx, off, s, t, end - t))
		return -1;
	if (s->payload[end & (PAYLOAD_MAX - 1)] != ' ')
		end = http_find(end + 1, len, ' ');
version:
	if (end >= len || !http_token_at(s, len, end + 1, HTTP_TOKEN_VERSION, HTTP_MASK_7, 7, 0))
		return -1;
	if (form > 0)
		return http_host_name(ctx, off, s, host_start, host_end);

	/* The headers: from the line after the request line. */
	h.len = len;
	s->walk_pos = http_find(end + 8, len, '\n') + 1;
	bpf_loop_bounded(PAYLOAD_MAX, http_header_step, &h);
	if (h.state != HTTP_HOST_FOUND)
		return -1;
	return http_host_name(ctx, off, s, s->host_start, s->host_end);
}

#endif /* BLOOMXDP_HTTP_H */
