// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DNS responses (--match dns-answers, bpf/dns_answers.h) through
 * BPF_PROG_TEST_RUN on loaded, never attached programs.
 *
 *  - cases[]: one row per response: configuration, message (a builder of
 *    tests/bpf/dns_wire.h), verdict, and the counters checked_dns_answers,
 *    unparsed_dns_answers, hits_dns_answers it must move. Each row runs over
 *    IPv4, IPv6, IPv4 in 802.1Q and IPv6 in 802.1Q, over UDP unless it says
 *    TCP. Malicious and cut messages pass, unless a listed record was read
 *    before the damage.
 *  - The NXDOMAIN rewrite of a response, byte by byte, its checksums checked
 *    on their own; fragments, TCP and the tc build dropped instead; monitor.
 *  - --doh-canary; HTTPS and SVCB queries for listed names.
 *  - Named lists: drop and monitor (the first listed record decides, the
 *    strongest list per record), events, and a learning list: the addresses
 *    its answers teach, their TTLs held, then packets from and to them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <linux/pkt_cls.h>
#include <cmocka.h>

#include "names_harness.h"
#include "verify_harness.h"
#include "dns_wire.h"
#include "lists_harness.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------- configurations */

#define LIST		.capacity = 1000, .fpr = 1e-9

enum cfg_id { DROP, NX, MON, TC, CANARY, N_CFGS };

static const struct harness_config cfg_defs[N_CFGS] = {
	[DROP] = { LIST, .match = BLOOMXDP_MATCH_NAMES },
	[NX] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN },
	[MON] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .action = BLOOMXDP_ACTION_MONITOR },
	[TC] = { LIST, .match = BLOOMXDP_MATCH_NAMES, .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN,
		 .hook = BLOOMXDP_HOOK_TC },
	[CANARY] = { LIST, .match = BLOOMXDP_MATCH_NAMES,
		     .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN, .doh_canary = 1 },
};

static const char *const list[] = {
	"evil.example",
	"mid.example",
	"listed-q.example",
	"svc.example",
	"dname.example",
	"a.deep.zone.example",
	"192.0.2.66",
	"2001:db8:bad::/48",
};

static struct xdp_harness harnesses[N_CFGS];

static int setup(void **state)
{
	struct prefix_plan plan[2];
	char err[LIST_ERROR_LEN];
	int i;

	(void)state;
	for (i = 0; i < N_CFGS; i++)
		if (harness_open_list(&harnesses[i], &cfg_defs[i], list, ARRAY_SIZE(list),
				      LIST_DEFAULT_PREFIX_PROBES, plan, err)) {
			fprintf(stderr, "config %d: cannot load the list: %s\n", i, err);
			return -1;
		}
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < N_CFGS; i++)
		harness_close(&harnesses[i]);
	return 0;
}

/* ----------------------------------------------------------- messages */

static const unsigned char ADDR_LISTED4[4] = { 192, 0, 2, 66 };
static const unsigned char ADDR_OTHER4[4] = { 192, 0, 2, 1 };
static const unsigned char ADDR_LISTED6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x0b, 0xad, 0, 0,
						0, 0, 0, 0, 0, 0, 0, 5 };
static const unsigned char ADDR_OTHER6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					       0, 0, 0, 0, 0, 0, 0, 1 };

#define RESP_FLAGS	(DNS_FLAG_QR | DNS_FLAG_RD | DNS_FLAG_RA)

/* A response header and its question (type A), ANCOUNT an. */
static void resp(struct dns_msg *m, const char *qname, unsigned int an)
{
	dns_msg_header(m, RESP_FLAGS, 1, an, 0, 0);
	dns_msg_question(m, qname, 1);
}

/* A record of type (CNAME...) whose owner is a pointer to owner, its target labels+ptr. */
static size_t alias_ptr(struct dns_msg *m, unsigned int owner, unsigned int type,
			const char *labels, unsigned int ptr)
{
	size_t at, name;

	dns_msg_be16(m, 0xc000 | owner);
	at = dns_msg_rr(m, 0, type, 1, 300);
	name = dns_msg_name_ptr(m, labels, ptr);
	dns_msg_rr_end(m, at);
	return name;
}

static void m_unlisted(struct dns_msg *m)
{
	resp(m, "www.fine.example", 4);
	dns_msg_alias(m, 5, "cdn.fine.example");
	dns_msg_svc(m, 65, "svc.fine.example");
	dns_msg_addr(m, 1, ADDR_OTHER4, 300);
	dns_msg_addr(m, 28, ADDR_OTHER6, 300);
}

static void m_listed_question(struct dns_msg *m)
{
	resp(m, "www.listed-q.example", 1);
	dns_msg_addr(m, 1, ADDR_OTHER4, 300);
}

/* A chain of CNAMEs, each owner the previous target (a pointer to it). */
static void chain(struct dns_msg *m, const char *const *targets, size_t n, int addr)
{
	size_t owner = 12, i;

	resp(m, "www.fine.example", n + (addr != 0));
	for (i = 0; i < n; i++) {
		size_t at;

		dns_msg_be16(m, 0xc000 | owner);
		at = dns_msg_rr(m, 0, 5, 1, 300);
		owner = dns_msg_name(m, targets[i]);
		dns_msg_rr_end(m, at);
	}
	if (addr) {
		size_t at;

		dns_msg_be16(m, 0xc000 | owner);
		at = dns_msg_rr(m, 0, 1, 1, 300);
		dns_msg_put(m, ADDR_OTHER4, 4);
		dns_msg_rr_end(m, at);
	}
}

static void m_chain2_end(struct dns_msg *m)
{
	static const char *const t[] = { "a.fine.example", "cdn.evil.example" };

	chain(m, t, 2, 1);
}

static void m_chain3_end(struct dns_msg *m)
{
	static const char *const t[] = { "a.fine.example", "b.fine.example", "evil.example" };

	chain(m, t, 3, 1);
}

static void m_chain3_middle(struct dns_msg *m)
{
	static const char *const t[] = { "a.fine.example", "x.mid.example", "c.fine.example" };

	chain(m, t, 3, 1);
}

static void m_chain3_unlisted(struct dns_msg *m)
{
	static const char *const t[] = { "a.fine.example", "b.fine.example", "c.fine.example" };

	chain(m, t, 3, 1);
}

static void m_dname(struct dns_msg *m)
{
	resp(m, "www.fine.example", 2);
	dns_msg_alias(m, 39, "sub.dname.example");
	dns_msg_addr(m, 1, ADDR_OTHER4, 300);
}

