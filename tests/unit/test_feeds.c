// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The feed formats operators load: adblock rules with their options and
 * exceptions, dnsmasq, Unbound, RPZ, address ranges, Spamhaus DROP, CSV;
 * --lenient's summary, widened URL paths, and public suffixes. Each line is
 * checked for exactly the entries it yields, or for the reason it is refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "parse/keys.h"
#include "lists/build.h"
#include "parse/listfile.h"
#include "parse/prefixes.h"
#include "parse/public_suffix.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* An entry as text: "A 192.0.2.0/24", "N name", "U host/path"; "X " before an exception. */
static void render_entry(const struct entry *e, char *out, size_t len)
{
	char addr[64];
	const char *x = e->allow ? "X " : "";

	switch (e->kind) {
	case ENTRY_ADDR:
		snprintf(out, len, "%sA %s/%u", x, prefix_text(&e->addr, addr, sizeof(addr)),
			 key_prefix_len(&e->addr));
		/* prefix_text() may give the length already. */
		if (strchr(addr, '/'))
			snprintf(out, len, "%sA %s", x, addr);
		return;
	case ENTRY_NAME:
		snprintf(out, len, "%sN %s", x, e->name);
		return;
	case ENTRY_URL:
		snprintf(out, len, "%sU %s%s", x, e->name, e->path);
		return;
	}
	snprintf(out, len, "? kind %d", e->kind);
}

struct rendered {
	char text[4096];
	int n;
};

static int render_cb(const struct entry *e, void *arg)
{
	struct rendered *r = arg;
	size_t used = strlen(r->text);
	char one[600];

	render_entry(e, one, sizeof(one));
	snprintf(r->text + used, sizeof(r->text) - used, "%s%s", r->n ? ", " : "", one);
	r->n++;
	return 0;
}

static const char *format_name(enum list_format f)
{
	return enum_value_name(list_format_values, f);
}

/* One line on its own, in a format. */
static int parse_one(const char *line, enum list_format format, const struct csv_spec *csv,
		     struct rendered *r, const char **why, const char **widened)
{
	struct list_parse p;
	char text[2048];
	int ret;

	snprintf(text, sizeof(text), "%s", line);
	memset(r, 0, sizeof(*r));
	*why = NULL;
	list_parse_init(&p, format, csv);
	ret = list_parse_line(&p, text, render_cb, r, why);
	if (widened)
		*widened = p.widened;
	return ret;
}

static void expect(const char *line, enum list_format format, const char *want)
{
	struct rendered r;
	const char *why;
	int ret = parse_one(line, format, NULL, &r, &why, NULL);

	if (ret)
		fail_msg("'%s' (%s): refused: %d %s", line, format_name(format), ret,
			 why ? why : "");
	if (strcmp(r.text, want))
		fail_msg("'%s' (%s): got '%s', want '%s'", line, format_name(format), r.text, want);
}

/* In its own format and, when auto tells it apart, in auto. */
static void expect_both(const char *line, enum list_format format, const char *want)
{
	expect(line, format, want);
	expect(line, FORMAT_AUTO, want);
}

static void refused(const char *line, enum list_format format, const char *why_part)
{
	struct rendered r;
	const char *why;
	int ret = parse_one(line, format, NULL, &r, &why, NULL);

	if (ret != -EINVAL)
		fail_msg("'%s' (%s): returned %d with '%s', want -EINVAL", line,
			 format_name(format), ret, r.text);
	if (!why || !strstr(why, why_part))
		fail_msg("'%s' (%s): reason '%s', want one with '%s'", line, format_name(format),
			 why ? why : "(none)", why_part);
	/* A refused line hands nothing on: --lenient skips it whole. */
	if (r.n)
		fail_msg("'%s' (%s): refused, yet passed on '%s'", line, format_name(format),
			 r.text);
}

static void refused_both(const char *line, enum list_format format, const char *why_part)
{
	refused(line, format, why_part);
	refused(line, FORMAT_AUTO, why_part);
}

/* ---- adblock ------------------------------------------------------------ */

