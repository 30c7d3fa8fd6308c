// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A command's argv parsed by its option table, its --help printed from it (command.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "util/ifname.h"
#include "util/log.h"

/* Options a command's table may hold, plus the common ones. */
#define MAX_OPTIONS COMMAND_MAX_OPTIONS

/* The common options every command takes; --json only where the command says. */
static const struct option_spec common_help = {
	.name = "help", .short_name = 'h', .help = "show this help",
};
static const struct option_spec common_verbose = {
	.name = "verbose", .short_name = 'v',
	.help = "show libbpf's log (and the verifier's)",
};
static const struct option_spec common_json = {
	.name = "json", .short_name = 'j', .help = "JSON output, one object per line",
};

/* The command's options then the common ones: what getopt and --help see. */
static int all_options(const struct command *cmd, const struct option_spec **out)
{
	const struct option_spec *o;
	int n = 0;

	for (o = cmd->options; o && o->name && n < MAX_OPTIONS - 3; o++)
		out[n++] = o;
	if (cmd->json)
		out[n++] = &common_json;
	out[n++] = &common_verbose;
	out[n++] = &common_help;
	return n;
}

void command_help(const struct command *cmd, FILE *out)
{
	const struct option_spec *opts[MAX_OPTIONS];
	int i, n = all_options(cmd, opts);

	fprintf(out, "Usage: bloomxdp %s%s%s [OPTIONS]\n\n", cmd->name, cmd->args ? " " : "",
		cmd->args ? cmd->args : "");
	if (cmd->description)
		fprintf(out, "%s\n", cmd->description);
	fprintf(out, "Options:\n");
	for (i = 0; i < n; i++)
		option_print_help(opts[i], cmd->defaults, out);
}

/* For the generators of the manual page and of completion (manpage.c, complete.c). */
int command_options(const struct command *cmd, const struct option_spec **out)
{
	return all_options(cmd, out);
}

/* The commands other than cmd that take an option of that long name, for the error. */
static const char *commands_with_option(const struct command *const *commands,
					const struct command *cmd, const char *name, size_t len,
					char *buf, size_t size)
{
	const struct option_spec *o;
	size_t used = 0;
	int c;

	buf[0] = '\0';
	for (c = 0; commands[c] && used < size; c++) {
		if (commands[c] == cmd)
			continue;
		for (o = commands[c]->options; o && o->name; o++) {
			if (strlen(o->name) == len && !strncmp(o->name, name, len)) {
				used += snprintf(buf + used, size - used, "%s'bloomxdp %s'",
						 used ? " and " : "", commands[c]->name);
				break;
			}
		}
	}
	return buf[0] ? buf : NULL;
}

/* The one-line error for what getopt refused (it prints nothing itself: opterr = 0). */
static int option_error(const struct command *const *all, const struct command *cmd,
			char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int len = strcspn(arg, "=");
	char others[256];

	if (!strncmp(arg, "--", 2) && optopt)
		log_error("%s: option '%.*s' needs a value; see 'bloomxdp %s --help'", cmd->name,
			  len, arg, cmd->name);
	else if (!strncmp(arg, "--", 2) &&
		 commands_with_option(all, cmd, arg + 2, len - 2, others, sizeof(others)))
		log_error("%s: '%.*s' goes with %s; see 'bloomxdp %s --help'", cmd->name, len, arg,
			  others, cmd->name);
	else if (!strncmp(arg, "--", 2))
		log_error("%s: unknown option '%.*s'; see 'bloomxdp %s --help'", cmd->name, len,
			  arg, cmd->name);
	else if (optopt)
		log_error("%s: option '-%c' is unknown or needs a value; see 'bloomxdp %s --help'",
			  cmd->name, optopt, cmd->name);
	else
		log_error("%s: bad option '%s'; see 'bloomxdp %s --help'", cmd->name, arg,
			  cmd->name);
	return 2;
}

/* The positional arguments: the interface first if the command takes one, then the rest. */
static int take_arguments(const struct command *cmd, int argc, char **argv,
			  struct cli_call *call)
{
	int left;

