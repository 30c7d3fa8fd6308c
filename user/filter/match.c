// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bloomxdp/common.h>
#include "filter/match.h"

const struct enum_value match_values[] = {
	ENUM_VALUE("src", BLOOMXDP_MATCH_SRC, "the source address"),
	ENUM_VALUE("dst", BLOOMXDP_MATCH_DST, "the destination address"),
	ENUM_VALUE("dns", BLOOMXDP_MATCH_DNS, "DNS query names"),
	ENUM_VALUE("http", BLOOMXDP_MATCH_HTTP, "HTTP Host and URL"),
	ENUM_VALUE("sni", BLOOMXDP_MATCH_SNI, "TLS server name"),
	ENUM_VALUE("dns-answers", BLOOMXDP_MATCH_DNS_ANSWERS,
		   "DNS responses: question, CNAME/DNAME/HTTPS/SVCB targets, A/AAAA addresses"),
	{}
};

const char *match_text(__u32 match, char *buf, size_t len)
{
	return enum_value_set_text(match_values, match, buf, len);
}
