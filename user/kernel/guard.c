// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The socket guard: bpf/connect.bpf.c over an attachment's maps, on a cgroup (guard.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/guard.h"
#include "kernel/attachment.h"
#include "guard.skel.h"
#include "util/log.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
/* The cgroup directories walked to name a cgroup id (guard_status()): depth, then entries. */
#define CGROUP_WALK_DEPTH 16
#define CGROUP_WALK_ENTRIES 100000
/* A line of /proc/self/mountinfo read at most. */
#define MOUNTINFO_LINE_MAX 4096

/* The four hooks, their programs in the skeleton, and their links' pins. */
#define GUARD_LINKS 4
static const char *const link_pins[GUARD_LINKS] = {
	BLOOMXDP_PIN_GUARD_CONNECT4, BLOOMXDP_PIN_GUARD_CONNECT6,
	BLOOMXDP_PIN_GUARD_SENDMSG4, BLOOMXDP_PIN_GUARD_SENDMSG6,
};

static void guard_progs(const struct guard *skel, struct bpf_program *progs[GUARD_LINKS])
{
	progs[0] = skel->progs.bloomxdp_connect4;
	progs[1] = skel->progs.bloomxdp_connect6;
	progs[2] = skel->progs.bloomxdp_sendmsg4;
	progs[3] = skel->progs.bloomxdp_sendmsg6;
}

/* mountinfo's octal escapes (\040 a space) undone, in place. */
static void unescape_mount_path(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE ...": a cgroup2 of its root? */
static bool mountinfo_cgroup2(char *line, char **mountpoint)
{
	char *save, *root, *tok, *sep = strstr(line, " - ");
	int i;

	if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
		return false;
	root = NULL;
	tok = strtok_r(line, " ", &save);
	for (i = 0; tok && i < 4; i++) {
		if (i == 3)
			root = tok;
		tok = strtok_r(NULL, " ", &save);
	}
	if (!tok || !root || strcmp(root, "/"))
		return false;	/* a bind mount of a cgroup below the root */
	*mountpoint = tok;
	return true;
}

/* The cgroup v2 mount point into out; -ENOENT (none), or -errno of /proc: unsaid. */
static int cgroup_root_find(char *out, size_t len)
{
	char line[MOUNTINFO_LINE_MAX], *mp;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		if (!mountinfo_cgroup2(line, &mp))
			continue;
		unescape_mount_path(mp);
		ret = (size_t)snprintf(out, len, "%s", mp) < len ? 0 : -ENAMETOOLONG;
	}
	fclose(f);
	return ret;
}

int guard_cgroup_root(char *out, size_t len)
{
	int ret = cgroup_root_find(out, len);

	if (ret == -ENOENT)
		log_error("no cgroup v2 hierarchy is mounted (see /proc/self/mountinfo): mount one "
			  "('mount -t cgroup2 none /sys/fs/cgroup/unified') for the socket guard");
	else if (ret)
		log_error("cannot read the cgroup v2 mount point from /proc/self/mountinfo (%s): "
			  "mount /proc, or give --cgroup PATH", strerror(-ret));
	return ret;
}

bool guard_cgroup_mounted(void)
{
	char root[PATH_MAX];

	return cgroup_root_find(root, sizeof(root)) == 0;
}

/* The cgroup v2 directory of path (NULL or GUARD_CGROUP_ROOT: the root), opened; its name. */
static int cgroup_open(const char *path, char *name, size_t len)
{
	struct statfs sf;
	int fd, ret;

	if (!path || !strcmp(path, GUARD_CGROUP_ROOT)) {
		ret = guard_cgroup_root(name, len);
		if (ret)
			return ret;
	} else if ((size_t)snprintf(name, len, "%s", path) >= len) {
		log_error("--cgroup: path too long");
		return -ENAMETOOLONG;
	}
	fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		log_error("--cgroup %s: %s: give a cgroup v2 directory (under the mount point "
			  "'findmnt -t cgroup2' shows), or '%s'", name, strerror(-ret),
			  GUARD_CGROUP_ROOT);
		return ret;
	}
	if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		log_error("--cgroup %s: not a cgroup v2 directory (see 'findmnt -t cgroup2'; a "
			  "cgroup v1 hierarchy takes no socket hooks)", name);
		close(fd);
		return -ENOTDIR;
	}
	return fd;
}

/* The cookie of this process's network namespace: the one the guard looks at. */
static int netns_cookie(__u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret)
		log_error("cannot read this network namespace's cookie (SO_NETNS_COOKIE: %s): the "
			  "socket guard needs Linux 5.14 or later", strerror(-ret));
	return ret;
}

