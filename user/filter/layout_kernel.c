// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Layout "kernel": BPF_MAP_TYPE_BLOOM_FILTER, fed the keyed 64-bit hash of
 * each key (the kernel hashes that again with jhash). The kernel chooses m:
 * a power of two; k is at most 15. Its bits cannot be read back.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/filter.h"
#include "filter/layout.h"
#include "filter/bloom_plan.h"
#include "kbloom_fill.skel.h"

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

/* The fill program (bpf/kbloom_fill.bpf.c), loaded for the map of one filter at a time. */
static struct kbloom_fill *fill;
static __u32 fill_map_id;

/* The fill program bound to f's map, or NULL (then one syscall a key). */
static struct kbloom_fill *fill_for(const struct filter *f)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(f->kbloom_fd, &info, &len))
		return NULL;
	/* By map id, not fd: a closed filter's fd number may come back for another map. */
	if (fill && fill_map_id == info.id)
		return fill;
	kbloom_fill__destroy(fill);
	fill_map_id = 0;
	fill = kbloom_fill__open();
	if (!fill)
		return NULL;
	if (bpf_map__reuse_fd(fill->maps.kbloom, f->kbloom_fd) || kbloom_fill__load(fill)) {
		kbloom_fill__destroy(fill);
		fill = NULL;
		return NULL;
	}
	fill_map_id = info.id;
	return fill;
}

/* The fill program holds its map: let it go with the filter (a daemon loads many). */
static void release_kernel(struct filter *f)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (fill && (bpf_obj_get_info_by_fd(f->kbloom_fd, &info, &len) || info.id == fill_map_id)) {
		kbloom_fill__destroy(fill);
		fill = NULL;
		fill_map_id = 0;
	}
}

/*
 * A whole list into a new filter. The kernel has no batch update for this
 * map type (BPF_MAP_UPDATE_BATCH fails with ENOTSUPP, 524, on 6.18:
 * bloom_filter_map_ops has no map_update_batch), so a program pushes up to
 * BLOOMXDP_KBLOOM_FILL_BATCH keys per BPF_PROG_TEST_RUN; without it, one
 * push a key (and never the lookup that insert_kernel() makes to say whether
 * a key was new).
 */
static void insert_many_kernel(struct filter *f, const __u64 *hashes, size_t n)
{
	struct kbloom_fill *p = fill_for(f);
	__u8 frame[ETH_HLEN] = {};
	size_t i, done = 0, chunk;

	while (p && done < n) {
		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame, .data_size_in = sizeof(frame),
			    .repeat = 1);

		chunk = n - done < BLOOMXDP_KBLOOM_FILL_BATCH ? n - done :
								BLOOMXDP_KBLOOM_FILL_BATCH;
		memcpy(p->bss->keys, hashes + done, chunk * sizeof(*hashes));
		p->bss->count = chunk;
		if (bpf_prog_test_run_opts(bpf_program__fd(p->progs.kbloom_fill), &run))
			break;
		done += chunk;
	}
	for (i = done; i < n; i++)
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
	.release = release_kernel,
};
