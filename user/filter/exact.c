// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include <bloomxdp/common.h>
#include <bloomxdp/hash.h>
#include "filter/exact.h"
#include "filter/exact_table.h"
#include "parse/domain.h"
#include "parse/prefixes.h"
#include "filter/ranges.h"
#include "util/hugemem.h"

void exact_set_init(struct exact_set *x)
{
	memset(x, 0, sizeof(*x));
	x->v4_fd = x->v6_fd = x->names_fd = x->p4_fd = x->p6_fd = -1;
	x->table_fd[0] = x->table_fd[1] = -1;
}

/* The address key of the program, for the hosts' tables: derived once per set. */
static void exact_set_key(struct exact_set *x, const __u64 hash_key[2])
{
	if (x->keyed || !hash_key)
		return;
	bloomxdp_addr_key_derive(hash_key, x->addr_key);
	x->keyed = true;
}

static int lpm_create(const char *name, __u32 key_size, __u32 max_entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);

	return bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, name, key_size, 1, max_entries, &opts);
}

int exact_set_create(struct exact_set *x, __u32 max_entries)
{
	exact_set_init(x);
	x->v4_fd = lpm_create("bloomxdp_exact4", sizeof(struct bloomxdp_lpm_v4), max_entries);
	x->v6_fd = lpm_create("bloomxdp_exact6", sizeof(struct bloomxdp_lpm_v6), max_entries);
	x->names_fd = lpm_create("bloomxdp_exactn", sizeof(struct bloomxdp_lpm_name), max_entries);
	if (x->v4_fd < 0 || x->v6_fd < 0 || x->names_fd < 0) {
		int err = -errno;

		exact_set_close(x);
		return err;
	}
	return 0;
}

enum { EXACT_V4, EXACT_V6, EXACT_NAMES };

/* The hash maps of a hashed set: the key of each, as the program looks it up. */
static const struct {
	const char *name;
	__u32 key_size;
} hashed_maps[3] = {
	{ "bloomxdp_xh4", 4 },
	{ "bloomxdp_xh6", 16 },
	{ "bloomxdp_xhn", sizeof(__u64) },
};

/* The first room of a hash map: a bucket array of 1 KB (a short list costs little). */
#define HASHED_FIRST_ROOM 64U

static int hashed_create(int which, __u32 room)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, hashed_maps[which].name,
				hashed_maps[which].key_size, 1, room, &opts);

	return fd < 0 ? -errno : fd;
}

static int *hashed_fd(struct exact_set *x, int which)
{
	return which == EXACT_V4 ? &x->v4_fd : which == EXACT_V6 ? &x->v6_fd : &x->names_fd;
}

int exact_set_create_hashed(struct exact_set *x, __u32 max_entries)
{
	int which, fd;

	exact_set_init(x);
	x->hashed = true;
	x->max_room = max_entries;
	for (which = 0; which < 3; which++) {
		x->room[which] = max_entries < HASHED_FIRST_ROOM ? max_entries : HASHED_FIRST_ROOM;
		fd = hashed_create(which, x->room[which] ? x->room[which] : 1);
		if (fd < 0)
			goto err;
		*hashed_fd(x, which) = fd;
	}
	x->p4_fd = lpm_create("bloomxdp_xp4", sizeof(struct bloomxdp_lpm_v4), max_entries);
	x->p6_fd = lpm_create("bloomxdp_xp6", sizeof(struct bloomxdp_lpm_v6), max_entries);
	if (x->p4_fd >= 0 && x->p6_fd >= 0)
		return 0;
	fd = -errno;
err:
	exact_set_close(x);
	return fd;
}

__u32 exact_room(__u64 capacity)
{
	__u64 room = capacity * 2;

	return room > (1U << 30) ? 1U << 30 : (__u32)room;
}

__u32 exact_room_for_memory(__u64 max_memory)
{
	__u64 room = max_memory / EXACT_ENTRY_BYTES + 1;

	return room > (1U << 30) ? 1U << 30 : (__u32)room;
}

/* The keys a deferred set kept aside, let go. */
static void pend_free(struct exact_set *x)
{
	int which;

	for (which = 0; which < 3; which++) {
		huge_free(x->pend[which]);
		x->pend[which] = NULL;
		x->npend[which] = x->pend_cap[which] = x->pend_check[which] = 0;
	}
}

