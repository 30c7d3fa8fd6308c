// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>
#include "cli/commands.h"

/* Every command, in the order 'bloomxdp --help' shows them; a new one is a row. */
const struct command *const bloomxdp_commands[] = {
	&command_plan, &command_attach, &command_load, &command_add, &command_del,
	&command_query,
	&command_stats, &command_status, &command_watch, &command_save, &command_detach,
	&command_restore, &command_daemon, &command_check_config, &command_refresh,
	&command_publish, &command_fleet, &command_version,
	NULL,
};
