/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The socket guard (bpf/connect.bpf.c): cgroup connect4, connect6, sendmsg4
 * and sendmsg6 hooks that refuse at once (EPERM) a local connect() or UDP
 * sendmsg() to an address an attachment's lists block, as --match src looks
 * up the remote host. It reads the attachment's maps (pins reused by name:
 * the same lists, the same generation swap) and counts into counters of its
 * own. It covers every socket of the attachment's network namespace whose
 * process is in the cgroup (or below it), whatever interface its traffic
 * would leave by; sockets of other namespaces pass unlooked at.
 *
 * Its four BPF links and its counters are pinned beside the attachment's
 * (BLOOMXDP_PIN_GUARD_*): they outlive the process, and detach removes them.
 * Errors are said on stderr; -errno.
 */
#ifndef BLOOMXDP_GUARD_H
#define BLOOMXDP_GUARD_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

struct attachment;

/* The word of --cgroup for the root of the cgroup v2 hierarchy (as NULL). */
#define GUARD_CGROUP_ROOT "root"

/*
 * The cgroup v2 hierarchy's mount point, from /proc/self/mountinfo (on a
 * hybrid hierarchy, e.g. /sys/fs/cgroup/unified). -ENOENT, said, when no
 * cgroup2 is mounted.
 */
int guard_cgroup_root(char *out, size_t len);
/* Whether a cgroup v2 hierarchy is mounted (nothing said). */
bool guard_cgroup_mounted(void);

/*
 * Turns the guard on for the attachment of ifname, over cgroup_path (a cgroup
 * v2 directory; NULL or GUARD_CGROUP_ROOT: the hierarchy's root). Run in the
 * interface's network namespace, as every command: that namespace is the one
 * guarded. On a guard already on: its programs replaced (new settings of
 * attach --force) when the cgroup is the same, else -EEXIST. Takes the
 * attachment's writers' lock; guard_attach_att() for a caller that holds it.
 */
int guard_attach(const char *ifname, const char *cgroup_path);
int guard_attach_att(const struct attachment *att, const char *cgroup_path);

/*
 * Turns the guard off: its links detached (the hooks gone at once) and
 * unpinned, its counters unpinned. 0 when it was not on. The _att variant as
 * above; guard_detach_dir() on a pin directory's descriptor (detach).
 */
int guard_detach(const char *ifname);
int guard_detach_att(const struct attachment *att);
int guard_detach_dir(int dir_fd, const char *dir);

/* What status and stats show of the guard. */
struct guard_status {
	bool on;		/* its links are pinned */
	int links;		/* how many of the four (4 when whole) */
	__u64 cgroup_id;	/* of the cgroup its links hold */
	char cgroup[PATH_MAX];	/* that cgroup's directory; "" when not found */
	int counters_fd;	/* its per-CPU struct bloomxdp_counters (counters_read()); -1: off */
};

/* Reads it (st->on false, 0, when off); guard_status_close() closes counters_fd. */
int guard_status(const struct attachment *att, struct guard_status *st);
void guard_status_close(struct guard_status *st);

#endif
