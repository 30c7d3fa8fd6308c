/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_ATTACHMENT_H
#define BLOOMXDP_ATTACHMENT_H

#include <limits.h>
#include <sys/types.h>
#include <stdbool.h>
#include <net/if.h>
#include <bloomxdp/common.h>
#include "filter/exact.h"

/* What the pins under BLOOMXDP_PIN_ROOT/<ifname>/ give a command. */
struct attachment {
	char ifname[IF_NAMESIZE];
	char dir[PATH_MAX];	/* for messages */
	int dir_fd;		/* the pins' directory */
	int lock_fd;		/* what writers flock: dir_fd, or the group's home's directory */
	int config_fd;
	int filter_fd;		/* outer ARRAY_OF_MAPS */
	int kfilter_fd;		/* outer ARRAY_OF_MAPS of BLOOM_FILTER maps (layout kernel) */
	struct exact_outer verify;
	struct exact_outer allow;
	int ranges_v4_fd;	/* outer ARRAY_OF_MAPS of exact intervals (BLOOMXDP_RANGES_WORD) */
	int ranges_v6_fd;
	int active_fd;
	int counters_fd;
	int state_fd;
	int events_fd;
	int lists_fd;		/* struct bloomxdp_list by id */
	struct {		/* named lists' copies, at BLOOMXDP_LIST_INDEX() (named.h) */
		int keys_fd;
		int v4_fd;
		int v6_fd;
	} list;
	int list_hits_fd;
	int suffixes_fd;	/* public suffixes, listed keys at their depth (filter/suffix_map.h) */
	int learned_fd;		/* LRU_HASH: addresses learned from DNS answers (load --learn) */
	struct bloomxdp_config config;	/* of the program with the plain pins (its direction) */
	struct {		/* --direction both: the egress program's own (BLOOMXDP_PIN_EGRESS_*) */
		bool present;
		int config_fd;
		int counters_fd;
		int list_hits_fd;
		struct bloomxdp_config config;
	} egress;
	/* attach IF1 IF2 ...: the group it is in (BLOOMXDP_PIN_GROUP), else grouped false. */
	bool grouped;
	int group_fd;
	struct bloomxdp_group group;
};

/* Who may run: root, or CAP_BPF + CAP_NET_ADMIN. Prints the error. */
int check_privileges(void);

/* bpffs must be mounted at BLOOMXDP_BPFFS. Prints the error. */
int check_bpffs(void);

/* ifname must be valid and exist in this network namespace. Prints the error. */
int check_interface(const char *ifname, int *ifindex);

/*
 * The directories of an attachment's pins, each opened without following a
 * symbolic link and checked to be ours: on a bpffs of mode 1777 (what
 * 'mount -t bpf bpf /sys/fs/bpf' makes) anyone may create BLOOMXDP_PIN_ROOT
 * before us, and put links or other pins in it.
 */
struct pin_dir {
	int bpffs_fd;		/* BLOOMXDP_BPFFS */
	int root_fd;		/* BLOOMXDP_PIN_ROOT */
	int fd;			/* BLOOMXDP_PIN_ROOT/<ifname> */
	char path[PATH_MAX];	/* of fd, for messages */
};

/*
 * Opens BLOOMXDP_PIN_ROOT/<ifname>/ one level at a time with O_NOFOLLOW, and
 * refuses a level that is not a directory owned by the effective uid with no
 * group or other permissions. With create, makes what is missing (mode 0700),
 * and returns -EEXIST if the interface's directory was there already.
 * Returns -ENOENT, unprinted, when it is not there (not attached); prints the
 * other errors.
 */
int pin_dir_open(const char *ifname, bool create, struct pin_dir *pd);
/*
 * The blocklist's live slot and its bookkeeping; on failure says so, ending
 * "; <unchanged> is unchanged" ("the live list", "the allowlist").
 */
int attachment_read_live(struct attachment *att, __u32 *slot, struct bloomxdp_state *st,
			 const char *unchanged);

void pin_dir_close(struct pin_dir *pd);
/* Removes the directory (it must be empty) and BLOOMXDP_PIN_ROOT if it is empty. */
int pin_dir_remove(struct pin_dir *pd, const char *ifname);

/* bpf_obj_get() and bpf_obj_pin() (mode 0600) of name in the directory dir_fd. */
int pin_get(int dir_fd, const char *name);
int pin_put(int dir_fd, const char *name, int fd);

/*
 * Every pinned object of an attachment, one table in attachment.c: attach
 * pins them all from the loaded skeleton and its link (the link last), detach
 * unlinks exactly these names, then removes the directory.
 */
struct bloomxdp;
int attachment_pin_all(const struct pin_dir *pd, const struct bloomxdp *skel, int link_fd);
/*
 * --direction both: the egress program's own pins (BLOOMXDP_PIN_EGRESS_*):
 * its program, configuration, counters and list hits, and its link (link_fd
 * -1: a clsact filter, no link). Pinned in place of what is there.
 */
