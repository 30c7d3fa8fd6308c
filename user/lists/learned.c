// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Learned addresses: the learned map read, counted, swept; its names and times as text. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#include "lists/learned.h"
#include "parse/prefixes.h"

#define NS_PER_S 1000000000ULL
/* A label's length byte: above it, a compression pointer (RFC 1035 4.1.4) or reserved. */
#define DNS_LABEL_MAX 63

int learned_key_of(const struct bloomxdp_key *addr, struct bloomxdp_learn_key *k)
{
	__u8 bytes[16] = {};

	memset(k, 0, sizeof(*k));
	if (key_prefix_len(addr) != key_width(addr))
		return -EINVAL;
	key_addr(addr, bytes);
	k->family = key_family(addr) == BLOOMXDP_KEY_IPV4 ? 4 : 6;
	memcpy(k->addr, bytes, k->family == 4 ? 4 : 16);
	return 0;
}

/* One byte of a label into buf at *used: as it is, or \DDD; false when buf is full. */
static bool put_byte(char *buf, size_t blen, size_t *used, __u8 c)
{
	int n;

	if (c > 0x20 && c < 0x7f && c != '.' && c != '\\')
		n = snprintf(buf + *used, blen - *used, "%c", c);
	else
		n = snprintf(buf + *used, blen - *used, "\\%03u", c);
	if (n < 0 || (size_t)n >= blen - *used)
		return false;
	*used += n;
	return true;
}

static int put_text(char *buf, size_t blen, size_t *used, const char *s)
{
	int n = snprintf(buf + *used, blen - *used, "%s", s);

	if (n < 0 || (size_t)n >= blen - *used)
		return -ENOSPC;
	*used += n;
	return 0;
}

int learned_name_text(const __u8 *wire, __u32 len, char *buf, size_t blen)
{
	size_t used = 0;
	__u32 pos = 0, i, l;
	bool whole = false;

	if (!blen)
		return -ENOSPC;
	buf[0] = '\0';
	while (pos < len) {
		l = wire[pos++];
		if (!l) {
			whole = true;
			break;
		}
		if (l > DNS_LABEL_MAX) {
			snprintf(buf, blen, "?");
			return -EINVAL;
		}
		if (used && put_text(buf, blen, &used, "."))
			return -ENOSPC;
		for (i = 0; i < l && pos < len; i++, pos++)
			if (!put_byte(buf, blen, &used, wire[pos]))
				return -ENOSPC;
	}
	if (whole && !used)
		return put_text(buf, blen, &used, ".");
	return whole ? 0 : put_text(buf, blen, &used, "...");
}

void clock_pair_now(struct clock_pair *now)
{
	struct timespec mono;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &now->real);
	now->mono_ns = (__u64)mono.tv_sec * NS_PER_S + mono.tv_nsec;
}

const char *learned_time_text(__u64 mono_ns, const struct clock_pair *now, char *buf,
			      size_t len)
{
	/* In ns, as signed (until 2262): the instant, then its second (floor, as a clock shows). */
	long long wall = (long long)now->real.tv_sec * (long long)NS_PER_S + now->real.tv_nsec +
			 (long long)(mono_ns - now->mono_ns);
	long long s = wall / (long long)NS_PER_S - (wall % (long long)NS_PER_S < 0);
	struct tm tm;
	time_t t = (time_t)s;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}

int learned_find(int fd, const struct bloomxdp_learn_key *key, struct learned_view *out)
{
	struct clock_pair now;
	__u32 n;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(fd, key, &out->v))
		return errno == ENOENT ? -ENOENT : -errno;
	clock_pair_now(&now);
	if (out->v.expires_ns <= now.mono_ns)
		return -ENOENT;
	n = out->v.name_len < BLOOMXDP_LEARN_NAME_MAX ? out->v.name_len : BLOOMXDP_LEARN_NAME_MAX;
	learned_name_text(out->v.name, n, out->name, sizeof(out->name));
	learned_time_text(out->v.learned_ns, &now, out->learned_at, sizeof(out->learned_at));
	learned_time_text(out->v.expires_ns, &now, out->expires_at, sizeof(out->expires_at));
	return 0;
}

/*
 * The next key after prev (NULL: the first), into next: 0, -ENOENT at the end.
 * A key deleted meanwhile makes the kernel start again from the first: the
 * callers bound their steps.
 */
static int next_key(int fd, const struct bloomxdp_learn_key *prev, struct bloomxdp_learn_key *next)
{
	if (bpf_map_get_next_key(fd, prev, next))
		return errno == ENOENT ? -ENOENT : -errno;
	return 0;
}

/* Steps of a walk at most: every entry once, and as many again for restarts. */
#define WALK_MAX (2ULL * BLOOMXDP_LEARN_MAX)

int learned_count(int fd, __u64 now_ns, __u64 *total, __u64 per_list[BLOOMXDP_LIST_IDS])
{
	struct bloomxdp_learn_key key, prev;
	struct bloomxdp_learned v;
	__u64 steps;
	int ret;

	*total = 0;
	if (per_list)
		memset(per_list, 0, sizeof(__u64) * BLOOMXDP_LIST_IDS);
	if (fd < 0)
		return 0;
	for (ret = next_key(fd, NULL, &key), steps = 0; !ret && steps < WALK_MAX; steps++) {
		if (!bpf_map_lookup_elem(fd, &key, &v) && v.expires_ns > now_ns) {
			(*total)++;
			if (per_list && v.list < BLOOMXDP_LIST_IDS)
				per_list[v.list]++;
		}
		prev = key;
		ret = next_key(fd, &prev, &key);
	}
	return ret == -ENOENT ? 0 : ret;
}

int learned_sweep(int fd, __u64 now_ns, __u32 budget, __u32 *deleted)
{
	struct bloomxdp_learn_key key, next;
	struct bloomxdp_learned v;
	__u64 steps = 0;
	int ret;

	*deleted = 0;
	if (fd < 0)
		return 0;
	ret = next_key(fd, NULL, &key);
	while (!ret && *deleted < budget && steps++ < WALK_MAX) {
		/* The next one before this one goes: a deleted key restarts the walk. */
		ret = next_key(fd, &key, &next);
		if (!bpf_map_lookup_elem(fd, &key, &v) && v.expires_ns <= now_ns &&
		    !bpf_map_delete_elem(fd, &key))
			(*deleted)++;
		key = next;
	}
	return ret == -ENOENT ? 0 : ret;
}
