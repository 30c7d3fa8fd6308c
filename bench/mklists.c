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
 *
 * Usage: build/bench/mklists --prefixes DIR IPV4 IPV6 TRAFFIC [SEED]
 *
 * A prefix list as published country and ASN lists are: IPV4 disjoint IPv4
 * prefixes of every length from /8 to /32 inside 240.0.0.0/4 (mostly /24,
 * /22, /23, /21, /32, as in those lists; half of the range covered), and
 * IPV6 disjoint IPv6 prefixes of every length from /16 to /128 inside
 * 2000::/3 (mostly /32, /48, /29). In DIR, sorted by address:
 *   list.txt      "A/L" a line, IPv4 then IPv6        (bloomxdp load)
 *   lpm.bin       IPv4 LPM trie keys, 8 bytes each: prefix length (host
 *                 order), address (network order)     (bench/rx lpm)
 *   ipset.txt     "add bxb A/L" and "add bxb6 A/L"    (ipset restore)
 *   nft.txt       "add element inet bxb bl4 { ... }" and bl6 (nft -f)
 *   traffic-*.bin as above, IPv4 only: listed frames from a random listed
 *                 prefix (an address inside it), unlisted ones from the
 *                 rest of 240.0.0.0/4.
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

/* ------------------------------------------------------------ prefix lists */

struct pfx6 {
	uint64_t hi, lo;
	unsigned int len;
};

/* Prefixes per IPv4 length (of 50,000; scaled to IPV4), and shares of IPv6 lengths. */
static const unsigned int v4_weights[33] = {
	[8] = 1, [9] = 1, [10] = 2, [11] = 3, [12] = 6, [13] = 10, [14] = 20, [15] = 40,
	[16] = 120, [17] = 200, [18] = 500, [19] = 900, [20] = 1500, [21] = 2500, [22] = 5000,
	[23] = 4000, [24] = 25000, [25] = 300, [26] = 300, [27] = 300, [28] = 300, [29] = 700,
	[30] = 500, [31] = 200, [32] = 7617,
};

static unsigned int v6_length(void)
{
	unsigned int r = rnd() % 1000;

	if (r < 300)
		return 32;
	if (r < 650)
		return 48;
	if (r < 750)
		return 29;
	if (r < 800)
		return 36;
	if (r < 850)
		return 40;
	if (r < 900)
		return 44;
	/* The rest: any length from /16 to /128, short ones rare. */
	return r < 905 ? 16 + rnd() % 13 : 29 + rnd() % 100;
}

/* bits [start, start + count) of the bitmap all clear (count a power of two, aligned). */
static int bits_clear(const uint64_t *bm, uint64_t start, uint64_t count)
{
	uint64_t i;

	if (count >= 64) {
		for (i = start / 64; i < (start + count) / 64; i++)
			if (bm[i])
				return 0;
		return 1;
	}
	return !((bm[start / 64] >> (start % 64)) & (count == 64 ? ~0ULL : (1ULL << count) - 1));
}

