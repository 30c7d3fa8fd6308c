/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_NETDEV_H
#define BLOOMXDP_NETDEV_H

#include <stddef.h>

/*
 * What an interface of the current network namespace says of itself, by
 * ioctl (sysfs may show another namespace's interfaces): 0, or a negative
 * errno (-EOPNOTSUPP when its driver does not answer).
 */

/* Its driver's name (ETHTOOL_GDRVINFO), e.g. "veth". */
int netdev_driver(const char *ifname, char *out, size_t len);

/* Its MTU (SIOCGIFMTU). */
int netdev_mtu(const char *ifname, unsigned int *mtu);

/* Its rx queues in use (ETHTOOL_GCHANNELS: combined and rx-only channels). */
int netdev_rx_queues(const char *ifname, unsigned int *n);

#endif
