/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libxdp's run configuration of the XDP program (xdp_helpers.h, Debian's
 * libxdp-dev): where bloomxdp_xdp runs among the programs of a libxdp
 * dispatcher (a lower priority runs first: a blocklist drops before the others
 * spend work on the packet), and that the next program runs when it passes a
 * packet (XDP_PASS chains; a drop or an NXDOMAIN answer ends the chain). Only
 * libxdp reads the section; libbpf leaves it out of the load and the kernel
 * never sees it. Included once, by bloomxdp.bpf.c.
 */
#ifndef BLOOMXDP_BPF_RUN_CONFIG_H
#define BLOOMXDP_BPF_RUN_CONFIG_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>
#include <bloomxdp/common.h>

struct {
	__uint(priority, BLOOMXDP_XDP_RUN_PRIO);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(bloomxdp_xdp);

#endif
