/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory a load writes at random (a filter built aside, the counters of del):
 * anonymous, zeroed, on huge pages where the kernel has them, so that each
 * write misses the cache but not the TLB as well.
 *
 * And the arrays a load fills and sorts (keys, hashes, their sorted copies:
 * hundreds of MB for 10M hosts): on huge pages too, so that they are mapped
 * 2 MiB a fault rather than 4 KiB. A fault costs microseconds, tens where the
 * guest's page tables are shadowed (this project's machines): a load of 10M
 * hosts took 75,700 of them, a second of CPU time, before.
 */
#ifndef BLOOMXDP_HUGEMEM_H
#define BLOOMXDP_HUGEMEM_H

#include <stddef.h>

/* bytes of zeroed memory, or NULL; free with munmap(mem, bytes). */
void *huge_zeroed(size_t bytes);

/*
 * mem (of huge_realloc(), or NULL for new memory, zeroed) grown or shrunk to
 * bytes, its contents kept up to the smaller size: NULL on failure, mem left
 * as it was. Free with huge_free() (NULL is nothing to free).
 */
void *huge_realloc(void *mem, size_t bytes);
void huge_free(void *mem);

#endif
