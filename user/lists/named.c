// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Named lists: their names, actions, kernel descriptors and their part in a load. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/attachment.h"
#include "parse/entries.h"
#include "parse/keys.h"
#include "parse/prefixes.h"
#include "util/log.h"
#include "lists/named.h"
#include "parse/domain.h"
#include "kernel/state_dir.h"

__u32 list_action_of(const struct bloomxdp_list *l, const struct bloomxdp_config *cfg)
{
	return l->action > BLOOMXDP_LIST_LAST ? list_default_action(cfg) : l->action;
}

__u32 list_default_action(const struct bloomxdp_config *cfg)
{
	if (cfg->action == BLOOMXDP_ACTION_MONITOR)
		return BLOOMXDP_LIST_MONITOR;
	if (cfg->action == BLOOMXDP_ACTION_REJECT)
		return BLOOMXDP_LIST_REJECT;
	return cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? BLOOMXDP_LIST_NXDOMAIN :
							       BLOOMXDP_LIST_DROP;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

int named_lists_recorded(const struct state_dir *sd, list_name_t names[BLOOMXDP_MAX_LISTS + 1],
			 int *n)
{
	const size_t plen = strlen(STATE_LIST_PREFIX);
	struct dirent *d;
	DIR *dir;
	int fd, ret;

	*n = 0;
	fd = openat(sd->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		log_error("cannot read %s: %s", sd->path, strerror(-ret));
		return ret;
	}
	/* A manifest is "list.NAME"; its copies and journals have a '.' after NAME. */
	while ((d = readdir(dir)) && *n <= BLOOMXDP_MAX_LISTS)
		if (!strncmp(d->d_name, STATE_LIST_PREFIX, plen) &&
		    !list_name_check(d->d_name + plen))
			snprintf(names[(*n)++], sizeof(names[0]), "%s", d->d_name + plen);
	closedir(dir);
	qsort(names, *n, sizeof(names[0]), name_cmp);
	return 0;
}

int named_view_read(const struct attachment *att, struct named_view *v)
{
	int ncpus = libbpf_num_possible_cpus(), c;
	__u32 id, which;
	__u64 *percpu;

	memset(v, 0, sizeof(*v));
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (id = 0; id < BLOOMXDP_LIST_IDS; id++) {
		if (bpf_map_lookup_elem(att->lists_fd, &id, &v->list[id]) ||
		    bpf_map_lookup_elem(att->list_hits_fd, &id, percpu)) {
			free(percpu);
			return -errno;
		}
		v->list[id].name[BLOOMXDP_LIST_NAME_MAX] = '\0';
		for (c = 0; c < ncpus; c++)
			v->hits[id] += percpu[c];
		/* --direction both: the egress program's hits too. */
		if (att->egress.present &&
		    bpf_map_lookup_elem(att->egress.list_hits_fd, &id, percpu)) {
			free(percpu);
			return -errno;
		}
		for (c = 0; att->egress.present && c < ncpus; c++)
			v->hits[id] += percpu[c];
	}
	free(percpu);
	which = BLOOMXDP_ACTIVE_LISTS;
	if (bpf_map_lookup_elem(att->active_fd, &which, &v->present))
		return -errno;
	which = BLOOMXDP_ACTIVE_LIST_SLOTS;
	if (bpf_map_lookup_elem(att->active_fd, &which, &v->slots))
		return -errno;
	return 0;
}

int named_view_find(const struct named_view *v, const char *name)
{
	int id;

	for (id = 1; id < BLOOMXDP_LIST_IDS; id++)
		if ((v->present & (1U << id)) && !strcmp(v->list[id].name, name))
			return id;
	return -ENOENT;
}

void named_copy_init(struct named_copy *c, const struct bloomxdp_config *cfg)
{
	memset(c, 0, sizeof(*c));
	c->keys_fd = c->v4_fd = c->v6_fd = -1;
	memcpy(c->hash_key, cfg->hash_key, sizeof(c->hash_key));
	bloomxdp_addr_key_derive(c->hash_key, c->addr_key);
}

int named_copy_create(struct named_copy *c, __u32 room)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);

	c->v4_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bloomxdp_list4",
				  sizeof(struct bloomxdp_lpm_v4), 1, room, &opts);
	c->v6_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bloomxdp_list6",
				  sizeof(struct bloomxdp_lpm_v6), 1, room, &opts);
	return c->v4_fd < 0 || c->v6_fd < 0 ? -errno : 0;
}