void exact_set_close(struct exact_set *x)
{
	pend_free(x);
	if (x->v4_fd >= 0)
		close(x->v4_fd);
	if (x->v6_fd >= 0)
		close(x->v6_fd);
	if (x->names_fd >= 0)
		close(x->names_fd);
	/* A set made by hand (named.c) leaves these zero: only a hashed set has them. */
	if (x->hashed && x->p4_fd >= 0)
		close(x->p4_fd);
	if (x->hashed && x->p6_fd >= 0)
		close(x->p6_fd);
	if (x->table_fd[0] >= 0)
		close(x->table_fd[0]);
	if (x->table_fd[1] >= 0)
		close(x->table_fd[1]);
	exact_set_init(x);
}

/* The trie key of an address or prefix key; returns the trie's fd (the prefixes' if hashed). */
static int lpm_key(const struct exact_set *x, const struct bloomxdp_key *key, void *out)
{
	struct bloomxdp_lpm_v4 *k4 = out;
	struct bloomxdp_lpm_v6 *k6 = out;
	__u32 v4 = key->word[0] >> 32;

	if (key_family(key) == BLOOMXDP_KEY_IPV4) {
		k4->prefixlen = key_prefix_len(key);
		memcpy(k4->addr, &v4, 4);
		return x->hashed ? x->p4_fd : x->v4_fd;
	}
	k6->prefixlen = key_prefix_len(key);
	memcpy(k6->addr, &key->word[1], 8);
	memcpy(k6->addr + 8, &key->word[2], 8);
	return x->hashed ? x->p6_fd : x->v6_fd;
}

/* A hashed set: a host (not a prefix) goes to the hash map of its family. */
static bool is_host(const struct bloomxdp_key *key)
{
	return key_prefix_len(key) == (key_family(key) == BLOOMXDP_KEY_IPV4 ? 32 : 128);
}

/* The 64-bit keys a name or URL entry is known by (as in the Bloom filter). */
__u64 exact_entry_key(const __u64 hash_key[2], const struct entry *e)
{
	__u64 prefix[BLOOMXDP_MAX_PATH_PREFIXES], host = name_hash(hash_key, e->name);
	int n;

	if (e->kind == ENTRY_NAME)
		return host;
	n = path_prefix_hashes(hash_key, e->path, strlen(e->path), prefix, NULL);
	return bloomxdp_url_key(hash_key, host, prefix[n - 1]);
}

/*
 * A key into one of the set's maps, counted when new. The value a key has is
 * a function of the key (the prefix length, or 1): one already there is left.
 */
static int exact_insert(int fd, const void *key, __u8 value, __u64 *added)
{
	if (!bpf_map_update_elem(fd, key, &value, BPF_NOEXIST)) {
		(*added)++;
		return 0;
	}
	return errno == EEXIST ? 0 : -errno;
}

/* Keys moved per system call when a hash map grows. */
#define MOVE_BATCH 4096

