// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>

#include <bloomxdp/hash.h>
#include "filter/exact.h"
#include "filter/exact_table.h"

/*
 * Buckets of a table of n keys at first: a quarter full on average (4 keys
 * of 16, 2 of 8), where a bucket overflows with a chance of about 1e-8 (IPv4)
 * or 1e-5 (IPv6); one that does doubles the table.
 */
#define TABLE_LOAD_DIV 4

static __u32 keys_per_bucket(__u32 key_size)
{
	return key_size == 4 ? BLOOMXDP_TABLE_KEYS_V4 : BLOOMXDP_TABLE_KEYS_V6;
}

static __u32 bucket_of(const __u64 *addr_key, const __u8 *key, __u32 key_size, __u32 mask)
{
	__u32 a[4];

	memcpy(a, key, key_size);
	if (key_size == 4)
		return 1 + (bloomxdp_table_hash4(addr_key, a[0]) & mask);
	return 1 + (bloomxdp_table_hash6(addr_key, a) & mask);
}

static bool key_is_zero(const __u8 *key, __u32 key_size)
{
	__u32 i;

	for (i = 0; i < key_size; i++)
		if (key[i])
			return false;
	return true;
}

void exact_table_free(struct exact_table *t)
{
	free(t->line);
	memset(t, 0, sizeof(*t));
}

/* Every key in its bucket of a table of mask + 1 buckets: false when one overflows. */
static bool table_place(struct exact_table *t, const __u64 *addr_key, const __u8 *keys, __u32 n,
			__u32 key_size)
{
	__u32 per = keys_per_bucket(key_size), i, j, b;
	__u8 *line;

	memset(t->line, 0, (size_t)(t->mask + 2) * t->line_size);
	for (i = 0; i < n; i++) {
		b = bucket_of(addr_key, keys + (size_t)i * key_size, key_size, t->mask);
		line = t->line + (size_t)b * t->line_size;
		for (j = 0; j < per && !key_is_zero(line + j * key_size, key_size); j++)
			;
		if (j == per)
			return false;
		memcpy(line + j * key_size, keys + (size_t)i * key_size, key_size);
	}
	return true;
}

int exact_table_build(struct exact_table *t, const __u64 *addr_key, const __u8 *keys, __u32 n,
		      __u32 key_size)
{
	__u32 per = keys_per_bucket(key_size), buckets = 1, i;
	struct bloomxdp_table_hdr hdr = { .keys = n, .check = bloomxdp_table_check(addr_key) };

	memset(t, 0, sizeof(*t));
	/* No hosts of the family: no Bloom hit to confirm, no table to read. */
	if (!n || n > BLOOMXDP_TABLE_MAX_KEYS)
		return -ENOENT;
	for (i = 0; i < n; i++)
		if (key_is_zero(keys + (size_t)i * key_size, key_size))
			return -ENOENT;
	while (buckets < BLOOMXDP_TABLE_MAX_BUCKETS &&
	       (__u64)buckets * per < (__u64)n * TABLE_LOAD_DIV)
		buckets *= 2;
	t->line_size = per * key_size;
	for (; buckets <= BLOOMXDP_TABLE_MAX_BUCKETS; buckets *= 2) {
		free(t->line);
		t->mask = buckets - 1;
		t->line = malloc((size_t)(buckets + 1) * t->line_size);
		if (!t->line)
			return -ENOMEM;
		if (!table_place(t, addr_key, keys, n, key_size))
			continue;
		hdr.mask = t->mask;
		memcpy(t->line, &hdr, sizeof(hdr));
		t->keys = n;
		return 0;
	}
	exact_table_free(t);
	return -ENOENT;
}

bool exact_table_has(const struct exact_table *t, const __u64 *addr_key, const __u8 *key)
{
	__u32 key_size = t->line_size / (t->line_size == 64 ? BLOOMXDP_TABLE_KEYS_V4 :
					 BLOOMXDP_TABLE_KEYS_V6), j;
	const __u8 *line;

	if (!t->line || key_is_zero(key, key_size))
		return false;
	line = t->line + (size_t)bucket_of(addr_key, key, key_size, t->mask) * t->line_size;
	for (j = 0; j < keys_per_bucket(key_size); j++)
		if (!memcmp(line + j * key_size, key, key_size))
			return true;
	return false;
}

/* Keys read per system call from the hash map. */
#define READ_BATCH 4096U

/*
 * The keys of hash map fd, at most BLOOMXDP_TABLE_MAX_KEYS + 1 of them (one
 * more tells a list too large): *n of them in *keys.
 */
static int read_keys(int fd, __u32 key_size, __u8 **keys, __u32 *n)
{
	__u32 cap = BLOOMXDP_TABLE_MAX_KEYS + 1, in = 0, out = 0, count;
	__u8 next[16], cur[16], *values = malloc(cap);
	bool first = true;
	void *prev = NULL;

	*n = 0;
	*keys = malloc((size_t)cap * key_size);
	if (!*keys || !values) {
		free(values);
		return -ENOMEM;
	}
	while (*n < cap) {
		count = cap - *n < READ_BATCH ? cap - *n : READ_BATCH;
		if (bpf_map_lookup_batch(fd, first ? NULL : &in, &out,
					 *keys + (size_t)*n * key_size, values, &count, NULL)) {
			if (errno != ENOENT)
				goto one_by_one;
			*n += count;
			break;
		}
		*n += count;
		in = out;
		first = false;
	}
	free(values);
	return 0;
one_by_one:
	/* A kernel without batches on hash maps. */
	free(values);
	*n = 0;
	while (*n < cap && !bpf_map_get_next_key(fd, prev, next)) {
		memcpy(cur, next, key_size);
		prev = cur;
		memcpy(*keys + (size_t)(*n)++ * key_size, cur, key_size);
	}
	return 0;
}

static int table_map(const struct exact_table *t, __u32 key_size)
{
	/* As the template of bpf/maps.h: any size in one outer map. */
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	size_t bytes = (size_t)(t->mask + 2) * t->line_size;
	size_t mapped = (bytes + getpagesize() - 1) / getpagesize() * getpagesize();
	void *mem;
	int fd, ret;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, key_size == 4 ? "bloomxdp_t4" : "bloomxdp_t6",
			    sizeof(__u32), t->line_size, t->mask + 2, &opts);
	if (fd < 0)
		return -errno;
	mem = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	memcpy(mem, t->line, bytes);
	munmap(mem, mapped);
	return fd;
}

int exact_table_make(int hosts_fd, __u32 key_size, const __u64 *addr_key)
{
	struct exact_table t;
	__u8 *keys = NULL;
	__u32 n;
	int ret;

	ret = read_keys(hosts_fd, key_size, &keys, &n);
	if (!ret)
		ret = exact_table_build(&t, addr_key, keys, n, key_size);
	free(keys);
	if (ret)
		return ret;
	ret = table_map(&t, key_size);
	exact_table_free(&t);
	return ret;
}

__u64 exact_table_bytes(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return (__u64)info.max_entries * info.value_size;
}