/* The key a host, name or URL is known by (the union's); false for a prefix. */
static bool copy_key(const struct named_copy *c, const struct entry *e, __u64 *key)
{
	__u32 len;

	if (e->kind != ENTRY_ADDR) {
		*key = exact_entry_key(c->hash_key, e);
		return true;
	}
	len = key_prefix_len(&e->addr);
	if (len != (key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? 32U : 128U))
		return false;
	*key = bloomxdp_addr_hash(c->addr_key, &e->addr);
	return true;
}

int named_copy_add(struct named_copy *c, const struct entry *e)
{
	struct exact_set prefixes = { .v4_fd = c->v4_fd, .v6_fd = c->v6_fd, .names_fd = -1 };
	__u64 key, *grown;
	__u32 mask = 0;

	if (!copy_key(c, e, &key)) {
		c->has |= key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_LIST_HAS_PREFIX_V4 :
								      BLOOMXDP_LIST_HAS_PREFIX_V6;
		return exact_set_add(&prefixes, c->hash_key, e);
	}
	if (c->keys_fd >= 0) {
		/* Under the writers' lock: no other writer between the read and the write. */
		if (bpf_map_lookup_elem(c->keys_fd, &key, &mask) && errno != ENOENT)
			return -errno;
		mask |= 1U << c->id;
		if (!bpf_map_update_elem(c->keys_fd, &key, &mask, BPF_ANY))
			return 0;
		return errno == E2BIG || errno == ENOMEM ? -EOVERFLOW : -errno;
	}
	if (c->nkeys == c->cap) {
		grown = realloc(c->keys, (c->cap ? 2 * c->cap : 1024) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		c->keys = grown;
		c->cap = c->cap ? 2 * c->cap : 1024;
	}
	c->keys[c->nkeys++] = key;
	return 0;
}

/* Room for the keys of a load and the adds after it (a full map: add rebuilds). */
#define KEYS_ROOM(n)	((n) + (n) / 4 + 1024)

int named_keys_build(struct named_copy *const *copies, int n, int *fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	__u64 total = 0, room;
	__u32 mask;
	size_t k;
	int i, ret = 0;

	for (i = 0; i < n; i++)
		total += copies[i]->nkeys;
	room = KEYS_ROOM(total);
	if (room > (1U << 30))
		return -E2BIG;
	*fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bloomxdp_listk", sizeof(__u64), sizeof(__u32),
			     room, &opts);
	if (*fd < 0)
		return -errno;
	/* A key of several lists gets each one's bit. */
	for (i = 0; i < n && !ret; i++)
		for (k = 0; k < copies[i]->nkeys && !ret; k++) {
			mask = 0;
			if (bpf_map_lookup_elem(*fd, &copies[i]->keys[k], &mask) && errno != ENOENT)
				ret = -errno;
			mask |= 1U << copies[i]->id;
			if (!ret && bpf_map_update_elem(*fd, &copies[i]->keys[k], &mask, BPF_ANY))
				ret = -errno;
		}
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

static bool copy_has_key(const struct named_copy *c, __u64 key)
{
	__u32 mask = 0;

	return c->keys_fd >= 0 && !bpf_map_lookup_elem(c->keys_fd, &key, &mask) &&
	       (mask & (1U << c->id));
}

/*
 * A name or URL as the XDP program matches it (list_verdict(), the name walk):
 * any suffix of the host at a label boundary, or a URL entry covering a host
 * suffix and a prefix of the path.
 */
static bool copy_has_name(const struct named_copy *c, const struct entry *e)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS], prefix[BLOOMXDP_MAX_PATH_PREFIXES];
	int nlabels = name_suffix_hashes(c->hash_key, e->name, suffix), nprefix, i, j;

	for (j = 0; j < nlabels; j++)
		if (copy_has_key(c, suffix[j]))
			return true;
	if (e->kind != ENTRY_URL)
		return false;
	nprefix = path_prefix_hashes(c->hash_key, e->path, strlen(e->path), prefix, NULL);
	for (j = 0; j < nlabels; j++)
		for (i = 0; i < nprefix; i++)
			if (copy_has_key(c, bloomxdp_url_key(c->hash_key, suffix[j], prefix[i])))
				return true;
	return false;
}

