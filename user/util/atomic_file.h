/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Files replaced whole, the one way the state directory and the feed cache
 * write: a temporary file under a random name, made with O_EXCL (never one
 * that was there, never through a link) relative to the directory's
 * descriptor, written and fsync'd, renamed over the name, then the directory
 * fsync'd. A reader sees the old file or the new one, never a part; after a
 * crash, the new one or the old one. Errors are returned (-errno), not
 * printed: the caller names the file and what to do.
 */
#ifndef BLOOMXDP_ATOMIC_FILE_H
#define BLOOMXDP_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* A temporary file's name: this prefix and 16 random hex digits. */
#define ATOMIC_TMP_PREFIX ".tmp."
#define ATOMIC_TMP_MAX 32

/* name replaced by len bytes at buf, durably: the whole sequence above. */
int atomic_file_write(int dir_fd, const char *name, const void *buf, size_t len);

/*
 * atomic_file_write() in two steps, for a caller that does something between
 * (a load makes its state durable before it swaps the list in): the
 * temporary file written and fsync'd, its name in tmp (on failure removed,
 * tmp ""); then given its name.
 */
int atomic_file_stage(int dir_fd, const void *buf, size_t len, char tmp[ATOMIC_TMP_MAX]);
/*
 * tmp renamed to name, then the directory fsync'd. When the rename fails, tmp
 * is removed; tmp is "" afterwards in any case.
 */
int atomic_file_commit(int dir_fd, char tmp[ATOMIC_TMP_MAX], const char *name);
/* Removes a temporary file not given its name (tmp "": nothing); tmp is "" afterwards. */
void atomic_file_abandon(int dir_fd, char tmp[ATOMIC_TMP_MAX]);

/*
 * A new temporary file in dir_fd, mode 0600, opened read-write: its
 * descriptor, its name in tmp, or -errno. For a file written as it comes (a
 * copy of an input); atomic_file_commit() names it.
 */
int atomic_file_temp(int dir_fd, char tmp[ATOMIC_TMP_MAX]);
/* A name atomic_file_temp() makes (one a crash may leave behind). */
bool atomic_file_is_temp(const char *name);

/* All of len bytes at buf to fd, through short writes and EINTR: 0, or -errno. */
int file_write_all(int fd, const void *buf, size_t len);

#endif
