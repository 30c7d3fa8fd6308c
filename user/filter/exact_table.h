/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_EXACT_TABLE_H
#define BLOOMXDP_EXACT_TABLE_H

#include <stdbool.h>
#include <linux/types.h>
#include <bloomxdp/common.h>

/*
 * The exact stage's hosts of one family as a table (common.h,
 * verify_table_v4/v6): made from the keys of its hash map, never written
 * after, so that a change is a new table swapped in whole.
 */

/* Keys of the family's size (4 or 16 bytes) a table of them: -ENOENT when none can be made. */
struct exact_table {
	__u8 *line;		/* (mask + 2) buckets of line_size bytes, the header first */
	__u32 mask;
	__u32 line_size;
	__u32 keys;
};

/*
 * Places n distinct keys of key_size bytes (4 or 16): 0 and a table, or
 * -ENOENT when there is none to make (n 0 or over BLOOMXDP_TABLE_MAX_KEYS, a key
 * 0, a bucket overflowing at BLOOMXDP_TABLE_MAX_BUCKETS), -ENOMEM.
 */
int exact_table_build(struct exact_table *t, const __u64 *addr_key, const __u8 *keys, __u32 n,
		      __u32 key_size);
/* True when the table holds key (what the program's table_has() answers). */
bool exact_table_has(const struct exact_table *t, const __u64 *addr_key, const __u8 *key);
void exact_table_free(struct exact_table *t);

/*
 * The table of the hosts in hash map hosts_fd (key_size 4 or 16): the fd of
 * a new array map holding it, -ENOENT when it has none (see above).
 */
int exact_table_make(int hosts_fd, __u32 key_size, const __u64 *addr_key);

/* Bytes of a table map: its buckets and header. */
__u64 exact_table_bytes(int fd);

#endif
