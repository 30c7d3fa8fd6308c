/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What holds an interface's XDP hook besides bloomxdp: another tool's program
 * (xdp-loader's, xdp-filter's, libxdp's dispatcher), in each XDP mode. attach
 * --force removes it and names it; the state records it (one settings line,
 * XDP_HELD_KEY), so that detach and status can say what ran before.
 */
#ifndef BLOOMXDP_XDP_HOOK_H
#define BLOOMXDP_XDP_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/bpf.h>
#include <linux/types.h>

/* The XDP modes, as status and the state name them. */
enum xdp_held_mode { XDP_HELD_NATIVE, XDP_HELD_GENERIC, XDP_HELD_OFFLOAD, XDP_HELD_MODES };

/* libxdp's dispatcher, by its program's name: the programs it runs are libxdp's components. */
#define XDP_DISPATCHER_NAME "xdp_dispatcher"

/* One program on the hook. */
struct xdp_held {
	__u32 id;
	__u32 mode;				/* enum xdp_held_mode */
	char name[BPF_OBJ_NAME_LEN];		/* "" when the kernel would not say */
	char tag[2 * BPF_TAG_SIZE + 1];		/* hex; "" when unknown */
};

/* What holds the hook: up to one program per mode. */
struct xdp_hook {
	unsigned int n;
	struct xdp_held prog[XDP_HELD_MODES];
};

/* "native", "generic", "offload". */
const char *xdp_held_mode_name(__u32 mode);

/* What holds ifindex's XDP hook (n == 0: nothing). -errno. */
int xdp_hook_read(int ifindex, struct xdp_hook *h);

/* Whether a program on the hook is libxdp's dispatcher. */
bool xdp_hook_dispatcher(const struct xdp_hook *h);

/*
 * Removes every program of h from ifindex (netlink: a program a bpf link holds
 * cannot be removed, -EBUSY, said with what to do). -errno.
 */
int xdp_hook_clear(const char *ifname, int ifindex, const struct xdp_hook *h);

/*
 * Before attach: nothing on ifindex's hook, or with force, what is there
 * removed (into *replaced, said on stderr); else refused with what holds it
 * and what to do (-EBUSY). -errno.
 */
int xdp_hook_take(const char *ifname, int ifindex, bool force, struct xdp_hook *replaced);

/* "xdp_pass (id 12, generic)[, ...]": h's programs, for messages (XDP_HOOK_TEXT_MAX holds them). */
#define XDP_HOOK_TEXT_MAX 256
const char *xdp_hook_text(const struct xdp_hook *h, char *buf, size_t len);

/*
 * Whether a program still exists: the same id with the same tag (an id is not
 * reused at once, but a tag tells one program from another).
 */
bool xdp_held_alive(const struct xdp_held *p);

/*
 * The settings line of one replaced program: XDP_HELD_KEY "=ID,MODE,TAG,NAME".
 * Not an option ("--"): restore skips it.
 */
#define XDP_HELD_KEY "replaced-xdp"
void xdp_held_write(const struct xdp_held *p, char *buf, size_t len);
/* 1: line is one (into h, if room); 0: not one; -EINVAL: one, malformed. */
int xdp_held_parse(const char *line, struct xdp_hook *h);
/* Every XDP_HELD_KEY line of a settings text into h (the others skipped). -EINVAL. */
int xdp_hook_from_settings(const char *text, size_t len, struct xdp_hook *h);

struct state_dir;
/*
 * Into a settings text being written (out): now's lines; when now holds
 * nothing and keep, those of the settings sd holds (an attachment whose
 * program is swapped, or restored, still ran over the same program); a record
 * that cannot be read is dropped, with a warning. 0.
 */
int xdp_hook_record(const struct state_dir *sd, const struct xdp_hook *now, bool keep, FILE *out);

/*
 * What the state of ifname records as replaced by attach --force (h->n == 0:
 * nothing, or no state). state_dir: NULL, the default. -errno, printed.
 */
int xdp_hook_recorded(const char *ifname, const char *state_dir, struct xdp_hook *h);

/* detach's and status's line of what ran before: "" when h holds nothing. */
const char *xdp_hook_before_text(const char *ifname, const struct xdp_hook *h, char *buf,
				 size_t len);

#endif
