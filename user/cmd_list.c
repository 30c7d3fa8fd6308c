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
#include "blocklist.h"
#include "listfile.h"
#include "log.h"
#include "sizing.h"

static const char load_help[] =
	"Usage: bloomxdp load IFNAME [--format FORMAT] FILE [FILE...]\n\n"
	"Replaces the live list of IFNAME with the entries of the FILEs ('-' reads\n"
	"standard input). The new filter is built aside and swapped in with one atomic\n"
	"map update: packets see the old list or the new one, never a mix. On any bad\n"
	"line the live list stays as it was.\n\n"
	"One entry per line; '#' at the start or after white space starts a comment;\n"
	"blank lines and surrounding white space are ignored; duplicates are fine.\n\n"
	"  -F, --format FORMAT  how lines are read (default auto: decided per line):\n"
	"        addr     203.0.113.7, 2001:db8::9\n"
	"        domain   evil.example (blocks it and every name under it), bücher.example\n"
	"        hosts    0.0.0.0 evil.example other.example (localhost lines skipped)\n"
	"        adblock  ||evil.example^ ('!' comments skipped)\n"
	"        url      http://evil.example/path, https://..., evil.example/path\n";

static const char add_help[] =
	"Usage: bloomxdp add IFNAME ENTRY [ENTRY...]\n\n"
	"Inserts entries (addresses, domains, URLs) into the live list of IFNAME, in\n"
	"place. Nothing is inserted if\n"
	"any entry is invalid. A Bloom filter cannot delete: to remove entries, 'load'\n"
	"the list without them.\n";

static const char query_help[] =
	"Usage: bloomxdp query IFNAME ENTRY [ENTRY...]\n\n"
	"Prints 'ENTRY: blocked' or 'ENTRY: not blocked' for each entry, as the XDP\n"
	"program would decide: an address as a packet's address, a name as a DNS\n"
	"query, TLS SNI or HTTP Host, host/path as an HTTP request. 'blocked' is either\n"
	"listed or a false positive of the filter (see 'bloomxdp status' for the\n"
	"estimated rate). With -v, also what matched. Exits 1 if an entry is invalid.\n";

/* Progress on a terminal, every this many entries. */
#define PROGRESS_EVERY (1U << 20)

struct load_ctx {
	struct filter *filter;
	__u64 read;		/* entries read, duplicates included */
	bool progress;
};

static int load_entry(const struct entry *e, void *arg)
{
	struct load_ctx *ctx = arg;

	blocklist_insert(ctx->filter, e);
	if (++ctx->read % PROGRESS_EVERY == 0 && ctx->progress)
		fprintf(stderr, "\rbloomxdp: loading... %llu entries", (unsigned long long)ctx->read);
	return 0;
}

/*
 * A list whose entries the attachment never looks at is most likely a
 * mistake (a typo that made an address a domain, a names list on a src-only
 * attachment): say so, once.
 */
static void warn_unmatched_kinds(const struct filter *f, const struct bloomxdp_config *cfg,
				 const char *ifname)
{
	__u64 kinds = filter_header(f);
	char match[64];

	match_text(cfg->match, match, sizeof(match));
	if ((kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS)) &&
	    !(cfg->match & BLOOMXDP_MATCH_NAMES))
		log_warn("the list holds domains or URLs, but %s matches only %s: they block "
			 "nothing (attach with --match including dns, http or sni)", ifname, match);
	if ((kinds & (BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6)) &&
	    !(cfg->match & (BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST)))
		log_warn("the list holds addresses, but %s matches only %s: they block nothing "
			 "(attach with --match including src or dst)", ifname, match);
	if ((kinds & BLOOMXDP_HAS_URLS) && !(cfg->match & BLOOMXDP_MATCH_HTTP))
		log_warn("the list holds URLs, but %s does not match http: they block nothing",
			 ifname);
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

static int do_load(const char *ifname, enum list_format format, char **files, int nfiles)
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
		ret = list_read(files[i], format, load_entry, &ctx, err);
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
	warn_unmatched_kinds(&f, &att.config, ifname);
	ret = 0;
cleanup:
	filter_close(&f);
	attachment_close(&att);
	return ret;
}

