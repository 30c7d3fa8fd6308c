/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contract between the XDP program and the bloomxdp CLI: pin names, map
 * geometry, the read-only configuration and the counters. Both sides include
 * this file; nothing here may be written a second time anywhere else.
 */
#ifndef BLOOMXDP_COMMON_H
#define BLOOMXDP_COMMON_H

#include <linux/types.h>

/* Pins live in BLOOMXDP_PIN_ROOT/<ifname>/<name>. */
#define BLOOMXDP_BPFFS		"/sys/fs/bpf"
#define BLOOMXDP_PIN_ROOT_NAME	"bloomxdp"
#define BLOOMXDP_PIN_ROOT	BLOOMXDP_BPFFS "/" BLOOMXDP_PIN_ROOT_NAME
#define BLOOMXDP_PIN_LINK	"link"
/*
 * attach --direction both: the egress program's own pins, beside the
 * ingress one's (prog, link, config, counters, list_hits); every other map
 * is the same for both. With one direction, its program has the plain names.
 */
#define BLOOMXDP_PIN_EGRESS_PREFIX "egress_"
/*
 * A tc program where the kernel has no tcx (before Linux 6.6): a clsact
 * filter of this handle and priority, which detach looks for.
 */
#define BLOOMXDP_TC_HANDLE	0xb10c
#define BLOOMXDP_TC_PRIORITY	0xb10c
#define BLOOMXDP_PIN_PROG	"prog"
#define BLOOMXDP_PIN_CONFIG	"config"	/* the program's frozen .rodata */
#define BLOOMXDP_PIN_FILTER	"filter"	/* ARRAY_OF_MAPS: a Bloom filter per generation */
#define BLOOMXDP_PIN_KFILTER	"kfilter"	/* ARRAY_OF_MAPS: BLOOM_FILTER maps, layout kernel */
#define BLOOMXDP_PIN_VERIFY_V4	"verify_v4"	/* ARRAY_OF_MAPS: exact copies, --verify */
#define BLOOMXDP_PIN_VERIFY_V6	"verify_v6"
#define BLOOMXDP_PIN_VERIFY_NAMES "verify_names"
#define BLOOMXDP_PIN_VERIFY_PREFIX_V4 "verify_prefix_v4"	/* the CLI's, see bpf/maps.h */
#define BLOOMXDP_PIN_VERIFY_PREFIX_V6 "verify_prefix_v6"
#define BLOOMXDP_PIN_VERIFY_RANGES_V4 "verify_ranges_v4"
#define BLOOMXDP_PIN_VERIFY_RANGES_V6 "verify_ranges_v6"
#define BLOOMXDP_PIN_VERIFY_TABLE_V4 "verify_table_v4"	/* the hosts' tables, see below */
#define BLOOMXDP_PIN_VERIFY_TABLE_V6 "verify_table_v6"
#define BLOOMXDP_PIN_ALLOW_V4	"allow_v4"	/* ARRAY_OF_MAPS: the allowlist */
#define BLOOMXDP_PIN_ALLOW_V6	"allow_v6"
#define BLOOMXDP_PIN_ALLOW_NAMES "allow_names"
#define BLOOMXDP_PIN_RANGES_V4	"ranges_v4"	/* ARRAY_OF_MAPS: exact intervals, see below */
#define BLOOMXDP_PIN_RANGES_V6	"ranges_v6"
#define BLOOMXDP_PIN_ACTIVE	"active"	/* which generation is live, see below */
#define BLOOMXDP_PIN_COUNTERS	"counters"
#define BLOOMXDP_PIN_STATE	"state"		/* user-space bookkeeping, see struct below */
#define BLOOMXDP_PIN_EVENTS	"events"	/* ring buffer of drop events */
#define BLOOMXDP_PIN_LISTS	"lists"		/* ARRAY of struct bloomxdp_list, see below */
#define BLOOMXDP_PIN_LIST_KEYS	"list_keys"	/* ARRAY_OF_MAPS: keys -> the named lists' mask */
#define BLOOMXDP_PIN_LIST_V4	"list_v4"	/* ARRAY_OF_MAPS: named lists' prefixes */
#define BLOOMXDP_PIN_LIST_V6	"list_v6"
#define BLOOMXDP_PIN_LIST_HITS	"list_hits"	/* PERCPU_ARRAY: hits per list */
#define BLOOMXDP_PIN_SUFFIXES	"suffixes"	/* HASH: public suffixes, see bloomxdp/name.h */
#define BLOOMXDP_PIN_LEARNED	"learned"	/* LRU_HASH: addresses learned from answers */
/* The socket guard (bpf/connect.bpf.c): its counters and its four cgroup links. */
#define BLOOMXDP_PIN_GUARD_COUNTERS "guard_counters"
#define BLOOMXDP_PIN_GUARD_CONNECT4 "guard_connect4"
#define BLOOMXDP_PIN_GUARD_CONNECT6 "guard_connect6"
#define BLOOMXDP_PIN_GUARD_SENDMSG4 "guard_sendmsg4"
#define BLOOMXDP_PIN_GUARD_SENDMSG6 "guard_sendmsg6"

/*
 * attach IF1 IF2 ...: one set of lists for several interfaces. Each member's
 * directory pins the same list maps (every map but its own config, counters
 * and list_hits, and its program and link) and the one "group" map: an ARRAY
 * of one struct bloomxdp_group, the same map in every member's directory. The
 * first interface is the group's home: its pin directory holds the writers'
 * lock of them all, its state directory the lists.
 */
#define BLOOMXDP_PIN_GROUP	"group"
#define BLOOMXDP_GROUP_MAX	16	/* interfaces in a group, the home included */
#define BLOOMXDP_IFNAME_LEN	16	/* IF_NAMESIZE, NUL included */