static void test_adblock_blocks(void **state)
{
	(void)state;
	expect_both("||evil.example^", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^|", FORMAT_ADBLOCK, "N evil.example");
	/* Options that keep the rule blocking the whole host. */
	expect_both("||evil.example^$all", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^$important", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^$doc", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^$document", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^$popup", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^$popunder", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^$all,important", FORMAT_ADBLOCK, "N evil.example");
	expect_both("||evil.example^$doc,match-case", FORMAT_ADBLOCK, "N evil.example");
	/* An address host is an address. */
	expect_both("||192.0.2.7^", FORMAT_ADBLOCK, "A 192.0.2.7/32");
	/* URL rules: at a '/' boundary, as bloomxdp matches paths. */
	expect_both("||evil.example/malware/x.exe^", FORMAT_ADBLOCK,
		    "U evil.example/malware/x.exe");
	expect_both("||evil.example/malware/x.exe^$all", FORMAT_ADBLOCK,
		    "U evil.example/malware/x.exe");
	expect_both("||evil.example/dl/|", FORMAT_ADBLOCK, "U evil.example/dl");
	expect_both("||01net.example/telecharger/$doc", FORMAT_ADBLOCK,
		    "U 01net.example/telecharger");
	expect_both("||192.0.2.7/a/b^", FORMAT_ADBLOCK, "U 192.0.2.7/a/b");
	/* uBlock Origin's plain host lines. */
	expect("evil.example", FORMAT_ADBLOCK, "N evil.example");
	expect("192.0.2.7", FORMAT_ADBLOCK, "A 192.0.2.7/32");
	/* Comments, headers, preprocessor directives: nothing. */
	expect_both("! Title: EasyList", FORMAT_ADBLOCK, "");
	expect_both("[Adblock Plus 2.0]", FORMAT_ADBLOCK, "");
	expect_both("!#if env_firefox", FORMAT_ADBLOCK, "");
}

static void test_adblock_exceptions(void **state)
{
	(void)state;
	expect_both("@@||good.example^", FORMAT_ADBLOCK, "X N good.example");
	expect_both("@@||good.example^$important", FORMAT_ADBLOCK, "X N good.example");
	refused_both("@@||good.example^$generichide", FORMAT_ADBLOCK,
		     "exception with option $generichide");
	refused_both("@@||good.example^$domain=a.example", FORMAT_ADBLOCK,
		     "exception with option $domain");
	refused_both("@@||good.example^$document", FORMAT_ADBLOCK,
		     "exception with option $document");
	refused_both("@@||good.example/ads.js^", FORMAT_ADBLOCK, "URL exception");
	refused_both("@@||192.0.2.7^", FORMAT_ADBLOCK, "exception of an address");
	refused_both("@@/ads/", FORMAT_ADBLOCK, "regular expression");
}

static void test_adblock_refused(void **state)
{
	(void)state;
	refused_both("example.com##.ad", FORMAT_ADBLOCK, "cosmetic");
	refused_both("example.com#@#.ad", FORMAT_ADBLOCK, "cosmetic");
	refused_both("example.com##+js(nobab)", FORMAT_ADBLOCK, "cosmetic");
	refused_both("example.com#$#body { color: red }", FORMAT_ADBLOCK, "cosmetic");
	refused_both("example.com#%#//scriptlet('x')", FORMAT_ADBLOCK, "cosmetic");
	refused_both("||ads.example^$third-party", FORMAT_ADBLOCK, "option $third-party narrows");
	refused_both("||ads.example^$3p", FORMAT_ADBLOCK, "option $3p narrows");
	refused_both("||ads.example^$script,domain=a.example", FORMAT_ADBLOCK, "option $script");
	refused_both("||ads.example^$doc,domain=a.example", FORMAT_ADBLOCK, "option $domain");
	refused_both("||ads.example^$~third-party", FORMAT_ADBLOCK, "option $~third-party");
	refused_both("||ads.example^$badfilter", FORMAT_ADBLOCK, "option $badfilter");
	refused_both("||ads.example^$doc,ipaddress=/^1\\.2$/", FORMAT_ADBLOCK,
		     "option $ipaddress");
	refused_both("/banner\\d+\\.gif/", FORMAT_ADBLOCK, "regular expression");
	refused_both("/^https?:\\/\\/ads\\./$doc", FORMAT_ADBLOCK, "regular expression");
	refused_both("||ads.*.example^", FORMAT_ADBLOCK, "wildcard");
	refused_both("||ads.example/*/x.js^", FORMAT_ADBLOCK, "wildcard");
	refused_both("||ads.example", FORMAT_ADBLOCK, "without '^' after the host");
	refused_both("||ads.$doc", FORMAT_ADBLOCK, "without '^' after the host");
	refused_both("||ads.example:8080^", FORMAT_ADBLOCK, "port");
	refused_both("||ads.example/track?id=", FORMAT_ADBLOCK, "query string");
	refused_both("||ads.example^ads.js", FORMAT_ADBLOCK, "more after the host's '^'");
	refused_both("||ads.example/banner", FORMAT_ADBLOCK, "does not end at a separator");
	refused_both("|https://ads.example/", FORMAT_ADBLOCK, "not anchored at a host");
	refused("/banner/ad.", FORMAT_ADBLOCK, "not anchored at a host");
	refused("-ad-banner.", FORMAT_ADBLOCK, "not anchored at a host");
	refused("&ad_id=", FORMAT_ADBLOCK, "not anchored at a host");
}

/* A hosts line with a bad name hands on none of its names: --lenient skips it whole. */
static void test_hosts_whole_line(void **state)
{
	(void)state;
	expect_both("0.0.0.0 a.example localhost b.example", FORMAT_HOSTS,
		    "N a.example, N b.example");
	refused_both("0.0.0.0 a.example b..example", FORMAT_HOSTS, "empty label");
}

/* ---- dnsmasq ------------------------------------------------------------ */

static void test_dnsmasq(void **state)
{
	(void)state;
	expect_both("address=/evil.example/0.0.0.0", FORMAT_DNSMASQ, "N evil.example");
	expect_both("address=/evil.example/::", FORMAT_DNSMASQ, "N evil.example");
	expect_both("address=/evil.example/127.0.0.1", FORMAT_DNSMASQ, "N evil.example");
	expect_both("address=/evil.example/", FORMAT_DNSMASQ, "N evil.example");
	expect_both("address=/evil.example/#", FORMAT_DNSMASQ, "N evil.example");
	expect_both("address=/.evil.example/0.0.0.0", FORMAT_DNSMASQ, "N evil.example");
	expect_both("address=/a.example/b.example/::", FORMAT_DNSMASQ, "N a.example, N b.example");
	expect_both("server=/evil.example/", FORMAT_DNSMASQ, "N evil.example");
	expect_both("local=/evil.example/", FORMAT_DNSMASQ, "N evil.example");
	expect_both("server=/a.example/b.example/", FORMAT_DNSMASQ, "N a.example, N b.example");

	refused_both("server=/corp.example/192.0.2.53", FORMAT_DNSMASQ,
		     "forwards the domain to that server: not a block");
	refused_both("server=/corp.example/192.0.2.53#5353", FORMAT_DNSMASQ, "forwards");
	refused_both("server=/corp.example/#", FORMAT_DNSMASQ, "usual servers: not a block");
	refused_both("address=/portal.example/192.0.2.80", FORMAT_DNSMASQ,
		     "answers with an address: a redirect, not a block");
	refused_both("address=/#/0.0.0.0", FORMAT_DNSMASQ, "every domain");
	refused_both("address=/a.example/#/", FORMAT_DNSMASQ, "every domain");
	refused_both("server=192.0.2.53", FORMAT_DNSMASQ, "upstream for every domain");
	refused_both("address=//0.0.0.0", FORMAT_DNSMASQ, "empty domain");
	/* A bad second domain: the first is not handed on either. */
	refused_both("address=/a.example/b..example/0.0.0.0", FORMAT_DNSMASQ, "empty label");
	refused("conf-file=/etc/dnsmasq.d/x.conf", FORMAT_DNSMASQ, "dnsmasq option conf-file=");
	refused("no-resolv", FORMAT_DNSMASQ, "not a dnsmasq option");
}

/* ---- Unbound ------------------------------------------------------------ */

static void test_unbound(void **state)
{
	static const char *const blocks[] = {
		"deny", "refuse", "static", "inform_deny", "always_refuse", "always_nxdomain",
		"always_null",
	};
	static const char *const others[] = {
		"transparent", "typetransparent", "always_transparent", "redirect", "inform",
		"inform_redirect", "nodefault",
	};
	char line[128], why[128];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(blocks); i++) {
		snprintf(line, sizeof(line), "local-zone: \"evil.example\" %s", blocks[i]);
		expect_both(line, FORMAT_UNBOUND, "N evil.example");
	}
	for (i = 0; i < ARRAY_SIZE(others); i++) {
		snprintf(line, sizeof(line), "local-zone: \"ok.example\" %s", others[i]);
		snprintf(why, sizeof(why), "local-zone type %s: not a block", others[i]);
		refused_both(line, FORMAT_UNBOUND, why);
	}
	expect_both("local-zone: evil.example. always_nxdomain", FORMAT_UNBOUND, "N evil.example");
	expect_both("local-zone:\t\"EVIL.example.\"\trefuse", FORMAT_UNBOUND, "N evil.example");
	expect_both("server:", FORMAT_UNBOUND, "");
	refused_both("local-zone: \"evil.example\" nxdomain_please", FORMAT_UNBOUND,
		     "local-zone type unknown");
	refused_both("local-zone: \"evil.example\"", FORMAT_UNBOUND, "takes a zone and a type");
	refused_both("local-zone: \".\" refuse", FORMAT_UNBOUND, "root zone");
	refused_both("local-data: \"evil.example A 0.0.0.0\"", FORMAT_UNBOUND, "local-data");
	refused("include: \"/etc/unbound/x.conf\"", FORMAT_UNBOUND, "other than local-zone");
}

