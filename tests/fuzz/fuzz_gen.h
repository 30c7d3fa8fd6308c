/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Frame generator of the XDP fuzzer: a seeded PRNG, the lists the program is
 * loaded with (as text for 'bloomxdp load', and as the fuzzer's own reading
 * of them, for the membership oracle), and frames: random bytes, and
 * structure-aware ones (Ethernet, 0-3 VLAN tags, IPv4 with options and
 * fragments, IPv6 with extension chains, UDP DNS queries, TCP HTTP requests
 * and TLS ClientHellos, QUIC Initials) built with the tests/bpf harness, then
 * mutated.
 *
 * A structured frame says what the program should find in it (the name, the
 * path, whether its parser accepts it) unless a mutation or a deliberate
 * damage made that unknowable: then only the invariants are checked.
 *
 * Header-only, static inline throughout, like the harness it builds on.
 */
#ifndef FUZZ_GEN_H
#define FUZZ_GEN_H

/* Frames of up to 3 KiB: names behind more than 1024 bytes of IPv6 extension headers. */
#define FRAME_MAX	3072

#include <ctype.h>
#include <stdio.h>
#include "names_harness.h"
#include "quic_wire.h"
#include "dns_wire.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ----------------------------------------------------------------- PRNG */

/* splitmix64: one 64-bit word of state, so that any frame can be regenerated alone. */
struct rng {
	__u64 s;
};

