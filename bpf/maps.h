/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The maps of the XDP program, in one place. The CLI reaches them by name
 * (the skeleton's skel->maps.X) and pins them under the BLOOMXDP_PIN_*
 * names of include/bloomxdp/common.h: a name or type here is part of that
 * contract. The per-CPU scratch space of the name matchers is in scratch.h,
 * beside its struct.
 */
#ifndef BLOOMXDP_MAPS_H
#define BLOOMXDP_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloomxdp/common.h>
#include <bloomxdp/name.h>

/*
 * The configuration the CLI sets before load (pinned as BLOOMXDP_PIN_CONFIG).
 * Its own section, so that the pinned map holds exactly this struct.
 */
const volatile struct bloomxdp_config config SEC(".rodata.config");

/*
 * Template of the inner map. Each generation is sized for its list:
 * BPF_F_INNER_MAP lets inner arrays of any size share the outer map (their
 * lookups are then helper calls, not inlined: ~0.5 ns each here).
 */
struct filter_bits {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__uint(max_entries, 1);
	/* A size, not a type: BTF of a type seen only through __array() is a bare forward. */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bloomxdp_line));	/* the header is line 0 */
};

/* Layouts "bits" and "blocked": the bit array and its header, one per generation. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, BLOOMXDP_GENERATIONS);
	__type(key, __u32);
	__array(values, struct filter_bits);
} filter SEC(".maps");

/* Template of layout "kernel"'s inner map: the kernel accepts any max_entries in its place. */
struct kernel_bloom {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, sizeof(__u64));
	__uint(map_extra, 1);		/* k: the CLI's template sets the real one */
};

/* Layout "kernel": the kernel's Bloom filter, one per generation (header words stay in filter). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, BLOOMXDP_GENERATIONS);
	__type(key, __u32);
	__array(values, struct kernel_bloom);
} kfilter SEC(".maps");

/*
 * Templates of the exact sets (--verify) and of the allowlist. Sizes, not
 * types: BTF of a type seen only through __array() is a bare forward.
 */
#define EXACT_INNER(name, key)						\
	struct name {							\
		__uint(type, BPF_MAP_TYPE_LPM_TRIE);			\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__uint(max_entries, 1);					\
		__uint(key_size, sizeof(key));				\
		__uint(value_size, sizeof(__u8));			\
	}

EXACT_INNER(exact_v4, struct bloomxdp_lpm_v4);
EXACT_INNER(exact_v6, struct bloomxdp_lpm_v6);
/* Name and URL keys: their 64-bit suffix or URL hash, as /64 entries. */
EXACT_INNER(exact_names, struct bloomxdp_lpm_name);

#define EXACT_OUTER(name, inner)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);		\
		__uint(max_entries, BLOOMXDP_GENERATIONS);		\
		__type(key, __u32);					\
		__array(values, struct inner);				\
	} name SEC(".maps")

/*
 * The exact stage (--verify), read after a Bloom hit, one step each: hosts
 * and name keys in hash maps (grown by the CLI: BPF_F_NO_PREALLOC), the
 * prefixes as exact intervals (verify_ranges_*, the RANGES_INNER arrays
 * below). verify_prefix_* hold the prefixes themselves, for the CLI only (add,
 * del, query and the intervals are made from them): the program never reads
 * them. A slot without verify_names has no exact copy: its hits drop unconfirmed.
 */
#define HASH_INNER(name, key)						\
	struct name {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__uint(max_entries, 1);					\
		__uint(key_size, sizeof(key));				\
		__uint(value_size, sizeof(__u8));			\
	}

HASH_INNER(hosts_v4, __u32);
HASH_INNER(hosts_v6, __u32[4]);
HASH_INNER(name_keys, __u64);

EXACT_OUTER(verify_v4, hosts_v4);
EXACT_OUTER(verify_v6, hosts_v6);
EXACT_OUTER(verify_names, name_keys);
EXACT_OUTER(verify_prefix_v4, exact_v4);
EXACT_OUTER(verify_prefix_v6, exact_v6);
/* The allowlist (exact): a hit it holds is passed. */
EXACT_OUTER(allow_v4, exact_v4);
EXACT_OUTER(allow_v6, exact_v6);
EXACT_OUTER(allow_names, exact_names);

/*
 * Templates of the exact intervals (BLOOMXDP_RANGES_WORD): an ARRAY of
 * B+tree lines, sized for its list, so BPF_F_INNER_MAP as the filter.
 */
