// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The kernel features bloomxdp needs, probed: the table, the probes, the refusal. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/features.h"
#include "filter/layout.h"
#include "util/log.h"

/* libbpf 1.1's headers (Linux 6.1's) predate tcx: its attach type, as Linux 6.6 numbers it. */
#define KF_TCX_INGRESS 46
/* The kernel's ENOTSUPP (not EOPNOTSUPP): BPF_PROG_TEST_RUN of a type that has none. */
#define KF_ENOTSUPP 524

#define PROG(type) { KF_PROBE_PROG_TYPE, BPF_PROG_TYPE_##type }
#define MAP(type) { KF_PROBE_MAP_TYPE, BPF_MAP_TYPE_##type }
#define HELPER(name) { KF_PROBE_HELPER, BPF_FUNC_##name }
#define TEST(what) { KF_PROBE_##what, 0 }

/*
 * Every helper the XDP programs call (bpf/) and every map type and map flag
 * they declare is probed by a row (tests/unit/test_kernel_features.c checks
 * it against the objects). A row's release is the newest of its probes'.
 */
const struct kernel_feature kernel_features[] = {
	{ "array", 3, 19, KF_NEED_ALWAYS, { MAP(ARRAY), HELPER(map_lookup_elem) } },
	{ "hash", 3, 19, KF_NEED_ALWAYS, { MAP(HASH) } },
	{ "ktime_get_ns", 4, 1, KF_NEED_ALWAYS, { HELPER(ktime_get_ns) } },
	{ "percpu_array", 4, 6, KF_NEED_ALWAYS, { MAP(PERCPU_ARRAY) } },
	{ "csum_diff", 4, 6, KF_NEED_ALWAYS, { HELPER(csum_diff) } },
	{ "xdp", 4, 8, KF_NEED_ALWAYS, { PROG(XDP) } },
	/* --action reject: an ICMP error grows the frame at its head (bpf/reject.h). */
	{ "xdp_adjust_head", 4, 10, KF_NEED_ALWAYS, { HELPER(xdp_adjust_head) } },
	/* --match sni: a QUIC ClientHello over several Initials is followed in quic_conns. */
	{ "lru_hash", 4, 10, KF_NEED_ALWAYS, { MAP(LRU_HASH), HELPER(map_update_elem) } },
	{ "lpm_trie", 4, 11, KF_NEED_ALWAYS, { MAP(LPM_TRIE) } },
	{ "array_of_maps", 4, 12, KF_NEED_ALWAYS, { MAP(ARRAY_OF_MAPS) } },
	/* Layout kernel's loads fill its BLOOM_FILTER maps by a program run (layout_kernel.c). */
	{ "xdp_test_run", 4, 12, KF_NEED_LAYOUT_KERNEL, { TEST(XDP_TEST_RUN) } },
	{ "xdp_adjust_tail", 4, 18, KF_NEED_ALWAYS, { HELPER(xdp_adjust_tail) } },
	{ "mmapable_array", 5, 5, KF_NEED_ALWAYS, { { KF_PROBE_ARRAY_FLAG, BPF_F_MMAPABLE } } },
	{ "jiffies64", 5, 5, KF_NEED_ALWAYS, { HELPER(jiffies64) } },
	{ "ringbuf", 5, 8, KF_NEED_ALWAYS, { MAP(RINGBUF), HELPER(ringbuf_reserve),
					      HELPER(ringbuf_submit) } },
	{ "bpf_link", 5, 9, KF_NEED_ALWAYS, { TEST(XDP_LINK) } },
	/* Inner arrays of any size in one outer map: each generation is sized for its list. */
	{ "inner_map_sizes", 5, 10, KF_NEED_ALWAYS, { { KF_PROBE_ARRAY_FLAG, BPF_F_INNER_MAP } } },
	{ "ktime_get_coarse_ns", 5, 11, KF_NEED_ALWAYS, { HELPER(ktime_get_coarse_ns) } },
	/*
	 * Layout kernel's filter; but every layout's load makes one, the template of
	 * the program's kfilter outer map (bpf/maps.h), so every attachment needs it.
	 */
	{ "bloom_filter_map", 5, 16, KF_NEED_ALWAYS, { MAP(BLOOM_FILTER), HELPER(map_push_elem),
							HELPER(map_peek_elem) } },
	{ "bpf_loop", 5, 17, KF_NEED_ALWAYS, { HELPER(loop) } },
	/* ... and --action reject writes its answer with xdp_store_bytes (5.18 too). */
	{ "xdp_load_bytes", 5, 18, KF_NEED_ALWAYS, { HELPER(xdp_load_bytes),
						      HELPER(xdp_store_bytes) } },
	{ "xdp_frags", 5, 18, KF_NEED_FRAGS, { TEST(XDP_FRAGS), HELPER(xdp_get_buff_len) } },
	/* attach --hook tc, --direction egress: tc programs on bpf links; else a clsact filter. */
	{ "tcx", 6, 6, KF_NEED_LATER, { TEST(TCX) } },
};
const size_t kernel_features_count = sizeof(kernel_features) / sizeof(kernel_features[0]);

