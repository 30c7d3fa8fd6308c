// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Layout "bits": the classic bit array, k bits anywhere in m. */
#include "filter/layout.h"
#include "filter/bloom_plan.h"

const struct layout_ops layout_bits = {
	.name = "bits",
	.help = "the classic bit array: k bits anywhere in m",
	.hashes = bloom_hashes_for,
	.plan = bloom_plan_compute_k,
	.fpr = bloom_fpr_for_entries,
	.readable = true,
	.bits = layout_array_bits,
	.insert = layout_array_insert,
	.test = layout_array_test,
};