/* ---- address ranges and Spamhaus DROP ---------------------------------- */

static void test_ranges(void **state)
{
	(void)state;
	expect_both("192.0.2.0-192.0.2.255", FORMAT_ADDR, "A 192.0.2.0/24");
	expect_both("192.0.2.1-192.0.2.6", FORMAT_ADDR,
		    "A 192.0.2.1/32, A 192.0.2.2/31, A 192.0.2.4/31, A 192.0.2.6/32");
	expect_both("192.0.2.7-192.0.2.7", FORMAT_ADDR, "A 192.0.2.7/32");
	expect_both("0.0.0.0-255.255.255.255", FORMAT_ADDR, "A 0.0.0.0/0");
	expect_both("255.255.255.254-255.255.255.255", FORMAT_ADDR, "A 255.255.255.254/31");
	expect_both("10.0.0.0-10.255.255.254", FORMAT_ADDR,
		    "A 10.0.0.0/9, A 10.128.0.0/10, A 10.192.0.0/11, A 10.224.0.0/12, "
		    "A 10.240.0.0/13, A 10.248.0.0/14, A 10.252.0.0/15, A 10.254.0.0/16, "
		    "A 10.255.0.0/17, A 10.255.128.0/18, A 10.255.192.0/19, A 10.255.224.0/20, "
		    "A 10.255.240.0/21, A 10.255.248.0/22, A 10.255.252.0/23, "
		    "A 10.255.254.0/24, A 10.255.255.0/25, A 10.255.255.128/26, "
		    "A 10.255.255.192/27, A 10.255.255.224/28, A 10.255.255.240/29, "
		    "A 10.255.255.248/30, A 10.255.255.252/31, A 10.255.255.254/32");
	expect_both("2001:db8::-2001:db8::ff", FORMAT_ADDR, "A 2001:db8::/120");
	expect_both("2001:db8::1-2001:db8::2", FORMAT_ADDR, "A 2001:db8::1/128, A 2001:db8::2/128");
	expect_both("::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", FORMAT_ADDR, "A ::/0");
	expect_both("2001:db8::-2001:db8::ffff:ffff:ffff:ffff", FORMAT_ADDR, "A 2001:db8::/64");
	expect_both("2001:db8::-2001:db8:0:ffff:ffff:ffff:ffff:ffff", FORMAT_ADDR,
		    "A 2001:db8::/48");
	/* IPv4-mapped: the IPv4 range. */
	expect_both("::ffff:192.0.2.0-::ffff:192.0.2.127", FORMAT_ADDR, "A 192.0.2.0/25");

	refused_both("192.0.2.9-192.0.2.1", FORMAT_ADDR, "start comes after its end");
	refused_both("192.0.2.1-2001:db8::1", FORMAT_ADDR, "different address families");
	refused_both("192.0.2.1-192.0.2.x", FORMAT_ADDR, "a range is two IPv4 or two IPv6");
	refused("192.0.2.1-", FORMAT_ADDR, "a range is two");
	/* Decimal numbers only in CSV fields. */
	refused("3221225985-3221225990", FORMAT_ADDR, "not an IPv4 or IPv6 address");
	/* A name with '-' stays a name. */
	expect_both("dead-beef.example", FORMAT_DOMAIN, "N dead-beef.example");
	expect("my-host", FORMAT_AUTO, "N my-host");
}

