// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "parse/domain.h"
#include "filter/exact.h"
#include "filter/suffix_map.h"

/* A line of the list longer than this is no rule (the longest today is 40 bytes). */
#define SUFFIX_LINE_MAX 512
/* Lines read at most: the list has ~15,000 today. */
#define SUFFIX_MAX_LINES (1U << 20)

void suffix_map_init(struct suffix_map *s)
{
	memset(s, 0, sizeof(*s));
}

void suffix_map_free(struct suffix_map *s)
{
	free(s->key);
	free(s->flags);
	suffix_map_init(s);
}

static size_t slot_of(const struct suffix_map *s, __u64 key)
{
	/* Keys are SipHash outputs: their low bits are uniform. */
	size_t i = (size_t)(key ^ key >> 32) & (s->cap - 1);

	while (s->flags[i] && s->key[i] != key)
		i = (i + 1) & (s->cap - 1);
	return i;
}

__u32 suffix_map_flags(const struct suffix_map *s, __u64 key)
{
	return s->cap ? s->flags[slot_of(s, key)] : 0;
}

static int grow(struct suffix_map *s)
{
	struct suffix_map bigger = { .cap = s->cap ? s->cap * 2 : 1024 };
	size_t i, j;

	bigger.key = calloc(bigger.cap, sizeof(*bigger.key));
	bigger.flags = calloc(bigger.cap, sizeof(*bigger.flags));
	if (!bigger.key || !bigger.flags) {
		suffix_map_free(&bigger);
		return -ENOMEM;
	}
	for (i = 0; i < s->cap; i++) {
		if (!s->flags[i])
			continue;
		j = slot_of(&bigger, s->key[i]);
		bigger.key[j] = s->key[i];
		bigger.flags[j] = s->flags[i];
	}
	bigger.n = s->n;
	suffix_map_free(s);
	*s = bigger;
	return 0;
}

int suffix_map_or(struct suffix_map *s, __u64 key, __u32 flags)
{
	size_t i;
	int ret;

	if (!flags)
		return 0;
	if (s->cap && s->flags[slot_of(s, key)]) {
		s->flags[slot_of(s, key)] |= flags;
		return 0;
	}
	/* A new key: within the map's room, the table at most half full. */
	if (s->n >= BLOOMXDP_SUFFIX_MAX_KEYS)
		return -E2BIG;
	if ((s->n + 1) * 2 > s->cap) {
		ret = grow(s);
		if (ret)
			return ret;
	}
	i = slot_of(s, key);
	s->n++;
	s->key[i] = key;
	s->flags[i] = flags;
	return 0;
}

static int count_labels(const char *name)
{
	int n = 1;

	for (; *name; name++)
		n += *name == '.';
	return n;
}

/*
 * One rule: "name", "*.name" (its children are public suffixes) or "!name"
 * (an exception to a wildcard). Returns 1 when kept, 0 for a rule the
 * program cannot meet (too deep, a wildcard inside), or a negative errno.
 */
static int parse_rule(struct suffix_map *s, const __u64 hash_key[2], char *rule)
{
	__u32 flags = BLOOMXDP_SUFFIX_PUBLIC;
	char name[NAME_TEXT_MAX];
	const char *why;
	int labels, ret;

	if (rule[0] == '!') {
		flags = BLOOMXDP_SUFFIX_EXCEPTION;
		rule++;
	} else if (rule[0] == '*' && rule[1] == '.') {
		flags = BLOOMXDP_SUFFIX_WILDCARD;
		rule += 2;
	}
	if (strchr(rule, '*') || name_normalize(rule, name, &why))
		return 0;
	labels = count_labels(name) + (flags == BLOOMXDP_SUFFIX_WILDCARD);
	if (labels > BLOOMXDP_SUFFIX_MAX_LABELS)
		return 0;
	ret = suffix_map_or(s, name_hash(hash_key, name), flags);
	return ret ? ret : 1;
}

