// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel features bloomxdp probes (user/kernel/features.c): the table
 * against what the XDP programs call and declare, what each attachment
 * needs, the refusal's one line, the test hooks, and (as root) the probes on
 * the running kernel.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include <bloomxdp/common.h>
#include "kernel/features.h"
#include "bloomxdp.skel.h"
#include "kbloom_fill.skel.h"

#define BIT(row) (1ULL << (row))

static int row(const char *name)
{
	int r = kernel_feature_find(name);

	if (r < 0)
		fail_msg("no feature %s in the table", name);
	return r;
}

static bool older(unsigned int ma, unsigned int mi, unsigned int mb, unsigned int mib)
{
	return ma < mb || (ma == mb && mi < mib);
}

static void test_table(void **state)
{
	size_t i, j;

	(void)state;
	assert_true(kernel_features_count > 0);
	assert_true(kernel_features_count <= KERNEL_FEATURES_MAX);
	for (i = 0; i < kernel_features_count; i++) {
		const struct kernel_feature *f = &kernel_features[i];

		assert_true(f->name[0]);
		assert_int_equal(strspn(f->name, "abcdefghijklmnopqrstuvwxyz0123456789_"),
				 strlen(f->name));
		assert_int_not_equal(f->probes[0].kind, KF_PROBE_END);
		for (j = 0; j < i; j++)
			if (!strcmp(f->name, kernel_features[j].name))
				fail_msg("%s is in the table twice", f->name);
		/* Oldest first: a refusal names them in the order they arrived. */
		if (i && older(f->major, f->minor, kernel_features[i - 1].major,
			       kernel_features[i - 1].minor))
			fail_msg("%s (%u.%u) is after a newer row", f->name, f->major, f->minor);
		/* What any attachment needs is in the oldest kernel supported. */
		if (f->need != KF_NEED_LATER &&
		    older(KERNEL_OLDEST_MAJOR, KERNEL_OLDEST_MINOR, f->major, f->minor))
			fail_msg("%s arrived in Linux %u.%u, after the oldest supported (%u.%u)",
				 f->name, f->major, f->minor, KERNEL_OLDEST_MAJOR,
				 KERNEL_OLDEST_MINOR);
	}
}

/* What a BPF object uses: the helpers it calls, its maps' (and inner maps') types and flags. */
struct uses {
	__u64 helpers[4];	/* bit id: helper id (all of them are under 256) */
	__u64 map_types;	/* bit type */
	__u32 map_flags;
};

static void helpers_called(const void *bytes, size_t size, struct uses *u)
{
	Elf_Scn *scn = NULL;
	Elf *elf;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_memory((char *)bytes, size);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		const struct bpf_insn *insn;
		Elf_Data *data = NULL;
		GElf_Shdr sh;
		size_t i;

		assert_non_null(gelf_getshdr(scn, &sh));
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		while ((data = elf_getdata(scn, data))) {
			insn = data->d_buf;
			for (i = 0; i < data->d_size / sizeof(*insn); i++) {
				/* A helper's call: src_reg 0 (1 is a function's, 2 a kfunc's). */
				if (insn[i].code != (BPF_JMP | BPF_CALL) || insn[i].src_reg)
					continue;
				assert_in_range(insn[i].imm, 1, 255);
				u->helpers[insn[i].imm / 64] |= 1ULL << (insn[i].imm % 64);
			}
		}
	}
	elf_end(elf);
}

static void map_uses(const struct bpf_map *m, struct uses *u)
{
	u->map_types |= 1ULL << bpf_map__type(m);
	u->map_flags |= bpf_map__map_flags(m);
}

static void object_uses(const void *bytes, size_t size, struct uses *u)
{
	struct bpf_object *obj;
	struct bpf_map *m;

	helpers_called(bytes, size, u);
	obj = bpf_object__open_mem(bytes, size, NULL);
	assert_non_null(obj);
	bpf_object__for_each_map(m, obj) {
		map_uses(m, u);
		if (bpf_map__inner_map(m))
			map_uses(bpf_map__inner_map(m), u);
	}
	bpf_object__close(obj);
}

