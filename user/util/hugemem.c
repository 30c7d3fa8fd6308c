// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "util/hugemem.h"

/* Before huge_realloc()'s memory: the length of its mapping (a cache line, for alignment). */
#define HUGE_HEADER 64
#define HUGE_PAGE (2UL << 20)
#define PAGE_BYTES 4096UL

/*
 * len bytes mapped from an address that is a multiple of HUGE_PAGE, so that
 * every whole 2 MiB of it can be a huge page; or NULL.
 */
static char *map_aligned(size_t len)
{
	char *map = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *at;
	size_t head, end;

	if (map == MAP_FAILED)
		return NULL;
	head = -(size_t)map & (HUGE_PAGE - 1);
	at = map + head;
	end = (len + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
	if (head)
		munmap(map, head);
	munmap(at + end, HUGE_PAGE - head + len - end);
	(void)madvise(at, len, MADV_HUGEPAGE);	/* a hint: 4 KiB pages work too */
	return at;
}

void *huge_zeroed(size_t bytes)
{
	void *mem;

	if (bytes >= HUGE_PAGE)
		return bytes > SIZE_MAX - 2 * HUGE_PAGE ? NULL : map_aligned(bytes);
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	(void)madvise(mem, bytes, MADV_HUGEPAGE);
	return mem;
}

void *huge_realloc(void *mem, size_t bytes)
{
	size_t len = bytes + HUGE_HEADER, old = mem ? *(size_t *)((char *)mem - HUGE_HEADER) : 0;
	char *map;

	if (len < bytes || len > SIZE_MAX - 2 * HUGE_PAGE)
		return NULL;
	/* Under a huge page: no huge page fits, the mapping as small as it can be. */
	len = len < HUGE_PAGE ? len : (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (len == old)
		return mem;
	if (len < HUGE_PAGE || len < old)
		map = mem ? mremap((char *)mem - HUGE_HEADER, old, len, MREMAP_MAYMOVE) :
			    huge_zeroed(len);
	else
		map = huge_zeroed(len);
	if (!map || map == MAP_FAILED)
		return NULL;
	/* Moved by its page tables into the new place (replaced): its huge pages stay whole. */
	if (mem && len >= HUGE_PAGE && len > old &&
	    mremap((char *)mem - HUGE_HEADER, old, len, MREMAP_MAYMOVE | MREMAP_FIXED, map) ==
	    MAP_FAILED) {
		munmap(map, len);
		return NULL;
	}
	*(size_t *)map = len;
	return map + HUGE_HEADER;
}

void huge_free(void *mem)
{
	if (mem)
		munmap((char *)mem - HUGE_HEADER, *(size_t *)((char *)mem - HUGE_HEADER));
}
