// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* load, add, query: the commands that write or read the live list. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attachment.h"
#include "cli.h"
#include "filter.h"
#include "keys.h"
#include "listfile.h"
#include "log.h"
#include "sizing.h"

static const char load_help[] =
	"Usage: bloomxdp load IFNAME FILE [FILE...]\n\n"
	"Replaces the live list of IFNAME with the entries of the FILEs ('-' reads\n"
	"standard input). The new filter is built aside and swapped in with one atomic\n"
	"map update: packets see the old list or the new one, never a mix. On any bad\n"
	"line the live list stays as it was.\n\n"
	"List format: one IPv4 or IPv6 address per line; '#' starts a comment; blank\n"
	"lines and surrounding white space are ignored; duplicates are fine.\n";

static const char add_help[] =
	"Usage: bloomxdp add IFNAME ENTRY [ENTRY...]\n\n"
	"Inserts entries into the live list of IFNAME, in place. Nothing is inserted if\n"
	"any entry is invalid. A Bloom filter cannot delete: to remove entries, 'load'\n"
	"the list without them.\n";

static const char query_help[] =
	"Usage: bloomxdp query IFNAME ENTRY [ENTRY...]\n\n"
	"Prints 'ENTRY: blocked' or 'ENTRY: not blocked' for each entry, as the XDP\n"
	"program would decide. 'blocked' is either listed or a false positive of the\n"
	"filter (see 'bloomxdp status' for the estimated rate). Exits 1 if an entry is\n"
	"not a valid address.\n";

/* Progress on a terminal, every this many entries. */
#define PROGRESS_EVERY (1U << 20)

struct load_ctx {
	struct filter *filter;
	__u64 read;		/* entries read, duplicates included */
	bool progress;
};

static int load_entry(const struct bloomxdp_key *key, void *arg)
{
	struct load_ctx *ctx = arg;

	filter_insert(ctx->filter, key);
	if (++ctx->read % PROGRESS_EVERY == 0 && ctx->progress)
		fprintf(stderr, "\rbloomxdp: loading... %llu entries", (unsigned long long)ctx->read);
	return 0;
}

/*
 * Judged on distinct entries estimated from the fill, so that duplicates in a
 * list do not raise a false alarm.
 */
static void warn_over_capacity(const struct filter *f, const struct bloomxdp_config *cfg)
{
	double fill = (double)filter_popcount(f) / cfg->bits;
	double distinct = bloom_entries_for_fill(cfg->bits, cfg->hashes, fill);

	if (distinct <= cfg->capacity * 1.01)
		return;
	log_warn("about %.0f distinct entries exceed the capacity of %llu: the FPR is now about "
		 "%.3g instead of %g; detach and attach with a larger --capacity to restore it",
		 distinct, (unsigned long long)cfg->capacity,
		 bloom_fpr_for_fill(fill, cfg->hashes), (double)cfg->fpr_ppb / BLOOMXDP_PPB);
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

static int do_load(const char *ifname, char **files, int nfiles)
{
	struct filter f = { .map_fd = -1 };
	struct load_ctx ctx = { .filter = &f, .progress = isatty(STDERR_FILENO) };
	struct bloomxdp_state st = {};
	char err[LIST_ERROR_LEN];
	struct attachment att;
	struct timespec start, wall;
	int i, ret;

	ret = attachment_open(ifname, true, &att);
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &start);
	ret = filter_create(&att.config, &f);
	if (ret) {
		log_error("cannot create a new %u-byte filter map: %s", att.config.bits / 8,
			  strerror(-ret));
		goto cleanup;
	}
	for (i = 0; i < nfiles; i++) {
		ret = list_read(files[i], load_entry, &ctx, err);
		if (ret) {
			if (ctx.progress && ctx.read >= PROGRESS_EVERY)
				fputc('\n', stderr);
			log_error("%s; the live list of %s is unchanged", err, ifname);
			goto cleanup;
		}
	}
	if (ctx.progress && ctx.read >= PROGRESS_EVERY)
		fputc('\n', stderr);

	ret = filter_install(att.filter_fd, &f);
	if (ret) {
		log_error("cannot swap in the new filter: %s; the live list is unchanged",
			  strerror(-ret));
		goto cleanup;
	}
	attachment_read_state(&att, &st);
	clock_gettime(CLOCK_REALTIME, &wall);
	st.entries = ctx.read;
	st.generation++;
	st.loaded_at_ns = wall.tv_sec * 1000000000ULL + wall.tv_nsec;
	ret = attachment_write_state(&att, &st);
	if (ret)
		log_warn("the new list is live, but its entry count could not be saved: %s",
			 strerror(-ret));
	printf("loaded %llu entries into %s in %.2f s\n", (unsigned long long)ctx.read, ifname,
	       seconds_since(&start));
	warn_over_capacity(&f, &att.config);
	ret = 0;
cleanup:
	filter_close(&f);
	attachment_close(&att);
	return ret;
}