/* Question cdn.fine.example at 12: "example" at 21; target "evil" + pointer to 21. */
static void m_ptr_question(struct dns_msg *m)
{
	resp(m, "cdn.fine.example", 1);
	alias_ptr(m, 12, 5, "evil", 21);
}

/* Pointers into earlier records, two deep: zone.example, deep.<ptr>, a.<ptr>. */
static void m_ptr_records(struct dns_msg *m)
{
	size_t r1, r2;

	resp(m, "www.fine.example", 3);
	r1 = dns_msg_alias(m, 5, "zone.example");
	r2 = alias_ptr(m, r1, 5, "deep", r1);
	alias_ptr(m, r2, 5, "a", r2);
}

/* The same without the last record: deep.zone.example is not listed. */
static void m_ptr_records_unlisted(struct dns_msg *m)
{
	size_t r1;

	resp(m, "www.fine.example", 2);
	r1 = dns_msg_alias(m, 5, "zone.example");
	alias_ptr(m, r1, 5, "deep", r1);
}

/* A, AAAA, HTTPS, then an SVCB whose target is listed. */
static void m_mixed_svcb(struct dns_msg *m)
{
	resp(m, "www.fine.example", 4);
	dns_msg_addr(m, 1, ADDR_OTHER4, 300);
	dns_msg_addr(m, 28, ADDR_OTHER6, 300);
	dns_msg_svc(m, 65, "h3.fine.example");
	dns_msg_svc(m, 64, "pool.svc.example");
}