struct bloomxdp_group {
	__u32 n;				/* members[0 .. n-1], members[0] the home */
	__u32 pad;
	char members[BLOOMXDP_GROUP_MAX][BLOOMXDP_IFNAME_LEN];	/* NUL-terminated */
};

/*
 * The XDP program's priority as a libxdp component (bpf/run_config.h; lower
 * runs first): xdp-filter's, before libxdp's default of 50.
 */
#define BLOOMXDP_XDP_RUN_PRIO	10

/*
 * Generations. Every outer map (ARRAY_OF_MAPS) has two slots; the "active"
 * array says which slot of the blocklist maps (filter, verify_*) and which
 * of the allowlist maps (allow_*) is live. A load fills the other slot,
 * then flips the active word, one atomic 32-bit store: a packet reads it
 * once and uses maps of one generation only.
 */
#define BLOOMXDP_GENERATIONS	2
#define BLOOMXDP_ACTIVE_BLOCK	0
#define BLOOMXDP_ACTIVE_ALLOW	1
#define BLOOMXDP_ACTIVE_LISTS	2	/* bit i: list i is present (named lists, below) */
#define BLOOMXDP_ACTIVE_LIST_SLOTS 3	/* bit i: the live generation slot of list i */
#define BLOOMXDP_ACTIVE_SLOTS	4
/*
 * Above bit 0 (the slot), the allowlist's active word says what it holds, so
 * that a hit skips the lookups of an empty allowlist (most of them).
 */
#define BLOOMXDP_ALLOW_HAS_V4	(1U << 1)
#define BLOOMXDP_ALLOW_HAS_V6	(1U << 2)
#define BLOOMXDP_ALLOW_HAS_NAMES (1U << 3)

/*
 * Named lists (load --list NAME). List 0 is the default list (plain load,
 * add, del); lists 1..BLOOMXDP_MAX_LISTS are named. The blocklist's filter
 * (and its exact copy, intervals) holds the union of every list, so that
 * unlisted traffic costs what it did with one list. Each named list also
 * has an exact copy: its hosts, names and URLs as the 64-bit keys of the
 * union filter (a host's address hash at /32 or /128) in one HASH map for
 * all named lists, whose value is the mask of the lists holding the key
 * (list_keys, at the union's generation slot, swapped with it: one lookup,
 * whatever the number of lists), and its prefixes in LPM tries of its own
 * (list_v4, list_v6 at BLOOMXDP_LIST_INDEX(id, slot), looked up only when
 * struct bloomxdp_list's has says it holds some). They are read only after
 * a hit of the union, when named lists are present (the
 * BLOOMXDP_ACTIVE_LISTS word): the strongest action of the lists holding
 * the key wins. A hit no named list holds belongs to the default list when
 * it has entries (its bit 0 in that word), else it passes (a false positive
 * of the union, or a list being replaced), counted as unattributed.
 */
#define BLOOMXDP_MAX_LISTS	16
#define BLOOMXDP_LIST_IDS	(BLOOMXDP_MAX_LISTS + 1)	/* with the default list, id 0 */
#define BLOOMXDP_LIST_DEFAULT_ID 0
#define BLOOMXDP_LIST_DEFAULT_PRESENT (1U << BLOOMXDP_LIST_DEFAULT_ID)
#define BLOOMXDP_LISTS_NAMED	(((1U << BLOOMXDP_LIST_IDS) - 1) & ~BLOOMXDP_LIST_DEFAULT_PRESENT)
/* In the BLOOMXDP_ACTIVE_LISTS word: a present list learns (BLOOMXDP_LIST_LEARN). */
#define BLOOMXDP_LISTS_LEARNING	(1U << 31)
#define BLOOMXDP_LIST_INDEX(id, slot)	((id) * BLOOMXDP_GENERATIONS + (slot))
#define BLOOMXDP_LIST_NAME_MAX	32	/* [a-z0-9_-]{1,32}: a file name and a label */

/*
 * A list's action: the strongest of the lists holding a key applies, by
 * BLOOMXDP_LIST_RANK, the one that tells the sender least: drop > nxdomain >
 * reject > monitor. (An nxdomain list drops what is not a DNS query, where a
 * reject list answers it; both answer a query.) The values are kept in the
 * lists map and the state: a new action takes a new value, ranked here.
 */
enum bloomxdp_list_action {
	BLOOMXDP_LIST_PASS = 0,		/* no list holds it */
	BLOOMXDP_LIST_MONITOR = 1,	/* counted as would_drop, passed */
	BLOOMXDP_LIST_NXDOMAIN = 2,	/* a DNS query answered NXDOMAIN, other hits dropped */
	BLOOMXDP_LIST_DROP = 3,
	/* TCP answered with a RST, UDP with ICMP port unreachable, other hits dropped. */
	BLOOMXDP_LIST_REJECT = 4,
	BLOOMXDP_LIST_LAST = BLOOMXDP_LIST_REJECT,	/* above: BLOOMXDP_LIST_AS_ATTACH */
	/* Not a rank: the attachment's --action (and --dns-reply), whatever they are now. */
	BLOOMXDP_LIST_AS_ATTACH = 0x80,
};
/* pass 0, monitor 2, reject 3, nxdomain 4, drop 6 */
#define BLOOMXDP_LIST_RANK(a)	((a) == BLOOMXDP_LIST_REJECT ? 3U : (__u32)(a) * 2)

/* A list, at its id in the lists array: written by the CLI, action read after a hit. */
#define BLOOMXDP_LIST_HAS_PREFIX_V4	(1U << 0)	/* list_v4 holds prefixes */
#define BLOOMXDP_LIST_HAS_PREFIX_V6	(1U << 1)
/*
 * load --learn: the list's names do not block DNS (queries nor responses);
 * the addresses their answers hold are learned and get the list's action.
 */
