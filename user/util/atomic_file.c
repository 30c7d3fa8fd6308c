// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Files replaced whole (atomic_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <linux/types.h>

#include "util/atomic_file.h"

/* Names tried before giving up: each one is random, a clash is already unlikely. */
#define TEMP_TRIES 100
#define TEMP_HEX_DIGITS 16

/* 64 random bits; should the kernel's pool not be ready (early boot), a mix that still differs. */
static __u64 temp_bits(void)
{
	static __u64 counter;
	struct timespec ts;
	__u64 v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	v = (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	v ^= (__u64)getpid() << 32 ^ ++counter * 0x9e3779b97f4a7c15ULL;
	return v;
}

int atomic_file_temp(int dir_fd, char tmp[ATOMIC_TMP_MAX])
{
	int fd, tries;

	for (tries = 0; tries < TEMP_TRIES; tries++) {
		snprintf(tmp, ATOMIC_TMP_MAX, ATOMIC_TMP_PREFIX "%0*llx", TEMP_HEX_DIGITS,
			 (unsigned long long)temp_bits());
		fd = openat(dir_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	fd = tries < TEMP_TRIES ? -errno : -EEXIST;
	tmp[0] = '\0';
	return fd;
}

bool atomic_file_is_temp(const char *name)
{
	size_t plen = strlen(ATOMIC_TMP_PREFIX);

	return !strncmp(name, ATOMIC_TMP_PREFIX, plen) && strlen(name) == plen + TEMP_HEX_DIGITS &&
	       strspn(name + plen, "0123456789abcdef") == TEMP_HEX_DIGITS;
}

int file_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

int atomic_file_stage(int dir_fd, const void *buf, size_t len, char tmp[ATOMIC_TMP_MAX])
{
	int fd, ret;

	fd = atomic_file_temp(dir_fd, tmp);
	if (fd < 0)
		return fd;
	ret = file_write_all(fd, buf, len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		atomic_file_abandon(dir_fd, tmp);
	return ret;
}

int atomic_file_commit(int dir_fd, char tmp[ATOMIC_TMP_MAX], const char *name)
{
	int ret = 0;

	if (renameat(dir_fd, tmp, dir_fd, name)) {
		ret = -errno;
		unlinkat(dir_fd, tmp, 0);
	} else if (fsync(dir_fd)) {
		/* The new file is in place, but a crash may still bring the old one back. */
		ret = -errno;
	}
	tmp[0] = '\0';
	return ret;
}

void atomic_file_abandon(int dir_fd, char tmp[ATOMIC_TMP_MAX])
{
	if (tmp[0])
		unlinkat(dir_fd, tmp, 0);
	tmp[0] = '\0';
}

int atomic_file_write(int dir_fd, const char *name, const void *buf, size_t len)
{
	char tmp[ATOMIC_TMP_MAX];
	int ret;

	ret = atomic_file_stage(dir_fd, buf, len, tmp);
	return ret ? ret : atomic_file_commit(dir_fd, tmp, name);
}