static inline __u64 rng_next(struct rng *r)
{
	__u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The stream of frame b of configuration a (or of another use a) for a seed. */
static inline struct rng rng_for(__u64 seed, __u64 a, __u64 b)
{
	struct rng r = { seed ^ (a + 1) * 0xd6e8feb86659fd93ULL };

	r.s ^= rng_next(&r) + b * 0xc2b2ae3d27d4eb4fULL;
	rng_next(&r);
	return r;
}

/* Uniform in [0, n). */
static inline __u32 rng_below(struct rng *r, __u32 n)
{
	return n ? (__u32)(((rng_next(r) >> 32) * n) >> 32) : 0;
}

/* Uniform in [lo, hi]. */
static inline __u32 rng_range(struct rng *r, __u32 lo, __u32 hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

static inline bool rng_pct(struct rng *r, __u32 pct)
{
	return rng_below(r, 100) < pct;
}

static inline void rng_bytes(struct rng *r, __u8 *p, __u32 n)
{
	while (n--)
		*p++ = rng_next(r);
}

static inline __u16 get_be16(const __u8 *p)
{
	return p[0] << 8 | p[1];
}

/* ----------------------------------------------------------------- lists */

#define FZ_MAX_ADDRS	128
#define FZ_MAX_NAMES	192
#define FZ_MAX_URLS	8
#define FZ_MAX_LINES	(FZ_MAX_ADDRS + FZ_MAX_NAMES + FZ_MAX_URLS)

struct fz_prefix {
	int v6;
	__u8 addr[16];		/* IPv4 in the first 4 bytes */
	int len;
};

struct fz_url {
	char host[NAME_TEXT_MAX];
	char path[BLOOMXDP_PATH_MAX + 1];	/* "" or "/a/b", no trailing '/' */
};

/*
 * A list twice: its lines, as 'bloomxdp load' reads them, and what they mean
 * after docs/operations.md (normalised names, prefixes, host/path), written here by
 * hand so that the oracle does not share the CLI's parser.
 */
struct fz_set {
	const char *lines[FZ_MAX_LINES];
	char *owned[FZ_MAX_LINES];
	size_t nlines, nowned;
	struct fz_prefix addrs[FZ_MAX_ADDRS];
	int naddrs;
	char names[FZ_MAX_NAMES][NAME_TEXT_MAX];
	int nnames;
	struct fz_url urls[FZ_MAX_URLS];
	int nurls;
};

struct fz_world {
	struct fz_set block;
	struct fz_set allow;
};

/* One fixed list line and its meaning: 'A' address/prefix, 'N' a name, 'U' host and path. */
struct fz_fixed {
	const char *line;
	char kind;
	const char *a, *b;
};

#define FZ_R10(s)	s s s s s s s s s s
#define FZ_L60(c)	FZ_R10(c c c c c c)
#define FZ_L63(c)	FZ_L60(c) c c c
#define FZ_LONGEST	FZ_L63("c") "." FZ_L63("c") "." FZ_L63("c") "." FZ_L60("c") "c"
#define FZ_SIXTEEN	"p.o.n.m.l.k.j.i.h.g.f.e.d.c.b.a"

static const struct fz_fixed fz_fixed_block[] = {
	{ "192.0.2.1", 'A', "192.0.2.1", "32" },
	{ "198.51.100.77", 'A', "198.51.100.77", "32" },
	{ "203.0.113.0/24", 'A', "203.0.113.0", "24" },
	{ "198.18.0.0/15", 'A', "198.18.0.0", "15" },
	{ "100.64.12.0/22", 'A', "100.64.12.0", "22" },
	{ "::ffff:192.0.2.99", 'A', "192.0.2.99", "32" },	/* IPv4, docs/operations.md */
	{ "2001:db8::1", 'A', "2001:db8::1", "128" },
	{ "2001:db8:bad::/48", 'A', "2001:db8:bad::", "48" },
	{ "2001:db8:dead:beef::/64", 'A', "2001:db8:dead:beef::", "64" },
	{ "evil.example", 'N', "evil.example", NULL },
	{ "||ads.example^", 'N', "ads.example", NULL },
	{ "0.0.0.0 tracker.example", 'N', "tracker.example", NULL },
	{ "Mixed.CASE.example.", 'N', "mixed.case.example", NULL },
	{ FZ_L63("a") ".example", 'N', FZ_L63("a") ".example", NULL },
	{ FZ_LONGEST, 'N', FZ_LONGEST, NULL },
	{ FZ_SIXTEEN, 'N', FZ_SIXTEEN, NULL },
	{ "badtld", 'N', "badtld", NULL },	/* one label: every name's TLD is probed */
	{ "good.example/malware/", 'U', "good.example", "/malware" },
	{ "http://whole.example", 'U', "whole.example", "" },
	{ "seg.example/a/b/c/d/e/f/g/h", 'U', "seg.example", "/a/b/c/d/e/f/g/h" },
	{ "https://porty.example:8443/dl?x=1", 'U', "porty.example", "/dl" },
};

/* Inside listed prefixes and under listed names: the allowlist wins. */
static const struct fz_fixed fz_fixed_allow[] = {
	{ "203.0.113.7", 'A', "203.0.113.7", "32" },
	{ "198.19.128.0/17", 'A', "198.19.128.0", "17" },
	{ "2001:db8:bad::7", 'A', "2001:db8:bad::7", "128" },
	{ "good.evil.example", 'N', "good.evil.example", NULL },
	{ "safe.ads.example", 'N', "safe.ads.example", NULL },
};

static inline void fz_set_line(struct fz_set *s, const char *line, bool owned)
{
	assert(s->nlines < FZ_MAX_LINES);
	s->lines[s->nlines++] = line;
	if (owned)
		s->owned[s->nowned++] = (char *)line;
}

static inline void fz_set_addr(struct fz_set *s, int v6, const void *addr, int len)
{
	struct fz_prefix *p = &s->addrs[s->naddrs++];

	assert(s->naddrs <= FZ_MAX_ADDRS);
	p->v6 = v6;
	memset(p->addr, 0, sizeof(p->addr));
	memcpy(p->addr, addr, v6 ? 16 : 4);
	p->len = len;
}

static inline void fz_set_fixed(struct fz_set *s, const struct fz_fixed *e, size_t n)
{
	__u8 addr[16];
	size_t i;
	int v6;

	for (i = 0; i < n; i++, e++) {
		fz_set_line(s, e->line, false);
		switch (e->kind) {
		case 'A':
			v6 = strchr(e->a, ':') != NULL;
			assert(inet_pton(v6 ? AF_INET6 : AF_INET, e->a, addr) == 1);
			fz_set_addr(s, v6, addr, atoi(e->b));
			break;
		case 'N':
			assert(s->nnames < FZ_MAX_NAMES);
			snprintf(s->names[s->nnames++], NAME_TEXT_MAX, "%s", e->a);
			break;
		case 'U':
			assert(s->nurls < FZ_MAX_URLS);
			snprintf(s->urls[s->nurls].host, NAME_TEXT_MAX, "%s", e->a);
			snprintf(s->urls[s->nurls++].path, BLOOMXDP_PATH_MAX + 1, "%s", e->b);
			break;
		}
	}
}

static const char fz_label_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789-_";

/* A random label of len characters a list accepts. */
static inline void fz_label(struct rng *r, char *out, __u32 len)
{
	__u32 i;

	for (i = 0; i < len; i++)
		out[i] = fz_label_chars[rng_below(r, i ? sizeof(fz_label_chars) - 1 : 26)];
	out[len] = '\0';
}

static inline char *fz_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *fz_printf(const char *fmt, ...)
{
	char buf[NAME_TEXT_MAX + 64], *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s = strdup(buf);
	assert(s);
	return s;
}

/* The blocklist: the fixed lines, and seeded random names, hosts and prefixes. */
static inline void fz_world_init(struct fz_world *w, __u64 seed)
{
	struct rng r = rng_for(seed, 1000, 0);
	char a[16], b[16], text[64];
	__u8 addr[16];
	int i;

	memset(w, 0, sizeof(*w));
	fz_set_fixed(&w->block, fz_fixed_block, ARRAY_SIZE(fz_fixed_block));
	fz_set_fixed(&w->allow, fz_fixed_allow, ARRAY_SIZE(fz_fixed_allow));
	/* Names under .blk: random listed names never shadow the unlisted names made below. */
	for (i = 0; i < 120; i++) {
		fz_label(&r, a, rng_range(&r, 1, 12));
		fz_label(&r, b, rng_range(&r, 1, 8));
		snprintf(w->block.names[w->block.nnames], NAME_TEXT_MAX, "%s%s%s.blk", a,
			 i & 1 ? "." : "", i & 1 ? b : "");
		fz_set_line(&w->block, fz_printf("%s", w->block.names[w->block.nnames++]), true);
	}
	for (i = 0; i < 40; i++) {		/* IPv4 hosts in 10/8 */
		addr[0] = 10;
		rng_bytes(&r, addr + 1, 3);
		fz_set_addr(&w->block, 0, addr, 32);
		inet_ntop(AF_INET, addr, text, sizeof(text));
		fz_set_line(&w->block, fz_printf("%s", text), true);
	}
	for (i = 0; i < 20; i++) {		/* IPv6 hosts in 2001:db8:1::/48 */
		assert(inet_pton(AF_INET6, "2001:db8:1::", addr) == 1);
		rng_bytes(&r, addr + 6, 10);
		fz_set_addr(&w->block, 1, addr, 128);
		inet_ntop(AF_INET6, addr, text, sizeof(text));
		fz_set_line(&w->block, fz_printf("%s", text), true);
	}
	for (i = 0; i < 6; i++) {		/* prefixes in 172.16/12 and 2001:db8:2::/48 */
		static const int v4_lengths[] = { 20, 24, 28 }, v6_lengths[] = { 56, 64, 96 };
		int v6 = i & 1, plen = v6 ? v6_lengths[i / 2] : v4_lengths[i / 2], k;

		memset(addr, 0, sizeof(addr));
		if (v6) {
			assert(inet_pton(AF_INET6, "2001:db8:2::", addr) == 1);
			rng_bytes(&r, addr + 6, 10);
		} else {
			addr[0] = 172;
			rng_bytes(&r, addr + 1, 3);
			addr[1] = 16 | (addr[1] & 15);
		}
		for (k = plen; k < (v6 ? 128 : 32); k++)
			addr[k / 8] &= ~(0x80 >> (k % 8));
		fz_set_addr(&w->block, v6, addr, plen);
		inet_ntop(v6 ? AF_INET6 : AF_INET, addr, text, sizeof(text));
		fz_set_line(&w->block, fz_printf("%s/%d", text, plen), true);
	}
}

static inline void fz_world_free(struct fz_world *w)
{
	size_t i;

	for (i = 0; i < w->block.nowned; i++)
		free(w->block.owned[i]);
	for (i = 0; i < w->allow.nowned; i++)
		free(w->allow.owned[i]);
}

/* ------------------------------------------------------ membership oracle */

/* addr (4 or 16 bytes) inside a listed prefix of its family. */
static inline bool fz_addr_in(const struct fz_set *s, int v6, const __u8 *addr)
{
	int i, k, bits;

	for (i = 0; i < s->naddrs; i++) {
		const struct fz_prefix *p = &s->addrs[i];

		if (p->v6 != v6)
			continue;
		bits = p->len;
		for (k = 0; k < bits / 8; k++)
			if (p->addr[k] != addr[k])
				break;
		if (k < bits / 8)
			continue;
		if (bits % 8 && ((p->addr[k] ^ addr[k]) & (0xff00 >> (bits % 8))))
			continue;
		return true;
	}
	return false;
}

/* name (lower case, no trailing dot) is domain or under it, at a label boundary. */
static inline bool fz_under(const char *name, const char *domain)
{
	size_t n = strlen(name), d = strlen(domain);

	if (n < d || strcmp(name + n - d, domain))
		return false;
	return n == d || name[n - d - 1] == '.';
}

static inline bool fz_name_in(const struct fz_set *s, const char *name)
{
	int i;

	for (i = 0; i < s->nnames; i++)
		if (fz_under(name, s->names[i]))
			return true;
	return false;
}

/* A request for host/path (query cut) is covered by a listed URL: path prefix at a '/' boundary. */
static inline bool fz_url_in(const struct fz_set *s, const char *host, const char *path)
{
	size_t n;
	int i;

	for (i = 0; i < s->nurls; i++) {
		if (!fz_under(host, s->urls[i].host))
			continue;
		n = strlen(s->urls[i].path);
		if (!strncmp(path, s->urls[i].path, n) && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- frames */

enum fz_parse {
	FZ_UNKNOWN,	/* mutated or damaged: the parser may say anything */
	FZ_PARSED,	/* the parser must accept it and find name (and path) */
	FZ_UNPARSED,	/* the parser must refuse it (unparsed_* counter) */
};

#define FZ_MAX_LENF	32

/* A length field (or a byte that says where the next header is), for mutations. */
struct fz_lenf {
	__u16 off;
	__u8 width;
};

struct fz_frame {
	struct frame f;
	const char *kind;	/* "random", "dns", "http", ... */
	char what[192];		/* how it was built and mutated */
	bool mutated;
	enum app app;		/* what the payload is */
	__u16 app_port;		/* the port the payload was sent to */
	enum fz_parse parse;
	char name[BLOOMXDP_NAME_MAX + 2];	/* the name the parser must find, lower case */
	char path[BLOOMXDP_PATH_MAX + 1];	/* HTTP: path of the target, query cut */
	bool has_path;		/* HTTP: path prefixes are looked up */
	bool quic;		/* a QUIC Initial (fz_gen_quic()): parse says what of its hello */
	bool quic_ech;		/* ... whose hello the reader finds ECH in */
	bool answer;		/* a DNS response from a DNS port (fz_gen_dns_answer()) */
	int defect;		/* known-defect class of the construction, 0: none */
	struct fz_lenf lenf[FZ_MAX_LENF];
	int nlenf;
};

static inline void fz_what(struct fz_frame *fr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void fz_what(struct fz_frame *fr, const char *fmt, ...)
{
	size_t n = strlen(fr->what);
	va_list ap;

	if (n + 2 >= sizeof(fr->what))
		return;
	if (n)
		fr->what[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(fr->what + n, sizeof(fr->what) - n, fmt, ap);
	va_end(ap);
}

static inline void fz_lenf(struct fz_frame *fr, __u32 off, __u8 width)
{
	if (fr->nlenf < FZ_MAX_LENF)
		fr->lenf[fr->nlenf++] = (struct fz_lenf){ off, width };
}

static inline __u32 fz_room(const struct fz_frame *fr)
{
	return FRAME_MAX - fr->f.len;
}

/* What the generator needs of a configuration. */
struct fz_gen_cfg {
	const struct fz_world *world;
	bool allowlist;
	__u16 dns_ports[BLOOMXDP_MAX_PORTS];
	__u16 http_ports[BLOOMXDP_MAX_PORTS];
	__u16 tls_ports[BLOOMXDP_MAX_PORTS];
	__u16 quic_ports[BLOOMXDP_MAX_PORTS];
};

static inline __u16 fz_pick_port(struct rng *r, const __u16 ports[BLOOMXDP_MAX_PORTS])
{
	int n = 0;

	while (n < BLOOMXDP_MAX_PORTS && ports[n])
		n++;
	return n ? ports[rng_below(r, n)] : 9;
}

/* ------------------------------------------------------------- addresses */

/* An address of the family: listed, allowlisted, unlisted or special. */
static inline void fz_gen_addr(struct rng *r, const struct fz_gen_cfg *g, int v6, __u8 out[16])
{
	const struct fz_set *s = g->allowlist && rng_pct(r, 25) ? &g->world->allow :
				 &g->world->block;
	static const char *const special4[] = { "0.0.0.0", "255.255.255.255", "127.0.0.1",
						"192.0.2.0", "192.0.2.2", "203.0.112.255" };
	static const char *const special6[] = { "::", "::1", "ff02::1", "fe80::1",
						"2001:db8::", "2001:db8::2" };
	__u32 u = rng_below(r, 100), i, k, tries;

	memset(out, 0, 16);
	if (v6 && u < 8) {			/* ::ffff:a.b.c.d: matched as IPv4 */
		__u8 v4[16];

		fz_gen_addr(r, g, 0, v4);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, v4, 4);
		return;
	}
	if (u < 25) {				/* inside a listed (or allowed) prefix */
		for (tries = 0; tries < 64; tries++) {
			const struct fz_prefix *p = &s->addrs[rng_below(r, s->naddrs)];

			if (p->v6 != v6)
				continue;
			rng_bytes(r, out, 16);
			for (k = 0; k < (__u32)p->len; k++) {
				__u8 bit = 0x80 >> (k % 8);

				out[k / 8] = (out[k / 8] & ~bit) | (p->addr[k / 8] & bit);
			}
			if (!v6)
				memset(out + 4, 0, 12);
			return;
		}
	}
	if (u < 32) {
		i = rng_below(r, ARRAY_SIZE(special4));
		assert(inet_pton(v6 ? AF_INET6 : AF_INET, v6 ? special6[i] : special4[i],
				 out) == 1);
		return;
	}
	rng_bytes(r, out, v6 ? 16 : 4);		/* at random: listed only by a rare chance */
	if (v6 && rng_pct(r, 50))
		memcpy(out, "\x20\x01\x0d\xb8", 4);
}

/* ----------------------------------------------------------------- names */

enum fz_name_kind { NAME_LISTED, NAME_URL_HOST, NAME_ALLOWED, NAME_UNLISTED, NAME_NEAR_MISS };

/*
 * A name a list accepts, lower case, at most max characters: a listed name
 * with 0 to many labels in front, or one that is not listed (other TLDs, and
 * near misses: a label glued on, another TLD, one character changed).
 */
static inline enum fz_name_kind fz_gen_name(struct rng *r, const struct fz_gen_cfg *g, char *out,
					    size_t max)
{
	const struct fz_world *w = g->world;
	static const char *const tlds[] = { "ok", "test", "example", "org", "example.org" };
	enum fz_name_kind kind;
	char base[NAME_TEXT_MAX], label[64];
	__u32 u = rng_below(r, 100), n, i, len;

	if (u < 35) {
		kind = NAME_LISTED;
		snprintf(base, sizeof(base), "%s", w->block.names[rng_below(r, w->block.nnames)]);
	} else if (u < 45) {
		kind = NAME_URL_HOST;
		snprintf(base, sizeof(base), "%s",
			 w->block.urls[rng_below(r, w->block.nurls)].host);
	} else if (u < 52 && g->allowlist) {
		kind = NAME_ALLOWED;
		snprintf(base, sizeof(base), "%s", w->allow.names[rng_below(r, w->allow.nnames)]);
	} else if (u < 70) {
		kind = NAME_NEAR_MISS;
		snprintf(base, sizeof(base), "%s", w->block.names[rng_below(r, w->block.nnames)]);
		len = strlen(base);
		switch (rng_below(r, 3)) {
		case 0:			/* a label glued on the left: "notevil.example" */
			if (len + 3 < sizeof(base)) {
				memmove(base + 3, base, len + 1);
				memcpy(base, "not", 3);
			}
			break;
		case 1:			/* another TLD after it: "evil.example.org" */
			if (len + 4 < sizeof(base))
				strcat(base, ".org");
			break;
		default:		/* one character changed (not a dot) */
			i = rng_below(r, len);
			if (base[i] != '.')
				base[i] = base[i] == 'q' ? 'z' : 'q';
			break;
		}
	} else {
		kind = NAME_UNLISTED;
		fz_label(r, base, rng_range(r, 1, 12));
		strcat(base, ".");
		strcat(base, tlds[rng_below(r, ARRAY_SIZE(tlds))]);
	}

	/* Labels in front: none, a few, or as many as fit (more than 16 labels). */
	u = rng_below(r, 100);
	n = u < 40 ? 0 : u < 85 ? rng_range(r, 1, 3) : u < 95 ? rng_range(r, 4, 20) : 200;
	out[0] = '\0';
	len = strlen(base);
	for (i = 0; i < n; i++) {
		__u32 l = rng_pct(r, 3) ? 63 : rng_range(r, 1, n > 20 ? 3 : 10);

		if (strlen(out) + l + 1 + len > max)
			break;
		fz_label(r, label, l);
		strcat(out, label);
		strcat(out, ".");
	}
	if (strlen(out) + len > max)
		out[0] = '\0';
	if (len > max)
		base[max] = '\0';	/* cannot happen with the lists above */
	strcat(out, base);
	return kind;
}

/* Every label of 1 to 63 bytes: what each parser accepts. */
static inline bool fz_labels_ok(const char *name)
{
	const char *dot;
	size_t n;

	for (;;) {
		dot = strchr(name, '.');
		n = dot ? (size_t)(dot - name) : strlen(name);
		if (n < 1 || n > BLOOMXDP_LABEL_MAX)
			return false;
		if (!dot)
			return true;
		name = dot + 1;
	}
}

/* A payload built to parse whose name a parser refuses after all (a label of 64 or more). */
static inline void fz_check_labels(struct fz_frame *fr)
{
	if (fr->parse == FZ_PARSED && !fz_labels_ok(fr->name)) {
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "label>63");
	}
}

/* The name as a sender may write it: random case (DNS 0x20), maybe a trailing dot. */
static inline void fz_case(struct rng *r, const char *in, char *out, bool dot)
{
	size_t i, n = strlen(in);
	bool mixed = rng_pct(r, 40);

	for (i = 0; i < n; i++)
		out[i] = mixed && rng_pct(r, 50) ? toupper((unsigned char)in[i]) : in[i];
	out[n] = '\0';
	if (dot)
		strcat(out, ".");
}

/* ------------------------------------------------------------------- L2-L4 */

struct fz_ip {
	bool v6;
	__u32 l3, l4;		/* offsets */
	__u8 proto;
};

/* IPv6 extension header of len bytes (of the right multiple for its type). */
static inline void fz_ipv6_ext(struct fz_frame *fr, __u8 type, __u8 next, __u32 len,
			       __u16 frag)
{
	__u32 off = fr->f.len;
	__u8 *h;

	if (type == IPPROTO_FRAGMENT) {
		frame_ipv6_ext(&fr->f, type, next, frag);
	} else if (type == IPPROTO_AH) {
		h = frame_put(&fr->f, len);
		h[0] = next;
		h[1] = len / 4 - 2;
		h[7] = 1;			/* SPI */
	} else {
		/* Hop-by-hop, dstopts: PadN; routing and mobility share the length's form. */
		frame_ipv6_dstopts(&fr->f, next, len, NULL, 0);
		h = fr->f.data + off;
		if (type == IPPROTO_ROUTING) {
			h[2] = 4;		/* segment routing, 0 segments left */
			h[3] = 0;
		} else if (type == IPPROTO_MH) {
			h[2] = 59;		/* payload proto: none */
			h[3] = 0;
		}
	}
	fz_lenf(fr, off, 1);
	fz_lenf(fr, off + 1, 1);
}

/* A length of the type's form: mostly short. */
static inline __u32 fz_ext_len(struct rng *r, __u8 type)
{
	__u32 units;

	if (type == IPPROTO_FRAGMENT)
		return 8;
	units = rng_pct(r, 80) ? rng_range(r, 0, 3) : rng_range(r, 4, 40);
	return type == IPPROTO_AH ? (units + 2) * 4 : (units + 1) * 8;
}

/* The length of the type's form closest to want, at or below it. */
static inline __u32 fz_ext_fit(__u8 type, __u32 want)
{
	if (type == IPPROTO_FRAGMENT)
		return 8;
	if (type == IPPROTO_AH)
		return want < 8 ? 8 : want > 257 * 4 ? 257 * 4 : want & ~3U;
	return want < 8 ? 8 : want > 256 * 8 ? 256 * 8 : want & ~7U;
}

/*
 * Ethernet, VLAN tags and the IP header(s) up to L4. Returns false for a
 * non-IP frame (finished here). May damage the L3 header on purpose.
 */
static inline bool fz_gen_l3(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr,
			     struct fz_ip *ip, __u8 proto, __u32 payload_room)
{
	static const __u8 ext_types[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT,
					  IPPROTO_DSTOPTS, IPPROTO_AH, IPPROTO_MH };
	struct frame *f = &fr->f;
	__u32 u = rng_below(r, 100), nvlan, i, ext_budget, total, want;
	bool long_chain;
	__u16 tpid[3], ethertype;
	__u8 src[16], dst[16], types[12];
	__u32 lens[12], next_n;

	nvlan = u < 55 ? 0 : u < 75 ? 1 : u < 92 ? 2 : 3;
	for (i = 0; i < nvlan; i++)
		tpid[i] = rng_pct(r, 50) ? ETH_P_8021Q : ETH_P_8021AD;
	u = rng_below(r, 100);
	ethertype = u < 46 ? ETH_P_IP : u < 92 ? ETH_P_IPV6 : u < 96 ? ETH_P_ARP :
		    (__u16)rng_next(r);
	frame_eth(f, nvlan ? tpid[0] : ethertype);
	fz_lenf(fr, 12, 2);
	for (i = 0; i < nvlan; i++) {
		frame_vlan(f, rng_range(r, 1, 4094), i + 1 < nvlan ? tpid[i + 1] : ethertype);
		fz_lenf(fr, f->len - 2, 2);
	}
	if (nvlan)
		fz_what(fr, "vlans=%u", nvlan);
	if (ethertype != ETH_P_IP && ethertype != ETH_P_IPV6) {
		i = rng_below(r, 64);
		rng_bytes(r, frame_put(f, i), i);
		fr->kind = "non-ip";
		fz_what(fr, "ethertype=0x%04x", ethertype);
		return false;
	}

	ip->v6 = ethertype == ETH_P_IPV6;
	ip->l3 = f->len;
	ip->proto = proto;
	fz_gen_addr(r, g, ip->v6, src);
	fz_gen_addr(r, g, ip->v6, dst);
	if (!ip->v6) {
		__u8 ihl = rng_pct(r, 75) ? 5 : rng_range(r, 6, 15);
		__u16 frag = 0;
		struct iphdr *iph;

		u = rng_below(r, 100);
		if (u < 5)
			frag = 0x2000;			/* MF: a first fragment */
		else if (u < 9)
			frag = rng_range(r, 1, 0x1fff);	/* a later fragment */
		else if (u < 15)
			frag = 0x4000;			/* DF: not a fragment */
		iph = frame_ipv4(f, src, dst, ihl, proto, frag);
		if (ihl > 5 && rng_pct(r, 30)) {	/* options the program skips unread */
			rng_bytes(r, (__u8 *)(iph + 1), ihl * 4 - IP4_HLEN);
			fz_what(fr, "ipv4-random-options");
		}
		if (ihl > 5)
			fz_what(fr, "ihl=%u", ihl);
		if (frag)
			fz_what(fr, "frag=0x%04x", frag);
		u = rng_below(r, 100);
		if (u < 2) {
			iph->ihl = rng_below(r, 5);	/* refused: bad_ipv4_ihl */
			fr->mutated = true;
			fz_what(fr, "damage:ihl=%u", iph->ihl);
		} else if (u < 4) {
			iph->version = rng_pct(r, 50) ? 6 : rng_below(r, 16);
			fr->mutated = iph->version != 4;
			fz_what(fr, "damage:version=%u", iph->version);
		}
		fz_lenf(fr, ip->l3, 1);
		fz_lenf(fr, ip->l3 + 2, 2);
		ip->l4 = f->len;
		return true;
	}

	/*
	 * IPv6: an extension chain, short mostly; at times long (1 KiB and more in
	 * all, names behind it) or deeper than the program walks.
	 */
	u = rng_below(r, 100);
	ext_budget = FRAME_MAX - f->len - IP6_HLEN - payload_room;
	long_chain = u >= 88 && u < 96;
	next_n = u < 55 ? 0 : u < 80 ? rng_range(r, 1, 3) : u < 88 ? rng_range(r, 4, 8) :
		 long_chain ? rng_range(r, 1, 8) : rng_range(r, 9, 12);
	want = long_chain ? rng_range(r, 1024, ext_budget) / next_n : 0;
	total = 0;
	for (i = 0; i < next_n; i++) {
		types[i] = ext_types[rng_below(r, ARRAY_SIZE(ext_types))];
		if (long_chain && types[i] == IPPROTO_FRAGMENT && rng_pct(r, 80))
			types[i] = IPPROTO_DSTOPTS;	/* fragments: fewer names looked for */
		lens[i] = long_chain ? fz_ext_fit(types[i], want) : fz_ext_len(r, types[i]);
		if (total + lens[i] > ext_budget)
			break;
		total += lens[i];
	}
	next_n = i;
	frame_ipv6(f, src, dst, next_n ? types[0] : proto);
	fz_lenf(fr, ip->l3 + 4, 2);
	fz_lenf(fr, ip->l3 + 6, 1);
	for (i = 0; i < next_n; i++)
		fz_ipv6_ext(fr, types[i], i + 1 < next_n ? types[i + 1] : proto, lens[i],
			    /* Atomic (a whole datagram), first, or any fragment. */
			    rng_pct(r, 25) ? 0 : rng_pct(r, 50) ? 0x0001 :
			    rng_range(r, 0, 0xffff) & ~6);
	if (next_n)
		fz_what(fr, "ipv6-ext=%u/%uB", next_n, total);
	if (rng_pct(r, 2)) {
		f->data[ip->l3] = (f->data[ip->l3] & 0x0f) | rng_below(r, 16) << 4;
		fr->mutated = f->data[ip->l3] >> 4 != 6;
		fz_what(fr, "damage:version=%u", f->data[ip->l3] >> 4);
	}
	ip->l4 = f->len;
	return true;
}

/* UDP or TCP header (without lengths and checksum) to dport. */
static inline void fz_gen_l4(struct rng *r, struct fz_frame *fr, const struct fz_ip *ip,
			     __u16 dport, bool payload)
{
	struct frame *f = &fr->f;
	__u32 opt = 0;
	__u8 *h;

	if (ip->proto == IPPROTO_TCP) {
		if (rng_pct(r, 20))
			opt = 4 * rng_range(r, 1, 10);
		h = frame_put(f, TCP_HLEN + opt);
		put_be16(h, rng_range(r, 1024, 65535));
		put_be16(h + 2, dport);
		rng_bytes(r, h + 4, 8);			/* sequence, acknowledgment */
		h[12] = (TCP_HLEN + opt) / 4 << 4;
		h[13] = payload ? 0x18 : rng_pct(r, 50) ? 0x02 : 0x10;
		put_be16(h + 14, 0xffff);
		memset(h + TCP_HLEN, 1, opt);		/* NOPs */
		if (opt >= 4) {				/* an MSS option first */
			h[TCP_HLEN] = 2;
			h[TCP_HLEN + 1] = 4;
			put_be16(h + TCP_HLEN + 2, 1460);
		}
		fz_lenf(fr, ip->l4 + 12, 1);
	} else if (ip->proto == IPPROTO_UDP) {
		h = frame_put(f, UDP_HLEN);
		put_be16(h, rng_range(r, 1024, 65535));
		put_be16(h + 2, dport);
		fz_lenf(fr, ip->l4 + 4, 2);
	} else {
		h = frame_put(f, 8);			/* ICMP echo or whatever else */
		rng_bytes(r, h, 8);
	}
	fz_lenf(fr, ip->l4 + 2, 2);
}

/* Lengths and checksums as a sender writes them; then Ethernet padding, at times. */
static inline void fz_finish(struct rng *r, struct fz_frame *fr, const struct fz_ip *ip)
{
	struct frame *f = &fr->f;
	__u32 n;

	if (ip->proto == IPPROTO_UDP && f->len >= ip->l4 + UDP_HLEN)
		put_be16(f->data + ip->l4 + 4, f->len - ip->l4);
	frame_finish(f, ip->v6 ? ETH_P_IPV6 : ETH_P_IP, ip->l3);
	if ((ip->proto == IPPROTO_UDP || ip->proto == IPPROTO_TCP) &&
	    f->len >= ip->l4 + (ip->proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN))
		l4_set_checksum(f->data, ip->l3, ip->l4, f->len - ip->l4, ip->v6, ip->proto);
	if (rng_pct(r, 15) && fz_room(fr) >= 32) {
		n = rng_range(r, 1, 32);
		if (rng_pct(r, 50))
			frame_put(f, n);
		else
			rng_bytes(r, frame_put(f, n), n);
		fz_what(fr, "trailer=%u", n);
	}
}

/* ------------------------------------------------------------- payloads */

/* A DNS query: parsed, or one of the kinds docs/design.md says are not (unparsed_dns). */
static inline void fz_gen_dns(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr)
{
	struct frame *f = &fr->f;
	struct dns_desc d = { 0 };
	char name[NAME_TEXT_MAX], carried[NAME_TEXT_MAX + 2], wire[300];
	__u32 u = rng_below(r, 100), start = f->len, n, i;

	fz_gen_name(r, g, name, NAME_TEXT_MAX - 1);
	fz_case(r, name, carried, rng_pct(r, 10));
	d.qname = carried;
	d.no_rd = rng_pct(r, 20);
	d.flags = rng_pct(r, 20) ? DNS_FLAG_AD | DNS_FLAG_CD : 0;
	d.edns = rng_pct(r, 30);
	fr->parse = FZ_PARSED;
	snprintf(fr->name, sizeof(fr->name), "%s", name);
	if (u < 4) {
		fr->parse = FZ_UNPARSED;	/* a response */
		d.flags |= DNS_FLAG_QR;
		fz_what(fr, "dns-response");
	} else if (u < 7) {
		fr->parse = FZ_UNPARSED;
		d.flags |= DNS_OPCODE(rng_range(r, 1, 15));
		fz_what(fr, "dns-opcode");
	} else if (u < 12) {
		fr->parse = FZ_UNPARSED;
		d.qd_set = true;
		d.qdcount = rng_pct(r, 50) ? 0 : rng_range(r, 2, 0xffff);
		if (d.qdcount == 2 && rng_pct(r, 50))
			d.qname2 = "second.example";
		fz_what(fr, "dns-qdcount=%u", d.qdcount);
	} else if (u < 17) {
		/* A compression pointer, or a reserved label type, in the question. */
		fr->parse = FZ_UNPARSED;
		n = 0;
		wire[n++] = 3;
		memcpy(wire + n, "www", 3);
		n += 3;
		wire[n++] = rng_pct(r, 70) ? 0xc0 : rng_range(r, 0x40, 0xbf);
		wire[n++] = 12;
		d.wire = wire;
		d.wire_len = n;
		fz_what(fr, "dns-pointer");
	} else if (u < 20) {
		/* A name of more than 255 bytes: labels of 63 until past the limit. */
		fr->parse = FZ_UNPARSED;
		for (n = 0, i = 0; n < 256; i++) {
			wire[n++] = 63;
			memset(wire + n, 'x', 63);
			n += 63;
		}
		wire[n++] = 0;
		d.wire = wire;
		d.wire_len = n;
		fz_what(fr, "dns-name-too-long");
	}
	dns_put_query(f, &d);
	fz_lenf(fr, start + 4, 2);
	fz_lenf(fr, start + DNS_HDR_LEN, 1);
	if (fr->parse == FZ_PARSED && rng_pct(r, 5)) {
		/* Cut in the name or in QTYPE/QCLASS: a question cut short. */
		n = rng_range(r, DNS_HDR_LEN, f->len - start - 1 - (d.edns ? 23 : 0));
		frame_truncate(f, start + n);
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "dns-cut=%u", n);
	}
	fz_check_labels(fr);
}


/* ------------------------------------------------------------ DNS responses */

#define FZ_ANSWER_NAMES	8

/* A name a list may hold, in random case, written plain; its offset kept for pointers. */
static inline void fz_answer_name(struct rng *r, const struct fz_gen_cfg *g, struct dns_msg *m,
				  size_t *names, __u32 *nn)
{
	char name[NAME_TEXT_MAX], carried[NAME_TEXT_MAX + 2];
	size_t at;

	fz_gen_name(r, g, name, 120);
	fz_case(r, name, carried, false);
	at = dns_msg_name(m, carried);
	if (*nn < FZ_ANSWER_NAMES)
		names[(*nn)++] = at;
}

/* A target: plain, or a label or two then a pointer to a name written before. */
static inline void fz_answer_target(struct rng *r, const struct fz_gen_cfg *g, struct dns_msg *m,
				    size_t *names, __u32 *nn)
{
	char label[64];

	if (rng_pct(r, 60)) {
		fz_answer_name(r, g, m, names, nn);
		return;
	}
	fz_label(r, label, rng_range(r, 1, 20));
	dns_msg_name_ptr(m, rng_pct(r, 30) ? NULL : label, names[rng_below(r, *nn)]);
}

/* One record: its owner a pointer to a name written before (or plain), of any type. */
static inline void fz_answer_record(struct rng *r, const struct fz_gen_cfg *g, struct dns_msg *m,
				    size_t *names, __u32 *nn, size_t *rdlen_at)
{
	static const __u16 alias_types[] = { 5, 39, 64, 65 };
	__u32 u = rng_below(r, 100), type;
	__u8 a[16];

	if (rng_pct(r, 85))
		dns_msg_be16(m, 0xc000 | names[rng_below(r, *nn)]);
	else
		fz_answer_name(r, g, m, names, nn);
	if (u < 30 || u >= 90) {
		type = u < 30 || rng_pct(r, 50) ? 1 : 28;
		*rdlen_at = dns_msg_rr(m, 0, type, u < 30 ? 1 : rng_pct(r, 50) ? 3 : 255,
				       rng_next(r));
		fz_gen_addr(r, g, 0, a);
		dns_msg_put(m, a, 4);
	} else if (u < 50) {
		*rdlen_at = dns_msg_rr(m, 0, 28, 1, rng_next(r));
		fz_gen_addr(r, g, 1, a);
		dns_msg_put(m, a, 16);
	} else if (u < 80) {
		type = alias_types[rng_below(r, ARRAY_SIZE(alias_types))];
		*rdlen_at = dns_msg_rr(m, 0, type, 1, rng_next(r));
		if (type == 64 || type == 65)
			dns_msg_be16(m, rng_below(r, 3));		/* SvcPriority */
		if ((type == 64 || type == 65) && rng_pct(r, 20))
			dns_msg_put(m, "", 1);				/* "." */
		else
			fz_answer_target(r, g, m, names, nn);
		if ((type == 64 || type == 65) && rng_pct(r, 50))
			dns_msg_put(m, "\x00\x01\x00\x03\x02h3", 7);	/* alpn=h3 */
	} else {
		/* TXT or MX: names in it are not looked up. */
		type = rng_pct(r, 50) ? 16 : 15;
		*rdlen_at = dns_msg_rr(m, 0, type, 1, rng_next(r));
		if (type == 15)
			dns_msg_be16(m, 10);
		fz_answer_target(r, g, m, names, nn);
	}
	dns_msg_rr_end(m, *rdlen_at);
}

/* Damage of one kind to a response: its expectations are the model's (model_answers()). */
static inline void fz_answer_damage(struct rng *r, struct fz_frame *fr, struct dns_msg *m,
				    size_t rdlen_at)
{
	__u32 u = rng_below(r, 9), an = get_be16(m->b + 6);
	size_t at;

	fz_what(fr, "damage=%u", u);
	switch (u) {
	case 0:
		dns_msg_set16(m, 6, an + rng_range(r, 1, 3));		/* past the message */
		break;
	case 1:
		dns_msg_set16(m, 6, rng_range(r, 17, 300));
		break;
	case 2:
		m->len = rng_range(r, DNS_HDR_LEN, m->len - 1);	/* cut */
		break;
	case 3:
	case 4:
	case 5:
		/* A target pointing at itself, forward, or of a reserved label type. */
		dns_msg_set16(m, 6, an + 1);
		at = dns_msg_rr(m, 1, 5, 1, 60);
		if (u == 3)
			dns_msg_be16(m, 0xc000 | m->len);
		else if (u == 4)
			dns_msg_be16(m, 0xc000 | (m->len + 2));
		else
			dns_msg_put(m, "\x04" "evil\x47" "example", 13);
		dns_msg_rr_end(m, at);
		break;
	case 6:
		if (rdlen_at)
			dns_msg_set16(m, rdlen_at, get_be16(m->b + rdlen_at) + rng_range(r, 1, 60));
		break;
	case 7:
		dns_msg_set16(m, 2, get_be16(m->b + 2) ^ (rng_pct(r, 50) ? 0x8000 : 0x1000));
		break;
	default:
		dns_msg_set16(m, 4, rng_pct(r, 50) ? 0 : 2);		/* QDCOUNT */
		break;
	}
}

/*
 * A DNS response (from a DNS port): a question, 0 to 8 records of every kind
 * with names plain and compressed, damaged at times; over TCP behind its
 * length (a wrong one at times).
 */
static inline void fz_gen_dns_answer(struct rng *r, const struct fz_gen_cfg *g,
				     struct fz_frame *fr, bool tcp)
{
	static struct dns_msg msg;
	struct dns_msg *m = &msg;
	size_t names[FZ_ANSWER_NAMES], rdlen_at = 0;
	__u32 nn = 0, n = rng_range(r, 0, 8), i, start = fr->f.len;
	char name[NAME_TEXT_MAX], carried[NAME_TEXT_MAX + 2];

	fz_gen_name(r, g, name, 200);
	fz_case(r, name, carried, false);
	dns_msg_header(m, DNS_FLAG_QR | DNS_FLAG_RD | DNS_FLAG_RA | (rng_pct(r, 20) ? 0x0400 : 0),
		       1, n, 0, 0);
	names[nn++] = dns_msg_question(m, carried, rng_pct(r, 70) ? 1 : rng_pct(r, 50) ? 28 : 65);
	for (i = 0; i < n && m->len < 1000; i++)
		fz_answer_record(r, g, m, names, &nn, &rdlen_at);
	dns_msg_set16(m, 6, i);
	fz_what(fr, "dns-answer q=%s an=%u", carried, i);
	if (rng_pct(r, 20))
		fz_answer_damage(r, fr, m, rdlen_at);
	if (tcp) {
		__u8 *p = frame_put(&fr->f, 2);

		put_be16(p, rng_pct(r, 90) ? m->len : m->len + rng_range(r, 1, 100));
		fz_lenf(fr, start, 2);
	}
	memcpy(frame_put(&fr->f, m->len), m->b, m->len);
	fz_lenf(fr, start + (tcp ? 2 : 0) + 6, 2);	/* ANCOUNT */
}

static const char *const fz_methods[] = { "GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS",
					  "PATCH", "CONNECT" };

/* A path under the listed one, beside it, or anything; at most 255 bytes, query cut. */
static inline void fz_gen_path(struct rng *r, const char *listed, char *path, size_t max)
{
	char seg[16];
	__u32 n, i;

	path[0] = '\0';
	if (listed && rng_pct(r, 70)) {
		snprintf(path, max, "%s", listed);
		switch (rng_below(r, 5)) {
		case 0:
			break;
		case 1:				/* "/malwarex": no '/' boundary */
			if (path[0] && strlen(path) + 2 < max)
				strcat(path, "x");
			break;
		case 2:				/* case matters in paths */
			for (i = 0; path[i]; i++)
				path[i] = toupper((unsigned char)path[i]);
			break;
		default:			/* under it */
			break;
		}
	}
	n = rng_pct(r, 10) ? rng_range(r, 8, 14) : rng_below(r, 4);
	for (i = 0; i < n; i++) {
		fz_label(r, seg, rng_range(r, 1, 8));
		if (strlen(path) + strlen(seg) + 2 >= max)
			break;
		strcat(path, "/");
		strcat(path, seg);
	}
	if (path[0] == '\0' || rng_pct(r, 10))
		strcat(path, "/");
}

/*
 * An HTTP/1.x request: the host in a Host header among others (any case,
 * spaces, a port), or in an absolute-form target; with a path. Unparsed
 * kinds: no host, a bad request line, cut before the host.
 */
static inline void fz_gen_http(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr)
{
	static const char *const fillers[] = {
		"User-Agent: fuzz/1.0", "Accept: */*", "Connection: keep-alive",
		"X-Forwarded-Host: evil.example", "Cookie: host=evil.example",
		"Accept-Language: en", "Referer: http://evil.example/",
	};
	static const char *const host_names[] = { "Host", "host", "HOST", "hOsT" };
	static const char *const spaces[] = { "", " ", "  ", "\t", " \t" };
	const struct fz_world *w = g->world;
	char name[NAME_TEXT_MAX], carried[NAME_TEXT_MAX + 2], path[BLOOMXDP_PATH_MAX + 1];
	char other[NAME_TEXT_MAX], port[8] = "", req[2048], target[600];
	const char *listed_path = NULL, *eol = rng_pct(r, 10) ? "\n" : "\r\n";
	enum fz_name_kind kind;
	__u32 u = rng_below(r, 100), nfill = rng_below(r, 5), host_at, i, n;
	bool absolute = u < 25, userinfo = u >= 20 && u < 25, host_header;
	size_t len;
	int k;

	kind = fz_gen_name(r, g, name, 200);
	if (kind == NAME_URL_HOST) {
		for (k = 0; k < w->block.nurls; k++)
			if (fz_under(name, w->block.urls[k].host))
				listed_path = w->block.urls[k].path;
	}
	fz_gen_path(r, listed_path, path, sizeof(path) - 20);
	fz_case(r, name, carried, rng_pct(r, 5));
	if (rng_pct(r, 20))
		snprintf(port, sizeof(port), ":%u", rng_range(r, 1, 65535));

	fr->parse = FZ_PARSED;
	fr->has_path = true;
	snprintf(fr->name, sizeof(fr->name), "%s", name);
	/* The path as looked up: up to a '?' or '#'. */
	snprintf(fr->path, sizeof(fr->path), "%s", path);
	if (rng_pct(r, 15))
		strcat(path, rng_pct(r, 50) ? "?q=/evil" : "#frag");

	if (absolute) {
		len = snprintf(target, sizeof(target), "%s://%s%s%s%s",
			       rng_pct(r, 80) ? "http" : "HTTP",
			       userinfo ? rng_pct(r, 50) ? "u@" : "user:pw@" : "", carried, port,
			       rng_pct(r, 10) ? "" : path);
		if (!strchr(target + 7, '/'))
			snprintf(fr->path, sizeof(fr->path), "/");	/* "http://host" */
		if (userinfo) {
			fr->defect = 6;
			fz_what(fr, "http-userinfo");
		}
		fz_what(fr, "http-absolute");
	} else {
		snprintf(target, sizeof(target), "%s", path);
	}
	/* An absolute target's host wins; a Host header may then name another. */
	host_header = !absolute || rng_pct(r, 50);
	if (absolute && host_header)
		fz_gen_name(r, g, other, 100);
	else
		snprintf(other, sizeof(other), "%s", carried);

	len = snprintf(req, sizeof(req), "%s %s HTTP/1.%c%s",
		       fz_methods[rng_below(r, ARRAY_SIZE(fz_methods))], target,
		       rng_pct(r, 20) ? '0' : '1', eol);
	host_at = rng_below(r, nfill + 1);
	for (i = 0; i <= nfill; i++) {
		if (i == host_at && host_header)
			len += snprintf(req + len, sizeof(req) - len, "%s:%s%s%s%s",
					host_names[rng_below(r, ARRAY_SIZE(host_names))],
					spaces[rng_below(r, ARRAY_SIZE(spaces))], other,
					absolute ? "" : port, eol);
		if (i < nfill)
			len += snprintf(req + len, sizeof(req) - len, "%s%s",
					fillers[rng_below(r, ARRAY_SIZE(fillers))], eol);
	}
	len += snprintf(req + len, sizeof(req) - len, "%s", eol);
	if (rng_pct(r, 10))
		len += snprintf(req + len, sizeof(req) - len, "body=%s", name);

	u = rng_below(r, 100);
	if (u < 3) {
		req[0] = tolower((unsigned char)req[0]);	/* "gET /": not a method */
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "http-bad-method");
	} else if (u < 6) {
		char *v = strstr(req, " HTTP/1.");

		v[6] = '2';					/* HTTP/2.x: not parsed */
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "http-version");
	} else if (u < 9 && !absolute) {
		/* Cut before the end of the Host value: it may follow in a later segment. */
		char *h = strstr(req, other);

		n = h ? h - req + rng_below(r, strlen(other)) : 0;
		if (n >= 16) {
			len = n;
			fr->parse = FZ_UNPARSED;
			fz_what(fr, "http-cut-in-host");
		}
	} else if (u < 11 && !absolute) {
		/* HTTP/1.0 without a Host header, headers complete: no host at all. */
		len = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nAccept: */*\r\n\r\n", path);
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "http-no-host");
	}
	if (len < 16 && fr->parse == FZ_PARSED)
		fr->parse = FZ_UNPARSED;	/* shorter than the shortest request it reads */
	memcpy(frame_put(&fr->f, len), req, len);
	fz_check_labels(fr);
}

/*
 * A TLS ClientHello: server_name after 0 to 80 other extensions (GREASE
 * first), whole or cut, or records of other kinds.
 */
static inline void fz_gen_tls(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr)
{
	static const char tail[] = "\x17\x03\x03\x00\x05hello";
	char name[NAME_TEXT_MAX], carried[NAME_TEXT_MAX + 2];
	struct tls_desc d = { 0 };
	__u32 u = rng_below(r, 100), start = fr->f.len, sni_ext, sni_name, pos;
	static const __u16 versions[] = { 0x0301, 0x0302, 0x0303, 0x0300 };

	fz_gen_name(r, g, name, NAME_TEXT_MAX - 1);
	fz_case(r, name, carried, rng_pct(r, 5));
	d.sni = carried;
	d.version = versions[rng_below(r, ARRAY_SIZE(versions))];
	d.before = rng_pct(r, 80) ? rng_below(r, 11) : rng_pct(r, 60) ? rng_range(r, 11, 47) :
		   rng_range(r, 48, 80);
	d.after = rng_below(r, 21);
	d.no_session_id = rng_pct(r, 30);
	if (rng_pct(r, 10)) {
		d.tail = tail;
		d.tail_len = sizeof(tail) - 1;
	}
	fr->parse = FZ_PARSED;
	snprintf(fr->name, sizeof(fr->name), "%s", name);
	if (d.before >= 48) {
		fr->defect = 5;
		fz_what(fr, "tls-sni-after=%u", d.before);
	}
	if (u < 4) {
		d.sni = NULL;
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "tls-no-sni");
	} else if (u < 10) {
		d.cut = rng_pct(r, 50) ? TLS_CUT_BEFORE_SNI : TLS_CUT_IN_SNI;
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "tls-cut");
	} else if (u < 13) {
		d.type = 23;			/* application data */
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "tls-type");
	} else if (u < 16) {
		d.hs_type = 2;			/* ServerHello */
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "tls-hs-type");
	} else if (u < 18) {
		d.version = 0x0200;
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "tls-version");
	}
	if (fr->parse != FZ_PARSED)
		fr->defect = 0;
	fz_check_labels(fr);
	tls_put_client_hello(&fr->f, &d, &sni_ext, &sni_name);
	fz_lenf(fr, start + 3, 2);
	fz_lenf(fr, start + 7, 2);
	fz_lenf(fr, start + 43, 1);		/* session id length */
	/* Cipher suites, compression methods and extensions lengths, after the session id. */
	pos = start + 44 + (d.no_session_id ? 0 : 32);
	if (pos + 2 <= fr->f.len) {
		fz_lenf(fr, pos, 2);
		pos += 2 + get_be16(fr->f.data + pos);
	}
	if (pos + 1 <= fr->f.len) {
		fz_lenf(fr, pos, 1);
		pos += 1 + fr->f.data[pos];
	}
	if (pos + 2 <= fr->f.len)
		fz_lenf(fr, pos, 2);
	if (sni_ext && sni_ext + 9 <= fr->f.len) {
		fz_lenf(fr, sni_ext + 2, 2);
		fz_lenf(fr, sni_ext + 4, 2);
		fz_lenf(fr, sni_ext + 7, 2);
	}
}