/* Parses every entry before touching the filter: all or nothing. */
static int parse_entries(char **entries, int n, struct bloomxdp_key *keys)
{
	const char *why;
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		if (key_parse(entries[i], &keys[i], &why)) {
			log_error("%s: %s", entries[i], why);
			bad++;
		}
	}
	return bad ? -EINVAL : 0;
}

static int do_add(const char *ifname, char **entries, int n)
{
	struct filter f = { .map_fd = -1 };
	struct bloomxdp_state st = {};
	struct bloomxdp_key *keys;
	struct attachment att;
	__u64 inserted = 0;
	int i, ret;

	keys = calloc(n, sizeof(*keys));
	if (!keys) {
		log_error("out of memory for %d entries", n);
		return -ENOMEM;
	}
	ret = parse_entries(entries, n, keys);
	if (ret) {
		log_error("nothing was added");
		free(keys);
		return ret;
	}
	ret = attachment_open(ifname, true, &att);
	if (ret) {
		free(keys);
		return ret;
	}
	ret = filter_open_live(att.filter_fd, &att.config, &f);
	if (ret) {
		log_error("cannot open the live filter of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	for (i = 0; i < n; i++)
		inserted += filter_insert(&f, &keys[i]);
	attachment_read_state(&att, &st);
	st.entries += n;
	ret = attachment_write_state(&att, &st);
	if (ret)
		log_warn("entries added, but the entry count could not be saved: %s",
			 strerror(-ret));
	printf("added %d entries to %s (%llu not already in the filter)\n", n, ifname,
	       (unsigned long long)inserted);
	warn_over_capacity(&f, &att.config);
	ret = 0;
cleanup:
	filter_close(&f);
	attachment_close(&att);
	free(keys);
	return ret;
}

static int do_query(const char *ifname, char **entries, int n)
{
	struct filter f = { .map_fd = -1 };
	struct bloomxdp_key key;
	struct attachment att;
	const char *why;
	int i, ret, bad = 0;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = filter_open_live(att.filter_fd, &att.config, &f);
	if (ret) {
		log_error("cannot open the live filter of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		if (key_parse(entries[i], &key, &why)) {
			log_error("%s: %s", entries[i], why);
			bad++;
			continue;
		}
		printf("%s: %s\n", entries[i], filter_test(&f, &key) ? "blocked" : "not blocked");
	}
	ret = bad ? -EINVAL : 0;
cleanup:
	filter_close(&f);
	attachment_close(&att);
	return ret;
}

/* load, add and query share their arguments: IFNAME then one or more items. */
static int run_list_command(int argc, char **argv, const char *help, const char *what,
			    int (*fn)(const char *ifname, char **items, int n))
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *ifname;
	int opt;

	optind = 1;
	/* '+': stop at the first non-option, so that '-' and entries pass through. */
	while ((opt = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		default:
			return usage_error(argv[0]);
		}
	}
	if (take_ifname(argv[0], argc, argv, &optind, &ifname))
		return 2;
	if (optind >= argc) {
		log_error("%s: give at least one %s; see 'bloomxdp %s --help'", argv[0], what,
			  argv[0]);
		return 2;
	}
	return fn(ifname, argv + optind, argc - optind) ? 1 : 0;
}

int cmd_load(int argc, char **argv)
{
	return run_list_command(argc, argv, load_help, "FILE (or - for standard input)", do_load);
}

int cmd_add(int argc, char **argv)
{
	return run_list_command(argc, argv, add_help, "ENTRY", do_add);
}

int cmd_query(int argc, char **argv)
{
	return run_list_command(argc, argv, query_help, "ENTRY", do_query);
}
