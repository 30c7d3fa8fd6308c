/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon's configuration, one file per interface (CONFIG_DIR/IFNAME.conf),
 * INI-like, read with inih:
 *
 *   [attach]            every option of 'bloomxdp attach', by its long name
 *   [list NAME]         a blocklist source: source = PATH or http(s)://URL,
 *                       refresh, max_shrink, timeout, max_bytes, and the
 *                       options of 'bloomxdp load' by their long names
 *   [allowlist]         the same keys, for the allowlist ([allowlist NAME]
 *                       for more than one source)
 *   [daemon]            state_dir, metrics = ADDRESS:PORT, events; a fleet node:
 *                       subscribe = redis://..., channel = NAME, node = ID,
 *                       verify_key = PATH (fleet/trust.h)
 *                       (fleet/node.h; its blocklist is the fleet's: no [list])
 *   [crowdsec]          the CrowdSec bouncer (crowdsec.h): lapi_url, api_key
 *                       or api_key_file, interval, timeout, max_bytes,
 *                       scopes, ca_file
 *
 * A key's '_' and '-' are the same ("max_shrink", "max-shrink"). Values are
 * parsed by the command line's own tables (options.h). Every error is one
 * line "FILE:LINE: ..." on stderr.
 */
#ifndef BLOOMXDP_CONFIG_H
#define BLOOMXDP_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/attach.h"
#include "service/crowdsec.h"
#include "service/feed_spec.h"

#define CONFIG_DIR			"/etc/bloomxdp"
#define CONFIG_MAX_TIMEOUT_S		3600ULL
/* [list default]: the default list, not a named list of that name. */
#define CONFIG_DEFAULT_LIST		"default"
/* Lines longer than this (a URL is at most FEED_SOURCE_MAX) are refused. */
#define CONFIG_MAX_LINE			(FEED_SOURCE_MAX + 64)

enum config_events { CONFIG_EVENTS_JSON, CONFIG_EVENTS_SYSLOG, CONFIG_EVENTS_NONE };

/* A [list NAME] or [allowlist] section: spec.load.allow tells them apart. */
struct config_source {
	struct feed_spec spec;
	unsigned int line;	/* of its [section] line */
	bool source_refused;	/* a 'source =' was given, and refused (said) */
};

struct config {
	char path[PATH_MAX];
	struct attach_opts *attach;	/* attach's defaults, then [attach] */
	unsigned int attach_keys;	/* how many [attach] set */
	unsigned int attach_line;	/* of [attach], 0 if none */
	struct config_source *sources;	/* blocklist and allowlist sources, in file order */
	int nsources;
	char state_dir[PATH_MAX];
	char metrics[128];	/* "ADDRESS:PORT"; "": no metrics server */
	__u32 events;		/* enum config_events */
	/* A fleet node (fleet/node.h): "" when not subscribed. */
	char subscribe[FEED_SOURCE_MAX];
	char channel[64];
	char node[64];
	char verify_key[PATH_MAX];	/* the publisher's public key (PEM); "": unsigned */
	struct crowdsec_config crowdsec;	/* [crowdsec]; .enabled: there is one */
	char **strings;		/* copies of the values that options point to */
	int nstrings;
};

/* "the default file of ifname": CONFIG_DIR/IFNAME.conf. */
void config_default_path(const char *ifname, char *buf, size_t len);
/*
 * Reads and checks path into cfg (zeroed first). Prints every error, returns
 * -EINVAL. Without [daemon] state_dir, the state directory is state_root(NULL).
 */
int config_parse(const char *path, struct config *cfg);
/* cfg as a file without a line sets it (what config_parse() starts from); path as given. */
int config_defaults(const char *path, struct config *cfg);
void config_free(struct config *cfg);
/* The one-line summary check-config prints. */
void config_summary(const struct config *cfg, char *buf, size_t len);
/* The same source read the same way (a changed one is reloaded on SIGHUP). */
bool config_source_equal(const struct feed_spec *a, const struct feed_spec *b);
/* A list read the same way: format and its columns, lenient, action, probes, store. */
bool config_load_read_equal(const struct list_opts *a, const struct list_opts *b);
/* Same [attach] settings. */
bool config_attach_equal(const struct config *a, const struct config *b);
/*
 * A [list NAME]'s load goes to the named list NAME: spec->load.list set to
 * spec's name; [list default] is the default list (the one 'load' without
 * --list fills): spec->load.list NULL.
 */
void config_source_list(struct feed_spec *spec);
/* A source that the feed refresher fetches, not a local file. */
bool config_source_is_url(const char *source);

#endif
