/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One list source as the configuration names it ([list NAME] in
 * /etc/bloomxdp/IFNAME.conf) and as the feed refresher and `refresh` use it:
 * a local file or an http(s):// feed, how it is read, how often it is
 * fetched, and the guards that keep a bad copy from being applied.
 */
#ifndef BLOOMXDP_FEED_SPEC_H
#define BLOOMXDP_FEED_SPEC_H

#include <stdbool.h>
#include <linux/types.h>

#include "lists/lists.h"

/* [a-z0-9_-], a file name in the state directory: a list's name, as load --list takes it */
#define FEED_NAME_MAX		(BLOOMXDP_LIST_NAME_MAX + 1)
#define FEED_SOURCE_MAX		2048	/* a path or an http(s) URL */
#define FEED_DEFAULT_MAX_SHRINK	50	/* percent: a copy with fewer entries is held back */
#define FEED_DEFAULT_REFRESH_S	3600	/* the daemon's interval between fetches */
#define FEED_DEFAULT_TIMEOUT_S	60	/* one fetch, whole */
#define FEED_DEFAULT_MAX_BYTES	(256ULL << 20)

struct feed_spec {
	char name[FEED_NAME_MAX];
	char source[FEED_SOURCE_MAX];
	struct list_opts load;		/* format, lenient, csv columns...: as load takes them;
					 * load.allow: the allowlist's source */
	__u64 refresh_s;		/* seconds between fetches; 0: only at start and on SIGHUP */
	__u32 max_shrink_pct;		/* 0..100 */
	__u64 timeout_s;		/* one fetch, whole */
	__u64 max_bytes;		/* a larger body is refused */
	char ca_file[FEED_SOURCE_MAX];	/* PEM CAs for https (a private CA); "": the system's */
};

#endif