/* ----------------------------------------------------------- QUIC Initials */

/* A datagram to a QUIC port, built before its headers (its size sets theirs). */
struct fz_quic {
	struct frame d;
	__u32 lenf[4];		/* DCID, SCID and token lengths (1 byte), Length (2), in d */
};

#define FZ_QUIC_MAX	1900	/* bytes of a datagram: FRAME_MAX less the longest headers */

/*
 * A QUIC ClientHello (quic_wire.h) naming a name picked as the TLS generator
 * picks it; GREASE, a key share (X25519's, X25519MLKEM768's, or none) before
 * or after the name, other extensions, ECH at times. Unparsed kinds: no
 * server_name, a ServerHello.
 */
static inline void fz_quic_hello(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr,
				 struct frame *hello)
{
	char name[NAME_TEXT_MAX], carried[NAME_TEXT_MAX + 2];
	__u32 u = rng_below(r, 100), share = rng_below(r, 100), sni_name;
	struct tls_desc d = { 0 };

	fz_gen_name(r, g, name, NAME_TEXT_MAX - 1);
	fz_case(r, name, carried, rng_pct(r, 5));
	d.sni = carried;
	d.grease = rng_pct(r, 50);
	d.before = rng_below(r, 8);
	d.after = rng_below(r, 8);
	d.ech = rng_pct(r, 10);
	d.no_session_id = rng_pct(r, 50);
	d.key_share = share < 45 ? 32 : share < 60 ? 1216 : 0;
	d.share_after = rng_pct(r, 40);
	fr->parse = FZ_PARSED;
	snprintf(fr->name, sizeof(fr->name), "%s", name);
	if (u < 4) {
		d.sni = NULL;
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "quic-no-sni");
	} else if (u < 7) {
		d.hs_type = 2;			/* ServerHello: refused before any extension */
		fr->parse = FZ_UNPARSED;
		fz_what(fr, "quic-hs-type");
	}
	fr->quic_ech = d.ech && !d.hs_type;
	if (d.ech)
		fz_what(fr, "quic-ech");
	fz_check_labels(fr);
	hello->len = 0;
	quic_client_hello(hello, &d, &sni_name);
	if (hello->len > FZ_QUIC_MAX - 300 && d.key_share) {
		d.key_share = 32;		/* a datagram of at most FZ_QUIC_MAX bytes */
		hello->len = 0;
		quic_client_hello(hello, &d, &sni_name);
	}
	fz_what(fr, "quic-hello=%uB", hello->len);
}

