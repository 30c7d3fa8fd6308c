// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* List lines: the formats' names, the dispatch of a line to its format, hosts files, plain IPv4. */
#include <errno.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parse/entries.h"
#include "parse/entry_emit.h"
#include "parse/keys.h"
#include "util/options.h"
#include "parse/prefixes.h"

const struct enum_value list_format_values[] = {
	ENUM_VALUE("auto", FORMAT_AUTO, "decided per line (the default; not csv)"),
	ENUM_VALUE("addr", FORMAT_ADDR, "203.0.113.7, 198.51.100.0/24, 192.0.2.1-192.0.2.9"),
	ENUM_VALUE("domain", FORMAT_DOMAIN, "evil.example: it and every name under it"),
	ENUM_VALUE("hosts", FORMAT_HOSTS, "0.0.0.0 evil.example (localhost skipped)"),
	ENUM_VALUE("adblock", FORMAT_ADBLOCK,
		   "||evil.example^, ||evil.example/path^, @@||ok.example^"),
	ENUM_VALUE("url", FORMAT_URL, "http://evil.example/path, evil.example/path"),
	ENUM_VALUE("dnsmasq", FORMAT_DNSMASQ,
		   "address=/evil.example/0.0.0.0, server=/evil.example/"),
	ENUM_VALUE("unbound", FORMAT_UNBOUND, "local-zone: \"evil.example\" always_nxdomain"),
	ENUM_VALUE("rpz", FORMAT_RPZ, "evil.example CNAME . (a response policy zone)"),
	ENUM_VALUE("csv", FORMAT_CSV, "rows of comma-separated values: see --column, --where"),
	{}
};

int list_format_parse(const char *name, enum list_format *format)
{
	__u32 value;

	if (enum_value_parse(list_format_values, name, &value))
		return -EINVAL;
	*format = value;
	return 0;
}

