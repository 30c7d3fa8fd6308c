// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* save: the live filter to a file (user/lists/savefile.h has the format). */
#include "kernel/attachment.h"
#include "cli/commands.h"
#include "lists/report.h"
#include "lists/savefile.h"

static int run_save(const struct cli_call *call)
{
	struct save_result r;
	struct attachment att;
	int ret;

	/* The writers' lock: no add changes the filter while it is read. */
	ret = attachment_open(call->ifname, true, &att);
	if (ret)
		return ret;
	ret = savefile_save(&att, call->argv[0], NULL, 0, &r);
	save_result_print(&r, stdout);
	attachment_close(&att);
	return ret;
}

const struct command command_save = {
	.name = "save",
	.args = "IFNAME FILE",
	.summary = "save the live filter to a file",
	.description =
		"Writes the live blocklist of IFNAME to FILE: a versioned header (layout, m, k,\n"
		"the kinds and prefix lengths it holds, entries, the hash key, creation time,\n"
		"the version of bloomxdp that wrote it, which restore --file says),\n"
		"the filter's bits, the exact intervals of families kept as intervals, and a\n"
		"CRC32C of all of it. FILE is written atomically (a temporary file, then\n"
		"renamed) with mode 0600, since it holds the hash key. Layout kernel cannot be\n"
		"saved (the kernel does not let its bits be read); the allowlist and the\n"
		"exact copy of --verify are not saved.\n",
	.ifname = true,
	.min_args = 1,
	.max_args = 1,
	.what_args = "FILE",
	.run = run_save,
};
