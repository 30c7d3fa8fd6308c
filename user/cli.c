// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <bloomxdp/common.h>
#include "cli.h"
#include "ifname.h"
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

int usage_error(const char *cmd, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int len = strcspn(arg, "=");

	/* getopt itself prints nothing (opterr = 0): one line, said here. */
	if (!strncmp(arg, "--", 2) && optopt)
		log_error("%s: option '%.*s' needs a value; see 'bloomxdp %s --help'", cmd, len,
			  arg, cmd);
	else if (!strncmp(arg, "--", 2))
		log_error("%s: unknown option '%.*s'; see 'bloomxdp %s --help'", cmd, len, arg,
			  cmd);
	else if (optopt)
		log_error("%s: option '-%c' is unknown or needs a value; see 'bloomxdp %s --help'",
			  cmd, optopt, cmd);
	else
		log_error("%s: bad option '%s'; see 'bloomxdp %s --help'", cmd, arg, cmd);
	return 2;
}

int take_ifname(const char *cmd, int argc, char **argv, int *optind_io, const char **ifname)
{
	if (*optind_io >= argc) {
		log_error("%s: missing the interface name; see 'bloomxdp %s --help'", cmd, cmd);
		return -EINVAL;
	}
	*ifname = argv[(*optind_io)++];
	/* Every command: the name becomes a directory under the bpffs. */
	return ifname_check(*ifname);
}

static const struct {
	const char *name;
	__u32 bit;
} match_names[] = {
	{ "src", BLOOMXDP_MATCH_SRC }, { "dst", BLOOMXDP_MATCH_DST }, { "dns", BLOOMXDP_MATCH_DNS },
	{ "http", BLOOMXDP_MATCH_HTTP }, { "sni", BLOOMXDP_MATCH_SNI },
};

__u32 match_bit(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(match_names) / sizeof(match_names[0]); i++)
		if (!strcmp(name, match_names[i].name))
			return match_names[i].bit;
	return 0;
}

const char *match_text(__u32 match, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(match_names) / sizeof(match_names[0]); i++)
		if ((match & match_names[i].bit) && used < len)
			used += snprintf(buf + used, len - used, "%s%s", used ? "," : "",
					 match_names[i].name);
	return buf;
}

int take_only_ifname(const char *cmd, int argc, char **argv, int optind_now, const char **ifname)
{
	if (take_ifname(cmd, argc, argv, &optind_now, ifname))
		return -EINVAL;
	if (optind_now < argc) {
		log_error("%s: unexpected argument '%s'; see 'bloomxdp %s --help'", cmd,
			  argv[optind_now], cmd);
		return -EINVAL;
	}
	return 0;
}
