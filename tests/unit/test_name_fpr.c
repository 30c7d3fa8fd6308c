// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Statistics of name entries in a filter filled to capacity: names one
 * character away from listed ones are blocked no more often than the
 * false-positive rate makes them, and listed names and every name under
 * them always are.
 *
 * What is measured. A name of L labels is looked up as its L suffix keys
 * S_1 .. S_L (name.h), one Bloom test each, and is blocked when any test
 * hits. Near misses are built so that none of their suffixes is a listed
 * name (a listed suffix would block them, rightly): each of their tests is
 * then the test of a non-member, which hits with probability q = fill^k,
 * close to the design FPR p = (1 - e^(-kn/m))^k. Two shares per class:
 *
 *  - Per key: over the distinct suffix keys the edit made (those holding the
 *    edited label: the keys one character away from a listed name's keys),
 *    the share that hits. Each is a Bernoulli(q) trial, so the share must
 *    lie within 5 binomial sigma of q, and within 5 sigma + 2% of p as in
 *    test_fpr.c. This is "near misses hit no more than the design FPR".
 *
 *  - Per name: the share of near misses blocked. It is not p but, for a
 *    name of L labels, 1 - (1 - q)^D (about D p), D the number of its
 *    suffixes probed: those as deep as some listed name (the filter's header
 *    word; the listed names have 2 to 4 labels, so the TLD is never probed).
 *    Every suffix probed is a chance of a false positive. Its expectation is the mean of that over
 *    the queries, its variance the sum of e(1 - e) over them divided by the
 *    count squared (a Poisson binomial); the share must lie within 5 sigma.
 *
 * Why 5 sigma: a spurious failure has a chance of 1 in 1.7 million (and the
 * seeds are fixed); a defect that made near misses collide, such as a hash
 * that skips a byte or a fold that drops a label, moves the shares by many
 * times that. Labels are random enough (TLDs of 5 to 10 letters) that two
 * queries hardly ever share a suffix key, which keeps the trials independent.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "filter/entry_keys.h"
#include "parse/domain.h"
#include "filter/bloom_plan.h"

#define LISTED		200000
#define QUERIES		200000
#define NAME_LEN	96
#define MAX_LABELS	5

static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
static const char label_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";

/* xorshift64*: reproducible names. */
static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static char random_char(__u64 *rng, const char *alphabet)
{
	return alphabet[rng_next(rng) % strlen(alphabet)];
}

static void random_label(__u64 *rng, const char *alphabet, int min, int max, char *out)
{
	int i, len = min + rng_next(rng) % (max - min + 1);

	for (i = 0; i < len; i++)
		out[i] = random_char(rng, alphabet);
	out[len] = '\0';
}

/* ---- sets of our own, independent of the code under test --------------- */

static __u64 fnv1a(const void *data, size_t len)
{
	const unsigned char *p = data;
	__u64 h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/* Strings, by pointer: the caller keeps them. */
struct strset {
	const char **slot;
	size_t mask;
};

static void strset_init(struct strset *set, size_t capacity)
{
	size_t size = 1;

	while (size < 2 * capacity)
		size <<= 1;
	set->slot = calloc(size, sizeof(*set->slot));
	assert_non_null(set->slot);
	set->mask = size - 1;
}

static const char **strset_find(const struct strset *set, const char *s)
{
	size_t i = fnv1a(s, strlen(s)) & set->mask;

	while (set->slot[i] && strcmp(set->slot[i], s))
		i = (i + 1) & set->mask;
	return &set->slot[i];
}

/* False when s was there already. */
static bool strset_add(struct strset *set, const char *s)
{
	const char **slot = strset_find(set, s);

	if (*slot)
		return false;
	*slot = s;
	return true;
}

/* 64-bit values; 0 marks an empty slot, so 0 itself is kept apart. */
struct u64set {
	__u64 *slot;
	size_t mask;
	bool has_zero;
};

static void u64set_init(struct u64set *set, size_t capacity)
{
	size_t size = 1;

	while (size < 2 * capacity)
		size <<= 1;
	set->slot = calloc(size, sizeof(*set->slot));
	assert_non_null(set->slot);
	set->mask = size - 1;
	set->has_zero = false;
}

static bool u64set_add(struct u64set *set, __u64 v)
{
	size_t i = fnv1a(&v, sizeof(v)) & set->mask;

	if (!v) {
		if (set->has_zero)
			return false;
		return set->has_zero = true;
	}
	while (set->slot[i] && set->slot[i] != v)
		i = (i + 1) & set->mask;
	if (set->slot[i])
		return false;
	set->slot[i] = v;
	return true;
}

/* ---- the listed names -------------------------------------------------- */

static struct {
	struct filter f;
	char (*listed)[NAME_LEN];
	struct strset set;	/* the listed names' texts */
	__u64 rng;
} g;

/* 2 to 4 labels of 1 to 15 letters and digits, under a TLD of 5 to 10 letters. */
static void random_listed_name(__u64 *rng, char *out)
{
	int labels = 2 + rng_next(rng) % 3, i;
	char label[16];

	random_label(rng, letters, 5, 10, out);
	for (i = 1; i < labels; i++) {
		random_label(rng, label_chars, 1, 15, label);
		memmove(out + strlen(label) + 1, out, strlen(out) + 1);
		memcpy(out, label, strlen(label));
		out[strlen(label)] = '.';
	}
}

/* Suffixes of a name of n labels that the lookup probes: depths some listed name has. */
static int probed_depths(int n)
{
	__u64 depths = filter_header(&g.f);
	int d, probed = 0;

	for (d = 1; d <= n; d++)
		probed += !!(depths & BLOOMXDP_HAS_NAME_DEPTH(d));
	return probed;
}

static int setup(void **state)
{
	struct entry e = { .kind = ENTRY_NAME };
	struct bloomxdp_config cfg = {};
	struct bloom_plan plan;
	const char *why;
	char norm[NAME_TEXT_MAX];
	size_t i;

	(void)state;
	g.rng = 0x6e616d6573ULL;
	if (bloom_plan_compute(LISTED, 0.01, &plan))
		return -1;
	cfg.bits = plan.bits;
	cfg.hashes = plan.hashes;
	cfg.hash_key[0] = rng_next(&g.rng);
	cfg.hash_key[1] = rng_next(&g.rng);
	g.listed = calloc(LISTED, sizeof(*g.listed));
	if (filter_init_memory(&cfg, &g.f) || !g.listed)
		return -1;
	strset_init(&g.set, LISTED);
	for (i = 0; i < LISTED; i++) {
		do
			random_listed_name(&g.rng, g.listed[i]);
		while (!strset_add(&g.set, g.listed[i]));
		/* Already in normal form: what the list reader would insert. */
		if (name_normalize(g.listed[i], norm, &why) || strcmp(norm, g.listed[i]))
			return -1;
		strcpy(e.name, g.listed[i]);
		entry_keys_insert(&g.f, &e);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	filter_close(&g.f);
	free(g.listed);
	free(g.set.slot);
	return 0;
}

/* True when name or one of its suffixes is listed. */
static bool suffix_listed(const char *name)
{
	const char *p = name;

	for (;;) {
		if (*strset_find(&g.set, p))
			return true;
		p = strchr(p, '.');
		if (!p)
			return false;
		p++;
	}
}

/* ---- near misses ------------------------------------------------------- */

enum near_miss {
	GLUED_PREFIX,	/* "x" + "evil.example": xevil.example */
	OTHER_TLD,	/* evil.example -> evil.qwxyz */
	MIDDLE_CHAR,	/* a.evil.example -> a.evxl.example */
};

/*
 * The near miss of a listed name; returns the index from the left of the
 * label edited. The middle label of 2 labels is taken to be the first, of 4
 * the second.
 */
static int make_near_miss(enum near_miss kind, const char *listed, __u64 *rng, char *out)
{
	char label[MAX_LABELS][NAME_LEN], *tok, *save, copy[NAME_LEN], c;
	int n = 0, edited = 0, i;
	size_t pos;

	strcpy(copy, listed);
	for (tok = strtok_r(copy, ".", &save); tok; tok = strtok_r(NULL, ".", &save))
		strcpy(label[n++], tok);
	switch (kind) {
	case GLUED_PREFIX:
		memmove(label[0] + 1, label[0], strlen(label[0]) + 1);
		label[0][0] = random_char(rng, label_chars);
		edited = 0;
		break;
	case OTHER_TLD:
		edited = n - 1;
		strcpy(copy, label[edited]);
		do
			random_label(rng, letters, 5, 10, label[edited]);
		while (!strcmp(copy, label[edited]));
		break;
	case MIDDLE_CHAR:
		edited = (n - 1) / 2;
		pos = rng_next(rng) % strlen(label[edited]);
		do
			c = random_char(rng, label_chars);
		while (c == label[edited][pos]);
		label[edited][pos] = c;
		break;
	}
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(out, label[i]);
		if (i < n - 1)
			strcat(out, ".");
	}
	return edited;
}

static void check_near_misses(enum near_miss kind, const char *what)
{
	double q = bloom_fpr_for_fill((double)filter_popcount(&g.f) / g.f.bits, g.f.hashes);
	double design = bloom_fpr_for_entries(g.f.bits, g.f.hashes, LISTED);
	double expected = 0, variance = 0, e_name, share, key_share, sigma, key_sigma;
	__u64 queries = 0, blocked = 0, skipped = 0, keys = 0, key_hits = 0, i;
	struct entry e = { .kind = ENTRY_NAME };
	__u64 suffix[BLOOMXDP_MAX_LABELS], rng = 0x4e4541522d4d4953ULL + kind;
	struct u64set probed;
	char why[512];
	int n, j, edited;

	u64set_init(&probed, QUERIES * 4);
	for (i = 0; queries < QUERIES; i++) {
		edited = make_near_miss(kind, g.listed[i % LISTED], &rng, e.name);
		if (suffix_listed(e.name)) {
			skipped++;
			continue;
		}
		queries++;
		blocked += entry_keys_lookup(&g.f, &e, why, sizeof(why));

		n = name_suffix_hashes(g.f.hash_key, e.name, suffix);
		e_name = 1 - pow(1 - q, probed_depths(n));
		expected += e_name;
		variance += e_name * (1 - e_name);
		/* Suffix j holds labels n-1-j .. n-1 from the left: the edited one from here on. */
		for (j = n - 1 - edited; j < n; j++) {
			if (u64set_add(&probed, suffix[j])) {
				keys++;
				key_hits += filter_test_hash(&g.f, suffix[j]);
			}
		}
	}
	free(probed.slot);

	share = (double)blocked / queries;
	expected /= queries;
	sigma = sqrt(variance) / queries;
	key_share = (double)key_hits / keys;
	key_sigma = sqrt(q * (1 - q) / keys);
	print_message("# %s: %llu names (%llu skipped: a suffix listed), blocked %.5f, expected "
		      "%.5f (sigma %.5f); %llu new keys, hit %.5f; fill^k %.5f, design %.5f "
		      "(sigma %.5f)\n", what, (unsigned long long)queries,
		      (unsigned long long)skipped, share, expected, sigma,
		      (unsigned long long)keys, key_share, q, design, key_sigma);

	if (fabs(key_share - q) > 5 * key_sigma)
		fail_msg("%s: keys hit %.5f, more than 5 sigma from fill^k %.5f", what, key_share,
			 q);
	if (fabs(key_share - design) > 5 * key_sigma + 0.02 * design)
		fail_msg("%s: keys hit %.5f, off the design FPR %.5f", what, key_share, design);
	if (fabs(share - expected) > 5 * sigma)
		fail_msg("%s: %.5f of names blocked, more than 5 sigma from %.5f", what, share,
			 expected);
}

static void test_near_miss_glued_prefix(void **state)
{
	(void)state;
	check_near_misses(GLUED_PREFIX, "prefix glued to the first label");
}

static void test_near_miss_other_tld(void **state)
{
	(void)state;
	check_near_misses(OTHER_TLD, "other TLD");
}

static void test_near_miss_middle_char(void **state)
{
	(void)state;
	check_near_misses(MIDDLE_CHAR, "one character of the middle label");
}

/* Every listed name is blocked, and so is every name under it. */
static void test_no_false_negatives(void **state)
{
	__u64 rng = 0x5ab, i, missed = 0, missed_sub = 0;
	struct entry e = { .kind = ENTRY_NAME };
	char label[24], why[512];

	(void)state;
	for (i = 0; i < LISTED; i++) {
		strcpy(e.name, g.listed[i]);
		missed += !entry_keys_lookup(&g.f, &e, why, sizeof(why));
		/* What matched is the name or one of its suffixes. */
		if (strcmp(why, e.name) && (strlen(why) >= strlen(e.name) ||
		    strcmp(e.name + strlen(e.name) - strlen(why), why) ||
		    e.name[strlen(e.name) - strlen(why) - 1] != '.'))
			fail_msg("%s blocked by '%s'", e.name, why);

		random_label(&rng, label_chars, 1, 20, label);
		snprintf(e.name, sizeof(e.name), "%s.%s", label, g.listed[i]);
		missed_sub += !entry_keys_lookup(&g.f, &e, why, sizeof(why));
	}
	if (missed || missed_sub)
		fail_msg("%llu listed names and %llu of their subdomains not blocked",
			 (unsigned long long)missed, (unsigned long long)missed_sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_false_negatives),
		cmocka_unit_test(test_near_miss_glued_prefix),
		cmocka_unit_test(test_near_miss_other_tld),
		cmocka_unit_test(test_near_miss_middle_char),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
