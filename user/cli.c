// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"

int parse_count(const char *opt, const char *text, __u64 *out)
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
	if (end == text || *end || errno || !(v >= 1) || v > 1e15 || v != floor(v)) {
		log_error("%s %s: expected a whole number of at least 1 (e.g. 1000000, 1e6, 10M)",
			  opt, text);
		return -EINVAL;
	}
	*out = (__u64)v;
	return 0;
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

int usage_error(const char *cmd)
{
	log_error("see 'bloomxdp %s --help'", cmd);
	return 2;
}

int take_ifname(const char *cmd, int argc, char **argv, int *optind_io, const char **ifname)
{
	if (*optind_io >= argc) {
		log_error("%s: missing the interface name; see 'bloomxdp %s --help'", cmd, cmd);
		return -EINVAL;
	}
	*ifname = argv[(*optind_io)++];
	return 0;
}
