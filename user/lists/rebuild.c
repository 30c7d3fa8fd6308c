// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loads of named lists (load --list, the daemon's [list NAME], add making a
 * list, list_drop()) and rebuilds of every list from the state (del --list):
 * each into list_load_union() (lists/load.c) with the other lists as the
 * state records them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/attachment.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/log.h"
#include "lists/named.h"
#include "lists/report.h"

const char *list_source_list(const struct list_opts *o, const struct list_source *src)
{
	return src->opts && src->opts->list ? src->opts->list : o->list;
}

/*
 * Named lists from sources (load --list NAME, or the daemon's [list NAME]
 * sections): each list from its sources, the default list and the other
 * named lists as the state last recorded them, all into a new union; each
 * named list's own copy swapped in before the union.
 */
int list_load_named(struct attachment *att, const struct list_opts *o,
		    const struct list_source *src, int n, struct load_result *r)
{
	struct list_opts od = { .format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES };
	struct list_inputs def = { .sd = { .fd = -1, .root_fd = -1 } };
	struct state_dir sd = { .fd = -1, .root_fd = -1 };
	struct named_targets *ts = calloc(1, sizeof(*ts));
	struct list_source *group = calloc(n ? n : 1, sizeof(*group));
	int i, j, k, ng, ret;

	if (!ts || !group) {
		ret = -ENOMEM;
		log_error("out of memory; the live list of %s is unchanged", att->ifname);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		if (!list_source_list(o, &src[i])) {
			log_error("a load takes the sources of named lists or of the default list, "
				  "not both; the live list of %s is unchanged", att->ifname);
			ret = -EINVAL;
			goto cleanup;
		}
	}
	/* The other lists' state is read under the writers' lock (list_load_union()). */
	ret = attachment_lock(att);
	if (!ret)
		ret = state_open(state_root(o->state_dir), att->ifname, false, &sd);
	if (!ret)
		ret = list_inputs_state_at(&def, &sd, STATE_BLOCK, true, true, &od);
	if (ret == -ENOENT)
		log_error("named lists need the state of %s, which records each list: there is "
			  "none (attach with a usable state directory); nothing changed",
			  att->ifname);
	if (ret)
		goto cleanup;
	/* The union is sized and built as the default list's load recorded. */
	od.state_dir = o->state_dir;
	od.allow_empty = true;
	if (o->max_memory_given) {
		od.max_memory = o->max_memory;
		od.max_memory_given = true;
	}
	/* One target per list, its sources in their order. */
	for (i = 0; i < n && !ret; i++) {
		const char *name = list_source_list(o, &src[i]);
		struct named_target *t;

		for (k = 0; k < ts->n && strcmp(ts->t[k].name, name); k++)
			;
		if (k < ts->n)
			continue;
		if (ts->n == BLOOMXDP_MAX_LISTS) {
			log_error("more than %d named lists in one load; the live list of %s is "
				  "unchanged", BLOOMXDP_MAX_LISTS, att->ifname);
			ret = -E2BIG;
			break;
		}
		t = &ts->t[ts->n++];
		t->name = name;
		/* The load's options, with the list's action if its first source has one. */
		t->opts = *o;
		t->opts.list = name;
		if (src[i].opts && src[i].opts->action_given) {
			t->opts.action = src[i].opts->action;
			t->opts.action_given = true;
		}
		if (src[i].opts && src[i].opts->learn)
			t->opts.learn = true;
		for (j = i, ng = 0; j < n; j++)
			if (!strcmp(list_source_list(o, &src[j]), name)) {
				group[ng] = src[j];
				if (group[ng].opts == o)
					group[ng].opts = &t->opts;
				ng++;
			}
		list_inputs_open(&t->in, &sd, att->ifname, &t->opts);
		ret = t->in.recording ? list_inputs_add(&t->in, &t->opts, group, ng) :
					-ENOENT;	/* said by list_inputs_open() */
	}
	/* No source (list_drop()): the list is loaded empty, which drops it. */
	if (!ret && !n) {
		ts->t[0].name = o->list;
		ts->t[0].opts = *o;
		ts->t[0].opts.allow_empty = true;
		ts->n = 1;
		list_inputs_open(&ts->t[0].in, &sd, att->ifname, &ts->t[0].opts);
	}
	if (!ret)
		ret = list_load_union(att, &od, &def, ts, r);
cleanup:
	for (i = 0; ts && i < ts->n; i++)
		list_inputs_free(&ts->t[i].in);
	free(ts);
	free(group);
	list_inputs_free(&def);
	free(od.where.items);
	state_close(&sd);
	return ret;
}

int list_rebuild(const char *ifname, const struct state_dir *sd, struct load_result *r)
{
	struct list_opts lo = { .format = FORMAT_AUTO, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES };
	struct list_inputs in = { .sd = { .fd = -1, .root_fd = -1 } };
	struct attachment att;
	int ret;

	/* Its state read under the writers' lock: no add is then left out. */
	ret = attachment_open(ifname, true, &att);
	if (ret)
		return ret;
	ret = list_inputs_state_at(&in, sd, STATE_BLOCK, true, true, &lo);
	if (ret == -ENOENT)
		log_error("%s has no state to rebuild its lists from", ifname);
	if (!ret) {
		/* Checked when it was loaded; its journal may be all that is left of it. */
		lo.allow_empty = true;
		ret = list_load_union(&att, &lo, &in, NULL, r);
	}
	list_inputs_free(&in);
	free(lo.where.items);
	attachment_close(&att);
	return ret;
}

int list_drop(const char *given, const char *state_dir, const char *name, struct load_result *r)
{
	char ifname[IF_NAMESIZE];
	const struct list_opts o = { .format = FORMAT_AUTO, .list = name, .allow_empty = true,
				     .prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
				     .state_dir = state_dir };
	struct attachment att;
	int ret;

	/* A group's member: its lists are its home's (attach IF1 IF2 ...). */
	attachment_home(given, ifname);

	load_result_init(r, ifname);
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = list_load_named(&att, &o, NULL, 0, r);
	attachment_close(&att);
	return ret;
}
