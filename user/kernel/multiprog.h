/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libxdp's dispatcher (attach --multiprog): bloomxdp's XDP program as one of
 * its components, at the priority and chain actions of bpf/run_config.h.
 * libxdp loads the program (an extension of its dispatcher) and holds the
 * attachment through its pins under /sys/fs/bpf/xdp: bloomxdp then has no link
 * of its own, and finds its program among the dispatcher's by its id.
 */
#ifndef BLOOMXDP_MULTIPROG_H
#define BLOOMXDP_MULTIPROG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_object;

/*
 * The settings line of an attachment that joined a dispatcher (not an option:
 * restore skips it, and joins again as --multiprog says).
 */
#define MULTIPROG_KEY "multiprog-joined"
#define MULTIPROG_COMPONENT "libxdp-dispatcher"

/* libxdp's last message, or strerror: why a join failed. */
#define MULTIPROG_WHY_MAX 192

/*
 * Loads obj's XDP program through libxdp and adds it to ifindex's dispatcher
 * (one made where there is none; mode: enum attach_mode, the dispatcher's own
 * when auto). 0: a component; -errno with why: libxdp could not make or load
 * the dispatcher (this kernel's compatibility check failed: -EOPNOTSUPP), or
 * refused the program. Nothing is left on the hook on failure; obj is then
 * loaded or not, and only closed.
 */
int multiprog_join(int ifindex, struct bpf_object *obj, __u32 mode, char *why, size_t len);

/* What a component is: its priority, chain actions and the dispatcher's XDP mode. */
struct multiprog_view {
	__u32 priority;
	__u32 chain;			/* a bit per XDP action that goes on to the next */
	const char *mode;		/* "native", "generic", "offload" */
};

/* Whether prog_id is a component of ifindex's dispatcher: 0 and *v, or -ENOENT. */
int multiprog_find(int ifindex, __u32 prog_id, struct multiprog_view *v);

/* prog_id out of ifindex's dispatcher (the others run on). -ENOENT: not one of its. */
int multiprog_leave(int ifindex, __u32 prog_id);

#endif
