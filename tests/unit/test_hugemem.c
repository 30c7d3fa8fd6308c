// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The memory of a load's large arrays (user/util/hugemem.c): huge_zeroed()
 * zeroed, from a 2 MiB boundary when it is that large, and all of it gone
 * after munmap(mem, bytes) (no tail left mapped); huge_realloc() from nothing
 * zeroed, grown across the 2 MiB mark and far past it, and shrunk, with its
 * contents kept each time.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "util/hugemem.h"

#define MIB (1UL << 20)

/* Every page of [mem, mem + bytes) unmapped. */
static void assert_unmapped(const char *mem, size_t bytes)
{
	size_t off;

	for (off = 0; off < bytes; off += 4096) {
		assert_int_equal(msync((void *)(mem + off), 4096, MS_ASYNC), -1);
		assert_int_equal(errno, ENOMEM);
	}
}

/* The process's mapped kilobytes (VmSize). */
static long vm_size(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld", &kb) == 1)
			break;
	fclose(f);
	assert_true(kb > 0);
	return kb;
}

static void test_zeroed(void **state)
{
	static const size_t sizes[] = { 100, 4096, 2 * MIB - 1, 2 * MIB, 3 * MIB + 5, 16 * MIB };
	size_t i, j;
	long before;
	char *mem;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		before = vm_size();
		mem = huge_zeroed(sizes[i]);
		assert_non_null(mem);
		if (sizes[i] >= 2 * MIB)
			assert_int_equal((uintptr_t)mem % (2 * MIB), 0);
		for (j = 0; j < sizes[i]; j += 997)
			assert_int_equal(mem[j], 0);
		mem[sizes[i] - 1] = 1;
		assert_int_equal(munmap(mem, sizes[i]), 0);
		assert_unmapped(mem, sizes[i]);
		/* Nothing else of its mapping left (the room it was aligned in). */
		assert_int_equal(vm_size(), before);
	}
}

static void fill(uint32_t *a, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		a[i] = (uint32_t)(i * 2654435761U);
}

static void assert_filled(const uint32_t *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != (uint32_t)(i * 2654435761U))
			fail_msg("word %zu of %zu lost", i, n);
}

static void test_grow_shrink(void **state)
{
	size_t n = 0, next;
	uint32_t *a = NULL, *grown;

	(void)state;
	huge_free(NULL);
	/* Doubling from 4096 words to 64 MiB, as a load's key arrays grow. */
	for (next = 4096; next <= 16 * MIB; next *= 2) {
		grown = huge_realloc(a, next * sizeof(*a));
		assert_non_null(grown);
		a = grown;
		assert_filled(a, n);
		assert_int_equal(a[n], 0);
		assert_int_equal(a[next - 1], 0);
		fill(a, n, next);
		n = next;
	}
	/* The same size again, then smaller: in place, the first words kept. */
	assert_ptr_equal(huge_realloc(a, n * sizeof(*a)), a);
	grown = huge_realloc(a, 3 * MIB);
	assert_non_null(grown);
	a = grown;
	assert_filled(a, 3 * MIB / sizeof(*a));
	grown = huge_realloc(a, 1000);
	assert_non_null(grown);
	a = grown;
	assert_filled(a, 1000 / sizeof(*a));
	/* And grown again past the mark. */
	grown = huge_realloc(a, 5 * MIB);
	assert_non_null(grown);
	a = grown;
	assert_filled(a, 1000 / sizeof(*a));
	assert_int_equal(a[5 * MIB / sizeof(*a) - 1], 0);
	huge_free(a);
	/* A size that cannot be: refused, nothing mapped. */
	assert_null(huge_realloc(NULL, SIZE_MAX - 10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_grow_shrink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
