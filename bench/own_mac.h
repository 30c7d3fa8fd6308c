/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The benchmarks' senders (gen.c, tx.c): an interface's MAC address, the source of their frames. */
#ifndef BENCH_OWN_MAC_H
#define BENCH_OWN_MAC_H

#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_ether.h>

/* ifname's MAC (SIOCGIFHWADDR) into mac: 0, or -1 with errno set. */
static inline int own_mac(const char *ifname, unsigned char *mac)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ret = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (!ret)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	return ret;
}

#endif