/* Every range is covered exactly, by prefixes no two of which could merge. */
static void test_ranges_are_exact_and_minimal(void **state)
{
	unsigned int seed = 12345, t;

	(void)state;
	for (t = 0; t < 2000; t++) {
		__u32 lo = (rand_r(&seed) % 5000) + (192U << 24), hi = lo + rand_r(&seed) % 3000;
		__u32 next = lo, prev_start = 0, prev_len = 0, start, size;
		char line[64], a[16], b[16];
		struct rendered r;
		const char *why, *s;
		struct in_addr in;
		int n = 0;

		in.s_addr = htonl(lo);
		inet_ntop(AF_INET, &in, a, sizeof(a));
		in.s_addr = htonl(hi);
		inet_ntop(AF_INET, &in, b, sizeof(b));
		snprintf(line, sizeof(line), "%s-%s", a, b);
		assert_int_equal(parse_one(line, FORMAT_ADDR, NULL, &r, &why, NULL), 0);
		for (s = r.text; *s; n++) {
			char addr[20];
			unsigned int len;

			assert_int_equal(sscanf(s, "A %19[0-9.]/%u", addr, &len), 2);
			assert_int_equal(inet_pton(AF_INET, addr, &in), 1);
			start = ntohl(in.s_addr);
			size = len ? 1U << (32 - len) : 0;
			/* Contiguous, aligned, within the range. */
			assert_int_equal(start, next);
			assert_int_equal(start & (size - 1), 0);
			/* Siblings of one length would be one prefix of the next shorter. */
			if (n && len == prev_len && !(prev_start & size))
				fail_msg("%s: %s/%u and its sibling are not merged", line,
					 addr, len);
			prev_start = start;
			prev_len = len;
			next = start + size;
			s = strstr(s, ", ");
			s = s ? s + 2 : "";
		}
		assert_int_equal(next - 1, hi);
	}
}

static void test_spamhaus_drop(void **state)
{
	char l1[] = "; Spamhaus DROP List 2024/01/01 - (c) 2024 The Spamhaus Project",
	     l2[] = "1.10.16.0/20 ; SBL256894", l3[] = "2001:db8::/32 ; SBL1", l4[] = "a;b";

	(void)state;
	assert_null(list_line_entry(l1));
	assert_string_equal(list_line_entry(l2), "1.10.16.0/20");
	assert_string_equal(list_line_entry(l3), "2001:db8::/32");
	/* Only at the start or after white space, as '#'. */
	assert_string_equal(list_line_entry(l4), "a;b");
	expect("1.10.16.0/20", FORMAT_AUTO, "A 1.10.16.0/20");
}

/* ---- RPZ ----------------------------------------------------------------- */

