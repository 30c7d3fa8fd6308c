// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* daemon and check-config: the configuration file and the process that follows it. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/commands.h"
#include "service/config.h"
#include "service/daemon.h"
#include "util/log.h"
#include "service/metrics.h"

struct daemon_opts {
	const char *config;
};

/*
 * GET /metrics: what 'stats --prometheus' prints (counters and the live
 * filter), then the daemon's own (sources, refreshes, reloads). When the
 * attachment cannot be read, the daemon's part is still served.
 */
static int render_metrics(void *ctx, FILE *out)
{
	struct iface_metrics m;

	if (!iface_metrics_read(daemon_ifname(ctx), &m) && metrics_write(out, &m, 1))
		return -EIO;
	return daemon_render_metrics(ctx, out);
}

static int run_daemon(const struct cli_call *call)
{
	const struct daemon_opts *o = call->opts;
	/* Without --config, the default file is optional: the defaults stand in for it. */
	struct daemon_hooks hooks = { .render = render_metrics, .config_optional = !o->config,
				      .events = stdout };
	char path[PATH_MAX];

	if (!o->config)
		config_default_path(call->ifname, path, sizeof(path));
	return daemon_run(call->ifname, o->config ? o->config : path, &hooks);
}

static const struct option_spec daemon_options[] = {
	OPTION("config", 'c', OPT_TEXT, offsetof(struct daemon_opts, config), "FILE",
	       "the configuration (default " CONFIG_DIR "/IFNAME.conf)"),
	{}
};

static const struct daemon_opts daemon_defaults;

const struct command command_daemon = {
	.name = "daemon",
	.args = "IFNAME",
	.summary = "keep the lists fresh, write drop events, serve metrics",
	.description =
		"Runs until SIGTERM or SIGINT, following the configuration of IFNAME (see\n"
		"'bloomxdp check-config'): attaches with [attach] unless IFNAME is attached\n"
		"already, loads the [list] and [allowlist] sources, reloads a list when its\n"
		"source changes (checked every 'refresh'), writes each drop event as a JSON\n"
		"line on standard output (events = json) or to syslog (events = syslog), and\n"
		"serves GET /metrics at 'metrics = ADDRESS:PORT'. Without --config and\n"
		"without " CONFIG_DIR "/IFNAME.conf, it runs with the defaults: attach's\n"
		"settings, no list of its own, entries added with --timeout expire. SIGHUP\n"
		"reads the configuration again and applies what changed; a configuration with\n"
		"errors is refused and the running one kept. The filter does not depend on the\n"
		"daemon: when it exits, the lists as last loaded stay enforced. Its log is on\n"
		"standard error, one line per event; under systemd (JOURNAL_STREAM naming its\n"
		"standard error) in the journal, with INTERFACE=, LIST= and EVENT= fields. With\n"
		"NOTIFY_SOCKET it tells systemd READY=1 once its lists are enforced, STATUS=,\n"
		"RELOADING=1 and STOPPING=1, and WATCHDOG=1 at half of WATCHDOG_USEC.\n\n"
		"It listens on /run/bloomxdp/IFNAME.sock ($BLOOMXDP_RUN_DIR/IFNAME.sock), mode\n"
		"0600: one JSON request a line, {\"cmd\":\"status\"}, {\"cmd\":\"reload\"},\n"
		"{\"cmd\":\"query\",\"key\":\"KEY\"} or {\"cmd\":\"refresh\",\"list\":\"NAME\",\n"
		"\"accept\":true}, one JSON reply line; status, query and refresh --accept use\n"
		"it. A second daemon of IFNAME exits 1 (IFNAME.lock is held); a dead one's\n"
		"socket is replaced.\n",
	.options = daemon_options,
	.opts_size = sizeof(struct daemon_opts),
	.defaults = &daemon_defaults,
	.ifname = true,
	.run = run_daemon,
};

static int run_check_config(const struct cli_call *call)
{
	struct config cfg;
	char summary[PATH_MAX + 256];
	int ret;

	ret = config_parse(call->argv[0], &cfg);
	if (!ret) {
		config_summary(&cfg, summary, sizeof(summary));
		printf("%s\n", summary);
	}
	config_free(&cfg);
	return ret;
}

const struct command command_check_config = {
	.name = "check-config",
	.args = "FILE",
	.summary = "check a daemon configuration file",
	.description =
		"Reads FILE as the daemon does and prints a one-line summary, or every error\n"
		"as FILE:LINE: ... (exit status 1). Sections: [attach] (the options of\n"
		"'bloomxdp attach' by their long names), [list NAME] (source = PATH or\n"
		"http(s)://URL, refresh = 1h, max_shrink = 50%, timeout = 60s, max_bytes = 268435456,\n"
		"and the options of 'bloomxdp load': format, lenient, prefix-probes, store,\n"
		"column, where, allow-public-suffix), [allowlist] (the same keys), and\n"
		"[daemon] (state_dir, metrics = ADDRESS:PORT, events = json, syslog or none).\n",
	.min_args = 1,
	.max_args = 1,
	.what_args = "FILE",
	.run = run_check_config,
};
