// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Layout "kernel": BPF_MAP_TYPE_BLOOM_FILTER, fed the keyed 64-bit hash of
 * each key (the kernel hashes that again with jhash). The kernel chooses m:
 * a power of two; k is at most 15. Its bits cannot be read back.
 */
#include <errno.h>
#include <stdint.h>
#include <bpf/bpf.h>

#include "filter.h"
#include "layout.h"
#include "sizing.h"

/* The kernel allows k <= 15: round(log2(1/p)) up to that, whatever the size. */
static __u32 hashes_kernel(double fpr)
{
	__u32 k = bloom_hashes_for(fpr);

	return k > BLOOMXDP_KERNEL_MAX_HASHES ? BLOOMXDP_KERNEL_MAX_HASHES : k;
}

static int plan_kernel(__u64 capacity, double fpr, __u32 hashes, struct bloom_plan *plan)
{
	int ret;

	/* The classic plan checks the arguments; the kernel's map is larger still. */
	ret = bloom_plan_compute_k(capacity, fpr, hashes, plan);
	if (ret)
		return ret;
	if (hashes > BLOOMXDP_KERNEL_MAX_HASHES || capacity > UINT32_MAX)
		return -E2BIG;
	plan->bits = bloom_kernel_bits(capacity, plan->hashes);
	if (plan->bits > (1ULL << 32))
		return -E2BIG;
	plan->bytes = plan->bits / 8;
	plan->expected_fpr = bloom_fpr_for_entries(plan->bits, plan->hashes, capacity);
	return 0;
}

/* The kernel sizes it from max_entries and k (map_extra). */
static int create_kernel(struct filter *f)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_extra = f->hashes);
	__u64 entries = f->capacity ? f->capacity : 1;

	f->kbloom_fd = bpf_map_create(BPF_MAP_TYPE_BLOOM_FILTER, "bloomxdp_kbloom", 0,
				      sizeof(__u64), entries > UINT32_MAX ? UINT32_MAX : entries,
				      &opts);
	return f->kbloom_fd < 0 ? -errno : 0;
}

/* Its max_entries is the keys it was sized for. */
static __u64 bits_kernel(const struct filter *f)
{
	return bloom_kernel_bits(f->capacity, f->hashes);
}

static bool test_kernel(const struct filter *f, __u64 hash)
{
	return bpf_map_lookup_elem(f->kbloom_fd, NULL, &hash) == 0;
}

static bool insert_kernel(struct filter *f, __u64 hash)
{
	bool changed = !test_kernel(f, hash);

	/*
	 * A BLOOM_FILTER push fails only for a bad fd, flags or value size, all
	 * fixed here (the kernel's bloom_map_push_elem()): nothing to check.
	 */
	(void)bpf_map_update_elem(f->kbloom_fd, NULL, &hash, BPF_ANY);
	return changed;
}

/*
 * A whole list into a new filter: one push a key, without the lookup that
 * insert_kernel() makes to say whether it was new. The kernel has no batch
 * update for this map type (BPF_MAP_UPDATE_BATCH fails with ENOTSUPP, 524,
 * on 6.18: bloom_filter_map_ops has no map_update_batch).
 */
static void insert_many_kernel(struct filter *f, const __u64 *hashes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		(void)bpf_map_update_elem(f->kbloom_fd, NULL, &hashes[i], BPF_ANY);
}

const struct layout_ops layout_kernel = {
	.name = "kernel",
	.help = "BPF_MAP_TYPE_BLOOM_FILTER",
	.hashes = hashes_kernel,
	.plan = plan_kernel,
	.fpr = bloom_fpr_for_entries,
	.readable = false,
	.create = create_kernel,
	.bits = bits_kernel,
	.insert = insert_kernel,
	.test = test_kernel,
	.insert_many = insert_many_kernel,
};
