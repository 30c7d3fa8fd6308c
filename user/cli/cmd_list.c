// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * load, add, del, query: their help, and what they print; load's option table
 * is the library's (lists/load_options.c), the work is in lists/.
 */
#include <errno.h>
#include <stddef.h>

#include "cli/commands.h"
#include "service/control.h"
#include "lists/lists.h"
#include "util/duration.h"
#include "util/log.h"
#include "lists/learned.h"
#include "lists/named.h"
#include "lists/report.h"
#include "filter/bloom_plan.h"
#include "lists/load_options.h"
#include "kernel/state_dir.h"

static int check_list(const struct cli_call *call)
{
	return list_opts_check(call->opts);
}

static int check_load(const struct cli_call *call)
{
	return load_opts_check(call->opts);
}

/* Each prints what it did, also when it failed after doing some of it. */
static int run_load(const struct cli_call *call)
{
	struct load_result r;
	int ret = list_load(call->ifname, call->opts, call->argv, call->argc, &r);

	load_result_print(&r, stdout);
	return ret;
}

static int run_add(const struct cli_call *call)
{
	struct add_result r;
	int ret = list_add(call->ifname, call->opts, call->argv, call->argc, &r);

	add_result_print(&r, stdout);
	return ret;
}

static int run_del(const struct cli_call *call)
{
	struct del_result r;
	int ret = list_del(call->ifname, call->opts, call->argv, call->argc, &r);

	del_result_print(&r, stdout);
	return ret;
}

/*
 * The daemon's answer, when one runs on the interface. Not 0: none answered,
 * or it refused (nothing printed): the command reads the attachment itself.
 */
static int query_by_daemon(const struct cli_call *call)
{
	const struct list_opts *o = call->opts;
	struct control_request req = { .cmd = CONTROL_QUERY, .text = !call->json };
	int i;

	/* --state-dir names the state to read: the daemon's is its own; -v is said here. */
	if (o->state_dir || log_verbose || call->argc > CONTROL_KEYS_MAX)
		return -ENOENT;
	if (o->list)
		snprintf(req.list, sizeof(req.list), "%s", o->list);
	for (i = 0; i < call->argc; i++)
		req.keys[i] = call->argv[i];
	req.nkeys = call->argc;
	return control_ask_write(call->ifname, &req, call->json ? "query" : NULL, stdout, NULL, 0);
}

static int run_query(const struct cli_call *call)
{
	struct query_result r;
	int ret = query_by_daemon(call);

	if (!ret)
		return 0;
	ret = list_query(call->ifname, call->opts, call->argv, call->argc, &r);

	if (call->json)
		query_result_write_json(&r, stdout);
	else
		query_result_print(&r, stdout);
	query_result_free(&r);
	return ret;
}

#define L(field) offsetof(struct list_opts, field)
static const struct option_spec add_options[] = {
	OPTION_ALLOW("the ENTRYs go to the allowlist: never dropped"),
	OPTION_LIST("into the named list NAME (made, with attach's\n"
		    "action, if it is not there)"),
	OPTION("format", 'F', OPT_ENUM, L(format), "FORMAT", "how each ENTRY is read, as for load",
	       .values = list_format_values),
	OPTION_PUBLIC_SUFFIX,
	OPTION_WIDE("add prefixes shorter than /8 (IPv4) or /32\n"
		    "(IPv6) too; refused by default"),
	OPTION("timeout", 0, OPT_DURATION, L(timeout), "DURATION",
	       "the entries expire after DURATION (30s, 10m,\n"
	       "2h, 7d): 'bloomxdp daemon' deletes them then;\n"
	       "an entry listed with a later one keeps it", .min = 1, .max = DURATION_MAX_S),
	OPTION_STATE_DIR(struct list_opts),
	{}
};

static const struct option_spec del_options[] = {
	OPTION_ALLOW("delete from the allowlist"),
	OPTION_LIST("delete from the named list NAME"),
	OPTION("format", 'F', OPT_ENUM, L(format), "FORMAT", "how each ENTRY is read, as for load",
	       .values = list_format_values),
	OPTION_STATE_DIR(struct list_opts),
	{}
};

static const struct option_spec query_options[] = {
	OPTION_LIST("only whether the named list NAME holds them"),
	OPTION_STATE_DIR(struct list_opts),
	{}
};
#undef L

/* add and query: an interface, then entries. */
#define ENTRY_COMMAND								\
	.args = "IFNAME ENTRY...", .opts_size = sizeof(struct list_opts),		\
	.defaults = &list_opts_defaults, .ifname = true, .min_args = 1, .max_args = -1,	\
	.what_args = "ENTRY", .check = check_list

