// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The counting filter of del (bitcounts.h): removing keys from a filter whose
 * keys share most of their bits leaves every other key matching (no false
 * negative); a key removed stops matching unless its bits are all held by
 * others; a saturated counter never falls, and its bit stays; the counters
 * file is mapped back only for the generation and geometry it counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bloomxdp/common.h>
#include "lists/bitcounts.h"
#include "filter/filter.h"

static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static void filter_with_counts(__u32 layout, __u32 bits, __u32 hashes, struct filter *f,
			       struct bitcounts *c)
{
	struct bloomxdp_config cfg = { .bits = bits, .hashes = hashes, .layout = layout,
				       .hash_key = { 1, 2 } };

	assert_int_equal(filter_init_memory(&cfg, f), 0);
	assert_int_equal(bitcounts_alloc(c, layout, bits, hashes), 0);
	f->counts = c;
}

/* Dense: 4000 keys in 16384 bits with k 4 (~60% of the bits set), half removed. */
static void remove_half(__u32 layout)
{
	struct filter f;
	struct bitcounts c;
	__u64 keys[4000], s = 42, cleared = 0;
	size_t i, n = sizeof(keys) / sizeof(keys[0]), gone_matching = 0;

	filter_with_counts(layout, 16384, 4, &f, &c);
	for (i = 0; i < n; i++) {
		keys[i] = rng_next(&s);
		filter_insert_hash(&f, keys[i]);
	}
	for (i = 0; i < n; i += 2) {
		assert_int_equal(filter_count_remove(&f, keys[i], true, NULL), 0);
		assert_int_equal(filter_count_remove(&f, keys[i], false, &cleared), 0);
	}
	for (i = 1; i < n; i += 2)
		assert_true(filter_test_hash(&f, keys[i]));	/* never a false negative */
	for (i = 0; i < n; i += 2)
		gone_matching += filter_test_hash(&f, keys[i]);
	assert_true(cleared > 0);
	/* Removed keys match only as false positives of what is left. */
	assert_true(gone_matching < n / 2 / 2);
	bitcounts_free(&c);
	filter_close(&f);
}

static void test_remove_half_bits(void **state)
{
	(void)state;
	remove_half(BLOOMXDP_LAYOUT_BITS);
}

static void test_remove_half_blocked(void **state)
{
	(void)state;
	remove_half(BLOOMXDP_LAYOUT_BLOCKED);
}

/* All removed: every bit back to zero, every counter too. */
static void test_remove_all_empties(void **state)
{
	struct filter f;
	struct bitcounts c;
	__u64 keys[500], s = 7, cleared = 0;
	size_t i;

	(void)state;
	filter_with_counts(BLOOMXDP_LAYOUT_BLOCKED, 4096, 6, &f, &c);
	for (i = 0; i < 500; i++) {
		keys[i] = rng_next(&s);
		filter_insert_hash(&f, keys[i]);
	}
	for (i = 0; i < 500; i++)
		assert_int_equal(filter_count_remove(&f, keys[i], false, &cleared), 0);
	assert_int_equal(filter_popcount(&f), 0);
	assert_int_equal(c.hdr->saturated, 0);
	bitcounts_free(&c);
	filter_close(&f);
}

/* A key never inserted: the check refuses it, and nothing changes. */
static void test_uncounted_key_refused(void **state)
{
	struct filter f;
	struct bitcounts c;

	(void)state;
	filter_with_counts(BLOOMXDP_LAYOUT_BITS, 4096, 4, &f, &c);
	filter_insert_hash(&f, 1234);
	assert_int_equal(filter_count_remove(&f, 98765, true, NULL), -EUCLEAN);
	assert_true(filter_test_hash(&f, 1234));
	bitcounts_free(&c);
	filter_close(&f);
}

