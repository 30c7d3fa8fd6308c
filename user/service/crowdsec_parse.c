// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the CrowdSec bouncer reads: the LAPI's replies (json-c), their
 * durations and values, and its API key. All of it hostile.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "service/crowdsec.h"
#include "parse/entries.h"

const char *const crowdsec_ignored_names[CS_IGNORED_REASONS] = {
	[CS_IGNORED_TYPE] = "type",
	[CS_IGNORED_SCOPE] = "scope",
	[CS_IGNORED_VALUE] = "value",
	[CS_IGNORED_DURATION] = "duration",
	[CS_IGNORED_FIELDS] = "fields",
};

/*
 * The reply nests {"new": [ {decision} ]}: three levels, and a field's value
 * may be one more (json-c counts an object's members as a level of their own).
 */
#define REPLY_MAX_DEPTH 5
/*
 * json-c holds the reply as objects, each far larger than its text ("{}" is
 * hundreds of bytes): bytes of text per object and per value at least these,
 * counted before parsing, bound the memory to about 16 times the reply. A
 * real decision is 100 to 200 bytes of about 17 values.
 */
#define REPLY_BYTES_PER_OBJECT	64
#define REPLY_BYTES_PER_VALUE	4

void crowdsec_config_defaults(struct crowdsec_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_s = CROWDSEC_DEFAULT_INTERVAL_S;
	c->timeout_s = CROWDSEC_DEFAULT_TIMEOUT_S;
	c->max_bytes = CROWDSEC_DEFAULT_MAX_BYTES;
	c->scope_ip = c->scope_range = true;
}

bool crowdsec_config_equal(const struct crowdsec_config *a, const struct crowdsec_config *b)
{
	return a->enabled == b->enabled && !strcmp(a->lapi_url, b->lapi_url) &&
	       !strcmp(a->api_key, b->api_key) && a->interval_s == b->interval_s &&
	       a->timeout_s == b->timeout_s && a->max_bytes == b->max_bytes &&
	       a->scope_ip == b->scope_ip && a->scope_range == b->scope_range &&
	       !strcmp(a->ca_file, b->ca_file);
}

bool crowdsec_key_valid(const char *key)
{
	size_t n = strnlen(key, CROWDSEC_KEY_MAX);

	if (!n || n >= CROWDSEC_KEY_MAX)
		return false;
	for (; *key; key++)
		if ((unsigned char)*key <= 0x20 || (unsigned char)*key >= 0x7f)
			return false;
	return true;
}

int crowdsec_key_read(const char *path, char key[CROWDSEC_KEY_MAX], char *why, size_t len)
{
	char buf[CROWDSEC_KEY_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, len, "cannot open it: %s", strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "not a regular file");
		ret = -EINVAL;
		goto out;
	}
	/* A secret: only its owner, root or the one who runs the daemon, may read it. */
	if (st.st_mode & 077) {
		snprintf(why, len, "mode %04o lets others read it: chmod 600 it",
			 (unsigned int)(st.st_mode & 07777));
		ret = -EPERM;
		goto out;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(why, len, "owned by uid %u, neither root nor this user",
			 (unsigned int)st.st_uid);
		ret = -EPERM;
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		ret = -errno;
		snprintf(why, len, "cannot read it: %s", strerror(errno));
		goto out;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!crowdsec_key_valid(buf)) {
		snprintf(why, len, "its first line is not an API key (1 to %d printable "
			 "characters, no space)", CROWDSEC_KEY_MAX - 1);
		ret = -EINVAL;
		goto out;
	}
	memcpy(key, buf, strlen(buf) + 1);
out:
	close(fd);
	return ret;
}

/* One number of a duration: digits, maybe a fraction; nanoseconds per unit in *unit_ns. */
static int duration_unit(const char **s, __u64 *unit_ns)
{
	static const struct { const char *name; __u64 ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 }, { "\xce\xbcs", 1000 },
		{ "ms", 1000000 }, { "h", 3600000000000ULL }, { "m", 60000000000ULL },
		{ "s", 1000000000ULL },
	};
	size_t i, n;

	/* "ms" before "m": the longer name first where one is the other's start. */
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		n = strlen(units[i].name);
		if (!strncmp(*s, units[i].name, n)) {
			*s += n;
			*unit_ns = units[i].ns;
			return 0;
		}
	}
	return -EINVAL;
}

