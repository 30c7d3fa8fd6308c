// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* plan: its options and help, and the plan (lists/plan.c for a list's) as text or JSON. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>

#include <bloomxdp/common.h>
#include <string.h>
#include "kernel/attachment.h"
#include "cli/commands.h"
#include "filter/exact.h"
#include "lists/build.h"
#include "util/json.h"
#include "filter/layout.h"
#include "util/log.h"
#include "filter/packet_fpr.h"
#include "filter/bloom_plan.h"
#include "lists/plan.h"

/* Fill levels shown, in percent of capacity. */
static const unsigned int plan_fill_pct[] = { 10, 25, 50, 75, 100, 125, 150, 200 };

/* Every layout for the same capacity and FPR, side by side; into j if not NULL. */
static void plan_print_layouts(__u64 capacity, double fpr, struct json *j)
{
	struct bloom_plan p;
	__u32 l;

	if (!j)
		printf("%-9s %12s %12s %7s %6s %12s\n", "layout", "bits (m)", "bytes",
		       "bits/e", "k", "design FPR");
	for (l = 0; l < LAYOUT_COUNT; l++) {
		if (bloom_plan_compute_layout(capacity, fpr, l, &p))
			continue;
		if (j) {
			json_object_start(j);
			json_kv_string(j, "layout", layout_name(l));
			json_kv_u64(j, "bits", p.bits);
			json_kv_u64(j, "bytes", p.bytes);
			json_kv_double(j, "bits_per_entry", "%.4f", (double)p.bits / capacity);
			json_kv_u64(j, "hashes", p.hashes);
			json_kv_double(j, "estimated_fpr", "%.6g", p.expected_fpr);
			json_object_end(j);
		} else {
			printf("%-9s %12llu %12llu %7.2f %6u %12.4g\n", layout_name(l),
			       (unsigned long long)p.bits, (unsigned long long)p.bytes,
			       (double)p.bits / capacity, p.hashes, p.expected_fpr);
		}
	}
	if (!j)
		printf("\n");
}

static void plan_print_text(const struct bloom_plan *p)
{
	size_t i;

	printf("layout        %s\n", layout_name(p->layout));
	printf("capacity      %llu entries\n", (unsigned long long)p->capacity);
	printf("target FPR    %g\n", p->fpr);
	printf("bits (m)      %llu\n", (unsigned long long)p->bits);
	printf("hashes (k)    %u\n", p->hashes);
	printf("memory        %llu bytes (%.2f MiB)\n", (unsigned long long)p->bytes,
	       p->bytes / 1048576.0);
	printf("bits/entry    %.2f (bound for this FPR: log2(1/p) = %.2f)\n",
	       (double)p->bits / p->capacity, log2(1 / p->fpr));
	printf("design FPR    %.3g (at capacity)\n\n", p->expected_fpr);
	printf("%9s %12s %10s %12s\n", "fill", "entries", "set bits", "est. FPR");
	for (i = 0; i < sizeof(plan_fill_pct) / sizeof(plan_fill_pct[0]); i++) {
		__u64 n = p->capacity * plan_fill_pct[i] / 100;
		double set = 1 - exp(-(double)p->hashes * n / p->bits);

		printf("%8u%% %12llu %9.1f%% %12.3g\n", plan_fill_pct[i], (unsigned long long)n,
		       set * 100, bloom_layout_fpr(p->layout, p->bits, p->hashes, n));
	}
}