/* The same key 20 times: its counters saturate at 15 and never fall again. */
static void test_saturation(void **state)
{
	struct filter f;
	struct bitcounts c;
	__u64 cleared = 0;
	int i;

	(void)state;
	filter_with_counts(BLOOMXDP_LAYOUT_BLOCKED, 4096, 4, &f, &c);
	for (i = 0; i < 20; i++)
		filter_insert_hash(&f, 555);
	assert_true(c.hdr->saturated >= 1 && c.hdr->saturated <= 4);
	for (i = 0; i < 20; i++)
		assert_int_equal(filter_count_remove(&f, 555, false, &cleared), 0);
	assert_int_equal(cleared, 0);
	assert_true(filter_test_hash(&f, 555));		/* a false positive, not a negative */
	bitcounts_free(&c);
	filter_close(&f);
}

/* Nibbles: neighbours are independent. */
static void test_nibbles(void **state)
{
	struct bitcounts c;

	(void)state;
	assert_int_equal(bitcounts_alloc(&c, BLOOMXDP_LAYOUT_BITS, 64, 1), 0);
	bitcount_inc(&c, 4);
	bitcount_inc(&c, 5);
	bitcount_inc(&c, 5);
	assert_int_equal(bitcount_get(&c, 4), 1);
	assert_int_equal(bitcount_get(&c, 5), 2);
	assert_true(bitcount_dec(&c, 4));
	assert_false(bitcount_dec(&c, 5));
	assert_int_equal(bitcount_get(&c, 5), 1);
	assert_int_equal(bitcount_get(&c, 3), 0);
	assert_false(bitcount_dec(&c, 3));	/* zero stays zero */
	bitcounts_free(&c);
}

/* Written, then mapped back: only for its generation and geometry. */
static void test_file_round_trip(void **state)
{
	char dir[] = "/tmp/bitcounts.XXXXXX";
	struct bitcounts c, m;
	int dfd, fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(bitcounts_alloc(&c, BLOOMXDP_LAYOUT_BLOCKED, 1024, 4), 0);
	bitcount_inc(&c, 1000);
	bitcounts_stamp(&c, 7, 0, 0);
	fd = openat(dfd, BITCOUNTS_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, c.hdr, c.bytes), (ssize_t)c.bytes);
	close(fd);
	assert_int_equal(bitcounts_map(&m, dfd, BLOOMXDP_LAYOUT_BLOCKED, 1024, 4, 8), -ESTALE);
	assert_int_equal(bitcounts_map(&m, dfd, BLOOMXDP_LAYOUT_BLOCKED, 2048, 4, 7), -ESTALE);
	assert_int_equal(bitcounts_map(&m, dfd, BLOOMXDP_LAYOUT_BLOCKED, 1024, 4, 7), 0);
	assert_int_equal(bitcount_get(&m, 1000), 1);
	bitcount_inc(&m, 1000);
	assert_int_equal(bitcounts_sync(&m), 0);
	bitcounts_free(&m);
	assert_int_equal(bitcounts_map(&m, dfd, BLOOMXDP_LAYOUT_BLOCKED, 1024, 4, 7), 0);
	assert_int_equal(bitcount_get(&m, 1000), 2);
	bitcounts_free(&m);
	bitcounts_free(&c);
	unlinkat(dfd, BITCOUNTS_FILE, 0);
	close(dfd);
	rmdir(dir);
}

/*
 * Written by a thread while the load swaps: the header stamped after the
 * start is the file's; a load that fails leaves no file, and none behind.
 */