#define RANGES_INNER(name, value)					\
	struct name {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);	\
		__uint(max_entries, 1);					\
		__uint(key_size, sizeof(__u32));			\
		__uint(value_size, sizeof(value));			\
	}

RANGES_INNER(ranges_v4_inner, union bloomxdp_range_line_v4);
RANGES_INNER(ranges_v6_inner, union bloomxdp_range_line_v6);

/* The blocklist's families held as intervals, one array per generation (with filter's slot). */
EXACT_OUTER(ranges_v4, ranges_v4_inner);
EXACT_OUTER(ranges_v6, ranges_v6_inner);
/* The exact stage's prefixes (--verify), as intervals: none when it has none. */
EXACT_OUTER(verify_ranges_v4, ranges_v4_inner);
EXACT_OUTER(verify_ranges_v6, ranges_v6_inner);

/* The exact stage's hosts as tables (common.h) where a load made them: read before verify_v4/v6. */
RANGES_INNER(table_v4_inner, union bloomxdp_table_line_v4);
RANGES_INNER(table_v6_inner, union bloomxdp_table_line_v6);
EXACT_OUTER(verify_table_v4, table_v4_inner);
EXACT_OUTER(verify_table_v6, table_v6_inner);

/* The exact copies of the named lists, at BLOOMXDP_LIST_INDEX(id, slot). */
#define LIST_OUTER(name, inner)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);		\
		__uint(max_entries, BLOOMXDP_LIST_IDS * BLOOMXDP_GENERATIONS); \
		__type(key, __u32);					\
		__array(values, struct inner);				\
	} name SEC(".maps")

/* The named lists' hosts, names and URLs: 64-bit key -> mask of the lists holding it. */
struct list_keys_inner {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(__u32));
};

/* One per generation of the union filter (with filter's slot). */
EXACT_OUTER(list_keys, list_keys_inner);
LIST_OUTER(list_v4, exact_v4);
LIST_OUTER(list_v6, exact_v6);

/*
 * Addresses learned from the answers for a learning list's names (load
 * --learn): LRU, so that a flood of answers evicts the oldest, never fails.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BLOOMXDP_LEARN_MAX);
	__type(key, struct bloomxdp_learn_key);
	__type(value, struct bloomxdp_learned);
} learned SEC(".maps");

/* What each list does on a hit (struct bloomxdp_list), by id. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOOMXDP_LIST_IDS);
	__type(key, __u32);
	__type(value, struct bloomxdp_list);
} lists SEC(".maps");

/* Hits attributed to each list, per CPU, by id. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLOOMXDP_LIST_IDS);
	__type(key, __u32);
	__type(value, __u64);
} list_hits SEC(".maps");

/*
 * The public suffixes and the keys each generation holds at their depth:
 * name key -> BLOOMXDP_SUFFIX_* flags (include/bloomxdp/name.h). Read only
 * after a Bloom hit at a suffix of at most BLOOMXDP_SUFFIX_MAX_LABELS labels.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, BLOOMXDP_SUFFIX_MAX_KEYS);
	__type(key, __u64);
	__type(value, __u32);
} suffixes SEC(".maps");

/* The live generation of the blocklist maps and of the allowlist maps. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOOMXDP_ACTIVE_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} active SEC(".maps");

/* Drop events (struct bloomxdp_event), for 'bloomxdp watch'. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/*
 * Per CPU: when the second being counted ends (coarse clock), the events sent
 * in it, and once they are spent, jiffies at the last clock read (low bits).
 * All zero is a fresh budget. 16 bytes: tests/bpf/verify_harness.h resets it.
 */
struct event_budget {
	__u64 until;
	__u32 sent;
	__u32 tick;
};

/* The events budget of each CPU (config.events_per_sec). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct event_budget);
} event_budgets SEC(".maps");

/* The budget of reject's ICMP answers on each CPU (config.icmp_per_sec, bpf/reject.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct event_budget);
} icmp_budgets SEC(".maps");

/* What every packet did, per CPU: BLOOMXDP_COUNTERS. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bloomxdp_counters);
} counters SEC(".maps");

/* The CLI's bookkeeping per generation; the program never reads it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOOMXDP_GENERATIONS);
	__type(key, __u32);
	__type(value, struct bloomxdp_state);
} state SEC(".maps");

#endif /* BLOOMXDP_MAPS_H */
