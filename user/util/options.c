// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <bloomxdp/common.h>
#include "util/duration.h"
#include "util/numbers.h"
#include "util/ifname.h"
#include "util/log.h"
#include "util/options.h"

/* Where --help starts an option's text. */
#define HELP_COLUMN 26

const char *enum_value_name(const struct enum_value *values, __u32 value)
{
	for (; values->name; values++)
		if (values->value == value && !values->alias)
			return values->name;
	return "?";
}

int enum_value_parse(const struct enum_value *values, const char *name, __u32 *value)
{
	for (; values->name; values++) {
		if (!strcmp(values->name, name)) {
			*value = values->value;
			return 0;
		}
	}
	return -EINVAL;
}

const char *enum_value_choices(const struct enum_value *values, char *buf, size_t len)
{
	const struct enum_value *v;
	size_t used = 0, n = 0, i = 0;

	for (v = values; v->name; v++)
		n += !v->alias;
	buf[0] = '\0';
	for (v = values; v->name && used < len; v++) {
		if (v->alias)
			continue;
		used += snprintf(buf + used, len - used, "%s%s", !i ? "" : i + 1 < n ? ", " : " or ",
				 v->name);
		i++;
	}
	return buf;
}

const char *enum_value_set_text(const struct enum_value *values, __u32 mask, char *buf,
				size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; values->name && used < len; values++)
		if (!values->alias && (mask & values->value))
			used += snprintf(buf + used, len - used, "%s%s", used ? "," : "",
					 values->name);
	return buf;
}

static const struct enum_value *option_values(const struct option_spec *o)
{
	return o->values ? o->values : o->values_fn ? o->values_fn() : NULL;
}

static void *field(void *opts, const struct option_spec *o)
{
	return (char *)opts + o->offset;
}

static int parse_enum_set(const struct option_spec *o, const char *flag, const char *text,
			  __u32 *mask)
{
	char buf[256], choices[256], *save, *tok;
	__u32 bit;

	*mask = 0;
	if (strlen(text) < sizeof(buf)) {
		strcpy(buf, text);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (enum_value_parse(option_values(o), tok, &bit))
				break;
			*mask |= bit;
		}
		if (!tok && *mask)
			return 0;
	}
	log_error("%s %s: expected a comma list of %s", flag, text,
		  enum_value_choices(option_values(o), choices, sizeof(choices)));
	return -EINVAL;
}

static int parse_ports(const char *flag, const char *text, __u16 ports[BLOOMXDP_MAX_PORTS])
{
	const char *p = text;
	unsigned long v;
	char *end;
	int n = 0;

	memset(ports, 0, BLOOMXDP_MAX_PORTS * sizeof(ports[0]));
	for (;;) {
		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || errno || v == 0 || v > 65535 || n == BLOOMXDP_MAX_PORTS)
			break;
		ports[n++] = v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			break;
		p = end + 1;
	}
	log_error("%s %s: expected a comma list of up to %d ports from 1 to 65535", flag, text,
		  BLOOMXDP_MAX_PORTS);
	return -EINVAL;
}

