/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Directories of ours (the pins', the state's, the feed cache's): opened one
 * level at a time relative to the one above, never through a symbolic link,
 * and refused unless owned by the effective uid without the mode bits the
 * caller forbids.
 */
#ifndef BLOOMXDP_DIRS_H
#define BLOOMXDP_DIRS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * name as a directory of ours in parent_fd, opened with O_NOFOLLOW, owned by
 * the effective uid and refusing the mode bits forbidden (077 for the pins,
 * 022 for the state), or -ENOENT unprinted; path names it in messages, then
 * says what to do after removing a bad one. With create, makes it (0700) when
 * missing. Other errors printed.
 */
int own_dir_open(int parent_fd, const char *name, const char *path, bool create,
		 mode_t forbidden, const char *then);

#endif