/*
 * A client's Initial to a QUIC port: v1 or v2, connection IDs of random bytes
 * (a connection of its own in quic_conns), a token at times, packet numbers
 * of 1 to 4 bytes; the hello in 1 or 2 CRYPTO frames, in either order, PING
 * or PADDING between, an ACK first at times; padded to 1,200 bytes mostly; a
 * 0-RTT packet after it at times. Unparsed kinds: cut short (the Length says
 * more); another version (the model's class says what).
 */
static inline void fz_quic_dgram(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr,
				 struct fz_quic *q)
{
	static struct frame hello, payload;
	static __u8 token[40];
	struct quic_pkt p = { 0 };
	__u32 split, init_len, n, at, u;
	bool rev;

	fz_quic_hello(r, g, fr, &hello);
	p.version = rng_pct(r, 30) ? BLOOMXDP_QUIC_V2 : BLOOMXDP_QUIC_V1;
	p.type = QUIC_INITIAL;
	p.dcid_len = rng_pct(r, 90) ? rng_range(r, 8, BLOOMXDP_QUIC_CID_MAX) : rng_below(r, 8);
	rng_bytes(r, p.dcid, p.dcid_len);
	p.scid_len = rng_below(r, BLOOMXDP_QUIC_CID_MAX + 1);
	rng_bytes(r, p.scid, p.scid_len);
	if (rng_pct(r, 10)) {
		p.token_len = rng_range(r, 1, sizeof(token));
		rng_bytes(r, token, p.token_len);
		p.token = token;
	}
	p.pn = rng_below(r, 4);
	p.pn_len = rng_range(r, 1, 4);

