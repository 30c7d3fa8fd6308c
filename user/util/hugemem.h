/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory a load writes at random (a filter built aside, the counters of del):
 * anonymous, zeroed, on huge pages where the kernel has them, so that each
 * write misses the cache but not the TLB as well.
 */
#ifndef BLOOMXDP_HUGEMEM_H
#define BLOOMXDP_HUGEMEM_H

#include <stddef.h>

/* bytes of zeroed memory, or NULL; free with munmap(mem, bytes). */
void *huge_zeroed(size_t bytes);

#endif
