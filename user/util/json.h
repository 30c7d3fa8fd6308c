/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_JSON_H
#define BLOOMXDP_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * A streaming JSON writer, after bpftool's json_writer: it places the commas
 * and escapes every string, so that what a packet or an interface name holds
 * can never break the document. One document per line.
 */
#define JSON_MAX_DEPTH 8

struct json {
	FILE *out;
	int depth;
	bool after_key;
	bool has_items[JSON_MAX_DEPTH];
};

void json_start(struct json *j, FILE *out);
/* Ends the document's line and flushes it. */
void json_end(struct json *j);

void json_object_start(struct json *j);
void json_object_end(struct json *j);
void json_array_start(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);

void json_string(struct json *j, const char *s);
/* The first len bytes of s; bytes that are not UTF-8 text come out as \u00XX. */
void json_string_len(struct json *j, const char *s, size_t len);
void json_u64(struct json *j, __u64 v);
/* fmt is a printf format of one double ("%.6g"); NaN and infinities are null. */
void json_double(struct json *j, const char *fmt, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* A key and its value. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, __u64 v);
void json_kv_double(struct json *j, const char *key, const char *fmt, double v);
void json_kv_bool(struct json *j, const char *key, bool v);

#endif
