// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The state directory (user/kernel/state_dir.c): made and opened as the pins' directory
 * is (no link followed, nobody else's, nothing group- or world-writable),
 * files replaced atomically, reads bounded, manifests read back as written and
 * refused when they point outside, journals appended and cut back, options
 * written and read back by their table, --forget following no link.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/log.h"
#include "util/options.h"
#include "kernel/state_dir.h"

static char base[64];	/* a fresh temporary directory per test */
static char root[128];	/* base/state: the state's root */

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/test_state.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	snprintf(root, sizeof(root), "%s/state", base);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", base);
	return system(cmd) ? -1 : 0;
}

/* How many names in dir start with prefix. */
static int count_names(const char *dir, const char *prefix)
{
	char cmd[256], out[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s'", dir, prefix);
	p = popen(cmd, "r");
	if (!p || !fgets(out, sizeof(out), p))
		out[0] = '\0';
	if (p)
		pclose(p);
	return atoi(out);
}

static void test_made_0700_level_by_level(void **state)
{
	struct state_dir sd;
	char path[256];
	struct stat st;

	(void)state;
	assert_int_equal(state_open(root, "eth0", false, &sd), -ENOENT);
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	state_close(&sd);
	assert_int_equal(stat(root, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/eth0", root);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* One path component only. */
	assert_int_not_equal(state_open(root, "..", true, &sd), 0);
	assert_int_not_equal(state_open(root, "a/b", true, &sd), 0);
}

static void test_refuses_links_and_modes(void **state)
{
	struct state_dir sd;
	char path[256], target[256];
	int ret;

	(void)state;
	assert_int_equal(mkdir(root, 0700), 0);
	/* The interface's directory a link to elsewhere: refused, not followed. */
	snprintf(target, sizeof(target), "%s/elsewhere", base);
	assert_int_equal(mkdir(target, 0700), 0);
	snprintf(path, sizeof(path), "%s/eth0", root);
	assert_int_equal(symlink(target, path), 0);
	ret = state_open(root, "eth0", true, &sd);
	assert_true(ret == -ENOTDIR || ret == -ELOOP);
	assert_int_equal(count_names(target, ""), 0);
	unlink(path);
	/* Group-writable: anyone in the group could swap the files. */
	assert_int_equal(mkdir(path, 0770), 0);
	assert_int_equal(chmod(path, 0770), 0);
	assert_int_equal(state_open(root, "eth0", false, &sd), -EPERM);
	/* Readable by others is fine (systemd's StateDirectory= makes 0755). */
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(state_open(root, "eth0", false, &sd), 0);
	state_close(&sd);
	assert_int_equal(chmod(path, 0700), 0);
	/* Someone else's. */
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(state_open(root, "eth0", false, &sd), -EPERM);
		assert_int_equal(chown(path, 0, 0), 0);
	}
	assert_int_equal(state_open(root, "eth0", false, &sd), 0);
	state_close(&sd);
	/* The root itself a link. */
	snprintf(path, sizeof(path), "%s/linkroot", base);
	assert_int_equal(symlink(root, path), 0);
	ret = state_open(path, "eth0", false, &sd);
	assert_true(ret == -ENOTDIR || ret == -ELOOP);
}

static void test_atomic_write(void **state)
{
	struct state_dir sd;
	char *buf, path[256];
	size_t len;

	(void)state;
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	assert_int_equal(state_write(&sd, "settings", "one\n", 4), 0);
	assert_int_equal(state_write(&sd, "settings", "two\n", 4), 0);
	assert_int_equal(state_read(&sd, "settings", 100, &buf, &len), 0);
	assert_string_equal(buf, "two\n");
	free(buf);
	/* A rename that fails (a directory in the way) leaves no temporary file behind. */
	assert_int_equal(mkdirat(sd.fd, "block", 0700), 0);
	assert_int_not_equal(state_write(&sd, "block", "x\n", 2), 0);
	snprintf(path, sizeof(path), "%s/eth0", root);
	assert_int_equal(count_names(path, "\\.tmp"), 0);
	state_close(&sd);
}

static void test_bounded_reads(void **state)
{
	struct state_dir sd;
	char *buf, big[2048];
	size_t len;

	(void)state;
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	memset(big, 'a', sizeof(big));
	assert_int_equal(state_write(&sd, "big", big, sizeof(big)), 0);
	assert_int_equal(state_read(&sd, "big", 2047, &buf, &len), -EFBIG);
	assert_null(buf);
	assert_int_equal(state_read(&sd, "big", 2048, &buf, &len), 0);
	assert_int_equal(len, 2048);
	free(buf);
	assert_int_equal(state_read(&sd, "missing", 10, &buf, &len), -ENOENT);
	/* A link, a FIFO (which would block), a group-writable file: refused. */
	assert_int_equal(symlinkat("/etc/passwd", sd.fd, "link"), 0);
	assert_int_equal(state_read(&sd, "link", 1 << 20, &buf, &len), -ELOOP);
	assert_int_equal(mkfifoat(sd.fd, "fifo", 0600), 0);
	assert_int_equal(state_read(&sd, "fifo", 10, &buf, &len), -EPERM);
	assert_int_equal(fchmodat(sd.fd, "big", 0620, 0), 0);
	assert_int_equal(state_read(&sd, "big", 4096, &buf, &len), -EPERM);
	state_close(&sd);
}

static void test_manifest_round_trip(void **state)
{
	static const char *const bad[] = {
		STATE_MAGIC "\nsource x\ncopy ../../etc/passwd\n",
		STATE_MAGIC "\nfoo 1\n",
		"bloomxdp-state 9\nserial 1\n",
		STATE_MAGIC "\nsource x\n",
	};
	struct state_list l = { .serial = 7, .generation = 12, .time = 1700000000 }, r;
	struct state_dir sd;
	size_t i;

	(void)state;
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	l.options = strdup("--format=auto\n--where=2=DE\n");
	assert_int_equal(state_list_add_source(&l, "/a b/%list\nx", "block-7.0", "ab12", 42), 0);
	assert_int_equal(state_list_add_source(&l, "stdin", "block-7.1", "cd34", 0), 0);
	assert_int_equal(state_list_write(&sd, STATE_BLOCK, &l), 0);
	assert_int_equal(state_list_read(&sd, STATE_BLOCK, &r), 0);
	assert_int_equal(r.serial, 7);
	assert_int_equal(r.generation, 12);
	assert_int_equal(r.time, 1700000000);
	assert_string_equal(r.options, l.options);
	assert_int_equal(r.nsources, 2);
	assert_string_equal(r.src[0].source, "/a b/%list\nx");
	assert_string_equal(r.src[0].copy, "block-7.0");
	assert_string_equal(r.src[0].sha256, "ab12");
	assert_int_equal(r.src[0].bytes, 42);
	assert_string_equal(r.src[1].source, "stdin");
	state_list_free(&r);
	state_list_free(&l);
	/* A copy named outside the directory, an unknown key, another format: refused. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(state_write_sealed(&sd, "allow", bad[i], strlen(bad[i])), 0);
		assert_int_equal(state_list_read(&sd, STATE_ALLOW, &r), -EINVAL);
	}
	state_close(&sd);
}

/* A whole manifest, as written; n bytes of it written back (cut short). */
static char *read_whole(const char *path, size_t *n)
{
	char *buf = malloc(1 << 16);
	FILE *f = fopen(path, "r");

	assert_non_null(buf);
	assert_non_null(f);
	*n = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

static void write_bytes(const char *path, const char *buf, size_t n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
}

/*
 * A manifest cut short at every byte, a byte of it changed, a line appended
 * after its seal: each refused (-EBADMSG or, cut inside its first line, not of
 * this version). One of an older bloomxdp (no seal) is read, as legacy.
 */
static void test_manifest_sealed(void **state)
{
	struct state_list l = { .serial = 4, .generation = 9, .time = 1 }, r;
	struct state_dir sd;
	char path[256], *whole, *v1;
	size_t n, cut;

	(void)state;
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	assert_int_equal(state_list_add_source(&l, "/lists/a", "block-4.0", "ab12", 42), 0);
	assert_int_equal(state_list_write(&sd, STATE_BLOCK, &l), 0);
	snprintf(path, sizeof(path), "%s/eth0/" STATE_BLOCK, root);
	whole = read_whole(path, &n);
	assert_true(n > 100);
	for (cut = 0; cut < n; cut++) {
		write_bytes(path, whole, cut);
		assert_int_not_equal(state_list_read(&sd, STATE_BLOCK, &r), 0);
	}
	whole[strlen(STATE_MAGIC) + 10] ^= 1;
	write_bytes(path, whole, n);
	assert_int_equal(state_list_read(&sd, STATE_BLOCK, &r), -EBADMSG);
	whole[strlen(STATE_MAGIC) + 10] ^= 1;
	memcpy(whole + n, "serial 5\n", 9);
	write_bytes(path, whole, n + 9);
	assert_int_equal(state_list_read(&sd, STATE_BLOCK, &r), -EBADMSG);
	write_bytes(path, whole, n);
	assert_int_equal(state_list_read(&sd, STATE_BLOCK, &r), 0);
	assert_false(r.legacy);
	state_list_free(&r);
	/* Version 1: no seal. */
	v1 = STATE_MAGIC_V1 "\nserial 3\ngeneration 2\ntime 1\nsource /x\ncopy block-3.0\n";
	write_bytes(path, v1, strlen(v1));
	assert_int_equal(state_list_read(&sd, STATE_BLOCK, &r), 0);
	assert_true(r.legacy);
	assert_int_equal(r.serial, 3);
	assert_int_equal(r.nsources, 1);
	state_list_free(&r);
	state_list_free(&l);
	free(whole);
	state_close(&sd);
}

static void append_record(struct state_dir *sd, const char *name, const char *body)
{
	char *record;
	size_t rlen;
	off_t before;

	record = state_journal_record(body, strlen(body), &rlen);
	assert_non_null(record);
	assert_int_equal(strlen(record), rlen);
	assert_int_equal(state_append(sd, name, record, &before), 0);
	free(record);
}

/*
 * A journal's records read back as their entries; a line appended by hand (as
 * a forged 0.0.0.0/1) or a changed byte refused; a last record cut short
 * (an add that never finished) left out; an older bloomxdp's lines taken only
 * when its manifest is of that version, before the first record.
 */
static void test_journal_records(void **state)
{
	const char *name = "block-1.journal.auto";
	char path[256], *body, *whole;
	struct state_dir sd;
	size_t len, n;
	off_t before;

	(void)state;
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	snprintf(path, sizeof(path), "%s/eth0/%s", root, name);
	append_record(&sd, name, "12.2.0.1\n");
	append_record(&sd, name, "12.2.0.2\n12.2.0.3\n");
	assert_int_equal(state_journal_read(&sd, name, false, &body, &len), 0);
	assert_string_equal(body, "12.2.0.1\n12.2.0.2\n12.2.0.3\n");
	assert_int_equal(len, strlen(body));
	free(body);
	whole = read_whole(path, &n);
	/* Appended by hand: refused, legacy or not. */
	assert_int_equal(state_append(&sd, name, "0.0.0.0/1\n128.0.0.0/1\n", &before), 0);
	assert_int_equal(state_journal_read(&sd, name, false, &body, &len), -EBADMSG);
	assert_int_equal(state_journal_read(&sd, name, true, &body, &len), -EBADMSG);
	/* A record cut short, its last line incomplete: left out. */
	write_bytes(path, whole, n);
	append_record(&sd, name, "12.2.0.4\n");
	assert_int_equal(truncate(path, n + 12), 0);
	assert_int_equal(state_journal_read(&sd, name, false, &body, &len), 0);
	assert_string_equal(body, "12.2.0.1\n12.2.0.2\n12.2.0.3\n");
	free(body);
	/* Cut right after a line of its body: a complete line no record covers, refused. */
	assert_int_equal(truncate(path, n + 9), 0);
	assert_int_equal(state_journal_read(&sd, name, false, &body, &len), -EBADMSG);
	/* A changed byte in a record's body. */
	whole[3] = '9';
	write_bytes(path, whole, n);
	assert_int_equal(state_journal_read(&sd, name, false, &body, &len), -EBADMSG);
	/* An older bloomxdp's lines: only with a legacy manifest, before any record. */
	write_bytes(path, "10.0.0.1\n", 9);
	assert_int_equal(state_journal_read(&sd, name, false, &body, &len), -EBADMSG);
	assert_int_equal(state_journal_read(&sd, name, true, &body, &len), 0);
	assert_string_equal(body, "10.0.0.1\n");
	free(body);
	append_record(&sd, name, "10.0.0.2\n");
	assert_int_equal(state_journal_read(&sd, name, true, &body, &len), 0);
	assert_string_equal(body, "10.0.0.1\n10.0.0.2\n");
	free(body);
	assert_int_equal(state_journal_read(&sd, name, false, &body, &len), -EBADMSG);
	assert_int_equal(state_append(&sd, name, "10.0.0.3\n", &before), 0);
	assert_int_equal(state_journal_read(&sd, name, true, &body, &len), -EBADMSG);
	free(whole);
	state_close(&sd);
}

static void test_journal_and_prune(void **state)
{
	struct state_list l = { .serial = 3 };
	struct state_dir sd;
	char *buf, name[STATE_NAME_MAX], path[256];
	size_t len;
	off_t before;

	(void)state;
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	state_journal_name(STATE_BLOCK, 3, "auto", name, sizeof(name));
	assert_string_equal(name, "block-3.journal.auto");
	assert_int_equal(state_append(&sd, name, "a.example\n", &before), 0);
	assert_int_equal(before, 0);
	assert_int_equal(state_append(&sd, name, "b.example\n", &before), 0);
	assert_int_equal(before, 10);
	assert_int_equal(state_truncate(&sd, name, before), 0);
	assert_int_equal(state_read(&sd, name, 100, &buf, &len), 0);
	assert_string_equal(buf, "a.example\n");
	free(buf);
	/* Older serials' copies and journals go; the current ones and others' files stay. */
	assert_int_equal(state_write(&sd, "block-2.0", "x\n", 2), 0);
	assert_int_equal(state_write(&sd, "block-2.journal.auto", "x\n", 2), 0);
	assert_int_equal(state_write(&sd, "block-3.0", "x\n", 2), 0);
	assert_int_equal(state_write(&sd, "allow-2.0", "x\n", 2), 0);
	assert_int_equal(state_list_add_source(&l, "f", "block-3.0", "", 2), 0);
	state_prune(&sd, STATE_BLOCK, &l);
	snprintf(path, sizeof(path), "%s/eth0", root);
	assert_int_equal(count_names(path, "block-2"), 0);
	assert_int_equal(count_names(path, "block-3"), 2);
	assert_int_equal(count_names(path, "allow-2"), 1);
	state_list_free(&l);
	state_close(&sd);
}

static void test_copy_hashes_what_it_writes(void **state)
{
	struct state_copy c;
	struct state_dir sd;
	char hex[SHA256_HEX];
	int fd;

	(void)state;
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	assert_int_equal(state_copy_begin(&sd, &c), 0);
	assert_int_equal(state_copy_write(&c, "abc", 3), 0);
	assert_int_equal(state_copy_finish(&c), 0);
	/* SHA-256("abc"), FIPS 180-2 appendix B.1. */
	assert_string_equal(c.sha256,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(state_copy_commit(&sd, &c, "block-1.0"), 0);
	state_copy_close(&sd, &c);
	fd = state_open_file(&sd, "block-1.0");
	assert_true(fd >= 0);
	assert_int_equal(sha256_fd_hex(fd, hex), 0);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	close(fd);
	/* Not committed: its temporary file goes. */
	assert_int_equal(state_copy_begin(&sd, &c), 0);
	state_copy_close(&sd, &c);
	assert_int_equal(count_names(sd.path, "\\.tmp"), 0);
	state_close(&sd);
}

/*
 * Blocks queued to the copy's writer thread: the file holds them in order and
 * the digest is theirs, across more blocks than the queue holds.
 */
static void test_copy_many_blocks(void **state)
{
	size_t i, k, off = 0, len = 4096, n = 300;
	char *all = malloc(len * n), *back = malloc(len * n), hex[SHA256_HEX];
	struct state_copy c;
	struct state_dir sd;

	(void)state;
	assert_non_null(all);
	assert_non_null(back);
	for (i = 0; i < len * n; i++)
		all[i] = (char)(i * 7 + i / len);
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	assert_int_equal(state_copy_begin(&sd, &c), 0);
	/* Whole and half blocks of all, and one empty write. */
	for (i = 0; i < n; i++) {
		k = i % 3 ? len : len / 2;
		assert_int_equal(state_copy_write(&c, all + i * len, k), 0);
		memcpy(back + off, all + i * len, k);
		off += k;
	}
	assert_int_equal(state_copy_write(&c, all, 0), 0);
	assert_int_equal(state_copy_finish(&c), 0);
	assert_int_equal(c.bytes, off);
	assert_int_equal(sha256_hex(back, off, hex), 0);
	assert_string_equal(c.sha256, hex);
	assert_int_equal(pread(c.fd, all, off, 0), (ssize_t)off);
	assert_memory_equal(all, back, off);
	state_copy_close(&sd, &c);
	assert_int_equal(count_names(sd.path, "\\.tmp"), 0);
	state_close(&sd);
	free(all);
	free(back);
}

/* A copy begun in a new state directory whose file is then read-only: every write fails. */
static void copy_on_readonly_fd(struct state_dir *sd, struct state_copy *c)
{
	int ro;

	assert_int_equal(state_open(root, "eth0", true, sd), 0);
	assert_int_equal(state_copy_begin(sd, c), 0);
	ro = open("/dev/null", O_RDONLY);
	assert_true(ro >= 0);
	assert_true(dup2(ro, c->fd) == c->fd);
	close(ro);
}

/*
 * A write that fails on the writer's thread (the file read-only here, as a
 * full disk would fail it) is returned by a later write, before the queue's
 * 16 blocks are filled again, and by the drain; the copy is never finished.
 */
static void test_copy_write_error(void **state)
{
	struct state_copy c;
	struct state_dir sd;
	char block[512] = "x";
	int i, ret = 0;

	(void)state;
	copy_on_readonly_fd(&sd, &c);
	for (i = 0; i < 18 && !ret; i++)
		ret = state_copy_write(&c, block, sizeof(block));
	assert_int_equal(ret, -EBADF);
	assert_int_equal(c.err, -EBADF);
	assert_int_equal(state_copy_write(&c, block, sizeof(block)), -EBADF);
	assert_int_equal(state_copy_drain(&c), -EBADF);
	assert_int_equal(state_copy_finish(&c), -EBADF);
	state_copy_close(&sd, &c);
	assert_int_equal(count_names(sd.path, "\\.tmp"), 0);
	state_close(&sd);
}

/* One write queued, then a failure after the reader's last write: only the drain tells. */
static void test_copy_last_write_error(void **state)
{
	struct state_copy c;
	struct state_dir sd;

	(void)state;
	copy_on_readonly_fd(&sd, &c);
	assert_int_equal(state_copy_write(&c, "abc", 3), 0);
	assert_int_equal(state_copy_drain(&c), -EBADF);
	assert_int_equal(c.err, -EBADF);
	state_copy_close(&sd, &c);
	state_close(&sd);
}

struct opts {
	__u64 count;
	bool flag, given;
	__u32 mode;
	const char *text;
	struct file_list where;
};

static const struct enum_value modes[] = {
	ENUM_VALUE("native", 1, "n"), ENUM_VALUE("generic", 2, "g"), {}
};

static const struct option_spec table[] = {
	OPTION("count", 0, OPT_COUNT, offsetof(struct opts, count), "N", "n", .min = 1,
	       .max = 100, .given = OPTION_GIVEN(struct opts, given)),
	OPTION("flag", 0, OPT_FLAG, offsetof(struct opts, flag), NULL, "f"),
	OPTION("mode", 0, OPT_ENUM, offsetof(struct opts, mode), "M", "m", .values = modes),
	OPTION("text", 0, OPT_TEXT, offsetof(struct opts, text), "T", "t"),
	OPTION("where", 0, OPT_FILES, offsetof(struct opts, where), "W", "w"),
	OPTION("skipped", 0, OPT_FLAG, offsetof(struct opts, flag), NULL, "s"),
	{}
};

static void test_options_round_trip(void **state)
{
	static const char *const skip[] = { "skipped", NULL };
	const char *items[] = { "1=a", "2=b" };
	struct opts in = { .count = 42, .flag = true, .given = true, .mode = 2, .text = "x y",
			   .where = { items, 2 } }, out = {};
	char *text = NULL, *line, *save;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(options_write(table, &in, skip, f), 0);
	fclose(f);
	assert_string_equal(text, "--count=42\n--flag\n--mode=generic\n--text=x y\n--where=1=a\n"
				  "--where=2=b\n");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_int_equal(options_parse_line(table, line, &out), 0);
	assert_int_equal(out.count, 42);
	assert_true(out.flag && out.given);
	assert_int_equal(out.mode, 2);
	assert_string_equal(out.text, "x y");
	assert_int_equal(out.where.count, 2);
	assert_string_equal(out.where.items[1], "2=b");
	free(out.where.items);
	/* Checked as on the command line: out of range, unknown, a flag with a value. */
	assert_int_equal(options_parse_line(table, (char[]){ "--count=1000" }, &out), -EINVAL);
	assert_int_equal(options_parse_line(table, (char[]){ "--nope=1" }, &out), -EINVAL);
	assert_int_equal(options_parse_line(table, (char[]){ "--flag=1" }, &out), -EINVAL);
	assert_int_equal(options_parse_line(table, (char[]){ "count=1" }, &out), -EINVAL);
	free(text);
}

static void test_forget_follows_no_link(void **state)
{
	struct state_dir sd;
	char outside[128], path[256];
	int fd;

	(void)state;
	snprintf(outside, sizeof(outside), "%s/outside", base);
	assert_int_equal(mkdir(outside, 0700), 0);
	snprintf(path, sizeof(path), "%s/keep", outside);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(state_open(root, "eth0", true, &sd), 0);
	assert_int_equal(symlinkat(outside, sd.fd, "feeds"), 0);
	assert_int_equal(mkdirat(sd.fd, "sub", 0700), 0);
	state_close(&sd);
	assert_int_equal(state_forget(root, "eth0"), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(state_open(root, "eth0", false, &sd), -ENOENT);
}

static void test_root_from_environment(void **state)
{
	(void)state;
	unsetenv(STATE_DIR_ENV);
	assert_string_equal(state_root(NULL), STATE_ROOT_DEFAULT);
	setenv(STATE_DIR_ENV, "/srv/bx", 1);
	assert_string_equal(state_root(NULL), "/srv/bx");
	assert_string_equal(state_root("/given"), "/given");
	unsetenv(STATE_DIR_ENV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_made_0700_level_by_level, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_links_and_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_and_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest_sealed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_hashes_what_it_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_many_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_last_write_error, setup, teardown),
		cmocka_unit_test(test_options_round_trip),
		cmocka_unit_test_setup_teardown(test_forget_follows_no_link, setup, teardown),
		cmocka_unit_test(test_root_from_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
