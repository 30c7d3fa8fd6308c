// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test-only: another tc program, as another tool would attach one. Drops the
 * IPv4 packets whose TOS byte is TOS_DROP ('ping -Q 0x28'), hands every
 * other one on (TC_ACT_UNSPEC: the next program, or the stack). The egress
 * test runs it beside bloomxdp's tc program to show that both keep working.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define TOS_DROP 0x28

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tc")
int tc_tos_drop(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);

	if ((void *)(iph + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_UNSPEC;
	return iph->tos == TOS_DROP ? TC_ACT_SHOT : TC_ACT_UNSPEC;
}