int suffix_map_parse(struct suffix_map *s, const __u64 hash_key[2], const char *path)
{
	char line[SUFFIX_LINE_MAX], *rule, *end;
	int fd, ret = 0, kept = 0;
	bool whole = true;
	unsigned int n;
	FILE *f;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	for (n = 0; n < SUFFIX_MAX_LINES && fgets(line, sizeof(line), f); n++) {
		/* The rest of an overlong line is no rule either. */
		bool was_whole = whole;

		whole = strchr(line, '\n') != NULL;
		if (!was_whole)
			continue;
		/* A rule is the line's first word; "//" starts a comment. */
		rule = line + strspn(line, " \t");
		end = rule + strcspn(rule, " \t\r\n");
		*end = '\0';
		if (!*rule || !strncmp(rule, "//", 2))
			continue;
		ret = parse_rule(s, hash_key, rule);
		if (ret < 0)
			break;
		kept += ret;
	}
	fclose(f);
	return ret < 0 ? ret : kept;
}

int suffix_map_fill(int map_fd, const __u64 hash_key[2])
{
	struct suffix_map s;
	size_t i;
	int ret;

	suffix_map_init(&s);
	ret = suffix_map_parse(&s, hash_key, SUFFIX_LIST_FILE);
	for (i = 0; ret > 0 && i < s.cap; i++)
		if (s.flags[i] && bpf_map_update_elem(map_fd, &s.key[i], &s.flags[i], BPF_ANY))
			ret = -errno;
	suffix_map_free(&s);
	return ret;
}

int suffix_map_prune(int map_fd, const __u64 hash_key[2])
{
	struct suffix_map keep, now;
	size_t i;
	int ret;

	suffix_map_init(&keep);
	suffix_map_init(&now);
	ret = suffix_map_parse(&keep, hash_key, SUFFIX_LIST_FILE);
	if (ret == -ENOENT)
		ret = 0;	/* no rules: single labels only, none kept */
	if (ret >= 0)
		ret = suffix_map_read(&now, map_fd);
	for (i = 0; ret >= 0 && i < now.cap; i++)
		if (now.flags[i] && !suffix_map_flags(&keep, now.key[i]) &&
		    bpf_map_delete_elem(map_fd, &now.key[i]) && errno != ENOENT)
			ret = -errno;
	suffix_map_free(&keep);
	suffix_map_free(&now);
	return ret < 0 ? ret : 0;
}

/* Keys and flags read per batch: the whole map in 3 system calls today. */
#define READ_BATCH 4096

/* The map in batches (6.1 has them for hash maps); -EINVAL or -EOPNOTSUPP: not here. */
static int read_batched(struct suffix_map *s, int map_fd)
{
	__u32 in = 0, out = 0, count, i, n, *flags = malloc(READ_BATCH * sizeof(*flags));
	__u64 *keys = malloc(READ_BATCH * sizeof(*keys));
	bool first = true, last = false;
	int ret = 0;

	if (!keys || !flags)
		ret = -ENOMEM;
	/* Bounded: the map holds at most BLOOMXDP_SUFFIX_MAX_KEYS. */
	for (n = 0; !ret && !last && n <= BLOOMXDP_SUFFIX_MAX_KEYS / READ_BATCH + 1; n++) {
		count = READ_BATCH;
		ret = bpf_map_lookup_batch(map_fd, first ? NULL : &in, &out, keys, flags, &count,
					   NULL);
		if (ret && errno != ENOENT) {
			ret = -errno;
			break;
		}
		last = ret != 0;
		ret = 0;
		for (i = 0; i < count && !ret; i++)
			ret = suffix_map_or(s, keys[i], flags[i]);
		in = out;
		first = false;
	}
	free(keys);
	free(flags);
	return ret ? ret : last ? 0 : -E2BIG;
}

int suffix_map_read(struct suffix_map *s, int map_fd)
{
	__u64 key, next;
	__u32 flags;
	void *prev = NULL;
	size_t n;
	int ret;

	ret = read_batched(s, map_fd);
	if (ret != -EINVAL && ret != -EOPNOTSUPP && ret != -KERNEL_ENOTSUPP)
		return ret;
	suffix_map_free(s);
	/* Bounded: the map holds at most BLOOMXDP_SUFFIX_MAX_KEYS. */
	for (n = 0; n <= BLOOMXDP_SUFFIX_MAX_KEYS; n++) {
		if (bpf_map_get_next_key(map_fd, prev, &next))
			return errno == ENOENT ? 0 : -errno;
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(map_fd, &key, &flags)) {
			if (errno == ENOENT)
				continue;	/* deleted meanwhile: by no writer of ours */
			return -errno;
		}
		ret = suffix_map_or(s, key, flags);
		if (ret)
			return ret;
	}
	return -E2BIG;
}

