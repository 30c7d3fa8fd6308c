// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* publish: its options and help, and what it published; the work is in fleet/publish.c. */
#include <stddef.h>
#include <stdio.h>

#include "cli/cmd_fleet.h"
#include "cli/commands.h"
#include "filter/layout.h"
#include "fleet/publish.h"
#include "util/duration.h"

static void print_result(const struct publish_opts *o, const struct publish_result *res)
{
	save_result_print(&res->saved, stdout);
	if (res->new_key)
		printf("publish: a new hash key for channel %s: every node attaches again with "
		       "it\n", o->channel);
	if (!res->published)
		return;
	if (res->delta) {
		printf("published %s of %d entr%s on channel %s, announced as %s, delta %llu, "
		       "%s%s\n", res->type, res->count, res->count == 1 ? "y" : "ies", o->channel,
		       res->id, (unsigned long long)res->seq,
		       res->signer[0] ? "signed with " : "unsigned", res->signer);
		return;
	}
	printf("published version %llu on channel %s: %llu entries, %zu bytes, sha256 %.16s..., "
	       "announced as %s, %s%s", (unsigned long long)res->version, o->channel,
	       (unsigned long long)res->entries, res->bytes, res->sha256, res->id,
	       res->signer[0] ? "signed with " : "unsigned", res->signer);
	if (res->rollback)
		printf(", the payload of version %llu (a rollback)",
		       (unsigned long long)res->rollback);
	printf(", saved by %s%s", res->saved_by[0] ? "bloomxdp " : "an older bloomxdp",
	       res->saved_by);
	printf("\n");
}

/* What was done is said also when a later step failed (a new key made, the upload refused). */
static int run_publish(const struct cli_call *call)
{
	struct publish_result res;
	int ret;

	ret = fleet_publish(call->opts, call->argv, call->argc, &res);
	print_result(call->opts, &res);
	return ret;
}

#define P(field) offsetof(struct publish_opts, field)

static const struct option_spec publish_options[] = {
	OPT_REDIS(struct publish_opts),
	OPT_CHANNEL(struct publish_opts),
	OPTION("from", 0, OPT_TEXT, P(from), "IFNAME",
	       "publish the live blocklist of this node's IFNAME\n"
	       "(as 'bloomxdp save' writes it) instead of FILEs"),
	OPTION("add", 0, OPT_FLAG, P(add), NULL,
	       "a delta: the ENTRYs go into every node's list"),
	OPTION("timeout", 0, OPT_DURATION, P(timeout), "DURATION",
	       "with --add: the ENTRYs leave every node's list then\n"
	       "(30s, 10m, 2h, 7d; a deadline every node agrees on)",
	       .min = 1, .max = DURATION_MAX_S),
	OPTION("del", 0, OPT_FLAG, P(del), NULL,
	       "a delta: the ENTRYs added by --add leave every node's list"),
	OPTION("new-key", 0, OPT_FLAG, P(new_key), NULL,
	       "compile with a new hash key (rotation): every node\n"
	       "attaches again with it"),
	OPTION("sign-key", 0, OPT_TEXT, P(sign_key), "FILE",
	       "sign the version or delta with this Ed25519 private\n"
	       "key (PEM, mode 0600): nodes with verify_key = its\n"
	       "public key apply only what it signed"),
	OPTION("rollback", 0, OPT_COUNT, P(rollback), "N",
	       "publish version N's payload again, as a new version\n"
	       "(nodes refuse a version older than theirs)", .min = 1, .max = COUNT_MAX),
	OPTION("layout", 0, OPT_ENUM, P(layout), "L", "filter layout of the compiled lists",
	       .values_fn = layout_values),
	OPTION("fpr", 0, OPT_RATE, P(fpr), "P", "target false-positive rate of the compiled lists"),
	OPTION("max-memory", 0, OPT_COUNT, P(max_memory), "BYTES",
	       "the most the compiled filter may take", .min = 1, .max = COUNT_MAX),
	{}
};

static const struct publish_opts publish_defaults = {
	.layout = DEFAULT_LAYOUT, .fpr = DEFAULT_FPR,
};

const struct command command_publish = {
	.name = "publish",
	.args = "[FILE... | --from IFNAME | --rollback N | --add ENTRY... | --del ENTRY...]",
	.summary = "publish a new version (or a delta) of the blocklist to a fleet through Redis",
	.description =
		"A full version: the list FILEs compiled into one filter (with the channel's\n"
		"hash key, kept from the version before unless --new-key), or a file of\n"
		"'bloomxdp save', or the live blocklist of --from IFNAME. Its payload is stored\n"
		"whole under a versioned key with its size and SHA-256, then announced on the\n"
		"channel's Redis stream; every node's daemon (subscribe = ...) checks and swaps\n"
		"it in. Older payloads are trimmed. A delta (--add, --del): the entries, applied\n"
		"by every node in order, kept in force across full versions until deleted.\n"
		"Nodes refuse a version older than the one they applied (--rollback N is a\n"
		"new version with version N's payload) and, with verify_key, whatever\n"
		"--sign-key did not sign.\n",
	.options = publish_options,
	.opts_size = sizeof(struct publish_opts),
	.defaults = &publish_defaults,
	.min_args = 0,
	.max_args = -1,
	.what_args = "FILE",
	.run = run_publish,
};
