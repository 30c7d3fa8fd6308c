/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tc hook of a packet program (attach --hook tc, --direction egress):
 * a tcx link where the kernel has tcx (Linux 6.6+), ordered among other tc
 * programs by the kernel, else a clsact filter (BLOOMXDP_TC_HANDLE,
 * BLOOMXDP_TC_PRIORITY) in direct-action mode. libbpf 1.1 has no tcx attach
 * call: the link is made by bpf_link_create() with the TCX attach type.
 */
#ifndef BLOOMXDP_TC_H
#define BLOOMXDP_TC_H

#include <stdbool.h>
#include <linux/types.h>
#include <bloomxdp/common.h>

/* How a tc program is attached. */
enum tc_via {
	TC_VIA_TCX,		/* a BPF link: pinned, gone with its last reference */
	TC_VIA_CLSACT,		/* a clsact filter: stays until detached by handle */
};

/* "tcx" or "clsact". */
const char *tc_via_name(enum tc_via via);

/*
 * Attaches prog_fd at ifindex's tc hook of direction dir: a tcx link (its fd
 * in *link_fd), else, on a kernel without tcx, a clsact filter (*link_fd -1).
 * A clsact filter of bloomxdp's handle already there, which no attachment
 * holds (the caller checked: a lost pin directory left it), is replaced with
 * a notice. Errors are printed.
 */
int tc_attach(const char *ifname, int ifindex, int prog_fd, enum bloomxdp_direction dir,
	      enum tc_via *via, int *link_fd);

/* bloomxdp's clsact filter at that hook made to run prog_fd instead, in place. */
int tc_clsact_replace(const char *ifname, int ifindex, int prog_fd, enum bloomxdp_direction dir);

/* The program id of bloomxdp's clsact filter at ifindex's hook dir: 0 when none. */
int tc_clsact_prog(int ifindex, enum bloomxdp_direction dir, __u32 *prog_id);

/*
 * Removes bloomxdp's clsact filter at ifindex's hook dir if it runs prog_id
 * (0: whatever it runs); the clsact qdisc stays, other filters may use it.
 * 0 when there is none.
 */
int tc_clsact_detach(int ifindex, enum bloomxdp_direction dir, __u32 prog_id);

#endif