int crowdsec_duration_parse(const char *text, __s64 *ms)
{
	const __u64 max_ns = CROWDSEC_MAX_DURATION_MS * 1000000ULL;
	const char *s = text;
	__u64 total = 0, whole, frac, scale, unit, part;
	bool negative = false;
	int digits;

	if (*s == '-' || *s == '+')
		negative = *s++ == '-';
	if (!strcmp(s, "0")) {
		*ms = 0;
		return 0;
	}
	if (!*s)
		return -EINVAL;
	while (*s) {
		if (!isdigit((unsigned char)*s) && *s != '.')
			return -EINVAL;
		whole = 0;
		digits = 0;
		for (; isdigit((unsigned char)*s); s++, digits++) {
			if (whole > max_ns / 10)
				return -ERANGE;
			whole = whole * 10 + (*s - '0');
		}
		frac = 0;
		scale = 1;
		if (*s == '.') {
			/* Nanoseconds are the finest unit: 18 fraction digits are plenty. */
			for (s++; isdigit((unsigned char)*s); s++, digits++)
				if (scale < 1000000000000000000ULL) {
					frac = frac * 10 + (*s - '0');
					scale *= 10;
				}
		}
		if (!digits || duration_unit(&s, &unit))
			return -EINVAL;
		if (whole > max_ns / unit)
			return -ERANGE;
		part = whole * unit;
		/* The fraction's nanoseconds, rounded up; scale <= 1e18 and frac < scale. */
		part += (__u64)(((unsigned __int128)frac * unit + scale - 1) / scale);
		if (part > max_ns - total)
			return -ERANGE;
		total += part;
	}
	total = (total + 999999) / 1000000;
	*ms = negative ? -(__s64)total : (__s64)total;
	return 0;
}

/* Exactly one address entry, as 'add --format addr' reads it. */
static int count_entry(const struct entry *e, void *ctx)
{
	int *n = ctx;

	if (e->kind != ENTRY_ADDR || e->allow)
		return -EINVAL;
	(*n)++;
	return 0;
}

int crowdsec_value_canonical(const char *value, bool range, char out[CROWDSEC_VALUE_MAX])
{
	unsigned char addr[16];
	char text[CROWDSEC_VALUE_MAX], host[INET6_ADDRSTRLEN], *slash, *end;
	const char *why;
	unsigned long len = 0;
	int family, bits, i, n = 0;

	if (strnlen(value, CROWDSEC_VALUE_MAX) >= CROWDSEC_VALUE_MAX)
		return -EINVAL;
	strcpy(text, value);
	slash = strchr(text, '/');
	if (slash) {
		if (!range || !isdigit((unsigned char)slash[1]) || strlen(slash + 1) > 3)
			return -EINVAL;
		*slash = '\0';
		len = strtoul(slash + 1, &end, 10);
		if (*end)
			return -EINVAL;
	}
	family = strchr(text, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(family, text, addr) != 1)
		return -EINVAL;
	bits = family == AF_INET ? 32 : 128;
	if (!slash)
		len = bits;
	if ((long)len > bits ||
	    (long)len < (family == AF_INET ? CROWDSEC_MIN_PREFIX_V4 : CROWDSEC_MIN_PREFIX_V6))
		return -EINVAL;
	/* Host bits cleared, as CrowdSec's own parsing of a CIDR does. */
	for (i = 0; i < bits / 8; i++) {
		int keep = (int)len - i * 8;

		if (keep <= 0)
			addr[i] = 0;
		else if (keep < 8)
			addr[i] &= (unsigned char)(0xff00 >> keep);
	}
	if (!inet_ntop(family, addr, host, sizeof(host)))
		return -EINVAL;
	if ((long)len == bits)
		snprintf(out, CROWDSEC_VALUE_MAX, "%s", host);
	else
		snprintf(out, CROWDSEC_VALUE_MAX, "%s/%lu", host, len);
	/* What the list's own parser makes of it: one address entry, or it is refused. */
	snprintf(text, sizeof(text), "%s", out);
	if (entry_parse_line(text, FORMAT_ADDR, count_entry, &n, &why) || n != 1)
		return -EINVAL;
	return 0;
}

static const char *member_string(struct json_object *o, const char *key)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	/* "\u0000" makes a NUL inside: "192.0.2.6\u0000x" is not "192.0.2.6". */
	if ((size_t)json_object_get_string_len(v) != strlen(s))
		return NULL;
	return s;
}

/* One decision: into out (1), or counted as ignored (0). */
static int decision_read(struct json_object *o, bool is_new, bool scope_ip, bool scope_range,
			 struct crowdsec_decision *out, struct crowdsec_batch *b)
{
	const char *type, *scope, *value, *duration;
	bool range;

