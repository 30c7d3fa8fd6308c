/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_OPTIONS_H
#define BLOOMXDP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * Options as data: a table of rows, each an option of an options struct. The
 * same table parses a command's argv and prints its --help (cli/command.h),
 * reads a configuration file's keys and the state's records, and names the
 * valid choices in errors. A new option is one row. (After xdp-tools'
 * lib/util/params.h.)
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

/* The row of table (ended by a row with a NULL name) of that long name, or NULL. */
const struct option_spec *option_find(const struct option_spec *table, const char *name);
/*
 * text for option o into opts (its options struct). flag names the option in
 * errors: "--fpr" on the command line, "fpr =" in a configuration file. A
 * flag's text is NULL on the command line (set), a boolean in a file
 * (true/false, yes/no, on/off, 1/0). Prints the error.
 */
int option_set(const struct option_spec *o, const char *flag, const char *text, void *opts);
/*
 * One option of table into opts, by long name, with the parser the command
 * line uses: a configuration file's "name = value". value must outlive opts
 * (text options keep the pointer). Prints the error, which names the option
 * "name ="; -ENOENT, unprinted: no such option.
 */
int options_set(const struct option_spec *table, void *opts, const char *name,
		const char *value);
/* Frees what parsing allocated in opts (repeatable options' lists), not opts. */
void options_free(const struct option_spec *table, void *opts);
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

/*
 * The rows as --help, the manual page and completion read them (cli/), so
 * that a new row shows there with nothing else to change.
 */
/* An enumerated option's values (its table, or the one values_fn makes); NULL for others. */
const struct enum_value *option_enum_values(const struct option_spec *o);
bool option_takes_value(const struct option_spec *o);
/* An option whose argument may be left out (--verify, --verify=on): getopt's optional_argument. */
bool option_value_optional(const struct option_spec *o);
/* What --help prints after an option's text: " (default X)", " (1 to 8, default 6)" or nothing. */
void option_print_default(const struct option_spec *o, const void *defaults, FILE *out);
/* The option's lines of --help: its names, its text, its default, its values. */
void option_print_help(const struct option_spec *o, const void *defaults, FILE *out);

#endif
