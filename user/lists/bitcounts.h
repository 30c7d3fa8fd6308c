/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The counting filter behind del: per bit position of a generation's filter, a
 * 4-bit counter of the keys that set it, kept in the state directory (file
 * BITCOUNTS_FILE), built by the load that builds the filter and kept up to
 * date by add and del. A bit is cleared when its counter falls to zero; a
 * counter that reached BITCOUNT_SATURATED never falls again (its bit stays
 * set: a false positive more, never a false negative).
 */
#ifndef BLOOMXDP_BITCOUNTS_H
#define BLOOMXDP_BITCOUNTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "util/atomic_file.h"

#define BITCOUNTS_FILE "block.bitcounts"
#define BITCOUNTS_MAGIC "bloomxdp-counts"
#define BITCOUNTS_VERSION 1
/* 4 bits: 15 keys on one bit is far past the ~1 a filter at its target FPR holds. */
#define BITCOUNT_SATURATED 15

/* The file's first 64 bytes; the counters follow, two per byte (low nibble first). */
struct bitcounts_header {
	char magic[16];
	__u32 version;
	__u32 layout;
	__u64 bits;		/* m of the filter */
	__u32 hashes;
	__u32 pad;
	__u64 generation;	/* of the filter they count */
	__u64 saturated;	/* counters at BITCOUNT_SATURATED */
	__u64 v4_lengths;	/* the prefix lengths the load planned (its header words) */
	__u64 v6_lengths;
};

struct bitcounts {
	struct bitcounts_header *hdr;
	__u8 *c;		/* bits / 2 bytes */
	size_t bytes;		/* header included */
	bool mapped;		/* the file mmap-ed, else anonymous memory (both: munmap) */
};

/* Zeroed counters for a filter of bits. */
int bitcounts_alloc(struct bitcounts *b, __u32 layout, __u64 bits, __u32 hashes);
/* The file of the state directory dir_fd, mmap-ed read-write; -ENOENT, -ESTALE (not bits). */
int bitcounts_map(struct bitcounts *b, int dir_fd, __u32 layout, __u64 bits, __u32 hashes,
		  __u64 generation);
void bitcounts_free(struct bitcounts *b);
/*
 * A malloc-ed one into the state directory, replacing the file atomically
 * (rename), not fsync'd: counters serve the live filter only, which a reboot
 * takes away; restore then builds them again with the filter. In two steps,
 * so that the counters are written while the load swaps its filter in:
 * bitcounts_write_start() has a thread of its own write them, all but the
 * header (which bitcounts_stamp() fills after the swap), to a temporary file
 * of dir_fd; bitcounts_write_end() waits for it and then writes the header
 * and renames the file (commit) or removes it: 0, or the -errno of the first
 * step that failed. b stays untouched in between but for its header; end may
 * be called again, and after a start that failed.
 */
struct bitcounts_writer {
	const struct bitcounts *b;
	int dir_fd, fd, err;
	bool threaded;
	pthread_t thread;
	char tmp[ATOMIC_TMP_MAX];
};

void bitcounts_write_start(struct bitcounts_writer *w, const struct bitcounts *b, int dir_fd);
int bitcounts_write_end(struct bitcounts_writer *w, bool commit);
/* Durable: one mmap-ed from the file msync-ed (the others: bitcounts_write()). */
int bitcounts_sync(struct bitcounts *b);

static inline unsigned int bitcount_get(const struct bitcounts *b, __u64 bit)
{
	return (b->c[bit / 2] >> (bit % 2 * 4)) & 0xf;
}

static inline void bitcount_set(struct bitcounts *b, __u64 bit, unsigned int v)
{
	__u8 shift = bit % 2 * 4;

	b->c[bit / 2] = (b->c[bit / 2] & ~(0xf << shift)) | v << shift;
}

/* One more key on bit: saturates at BITCOUNT_SATURATED. */
static inline void bitcount_inc(struct bitcounts *b, __u64 bit)
{
	unsigned int v = bitcount_get(b, bit);

	if (v == BITCOUNT_SATURATED)
		return;
	bitcount_set(b, bit, v + 1);
	/* Atomic: two threads of filter_insert_hashes() may saturate counters at once. */
	if (v + 1 == BITCOUNT_SATURATED)
		__atomic_fetch_add(&b->hdr->saturated, 1, __ATOMIC_RELAXED);
}

/* One key less: true when the bit may be cleared now (0); a saturated counter stays. */
static inline bool bitcount_dec(struct bitcounts *b, __u64 bit)
{
	unsigned int v = bitcount_get(b, bit);

	if (v == BITCOUNT_SATURATED || v == 0)
		return false;
	bitcount_set(b, bit, v - 1);
	return v == 1;
}

/* For status: the live generation's counters, their size and how many saturated; -ENOENT. */
int bitcounts_status(const char *ifname, const char *state_dir, __u32 layout, __u64 bits,
		     __u32 hashes, __u64 generation, __u64 *bytes, __u64 *saturated);

/* The header fields of a filter whose generation is unknown yet. */
void bitcounts_stamp(struct bitcounts *b, __u64 generation, __u64 v4_lengths, __u64 v6_lengths);

#endif
