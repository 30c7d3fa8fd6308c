// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <sys/mman.h>

#include "util/hugemem.h"

void *huge_zeroed(size_t bytes)
{
	void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	(void)madvise(mem, bytes, MADV_HUGEPAGE);	/* a hint: 4 KiB pages work too */
	return mem;
}
