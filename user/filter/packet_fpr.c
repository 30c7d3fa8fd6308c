// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include <bloomxdp/common.h>
#include <bloomxdp/name.h>
#include "util/json.h"
#include "filter/packet_fpr.h"
#include "parse/prefixes.h"

const char *const packet_field_names[PACKET_FIELDS] = {
	[PACKET_FIELD_IPV4] = "ipv4",
	[PACKET_FIELD_IPV6] = "ipv6",
	[PACKET_FIELD_DNS] = "dns",
	[PACKET_FIELD_HTTP] = "http",
	[PACKET_FIELD_SNI] = "sni",
	[PACKET_FIELD_DNS_ANSWERS] = "dns-answers",
};

/* A DNS response: the question's name, then each record read at its worst, a name or an address. */
static __u32 dns_answers_probes(__u64 kinds, __u32 depths, __u32 t4, __u32 t6)
{
	__u32 record = depths;

	if (kinds & BLOOMXDP_HAS_IPV4 && t4 > record)
		record = t4;
	if (kinds & BLOOMXDP_HAS_IPV6 && t6 > record)
		record = t6;
	return depths + BLOOMXDP_DNS_ANSWERS_MAX * record;
}

void packet_probes_set(struct packet_probes *pp, __u32 match, __u64 kinds, __u32 t4, __u32 t6)
{
	__u32 addrs = !!(match & BLOOMXDP_MATCH_SRC) + !!(match & BLOOMXDP_MATCH_DST);
	__u32 depths = __builtin_popcountll(kinds & BLOOMXDP_HAS_NAME_DEPTHS);
	__u32 url_depths = __builtin_popcountll(kinds & BLOOMXDP_HAS_URL_DEPTHS);

	/* A filter of an older bloomxdp: URLs without their depths, at one depth at least. */
	if ((kinds & BLOOMXDP_HAS_URLS) && !url_depths)
		url_depths = 1;
	if (!(kinds & BLOOMXDP_HAS_URLS))
		url_depths = 0;
	pp->used = 0;
	if (addrs)
		pp->used |= 1U << PACKET_FIELD_IPV4 | 1U << PACKET_FIELD_IPV6;
	if (match & BLOOMXDP_MATCH_DNS)
		pp->used |= 1U << PACKET_FIELD_DNS;
	if (match & BLOOMXDP_MATCH_HTTP)
		pp->used |= 1U << PACKET_FIELD_HTTP;
	if (match & BLOOMXDP_MATCH_SNI)
		pp->used |= 1U << PACKET_FIELD_SNI;
	if (match & BLOOMXDP_MATCH_DNS_ANSWERS)
		pp->used |= 1U << PACKET_FIELD_DNS_ANSWERS;
	pp->probes[PACKET_FIELD_IPV4] = kinds & BLOOMXDP_HAS_IPV4 ? addrs * t4 : 0;
	pp->probes[PACKET_FIELD_IPV6] = kinds & BLOOMXDP_HAS_IPV6 ? addrs * t6 : 0;
	pp->probes[PACKET_FIELD_DNS] = match & BLOOMXDP_MATCH_DNS ? depths : 0;
	pp->probes[PACKET_FIELD_SNI] = match & BLOOMXDP_MATCH_SNI ? depths : 0;
	pp->probes[PACKET_FIELD_DNS_ANSWERS] = match & BLOOMXDP_MATCH_DNS_ANSWERS ?
					       dns_answers_probes(kinds, depths, t4, t6) : 0;
	pp->probes[PACKET_FIELD_HTTP] = match & BLOOMXDP_MATCH_HTTP ?
					depths + url_depths * BLOOMXDP_MAX_PATH_PREFIXES : 0;
	pp->marker_probes = match & BLOOMXDP_MATCH_HTTP && url_depths ?
			    BLOOMXDP_MAX_LABELS - url_depths : 0;
}

void packet_probes_of_header(struct packet_probes *pp, __u32 match, __u64 kinds, __u64 v4_word,
			     __u64 v6_word)
{
	__u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS];

	/* A family in exact intervals has no length in its word: no probe. */
	packet_probes_set(pp, match, kinds, prefix_word_lengths(v4_word, lengths),
			  prefix_word_lengths(v6_word, lengths));
}

/* 1 - (1 - p)^n, exact for small p too. */
static double any_of(double p, double n)
{
	return -expm1(n * log1p(-p));
}

