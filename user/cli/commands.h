/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_CLI_COMMANDS_H
#define BLOOMXDP_CLI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "cli/command.h"
#include "util/numbers.h"
#include "filter/match.h"
#include "filter/bloom_plan.h"

/* The commands, each in its cmd_*.c: its options table and its handler (see command.h). */
extern const struct command command_plan, command_attach, command_detach, command_load,
	command_add, command_del, command_query, command_stats, command_status,
	command_watch, command_restore, command_save;
/* The configuration file and the daemon (cmd_daemon.c). */
extern const struct command command_daemon, command_check_config;
extern const struct command command_refresh;
/* The fleet through Redis (cmd_fleet.c). */
extern const struct command command_publish, command_fleet;
/* bloomxdp version (cmd_version.c). */
extern const struct command command_version;
/* Every command, NULL-terminated, in the order 'bloomxdp --help' shows them (commands.c). */
extern const struct command *const bloomxdp_commands[];

#endif