	if (cmd->ifname) {
		if (optind >= argc) {
			log_error("%s: missing the interface name; see 'bloomxdp %s --help'",
				  cmd->name, cmd->name);
			return -EINVAL;
		}
		call->ifname = argv[optind++];
		if (ifname_check(call->ifname))
			return -EINVAL;
	}
	left = argc - optind;
	if (left < cmd->min_args) {
		log_error("%s: give at least one %s; see 'bloomxdp %s --help'", cmd->name,
			  cmd->what_args, cmd->name);
		return -EINVAL;
	}
	if (cmd->max_args >= 0 && left > cmd->max_args) {
		log_error("%s: unexpected argument '%s'; see 'bloomxdp %s --help'", cmd->name,
			  argv[optind + cmd->max_args], cmd->name);
		return -EINVAL;
	}
	call->argc = left;
	call->argv = argv + optind;
	return 0;
}

/* getopt_long's view of the table: the short name, or 256 + index for a long-only option. */
static void getopt_tables(const struct option_spec **opts, int n, struct option *longs,
			  char *shorts)
{
	const struct option_spec *o;
	int i, s = 0;

	for (i = 0; i < n; i++) {
		o = opts[i];
		longs[i].name = o->name;
		longs[i].has_arg = option_takes_value(o) ? required_argument :
				   option_value_optional(o) ? optional_argument : no_argument;
		longs[i].flag = NULL;
		longs[i].val = o->short_name ? o->short_name : 256 + i;
		if (o->short_name) {
			shorts[s++] = o->short_name;
			if (option_takes_value(o) || option_value_optional(o))
				shorts[s++] = ':';
			if (option_value_optional(o))
				shorts[s++] = ':';
		}
	}
	memset(&longs[n], 0, sizeof(longs[n]));
	shorts[s] = '\0';
}

int command_main(const struct command *const *all, const struct command *cmd, int argc,
		 char **argv)
{
	const struct option_spec *opts[MAX_OPTIONS], *o = NULL;
	struct option longs[MAX_OPTIONS + 1];
	char shorts[2 * MAX_OPTIONS + 2];
	struct cli_call call = { .cmd = cmd };
	void *values;
	int n, i, opt, ret, longindex;

	n = all_options(cmd, opts);
	getopt_tables(opts, n, longs, shorts);
	values = calloc(1, cmd->opts_size ? cmd->opts_size : 1);
	if (!values) {
		log_error("%s: out of memory", cmd->name);
		return 1;
	}
	/* Defaults hold no list: a repeatable option's items are always ours to free. */
	if (cmd->defaults)
		memcpy(values, cmd->defaults, cmd->opts_size);
	call.opts = values;
	optind = 1;
	while ((opt = getopt_long(argc, argv, shorts, longs, &longindex)) != -1) {
		o = NULL;
		if (opt >= 256)
			o = opts[opt - 256];
		for (i = 0; !o && i < n; i++)
			if (opts[i]->short_name == opt)
				o = opts[i];
		if (!o) {
			ret = option_error(all, cmd, argv);
			goto out;
		}
		if (o == &common_help) {
			command_help(cmd, stdout);
			ret = 0;
			goto out;
		}
		if (o == &common_verbose) {
			log_verbose = true;
		} else if (o == &common_json) {
			call.json = true;
		} else {
			bool valued = option_takes_value(o) || option_value_optional(o);
			const char *arg = valued ? optarg : NULL;
			char flag[64];
			__u32 named;

			/* "--verify auto": the next word when it is one of the values' names. */
			if (option_value_optional(o) && !arg && optind < argc &&
			    !enum_value_parse(option_enum_values(o), argv[optind], &named))
				arg = argv[optind++];
			snprintf(flag, sizeof(flag), "--%s", o->name);
			if (option_set(o, flag, arg, values)) {
				ret = 2;
				goto out;
			}
		}
	}
	if (take_arguments(cmd, argc, argv, &call) || (cmd->check && cmd->check(&call))) {
		ret = 2;
		goto out;
	}
	ret = cmd->run(&call) ? 1 : 0;
out:
	options_free(cmd->options, values);
	free(values);
	return ret;
}