#define BLOOMXDP_LIST_LEARN		(1U << 2)
struct bloomxdp_list {
	__u32 action;		/* enum bloomxdp_list_action */
	__u32 has;		/* BLOOMXDP_LIST_HAS_* */
	__u64 entries;		/* entries of its live generation, duplicates included */
	char name[BLOOMXDP_LIST_NAME_MAX + 8];	/* NUL-terminated; "" for an unused id */
};

/* Keys of the exact LPM tries (BPF_MAP_TYPE_LPM_TRIE): a host is /32 or /128. */
struct bloomxdp_lpm_v4 {
	__u32 prefixlen;
	__u8 addr[4];
};

struct bloomxdp_lpm_v6 {
	__u32 prefixlen;
	__u8 addr[16];
};

/*
 * Name and URL keys (their 64-bit hashes) in an LPM trie too, always /64: a
 * trie allocates per entry only, where a hash map's bucket array would cost
 * 16 bytes per possible entry from the start.
 */
struct bloomxdp_lpm_name {
	__u32 prefixlen;
	__u64 key;
} __attribute__((packed));

/*
 * Inner map of layouts "bits" and "blocked": ARRAY of __u64 words, mmap-able
 * for fast fills: BLOOMXDP_HDR_WORDS header words, then the bit array. Each
 * generation is sized for its own list, so the header comes first and says
 * how many bits follow (BLOOMXDP_HDR_BITS): the map describes itself, and the
 * XDP program reads m there. The other words say what the list holds: lookups
 * of a kind it does not hold are skipped, no cost and no false positive.
 * Above all, a list without single-label names never probes a top-level
 * domain, whose false positive would block a whole TLD. Layout "kernel" has
 * the header only (its bits are the BLOOM_FILTER map's), with m 0.
 */
#define BLOOMXDP_WORD_BITS	64

#define BLOOMXDP_HDR_KINDS	0	/* BLOOMXDP_HAS_* */
#define BLOOMXDP_HDR_V4_LENGTHS	1	/* prefix lengths probed, one per byte, longest first */
#define BLOOMXDP_HDR_V6_LENGTHS	2
#define BLOOMXDP_HDR_BITS	3	/* m: bits of the array that follows the header */
/* A whole 64-byte block, so that the blocks after it stay on cache lines. */
#define BLOOMXDP_HDR_WORDS	8

/*
 * A family whose prefixes would expand too much is not in the Bloom filter:
 * its prefixes and hosts are merged into sorted disjoint intervals, exact,
 * in an ARRAY (ranges_v4/ranges_v6, one per generation) of lines, a static
 * B+tree (S+tree): element 0 the header (struct bloomxdp_ranges_hdr: the
 * count, the levels and the element each starts at), then the inner levels,
 * root first, each node one line of BLOOMXDP_RANGE_KEYS_* starts, then the
 * leaves: the intervals in order, BLOOMXDP_RANGE_PAIRS_* a line, the last
 * line padded with copies of the last interval. Node i of an inner level
 * has the children i * (K + 1) + 0..K on the next; its key j is the first
 * start under child j + 1, all ones where that child does not exist (in the
 * last node of a level only). A search reads one line a level and counts the
 * keys <= the address: that count is the child, and in a leaf the interval
 * that may hold it, whose end is on the same line. The shape in the map
 * itself: an add swaps in a whole new array with one update of the outer
 * map. The family's lengths word says it is looked up there: no length in
 * its first byte (no Bloom probe), the mark in its second
 * (BLOOMXDP_NO_LENGTHS has none).
 */
#define BLOOMXDP_RANGES_MARK		0xfffffeffULL
#define BLOOMXDP_RANGES_WORD		(~0ULL << 32 | BLOOMXDP_RANGES_MARK)
#define BLOOMXDP_IS_RANGES_WORD(w)	(((w) & 0xffffffffULL) == BLOOMXDP_RANGES_MARK)
/*
 * Inner levels at most: 7 hold 8 * 17^7 IPv4 intervals, more than there can
 * be (2^31); 9 hold 4 * 9^9, 1.5 billion IPv6 ones. Each is a bounded loop
 * the verifier walks once a level.
 */
#define BLOOMXDP_RANGE_LEVELS_V4	7
#define BLOOMXDP_RANGE_LEVELS_V6	9
#define BLOOMXDP_RANGE_LEVELS		BLOOMXDP_RANGE_LEVELS_V6	/* the larger */
#define BLOOMXDP_RANGE_LINE_V4		64	/* bytes of an element */
#define BLOOMXDP_RANGE_LINE_V6		128
#define BLOOMXDP_RANGE_KEYS_V4		16	/* starts of an inner node */
#define BLOOMXDP_RANGE_KEYS_V6		8
#define BLOOMXDP_RANGE_PAIRS_V4		8	/* intervals of a leaf */
#define BLOOMXDP_RANGE_PAIRS_V6		4

/* Bounds included, host byte order; IPv6 as two 64-bit halves, high first. */
struct bloomxdp_range_v4 {
	__u32 start;
	__u32 end;
};

struct bloomxdp_range_v6 {
	__u64 start_hi;
	__u64 start_lo;
	__u64 end_hi;
	__u64 end_lo;
};

struct bloomxdp_range_key_v6 {
	__u64 hi;
	__u64 lo;
};

/*
 * Element 0. level_at[l]: the first element of level l, root first;
 * level_at[levels] the first leaf, level_at[levels + 1] past the last.
 */
struct bloomxdp_ranges_hdr {
	__u32 n;		/* intervals; 0: none */
	__u32 levels;		/* inner levels, 0..BLOOMXDP_RANGE_LEVELS */
	__u32 level_at[BLOOMXDP_RANGE_LEVELS + 2];
};

