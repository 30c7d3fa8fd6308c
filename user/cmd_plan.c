// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>

#include <bloomxdp/common.h>
#include "cli.h"
#include "log.h"
#include "sizing.h"

static const char plan_help[] =
	"Usage: bloomxdp plan [--capacity N] [--fpr P] [--json]\n\n"
	"Sizes a Bloom filter for N entries at a target false-positive rate P:\n"
	"bits m = ceil(-N ln P / (ln 2)^2) (rounded up to 64), hashes k = round(m/N ln 2),\n"
	"memory, and the expected FPR as the list fills (and overfills).\n\n"
	"  -c, --capacity N  entries the list will hold (default 1000000; 10M, 1e6 accepted)\n"
	"  -p, --fpr P       target false-positive rate, 0 < P < 1 (default 0.01; 1% accepted)\n"
	"  -j, --json        one JSON object\n";

/* Fill levels shown, in percent of capacity. */
static const unsigned int plan_fill_pct[] = { 10, 25, 50, 75, 100, 125, 150, 200 };

static void plan_print_text(const struct bloom_plan *p)
{
	size_t i;

	printf("capacity      %llu entries\n", (unsigned long long)p->capacity);
	printf("target FPR    %g\n", p->fpr);
	printf("bits (m)      %llu\n", (unsigned long long)p->bits);
	printf("hashes (k)    %u\n", p->hashes);
	printf("memory        %llu bytes (%.2f MiB)\n", (unsigned long long)p->bytes,
	       p->bytes / 1048576.0);
	printf("bits/entry    %.2f (bound for this FPR: log2(1/p) = %.2f)\n",
	       (double)p->bits / p->capacity, log2(1 / p->fpr));
	printf("design FPR    %.3g (at capacity)\n\n",
	       bloom_fpr_for_entries(p->bits, p->hashes, p->capacity));
	printf("%9s %12s %10s %12s\n", "fill", "entries", "set bits", "est. FPR");
	for (i = 0; i < sizeof(plan_fill_pct) / sizeof(plan_fill_pct[0]); i++) {
		__u64 n = p->capacity * plan_fill_pct[i] / 100;
		double set = 1 - exp(-(double)p->hashes * n / p->bits);

		printf("%8u%% %12llu %9.1f%% %12.3g\n", plan_fill_pct[i], (unsigned long long)n,
		       set * 100, bloom_fpr_for_entries(p->bits, p->hashes, n));
	}
}

static void plan_print_json(const struct bloom_plan *p)
{
	size_t i;

	printf("{\"capacity\":%llu,\"fpr\":%g,\"bits\":%llu,\"hashes\":%u,\"bytes\":%llu,"
	       "\"bits_per_entry\":%.4f,\"estimated_fpr\":%.6g,\"fill\":[",
	       (unsigned long long)p->capacity, p->fpr, (unsigned long long)p->bits, p->hashes,
	       (unsigned long long)p->bytes, (double)p->bits / p->capacity,
	       bloom_fpr_for_entries(p->bits, p->hashes, p->capacity));
	for (i = 0; i < sizeof(plan_fill_pct) / sizeof(plan_fill_pct[0]); i++) {
		__u64 n = p->capacity * plan_fill_pct[i] / 100;

		printf("%s{\"entries\":%llu,\"fill_ratio\":%.6f,\"estimated_fpr\":%.6g}",
		       i ? "," : "", (unsigned long long)n,
		       1 - exp(-(double)p->hashes * n / p->bits),
		       bloom_fpr_for_entries(p->bits, p->hashes, n));
	}
	printf("]}\n");
}

/* Shared with attach: computes the plan and explains a refusal. */
int plan_or_explain(__u64 capacity, double fpr, struct bloom_plan *plan)
{
	int ret = bloom_plan_compute(capacity, fpr, plan);

	if (ret == -E2BIG)
		log_error("a filter for %llu entries at FPR %g needs more than %u MiB of bits: "
			  "lower --capacity or raise --fpr", (unsigned long long)capacity, fpr,
			  (unsigned int)(BLOOMXDP_MAX_BITS >> 23) + 1);
	else if (ret)
		log_error("--capacity must be at least 1 and --fpr between 0 and 1");
	return ret;
}

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "capacity", required_argument, NULL, 'c' },
		{ "fpr", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	__u64 capacity = DEFAULT_CAPACITY;
	double fpr = DEFAULT_FPR;
	struct bloom_plan plan;
	bool json = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:p:jvh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (parse_count("--capacity", optarg, &capacity))
				return 2;
			break;
		case 'p':
			if (parse_fpr("--fpr", optarg, &fpr))
				return 2;
			break;
		case 'j':
			json = true;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(plan_help, stdout);
			return 0;
		default:
			return usage_error("plan");
		}
	}
	if (optind < argc) {
		log_error("plan: unexpected argument '%s'; see 'bloomxdp plan --help'", argv[optind]);
		return 2;
	}
	if (plan_or_explain(capacity, fpr, &plan))
		return 1;
	if (json)
		plan_print_json(&plan);
	else
		plan_print_text(&plan);
	return 0;
}