/* Every key of old into fd, one at a time (a kernel without batch operations). */
static int move_keys_one_by_one(int old, int fd)
{
	__u8 key[16], next[16], v;
	__u64 moved = 0;
	void *prev = NULL;
	int ret;

	while (!bpf_map_get_next_key(old, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		if (bpf_map_lookup_elem(old, key, &v))
			continue;
		ret = exact_insert(fd, key, v, &moved);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Every key of old into fd, MOVE_BATCH per lookup and update (the room
 * doubles, so a set of n keys moves about 2n keys as it grows: one system
 * call per key made 50,000 adds take 1.5 s). -EOPNOTSUPP: no batches here.
 */
static int move_keys(int old, int fd, __u32 key_size)
{
	__u8 *keys = malloc((size_t)MOVE_BATCH * key_size), *values = malloc(MOVE_BATCH);
	__u32 in = 0, out = 0, count, put, n;
	bool first = true, last = false;
	int ret = keys && values ? 0 : -ENOMEM;

	/* Bounded: a map of 2^32 keys at the most. */
	for (n = 0; !ret && !last && n <= (1ULL << 32) / MOVE_BATCH; n++) {
		count = MOVE_BATCH;
		if (bpf_map_lookup_batch(old, first ? NULL : &in, &out, keys, values, &count,
					 NULL)) {
			if (errno != ENOENT)
				ret = errno == EINVAL || errno == KERNEL_ENOTSUPP ? -EOPNOTSUPP :
				      -errno;
			last = true;
		}
		put = count;
		if (!ret && count && bpf_map_update_batch(fd, keys, values, &put, NULL))
			ret = -errno;
		in = out;
		first = false;
	}
	free(keys);
	free(values);
	return ret;
}

/* Moves every key of one hash map into a new one of twice the room; -ENOSPC past max. */
static int hashed_grow(struct exact_set *x, int which, __u32 max_entries)
{
	__u32 room = x->room[which] * 2;
	int fd, *old = hashed_fd(x, which), ret;

	if (x->room[which] >= max_entries)
		return -ENOSPC;
	if (room > max_entries)
		room = max_entries;
	fd = hashed_create(which, room);
	if (fd < 0)
		return fd;
	ret = move_keys(*old, fd, hashed_maps[which].key_size);
	if (ret == -EOPNOTSUPP)
		ret = move_keys_one_by_one(*old, fd);
	if (ret) {
		close(fd);
		return ret;
	}
	close(*old);
	*old = fd;
	x->room[which] = room;
	x->grown = true;
	return 0;
}

/* Into a hash map of a hashed set, growing it when full (up to the tries' room). */
static int hashed_insert(struct exact_set *x, int which, const void *key)
{
	__u32 max_entries = x->max_room ? x->max_room : 1U << 30;
	int ret;

	x->hosts_changed |= which != EXACT_NAMES;
	for (;;) {
		ret = exact_insert(*hashed_fd(x, which), key, 1, &x->added[which]);
		if (ret != -E2BIG && ret != -ENOSPC)
			return ret;
		ret = hashed_grow(x, which, max_entries);
		if (ret)
			return ret;
	}
}

/* Keys a deferred set puts in one system call, and those of a set too large put in to size it. */
#define PEND_BATCH 65536U
#define PEND_PROBE 16384U

void exact_set_defer(struct exact_set *x)
{
	x->deferred = x->hashed;
}

static inline void key_copy(__u8 *to, const __u8 *from, __u32 size)
{
	if (size == 4)
		memcpy(to, from, 4);
	else if (size == 8)
		memcpy(to, from, 8);
	else
		memcpy(to, from, 16);
}

/* Compared at the sizes of the keys, each inlined. */
static inline bool key_differs(const __u8 *a, const __u8 *b, __u32 size)
{
	if (size == 4)
		return memcmp(a, b, 4);
	if (size == 8)
		return memcmp(a, b, 8);
	return memcmp(a, b, 16);
}

/*
 * Sorts n keys of size bytes (radix, a byte a pass, a pass skipped when every
 * key has the same byte there) and keeps one of each: how many remain, or -ENOMEM.
 */
static long long keys_unique(__u8 *keys, __u64 n, __u32 size)
{
	__u8 *tmp = n > 1 ? huge_realloc(NULL, n * size) : NULL, *from = keys, *to;
	__u64 count[256], pos, c, i, u;
	__u32 byte, v;

	if (n < 2)
		return (long long)n;
	if (!tmp)
		return -ENOMEM;
	for (byte = 0; byte < size; byte++) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[from[i * size + byte]]++;
		if (count[from[byte]] == n)
			continue;
		for (pos = 0, v = 0; v < 256; v++) {
			c = count[v];
			count[v] = pos;
			pos += c;
		}
		to = from == keys ? tmp : keys;
		for (i = 0; i < n; i++)
			key_copy(to + count[from[i * size + byte]]++ * size, from + i * size, size);
		from = to;
	}
	if (from != keys)
		memcpy(keys, from, n * size);
	huge_free(tmp);
	for (u = 1, i = 1; i < n; i++)
		if (key_differs(keys + i * size, keys + (u - 1) * size, size)) {
			if (u != i)
				key_copy(keys + u * size, keys + i * size, size);
			u++;
		}
	return (long long)u;
}

/*
 * More than max_room keys differ: the set is too large. A few go into the
 * map, so that what the set would take is known from them (exact_decide()
 * extrapolates), and the rest are left. -ENOSPC.
 */
static int pend_overflow(struct exact_set *x, int which)
{
	__u32 size = hashed_maps[which].key_size;
	__u64 i, n = x->npend[which] < PEND_PROBE ? x->npend[which] : PEND_PROBE;
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = hashed_insert(x, which, x->pend[which] + i * size);
	pend_free(x);
	x->deferred = false;
	return ret && ret != -ENOSPC ? ret : -ENOSPC;
}

/* Duplicates taken out of the keys aside; -ENOSPC when more than max_room remain. */
static int pend_judge(struct exact_set *x, int which)
{
	__u32 max_room = x->max_room ? x->max_room : 1U << 30;
	long long u = keys_unique(x->pend[which], x->npend[which], hashed_maps[which].key_size);

	if (u < 0)
		return (int)u;
	x->npend[which] = (__u64)u;
	if (x->npend[which] > max_room)
		return pend_overflow(x, which);
	/* Judged again when twice as many (a list of many duplicates is not sorted per key). */
	x->pend_check[which] = x->npend[which] * 2 > (__u64)max_room + 1 ? x->npend[which] * 2 :
			       (__u64)max_room + 1;
	return 0;
}

static int pend_add(struct exact_set *x, int which, const void *key)
{
	__u32 size = hashed_maps[which].key_size;
	__u64 cap = x->pend_cap[which] ? x->pend_cap[which] * 2 : PEND_BATCH;
	__u8 *p;

	if (x->npend[which] == x->pend_cap[which]) {
		p = huge_realloc(x->pend[which], cap * size);
		if (!p)
			return -ENOMEM;
		x->pend[which] = p;
		x->pend_cap[which] = cap;
	}
	key_copy(x->pend[which] + x->npend[which]++ * size, key, size);
	if (!x->pend_check[which])
		x->pend_check[which] = (__u64)(x->max_room ? x->max_room : 1U << 30) + 1;
	return x->npend[which] >= x->pend_check[which] ? pend_judge(x, which) : 0;
}

/*
 * The (distinct) keys aside into their map, made at once as large as growing
 * one key at a time would have made it, PEND_BATCH keys per system call.
 */
static int pend_put(struct exact_set *x, int which)
{
	__u32 size = hashed_maps[which].key_size, room = x->room[which], count;
	__u32 max_room = x->max_room ? x->max_room : 1U << 30;
	__u64 n = x->npend[which], done = 0;
	bool empty = !x->added[which];
	__u8 *values = NULL;
	int fd, ret = 0;

	x->hosts_changed |= which != EXACT_NAMES;
	while (room < n && room < max_room)
		room = room * 2 > max_room ? max_room : room * 2;
	if (room != x->room[which] && empty) {
		fd = hashed_create(which, room);
		if (fd < 0)
			return fd;
		close(*hashed_fd(x, which));
		*hashed_fd(x, which) = fd;
		x->room[which] = room;
		x->grown = true;
	}
	if (empty) {
		values = malloc(PEND_BATCH);
		if (!values)
			return -ENOMEM;
		memset(values, 1, PEND_BATCH);
	}
	/*
	 * Batches take no BPF_NOEXIST (EINVAL) and a failed one may leave its
	 * count as given: the rest one key at a time then (a kernel without
	 * batches), keys a batch put in already found there.
	 */
	while (values && done < n) {
		count = n - done < PEND_BATCH ? (__u32)(n - done) : PEND_BATCH;
		if (bpf_map_update_batch(*hashed_fd(x, which), x->pend[which] + done * size,
					 values, &count, NULL))
			break;
		done += count;
	}
	free(values);
	for (; done < n && !ret; done++)
		ret = hashed_insert(x, which, x->pend[which] + done * size);
	/* The map was empty and the keys distinct: each is one more. */
	if (!ret && empty)
		x->added[which] = n;
	return ret;
}

int exact_set_flush(struct exact_set *x)
{
	int which, ret = 0;

	for (which = 0; which < 3 && x->deferred && !ret; which++)
		if (x->npend[which])
			ret = pend_judge(x, which);
	for (which = 0; which < 3 && x->deferred && !ret; which++)
		if (x->npend[which])
			ret = pend_put(x, which);
	pend_free(x);
	x->deferred = false;
	return ret;
}

int exact_set_add(struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	struct bloomxdp_lpm_name nk = { .prefixlen = 64 };
	struct bloomxdp_lpm_v6 key;
	__u64 name;
	int fd, fam;

	exact_set_key(x, hash_key);
	if (e->kind == ENTRY_ADDR) {
		/* The value is the prefix length: what a lookup matched. */
		fd = lpm_key(x, &e->addr, &key);
		fam = key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? EXACT_V4 : EXACT_V6;
		if (x->deferred && is_host(&e->addr))
			return pend_add(x, fam, key.addr);
		if (x->hashed && is_host(&e->addr))
			return hashed_insert(x, fam, key.addr);
		if (x->hashed) {
			x->prefixes_changed = true;
			return exact_insert(fd, &key, key_prefix_len(&e->addr),
					    &x->added_prefixes[fam]);
		}
		return exact_insert(fd, &key, key_prefix_len(&e->addr), &x->added[fam]);
	}
	name = exact_entry_key(hash_key, e);
	if (x->deferred)
		return pend_add(x, EXACT_NAMES, &name);
	if (x->hashed)
		return hashed_insert(x, EXACT_NAMES, &name);
	nk.key = name;
	return exact_insert(x->names_fd, &nk, 1, &x->added[EXACT_NAMES]);
}

static int delete_key(int fd, const void *key)
{
	return bpf_map_delete_elem(fd, key) && errno != ENOENT ? -errno : 0;
}

int exact_set_remove(struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	struct bloomxdp_lpm_v6 key;
	struct bloomxdp_lpm_name nk = { .prefixlen = 64 };
	int fd;

	exact_set_key(x, hash_key);
	if (e->kind == ENTRY_ADDR) {
		fd = lpm_key(x, &e->addr, &key);
		x->hosts_changed |= x->hashed && is_host(&e->addr);
		if (x->hashed && is_host(&e->addr))
			return delete_key(fd == x->p4_fd ? x->v4_fd : x->v6_fd, key.addr);
		x->prefixes_changed |= x->hashed;
		return delete_key(fd, &key);
	}
	nk.key = exact_entry_key(hash_key, e);
	return x->hashed ? delete_key(x->names_fd, &nk.key) : delete_key(x->names_fd, &nk);
}

/* Deletes n keys of size bytes from a hash map in batches; keys already gone are skipped. */
static int delete_keys(int fd, const __u8 *keys, __u32 size, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 done = 0, count;

	while (done < n) {
		count = n - done;
		if (!bpf_map_delete_batch(fd, keys + (size_t)done * size, &count, &opts))
			return 0;
		if (errno != ENOENT)
			return -errno;
		done += count + 1;	/* count deleted, then the one not there */
	}
	return 0;
}

int exact_set_remove_many(struct exact_set *x, const __u64 hash_key[2], const struct entry *e,
			  int n)
{
	struct bloomxdp_lpm_v6 key;
	__u8 *keys[3] = { NULL, NULL, NULL };
	__u32 count[3] = { 0, 0, 0 }, which;
	int i, fd, ret = 0;
	__u64 name;

	if (!x->hashed) {
		for (i = 0; i < n && !ret; i++)
			ret = exact_set_remove(x, hash_key, &e[i]);
		return ret;
	}
	exact_set_key(x, hash_key);
	x->hosts_changed = true;
	for (which = 0; which < 3 && !ret; which++) {
		keys[which] = calloc(n ? n : 1, hashed_maps[which].key_size);
		if (!keys[which])
			ret = -ENOMEM;
	}
	/* Prefixes one by one (their trie); hosts and names gathered for one batch per map. */
	for (i = 0; i < n && !ret; i++) {
		if (e[i].kind == ENTRY_ADDR && !is_host(&e[i].addr)) {
			ret = exact_set_remove(x, hash_key, &e[i]);
			continue;
		}
		if (e[i].kind == ENTRY_ADDR) {
			fd = lpm_key(x, &e[i].addr, &key);
			which = fd == x->p4_fd ? EXACT_V4 : EXACT_V6;
			memcpy(keys[which] + count[which]++ * hashed_maps[which].key_size, key.addr,
			       hashed_maps[which].key_size);
			continue;
		}
		name = exact_entry_key(hash_key, &e[i]);
		memcpy(keys[EXACT_NAMES] + count[EXACT_NAMES]++ * sizeof(name), &name, sizeof(name));
	}
	for (which = 0; which < 3 && !ret; which++)
		if (count[which])
			ret = delete_keys(*hashed_fd(x, which), keys[which],
					  hashed_maps[which].key_size, count[which]);
	for (which = 0; which < 3; which++)
		free(keys[which]);
	return ret;
}

int exact_set_match_len(const struct exact_set *x, const struct bloomxdp_key *addr)
{
	struct bloomxdp_lpm_v6 key;
	__u8 len;
	int fd = lpm_key(x, addr, &key);

	/* A hashed set: the host itself, else the longest listed prefix holding it. */
	if (x->hashed && is_host(addr) &&
	    !bpf_map_lookup_elem(fd == x->p4_fd ? x->v4_fd : x->v6_fd, key.addr, &len))
		return key_prefix_len(addr) + 1;
	return bpf_map_lookup_elem(fd, &key, &len) ? 0 : len + 1;
}

bool exact_set_has(const struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	if (e->kind == ENTRY_ADDR)
		return exact_set_match_len(x, &e->addr) > 0;
	return exact_set_has_key(x, exact_entry_key(hash_key, e));
}

bool exact_set_has_key(const struct exact_set *x, __u64 key)
{
	struct bloomxdp_lpm_name k = { .prefixlen = 64, .key = key };
	__u8 v;

	if (x->hashed)
		return bpf_map_lookup_elem(x->names_fd, &key, &v) == 0;
	return bpf_map_lookup_elem(x->names_fd, &k, &v) == 0;
}

/*
 * The intervals of a hashed set's prefixes of one family: *count of them, and
 * with make their map's fd (-ENOENT when there are none).
 */
static int prefix_ranges(const struct exact_set *x, int fam, __u64 *count, bool make)
{
	struct bloomxdp_lpm_v6 k, next;
	struct range_set s;
	struct bloomxdp_key key;
	void *prev = NULL;
	int fd = fam ? x->p6_fd : x->p4_fd, ret = 0;

	range_set_init(&s, fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4);
	while (!ret && !bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (fam)
			bloomxdp_key_ipv6(&key, k.addr, k.prefixlen);
		else
			bloomxdp_key_ipv4(&key, k.addr, k.prefixlen);
		ret = range_set_add_key(&s, &key);
	}
	range_set_merge(&s);
	if (count)
		*count = s.n;
	if (!ret && make)
		ret = s.n ? range_set_create_map(&s) : -ENOENT;
	range_set_free(&s);
	return ret;
}

/* Slot of the intervals' outer maps: the prefixes' intervals now, or none. */
static int install_ranges(const struct exact_outer *o, __u32 slot, const struct exact_set *x)
{
	int fam, fd, outer, ret = 0;

	for (fam = 0; fam < 2 && !ret; fam++) {
		outer = fam ? o->r6_fd : o->r4_fd;
		fd = prefix_ranges(x, fam, NULL, true);
		if (fd == -ENOENT) {
			bpf_map_delete_elem(outer, &slot);
			continue;
		}
		if (fd < 0)
			return fd;
		ret = bpf_map_update_elem(outer, &slot, &fd, BPF_ANY) ? -errno : 0;
		close(fd);
	}
	return ret;
}

static int put_slot(int outer_fd, __u32 slot, int fd)
{
	return bpf_map_update_elem(outer_fd, &slot, &fd, BPF_ANY) ? -errno : 0;
}

/*
 * The hosts' tables of a hashed set, made again from its hash maps. None of
 * a family that cannot have one, or on any error: the hash map then, which
 * holds the same hosts, so that a table is only ever a faster copy.
 */
void exact_set_tables(struct exact_set *x)
{
	int fam, fd;

	for (fam = 0; fam < 2; fam++) {
		fd = x->keyed ? exact_table_make(*hashed_fd(x, fam), hashed_maps[fam].key_size,
						 x->addr_key) : -ENOENT;
		if (x->table_fd[fam] >= 0)
			close(x->table_fd[fam]);
		x->table_fd[fam] = fd < 0 ? -1 : fd;
	}
	x->hosts_changed = false;
}

/*
 * Slot of the tables' outer maps: the set's tables, or none. Put in after
 * the hash maps: a slot left without a table reads those.
 */
static int install_tables(const struct exact_outer *o, __u32 slot, const struct exact_set *x)
{
	int fam, outer, ret = 0;

	for (fam = 0; fam < 2 && !ret; fam++) {
		outer = fam ? o->t6_fd : o->t4_fd;
		if (outer < 0)
			continue;
		if (x->table_fd[fam] >= 0)
			ret = put_slot(outer, slot, x->table_fd[fam]);
		else if (bpf_map_delete_elem(outer, &slot) && errno != ENOENT)
			ret = -errno;
	}
	return ret;
}

int exact_set_install(const struct exact_outer *o, __u32 slot, struct exact_set *x)
{
	int ret;

	if (!x->hashed)
		return put_slot(o->v4_fd, slot, x->v4_fd) ?: put_slot(o->v6_fd, slot, x->v6_fd) ?:
		       put_slot(o->names_fd, slot, x->names_fd);
	ret = install_ranges(o, slot, x);
	if (!ret)
		ret = put_slot(o->p4_fd, slot, x->p4_fd) ?: put_slot(o->p6_fd, slot, x->p6_fd);
	if (!ret)
		ret = put_slot(o->v4_fd, slot, x->v4_fd) ?: put_slot(o->v6_fd, slot, x->v6_fd);
	if (!ret) {
		exact_set_tables(x);
		ret = install_tables(o, slot, x);
	}
	return ret ?: put_slot(o->names_fd, slot, x->names_fd);
}

int exact_set_update_live(const struct exact_outer *o, __u32 slot, struct exact_set *x)
{
	int ret = 0;

	if (!x->hashed)
		return 0;
	/* A grown map holds every key of the one it replaces: packets see either. */
	if (x->grown)
		ret = put_slot(o->v4_fd, slot, x->v4_fd) ?: put_slot(o->v6_fd, slot, x->v6_fd) ?:
		      put_slot(o->names_fd, slot, x->names_fd);
	if (!ret && x->prefixes_changed)
		ret = install_ranges(o, slot, x);
	/* After the hash maps: an added host is in them before a table without it goes. */
	if (!ret && (x->hosts_changed || x->grown)) {
		exact_set_tables(x);
		ret = install_tables(o, slot, x);
	}
	if (!ret)
		x->grown = x->prefixes_changed = false;
	return ret;
}

static int open_slot(int outer_fd, __u32 slot)
{
	__u32 id;
	int fd;

	if (bpf_map_lookup_elem(outer_fd, &slot, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

/* The room of an opened hash map: what it can hold before it grows. */
static __u32 map_room(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

int exact_set_open(const struct exact_outer *o, __u32 slot, struct exact_set *x)
{
	int which, err = 0;

	exact_set_init(x);
	x->v4_fd = open_slot(o->v4_fd, slot);
	x->v6_fd = open_slot(o->v6_fd, slot);
	x->names_fd = open_slot(o->names_fd, slot);
	if (o->p4_fd >= 0) {
		x->hashed = true;
		x->p4_fd = open_slot(o->p4_fd, slot);
		x->p6_fd = open_slot(o->p6_fd, slot);
		for (which = 0; which < 3; which++)
			x->room[which] = *hashed_fd(x, which) >= 0 ? map_room(*hashed_fd(x, which)) : 0;
		/* Tables are optional: a slot without one is read from its hash map. */
		x->table_fd[0] = o->t4_fd >= 0 ? open_slot(o->t4_fd, slot) : -1;
		x->table_fd[1] = o->t6_fd >= 0 ? open_slot(o->t6_fd, slot) : -1;
		x->table_fd[0] = x->table_fd[0] < 0 ? -1 : x->table_fd[0];
		x->table_fd[1] = x->table_fd[1] < 0 ? -1 : x->table_fd[1];
		err = x->p4_fd < 0 ? x->p4_fd : x->p6_fd < 0 ? x->p6_fd : 0;
	}
	if (x->v4_fd < 0 || x->v6_fd < 0 || x->names_fd < 0 || err) {
		err = x->v4_fd < 0 ? x->v4_fd : x->v6_fd < 0 ? x->v6_fd :
		      x->names_fd < 0 ? x->names_fd : err;
		exact_set_close(x);
		return err;
	}
	return 0;
}

void exact_outer_clear(const struct exact_outer *o, __u32 slot)
{
	/* names first: the program reads an exact copy in a slot that has it. */
	bpf_map_delete_elem(o->names_fd, &slot);
	bpf_map_delete_elem(o->v4_fd, &slot);
	bpf_map_delete_elem(o->v6_fd, &slot);
	if (o->p4_fd < 0)
		return;
	bpf_map_delete_elem(o->p4_fd, &slot);
	bpf_map_delete_elem(o->p6_fd, &slot);
	bpf_map_delete_elem(o->r4_fd, &slot);
	bpf_map_delete_elem(o->r6_fd, &slot);
	if (o->t4_fd >= 0)
		bpf_map_delete_elem(o->t4_fd, &slot);
	if (o->t6_fd >= 0)
		bpf_map_delete_elem(o->t6_fd, &slot);
}

__u64 map_fd_bytes(int fd)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Whether memlock says what a map holds (Linux 6.4's map_mem_usage) rather
 * than the room of its max_entries: an empty trie then takes nothing. Asked
 * of the kernel once.
 */
static bool memlock_is_usage(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	static int usage = -1;
	int fd;

	if (usage >= 0)
		return usage;
	fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bloomxdp_probe",
			    sizeof(struct bloomxdp_lpm_name), 1, 1U << 16, &opts);
	if (fd < 0)
		return true;	/* no verdict now: the caller's own maps say what they say */
	usage = map_fd_bytes(fd) == 0;
	close(fd);
	return usage;
}

/* An LPM trie's entry as 6.4 accounts it: struct lpm_trie_node (40 bytes), key data, value. */
#define LPM_NODE_BYTES 40
#define LPM_ENTRY_BYTES(key_type) (LPM_NODE_BYTES + sizeof(key_type) - sizeof(__u32) + 1)

/*
 * A hash map as 6.4 accounts it (htab_map_mem_usage): a 16-byte bucket per
 * power of two of its room, then per element struct htab_elem (48 bytes),
 * the key and value rounded to 8 bytes, and a list node (8).
 */
#define HTAB_BUCKET_BYTES 16
#define HTAB_ELEM_BYTES(key_size) (48 + (((key_size) + 7) & ~7U) + 8 + 8)

static __u64 pow2_at_least(__u32 n)
{
	__u64 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* A hashed set's intervals: their bytes, made from its prefixes now. */
static __u64 hashed_ranges_bytes(const struct exact_set *x)
{
	__u64 bytes = 0, n;
	int fam;

	for (fam = 0; fam < 2; fam++)
		if (!prefix_ranges(x, fam, &n, false) && n)
			bytes += range_set_bytes(fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4, n);
	return bytes;
}

__u64 exact_set_bytes_estimate(const struct exact_set *x)
{
	__u64 bytes = 0;
	int which;

	if (x->hashed) {
		for (which = 0; which < 3; which++)
			bytes += pow2_at_least(x->room[which]) * HTAB_BUCKET_BYTES +
				 x->added[which] * HTAB_ELEM_BYTES(hashed_maps[which].key_size);
		return bytes + x->added_prefixes[0] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_v4) +
		       x->added_prefixes[1] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_v6) +
		       hashed_ranges_bytes(x) + exact_set_table_bytes(x);
	}
	return x->added[EXACT_V4] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_v4) +
	       x->added[EXACT_V6] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_v6) +
	       x->added[EXACT_NAMES] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_name);
}

__u64 exact_set_bytes(const struct exact_set *x)
{
	if (!memlock_is_usage())
		return exact_set_bytes_estimate(x);
	if (x->hashed)
		return map_fd_bytes(x->v4_fd) + map_fd_bytes(x->v6_fd) +
		       map_fd_bytes(x->names_fd) + map_fd_bytes(x->p4_fd) +
		       map_fd_bytes(x->p6_fd) + hashed_ranges_bytes(x) + exact_set_table_bytes(x);
	return map_fd_bytes(x->v4_fd) + map_fd_bytes(x->v6_fd) + map_fd_bytes(x->names_fd);
}

__u64 exact_set_table_bytes(const struct exact_set *x)
{
	return exact_table_bytes(x->table_fd[0]) + exact_table_bytes(x->table_fd[1]);
}

__u64 exact_outer_table_bytes(const struct exact_outer *o, __u32 slot)
{
	__u64 bytes = 0;
	int fam, fd, outer;

	for (fam = 0; fam < 2; fam++) {
		outer = fam ? o->t6_fd : o->t4_fd;
		fd = outer >= 0 ? open_slot(outer, slot) : -1;
		if (fd < 0)
			continue;
		bytes += exact_table_bytes(fd);
		close(fd);
	}
	return bytes;
}

const char *verify_mode_name(__u32 mode)
{
	return mode == BLOOMXDP_VERIFY_AUTO ? "auto" : mode == BLOOMXDP_VERIFY_ON ? "on" :
	       mode == BLOOMXDP_VERIFY_OFF ? "off" : "?";
}

__u64 verify_auto_limit(__u64 max_memory)
{
	return max_memory / BLOOMXDP_VERIFY_AUTO_SHARE;
}

bool exact_outer_has(const struct exact_outer *o, __u32 slot)
{
	__u32 id;

	return !bpf_map_lookup_elem(o->names_fd, &slot, &id);
}

/* Bytes as a size an operator reads: "640 MB", "7.5 MB", "900 KB" (powers of 1000). */
static void size_text(__u64 bytes, char *buf, size_t len)
{
	if (bytes >= 1000000)
		snprintf(buf, len, bytes >= 100000000 ? "%.0f MB" : "%.1f MB", bytes / 1e6);
	else
		snprintf(buf, len, "%.1f KB", bytes / 1e3);
}

void verify_reason(__u32 mode, bool on, const struct bloomxdp_state *st, char *buf,
		   size_t len)
{
	char need[32], limit[32];

	size_text(st->exact_bytes, need, sizeof(need));
	size_text(verify_auto_limit(st->max_memory), limit, sizeof(limit));
	if (mode == BLOOMXDP_VERIFY_OFF)
		snprintf(buf, len, "exact stage off: attach --verify off");
	else if (!on && mode == BLOOMXDP_VERIFY_AUTO && st->exact_bytes)
		snprintf(buf, len, "exact stage off: %llu keys need %s, more than %s (a quarter "
			 "of --max-memory)", (unsigned long long)st->exact_keys, need, limit);
	else if (!on)
		snprintf(buf, len, "exact stage off: the live list was made without an exact "
			 "copy (the next load makes one%s)",
			 mode == BLOOMXDP_VERIFY_AUTO ? " if it fits" : "");
	else if (mode == BLOOMXDP_VERIFY_AUTO)
		snprintf(buf, len, "exact stage on: %llu keys need %s, within %s (a quarter of "
			 "--max-memory)", (unsigned long long)st->exact_keys, need, limit);
	else
		snprintf(buf, len, "exact stage on: attach --verify on (%llu keys, %s)",
			 (unsigned long long)st->exact_keys, need);
}
