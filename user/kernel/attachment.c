// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/attachment.h"
#include "kernel/multiprog.h"
#include "kernel/tc.h"
#include "bloomxdp.skel.h"
#include "util/dirs.h"
#include "util/ifname.h"
#include "util/log.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct data[2], int cap)
{
	return data[cap / 32].effective & (1U << (cap % 32));
}

int check_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data) == 0 &&
	    (has_cap(data, CAP_SYS_ADMIN) ||
	     (has_cap(data, CAP_BPF) && has_cap(data, CAP_NET_ADMIN))))
		return 0;
	log_error("this needs root (or CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON and CAP_SYS_ADMIN, as "
		  "bloomxdp@.service has): run it with sudo");
	return -EPERM;
}

static void bpffs_missing(void)
{
	log_error("bpffs is not mounted at " BLOOMXDP_BPFFS ": mount it with 'mount -t bpf bpf "
		  BLOOMXDP_BPFFS "' (inside a netns use 'nsenter --net=/run/netns/NAME', not "
		  "'ip netns exec', which remounts /sys)");
}

int check_bpffs(void)
{
	struct statfs st;

	if (statfs(BLOOMXDP_BPFFS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	bpffs_missing();
	return -ENOENT;
}

int check_interface(const char *ifname, int *ifindex)
{
	int ret = ifname_check(ifname);

	if (ret)
		return ret;
	*ifindex = if_nametoindex(ifname);
	if (!*ifindex) {
		log_error("%s: no such interface in this network namespace (see 'ip link')",
			  ifname);
		return -ENODEV;
	}
	return 0;
}

int attachment_read_live(struct attachment *att, __u32 *slot, struct bloomxdp_state *st,
			 const char *unchanged)
{
	int ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, slot);

	if (!ret)
		ret = attachment_read_state(att, *slot, st);
	if (ret)
		log_error("cannot read the live generation of %s: %s; %s is unchanged",
			  att->ifname, strerror(-ret), unchanged);
	return ret;
}

/*
 * bpf_obj_get() and bpf_obj_pin() take a path: /proc/self/fd/<dir_fd>/<name>
 * reaches name in the very directory dir_fd holds, without resolving its path
 * again. (BPF_F_PATH_FD, which takes the descriptor itself, needs kernel 6.5:
 * Debian 12's is 6.1, and neither libbpf 1.1 nor its headers know the flag.)
 */
static int fd_path(int dir_fd, const char *name, char *out, size_t len)
{
	int n = snprintf(out, len, "/proc/self/fd/%d/%s", dir_fd, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* fd_path() needs /proc: check that it leads to fd itself. */
static int check_fd_path(int fd, const char *path)
{
	struct stat held, reached;
	char proc[PATH_MAX];

	if (!fd_path(fd, ".", proc, sizeof(proc)) && !fstat(fd, &held) && !stat(proc, &reached) &&
	    held.st_dev == reached.st_dev && held.st_ino == reached.st_ino)
		return 0;
	log_error("cannot reach %s through /proc/self/fd, which bloomxdp opens its pins by: "
		  "mount /proc ('mount -t proc proc /proc')", path);
	return -EIO;
}

int pin_get(int dir_fd, const char *name)
{
	char path[PATH_MAX];
	int fd, ret;

	ret = fd_path(dir_fd, name, path, sizeof(path));
	if (ret)
		return ret;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int pin_put(int dir_fd, const char *name, int fd)
{
	char path[PATH_MAX];
	int ret;

	ret = fd_path(dir_fd, name, path, sizeof(path));
	if (ret)
		return ret;
	if (bpf_obj_pin(fd, path) || fchmodat(dir_fd, name, 0600, 0))
		return -errno;
	return 0;
}

void pin_dir_close(struct pin_dir *pd)
{
	int *fds[] = { &pd->fd, &pd->root_fd, &pd->bpffs_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int pin_dir_open(const char *ifname, bool create, struct pin_dir *pd)
{
	struct statfs sf;
	int tries, ret;

	pd->bpffs_fd = pd->root_fd = pd->fd = -1;
	pd->path[0] = '\0';
	/* The name becomes one path component: never "..", never "a/b". */
	ret = ifname_check(ifname);
	if (ret)
		return ret;
	snprintf(pd->path, sizeof(pd->path), "%s/%s", BLOOMXDP_PIN_ROOT, ifname);
	pd->bpffs_fd = open(BLOOMXDP_BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pd->bpffs_fd < 0 || fstatfs(pd->bpffs_fd, &sf) || sf.f_type != BPF_FS_MAGIC) {
		bpffs_missing();
		ret = -ENODEV;
		goto err;
	}
	for (tries = 0;; tries++) {
		ret = pd->root_fd = own_dir_open(pd->bpffs_fd, BLOOMXDP_PIN_ROOT_NAME,
						 BLOOMXDP_PIN_ROOT, create, 077, "attach again");
		if (ret < 0)
			goto err;
		if (!create || mkdirat(pd->root_fd, ifname, 0700) == 0)
			break;
		ret = -errno;
		if (ret == -EEXIST)
			goto err;
		/* ENOENT: a detach removed the root, empty, since we opened it. */
		if (ret != -ENOENT || tries == 2) {
			log_error("cannot create %s: %s", pd->path, strerror(-ret));
			goto err;
		}
		close(pd->root_fd);
		pd->root_fd = -1;
	}
	ret = pd->fd = own_dir_open(pd->root_fd, ifname, pd->path, false, 077,
					 "attach again");
	if (ret < 0)
		goto err;
	ret = check_fd_path(pd->fd, pd->path);
	if (ret)
		goto err;
	return 0;
err:
	pin_dir_close(pd);
	return ret;
}

int pin_dir_remove(struct pin_dir *pd, const char *ifname)
{
	int ret = 0;

	if (unlinkat(pd->root_fd, ifname, AT_REMOVEDIR) && errno != ENOENT)
		ret = -errno;
	/* The root too, once the last interface is gone; busy means others remain. */
	unlinkat(pd->bpffs_fd, BLOOMXDP_PIN_ROOT_NAME, AT_REMOVEDIR);
	return ret;
}

static int open_pin(const struct attachment *att, const char *name)
{
	int fd = pin_get(att->dir_fd, name);

	if (fd == -ENOENT)
		log_error("%s/%s: no such pin: attached by an earlier bloomxdp? 'bloomxdp detach %s "
			  "&& bloomxdp restore %s' attaches it again with its lists", att->dir, name,
			  att->ifname, att->ifname);
	else if (fd < 0)
		log_error("%s/%s: cannot open pin: %s; 'bloomxdp detach %s' and attach again",
			  att->dir, name, strerror(-fd), att->ifname);
	return fd;
}

/*
 * Every object an attachment pins, one row each: its file in the pin
 * directory, the map in the skeleton that attach pins (PIN_PROG, PIN_LINK:
 * not a map; PIN_GUARD: the socket guard's, pinned by kernel/guard.c), and
 * its fd in struct attachment (PIN_UNOPENED: commands do not open it;
 * PIN_GROUPMAP: a group's, pinned by group_pin(), opened by group_read()). attach
 * pins in this order, the link last; attachment_open() opens,
 * attachment_close() closes and detach unlinks exactly these. A map's pin
 * name is its name in the BPF objects (but the configuration's): programs
 * other than the skeleton's reuse the pins by name (attachment_reuse_maps_by_name()).
 */
#define PIN_PROG	((size_t)-1)
#define PIN_LINK	((size_t)-2)
#define PIN_GUARD	((size_t)-3)
#define PIN_GROUPMAP	((size_t)-4)
#define PIN_UNOPENED	((size_t)-1)
#define SKEL(map)	offsetof(struct bloomxdp, maps.map)
#define ATT(fd)		offsetof(struct attachment, fd)

static const struct pin_spec {
	const char *name;
	size_t skel_map;
	size_t att_fd;
} pin_table[] = {
	{ BLOOMXDP_PIN_CONFIG, SKEL(rodata_config), ATT(config_fd) },
	{ BLOOMXDP_PIN_FILTER, SKEL(filter), ATT(filter_fd) },
	{ BLOOMXDP_PIN_KFILTER, SKEL(kfilter), ATT(kfilter_fd) },
	{ BLOOMXDP_PIN_VERIFY_V4, SKEL(verify_v4), ATT(verify.v4_fd) },
	{ BLOOMXDP_PIN_VERIFY_V6, SKEL(verify_v6), ATT(verify.v6_fd) },
	{ BLOOMXDP_PIN_VERIFY_NAMES, SKEL(verify_names), ATT(verify.names_fd) },
	{ BLOOMXDP_PIN_VERIFY_PREFIX_V4, SKEL(verify_prefix_v4), ATT(verify.p4_fd) },
	{ BLOOMXDP_PIN_VERIFY_PREFIX_V6, SKEL(verify_prefix_v6), ATT(verify.p6_fd) },
	{ BLOOMXDP_PIN_VERIFY_RANGES_V4, SKEL(verify_ranges_v4), ATT(verify.r4_fd) },
	{ BLOOMXDP_PIN_VERIFY_RANGES_V6, SKEL(verify_ranges_v6), ATT(verify.r6_fd) },
	{ BLOOMXDP_PIN_VERIFY_TABLE_V4, SKEL(verify_table_v4), ATT(verify.t4_fd) },
	{ BLOOMXDP_PIN_VERIFY_TABLE_V6, SKEL(verify_table_v6), ATT(verify.t6_fd) },
	{ BLOOMXDP_PIN_ALLOW_V4, SKEL(allow_v4), ATT(allow.v4_fd) },
	{ BLOOMXDP_PIN_ALLOW_V6, SKEL(allow_v6), ATT(allow.v6_fd) },
	{ BLOOMXDP_PIN_ALLOW_NAMES, SKEL(allow_names), ATT(allow.names_fd) },
	{ BLOOMXDP_PIN_RANGES_V4, SKEL(ranges_v4), ATT(ranges_v4_fd) },
	{ BLOOMXDP_PIN_RANGES_V6, SKEL(ranges_v6), ATT(ranges_v6_fd) },
	{ BLOOMXDP_PIN_ACTIVE, SKEL(active), ATT(active_fd) },
	{ BLOOMXDP_PIN_COUNTERS, SKEL(counters), ATT(counters_fd) },
	{ BLOOMXDP_PIN_STATE, SKEL(state), ATT(state_fd) },
	{ BLOOMXDP_PIN_EVENTS, SKEL(events), ATT(events_fd) },
	{ BLOOMXDP_PIN_LISTS, SKEL(lists), ATT(lists_fd) },
	{ BLOOMXDP_PIN_LIST_KEYS, SKEL(list_keys), ATT(list.keys_fd) },
	{ BLOOMXDP_PIN_LIST_V4, SKEL(list_v4), ATT(list.v4_fd) },
	{ BLOOMXDP_PIN_LIST_V6, SKEL(list_v6), ATT(list.v6_fd) },
	{ BLOOMXDP_PIN_LIST_HITS, SKEL(list_hits), ATT(list_hits_fd) },
	{ BLOOMXDP_PIN_SUFFIXES, SKEL(suffixes), ATT(suffixes_fd) },
	{ BLOOMXDP_PIN_LEARNED, SKEL(learned), ATT(learned_fd) },
	{ BLOOMXDP_PIN_PROG, PIN_PROG, PIN_UNOPENED },
	{ BLOOMXDP_PIN_LINK, PIN_LINK, PIN_UNOPENED },
	{ BLOOMXDP_PIN_GUARD_COUNTERS, PIN_GUARD, PIN_UNOPENED },
	{ BLOOMXDP_PIN_GUARD_CONNECT4, PIN_GUARD, PIN_UNOPENED },
	{ BLOOMXDP_PIN_GUARD_CONNECT6, PIN_GUARD, PIN_UNOPENED },
	{ BLOOMXDP_PIN_GUARD_SENDMSG4, PIN_GUARD, PIN_UNOPENED },
	{ BLOOMXDP_PIN_GUARD_SENDMSG6, PIN_GUARD, PIN_UNOPENED },
	{ BLOOMXDP_PIN_GROUP, PIN_GROUPMAP, PIN_UNOPENED },
};
#define NPINS (sizeof(pin_table) / sizeof(pin_table[0]))

#define EGRESS(name) BLOOMXDP_PIN_EGRESS_PREFIX name

/*
 * --direction both: the egress program's own pins, beside the table's (its
 * maps but these are the ingress program's). Optional: attachment_open()
 * opens them where they are, detach unlinks them with the table's.
 */
static const struct pin_spec egress_table[] = {
	{ EGRESS(BLOOMXDP_PIN_CONFIG), SKEL(rodata_config), ATT(egress.config_fd) },
	{ EGRESS(BLOOMXDP_PIN_COUNTERS), SKEL(counters), ATT(egress.counters_fd) },
	{ EGRESS(BLOOMXDP_PIN_LIST_HITS), SKEL(list_hits), ATT(egress.list_hits_fd) },
	{ EGRESS(BLOOMXDP_PIN_PROG), PIN_PROG, PIN_UNOPENED },
	{ EGRESS(BLOOMXDP_PIN_LINK), PIN_LINK, PIN_UNOPENED },
};

#undef ATT
#undef SKEL
#define NEGRESS (sizeof(egress_table) / sizeof(egress_table[0]))
/* Where a replaced pin goes first (bpffs refuses names with a dot). */
#define PIN_NEW_SUFFIX "_new"

static int *pin_att_fd(struct attachment *att, const struct pin_spec *p)
{
	return p->att_fd == PIN_UNOPENED ? NULL : (int *)((char *)att + p->att_fd);
}

/* Pins fd as name in place of what is there: a new pin first, then one rename. */
static int pin_replace(int dir_fd, const char *name, int fd)
{
	char tmp[64];
	int ret;

	snprintf(tmp, sizeof(tmp), "%s" PIN_NEW_SUFFIX, name);
	if (unlinkat(dir_fd, tmp, 0) && errno != ENOENT)
		return -errno;
	ret = pin_put(dir_fd, tmp, fd);
	if (ret)
		return ret;
	if (renameat(dir_fd, tmp, dir_fd, name)) {
		ret = -errno;
		unlinkat(dir_fd, tmp, 0);
		return ret;
	}
	return 0;
}

/* Pins the rows of table from skel; the link row only when there is a link (not clsact). */
static int pin_rows(int dir_fd, const char *path, const struct pin_spec *table, size_t n,
		    const struct bloomxdp *skel, int link_fd, bool replace)
{
	const struct pin_spec *p;
	int fd, ret;

	for (p = table; p < table + n; p++) {
		/* The guard's rows: pinned by kernel/guard.c, when it is on. */
		if (p->skel_map == PIN_GUARD || p->skel_map == PIN_GROUPMAP ||
		    (p->skel_map == PIN_LINK && link_fd < 0))
			continue;
		if (p->skel_map == PIN_LINK)
			fd = link_fd;
		else if (p->skel_map == PIN_PROG)
			fd = bpf_program__fd(skel->progs.bloomxdp_xdp);
		else
			fd = bpf_map__fd(*(struct bpf_map *const *)((const char *)skel + p->skel_map));
		ret = replace ? pin_replace(dir_fd, p->name, fd) : pin_put(dir_fd, p->name, fd);
		if (ret) {
			log_error("cannot pin %s/%s: %s", path, p->name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int attachment_pin_all(const struct pin_dir *pd, const struct bloomxdp *skel, int link_fd)
{
	return pin_rows(pd->fd, pd->path, pin_table, NPINS, skel, link_fd, false);
}

int attachment_pin_egress(int dir_fd, const struct bloomxdp *skel, int link_fd)
{
	return pin_rows(dir_fd, BLOOMXDP_PIN_ROOT, egress_table, NEGRESS, skel, link_fd, true);
}

int attachment_unpin_all(struct pin_dir *pd, const char *ifname)
{
	const char *name;
	int ret = 0, err;
	size_t i;

	char tmp[64];

	/* By name, ours only: anything else makes the directory stay, and says so. */
	for (i = 0; i < NPINS + NEGRESS; i++) {
		name = i < NPINS ? pin_table[i].name : egress_table[i - NPINS].name;
		if (unlinkat(pd->fd, name, 0) && errno != ENOENT && !ret)
			ret = -errno;
		/* What a replacement killed before its rename left. */
		snprintf(tmp, sizeof(tmp), "%s" PIN_NEW_SUFFIX, name);
		if (unlinkat(pd->fd, tmp, 0) && errno != ENOENT && !ret)
			ret = -errno;
	}
	err = pin_dir_remove(pd, ifname);
	return ret ? ret : err;
}

int attachment_reuse_maps_by_name(const struct attachment *att, struct bpf_object *obj,
				  const char *const *own)
{
	const struct pin_spec *p;
	struct bpf_map *map;
	const char *const *o;
	int ret;

	for (p = pin_table; p < pin_table + NPINS; p++) {
		/* The configuration is the new program's own; the program and links are no maps. */
		if (p->att_fd == PIN_UNOPENED || !strcmp(p->name, BLOOMXDP_PIN_CONFIG))
			continue;
		for (o = own; o && *o && strcmp(*o, p->name); o++)
			;
		if (o && *o)
			continue;
		map = bpf_object__find_map_by_name(obj, p->name);
		if (!map)
			return -ENOENT;
		ret = bpf_map__reuse_fd(map, *(const int *)((const char *)att + p->att_fd));
		if (ret)
			return ret;
	}
	return 0;
}

int attachment_reuse_maps(const struct attachment *att, struct bloomxdp *skel)
{
	return attachment_reuse_maps_by_name(att, skel->obj, NULL);
}

int attachment_reuse_maps_member(const struct attachment *att, struct bloomxdp *skel)
{
	static const char *const own[] = { BLOOMXDP_PIN_COUNTERS, BLOOMXDP_PIN_LIST_HITS, NULL };

	return attachment_reuse_maps_by_name(att, skel->obj, own);
}

int attachment_reuse_maps_but_active(const struct attachment *att, struct bloomxdp *skel)
{
	static const char *const own[] = { BLOOMXDP_PIN_ACTIVE, NULL };

	return attachment_reuse_maps_by_name(att, skel->obj, own);
}

int attachment_repin_program(const struct attachment *att, const struct bloomxdp *skel)
{
	int ret;

	ret = pin_replace(att->dir_fd, BLOOMXDP_PIN_PROG, bpf_program__fd(skel->progs.bloomxdp_xdp));
	if (!ret)
		ret = pin_replace(att->dir_fd, BLOOMXDP_PIN_CONFIG, bpf_map__fd(skel->maps.rodata_config));
	return ret;
}

int attachment_repin_active(const struct attachment *att, const struct bloomxdp *skel)
{
	return pin_replace(att->dir_fd, BLOOMXDP_PIN_ACTIVE, bpf_map__fd(skel->maps.active));
}

/* -EPROTO: pins of another version of bloomxdp (what says how they differ), and what to do. */
static int another_version(const struct attachment *att, const char *what)
{
	log_error("%s was attached by another version of bloomxdp (%s): 'bloomxdp detach %s', then "
		  "'bloomxdp restore %s' attaches it again with the lists its state records",
		  att->ifname, what, att->ifname, att->ifname);
	return -EPROTO;
}

/* Pins made by another version of bloomxdp may hold another layout. */
static int check_config_layout(const struct attachment *att)
{
	struct bpf_map_info info = {};
	struct bloomxdp_config cfg;
	__u32 len = sizeof(info), zero = 0;
	char what[96];

	if (bpf_obj_get_info_by_fd(att->config_fd, &info, &len))
		return -errno;
	if (info.value_size != sizeof(struct bloomxdp_config)) {
		snprintf(what, sizeof(what), "config of %u bytes, not %zu", info.value_size,
			 sizeof(struct bloomxdp_config));
		return another_version(att, what);
	}
	if (bpf_map_lookup_elem(att->config_fd, &zero, &cfg))
		return -errno;
	if (cfg.pins_version != BLOOMXDP_PINS_VERSION) {
		snprintf(what, sizeof(what), "pins of version %u, not %u", cfg.pins_version,
			 BLOOMXDP_PINS_VERSION);
		return another_version(att, what);
	}
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(att->state_fd, &info, &len))
		return -errno;
	/* The state's size also tells filters with their header last (older versions). */
	if (info.max_entries == BLOOMXDP_GENERATIONS &&
	    info.value_size == sizeof(struct bloomxdp_state))
		return 0;
	snprintf(what, sizeof(what), "state of %u slots of %u bytes, not %d of %zu",
		 info.max_entries, info.value_size, BLOOMXDP_GENERATIONS,
		 sizeof(struct bloomxdp_state));
	return another_version(att, what);
}

static void attachment_init(struct attachment *att)
{
	size_t i;

	memset(att, 0, sizeof(*att));
	att->dir_fd = att->lock_fd = att->group_fd = -1;
	for (i = 0; i < NPINS; i++)
		if (pin_att_fd(att, &pin_table[i]))
			*pin_att_fd(att, &pin_table[i]) = -1;
	for (i = 0; i < NEGRESS; i++)
		if (pin_att_fd(att, &egress_table[i]))
			*pin_att_fd(att, &egress_table[i]) = -1;
	/* The allowlist's sets are LPM tries only (exact.h). */
	att->allow.p4_fd = att->allow.p6_fd = att->allow.r4_fd = att->allow.r6_fd = -1;
	att->allow.t4_fd = att->allow.t6_fd = -1;
}

/* --direction both: the egress program's pins, where they are. */
static int open_egress(struct attachment *att)
{
	__u32 zero = 0;
	size_t i;
	int *fd;

	att->egress.config_fd = pin_get(att->dir_fd, egress_table[0].name);
	if (att->egress.config_fd == -ENOENT) {
		att->egress.config_fd = -1;
		return 0;
	}
	for (i = 0; i < NEGRESS; i++) {
		fd = pin_att_fd(att, &egress_table[i]);
		if (fd && *fd < 0 && (*fd = open_pin(att, egress_table[i].name)) < 0)
			return *fd;
	}
	if (bpf_map_lookup_elem(att->egress.config_fd, &zero, &att->egress.config)) {
		log_error("%s: cannot read the egress program's configuration: %s", att->dir,
			  strerror(errno));
		return -errno;
	}
	att->egress.present = true;
	return 0;
}

int group_create(const struct bloomxdp_group *g)
{
	__u32 zero = 0;
	int fd, ret;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bloomxdp_group", sizeof(zero), sizeof(*g), 1,
			    NULL);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(fd, &zero, g, BPF_ANY)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int group_pin(int dir_fd, int group_fd)
{
	return pin_replace(dir_fd, BLOOMXDP_PIN_GROUP, group_fd);
}

/* A pin of bpffs is hostile until checked: its size, its count, every name. */
static int group_check(int fd, const struct bloomxdp_group *g)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), i;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.value_size != sizeof(*g) ||
	    g->n < 1 || g->n > BLOOMXDP_GROUP_MAX)
		return -EPROTO;
	for (i = 0; i < g->n; i++)
		if (!memchr(g->members[i], '\0', sizeof(g->members[i])) ||
		    ifname_invalid(g->members[i]))
			return -EPROTO;
	return 0;
}

int group_read(int dir_fd, int *fd, struct bloomxdp_group *g)
{
	__u32 zero = 0;
	int ret;

	*fd = pin_get(dir_fd, BLOOMXDP_PIN_GROUP);
	if (*fd < 0)
		return *fd;
	ret = bpf_map_lookup_elem(*fd, &zero, g) ? -errno : group_check(*fd, g);
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

/*
 * Whether path looks like a directory of ours, checked without a word: what
 * pin_dir_open() would refuse, and say, is left to the caller's own open.
 */
static bool own_dir_plausible(const char *path)
{
	struct stat st;

	return !fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid() && !(st.st_mode & 077);
}

void attachment_home(const char *ifname, char home[IF_NAMESIZE])
{
	char path[PATH_MAX];
	struct bloomxdp_group g;
	struct pin_dir pd;
	int fd;

	snprintf(home, IF_NAMESIZE, "%s", ifname);
	if (ifname_invalid(ifname) || !own_dir_plausible(BLOOMXDP_PIN_ROOT))
		return;
	snprintf(path, sizeof(path), "%s/%s", BLOOMXDP_PIN_ROOT, ifname);
	if (!own_dir_plausible(path) || pin_dir_open(ifname, false, &pd))
		return;
	if (!group_read(pd.fd, &fd, &g)) {
		snprintf(home, IF_NAMESIZE, "%s", g.members[0]);
		close(fd);
	}
	pin_dir_close(&pd);
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int attachment_lock_dir(int dir_fd, const char *path, int *lock_fd)
{
	struct bloomxdp_group g;
	struct pin_dir pd;
	int fd, ret;

	*lock_fd = -1;
	ret = group_read(dir_fd, &fd, &g);
	if (ret && ret != -ENOENT) {
		log_error("%s/%s: not a group this bloomxdp reads (%s); 'bloomxdp detach' its "
			  "interfaces and attach them again", path, BLOOMXDP_PIN_GROUP,
			  strerror(-ret));
		return ret;
	}
	if (!ret) {
		close(fd);
		ret = pin_dir_open(g.members[0], false, &pd);
		if (ret == -ENOENT)
			log_error("%s is in the group of %s, which is not attached: 'bloomxdp "
				  "restore %s' brings the group back", path, g.members[0],
				  g.members[0]);
		if (ret)
			return ret;
		/* The home itself: its own descriptor (a second one would wait for the first). */
		if (!same_file(pd.fd, dir_fd)) {
			*lock_fd = pd.fd;
			pd.fd = -1;
		}
		pin_dir_close(&pd);
	}
	if (flock(*lock_fd >= 0 ? *lock_fd : dir_fd, LOCK_EX)) {
		ret = -errno;
		log_error("%s: cannot lock: %s", path, strerror(-ret));
		if (*lock_fd >= 0)
			close(*lock_fd);
		*lock_fd = -1;
		return ret;
	}
	return 0;
}

/* attach IF1 IF2 ...: the group att is in, if any. */
static int open_group(struct attachment *att)
{
	int ret = group_read(att->dir_fd, &att->group_fd, &att->group);

	if (ret == -ENOENT)
		return 0;
	if (ret) {
		log_error("%s/%s: not a group this bloomxdp reads (%s); 'bloomxdp detach %s' and "
			  "attach again", att->dir, BLOOMXDP_PIN_GROUP, strerror(-ret), att->ifname);
		return ret;
	}
	att->grouped = true;
	return 0;
}

int attachment_open(const char *ifname, bool lock, struct attachment *att)
{
	struct pin_dir pd;
	__u32 zero = 0;
	size_t i;
	int ret, *fd;

	attachment_init(att);
	ret = check_privileges();
	if (ret)
		return ret;
	ret = pin_dir_open(ifname, false, &pd);
	if (ret) {
		if (ret == -ENOENT && !if_nametoindex(ifname))
			log_error("%s: no such interface in this network namespace ('ip link' "
				  "lists them; for one in another, run bloomxdp there: nsenter "
				  "--net=/run/netns/NAME)", ifname);
		else if (ret == -ENOENT)
			log_error("not attached to %s: attach it first with "
				  "'bloomxdp attach %s'", ifname, ifname);
		return ret;
	}
	/* Only the pins' directory is needed from now on. */
	att->dir_fd = pd.fd;
	pd.fd = -1;
	pin_dir_close(&pd);
	strcpy(att->ifname, ifname);
	strcpy(att->dir, pd.path);

	ret = open_group(att);
	if (ret)
		goto err;
	if (lock) {
		ret = attachment_lock_dir(att->dir_fd, att->dir, &att->lock_fd);
		if (ret)
			goto err;
	}

	for (i = 0; i < NPINS; i++) {
		fd = pin_att_fd(att, &pin_table[i]);
		if (!fd)
			continue;
		ret = *fd = open_pin(att, pin_table[i].name);
		if (ret < 0)
			goto err;
	}
	ret = check_config_layout(att);
	if (ret)
		goto err;
	if (bpf_map_lookup_elem(att->config_fd, &zero, &att->config)) {
		ret = -errno;
		log_error("%s: cannot read the configuration: %s", att->dir, strerror(-ret));
		goto err;
	}
	ret = open_egress(att);
	if (ret)
		goto err;
	return 0;
err:
	attachment_close(att);
	return ret;
}

void attachment_close(struct attachment *att)
{
	size_t i;
	int *fd;

	for (i = 0; i < NPINS + NEGRESS; i++) {
		fd = pin_att_fd(att, i < NPINS ? &pin_table[i] : &egress_table[i - NPINS]);
		if (fd && *fd >= 0)
			close(*fd);
		if (fd)
			*fd = -1;
	}
	att->egress.present = false;
	att->grouped = false;
	if (att->group_fd >= 0)
		close(att->group_fd);
	if (att->lock_fd >= 0)
		close(att->lock_fd);
	if (att->dir_fd >= 0)
		close(att->dir_fd);
	att->dir_fd = att->lock_fd = att->group_fd = -1;
}

int attachment_read_state(const struct attachment *att, __u32 slot, struct bloomxdp_state *state)
{
	return bpf_map_lookup_elem(att->state_fd, &slot, state) ? -errno : 0;
}

int attachment_write_state(const struct attachment *att, __u32 slot,
			   const struct bloomxdp_state *state)
{
	return bpf_map_update_elem(att->state_fd, &slot, state, BPF_ANY) ? -errno : 0;
}

int attachment_active(const struct attachment *att, __u32 which, __u32 *slot)
{
	if (bpf_map_lookup_elem(att->active_fd, &which, slot))
		return -errno;
	*slot &= BLOOMXDP_GENERATIONS - 1;
	return 0;
}

int attachment_flip(const struct attachment *att, __u32 which, __u32 slot, __u32 flags,
		    const int *outers, int n)
{
	__u32 old = slot ^ 1, word = slot | flags, id;
	int i, fd;

	if (bpf_map_update_elem(att->active_fd, &which, &word, BPF_ANY))
		return -errno;
	/*
	 * A map-in-map update returns only once every running program is done
	 * (synchronize_rcu): rewriting the new slot with itself waits out the
	 * packets that read the old active word. Then the old slot is unused.
	 */
	if (bpf_map_lookup_elem(outers[0], &slot, &id) == 0) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd >= 0) {
			bpf_map_update_elem(outers[0], &slot, &fd, BPF_ANY);
			close(fd);
		}
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(outers[i], &old);
	return 0;
}

int attachment_allow_add_flags(const struct attachment *att, __u32 flags)
{
	__u32 which = BLOOMXDP_ACTIVE_ALLOW, word;

	/* Writers hold the attachment lock: read, or, write is safe. */
	if (bpf_map_lookup_elem(att->active_fd, &which, &word))
		return -errno;
	word |= flags;
	return bpf_map_update_elem(att->active_fd, &which, &word, BPF_ANY) ? -errno : 0;
}

const char *direction_name(__u32 direction)
{
	return direction == BLOOMXDP_DIR_EGRESS ? "egress" : "ingress";
}

/* The XDP mode in which ifindex runs prog_id. */
static const char *xdp_mode(__u32 ifindex, __u32 prog_id)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	/* The link holds an ifindex of its own namespace; this one may differ. */
	if (bpf_xdp_query(ifindex, 0, &q))
		return "unknown (attached from another network namespace?)";
	return q.drv_prog_id == prog_id ? "native" : q.skb_prog_id == prog_id ? "generic" :
	       q.hw_prog_id == prog_id ? "offload" :
	       "unknown (attached from another network namespace?)";
}

/* A clsact filter has no link: the interface says which program its filter runs. */
static int read_clsact(const struct attachment *att, const struct bloomxdp_config *cfg,
		       const char *prog_pin, struct link_view *view)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), running = 0;
	int fd, ret = 0;

	fd = pin_get(att->dir_fd, prog_pin);
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	view->prog_id = info.id;
	view->ifindex = if_nametoindex(att->ifname);
	if (view->ifindex)
		ret = tc_clsact_prog(view->ifindex, cfg->direction, &running);
	if (ret)
		return ret;
	if (!view->ifindex || running != info.id) {
		view->ifindex = 0;
		view->mode = "detached (its clsact filter or interface is gone)";
		return 0;
	}
	view->mode = tc_via_name(TC_VIA_CLSACT);
	return 0;
}

/*
 * An XDP program without a link of ours: loaded by libxdp as an extension of
 * its dispatcher (-ENOENT, unprinted: not one, as if the link pin were gone),
 * running as one of its components on the interface, or no longer (ifindex 0).
 */
static int read_component(const struct attachment *att, struct link_view *view)
{
	struct bpf_prog_info info = {};
	struct multiprog_view v;
	__u32 len = sizeof(info);
	int fd, ret = 0;

	fd = pin_get(att->dir_fd, BLOOMXDP_PIN_PROG);
	if (fd < 0)
		return -ENOENT;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		ret = -errno;
	close(fd);
	if (ret || info.type != BPF_PROG_TYPE_EXT)
		return -ENOENT;
	view->prog_id = info.id;
	view->component = true;
	view->ifindex = if_nametoindex(att->ifname);
	if (!view->ifindex || multiprog_find(view->ifindex, info.id, &v)) {
		view->ifindex = 0;
		view->mode = "detached (no longer in libxdp's dispatcher)";
		return 0;
	}
	snprintf(view->mode_buf, sizeof(view->mode_buf), "libxdp (dispatcher, %s, priority %u)",
		 v.mode, v.priority);
	view->mode = view->mode_buf;
	return 0;
}

int attachment_read_hook(const struct attachment *att, bool egress, struct link_view *view)
{
	const struct bloomxdp_config *cfg = egress ? &att->egress.config : &att->config;
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int fd, ret = 0;

	view->mode = "unknown";
	if (egress && !att->egress.present)
		return -ENOENT;
	view->hook = cfg->hook == BLOOMXDP_HOOK_TC ? "tc" : "xdp";
	view->direction = direction_name(cfg->direction);
	fd = pin_get(att->dir_fd, egress ? EGRESS(BLOOMXDP_PIN_LINK) : BLOOMXDP_PIN_LINK);
	if (fd == -ENOENT && cfg->hook == BLOOMXDP_HOOK_TC)
		return read_clsact(att, cfg, egress ? EGRESS(BLOOMXDP_PIN_PROG) : BLOOMXDP_PIN_PROG,
				   view);
	if (fd == -ENOENT && !egress && !read_component(att, view))
		return 0;
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		ret = -errno;
		goto out;
	}
	view->prog_id = info.prog_id;
	view->ifindex = info.xdp.ifindex;	/* a tcx link's ifindex is where XDP's is */
	if (!view->ifindex)
		view->mode = "detached (interface gone)";
	else if (cfg->hook == BLOOMXDP_HOOK_TC)
		view->mode = tc_via_name(TC_VIA_TCX);
	else
		view->mode = xdp_mode(view->ifindex, view->prog_id);
out:
	close(fd);
	return ret;
}

int attachment_read_link(const struct attachment *att, struct link_view *view)
{
	return attachment_read_hook(att, false, view);
}

int attachment_lock(struct attachment *att)
{
	struct stat held, now;
	struct pin_dir pd;
	bool same;
	int ret;

	if (att->lock_fd < 0) {
		ret = attachment_lock_dir(att->dir_fd, att->dir, &att->lock_fd);
		if (ret)
			return ret;
	} else if (flock(att->lock_fd, LOCK_EX)) {
		ret = -errno;
		log_error("%s: cannot lock: %s", att->dir, strerror(-ret));
		return ret;
	}
	/* The directory by its name now, checked as attachment_open() checked it. */
	ret = pin_dir_open(att->ifname, false, &pd);
	if (ret && ret != -ENOENT)
		return ret;
	same = !ret && !fstat(att->dir_fd, &held) && !fstat(pd.fd, &now) &&
	       held.st_dev == now.st_dev && held.st_ino == now.st_ino;
	if (!ret)
		pin_dir_close(&pd);
	if (!same) {
		log_error("%s was detached (or attached again) meanwhile: nothing was changed; "
			  "run the command again", att->ifname);
		return -ESTALE;
	}
	return 0;
}

int attachment_check_enforced(const struct attachment *att)
{
	struct link_view link = {};
	int ret, i;

	/* Each program of the attachment: the plain pins', and the egress one's if any. */
	for (i = 0; i < 1 + att->egress.present; i++) {
		ret = attachment_read_hook(att, i, &link);
		if (ret) {
			log_error("the list of %s is written, but nothing enforces it: its link pin "
				  "cannot be read (%s); 'bloomxdp detach %s' and attach again",
				  att->ifname, strerror(-ret), att->ifname);
			return ret;
		}
		if (!link.ifindex) {
			log_error("the list of %s is written, but nothing enforces it: %s (%s); "
				  "'bloomxdp detach %s', and attach again once it is back",
				  att->ifname, !if_nametoindex(att->ifname) ? "the interface is gone" :
				  link.component ? "its program is no longer in libxdp's dispatcher" :
				  "its tc filter is gone", link.direction, att->ifname);
			return -ENODEV;
		}
	}
	return 0;
}