int attachment_pin_egress(int dir_fd, const struct bloomxdp *skel, int link_fd);
int attachment_unpin_all(struct pin_dir *pd, const char *ifname);

struct attachment;
/* Before a load of the skeleton: every pinned map but the configuration is att's own. */
/* ... but the configuration, counters and list hits (a group's member). */
int attachment_reuse_maps_member(const struct attachment *att, struct bloomxdp *skel);
int attachment_reuse_maps(const struct attachment *att, struct bloomxdp *skel);
/*
 * The same for any BPF object holding the maps of bpf/maps.h (the socket
 * guard's), found by name, but the configuration and the names in own
 * (NULL-terminated, may be NULL): those stay the object's own. -ENOENT when
 * the object lacks one.
 */
struct bpf_object;
int attachment_reuse_maps_by_name(const struct attachment *att, struct bpf_object *obj,
				  const char *const *own);
/* After the link runs the skeleton's program: its program and configuration pinned. */
int attachment_repin_program(const struct attachment *att, const struct bloomxdp *skel);
/*
 * The same, but the active array the skeleton's own (a program that reads
 * other generation slots: another hash key, restore --file), pinned after the
 * link runs it by attachment_repin_active().
 */
int attachment_reuse_maps_but_active(const struct attachment *att, struct bloomxdp *skel);
int attachment_repin_active(const struct attachment *att, const struct bloomxdp *skel);

/*
 * Opens an existing attachment's pins; with lock, takes the writers' lock
 * (load, add, detach). Prints the error, e.g. "not attached".
 */
int attachment_open(const char *ifname, bool lock, struct attachment *att);
void attachment_close(struct attachment *att);

/* The live generation slot of the blocklist or allowlist maps (BLOOMXDP_ACTIVE_*). */
int attachment_active(const struct attachment *att, __u32 which, __u32 *slot);

/*
 * Makes generation slot live for which (its active word: slot | flags, the
 * BLOOMXDP_ALLOW_HAS_* of an allowlist), then waits until no packet can still
 * use the other one, whose maps it then frees. outers: the outer maps of
 * that list, n of them.
 */
int attachment_flip(const struct attachment *att, __u32 which, __u32 slot, __u32 flags,
		    const int *outers, int n);

/* add --allow: what the live allowlist holds now includes flags. */
int attachment_allow_add_flags(const struct attachment *att, __u32 flags);

struct link_view {
	__u32 prog_id;
	__u32 ifindex;		/* 0 once the interface is gone */
	const char *mode;	/* XDP: native, generic, offload; tc: tcx, clsact */
	const char *hook;	/* "xdp" or "tc" */
	const char *direction;	/* "ingress" or "egress" */
	bool component;		/* XDP in libxdp's dispatcher: no link of ours (mode says) */
	char mode_buf[64];
};

/*
 * What the pinned link says (XDP or tcx; a clsact filter has none, and is
 * looked up on the interface): its program, interface and mode. egress: the
 * egress program of --direction both (BLOOMXDP_PIN_EGRESS_*).
 */
int attachment_read_link(const struct attachment *att, struct link_view *view);
int attachment_read_hook(const struct attachment *att, bool egress, struct link_view *view);
/* "ingress" or "egress". */
const char *direction_name(__u32 direction);

/*
 * A group (attach IF1 IF2 ...): the group map of the pin directory dir_fd,
 * read and checked (-ENOENT, unprinted: not in a group). group_create()
 * makes one (its fd), group_pin() pins it in a member's directory.
 */
int group_read(int dir_fd, int *fd, struct bloomxdp_group *g);
int group_create(const struct bloomxdp_group *g);
int group_pin(int dir_fd, int group_fd);
/* The group's home of ifname (ifname itself when it is in none, or not attached). */
void attachment_home(const char *ifname, char home[IF_NAMESIZE]);
/*
 * Takes the writers' lock of the pin directory dir_fd: its own, or that of
 * its group's home. *lock_fd: the home's directory to close, else -1.
 */
int attachment_lock_dir(int dir_fd, const char *path, int *lock_fd);

/*
 * Takes the writers' lock of an attachment opened without it, then checks
 * that the pins are still those it opened (no detach and attach came between).
 */
int attachment_lock(struct attachment *att);

/*
 * After a change of the list: fails, with the error printed, when nothing
 * enforces it (the link pin is gone, or its interface is).
 */
int attachment_check_enforced(const struct attachment *att);

/* The bookkeeping of generation slot (see struct bloomxdp_state). */
int attachment_read_state(const struct attachment *att, __u32 slot, struct bloomxdp_state *state);
int attachment_write_state(const struct attachment *att, __u32 slot,
			   const struct bloomxdp_state *state);

#endif
