/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The payload of a full version: a compiled filter in the save/restore format (savefile.h). */
#ifndef BLOOMXDP_FLEET_PAYLOAD_H
#define BLOOMXDP_FLEET_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct savefile_info;

struct fleet_compile_opts {
	__u32 layout;
	double fpr;
	__u64 hash_key[2];	/* the fleet's: every node attaches with it */
	__u64 max_memory;	/* 0: the default of a load */
	__u64 version;		/* recorded as the file's generation */
};

/*
 * Lists (any format load reads) compiled into one filter in memory, sized for
 * them as a load would, written to out (mode 0600: it holds the key). made:
 * the header of what was written, read back and checked. Prints the error.
 */
int fleet_compile(char **files, int nfiles, const struct fleet_compile_opts *o, const char *out,
		  struct savefile_info *made);

/* Whether path starts as a file of 'bloomxdp save' does. */
bool fleet_is_savefile(const char *path);

/* A regular file of at most max bytes, whole, into a malloc-ed buffer: 0 or -errno. */
int fleet_read_file(const char *path, __u64 max, void **data, size_t *len);

#endif