_Static_assert(sizeof(kernel_features) / sizeof(kernel_features[0]) <= KERNEL_FEATURES_MAX,
	       "kernel_view holds KERNEL_FEATURES_MAX rows");

int kernel_feature_find(const char *name)
{
	size_t i;

	for (i = 0; i < kernel_features_count; i++)
		if (!strcmp(kernel_features[i].name, name))
			return i;
	return -1;
}

bool kernel_version_parse(const char *release, unsigned int *major, unsigned int *minor)
{
	if (sscanf(release, "%u.%u", major, minor) == 2)
		return true;
	*major = *minor = 0;
	return false;
}

bool kernel_older_than(const struct kernel_view *kv, unsigned int major, unsigned int minor)
{
	return kv->major && (kv->major < major || (kv->major == major && kv->minor < minor));
}

int kernel_release(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	snprintf(buf, len, "%s", u.release);
	return 0;
}

/* r0 = XDP_PASS; exit. */
static const struct bpf_insn pass_insns[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
	{ .code = BPF_JMP | BPF_EXIT },
};

static int load_pass(__u32 prog_flags)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_flags = prog_flags);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "bloomxdp_probe", "GPL", pass_insns,
			   sizeof(pass_insns) / sizeof(pass_insns[0]), &opts);
	return fd < 0 ? -errno : fd;
}

/* 1 when err means "this kernel has it", 0 when it means "it has not", else err. */
static int verdict(int err, int yes, int no)
{
	return err == -yes ? 1 : err == -no ? 0 : err;
}

static int probe_test_run(void)
{
	__u8 frame[64] = {};
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame, .data_size_in = sizeof(frame),
		    .repeat = 1);
	int fd = load_pass(0), ret;

	if (fd < 0)
		return fd;
	ret = bpf_prog_test_run_opts(fd, &run) ? -errno : 0;
	close(fd);
	if (!ret)
		return run.retval == XDP_PASS;
	return ret == -KF_ENOTSUPP ? 0 : verdict(ret, 0, EINVAL);
}

/*
 * BPF_XDP links: since 5.9 a BPF_LINK_CREATE of attach type BPF_XDP looks up
 * its program (EBADF for fd -1, before any interface is looked at); kernels
 * that do not know the attach type, or the command, say EINVAL first.
 */
static int probe_xdp_link(void)
{
	int fd = bpf_link_create(-1, 0, BPF_XDP, NULL);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return verdict(-errno, EBADF, EINVAL);
}

/* tcx: a query of lo's tcx ingress programs (6.6) answers; older kernels say EINVAL. */
static int probe_tcx(void)
{
	unsigned int lo = if_nametoindex("lo");
	__u32 count = 0;

	if (!lo)
		return -errno;
	if (!bpf_prog_query(lo, (enum bpf_attach_type)KF_TCX_INGRESS, 0, NULL, NULL, &count))
		return 1;
	return verdict(-errno, 0, EINVAL);
}

static int probe_array_flag(__u32 flag)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flag);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bloomxdp_probe", sizeof(__u32),
				sizeof(__u64), 1, &opts);

	if (fd < 0)
		return verdict(-errno, 0, EINVAL);
	close(fd);
	return 1;
}

int kernel_probe(const struct kf_probe *p)
{
	int fd;

	switch (p->kind) {
	case KF_PROBE_PROG_TYPE:
		return libbpf_probe_bpf_prog_type(p->arg, NULL);
	case KF_PROBE_MAP_TYPE:
		return libbpf_probe_bpf_map_type(p->arg, NULL);
	case KF_PROBE_ARRAY_FLAG:
		return probe_array_flag(p->arg);
	case KF_PROBE_HELPER:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_XDP, p->arg, NULL);
	case KF_PROBE_XDP_LINK:
		return probe_xdp_link();
	case KF_PROBE_XDP_FRAGS:
		fd = load_pass(BPF_F_XDP_HAS_FRAGS);
		if (fd < 0)
			return verdict(fd, 0, EINVAL);
		close(fd);
		return 1;
	case KF_PROBE_XDP_TEST_RUN:
		return probe_test_run();
	case KF_PROBE_TCX:
		return probe_tcx();
	case KF_PROBE_END:
		break;
	}
	return -EINVAL;
}

/* KERNEL_LACKS_ENV's names as rows. Prints the error. */
static int lacks_hook(__u64 *mask)
{
	const char *env = getenv(KERNEL_LACKS_ENV);
	char *names, *name, *save;
	int row, ret = 0;

	*mask = 0;
	if (!env || !*env)
		return 0;
	names = strdup(env);
	if (!names)
		return -ENOMEM;
	for (name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		row = kernel_feature_find(name);
		if (row < 0) {
			log_error("%s=%s: no feature is named %s (the test hook takes the names of "
				  "'bloomxdp status')", KERNEL_LACKS_ENV, env, name);
			ret = -EINVAL;
			break;
		}
		*mask |= 1ULL << row;
	}
	free(names);
	return ret;
}