/* One element of each family's array: the header, an inner node or a leaf. */
union bloomxdp_range_line_v4 {
	struct bloomxdp_ranges_hdr hdr;
	__u32 key[BLOOMXDP_RANGE_KEYS_V4];
	struct bloomxdp_range_v4 leaf[BLOOMXDP_RANGE_PAIRS_V4];
};

union bloomxdp_range_line_v6 {
	struct bloomxdp_ranges_hdr hdr;
	struct bloomxdp_range_key_v6 key[BLOOMXDP_RANGE_KEYS_V6];
	struct bloomxdp_range_v6 leaf[BLOOMXDP_RANGE_PAIRS_V6];
};

_Static_assert(sizeof(union bloomxdp_range_line_v4) == BLOOMXDP_RANGE_LINE_V4, "one line");
_Static_assert(sizeof(union bloomxdp_range_line_v6) == BLOOMXDP_RANGE_LINE_V6, "two lines");

/*
 * The exact stage's hosts as an open-addressed table (--verify, lists of at
 * most BLOOMXDP_TABLE_MAX_KEYS hosts of a family): per generation and family
 * an array (verify_table_v4/v6) of buckets of one line (16 IPv4 keys) or two
 * (8 IPv6 keys), element 0 its header. A host is in bucket 1 +
 * (bloomxdp_table_hash4/6() & mask) or not listed; a key 0 is an empty slot,
 * so a list holding 0.0.0.0 (::) makes no table of that family, nor one whose
 * hosts do not fit their buckets at BLOOMXDP_TABLE_MAX_BUCKETS. Without a
 * table the program reads the hash map verify_v4/v6, which holds the same
 * hosts either way. A table is never written once in a slot: a change makes
 * a new one, swapped in whole (an IPv6 key is not written atomically).
 */
#define BLOOMXDP_TABLE_KEYS_V4		16
#define BLOOMXDP_TABLE_KEYS_V6		8
#define BLOOMXDP_TABLE_MAX_BUCKETS	(1U << 14)	/* 1 MiB of IPv4, 2 MiB of IPv6 */
#define BLOOMXDP_TABLE_MAX_KEYS		(1U << 16)

struct bloomxdp_table_hdr {
	__u32 mask;		/* buckets - 1, a power of two less one */
	__u32 keys;		/* hosts it holds (status) */
	__u32 check;		/* bloomxdp_table_check() of the key it was made with */
};

/* A table made with another address key than the program's is not read: its hash map is. */
#define bloomxdp_table_check(addr_key) ((__u32)((addr_key)[BLOOMXDP_ADDR_KEY_WORDS - 1] >> 32))

union bloomxdp_table_line_v4 {
	struct bloomxdp_table_hdr hdr;
	__u32 key[BLOOMXDP_TABLE_KEYS_V4];	/* network order, as in the packet */
};

union bloomxdp_table_line_v6 {
	struct bloomxdp_table_hdr hdr;
	__u32 key[BLOOMXDP_TABLE_KEYS_V6][4];
};

_Static_assert(sizeof(union bloomxdp_table_line_v4) == 64, "one line");
_Static_assert(sizeof(union bloomxdp_table_line_v6) == 128, "two lines");

#define BLOOMXDP_HAS_NAME_DEPTH(labels)	(1ULL << ((labels) - 1))	/* names of 1..16 labels */
#define BLOOMXDP_HAS_NAME_DEPTHS	0xffffULL
#define BLOOMXDP_HAS_URLS		(1ULL << 16)
#define BLOOMXDP_HAS_IPV4		(1ULL << 17)
#define BLOOMXDP_HAS_IPV6		(1ULL << 18)
/*
 * Depths (labels) of the hosts of URL entries, bits 32..47: user space only
 * (the XDP program probes a URL marker at every host suffix), which counts a
 * request's (host, path) probes from them to size the filter per packet.
 */
#define BLOOMXDP_HAS_URL_DEPTH(labels)	(1ULL << (31 + (labels)))
#define BLOOMXDP_HAS_URL_DEPTHS		(0xffffULL << 32)

/*
 * Prefixes are stored expanded to a few target lengths chosen from the list
 * (controlled prefix expansion); a packet's address is probed at each, so
 * this bounds the probes per packet and family. Unused slots hold
 * BLOOMXDP_NO_LENGTH; a host address is a prefix of length 32 or 128.
 */
#define BLOOMXDP_MAX_PREFIX_LENGTHS	8
#define BLOOMXDP_NO_LENGTH		0xff
#define BLOOMXDP_NO_LENGTHS		(~0ULL)

/*
 * Filter layouts (config.layout):
 *  bits     the classic bit array: k bits anywhere in m, k probes, the first
 *           zero ends a lookup;
 *  blocked  all k bits of a key in one 512-bit block (a 64-byte cache line):
 *           one cache miss per key; needs a little more memory for the same
 *           FPR (sized by the exact formula, see user/filter/bloom_plan.c);
 *  kernel   BPF_MAP_TYPE_BLOOM_FILTER, fed the 64-bit keyed hash of each key
 *           (the kernel hashes that again with jhash); its bits are a power
 *           of two and k is at most 15. The bits array then holds only the
 *           header words.
 */
enum bloomxdp_layout {
	BLOOMXDP_LAYOUT_BITS = 0,
	BLOOMXDP_LAYOUT_BLOCKED = 1,
	BLOOMXDP_LAYOUT_KERNEL = 2,
	BLOOMXDP_LAYOUT_COUNT		/* keep last */
};

