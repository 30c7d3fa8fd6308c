// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The tc hook: tcx, or a clsact filter (tc.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/tc.h"
#include "util/log.h"

/* Linux 6.6's attach types (uapi bpf.h), which Debian 12's headers predate. */
#define TC_ATTACH_TCX_INGRESS 46
#define TC_ATTACH_TCX_EGRESS 47

const char *tc_via_name(enum tc_via via)
{
	return via == TC_VIA_TCX ? "tcx" : "clsact";
}

static const char *dir_name(enum bloomxdp_direction dir)
{
	return dir == BLOOMXDP_DIR_EGRESS ? "egress" : "ingress";
}

static void clsact_hook(int ifindex, enum bloomxdp_direction dir, struct bpf_tc_hook *hook)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = dir == BLOOMXDP_DIR_EGRESS ? BPF_TC_EGRESS : BPF_TC_INGRESS;
}

static void clsact_opts(struct bpf_tc_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->handle = BLOOMXDP_TC_HANDLE;
	opts->priority = BLOOMXDP_TC_PRIORITY;
}

int tc_clsact_prog(int ifindex, enum bloomxdp_direction dir, __u32 *prog_id)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int ret;

	*prog_id = 0;
	clsact_hook(ifindex, dir, &hook);
	clsact_opts(&opts);
	ret = bpf_tc_query(&hook, &opts);
	if (ret == -ENOENT || ret == -EINVAL)
		return 0;	/* no filter there, or no clsact qdisc at all */
	if (ret)
		return ret;
	*prog_id = opts.prog_id;
	return 0;
}

static int clsact_attach(const char *ifname, int ifindex, int prog_fd,
			 enum bloomxdp_direction dir, bool replace)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int ret;

	clsact_hook(ifindex, dir, &hook);
	ret = bpf_tc_hook_create(&hook);	/* the clsact qdisc, shared with others */
	if (ret && ret != -EEXIST) {
		log_error("cannot add a clsact qdisc to %s: %s", ifname, strerror(-ret));
		return ret;
	}
	clsact_opts(&opts);
	opts.prog_fd = prog_fd;
	opts.flags = replace ? BPF_TC_F_REPLACE : 0;
	ret = bpf_tc_attach(&hook, &opts);
	if (ret == -EEXIST && !replace) {
		/*
		 * Ours by its handle, but no pin of an attachment holds it (attach
		 * checked): what a lost pin directory leaves. Replaced, and said.
		 */
		fprintf(stderr, "bloomxdp: notice: %s had a tc %s filter of bloomxdp's (handle %#x) "
			"that no attachment holds any more (its pins were removed): replaced\n",
			ifname, dir_name(dir), BLOOMXDP_TC_HANDLE);
		opts.flags = BPF_TC_F_REPLACE;
		ret = bpf_tc_attach(&hook, &opts);
	}
	if (ret)
		log_error("cannot attach the tc %s filter to %s: %s", dir_name(dir), ifname,
			  strerror(-ret));
	return ret;
}

int tc_clsact_replace(const char *ifname, int ifindex, int prog_fd, enum bloomxdp_direction dir)
{
	return clsact_attach(ifname, ifindex, prog_fd, dir, true);
}

int tc_attach(const char *ifname, int ifindex, int prog_fd, enum bloomxdp_direction dir,
	      enum tc_via *via, int *link_fd)
{
	__u32 type = dir == BLOOMXDP_DIR_EGRESS ? TC_ATTACH_TCX_EGRESS : TC_ATTACH_TCX_INGRESS;
	int fd, err;

	*link_fd = -1;
	fd = bpf_link_create(prog_fd, ifindex, type, NULL);
	if (fd >= 0) {
		*via = TC_VIA_TCX;
		*link_fd = fd;
		return 0;
	}
	err = errno;
	/* A kernel without tcx does not know the attach type. */
	if (err != EINVAL) {
		log_error("cannot attach to %s's tc %s hook (tcx): %s", ifname, dir_name(dir),
			  strerror(err));
		return -err;
	}
	*via = TC_VIA_CLSACT;
	return clsact_attach(ifname, ifindex, prog_fd, dir, false);
}

int tc_clsact_detach(int ifindex, enum bloomxdp_direction dir, __u32 prog_id)
{
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	__u32 running;
	int ret;

	ret = tc_clsact_prog(ifindex, dir, &running);
	if (ret || !running || (prog_id && running != prog_id))
		return ret;
	clsact_hook(ifindex, dir, &hook);
	clsact_opts(&opts);
	ret = bpf_tc_detach(&hook, &opts);
	return ret == -ENOENT ? 0 : ret;
}
