// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An interface's driver, MTU and rx queues, asked of the kernel by ioctl. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "kernel/netdev.h"

/* One ioctl on ifname with arg (ifr_data for SIOCETHTOOL, else ifr itself filled). */
static int netdev_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr, void *data)
{
	int fd, ret = 0;

	memset(ifr, 0, sizeof(*ifr));
	if (snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname) >=
	    (int)sizeof(ifr->ifr_name))
		return -EINVAL;
	ifr->ifr_data = data;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, req, ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int netdev_driver(const char *ifname, char *out, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	int ret;

	ret = netdev_ioctl(ifname, SIOCETHTOOL, &ifr, &info);
	if (ret)
		return ret;
	snprintf(out, len, "%.*s", (int)sizeof(info.driver), info.driver);
	return 0;
}

int netdev_mtu(const char *ifname, unsigned int *mtu)
{
	struct ifreq ifr;
	int ret;

	ret = netdev_ioctl(ifname, SIOCGIFMTU, &ifr, NULL);
	if (!ret)
		*mtu = ifr.ifr_mtu;
	return ret;
}

int netdev_rx_queues(const char *ifname, unsigned int *n)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	int ret;

	ret = netdev_ioctl(ifname, SIOCETHTOOL, &ifr, &ch);
	if (!ret)
		*n = ch.combined_count + ch.rx_count;
	return ret;
}