#define BLOOMXDP_KERNEL_MAX_HASHES 15
/* Keys per run of bpf/kbloom_fill.bpf.c, which fills a layout "kernel" filter. */
#define BLOOMXDP_KBLOOM_FILL_BATCH 65536

#define BLOOMXDP_BLOCK_BITS	512
#define BLOOMXDP_BLOCK_WORDS	(BLOOMXDP_BLOCK_BITS / BLOOMXDP_WORD_BITS)
_Static_assert(BLOOMXDP_HDR_WORDS % BLOOMXDP_BLOCK_WORDS == 0, "blocks start on a cache line");

/*
 * An element of the filter's ARRAY map: a 64-byte line of words, so that one
 * lookup reaches the whole header, or a whole block of layout "blocked" (its
 * k probes), where a map of single words took a helper call per word (inner
 * maps' lookups are not inlined). Memory is the same array of words: the
 * CLI's mmap indexes words; a bit array not a whole number of lines has up to
 * 7 words of padding at the end, never read.
 */
#define BLOOMXDP_LINE_WORDS	BLOOMXDP_BLOCK_WORDS
struct bloomxdp_line {
	__u64 word[BLOOMXDP_LINE_WORDS];
};
_Static_assert(BLOOMXDP_HDR_WORDS == BLOOMXDP_LINE_WORDS, "the header is line 0");

/*
 * Bit positions are (h1 + i*h2) mod m with 32-bit h1, h2: m must fit in 32 bits.
 * Rounded down to a whole word, this is 512 MiB of filter, ~448M entries at 1%.
 */
#define BLOOMXDP_MAX_BITS	(0xffffffffULL & ~(__u64)(BLOOMXDP_WORD_BITS - 1))
/* Enough hashes for an FPR of 1e-9; more only costs time. */
#define BLOOMXDP_MAX_HASHES	32

/* What of a packet is looked up (config.match). */
#define BLOOMXDP_MATCH_SRC	(1U << 0)	/* source address */
#define BLOOMXDP_MATCH_DST	(1U << 1)	/* destination address */
#define BLOOMXDP_MATCH_DNS	(1U << 2)	/* QNAME of DNS queries over UDP */
#define BLOOMXDP_MATCH_HTTP	(1U << 3)	/* HTTP/1.x Host and request target */
#define BLOOMXDP_MATCH_SNI	(1U << 4)	/* server_name of TLS ClientHellos */
/* DNS responses from a DNS port: question, CNAME/DNAME/HTTPS/SVCB targets, A/AAAA addresses. */
#define BLOOMXDP_MATCH_DNS_ANSWERS (1U << 5)
#define BLOOMXDP_MATCH_NAMES	(BLOOMXDP_MATCH_DNS | BLOOMXDP_MATCH_HTTP | BLOOMXDP_MATCH_SNI | \
				 BLOOMXDP_MATCH_DNS_ANSWERS)

/*
 * DNS responses (--match dns-answers): records of the answer section read at
 * most, and compression pointers followed per name at most. Past either, or
 * anything malformed, the response counts as unparsed_dns_answers; what was
 * read before still decides (a listed record blocks it), else it passes.
 */
#define BLOOMXDP_DNS_ANSWERS_MAX	16
#define BLOOMXDP_DNS_POINTERS_MAX	16
/* Record types read (RFC 1035, 6672, 3596, 9460). */
#define BLOOMXDP_DNS_TYPE_A		1
#define BLOOMXDP_DNS_TYPE_CNAME		5
#define BLOOMXDP_DNS_TYPE_AAAA		28
#define BLOOMXDP_DNS_TYPE_DNAME		39
#define BLOOMXDP_DNS_TYPE_SVCB		64
#define BLOOMXDP_DNS_TYPE_HTTPS		65
#define BLOOMXDP_DNS_CLASS_IN		1

/*
 * Firefox's canary domain (--doh-canary): a query for it answered NXDOMAIN
 * tells Firefox not to turn DNS over HTTPS on by default on this network.
 */
#define BLOOMXDP_DOH_CANARY	"use-application-dns.net"

/*
 * Learned addresses (load --learn): the A/AAAA addresses of answers for the
 * names of a learning list, in the LRU hash map BLOOMXDP_PIN_LEARNED, keyed
 * by struct bloomxdp_learn_key. A packet from or to one gets the list's
 * action until expires_ns. TTLs are held to [BLOOMXDP_LEARN_TTL_MIN,
 * config.learn_ttl_max] seconds.
 */
#define BLOOMXDP_LEARN_MAX		16384	/* about 2.8 MB, preallocated (LRU): ~170 bytes each */
#define BLOOMXDP_LEARN_TTL_MIN		30
#define BLOOMXDP_LEARN_TTL_MAX_DEFAULT	3600
#define BLOOMXDP_LEARN_NAME_MAX		64	/* bytes of the question kept, wire form */
struct bloomxdp_learn_key {
	__u32 family;		/* 4 or 6 */
	__u8 addr[16];		/* network order; IPv4 in the first 4 bytes, the rest 0 */
};

struct bloomxdp_learned {
	__u64 learned_ns;	/* bpf_ktime_get_ns() of the answer: CLOCK_MONOTONIC */
	__u64 expires_ns;	/* learned_ns + the TTL held to its bounds */
	__u32 list;		/* the id of the learning list */
	__u32 ttl;		/* seconds, as held */
	__u32 name_len;		/* bytes in name (the question's, cut to the first 64) */
	__u32 rr_type;		/* BLOOMXDP_DNS_TYPE_A or _AAAA */
	__u8 name[BLOOMXDP_LEARN_NAME_MAX];	/* the question's name, DNS wire form */
};

