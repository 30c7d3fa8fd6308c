/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The live blocklist generation of an attachment, saved to a file and put
 * back (bloomxdp save; restore). Format version 2, every integer
 * little-endian:
 *
 *   header (SAVEFILE_HEADER_BYTES, 192)
 *     0  magic "BXDPSAVE"            8  u32 version (2)     12 u32 header bytes (192)
 *    16  u32 layout                 20  u32 k              24 u64 m (bits)
 *    32  u64 kinds word            40  u64 IPv4 lengths    48 u64 IPv6 lengths
 *        (the filter's header words BLOOMXDP_HDR_KINDS, _V4_LENGTHS, _V6_LENGTHS)
 *    56  u64 hash key[2]           72  u64 fpr_ppb
 *    80  u64 entries               88  u64 keys            96 u64 capacity (sized for)
 *   104  u64 generation           112  u64 loaded_at_ns   120 u64 created_ns (CLOCK_REALTIME)
 *   128  u64 IPv4 intervals       136  u64 IPv6 intervals
 *   144  u32 source records       148  u32 bytes of them  152 u64 file bytes (all of it)
 *   160  char writer[32]: the version of bloomxdp that wrote the file
 *        (bloomxdp_version()), 1 to 31 printable ASCII characters, then NUL
 *        and every byte after it NUL
 *   the bit array: m / 64 words of u64
 *   the IPv4 intervals, sorted: u32 first, u32 last
 *   the IPv6 intervals, sorted: u64 first high, first low, last high, last low
 *   the sources (optional, 0 records today): each 32 bytes of SHA-256, u16 name
 *     length, the name (no NUL)
 *   u32 CRC32C of every byte before it
 *
 * Format version 1, of an older bloomxdp that did not record itself, is the
 * same without the writer: a header of 160 bytes (version 1,
 * header bytes 160), the bit array at 160. It is still read (restore, a fleet
 * node's payload); its writer reads as "" (an older bloomxdp). Each version has
 * its one header length: any other is refused as corrupted, and every offset
 * after the header is the file's own header length, never this one's.
 *
 * CRC32C rather than SHA-256: the file is protected against accidents (a
 * disk, a copy cut short), not against someone who can write it (they can
 * recompute any unkeyed digest, and the file holds the hash key anyway: its
 * mode 0600 is the protection). A CRC of degree 32 detects every error burst
 * of up to 32 bits, so every flipped byte, for certain, where a digest only
 * makes it unlikely; and it needs no library. The reader does not rely on it:
 * every field is bounded and checked on its own, the file's size must be the
 * one the header computes, the intervals sorted and disjoint.
 *
 * Layout kernel (BPF_MAP_TYPE_BLOOM_FILTER) cannot be saved: the kernel gives
 * no way to read its bits. Neither are the allowlist and the exact copy of
 * --verify (a filter cannot be restored into a --verify attachment).
 */
#ifndef BLOOMXDP_SAVEFILE_H
#define BLOOMXDP_SAVEFILE_H

#include <stddef.h>
#include <linux/types.h>

#define SAVEFILE_MAGIC		"BXDPSAVE"
#define SAVEFILE_VERSION	2
#define SAVEFILE_HEADER_BYTES	192	/* of version 2, the one written */
#define SAVEFILE_V1_VERSION	1
#define SAVEFILE_V1_HEADER_BYTES 160	/* of version 1, still read */
#define SAVEFILE_WRITER_AT	160
#define SAVEFILE_WRITER_BYTES	32	/* at most 31 characters and their NUL */
#define SAVEFILE_TRAILER_BYTES	4
/* Bounds of the optional sources: a few list files, not a second payload. */
#define SAVEFILE_MAX_SOURCES	1024
#define SAVEFILE_MAX_SOURCE_BYTES (1U << 20)

/* The header, decoded. */
struct savefile_info {
	__u32 version;
	__u32 header_bytes;	/* the file's own: where its bit array starts */
	__u32 layout;
	__u32 hashes;
	__u64 bits;
	__u64 kinds;
	__u64 lengths[2];	/* IPv4, IPv6: BLOOMXDP_HDR_V4_LENGTHS, _V6_LENGTHS */
	__u64 hash_key[2];
	__u64 fpr_ppb;
	__u64 entries;
	__u64 keys;
	__u64 capacity;
	__u64 generation;
	__u64 loaded_at_ns;
	__u64 created_ns;
	__u64 ranges[2];	/* intervals, IPv4 and IPv6 */
	__u32 nsources;
	__u32 sources_bytes;
	__u64 file_bytes;
	char writer[SAVEFILE_WRITER_BYTES];	/* bloomxdp that wrote it; "": version 1, older */
};

/* A list a generation was loaded from, as the state may record it. */
struct savefile_source {
	__u8 sha256[32];
	const char *name;
};

struct attachment;
struct restore_result;
struct save_result;

/*
 * Writes the live blocklist generation of att to path: a temporary file in
 * the same directory (mode 0600: it holds the hash key), fsync, rename, fsync
 * of the directory. The caller holds the writers' lock (attachment_open(...,
 * true, ...)), so that no add changes the filter while it is read. Says
 * the error; what it wrote into r. sources: may be NULL.
 */
int savefile_save(const struct attachment *att, const char *path,
		  const struct savefile_source *sources, size_t nsources, struct save_result *r);

struct filter;
struct range_set;
/*
 * A filter built in memory (the fleet's payload: 'publish' compiles lists
 * without an attachment) written to path as save does. meta gives fpr_ppb,
 * entries, keys, capacity and generation; the rest comes from f (its layout,
 * k, m, header words, hash key) and s (the intervals of a family whose
 * lengths word says so). -errno, nothing printed.
 */
int savefile_write_filter(const char *path, const struct filter *f, const struct range_set *s,
			  const struct savefile_info *meta);

/*
 * Swaps the filter saved in path into att as a new generation, the way load
 * does (bookkeeping written before the one-word flip). Refused, with one line
 * on stderr and the live list unchanged: a file that is not one, truncated,
 * corrupted, of another format version, of another layout or k than att, or
 * made with another hash key (a filter answers only with its own key: the
 * file is for the attachment it was saved from, or one attached with its key),
 * and any att with --verify. The caller holds the writers' lock and checks
 * afterwards that something enforces the list (attachment_check_enforced()).
 * What it restored into r (report.h). The swap is a load's (generation.h).
 */
int savefile_apply(struct attachment *att, const char *path, struct restore_result *r);

/*
 * savefile_apply(), but a file of another hash key is swapped in too (restore
 * --file on an attached interface): a program with the file's key replaces the
 * running one in place, in the same swap (a packet sees the old key and filter
 * or the new ones). Still refused: another layout or k, and an allowlist that
 * holds names (keys of the old hash key).
 */
int savefile_apply_any_key(struct attachment *att, const char *path, struct restore_result *r);

/*
 * savefile_apply() with more in the new generation: extra (if not NULL) is
 * called with its filter (the file's bits and header words in place), its
 * intervals (s[0] IPv4, s[1] IPv6: sorted and merged on return) and its entry
 * count, after the file passed every check and before anything is live, so
 * that the file and what extra adds are swapped in together (a fleet node's
 * entries in force). A negative errno from extra refuses the swap.
 */
typedef int (*savefile_extra_fn)(struct filter *f, struct range_set *s, __u64 *entries,
				 void *ctx);
int savefile_apply_with(struct attachment *att, const char *path, savefile_extra_fn extra,
			void *ctx, struct restore_result *r);

/*
 * Checks a whole file as savefile_apply() would, without an attachment, and
 * decodes its header into info. Prints nothing; on error, why says it.
 */
int savefile_check(const char *path, struct savefile_info *info, char *why, size_t why_len);

/*
 * Only the header of path, decoded and checked (every field bounded, the
 * file's size the one it computes): what a caller decides on before
 * savefile_apply() reads and checks the rest. Prints nothing; why says it.
 */
int savefile_read_header(const char *path, struct savefile_info *info, char *why, size_t why_len);

/* The CRC32C (Castagnoli) of len bytes, continuing from crc (0 to start). */
__u32 savefile_crc32c(__u32 crc, const void *data, size_t len);

#endif
