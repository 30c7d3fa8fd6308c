// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* attach and detach: their help, and what they did; the work is in kernel/attach.c. */
#include <stddef.h>
#include <stdio.h>

#include "cli/commands.h"
#include "kernel/attach.h"
#include "kernel/state_dir.h"

static int run_attach(const struct cli_call *call)
{
	char *names[BLOOMXDP_GROUP_MAX + 1];
	struct attach_result res;
	char text[ATTACH_TEXT_MAX];
	int ret, n = 0, i;

	names[n++] = (char *)call->ifname;
	for (i = 0; i < call->argc && n <= BLOOMXDP_GROUP_MAX; i++)
		names[n++] = call->argv[i];
	ret = attach_group_run(names, n, call->opts, &res);
	if (!ret)
		printf("%s\n", attach_result_text(call->ifname, &res, text, sizeof(text)));
	if (!ret && n > 1)
		printf("%s\n", attach_group_text(names, n, text, sizeof(text)));
	return ret;
}

const struct command command_attach = {
	.name = "attach",
	.args = "IFNAME [IFNAME...]",
	.summary = "load the XDP program on interfaces with an empty filter",
	.description = "Loads the XDP program on IFNAME with an empty filter sized for --capacity\n"
		       "at --fpr, and pins it under " BLOOMXDP_PIN_ROOT "/IFNAME/. Fill it with\n"
		       "'load', which sizes a new filter for each list, within --max-memory.\n"
		       "The settings are recorded in the state, for 'bloomxdp restore'.\n"
		       "With several interfaces (a gateway's WAN and LAN, two NICs), one set\n"
		       "of lists serves them all: the first is the group's home, each other\n"
		       "runs a program of its own (its own counters) over the same maps.\n"
		       "load, add, del and query through any of them change or read the one\n"
		       "list (one load, one swap, the memory once); stats shows each\n"
		       "interface's counters and their sum; 'detach IF2' leaves the others\n"
		       "enforcing (the home is detached last); restore brings the group back.\n",
	.options = attach_options,
	.opts_size = sizeof(struct attach_opts),
	.defaults = &attach_defaults,
	.ifname = true,
	.max_args = BLOOMXDP_GROUP_MAX - 1,
	.run = run_attach,
};

/* What was done is said also when a later step failed (detached, but the state not forgotten). */
static int run_detach(const struct cli_call *call)
{
	struct detach_result res;
	char text[DETACH_TEXT_MAX];
	int ret;

	ret = detach_run(call->ifname, call->opts, &res);
	if (detach_result_text(call->ifname, &res, text, sizeof(text))[0])
		printf("%s\n", text);
	return ret;
}

static const struct option_spec detach_options[] = {
	OPTION("forget", 0, OPT_FLAG, offsetof(struct detach_opts, forget), NULL,
	       "also remove the state of IFNAME (its settings and\n"
	       "lists): 'bloomxdp restore' then no longer knows it"),
	OPTION_STATE_DIR(struct detach_opts),
	{}
};

const struct command command_detach = {
	.name = "detach",
	.args = "IFNAME",
	.summary = "detach from an interface and remove every pin",
	.description = "Detaches the XDP program from IFNAME and removes every pin under\n"
		       BLOOMXDP_PIN_ROOT "/IFNAME/. Works also when IFNAME no longer exists.\n"
		       "The state (settings and lists, for 'bloomxdp restore') is kept unless\n"
		       "--forget. Says what ran on IFNAME before, if attach --force replaced it\n"
		       "(it is not put back). A member of a group (attach IF1 IF2 ...) leaves\n"
		       "it, the others enforcing on; the group's home is detached last.\n",
	.options = detach_options,
	.opts_size = sizeof(struct detach_opts),
	.ifname = true,
	.run = run_detach,
};