/* Ports per protocol, host byte order; 0 ends the list. */
#define BLOOMXDP_MAX_PORTS	4
#define BLOOMXDP_DNS_PORT	53
#define BLOOMXDP_HTTP_PORT	80
#define BLOOMXDP_TLS_PORT	443
#define BLOOMXDP_QUIC_PORT	443	/* UDP: QUIC Initials (--match sni) */
/* Default of --quic-budget: Initials decrypted per second and CPU (bench/quic.md: its cost). */
#define BLOOMXDP_QUIC_PER_SEC	10000

/* How a blocked DNS query is answered (config.dns_reply). */
enum bloomxdp_dns_reply {
	BLOOMXDP_DNS_REPLY_NONE = 0,		/* follow the action: drop or monitor */
	BLOOMXDP_DNS_REPLY_NXDOMAIN = 1,	/* answer NXDOMAIN at once, from XDP */
};

/*
 * What is done with a packet no list decides (config.quic_unparsed: an
 * Initial whose name cannot be read; config.ech: a ClientHello with an
 * encrypted_client_hello extension, whose real name is hidden).
 */
enum bloomxdp_policy {
	BLOOMXDP_POLICY_PASS = 0,
	BLOOMXDP_POLICY_DROP = 1,
};

/* What a hit does (config.action). */
enum bloomxdp_action {
	BLOOMXDP_ACTION_DROP = 0,
	BLOOMXDP_ACTION_MONITOR = 1,	/* count as would_drop, pass */
	BLOOMXDP_ACTION_REJECT = 2,	/* TCP: a RST; UDP: ICMP port unreachable; else drop */
};

/* Key kinds: the first byte hashed, so keys of different kinds never collide. */
enum bloomxdp_key_kind {
	BLOOMXDP_KEY_IPV4 = 4,
	BLOOMXDP_KEY_IPV6 = 6,
};

/* Parsing bounds of the XDP program. */
#define BLOOMXDP_MAX_VLANS	2
#define BLOOMXDP_MAX_IPV6_EXT	8

/* Words of the address hash's key: see bloomxdp_addr_hash() in hash.h. */
#define BLOOMXDP_ADDR_KEY_WORDS	14

/*
 * Set by the CLI before load, frozen by the kernel (.rodata): the verifier
 * prunes what the configuration cannot reach. Pinned 0600 because it holds
 * the hash key.
 */
struct bloomxdp_config {
	__u64 hash_key[2];	/* SipHash key, random per attachment */
	/*
	 * m of attach's empty filter (--capacity): each later generation is sized
	 * for its list, and its own m is its header word BLOOMXDP_HDR_BITS, which
	 * is what the XDP program and the commands read. k depends on the target
	 * FPR only, so that it stays a constant of the program for every size.
	 */
	__u32 bits;
	__u32 hashes;		/* k */
	__u32 match;		/* BLOOMXDP_MATCH_* */
	__u32 action;		/* enum bloomxdp_action */
	__u64 capacity;		/* n of attach's empty filter, the least a load sizes for */
	__u64 fpr_ppb;		/* target false-positive rate, parts per 10^9 */
	__u16 dns_ports[BLOOMXDP_MAX_PORTS];
	__u16 http_ports[BLOOMXDP_MAX_PORTS];
	__u16 tls_ports[BLOOMXDP_MAX_PORTS];
	__u32 dns_reply;	/* enum bloomxdp_dns_reply */
	__u32 verify;		/* enum bloomxdp_verify: whether loads build an exact copy */
	__u32 layout;		/* enum bloomxdp_layout */
	__u32 events_per_sec;	/* drop events sent per second and CPU at most; 0: none */
	__u32 icmp_per_sec;	/* reject's ICMP port unreachables per second and CPU at most */
	__u32 learn_ttl_max;	/* seconds a learned address is held at most (--learn-ttl-max) */
	/*
	 * The multipliers of the address hash (hash.h), derived from hash_key
	 * by the loader (bloomxdp_addr_key_derive()): in the program's .rodata,
	 * so that a packet does not derive them.
	 */
	__u64 addr_key[BLOOMXDP_ADDR_KEY_WORDS];
	__u32 direction;	/* enum bloomxdp_direction: the traffic this program sees */
	__u32 hook;		/* enum bloomxdp_hook: where it runs */
	__u16 quic_ports[BLOOMXDP_MAX_PORTS];	/* UDP ports of QUIC Initials */
	__u32 quic_per_sec;	/* Initials decrypted per second and CPU at most; 0: none */
	__u32 quic_unparsed;	/* enum bloomxdp_policy: an Initial whose name cannot be read */
	__u32 ech;		/* enum bloomxdp_policy: a ClientHello with ECH */
	__u32 doh_canary;	/* 1: BLOOMXDP_DOH_CANARY answered NXDOMAIN (--doh-canary) */
	__u32 pins_version;	/* BLOOMXDP_PINS_VERSION of the build that attached */
};

/*
 * The shape of an attachment's pins: the value sizes of its maps, the
 * elements of its inner maps (the exact intervals' lines), the counters.
 * Bumped by any change to one of them: a build opens only pins of its own
 * version, and says an attachment of another is to be attached again, where
 * its maps would refuse the new shapes with a bare EINVAL. 2: the intervals
 * as a B+tree, the counter bad_ranges (before it, no such field: the
 * configuration's smaller size tells those). 3: the exact stage's tables of
 * hosts (verify_table_v4/v6).
 */
#define BLOOMXDP_PINS_VERSION	3

/*
 * The direction a packet program sees (attach --direction): one program
 * source, the direction in its .rodata. Fields go by role: --match src is
 * the remote host (an arriving packet's source, a leaving one's destination).
 */
enum bloomxdp_direction {
	BLOOMXDP_DIR_INGRESS = 0,
	BLOOMXDP_DIR_EGRESS = 1,
};

