/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_PACKET_FPR_H
#define BLOOMXDP_PACKET_FPR_H

#include <stddef.h>
#include <linux/types.h>

/*
 * --fpr is a promise per packet: an unlisted packet is dropped with at most
 * that chance, however many Bloom probes it takes. A packet takes one probe
 * per target prefix length of its family for each address field matched
 * (src, dst; none when the family is in exact intervals), one per listed
 * name depth for its name (DNS, HTTP Host, SNI), and for HTTP with URL
 * entries one per path prefix (at most BLOOMXDP_MAX_PATH_PREFIXES) for each
 * host suffix that carries URL entries. The filter is one for every key, so
 * its per-probe rate p is chosen for the worst packet: p such that
 * 1 - (1 - p)^T (T: that packet's probes) stays within the target.
 *
 * A DNS response (--match dns-answers) takes its question's name probes and,
 * for each record of its answer section read (at most
 * BLOOMXDP_DNS_ANSWERS_MAX), a name's (a CNAME, DNAME, HTTPS or SVCB target:
 * one per listed name depth) or an address's (an A or AAAA record: the probed
 * prefix lengths of its family); sized for the worst, every record of the
 * kind that takes the most probes.
 */
enum packet_field {
	PACKET_FIELD_IPV4,	/* the address fields (src and dst as matched) of IPv4 */
	PACKET_FIELD_IPV6,
	PACKET_FIELD_DNS,	/* the QNAME of a DNS query */
	PACKET_FIELD_HTTP,	/* the Host of a request, and its path with URL entries */
	PACKET_FIELD_SNI,	/* the server_name of a ClientHello */
	PACKET_FIELD_DNS_ANSWERS,	/* a DNS response: its question and answer records */
	PACKET_FIELDS
};

/* "ipv4", "ipv6", "dns", "http", "sni", "dns-answers": the label of bloomxdp_filter_packet_fpr. */
extern const char *const packet_field_names[PACKET_FIELDS];

struct packet_probes {
	__u32 probes[PACKET_FIELDS];	/* Bloom probes of the field per packet, at most */
	__u32 used;			/* bit per field the attachment looks up (--match) */
	/*
	 * HTTP: host suffixes without URL entries whose marker is probed: a false
	 * hit there costs the path probes too (a chance of about p times 9 p).
	 */
	__u32 marker_probes;
};

/*
 * Counts the probes of each field for an attachment matching match
 * (BLOOMXDP_MATCH_*) whose filter holds kinds (BLOOMXDP_HAS_*) with the
 * probed prefix lengths of each family (t4, t6; 0: none, or exact intervals).
 */
void packet_probes_set(struct packet_probes *pp, __u32 match, __u64 kinds, __u32 t4, __u32 t6);

/* The same from a filter's header words (kinds, and the lengths words of each family). */
void packet_probes_of_header(struct packet_probes *pp, __u32 match, __u64 kinds, __u64 v4_word,
			     __u64 v6_word);

/* The chance that an unlisted packet's lookup of field hits falsely, at p per probe. */
double packet_field_fpr(const struct packet_probes *pp, enum packet_field field, double p);

/* The same for the worst packet: an address of one family and one name field together. */
double packet_worst_fpr(const struct packet_probes *pp, double p);

/* Probes of the worst packet (without the marker term). */
__u32 packet_worst_probes(const struct packet_probes *pp);

/* The largest per-probe rate whose worst packet stays within target (target when no probe). */
double packet_probe_fpr(const struct packet_probes *pp, double target);

/*
 * "ipv4 0.0095 (6 probes), dns 0.003 (2 probes)": the fields looked up, for
 * status and plan, into buf.
 */
const char *packet_fpr_text(const struct packet_probes *pp, double p, char *buf, size_t len);

/* "packet_fpr": {"ipv4": {"probes": 6, "fpr": ...}, ..., "worst": {...}} into j. */
struct json;
void packet_fpr_json(struct json *j, const struct packet_probes *pp, double p);

#endif
