// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test-only: passes every frame. Attached to the client end of a veth pair,
 * it turns on that end's NAPI, which veth needs to receive XDP_TX frames
 * (the NXDOMAIN answers) from its peer.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}
