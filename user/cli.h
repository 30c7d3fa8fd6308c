/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_CLI_H
#define BLOOMXDP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Each command parses its own options from argv[0] == its name; returns the exit code. */
int cmd_plan(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_watch(int argc, char **argv);

/* "src", "dst", "dns", "http", "sni" to BLOOMXDP_MATCH_*, 0 for others. */
__u32 match_bit(const char *name);
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

/* "1000000", "1e6", "10M", "2k": a positive count. Prints the error. */
int parse_count(const char *opt, const char *text, __u64 *out);
/* A rate strictly between 0 and 1, or a percentage "1%". Prints the error. */
int parse_fpr(const char *opt, const char *text, double *out);
/* Prints the one-line error for the option getopt refused, with the help hint. */
int usage_error(const char *cmd, char **argv);
/* The interface argument, or an error when missing. */
int take_ifname(const char *cmd, int argc, char **argv, int *optind_io, const char **ifname);
/* The interface argument and nothing after it. */
int take_only_ifname(const char *cmd, int argc, char **argv, int optind_now, const char **ifname);

#endif
