// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include "util/numbers.h"
#include "util/log.h"
#include "util/options.h"

int parse_count_range(const char *opt, const char *text, double min, double max, __u64 *out)
{
	double mult = 1, v;
	char *end;

	errno = 0;
	v = strtod(text, &end);
	if (end != text && *end) {
		switch (*end++) {
		case 'k': case 'K': mult = 1e3; break;
		case 'm': case 'M': mult = 1e6; break;
		case 'g': case 'G': mult = 1e9; break;
		default: end = (char *)text; break;
		}
	}
	v *= mult;
	if (end == text || *end || errno || !(v >= min) || v > max || v != floor(v)) {
		if (max < 1e15)
			log_error("%s %s: expected a whole number from %.0f to %.0f", opt, text, min,
				  max);
		else
			log_error("%s %s: expected a whole number of at least %.0f (e.g. 1000000, "
				  "1e6, 10M)", opt, text, min);
		return -EINVAL;
	}
	*out = (__u64)v;
	return 0;
}

int parse_count(const char *opt, const char *text, __u64 *out)
{
	return parse_count_range(opt, text, 1, COUNT_MAX, out);
}

int parse_fpr(const char *opt, const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end != text && *end == '%') {
		v /= 100;
		end++;
	}
	if (end == text || *end || errno || !(v > 0 && v < 1)) {
		log_error("%s %s: expected a rate between 0 and 1 exclusive (e.g. 0.01 or 1%%)",
			  opt, text);
		return -EINVAL;
	}
	*out = v;
	return 0;
}