static void bits_set(uint64_t *bm, uint64_t start, uint64_t count)
{
	uint64_t i;

	if (count >= 64) {
		for (i = start / 64; i < (start + count) / 64; i++)
			bm[i] = ~0ULL;
		return;
	}
	bm[start / 64] |= ((1ULL << count) - 1) << (start % 64);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_pfx6(const void *a, const void *b)
{
	const struct pfx6 *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void pfx6_end(const struct pfx6 *p, uint64_t *hi, uint64_t *lo)
{
	*hi = p->hi | (p->len >= 64 ? 0 : p->len == 0 ? ~0ULL : ~0ULL >> p->len);
	*lo = p->lo | (p->len >= 128 ? 0 : p->len <= 64 ? ~0ULL : ~0ULL >> (p->len - 64));
}

static void fmt_v6(char *out, uint64_t hi, uint64_t lo)
{
	unsigned char b[16];
	int i;

	for (i = 0; i < 8; i++) {
		b[i] = hi >> (56 - 8 * i);
		b[8 + i] = lo >> (56 - 8 * i);
	}
	inet_ntop(AF_INET6, b, out, INET6_ADDRSTRLEN);
}

static int make_prefixes(const char *dir, uint64_t n4, uint64_t n6, uint64_t frames)
{
	uint64_t *bm, *v4, i, j, total = 0, made = 0;
	struct pfx6 *v6;
	unsigned int len, k;
	FILE *txt, *lpm, *ips, *nft, *tr[3];
	static const char *const tr_names[3] = { "traffic-all.bin", "traffic-none.bin",
						 "traffic-mix30.bin" };
	static const double tr_share[3] = { 1.0, 0.0, 0.3 };
	char buf[INET6_ADDRSTRLEN + 8];

	for (len = 0; len <= 32; len++)
		total += v4_weights[len];
	bm = calloc(1u << (RANGE_BITS - 6), sizeof(*bm));
	v4 = malloc(n4 * sizeof(*v4));
	v6 = malloc((n6 + 1) * 2 * sizeof(*v6));
	if (!bm || !v4 || !v6) {
		fprintf(stderr, "mklists: out of memory\n");
		return 1;
	}
	/* The limited broadcast is never listed nor drawn. */
	bits_set(bm, (1u << RANGE_BITS) - 1, 1);
	/* Longest-lived first: the short prefixes, placed while the range is empty. */
	for (len = 8; len <= 32; len++) {
		uint64_t want = (v4_weights[len] * n4 + total / 2) / total, tries = 0;

		if (len == 32)
			want = n4 - made;
		for (j = 0; j < want && made < n4; tries++) {
			uint64_t size = 1ULL << (32 - len), off;

			if (tries > 100 * want + 1000) {
				fprintf(stderr, "mklists: no room for /%u prefixes\n", len);
				return 1;
			}
			off = (rnd() & ((1u << RANGE_BITS) - 1)) & ~(size - 1);
			if (!bits_clear(bm, off, size))
				continue;
			bits_set(bm, off, size);
			/* Sorted later by start; the length rides in the low byte. */
			v4[made++] = (uint64_t)(RANGE_BASE | off) << 8 | len;
			j++;
		}
	}
	qsort(v4, n4, sizeof(*v4), cmp_u64);

	/* IPv6: random prefixes of 2000::/3, those that overlap an earlier one dropped. */
	for (i = 0, j = 0; j < 2 * n6; j++) {
		uint64_t hi = 0x2000000000000000ULL | (rnd() >> 3), lo = rnd();

		len = v6_length();
		if (len < 64) {
			hi &= ~(~0ULL >> len);
			lo = 0;
		} else if (len < 128) {
			lo &= ~(~0ULL >> (len - 64));
		}
		v6[i].hi = hi;
		v6[i].lo = lo;
		v6[i].len = len;
		i++;
	}
	qsort(v6, i, sizeof(*v6), cmp_pfx6);
	for (j = 0, k = 0; j < i; j++) {
		uint64_t eh, el;

		if (k) {
			pfx6_end(&v6[k - 1], &eh, &el);
			if (v6[j].hi < eh || (v6[j].hi == eh && v6[j].lo <= el))
				continue;	/* inside the previous one */
		}
		v6[k++] = v6[j];
	}
	/* Every k/n6-th one, evenly, so that the lengths keep their shares. */
	for (j = 0; j < n6; j++)
		v6[j] = v6[j * k / n6];

	txt = open_out(dir, "list.txt");
	lpm = open_out(dir, "lpm.bin");
	ips = open_out(dir, "ipset.txt");
	nft = open_out(dir, "nft.txt");
	for (i = 0; i < n4; i++) {
		uint32_t a = v4[i] >> 8, words[2];

		len = v4[i] & 0xff;
		fmt_addr(buf, a);
		fprintf(txt, "%s/%u\n", buf, len);
		fprintf(ips, "add bxb %s/%u\n", buf, len);
		if (i % NFT_CHUNK == 0)
			fputs("add element inet bxb bl4 { ", nft);
		fprintf(nft, (i + 1) % NFT_CHUNK && i + 1 < n4 ? "%s/%u, " : "%s/%u }\n", buf, len);
		words[0] = len;
		words[1] = htonl(a);
		fwrite(words, sizeof(words), 1, lpm);
	}
	for (i = 0; i < n6; i++) {
		fmt_v6(buf, v6[i].hi, v6[i].lo);
		fprintf(txt, "%s/%u\n", buf, v6[i].len);
		fprintf(ips, "add bxb6 %s/%u\n", buf, v6[i].len);
		if (i % NFT_CHUNK == 0)
			fputs("add element inet bxb bl6 { ", nft);
		fprintf(nft, (i + 1) % NFT_CHUNK && i + 1 < n6 ? "%s/%u, " : "%s/%u }\n", buf,
			v6[i].len);
	}
	close_out(txt);
	close_out(lpm);
	close_out(ips);
	close_out(nft);

	for (k = 0; k < 3; k++) {
		tr[k] = open_out(dir, tr_names[k]);
		for (i = 0; i < frames; i++) {
			int listed = (double)(rnd() >> 11) / (double)(1ULL << 53) < tr_share[k];
			uint64_t v, off;
			uint32_t a, be;

			if (listed) {
				j = rnd() % n4;
				len = v4[j] & 0xff;
				a = (uint32_t)(v4[j] >> 8) |
				    (len == 32 ? 0 : (uint32_t)(rnd() & (0xffffffffu >> len)));
			} else {
				do
					off = rnd() & ((1u << RANGE_BITS) - 1);
				while ((bm[off / 64] >> (off % 64)) & 1);
				a = RANGE_BASE | (uint32_t)off;
			}
			be = htonl(a);
			v = (uint64_t)be | ((uint64_t)(listed ? htons(1) : 0) << 32);
			fwrite(&v, sizeof(v), 1, tr[k]);
		}
		close_out(tr[k]);
	}
	free(bm);
	free(v4);
	free(v6);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n, frames, i, off, chunk;
	uint8_t *bitmap;
	uint32_t *list, be;
	FILE *txt, *bin, *ips, *nft;
	char buf[32];

	if (argc >= 6 && !strcmp(argv[1], "--prefixes")) {
		rng_state = argc > 6 ? strtoull(argv[6], NULL, 0) : 42;
		n = strtoull(argv[3], NULL, 0);
		if (n < 1000 || n > 1000000 || !strtoull(argv[5], NULL, 0)) {
			fprintf(stderr, "mklists: --prefixes takes 1000 to 1000000 IPv4 prefixes\n");
			return 2;
		}
		return make_prefixes(argv[2], n, strtoull(argv[4], NULL, 0),
				     strtoull(argv[5], NULL, 0));
	}
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
