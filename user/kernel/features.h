/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_KERNEL_FEATURES_H
#define BLOOMXDP_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * What the XDP program and the loader need of the kernel, probed rather than
 * assumed: one row of kernel_features[] per feature, with the Linux release it
 * arrived in and the probes that find it (libbpf's, or a test load where
 * libbpf has none). Nothing is attached for a probe. The functions return
 * values and print nothing, but the error of a bad test hook.
 */

/* The oldest kernel bloomxdp supports: what every needed feature's release is at most. */
#define KERNEL_OLDEST_MAJOR 6
#define KERNEL_OLDEST_MINOR 1

enum kf_probe_kind {
	KF_PROBE_END,		/* past a row's last probe */
	KF_PROBE_PROG_TYPE,	/* arg: enum bpf_prog_type (libbpf_probe_bpf_prog_type) */
	KF_PROBE_MAP_TYPE,	/* arg: enum bpf_map_type (libbpf_probe_bpf_map_type) */
	KF_PROBE_ARRAY_FLAG,	/* arg: a map flag: an ARRAY created with it */
	KF_PROBE_HELPER,	/* arg: enum bpf_func_id, in XDP (libbpf_probe_bpf_helper) */
	KF_PROBE_XDP_LINK,	/* BPF_LINK_CREATE knows BPF_XDP (nothing is attached) */
	KF_PROBE_XDP_FRAGS,	/* a 2-instruction XDP program loads with BPF_F_XDP_HAS_FRAGS */
	KF_PROBE_XDP_TEST_RUN,	/* BPF_PROG_TEST_RUN runs that program on a zeroed frame */
	KF_PROBE_TCX,		/* BPF_PROG_QUERY of lo knows BPF_TCX_INGRESS (read-only) */
};

struct kf_probe {
	enum kf_probe_kind kind;
	__u32 arg;
};

/* Which attachments need a feature. */
enum kf_need {
	KF_NEED_ALWAYS,		/* every one: the program and the loader */
	KF_NEED_LAYOUT_KERNEL,	/* --layout kernel */
	KF_NEED_FRAGS,		/* a multi-buffer program (loader_program_frags()) */
	KF_NEED_LATER,		/* none yet: detected for a feature still to come */
};

#define KF_PROBES_MAX 3
#define KERNEL_FEATURES_MAX 32

struct kernel_feature {
	const char *name;
	__u8 major, minor;	/* the Linux release it arrived in */
	enum kf_need need;
	struct kf_probe probes[KF_PROBES_MAX];	/* all must succeed */
};

/* The table, oldest first; kernel_features_count rows. */
extern const struct kernel_feature kernel_features[];
extern const size_t kernel_features_count;

enum kf_state { KF_UNPROBED, KF_PRESENT, KF_ABSENT, KF_UNKNOWN };

/* uname's release field: 64 bytes and its NUL. */
#define KERNEL_RELEASE_LEN 65

/* What the running kernel has. */
struct kernel_view {
	char release[KERNEL_RELEASE_LEN];	/* uname -r */
	unsigned int major, minor;	/* of release; 0.0 when it does not parse */
	enum kf_state state[KERNEL_FEATURES_MAX];
	int err[KERNEL_FEATURES_MAX];	/* KF_UNKNOWN: the probe's negative errno */
};

/* One probe on the running kernel: 1 it has it, 0 it has not, a negative errno: cannot tell. */
int kernel_probe(const struct kf_probe *p);

/* The row of a name, or -1. */
int kernel_feature_find(const char *name);

/* "6.1.0-57-cloud-amd64" -> 6, 1; false (0.0) when release does not start with one. */
bool kernel_version_parse(const char *release, unsigned int *major, unsigned int *minor);

/* Whether kv's release parsed and is older than major.minor. */
bool kernel_older_than(const struct kernel_view *kv, unsigned int major, unsigned int minor);

/* uname -r into buf (KERNEL_RELEASE_LEN bytes hold it whole). */
int kernel_release(char *buf, size_t len);

/*
 * Test hooks, so that a test can see a refusal without an old kernel:
 * KERNEL_LACKS_ENV names features (a comma list) kernel_features_probe()
 * reports absent without probing them; KERNEL_RELEASE_ENV is the release it
 * reports. A name of no feature is an error (-EINVAL, printed).
 */
#define KERNEL_LACKS_ENV "BLOOMXDP_TEST_KERNEL_LACKS"
#define KERNEL_RELEASE_ENV "BLOOMXDP_TEST_KERNEL_RELEASE"

/* Probes the rows of mask (bit i: row i) on the running kernel. */
int kernel_features_probe(__u64 mask, struct kernel_view *kv);

/* The rows an attachment needs (bit i: row i): its layout, its program multi-buffer or not. */
__u64 kernel_features_needed(__u32 layout, bool frags);

/* The rows of mask kv found absent (a probe that failed otherwise is not counted). */
__u64 kernel_features_absent(const struct kernel_view *kv, __u64 mask);

/*
 * The one line that refuses an attachment for the absent rows (nonzero),
 * without the "bloomxdp: " of log_error(): what the kernel lacks, the release
 * each arrived in, and what to do. The rows every attachment needs come
 * first; only when none of those is absent does it name an option's.
 */
void kernel_features_refusal(const struct kernel_view *kv, __u64 absent, char *buf, size_t len);

/* The names of the rows of mask, ", " between them, into buf ("name (Linux X.Y)" with versions). */
void kernel_features_list(__u64 mask, bool versions, char *buf, size_t len);

#endif
