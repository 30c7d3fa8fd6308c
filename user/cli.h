/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_CLI_H
#define BLOOMXDP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "options.h"

/* The commands, each in its cmd_*.c: its options table and its handler (see options.h). */
extern const struct command command_plan, command_attach, command_detach, command_load,
	command_add, command_del, command_query, command_stats, command_status,
	command_watch, command_restore, command_save;
/* The configuration file and the daemon (cmd_daemon.c). */
extern const struct command command_daemon, command_check_config;
extern const struct command command_refresh;
/* The fleet through Redis (cmd_fleet.c). */
extern const struct command command_publish, command_fleet;
/* bloomxdp version (cmd_version.c). */
extern const struct command command_version;
/* Every command, NULL-terminated, in the order 'bloomxdp --help' shows them (cli.c). */
extern const struct command *const bloomxdp_commands[];

/* What a saved filter needs of the attachment it goes into (restore --file). */
struct attach_filter {
	__u32 layout;
	double fpr;
	const __u64 *hash_key;
};

/*
 * attach with the settings the state recorded (state.h; NULL: the defaults),
 * its lists left for the caller to load; force: replace the XDP program
 * already there; filter: with the layout, FPR and hash key of a saved filter.
 */
int attach_restore(const char *ifname, char *settings, const char *state_dir, bool force,
		   const struct attach_filter *filter);

/*
 * attach with opts (command_attach's options struct, as the daemon's [attach]
 * gives them; NULL: the defaults) but the layout, FPR and hash key of a saved
 * filter: a fleet node, whose every version is compiled with the fleet's key.
 */
int attach_with_filter(const char *ifname, const void *opts, const struct attach_filter *filter);

/* The values of --match: "src", "dst", "dns", "http", "sni" (BLOOMXDP_MATCH_*). */
extern const struct enum_value match_values[];
/* The comma list of a match mask, e.g. "src,dns", into buf. */
const char *match_text(__u32 match, char *buf, size_t len);

/* Defaults of the sizing options, shared by plan and attach. */
#define DEFAULT_CAPACITY 1000000ULL
#define DEFAULT_FPR 0.01
/* The layout `make bench` found fastest at 1M and 10M entries (bench/results.md). */
#define DEFAULT_LAYOUT BLOOMXDP_LAYOUT_BLOCKED

struct bloom_plan;
/* bloom_plan_compute() with the error explained on stderr. */
int plan_or_explain(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan);

/* The largest count an option takes: 10^15. */
#define COUNT_MAX 1e15
/* "1000000", "1e6", "10M", "2k": a whole number in [min, max]. Prints the error. */
int parse_count_range(const char *opt, const char *text, double min, double max, __u64 *out);
/* The same in [1, COUNT_MAX]. */
int parse_count(const char *opt, const char *text, __u64 *out);
/* A rate strictly between 0 and 1, or a percentage "1%". Prints the error. */
int parse_fpr(const char *opt, const char *text, double *out);

#endif
