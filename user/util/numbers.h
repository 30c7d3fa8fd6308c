/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_UTIL_NUMBERS_H
#define BLOOMXDP_UTIL_NUMBERS_H

#include <linux/types.h>

/* The largest count an option takes: 10^15. */
#define COUNT_MAX 1e15
/* "1000000", "1e6", "10M", "2k": a whole number in [min, max]. Logs the error. */
int parse_count_range(const char *opt, const char *text, double min, double max, __u64 *out);
/* The same in [1, COUNT_MAX]. */
int parse_count(const char *opt, const char *text, __u64 *out);
/* A rate strictly between 0 and 1, or a percentage "1%". Logs the error. */
int parse_fpr(const char *opt, const char *text, double *out);

#endif
