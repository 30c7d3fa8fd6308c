// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <math.h>
#include <string.h>

#include "util/json.h"

void json_start(struct json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

void json_end(struct json *j)
{
	fputc('\n', j->out);
	fflush(j->out);
}

/* Before any value: the comma that separates it from the one before. */
static void value_start(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->has_items[j->depth])
		fputc(',', j->out);
	j->has_items[j->depth] = true;
}

static void open_nested(struct json *j, char c)
{
	value_start(j);
	fputc(c, j->out);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void close_nested(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
}

void json_object_start(struct json *j)
{
	open_nested(j, '{');
}

void json_object_end(struct json *j)
{
	close_nested(j, '}');
}

void json_array_start(struct json *j)
{
	open_nested(j, '[');
}

void json_array_end(struct json *j)
{
	close_nested(j, ']');
}

/* Length of the valid UTF-8 sequence at s (at most left bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF are not text. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void json_string_len(struct json *j, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	value_start(j);
	fputc('"', j->out);
	while (i < len) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			fputc('\\', j->out);
			fputc(c, j->out);
		} else if (c == '\n') {
			fputs("\\n", j->out);
		} else if (c == '\t') {
			fputs("\\t", j->out);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(j->out, "\\u%04x", c);
		} else if ((n = utf8_len(p + i, len - i)) > 0) {
			fwrite(p + i, 1, n, j->out);
			i += n;
			continue;
		} else {
			/* Not UTF-8: the byte as the code point of the same value. */
			fprintf(j->out, "\\u%04x", c);
		}
		i++;
	}
	fputc('"', j->out);
}

void json_string(struct json *j, const char *s)
{
	json_string_len(j, s, strlen(s));
}

void json_u64(struct json *j, __u64 v)
{
	value_start(j);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_double(struct json *j, const char *fmt, double v)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	value_start(j);
	fprintf(j->out, fmt, v);
}

void json_bool(struct json *j, bool v)
{
	value_start(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	value_start(j);
	fputs("null", j->out);
}

void json_key(struct json *j, const char *key)
{
	json_string(j, key);
	fputc(':', j->out);
	j->after_key = true;
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, __u64 v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_double(struct json *j, const char *key, const char *fmt, double v)
{
	json_key(j, key);
	json_double(j, fmt, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
