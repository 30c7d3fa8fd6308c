// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* save and restore of a blocklist generation: the format is in savefile.h. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel/attachment.h"
#include "bloomxdp.skel.h"
#include "filter/filter.h"
#include "filter/layout.h"
#include "kernel/loader.h"
#include "lists/lists.h"
#include "util/log.h"
#include "util/numbers.h"
#include "lists/generation.h"
#include "lists/named.h"
#include "lists/report.h"
#include "filter/ranges.h"
#include "lists/savefile.h"
#include "filter/bloom_plan.h"
#include "filter/suffix_map.h"
#include "util/version.h"

/* Reads and writes go through a buffer of this many bytes. */
#define CHUNK (1U << 20)

/* Slicing by 8 (Intel's): 8 bytes a step through 8 tables, about 1 GB/s or more. */
__u32 savefile_crc32c(__u32 crc, const void *data, size_t len)
{
	static __u32 table[8][256];
	const __u8 *p = data;
	__u32 i, j, c, lo, hi;

	if (!table[0][1]) {
		for (i = 0; i < 256; i++) {
			for (c = i, j = 0; j < 8; j++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
			table[0][i] = c;
		}
		for (i = 0; i < 256; i++)
			for (j = 1; j < 8; j++)
				table[j][i] = (table[j - 1][i] >> 8) ^ table[0][table[j - 1][i] & 0xff];
	}
	crc = ~crc;
	for (; len >= 8; len -= 8, p += 8) {
		lo = crc ^ (p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24);
		hi = p[4] | p[5] << 8 | p[6] << 16 | (__u32)p[7] << 24;
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
	}
	while (len--)
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void put32(__u8 *p, __u32 v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put64(__u8 *p, __u64 v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static __u32 get32(const __u8 *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static __u64 get64(const __u8 *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* Format version 2's header: what in says, and its writer (set_writer()). */
static void encode_header(const struct savefile_info *in, __u8 h[SAVEFILE_HEADER_BYTES])
{
	memset(h, 0, SAVEFILE_HEADER_BYTES);
	memcpy(h, SAVEFILE_MAGIC, 8);
	put32(h + 8, SAVEFILE_VERSION);
	put32(h + 12, SAVEFILE_HEADER_BYTES);
	put32(h + 16, in->layout);
	put32(h + 20, in->hashes);
	put64(h + 24, in->bits);
	put64(h + 32, in->kinds);
	put64(h + 40, in->lengths[0]);
	put64(h + 48, in->lengths[1]);
	put64(h + 56, in->hash_key[0]);
	put64(h + 64, in->hash_key[1]);
	put64(h + 72, in->fpr_ppb);
	put64(h + 80, in->entries);
	put64(h + 88, in->keys);
	put64(h + 96, in->capacity);
	put64(h + 104, in->generation);
	put64(h + 112, in->loaded_at_ns);
	put64(h + 120, in->created_ns);
	put64(h + 128, in->ranges[0]);
	put64(h + 136, in->ranges[1]);
	put32(h + 144, in->nsources);
	put32(h + 148, in->sources_bytes);
	put64(h + 152, in->file_bytes);
	memcpy(h + SAVEFILE_WRITER_AT, in->writer, SAVEFILE_WRITER_BYTES);
}

/*
 * What a file written now says of itself: format version 2, its header's
 * length, and this bloomxdp's version as its writer, at most 31 characters,
 * any that is not printable ASCII written as '?' (never a file its own
 * reader refuses), the rest NUL.
 */
static void set_writer(struct savefile_info *in)
{
	const char *v = bloomxdp_version();
	size_t i;

	in->version = SAVEFILE_VERSION;
	in->header_bytes = SAVEFILE_HEADER_BYTES;
	memset(in->writer, 0, sizeof(in->writer));
	for (i = 0; v[i] && i < SAVEFILE_WRITER_BYTES - 1; i++)
		in->writer[i] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
	if (!i)
		in->writer[0] = '?';
}

/* The writer of a version 2 header: 1 to 31 printable characters, NUL, NUL padding. */
static bool writer_ok(const __u8 w[SAVEFILE_WRITER_BYTES])
{
	size_t i, len;

	for (len = 0; len < SAVEFILE_WRITER_BYTES && w[len]; len++)
		if (w[len] < 0x20 || w[len] >= 0x7f)
			return false;
	if (!len || len == SAVEFILE_WRITER_BYTES)
		return false;
	for (i = len; i < SAVEFILE_WRITER_BYTES; i++)
		if (w[i])
			return false;
	return true;
}

/* What a range of a family takes in the file. */
static __u64 range_bytes(int fam)
{
	return fam ? 32 : 8;
}

/* The file's size by its header: every count bounded first, so that nothing overflows. */
static __u64 expected_bytes(const struct savefile_info *in)
{
	return (__u64)in->header_bytes + in->bits / 8 + in->ranges[0] * range_bytes(0) +
	       in->ranges[1] * range_bytes(1) + in->sources_bytes + SAVEFILE_TRAILER_BYTES;
}

/* A lengths word: the intervals' mark, or distinct lengths longest first, then none. */
static bool lengths_ok(__u64 word, __u32 width, __u64 nranges)
{
	__u32 i, len, prev = 256;
	bool ended = false;

	if (BLOOMXDP_IS_RANGES_WORD(word))
		return word == BLOOMXDP_RANGES_WORD && nranges;
	if (nranges)
		return false;
	for (i = 0; i < BLOOMXDP_MAX_PREFIX_LENGTHS; i++) {
		len = (word >> (8 * i)) & 0xff;
		if (len == BLOOMXDP_NO_LENGTH) {
			ended = true;
			continue;
		}
		if (ended || len > width || len >= prev)
			return false;
		prev = len;
	}
	return true;
}

#define WHY(...) (snprintf(why, why_len, __VA_ARGS__), -EINVAL)

/* entries and capacity: the bound of a count on the command line. */
#define SAVEFILE_MAX_COUNT ((__u64)COUNT_MAX)

/*
 * fpr_ppb, capacity, keys and entries: each bounded, and the first two held to
 * the filter's m and k. A load sizes m for capacity keys at the target FPR
 * (bloom_plan_compute_layout_k()), so m is at least that plan's (a tenth of a
 * percent of slack: generation 0 is sized from the rate before its rounding to
 * ppb) and at most the plan for 2^-20 of the target (sizing per probe divides
 * the target by the probes of a packet, far fewer). A generation holds at most
 * capacity distinct keys (load sizes it so, add refuses past it); its count of
 * keys may count keys added twice, up to twice that.
 */
static int counts_ok(const struct savefile_info *in, char *why, size_t why_len)
{
	struct bloom_plan lo, hi;
	double fpr;

	if (!in->fpr_ppb || in->fpr_ppb >= BLOOMXDP_PPB)
		return WHY("corrupted: fpr_ppb %llu, not a rate between 0 and 1",
			   (unsigned long long)in->fpr_ppb);
	if (!in->capacity || in->capacity > SAVEFILE_MAX_COUNT)
		return WHY("corrupted: capacity %llu keys", (unsigned long long)in->capacity);
	fpr = (double)in->fpr_ppb / BLOOMXDP_PPB;
	if (bloom_plan_compute_layout_k(in->capacity, fmin(fpr * 1.001, 0.999), in->layout,
					in->hashes, &lo) ||
	    bloom_plan_compute_layout_k(in->capacity, fpr / (1 << 20), in->layout, in->hashes,
					&hi))
		return WHY("corrupted: capacity %llu keys at fpr_ppb %llu makes no filter",
			   (unsigned long long)in->capacity, (unsigned long long)in->fpr_ppb);
	if (in->bits < lo.bits || in->bits > hi.bits)
		return WHY("corrupted: capacity %llu keys at fpr_ppb %llu (FPR %g) with k = %u "
			   "needs %llu to %llu bits, and the filter has m = %llu",
			   (unsigned long long)in->capacity, (unsigned long long)in->fpr_ppb, fpr,
			   in->hashes, (unsigned long long)lo.bits, (unsigned long long)hi.bits,
			   (unsigned long long)in->bits);
	if (in->keys > 2 * in->capacity)
		return WHY("corrupted: keys %llu, more than twice the capacity of %llu the filter "
			   "is sized for", (unsigned long long)in->keys,
			   (unsigned long long)in->capacity);
	if (in->entries > SAVEFILE_MAX_COUNT)
		return WHY("corrupted: entries %llu, over %llu", (unsigned long long)in->entries,
			   (unsigned long long)SAVEFILE_MAX_COUNT);
	return 0;
}

/*
 * The first SAVEFILE_V1_HEADER_BYTES of a file: its magic, its format version
 * (1 or 2) and the one header length of that version, into in->header_bytes.
 */
static int decode_start(const __u8 h[SAVEFILE_V1_HEADER_BYTES], struct savefile_info *in,
			char *why, size_t why_len)
{
	__u32 want;

	if (memcmp(h, SAVEFILE_MAGIC, 8))
		return WHY("not a file of 'bloomxdp save' (no " SAVEFILE_MAGIC " at its start)");
	in->version = get32(h + 8);
	if (in->version != SAVEFILE_VERSION && in->version != SAVEFILE_V1_VERSION)
		return WHY("format version %u, and this bloomxdp (%s) reads versions %u and %u "
			   "only: restore it with the bloomxdp that saved it, or save it again "
			   "with this one", in->version, bloomxdp_version(), SAVEFILE_V1_VERSION,
			   SAVEFILE_VERSION);
	in->header_bytes = get32(h + 12);
	want = in->version == SAVEFILE_VERSION ? SAVEFILE_HEADER_BYTES : SAVEFILE_V1_HEADER_BYTES;
	if (in->header_bytes != want)
		return WHY("corrupted: a header of %u bytes, and format version %u has %u",
			   in->header_bytes, in->version, want);
	return 0;
}

/* After decode_start(): the whole header (in->header_bytes of h), each field checked. */
static int decode_header(const __u8 h[SAVEFILE_HEADER_BYTES], __u64 size,
			 struct savefile_info *in, char *why, size_t why_len)
{
	const __u64 kinds = BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS | BLOOMXDP_HAS_IPV4 |
			    BLOOMXDP_HAS_IPV6 | BLOOMXDP_HAS_URL_DEPTHS;
	const struct layout_ops *ops;
	int ret;

	memset(in->writer, 0, sizeof(in->writer));
	if (in->version == SAVEFILE_VERSION) {
		if (!writer_ok(h + SAVEFILE_WRITER_AT))
			return WHY("corrupted: the version of bloomxdp that wrote it (bytes %u to "
				   "%u) is not 1 to %u printable characters padded with NUL",
				   SAVEFILE_WRITER_AT,
				   SAVEFILE_WRITER_AT + SAVEFILE_WRITER_BYTES - 1,
				   SAVEFILE_WRITER_BYTES - 1);
		memcpy(in->writer, h + SAVEFILE_WRITER_AT, SAVEFILE_WRITER_BYTES);
	}
	in->layout = get32(h + 16);
	in->hashes = get32(h + 20);
	in->bits = get64(h + 24);
	in->kinds = get64(h + 32);
	in->lengths[0] = get64(h + 40);
	in->lengths[1] = get64(h + 48);
	in->hash_key[0] = get64(h + 56);
	in->hash_key[1] = get64(h + 64);
	in->fpr_ppb = get64(h + 72);
	in->entries = get64(h + 80);
	in->keys = get64(h + 88);
	in->capacity = get64(h + 96);
	in->generation = get64(h + 104);
	in->loaded_at_ns = get64(h + 112);
	in->created_ns = get64(h + 120);
	in->ranges[0] = get64(h + 128);
	in->ranges[1] = get64(h + 136);
	in->nsources = get32(h + 144);
	in->sources_bytes = get32(h + 148);
	in->file_bytes = get64(h + 152);

	ops = layout_get(in->layout);
	if (!ops || !ops->readable)
		return WHY("corrupted: layout %u is not one a filter is saved in", in->layout);
	if (!in->hashes || in->hashes > BLOOMXDP_MAX_HASHES)
		return WHY("corrupted: k = %u hashes", in->hashes);
	if (!in->bits || in->bits > BLOOMXDP_MAX_BITS ||
	    in->bits % (in->layout == BLOOMXDP_LAYOUT_BLOCKED ? BLOOMXDP_BLOCK_BITS :
			BLOOMXDP_WORD_BITS))
		return WHY("corrupted: m = %llu bits", (unsigned long long)in->bits);
	if (in->kinds & ~kinds)
		return WHY("corrupted: unknown kinds of keys 0x%llx",
			   (unsigned long long)(in->kinds & ~kinds));
	ret = counts_ok(in, why, why_len);
	if (ret)
		return ret;
	/* At most 2^31 disjoint, unmerged IPv4 intervals; IPv6 bounded by the file's size too. */
	if (in->ranges[0] > (1ULL << 31) || in->ranges[1] > (1ULL << 40))
		return WHY("corrupted: %llu and %llu intervals", (unsigned long long)in->ranges[0],
			   (unsigned long long)in->ranges[1]);
	if (!lengths_ok(in->lengths[0], 32, in->ranges[0]) ||
	    !lengths_ok(in->lengths[1], 128, in->ranges[1]))
		return WHY("corrupted: prefix lengths 0x%016llx and 0x%016llx do not fit %llu and "
			   "%llu intervals", (unsigned long long)in->lengths[0],
			   (unsigned long long)in->lengths[1], (unsigned long long)in->ranges[0],
			   (unsigned long long)in->ranges[1]);
	if (in->nsources > SAVEFILE_MAX_SOURCES || in->sources_bytes > SAVEFILE_MAX_SOURCE_BYTES ||
	    (__u64)in->nsources * 34 > in->sources_bytes)
		return WHY("corrupted: %u sources in %u bytes", in->nsources, in->sources_bytes);
	if (in->file_bytes != expected_bytes(in) || size != in->file_bytes)
		return WHY("%s: %llu bytes where its header says %llu (and its fields %llu)",
			   size < in->file_bytes ? "truncated" : "corrupted",
			   (unsigned long long)size, (unsigned long long)in->file_bytes,
			   (unsigned long long)expected_bytes(in));
	return 0;
}

/* A file read in order, summed as it goes. */
struct reader {
	int fd;
	__u32 crc;
};

static int read_exact(struct reader *r, void *buf, size_t len, char *why, size_t why_len)
{
	__u8 *p = buf;
	ssize_t n;

	while (len) {
		n = read(r->fd, p, len > CHUNK ? CHUNK : len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_len, "read failed: %s", strerror(errno));
			return -errno;
		}
		if (!n)
			return WHY("truncated");
		r->crc = savefile_crc32c(r->crc, p, n);
		p += n;
		len -= n;
	}
	return 0;
}

/* The intervals of a family, checked: each first <= last, sorted, disjoint. */
static int read_ranges(struct reader *r, int fam, __u64 n, struct range_set *s, char *why,
		       size_t why_len)
{
	__u8 buf[32 * 256];
	__u64 i, j, batch;
	range_addr first, last;
	int ret;

	s->r = calloc(n ? n : 1, sizeof(*s->r));
	if (!s->r) {
		snprintf(why, why_len, "no memory for %llu intervals", (unsigned long long)n);
		return -ENOMEM;
	}
	s->cap = n;
	for (i = 0; i < n; i += batch) {
		batch = n - i > 256 ? 256 : n - i;
		ret = read_exact(r, buf, batch * range_bytes(fam), why, why_len);
		if (ret)
			return ret;
		for (j = 0; j < batch; j++) {
			const __u8 *p = buf + j * range_bytes(fam);

			if (fam) {
				first = (range_addr)get64(p) << 64 | get64(p + 8);
				last = (range_addr)get64(p + 16) << 64 | get64(p + 24);
			} else {
				first = get32(p);
				last = get32(p + 4);
			}
			if (first > last || (s->n && s->r[s->n - 1].end >= first))
				return WHY("corrupted: IPv%d interval %llu out of order",
					   fam ? 6 : 4, (unsigned long long)(i + j));
			s->r[s->n].start = first;
			s->r[s->n].end = last;
			s->n++;
		}
	}
	return 0;
}

static int read_sources(struct reader *r, const struct savefile_info *in, char *why,
			size_t why_len)
{
	__u8 *buf, *p, *end;
	__u32 i, len;
	int ret;

	buf = malloc(in->sources_bytes + 1);
	if (!buf)
		return -ENOMEM;
	ret = read_exact(r, buf, in->sources_bytes, why, why_len);
	p = buf;
	end = buf + in->sources_bytes;
	for (i = 0; !ret && i < in->nsources; i++) {
		if (end - p < 34) {
			ret = WHY("corrupted: source %u cut short", i);
			break;
		}
		len = p[32] | p[33] << 8;
		p += 34;
		if ((size_t)(end - p) < len || memchr(p, 0, len))
			ret = WHY("corrupted: the name of source %u", i);
		p += len;
	}
	if (!ret && p != end)
		ret = WHY("corrupted: %zu bytes after the sources", (size_t)(end - p));
	free(buf);
	return ret;
}

/*
 * The file after its header: the bits into words (the filter's array, after
 * its header words; NULL: read and dropped), the intervals into s, then
 * the sources and the checksum.
 */
static int read_body(struct reader *r, const struct savefile_info *in, __u64 *words,
		     struct range_set s[2], char *why, size_t why_len)
{
	__u64 nwords = in->bits / BLOOMXDP_WORD_BITS, i, batch, *scratch = NULL;
	__u8 trailer[SAVEFILE_TRAILER_BYTES + 1];
	__u32 crc;
	int ret = 0, fam;
	ssize_t n;

	if (!words) {
		scratch = malloc(CHUNK);
		if (!scratch)
			return -ENOMEM;
	}
	for (i = 0; i < nwords && !ret; i += batch) {
		batch = nwords - i > CHUNK / 8 ? CHUNK / 8 : nwords - i;
		ret = read_exact(r, words ? words + i : scratch, batch * 8, why, why_len);
	}
	free(scratch);
	for (i = 0; words && !ret && i < nwords; i++)
		words[i] = le64toh(words[i]);
	for (fam = 0; fam < 2 && !ret; fam++)
		ret = read_ranges(r, fam, in->ranges[fam], &s[fam], why, why_len);
	if (!ret)
		ret = read_sources(r, in, why, why_len);
	if (ret)
		return ret;
	crc = r->crc;
	ret = read_exact(r, trailer, SAVEFILE_TRAILER_BYTES, why, why_len);
	if (ret)
		return ret;
	if (get32(trailer) != crc)
		return WHY("corrupted: checksum %08x, computed %08x", get32(trailer), crc);
	n = read(r->fd, trailer, 1);
	if (n != 0)
		return WHY("corrupted: it goes on after its checksum");
	return 0;
}

/*
 * Version 1's header, then the rest of the file's own header (its length
 * bounded by decode_start()), decoded; the body is next.
 */
static int read_header(struct reader *r, __u64 size, struct savefile_info *in, char *why,
		       size_t why_len)
{
	__u8 h[SAVEFILE_HEADER_BYTES];
	int ret;

	_Static_assert(SAVEFILE_V1_HEADER_BYTES <= SAVEFILE_HEADER_BYTES &&
		       SAVEFILE_WRITER_AT + SAVEFILE_WRITER_BYTES <= SAVEFILE_HEADER_BYTES,
		       "version 2's header holds version 1's and the writer");
	ret = read_exact(r, h, SAVEFILE_V1_HEADER_BYTES, why, why_len);
	if (!ret) {
		ret = decode_start(h, in, why, why_len);
		if (ret)
			return ret;
		ret = read_exact(r, h + SAVEFILE_V1_HEADER_BYTES,
				 in->header_bytes - SAVEFILE_V1_HEADER_BYTES, why, why_len);
	}
	/* read_exact(): -EINVAL is the end of the file. */
	if (ret == -EINVAL)
		return WHY("truncated: %llu bytes, shorter than a header",
			   (unsigned long long)size);
	if (!ret)
		ret = decode_header(h, size, in, why, why_len);
	return ret;
}

/* Opens and decodes a file's header; the body is next. Returns the fd. */
static int open_file(const char *path, struct reader *r, struct savefile_info *in, char *why,
		     size_t why_len)
{
	struct stat st;
	int ret;

	r->crc = 0;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		snprintf(why, why_len, "cannot open: %s", strerror(errno));
		return ret;
	}
	if (fstat(r->fd, &st)) {
		ret = -errno;
		snprintf(why, why_len, "cannot stat: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = WHY("not a regular file");
	} else {
		ret = read_header(r, st.st_size, in, why, why_len);
	}
	if (ret) {
		close(r->fd);
		r->fd = -1;
	}
	return ret;
}

int savefile_read_header(const char *path, struct savefile_info *info, char *why, size_t why_len)
{
	struct reader r;
	int ret;

	ret = open_file(path, &r, info, why, why_len);
	if (!ret)
		close(r.fd);
	return ret;
}

int savefile_check(const char *path, struct savefile_info *info, char *why, size_t why_len)
{
	struct range_set s[2];
	struct reader r;
	int ret;

	range_set_init(&s[0], BLOOMXDP_KEY_IPV4);
	range_set_init(&s[1], BLOOMXDP_KEY_IPV6);
	ret = open_file(path, &r, info, why, why_len);
	if (ret)
		return ret;
	ret = read_body(&r, info, NULL, s, why, why_len);
	close(r.fd);
	range_set_free(&s[0]);
	range_set_free(&s[1]);
	return ret;
}

/* ------------------------------------------------------------------ save */

struct writer {
	int fd;
	__u32 crc;
	__u8 *buf;
	size_t used;
	int err;
};

static void wflush(struct writer *w)
{
	size_t off = 0;
	ssize_t n;

	while (!w->err && off < w->used) {
		n = write(w->fd, w->buf + off, w->used - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			w->err = -errno;
		else
			off += n;
	}
	w->used = 0;
}

static void wput(struct writer *w, const void *data, size_t len)
{
	const __u8 *p = data;
	size_t n;

	w->crc = savefile_crc32c(w->crc, data, len);
	while (len) {
		if (w->used == CHUNK)
			wflush(w);
		n = len < CHUNK - w->used ? len : CHUNK - w->used;
		memcpy(w->buf + w->used, p, n);
		w->used += n;
		p += n;
		len -= n;
	}
}

static void wput64(struct writer *w, __u64 v)
{
	__u8 b[8];

	put64(b, v);
	wput(w, b, 8);
}

static void write_file(struct writer *w, const struct savefile_info *in, const __u64 *words,
		       const struct range_set s[2], const struct savefile_source *src)
{
	__u8 h[SAVEFILE_HEADER_BYTES], b[8];
	__u64 i;
	__u32 j;
	size_t len;

	encode_header(in, h);
	wput(w, h, sizeof(h));
	for (i = 0; i < in->bits / BLOOMXDP_WORD_BITS; i++)
		wput64(w, __atomic_load_n(&words[i], __ATOMIC_RELAXED));
	for (i = 0; i < s[0].n; i++) {
		put32(b, s[0].r[i].start);
		put32(b + 4, s[0].r[i].end);
		wput(w, b, 8);
	}
	for (i = 0; i < s[1].n; i++) {
		wput64(w, s[1].r[i].start >> 64);
		wput64(w, (__u64)s[1].r[i].start);
		wput64(w, s[1].r[i].end >> 64);
		wput64(w, (__u64)s[1].r[i].end);
	}
	for (j = 0; j < in->nsources; j++) {
		len = strlen(src[j].name);
		wput(w, src[j].sha256, 32);
		b[0] = len & 0xff;
		b[1] = len >> 8;
		wput(w, b, 2);
		wput(w, src[j].name, len);
	}
	put32(b, w->crc);
	/* The checksum is not part of what it sums. */
	if (w->used + 4 > CHUNK)
		wflush(w);
	memcpy(w->buf + w->used, b, 4);
	w->used += 4;
	wflush(w);
}

/* path's directory, synced so that the rename survives a crash. */
static void sync_dir(const char *path)
{
	char copy[PATH_MAX];
	int fd;

	snprintf(copy, sizeof(copy), "%s", path);
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int write_atomically(const char *path, const struct savefile_info *in, const __u64 *words,
			    const struct range_set s[2], const struct savefile_source *src)
{
	struct writer w = { .fd = -1 };
	char tmp[PATH_MAX];
	int ret;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	w.buf = malloc(CHUNK);
	if (!w.buf)
		return -ENOMEM;
	/* mkstemp makes it 0600: the key is never readable by others, not even for a moment. */
	w.fd = mkstemp(tmp);
	if (w.fd < 0) {
		ret = -errno;
		free(w.buf);
		return ret;
	}
	write_file(&w, in, words, s, src);
	ret = w.err;
	if (!ret && (fchmod(w.fd, 0600) || fsync(w.fd)))
		ret = -errno;
	if (close(w.fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	else
		sync_dir(path);
	free(w.buf);
	return ret;
}

int savefile_write_filter(const char *path, const struct filter *f, const struct range_set *s,
			  const struct savefile_info *meta)
{
	struct savefile_info in = *meta;
	struct range_set use[2] = { { .family = BLOOMXDP_KEY_IPV4 }, { .family = BLOOMXDP_KEY_IPV6 } };
	struct timespec now;
	int fam;

	in.layout = f->layout;
	in.hashes = f->hashes;
	in.bits = f->bits;
	in.kinds = filter_header(f);
	in.lengths[0] = filter_header_word(f, BLOOMXDP_HDR_V4_LENGTHS);
	in.lengths[1] = filter_header_word(f, BLOOMXDP_HDR_V6_LENGTHS);
	memcpy(in.hash_key, f->hash_key, sizeof(in.hash_key));
	/* Only the families held in intervals: a build keeps others' sets half made. */
	for (fam = 0; fam < 2; fam++) {
		if (BLOOMXDP_IS_RANGES_WORD(in.lengths[fam]))
			use[fam] = s[fam];
		in.ranges[fam] = use[fam].n;
	}
	in.nsources = 0;
	in.sources_bytes = 0;
	set_writer(&in);
	clock_gettime(CLOCK_REALTIME, &now);
	in.created_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	in.file_bytes = expected_bytes(&in);
	return write_atomically(path, &in, f->words + BLOOMXDP_HDR_WORDS, use, NULL);
}

int savefile_save(const struct attachment *att, const char *path,
		  const struct savefile_source *sources, size_t nsources, struct save_result *r)
{
	struct live_filter lf = { .f = { .map_fd = -1, .kbloom_fd = -1 } };
	struct savefile_info in = {};
	struct range_set s[2];
	struct timespec now;
	size_t i, bytes = 0;
	int ret, fam;

	memset(r, 0, sizeof(*r));
	snprintf(r->ifname, sizeof(r->ifname), "%s", att->ifname);
	r->path = path;
	exact_set_init(&lf.exact);
	range_set_init(&s[0], BLOOMXDP_KEY_IPV4);
	range_set_init(&s[1], BLOOMXDP_KEY_IPV6);
	if (!layout_get(att->config.layout) || !layout_get(att->config.layout)->readable) {
		log_error("%s uses layout %s (BPF_MAP_TYPE_BLOOM_FILTER), whose bits the kernel "
			  "does not let user space read: it cannot be saved; keep its source "
			  "lists to load them again, or attach with --layout blocked or bits",
			  att->ifname, layout_name(att->config.layout));
		return -EOPNOTSUPP;
	}
	for (i = 0; i < nsources && i <= SAVEFILE_MAX_SOURCES; i++) {
		if (strlen(sources[i].name) > PATH_MAX)
			break;
		bytes += 34 + strlen(sources[i].name);
	}
	if (i < nsources || bytes > SAVEFILE_MAX_SOURCE_BYTES) {
		log_error("too many sources, or too long a name, to record (%zu): nothing was "
			  "saved", nsources);
		return -E2BIG;
	}
	ret = live_filter_open(att, false, &lf);
	if (ret) {
		log_error("cannot read the live filter of %s: %s; nothing was saved", att->ifname,
			  strerror(-ret));
		goto cleanup;
	}
	in.layout = att->config.layout;
	in.hashes = att->config.hashes;
	in.bits = lf.f.bits;
	in.kinds = filter_header(&lf.f);
	in.lengths[0] = filter_header_word(&lf.f, BLOOMXDP_HDR_V4_LENGTHS);
	in.lengths[1] = filter_header_word(&lf.f, BLOOMXDP_HDR_V6_LENGTHS);
	memcpy(in.hash_key, att->config.hash_key, sizeof(in.hash_key));
	in.fpr_ppb = att->config.fpr_ppb;
	in.entries = lf.st.entries;
	in.keys = lf.st.keys;
	in.capacity = lf.st.capacity;
	in.generation = lf.st.generation;
	in.loaded_at_ns = lf.st.loaded_at_ns;
	clock_gettime(CLOCK_REALTIME, &now);
	in.created_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	for (fam = 0; fam < 2; fam++) {
		if (!BLOOMXDP_IS_RANGES_WORD(in.lengths[fam]))
			continue;
		ret = range_set_open(fam ? att->ranges_v6_fd : att->ranges_v4_fd, lf.slot,
				     fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4, &s[fam]);
		if (ret) {
			log_error("cannot read the live IPv%d intervals of %s: %s; nothing was "
				  "saved", fam ? 6 : 4, att->ifname, strerror(-ret));
			goto cleanup;
		}
		in.ranges[fam] = s[fam].n;
	}
	in.nsources = nsources;
	in.sources_bytes = bytes;
	set_writer(&in);
	in.file_bytes = expected_bytes(&in);
	ret = write_atomically(path, &in, lf.f.words + BLOOMXDP_HDR_WORDS, s, sources);
	if (ret) {
		log_error("cannot write %s: %s; nothing was saved", path, strerror(-ret));
		goto cleanup;
	}
	r->saved = true;
	r->entries = in.entries;
	r->keys = in.keys;
	r->bytes = in.file_bytes;
	memcpy(r->saved_by, in.writer, sizeof(r->saved_by));
cleanup:
	live_filter_close(&lf);
	range_set_free(&s[0]);
	range_set_free(&s[1]);
	return ret;
}

/* --------------------------------------------------------------- restore */

/* What keeps a file from att: a one-line reason, and what to do. */
static int check_fits(const struct attachment *att, const struct savefile_info *in, bool any_key,
		      char *why, size_t why_len)
{
	__u32 which = BLOOMXDP_ACTIVE_ALLOW, allow = 0;

	if (in->layout != att->config.layout)
		return WHY("saved with layout %s, and %s has %s: attach it with --layout %s (and "
			   "the same --fpr) to restore this file", layout_name(in->layout),
			   att->ifname, layout_name(att->config.layout), layout_name(in->layout));
	if (in->hashes != att->config.hashes)
		return WHY("saved with k = %u hashes, and %s probes %u: attach it with the file's "
			   "--fpr (%g) to restore it", in->hashes, att->ifname,
			   att->config.hashes, (double)in->fpr_ppb / BLOOMXDP_PPB);
	if (memcmp(in->hash_key, att->config.hash_key, sizeof(in->hash_key)) && any_key) {
		/* The allowlist's names are keys of the live hash key: they would no longer match. */
		if (bpf_map_lookup_elem(att->active_fd, &which, &allow))
			return WHY("cannot read the allowlist's word of %s: %s", att->ifname,
				   strerror(errno));
		if (allow & BLOOMXDP_ALLOW_HAS_NAMES)
			return WHY("saved with another hash key, and the allowlist of %s holds "
				   "names made with its own key: detach %s, then 'bloomxdp restore "
				   "%s --file FILE' attaches with the file's key (and 'load --allow' "
				   "the allowlist again)", att->ifname, att->ifname, att->ifname);
		return 0;
	}
	if (memcmp(in->hash_key, att->config.hash_key, sizeof(in->hash_key)))
		return WHY("saved from another attachment: its hash key is not %s's, and a "
			   "filter answers only with the key it was made with (each attach draws "
			   "a new one): detach %s, then 'bloomxdp restore %s --file FILE' attaches "
			   "with the file's key; or load the source lists", att->ifname, att->ifname,
			   att->ifname);
	return 0;
}

/* The new program's active array: the live words, the block's at slot, no named list. */
static int rekeyed_active(const struct attachment *att, int active_fd, __u32 slot,
			  __u32 *named_was)
{
	__u32 i, word;

	for (i = 0; i < BLOOMXDP_ACTIVE_SLOTS; i++) {
		if (bpf_map_lookup_elem(att->active_fd, &i, &word))
			return -errno;
		if (i == BLOOMXDP_ACTIVE_BLOCK)
			word = slot;
		/* As named_lists_suspend(): their exact keys are of the old hash key. */
		if (i == BLOOMXDP_ACTIVE_LISTS) {
			*named_was = word;
			word = 0;
		}
		if (bpf_map_update_elem(active_fd, &i, &word, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * The swap of a generation of another hash key, in place. The key is in the
 * program's frozen configuration and the live slot in the active array both
 * programs would share: a program with the file's key and an active array of
 * its own, naming the new slot, goes in by one link update, as attach --force
 * replaces a program. A packet sees the old key and filter, or the new ones,
 * never a mix; every other map (counters, allowlist, state) carries over. Then
 * the pins follow, and the old slot is emptied once no packet reads it.
 */
static int swap_rekeyed(struct attachment *att, __u32 slot, const __u64 key[2], const int *outers,
			int n, __u32 *named_was)
{
	struct loaded_prog lp = { .skel = NULL };
	struct bloomxdp_config cfg = att->config;
	int link_fd = -1, active_fd, ret;
	struct attachment live;

	memcpy(cfg.hash_key, key, sizeof(cfg.hash_key));
	ret = loader_load_own_active(&cfg, att, &lp);
	if (ret)
		return ret;
	/* The public suffixes keyed with the file's key too, before its program runs. */
	ret = suffix_map_fill(att->suffixes_fd, key);
	ret = ret == -ENOENT ? 0 : ret;
	if (ret < 0) {
		log_error("cannot key the public suffixes of %s with the saved filter's key: %s; "
			  "the live list is unchanged", att->ifname, strerror(-ret));
		goto cleanup;
	}
	ret = 0;
	active_fd = bpf_map__fd(lp.skel->maps.active);
	ret = rekeyed_active(att, active_fd, slot, named_was);
	if (!ret) {
		link_fd = pin_get(att->dir_fd, BLOOMXDP_PIN_LINK);
		ret = link_fd < 0 ? link_fd : 0;
	}
	if (!ret && bpf_link_update(link_fd, loader_prog_fd(&lp), NULL))
		ret = -errno;
	if (ret) {
		log_error("cannot swap in the program with the saved filter's key: %s; the live "
			  "list is unchanged", strerror(-ret));
		goto cleanup;
	}
	ret = attachment_repin_program(att, lp.skel);
	if (!ret)
		ret = attachment_repin_active(att, lp.skel);
	if (ret) {
		log_error("%s filters with the saved filter and its key, but its pins could not "
			  "follow: %s; 'bloomxdp detach %s', then 'bloomxdp restore %s --file "
			  "FILE'", att->ifname, strerror(-ret), att->ifname, att->ifname);
		goto cleanup;
	}
	/* The same word again: it returns once no packet reads the old slot, then emptied. */
	live = *att;
	live.active_fd = active_fd;
	attachment_flip(&live, BLOOMXDP_ACTIVE_BLOCK, slot, 0, outers, n);
	memcpy(att->config.hash_key, key, sizeof(att->config.hash_key));
	/* No packet reads with the old key now: its public suffixes go. */
	if (suffix_map_prune(att->suffixes_fd, key))
		log_warn("%s: the public suffixes of its old hash key could not be removed; "
			 "they match nothing now", att->ifname);
	close(att->active_fd);
	att->active_fd = dup(active_fd);
cleanup:
	if (link_fd >= 0)
		close(link_fd);
	loader_close(&lp);
	return ret;
}

/* Held to the attachment's limit, as a load is: checked before anything is allocated. */
static int check_memory(const struct attachment *att, const struct bloomxdp_state *st,
			const struct savefile_info *in, char *why, size_t why_len)
{
	__u64 max_memory = st->max_memory ? st->max_memory : default_max_memory(), need;

	need = in->bits / 8 + BLOOMXDP_HDR_WORDS * 8 +
	       range_set_bytes(BLOOMXDP_KEY_IPV4, in->ranges[0]) +
	       range_set_bytes(BLOOMXDP_KEY_IPV6, in->ranges[1]);
	if (need <= max_memory)
		return 0;
	snprintf(why, why_len, "its filter and intervals take %llu bytes, over the --max-memory "
		 "%llu of %s: attach it with --max-memory %llu or more", (unsigned long long)need,
		 (unsigned long long)max_memory, att->ifname, (unsigned long long)need);
	return -E2BIG;
}

/* A saved filter on its way in: the file, read and checked into a new generation. */
struct saved {
	struct attachment *att;
	const char *path;
	struct reader r;
	struct savefile_info in;
	struct filter f;
	struct range_set s[2];
	int range_fds[2];
	struct bloomxdp_state st;	/* the live generation's */
	__u32 slot;
	bool rekey;			/* of another hash key than the live one */
	/* The flip (generation.flip): said when it said its error. */
	bool said;
	__u32 named_was;
};

/*
 * The file into a new filter and intervals: refused (said, why) when it does
 * not fit the attachment or its checks, before anything is live.
 */
static int saved_read(struct saved *x, bool any_key)
{
	struct attachment *att = x->att;
	struct bloomxdp_config cfg;
	struct bloom_plan plan = {};
	char why[512];
	int ret;

	ret = open_file(x->path, &x->r, &x->in, why, sizeof(why));
	if (!ret)
		ret = check_fits(att, &x->in, any_key, why, sizeof(why));
	if (!ret)
		ret = check_memory(att, &x->st, &x->in, why, sizeof(why));
	if (ret)
		goto refused;
	plan.capacity = x->in.capacity;
	plan.bits = x->in.bits;
	plan.hashes = x->in.hashes;
	plan.layout = x->in.layout;
	plan.fpr = (double)x->in.fpr_ppb / BLOOMXDP_PPB;
	/* The file's key: the live one, or (any_key) the one its program will have. */
	x->rekey = memcmp(x->in.hash_key, att->config.hash_key, sizeof(x->in.hash_key)) != 0;
	cfg = att->config;
	memcpy(cfg.hash_key, x->in.hash_key, sizeof(cfg.hash_key));
	ret = filter_create_plan(&cfg, &plan, &x->f);
	if (ret) {
		log_error("cannot create a filter of %llu bits for %s: %s; the live list is "
			  "unchanged", (unsigned long long)x->in.bits, att->ifname, strerror(-ret));
		return ret;
	}
	ret = read_body(&x->r, &x->in, x->f.words + BLOOMXDP_HDR_WORDS, x->s, why, sizeof(why));
	if (ret)
		goto refused;
	/* The header words after the bits, as a load publishes them. */
	filter_header_word_set(&x->f, BLOOMXDP_HDR_V4_LENGTHS, x->in.lengths[0]);
	filter_header_word_set(&x->f, BLOOMXDP_HDR_V6_LENGTHS, x->in.lengths[1]);
	filter_header_word_set(&x->f, BLOOMXDP_HDR_KINDS, x->in.kinds);
	return 0;
refused:
	log_error("%s: %s; the live list of %s is unchanged", x->path, why, att->ifname);
	return ret;
}

/* The intervals of the families the file (and extra) hold, as maps. */
static int saved_ranges(struct saved *x)
{
	int fam;

	for (fam = 0; fam < 2; fam++) {
		if (!x->s[fam].n)
			continue;
		x->range_fds[fam] = range_set_create_map(&x->s[fam]);
		if (x->range_fds[fam] < 0) {
			log_error("cannot create the IPv%d intervals of %s: %s; the live list is "
				  "unchanged", fam ? 6 : 4, x->att->ifname,
				  strerror(-x->range_fds[fam]));
			return x->range_fds[fam];
		}
	}
	return 0;
}

/*
 * generation.flip of a saved filter: of the live key, the active word flipped
 * with the named lists suspended (a saved filter holds none); of another, the
 * program replaced in place with the file's key (swap_rekeyed()).
 */
static int saved_flip(void *ctx, __u32 slot, const int *outers, int n)
{
	struct saved *x = ctx;
	int ret;

	if (x->rekey) {
		x->said = true;
		return swap_rekeyed(x->att, slot, x->in.hash_key, outers, n, &x->named_was);
	}
	ret = named_lists_suspend(x->att, &x->named_was);
	if (ret)
		return ret;
	ret = attachment_flip(x->att, BLOOMXDP_ACTIVE_BLOCK, slot, 0, outers, n);
	if (ret)
		named_lists_resume(x->att, x->named_was);
	return ret;
}

/* The new generation swapped in, as a load's is. */
static int saved_swap(struct saved *x)
{
	/* A saved filter has no entries: a public suffix hit drops nothing (docs/design.md). */
	struct generation g = {
		.f = &x->f, .range_fds = { x->range_fds[0], x->range_fds[1] },
		.flip = saved_flip, .ctx = x,
	};
	struct bloomxdp_state st = x->st;
	__u32 slot;
	int ret;

	st.entries = x->in.entries;
	st.keys = x->in.keys;
	st.capacity = x->in.capacity;
	/* st.max_memory stays the attachment's. */
	st.exact_keys = st.exact_bytes = 0;	/* no exact copy: the generation's stage is off */
	ret = generation_swap(x->att, x->slot, &st, &g, &slot);
	if (ret && !x->said)
		log_error("cannot swap in the saved filter: %s; the live list is unchanged",
			  strerror(-ret));
	return ret;
}

static void saved_report(const struct saved *x, struct restore_result *res)
{
	if (x->named_was & BLOOMXDP_LISTS_NAMED)
		log_error("note: a saved filter holds no named lists: every hit of %s now takes "
			  "the default list's action, until a 'load --list' puts the named lists "
			  "back (from the state)", x->att->ifname);
	res->restored = true;
	res->entries = x->in.entries;
	res->keys = x->in.keys;
	res->created_ns = x->in.created_ns;
	_Static_assert(sizeof(res->saved_by) == SAVEFILE_WRITER_BYTES, "the writer, whole");
	memcpy(res->saved_by, x->in.writer, sizeof(res->saved_by));
	res->rekeyed = x->rekey;
}

static int apply(struct attachment *att, const char *path, savefile_extra_fn extra, void *ctx,
		 bool any_key, struct restore_result *res)
{
	struct saved x = { .att = att, .path = path, .r = { .fd = -1 },
			   .f = { .map_fd = -1, .kbloom_fd = -1 }, .range_fds = { -1, -1 } };
	int ret, fam;

	memset(res, 0, sizeof(*res));
	snprintf(res->ifname, sizeof(res->ifname), "%s", att->ifname);
	res->path = path;
	range_set_init(&x.s[0], BLOOMXDP_KEY_IPV4);
	range_set_init(&x.s[1], BLOOMXDP_KEY_IPV6);
	/* --verify auto: the saved filter's generation runs without an exact stage. */
	if (att->config.verify == BLOOMXDP_VERIFY_ON) {
		log_error("%s runs with --verify on, and a saved filter holds no exact copy to "
			  "confirm its hits: load the source lists instead, or attach --force "
			  "--verify auto; the live list is unchanged", att->ifname);
		return -EOPNOTSUPP;
	}
	ret = attachment_read_live(att, &x.slot, &x.st, "the live list");
	if (ret)
		return ret;
	ret = saved_read(&x, any_key);
	/* What the caller adds goes into the new generation before it is live: one swap. */
	if (!ret && extra) {
		ret = extra(&x.f, x.s, &x.in.entries, ctx);
		if (ret)
			log_error("cannot add to the filter of %s before its swap: %s; the live list "
				  "is unchanged", att->ifname, strerror(-ret));
	}
	if (!ret)
		ret = saved_ranges(&x);
	if (!ret)
		ret = saved_swap(&x);
	if (!ret) {
		saved_report(&x, res);
		warn_unmatched_kinds(&x.f, &att->config, att->ifname);
	}
	if (x.r.fd >= 0)
		close(x.r.fd);
	filter_close(&x.f);
	for (fam = 0; fam < 2; fam++) {
		range_set_free(&x.s[fam]);
		if (x.range_fds[fam] >= 0)
			close(x.range_fds[fam]);
	}
	return ret;
}

int savefile_apply(struct attachment *att, const char *path, struct restore_result *r)
{
	return apply(att, path, NULL, NULL, false, r);
}

int savefile_apply_any_key(struct attachment *att, const char *path, struct restore_result *r)
{
	return apply(att, path, NULL, NULL, true, r);
}

int savefile_apply_with(struct attachment *att, const char *path, savefile_extra_fn extra,
			void *ctx, struct restore_result *r)
{
	return apply(att, path, extra, ctx, false, r);
}