static void test_rpz_lines(void **state)
{
	(void)state;
	expect_both("evil.example CNAME .", FORMAT_RPZ, "N evil.example");
	expect_both("*.evil.example CNAME .", FORMAT_RPZ, "N evil.example");
	expect_both("evil.example 300 IN CNAME .", FORMAT_RPZ, "N evil.example");
	expect_both("evil.example IN 300 cname .", FORMAT_RPZ, "N evil.example");
	expect_both("nodata.example CNAME *.", FORMAT_RPZ, "N nodata.example");
	expect_both("drop.example CNAME rpz-drop.", FORMAT_RPZ, "N drop.example");
	expect_both("null.example A 0.0.0.0", FORMAT_RPZ, "N null.example");
	expect_both("null.example AAAA ::", FORMAT_RPZ, "N null.example");
	expect_both("ok.example CNAME rpz-passthru.", FORMAT_RPZ, "X N ok.example");
	expect_both("32.7.2.0.192.rpz-ip CNAME .", FORMAT_RPZ, "A 192.0.2.7/32");
	expect_both("24.0.100.51.198.rpz-ip CNAME .", FORMAT_RPZ, "A 198.51.100.0/24");
	expect_both("48.zz.db8.2001.rpz-ip CNAME .", FORMAT_RPZ, "A 2001:db8::/48");
	expect_both("128.1.zz.db8.2001.rpz-ip CNAME .", FORMAT_RPZ, "A 2001:db8::1/128");
	expect_both("32.7.2.0.192.rpz-ip CNAME rpz-passthru.", FORMAT_RPZ, "X A 192.0.2.7/32");
	expect_both("$TTL 2h", FORMAT_RPZ, "");
	expect_both("@ IN NS localhost.", FORMAT_RPZ, "");
	expect_both("@ 3600 IN SOA localhost. root.localhost. 1 3600 900 604800 300", FORMAT_RPZ,
		    "");

	refused_both("walled.example CNAME garden.example.", FORMAT_RPZ,
		     "CNAME to garden.example.: a redirect");
	refused_both("tcp.example CNAME rpz-tcp-only.", FORMAT_RPZ, "rpz-tcp-only.: not a block");
	refused_both("portal.example A 192.0.2.80", FORMAT_RPZ, "a redirect, not a block");
	refused_both("txt.example TXT \"x\"", FORMAT_RPZ, "record type other than");
	refused_both("ns.evil.example.rpz-nsdname CNAME .", FORMAT_RPZ, "name-server trigger");
	refused_both("32.7.2.0.192.rpz-client-ip CNAME .", FORMAT_RPZ, "client or name-server");
	refused_both("33.7.2.0.192.rpz-ip CNAME .", FORMAT_RPZ, "not a prefix length");
	refused_both("24.7.2.0.192.rpz-ip CNAME .", FORMAT_RPZ, "not a prefix length");
	refused_both("$INCLUDE other.zone", FORMAT_RPZ, "$INCLUDE");
	refused_both("$GENERATE 1-9 x$ CNAME .", FORMAT_RPZ, "directive other than");
	refused("evil.example", FORMAT_RPZ, "not a zone record");
	/* A hosts line is never a zone record, whatever its names. */
	expect("0.0.0.0 a", FORMAT_AUTO, "N a");
}

/* ---- files: state across lines, --lenient, widened ------------------------ */

