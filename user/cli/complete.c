// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What bash completion offers, read from the command tables (the completion
 * script, dist/bloomxdp.bash, only asks 'bloomxdp __complete'): commands,
 * each command's options, the values of enumerated options, interface names.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/complete.h"
#include "cli/command.h"

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void offer(const char *word, const char *cur, FILE *out)
{
	if (starts_with(word, cur))
		fprintf(out, "%s\n", word);
}

static const struct command *find_command(const struct command *const *all, const char *name)
{
	size_t i;

	for (i = 0; all[i]; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

/* The option a word names ("--match", "-m", "--match=src"), or NULL. */
static const struct option_spec *find_option(const struct command *cmd, const char *word)
{
	const struct option_spec *opts[COMMAND_MAX_OPTIONS];
	int i, n = command_options(cmd, opts);
	size_t len;

	if (starts_with(word, "--")) {
		len = strcspn(word + 2, "=");
		for (i = 0; i < n; i++)
			if (strlen(opts[i]->name) == len && !strncmp(opts[i]->name, word + 2, len))
				return opts[i];
	} else if (word[0] == '-' && word[1] && !word[2]) {
		for (i = 0; i < n; i++)
			if (opts[i]->short_name == word[1])
				return opts[i];
	}
	return NULL;
}

static void offer_interfaces(const char *cur, FILE *out)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			offer(e->d_name, cur, out);
	closedir(d);
}

/* A path is asked for: the script completes file names. */
static void offer_files(FILE *out)
{
	fprintf(out, "@files\n");
}

static bool names_files(const char *text)
{
	return text && (strstr(text, "FILE") || strstr(text, "DIR"));
}

static void offer_values(const struct option_spec *o, const char *cur, FILE *out)
{
	const struct enum_value *values = option_enum_values(o), *v;
	const char *last;
	char word[256];
	int head;

	if (o->type == OPT_FILES || o->type == OPT_TEXT) {
		if (names_files(o->metavar))
			offer_files(out);
		return;
	}
	if (!values)
		return;
	if (o->type != OPT_ENUM_SET) {
		for (v = values; v->name; v++)
			if (!v->alias)
				offer(v->name, cur, out);
		return;
	}
	/* A comma list: what is typed up to the last comma stays, the next value is offered. */
	last = strrchr(cur, ',');
	head = last ? (int)(last - cur + 1) : 0;
	for (v = values; v->name; v++) {
		if (v->alias || !starts_with(v->name, cur + head))
			continue;
		snprintf(word, sizeof(word), "%.*s%s", head, cur, v->name);
		/* A value already in the list is not offered again. */
		if (head && strstr(word, v->name) != word + head)
			continue;
		fprintf(out, "%s\n", word);
	}
}

static void offer_options(const struct command *cmd, const char *cur, FILE *out)
{
	const struct option_spec *opts[COMMAND_MAX_OPTIONS];
	int i, n = command_options(cmd, opts);
	char word[64];

	for (i = 0; i < n; i++) {
		snprintf(word, sizeof(word), "--%s", opts[i]->name);
		offer(word, cur, out);
	}
}

/*
 * words[0..nwords): the command line as bash splits it (COMP_WORDS), cword the
 * word under the cursor. Bash splits "--match=sr" into "--match", "=", "sr".
 */
static int complete(const struct command *const *all, int nwords, char **words, int cword,
		    FILE *out)
{
	const struct option_spec *o, *pending = NULL;
	const struct command *cmd = NULL;
	const char *cur = cword < nwords ? words[cword] : "";
	int i, positional = 0;
	size_t c;

	for (i = 1; i < cword; i++) {
		const char *w = words[i];

		if (!cmd) {
			if (w[0] != '-' && !(cmd = find_command(all, w)))
				return 0;
			continue;
		}
		if (pending) {
			if (!strcmp(w, "="))
				continue;
			pending = NULL;
			continue;
		}
		if (!strcmp(w, "--")) {
			positional += 1;
			continue;
		}
		o = w[0] == '-' && w[1] ? find_option(cmd, w) : NULL;
		if (o && option_takes_value(o) && !strchr(w, '='))
			pending = o;
		else if (w[0] != '-' || !w[1])
			positional++;
	}
	if (!cmd) {
		if (cur[0] == '-') {
			offer("--verbose", cur, out);
			offer("--help", cur, out);
			return 0;
		}
		for (c = 0; all[c]; c++)
			offer(all[c]->name, cur, out);
		offer("help", cur, out);
		return 0;
	}
	if (pending) {
		offer_values(pending, strcmp(cur, "=") ? cur : "", out);
		return 0;
	}
	if (cur[0] == '-') {
		offer_options(cmd, cur, out);
		return 0;
	}
	if (cmd->ifname && !positional) {
		offer_interfaces(cur, out);
		return 0;
	}
	if (names_files(cmd->args))
		offer_files(out);
	return 0;
}

int complete_main(const struct command *const *all, int argc, char **argv, FILE *out)
{
	char *end;
	long cword;

	/* argv: CWORD WORD0 WORD1 ...; a wrong call offers nothing rather than failing. */
	if (argc < 2)
		return 0;
	cword = strtol(argv[0], &end, 10);
	if (*end || cword < 0 || cword > argc - 1)
		return 0;
	return complete(all, argc - 1, argv + 1, cword, out);
}
