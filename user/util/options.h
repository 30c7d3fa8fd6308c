/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_OPTIONS_H
#define BLOOMXDP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * The command line as data: each command is a struct command with a table of
 * its options. The same table parses argv, prints --help, and names the valid
 * choices in errors; -h/--help, -v/--verbose and (where a command takes it)
 * -j/--json are common to all. A new option is one row; a new command is one
 * struct command plus its handler. (After xdp-tools' lib/util/params.h.)
 */

/* A named value of an enumerated option; a NULL name ends a table. */
struct enum_value {
	const char *name;
	__u32 value;
	const char *help;	/* shown under the option in --help; NULL: listed inline */
	bool alias;		/* accepted, not shown */
};

/* The name of value in a table, or "?". */
const char *enum_value_name(const struct enum_value *values, __u32 value);
/* The value named name: 0, or -EINVAL. */
int enum_value_parse(const struct enum_value *values, const char *name, __u32 *value);
/* "a, b or c": the names a table accepts (aliases left out). */
const char *enum_value_choices(const struct enum_value *values, char *buf, size_t len);
/* "a,c": the names of the bits set in a mask, comma-separated. */
const char *enum_value_set_text(const struct enum_value *values, __u32 mask, char *buf,
				size_t len);

enum option_type {
	OPT_FLAG,	/* bool */
	OPT_COUNT,	/* __u64: "1000000", "1e6", "10M", within min..max */
	OPT_RATE,	/* double in (0, 1): "0.01" or "1%" */
	OPT_SECONDS,	/* double: "0.5", "2s", "1m" (duration.h, with a fraction), within min..max */
	OPT_DURATION,	/* __u64 seconds: "30", "30s", "10m", "2h", "7d" (duration.h), min..max */
	OPT_ENUM,	/* __u32, one of values */
	OPT_ENUM_FLAG,	/* __u32, one of values; given alone (--verify): bare, the argument
			 * as --verify=auto or --verify auto (a value name only) */
	OPT_ENUM_SET,	/* __u32 mask: a comma list of values (bits) */
	OPT_PORTS,	/* __u16[BLOOMXDP_MAX_PORTS]: a comma list of ports */
	OPT_FILES,	/* struct file_list: repeatable */
	OPT_TEXT,	/* const char *: the argument as given */
};

/* The values of a repeatable option, in the order given. */
struct file_list {
	const char **items;
	int count;
};

struct option_spec {
	const char *name;		/* long name, without "--" */
	char short_name;		/* 0: none */
	enum option_type type;
	size_t offset;			/* of the value in the command's options struct */
	const char *metavar;		/* "N", "FILE": what --help shows as the argument */
	const char *help;		/* one or more lines ('\n' between them) */
	const struct enum_value *values;	/* OPT_ENUM, OPT_ENUM_SET */
	double min, max;		/* OPT_COUNT, OPT_SECONDS, OPT_DURATION */
	/* Instead of values: a table made at run time (the layouts: from their ops). */
	const struct enum_value *(*values_fn)(void);
	/* Offset + 1 of a bool set when the option is given; 0: none. */
	size_t given;
	/* What --help gives as the default, for a value of the defaults no table row names. */
	const char *default_text;
	__u32 bare;			/* OPT_ENUM_FLAG: the value of the option given alone */
};

#define OPTION_GIVEN(type, field) (offsetof(type, field) + 1)

/* Table rows; what follows help in OPTION are designated fields (.values, .min, .max...). */
#define OPTION(lname, sname, otype, off, mv, text, ...)					\
	{ .name = (lname), .short_name = (sname), .type = (otype), .offset = (off),	\
	  .metavar = (mv), .help = (text), __VA_ARGS__ }
#define ENUM_VALUE(vname, val, text) { .name = (vname), .value = (val), .help = (text) }
#define ENUM_ALIAS(vname, val) { .name = (vname), .value = (val), .alias = true }

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

/*
 * One option of cmd into opts (its options struct, from cmd->defaults), by
 * long name, with the parser the command line uses: a configuration file's
 * "name = value". A flag takes true/false (yes/no, on/off, 1/0). value must
 * outlive opts (text options keep the pointer). Prints the error, which
 * names the option "name ="; -ENOENT: no such option.
 */
int command_set_option(const struct command *cmd, void *opts, const char *name,
		       const char *value);
/* The row of cmd's table of that long name, or NULL. */
const struct option_spec *command_option(const struct command *cmd, const char *name);
/* Frees what parsing allocated in opts (repeatable options' lists), not opts. */
void command_free_options(const struct command *cmd, void *opts);
/*
 * The options of a parsed options struct as "--name=value" lines into out, one
 * per option given or set (a flag only when on, a text only when set; an option
 * with a "given" bool only when given), leaving out the names in skip
 * (NULL-terminated, may be NULL): what the state records to repeat a command.
 */
int options_write(const struct option_spec *table, const void *values,
		  const char *const *skip, FILE *out);
/*
 * One "--name=value" (or "--name") line of options_write() into values, by
 * the same table and checks as the command line. A text value points into
 * line, which must outlive values. Prints the error; -EINVAL.
 */
int options_parse_line(const struct option_spec *table, char *line, void *values);

/* The command's --help, from its table. */
void command_help(const struct command *cmd, FILE *out);

/*
 * The tables as the manual page and completion read them (manpage.c,
 * complete.c), so that a new row shows there with nothing else to change.
 */
#define COMMAND_MAX_OPTIONS 32
/* The command's options then the common ones (-j, -v, -h), as --help lists them: how many. */
int command_options(const struct command *cmd, const struct option_spec **out);
/* An enumerated option's values (its table, or the one values_fn makes); NULL for others. */
const struct enum_value *option_enum_values(const struct option_spec *o);
bool option_takes_value(const struct option_spec *o);
/* What --help prints after an option's text: " (default X)", " (1 to 8, default 6)" or nothing. */
void option_print_default(const struct option_spec *o, const void *defaults, FILE *out);

#endif