bool named_copy_has(const struct named_copy *c, const struct entry *e)
{
	struct exact_set prefixes = { .v4_fd = c->v4_fd, .v6_fd = c->v6_fd, .names_fd = -1 };
	__u64 key;

	if (e->kind != ENTRY_ADDR)
		return copy_has_name(c, e);
	if (copy_key(c, e, &key) && copy_has_key(c, key))
		return true;
	/* An address under a listed prefix (a prefix: itself listed, or under one). */
	return e->kind == ENTRY_ADDR && exact_set_match_len(&prefixes, &e->addr) > 0;
}

void named_copy_close(struct named_copy *c)
{
	if (c->keys_fd >= 0)
		close(c->keys_fd);
	if (c->v4_fd >= 0)
		close(c->v4_fd);
	if (c->v6_fd >= 0)
		close(c->v6_fd);
	free(c->keys);
	c->keys = NULL;
	c->keys_fd = c->v4_fd = c->v6_fd = -1;
}

static int inner_fd(int outer_fd, __u32 index)
{
	__u32 id;

	if (bpf_map_lookup_elem(outer_fd, &index, &id))
		return -errno;
	return bpf_map_get_fd_by_id(id);
}

int named_list_open(const struct attachment *att, const struct named_view *v, int id,
		    struct named_copy *c)
{
	__u32 index = BLOOMXDP_LIST_INDEX(id, (v->slots >> id) & 1), union_slot;
	int ret;

	named_copy_init(c, &att->config);
	c->id = id;
	c->has = v->list[id].has;
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &union_slot);
	if (ret)
		return ret;
	c->keys_fd = inner_fd(att->list.keys_fd, union_slot);
	c->v4_fd = inner_fd(att->list.v4_fd, index);
	c->v6_fd = inner_fd(att->list.v6_fd, index);
	if (c->keys_fd < 0 || c->v4_fd < 0 || c->v6_fd < 0) {
		ret = c->keys_fd < 0 ? c->keys_fd : c->v4_fd < 0 ? c->v4_fd : c->v6_fd;
		named_copy_close(c);
		return ret;
	}
	return 0;
}

/* The prefixes of list index gone from the outer maps (the maps are freed when unused). */
static void copy_clear(const struct attachment *att, __u32 index)
{
	bpf_map_delete_elem(att->list.v4_fd, &index);
	bpf_map_delete_elem(att->list.v6_fd, &index);
}

static int copy_install(const struct attachment *att, __u32 index, const struct named_copy *c)
{
	if (bpf_map_update_elem(att->list.v4_fd, &index, &c->v4_fd, BPF_ANY) ||
	    bpf_map_update_elem(att->list.v6_fd, &index, &c->v6_fd, BPF_ANY))
		return -errno;
	return 0;
}

int named_part_take(void *ctx, const struct entry *e)
{
	struct named_part *p = ctx;

	return named_copy_add(&p->copy, e);
}

static int part_exact(struct named_part *p, __u32 room)
{
	int ret = named_copy_create(&p->copy, room);

	if (ret)
		log_error("cannot create the maps of list %s: %s", p->name, strerror(-ret));
	return ret;
}

int named_parts_open(struct named_parts *np, const struct attachment *att,
		     const struct state_dir *sd, const char *const *skip, int nskip, __u32 room)
{
	const char *ifname = att->ifname;
	list_name_t names[BLOOMXDP_MAX_LISTS + 1];
	char which[STATE_NAME_MAX];
	int i, k, n, ret;

	memset(np, 0, sizeof(*np));
	ret = named_lists_recorded(sd, names, &n);
	for (i = 0; i < n && !ret; i++) {
		struct named_part *p = &np->part[np->n];

		for (k = 0; k < nskip && strcmp(names[i], skip[k]); k++)
			;
		if (k < nskip)
			continue;
		if (np->n == BLOOMXDP_MAX_LISTS) {
			log_error("the state of %s records more than %d named lists", ifname,
				  BLOOMXDP_MAX_LISTS);
			return -E2BIG;
		}
		snprintf(p->name, sizeof(p->name), "%.*s", BLOOMXDP_LIST_NAME_MAX, names[i]);
		p->opts = (struct list_opts){ .format = FORMAT_AUTO };
		named_copy_init(&p->copy, &att->config);
		snprintf(which, sizeof(which), STATE_LIST_PREFIX "%.*s", BLOOMXDP_LIST_NAME_MAX,
			 names[i]);
		ret = list_inputs_state_at(&p->own, sd, which, true, true, &p->opts);
		np->n++;
		p->in = &p->own;
		p->opts.list = p->name;
		/* Recorded when it was loaded; its journal may be all that is left of it. */
		p->opts.allow_empty = true;
		if (!ret)
			ret = part_exact(p, room);
	}
	return ret;
}

