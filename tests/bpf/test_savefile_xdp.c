// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Save and restore of a filter (user/lists/savefile.c), through the XDP program:
 *  - a generation saved from one loaded program and applied to a fresh one of
 *    the same configuration and hash key gives the same verdict on 1,000,000
 *    addresses (BPF_PROG_TEST_RUN of both programs, and user space's lookup),
 *    the same words bit for bit, and the same intervals, with the family of
 *    IPv4 held as exact intervals or in the Bloom filter;
 *  - the restore is a new generation: the other slot, state written, the
 *    generation bumped;
 *  - the file records the bloomxdp that wrote it (format version 2, bytes
 *    160 to 191), which save and restore say; a file of format version 1
 *    (an older bloomxdp's, made here from a version 2 one) is still
 *    restored, bit for bit, its writer said to be an older bloomxdp;
 *  - every byte of the header, and 10,000 sampled positions of the whole
 *    file, flipped in turn, are refused (savefile_check; savefile_apply for
 *    the header and a sample, which must leave the live list as it was), a
 *    flip in the writer's bytes as corrupted; so is every byte of a version
 *    1 header;
 *    so is the file cut at every offset of its header and at sampled
 *    offsets after it, and a file whose checksum was recomputed over
 *    hostile fields (intervals out of order, a bad lengths word, another
 *    version, a writer that is not NUL-padded printable text, a header
 *    length not its version's);
 *  - another hash key, layout or k, a filter over the attachment's
 *    --max-memory, and a --verify attachment, are refused;
 *    layout kernel cannot be saved; the file is mode 0600.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <cmocka.h>

#include "xdp_harness.h"
#include "kernel/attachment.h"
#include "filter/ranges.h"
#include "lists/report.h"
#include "lists/savefile.h"
#include "util/version.h"

#define N_V4_HOSTS	20000
#define N_V4_PREFIXES	300
#define N_V6_HOSTS	3000
#define N_ADDRESSES	1000000
#define N_FLIPS		10000
#define N_APPLY_FLIPS	300

static const __u64 key_a[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
static const __u64 key_b[2] = { 0x1111111111111111ULL, 0x2222222222222222ULL };
/* What save and restore said they did. */
static struct save_result saved;
static struct restore_result restored;

static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* The attachment a harness's maps make (no pins: the tests call the library directly). */
static void att_of(struct xdp_harness *h, struct attachment *att)
{
	struct bloomxdp *s = h->lp.skel;

	memset(att, 0, sizeof(*att));
	snprintf(att->ifname, sizeof(att->ifname), "test%d", loader_prog_fd(&h->lp));
	att->dir_fd = -1;
	att->config_fd = bpf_map__fd(s->maps.rodata_config);
	att->filter_fd = bpf_map__fd(s->maps.filter);
	att->kfilter_fd = bpf_map__fd(s->maps.kfilter);
	loader_exact_outers(s, &att->verify, &att->allow);
	att->ranges_v4_fd = bpf_map__fd(s->maps.ranges_v4);
	att->ranges_v6_fd = bpf_map__fd(s->maps.ranges_v6);
	att->active_fd = bpf_map__fd(s->maps.active);
	att->counters_fd = bpf_map__fd(s->maps.counters);
	att->state_fd = bpf_map__fd(s->maps.state);
	att->events_fd = bpf_map__fd(s->maps.events);
	att->suffixes_fd = bpf_map__fd(s->maps.suffixes);
	att->config = h->config;
}

static void hc_init(struct harness_config *hc, const __u64 *key, __u32 layout, double fpr)
{
	memset(hc, 0, sizeof(*hc));
	hc->match = BLOOMXDP_MATCH_SRC;
	hc->action = BLOOMXDP_ACTION_DROP;
	hc->hash_key = key;
	hc->capacity = 40000;
	hc->fpr = fpr;
	hc->layout = layout;
}

/* ------------------------------------------------------------ the source */

struct source {
	struct xdp_harness h;
	struct attachment att;
	struct list_build b;
	int range_fds[2];
	char path[64];		/* the saved file */
};

/* IPv4 hosts in 10.0.0.0/14, /24s in 10.4.0.0/14, IPv6 hosts in 2001:db8::/112, names. */
static int source_list(char path[64])
{
	static char text[N_V4_HOSTS + N_V4_PREFIXES + N_V6_HOSTS + 3][48];
	static const char *entries[N_V4_HOSTS + N_V4_PREFIXES + N_V6_HOSTS + 3];
	__u64 s = 42, v;
	size_t n = 0;
	int i;

	for (i = 0; i < N_V4_HOSTS; i++) {
		v = rng_next(&s) & 0x3ffff;
		snprintf(text[n], sizeof(text[n]), "10.%llu.%llu.%llu",
			 (unsigned long long)(v >> 16), (unsigned long long)(v >> 8 & 0xff),
			 (unsigned long long)(v & 0xff));
		entries[n] = text[n];
		n++;
	}
	for (i = 0; i < N_V4_PREFIXES; i++) {
		v = rng_next(&s) & 0x3ff;
		snprintf(text[n], sizeof(text[n]), "10.%llu.%llu.0/24",
			 (unsigned long long)(4 + (v >> 8)), (unsigned long long)(v & 0xff));
		entries[n] = text[n];
		n++;
	}
	for (i = 0; i < N_V6_HOSTS; i++) {
		snprintf(text[n], sizeof(text[n]), "2001:db8::%llx",
			 (unsigned long long)(rng_next(&s) & 0xffff));
		entries[n] = text[n];
		n++;
	}
	entries[n++] = "evil.example";
	entries[n++] = "a.b.c.bad.example";
	entries[n++] = "site.example/malware/";
	return harness_write_list(entries, n, path);
}

/* Loads A (key_a), fills it as load does (IPv4 in intervals or not), saves it. */
static void source_open(struct source *src, bool intervals)
{
	struct bloomxdp_state st = {};
	struct stat sb;
	struct harness_config hc;
	char err[LIST_ERROR_LEN], list[64];
	struct savefile_source sources[2] = {
		{ .name = "lists/a.txt" }, { .name = "https://feed.example/b" },
	};
	__u32 zero = 0;
	int fam, ret;

	memset(sources[0].sha256, 0xa5, 32);
	src->range_fds[0] = src->range_fds[1] = -1;
	hc_init(&hc, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01);
	assert_int_equal(harness_open(&src->h, &hc), 0);
	att_of(&src->h, &src->att);
	assert_int_equal(source_list(list), 0);
	list_build_init(&src->b, &src->h.lp.filter, LIST_DEFAULT_PREFIX_PROBES);
	src->b.ranges_ok = intervals;
	src->b.store = intervals ? RANGE_STORE_INTERVALS : RANGE_STORE_BLOOM;
	ret = list_build_read(&src->b, list, FORMAT_AUTO, err);
	if (!ret)
		ret = list_build_finish(&src->b, err);
	unlink(list);
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	for (fam = 0; fam < 2; fam++) {
		if (!src->b.cost[fam].use_ranges)
			continue;
		src->range_fds[fam] = range_set_create_map(&src->b.ranges[fam]);
		assert_true(src->range_fds[fam] >= 0);
		assert_int_equal(bpf_map_update_elem(fam ? src->att.ranges_v6_fd :
						     src->att.ranges_v4_fd, &zero,
						     &src->range_fds[fam], BPF_ANY), 0);
	}
	assert_int_equal(src->b.cost[0].use_ranges, intervals);
	assert_int_equal(attachment_read_state(&src->att, 0, &st), 0);
	st.entries = src->b.read;
	st.keys = src->b.keys;
	st.generation = 7;
	assert_int_equal(attachment_write_state(&src->att, 0, &st), 0);
	snprintf(src->path, sizeof(src->path), "/tmp/bloomxdp-savefile-XXXXXX");
	ret = mkstemp(src->path);
	assert_true(ret >= 0);
	close(ret);
	assert_int_equal(savefile_save(&src->att, src->path, sources, 2, &saved), 0);
	/* What 'bloomxdp save' says it wrote. */
	assert_true(saved.saved);
	assert_int_equal(saved.entries, src->b.read);
	assert_int_equal(saved.keys, src->b.keys);
	assert_int_equal(stat(src->path, &sb), 0);
	assert_int_equal(saved.bytes, sb.st_size);
}

static void source_close(struct source *src)
{
	int fam;

	unlink(src->path);
	list_build_free(&src->b);
	for (fam = 0; fam < 2; fam++)
		if (src->range_fds[fam] >= 0)
			close(src->range_fds[fam]);
	harness_close(&src->h);
}

/* A fresh program with the source's configuration and key: what restore finds. */
static void fresh_open(struct xdp_harness *h, struct attachment *att, const __u64 *key,
		       __u32 layout, double fpr, __u32 verify)
{
	struct harness_config hc;

	hc_init(&hc, key, layout, fpr);
	hc.verify = verify;
	assert_int_equal(harness_open(h, &hc), 0);
	att_of(h, att);
}

/* ----------------------------------------------------------- round trip */

/* The source address of a frame, patched in place. */
static void frame_set_src(struct frame *f, bool v6, __u64 v)
{
	__u8 *p = f->data + ETH_HLEN + (v6 ? 8 : 12);
	int i;

	if (!v6) {
		for (i = 0; i < 4; i++)
			p[i] = v >> (24 - 8 * i);
		return;
	}
	/* 2001:db8::/96 then the low 32 bits. */
	memset(p, 0, 16);
	p[0] = 0x20;
	p[1] = 0x01;
	p[2] = 0x0d;
	p[3] = 0xb8;
	for (i = 0; i < 4; i++)
		p[12 + i] = v >> (24 - 8 * i);
}

static void test_roundtrip(bool intervals)
{
	struct frame f4, f6, *f;
	struct frame_desc d4 = { .ethertype = ETH_P_IP }, d6 = { .ethertype = ETH_P_IPV6 };
	struct filter fa, fb;
	struct range_set ra, rb;
	struct bloomxdp_state st;
	struct xdp_harness hb;
	struct attachment attb;
	struct source src;
	__u64 s = 7, v, drops = 0, v4_drops = 0, v6_drops = 0, differ = 0;
	__u32 slot, va = 0, vb = 0, i;
	struct timespec t0, t1;
	struct stat sb;
	bool v6;

	source_open(&src, intervals);
	assert_int_equal(stat(src.path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);

	fresh_open(&hb, &attb, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_OFF);
	assert_int_equal(savefile_apply(&attb, src.path, &restored), 0);
	/* What 'bloomxdp restore --file' says it restored, and who saved it. */
	assert_true(restored.restored);
	assert_false(restored.rekeyed);
	assert_string_equal(saved.saved_by, bloomxdp_version());
	assert_string_equal(restored.saved_by, bloomxdp_version());
	assert_int_equal(restored.entries, src.b.read);
	assert_int_equal(restored.keys, src.b.keys);
	/* A new generation: the other slot, live, its state written before. */
	assert_int_equal(attachment_active(&attb, BLOOMXDP_ACTIVE_BLOCK, &slot), 0);
	assert_int_equal(slot, 1);
	assert_int_equal(attachment_read_state(&attb, 1, &st), 0);
	assert_int_equal(st.entries, src.b.read);
	assert_int_equal(st.keys, src.b.keys);
	assert_int_equal(st.generation, 1);

	/* The same words, header included, bit for bit. */
	assert_int_equal(filter_open(src.att.filter_fd, 0, &src.att.config, &fa), 0);
	assert_int_equal(filter_open(attb.filter_fd, 1, &attb.config, &fb), 0);
	assert_int_equal(fa.bytes, fb.bytes);
	assert_memory_equal(fa.words, fb.words, fa.bytes);
	assert_int_equal(BLOOMXDP_IS_RANGES_WORD(filter_header_word(&fb, BLOOMXDP_HDR_V4_LENGTHS)),
			 intervals);
	if (intervals) {
		assert_int_equal(range_set_open(src.att.ranges_v4_fd, 0, BLOOMXDP_KEY_IPV4, &ra), 0);
		assert_int_equal(range_set_open(attb.ranges_v4_fd, 1, BLOOMXDP_KEY_IPV4, &rb), 0);
		assert_int_equal(ra.n, rb.n);
		assert_memory_equal(ra.r, rb.r, ra.n * sizeof(ra.r[0]));
		range_set_free(&ra);
		range_set_free(&rb);
	}

	/* The verdicts of both programs on 1M addresses, near the listed ones and anywhere. */
	assert_int_equal(frame_build(&f4, &d4), 0);
	assert_int_equal(frame_build(&f6, &d6), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < N_ADDRESSES; i++) {
		v = rng_next(&s);
		v6 = i % 4 == 3;
		if (v6)
			v = i % 8 == 3 ? (__u32)v : v & 0xffff;
		else if (i % 4 == 0)
			v = (__u32)v;
		else
			v = 0x0a000000 | (v & 0x7ffff);
		f = v6 ? &f6 : &f4;
		frame_set_src(f, v6, v);
		assert_int_equal(harness_run(&src.h, f, &va), 0);
		assert_int_equal(harness_run(&hb, f, &vb), 0);
		differ += va != vb;
		drops += vb == XDP_DROP;
		v4_drops += !v6 && vb == XDP_DROP;
		v6_drops += v6 && vb == XDP_DROP;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("# %u addresses through both programs in %.2f s: %llu dropped (IPv4 %llu, "
		      "IPv6 %llu), %llu verdicts differ\n", N_ADDRESSES,
		      (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		      (unsigned long long)drops, (unsigned long long)v4_drops,
		      (unsigned long long)v6_drops, (unsigned long long)differ);
	assert_int_equal(differ, 0);
	/* Something listed of each family was met: the comparison is not of empty filters. */
	assert_true(v4_drops > 1000);
	assert_true(v6_drops > 100);

	filter_close(&fa);
	filter_close(&fb);
	harness_close(&hb);
	source_close(&src);
}

static void test_roundtrip_bloom(void **state)
{
	(void)state;
	test_roundtrip(false);
}

static void test_roundtrip_intervals(void **state)
{
	(void)state;
	test_roundtrip(true);
}

/* ------------------------------------------------------ hostile files */

static __u8 *file_read(const char *path, size_t *len)
{
	struct stat sb;
	__u8 *buf;
	FILE *in;

	assert_int_equal(stat(path, &sb), 0);
	*len = sb.st_size;
	buf = malloc(*len);
	assert_non_null(buf);
	in = fopen(path, "rb");
	assert_non_null(in);
	assert_int_equal(fread(buf, 1, *len, in), *len);
	fclose(in);
	return buf;
}

static void file_write(const char *path, const __u8 *buf, size_t len)
{
	FILE *out = fopen(path, "wb");

	assert_non_null(out);
	assert_int_equal(fwrite(buf, 1, len, out), len);
	assert_int_equal(fclose(out), 0);
}

/* The refusals' messages, by the thousand: not on the test's output. */
static int stderr_off(void)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);

	assert_true(saved >= 0 && null >= 0);
	dup2(null, STDERR_FILENO);
	close(null);
	return saved;
}

static void stderr_on(int saved)
{
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/* The live list of an attachment, to see that a refused apply changed nothing. */
struct live {
	__u32 slot;
	struct bloomxdp_state st;
};

static void live_get(const struct attachment *att, struct live *l)
{
	assert_int_equal(attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &l->slot), 0);
	assert_int_equal(attachment_read_state(att, l->slot, &l->st), 0);
}

static void assert_refused(struct attachment *att, const char *path, const char *what)
{
	struct live before, after;
	int ret;

	live_get(att, &before);
	ret = savefile_apply(att, path, &restored);
	live_get(att, &after);
	if (ret == 0 || before.slot != after.slot || memcmp(&before.st, &after.st, sizeof(before.st)))
		fail_msg("%s: apply returned %d, slot %u -> %u", what, ret, before.slot,
			 after.slot);
}

static void test_flips_and_cuts(void **state)
{
	struct savefile_info info;
	struct xdp_harness hb;
	struct attachment attb;
	struct source src;
	char why[256], bad[64], what[64];
	size_t len, pos, i;
	__u64 s = 99;
	__u8 *buf, flip;
	int fd, quiet;

	(void)state;
	source_open(&src, true);
	assert_int_equal(savefile_check(src.path, &info, why, sizeof(why)), 0);
	buf = file_read(src.path, &len);
	assert_int_equal(info.file_bytes, len);
	assert_int_equal(info.nsources, 2);
	fresh_open(&hb, &attb, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_OFF);
	snprintf(bad, sizeof(bad), "/tmp/bloomxdp-savefile-bad-XXXXXX");
	fd = mkstemp(bad);
	assert_true(fd >= 0);
	close(fd);

	/* Every byte of the header, and N_FLIPS positions of the whole file, flipped. */
	file_write(bad, buf, len);
	fd = open(bad, O_WRONLY);
	assert_true(fd >= 0);
	quiet = stderr_off();
	for (i = 0; i < SAVEFILE_HEADER_BYTES + N_FLIPS; i++) {
		pos = i < SAVEFILE_HEADER_BYTES ? i : rng_next(&s) % len;
		flip = buf[pos] ^ (1 << (i % 8));
		assert_int_equal(pwrite(fd, &flip, 1, pos), 1);
		if (savefile_check(bad, &info, why, sizeof(why)) == 0)
			fail_msg("byte %zu of %zu flipped (bit %zu): not caught", pos, len, i % 8);
		/*
		 * The writer's bytes: corrupted; its padding after the NUL by its own
		 * check (a character, or the NUL, may flip into a printable one: the
		 * checksum's then).
		 */
		if (pos >= SAVEFILE_WRITER_AT && pos < SAVEFILE_HEADER_BYTES &&
		    (!strstr(why, "corrupted:") ||
		     (pos > SAVEFILE_WRITER_AT + strlen(bloomxdp_version()) &&
		      !strstr(why, "corrupted: the version of bloomxdp"))))
			fail_msg("byte %zu of the writer flipped: %s", pos, why);
		if (i < SAVEFILE_HEADER_BYTES + N_APPLY_FLIPS) {
			snprintf(what, sizeof(what), "byte %zu flipped", pos);
			assert_refused(&attb, bad, what);
		}
		assert_int_equal(pwrite(fd, &buf[pos], 1, pos), 1);
	}
	close(fd);
	/* Cut at every offset of the header, then at sampled ones, and one byte short. */
	for (i = 0; i < SAVEFILE_HEADER_BYTES + 200; i++) {
		pos = i <= SAVEFILE_HEADER_BYTES ? i : i == SAVEFILE_HEADER_BYTES + 199 ? len - 1 :
		      rng_next(&s) % len;
		file_write(bad, buf, pos);
		if (savefile_check(bad, &info, why, sizeof(why)) == 0)
			fail_msg("cut at %zu of %zu: not caught", pos, len);
		if (i <= SAVEFILE_HEADER_BYTES || i % 20 == 0) {
			snprintf(what, sizeof(what), "cut at %zu", pos);
			assert_refused(&attb, bad, what);
		}
	}
	stderr_on(quiet);
	/* A byte more. */
	buf = realloc(buf, len + 1);
	buf[len] = 0;
	file_write(bad, buf, len + 1);
	assert_int_not_equal(savefile_check(bad, &info, why, sizeof(why)), 0);
	/* The original still applies: what was refused was the damage. */
	assert_int_equal(savefile_apply(&attb, src.path, &restored), 0);

	unlink(bad);
	free(buf);
	harness_close(&hb);
	source_close(&src);
}

/* Patches a copy of the file at pos and recomputes the checksum: only the checks of fields hold. */
static void patched(const __u8 *orig, size_t len, size_t pos, const void *bytes, size_t n,
		    const char *path)
{
	__u8 *buf = malloc(len);
	__u32 crc;

	assert_non_null(buf);
	memcpy(buf, orig, len);
	memcpy(buf + pos, bytes, n);
	crc = htole32(savefile_crc32c(0, buf, len - SAVEFILE_TRAILER_BYTES));
	memcpy(buf + len - SAVEFILE_TRAILER_BYTES, &crc, 4);
	file_write(path, buf, len);
	free(buf);
}

static void expect_why(const char *path, const char *needle)
{
	struct savefile_info info;
	char why[256] = "";

	assert_int_not_equal(savefile_check(path, &info, why, sizeof(why)), 0);
	if (!strstr(why, needle))
		fail_msg("expected '%s' in: %s", needle, why);
}

/* Writers that are not 1 to 31 printable characters then NUL: each refused as corrupted. */
static void bad_writers(struct attachment *att, const __u8 *buf, size_t len, const char *bad)
{
	const struct {
		size_t at, n;
		const char *bytes;
	} writers[] = {
		{ 0, 1, "\x01" },			/* a control character */
		{ 1, 1, "\x80" },			/* not ASCII */
		{ 0, 1, "\x7f" },			/* DEL */
		{ 20, 1, "x" },			/* after the NUL: padding not zero */
		{ 31, 1, "x" },			/* the last byte */
		{ 0, 32, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
			  "\0\0\0\0\0\0" },	/* empty */
		{ 0, 32, "0123456789abcdef0123456789abcdef" },	/* no NUL */
	};
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		patched(buf, len, SAVEFILE_WRITER_AT + writers[i].at, writers[i].bytes,
			writers[i].n, bad);
		expect_why(bad, "corrupted: the version of bloomxdp that wrote it");
		snprintf(what, sizeof(what), "bad writer %zu", i);
		assert_refused(att, bad, what);
	}
	/* 31 characters, a space among them: a writer. */
	patched(buf, len, SAVEFILE_WRITER_AT, "0.9.0 with 31 printable chars~!", 32, bad);
	{
		struct savefile_info info;
		char why[256];

		assert_int_equal(savefile_check(bad, &info, why, sizeof(why)), 0);
		assert_string_equal(info.writer, "0.9.0 with 31 printable chars~!");
	}
}

static void test_hostile_fields(void **state)
{
	struct savefile_info info;
	struct xdp_harness hb;
	struct attachment attb;
	struct source src;
	char why[256], bad[64];
	__u8 b[8], *buf;
	size_t len, ranges_at;
	__u64 m;
	int fd;

	(void)state;
	source_open(&src, true);
	assert_int_equal(savefile_check(src.path, &info, why, sizeof(why)), 0);
	assert_true(info.ranges[0] >= 2);
	buf = file_read(src.path, &len);
	fresh_open(&hb, &attb, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_OFF);
	snprintf(bad, sizeof(bad), "/tmp/bloomxdp-savefile-bad-XXXXXX");
	fd = mkstemp(bad);
	assert_true(fd >= 0);
	close(fd);

	memset(b, 0, sizeof(b));
	b[0] = 3;
	patched(buf, len, 8, b, 4, bad);
	expect_why(bad, "format version 3");
	assert_refused(&attb, bad, "version 3");
	/* Each version its one header length: version 1 with 192 bytes, version 2 with 160. */
	b[0] = 1;
	patched(buf, len, 8, b, 4, bad);
	expect_why(bad, "corrupted: a header of 192 bytes, and format version 1 has 160");
	assert_refused(&attb, bad, "version 1 with a header of 192 bytes");
	b[0] = 160;
	patched(buf, len, 12, b, 4, bad);
	expect_why(bad, "corrupted: a header of 160 bytes, and format version 2 has 192");
	bad_writers(&attb, buf, len, bad);
	patched(buf, len, 0, "BXDPSAVF", 8, bad);
	expect_why(bad, "not a file of 'bloomxdp save'");
	/* The intervals: the second one before the first. */
	ranges_at = SAVEFILE_HEADER_BYTES + info.bits / 8;
	patched(buf, len, ranges_at + 8, buf + ranges_at, 8, bad);
	expect_why(bad, "out of order");
	assert_refused(&attb, bad, "intervals out of order");
	/* IPv6 lengths: /64 then /96 (not longest first). */
	b[0] = 64;
	b[1] = 96;
	memset(b + 2, 0xff, 6);
	patched(buf, len, 48, b, 8, bad);
	expect_why(bad, "prefix lengths");
	/* IPv4 intervals without the intervals' mark. */
	memset(b, 0xff, 8);
	patched(buf, len, 40, b, 8, bad);
	expect_why(bad, "prefix lengths");
	/* layout kernel, and one that does not exist. */
	memset(b, 0, 8);
	b[0] = BLOOMXDP_LAYOUT_KERNEL;
	patched(buf, len, 16, b, 4, bad);
	expect_why(bad, "layout");
	b[0] = 77;
	patched(buf, len, 16, b, 4, bad);
	expect_why(bad, "layout");
	/* m that is not whole blocks. */
	m = htole64(info.bits + 64);
	patched(buf, len, 24, &m, 8, bad);
	assert_int_not_equal(savefile_check(bad, &info, why, sizeof(why)), 0);
	/* A source name with a NUL. */
	patched(buf, len, len - SAVEFILE_TRAILER_BYTES - 3, "\0", 1, bad);
	expect_why(bad, "source");

	unlink(bad);
	free(buf);
	harness_close(&hb);
	source_close(&src);
}

/*
 * fpr_ppb, entries, keys and capacity, each set by a hostile writer with the CRC
 * recomputed (issue 21, 3.12): refused, the error naming the field; the
 * file's own values and the bounds themselves pass.
 */
static void test_header_bounds(void **state)
{
	const struct {
		size_t at;
		__u64 value;
		const char *field;
	} bad_fields[] = {
		{ 80, ~0ULL - 15, "entries" },
		{ 80, 1000000000000001ULL, "entries" },
		{ 88, 1ULL << 31, "keys" },
		{ 96, 31, "capacity" },
		{ 96, 0, "capacity" },
		{ 96, 1ULL << 62, "capacity" },
		{ 72, 65535, "fpr_ppb" },
		{ 72, 0, "fpr_ppb" },
		{ 72, 1000000000, "fpr_ppb" },
	};
	struct savefile_info info, again;
	struct source src;
	char why[256], bad[64];
	size_t len, i;
	__u8 *buf;
	__u64 v;
	int fd;

	(void)state;
	source_open(&src, false);
	assert_int_equal(savefile_check(src.path, &info, why, sizeof(why)), 0);
	buf = file_read(src.path, &len);
	snprintf(bad, sizeof(bad), "/tmp/bloomxdp-savefile-bounds-XXXXXX");
	fd = mkstemp(bad);
	assert_true(fd >= 0);
	close(fd);
	for (i = 0; i < sizeof(bad_fields) / sizeof(bad_fields[0]); i++) {
		v = htole64(bad_fields[i].value);
		patched(buf, len, bad_fields[i].at, &v, 8, bad);
		expect_why(bad, bad_fields[i].field);
	}
	/* At the bounds: keys twice the capacity, entries 10^15. */
	v = htole64(2 * info.capacity);
	patched(buf, len, 88, &v, 8, bad);
	assert_int_equal(savefile_check(bad, &again, why, sizeof(why)), 0);
	v = htole64(1000000000000000ULL);
	patched(buf, len, 80, &v, 8, bad);
	assert_int_equal(savefile_check(bad, &again, why, sizeof(why)), 0);
	unlink(bad);
	free(buf);
	source_close(&src);
}

/* ------------------------------------------------- format version 1 */

/*
 * A file of format version 1, as an older bloomxdp wrote it, from one of
 * version 2: the header's first 160 bytes (version 1, a header of 160 bytes,
 * its size 32 bytes less), the same body, the checksum over it all.
 */
static __u8 *to_v1(const __u8 *v2, size_t len, size_t *v1_len)
{
	size_t n = len - (SAVEFILE_HEADER_BYTES - SAVEFILE_V1_HEADER_BYTES);
	__u8 *v1 = malloc(n);
	__u32 word;
	__u64 size = htole64(n);

	assert_non_null(v1);
	memcpy(v1, v2, SAVEFILE_V1_HEADER_BYTES);
	memcpy(v1 + SAVEFILE_V1_HEADER_BYTES, v2 + SAVEFILE_HEADER_BYTES,
	       len - SAVEFILE_HEADER_BYTES - SAVEFILE_TRAILER_BYTES);
	word = htole32(SAVEFILE_V1_VERSION);
	memcpy(v1 + 8, &word, 4);
	word = htole32(SAVEFILE_V1_HEADER_BYTES);
	memcpy(v1 + 12, &word, 4);
	memcpy(v1 + 152, &size, 8);
	word = htole32(savefile_crc32c(0, v1, n - SAVEFILE_TRAILER_BYTES));
	memcpy(v1 + n - SAVEFILE_TRAILER_BYTES, &word, 4);
	*v1_len = n;
	return v1;
}

/* restore of a file an older bloomxdp saved: the same filter and intervals, its writer unknown. */
static void test_version1(void **state)
{
	struct savefile_info info, v2info;
	struct filter fa, fb;
	struct range_set ra, rb;
	struct xdp_harness hb;
	struct attachment attb;
	struct source src;
	char why[256], old[64], *said = NULL;
	size_t len, v1_len, said_len = 0, i;
	__u8 *buf, *v1, flip;
	FILE *out;
	__u32 slot;
	int fd, quiet;

	(void)state;
	source_open(&src, true);
	assert_int_equal(savefile_check(src.path, &v2info, why, sizeof(why)), 0);
	assert_int_equal(v2info.version, SAVEFILE_VERSION);
	buf = file_read(src.path, &len);
	v1 = to_v1(buf, len, &v1_len);
	snprintf(old, sizeof(old), "/tmp/bloomxdp-savefile-v1-XXXXXX");
	fd = mkstemp(old);
	assert_true(fd >= 0);
	close(fd);
	file_write(old, v1, v1_len);

	/* Read: version 1, a header of 160 bytes, no writer, every other field the same. */
	assert_int_equal(savefile_check(old, &info, why, sizeof(why)), 0);
	assert_int_equal(savefile_read_header(old, &info, why, sizeof(why)), 0);
	assert_int_equal(info.version, SAVEFILE_V1_VERSION);
	assert_int_equal(info.header_bytes, SAVEFILE_V1_HEADER_BYTES);
	assert_int_equal(info.file_bytes, v1_len);
	assert_string_equal(info.writer, "");
	assert_int_equal(info.bits, v2info.bits);
	assert_int_equal(info.entries, v2info.entries);
	assert_int_equal(info.ranges[0], v2info.ranges[0]);
	assert_int_equal(info.nsources, 2);

	/* Restored, bit for bit: the words after its own header, not 32 bytes into them. */
	fresh_open(&hb, &attb, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_OFF);
	assert_int_equal(savefile_apply(&attb, old, &restored), 0);
	assert_true(restored.restored);
	assert_int_equal(restored.entries, src.b.read);
	assert_string_equal(restored.saved_by, "");
	assert_int_equal(attachment_active(&attb, BLOOMXDP_ACTIVE_BLOCK, &slot), 0);
	assert_int_equal(slot, 1);
	assert_int_equal(filter_open(src.att.filter_fd, 0, &src.att.config, &fa), 0);
	assert_int_equal(filter_open(attb.filter_fd, 1, &attb.config, &fb), 0);
	assert_int_equal(fa.bytes, fb.bytes);
	assert_memory_equal(fa.words, fb.words, fa.bytes);
	assert_int_equal(range_set_open(src.att.ranges_v4_fd, 0, BLOOMXDP_KEY_IPV4, &ra), 0);
	assert_int_equal(range_set_open(attb.ranges_v4_fd, 1, BLOOMXDP_KEY_IPV4, &rb), 0);
	assert_int_equal(ra.n, rb.n);
	assert_memory_equal(ra.r, rb.r, ra.n * sizeof(ra.r[0]));
	range_set_free(&ra);
	range_set_free(&rb);
	filter_close(&fa);
	filter_close(&fb);
	/* What restore says of it. */
	out = open_memstream(&said, &said_len);
	assert_non_null(out);
	restore_result_print(&restored, out);
	fclose(out);
	if (!strstr(said, ", saved by an older bloomxdp at "))
		fail_msg("restore said: %s", said);
	free(said);

	/* Every byte of its header flipped, and a cut inside it: refused, nothing changed. */
	fd = open(old, O_WRONLY);
	assert_true(fd >= 0);
	quiet = stderr_off();
	for (i = 0; i < SAVEFILE_V1_HEADER_BYTES; i++) {
		flip = v1[i] ^ (1 << (i % 8));
		assert_int_equal(pwrite(fd, &flip, 1, i), 1);
		if (savefile_check(old, &info, why, sizeof(why)) == 0)
			fail_msg("byte %zu of a version 1 header flipped: not caught", i);
		if (i % 8 == 0)
			assert_refused(&attb, old, "a version 1 header flipped");
		assert_int_equal(pwrite(fd, &v1[i], 1, i), 1);
	}
	close(fd);
	file_write(old, v1, SAVEFILE_V1_HEADER_BYTES - 1);
	assert_refused(&attb, old, "a version 1 header cut short");
	stderr_on(quiet);

	unlink(old);
	free(v1);
	free(buf);
	harness_close(&hb);
	source_close(&src);
}

/* ------------------------------------------ files for another attachment */

static void test_other_attachments(void **state)
{
	struct bloomxdp_state st;
	__u32 slot;
	struct xdp_harness h;
	struct attachment att;
	struct source src;
	char path[64];
	int fd;

	(void)state;
	source_open(&src, false);
	/* Another hash key: the filter would answer with the wrong one. */
	fresh_open(&h, &att, key_b, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_OFF);
	assert_refused(&att, src.path, "another hash key");
	harness_close(&h);
	/* Another layout. */
	fresh_open(&h, &att, key_a, BLOOMXDP_LAYOUT_BITS, 0.01, BLOOMXDP_VERIFY_OFF);
	assert_refused(&att, src.path, "another layout");
	harness_close(&h);
	/* Another k (an FPR of 0.1%). */
	fresh_open(&h, &att, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.001, BLOOMXDP_VERIFY_OFF);
	assert_int_not_equal(att.config.hashes, src.att.config.hashes);
	assert_refused(&att, src.path, "another k");
	harness_close(&h);
	/* Over the attachment's --max-memory. */
	fresh_open(&h, &att, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_OFF);
	assert_int_equal(attachment_read_state(&att, 0, &st), 0);
	st.max_memory = 4096;
	assert_int_equal(attachment_write_state(&att, 0, &st), 0);
	assert_refused(&att, src.path, "over --max-memory");
	st.max_memory = 0;
	assert_int_equal(attachment_write_state(&att, 0, &st), 0);
	assert_int_equal(savefile_apply(&att, src.path, &restored), 0);
	harness_close(&h);
	/* --verify on: no exact copy in the file. */
	fresh_open(&h, &att, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_ON);
	assert_refused(&att, src.path, "--verify");
	harness_close(&h);
	/* --verify auto: restored, its generation without an exact stage (status says so). */
	fresh_open(&h, &att, key_a, BLOOMXDP_LAYOUT_BLOCKED, 0.01, BLOOMXDP_VERIFY_AUTO);
	assert_true(exact_outer_has(&att.verify, 0));
	assert_int_equal(savefile_apply(&att, src.path, &restored), 0);
	assert_int_equal(attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &slot), 0);
	assert_int_equal(slot, 1);
	assert_false(exact_outer_has(&att.verify, 1));
	assert_false(exact_outer_has(&att.verify, 0));	/* the old generation freed */
	assert_int_equal(attachment_read_state(&att, 1, &st), 0);
	assert_int_equal(st.exact_keys, 0);
	harness_close(&h);
	/* Layout kernel cannot be saved: nothing written. */
	fresh_open(&h, &att, key_a, BLOOMXDP_LAYOUT_KERNEL, 0.01, BLOOMXDP_VERIFY_OFF);
	snprintf(path, sizeof(path), "/tmp/bloomxdp-savefile-k-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(savefile_save(&att, path, NULL, 0, &saved), -EOPNOTSUPP);
	assert_int_not_equal(access(path, F_OK), 0);
	harness_close(&h);
	source_close(&src);
}

/* The checksum: CRC32C's check value, and every single-byte error of a block caught. */
static void test_crc32c(void **state)
{
	__u8 block[256];
	__u32 good, i, bit;

	(void)state;
	assert_int_equal(savefile_crc32c(0, "123456789", 9), 0xe3069283);
	for (i = 0; i < sizeof(block); i++)
		block[i] = i * 7;
	good = savefile_crc32c(0, block, sizeof(block));
	for (i = 0; i < sizeof(block); i++) {
		for (bit = 1; bit < 256; bit++) {
			block[i] ^= bit;
			assert_int_not_equal(savefile_crc32c(0, block, sizeof(block)), good);
			block[i] ^= bit;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_header_bounds),
		cmocka_unit_test(test_roundtrip_bloom),
		cmocka_unit_test(test_roundtrip_intervals),
		cmocka_unit_test(test_flips_and_cuts),
		cmocka_unit_test(test_hostile_fields),
		cmocka_unit_test(test_version1),
		cmocka_unit_test(test_other_attachments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