const struct command command_load = {
	.name = "load",
	.args = "IFNAME FILE...",
	.summary = "replace the live list with list files, atomically",
	.description =
		"Replaces the live list of IFNAME with the entries of the FILEs ('-' reads\n"
		"standard input). The new filter is sized for the list (its keys and a quarter\n"
		"more for adds, at least 1024 keys) at the target FPR, built aside and swapped\n"
		"in with one atomic map update: packets see the old list or the new one, never\n"
		"a mix. On any bad line, read error, empty input, or a list that needs more\n"
		"than --max-memory, the live list stays as it was. After the swap, a copy of\n"
		"each input as read, its source, time and SHA-256 go to the state (for restore\n"
		"and query).\n\n"
		"One entry per line; '#' or ';' at the start or after white space starts a\n"
		"comment; blank lines and surrounding white space are ignored; duplicates are\n"
		"fine. Adblock, hosts, dnsmasq, Unbound, RPZ lines and address ranges are told\n"
		"apart per line; CSV needs --format csv. Exceptions (@@||host^, rpz-passthru)\n"
		"are added to the allowlist before the new list goes live. A list holding a\n"
		"public suffix (edu.pl, github.io) is refused unless --allow-public-suffix,\n"
		"a prefix shorter than /8 (IPv4) or /32 (IPv6) unless --allow-wide.\n\n"
		"With --list NAME, the FILEs are the named list NAME (up to 16 per interface),\n"
		"with its own --action and hit counter; the other lists (the default one and\n"
		"the other named ones) stay as the state records them, rebuilt into the new\n"
		"union filter; NAME loaded empty (--allow-empty /dev/null) is dropped.\n",
	.options = load_options,
	.opts_size = sizeof(struct list_opts),
	.defaults = &list_opts_defaults,
	.ifname = true,
	.min_args = 1,
	.max_args = -1,
	.what_args = "FILE (or - for standard input)",
	.check = check_load,
	.run = run_load,
};

const struct command command_add = {
	.name = "add",
	ENTRY_COMMAND,
	.summary = "insert entries into the live list",
	.description =
		"Inserts entries (addresses, domains, URLs) into the live list of IFNAME, in\n"
		"place, and appends them to the state's journal. Nothing is inserted if any\n"
		"entry is invalid. Entries that would take the filter past the keys it is sized\n"
		"for (its FPR past the target) rebuild it from the state: the list as last\n"
		"loaded, the journal and them, loaded into a new filter sized for all (about\n"
		"2 s for a million entries); without state, the add is refused: 'load' the\n"
		"whole list then. 'del' takes entries out again.\n",
	.options = add_options,
	.run = run_add,
};

const struct command command_del = {
	.name = "del",
	ENTRY_COMMAND,
	.summary = "take entries out of the live list",
	.description =
		"Takes entries out of the live list of IFNAME, in place, and out of its state\n"
		"(restore does not bring them back); every other entry still matches. The\n"
		"Bloom filter's bits are cleared through counters kept in the state, built by\n"
		"load and kept by add: a bit is cleared when no other key counts on it. A\n"
		"counter that reached 15 keys stays (its bit stays set: a false positive\n"
		"more, never a false negative; 'status' counts them). Needs the state, and\n"
		"a layout other than kernel (a BPF_MAP_TYPE_BLOOM_FILTER cannot delete). An\n"
		"entry the state does not list is refused: exits 1, nothing deleted.\n",
	.options = del_options,
	.run = run_del,
};

const struct command command_query = {
	.name = "query",
	ENTRY_COMMAND,
	.summary = "tell whether entries are blocked",
	.description =
		"Prints 'ENTRY: blocked' or 'ENTRY: not blocked' for each entry, as the XDP\n"
		"program would decide: an address as a packet's address, a name as a DNS\n"
		"query, TLS SNI or HTTP Host, host/path as an HTTP request. 'blocked' is either\n"
		"listed or a false positive of the filter: the state's copy of the list tells\n"
		"them apart, 'blocked (listed: ENTRY)' naming the listed entry that covers it.\n"
		"With -v, also what matched. Exits 1 if an entry is invalid. When a daemon\n"
		"runs on IFNAME, it is asked through its control socket (the same answer, with\n"
		"its state directory); without -v and --state-dir.\n\n"
		"An address learned from a DNS answer for a list loaded with --learn gets a\n"
		"line of its own first: 'ENTRY: blocked (learned from the answer for NAME at\n"
		"T, expires at T'; list L)', times in UTC. With --json, an array of objects\n"
		"(entry, verdict, blocked, text; learned: list, name, learned_at, expires_at,\n"
		"ttl).\n",
	.options = query_options,
	.json = true,
	.run = run_query,
};

