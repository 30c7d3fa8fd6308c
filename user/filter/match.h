/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_FILTER_MATCH_H
#define BLOOMXDP_FILTER_MATCH_H

#include <stddef.h>
#include <linux/types.h>
#include "util/options.h"

/* The values of --match: "src", "dst", "dns", "http", "sni", "dns-answers" (BLOOMXDP_MATCH_*). */
extern const struct enum_value match_values[];
/* The comma list of a match mask, e.g. "src,dns", into buf. */
const char *match_text(__u32 match, char *buf, size_t len);

#endif
