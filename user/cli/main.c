// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bloomxdp: drop traffic of blocklisted hosts in XDP with a Bloom filter.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <bloomxdp/common.h>
#include "cli/commands.h"
#include "cli/complete.h"
#include "util/log.h"
#include "cli/manpage.h"
#include "util/options.h"
#include "util/version.h"

/* Every command, in the order 'bloomxdp --help' shows them (cli/commands.c). */
static const struct command *const *const commands = bloomxdp_commands;

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: bloomxdp [-v] COMMAND [OPTIONS] [ARGS]\n\n"
		     "Drops packets from blocklisted hosts, prefixes, domains and URLs in XDP, using\n"
		     "a Bloom filter.\n\n"
		     "Commands:\n");
	for (i = 0; commands[i]; i++)
		fprintf(out, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\nOptions:\n"
		     "  -v, --verbose  show libbpf's log (and the verifier's, on a load failure)\n"
		     "  -h, --help     this help; 'bloomxdp COMMAND --help' (or 'bloomxdp help\n"
		     "                 COMMAND') for a command\n"
		     "      --version  the version\n\n"
		     "Pins: %s/<ifname>/. List formats and limits: share/doc/bloomxdp/docs/operations.md.\n"
		     "bloomxdp %s\n",
		BLOOMXDP_PIN_ROOT, bloomxdp_version());
}

/* bloomxdp help [COMMAND]: the general help, or the command's, as 'COMMAND --help'. */
static int help(int argc, char **argv)
{
	size_t c;

	if (!argc) {
		usage(stdout);
		return 0;
	}
	for (c = 0; argc == 1 && commands[c]; c++) {
		if (!strcmp(argv[0], commands[c]->name)) {
			command_help(commands[c], stdout);
			return 0;
		}
	}
	if (argc > 1)
		log_error("help takes one command, not %d words; see 'bloomxdp --help'", argc);
	else
		log_error("unknown command '%s'; see 'bloomxdp --help'", argv[0]);
	return 2;
}

int main(int argc, char **argv)
{
	int i = 1;
	size_t c;

	log_setup_libbpf();
	opterr = 0;	/* command_main() says it, on one line */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_verbose = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("bloomxdp %s\n", bloomxdp_version());
			return 0;
		} else if (!strcmp(argv[i], "--man")) {
			/* Hidden: the build makes bloomxdp(8) from these tables. */
			return manpage_write(commands, stdin, stdout) ? 1 : 0;
		} else {
			log_error("unknown option %s; see 'bloomxdp --help'", argv[i]);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	/* Hidden: what the bash completion script offers, from these tables. */
	if (!strcmp(argv[i], "__complete"))
		return complete_main(commands, argc - i - 1, argv + i + 1, stdout);
	if (!strcmp(argv[i], "help"))
		return help(argc - i - 1, argv + i + 1);
	for (c = 0; commands[c]; c++)
		if (!strcmp(argv[i], commands[c]->name))
			return command_main(commands, commands[c], argc - i, argv + i);
	log_error("unknown command '%s'; see 'bloomxdp --help'", argv[i]);
	return 2;
}
