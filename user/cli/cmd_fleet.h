/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What publish (cmd_fleet.c) and fleet status (cmd_fleet_status.c) share: their options. */
#ifndef BLOOMXDP_CMD_FLEET_H
#define BLOOMXDP_CMD_FLEET_H

#include "util/options.h"

#define OPT_REDIS(type)									\
	OPTION("redis", 0, OPT_TEXT, offsetof(type, redis), "URL",			\
	       "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], or\n"		\
	       "rediss://...[?cacert=CA.pem] for TLS (verified)")
#define OPT_CHANNEL(type)								\
	OPTION("channel", 0, OPT_TEXT, offsetof(type, channel), "NAME",		\
	       "the fleet's channel (its keys: bloomxdp:NAME:...)")

#endif
