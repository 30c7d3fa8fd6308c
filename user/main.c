// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bloomxdp: drop traffic of blocklisted hosts in XDP with a Bloom filter.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "plan",   cmd_plan,   "size a filter: bits, hashes, memory, FPR as it fills" },
	{ "attach", cmd_attach, "load the XDP program on an interface with an empty filter" },
	{ "load",   cmd_load,   "replace the live list with list files, atomically" },
	{ "add",    cmd_add,    "insert entries into the live list" },
	{ "query",  cmd_query,  "tell whether entries are blocked" },
	{ "stats",  cmd_stats,  "show the packet counters" },
	{ "status", cmd_status, "show the attachment and the filter's state" },
	{ "watch",  cmd_watch,  "print drop events as they come" },
	{ "detach", cmd_detach, "detach from an interface and remove every pin" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: bloomxdp [-v] COMMAND [OPTIONS] [ARGS]\n\n"
		     "Drops packets from blocklisted hosts, prefixes, domains and URLs in XDP, using\n"
		     "a Bloom filter.\n\n"
		     "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nOptions:\n"
		     "  -v, --verbose  show libbpf's log (and the verifier's, on a load failure)\n"
		     "  -h, --help     this help; 'bloomxdp COMMAND --help' for a command\n\n"
		     "Pins: %s/<ifname>/. See README.md for the list format and limits.\n",
		"/sys/fs/bpf/bloomxdp");
}

int main(int argc, char **argv)
{
	int i = 1;
	size_t c;

	log_setup_libbpf();
	opterr = 0;	/* usage_error() says it, on one line */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_verbose = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			log_error("unknown option %s; see 'bloomxdp --help'", argv[i]);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "help")) {
		usage(stdout);
		return 0;
	}
	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].run(argc - i, argv + i);
	log_error("unknown command '%s'; see 'bloomxdp --help'", argv[i]);
	return 2;
}