	if (!json_object_is_type(o, json_type_object) || !(type = member_string(o, "type")) ||
	    !(scope = member_string(o, "scope")) || !(value = member_string(o, "value")) ||
	    !(duration = member_string(o, "duration"))) {
		b->ignored[CS_IGNORED_FIELDS]++;
		return 0;
	}
	if (strcasecmp(type, "ban")) {
		b->ignored[CS_IGNORED_TYPE]++;
		return 0;
	}
	/* CrowdSec writes "Ip" and "Range"; its API compares them without case. */
	range = !strcasecmp(scope, "range");
	if ((!range && strcasecmp(scope, "ip")) || (range && !scope_range) ||
	    (!range && !scope_ip)) {
		b->ignored[CS_IGNORED_SCOPE]++;
		return 0;
	}
	if (crowdsec_value_canonical(value, range, out->value)) {
		b->ignored[CS_IGNORED_VALUE]++;
		return 0;
	}
	if (crowdsec_duration_parse(duration, &out->duration_ms) ||
	    (is_new && out->duration_ms <= 0)) {
		b->ignored[CS_IGNORED_DURATION]++;
		return 0;
	}
	return 1;
}

__attribute__((format(printf, 3, 4)))
static int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static int decisions_read(struct json_object *root, const char *key, bool scope_ip,
			  bool scope_range, struct crowdsec_batch *b, size_t *total, char *why,
			  size_t whylen)
{
	bool is_new = !strcmp(key, "new");
	struct crowdsec_decision *out;
	struct json_object *arr;
	size_t i, n, kept = 0;

	if (!json_object_object_get_ex(root, key, &arr) || json_object_is_type(arr, json_type_null))
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return refuse(why, whylen, "\"%s\" is not an array", key);
	n = json_object_array_length(arr);
	if (n > CROWDSEC_MAX_DECISIONS - *total)
		return refuse(why, whylen, "more than %d decisions", CROWDSEC_MAX_DECISIONS);
	*total += n;
	out = calloc(n ? n : 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		kept += decision_read(json_object_array_get_idx(arr, i), is_new, scope_ip,
				      scope_range, &out[kept], b);
	if (is_new) {
		b->added = out;
		b->nadded = kept;
	} else {
		b->deleted = out;
		b->ndeleted = kept;
	}
	return 0;
}

/* Counts objects and values (every '{', '[', ',' and ':', in strings too: an upper bound). */
static int reply_shape_check(const char *text, size_t len, char *why, size_t whylen)
{
	size_t i, objects = 0, values = 0;

	for (i = 0; i < len; i++) {
		objects += text[i] == '{';
		values += text[i] == '{' || text[i] == '[' || text[i] == ',' || text[i] == ':';
	}
	if (objects > len / REPLY_BYTES_PER_OBJECT + 2 || values > len / REPLY_BYTES_PER_VALUE + 16)
		return refuse(why, whylen, "%zu objects and %zu values in %zu bytes: not decisions",
			      objects, values, len);
	return 0;
}

int crowdsec_parse(const char *text, size_t len, bool scope_ip, bool scope_range,
		   struct crowdsec_batch *b, char *why, size_t whylen)
{
	struct json_tokener *tok;
	struct json_object *root = NULL;
	enum json_tokener_error err;
	size_t total = 0;
	int ret;

	memset(b, 0, sizeof(*b));
	if (len > INT_MAX)
		return refuse(why, whylen, "longer than %d bytes", INT_MAX);
	ret = reply_shape_check(text, len, why, whylen);
	if (ret)
		return ret;
	tok = json_tokener_new_ex(REPLY_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, text, (int)len);
	err = json_tokener_get_error(tok);
	if (!root || err != json_tokener_success) {
		ret = refuse(why, whylen, "not JSON: %s",
			     err == json_tokener_continue ? "it ends early" :
			     json_tokener_error_desc(err));
		goto out;
	}
	/* Nothing but white space after the object. */
	if (json_tokener_get_parse_end(tok) < len &&
	    strspn(text + json_tokener_get_parse_end(tok), " \t\r\n") !=
	    len - json_tokener_get_parse_end(tok)) {
		ret = refuse(why, whylen, "text after the JSON object");
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		ret = refuse(why, whylen, "not a JSON object");
		goto out;
	}
	ret = decisions_read(root, "new", scope_ip, scope_range, b, &total, why, whylen);
	if (!ret)
		ret = decisions_read(root, "deleted", scope_ip, scope_range, b, &total, why,
				     whylen);
out:
	if (ret)
		crowdsec_batch_free(b);
	json_object_put(root);
	json_tokener_free(tok);
	return ret;
}

void crowdsec_batch_free(struct crowdsec_batch *b)
{
	free(b->added);
	free(b->deleted);
	b->added = b->deleted = NULL;
	b->nadded = b->ndeleted = 0;
}