/* Names that hosts files map to themselves: never list them. */
static bool hosts_name_skipped(const char *name)
{
	static const char *const skipped[] = {
		"localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost",
		"ip6-loopback", "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes",
		"ip6-allrouters", "ip6-allhosts", "0.0.0.0",
	};
	size_t i;

	for (i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		if (!strcasecmp(name, skipped[i]))
			return true;
	return false;
}

/* "IP name [name...]": the names; localhost and the like are skipped. */
static int parse_hosts_line(char *text, entry_fn fn, void *ctx, const char **why)
{
	struct entry e = { .kind = ENTRY_NAME };
	struct bloomxdp_key unused;
	char *save, *tok, *name, *end, c;
	int pass, ret;

	tok = strtok_r(text, " \t", &save);
	if (!tok || key_parse(tok, &unused, why)) {
		*why = "a hosts line starts with an address";
		return -EINVAL;
	}
	/* Every name checked before the first is handed on: a line is taken whole or not. */
	for (pass = 0; pass < 2; pass++) {
		for (name = save; *(name += strspn(name, " \t")); name = end) {
			end = name + strcspn(name, " \t");
			c = *end;
			*end = '\0';
			ret = name_normalize(name, e.name, why) ? -EINVAL : 0;
			/* After normalising: "localhost." is localhost too. */
			if (!ret && pass && !hosts_name_skipped(e.name))
				ret = fn(&e, ctx);
			*end = c;
			if (ret)
				return ret;
		}
	}
	return 0;
}

static bool starts_with(const char *text, const char *prefix)
{
	return !strncmp(text, prefix, strlen(prefix));
}

/* Where a line's syntax says which format it is; the rest is an entry per line. */
static enum list_format detect_format(const char *text, const struct list_parse *p)
{
	if (p->zone_open_paren || (text[0] == '$' && rpz_line_is(text)))
		return FORMAT_RPZ;
	/* Adblock syntax, so that unsupported rules get an adblock reason. */
	if (starts_with(text, "||") || starts_with(text, "@@") || text[0] == '!' ||
	    text[0] == '[' || text[0] == '|' || strstr(text, "##") || strstr(text, "#@") ||
	    strstr(text, "#?#") || strstr(text, "#$#") || strstr(text, "#%#") ||
	    strchr(text, '$') ||
	    (text[0] == '/' && text[1] != '\0'))
		return FORMAT_ADBLOCK;
	/* A zone record has white space between its fields. */
	if (text[strcspn(text, " \t")] && rpz_line_is(text))
		return FORMAT_RPZ;
	if (starts_with(text, "address=") || starts_with(text, "server=") ||
	    starts_with(text, "local="))
		return FORMAT_DNSMASQ;
	if (starts_with(text, "local-zone:") || starts_with(text, "local-data:") ||
	    !strcmp(text, "server:"))
		return FORMAT_UNBOUND;
	if (text[strcspn(text, " \t")])
		return FORMAT_HOSTS;
	return entry_single_format(text);
}

void list_parse_init(struct list_parse *p, enum list_format format, const struct csv_spec *csv)
{
	memset(p, 0, sizeof(*p));
	p->format = format;
	p->csv = csv;
}

int entry_parse_line(char *text, enum list_format format, entry_fn fn, void *ctx,
		     const char **why)
{
	struct list_parse p;

	list_parse_init(&p, format, NULL);
	return list_parse_line(&p, text, fn, ctx, why);
}

/*
 * "a.b.c.d" or "a.b.c.d/len" as inet_pton() and key_parse() read them (no
 * leading zeros, octets to 255, no host bits after len) at the start of s:
 * the address key, in a fraction of their time, and where the text stops.
 * NULL for anything else, which the general path then parses and, if need
 * be, refuses with its reason.
 */
const char *ipv4_plain_scan(const char *s, struct bloomxdp_key *key)
{
	__u32 a = 0, v, len = 32, part;
	const char *start;
	__u8 be[4];

	for (part = 0; part < 4; part++) {
		start = s;
		for (v = 0; *s >= '0' && *s <= '9' && s - start < 3; s++)
			v = v * 10 + (*s - '0');
		if (s == start || v > 255 || (*start == '0' && s - start > 1))
			return NULL;
		a = a << 8 | v;
		if (part < 3 && *s++ != '.')
			return NULL;
	}
	if (*s == '/') {
		start = ++s;
		for (len = 0; *s >= '0' && *s <= '9' && s - start < 2; s++)
			len = len * 10 + (*s - '0');
		if (s == start || len > 32 || (*start == '0' && s - start > 1))
			return NULL;
	}
	if (len < 32 && (a & (0xffffffffU >> len)))
		return NULL;
	be[0] = a >> 24;
	be[1] = a >> 16;
	be[2] = a >> 8;
	be[3] = a;
	bloomxdp_key_ipv4(key, be, len);
	return s;
}

#ifdef __SSE2__
/*
 * Octet [start, e) of a line whose digit values are d[4 + i] (d[0..3] zero):
 * its value, and *bad set unless it is 1 to 3 digits without a leading zero
 * and at most 255. No branch: which lengths come is anyone's guess.
 */
static inline __u32 octet16(const __u8 *d, __u32 start, __u32 e, __u32 *bad)
{
	__u32 len = e - start, l = len & 3, w32, v;
	__u64 w;

	memcpy(&w32, d + e, sizeof(w32));	/* digits e - 4 .. e - 1, the last highest */
	w = w32 & (__u32)(0xffffffffULL << (8 * (4 - l)));
	v = (__u32)(w >> 24) + 10 * ((__u32)(w >> 16) & 0xff) + 100 * ((__u32)(w >> 8) & 0xff);
	*bad |= (len - 1 > 2) | (v > 255) | ((l > 1) & (((w >> (8 * (4 - l))) & 0xff) == 0));
	return v;
}

/*
 * ipv4_plain_scan() of "a.b.c.d" and the byte after it (a newline) found in
 * one 16-byte load: the digits and dots classified at once, each octet read
 * from its known length, without a branch per digit. Whatever it does not
 * take whole (a prefix, a leading zero, an octet over 255, over 15 bytes...)
 * goes to ipv4_plain_scan(), so that the two always agree.
 */
const char *ipv4_plain_scan16(const char *s, struct bloomxdp_key *key)
{
	__m128i text = _mm_loadu_si128((const __m128i *)s);
	__m128i digit = _mm_sub_epi8(text, _mm_set1_epi8('0'));
	__u32 digits = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)),
							digit));
	__u32 dots = _mm_movemask_epi8(_mm_cmpeq_epi8(text, _mm_set1_epi8('.')));
	/* end: the first byte neither digit nor dot, 16 when none is (bit 16 of ~ is set). */
	__u32 end = __builtin_ctz(~(digits | dots)), second, third, bad = 0, a, p[3];
	__u8 d[4 + 16 + 4] = { 0 }, be[4];

	dots &= (1U << end) - 1;
	second = dots & (dots - 1);
	third = second & (second - 1);
	if (end > 15 || !third || (third & (third - 1)) || s[end] == '/')
		return ipv4_plain_scan(s, key);
	_mm_storeu_si128((__m128i *)(d + 4), digit);
	p[0] = __builtin_ctz(dots);
	p[1] = __builtin_ctz(second);
	p[2] = __builtin_ctz(third);
	a = octet16(d, 0, p[0], &bad) << 24 | octet16(d, p[0] + 1, p[1], &bad) << 16 |
	    octet16(d, p[1] + 1, p[2], &bad) << 8 | octet16(d, p[2] + 1, end, &bad);
	if (bad)
		return ipv4_plain_scan(s, key);
	be[0] = a >> 24;
	be[1] = a >> 16;
	be[2] = a >> 8;
	be[3] = a;
	bloomxdp_key_ipv4(key, be, 32);
	return s + end;
}
#else
const char *ipv4_plain_scan16(const char *s, struct bloomxdp_key *key)
{
	return ipv4_plain_scan(s, key);
}
#endif

