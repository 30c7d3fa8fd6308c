/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_METRICS_H
#define BLOOMXDP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <bloomxdp/common.h>
#include "filter/packet_fpr.h"

/* The counters of struct bloomxdp_counters, in X-macro order: names and help. */
#define BLOOMXDP_NCOUNTERS (sizeof(struct bloomxdp_counters) / sizeof(__u64))
/* The index of counter name in an array of them. */
#define COUNTER_INDEX(name) (offsetof(struct bloomxdp_counters, name) / sizeof(__u64))
extern const char *const counter_names[];
extern const char *const counter_help[];

struct attachment;

/* The per-CPU counters of counters_fd, summed. Returns 0 or a negative errno (unprinted). */
int counters_read(int counters_fd, __u64 sum[BLOOMXDP_NCOUNTERS]);

/* The live blocklist's filter as status shows it (see 'bloomxdp status --help'). */
struct filter_gauges {
	__u32 slot;			/* live generation slot */
	struct bloomxdp_state st;	/* its bookkeeping: entries, keys, generation... */
	__u64 keys;			/* keys in the filter (0: entries in exact intervals) */
	__u64 bits, set_bits, bytes;	/* m, bits set, bytes of the filter's maps */
	__u64 sized_for;		/* keys the live filter is sized for */
	__u64 v4_lengths, v6_lengths;	/* header words: probed prefix lengths, or ranges */
	__u64 ranges_v4, ranges_v6;	/* exact intervals per family; 0: in the filter */
	__u64 ranges_bytes;
	double fill;			/* NAN where the layout cannot be read */
	double fpr;			/* estimated from the keys */
	double fpr_fill;		/* estimated from the fill; NAN as fill */
	double distinct;		/* distinct keys estimated from the fill, or the keys */
	double target;			/* attach's --fpr */
	/* Per packet (packet_fpr.h): the probes of each field, and the chance at fpr each. */
	struct packet_probes probes;
	double packet_fpr[PACKET_FIELDS];	/* 0 for a field not matched or not probed */
	double packet_fpr_worst;		/* a packet's address and name fields together */
	double probe_fpr;			/* the per-probe rate a load sizes for */
};

/* Reads the live filter of an open attachment. Prints the error. */
int filter_gauges_read(const struct attachment *att, struct filter_gauges *g);

/* What one interface exports. */
#include "lists/named.h"

/* An attachment's counters, per direction its programs see (attach --direction). */
struct direction_counters {
	__u32 present;		/* bit BLOOMXDP_DIR_*: that direction's program runs */
	__u64 dir[2][BLOOMXDP_NCOUNTERS];	/* by enum bloomxdp_direction */
	__u64 total[BLOOMXDP_NCOUNTERS];	/* their sum */
	bool guard;				/* the socket guard is on (kernel/guard.h) */
	__u64 guard_counters[BLOOMXDP_NCOUNTERS];	/* its: calls, not packets */
};

/* Every program's counters of an open attachment. Returns 0 or a negative errno (unprinted). */
struct attachment;
int direction_counters_read(const struct attachment *att, struct direction_counters *dc);

/* attach IF1 IF2 ...: each member's counters (the home first) and their sum. */
struct group_counters {
	int n;
	char names[BLOOMXDP_GROUP_MAX][BLOOMXDP_IFNAME_LEN];
	struct direction_counters dc[BLOOMXDP_GROUP_MAX];
	__u64 total[BLOOMXDP_NCOUNTERS];
	__u64 list_hits[BLOOMXDP_LIST_IDS];	/* each list's hits on every member */
};

/*
 * The counters of every member of the group att is in (att itself read
 * through its open pins, the others opened by name). A member that cannot be
 * opened is said on stderr and counts nothing. Returns 0 or a negative errno.
 */
int group_counters_read(const struct attachment *att, struct group_counters *gc);

struct iface_metrics {
	const char *ifname;
	struct direction_counters counters;
	struct filter_gauges gauges;
	struct named_view lists;	/* hits per list (named.h) */
	/* --match dns-answers: unexpired learned addresses per list id (lists/learned.h). */
	bool learning;
	__u64 learned[BLOOMXDP_LIST_IDS];
};

/* Opens ifname's attachment and reads its counters and filter. Prints the error. */
int iface_metrics_read(const char *ifname, struct iface_metrics *m);

/*
 * The Prometheus text exposition format (version 0.0.4) of n interfaces: every
 * counter as bloomxdp_<name>_total{ifname="...",direction="ingress|egress"},
 * one sample per direction checked, the filter as gauges
 * bloomxdp_filter_*, each family once with # HELP and # TYPE. For
 * 'stats --prometheus' (node_exporter's textfile collector) and the daemon's
 * HTTP endpoint. Returns 0, or -EIO when out failed.
 */
int metrics_write(FILE *out, const struct iface_metrics *m, size_t n);

/* A label value: backslash, double quote and line feed escaped, as the format asks. */
void metrics_label_value(FILE *out, const char *s);

#endif