static void write_list(char path[32], const char *content)
{
	int fd;

	strcpy(path, "/tmp/bloomxdp-feedXXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

/* Reads content as a file; the rendered entries in r, the notes in notes. */
static int read_file(const char *content, struct list_read_opts *o, struct rendered *r,
		     struct list_notes *notes, char err[LIST_ERROR_LEN], char path[32])
{
	int ret;

	write_list(path, content);
	memset(r, 0, sizeof(*r));
	memset(notes, 0, sizeof(*notes));
	o->notes = notes;
	err[0] = '\0';
	ret = list_read(path, o, render_cb, r, err);
	unlink(path);
	return ret;
}

static void test_rpz_zone_file(void **state)
{
	struct list_read_opts o = { .format = FORMAT_AUTO };
	char err[LIST_ERROR_LEN], path[32];
	struct list_notes notes;
	struct rendered r;

	(void)state;
	assert_int_equal(read_file("$TTL 2h\n"
				   "$ORIGIN rpz.example.\n"
				   "@ IN SOA localhost. root.localhost. (\n"
				   "        2024010101 ; serial\n"
				   "        3600       ; refresh\n"
				   "        86400 )    ; the rest\n"
				   "  IN NS  localhost.\n"
				   "evil.example        CNAME .\n"
				   "*.evil.example      CNAME .\n"
				   "abs.example.rpz.example. CNAME .\n"
				   "32.7.2.0.192.rpz-ip CNAME .\n"
				   "ok.example          CNAME rpz-passthru.\n", &o, &r, &notes, err,
				   path), 0);
	assert_string_equal(r.text, "N evil.example, N evil.example, N abs.example, "
				    "A 192.0.2.7/32, X N ok.example");

	/* Without $ORIGIN, an absolute SOA owner names the zone. */
	assert_int_equal(read_file("rpz.example. 300 IN SOA ns. admin. 1 2 3 4 5\n"
				   "rpz.example. NS ns.\n"
				   "abs.example.rpz.example. CNAME .\n"
				   "other.example. CNAME .\n", &o, &r, &notes, err, path), -EINVAL);
	assert_string_equal(r.text, "N abs.example");
	assert_non_null(strstr(err, ":4: other.example. CNAME .: RPZ owner name outside"));
}

static void test_lenient(void **state)
{
	struct list_read_opts o = { .format = FORMAT_ADBLOCK, .lenient = true };
	char err[LIST_ERROR_LEN], path[32];
	struct list_notes notes;
	struct rendered r;
	int i;

	(void)state;
	assert_int_equal(read_file("[Adblock Plus 2.0]\n"
				   "! comment\n"
				   "||a.example^\n"				/* 3 */
				   "||b.example^$third-party\n"			/* 4 */
				   "##.banner\n"				/* 5 */
				   "example.com##.ad\n"				/* 6 */
				   "||c.example^$script\n"			/* 7 */
				   "/ads/\n"					/* 8 */
				   "||d.example^$popup\n"			/* 9 */
				   "##.more\n"					/* 10 */
				   "#@#.more\n"					/* 11 */
				   "@@||e.example^\n"				/* 12 */
				   "||f.example/1/2/3/4/5/6/7/8/9/10^\n",	/* 13 */
				   &o, &r, &notes, err, path), 0);
	assert_string_equal(r.text, "N a.example, N d.example, X N e.example, "
				    "U f.example/1/2/3/4/5/6/7/8");
	assert_int_equal(notes.skipped, 7);
	assert_int_equal(notes.widened, 1);
	assert_int_equal(notes.n, 4);
	/* Per reason: how many, and the first places. */
	assert_non_null(strstr(notes.note[0].why, "narrows the rule"));
	assert_int_equal(notes.note[0].count, 2);
	assert_int_equal(notes.note[0].first[0].line, 4);
	assert_int_equal(notes.note[0].first[1].line, 7);
	assert_string_equal(notes.note[0].first[0].file, path);
	assert_non_null(strstr(notes.note[1].why, "cosmetic"));
	assert_int_equal(notes.note[1].count, 4);
	assert_int_equal(notes.note[1].first[0].line, 5);
	assert_int_equal(notes.note[1].first[1].line, 6);
	assert_int_equal(notes.note[1].first[2].line, 10);
	assert_non_null(strstr(notes.note[2].why, "regular expression"));
	assert_int_equal(notes.note[2].first[0].line, 8);
	assert_true(notes.note[3].widened);
	assert_non_null(strstr(notes.note[3].why, "8 segments"));
	assert_int_equal(notes.note[3].first[0].line, 13);

	/* Without --lenient the first such line stops the read, named. */
	o.lenient = false;
	assert_int_equal(read_file("||a.example^\n||b.example^$third-party\n||c.example^\n", &o,
				   &r, &notes, err, path), -EINVAL);
	assert_string_equal(r.text, "N a.example");
	assert_non_null(strstr(err, ":2: ||b.example^$third-party: adblock option $third-party"));
	/* ... and says what reads the rest. */
	assert_non_null(strstr(err, "; --lenient skips such lines"));

	/* In auto format a line starting with '#' is a comment; in adblock, a rule. */
	o.format = FORMAT_AUTO;
	o.lenient = true;
	assert_int_equal(read_file("##.banner\n||a.example^\n", &o, &r, &notes, err, path), 0);
	assert_int_equal(notes.skipped, 0);

	/* More reasons than are kept: the rest are counted. */
	{
		char text[64 * 48] = "";

		for (i = 0; i < LIST_NOTE_REASONS + 5; i++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 "address=/a.example/192.0.2.%d\n"
				 "local-zone: a.example x%d\n", i, i);
		assert_int_equal(read_file(text, &o, &r, &notes, err, path), 0);
	}
	/* dnsmasq redirects are one reason, unknown local-zone types another. */
	assert_int_equal(notes.n, 2);
	assert_int_equal(notes.note[0].count, LIST_NOTE_REASONS + 5);
	assert_int_equal(notes.skipped, 2 * (LIST_NOTE_REASONS + 5));
}

/* ---- wide prefixes (issue 21: 0.0.0.0/0 blocked all of IPv4) --------------- */

static void test_wide_prefixes(void **state)
{
	struct list_read_opts o = { .format = FORMAT_AUTO, .refuse_wide = true };
	static const char list[] = "192.0.2.1\n"
				   "10.0.0.0/8\n"			/* 2: /8 is taken */
				   "0.0.0.0/0\n"			/* 3 */
				   "128.0.0.0/1\n"			/* 4 */
				   "::ffff:0:0/100\n"			/* 5: an IPv4 /4 */
				   "2001:db8::/32\n"			/* 6 */
				   "2000::/3\n"				/* 7 */
				   "1.0.0.0-3.255.255.255\n"		/* 8: 2.0.0.0/7 in it */
				   "1.0.0.0-1.255.255.255\n"		/* 9: a /8 */
				   "evil.example\n";
	char err[LIST_ERROR_LEN], path[32];
	struct list_notes notes;
	struct rendered r;
	struct csv_spec s;
	const char *why;

	(void)state;
	/* Without --lenient: the first stops the read, naming --allow-wide and --lenient. */
	assert_int_equal(read_file(list, &o, &r, &notes, err, path), -EINVAL);
	assert_string_equal(r.text, "A 192.0.2.1/32, A 10.0.0.0/8");
	assert_non_null(strstr(err, ":3: 0.0.0.0/0: a prefix shorter than /8 (IPv4) or /32 "
				    "(IPv6)"));
	assert_non_null(strstr(err, "give --allow-wide"));
	assert_non_null(strstr(err, "--lenient skips such lines"));
	/* With it: each skipped and noted, a range whole (none of its prefixes kept). */
	o.lenient = true;
	assert_int_equal(read_file(list, &o, &r, &notes, err, path), 0);
	assert_string_equal(r.text, "A 192.0.2.1/32, A 10.0.0.0/8, A 2001:db8::/32, "
				    "A 1.0.0.0/8, N evil.example");
	assert_int_equal(notes.skipped, 5);
	assert_int_equal(notes.n, 1);
	assert_int_equal(notes.note[0].count, 5);
	assert_int_equal(notes.note[0].first[0].line, 3);
	assert_int_equal(notes.note[0].first[1].line, 4);
	assert_int_equal(notes.note[0].first[2].line, 5);
	/* A CSV range too. */
	o.format = FORMAT_CSV;
	assert_int_equal(csv_spec_parse("1,2", NULL, 0, &s, &why), 0);
	o.csv = &s;
	assert_int_equal(read_file("0.0.0.0,255.255.255.255,ZZ\n1.0.0.0,1.0.0.255,AU\n", &o, &r,
				   &notes, err, path), 0);
	assert_string_equal(r.text, "A 1.0.0.0/24");
	assert_int_equal(notes.skipped, 1);
	/* --allow-wide: all taken. */
	o.format = FORMAT_AUTO;
	o.csv = NULL;
	o.lenient = false;
	o.refuse_wide = false;
	assert_int_equal(read_file(list, &o, &r, &notes, err, path), 0);
	assert_non_null(strstr(r.text, "A 0.0.0.0/0, A 128.0.0.0/1, A 0.0.0.0/4, "));
	assert_non_null(strstr(r.text, "A 2000::/3, A 1.0.0.0/8, A 2.0.0.0/7, A 1.0.0.0/8"));
}

/* ---- CSV ----------------------------------------------------------------- */

static void csv_spec(struct csv_spec *s, const char *columns, const char *const *where, int n)
{
	const char *why;

	assert_int_equal(csv_spec_parse(columns, where, n, s, &why), 0);
}

static void test_csv(void **state)
{
	struct list_read_opts o = { .format = FORMAT_CSV };
	static const char geo[] = "start,end,country\n"
				  "1.0.0.0,1.0.0.255,AU\n"
				  "1.0.1.0,1.0.3.255,CN\n"
				  "\"1.0.4.0\", \"1.0.7.255\" ,\"AU\"\n"
				  "2001:200::,2001:200:ffff:ffff:ffff:ffff:ffff:ffff,JP\n";
	char err[LIST_ERROR_LEN], path[32];
	struct list_notes notes;
	struct rendered r;
	struct csv_spec s;
	const char *why;

	(void)state;
	/* A range from two columns; the header row is skipped. */
	csv_spec(&s, "1,2", NULL, 0);
	o.csv = &s;
	assert_int_equal(read_file(geo, &o, &r, &notes, err, path), 0);
	assert_string_equal(r.text, "A 1.0.0.0/24, A 1.0.1.0/24, A 1.0.2.0/23, A 1.0.4.0/22, "
				    "A 2001:200::/32");
	/* Rows picked by --where; alternatives of one column. */
	csv_spec(&s, "1-2", (const char *const[]){ "3=AU" }, 1);
	assert_int_equal(read_file(geo, &o, &r, &notes, err, path), 0);
	assert_string_equal(r.text, "A 1.0.0.0/24, A 1.0.4.0/22");
	csv_spec(&s, "1,2", (const char *const[]){ "3=JP", "3=CN" }, 2);
	assert_int_equal(read_file(geo, &o, &r, &notes, err, path), 0);
	assert_string_equal(r.text, "A 1.0.1.0/24, A 1.0.2.0/23, A 2001:200::/32");
	/* Different columns must all match. */
	csv_spec(&s, "1,2", (const char *const[]){ "3=AU", "1=1.0.4.0" }, 2);
	assert_int_equal(read_file(geo, &o, &r, &notes, err, path), 0);
	assert_string_equal(r.text, "A 1.0.4.0/22");
	/* Decimal numbers (Tor's geoip, IP2Location): up to 2^32 - 1 IPv4, above IPv6. */
	csv_spec(&s, "1,2", NULL, 0);
	assert_int_equal(read_file("16777216,16777471,AU\n"
				   "42540528726795050063891204319802818560,"
				   "42540528806023212578155541913346768895,JP\n", &o, &r, &notes,
				   err, path), 0);
	assert_string_equal(r.text, "A 1.0.0.0/24, A 2001:200::/32");
	/* One column: any entry, domains included. */
	csv_spec(&s, "2", NULL, 0);
	assert_int_equal(read_file("id,domain,why\n"
				   "1,evil.example,malware\n"
				   "2,\"bad,quoted.example\",x\n", &o, &r, &notes, err, path),
			 -EINVAL);
	assert_string_equal(r.text, "N evil.example");
	assert_non_null(strstr(err, ":3: 2,\"bad,quoted.example\",x: a name holds only"));
	/* A row without the column, after the first: an error at its line. */
	csv_spec(&s, "3", NULL, 0);
	assert_int_equal(read_file("a,b,192.0.2.1\n192.0.2.2\n", &o, &r, &notes, err, path),
			 -EINVAL);
	assert_non_null(strstr(err, ":2: 192.0.2.2: CSV row of 1 columns: --column and --where "
				    "need 3"));

	/* --format csv without --column: refused, not read as column 1 (issue 21). */
	assert_non_null(csv_options_check(FORMAT_CSV, NULL, 0));
	assert_non_null(strstr(csv_options_check(FORMAT_CSV, NULL, 0), "needs --column"));
	assert_non_null(csv_options_check(FORMAT_CSV, NULL, 1));
	assert_null(csv_options_check(FORMAT_CSV, "1,2", 0));
	assert_null(csv_options_check(FORMAT_AUTO, NULL, 0));
	assert_non_null(strstr(csv_options_check(FORMAT_AUTO, "1", 0), "go with --format csv"));

	assert_int_equal(csv_spec_parse("0", NULL, 0, &s, &why), -EINVAL);
	assert_int_equal(csv_spec_parse("1,x", NULL, 0, &s, &why), -EINVAL);
	assert_int_equal(csv_spec_parse("1,2,3", NULL, 0, &s, &why), -EINVAL);
	assert_int_equal(csv_spec_parse("1", (const char *const[]){ "3" }, 1, &s, &why), -EINVAL);
	assert_int_equal(csv_spec_parse("1", (const char *const[]){ "x=AU" }, 1, &s, &why),
			 -EINVAL);
	assert_non_null(strstr(why, "--where takes COLUMN=VALUE"));
}

/* ---- public suffixes ----------------------------------------------------- */

static void test_public_suffixes(void **state)
{
	static const char *const yes[] = {
		"com", "uk", "co.uk", "edu.pl", "github.io", "blogspot.com", "s3.amazonaws.com",
		"xn--p1ai", "foo.ck",
	};
	static const char *const no[] = {
		"example.com", "uw.edu.pl", "www.ck", "user.github.io", "wpad", "lan",
		"evil.example",
	};
	size_t i;

	(void)state;
	assert_true(public_suffix_available());
	for (i = 0; i < ARRAY_SIZE(yes); i++)
		if (!public_suffix_is(yes[i]))
			fail_msg("%s: not taken for a public suffix", yes[i]);
	for (i = 0; i < ARRAY_SIZE(no); i++)
		if (public_suffix_is(no[i]))
			fail_msg("%s: taken for a public suffix", no[i]);
}

/* The build notes each public suffix with its place; exceptions are kept apart. */
static void test_build_suffixes_and_exceptions(void **state)
{
	char err[LIST_ERROR_LEN], path[32], text[512];
	struct list_build b;

	(void)state;
	write_list(path, "mail.example\nedu.pl\n0.0.0.0 github.io ok.example\n"
			 "@@||co.uk^\n@@||fine.example^\n||com^\n");
	list_build_init(&b, NULL, 6);
	assert_int_equal(list_build_read(&b, path, FORMAT_AUTO, err), 0);
	assert_int_equal(list_build_finish(&b, err), 0);
	assert_int_equal(b.read, 5);
	assert_int_equal(b.suffixes.count, 3);
	snprintf(text, sizeof(text), "%s:2 (edu.pl), %s:3 (github.io), %s:6 (com)", path, path,
		 path);
	assert_string_equal(list_suffixes_text(&b.suffixes, err, sizeof(err)), text);
	assert_int_equal(b.allowed_suffixes.count, 1);
	assert_int_equal(b.allowed_suffixes.first[0].place.line, 4);
	assert_int_equal(b.nexceptions, 2);
	assert_string_equal(b.exceptions[0].name, "co.uk");
	assert_string_equal(b.exceptions[1].name, "fine.example");
	list_build_free(&b);

	/* --lenient without --allow-public-suffix: each skipped, noted where (issue 21). */
	list_build_init(&b, NULL, 6);
	b.skip_suffixes = true;
	assert_int_equal(list_build_read(&b, path, FORMAT_AUTO, err), 0);
	assert_int_equal(list_build_finish(&b, err), 0);
	assert_int_equal(b.read, 2);
	assert_int_equal(b.suffixes.count, 0);
	assert_int_equal(b.allowed_suffixes.count, 1);	/* @@||co.uk^ allows, blocks nothing */
	assert_int_equal(b.notes.skipped, 3);
	assert_int_equal(b.notes.n, 1);
	assert_int_equal(b.notes.note[0].count, 3);
	assert_int_equal(b.notes.note[0].first[0].line, 2);
	assert_int_equal(b.notes.note[0].first[1].line, 3);
	assert_int_equal(b.notes.note[0].first[2].line, 6);
	assert_non_null(strstr(b.notes.note[0].why, "--allow-public-suffix"));
	list_build_free(&b);

	/* In the allowlist every name is allowed: suffixes noted apart, no exceptions kept. */
	list_build_init(&b, NULL, 6);
	b.allowlist = true;
	assert_int_equal(list_build_read(&b, path, FORMAT_AUTO, err), 0);
	assert_int_equal(b.read, 7);
	assert_int_equal(b.suffixes.count, 0);
	assert_int_equal(b.allowed_suffixes.count, 4);
	assert_int_equal(b.nexceptions, 0);
	list_build_free(&b);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adblock_blocks),
		cmocka_unit_test(test_adblock_exceptions),
		cmocka_unit_test(test_adblock_refused),
		cmocka_unit_test(test_hosts_whole_line),
		cmocka_unit_test(test_dnsmasq),
		cmocka_unit_test(test_unbound),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_ranges_are_exact_and_minimal),
		cmocka_unit_test(test_spamhaus_drop),
		cmocka_unit_test(test_rpz_lines),
		cmocka_unit_test(test_rpz_zone_file),
		cmocka_unit_test(test_lenient),
		cmocka_unit_test(test_wide_prefixes),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_public_suffixes),
		cmocka_unit_test(test_build_suffixes_and_exceptions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
