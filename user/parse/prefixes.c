// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parse/prefixes.h"

void prefix_plan(const struct prefix_counts *counts, __u32 max_targets, struct prefix_plan *plan)
{
	/* dp[i][k]: cost of lengths up to present[i] with k targets, the last at present[i]. */
	static double dp[PREFIX_WIDTH_MAX + 1][BLOOMXDP_MAX_PREFIX_LENGTHS + 1];
	static int from[PREFIX_WIDTH_MAX + 1][BLOOMXDP_MAX_PREFIX_LENGTHS + 1];
	__u32 present[PREFIX_WIDTH_MAX + 1], n = 0, i, j, k, m, best_k = 0;
	double cost, best = INFINITY;
	int at;

	memset(plan, 0, sizeof(*plan));
	memset(plan->target, BLOOMXDP_NO_LENGTH, sizeof(plan->target));
	for (i = 0; i <= counts->width; i++) {
		if (counts->count[i])
			present[n++] = i;
		plan->entries += counts->count[i];
	}
	if (n == 0)
		return;
	if (max_targets > BLOOMXDP_MAX_PREFIX_LENGTHS)
		max_targets = BLOOMXDP_MAX_PREFIX_LENGTHS;
	if (max_targets < 1)
		max_targets = 1;

	for (i = 0; i < n; i++) {
		for (k = 0; k <= max_targets; k++) {
			dp[i][k] = INFINITY;
			from[i][k] = -1;
		}
		/* Lengths present[j + 1 .. i] go to target present[i]; j = -1: all of them. */
		for (k = 1; k <= max_targets; k++) {
			for (j = 0; j <= i; j++) {
				double prev = j == 0 ? (k == 1 ? 0 : INFINITY) : dp[j - 1][k - 1];

				if (prev == INFINITY)
					continue;
				cost = prev;
				for (m = j; m <= i; m++) {
					/* Beyond the cap a prefix would be refused: no plan. */
					if (present[i] - present[m] > PREFIX_MAX_EXPANSION_BITS)
						cost = INFINITY;
					cost += counts->count[present[m]] *
						ldexp(1.0, present[i] - present[m]);
				}
				if (cost < dp[i][k]) {
					dp[i][k] = cost;
					from[i][k] = (int)j - 1;
				}
			}
		}
	}
	/* The longest present length must be a target; fewer targets win ties. */
	for (k = 1; k <= max_targets; k++) {
		if (dp[n - 1][k] < best) {
			best = dp[n - 1][k];
			best_k = k;
		}
	}
	plan->expanded = best;
	plan->ntargets = best_k;
	for (at = n - 1, k = best_k, m = 0; at >= 0 && k > 0; k--) {
		plan->target[m++] = present[at];
		at = from[at][k];
	}
}

__u64 prefix_plan_word(const struct prefix_plan *plan)
{
	__u64 word = BLOOMXDP_NO_LENGTHS;
	__u32 i;

	for (i = 0; i < plan->ntargets; i++) {
		word &= ~(0xffULL << (8 * i));
		word |= (__u64)plan->target[i] << (8 * i);
	}
	return word;
}

__u32 prefix_word_lengths(__u64 word, __u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS])
{
	__u32 n = 0, i;

	for (i = 0; i < BLOOMXDP_MAX_PREFIX_LENGTHS; i++) {
		__u8 len = word >> (8 * i);

		if (len == BLOOMXDP_NO_LENGTH)
			break;
		lengths[n++] = len;
	}
	return n;
}

const char prefix_too_wide_why[] =
	"a prefix shorter than /8 (IPv4) or /32 (IPv6) would block a whole region of the "
	"Internet: give --allow-wide to take it anyway";

bool prefix_too_wide(const struct bloomxdp_key *key)
{
	return key_prefix_len(key) < (key_family(key) == BLOOMXDP_KEY_IPV4 ? PREFIX_MIN_LEN_V4 :
				      PREFIX_MIN_LEN_V6);
}

__u32 key_family(const struct bloomxdp_key *key)
{
	return key->word[0] & 0xff;
}

__u32 key_prefix_len(const struct bloomxdp_key *key)
{
	return (key->word[0] >> 8) & 0xff;
}

__u32 key_width(const struct bloomxdp_key *key)
{
	return key_family(key) == BLOOMXDP_KEY_IPV4 ? 32 : 128;
}

void key_addr(const struct bloomxdp_key *key, __u8 addr[16])
{
	__u32 v4 = key->word[0] >> 32;

	if (key_family(key) == BLOOMXDP_KEY_IPV4) {
		memcpy(addr, &v4, 4);
	} else {
		memcpy(addr, &key->word[1], 8);
		memcpy(addr + 8, &key->word[2], 8);
	}
}

int prefix_expand(const struct bloomxdp_key *key, __u32 target,
		  int (*fn)(const struct bloomxdp_key *sub, void *ctx), void *ctx)
{
	__u32 len = key_prefix_len(key), width = key_width(key), bit, i;
	unsigned __int128 base = 0, step, n, sub;
	__u8 addr[16] __attribute__((aligned(8)));
	struct bloomxdp_key out;
	int ret;

	if (target < len || target > width)
		return -EINVAL;
	if (target - len >= 128)
		return -E2BIG;		/* ::/0 at /128: 2^128 keys */
	key_addr(key, addr);
	for (i = 0; i < width / 8; i++)
		base = base << 8 | addr[i];
	/* No shift by 128: ::/0 at /0 is one sub-prefix, whose step is unused. */
	step = width - target < 128 ? (unsigned __int128)1 << (width - target) : 0;
	n = (unsigned __int128)1 << (target - len);
	for (sub = 0; sub < n; sub++) {
		unsigned __int128 a = base + sub * step;

		for (i = 0; i < width / 8; i++) {
			bit = (width / 8 - 1 - i) * 8;
			addr[i] = (__u8)(a >> bit);
		}
		if (width == 32)
			bloomxdp_key_ipv4(&out, addr, target);
		else
			bloomxdp_key_ipv6(&out, addr, target);
		ret = fn(&out, ctx);
		if (ret < 0)
			return ret;
	}
	return 0;
}

const char *prefix_text(const struct bloomxdp_key *key, char *buf, size_t len)
{
	__u8 addr[16];
	char text[INET6_ADDRSTRLEN];

	key_addr(key, addr);
	inet_ntop(key_family(key) == BLOOMXDP_KEY_IPV4 ? AF_INET : AF_INET6, addr, text,
		  sizeof(text));
	snprintf(buf, len, "%s/%u", text, key_prefix_len(key));
	return buf;
}
