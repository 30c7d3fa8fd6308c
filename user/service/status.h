/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_SERVICE_STATUS_H
#define BLOOMXDP_SERVICE_STATUS_H

#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <linux/types.h>
#include <bloomxdp/common.h>
#include "kernel/attachment.h"
#include "kernel/features.h"
#include "kernel/xdp_hook.h"
#include "lists/named.h"
#include "service/metrics.h"

/* What status shows of an attachment, read once for either output. */
struct status_view {
	const char *ifname;
	const struct bloomxdp_config *cfg;
	struct link_view link;		/* the program of the plain pins */
	struct link_view egress;	/* --direction both: the egress one (.hook NULL: none) */
	struct filter_gauges g;		/* the live filter, as metrics export it */
	char loaded[32], match[64], dns_ports[32], http_ports[32], tls_ports[32], quic_ports[32];
	double observed_fpr;
	__u64 fps;
	const char *state;		/* state_text() */
	int del_ret;
	__u64 del_bytes, del_saturated, timeouts, next_expiry;
	char next_text[64];
	__u64 learned;			/* unexpired learned addresses (lists/learned.h) */
	struct named_view lists;
	char kernel[KERNEL_RELEASE_LEN];	/* uname -r */
	__u64 features;			/* its needs (kernel/features.h); 0: unknown */
	bool exact_on;			/* the live generation has an exact copy (--verify) */
	char verify_reason[192];	/* verify_reason() */
	__u64 table_bytes;		/* the live exact copy's tables of hosts */
	struct {			/* the socket guard (kernel/guard.h) */
		bool on;
		char cgroup[PATH_MAX];	/* "" when its cgroup is not found */
		__u64 checked;		/* calls looked up (checked_v4 + checked_v6) */
		__u64 refused;		/* refused with EPERM (its dropped) */
	} guard;
	struct xdp_hook before;		/* what attach --force replaced (the state's record) */
	const struct bloomxdp_group *group;	/* attach IF1 IF2 ...: its group, else NULL */
};

/*
 * v (its ifname set by the caller) filled from the attachment, its state
 * (state_dir: NULL, the default) and the kernel: the gathering of 'status',
 * which prints it as text or JSON. Errors are logged.
 */
int status_view_read(struct attachment *att, const char *state_dir, struct status_view *v);

/* status --json: v as one JSON object, a value in j (a document begun), or a line of out. */
struct json;
void status_json_value(const struct status_view *v, struct json *j);
void status_write_json(const struct status_view *v, FILE *out);
/* status: v as text, a line per field, into out. */
void status_write_text(const struct status_view *v, FILE *out);
/*
 * Each list: its name, action, entries and hits (the default list first),
 * as the "lists" member of j, or (j NULL) a text line each into out.
 */
void status_lists_write(const struct named_view *v, const struct bloomxdp_config *cfg,
			struct json *j, FILE *out);

#endif
