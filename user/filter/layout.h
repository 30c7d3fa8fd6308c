/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LAYOUT_H
#define BLOOMXDP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <bloomxdp/common.h>

struct bloom_plan;
struct filter;

/*
 * What user space knows of a filter layout (enum bloomxdp_layout): how it is
 * sized, where its bits live, how a key is set and tested. Its XDP side is
 * its probe in include/bloomxdp/bloom.h. A new layout is a file of its own
 * (user/filter/layout_NAME.c) with one of these, and a row in user/filter/layout.c.
 */
struct layout_ops {
	const char *name;
	const char *help;	/* a few words for --help */
	/*
	 * k for a target FPR. It depends on fpr alone: k is a constant of the XDP
	 * program (the verifier walks k probes), while m follows each list.
	 */
	__u32 (*hashes)(double fpr);
	/* The smallest filter for capacity at fpr with k hashes: bits, bytes, expected_fpr. */
	int (*plan)(__u64 capacity, double fpr, __u32 hashes, struct bloom_plan *plan);
	/* The expected FPR after entries distinct keys. */
	double (*fpr)(__u64 bits, __u32 hashes, __u64 entries);
	/*
	 * True when the bits are the words of the array map (after its header),
	 * which user space reads for the fill ratio. Else the array holds only
	 * the header words, and create() makes the map that holds the bits
	 * (installed in the kfilter outer map), sized from capacity and k alone.
	 */
	bool readable;
	int (*create)(struct filter *f);
	/* The m of a filter (for readable layouts, its header word BLOOMXDP_HDR_BITS). */
	__u64 (*bits)(const struct filter *f);
	/* Sets the k bits of a hash (true when one was new); tests them. */
	bool (*insert)(struct filter *f, __u64 hash);
	bool (*test)(const struct filter *f, __u64 hash);
	/* Optional: inserts many hashes at once (a layout whose insert is a syscall). */
	void (*insert_many)(struct filter *f, const __u64 *hashes, size_t n);
	/* Optional: drops what insert_many keeps for f (called by filter_close()). */
	void (*release)(struct filter *f);
};

extern const struct layout_ops layout_bits, layout_blocked, layout_kernel;

/* Every layout, by its enum value; NULL for a value that names none. */
const struct layout_ops *layout_get(__u32 layout);
#define LAYOUT_COUNT BLOOMXDP_LAYOUT_COUNT

/* The name of a layout to its enum value; prints the error, naming the choices. */
int layout_parse(const char *name, __u32 *layout);
const char *layout_name(__u32 layout);
/* The names as the values of an option (--layout). */
struct enum_value;
const struct enum_value *layout_values(void);
/* "bits, blocked or kernel": for help and errors. */
const char *layout_choices(void);

/* config.bits for a plan: its bits in the array, or none for a layout that is not readable. */
__u32 layout_config_bits(const struct bloom_plan *plan);

/* The array layouts' set and test, over the positions of bloom.h. */
bool layout_array_insert(struct filter *f, __u64 hash);
bool layout_array_test(const struct filter *f, __u64 hash);
__u64 layout_array_bits(const struct filter *f);

#endif