int named_parts_add(struct named_parts *np, const struct attachment *att, const char *name,
		    struct list_inputs *in, const struct list_opts *o, __u32 room)
{
	struct named_part *p = &np->part[np->n];

	if (np->n == BLOOMXDP_MAX_LISTS) {
		log_error("there are %d named lists already, the most there may be: load one of "
			  "them with --allow-empty /dev/null to drop it, or load list %s into "
			  "another", BLOOMXDP_MAX_LISTS, name);
		return -E2BIG;
	}
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%.*s", BLOOMXDP_LIST_NAME_MAX, name);
	p->in = in;
	p->opts = *o;
	p->own.sd.fd = p->own.sd.root_fd = -1;
	named_copy_init(&p->copy, &att->config);
	np->n++;
	return part_exact(p, room);
}

/* The id of each part: its list's if present, else a free one. */
static int parts_ids(struct named_parts *np, const struct named_view *v)
{
	__u32 used = BLOOMXDP_LIST_DEFAULT_PRESENT;
	int i, id;

	for (i = 0; i < np->n; i++) {
		if (np->part[i].dropped)
			continue;
		np->part[i].id = named_view_find(v, np->part[i].name);
		if (np->part[i].id > 0)
			used |= 1U << np->part[i].id;
	}
	for (i = 0; i < np->n; i++) {
		if (np->part[i].id > 0 || np->part[i].dropped)
			continue;
		for (id = 1; id < BLOOMXDP_LIST_IDS && (used & (1U << id)); id++)
			;
		if (id == BLOOMXDP_LIST_IDS)
			return -E2BIG;
		np->part[i].id = id;
		used |= 1U << id;
	}
	return 0;
}

int named_parts_install(struct named_parts *np, const struct attachment *att,
			__u64 default_entries, __u32 union_slot)
{
	struct named_copy *copies[BLOOMXDP_MAX_LISTS];
	int ncopies = 0, keys_fd = -1;
	__u32 present = default_entries ? BLOOMXDP_LIST_DEFAULT_PRESENT : 0, slots, which;
	struct named_view v;
	int i, ret;

	ret = named_view_read(att, &v);
	if (!ret)
		ret = parts_ids(np, &v);
	if (ret) {
		log_error("cannot set the named lists of %s: %s", att->ifname, strerror(-ret));
		return ret;
	}
	slots = v.slots;
	for (i = 0; i < np->n && !ret; i++) {
		struct named_part *p = &np->part[i];
		struct bloomxdp_list d = { .action = p->opts.action_given ? p->opts.action :
					   BLOOMXDP_LIST_AS_ATTACH, .entries = p->entries,
					   .has = p->copy.has |
						  (p->opts.learn ? BLOOMXDP_LIST_LEARN : 0) };
		__u32 id = p->id, slot = ((slots >> id) & 1) ^ 1;

		if (p->dropped)
			continue;
		snprintf(d.name, sizeof(d.name), "%s", p->name);
		ret = copy_install(att, BLOOMXDP_LIST_INDEX(id, slot), &p->copy);
		np->part[i].copy.id = id;
		copies[ncopies++] = &np->part[i].copy;
		if (!ret && bpf_map_update_elem(att->lists_fd, &id, &d, BPF_ANY))
			ret = -errno;
		slots ^= 1U << id;
		present |= 1U << id;
		/* The program looks learned addresses up only while a present list learns. */
		if (p->opts.learn)
			present |= BLOOMXDP_LISTS_LEARNING;
	}
	/* Every list's keys, in the union's new generation: swapped with it. */
	if (!ret && ncopies)
		ret = named_keys_build(copies, ncopies, &keys_fd);
	if (!ret && ncopies &&
	    bpf_map_update_elem(att->list.keys_fd, &union_slot, &keys_fd, BPF_ANY))
		ret = -errno;
	if (keys_fd >= 0)
		close(keys_fd);
	if (!ret) {
		/* The default list's entry, for stats and status. */
		struct bloomxdp_list d = { .action = BLOOMXDP_LIST_AS_ATTACH,
					   .entries = default_entries, .name = "default" };
		__u32 id = BLOOMXDP_LIST_DEFAULT_ID;

		if (bpf_map_update_elem(att->lists_fd, &id, &d, BPF_ANY))
			ret = -errno;
	}
	np->old_slots = ~slots;
	np->old_present = v.present;
	/* The slots first: a list that comes is present only once its copy is there. */
	which = BLOOMXDP_ACTIVE_LIST_SLOTS;
	if (!ret && bpf_map_update_elem(att->active_fd, &which, &slots, BPF_ANY))
		ret = -errno;
	which = BLOOMXDP_ACTIVE_LISTS;
	if (!ret && bpf_map_update_elem(att->active_fd, &which, &present, BPF_ANY))
		ret = -errno;
	if (ret)
		log_error("cannot swap in the named lists of %s: %s", att->ifname,
			  strerror(-ret));
	return ret;
}

