/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LISTS_RESTORE_H
#define BLOOMXDP_LISTS_RESTORE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct restore_result;

/* What a restore from the state did: nothing (an error), restored, or nothing to do. */
struct restore_outcome {
	bool restored;		/* attached as recorded and the lists reloaded */
	bool already;		/* attached at the generation the state records: left as it is */
	__u64 generation;	/* the live generation after (already: as it was) */
	__u64 entries;		/* blocklist entries live */
	__u64 loaded;		/* when the blocklist was loaded (the state's time) */
	int block_inputs, allow_inputs;
};

/*
 * After a reboot or a lost pin directory: attaches ifname with the settings
 * attach recorded and loads the lists (allowlist, blocklist, the entries added
 * since) from the copies in the state, without the network; an attachment
 * already at the state's generation is left as it is. Errors are logged.
 */
int restore_state(const char *ifname, const char *state_dir, struct restore_outcome *r);
/* The one line of r ("IFNAME: restored: ..."), none when it did nothing. */
void restore_outcome_print(const char *ifname, const struct restore_outcome *r, FILE *out);

/*
 * restore --file: a filter saved by 'bloomxdp save', swapped in as a new
 * generation (attaching first, with the file's layout, FPR and key, when
 * ifname is not attached). What was swapped in: *restored.
 */
int restore_file(const char *ifname, const char *path, const char *state_dir,
		 struct restore_result *restored);

#endif
