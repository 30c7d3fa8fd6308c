/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Named lists (load --list NAME): each an exact copy of its own in the
 * kernel (struct bloomxdp_list and the list_* maps of common.h), and its
 * entries in the union, the blocklist's filter, which every load rebuilds
 * from the state: the default list's sources and every named list's, as
 * last recorded ("list.NAME" manifests), and the one being replaced.
 */
#ifndef BLOOMXDP_NAMED_H
#define BLOOMXDP_NAMED_H

#include <stdbool.h>
#include <bloomxdp/common.h>
#include "filter/exact.h"
#include "lists/lists.h"
#include "lists/load_options.h"
#include "util/options.h"

struct attachment;
struct load_result;
struct state_dir;

/* The default list's action: the attachment's --action and --dns-reply. */
__u32 list_default_action(const struct bloomxdp_config *cfg);
/* A list's action now (BLOOMXDP_LIST_AS_ATTACH: the attachment's). */
__u32 list_action_of(const struct bloomxdp_list *l, const struct bloomxdp_config *cfg);

/* The named lists the state directory sd records, sorted. */
typedef char list_name_t[BLOOMXDP_LIST_NAME_MAX + 1];
int named_lists_recorded(const struct state_dir *sd, list_name_t names[BLOOMXDP_MAX_LISTS + 1],
			 int *n);

/* What the kernel holds: every id's descriptor and the present and slot words. */
struct named_view {
	struct bloomxdp_list list[BLOOMXDP_LIST_IDS];
	__u32 present;		/* BLOOMXDP_ACTIVE_LISTS */
	__u32 slots;		/* BLOOMXDP_ACTIVE_LIST_SLOTS */
	__u64 hits[BLOOMXDP_LIST_IDS];	/* summed over CPUs */
};
int named_view_read(const struct attachment *att, struct named_view *v);
/*
 * Before a saved filter (restore --file, a fleet version) becomes the union:
 * it brings no named lists' keys, so every hit takes the default action
 * (fails closed) until a load of a named list puts them back. *was: the
 * present word before, for named_lists_resume() if the swap fails.
 */
int named_lists_suspend(const struct attachment *att, __u32 *was);
void named_lists_resume(const struct attachment *att, __u32 was);
/* The id of a present named list, or -ENOENT. */
int named_view_find(const struct named_view *v, const char *name);
/*
 * A named list's exact copy: its hosts, names and URLs as the union's 64-bit
 * keys, in the HASH map of all named lists (key -> mask of the lists holding
 * it: one lookup after a hit), its prefixes in LPM tries of its own. While a
 * load reads the list, the keys gather in keys[], and go into a new map of
 * every list's keys once the lists' ids are known (named_parts_install());
 * in the kernel, adds go straight into the live map, in its id's bit.
 */
struct named_copy {
	int keys_fd;			/* the live keys map (HASH __u64 -> __u32); -1: building */
	int id;				/* its bit in keys_fd's masks */
	int v4_fd, v6_fd;		/* LPM tries of the prefixes */
	__u32 has;			/* BLOOMXDP_LIST_HAS_* */
	__u64 *keys;			/* gathered while building */
	size_t nkeys, cap;
	__u64 hash_key[2];
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS];
};

struct entry;
void named_copy_init(struct named_copy *c, const struct bloomxdp_config *cfg);
/* Its prefix tries, of room entries each. */
int named_copy_create(struct named_copy *c, __u32 room);
/* An entry into it: -EOVERFLOW when the live keys map is full. */
int named_copy_add(struct named_copy *c, const struct entry *e);
/*
 * The list holds what the XDP program would match for e: a suffix of a name, a
 * prefix of an address.
 */
bool named_copy_has(const struct named_copy *c, const struct entry *e);
/* A new keys map of the copies' keys, each in its copy's id's bit; *fd, to close. */
int named_keys_build(struct named_copy *const *copies, int n, int *fd);
void named_copy_close(struct named_copy *c);
/* The live copy of a present named list. */
int named_list_open(const struct attachment *att, const struct named_view *v, int id,
		    struct named_copy *c);

/*
 * The present named lists holding e (their live copies): their ids' mask,
 * names ("a, b") and strongest action.
 */
struct entry;
__u32 named_holding(const struct attachment *att, const struct named_view *v,
		    const struct entry *e, char *names, size_t len, __u32 *action);

/* One named list of a load: read from the state, or the one being replaced. */
struct named_part {
	list_name_t name;
	struct list_inputs own;		/* read from the state */
	struct list_inputs *in;		/* &own, or the load's own inputs */
	struct list_opts opts;
	struct named_copy copy;
	__u64 entries;
	int id;
	bool dropped;		/* the list a load empties: no longer a list */
};

struct named_parts {
	struct named_part part[BLOOMXDP_MAX_LISTS];
	int n;
	__u32 old_slots;	/* after install: the slots now unused, for named_parts_clear() */
	__u32 old_present;
};

/*
 * Every named list the state directory sd records but those in skip (the
 * ones a load replaces), its inputs open; exact sets of room entries each
 * created.
 */
int named_parts_open(struct named_parts *np, const struct attachment *att,
		     const struct state_dir *sd, const char *const *skip, int nskip, __u32 room);
/* The list being replaced (its inputs in, read as o says), last. */
int named_parts_add(struct named_parts *np, const struct attachment *att, const char *name,
		    struct list_inputs *in, const struct list_opts *o, __u32 room);
/* list_build.also of a part: an entry into its copy (ctx: the struct named_part). */
int named_part_take(void *ctx, const struct entry *e);
/*
 * Under the writers' lock, before the union's flip: each part's prefixes
 * into the slot its list does not use, its descriptor, the keys of them all
 * into the union's new generation union_slot, then the slots and present
 * words (the default list present when default_entries).
 */
int named_parts_install(struct named_parts *np, const struct attachment *att,
			__u64 default_entries, __u32 union_slot);
/* After the union's flip (which waited for packets): the slots no longer used, emptied. */
void named_parts_clear(const struct named_parts *np, const struct attachment *att);
void named_parts_free(struct named_parts *np);

/* The named lists a load replaces (load --list): each one's name, inputs and options. */
struct named_target {
	const char *name;
	struct list_inputs in;
	struct list_opts opts;
};

struct named_targets {
	struct named_target t[BLOOMXDP_MAX_LISTS];
	int n;
};

/*
 * The union filter (the blocklist) built again: the default list from in
 * (read as o says), every named list the state records, and the named
 * lists ts replaces (NULL: none), each into its own copy; each named
 * list's copy swapped in before the union (lists/load.c). What it did into r.
 */
int list_load_union(struct attachment *att, const struct list_opts *o, struct list_inputs *in,
		    struct named_targets *ts, struct load_result *r);
/* load with sources for named lists: each source's list (its options', else o's). */
int list_load_named(struct attachment *att, const struct list_opts *o,
		    const struct list_source *src, int n, struct load_result *r);
/* The named list a source goes to: its own options', else the load's; NULL: the default. */
const char *list_source_list(const struct list_opts *o, const struct list_source *src);

#endif
