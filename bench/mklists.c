// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lists and traffic for the throughput benchmark (bench/run.sh).
 *
 * Usage: build/bench/mklists DIR ENTRIES TRAFFIC [SEED]
 *
 * Draws ENTRIES distinct random IPv4 addresses from 240.0.0.0/4 (reserved,
 * never routed; 268M addresses, so 10M of them are 3.7% of the range; the
 * limited broadcast 255.255.255.255 excluded) and
 * writes, in DIR:
 *   list.txt      one address a line                  (bloomxdp load)
 *   list.bin      the addresses, 4 bytes each, network order (bench/rx)
 *   ipset.txt     "add bxb A" lines                   (ipset restore)
 *   nft.txt       "add element ip bxb bl { ... }"     (nft -f)
 *   traffic-all.bin, traffic-none.bin, traffic-mix30.bin
 *                 TRAFFIC frames each, 8 bytes a frame: the source address
 *                 (network order, low 4 bytes) and the IPv4 ID the generator
 *                 stamps (bytes 4-5: 1 if the address is listed, else 0),
 *                 which the bare receiver uses as its verdict.
 * "all": addresses drawn from the list; "none": addresses of the range that
 * are not listed; "mix30": each frame listed with probability 0.3.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_BASE 0xf0000000u	/* 240.0.0.0/4 */
#define RANGE_BITS 28
#define NFT_CHUNK 10000		/* elements per nft statement */

static uint64_t rng_state;

/* splitmix64: fast, good enough, reproducible from the seed. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "mklists: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

static void close_out(FILE *f)
{
	if (fclose(f)) {
		fprintf(stderr, "mklists: write: %s\n", strerror(errno));
		exit(1);
	}
}

static int fmt_addr(char *out, uint32_t a)
{
	return sprintf(out, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

static void write_traffic(const char *dir, const char *name, const uint32_t *list,
			  uint64_t n, const uint8_t *bitmap, uint64_t frames, double listed_share)
{
	FILE *f = open_out(dir, name);
	uint64_t i, v, off;
	uint32_t a, be;
	int listed;

	for (i = 0; i < frames; i++) {
		listed = (double)(rnd() >> 11) / (double)(1ULL << 53) < listed_share;
		if (listed) {
			a = list[rnd() % n];
		} else {
			do
				off = rnd() & ((1u << RANGE_BITS) - 1);
			while (bitmap[off >> 3] & (1u << (off & 7)));
			a = RANGE_BASE | (uint32_t)off;
		}
		be = htonl(a);
		/* The ID as the generator stores it: network order 1 or 0. */
		v = (uint64_t)be | ((uint64_t)(listed ? htons(1) : 0) << 32);
		fwrite(&v, sizeof(v), 1, f);
	}
	close_out(f);
}

int main(int argc, char **argv)
{
	uint64_t n, frames, i, off, chunk;
	uint8_t *bitmap;
	uint32_t *list, be;
	FILE *txt, *bin, *ips, *nft;
	char buf[32];

	if (argc < 4) {
		fprintf(stderr, "usage: %s DIR ENTRIES TRAFFIC [SEED]\n", argv[0]);
		return 2;
	}
	n = strtoull(argv[2], NULL, 0);
	frames = strtoull(argv[3], NULL, 0);
	rng_state = argc > 4 ? strtoull(argv[4], NULL, 0) : 42;
	if (!n || n > (1u << RANGE_BITS) / 4 || !frames) {
		fprintf(stderr, "mklists: ENTRIES must be 1 to %u, TRAFFIC at least 1\n",
			(1u << RANGE_BITS) / 4);
		return 2;
	}
	bitmap = calloc(1u << (RANGE_BITS - 3), 1);
	list = malloc(n * sizeof(*list));
	if (!bitmap || !list) {
		fprintf(stderr, "mklists: out of memory\n");
		return 1;
	}
	/* 255.255.255.255 is the limited broadcast: never drawn. */
	bitmap[((1u << RANGE_BITS) - 1) >> 3] |= 0x80;
	for (i = 0; i < n;) {
		off = rnd() & ((1u << RANGE_BITS) - 1);
		if (bitmap[off >> 3] & (1u << (off & 7)))
			continue;
		bitmap[off >> 3] |= 1u << (off & 7);
		list[i++] = RANGE_BASE | (uint32_t)off;
	}

	txt = open_out(argv[1], "list.txt");
	bin = open_out(argv[1], "list.bin");
	ips = open_out(argv[1], "ipset.txt");
	nft = open_out(argv[1], "nft.txt");
	for (i = 0; i < n; i += chunk) {
		uint64_t j;

		chunk = n - i < NFT_CHUNK ? n - i : NFT_CHUNK;
		fputs("add element ip bxb bl { ", nft);
		for (j = i; j < i + chunk; j++) {
			fmt_addr(buf, list[j]);
			fprintf(txt, "%s\n", buf);
			fprintf(ips, "add bxb %s\n", buf);
			fprintf(nft, j + 1 < i + chunk ? "%s, " : "%s }\n", buf);
			be = htonl(list[j]);
			fwrite(&be, sizeof(be), 1, bin);
		}
	}
	close_out(txt);
	close_out(bin);
	close_out(ips);
	close_out(nft);

	write_traffic(argv[1], "traffic-all.bin", list, n, bitmap, frames, 1.0);
	write_traffic(argv[1], "traffic-none.bin", list, n, bitmap, frames, 0.0);
	write_traffic(argv[1], "traffic-mix30.bin", list, n, bitmap, frames, 0.3);
	free(bitmap);
	free(list);
	return 0;
}