/* Every helper the programs call, map type and flag they declare has its probe, and no more. */
static void test_table_covers_the_programs(void **state)
{
	const __u32 flags_probed = BPF_F_MMAPABLE | BPF_F_INNER_MAP;
	struct uses prog = {}, table = {};
	size_t i, p, size;
	const void *bytes;

	(void)state;
	bytes = bloomxdp__elf_bytes(&size);
	object_uses(bytes, size, &prog);
	bytes = kbloom_fill__elf_bytes(&size);
	object_uses(bytes, size, &prog);
	/* The scan sees calls at all. */
	assert_true(prog.helpers[BPF_FUNC_loop / 64] & (1ULL << (BPF_FUNC_loop % 64)));
	for (i = 0; i < kernel_features_count; i++) {
		for (p = 0; p < KF_PROBES_MAX; p++) {
			const struct kf_probe *pr = &kernel_features[i].probes[p];

			if (pr->kind == KF_PROBE_HELPER)
				table.helpers[pr->arg / 64] |= 1ULL << (pr->arg % 64);
			else if (pr->kind == KF_PROBE_MAP_TYPE)
				table.map_types |= 1ULL << pr->arg;
			else if (pr->kind == KF_PROBE_ARRAY_FLAG)
				table.map_flags |= pr->arg;
		}
	}
	for (i = 0; i < 256; i++) {
		bool called = prog.helpers[i / 64] & (1ULL << (i % 64));
		bool probed = table.helpers[i / 64] & (1ULL << (i % 64));

		if (called != probed)
			fail_msg("helper %zu is %s: a row of user/kernel/features.c must %s it", i,
				 called ? "called but not probed" : "probed but not called",
				 called ? "probe" : "stop probing");
	}
	if (prog.map_types != table.map_types)
		fail_msg("map types declared %#llx, probed %#llx",
			 (unsigned long long)prog.map_types, (unsigned long long)table.map_types);
	assert_int_equal(prog.map_flags & flags_probed, table.map_flags);
}

static void test_needed(void **state)
{
	__u64 bits = kernel_features_needed(BLOOMXDP_LAYOUT_BITS, false);
	__u64 kernel = kernel_features_needed(BLOOMXDP_LAYOUT_KERNEL, false);
	__u64 frags = kernel_features_needed(BLOOMXDP_LAYOUT_BLOCKED, true);

	(void)state;
	assert_true(bits & BIT(row("bpf_loop")));
	assert_true(bits & BIT(row("xdp_load_bytes")));
	assert_true(bits & BIT(row("bpf_link")));
	/* Every layout's load makes a BLOOM_FILTER map: kfilter's template. */
	assert_true(bits & BIT(row("bloom_filter_map")));
	assert_false(bits & BIT(row("xdp_test_run")));
	assert_false(bits & BIT(row("xdp_frags")));
	assert_int_equal(kernel, bits | BIT(row("xdp_test_run")));
	assert_int_equal(frags, bits | BIT(row("xdp_frags")));
	/* tcx is detected for the egress filter to come; nothing needs it yet. */
	assert_false((kernel | frags) & BIT(row("tcx")));
	assert_int_equal(kernel_features_needed(BLOOMXDP_LAYOUT_BLOCKED, false), bits);
}

static void test_version_parse(void **state)
{
	static const struct {
		const char *release;
		bool ok;
		unsigned int major, minor;
	} cases[] = {
		{ "6.1.0-57-cloud-amd64", true, 6, 1 },
		{ "5.15.0-91-generic", true, 5, 15 },
		{ "6.18.44-fc-v1045", true, 6, 18 },
		{ "5.14.0-427.13.1.el9_4.x86_64", true, 5, 14 },
		{ "4.19", true, 4, 19 },
		{ "6", false, 0, 0 },
		{ "unknown", false, 0, 0 },
		{ "", false, 0, 0 },
	};
	unsigned int major, minor;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(kernel_version_parse(cases[i].release, &major, &minor),
				 cases[i].ok);
		assert_int_equal(major, cases[i].major);
		assert_int_equal(minor, cases[i].minor);
	}
}

static void view(struct kernel_view *kv, const char *release)
{
	memset(kv, 0, sizeof(*kv));
	snprintf(kv->release, sizeof(kv->release), "%s", release);
	kernel_version_parse(release, &kv->major, &kv->minor);
}

static void test_older_than(void **state)
{
	struct kernel_view kv;

	(void)state;
	view(&kv, "5.15.0-91-generic");
	assert_true(kernel_older_than(&kv, 6, 1));
	assert_true(kernel_older_than(&kv, 5, 16));
	assert_false(kernel_older_than(&kv, 5, 15));
	assert_false(kernel_older_than(&kv, 4, 19));
	view(&kv, "6.1.0-57-cloud-amd64");
	assert_false(kernel_older_than(&kv, KERNEL_OLDEST_MAJOR, KERNEL_OLDEST_MINOR));
	/* A release that does not parse is older than nothing: no notice, no guess. */
	view(&kv, "custom");
	assert_false(kernel_older_than(&kv, 6, 1));
}

