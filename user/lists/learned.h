/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Learned addresses (load --learn): the A/AAAA addresses of the DNS answers
 * for a learning list's names, which the XDP program writes into the LRU map
 * BLOOMXDP_PIN_LEARNED (struct bloomxdp_learn_key -> struct bloomxdp_learned,
 * common.h) with CLOCK_MONOTONIC times. Here: what query, del, status, the
 * metrics and the daemon's sweep read of it. Every entry is the kernel's
 * copy of a hostile answer: its name is bounded and escaped, its list id
 * checked.
 */
#ifndef BLOOMXDP_LEARNED_H
#define BLOOMXDP_LEARNED_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <bloomxdp/common.h>
#include <bloomxdp/hash.h>

/* A name of wire form as text: each byte at most "\DDD", a dot per label, "..." if cut. */
#define LEARNED_NAME_TEXT_MAX	(BLOOMXDP_LEARN_NAME_MAX * 4 + 8)
/* "2026-12-02T18:33:27Z" */
#define LEARNED_TIME_TEXT_MAX	32
/* Expired entries deleted per sweep at most: a tick's work stays bounded. */
#define LEARNED_SWEEP_BUDGET	4096

/*
 * The key of an address (a host: /32 or /128): family 4 or 6, IPv4 in the
 * first 4 bytes, the rest 0. -EINVAL for a prefix.
 */
int learned_key_of(const struct bloomxdp_key *addr, struct bloomxdp_learn_key *k);

/*
 * A DNS name of wire form (length-prefixed labels, as the question holds it,
 * cut at len bytes) as "x.example" into buf: printable bytes but '.' and '\'
 * as they are, others as \DDD (RFC 4343); "." for the root; "..." appended if
 * the name was cut before its end. Returns -EINVAL (buf "?") for a label past
 * 63 bytes or a compression pointer; -ENOSPC if buf is short (cut there).
 */
int learned_name_text(const __u8 *wire, __u32 len, char *buf, size_t blen);

/* CLOCK_MONOTONIC and CLOCK_REALTIME read together: converts the program's times to dates. */
struct clock_pair {
	__u64 mono_ns;
	struct timespec real;
};
void clock_pair_now(struct clock_pair *now);
/*
 * The wall-clock time of a CLOCK_MONOTONIC instant (the program's
 * bpf_ktime_get_ns()), ISO 8601 UTC to the second, into buf.
 */
const char *learned_time_text(__u64 mono_ns, const struct clock_pair *now, char *buf,
			      size_t len);

/* An entry as query and del say it. */
struct learned_view {
	struct bloomxdp_learned v;
	char name[LEARNED_NAME_TEXT_MAX];
	char learned_at[LEARNED_TIME_TEXT_MAX];
	char expires_at[LEARNED_TIME_TEXT_MAX];
};
/* The unexpired entry of key in the map fd into out: 0, -ENOENT (none, or expired), -errno. */
int learned_find(int fd, const struct bloomxdp_learn_key *key, struct learned_view *out);

/* Unexpired entries at now (mono ns): in all, and per list id (ids out of range not counted). */
int learned_count(int fd, __u64 now_ns, __u64 *total, __u64 per_list[BLOOMXDP_LIST_IDS]);

/*
 * The daemon's sweep: deletes entries expired at now_ns, at most budget of
 * them; *deleted: how many. The LRU map evicts the oldest too; this frees
 * the room of the expired ones before it is needed.
 */
int learned_sweep(int fd, __u64 now_ns, __u32 budget, __u32 *deleted);

#endif
