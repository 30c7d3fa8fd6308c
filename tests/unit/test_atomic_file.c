// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one atomic file write (user/util/atomic_file.c) and the one SHA-256
 * (user/util/sha256.c): a file replaced whole, mode 0600, under a random
 * temporary name that is never one already there and never followed through
 * a link; nothing left behind when a step fails, every error returned; the
 * two steps of a load (staged, then named, or abandoned); a link at the name
 * replaced, not followed; the digests against known vectors, a file's and a
 * stream's the same as a buffer's.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/atomic_file.h"
#include "util/sha256.h"

static char dir[64];	/* a fresh temporary directory per test */
static int dir_fd = -1;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_atomic_file.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dir_fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	close(dir_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

/* How many names in the directory are temporary files of ours. */
static int temporaries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += atomic_file_is_temp(de->d_name) || strstr(de->d_name, ".tmp") != NULL;
	closedir(d);
	return n;
}

/* The file name in the directory, NUL-terminated, into buf. */
static const char *contents(const char *name, char *buf, size_t len)
{
	ssize_t n;
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW);

	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

static void test_write_replaces(void **state)
{
	char buf[64];
	struct stat st;

	(void)state;
	assert_int_equal(atomic_file_write(dir_fd, "f", "one\n", 4), 0);
	assert_string_equal(contents("f", buf, sizeof(buf)), "one\n");
	assert_int_equal(atomic_file_write(dir_fd, "f", "two\n", 4), 0);
	assert_string_equal(contents("f", buf, sizeof(buf)), "two\n");
	/* Empty is a file too. */
	assert_int_equal(atomic_file_write(dir_fd, "e", "", 0), 0);
	assert_string_equal(contents("e", buf, sizeof(buf)), "");
	assert_int_equal(fstatat(dir_fd, "f", &st, 0), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(temporaries(), 0);
}

static void test_temp_names(void **state)
{
	char a[ATOMIC_TMP_MAX], b[ATOMIC_TMP_MAX];
	int fa, fb;

	(void)state;
	fa = atomic_file_temp(dir_fd, a);
	fb = atomic_file_temp(dir_fd, b);
	assert_true(fa >= 0 && fb >= 0);
	/* Random, of the form a cleanup recognises, and two at once never the same. */
	assert_true(atomic_file_is_temp(a));
	assert_true(atomic_file_is_temp(b));
	assert_string_not_equal(a, b);
	assert_int_equal(strncmp(a, ATOMIC_TMP_PREFIX, strlen(ATOMIC_TMP_PREFIX)), 0);
	close(fa);
	close(fb);
	atomic_file_abandon(dir_fd, a);
	atomic_file_abandon(dir_fd, b);
	assert_string_equal(a, "");
	assert_int_equal(temporaries(), 0);
	/* Abandoning nothing is nothing. */
	atomic_file_abandon(dir_fd, a);

	assert_false(atomic_file_is_temp(".tmp."));
	assert_false(atomic_file_is_temp(".tmp.0123456789abcdeF"));
	assert_false(atomic_file_is_temp(".tmp.0123456789abcdef0"));
	assert_false(atomic_file_is_temp("tmp.0123456789abcdef"));
	assert_false(atomic_file_is_temp(".spec.tmp"));
	assert_true(atomic_file_is_temp(".tmp.0123456789abcdef"));
}

static void test_two_steps(void **state)
{
	char tmp[ATOMIC_TMP_MAX], buf[64];
	struct stat st;

	(void)state;
	assert_int_equal(atomic_file_write(dir_fd, "f", "old\n", 4), 0);
	/* Staged: durable under its temporary name, the old file still what readers see. */
	assert_int_equal(atomic_file_stage(dir_fd, "new\n", 4, tmp), 0);
	assert_true(atomic_file_is_temp(tmp));
	assert_string_equal(contents(tmp, buf, sizeof(buf)), "new\n");
	assert_string_equal(contents("f", buf, sizeof(buf)), "old\n");
	assert_int_equal(atomic_file_commit(dir_fd, tmp, "f"), 0);
	assert_string_equal(tmp, "");
	assert_string_equal(contents("f", buf, sizeof(buf)), "new\n");
	/* Abandoned: nothing changed, nothing left. */
	assert_int_equal(atomic_file_stage(dir_fd, "never\n", 6, tmp), 0);
	atomic_file_abandon(dir_fd, tmp);
	assert_string_equal(contents("f", buf, sizeof(buf)), "new\n");
	assert_int_equal(temporaries(), 0);
	assert_int_not_equal(fstatat(dir_fd, "never", &st, 0), 0);
}

static void test_failures_leave_nothing(void **state)
{
	char tmp[ATOMIC_TMP_MAX], buf[64];

	(void)state;
	/* A rename that fails (a directory in the way): the error, no temporary file left. */
	assert_int_equal(mkdirat(dir_fd, "d", 0700), 0);
	assert_int_equal(atomic_file_write(dir_fd, "d", "x\n", 2), -EISDIR);
	assert_int_equal(temporaries(), 0);
	assert_int_equal(atomic_file_stage(dir_fd, "x\n", 2, tmp), 0);
	assert_int_equal(atomic_file_commit(dir_fd, tmp, "d"), -EISDIR);
	assert_string_equal(tmp, "");
	assert_int_equal(temporaries(), 0);
	/* A name that cannot be one (a path through a file) and a bad descriptor. */
	assert_int_equal(atomic_file_write(dir_fd, "f", "a\n", 2), 0);
	assert_int_equal(atomic_file_write(dir_fd, "f/g", "x\n", 2), -ENOTDIR);
	assert_int_equal(atomic_file_write(-1, "f", "x\n", 2), -EBADF);
	assert_int_equal(atomic_file_temp(-1, tmp), -EBADF);
	assert_string_equal(tmp, "");
	assert_int_equal(temporaries(), 0);
	assert_string_equal(contents("f", buf, sizeof(buf)), "a\n");
}

static void test_links_not_followed(void **state)
{
	char path[128], buf[64];
	struct stat st;
	int fd;

	(void)state;
	/* A link at the name is replaced by the file, what it points to untouched. */
	snprintf(path, sizeof(path), "%s/target", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "mine\n", 5), 5);
	close(fd);
	assert_int_equal(symlinkat(path, dir_fd, "f"), 0);
	assert_int_equal(atomic_file_write(dir_fd, "f", "new\n", 4), 0);
	assert_int_equal(fstatat(dir_fd, "f", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(contents("f", buf, sizeof(buf)), "new\n");
	assert_string_equal(contents("target", buf, sizeof(buf)), "mine\n");
	assert_int_equal(temporaries(), 0);
}

static void test_large(void **state)
{
	size_t len = 5 << 20, i;
	char *data = malloc(len), hex[SHA256_HEX], got[SHA256_HEX];
	int fd;

	(void)state;
	assert_non_null(data);
	for (i = 0; i < len; i++)
		data[i] = (char)(i * 2654435761u >> 13);
	assert_int_equal(atomic_file_write(dir_fd, "big", data, len), 0);
	assert_int_equal(sha256_hex(data, len, hex), 0);
	fd = openat(dir_fd, "big", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(sha256_fd_hex(fd, got), 0);
	close(fd);
	assert_string_equal(got, hex);
	free(data);
}

static void test_sha256(void **state)
{
	static const struct { const char *text; const char *hex; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[SHA256_HEX];
	struct sha256 s;
	size_t i, j;
	int fd;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(sha256_hex(v[i].text, strlen(v[i].text), hex), 0);
		assert_string_equal(hex, v[i].hex);
		/* A byte at a time, as a copy is hashed while it is written. */
		assert_int_equal(sha256_init(&s), 0);
		for (j = 0; v[i].text[j]; j++)
			assert_int_equal(sha256_update(&s, v[i].text + j, 1), 0);
		assert_int_equal(sha256_final(&s, hex), 0);
		sha256_free(&s);
		assert_string_equal(hex, v[i].hex);
		/* A file's, from its start whatever its offset, the offset left as it was. */
		assert_int_equal(atomic_file_write(dir_fd, "v", v[i].text, strlen(v[i].text)), 0);
		fd = openat(dir_fd, "v", O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(lseek(fd, 1, SEEK_SET), 1);
		assert_int_equal(sha256_fd_hex(fd, hex), 0);
		assert_int_equal(lseek(fd, 0, SEEK_CUR), 1);
		close(fd);
		assert_string_equal(hex, v[i].hex);
	}
	/* A descriptor that cannot be read: an error, not a digest. */
	assert_int_equal(sha256_fd_hex(-1, hex), -EBADF);
	fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY);
	assert_int_equal(sha256_fd_hex(fd, hex), -EISDIR);
	close(fd);
	sha256_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_temp_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures_leave_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sha256, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
