// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Directories of ours, opened without following links and checked (dirs.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dirs.h"
#include "util/log.h"

int own_dir_open(int parent_fd, const char *name, const char *path, bool create,
		 mode_t forbidden, const char *then)
{
	struct stat st;
	char owner[32];
	int fd, ret;

	fd = openat(parent_fd, name, O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(parent_fd, name, 0700) && errno != EEXIST) {
			ret = -errno;
			log_error("cannot create %s: %s", path, strerror(-ret));
			return ret;
		}
		/* Whoever made it, mkdirat or a racing process, the checks below judge it. */
		fd = openat(parent_fd, name, O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return ret;
		if ((ret == -ENOTDIR || ret == -ELOOP) &&
		    !fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW))
			log_error("%s is %s: someone else may have made it; check it, remove it "
				  "(not what it may point to), and %s", path,
				  S_ISLNK(st.st_mode) ? "a symbolic link, not a directory" :
				  "not a directory", then);
		else
			log_error("cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		log_error("cannot stat %s: %s", path, strerror(-ret));
		goto err;
	}
	/* Nobody else may add, rename or replace what is in it. */
	if (st.st_uid != geteuid() || (st.st_mode & forbidden)) {
		if (geteuid() == 0)
			snprintf(owner, sizeof(owner), "root's");
		else
			snprintf(owner, sizeof(owner), "uid %u's", (unsigned)geteuid());
		log_error("%s is owned by uid %u with mode %04o, not %s with %s: someone else "
			  "may have made it; check its contents, remove it, and %s",
			  path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), owner,
			  forbidden == 077 ? "0700" : "no write permission for group or others",
			  then);
		ret = -EPERM;
		goto err;
	}
	return fd;
err:
	close(fd);
	return ret;
}