static void plan_print_json(struct json *j, const struct bloom_plan *p)
{
	size_t i;

	json_kv_u64(j, "capacity", p->capacity);
	json_kv_double(j, "fpr", "%g", p->fpr);
	json_kv_u64(j, "bits", p->bits);
	json_kv_u64(j, "hashes", p->hashes);
	json_kv_u64(j, "bytes", p->bytes);
	json_kv_double(j, "bits_per_entry", "%.4f", (double)p->bits / p->capacity);
	json_kv_double(j, "estimated_fpr", "%.6g", p->expected_fpr);
	json_key(j, "fill");
	json_array_start(j);
	for (i = 0; i < sizeof(plan_fill_pct) / sizeof(plan_fill_pct[0]); i++) {
		__u64 n = p->capacity * plan_fill_pct[i] / 100;

		json_object_start(j);
		json_kv_u64(j, "entries", n);
		json_kv_double(j, "fill_ratio", "%.6f", 1 - exp(-(double)p->hashes * n / p->bits));
		json_kv_double(j, "estimated_fpr", "%.6g",
			       bloom_layout_fpr(p->layout, p->bits, p->hashes, n));
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_string(j, "layout", layout_name(p->layout));
	json_key(j, "layouts");
	json_array_start(j);
	plan_print_layouts(p->capacity, p->fpr, j);
	json_array_end(j);
}

static void report_text(const struct list_report *r)
{
	static const char *const family[2] = { "IPv4", "IPv6" };
	const struct list_build *b = &r->build;
	const struct range_cost *c;
	char lengths[64];
	__u32 i, t;
	size_t used;

	printf("list          %llu entries: %llu addresses and prefixes, %llu domains, %llu URLs\n",
	       (unsigned long long)b->read,
	       (unsigned long long)(b->plan[0].entries + b->plan[1].entries),
	       (unsigned long long)b->names, (unsigned long long)b->urls);
	for (i = 0; i < 2; i++) {
		if (!b->plan[i].entries)
			continue;
		for (t = 0, used = 0; t < b->plan[i].ntargets && used < sizeof(lengths); t++)
			used += snprintf(lengths + used, sizeof(lengths) - used, "%s/%u",
					 t ? "," : "", b->plan[i].target[t]);
		printf("%s         %llu entries -> %.0f keys at lengths %s: %u probes per packet\n",
		       family[i], (unsigned long long)b->plan[i].entries, b->plan[i].expanded,
		       lengths, b->plan[i].ntargets);
		c = &b->cost[i];
		printf("  store       %s: Bloom %.0f bytes, %u probes; exact intervals %llu, %llu "
		       "bytes, %u search steps\n",
		       c->use_ranges ? "exact intervals" : "Bloom filter", c->bloom_bytes,
		       c->probes, (unsigned long long)c->intervals,
		       (unsigned long long)c->range_bytes, c->steps);
	}
	if (b->nexceptions)
		printf("exceptions    %zu (for the allowlist)\n", b->nexceptions);
	printf("keys          %llu\n", (unsigned long long)r->keys);
	if (r->load_planned)
		printf("load          a filter for %llu keys (the list's and a quarter more for "
		       "adds): %llu bytes%s\n", (unsigned long long)r->load.capacity,
		       (unsigned long long)bloom_plan_map_bytes(&r->load),
		       r->verify ? ", and the exact copy" : "");
	if (r->load_planned) {
		char text[256];

		printf("per packet    %.3g at most (target %g; %.3g per probe, up to %u probes): "
		       "%s\n",
		       packet_worst_fpr(&r->probes, r->load_fpr), r->target, r->probe_fpr,
		       packet_worst_probes(&r->probes),
		       packet_fpr_text(&r->probes, r->load_fpr, text, sizeof(text)));
	}
	if (r->verify)
		printf("exact copy    %llu bytes (--verify; kernel accounting), %.1f bytes per entry\n",
		       (unsigned long long)r->exact_bytes,
		       b->read ? (double)r->exact_bytes / b->read : 0.0);
	if (r->verify && r->table_bytes)
		printf("              of which %llu bytes of tables of the hosts (read in place "
		       "of their hash maps)\n", (unsigned long long)r->table_bytes);
	if (r->verify)
		printf("              attach --verify auto keeps it with --max-memory %llu or more "
		       "(a quarter for it): %s at the default %llu\n",
		       (unsigned long long)r->exact_bytes * BLOOMXDP_VERIFY_AUTO_SHARE,
		       r->exact_bytes <= verify_auto_limit(default_max_memory()) ? "on" : "off",
		       (unsigned long long)default_max_memory());
	printf("\n");
}

static void report_json(struct json *j, const struct list_report *r)
{
	const struct list_build *b = &r->build;
	int i;

	json_key(j, "list");
	json_object_start(j);
	json_kv_u64(j, "entries", b->read);
	json_kv_u64(j, "names", b->names);
	json_kv_u64(j, "urls", b->urls);
	json_kv_u64(j, "keys", r->keys);
	json_kv_u64(j, "exceptions", b->nexceptions);
	for (i = 0; i < 2; i++) {
		json_key(j, i ? "ipv6" : "ipv4");
		json_object_start(j);
		json_kv_u64(j, "prefixes", b->plan[i].entries);
		json_kv_double(j, "expanded", "%.0f", b->plan[i].expanded);
		json_kv_u64(j, "probes", b->plan[i].ntargets);
		json_kv_string(j, "store", b->cost[i].use_ranges ? "intervals" : "bloom");
		json_kv_double(j, "bloom_bytes", "%.0f", b->cost[i].bloom_bytes);
		json_kv_u64(j, "intervals", b->cost[i].intervals);
		json_kv_u64(j, "interval_bytes", b->cost[i].range_bytes);
		json_kv_u64(j, "search_steps", b->cost[i].steps);
		json_object_end(j);
	}
	if (r->verify) {
		json_kv_u64(j, "exact_bytes", r->exact_bytes);
		json_kv_u64(j, "exact_table_bytes", r->table_bytes);
		/* attach --verify auto: the least --max-memory that keeps the copy. */
		json_kv_u64(j, "verify_auto_max_memory",
			    r->exact_bytes * BLOOMXDP_VERIFY_AUTO_SHARE);
	}
	if (r->load_planned) {
		json_kv_u64(j, "load_sized_for", r->load.capacity);
		json_kv_u64(j, "load_bytes", bloom_plan_map_bytes(&r->load));
		json_kv_double(j, "probe_fpr", "%.6g", r->probe_fpr);
		json_kv_double(j, "estimated_fpr", "%.6g", r->load_fpr);
		packet_fpr_json(j, &r->probes, r->load_fpr);
	}
	json_object_end(j);
}

static int check_plan(const struct cli_call *call)
{
	const struct plan_opts *o = call->opts;
	const char *why;

	if (o->verify && !o->lists.count) {
		log_error("--verify measures the exact copy of a list: give it with --list");
		return -EINVAL;
	}
	why = csv_options_check(o->format, o->column, o->where.count);
	if (why) {
		log_error("%s", why);
		return -EINVAL;
	}
	return 0;
}

static int run_plan(const struct cli_call *call)
{
	const struct plan_opts *o = call->opts;
	static struct list_report report;
	__u64 capacity = o->capacity;
	struct bloom_plan plan;

	report.verify = o->verify;
	if (o->lists.count) {
		if (plan_lists_read(&report, o))
			return -EINVAL;
		if (!o->capacity_given)
			capacity = report.keys ? report.keys : 1;
	}
	if (plan_or_explain(capacity, o->fpr, o->layout, &plan))
		return -EINVAL;
	if (o->lists.count) {
		plan_lists_load(&report, o, plan.hashes);
	}
	if (call->json) {
		struct json j;

		/* One object: the list's part first, then the plan's keys. */
		json_start(&j, stdout);
		json_object_start(&j);
		if (o->lists.count)
			report_json(&j, &report);
		plan_print_json(&j, &plan);
		json_object_end(&j);
		json_end(&j);
	} else {
		if (o->lists.count)
			report_text(&report);
		plan_print_layouts(capacity, o->fpr, NULL);
		plan_print_text(&plan);
	}
	return 0;
}

#define P(field) offsetof(struct plan_opts, field)
static const struct option_spec plan_options[] = {
	OPTION("capacity", 'c', OPT_COUNT, P(capacity), "N",
	       "entries the list will hold (with --list: the\nlist's keys)",
	       .min = 1, .max = COUNT_MAX, .given = OPTION_GIVEN(struct plan_opts, capacity_given)),
	OPTION("fpr", 'p', OPT_RATE, P(fpr), "P", "target false-positive rate, 0 < P < 1 (1% too)"),
	OPTION("list", 'l', OPT_FILES, P(lists), "FILE",
	       "a list file ('-': standard input); may be repeated"),
	OPTION("format", 'F', OPT_ENUM, P(format), "FORMAT", "as for load",
	       .values = list_format_values),
	OPTION("prefix-probes", 'P', OPT_COUNT, P(prefix_probes), "N", "as for load",
	       .min = 1, .max = BLOOMXDP_MAX_PREFIX_LENGTHS),
	OPTION("store", 0, OPT_ENUM, P(store), "S", "as for load", .values = range_store_values),
	OPTION("verify", 'V', OPT_FLAG, P(verify), NULL,
	       "also the memory of the exact copy of attach\n"
	       "--verify, as the kernel accounts it (builds the\nmaps: needs root)"),
	OPTION("layout", 'L', OPT_ENUM, P(layout), "L",
	       "every layout is shown side by side, the details\nare for this one",
	       .values_fn = layout_values),
	OPTION("match", 'm', OPT_ENUM_SET, P(match), "WHAT",
	       "as for attach: the fields a packet is probed\nfor (--fpr is per packet)",
	       .values = match_values),
	OPTION("lenient", 0, OPT_FLAG, P(lenient), NULL, "as for load"),
	OPTION("allow-wide", 0, OPT_FLAG, P(allow_wide), NULL, "as for load"),
	OPTION("column", 0, OPT_TEXT, P(column), "N[,M]", "as for load"),
	OPTION("where", 0, OPT_FILES, P(where), "COL=VALUE", "as for load"),
	{}
};
#undef P

static const struct plan_opts plan_defaults = {
	.capacity = DEFAULT_CAPACITY, .fpr = DEFAULT_FPR, .format = FORMAT_AUTO,
	.prefix_probes = LIST_DEFAULT_PREFIX_PROBES, .layout = DEFAULT_LAYOUT,
	.match = BLOOMXDP_MATCH_SRC,
};

const struct command command_plan = {
	.name = "plan",
	.summary = "size a filter: bits, hashes, memory, FPR as it fills",
	.description =
		"Sizes a Bloom filter for N entries at a target false-positive rate P:\n"
		"m = ceil(-N ln P / (ln 2)^2) bits (rounded up to 64), k = round(log2 1/P) hashes,\n"
		"memory, and the expected FPR as the list fills (and overfills). With --list,\n"
		"for that list: prefixes before and after expansion, probes per packet, the\n"
		"keys the filter will hold (the capacity, unless --capacity is given), and the\n"
		"filter a load of it makes.\n",
	.options = plan_options,
	.opts_size = sizeof(struct plan_opts),
	.defaults = &plan_defaults,
	.json = true,
	.check = check_plan,
	.run = run_plan,
};