static int parse_seconds(const struct option_spec *o, const char *flag, const char *text,
			 double *out)
{
	double v;

	/* Bounded, and finite: "inf" or "nan" would make a timeout a no-op. */
	if (duration_parse_real(text, &v) || !(v >= o->min && v <= o->max) || v <= 0) {
		log_error("%s %s: expected seconds above 0, from %g to %g", flag, text, o->min,
			  o->max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_duration(const struct option_spec *o, const char *flag, const char *text,
			  __u64 *out)
{
	char least[24], most[24];
	__u64 v;

	if (!duration_parse(text, &v) && v >= o->min && v <= o->max) {
		*out = v;
		return 0;
	}
	duration_text(o->max, most, sizeof(most));
	if (o->min <= 1)
		log_error("%s %s: expected a duration such as " DURATION_EXAMPLES " (at most %s)",
			  flag, text, most);
	else
		log_error("%s %s: expected a duration such as " DURATION_EXAMPLES " (%s to %s)",
			  flag, text, duration_text(o->min, least, sizeof(least)), most);
	return -EINVAL;
}

/* "yes"/"no" and their usual spellings: a flag's value in a configuration file. */
static int parse_bool(const char *flag, const char *text, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(text, yes[i]) || !strcasecmp(text, no[i])) {
			*out = !strcasecmp(text, yes[i]);
			return 0;
		}
	}
	log_error("%s %s: expected true or false (yes/no, on/off, 1/0)", flag, text);
	return -EINVAL;
}

/*
 * text for option o into opts. flag names the option in errors: "--fpr" on
 * the command line, "fpr =" in a configuration file. A flag's text is NULL
 * on the command line (set), a boolean in a file.
 */
static int parse_value(const struct option_spec *o, const char *flag, const char *text,
		       void *opts)
{
	struct file_list *list;
	const char **grown;
	char choices[256];

	switch (o->type) {
	case OPT_FLAG:
		if (text)
			return parse_bool(flag, text, field(opts, o));
		*(bool *)field(opts, o) = true;
		return 0;
	case OPT_COUNT:
		return parse_count_range(flag, text, o->min, o->max, field(opts, o));
	case OPT_RATE:
		return parse_fpr(flag, text, field(opts, o));
	case OPT_SECONDS:
		return parse_seconds(o, flag, text, field(opts, o));
	case OPT_DURATION:
		return parse_duration(o, flag, text, field(opts, o));
	case OPT_ENUM_FLAG:
		if (!text) {
			*(__u32 *)field(opts, o) = o->bare;
			return 0;
		}
		/* fall through */
	case OPT_ENUM:
		if (!enum_value_parse(option_values(o), text, field(opts, o)))
			return 0;
		log_error("%s %s: expected %s", flag, text,
			  enum_value_choices(option_values(o), choices, sizeof(choices)));
		return -EINVAL;
	case OPT_ENUM_SET:
		return parse_enum_set(o, flag, text, field(opts, o));
	case OPT_PORTS:
		return parse_ports(flag, text, field(opts, o));
	case OPT_TEXT:
		*(const char **)field(opts, o) = text;
		return 0;
	case OPT_FILES:
		list = field(opts, o);
		grown = realloc(list->items, (list->count + 1) * sizeof(*grown));
		if (!grown) {
			log_error("%s: out of memory", flag);
			return -ENOMEM;
		}
		list->items = grown;
		list->items[list->count++] = text;
		return 0;
	}
	return -EINVAL;
}

int option_set(const struct option_spec *o, const char *flag, const char *text, void *opts)
{
	int ret = parse_value(o, flag, text, opts);

	if (!ret && o->given)
		*(bool *)((char *)opts + o->given - 1) = true;
	return ret;
}

const struct option_spec *option_find(const struct option_spec *table, const char *name)
{
	const struct option_spec *o;

	for (o = table; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

int options_set(const struct option_spec *table, void *opts, const char *name,
		const char *value)
{
	const struct option_spec *o = option_find(table, name);
	char flag[64];

	if (!o)
		return -ENOENT;
	snprintf(flag, sizeof(flag), "%s =", name);
	return option_set(o, flag, value, opts);
}

void options_free(const struct option_spec *table, void *opts)
{
	const struct option_spec *o;

	for (o = table; opts && o && o->name; o++) {
		if (o->type == OPT_FILES) {
			free(((struct file_list *)field(opts, o))->items);
			memset(field(opts, o), 0, sizeof(struct file_list));
		}
	}
}

static bool takes_value(const struct option_spec *o)
{
	return o->type != OPT_FLAG && o->type != OPT_ENUM_FLAG;
}

/* An option whose argument may be left out: getopt's optional_argument. */
static bool value_optional(const struct option_spec *o)
{
	return o->type == OPT_ENUM_FLAG;
}

static void print_default(const struct option_spec *o, const void *defaults, FILE *out)
{
	const void *v = (const char *)defaults + o->offset;
	char text[256];
	const __u16 *ports;
	int i;

	if (o->default_text) {
		fprintf(out, " (default %s)", o->default_text);
		return;
	}
	switch (o->type) {
	case OPT_COUNT:
		if (o->max < COUNT_MAX && !*(const unsigned long long *)v && o->min > 0)
			fprintf(out, " (%.0f to %.0f)", o->min, o->max);	/* none: off */
		else if (o->max < COUNT_MAX)
			fprintf(out, " (%.0f to %.0f, default %llu)", o->min, o->max,
				*(const unsigned long long *)v);
		else if (*(const unsigned long long *)v)
			fprintf(out, " (default %llu)", *(const unsigned long long *)v);
		break;
	case OPT_DURATION:
		if (*(const unsigned long long *)v)
			fprintf(out, " (%.0f to %.0f, default %llu)", o->min, o->max,
				*(const unsigned long long *)v);
		break;
	case OPT_RATE:
		fprintf(out, " (default %g)", *(const double *)v);
		break;
	case OPT_ENUM:
	case OPT_ENUM_FLAG:
		fprintf(out, " (default %s)", enum_value_name(option_values(o), *(const __u32 *)v));
		break;
	case OPT_ENUM_SET:
		fprintf(out, " (default %s)",
			enum_value_set_text(option_values(o), *(const __u32 *)v, text, sizeof(text)));
		break;
	case OPT_PORTS:
		ports = v;
		fprintf(out, " (default ");
		for (i = 0; i < BLOOMXDP_MAX_PORTS && ports[i]; i++)
			fprintf(out, "%s%u", i ? "," : "", ports[i]);
		fprintf(out, ")");
		break;
	default:
		break;
	}
}

/* text, its continuation lines indented to the help column. */
static void print_indented(const char *text, FILE *out)
{
	for (; *text; text++) {
		fputc(*text, out);
		if (*text == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
}

void option_print_help(const struct option_spec *o, const void *defaults, FILE *out)
{
	const struct enum_value *v;
	char head[64], choices[256];
	bool listed = false;
	int n;

	n = snprintf(head, sizeof(head), "  %c%c%c --%s%s%s", o->short_name ? '-' : ' ',
		     o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
		     takes_value(o) ? " " : value_optional(o) ? " [" : "",
		     takes_value(o) || value_optional(o) ? o->metavar : "");
	if (value_optional(o) && n < (int)sizeof(head) - 1)
		n += snprintf(head + n, sizeof(head) - n, "]");
	fputs(head, out);
	if (n >= HELP_COLUMN)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(out, "%*s", HELP_COLUMN - n, "");
	print_indented(o->help, out);
	if (option_values(o))
		for (v = option_values(o); v->name; v++)
			listed |= v->help != NULL;
	if (option_values(o) && !listed)
		fprintf(out, ": %s", enum_value_choices(option_values(o), choices, sizeof(choices)));
	print_default(o, defaults, out);
	fputc('\n', out);
	for (v = option_values(o); listed && v->name; v++)
		if (!v->alias && v->help)
			fprintf(out, "%*s%-10s %s\n", HELP_COLUMN + 2, "", v->name, v->help);
}

const struct enum_value *option_enum_values(const struct option_spec *o)
{
	return option_values(o);
}

bool option_takes_value(const struct option_spec *o)
{
	return takes_value(o);
}

bool option_value_optional(const struct option_spec *o)
{
	return value_optional(o);
}

void option_print_default(const struct option_spec *o, const void *defaults, FILE *out)
{
	if (defaults)
		print_default(o, defaults, out);
}

int options_write(const struct option_spec *table, const void *values,
		  const char *const *skip, FILE *out)
{
	const struct option_spec *o;
	const void *v;
	const __u16 *ports;
	const struct file_list *list;
	const char *const *s;
	char text[256];
	int i;

	for (o = table; o && o->name; o++) {
		for (s = skip; s && *s && strcmp(*s, o->name); s++)
			;
		if (s && *s)
			continue;
		if (o->given && !*(const bool *)((const char *)values + o->given - 1))
			continue;
		v = (const char *)values + o->offset;
		switch (o->type) {
		case OPT_FLAG:
			if (*(const bool *)v)
				fprintf(out, "--%s\n", o->name);
			break;
		case OPT_COUNT:
		case OPT_DURATION:
			fprintf(out, "--%s=%llu\n", o->name, *(const unsigned long long *)v);
			break;
		case OPT_RATE:
		case OPT_SECONDS:
			fprintf(out, "--%s=%.17g\n", o->name, *(const double *)v);
			break;
		case OPT_ENUM:
		case OPT_ENUM_FLAG:
			fprintf(out, "--%s=%s\n", o->name,
				enum_value_name(option_values(o), *(const __u32 *)v));
			break;
		case OPT_ENUM_SET:
			fprintf(out, "--%s=%s\n", o->name, enum_value_set_text(option_values(o),
				*(const __u32 *)v, text, sizeof(text)));
			break;
		case OPT_PORTS:
			ports = v;
			fprintf(out, "--%s=", o->name);
			for (i = 0; i < BLOOMXDP_MAX_PORTS && ports[i]; i++)
				fprintf(out, "%s%u", i ? "," : "", ports[i]);
			fputc('\n', out);
			break;
		case OPT_TEXT:
			if (*(const char *const *)v)
				fprintf(out, "--%s=%s\n", o->name, *(const char *const *)v);
			break;
		case OPT_FILES:
			list = v;
			for (i = 0; i < list->count; i++)
				fprintf(out, "--%s=%s\n", o->name, list->items[i]);
			break;
		}
	}
	return ferror(out) ? -EIO : 0;
}

int options_parse_line(const struct option_spec *table, char *line, void *values)
{
	const struct option_spec *o;
	char *value = NULL, *eq, flag[64];
	size_t len;

	if (strncmp(line, "--", 2)) {
		log_error("'%s' is not an option line", line);
		return -EINVAL;
	}
	line += 2;
	eq = strchr(line, '=');
	len = eq ? (size_t)(eq - line) : strlen(line);
	if (eq)
		value = eq + 1;
	for (o = table; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, line, len))
			break;
	if (!o || !o->name || (!value_optional(o) && takes_value(o) != !!value)) {
		log_error("--%.*s: no such option%s", (int)len, line,
			  o && o->name ? " in this form" : "");
		return -EINVAL;
	}
	snprintf(flag, sizeof(flag), "--%s", o->name);
	return option_set(o, flag, value, values) ? -EINVAL : 0;
}
