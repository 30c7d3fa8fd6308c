// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* plan --list: what a list makes of a plan, as a load would build it (lists/plan.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "filter/bloom_plan.h"
#include "filter/exact.h"
#include "filter/packet_fpr.h"
#include "kernel/attachment.h"
#include "lists/build.h"
#include "lists/plan.h"
#include "util/log.h"

/* Reads the lists, plans prefixes; with --verify builds the exact copy to measure it. */
int plan_lists_read(struct list_report *r, const struct plan_opts *o)
{
	char err[LIST_ERROR_LEN], places[LIST_ERROR_LEN];
	struct exact_set exact;
	struct csv_spec csv;
	const char *why;
	int i, ret = 0;

	if (csv_spec_parse(o->column, o->where.items, o->where.count, &csv, &why)) {
		log_error("%s", why);
		return -EINVAL;
	}
	exact_set_init(&exact);
	list_build_init(&r->build, NULL, o->prefix_probes);
	r->build.opts.csv = &csv;
	r->build.opts.lenient = o->lenient;
	r->build.opts.refuse_wide = !o->allow_wide;
	r->build.skip_suffixes = o->lenient;	/* as load --lenient skips them */
	/* The addresses are kept: the cost model merges them into intervals, as load does. */
	r->build.bloom = true;
	r->build.ranges_ok = true;
	r->build.store = o->store;
	r->build.bits_per_key = -log(o->fpr) / (M_LN2 * M_LN2);
	if (r->verify) {
		/* It says why, on its own line. */
		ret = check_privileges();
		if (ret)
			return ret;
		ret = exact_set_create_hashed(&exact, 1U << 30);
		if (ret) {
			log_error("--verify builds the exact maps to measure them: %s",
				  strerror(-ret));
			return ret;
		}
		/* Kept aside as read, then put in at once (exact_set_flush() below). */
		exact_set_defer(&exact);
		r->build.exact = &exact;
	}
	for (i = 0; i < o->lists.count && !ret; i++)
		ret = list_build_read(&r->build, o->lists.items[i], o->format, err);
	list_notes_print(&r->build.notes);
	if (!ret && r->build.suffixes.count)
		log_warn("%llu public suffix%s in the list: 'load' refuses it unless "
			 "--allow-public-suffix (--lenient skips them): %s",
			 (unsigned long long)r->build.suffixes.count,
			 r->build.suffixes.count == 1 ? "" : "es",
			 list_suffixes_text(&r->build.suffixes, places, sizeof(places)));
	if (!ret)
		ret = list_build_finish(&r->build, err);
	if (ret) {
		log_error("%s", err);
		goto out;
	}
	r->keys = r->build.keys;
	if (r->verify) {
		ret = exact_set_flush(&exact);
		if (ret)
			log_error("--verify builds the exact maps to measure them: %s",
				  strerror(-ret));
		exact_set_tables(&exact);
		r->table_bytes = exact_set_table_bytes(&exact);
		r->exact_bytes = exact_set_bytes(&exact);
	}
out:
	exact_set_close(&exact);
	list_build_free(&r->build);
	return ret;
}

void plan_lists_load(struct list_report *r, const struct plan_opts *o, __u32 hashes)
{
	/* As load sizes it: for the list, at least --capacity when given. */
	struct generation_need need = {
		.layout = o->layout, .hashes = hashes, .fpr = o->fpr,
		.keys = r->keys, .floor = o->capacity_given ? o->capacity : 1,
		.max_memory = ~0ULL,
	};
	__u64 need_bytes;

	/* --fpr per packet: each probe at the rate that keeps the worst packet within it. */
	list_build_probes(&r->build, o->match, &r->probes);
	r->target = o->fpr;
	r->probe_fpr = packet_probe_fpr(&r->probes, o->fpr);
	need.fpr = r->probe_fpr;
	r->load_planned = !generation_plan(&need, &r->load, &need_bytes);
	if (r->load_planned)
		r->load_fpr = bloom_layout_fpr(o->layout, r->load.bits, r->load.hashes, r->keys);
}
