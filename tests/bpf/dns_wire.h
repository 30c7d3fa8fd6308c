/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The DNS wire form of names, for the tests and benchmarks that build queries. */
#ifndef BLOOMXDP_TESTS_DNS_WIRE_H
#define BLOOMXDP_TESTS_DNS_WIRE_H

#include <stddef.h>
#include <string.h>

/* A dotted name (no trailing dot) as length-prefixed labels and the root label; its length. */
static inline size_t dns_wire_name(const char *name, unsigned char *out)
{
	const char *p = name, *dot;
	size_t n = 0, len;

	while (*p) {
		dot = strchr(p, '.');
		len = dot ? (size_t)(dot - p) : strlen(p);
		out[n++] = len;
		memcpy(out + n, p, len);
		n += len;
		p += len + (dot ? 1 : 0);
	}
	out[n++] = 0;
	return n;
}

/*
 * DNS messages byte by byte, for the tests of responses (--match dns-answers):
 * a header, questions, records whose owner and target names are written
 * plain, compressed (labels then a pointer) or as raw bytes for the
 * malicious cases. Offsets are from the message's start, as pointers count.
 */
#define DNS_MSG_MAX	4096

struct dns_msg {
	unsigned char b[DNS_MSG_MAX];
	size_t len;
};

static inline void dns_msg_put(struct dns_msg *m, const void *p, size_t n)
{
	if (m->len + n > DNS_MSG_MAX)
		n = DNS_MSG_MAX - m->len;
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static inline void dns_msg_be16(struct dns_msg *m, unsigned int v)
{
	unsigned char b[2] = { (unsigned char)(v >> 8), (unsigned char)v };

	dns_msg_put(m, b, 2);
}

static inline void dns_msg_be32(struct dns_msg *m, unsigned long v)
{
	dns_msg_be16(m, (v >> 16) & 0xffff);
	dns_msg_be16(m, v & 0xffff);
}

static inline void dns_msg_set16(struct dns_msg *m, size_t at, unsigned int v)
{
	m->b[at] = v >> 8;
	m->b[at + 1] = v;
}

/* A header: ID 0xbe0f, flags as given, the four counts. */
static inline void dns_msg_header(struct dns_msg *m, unsigned int flags, unsigned int qd,
				  unsigned int an, unsigned int ns, unsigned int ar)
{
	m->len = 0;
	dns_msg_be16(m, 0xbe0f);
	dns_msg_be16(m, flags);
	dns_msg_be16(m, qd);
	dns_msg_be16(m, an);
	dns_msg_be16(m, ns);
	dns_msg_be16(m, ar);
}

/* A dotted name in wire form, root label included; returns its offset. */
static inline size_t dns_msg_name(struct dns_msg *m, const char *name)
{
	unsigned char w[1024];
	size_t at = m->len;

	dns_msg_put(m, w, dns_wire_name(name, w));
	return at;
}

/* Labels of a dotted name (no root label), then a pointer to ptr; returns the offset. */
static inline size_t dns_msg_name_ptr(struct dns_msg *m, const char *labels, unsigned int ptr)
{
	unsigned char w[1024];
	size_t at = m->len, n = 0;

	if (labels && *labels)
		n = dns_wire_name(labels, w) - 1;
	dns_msg_put(m, w, n);
	dns_msg_be16(m, 0xc000 | ptr);
	return at;
}

/* A question of type qtype, class IN; returns the name's offset. */
static inline size_t dns_msg_question(struct dns_msg *m, const char *name, unsigned int qtype)
{
	size_t at = dns_msg_name(m, name);

	dns_msg_be16(m, qtype);
	dns_msg_be16(m, 1);
	return at;
}

/*
 * A record's fixed part after its owner (a pointer to the question, offset
 * 12, unless the caller wrote one): type, class, TTL, RDLENGTH 0; returns
 * where RDLENGTH lies, for dns_msg_rr_end().
 */
static inline size_t dns_msg_rr(struct dns_msg *m, int owner_to_question, unsigned int type,
				unsigned int class, unsigned long ttl)
{
	size_t at;

	if (owner_to_question)
		dns_msg_be16(m, 0xc00c);
	dns_msg_be16(m, type);
	dns_msg_be16(m, class);
	dns_msg_be32(m, ttl);
	at = m->len;
	dns_msg_be16(m, 0);
	return at;
}

/* RDLENGTH set to what was written since dns_msg_rr(). */
static inline void dns_msg_rr_end(struct dns_msg *m, size_t rdlen_at)
{
	dns_msg_set16(m, rdlen_at, m->len - rdlen_at - 2);
}

/* An A (4 bytes) or AAAA (16) record of the question's name, class IN. */
static inline void dns_msg_addr(struct dns_msg *m, unsigned int type, const void *addr,
				unsigned long ttl)
{
	size_t n = type == 28 ? 16 : 4, at = dns_msg_rr(m, 1, type, 1, ttl);

	dns_msg_put(m, addr, n);
	dns_msg_rr_end(m, at);
}

/* A CNAME or DNAME record of the question's name, its target plain. */
static inline size_t dns_msg_alias(struct dns_msg *m, unsigned int type, const char *target)
{
	size_t at = dns_msg_rr(m, 1, type, 1, 300), name = dns_msg_name(m, target);

	dns_msg_rr_end(m, at);
	return name;
}

/* An HTTPS (65) or SVCB (64) record: priority 1, target plain, no parameters. */
static inline size_t dns_msg_svc(struct dns_msg *m, unsigned int type, const char *target)
{
	size_t at = dns_msg_rr(m, 1, type, 1, 300), name;

	dns_msg_be16(m, 1);
	name = dns_msg_name(m, target);
	dns_msg_rr_end(m, at);
	return name;
}

#endif