void named_parts_clear(const struct named_parts *np, const struct attachment *att)
{
	__u32 present = 0, id;
	struct bloomxdp_list none = {};
	int i;

	for (i = 0; i < np->n; i++)
		if (!np->part[i].dropped)
			present |= 1U << np->part[i].id;
	for (id = 1; id < BLOOMXDP_LIST_IDS; id++) {
		if (present & (1U << id)) {
			copy_clear(att, BLOOMXDP_LIST_INDEX(id, (np->old_slots >> id) & 1));
			continue;
		}
		/* A list no longer recorded: gone from the union too. */
		if (!(np->old_present & (1U << id)))
			continue;
		copy_clear(att, BLOOMXDP_LIST_INDEX(id, 0));
		copy_clear(att, BLOOMXDP_LIST_INDEX(id, 1));
		bpf_map_update_elem(att->lists_fd, &id, &none, BPF_ANY);
	}
}

void named_parts_free(struct named_parts *np)
{
	int i;

	for (i = 0; i < np->n; i++) {
		if (np->part[i].in == &np->part[i].own) {
			free(np->part[i].opts.where.items);
			list_inputs_free(&np->part[i].own);
		}
		named_copy_close(&np->part[i].copy);
	}
	np->n = 0;
}

__u32 named_holding(const struct attachment *att, const struct named_view *v,
		    const struct entry *e, char *names, size_t len, __u32 *action)
{
	struct named_copy x;
	__u32 mask = 0, a;
	size_t used = 0;
	int id;

	*action = BLOOMXDP_LIST_PASS;
	if (len)
		names[0] = '\0';
	for (id = 1; id < BLOOMXDP_LIST_IDS; id++) {
		if (!(v->present & (1U << id)) || named_list_open(att, v, id, &x))
			continue;
		if (named_copy_has(&x, e)) {
			mask |= 1U << id;
			a = list_action_of(&v->list[id], &att->config);
			if (BLOOMXDP_LIST_RANK(a) > BLOOMXDP_LIST_RANK(*action))
				*action = a;
			if (used < len)
				used += snprintf(names + used, len - used, "%s%s", used ? ", " : "",
						 v->list[id].name);
		}
		named_copy_close(&x);
	}
	return mask;
}

int named_lists_suspend(const struct attachment *att, __u32 *was)
{
	__u32 which = BLOOMXDP_ACTIVE_LISTS, none = 0;

	if (bpf_map_lookup_elem(att->active_fd, &which, was))
		return -errno;
	if (!(*was & BLOOMXDP_LISTS_NAMED))
		return 0;
	if (bpf_map_update_elem(att->active_fd, &which, &none, BPF_ANY))
		return -errno;
	return 0;
}

void named_lists_resume(const struct attachment *att, __u32 was)
{
	__u32 which = BLOOMXDP_ACTIVE_LISTS;

	if ((was & BLOOMXDP_LISTS_NAMED) &&
	    bpf_map_update_elem(att->active_fd, &which, &was, BPF_ANY))
		log_error("cannot put back the named lists of %s: %s; 'bloomxdp restore %s' "
			  "puts them back", att->ifname, strerror(errno), att->ifname);
}
