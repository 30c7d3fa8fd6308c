// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* restore: its options and help, and what it restored; the work is in lists/restore.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "kernel/attachment.h"
#include "kernel/state_dir.h"
#include "lists/report.h"
#include "lists/restore.h"
#include "util/log.h"

struct restore_opts {
	bool all;
	const char *file;
	const char *state_dir;
};

/* One interface from its state: one line said. */
static int restore_one(const char *ifname, const char *state_dir)
{
	struct restore_outcome r;
	int ret;

	ret = restore_state(ifname, state_dir, &r);
	restore_outcome_print(ifname, &r, stdout);
	return ret;
}

static int restore_from_file(const char *ifname, const char *path, const char *state_dir)
{
	struct restore_result restored = {};
	int ret;

	ret = restore_file(ifname, path, state_dir, &restored);
	restore_result_print(&restored, stdout);
	return ret;
}

static int run_restore(const struct cli_call *call)
{
	const struct restore_opts *o = call->opts;
	char **names = NULL, failed[1024] = "";
	int i, n = 0, bad = 0, ret;

	if (o->all == (call->argc == 1)) {
		log_error("restore: give an interface or --all; see 'bloomxdp restore --help'");
		return -EINVAL;
	}
	if (o->all && o->file) {
		log_error("restore: --file goes with one interface, not --all");
		return -EINVAL;
	}
	ret = check_privileges();
	if (!ret)
		ret = check_bpffs();
	if (ret)
		return ret;
	if (o->file)
		return restore_from_file(call->argv[0], o->file, o->state_dir);
	if (!o->all)
		return restore_one(call->argv[0], o->state_dir);
	ret = state_interfaces(state_root(o->state_dir), &names, &n);
	if (ret)
		return ret;
	if (!n)
		printf("no interface has state in %s: nothing to restore\n",
		       state_root(o->state_dir));
	for (i = 0; i < n; i++) {
		if (!restore_one(names[i], o->state_dir))
			continue;
		bad++;
		snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed), "%s%s",
			 bad > 1 ? ", " : "", names[i]);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (bad)
		log_error("restore failed for %d interface%s: %s", bad, bad == 1 ? "" : "s",
			  failed);
	return bad ? -EIO : 0;
}

static const struct option_spec restore_options[] = {
	OPTION("all", 0, OPT_FLAG, offsetof(struct restore_opts, all), NULL,
	       "every interface with state"),
	OPTION("file", 'f', OPT_TEXT, offsetof(struct restore_opts, file), "FILE",
	       "swap in a filter saved by 'bloomxdp save' instead\n"
	       "(attaching with its key if IFNAME is not attached)"),
	OPTION_STATE_DIR(struct restore_opts),
	{}
};

const struct command command_restore = {
	.name = "restore",
	.args = "[IFNAME | --all]",
	.summary = "attach again and reload the lists from the state",
	.description =
		"After a reboot or a lost pin directory: attaches IFNAME (or every interface\n"
		"with state, --all) with the settings attach recorded, and loads the lists\n"
		"(allowlist, blocklist, the entries added since) from the copies in the state,\n"
		"without the network. An interface already attached at the generation its\n"
		"state records is left as it is. One line per interface; exits 1 if any failed,\n"
		"naming it. With --file, the filter a 'save' wrote goes in instead (refused,\n"
		"changing nothing, if damaged or of another layout or k; of another hash key,\n"
		"the program is replaced in place with the file's key, in the same swap); the\n"
		"lists in the state are then not the live filter's, and query says so.\n",
	.options = restore_options,
	.opts_size = sizeof(struct restore_opts),
	.min_args = 0,
	.max_args = 1,
	.what_args = "IFNAME",
	.run = run_restore,
};