/* An HTTPS record of target "." (skipped), then a listed A. */
static void m_https_root_then_a(struct dns_msg *m)
{
	size_t at;

	resp(m, "www.fine.example", 2);
	at = dns_msg_rr(m, 1, 65, 1, 300);
	dns_msg_be16(m, 1);
	dns_msg_be16(m, 0);	/* target ".", then a parameter key's first byte */
	dns_msg_rr_end(m, at);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

static void m_https_listed(struct dns_msg *m)
{
	resp(m, "www.fine.example", 1);
	dns_msg_svc(m, 65, "svc.example");
}

static void m_a_listed(struct dns_msg *m)
{
	resp(m, "www.fine.example", 2);
	dns_msg_addr(m, 1, ADDR_OTHER4, 300);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

static void m_aaaa_prefix(struct dns_msg *m)
{
	resp(m, "www.fine.example", 2);
	dns_msg_addr(m, 28, ADDR_OTHER6, 300);
	dns_msg_addr(m, 28, ADDR_LISTED6, 300);
}

/* ::ffff:192.0.2.66: the IPv4 address, as a packet's. */
static void m_aaaa_mapped(struct dns_msg *m)
{
	unsigned char a[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memcpy(a + 12, ADDR_LISTED4, 4);
	resp(m, "www.fine.example", 1);
	dns_msg_addr(m, 28, a, 300);
}

/* Class CH (3): not IN, not looked up. */
static void m_a_listed_class_ch(struct dns_msg *m)
{
	size_t at;

	resp(m, "www.fine.example", 1);
	at = dns_msg_rr(m, 1, 1, 3, 300);
	dns_msg_put(m, ADDR_LISTED4, 4);
	dns_msg_rr_end(m, at);
}

/* Type AAAA of 4 bytes: no address, skipped. */
static void m_aaaa_rdlen4(struct dns_msg *m)
{
	size_t at;

	resp(m, "www.fine.example", 1);
	at = dns_msg_rr(m, 1, 28, 1, 300);
	dns_msg_put(m, ADDR_LISTED4, 4);
	dns_msg_rr_end(m, at);
}

/* ----------------------------------------------------- malicious ones */

/* A CNAME whose target is raw bytes (rdlen as written). */
static size_t alias_raw(struct dns_msg *m, const void *raw, size_t n)
{
	size_t at = dns_msg_rr(m, 1, 5, 1, 300), name = m->len;

	dns_msg_put(m, raw, n);
	dns_msg_rr_end(m, at);
	return name;
}

static void m_ptr_self(struct dns_msg *m)
{
	size_t at;

	resp(m, "www.fine.example", 1);
	at = dns_msg_rr(m, 1, 5, 1, 300);
	dns_msg_be16(m, 0xc000 | m->len);
	dns_msg_rr_end(m, at);
}

/* Y (in a TXT record, not read as a name): a pointer to X; X, a target: a pointer to Y. */
static void m_ptr_cycle(struct dns_msg *m)
{
	size_t y, x, at;

	resp(m, "www.fine.example", 2);
	at = dns_msg_rr(m, 1, 16, 1, 300);
	dns_msg_put(m, "\x02", 1);
	y = m->len;
	dns_msg_be16(m, 0);
	dns_msg_rr_end(m, at);
	x = alias_ptr(m, 12, 5, NULL, y);
	dns_msg_set16(m, y, 0xc000 | x);
}

/* A target pointing at a later record's name. */
static void m_ptr_forward(struct dns_msg *m)
{
	size_t first, later;

	resp(m, "www.fine.example", 2);
	first = alias_raw(m, "\xc0\x00", 2);
	later = dns_msg_alias(m, 5, "evil.example");
	dns_msg_set16(m, first, 0xc000 | later);
}

/*
 * A TXT record holding evil.example's wire form and a chain of pointers,
 * each to the one before, the first to the name; then a CNAME whose target
 * points at the chain's last: pointers in all (the target's own counted).
 */
static void ptr_chain(struct dns_msg *m, unsigned int pointers)
{
	size_t at, name, base, i;

	resp(m, "www.fine.example", 2);
	at = dns_msg_rr(m, 1, 16, 1, 300);
	dns_msg_put(m, "\x0c", 1);	/* a TXT string's length, then the name as text */
	name = dns_msg_name(m, "evil.example");
	base = m->len;
	for (i = 0; i + 1 < pointers; i++)
		dns_msg_be16(m, 0xc000 | (i ? base + 2 * (i - 1) : name));
	dns_msg_rr_end(m, at);
	m->b[name - 1] = m->len - name;	/* one TXT string holds them all */
	alias_ptr(m, 12, 5, NULL, pointers > 1 ? base + 2 * (pointers - 2) : name);
}

static void m_ptr16(struct dns_msg *m)
{
	ptr_chain(m, BLOOMXDP_DNS_POINTERS_MAX);
}

static void m_ptr17(struct dns_msg *m)
{
	ptr_chain(m, BLOOMXDP_DNS_POINTERS_MAX + 1);
}

static void m_ancount_past(struct dns_msg *m)
{
	resp(m, "www.fine.example", 5);
	dns_msg_addr(m, 1, ADDR_OTHER4, 300);
}

static void m_ancount_past_listed(struct dns_msg *m)
{
	resp(m, "www.fine.example", 5);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

/* ANCOUNT 200: 16 unlisted records read; the 17th, listed, is not. */
static void m_ancount200(struct dns_msg *m)
{
	int i;

	resp(m, "www.fine.example", 200);
	for (i = 0; i < BLOOMXDP_DNS_ANSWERS_MAX; i++)
		dns_msg_addr(m, 1, ADDR_OTHER4, 300);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

/* ANCOUNT 200, the 16th record listed: read, decides. */
static void m_ancount200_16th(struct dns_msg *m)
{
	int i;

	resp(m, "www.fine.example", 200);
	for (i = 0; i + 1 < BLOOMXDP_DNS_ANSWERS_MAX; i++)
		dns_msg_addr(m, 1, ADDR_OTHER4, 300);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

static void m_rdlen_past(struct dns_msg *m)
{
	size_t at;

	resp(m, "www.fine.example", 1);
	at = dns_msg_rr(m, 1, 1, 1, 300);
	dns_msg_put(m, ADDR_LISTED4, 4);
	dns_msg_set16(m, at, 100);
}

/* A listed A, then a record whose RDLENGTH runs past the end: decided before. */
static void m_listed_then_damage(struct dns_msg *m)
{
	size_t at;

	resp(m, "www.fine.example", 2);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
	at = dns_msg_rr(m, 1, 5, 1, 300);
	dns_msg_name(m, "x.example");
	dns_msg_set16(m, at, 100);
}

static void m_label40(struct dns_msg *m)
{
	resp(m, "www.fine.example", 1);
	alias_raw(m, "\x04" "evil" "\x47" "example\0", 14);
}

static void m_label80(struct dns_msg *m)
{
	resp(m, "www.fine.example", 1);
	alias_raw(m, "\x04" "evil" "\x87" "example\0", 14);
}

static void m_question_label80(struct dns_msg *m)
{
	dns_msg_header(m, RESP_FLAGS, 1, 1, 0, 0);
	dns_msg_put(m, "\x83" "www\x04" "evil\x07" "example\0\0\1\0\1", 23);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

/* A pointer in the question (into the header: nothing else lies before it). */
static void m_question_ptr(struct dns_msg *m)
{
	dns_msg_header(m, RESP_FLAGS, 1, 1, 0, 0);
	dns_msg_put(m, "\x03" "www\xc0\x04\0\1\0\1", 10);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

#define L63 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
/* 5 labels of 63 and evil.example: 334 bytes in wire form. */
#define TOO_LONG L63 "." L63 "." L63 "." L63 "." L63 ".evil.example"

static void m_target_too_long(struct dns_msg *m)
{
	resp(m, "www.fine.example", 1);
	dns_msg_alias(m, 5, TOO_LONG);
}

static void m_question_too_long(struct dns_msg *m)
{
	resp(m, TOO_LONG, 1);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

static void m_qdcount0(struct dns_msg *m)
{
	m_a_listed(m);
	dns_msg_set16(m, 4, 0);
}

static void m_qdcount2(struct dns_msg *m)
{
	m_a_listed(m);
	dns_msg_set16(m, 4, 2);
}

static void m_qr0(struct dns_msg *m)
{
	m_a_listed(m);
	dns_msg_set16(m, 2, DNS_FLAG_RD);
}

static void m_opcode2(struct dns_msg *m)
{
	m_a_listed(m);
	dns_msg_set16(m, 2, RESP_FLAGS | DNS_OPCODE(2));
}

static void m_cut_in_question(struct dns_msg *m)
{
	resp(m, "www.evil.example", 0);
	m->len = 12 + 9;
}

static void m_cut_qtype(struct dns_msg *m)
{
	resp(m, "www.evil.example", 0);
	m->len -= 2;
}

static void m_header_only(struct dns_msg *m)
{
	dns_msg_header(m, RESP_FLAGS, 1, 0, 0, 0);
}

static void m_empty(struct dns_msg *m)
{
	m->len = 0;
}

static void m_rdlen0_cname(struct dns_msg *m)
{
	resp(m, "www.fine.example", 2);
	alias_raw(m, "", 0);
	dns_msg_addr(m, 1, ADDR_LISTED4, 300);
}

/* A CNAME of RDLENGTH 3 whose target runs on into the next record. */
static void m_target_past_record(struct dns_msg *m)
{
	size_t at;

	resp(m, "www.fine.example", 2);
	at = dns_msg_rr(m, 1, 5, 1, 300);
	dns_msg_name(m, "evil.example");
	dns_msg_set16(m, at, 3);
	/* The bytes after the first 3 of the name read as a record: ANCOUNT covers them. */
}

/* ------------------------------------------------------------ the table */

struct row {
	const char *name;
	enum cfg_id cfg;
	void (*build)(struct dns_msg *m);
	__u8 l4;		/* 0: UDP */
	__u32 verdict;
	__u8 checked, unparsed, hits;
	bool tcp_len_over;	/* TCP: the length prefix 100 bytes over the message */
	bool no_payload;	/* TCP: a bare ACK */
};

#define ROW(n, c, b, v, ch, un, hi, ...) \
	{ .name = n, .cfg = c, .build = b, .verdict = v, .checked = ch, .unparsed = un, \
	  .hits = hi, __VA_ARGS__ }

static const struct row rows[] = {
	ROW("unlisted everything", DROP, m_unlisted, XDP_PASS, 1, 0, 0),
	ROW("listed question", DROP, m_listed_question, XDP_DROP, 1, 0, 1),
	ROW("CNAME chain of 2, listed at the end", DROP, m_chain2_end, XDP_DROP, 1, 0, 1),
	ROW("CNAME chain of 3, listed at the end", DROP, m_chain3_end, XDP_DROP, 1, 0, 1),
	ROW("CNAME chain of 3, listed in the middle", DROP, m_chain3_middle, XDP_DROP, 1, 0, 1),
	ROW("CNAME chain of 3, unlisted", DROP, m_chain3_unlisted, XDP_PASS, 1, 0, 0),
	ROW("DNAME target listed", DROP, m_dname, XDP_DROP, 1, 0, 1),
	ROW("target compressed into the question", DROP, m_ptr_question, XDP_DROP, 1, 0, 1),
	ROW("targets compressed into records, 2 deep", DROP, m_ptr_records, XDP_DROP, 1, 0, 1),
	ROW("targets compressed into records, unlisted", DROP, m_ptr_records_unlisted, XDP_PASS,
	    1, 0, 0),
	ROW("A, AAAA, HTTPS, SVCB target listed", DROP, m_mixed_svcb, XDP_DROP, 1, 0, 1),
	ROW("HTTPS target '.', then a listed A", DROP, m_https_root_then_a, XDP_DROP, 1, 0, 1),
	ROW("HTTPS target listed", DROP, m_https_listed, XDP_DROP, 1, 0, 1),
	ROW("A listed (second record)", DROP, m_a_listed, XDP_DROP, 1, 0, 1),
	ROW("AAAA in a listed prefix", DROP, m_aaaa_prefix, XDP_DROP, 1, 0, 1),
	ROW("AAAA ::ffff: of a listed IPv4 address", DROP, m_aaaa_mapped, XDP_DROP, 1, 0, 1),
	ROW("listed A of class CH", DROP, m_a_listed_class_ch, XDP_PASS, 1, 0, 0),
	ROW("AAAA of 4 bytes: no address", DROP, m_aaaa_rdlen4, XDP_PASS, 1, 0, 0),
	/* Malicious and cut. */
	ROW("pointer to itself", DROP, m_ptr_self, XDP_PASS, 1, 1, 0),
	ROW("two pointers in a cycle", DROP, m_ptr_cycle, XDP_PASS, 1, 1, 0),
	ROW("forward pointer to a listed name", DROP, m_ptr_forward, XDP_PASS, 1, 1, 0),
	ROW("16 pointers to a listed name", DROP, m_ptr16, XDP_DROP, 1, 0, 1),
	ROW("17 pointers to a listed name", DROP, m_ptr17, XDP_PASS, 1, 1, 0),
	ROW("ANCOUNT past the message", DROP, m_ancount_past, XDP_PASS, 1, 1, 0),
	ROW("ANCOUNT past the message, first A listed", DROP, m_ancount_past_listed, XDP_DROP,
	    1, 0, 1),
	ROW("ANCOUNT 200: 16 read, the 17th listed unread", DROP, m_ancount200, XDP_PASS, 1, 1,
	    0),
	ROW("ANCOUNT 200: the 16th listed", DROP, m_ancount200_16th, XDP_DROP, 1, 1, 1),
	ROW("RDLENGTH past the end (listed A)", DROP, m_rdlen_past, XDP_PASS, 1, 1, 0),
	ROW("listed A, then RDLENGTH past the end", DROP, m_listed_then_damage, XDP_DROP, 1, 0,
	    1),
	ROW("label type 0x40 in a target", DROP, m_label40, XDP_PASS, 1, 1, 0),
	ROW("label type 0x80 in a target", DROP, m_label80, XDP_PASS, 1, 1, 0),
	ROW("label type 0x80 in the question", DROP, m_question_label80, XDP_PASS, 0, 1, 0),
	ROW("a pointer in the question", DROP, m_question_ptr, XDP_PASS, 0, 1, 0),
	ROW("target over 255 bytes", DROP, m_target_too_long, XDP_PASS, 1, 1, 0),
	ROW("question over 255 bytes", DROP, m_question_too_long, XDP_PASS, 0, 1, 0),
	ROW("QDCOUNT 0", DROP, m_qdcount0, XDP_PASS, 0, 1, 0),
	ROW("QDCOUNT 2", DROP, m_qdcount2, XDP_PASS, 0, 1, 0),
	ROW("QR 0 from port 53", DROP, m_qr0, XDP_PASS, 0, 1, 0),
	ROW("opcode 2", DROP, m_opcode2, XDP_PASS, 0, 1, 0),
	ROW("cut in the question's name", DROP, m_cut_in_question, XDP_PASS, 0, 1, 0),
	ROW("cut in the question's type", DROP, m_cut_qtype, XDP_PASS, 0, 1, 0),
	ROW("header only", DROP, m_header_only, XDP_PASS, 0, 1, 0),
	ROW("empty datagram", DROP, m_empty, XDP_PASS, 0, 1, 0),
	ROW("CNAME of RDLENGTH 0, then a listed A", DROP, m_rdlen0_cname, XDP_PASS, 1, 1, 0),
	ROW("target past its record", DROP, m_target_past_record, XDP_PASS, 1, 1, 0),
	/* TCP. */
	ROW("TCP: whole, listed", DROP, m_a_listed, XDP_DROP, 1, 0, 1, .l4 = IPPROTO_TCP),
	ROW("TCP: whole, CNAME chain listed", DROP, m_chain3_end, XDP_DROP, 1, 0, 1,
	    .l4 = IPPROTO_TCP),
	ROW("TCP: whole, unlisted", DROP, m_unlisted, XDP_PASS, 1, 0, 0, .l4 = IPPROTO_TCP),
	ROW("TCP: message longer than the segment", DROP, m_a_listed, XDP_PASS, 0, 1, 0,
	    .l4 = IPPROTO_TCP, .tcp_len_over = true),
	ROW("TCP: no payload", DROP, m_a_listed, XDP_PASS, 0, 0, 0, .l4 = IPPROTO_TCP,
	    .no_payload = true),
	/* Monitor. */
	ROW("monitor: listed passes", MON, m_chain3_end, XDP_PASS, 1, 0, 1),
	/* tc: an NXDOMAIN response dropped. */
	ROW("tc: nxdomain listed dropped", TC, m_a_listed, TC_ACT_SHOT, 1, 0, 1),
	ROW("tc: unlisted passes", TC, m_unlisted, TC_ACT_UNSPEC, 1, 0, 0),
};

/* ------------------------------------------------------------- frames */

/*
 * The frame of a response: m in UDP (or TCP behind its length) from port
 * 53 to 40000, in encapsulation fam. Built as a query, then its ports
 * swapped: the checksum stays (a sum does not see the order of its words).
 */
static void resp_frame(const struct dns_msg *m, int fam, __u8 l4, bool len_over,
		       bool no_payload, struct pkt *p, struct built *b)
{
	static unsigned char raw[DNS_MSG_MAX + 2];
	__u8 tmp[2], *ports;
	size_t n = 0;

	memset(p, 0, sizeof(*p));
	p->v6 = fam == FAM_V6 || fam == FAM_V6_VLAN;
	p->vlan = fam == FAM_V4_VLAN || fam == FAM_V6_VLAN;
	p->l4 = l4 ? l4 : IPPROTO_UDP;
	p->app = no_payload ? APP_NONE : APP_RAW;
	p->dport = 53;
	if (l4 == IPPROTO_TCP) {
		put_be16(raw, m->len + (len_over ? 100 : 0));
		n = 2;
	}
	memcpy(raw + n, m->b, m->len);
	p->raw = (const char *)raw;
	p->raw_len = n + m->len;
	assert_int_equal(pkt_build(p, b), 0);
	ports = b->f.data + b->l4;
	memcpy(tmp, ports, 2);
	memcpy(ports, ports + 2, 2);
	memcpy(ports + 2, tmp, 2);
}

static void test_rows(void **state)
{
	static const int fams[] = { FAM_V4, FAM_V6, FAM_V4_VLAN, FAM_V6_VLAN };
	struct bloomxdp_counters d;
	struct dns_msg m;
	struct built b;
	struct pkt p;
	size_t i, j;
	__u32 verdict = 0;
	int bad = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];

		memset(&m, 0, sizeof(m));
		r->build(&m);
		for (j = 0; j < ARRAY_SIZE(fams); j++) {
			resp_frame(&m, fams[j], r->l4, r->tcp_len_over, r->no_payload, &p, &b);
			assert_int_equal(harness_run_frame(&harnesses[r->cfg], &b.f, NULL,
							   &verdict, &d), 0);
			if (verdict != r->verdict || d.checked_dns_answers != r->checked ||
			    d.unparsed_dns_answers != r->unparsed ||
			    d.hits_dns_answers != r->hits ||
			    (r->cfg == MON && d.would_drop != r->hits)) {
				printf("# %s (%s): verdict %u (want %u), checked %llu (%u), "
				       "unparsed %llu (%u), hits %llu (%u)\n", r->name,
				       fam_name(fams[j]), verdict, r->verdict,
				       (unsigned long long)d.checked_dns_answers, r->checked,
				       (unsigned long long)d.unparsed_dns_answers, r->unparsed,
				       (unsigned long long)d.hits_dns_answers, r->hits);
				bad++;
			}
		}
	}
	printf("# %zu rows x %zu encapsulations, %d wrong\n", ARRAY_SIZE(rows), ARRAY_SIZE(fams),
	       bad);
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------ NXDOMAIN rewrite */

/* The response as the rewrite must leave it: cut after the question, flags, counts, sums. */
static void nx_expected(const struct built *b, bool v6, __u32 question_end, struct frame *want)
{
	__u8 *dns;
	__u16 flags;

	*want = b->f;
	frame_truncate(want, b->payload + question_end);
	dns = want->data + b->payload;
	flags = dns[2] << 8 | dns[3];
	flags = (flags & (0x7800 | DNS_FLAG_RD | DNS_FLAG_CD | DNS_FLAG_RA)) | DNS_FLAG_QR | 3;
	put_be16(dns + 2, flags);
	put_be16(dns + 4, 1);
	memset(dns + 6, 0, 6);
	put_be16(want->data + b->l4 + 4, want->len - b->l4);
	if (!v6)
		put_be16(want->data + b->l3 + 10, 0);
	frame_finish(want, v6 ? ETH_P_IPV6 : ETH_P_IP, b->l3);
	l4_set_checksum(want->data, b->l3, b->l4, want->len - b->l4, v6, IPPROTO_UDP);
}

/* A listed CNAME response with every flag set (AA, TC, AD too): rewritten in place. */
static void test_nxdomain_rewrite(void **state)
{
	static const int fams[] = { FAM_V4, FAM_V6, FAM_V4_VLAN, FAM_V6_VLAN };
	struct bloomxdp_counters d;
	struct frame out, want;
	struct dns_msg m;
	struct built b;
	struct pkt p;
	__u32 verdict, qend;
	size_t j;

	(void)state;
	m_chain3_end(&m);
	dns_msg_set16(&m, 2, 0x87b0);	/* QR AA TC RD RA AD CD, rcode 0 */
	qend = 12 + 18 + 4;		/* www.fine.example: 18 bytes */
	for (j = 0; j < ARRAY_SIZE(fams); j++) {
		resp_frame(&m, fams[j], 0, false, false, &p, &b);
		nx_expected(&b, p.v6, qend, &want);
		assert_int_equal(harness_run_frame(&harnesses[NX], &b.f, &out, &verdict, &d), 0);
		assert_int_equal(verdict, XDP_PASS);
		assert_int_equal(d.dns_answers_rewritten, 1);
		assert_int_equal(d.hits_dns_answers, 1);
		assert_int_equal(d.passed, 1);
		assert_int_equal(d.dropped, 0);
		assert_int_equal(out.len, want.len);
		assert_memory_equal(out.data, want.data, want.len);
		/* Independently: flags 0x8193, the checksums sum to all ones. */
		assert_int_equal(out.data[b.payload + 2] << 8 | out.data[b.payload + 3], 0x8193);
		assert_int_equal(l4_sum(out.data, b.l3, b.l4, out.len - b.l4, p.v6, IPPROTO_UDP),
				 0xffff);
		if (!p.v6)
			assert_int_equal(ipv4_checksum(out.data + b.l3, IP4_HLEN), 0);
	}
}

/* Fragments and TCP: dropped, not rewritten. */
static void test_nxdomain_dropped(void **state)
{
	static const __u8 frag_ext[] = { IPPROTO_FRAGMENT };
	struct bloomxdp_counters d;
	struct dns_msg m;
	struct built b;
	struct pkt p;
	__u32 verdict;

	(void)state;
	m_a_listed(&m);
	/* IPv4, first fragment (MF). */
	resp_frame(&m, FAM_V4, 0, false, false, &p, &b);
	p.frag_off = 0x2000;
	assert_int_equal(pkt_build(&p, &b), 0);
	put_be16(b.f.data + b.l4, 53);
	put_be16(b.f.data + b.l4 + 2, 40000);
	assert_int_equal(harness_run_frame(&harnesses[NX], &b.f, NULL, &verdict, &d), 0);
	assert_int_equal(verdict, XDP_DROP);
	assert_int_equal(d.dns_answers_rewritten, 0);
	/* IPv6, first fragment. */
	resp_frame(&m, FAM_V6, 0, false, false, &p, &b);
	p.ext = frag_ext;
	p.n_ext = 1;
	p.frag6 = 1;
	assert_int_equal(pkt_build(&p, &b), 0);
	put_be16(b.f.data + b.l4, 53);
	put_be16(b.f.data + b.l4 + 2, 40000);
	assert_int_equal(harness_run_frame(&harnesses[NX], &b.f, NULL, &verdict, &d), 0);
	assert_int_equal(verdict, XDP_DROP);
	assert_int_equal(d.dns_answers_rewritten, 0);
	/* TCP. */
	resp_frame(&m, FAM_V4, IPPROTO_TCP, false, false, &p, &b);
	assert_int_equal(harness_run_frame(&harnesses[NX], &b.f, NULL, &verdict, &d), 0);
	assert_int_equal(verdict, XDP_DROP);
	assert_int_equal(d.dns_answers_rewritten, 0);
	assert_int_equal(d.hits_dns_answers, 1);
}

/* ------------------------------------------------- canary, HTTPS queries */

/* A query (to port 53) for name of type qtype, over IPv4 or IPv6. */
static void query_frame(const char *name, unsigned int qtype, bool v6, struct built *b)
{
	struct dns_msg m;
	struct pkt p = { .app = APP_RAW, .v6 = v6, .dport = 53, .l4 = IPPROTO_UDP };

	dns_msg_header(&m, DNS_FLAG_RD, 1, 0, 0, 0);
	dns_msg_question(&m, name, qtype);
	p.raw = (const char *)m.b;
	p.raw_len = m.len;
	assert_int_equal(pkt_build(&p, b), 0);
}

static void test_doh_canary(void **state)
{
	struct bloomxdp_counters d;
	struct frame out;
	struct dns_msg m;
	struct built b;
	struct pkt p;
	__u32 verdict;
	int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		query_frame("USE-Application-DNS.net", 1, v6, &b);
		assert_int_equal(harness_run_frame(&harnesses[CANARY], &b.f, &out, &verdict, &d),
				 0);
		assert_int_equal(verdict, XDP_TX);
		assert_int_equal(d.doh_canary, 1);
		assert_int_equal(out.data[b.payload + 3] & 0xf, 3);	/* NXDOMAIN */
		assert_int_equal(harness_run_frame(&harnesses[NX], &b.f, NULL, &verdict, &d), 0);
		assert_int_equal(verdict, XDP_PASS);
		assert_int_equal(d.doh_canary, 0);

		resp(&m, "use-application-dns.NET", 1);
		dns_msg_addr(&m, 1, ADDR_OTHER4, 300);
		resp_frame(&m, v6 ? FAM_V6 : FAM_V4, 0, false, false, &p, &b);
		assert_int_equal(harness_run_frame(&harnesses[CANARY], &b.f, &out, &verdict, &d),
				 0);
		assert_int_equal(verdict, XDP_PASS);
		assert_int_equal(d.doh_canary, 1);
		assert_int_equal(d.dns_answers_rewritten, 1);
		assert_int_equal(out.data[b.payload + 3] & 0xf, 3);
		assert_int_equal(out.len, b.payload + 12 + 25 + 4);
		assert_int_equal(harness_run_frame(&harnesses[NX], &b.f, NULL, &verdict, &d), 0);
		assert_int_equal(verdict, XDP_PASS);
		assert_int_equal(d.doh_canary + d.dns_answers_rewritten, 0);
	}
}

static void test_https_svcb_queries(void **state)
{
	static const unsigned int qtypes[] = { 1, 28, 64, 65 };
	struct bloomxdp_counters d;
	struct built b;
	__u32 verdict;
	size_t i;
	int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++)
		for (i = 0; i < ARRAY_SIZE(qtypes); i++) {
			query_frame("www.evil.example", qtypes[i], v6, &b);
			assert_int_equal(harness_run_frame(&harnesses[DROP], &b.f, NULL, &verdict,
							   &d), 0);
			assert_int_equal(verdict, XDP_DROP);
			assert_int_equal(d.hits_dns, 1);
			query_frame("www.fine.example", qtypes[i], v6, &b);
			assert_int_equal(harness_run_frame(&harnesses[DROP], &b.f, NULL, &verdict,
							   &d), 0);
			assert_int_equal(verdict, XDP_PASS);
		}
}

/* --------------------------------------------------------- named lists */

#define ID_WATCH	1	/* monitor */
#define ID_BAD		2	/* drop */
#define ID_LEARN	3	/* drop, --learn */
#define LEARN_TTL_MAX	7200
#define UNLISTED4	"203.0.113.50"

static const char *const watch_entries[] = { "watched.example", "192.0.2.77", "both.example" };
static const char *const bad_entries[] = { "evil.example", "192.0.2.66", "both.example" };
static const char *const learn_entries[] = { "learnme.example" };
static const char *const union_entries[] = { "watched.example", "192.0.2.77", "both.example",
					     "evil.example", "192.0.2.66", "learnme.example" };

static struct vh v;
static struct ring_buffer *rb;
static struct bloomxdp_event last;
static int nevents;
static struct named_copy copies[BLOOMXDP_LIST_IDS];

static int ev_collect(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size == sizeof(last))
		last = *(struct bloomxdp_event *)data;
	nevents++;
	return 0;
}

/* A named list as load --list [--learn] builds it (lists_harness.h). */
static int list_install(__u32 id, const char *name, __u32 action, __u32 has,
			const char *const *entries, size_t n)
{
	return lists_harness_install(&v, &copies[id], id, name, action, has, entries, n);
}

/* The keys of every list, in one map of masks, at the union's slot 0; the lists present. */
static int keys_install(void)
{
	struct named_copy *all[] = { &copies[ID_WATCH], &copies[ID_BAD], &copies[ID_LEARN] };
	__u32 which = BLOOMXDP_ACTIVE_LISTS;
	__u32 present = (1U << ID_WATCH) | (1U << ID_BAD) | (1U << ID_LEARN) |
			BLOOMXDP_LISTS_LEARNING;
	int ret;

	ret = lists_harness_keys(&v, all, 3);
	if (!ret && bpf_map_update_elem(v.active_fd, &which, &present, BPF_ANY))
		ret = -errno;
	return ret;
}

static int lists_setup(void **state)
{
	const struct vh_config c = { .match = BLOOMXDP_MATCH_NAMES,
				     .action = BLOOMXDP_ACTION_DROP, .events_per_sec = 1000000,
				     .learn_ttl_max = LEARN_TTL_MAX };
	char err[LIST_ERROR_LEN];
	__u32 i;

	(void)state;
	for (i = 0; i < BLOOMXDP_LIST_IDS; i++)
		named_copy_init(&copies[i], &v.h.config);
	if (vh_open(&v, &c) ||
	    vh_load_blocklist(&v, 0, union_entries, ARRAY_SIZE(union_entries),
			      LIST_DEFAULT_PREFIX_PROBES, NULL, err) ||
	    list_install(ID_WATCH, "watch", BLOOMXDP_LIST_MONITOR, 0, watch_entries,
			 ARRAY_SIZE(watch_entries)) ||
	    list_install(ID_BAD, "bad", BLOOMXDP_LIST_DROP, 0, bad_entries,
			 ARRAY_SIZE(bad_entries)) ||
	    list_install(ID_LEARN, "learn", BLOOMXDP_LIST_DROP, BLOOMXDP_LIST_LEARN, learn_entries,
			 ARRAY_SIZE(learn_entries)) ||
	    keys_install())
		return -1;
	rb = ring_buffer__new(v.events_fd, ev_collect, NULL, NULL);
	return rb ? 0 : -1;
}

static int lists_teardown(void **state)
{
	__u32 i;

	(void)state;
	ring_buffer__free(rb);
	for (i = 0; i < BLOOMXDP_LIST_IDS; i++)
		named_copy_close(&copies[i]);
	vh_close(&v);
	return 0;
}

/* One frame through the named-lists program: its verdict, counters, last event. */
static __u32 lists_run(const struct frame *f, struct bloomxdp_counters *d)
{
	__u32 verdict = 0;

	nevents = 0;
	memset(&last, 0, sizeof(last));
	assert_int_equal(harness_run_frame(&v.h, f, NULL, &verdict, d), 0);
	assert_true(ring_buffer__consume(rb) >= 0);
	return verdict;
}

static __u32 lists_run_msg(const struct dns_msg *m, int fam, struct bloomxdp_counters *d)
{
	struct built b;
	struct pkt p;

	resp_frame(m, fam, 0, false, false, &p, &b);
	return lists_run(&b.f, d);
}

static void test_lists_first_record(void **state)
{
	static const unsigned char watched4[4] = { 192, 0, 2, 77 };
	struct bloomxdp_counters d;
	struct dns_msg m;

	(void)state;
	/* A monitored A first, then a dropped one: the first decides. */
	resp(&m, "www.fine.example", 2);
	dns_msg_addr(&m, 1, watched4, 300);
	dns_msg_addr(&m, 1, ADDR_LISTED4, 300);
	assert_int_equal(lists_run_msg(&m, FAM_V4, &d), XDP_PASS);
	assert_int_equal(d.would_drop, 1);
	assert_int_equal(d.hits_dns_answers, 1);
	assert_int_equal(last.list, ID_WATCH);
	assert_int_equal(last.verdict, BLOOMXDP_EVVERDICT_WOULD_DROP);
	/* The other order: dropped. */
	resp(&m, "www.fine.example", 2);
	dns_msg_addr(&m, 1, ADDR_LISTED4, 300);
	dns_msg_addr(&m, 1, watched4, 300);
	assert_int_equal(lists_run_msg(&m, FAM_V6, &d), XDP_DROP);
	assert_int_equal(last.list, ID_BAD);
	/* A target both lists hold: the strongest (drop). */
	resp(&m, "www.fine.example", 1);
	dns_msg_alias(&m, 5, "cdn.both.example");
	assert_int_equal(lists_run_msg(&m, FAM_V4_VLAN, &d), XDP_DROP);
	assert_int_equal(last.list, ID_BAD);
	/* A monitored question before a dropped address. */
	resp(&m, "watched.example", 1);
	dns_msg_addr(&m, 1, ADDR_LISTED4, 300);
	assert_int_equal(lists_run_msg(&m, FAM_V6_VLAN, &d), XDP_PASS);
	assert_int_equal(d.would_drop, 1);
	assert_int_equal(last.list, ID_WATCH);
	assert_int_equal(last.rr_type, 0);
}

static void test_events(void **state)
{
	static const unsigned char target[] = "\x01x\x04" "evil\x07" "example";
	struct bloomxdp_counters d;
	struct dns_msg m;

	(void)state;
	resp(&m, "www.fine.example", 2);
	dns_msg_addr(&m, 28, ADDR_OTHER6, 300);
	dns_msg_addr(&m, 1, ADDR_LISTED4, 300);
	assert_int_equal(lists_run_msg(&m, FAM_V6, &d), XDP_DROP);
	assert_int_equal(nevents, 1);
	assert_int_equal(last.field, BLOOMXDP_FIELD_DNS_ANSWER);
	assert_int_equal(last.rr_type, BLOOMXDP_DNS_TYPE_A);
	assert_memory_equal(last.answer, ADDR_LISTED4, 4);
	assert_int_equal(last.verdict, BLOOMXDP_EVVERDICT_DROP);
	assert_int_equal(last.list, ID_BAD);

	resp(&m, "www.fine.example", 2);
	dns_msg_alias(&m, 5, "x.evil.example");
	dns_msg_addr(&m, 1, ADDR_OTHER4, 300);
	assert_int_equal(lists_run_msg(&m, FAM_V4, &d), XDP_DROP);
	assert_int_equal(nevents, 1);
	assert_int_equal(last.field, BLOOMXDP_FIELD_DNS_ANSWER);
	assert_int_equal(last.rr_type, BLOOMXDP_DNS_TYPE_CNAME);
	assert_int_equal(last.name_wire, 1);
	assert_int_equal(last.name_len, sizeof(target));
	assert_memory_equal(last.name, target, sizeof(target));
}

/* The learned map's entry for a dotted address, 0 or -ENOENT. */
static int learned_get(const char *text, struct bloomxdp_learned *val)
{
	struct bloomxdp_learn_key k = { .family = strchr(text, ':') ? 6 : 4 };

	assert_int_equal(inet_pton(k.family == 6 ? AF_INET6 : AF_INET, text, k.addr), 1);
	return bpf_map_lookup_elem(bpf_map__fd(v.h.lp.skel->maps.learned), &k, val) ? -errno : 0;
}

static void learned_put(const char *text, __u64 expires_ns)
{
	struct bloomxdp_learn_key k = { .family = 4 };
	struct bloomxdp_learned val = { .expires_ns = expires_ns, .list = ID_LEARN, .ttl = 60,
					.rr_type = BLOOMXDP_DNS_TYPE_A };

	assert_int_equal(inet_pton(AF_INET, text, k.addr), 1);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(v.h.lp.skel->maps.learned), &k, &val,
					     BPF_ANY), 0);
}

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The answer for a learning list's name: passes, its addresses learned, TTLs held. */
static void learn_answer(void)
{
	static const unsigned char a4[4] = { 192, 0, 2, 10 };
	static const unsigned char a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x10, 0, 0,
					      0, 0, 0, 0, 0, 0, 0, 1 };
	/* ::ffff:192.0.2.13: learned as 192.0.2.13, the address IPv4 packets carry. */
	static const unsigned char mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
						  0, 0, 0xff, 0xff, 192, 0, 2, 13 };
	unsigned char wire[64];
	struct bloomxdp_learned val;
	struct bloomxdp_counters d;
	struct dns_msg m;
	size_t n = dns_wire_name("learnme.example", wire);

	resp(&m, "learnme.example", 3);
	dns_msg_addr(&m, 1, a4, 5);
	dns_msg_addr(&m, 28, a6, 999999);
	dns_msg_addr(&m, 28, mapped, 300);
	assert_int_equal(lists_run_msg(&m, FAM_V4, &d), XDP_PASS);
	assert_int_equal(d.learned, 3);
	assert_int_equal(d.hits_dns_answers, 0);
	assert_int_equal(d.checked_dns_answers, 1);
	assert_int_equal(nevents, 0);
	assert_int_equal(learned_get("192.0.2.10", &val), 0);
	assert_int_equal(val.ttl, BLOOMXDP_LEARN_TTL_MIN);
	assert_true(val.expires_ns - val.learned_ns == BLOOMXDP_LEARN_TTL_MIN * 1000000000ULL);
	assert_int_equal(val.list, ID_LEARN);
	assert_int_equal(val.rr_type, BLOOMXDP_DNS_TYPE_A);
	assert_int_equal(val.name_len, n);
	assert_memory_equal(val.name, wire, n);
	assert_int_equal(learned_get("2001:db8:10::1", &val), 0);
	assert_int_equal(val.ttl, LEARN_TTL_MAX);
	assert_true(val.expires_ns - val.learned_ns == LEARN_TTL_MAX * 1000000000ULL);
	assert_int_equal(val.rr_type, BLOOMXDP_DNS_TYPE_AAAA);
	assert_int_equal(learned_get("192.0.2.13", &val), 0);
	assert_int_equal(val.ttl, 300);
	assert_int_equal(val.rr_type, BLOOMXDP_DNS_TYPE_AAAA);
	assert_int_equal(learned_get("::ffff:192.0.2.13", &val), -ENOENT);
}

static void test_learning(void **state)
{
	static const char *const allow[] = { "192.0.2.12" };
	char err[LIST_ERROR_LEN];
	struct bloomxdp_counters d;
	struct frame f;

	(void)state;
	learn_answer();
	/* The learning list's name decides nothing: its query passes. */
	assert_int_equal(frame_dns_query(&f, 0, UNLISTED4, FRAME_DST4, "learnme.example"), 0);
	assert_int_equal(lists_run(&f, &d), XDP_PASS);
	/* From and to a learned address: the list's action. */
	assert_int_equal(frame_udp(&f, "192.0.2.10", FRAME_DST4), 0);
	assert_int_equal(lists_run(&f, &d), XDP_DROP);
	assert_int_equal(d.hits_learned, 1);
	assert_int_equal(last.key_kind, BLOOMXDP_EVKEY_LEARNED);
	assert_int_equal(last.field, BLOOMXDP_FIELD_SRC);
	assert_int_equal(last.list, ID_LEARN);
	assert_int_equal(frame_udp(&f, UNLISTED4, "192.0.2.10"), 0);
	assert_int_equal(lists_run(&f, &d), XDP_DROP);
	assert_int_equal(d.hits_learned, 1);
	assert_int_equal(last.field, BLOOMXDP_FIELD_DST);
	assert_int_equal(frame_udp(&f, "2001:db8:10::1", FRAME_DST6), 0);
	assert_int_equal(lists_run(&f, &d), XDP_DROP);
	assert_int_equal(d.hits_learned, 1);
	assert_int_equal(frame_udp(&f, UNLISTED4, "192.0.2.13"), 0);	/* a mapped AAAA's */
	assert_int_equal(lists_run(&f, &d), XDP_DROP);
	assert_int_equal(d.hits_learned, 1);
	assert_int_equal(frame_udp(&f, UNLISTED4, FRAME_DST4), 0);
	assert_int_equal(lists_run(&f, &d), XDP_PASS);
	assert_int_equal(d.hits_learned, 0);
	/* Expired: ignored. */
	learned_put("192.0.2.11", 1);
	assert_int_equal(frame_udp(&f, "192.0.2.11", FRAME_DST4), 0);
	assert_int_equal(lists_run(&f, &d), XDP_PASS);
	assert_int_equal(d.hits_learned, 0);
	/* Live, then allowlisted: passes, counted allowed. */
	learned_put("192.0.2.12", monotonic_ns() + 3600ULL * 1000000000ULL);
	assert_int_equal(frame_udp(&f, "192.0.2.12", FRAME_DST4), 0);
	assert_int_equal(lists_run(&f, &d), XDP_DROP);
	assert_int_equal(vh_load_allowlist(&v, 0, allow, 1, err), 0);
	assert_int_equal(lists_run(&f, &d), XDP_PASS);
	assert_int_equal(d.hits_learned, 0);
	assert_int_equal(d.allowed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_nxdomain_rewrite),
		cmocka_unit_test(test_nxdomain_dropped),
		cmocka_unit_test(test_doh_canary),
		cmocka_unit_test(test_https_svcb_queries),
	};
	const struct CMUnitTest list_tests[] = {
		cmocka_unit_test(test_lists_first_record),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_learning),
	};
	int failed;

	failed = cmocka_run_group_tests_name("dns answers", tests, setup, teardown);
	failed += cmocka_run_group_tests_name("dns answers, named lists", list_tests, lists_setup,
					      lists_teardown);
	return failed;
}