/* The cgroup id a pinned cgroup link holds (0: not one). */
static __u64 link_cgroup_id(int link_fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(link_fd, &info, &len) || info.type != BPF_LINK_TYPE_CGROUP)
		return 0;
	return info.cgroup.cgroup_id;
}

/*
 * The guard's object over att's maps, loaded: its configuration att's,
 * counters its own, or counters_fd's (a guard already on, whose programs are
 * replaced).
 */
static int guard_load(const struct attachment *att, int counters_fd, struct guard **out)
{
	static const char *const own[] = { BLOOMXDP_PIN_COUNTERS, NULL };
	struct guard *skel;
	int ret;

	skel = guard__open();
	if (!skel) {
		ret = -errno;
		log_error("cannot open the socket guard's BPF object: %s", strerror(-ret));
		return ret;
	}
	skel->rodata_config->config = att->config;
	skel->rodata->guard_ifindex = if_nametoindex(att->ifname);
	ret = netns_cookie(&skel->rodata->guard_netns_cookie);
	if (ret)
		goto err;
	ret = attachment_reuse_maps_by_name(att, skel->obj, own);
	if (!ret && counters_fd >= 0)
		ret = bpf_map__reuse_fd(skel->maps.counters, counters_fd);
	if (ret) {
		log_error("cannot reuse the maps of %s for the socket guard: %s", att->ifname,
			  strerror(-ret));
		goto err;
	}
	ret = guard__load(skel);
	if (ret) {
		log_error("the kernel refused the socket guard's programs (%s); rerun with -v for "
			  "the verifier's log", strerror(-ret));
		goto err;
	}
	*out = skel;
	return 0;
err:
	guard__destroy(skel);
	return ret;
}

/* A guard already on, over the same cgroup: each link swapped to its new program. */
static int guard_replace(const struct attachment *att, const struct guard *skel)
{
	struct bpf_program *progs[GUARD_LINKS];
	int i, fd, ret = 0;

	guard_progs(skel, progs);
	for (i = 0; i < GUARD_LINKS && !ret; i++) {
		fd = pin_get(att->dir_fd, link_pins[i]);
		if (fd < 0 || bpf_link_update(fd, bpf_program__fd(progs[i]), NULL))
			ret = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		if (ret)
			log_error("cannot replace the socket guard's program at %s/%s: %s; "
				  "'bloomxdp detach %s' and attach again", att->dir, link_pins[i],
				  strerror(-ret), att->ifname);
	}
	return ret;
}

/* A new guard: its counters pinned, then each hook attached to cg_fd and its link pinned. */
static int guard_link_all(const struct attachment *att, const struct guard *skel, int cg_fd,
			  const char *cgroup)
{
	struct bpf_program *progs[GUARD_LINKS];
	struct bpf_link *link;
	int i, ret;

	guard_progs(skel, progs);
	ret = pin_put(att->dir_fd, BLOOMXDP_PIN_GUARD_COUNTERS, bpf_map__fd(skel->maps.counters));
	for (i = 0; i < GUARD_LINKS && !ret; i++) {
		link = bpf_program__attach_cgroup(progs[i], cg_fd);
		if (!link) {
			ret = -errno;
			log_error("cannot attach the socket guard to cgroup %s: %s", cgroup,
				  strerror(-ret));
			break;
		}
		ret = pin_put(att->dir_fd, link_pins[i], bpf_link__fd(link));
		if (ret) {
			bpf_link__detach(link);
			log_error("cannot pin %s/%s: %s", att->dir, link_pins[i], strerror(-ret));
		}
		bpf_link__destroy(link);	/* the pin holds it */
	}
	if (ret)
		guard_detach_dir(att->dir_fd, att->dir);
	return ret;
}

int guard_attach_att(const struct attachment *att, const char *cgroup_path)
{
	char cgroup[PATH_MAX];
	struct guard *skel = NULL;
	int cg_fd, link_fd, counters_fd = -1, ret;
	struct stat st;
	__u64 held = 0;

	cg_fd = cgroup_open(cgroup_path, cgroup, sizeof(cgroup));
	if (cg_fd < 0)
		return cg_fd;
	link_fd = pin_get(att->dir_fd, link_pins[0]);
	if (link_fd >= 0) {
		held = link_cgroup_id(link_fd);
		close(link_fd);
		ret = fstat(cg_fd, &st) ? -errno : 0;
		if (!ret && held != st.st_ino) {
			log_error("the socket guard of %s is on another cgroup (id %llu): 'bloomxdp "
				  "detach %s' and attach again to move it to %s", att->ifname,
				  (unsigned long long)held, att->ifname, cgroup);
			ret = -EEXIST;
		}
		if (!ret)
			ret = counters_fd = pin_get(att->dir_fd, BLOOMXDP_PIN_GUARD_COUNTERS);
		if (ret < 0)
			goto out;
	}
	ret = guard_load(att, counters_fd, &skel);
	if (!ret)
		ret = held ? guard_replace(att, skel) : guard_link_all(att, skel, cg_fd, cgroup);
out:
	guard__destroy(skel);
	if (counters_fd >= 0)
		close(counters_fd);
	close(cg_fd);
	return ret < 0 ? ret : 0;
}