static bool ipv4_plain(const char *s, struct bloomxdp_key *key)
{
	s = ipv4_plain_scan(s, key);
	return s && !*s;
}

bool list_parse_plain_on(const struct list_parse *p)
{
	/* Auto takes such a line for an address too, unless inside a zone record. */
	return (p->format == FORMAT_AUTO || p->format == FORMAT_ADDR) && !p->zone_open_paren;
}

int list_parse_plain(struct list_parse *p, const char *text, entry_fn fn, void *ctx)
{
	/* Not zeroed whole: its name and path (half a KiB) would cost more than the parse. */
	struct entry e;

	e.kind = ENTRY_ADDR;
	e.allow = false;
	e.name[0] = '\0';
	e.path[0] = '\0';

	if (!list_parse_plain_on(p) || !ipv4_plain(text, &e.addr))
		return 1;
	p->widened = NULL;
	p->reason = NULL;
	return fn(&e, ctx);
}

int list_parse_line(struct list_parse *p, char *text, entry_fn fn, void *ctx, const char **why)
{
	enum list_format format = p->format;

	p->widened = NULL;
	p->reason = NULL;
	if (format == FORMAT_AUTO)
		format = detect_format(text, p);
	switch (format) {
	case FORMAT_ADDR:
		return entry_parse_addr(text, p, fn, ctx, why);
	case FORMAT_DOMAIN:
		return entry_emit_name(text, false, fn, ctx, why);
	case FORMAT_HOSTS:
		return parse_hosts_line(text, fn, ctx, why);
	case FORMAT_ADBLOCK:
		return adblock_parse_line(text, p, fn, ctx, why);
	case FORMAT_URL:
		return entry_parse_url(text, p, fn, ctx, why);
	case FORMAT_DNSMASQ:
		return dnsmasq_parse_line(text, p, fn, ctx, why);
	case FORMAT_UNBOUND:
		return unbound_parse_line(text, p, fn, ctx, why);
	case FORMAT_RPZ:
		return rpz_parse_line(text, p, fn, ctx, why);
	case FORMAT_CSV:
		return csv_parse_line(text, p, fn, ctx, why);
	case FORMAT_AUTO:
		break;
	}
	*why = "unknown format";
	return -EINVAL;
}
