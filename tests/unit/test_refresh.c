// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Feed refresh without the kernel: the backoff, names and specs, the bounded
 * copy of a local feed, and the refusals (empty, bad line, a failed apply)
 * that must leave no good copy behind and count a failure. Applying is
 * tested end to end (tests/e2e/test_refresh.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "service/fetch.h"
#include "lists/named.h"
#include "service/refresh.h"

static void test_backoff(void **state)
{
	struct feed_counters c = {};
	static const __u64 hourly[] = { 30, 60, 120, 240, 480, 960, 1920, 3600, 3600 };
	static const __u64 short_interval[] = { 30, 60, 100, 100 };
	size_t i;

	(void)state;
	assert_int_equal(feed_next_due(&c, 3600), 0);	/* never tried: now */
	c.last_attempt = 1000;
	assert_int_equal(feed_next_due(&c, 3600), 4600);
	assert_true(feed_next_due(&c, 0) == UINT64_MAX);	/* no interval, no failure */
	for (i = 0; i < sizeof(hourly) / sizeof(hourly[0]); i++) {
		c.consecutive_failures = i + 1;
		assert_int_equal(feed_next_due(&c, 3600), 1000 + hourly[i]);
	}
	for (i = 0; i < sizeof(short_interval) / sizeof(short_interval[0]); i++) {
		c.consecutive_failures = i + 1;
		assert_int_equal(feed_next_due(&c, 100), 1000 + short_interval[i]);
	}
	/* No interval: failures still retried, up to an hour apart. */
	c.consecutive_failures = 50;
	assert_int_equal(feed_next_due(&c, 0), 1000 + FEED_RETRY_CAP_S);
}

static void test_names_and_specs(void **state)
{
	struct feed_spec s;

	(void)state;
	assert_int_equal(feed_name_check("urlhaus"), 0);
	assert_int_equal(feed_name_check("easy_list-2"), 0);
	assert_int_equal(feed_name_check(""), -EINVAL);
	assert_int_equal(feed_name_check("../x"), -EINVAL);
	assert_int_equal(feed_name_check("Upper"), -EINVAL);
	assert_int_equal(feed_name_check("-x"), -EINVAL);
	/* As load --list takes them: 32 characters, not 33. */
	assert_int_equal(feed_name_check("a2345678901234567890123456789012"), 0);
	assert_int_equal(list_name_check("a2345678901234567890123456789012"), 0);
	assert_int_equal(feed_name_check("a23456789012345678901234567890123"), -EINVAL);
	feed_spec_defaults(&s);
	assert_int_equal(s.max_shrink_pct, FEED_DEFAULT_MAX_SHRINK);
	strcpy(s.name, "x");
	strcpy(s.source, "https://feeds.example/list.txt");
	assert_int_equal(feed_spec_check(&s), 0);
	strcpy(s.source, "ftp://feeds.example/list.txt");
	assert_int_equal(feed_spec_check(&s), -EINVAL);
	strcpy(s.source, "http://feeds.example/a\nb");
	assert_int_equal(feed_spec_check(&s), -EINVAL);
	strcpy(s.source, "/etc/list.txt");
	s.max_shrink_pct = 101;
	assert_int_equal(feed_spec_check(&s), -EINVAL);
}

struct tmp {
	char dir[64];
	int fd;
};

static void tmp_make(struct tmp *t)
{
	strcpy(t->dir, "/tmp/bloomxdp-refreshXXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->fd = open(t->dir, O_RDONLY | O_DIRECTORY);
	assert_true(t->fd >= 0);
}

static void tmp_file(const struct tmp *t, const char *name, const char *text, char *path)
{
	FILE *f;

	sprintf(path, "%s/%s", t->dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tmp_remove(struct tmp *t)
{
	char cmd[128];

	close(t->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
}

/* A local feed is copied, bounded by max_bytes, and must be a regular file. */
static void test_fetch_file(void **state)
{
	struct fetch_opts o = { .dir_fd = -1, .tmp_name = "body", .timeout_s = 5,
				.max_bytes = 100 };
	struct fetch_result r;
	char path[128], fifo[128];
	struct stat st;
	struct tmp t;

	(void)state;
	tmp_make(&t);
	o.dir_fd = t.fd;
	tmp_file(&t, "list.txt", "192.0.2.1\nevil.example\n", path);
	o.source = path;
	assert_int_equal(fetch(&o, &r), 0);
	assert_int_equal(r.status, FETCH_NEW);
	assert_int_equal(r.bytes, 23);
	assert_int_equal(fstatat(t.fd, "body", &st, 0), 0);
	assert_int_equal(st.st_size, 23);

	o.max_bytes = 22;
	assert_int_equal(fetch(&o, &r), -EFBIG);
	assert_int_equal(r.status, FETCH_FAILED);
	assert_non_null(strstr(r.why, "too large: over max_bytes 22"));
	assert_int_equal(fstatat(t.fd, "body", &st, 0), -1);	/* nothing left */

	sprintf(fifo, "%s/fifo", t.dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	o.source = fifo;
	o.max_bytes = 100;
	assert_int_equal(fetch(&o, &r), -EINVAL);
	assert_string_equal(r.why, "not a regular file");

	o.source = "/nonexistent/list.txt";
	assert_int_equal(fetch(&o, &r), -ENOENT);
	tmp_remove(&t);
}

/* Refusals need no kernel: nothing becomes good, the failure is counted. */
static void test_refusals(void **state)
{
	char path[128], state_dir[128], good[256];
	struct refresh_result res;
	struct feed_counters c;
	struct feed_spec s;
	struct stat st;
	struct tmp t;

	(void)state;
	tmp_make(&t);
	sprintf(state_dir, "%s/state", t.dir);
	feed_spec_defaults(&s);
	strcpy(s.name, "local");
	tmp_file(&t, "list.txt", "# nothing but comments\n", path);
	strcpy(s.source, path);
	assert_int_equal(feed_counters_read(state_dir, "bxunit0", "local", &c), 0);
	assert_int_equal(c.refresh_failures, 0);

	assert_int_equal(feed_refresh(state_dir, "bxunit0", &s, false, &res), -ENODATA);
	assert_int_equal(res.outcome, REFRESH_REFUSED);
	assert_int_equal(res.reason, REFRESH_EMPTY);

	tmp_file(&t, "list.txt", "192.0.2.1\nnot an entry!\n", path);
	assert_int_equal(feed_refresh(state_dir, "bxunit0", &s, false, &res), -EINVAL);
	assert_int_equal(res.reason, REFRESH_PARSE);
	assert_non_null(strstr(res.why, "feeds/local/pending:2: "));
	/* --accept takes the pending copy, and a bad line is never accepted. */
	assert_int_equal(feed_refresh(state_dir, "bxunit0", &s, true, &res), -EINVAL);
	assert_int_equal(res.reason, REFRESH_PARSE);

	/* It passes the guards, but the interface is not attached: refused, not promoted. */
	tmp_file(&t, "list.txt", "192.0.2.1\n", path);
	assert_true(feed_refresh(state_dir, "bxunit0", &s, false, &res) < 0);
	assert_int_equal(res.reason, REFRESH_APPLY);
	sprintf(good, "%s/bxunit0/feeds/local/good", state_dir);
	assert_int_equal(stat(good, &st), -1);
	sprintf(good, "%s/bxunit0/feeds/local/pending", state_dir);
	assert_int_equal(stat(good, &st), 0);

	assert_int_equal(feed_counters_read(state_dir, "bxunit0", "local", &c), 0);
	assert_int_equal(c.refresh_failures, 4);
	assert_int_equal(c.consecutive_failures, 4);
	assert_int_equal(c.last_success, 0);
	assert_true(c.last_attempt > 0);
	assert_non_null(strstr(c.last_error, "bxunit0"));

	/* Listed, then forgotten. */
	strcpy(s.name, "another");
	assert_true(feed_refresh(state_dir, "bxunit0", &s, false, &res) < 0);
	{
		char names[4][FEED_NAME_MAX];

		assert_int_equal(feed_list(state_dir, "bxunit0", names, 4), 2);
		assert_string_equal(names[0], "another");
		assert_string_equal(names[1], "local");
		assert_int_equal(feed_forget(state_dir, "bxunit0", "local"), 0);
		assert_int_equal(feed_list(state_dir, "bxunit0", names, 4), 1);
		assert_string_equal(names[0], "another");
		assert_int_equal(feed_forget(state_dir, "bxunit0", "local"), 0);
		assert_int_equal(feed_list(state_dir, "nothere0", names, 4), 0);
	}
	tmp_remove(&t);
}

/* The cache is refused when someone else could write in it. */
static void test_foreign_dirs(void **state)
{
	char state_dir[128], link[192], target[192];
	struct refresh_result res;
	struct feed_spec s;
	struct tmp t;

	(void)state;
	tmp_make(&t);
	feed_spec_defaults(&s);
	strcpy(s.name, "local");
	strcpy(s.source, "/dev/null");
	sprintf(state_dir, "%s/state", t.dir);
	assert_int_equal(mkdir(state_dir, 0700), 0);
	assert_int_equal(chmod(state_dir, 0777), 0);
	assert_int_equal(feed_refresh(state_dir, "bxunit0", &s, false, &res), -EPERM);
	assert_int_equal(chmod(state_dir, 0700), 0);
	sprintf(target, "%s/elsewhere", t.dir);
	assert_int_equal(mkdir(target, 0700), 0);
	sprintf(link, "%s/bxunit0", state_dir);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(feed_refresh(state_dir, "bxunit0", &s, false, &res), -ENOTDIR);
	tmp_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_names_and_specs),
		cmocka_unit_test(test_fetch_file),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_foreign_dirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
