/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_NAMES_H
#define BLOOMXDP_NAMES_H

#include <stdbool.h>
#include <bloomxdp/name.h>

/* A normalised domain name: ASCII (punycode for IDN), lower case, no trailing dot. */
#define NAME_TEXT_MAX 254	/* 253 characters and the NUL */

/*
 * Normalises a domain name as listed or queried: lower case, trailing dot
 * removed, Unicode converted to its xn-- form with libidn2. Labels are 1 to 63
 * characters of letters, digits, '-' and '_'; at most BLOOMXDP_MAX_LABELS labels.
 * Returns 0, or -EINVAL with a reason in why.
 */
int name_normalize(const char *in, char out[NAME_TEXT_MAX], const char **why);

/*
 * The suffix hashes of a normalised name, as the XDP program computes them:
 * suffix[j] = S_{j+1}, the hash of the rightmost j+1 labels. Returns the
 * number of labels (and of hashes written).
 */
int name_suffix_hashes(const __u64 hash_key[2], const char *name,
		       __u64 suffix[BLOOMXDP_MAX_LABELS]);

/* S of the whole name: the key of a listed domain. */
__u64 name_hash(const __u64 hash_key[2], const char *name);

/*
 * The hashes of a URL path's prefixes at '/' boundaries, shortest first,
 * as the XDP program computes them: "" then "/a", "/a/b"... and, when ends
 * is not NULL, their lengths. Returns how many.
 */
int path_prefix_hashes(const __u64 hash_key[2], const char *path, size_t len,
		       __u64 prefix[BLOOMXDP_MAX_PATH_PREFIXES],
		       size_t ends[BLOOMXDP_MAX_PATH_PREFIXES]);

#endif