/* The chance of a false hit over probes probes, and the markers' term for HTTP. */
static double fpr_of(const struct packet_probes *pp, __u32 probes, bool http, double p)
{
	double f = any_of(p, probes);

	if (http && pp->marker_probes)
		f += any_of(p, pp->marker_probes) * any_of(p, BLOOMXDP_MAX_PATH_PREFIXES);
	return f < 1 ? f : 1;
}

double packet_field_fpr(const struct packet_probes *pp, enum packet_field field, double p)
{
	if (field >= PACKET_FIELDS || !(pp->used & (1U << field)))
		return 0;
	return fpr_of(pp, pp->probes[field], field == PACKET_FIELD_HTTP, p);
}

static const enum packet_field name_fields[] = {
	PACKET_FIELD_DNS, PACKET_FIELD_HTTP, PACKET_FIELD_SNI, PACKET_FIELD_DNS_ANSWERS,
};

double packet_worst_fpr(const struct packet_probes *pp, double p)
{
	double worst = 0, f;
	__u32 fam, i, addr;

	/* A packet is of one family; its name, if any, is of one field. */
	for (fam = PACKET_FIELD_IPV4; fam <= PACKET_FIELD_IPV6; fam++) {
		addr = pp->used & (1U << fam) ? pp->probes[fam] : 0;
		f = fpr_of(pp, addr, false, p);
		worst = f > worst ? f : worst;
		for (i = 0; i < sizeof(name_fields) / sizeof(name_fields[0]); i++) {
			if (!(pp->used & (1U << name_fields[i])))
				continue;
			f = fpr_of(pp, addr + pp->probes[name_fields[i]],
				   name_fields[i] == PACKET_FIELD_HTTP, p);
			worst = f > worst ? f : worst;
		}
	}
	return worst;
}

__u32 packet_worst_probes(const struct packet_probes *pp)
{
	__u32 fam, i, addr, n, worst = 0;

	for (fam = PACKET_FIELD_IPV4; fam <= PACKET_FIELD_IPV6; fam++) {
		addr = pp->used & (1U << fam) ? pp->probes[fam] : 0;
		worst = addr > worst ? addr : worst;
		for (i = 0; i < sizeof(name_fields) / sizeof(name_fields[0]); i++) {
			n = pp->used & (1U << name_fields[i]) ?
			    addr + pp->probes[name_fields[i]] : 0;
			worst = n > worst ? n : worst;
		}
	}
	return worst;
}

double packet_probe_fpr(const struct packet_probes *pp, double target)
{
	double lo = 0, hi = target, mid;
	int i;

	if (!(target > 0 && target < 1) || packet_worst_fpr(pp, target) <= target)
		return target;
	/* The worst packet's chance grows with p: bisection, 64 steps to a double's precision. */
	for (i = 0; i < 64; i++) {
		mid = lo + (hi - lo) / 2;
		if (packet_worst_fpr(pp, mid) <= target)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const char *packet_fpr_text(const struct packet_probes *pp, double p, char *buf, size_t len)
{
	size_t used = 0;
	__u32 i;

	buf[0] = '\0';
	for (i = 0; i < PACKET_FIELDS && used < len; i++) {
		if (!(pp->used & (1U << i)))
			continue;
		used += snprintf(buf + used, len - used, "%s%s %.3g (%u probe%s)", used ? ", " : "",
				 packet_field_names[i], packet_field_fpr(pp, i, p), pp->probes[i],
				 pp->probes[i] == 1 ? "" : "s");
	}
	return buf;
}

static void field_json(struct json *j, const char *name, __u32 probes, double fpr)
{
	json_key(j, name);
	json_object_start(j);
	json_kv_u64(j, "probes", probes);
	json_kv_double(j, "fpr", "%.6g", fpr);
	json_object_end(j);
}

void packet_fpr_json(struct json *j, const struct packet_probes *pp, double p)
{
	__u32 i;

	json_key(j, "packet_fpr");
	json_object_start(j);
	for (i = 0; i < PACKET_FIELDS; i++)
		if (pp->used & (1U << i))
			field_json(j, packet_field_names[i], pp->probes[i],
				   packet_field_fpr(pp, i, p));
	field_json(j, "worst", packet_worst_probes(pp), packet_worst_fpr(pp, p));
	json_object_end(j);
}