	payload.len = 0;
	if (rng_pct(r, 10))
		quic_frame_ack(&payload, rng_below(r, 4), rng_below(r, 100), 0);
	split = rng_pct(r, 50) ? rng_range(r, 1, hello.len - 1) : hello.len;
	rev = split < hello.len && rng_pct(r, 40);
	if (rev)
		quic_frame_crypto(&payload, split, hello.data + split, hello.len - split);
	quic_frame_crypto(&payload, 0, hello.data, split);
	if (split < hello.len) {
		if (rng_pct(r, 50))
			quic_frame_ping(&payload);
		else
			quic_frame_padding(&payload, rng_below(r, 9));
		if (!rev)
			quic_frame_crypto(&payload, split, hello.data + split, hello.len - split);
		fz_what(fr, "quic-split=%u%s", split, rev ? "-reversed" : "");
	}
	q->d.len = 0;
	p.payload = payload.data;
	p.payload_len = payload.len;
	quic_put_packet(&q->d, &p);
	if (q->d.len < QUIC_MIN_DATAGRAM && rng_pct(r, 85)) {
		quic_frame_padding(&payload, QUIC_MIN_DATAGRAM - q->d.len);
		p.payload_len = payload.len;
		q->d.len = 0;
		quic_put_packet(&q->d, &p);
	}
	init_len = q->d.len;
	at = 6 + p.dcid_len;
	q->lenf[0] = 5;
	q->lenf[1] = at;
	q->lenf[2] = at + 1 + p.scid_len;
	q->lenf[3] = q->lenf[2] + quic_varint_len(p.token_len) + p.token_len;
	if (rng_pct(r, 10)) {
		payload.len = 0;
		quic_frame_ping(&payload);
		quic_frame_padding(&payload, rng_range(r, 3, 40));
		p.type = QUIC_0RTT;
		p.pn++;
		p.payload_len = payload.len;
		quic_put_packet(&q->d, &p);
		fz_what(fr, "quic-0rtt-after");
	}
	fz_what(fr, "quic-v%u dcid=%u pn_len=%u %uB", p.version == BLOOMXDP_QUIC_V2 ? 2 : 1,
		p.dcid_len, p.pn_len, q->d.len);
	u = rng_below(r, 100);
	if (u < 4) {
		n = rng_range(r, 6, init_len - 1);	/* the Length says more */
		frame_truncate(&q->d, n);
		fr->parse = FZ_UNPARSED;
		fr->quic_ech = false;		/* not decrypted */
		fz_what(fr, "quic-cut=%u", n);
	} else if (u < 7) {
		put_be16(q->d.data + 1, 0xff00);	/* draft-29: 0xff00001d */
		put_be16(q->d.data + 3, 0x001d);
		fz_what(fr, "quic-version=draft-29");
	}
	assert(q->d.len <= FZ_QUIC_MAX);
}

