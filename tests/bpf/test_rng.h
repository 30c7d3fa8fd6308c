/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The random inputs of a test program: splitmix64 from one seed, which
 * BLOOMXDP_TEST_SEED sets to repeat a run (else random, and printed).
 */
#ifndef BLOOMXDP_TEST_RNG_H
#define BLOOMXDP_TEST_RNG_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/random.h>
#include <linux/types.h>

static __u64 rng_state;
static __u64 test_seed;		/* rng_seed()'s, for failure messages */

/* splitmix64 */
static inline __u64 rng(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_bytes(void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((__u8 *)buf)[i] = rng() >> 56;
}

/* Seeds rng() from BLOOMXDP_TEST_SEED, or at random, and says the seed (a TAP comment). */
static inline void rng_seed(void)
{
	const char *env = getenv("BLOOMXDP_TEST_SEED");
	__u64 seed;

	if (env)
		seed = strtoull(env, NULL, 0);
	else if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = time(NULL);
	test_seed = seed;
	rng_state = seed;
	printf("# seed %llu (BLOOMXDP_TEST_SEED repeats this run)\n", (unsigned long long)seed);
}

#endif /* BLOOMXDP_TEST_RNG_H */