static void test_refusal(void **state)
{
	__u64 loop = BIT(row("bpf_loop")), load = BIT(row("xdp_load_bytes"));
	__u64 test_run = BIT(row("xdp_test_run"));
	struct kernel_view kv;
	char line[1024];

	(void)state;
	view(&kv, "5.15.0-91-generic");
	kernel_features_refusal(&kv, loop, line, sizeof(line));
	assert_string_equal(line, "this kernel (5.15.0-91-generic) lacks bpf_loop (Linux 5.17): "
			    "bloomxdp needs Linux 6.1 or later");
	kernel_features_refusal(&kv, loop | load, line, sizeof(line));
	assert_string_equal(line, "this kernel (5.15.0-91-generic) lacks bpf_loop (Linux 5.17), "
			    "xdp_load_bytes (Linux 5.18): bloomxdp needs Linux 6.1 or later");
	/* What every attachment needs comes before an option's. */
	kernel_features_refusal(&kv, loop | test_run, line, sizeof(line));
	assert_null(strstr(line, "xdp_test_run"));
	view(&kv, "4.9.0-19-amd64");
	kernel_features_refusal(&kv, test_run, line, sizeof(line));
	assert_string_equal(line, "this kernel (4.9.0-19-amd64) lacks xdp_test_run (Linux 4.12), "
			    "which --layout kernel needs: choose another --layout, or run Linux "
			    "4.12 or later");
	/* A release that has them: not a matter of age. */
	view(&kv, "6.1.0-57-cloud-amd64");
	kernel_features_refusal(&kv, loop, line, sizeof(line));
	assert_string_equal(line, "this kernel (6.1.0-57-cloud-amd64) lacks bpf_loop (Linux 5.17), "
			    "though Linux 6.1 has it: its configuration, or a capability this "
			    "process lacks, holds it back (try as root)");
	kernel_features_refusal(&kv, test_run, line, sizeof(line));
	assert_string_equal(line, "this kernel (6.1.0-57-cloud-amd64) lacks xdp_test_run (Linux "
			    "4.12), which --layout kernel needs, though Linux 6.1 has it: choose "
			    "another --layout (its configuration, or a capability this process "
			    "lacks, holds it back)");
	/* A release that does not parse: the versions say what is needed. */
	view(&kv, "custom");
	kernel_features_refusal(&kv, loop, line, sizeof(line));
	assert_string_equal(line, "this kernel (custom) lacks bpf_loop (Linux 5.17): bloomxdp "
			    "needs Linux 6.1 or later");
	assert_null(strchr(line, '\n'));
}

static void test_list(void **state)
{
	char buf[256];

	(void)state;
	kernel_features_list(BIT(row("bpf_link")) | BIT(row("tcx")), false, buf, sizeof(buf));
	assert_string_equal(buf, "bpf_link, tcx");
	kernel_features_list(BIT(row("bpf_link")) | BIT(row("tcx")), true, buf, sizeof(buf));
	assert_string_equal(buf, "bpf_link (Linux 5.9), tcx (Linux 6.6)");
	kernel_features_list(0, true, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* The hooks report what they say without probing: no root needed. */
static void test_hooks(void **state)
{
	__u64 loop = BIT(row("bpf_loop")), frags = BIT(row("xdp_frags"));
	struct kernel_view kv;

	(void)state;
	setenv(KERNEL_LACKS_ENV, "bpf_loop,xdp_frags", 1);
	setenv(KERNEL_RELEASE_ENV, "5.15.0-91-generic", 1);
	assert_int_equal(kernel_features_probe(loop | frags, &kv), 0);
	assert_string_equal(kv.release, "5.15.0-91-generic");
	assert_int_equal(kv.major, 5);
	assert_int_equal(kv.minor, 15);
	assert_int_equal(kv.state[row("bpf_loop")], KF_ABSENT);
	assert_int_equal(kv.state[row("xdp_frags")], KF_ABSENT);
	assert_int_equal(kv.state[row("bpf_link")], KF_UNPROBED);
	assert_int_equal(kernel_features_absent(&kv, ~0ULL), loop | frags);
	assert_int_equal(kernel_features_absent(&kv, loop), loop);
	setenv(KERNEL_LACKS_ENV, "bpf_loop,no_such_feature", 1);
	assert_int_equal(kernel_features_probe(loop, &kv), -EINVAL);
	unsetenv(KERNEL_LACKS_ENV);
	unsetenv(KERNEL_RELEASE_ENV);
	assert_int_equal(kernel_features_probe(0, &kv), 0);
	assert_int_equal(kernel_features_absent(&kv, ~0ULL), 0);
}

/* As root: this kernel has what its release brought (a mainline or Debian kernel does). */
static void test_probes_here(void **state)
{
	const struct kf_probe no_helper = { KF_PROBE_HELPER, 100000 };
	const struct kf_probe no_flag = { KF_PROBE_ARRAY_FLAG, 1U << 30 };
	struct kernel_view kv;
	struct timespec t0, t1;
	char missing[1024] = "";
	size_t i;

	(void)state;
	if (geteuid() != 0)
		skip();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kernel_features_probe(~0ULL, &kv), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %zu features probed in %.1f ms on %s\n", kernel_features_count,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6, kv.release);
	for (i = 0; i < kernel_features_count; i++) {
		const struct kernel_feature *f = &kernel_features[i];

		/* An older release may have it backported, or not. */
		if (older(kv.major, kv.minor, f->major, f->minor))
			continue;
		if (kv.state[i] != KF_PRESENT)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 " %s (%d)", f->name, kv.err[i]);
	}
	if (missing[0])
		fail_msg("Linux %u.%u should have:%s", kv.major, kv.minor, missing);
	/* The probes can say no. */
	assert_int_equal(kernel_probe(&no_helper), 0);
	assert_int_equal(kernel_probe(&no_flag), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_covers_the_programs),
		cmocka_unit_test(test_needed),
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_older_than),
		cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_probes_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
