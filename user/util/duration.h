/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Durations, one syntax for the command line (OPT_DURATION, OPT_SECONDS) and
 * the configuration: a number and a unit, s (the default), m, h or d: "45",
 * "30s", "10m", "2h", "7d". (CrowdSec's Go durations, "3h59m58.5s", are the
 * LAPI's own: crowdsec_parse.c.)
 */
#ifndef BLOOMXDP_DURATION_H
#define BLOOMXDP_DURATION_H

#include <stddef.h>
#include <linux/types.h>

/* A year: the longest duration taken (an interval, add --timeout). */
#define DURATION_MAX_S (365ULL * 86400)
/* What an error shows: "expected a duration such as " DURATION_EXAMPLES. */
#define DURATION_EXAMPLES "30s, 10m, 2h or 7d"

/*
 * Whole seconds: digits (no sign, space or fraction), then at most one unit;
 * at most DURATION_MAX_S. 0, or -EINVAL (not a duration, or longer).
 */
int duration_parse(const char *text, __u64 *seconds);
/*
 * With a fraction: "0.5", "1.5s", "2m" (the number as strtod() reads it),
 * then at most one unit; finite and not negative (the caller bounds it).
 * 0, or -EINVAL.
 */
int duration_parse_real(const char *text, double *seconds);
/* seconds in the largest unit that holds it whole: "365d", "1h", "90s"; buf returned. */
const char *duration_text(__u64 seconds, char *buf, size_t len);

#endif
