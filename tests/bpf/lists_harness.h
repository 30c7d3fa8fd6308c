/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Named lists installed as 'load --list NAME' builds them, for the BPF tests
 * of named lists: a list's exact copy at slot 0 of its id and its
 * descriptor, then every list's keys in the union's map of masks.
 */
#ifndef BLOOMXDP_TESTS_LISTS_HARNESS_H
#define BLOOMXDP_TESTS_LISTS_HARNESS_H

#include <errno.h>
#include <unistd.h>
#include "verify_harness.h"
#include "lists/named.h"

static inline int lists_harness_copy_take(void *ctx, const struct entry *e)
{
	return named_copy_add(ctx, e);
}

/* List id named name, with action and the descriptor flags has (BLOOMXDP_LIST_LEARN...). */
static inline int lists_harness_install(struct vh *v, struct named_copy *c, __u32 id,
					const char *name, __u32 action, __u32 has,
					const char *const *entries, size_t n)
{
	struct bloomxdp *skel = v->h.lp.skel;
	char err[LIST_ERROR_LEN], path[64];
	struct bloomxdp_list d = { .action = action, .entries = n };
	__u32 index = BLOOMXDP_LIST_INDEX(id, 0);
	struct list_build b;
	int ret;

	snprintf(d.name, sizeof(d.name), "%s", name);
	named_copy_init(c, &v->h.config);
	c->id = id;
	ret = named_copy_create(c, 64);
	if (!ret)
		ret = harness_write_list(entries, n, path);
	if (ret)
		return ret;
	list_build_init(&b, NULL, LIST_DEFAULT_PREFIX_PROBES);
	b.also = lists_harness_copy_take;
	b.also_ctx = c;
	memcpy(b.hash_key, v->h.config.hash_key, sizeof(b.hash_key));
	ret = list_build_read(&b, path, FORMAT_AUTO, err);
	if (!ret)
		ret = list_build_finish(&b, err);
	list_build_free(&b);
	unlink(path);
	d.has = c->has | has;
	if (!ret && (bpf_map_update_elem(bpf_map__fd(skel->maps.list_v4), &index, &c->v4_fd,
					 BPF_ANY) ||
		     bpf_map_update_elem(bpf_map__fd(skel->maps.list_v6), &index, &c->v6_fd,
					 BPF_ANY) ||
		     bpf_map_update_elem(bpf_map__fd(skel->maps.lists), &id, &d, BPF_ANY)))
		ret = -errno;
	return ret;
}

/* The keys of the n lists all, in one map of masks, at the union's slot 0. */
static inline int lists_harness_keys(struct vh *v, struct named_copy **all, int n)
{
	__u32 slot = 0;
	int fd, ret;

	ret = named_keys_build(all, n, &fd);
	if (!ret && bpf_map_update_elem(bpf_map__fd(v->h.lp.skel->maps.list_keys), &slot, &fd,
					BPF_ANY))
		ret = -errno;
	if (!ret)
		close(fd);
	return ret;
}

#endif
