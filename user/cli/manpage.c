// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bloomxdp(8), generated at build time from the command tables: the template
 * (dist/bloomxdp.8.in) holds the prose, its lines @SYNOPSIS@ and @COMMANDS@
 * become every command with its arguments, description and options, so that
 * a new command or option is in the page once it is a row of a table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"
#include "cli/manpage.h"
#include "cli/command.h"

/* Input lines of the page stay within this (mandoc -Tlint's style). */
#define ROFF_WIDTH 80

/*
 * One line of text as roff: a backslash is \e, a '-' starting a word (an
 * option) is \- so that it copies as a minus, and a line starting with '.'
 * or '\'' is not taken for a request. Wrapped at spaces to ROFF_WIDTH bytes
 * (filled text: the same output).
 */
static void roff_line(const char *s, size_t len, FILE *out)
{
	char buf[4096];
	size_t i, n = 0, start = 0, space = 0;

	for (i = 0; i < len && n + 4 < sizeof(buf); i++) {
		if (n == start && (s[i] == '.' || s[i] == '\''))
			n += snprintf(buf + n, sizeof(buf) - n, "\\&");
		if (s[i] == '\\')
			n += snprintf(buf + n, sizeof(buf) - n, "\\e");
		else if (s[i] == '-' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '-' ||
					 s[i - 1] == '(' || s[i - 1] == '\''))
			n += snprintf(buf + n, sizeof(buf) - n, "\\-");
		else if (s[i] == ' ' && n - start > 0 && i + 1 < len && s[i + 1] != ' ')
			space = n, buf[n++] = ' ';
		else
			buf[n++] = s[i];
		if (n - start > ROFF_WIDTH && space > start) {
			buf[space] = '\n';
			start = space + 1;
			/* The next line must not start a request either. */
			if (buf[start] == '.' || buf[start] == '\'') {
				memmove(buf + start + 2, buf + start, n - start);
				memcpy(buf + start, "\\&", 2);
				n += 2;
			}
		}
	}
	fwrite(buf, 1, n, out);
}

/* Text of several lines; an empty line between two starts a new paragraph (.PP). */
static void roff_text(const char *text, FILE *out)
{
	const char *line = text, *end;
	bool blank = false;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		/* The run of white space that starts a line would start a no-fill line. */
		while (line < end && *line == ' ')
			line++;
		if (line == end) {
			blank = true;
			continue;
		}
		if (blank)
			fputs(".PP\n", out);
		blank = false;
		roff_line(line, end - line, out);
		fputc('\n', out);
	}
}

/* "IFNAME FILE...": each word in italics. */
static void roff_args(const char *args, FILE *out)
{
	fputs(".I ", out);
	roff_line(args, strlen(args), out);
	fputc('\n', out);
}

static void synopsis(const struct command *const *all, FILE *out)
{
	const struct command *cmd;
	size_t i;

	for (i = 0; all[i]; i++) {
		cmd = all[i];
		fprintf(out, ".br\n.B bloomxdp ");
		roff_line(cmd->name, strlen(cmd->name), out);
		fputc('\n', out);
		if (cmd->args)
			roff_args(cmd->args, out);
		fprintf(out, ".RI [ options ]\n");
	}
}

static void option_head(const struct option_spec *o, FILE *out)
{
	fputs(".TP\n", out);
	if (o->short_name)
		fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", out);
	roff_line(o->name, strlen(o->name), out);
	fputs("\\fR", out);
	if (option_takes_value(o)) {
		const char *mv = o->metavar ? o->metavar : "VALUE";

		fputs(" \\fI", out);
		roff_line(mv, strlen(mv), out);
		fputs("\\fR", out);
	}
	fputc('\n', out);
}

static void option_body(const struct option_spec *o, const void *defaults, FILE *out)
{
	const struct enum_value *values = option_enum_values(o), *v;
	char choices[256], line[300], dflt[256];
	bool listed = false;
	FILE *mem;

	for (v = values; v && v->name; v++)
		listed |= v->help != NULL;
	/* The text as --help has it, then its choices and default on the same line. */
	roff_text(o->help ? o->help : "", out);
	if (values && !listed) {
		snprintf(line, sizeof(line), "Values: %s.",
			 enum_value_choices(values, choices, sizeof(choices)));
		roff_line(line, strlen(line), out);
		fputc('\n', out);
	}
	dflt[0] = '\0';
	mem = fmemopen(dflt, sizeof(dflt), "w");
	if (mem) {
		option_print_default(o, defaults, mem);
		fclose(mem);
	}
	/* " (default 6)" as --help puts it after the text. */
	if (dflt[0]) {
		roff_line(dflt + 1, strlen(dflt + 1), out);
		fputc('\n', out);
	}
	if (!listed)
		return;
	fputs(".RS\n", out);
	for (v = values; v->name; v++) {
		if (v->alias)
			continue;
		fputs(".TP\n.B ", out);
		roff_line(v->name, strlen(v->name), out);
		fputc('\n', out);
		roff_text(v->help ? v->help : "", out);
	}
	fputs(".RE\n", out);
}

static void commands(const struct command *const *all, FILE *out)
{
	const struct option_spec *opts[COMMAND_MAX_OPTIONS];
	const struct command *cmd;
	size_t i;
	int j, n;

	for (i = 0; all[i]; i++) {
		cmd = all[i];
		fputs(".SS ", out);
		roff_line(cmd->name, strlen(cmd->name), out);
		fputs("\n.B bloomxdp ", out);
		roff_line(cmd->name, strlen(cmd->name), out);
		fputc('\n', out);
		if (cmd->args)
			roff_args(cmd->args, out);
		fputs(".RI [ options ]\n.PP\n", out);
		roff_text(cmd->description ? cmd->description : cmd->summary, out);
		n = command_options(cmd, opts);
		for (j = 0; j < n; j++) {
			option_head(opts[j], out);
			option_body(opts[j], cmd->defaults, out);
		}
	}
}

int manpage_write(const struct command *const *all, FILE *template, FILE *out)
{
	char line[4096];

	while (fgets(line, sizeof(line), template)) {
		if (!strcmp(line, "@SYNOPSIS@\n"))
			synopsis(all, out);
		else if (!strcmp(line, "@COMMANDS@\n"))
			commands(all, out);
		else
			fputs(line, out);
	}
	if (ferror(template) || fflush(out) || ferror(out)) {
		log_error("--man: cannot read the template or write the page: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
