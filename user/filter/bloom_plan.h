/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_SIZING_H
#define BLOOMXDP_SIZING_H

#include <linux/types.h>
#include <bloomxdp/common.h>

struct bloom_plan {
	__u64 capacity;		/* n */
	double fpr;		/* target p */
	__u64 bits;		/* m, rounded up to whole 64-bit words */
	__u32 hashes;		/* k */
	__u64 bytes;		/* memory of the bit array */
	__u32 layout;		/* enum bloomxdp_layout */
	double expected_fpr;	/* at capacity, by the layout's own formula */
};

/*
 * m = ceil(-n ln p / (ln 2)^2) rounded up to a word, k = bloom_hashes_for(p).
 * Returns 0, -EINVAL for capacity 0 or p outside (0, 1), -E2BIG when m would
 * not fit the 32-bit probe arithmetic (BLOOMXDP_MAX_BITS).
 */
int bloom_plan_compute(__u64 capacity, double fpr, struct bloom_plan *plan);

/*
 * k of layout "bits" for a target FPR: max(1, round(log2(1/p))), what
 * round(m/n ln 2) tends to for any n large enough that m's rounding to a
 * word does not count. k depends on p alone, so that it is a constant of the
 * XDP program while each generation's m follows its list.
 */
__u32 bloom_hashes_for(double fpr);

/* The same as bloom_plan_compute() with k given (the m of "bits" depends on n and p only). */
int bloom_plan_compute_k(__u64 capacity, double fpr, __u32 hashes, struct bloom_plan *plan);

/*
 * The same for a layout, with its own k for p (layout_ops.hashes): "bits" as
 * above; "blocked" is sized by its exact FPR (below): the smallest m, in whole
 * 512-bit blocks, that meets p with that k.
 */
int bloom_plan_compute_layout(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan);
/* bloom_plan_compute_layout() with a refusal explained on stderr (plan, attach). */
int plan_or_explain(__u64 capacity, double fpr, __u32 layout, struct bloom_plan *plan);

/* The same with k given: a new generation keeps the attachment's k, whatever its size. */
int bloom_plan_compute_layout_k(__u64 capacity, double fpr, __u32 layout, __u32 hashes,
				struct bloom_plan *plan);

/* Bytes of a filter map of the plan, header words included (layout "kernel": both maps). */
__u64 bloom_plan_map_bytes(const struct bloom_plan *plan);

/*
 * A new generation of the blocklist (load): what it must hold and what it may
 * take. See generation_plan().
 */
struct generation_need {
	__u32 layout;
	__u32 hashes;		/* k of the attachment, whatever the size */
	double fpr;		/* the target */
	__u64 keys;		/* Bloom keys of the list */
	__u64 floor;		/* sized for at least this many keys (GENERATION_MIN_KEYS) */
	__u64 max_memory;	/* bytes a generation may take */
	__u64 other_bytes;	/* what it takes besides the filter: the exact copy (--verify) */
};

/* Room for adds that a load leaves: a quarter of its keys. */
#define GENERATION_ROOM_DIVISOR 4
/* The fewest keys a generation is sized for: room for a few adds to a list held exact. */
#define GENERATION_MIN_KEYS 1024

/*
 * Sizes a new generation: for its keys plus GENERATION_ROOM_DIVISOR of room
 * for adds, and at least floor keys, at the target FPR with the attachment's
 * k, within max_memory (filter and other_bytes together); the room shrinks
 * first. Returns 0 with the plan (plan->capacity: the keys it is sized for,
 * at least need->keys), or -E2BIG when the keys alone do not fit: *need_bytes
 * is then what they would take, or 0 when no filter can hold them (past
 * BLOOMXDP_MAX_BITS). -EINVAL for a target outside (0, 1).
 */
int generation_plan(const struct generation_need *need, struct bloom_plan *plan,
		    __u64 *need_bytes);

/*
 * add: whether a generation sized for capacity keys, holding about keys_now
 * distinct keys, takes added more and stays at its target FPR.
 */
int generation_has_room(double keys_now, __u64 added, __u64 capacity);

/*
 * The default of --max-memory, per generation: 256 MiB, or an eighth of the
 * memory of a machine with less than 2 GiB.
 */
__u64 default_max_memory(void);
#define MAX_MEMORY_CEILING (256ULL << 20)
/* The least --max-memory taken: a header and a few blocks. */
#define MAX_MEMORY_MIN 4096

/*
 * The bits the kernel gives a BPF_MAP_TYPE_BLOOM_FILTER of max_entries and k
 * hashes: n k / ln 2 (as n k * 7 / 5), rounded up to a power of two.
 */
__u64 bloom_kernel_bits(__u64 capacity, __u32 hashes);

/* (1 - e^(-k n / m))^k: expected FPR after n distinct inserts. */
double bloom_fpr_for_entries(__u64 bits, __u32 hashes, __u64 entries);

/*
 * Expected FPR of a blocked filter (Putze, Sanders, Singler 2007): the keys
 * per block are Poisson(n B / m) with B = 512; a block holding i keys answers
 * yes with probability (1 - (1 - 1/B)^(k i))^k.
 */
double bloom_blocked_fpr(__u64 bits, __u32 hashes, __u64 entries);

/* The expected FPR of a layout. */
double bloom_layout_fpr(__u32 layout, __u64 bits, __u32 hashes, __u64 entries);

/* fill^k: the FPR of a given filter, from its share of set bits. */
double bloom_fpr_for_fill(double fill_ratio, __u32 hashes);

/*
 * The same by the layout's own formula, for the distinct keys the fill says
 * it holds (fill^k for "bits"): the estimate that agrees with the one from
 * the key count.
 */
double bloom_layout_fpr_for_fill(__u32 layout, __u64 bits, __u32 hashes, double fill_ratio);

/* -(m/k) ln(1 - fill): distinct entries estimated from the fill ratio (Swamidass & Baldi). */
double bloom_entries_for_fill(__u64 bits, __u32 hashes, double fill_ratio);

/* Defaults of the sizing options, shared by plan, attach and publish. */
#define DEFAULT_CAPACITY 1000000ULL
#define DEFAULT_FPR 0.01
/* The layout `make bench` found fastest at 1M and 10M entries (bench/results.md). */
#define DEFAULT_LAYOUT BLOOMXDP_LAYOUT_BLOCKED

#endif