static int take_entry(const struct entry *e, void *arg)
{
	*(struct entry *)arg = *e;
	return 0;
}

/* One command-line argument, one entry (format auto). */
static int parse_arg(const char *arg, struct entry *e)
{
	char text[1024];
	const char *why = NULL;

	if (strlen(arg) >= sizeof(text) || strpbrk(arg, " \t")) {
		log_error("%s: one address, domain or URL per argument", arg);
		return -EINVAL;
	}
	strcpy(text, arg);
	if (entry_parse_line(text, FORMAT_AUTO, take_entry, e, &why)) {
		log_error("%s: %s", arg, why ? why : "not an entry");
		return -EINVAL;
	}
	return 0;
}

/* Parses every entry before touching the filter: all or nothing. */
static int parse_entries(char **args, int n, struct entry *entries)
{
	int i, bad = 0;

	for (i = 0; i < n; i++)
		bad += parse_arg(args[i], &entries[i]) != 0;
	return bad ? -EINVAL : 0;
}

static int do_add(const char *ifname, enum list_format format, char **entries, int n)
{
	struct filter f = { .map_fd = -1 };
	struct bloomxdp_state st = {};
	struct entry *parsed;
	struct attachment att;

	(void)format;	/* always auto: one entry per argument */
	__u64 inserted = 0;
	int i, ret;

	parsed = calloc(n, sizeof(*parsed));
	if (!parsed) {
		log_error("out of memory for %d entries", n);
		return -ENOMEM;
	}
	ret = parse_entries(entries, n, parsed);
	if (ret) {
		log_error("nothing was added");
		free(parsed);
		return ret;
	}
	ret = attachment_open(ifname, true, &att);
	if (ret) {
		free(parsed);
		return ret;
	}
	ret = filter_open_live(att.filter_fd, &att.config, &f);
	if (ret) {
		log_error("cannot open the live filter of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	for (i = 0; i < n; i++)
		inserted += blocklist_insert(&f, &parsed[i]);
	attachment_read_state(&att, &st);
	st.entries += n;
	ret = attachment_write_state(&att, &st);
	if (ret)
		log_warn("entries added, but the entry count could not be saved: %s",
			 strerror(-ret));
	printf("added %d entr%s to %s (%llu not already in the filter)\n", n, n == 1 ? "y" : "ies",
	       ifname, (unsigned long long)inserted);
	warn_over_capacity(&f, &att.config);
	warn_unmatched_kinds(&f, &att.config, ifname);
	ret = 0;
cleanup:
	filter_close(&f);
	attachment_close(&att);
	free(parsed);
	return ret;
}

static int do_query(const char *ifname, enum list_format format, char **entries, int n)
{
	struct filter f = { .map_fd = -1 };
	struct attachment att;
	char matched[512];
	struct entry e;
	int i, ret, bad = 0;
	bool blocked;

	(void)format;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = filter_open_live(att.filter_fd, &att.config, &f);
	if (ret) {
		log_error("cannot open the live filter of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		if (parse_arg(entries[i], &e)) {
			bad++;
			continue;
		}
		blocked = blocklist_lookup(&f, &e, matched, sizeof(matched));
		printf("%s: %s\n", entries[i], blocked ? "blocked" : "not blocked");
		if (blocked && matched[0])
			log_debug("%s: matched the listed %s %s", entries[i],
				  strchr(matched, '/') ? "URL" : "domain", matched);
	}
	ret = bad ? -EINVAL : 0;
cleanup:
	filter_close(&f);
	attachment_close(&att);
	return ret;
}

/* load, add and query share their arguments: IFNAME then one or more items. */
static int run_list_command(int argc, char **argv, const char *help, const char *what,
			    int (*fn)(const char *ifname, enum list_format format, char **items,
				      int n))
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	enum list_format format = FORMAT_AUTO;
	const char *ifname;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "F:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			if (strcmp(argv[0], "load")) {
				log_error("--format goes with 'bloomxdp load'");
				return 2;
			}
			if (list_format_parse(optarg, &format)) {
				log_error("--format %s: expected auto, addr, domain, hosts, adblock "
					  "or url", optarg);
				return 2;
			}
			break;
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
	return fn(ifname, format, argv + optind, argc - optind) ? 1 : 0;
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