/* Where a packet program runs (attach --hook): XDP, or tc (tcx, or a clsact filter). */
enum bloomxdp_hook {
	BLOOMXDP_HOOK_XDP = 0,
	BLOOMXDP_HOOK_TC = 1,
};

#define BLOOMXDP_PPB 1000000000ULL

/*
 * attach --verify (config.verify): whether each load builds an exact copy of
 * the list (verify_v4, verify_v6, verify_names at the generation's slot) to
 * confirm Bloom hits with. Auto: when the copy fits within a quarter of
 * --max-memory, decided at each load. The program confirms a hit when the
 * live generation's slot holds a copy: the copy is swapped with the filter.
 */
enum bloomxdp_verify {
	BLOOMXDP_VERIFY_OFF = 0,
	BLOOMXDP_VERIFY_ON = 1,
	BLOOMXDP_VERIFY_AUTO = 2,
};
#define BLOOMXDP_VERIFY_AUTO_SHARE	4	/* auto: the copy within max_memory / 4 */

/*
 * User-space bookkeeping, one element per generation slot, indexed like the
 * outer maps. A load writes the new slot's element before it flips the active
 * word, so that what the active word selects (the filter) and what status
 * reports of it change in the same store, whenever the CLI is killed. The XDP
 * program never reads it.
 */
struct bloomxdp_state {
	__u64 entries;		/* entries inserted since the last load, duplicates included */
	__u64 keys;		/* Bloom keys they made: prefixes expand, URLs make two */
	__u64 generation;	/* bumped on every load */
	__u64 loaded_at_ns;	/* CLOCK_REALTIME of the last load */
	__u64 capacity;		/* keys this generation's filter is sized for */
	__u64 max_memory;	/* bytes a generation may take (attach/load --max-memory) */
	__u64 exact_keys;	/* entries of the exact copy (--verify), or that it would hold */
	__u64 exact_bytes;	/* what the copy takes, or would take when the load left it off */
};

/*
 * Per-CPU counters. The X-macro is the single list of names: it builds the
 * struct (whose BTF bpftool shows) and the CLI's name table.
 */
#define BLOOMXDP_COUNTERS(X)						\
	X(packets,		"frames seen")				\
	X(bytes,		"bytes of frames seen")			\
	X(passed,		"frames passed")			\
	X(dropped,		"frames dropped on a hit")		\
	X(would_drop,		"hits passed in monitor mode")		\
	X(checked_v4,		"IPv4 packets looked up")		\
	X(checked_v6,		"IPv6 packets looked up")		\
	X(hits_v4,		"IPv4 packets that hit the filter")	\
	X(hits_v6,		"IPv6 packets that hit the filter")	\
	X(non_ip,		"frames that are not IPv4/IPv6 (ARP, LLDP...)") \
	X(malformed,		"truncated or invalid frames, all classes") \
	X(bad_eth,		"frame shorter than an Ethernet header") \
	X(bad_vlan,		"truncated VLAN tag")			\
	X(vlan_too_deep,	"more than two VLAN tags, passed unchecked") \
	X(bad_ipv4,		"truncated IPv4 header or wrong version") \
	X(bad_ipv4_ihl,		"IPv4 IHL below 5 or beyond the frame")	\
	X(bad_ipv6,		"truncated IPv6 header or wrong version") \
	X(fragments,		"IP fragments (matched by address)")	\
	X(ipv6_ext_unparsed,	"IPv6 extension chain truncated or too deep (address still matched)") \
	X(split_headers,	"multi-buffer frames whose headers run past the first buffer: passed unchecked, or matched by address only") \
	X(no_filter,		"IP packets seen while no filter was installed") \
	X(checked_dns,		"DNS queries whose name was looked up")	\
	X(hits_dns,		"DNS queries for a listed name")	\
	X(unparsed_dns,		"DNS packets not parsed (not a standard query, QDCOUNT != 1, compression, truncated, IPv6 chain too deep)") \
	X(dns_replies,		"NXDOMAIN answers sent from XDP")	\
	X(rejected,		"hits answered with a TCP RST or an ICMP port unreachable (reject)") \
	X(icmp_ratelimited,	"reject's ICMP answers not sent: over --icmp-per-sec, dropped") \
	X(checked_http,		"HTTP requests whose host (and path) was looked up") \
	X(hits_http,		"HTTP requests for a listed name or URL") \
	X(unparsed_http,	"TCP payloads to an HTTP port that are not a request start with a host, or a bad TCP header") \
	X(checked_sni,		"TLS ClientHellos whose SNI was looked up") \
	X(hits_sni,		"TLS ClientHellos for a listed name")	\
	X(unparsed_tls,		"TLS ClientHellos whose SNI is not whole in the segment (or absent), or a bad TCP header") \
	X(unseen_dns_tcp,	"TCP payloads to a DNS port (DNS over TCP is not parsed)") \
	X(unseen_quic,		"UDP packets to a QUIC port with no ClientHello to read: short headers, 0-RTT, Handshake, Retry, Initials without CRYPTO data or with a part of a ClientHello before its name") \
	X(bloom_hits,		"lookups the Bloom filter said yes to")	\
	X(range_hits,		"address lookups the exact intervals said yes to (load --store)") \
	X(confirmed,		"Bloom hits the exact copy confirmed (--verify)") \
	X(false_positives,	"Bloom hits the exact copy refused (--verify): passed") \
	X(allowed,		"hits on the allowlist: passed")	\
	X(events_sent,		"drop events written to the ring buffer") \
	X(events_ratelimited,	"drop events not sent: over --events-per-sec") \
	X(events_lost,		"drop events not sent: ring buffer full") \
	X(unattributed,		"hits no named list holds, with an empty default list: passed") \
	X(suffix_false_positives, "Bloom hits at a public suffix or TLD the list does not hold: passed") \
	X(checked_quic,		"QUIC Initials whose SNI was looked up") \
	X(hits_quic,		"QUIC Initials for a listed name")	\
	X(unparsed_quic,	"QUIC Initials whose SNI cannot be read: unknown version, malformed, no SNI, out of order, over the limits") \
	X(quic_budget_spent,	"QUIC Initials not decrypted: over --quic-budget, handled as unparsed") \
	X(ech_seen,		"ClientHellos (TLS and QUIC) with an encrypted_client_hello extension") \
	X(checked_dns_answers,	"DNS responses whose question and records were looked up") \
	X(hits_dns_answers,	"DNS responses with a listed name or address in their question or answers") \
	X(unparsed_dns_answers,	"DNS responses not read whole: malformed, truncated, pointer loops, over the records or pointers read (what was read still decides)") \
	X(dns_answers_rewritten, "blocked DNS responses rewritten in place as NXDOMAIN") \
	X(learned,		"addresses learned from the answers for a learning list's names") \
	X(hits_learned,		"packets from or to a learned address") \
	X(doh_canary,		"queries and responses for use-application-dns.net answered NXDOMAIN (--doh-canary)") \
	X(bad_ranges,		"exact interval searches a malformed array cut short: passed")