int kernel_features_probe(__u64 mask, struct kernel_view *kv)
{
	const char *release = getenv(KERNEL_RELEASE_ENV);
	__u64 lacks;
	size_t i, p;
	int ret;

	memset(kv, 0, sizeof(*kv));
	ret = lacks_hook(&lacks);
	if (ret)
		return ret;
	if (release && *release)
		snprintf(kv->release, sizeof(kv->release), "%s", release);
	else if (kernel_release(kv->release, sizeof(kv->release)))
		snprintf(kv->release, sizeof(kv->release), "unknown");
	kernel_version_parse(kv->release, &kv->major, &kv->minor);
	for (i = 0; i < kernel_features_count; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		kv->state[i] = KF_PRESENT;
		if (lacks & (1ULL << i)) {
			kv->state[i] = KF_ABSENT;
			continue;
		}
		for (p = 0; p < KF_PROBES_MAX && kernel_features[i].probes[p].kind; p++) {
			ret = kernel_probe(&kernel_features[i].probes[p]);
			if (ret == 1)
				continue;
			kv->state[i] = ret ? KF_UNKNOWN : KF_ABSENT;
			kv->err[i] = ret;
			break;
		}
	}
	return 0;
}

static __u64 need_mask(enum kf_need need)
{
	__u64 mask = 0;
	size_t i;

	for (i = 0; i < kernel_features_count; i++)
		if (kernel_features[i].need == need)
			mask |= 1ULL << i;
	return mask;
}

__u64 kernel_features_needed(__u32 layout, bool frags)
{
	__u64 mask = need_mask(KF_NEED_ALWAYS);

	if (layout == BLOOMXDP_LAYOUT_KERNEL)
		mask |= need_mask(KF_NEED_LAYOUT_KERNEL);
	if (frags)
		mask |= need_mask(KF_NEED_FRAGS);
	return mask;
}

__u64 kernel_features_absent(const struct kernel_view *kv, __u64 mask)
{
	__u64 absent = 0;
	size_t i;

	for (i = 0; i < kernel_features_count; i++)
		if ((mask & (1ULL << i)) && kv->state[i] == KF_ABSENT)
			absent |= 1ULL << i;
	return absent;
}

void kernel_features_list(__u64 mask, bool versions, char *buf, size_t len)
{
	const struct kernel_feature *f;
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < kernel_features_count && used < len; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		f = &kernel_features[i];
		used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f->name);
		if (versions && used < len)
			used += snprintf(buf + used, len - used, " (Linux %u.%u)", f->major,
					 f->minor);
	}
}

/* Whether release major.minor is at least the release of every row of mask. */
static bool release_has(const struct kernel_view *kv, __u64 mask, unsigned int *newest_major,
			unsigned int *newest_minor)
{
	bool all = kv->major != 0;
	size_t i;

	*newest_major = *newest_minor = 0;
	for (i = 0; i < kernel_features_count; i++) {
		const struct kernel_feature *f = &kernel_features[i];

		if (!(mask & (1ULL << i)))
			continue;
		if (f->major > *newest_major ||
		    (f->major == *newest_major && f->minor > *newest_minor)) {
			*newest_major = f->major;
			*newest_minor = f->minor;
		}
		if (kernel_older_than(kv, f->major, f->minor))
			all = false;
	}
	return all;
}

void kernel_features_refusal(const struct kernel_view *kv, __u64 absent, char *buf, size_t len)
{
	__u64 rows = absent & (need_mask(KF_NEED_ALWAYS) | need_mask(KF_NEED_FRAGS));
	const char *held = "its configuration, or a capability this process lacks, holds";
	static const char *const layout_option = "--layout";
	char names[512], option[32] = "";
	unsigned int major, minor;
	bool should_have;
	const char *it;

	if (!rows) {
		rows = absent & need_mask(KF_NEED_LAYOUT_KERNEL);
		snprintf(option, sizeof(option), "%s %s", layout_option,
			 layout_name(BLOOMXDP_LAYOUT_KERNEL));
	}
	kernel_features_list(rows, true, names, sizeof(names));
	should_have = release_has(kv, rows, &major, &minor);
	it = rows & (rows - 1) ? "them" : "it";
	if (!option[0] && !should_have)
		snprintf(buf, len, "this kernel (%s) lacks %s: bloomxdp needs Linux %u.%u or later",
			 kv->release, names, KERNEL_OLDEST_MAJOR, KERNEL_OLDEST_MINOR);
	else if (!option[0])
		snprintf(buf, len, "this kernel (%s) lacks %s, though Linux %u.%u has %s: %s %s "
			 "back (try as root)", kv->release, names, kv->major, kv->minor, it, held,
			 it);
	else if (!should_have)
		snprintf(buf, len, "this kernel (%s) lacks %s, which %s needs: choose another %s, "
			 "or run Linux %u.%u or later", kv->release, names, option, layout_option,
			 major, minor);
	else
		snprintf(buf, len, "this kernel (%s) lacks %s, which %s needs, though Linux %u.%u "
			 "has %s: choose another %s (%s %s back)", kv->release, names, option,
			 kv->major, kv->minor, it, layout_option, held, it);
}
