/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * load's one option table: it parses the command line and prints --help, the
 * manual page and completion (cli/cmd_list.c), reads the keys of a [list NAME]
 * of a configuration (service/config.c) and the options the state records of
 * a load (persist.c). Its rows shared with add, del and query are the macros
 * below. And the names and actions a named list takes.
 */
#ifndef BLOOMXDP_LOAD_OPTIONS_H
#define BLOOMXDP_LOAD_OPTIONS_H

#include <stddef.h>
#include <linux/types.h>

#include "lists/lists.h"
#include "util/options.h"

extern const struct option_spec load_options[];
/* The options of load, add, del and query before parsing. */
extern const struct list_opts list_opts_defaults;

/*
 * --list NAME: a name that can be a file name and a label, not with --allow;
 * --action only with --list. Says why; -EINVAL.
 */
int list_opts_check(const struct list_opts *o);
/* load's: list_opts_check(), then --column and --where with --format csv, their syntax. */
int load_opts_check(const struct list_opts *o);

/* [a-z0-9_-]{1,32}: 0, or -EINVAL. */
int list_name_check(const char *name);
/* drop, monitor, nxdomain: the values of --action. */
extern const struct enum_value list_action_values[];
const char *list_action_name(__u32 action);

/* The rows of struct list_opts that load, add, del and query share. */
#define OPTION_ALLOW(what)								\
	OPTION("allow", 'A', OPT_FLAG, offsetof(struct list_opts, allow), NULL, what)
#define OPTION_LIST(what)								\
	OPTION("list", 0, OPT_TEXT, offsetof(struct list_opts, list), "NAME", what)
#define OPTION_PUBLIC_SUFFIX								\
	OPTION("allow-public-suffix", 0, OPT_FLAG,					\
	       offsetof(struct list_opts, allow_public_suffix), NULL,			\
	       "block public suffixes too (edu.pl, github.io:\n"			\
	       "every domain registered under them); refused by\n"			\
	       "default, naming the lines")
#define OPTION_WIDE(what)								\
	OPTION("allow-wide", 0, OPT_FLAG, offsetof(struct list_opts, allow_wide), NULL, what)

#endif