int guard_attach(const char *ifname, const char *cgroup_path)
{
	struct attachment att;
	int ret = attachment_open(ifname, true, &att);

	if (ret)
		return ret;
	ret = guard_attach_att(&att, cgroup_path);
	attachment_close(&att);
	return ret;
}

int guard_detach_dir(int dir_fd, const char *dir)
{
	int i, fd, ret = 0;

	for (i = 0; i < GUARD_LINKS; i++) {
		fd = pin_get(dir_fd, link_pins[i]);
		if (fd < 0)
			continue;
		/* Now, not when the last reference goes (later, from a work queue). */
		if (bpf_link_detach(fd) && errno != ENOLINK && errno != ENOENT)
			log_warn("cannot detach the socket guard's link %s/%s now: %s; it goes with "
				 "its pin", dir, link_pins[i], strerror(errno));
		close(fd);
		if (unlinkat(dir_fd, link_pins[i], 0) && errno != ENOENT && !ret)
			ret = -errno;
	}
	if (unlinkat(dir_fd, BLOOMXDP_PIN_GUARD_COUNTERS, 0) && errno != ENOENT && !ret)
		ret = -errno;
	if (ret)
		log_error("cannot remove the socket guard's pins in %s: %s", dir, strerror(-ret));
	return ret;
}

int guard_detach_att(const struct attachment *att)
{
	return guard_detach_dir(att->dir_fd, att->dir);
}

int guard_detach(const char *ifname)
{
	struct attachment att;
	int ret = attachment_open(ifname, true, &att);

	if (ret)
		return ret;
	ret = guard_detach_att(&att);
	attachment_close(&att);
	return ret;
}

/* Below dir_fd (at depth), the directory whose inode is id, its path appended to path. */
static bool cgroup_find(int dir_fd, __u64 id, char *path, size_t len, int depth, long *budget)
{
	size_t at = strlen(path);
	struct dirent *de;
	bool found = false;
	struct stat st;
	DIR *d;
	int fd;

	d = fdopendir(dir_fd);
	if (!d) {
		close(dir_fd);
		return false;
	}
	while (!found && --*budget > 0 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    (size_t)snprintf(path + at, len - at, "/%s", de->d_name) >= len - at)
			continue;
		found = st.st_ino == id;
		if (found || depth + 1 >= CGROUP_WALK_DEPTH)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			found = cgroup_find(fd, id, path, len, depth + 1, budget);
	}
	if (!found)
		path[at] = '\0';
	closedir(d);
	return found;
}

/* The directory of cgroup id under the cgroup v2 root, or "". */
static void cgroup_name(__u64 id, char *out, size_t len)
{
	long budget = CGROUP_WALK_ENTRIES;
	struct stat st;
	int fd;

	out[0] = '\0';
	if (cgroup_root_find(out, len))
		return;
	fd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_ino == id) {
		if (fd >= 0)
			close(fd);
		if (fd < 0)
			out[0] = '\0';
		return;
	}
	if (!cgroup_find(fd, id, out, len, 0, &budget))
		out[0] = '\0';
}

int guard_status(const struct attachment *att, struct guard_status *st)
{
	int i, fd;

	memset(st, 0, sizeof(*st));
	st->counters_fd = -1;
	for (i = 0; i < GUARD_LINKS; i++) {
		fd = pin_get(att->dir_fd, link_pins[i]);
		if (fd < 0)
			continue;
		st->links++;
		if (!st->cgroup_id)
			st->cgroup_id = link_cgroup_id(fd);
		close(fd);
	}
	st->on = st->links > 0;
	if (!st->on)
		return 0;
	if (st->cgroup_id)
		cgroup_name(st->cgroup_id, st->cgroup, sizeof(st->cgroup));
	fd = pin_get(att->dir_fd, BLOOMXDP_PIN_GUARD_COUNTERS);
	st->counters_fd = fd >= 0 ? fd : -1;
	return fd >= 0 || fd == -ENOENT ? 0 : fd;
}

void guard_status_close(struct guard_status *st)
{
	if (st->counters_fd >= 0)
		close(st->counters_fd);
	st->counters_fd = -1;
}
