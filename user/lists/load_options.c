// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* load's option table, its checks, and what a named list's name and action take. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <bloomxdp/common.h>
#include "filter/bloom_plan.h"
#include "filter/ranges.h"
#include "kernel/state_dir.h"
#include "lists/build.h"
#include "lists/load_options.h"
#include "parse/entries.h"
#include "util/log.h"
#include "util/numbers.h"

int list_name_check(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > BLOOMXDP_LIST_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n)
		return -EINVAL;
	return 0;
}

const struct enum_value list_action_values[] = {
	ENUM_VALUE("drop", BLOOMXDP_LIST_DROP, "drop what the list holds"),
	ENUM_VALUE("monitor", BLOOMXDP_LIST_MONITOR, "count it as would_drop, pass it"),
	ENUM_VALUE("nxdomain", BLOOMXDP_LIST_NXDOMAIN,
		   "answer DNS queries NXDOMAIN, drop other hits"),
	ENUM_VALUE("reject", BLOOMXDP_LIST_REJECT,
		   "TCP: a RST; UDP: ICMP port unreachable; else drop"),
	{}
};

const char *list_action_name(__u32 action)
{
	return enum_value_name(list_action_values, action);
}

/* --list: a name that can be a file name and a label; not with --allow. */
int list_opts_check(const struct list_opts *o)
{
	if (o->action_given && !o->list) {
		log_error("--action goes with --list NAME: the default list's action is "
			  "attach's --action");
		return -EINVAL;
	}
	if (o->learn && !o->list) {
		log_error("--learn goes with --list NAME: only a named list learns addresses "
			  "from DNS answers");
		return -EINVAL;
	}
	if (!o->list)
		return 0;
	if (list_name_check(o->list)) {
		log_error("--list %s: a list's name is 1 to %d of a-z, 0-9, '_' and '-'", o->list,
			  BLOOMXDP_LIST_NAME_MAX);
		return -EINVAL;
	}
	if (o->allow) {
		log_error("--list and --allow: the allowlist has no named lists");
		return -EINVAL;
	}
	return 0;
}

/* --column and --where go with --format csv; their syntax is checked before any work. */
int load_opts_check(const struct list_opts *o)
{
	struct csv_spec csv;
	const char *why;

	if (list_opts_check(o))
		return -EINVAL;
	why = csv_options_check(o->format, o->column, o->where.count);
	if (why) {
		log_error("%s", why);
		return -EINVAL;
	}
	if (csv_spec_parse(o->column, o->where.items, o->where.count, &csv, &why)) {
		log_error("%s", why);
		return -EINVAL;
	}
	return 0;
}

const struct list_opts list_opts_defaults = {
	.format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
};

#define L(field) offsetof(struct list_opts, field)
#define OPTION_CSV									\
	OPTION("column", 0, OPT_TEXT, L(column), "N[,M]",				\
	       "--format csv (needed): the entry's column (from\n"			\
	       "1), or N,M: a range from the address in column N\n"		\
	       "to the one in M"),							\
	OPTION("where", 0, OPT_FILES, L(where), "COL=VALUE",				\
	       "--format csv: only rows whose column COL is VALUE;\n"			\
	       "repeatable: values of one column are alternatives,\n"		\
	       "different columns must all match")

const struct option_spec load_options[] = {
	OPTION("format", 'F', OPT_ENUM, L(format), "FORMAT", "how lines are read",
	       .values = list_format_values),
	OPTION("prefix-probes", 'P', OPT_COUNT, L(prefix_probes), "N",
	       "prefix lengths probed per packet and family:\n"
	       "prefixes are stored expanded to N lengths chosen\n"
	       "from the list; fewer probes cost more keys (see\n"
	       "'bloomxdp plan --list')", .min = 1, .max = BLOOMXDP_MAX_PREFIX_LENGTHS),
	OPTION("store", 0, OPT_ENUM, L(store), "S",
	       "where each address family goes: exact intervals\n"
	       "or the Bloom filter (auto: the cheaper, see\n"
	       "'bloomxdp plan --list')", .values = range_store_values),
	OPTION_ALLOW("the FILEs are the allowlist (replaced as a whole)"),
	OPTION_LIST("the FILEs are the named list NAME (up to 16,\n"
		    "of a-z 0-9 _ -), replaced on its own; the\n"
		    "other lists stay as they are"),
	OPTION("action", 0, OPT_ENUM, L(action), "ACTION",
	       "--list: what a packet the list holds gets;\n"
	       "the strongest of the lists holding it\napplies", .values = list_action_values,
	       .given = OPTION_GIVEN(struct list_opts, action_given),
	       .default_text = "attach's --action"),
	OPTION("learn", 0, OPT_FLAG, L(learn), NULL,
	       "--list: the list's names do not block DNS; the\n"
	       "A/AAAA addresses of the answers for them are learned\n"
	       "(for their TTL, 30s to attach's --learn-ttl-max) and\n"
	       "packets from or to them get the list's action (needs\n"
	       "attach --match ...,dns-answers)"),
	OPTION("allow-empty", 0, OPT_FLAG, L(allow_empty), NULL,
	       "accept an input without any entry, which empties\n"
	       "the list (refused by default: an empty feed must\n"
	       "not remove all blocking)"),
	OPTION("lenient", 0, OPT_FLAG, L(lenient), NULL,
	       "skip the lines that cannot be read or honoured\n"
	       "(cosmetic rules, narrowing options, forwarders...)\n"
	       "and say, per reason, how many and where; without\n"
	       "it such a line stops the load"),
	OPTION_PUBLIC_SUFFIX,
	OPTION_WIDE("take prefixes shorter than /8 (IPv4) or /32\n"
		    "(IPv6) too: 0.0.0.0/1 blocks half of IPv4;\n"
		    "refused by default, naming the lines"),
	OPTION_CSV,
	OPTION("max-memory", 0, OPT_COUNT, L(max_memory), "BYTES",
	       "the memory a filter may take, for this load and\n"
	       "the next ones (default: attach's --max-memory)",
	       .min = MAX_MEMORY_MIN, .max = COUNT_MAX,
	       .given = OPTION_GIVEN(struct list_opts, max_memory_given)),
	OPTION_STATE_DIR(struct list_opts),
	{}
};
#undef OPTION_CSV
#undef L
