// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Named lists (user/lists/named.c): the names accepted (they become file names and
 * metric labels), the actions and their rank (drop > nxdomain > monitor, the
 * XDP program keeps the greatest), the default list's action from attach's,
 * the manifest of each list in the state, and which files of the state are
 * a list's manifest (not a copy, a journal or another list's file), and what
 * pruning one list leaves of another whose name starts the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lists/lists.h"
#include "lists/named.h"
#include "kernel/state_dir.h"

static void test_names(void **state)
{
	char long_name[BLOOMXDP_LIST_NAME_MAX + 2];

	(void)state;
	assert_int_equal(list_name_check("crowdsec"), 0);
	assert_int_equal(list_name_check("fail2ban"), 0);
	assert_int_equal(list_name_check("a_b-9"), 0);
	assert_int_equal(list_name_check(""), -EINVAL);
	assert_int_equal(list_name_check(NULL), -EINVAL);
	assert_int_equal(list_name_check("Caps"), -EINVAL);
	assert_int_equal(list_name_check("a.b"), -EINVAL);
	assert_int_equal(list_name_check("../x"), -EINVAL);
	assert_int_equal(list_name_check("a b"), -EINVAL);
	assert_int_equal(list_name_check("a\"b"), -EINVAL);
	memset(long_name, 'a', sizeof(long_name));
	long_name[BLOOMXDP_LIST_NAME_MAX] = '\0';
	assert_int_equal(list_name_check(long_name), 0);
	long_name[BLOOMXDP_LIST_NAME_MAX] = 'a';
	long_name[BLOOMXDP_LIST_NAME_MAX + 1] = '\0';
	assert_int_equal(list_name_check(long_name), -EINVAL);
}

static void test_actions(void **state)
{
	struct bloomxdp_config cfg = { .action = BLOOMXDP_ACTION_DROP };
	__u32 v;

	(void)state;
	/* The rank the XDP program compares: the strongest action wins. */
	assert_true(BLOOMXDP_LIST_DROP > BLOOMXDP_LIST_NXDOMAIN);
	assert_true(BLOOMXDP_LIST_NXDOMAIN > BLOOMXDP_LIST_MONITOR);
	assert_true(BLOOMXDP_LIST_MONITOR > BLOOMXDP_LIST_PASS);
	assert_int_equal(enum_value_parse(list_action_values, "monitor", &v), 0);
	assert_int_equal(v, BLOOMXDP_LIST_MONITOR);
	assert_int_equal(enum_value_parse(list_action_values, "nxdomain", &v), 0);
	assert_int_equal(v, BLOOMXDP_LIST_NXDOMAIN);
	assert_int_equal(enum_value_parse(list_action_values, "pass", &v), -EINVAL);
	assert_string_equal(list_action_name(BLOOMXDP_LIST_DROP), "drop");
	/* The default list's: attach's --action, then --dns-reply. */
	assert_int_equal(list_default_action(&cfg), BLOOMXDP_LIST_DROP);
	cfg.dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN;
	assert_int_equal(list_default_action(&cfg), BLOOMXDP_LIST_NXDOMAIN);
	cfg.action = BLOOMXDP_ACTION_MONITOR;
	assert_int_equal(list_default_action(&cfg), BLOOMXDP_LIST_MONITOR);
}

/* load --learn: a named list's only; not with the allowlist. */
static void test_learn_option(void **state)
{
	struct list_opts o = list_opts_defaults;

	(void)state;
	o.learn = true;
	assert_int_equal(list_opts_check(&o), -EINVAL);
	o.list = "trackers";
	assert_int_equal(list_opts_check(&o), 0);
	o.allow = true;
	assert_int_equal(list_opts_check(&o), -EINVAL);
	/* The descriptor's bit is not a prefix family's; the learning bit no list id. */
	assert_false(BLOOMXDP_LIST_LEARN &
		     (BLOOMXDP_LIST_HAS_PREFIX_V4 | BLOOMXDP_LIST_HAS_PREFIX_V6));
	assert_false(BLOOMXDP_LISTS_LEARNING & ((1ULL << BLOOMXDP_LIST_IDS) - 1));
}

static void test_manifest_names(void **state)
{
	struct list_opts o = { .list = "crowdsec" };
	char buf[STATE_NAME_MAX];

	(void)state;
	assert_string_equal(list_opts_which(&o, buf), "list.crowdsec");
	o.list = NULL;
	assert_string_equal(list_opts_which(&o, buf), STATE_BLOCK);
	o.allow = true;
	assert_string_equal(list_opts_which(&o, buf), STATE_ALLOW);
}

static void touch(const struct state_dir *sd, const char *name)
{
	assert_int_equal(state_write(sd, name, "x", 1), 0);
}

static bool exists(const struct state_dir *sd, const char *name)
{
	return faccessat(sd->fd, name, F_OK, 0) == 0;
}

static void test_recorded_and_pruned(void **state)
{
	char base[] = "/tmp/test_named.XXXXXX", root[64], cmd[96];
	list_name_t names[BLOOMXDP_MAX_LISTS + 1];
	struct state_list none = {};
	struct state_dir sd;
	int n;

	(void)state;
	assert_non_null(mkdtemp(base));
	snprintf(root, sizeof(root), "%s/state", base);
	assert_int_equal(state_open(root, "eth9", true, &sd), 0);
	touch(&sd, "block");
	touch(&sd, "list.b");
	touch(&sd, "list.a-1");		/* list "a-1" */
	touch(&sd, "list.a");
	touch(&sd, "list.a-3.0");	/* list a's copy */
	touch(&sd, "list.a-1-2.0");	/* list a-1's copy */
	touch(&sd, "list.a-3.journal.addr");
	touch(&sd, "list.Bad");		/* not a name the CLI takes */
	assert_int_equal(named_lists_recorded(&sd, names, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "a");
	assert_string_equal(names[1], "a-1");
	assert_string_equal(names[2], "b");
	/* Pruning list a leaves list a-1's files. */
	state_prune(&sd, "list.a", &none);
	assert_false(exists(&sd, "list.a-3.0"));
	assert_false(exists(&sd, "list.a-3.journal.addr"));
	assert_true(exists(&sd, "list.a-1-2.0"));
	assert_true(exists(&sd, "list.a-1"));
	state_close(&sd);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", base);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_learn_option),
		cmocka_unit_test(test_manifest_names),
		cmocka_unit_test(test_recorded_and_pruned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