static void test_write_in_two_steps(void **state)
{
	char dir[] = "/tmp/bitcounts.XXXXXX";
	struct bitcounts_writer w;
	struct bitcounts c, m;
	int dfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(bitcounts_alloc(&c, BLOOMXDP_LAYOUT_BLOCKED, 1 << 20, 4), 0);
	bitcount_inc(&c, 1000);
	bitcount_inc(&c, (1 << 20) - 1);
	bitcounts_write_start(&w, &c, dfd);
	bitcounts_stamp(&c, 9, 3, 5);
	assert_int_equal(bitcounts_write_end(&w, false), 0);
	assert_int_equal(bitcounts_map(&m, dfd, BLOOMXDP_LAYOUT_BLOCKED, 1 << 20, 4, 9), -ENOENT);
	assert_int_equal(unlinkat(dfd, w.tmp, 0), -1);
	bitcounts_write_start(&w, &c, dfd);
	bitcounts_stamp(&c, 10, 3, 5);
	assert_int_equal(bitcounts_write_end(&w, true), 0);
	assert_int_equal(bitcounts_write_end(&w, false), 0);	/* again: nothing more */
	assert_int_equal(bitcounts_map(&m, dfd, BLOOMXDP_LAYOUT_BLOCKED, 1 << 20, 4, 10), 0);
	assert_int_equal(m.hdr->v4_lengths, 3);
	assert_int_equal(m.hdr->v6_lengths, 5);
	assert_memory_equal(m.hdr, c.hdr, c.bytes);
	bitcounts_free(&m);
	bitcounts_free(&c);
	assert_int_equal(unlinkat(dfd, BITCOUNTS_FILE, 0), 0);
	close(dfd);
	assert_int_equal(rmdir(dir), 0);	/* no temporary file left */
}

/*
 * filter_insert_hashes() splits many keys over two threads, each writing its
 * half of the words and counters (blocked: its half of the buckets of blocks,
 * the keys sorted by bucket first): the same words, counters and saturations
 * as one key at a time. Dense (~11 keys a bit) when bits is 65,536, so that
 * counters saturate.
 */
static void batch_as_one_by_one(__u32 layout, __u32 bits, size_t n)
{
	struct filter one, batch;
	struct bitcounts c1, c2;
	size_t i;
	__u64 *keys = malloc(n * sizeof(*keys)), s = 7;

	assert_non_null(keys);
	filter_with_counts(layout, bits, 7, &one, &c1);
	filter_with_counts(layout, bits, 7, &batch, &c2);
	for (i = 0; i < n; i++) {
		keys[i] = rng_next(&s);
		filter_insert_hash(&one, keys[i]);
	}
	filter_insert_hashes(&batch, keys, n);
	assert_memory_equal(one.words, batch.words,
			    (BLOOMXDP_HDR_WORDS + bits / BLOOMXDP_WORD_BITS) * sizeof(__u64));
	assert_memory_equal(c1.c, c2.c, bits / 2);
	assert_true(bits > 65536 || c1.hdr->saturated > 0);
	assert_int_equal(c1.hdr->saturated, c2.hdr->saturated);
	for (i = 0; i < n; i++)
		assert_true(filter_test_hash(&batch, keys[i]));
	bitcounts_free(&c1);
	bitcounts_free(&c2);
	filter_close(&one);
	filter_close(&batch);
	free(keys);
}

static void test_batch_bits(void **state)
{
	(void)state;
	batch_as_one_by_one(BLOOMXDP_LAYOUT_BITS, 65536, 100000);
}

static void test_batch_blocked(void **state)
{
	(void)state;
	batch_as_one_by_one(BLOOMXDP_LAYOUT_BLOCKED, 65536, 100000);
}

/* Many buckets of 256 blocks, the last one short (5,001 blocks), and few keys a block. */
static void test_batch_blocked_buckets(void **state)
{
	(void)state;
	batch_as_one_by_one(BLOOMXDP_LAYOUT_BLOCKED, 5001 * BLOOMXDP_BLOCK_BITS, 300000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remove_half_bits),
		cmocka_unit_test(test_remove_half_blocked),
		cmocka_unit_test(test_batch_bits),
		cmocka_unit_test(test_batch_blocked),
		cmocka_unit_test(test_batch_blocked_buckets),
		cmocka_unit_test(test_remove_all_empties),
		cmocka_unit_test(test_uncounted_key_refused),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_nibbles),
		cmocka_unit_test(test_file_round_trip),
		cmocka_unit_test(test_write_in_two_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