bool suffix_map_public(const struct suffix_map *s, const __u64 *suffix, int j)
{
	__u32 self, parent = 0;

	if (j < 0 || j >= BLOOMXDP_SUFFIX_MAX_LABELS)
		return false;
	self = suffix_map_flags(s, suffix[j]);
	if (j)
		parent = suffix_map_flags(s, suffix[j - 1]);
	return bloomxdp_suffix_public(j, self, parent);
}

int suffix_map_entry(const struct suffix_map *s, const __u64 hash_key[2],
		      const struct entry *e, __u64 *key)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS], prefix[BLOOMXDP_MAX_PATH_PREFIXES];
	int n, np;

	if (e->kind == ENTRY_ADDR || e->allow)
		return 0;
	n = name_suffix_hashes(hash_key, e->name, suffix);
	if (n < 1 || !suffix_map_public(s, suffix, n - 1))
		return 0;
	if (e->kind == ENTRY_NAME) {
		*key = suffix[n - 1];
		return 1;
	}
	/* A URL: its (host, path) key, as entry_keys_name() makes it. */
	np = path_prefix_hashes(hash_key, e->path, strlen(e->path), prefix, NULL);
	*key = bloomxdp_url_key(hash_key, suffix[n - 1], prefix[np - 1]);
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Writes flags of key, or deletes it when none is left. */
static int write_flags(int map_fd, __u64 key, __u32 flags)
{
	if (flags)
		return bpf_map_update_elem(map_fd, &key, &flags, BPF_ANY) ? -errno : 0;
	if (bpf_map_delete_elem(map_fd, &key) && errno != ENOENT)
		return -errno;
	return 0;
}

int suffix_map_sync(int map_fd, __u32 slot, __u64 *keys, size_t n)
{
	__u32 bit = BLOOMXDP_SUFFIX_LISTED(slot), flags;
	struct suffix_map now;
	size_t i;
	int ret;

	suffix_map_init(&now);
	ret = suffix_map_read(&now, map_fd);
	qsort(keys, n, sizeof(*keys), cmp_u64);
	/* What the slot held and holds no longer: cleared first, so that no room is lacking. */
	for (i = 0; !ret && i < now.cap; i++)
		if ((now.flags[i] & bit) &&
		    !bsearch(&now.key[i], keys, n, sizeof(*keys), cmp_u64))
			ret = write_flags(map_fd, now.key[i], now.flags[i] & ~bit);
	for (i = 0; !ret && i < n; i++) {
		if (i && keys[i] == keys[i - 1])
			continue;
		flags = suffix_map_flags(&now, keys[i]);
		if (!(flags & bit))
			ret = write_flags(map_fd, keys[i], flags | bit);
	}
	suffix_map_free(&now);
	return ret == -E2BIG || ret == -ENOSPC ? -E2BIG : ret;
}

int suffix_map_mark(int map_fd, __u32 slot, const __u64 *keys, size_t n)
{
	__u32 flags;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(map_fd, &keys[i], &flags))
			flags = 0;
		ret = write_flags(map_fd, keys[i], flags | BLOOMXDP_SUFFIX_LISTED(slot));
		if (ret)
			return ret == -ENOSPC ? -E2BIG : ret;
	}
	return 0;
}

int suffix_map_lookup(struct suffix_map *s, int map_fd, const __u64 hash_key[2],
		       const char *name)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS];
	int n = name_suffix_hashes(hash_key, name, suffix), j, ret;
	__u32 flags;

	if (n < 1 || n > BLOOMXDP_SUFFIX_MAX_LABELS)
		return 0;
	for (j = n - 1; j >= 0 && j >= n - 2; j--) {
		if (bpf_map_lookup_elem(map_fd, &suffix[j], &flags))
			continue;
		ret = suffix_map_or(s, suffix[j], flags & BLOOMXDP_SUFFIX_RULES);
		if (ret)
			return ret;
	}
	return 0;
}
