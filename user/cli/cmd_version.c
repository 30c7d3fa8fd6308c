// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bloomxdp version (and --version): the one line of the version (user/util/version.h). */
#include <errno.h>
#include <stdio.h>

#include "cli/commands.h"
#include "util/version.h"

static const struct option_spec version_options[] = {
	{}
};

static int run_version(const struct cli_call *call)
{
	(void)call;
	printf("bloomxdp %s\n", bloomxdp_version());
	return fflush(stdout) ? -EIO : 0;
}

const struct command command_version = {
	.name = "version",
	.summary = "print the version of bloomxdp (as --version does)",
	.description = "Prints \"bloomxdp VERSION\" on one line, as 'bloomxdp --version' does.\n",
	.options = version_options,
	.opts_size = 0,
	.max_args = 0,
	.run = run_version,
};