/*
 * The field of a packet looked up: the XDP program picks a name field from
 * the L4 protocol and destination port, and a drop event says which field
 * matched (SRC to SNI only).
 */
enum bloomxdp_field {
	BLOOMXDP_FIELD_NONE = 0,
	BLOOMXDP_FIELD_SRC = 1,		/* source address */
	BLOOMXDP_FIELD_DST,		/* destination address */
	BLOOMXDP_FIELD_DNS,		/* QNAME of a query over UDP to a DNS port */
	BLOOMXDP_FIELD_HTTP,		/* host and URL of a request to an HTTP port */
	BLOOMXDP_FIELD_SNI,		/* server_name of a ClientHello over TCP to a TLS port */
	BLOOMXDP_FIELD_DNS_TCP,		/* TCP to a DNS port: not parsed, counted, never matched */
	BLOOMXDP_FIELD_QUIC,		/* server_name of a ClientHello in QUIC Initials */
	BLOOMXDP_FIELD_DNS_ANSWER,	/* a DNS response from a DNS port: the record in rr_type */
};

/* Drop events (ring buffer BLOOMXDP_PIN_EVENTS), for 'bloomxdp watch'. */

enum bloomxdp_event_key {
	BLOOMXDP_EVKEY_ADDRESS = 1,	/* a host entry */
	BLOOMXDP_EVKEY_PREFIX,		/* a prefix entry (length in key_len) */
	BLOOMXDP_EVKEY_NAME,		/* a domain (labels of the listed suffix in key_len) */
	BLOOMXDP_EVKEY_URL,
	BLOOMXDP_EVKEY_RANGE,		/* an interval of the exact ranges (no length) */
	BLOOMXDP_EVKEY_LEARNED,		/* an address learned from an answer (load --learn) */
	BLOOMXDP_EVKEY_CANARY,		/* BLOOMXDP_DOH_CANARY (--doh-canary): no list */
};

enum bloomxdp_event_verdict {
	BLOOMXDP_EVVERDICT_DROP = 1,
	BLOOMXDP_EVVERDICT_WOULD_DROP,	/* --action monitor */
	BLOOMXDP_EVVERDICT_NXDOMAIN,	/* answered from XDP */
	BLOOMXDP_EVVERDICT_REJECT,	/* action reject: answered (RST, ICMP) or dropped */
};

/* Where an event comes from (its origin). */
enum bloomxdp_event_origin {
	BLOOMXDP_EVORIGIN_PACKET = 0,	/* a packet on the interface */
	BLOOMXDP_EVORIGIN_SOCKET = 1,	/* a local connect() or sendmsg(): the socket guard */
};

#define BLOOMXDP_EVENT_NAME_MAX 64

struct bloomxdp_event {
	__u64 ts_ns;			/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 ifindex;
	__u8 family;			/* 4 or 6 */
	__u8 field;			/* enum bloomxdp_field, SRC to SNI */
	__u8 key_kind;			/* enum bloomxdp_event_key */
	__u8 verdict;			/* enum bloomxdp_event_verdict */
	__u8 key_len;
	__u8 l4_proto;
	__u8 name_len;			/* bytes in name, 0 for addresses */
	__u8 name_wire;			/* 1: name is in DNS wire form, else dotted text */
	__be16 sport;
	__be16 dport;
	__u8 src[16];			/* IPv4 in the first 4 bytes */
	__u8 dst[16];
	__u8 name[BLOOMXDP_EVENT_NAME_MAX];	/* the start of the name looked up */
	__u8 list;			/* the id of the list whose action applied (0: default) */
	__u8 direction;			/* enum bloomxdp_direction (the socket guard's: egress) */
	__u8 origin;			/* enum bloomxdp_event_origin */
	__u8 unused;
	/*
	 * A DNS response (field BLOOMXDP_FIELD_DNS_ANSWER): the record that
	 * matched, 0 for its question. An A or AAAA record's address is in
	 * answer (IPv4 in the first 4 bytes); a name's is in name.
	 */
	__u16 rr_type;
	__u8 unused2[2];
	__u8 answer[16];
};

#define BLOOMXDP_COUNTER_FIELD(name, help) __u64 name;
struct bloomxdp_counters {
	BLOOMXDP_COUNTERS(BLOOMXDP_COUNTER_FIELD)
};
#undef BLOOMXDP_COUNTER_FIELD

#endif /* BLOOMXDP_COMMON_H */