/* The datagram q after the UDP header, its length fields noted for mutations. */
static inline void fz_put_quic(struct fz_frame *fr, const struct fz_quic *q)
{
	__u32 start = fr->f.len, i;

	memcpy(frame_put(&fr->f, q->d.len), q->d.data, q->d.len);
	for (i = 0; i < 4; i++)
		if (q->lenf[i] + (i == 3 ? 2 : 1) <= q->d.len)
			fz_lenf(fr, start + q->lenf[i], i == 3 ? 2 : 1);
}

/* ---------------------------------------------------------------- frames */

/* Random bytes: mostly short, at times shorter than an Ethernet header or long. */
static inline void fz_gen_random(struct rng *r, struct fz_frame *fr)
{
	__u32 u = rng_below(r, 100), n;

	n = u < 10 ? rng_below(r, ETH_HLEN) : u < 60 ? rng_range(r, ETH_HLEN, 100) :
	    u < 90 ? rng_range(r, 101, 600) : rng_range(r, 601, FRAME_MAX);
	rng_bytes(r, frame_put(&fr->f, n), n);
	fr->kind = "random";
}

/* Ethernet (and tags) with an IP EtherType, then random bytes with the version right, mostly. */
static inline void fz_gen_random_ip(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr)
{
	struct frame *f = &fr->f;
	bool v6 = rng_pct(r, 50);
	__u32 n = rng_range(r, 0, 200), l3, i;
	__u8 *p;

	frame_eth(f, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (rng_pct(r, 30)) {
		put_be16(f->data + 12, ETH_P_8021Q);
		frame_vlan(f, 7, v6 ? ETH_P_IPV6 : ETH_P_IP);
	}
	l3 = f->len;
	p = frame_put(f, n);
	rng_bytes(r, p, n);
	if (n && rng_pct(r, 80))
		p[0] = v6 ? 0x60 | (p[0] & 15) : 0x40 | (p[0] & 15);
	if (!v6 && n > 9 && rng_pct(r, 60))
		p[9] = rng_pct(r, 50) ? IPPROTO_UDP : IPPROTO_TCP;
	if (v6 && n > 6 && rng_pct(r, 60))
		p[6] = rng_pct(r, 50) ? IPPROTO_UDP : IPPROTO_TCP;
	/* The destination port of a name matcher, where L4 starts if the header is plain. */
	i = v6 ? IP6_HLEN : (p[0] & 15) * 4;
	if (n >= i + 4 && rng_pct(r, 60)) {
		__u16 port = rng_pct(r, 34) ? fz_pick_port(r, g->dns_ports) :
			     rng_pct(r, 50) ? fz_pick_port(r, g->http_ports) :
			     fz_pick_port(r, g->tls_ports);

		put_be16(f->data + l3 + i + 2, port);
	}
	fr->kind = "random-ip";
}

/* A port one of the name matchers takes as a destination. */
static inline bool fz_port_in(const __u16 ports[BLOOMXDP_MAX_PORTS], __u16 port)
{
	int i;

	for (i = 0; i < BLOOMXDP_MAX_PORTS; i++)
		if (ports[i] == port)
			return true;
	return false;
}

static inline bool m_port_any(const struct fz_gen_cfg *g, __u16 port)
{
	return fz_port_in(g->dns_ports, port) || fz_port_in(g->http_ports, port) ||
	       fz_port_in(g->tls_ports, port) || fz_port_in(g->quic_ports, port);
}

/* A structured frame: headers, a payload of some kind, to a port that fits it mostly. */
static inline void fz_gen_struct(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr)
{
	static struct fz_quic quic;
	struct fz_ip ip = { 0 };
	__u32 u = rng_below(r, 100), n, room = 1400;
	__u16 dport;
	__u8 proto;

	if (rng_pct(r, 10)) {
		/* A response: from a DNS port to a port no matcher takes. */
		fr->app = APP_RAW;
		fr->answer = true;
		proto = rng_pct(r, 85) ? IPPROTO_UDP : IPPROTO_TCP;
		do
			dport = rng_range(r, 1024, 65535);
		while (m_port_any(g, dport));
		fr->kind = proto == IPPROTO_UDP ? "dns-answer" : "dns-answer-tcp";
	} else if (u < 30) {
		fr->app = APP_DNS;
		proto = rng_pct(r, 92) ? IPPROTO_UDP : IPPROTO_TCP;	/* TCP: unseen_dns_tcp */
		dport = rng_pct(r, 92) ? fz_pick_port(r, g->dns_ports) : rng_range(r, 1, 65535);
		fr->kind = proto == IPPROTO_UDP ? "dns" : "dns-tcp";
	} else if (u < 53) {
		fr->app = APP_HTTP;
		proto = IPPROTO_TCP;
		dport = rng_pct(r, 92) ? fz_pick_port(r, g->http_ports) : rng_range(r, 1, 65535);
		fr->kind = "http";
	} else if (u < 71) {
		fr->app = APP_TLS;
		proto = rng_pct(r, 95) ? IPPROTO_TCP : IPPROTO_UDP;	/* UDP: unseen_quic */
		dport = rng_pct(r, 92) ? fz_pick_port(r, proto == IPPROTO_TCP ? g->tls_ports :
							 g->quic_ports) :
				       rng_range(r, 1, 65535);
		fr->kind = proto == IPPROTO_TCP ? "tls" : "tls-udp";
	} else if (u < 76) {
		/* A QUIC Initial: its datagram first, whose size the headers leave room for. */
		fr->app = APP_RAW;
		fr->quic = true;
		proto = IPPROTO_UDP;
		dport = rng_pct(r, 92) ? fz_pick_port(r, g->quic_ports) : rng_range(r, 1, 65535);
		fr->kind = "quic";
		fz_quic_dgram(r, g, fr, &quic);
		room = UDP_HLEN + quic.d.len > room ? UDP_HLEN + quic.d.len : room;
	} else if (u < 84) {
		/* No payload: handshakes, ACKs, and UDP to a DNS port with nothing in it. */
		fr->app = APP_NONE;
		proto = rng_pct(r, 50) ? IPPROTO_UDP : IPPROTO_TCP;
		dport = proto == IPPROTO_UDP ? fz_pick_port(r, g->dns_ports) :
			rng_pct(r, 50) ? fz_pick_port(r, g->http_ports) :
			fz_pick_port(r, g->tls_ports);
		fr->kind = proto == IPPROTO_UDP ? "udp-empty" : "tcp-empty";
	} else if (u < 94) {
		fr->app = APP_RAW;
		proto = rng_pct(r, 50) ? IPPROTO_UDP : IPPROTO_TCP;
		dport = rng_pct(r, 30) ? rng_range(r, 1, 65535) :
			rng_pct(r, 34) ? fz_pick_port(r, g->dns_ports) :
			rng_pct(r, 50) ? fz_pick_port(r, g->http_ports) :
			fz_pick_port(r, g->tls_ports);
		fr->kind = proto == IPPROTO_UDP ? "udp-raw" : "tcp-raw";
	} else {
		fr->app = APP_NONE;
		proto = rng_pct(r, 50) ? IPPROTO_ICMP : rng_pct(r, 50) ? IPPROTO_ICMPV6 :
			IPPROTO_GRE;
		dport = 0;
		fr->kind = "other-l4";
	}
	fr->app_port = dport;
	if (!fz_gen_l3(r, g, fr, &ip, proto, room))
		return;
	fz_gen_l4(r, fr, &ip, dport, fr->app != APP_NONE);
	if (fr->answer) {
		put_be16(fr->f.data + ip.l4, fz_pick_port(r, g->dns_ports));
		fz_gen_dns_answer(r, g, fr, proto == IPPROTO_TCP);
		fz_finish(r, fr, &ip);
		return;
	}
	switch (fr->app) {
	case APP_DNS:
		fz_gen_dns(r, g, fr);
		break;
	case APP_HTTP:
		fz_gen_http(r, g, fr);
		break;
	case APP_TLS:
		fz_gen_tls(r, g, fr);
		break;
	case APP_RAW:
		if (fr->quic) {
			fz_put_quic(fr, &quic);
			break;
		}
		n = rng_below(r, 300);
		rng_bytes(r, frame_put(&fr->f, n), n);
		break;
	default:
		break;
	}
	fz_finish(r, fr, &ip);
}

/* ------------------------------------------------------------- mutations */

static const __u8 fz_interesting[] = { 0x00, 0x01, 0x03, 0x05, 0x06, 0x11, 0x16, 0x2b, 0x2c, 0x33,
				       0x3a, 0x3c, 0x3f, 0x40, 0x45, 0x60, 0x7f, 0x80, 0x81, 0x86,
				       0x88, 0xa8, 0xc0, 0xdd, 0xfe, 0xff, '.', ' ', '\r', '\n',
				       ':', '/', '@', '?' };

static inline void fz_mutate_once(struct rng *r, struct fz_frame *fr)
{
	struct frame *f = &fr->f;
	__u32 u = rng_below(r, 100), pos, n, v;

	if (f->len == 0)
		return;
	/* The headers more often than the payload. */
	pos = rng_pct(r, 50) ? rng_below(r, f->len < 96 ? f->len : 96) : rng_below(r, f->len);
	if (u < 25) {
		f->data[pos] ^= 1 << rng_below(r, 8);
		fz_what(fr, "flip@%u", pos);
	} else if (u < 43) {
		f->data[pos] = rng_pct(r, 70) ?
			       fz_interesting[rng_below(r, sizeof(fz_interesting))] :
			       (__u8)rng_next(r);
		fz_what(fr, "set@%u=%02x", pos, f->data[pos]);
	} else if (u < 65 && fr->nlenf) {
		const struct fz_lenf *lf = &fr->lenf[rng_below(r, fr->nlenf)];

		if (lf->off + lf->width > f->len)
			return;
		v = lf->width == 1 ? f->data[lf->off] : get_be16(f->data + lf->off);
		switch (rng_below(r, 5)) {
		case 0:
			v = 0;
			break;
		case 1:
			v = 0xffff;
			break;
		case 2:
			v = rng_next(r);
			break;
		default:
			v += (int)rng_range(r, 0, 16) - 8;
			break;
		}
		if (lf->width == 1)
			f->data[lf->off] = v;
		else
			put_be16(f->data + lf->off, v);
		fz_what(fr, "len@%u=%x", lf->off, lf->width == 1 ? v & 0xff : v & 0xffff);
	} else if (u < 80) {
		n = rng_pct(r, 50) ? f->len - rng_range(r, 1, f->len < 16 ? f->len : 16) :
		    rng_below(r, f->len);
		frame_truncate(f, n);
		fz_what(fr, "cut=%u", n);
	} else if (u < 90) {
		n = rng_range(r, 1, 32);
		if (f->len + n > FRAME_MAX)
			return;
		memmove(f->data + pos + n, f->data + pos, f->len - pos);
		rng_bytes(r, f->data + pos, n);
		f->len += n;
		fz_what(fr, "insert@%u+%u", pos, n);
	} else {
		n = rng_range(r, 1, 32);
		if (pos + n > f->len)
			n = f->len - pos;
		memmove(f->data + pos, f->data + pos + n, f->len - pos - n);
		f->len -= n;
		fz_what(fr, "delete@%u-%u", pos, n);
	}
}

/* One frame, from its own stream: random, random IP, or structured and maybe mutated. */
static inline void fz_gen_frame(struct rng *r, const struct fz_gen_cfg *g, struct fz_frame *fr)
{
	__u32 u = rng_below(r, 100), n, i;

	memset(fr, 0, offsetof(struct fz_frame, lenf));
	fr->nlenf = 0;
	if (u < 7) {
		fz_gen_random(r, fr);
		fr->mutated = true;
		return;
	}
	if (u < 15) {
		fz_gen_random_ip(r, g, fr);
		fr->mutated = true;
		return;
	}
	fz_gen_struct(r, g, fr);
	if (rng_pct(r, 45)) {
		n = rng_pct(r, 60) ? 1 : rng_range(r, 2, 4);
		for (i = 0; i < n; i++)
			fz_mutate_once(r, fr);
		fr->mutated = true;
	}
}

#endif /* FUZZ_GEN_H */
