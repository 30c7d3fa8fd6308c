/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The timeouts files as expiry.c reads them, for the sweep that deletes what
 * expired (expiry_sweep.c), which calls del: del in turn takes deleted
 * entries off the timeouts (expiry_forget()), so the sweep is a file above both.
 */
#ifndef BLOOMXDP_EXPIRY_INT_H
#define BLOOMXDP_EXPIRY_INT_H

#include <stddef.h>
#include <linux/types.h>

#include "kernel/state_dir.h"
#include "lists/named.h"

struct deadline {
	const char *entry;	/* into the file's text */
	__u64 at;		/* 0: none */
};

struct timeouts {
	char *text;
	struct deadline *d;
	size_t n;
};

/*
 * The timeouts file of a list as last applied in the state directory sd
 * (list: NULL, the default list, or a named list's name): its name into name.
 * -ENOENT when there is no state (sd not open) or no such list.
 */
int timeouts_name(const struct state_dir *sd, const char *list, char name[STATE_NAME_MAX]);
/* Each entry once, with the latest of its deadlines (none beats any). */
int timeouts_read(const struct state_dir *sd, const char *name, struct timeouts *t);
void timeouts_free(struct timeouts *t);
/*
 * The lists whose timeouts are looked at: the default list (NULL), then each
 * named list the state records. *n: how many.
 */
void timeout_lists(const struct state_dir *sd, list_name_t names[BLOOMXDP_MAX_LISTS + 1],
		   const char *lists[], int *n);

#endif
