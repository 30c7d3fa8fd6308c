// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The refresh of a local list file: read it again when it changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "service/daemon.h"
#include "util/log.h"

/* What tells that the file changed: another file (renamed over), size, mtime, ctime. */
struct local_seen {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static int local_refresh(void *ctx, struct daemon_source *src)
{
	struct local_seen *seen = src->priv, now;
	struct stat st;

	(void)ctx;
	if (stat(src->spec.source, &st)) {
		int err = errno;

		log_error("list %s: cannot read %s: %s; the list as last loaded stays enforced",
			  src->spec.name, src->spec.source, strerror(err));
		return -err;
	}
	now = (struct local_seen){ .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
				   .mtime = st.st_mtim, .ctime = st.st_ctim };
	if (seen && seen->dev == now.dev && seen->ino == now.ino && seen->size == now.size &&
	    same_time(&seen->mtime, &now.mtime) && same_time(&seen->ctime, &now.ctime))
		return 0;
	if (!seen) {
		seen = malloc(sizeof(*seen));
		if (!seen)
			return -ENOMEM;
		src->priv = seen;
	}
	/* Seen, applied or not: a file that failed to load is tried again once it changes. */
	*seen = now;
	snprintf(src->path, sizeof(src->path), "%s", src->spec.source);
	return 1;
}

static void local_applied(void *ctx, struct daemon_source *src, int result)
{
	(void)ctx;
	(void)src;
	(void)result;
}

static void local_forget(void *ctx, struct daemon_source *src)
{
	(void)ctx;
	free(src->priv);
	src->priv = NULL;
}

const struct refresh_ops refresh_local = {
	.name = "file",
	.refresh = local_refresh,
	.applied = local_applied,
	.forget = local_forget,
};
