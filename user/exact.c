// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include <bloomxdp/common.h>
#include "exact.h"
#include "names.h"
#include "prefixes.h"

void exact_set_init(struct exact_set *x)
{
	x->v4_fd = x->v6_fd = x->names_fd = -1;
	memset(x->added, 0, sizeof(x->added));
}

int exact_set_create(struct exact_set *x, __u32 max_entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);

	exact_set_init(x);
	x->v4_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bloomxdp_exact4",
				  sizeof(struct bloomxdp_lpm_v4), 1, max_entries, &opts);
	x->v6_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bloomxdp_exact6",
				  sizeof(struct bloomxdp_lpm_v6), 1, max_entries, &opts);
	x->names_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "bloomxdp_exactn",
				     sizeof(struct bloomxdp_lpm_name), 1, max_entries, &opts);
	if (x->v4_fd < 0 || x->v6_fd < 0 || x->names_fd < 0) {
		int err = -errno;

		exact_set_close(x);
		return err;
	}
	return 0;
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

void exact_set_close(struct exact_set *x)
{
	if (x->v4_fd >= 0)
		close(x->v4_fd);
	if (x->v6_fd >= 0)
		close(x->v6_fd);
	if (x->names_fd >= 0)
		close(x->names_fd);
	exact_set_init(x);
}

enum { EXACT_V4, EXACT_V6, EXACT_NAMES };

/* The trie key of an address or prefix key; returns the trie's fd. */
static int lpm_key(const struct exact_set *x, const struct bloomxdp_key *key, void *out)
{
	struct bloomxdp_lpm_v4 *k4 = out;
	struct bloomxdp_lpm_v6 *k6 = out;
	__u32 v4 = key->word[0] >> 32;

	if (key_family(key) == BLOOMXDP_KEY_IPV4) {
		k4->prefixlen = key_prefix_len(key);
		memcpy(k4->addr, &v4, 4);
		return x->v4_fd;
	}
	k6->prefixlen = key_prefix_len(key);
	memcpy(k6->addr, &key->word[1], 8);
	memcpy(k6->addr + 8, &key->word[2], 8);
	return x->v6_fd;
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
 * A key into one of the set's tries, counted when new. The value a key has is
 * a function of the key (the prefix length, or 1 for a name): one already
 * there is left as it is.
 */
static int exact_insert(struct exact_set *x, int which, int fd, const void *key, __u8 value)
{
	if (!bpf_map_update_elem(fd, key, &value, BPF_NOEXIST)) {
		x->added[which]++;
		return 0;
	}
	return errno == EEXIST ? 0 : -errno;
}

int exact_set_add(struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	struct bloomxdp_lpm_name nk = { .prefixlen = 64 };
	struct bloomxdp_lpm_v6 key;
	int fd;

	if (e->kind == ENTRY_ADDR) {
		/* The value is the prefix length: what a lookup matched. */
		fd = lpm_key(x, &e->addr, &key);
		return exact_insert(x, fd == x->v4_fd ? EXACT_V4 : EXACT_V6, fd, &key,
				    key_prefix_len(&e->addr));
	}
	nk.key = exact_entry_key(hash_key, e);
	return exact_insert(x, EXACT_NAMES, x->names_fd, &nk, 1);
}

int exact_set_remove(struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	struct bloomxdp_lpm_v6 key;
	struct bloomxdp_lpm_name nk = { .prefixlen = 64 };
	int fd;

	if (e->kind == ENTRY_ADDR) {
		fd = lpm_key(x, &e->addr, &key);
		return bpf_map_delete_elem(fd, &key) && errno != ENOENT ? -errno : 0;
	}
	nk.key = exact_entry_key(hash_key, e);
	return bpf_map_delete_elem(x->names_fd, &nk) && errno != ENOENT ? -errno : 0;
}

bool exact_set_has(const struct exact_set *x, const __u64 hash_key[2], const struct entry *e)
{
	struct bloomxdp_lpm_v6 key;
	__u64 nkey;
	__u8 v;
	int fd;

	if (e->kind == ENTRY_ADDR) {
		fd = lpm_key(x, &e->addr, &key);
		return bpf_map_lookup_elem(fd, &key, &v) == 0;
	}
	nkey = exact_entry_key(hash_key, e);
	return exact_set_has_key(x, nkey);
}

int exact_set_match_len(const struct exact_set *x, const struct bloomxdp_key *addr)
{
	struct bloomxdp_lpm_v6 key;
	__u8 len;
	int fd = lpm_key(x, addr, &key);

	return bpf_map_lookup_elem(fd, &key, &len) ? 0 : len + 1;
}

bool exact_set_has_key(const struct exact_set *x, __u64 key)
{
	struct bloomxdp_lpm_name k = { .prefixlen = 64, .key = key };
	__u8 v;

	return bpf_map_lookup_elem(x->names_fd, &k, &v) == 0;
}

int exact_set_install(const struct exact_outer *o, __u32 slot, const struct exact_set *x)
{
	if (bpf_map_update_elem(o->v4_fd, &slot, &x->v4_fd, BPF_ANY) ||
	    bpf_map_update_elem(o->v6_fd, &slot, &x->v6_fd, BPF_ANY) ||
	    bpf_map_update_elem(o->names_fd, &slot, &x->names_fd, BPF_ANY))
		return -errno;
	return 0;
}

static int open_slot(int outer_fd, __u32 slot)
{
	__u32 id;

	if (bpf_map_lookup_elem(outer_fd, &slot, &id))
		return -errno;
	return bpf_map_get_fd_by_id(id);
}

int exact_set_open(const struct exact_outer *o, __u32 slot, struct exact_set *x)
{
	exact_set_init(x);
	x->v4_fd = open_slot(o->v4_fd, slot);
	x->v6_fd = open_slot(o->v6_fd, slot);
	x->names_fd = open_slot(o->names_fd, slot);
	if (x->v4_fd < 0 || x->v6_fd < 0 || x->names_fd < 0) {
		int err = x->v4_fd < 0 ? x->v4_fd : x->v6_fd < 0 ? x->v6_fd : x->names_fd;

		exact_set_close(x);
		return err;
	}
	return 0;
}

void exact_outer_clear(const struct exact_outer *o, __u32 slot)
{
	bpf_map_delete_elem(o->v4_fd, &slot);
	bpf_map_delete_elem(o->v6_fd, &slot);
	bpf_map_delete_elem(o->names_fd, &slot);
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

__u64 exact_set_bytes(const struct exact_set *x)
{
	if (memlock_is_usage())
		return map_fd_bytes(x->v4_fd) + map_fd_bytes(x->v6_fd) +
		       map_fd_bytes(x->names_fd);
	return x->added[EXACT_V4] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_v4) +
	       x->added[EXACT_V6] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_v6) +
	       x->added[EXACT_NAMES] * LPM_ENTRY_BYTES(struct bloomxdp_lpm_name);
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
