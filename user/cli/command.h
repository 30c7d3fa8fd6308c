/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_CLI_COMMAND_H
#define BLOOMXDP_CLI_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/options.h"

/*
 * The command line as data: each command is a struct command with a table of
 * its options (util/options.h). The same table parses argv and prints --help,
 * the manual page and completion; -h/--help, -v/--verbose and (where a
 * command takes it) -j/--json are common to all. A new command is one struct
 * command plus its handler, a thin one over the library.
 */

/* What a command's handler gets. */
struct cli_call {
	const struct command *cmd;
	const void *opts;	/* the command's options struct, parsed */
	bool json;		/* -j/--json, for commands that take it */
	const char *ifname;	/* the interface, checked, for commands that take one */
	int argc;		/* the positional arguments after it */
	char **argv;
};

struct command {
	const char *name;
	const char *args;		/* for the usage line: "IFNAME FILE..." */
	const char *summary;		/* one line, for 'bloomxdp --help' */
	const char *description;	/* paragraphs for 'bloomxdp NAME --help' */
	const struct option_spec *options;	/* ended by a row with a NULL name */
	size_t opts_size;		/* of the options struct */
	const void *defaults;		/* the options struct before parsing */
	bool json;			/* takes -j/--json */
	bool ifname;			/* the first positional argument is an interface */
	int min_args, max_args;		/* positional arguments after it; max -1: any */
	const char *what_args;		/* what a missing argument is called */
	/* Checks the options together (exit 2 when it fails, error printed); may be NULL. */
	int (*check)(const struct cli_call *call);
	/* Returns 0, or a negative errno with the error printed (exit 1). */
	int (*run)(const struct cli_call *call);
};

/*
 * Parses argv (argv[0] is the command's name) by cmd's table and runs it:
 * the exit status, 0, 1 for a failure, 2 for a usage error. all: every
 * command, NULL-terminated, to name the one an unknown option belongs to.
 */
int command_main(const struct command *const *all, const struct command *cmd, int argc,
		 char **argv);

/* The command's --help, from its table. */
void command_help(const struct command *cmd, FILE *out);

/*
 * The tables as the manual page and completion read them (manpage.c,
 * complete.c), so that a new row shows there with nothing else to change.
 */
#define COMMAND_MAX_OPTIONS 32
/* The command's options then the common ones (-j, -v, -h), as --help lists them: how many. */
int command_options(const struct command *cmd, const struct option_spec **out);

#endif
