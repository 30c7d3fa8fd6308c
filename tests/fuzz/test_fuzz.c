// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzzer of the XDP program through BPF_PROG_TEST_RUN. The program is loaded
 * as the tests/bpf harness loads it (skeleton, configuration, filter maps;
 * the lists as 'bloomxdp load' builds them) in several configurations, and
 * run over generated frames (fuzz_gen.h): random bytes, and structured frames
 * of every kind it parses, mutated or not. After each frame the per-CPU
 * counters are read (BPF_PROG_TEST_RUN runs on one CPU at a time, and nothing
 * else runs this never-attached program: the deltas are exact) and checked:
 *
 *  - the verdict is PASS, DROP or TX (TX: an NXDOMAIN answer, checked too);
 *  - identities between counters, and the counters of the class the
 *    reference model (fuzz_model.h) puts the frame in;
 *  - addresses: the verdict of the membership oracle (the lists as docs/operations.md
 *    defines them) or, without --verify, of the Bloom filter read from user
 *    space (a false positive is then expected, and counted), or of the exact
 *    intervals (load --store intervals: the oracle, user space's search and
 *    the program must all agree);
 *  - names in frames built to be parsed: a listed name, host, URL or SNI (of
 *    TLS, or of a QUIC Initial) is dropped; an unlisted one passes unless
 *    the filter says yes to it;
 *  - QUIC: every datagram to a QUIC port is counted once (unseen_quic,
 *    unparsed_quic, checked_quic or quic_budget_spent) as the model's class
 *    and the Initial built say, mutated or not.
 *
 * Every frame comes from its own PRNG stream (seed, configuration, index):
 * `--seed S --config C --frame I` runs one frame again, verbosely.
 *
 * Usage: test_fuzz [--frames N] [--seed S] [--config NAME] [--frame I] [-v]
 * N frames per configuration (default 10^4: the run of `make test`; `make
 * fuzz` runs 10^6). The seed is random unless given (or BLOOMXDP_TEST_SEED is
 * set); it is printed first. TAP output.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <time.h>

#include "fuzz_model.h"
#include "verify_harness.h"

#define CNT(x) ((unsigned long long)(x))

/* ------------------------------------------------------- known defects */

/*
 * Known defects of the data plane, fixed on another branch. A check a frame
 * of such a class fails is reported on a TAP line of its own, marked
 * "# TODO known defect N", not as a failure: remove the entry once the fix is
 * merged, and the fuzzer fails on it like on anything else. A class whose
 * frames all pass says so ("fixed?").
 */
struct known_defect {
	int id;
	const char *what;
};

/*
 * Empty: 4, 5, 6 and 11 (issue 8) are fixed. The generator still makes their
 * frames (CLASS(4) ...), so a regression fails like anything else.
 */
static const struct known_defect KNOWN_DEFECTS[] = {
	{ 0, NULL }	/* ends the table */
};

/* Defect classes a frame belongs to, as bits. */
#define CLASS(id)	(1U << (id))

static bool defect_known(int id)
{
	size_t i;

	for (i = 0; KNOWN_DEFECTS[i].what; i++)
		if (KNOWN_DEFECTS[i].id == id)
			return true;
	return false;
}

/* --------------------------------------------------------- configurations */

#define MATCH_ALL	(BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST | BLOOMXDP_MATCH_NAMES)
#define TINY_FPR	1e-6

struct fz_config {
	const char *name;
	__u32 match;
	__u32 action;
	__u32 dns_reply;
	__u32 layout;
	bool verify;
	bool allowlist;		/* with verify only: installed with the exact sets */
	__u32 events_per_sec;
	double fpr;
	__u64 capacity;		/* 0: sized for the list */
	bool intervals;		/* no verify: addresses in exact intervals (load --store) */
	__u16 dns_ports[BLOOMXDP_MAX_PORTS];
	__u16 http_ports[BLOOMXDP_MAX_PORTS];
	__u16 tls_ports[BLOOMXDP_MAX_PORTS];
	__u16 quic_ports[BLOOMXDP_MAX_PORTS];
	__u32 quic_per_sec;	/* 0: FZ_QUIC_PER_SEC */
};

/*
 * Initials decrypted a second and CPU: more than the fuzzer sends, so that
 * each is read as built; one configuration has a budget it spends in make
 * fuzz's long runs.
 */
#define FZ_QUIC_PER_SEC	100000000

/*
 * Each layout, each kind of field, NXDOMAIN, ports of one's own, --verify
 * with an allowlist and drop events, monitor. Two are sized for frequent
 * false positives: with --verify they must pass; in monitor mode the Bloom
 * filter read from user space says which.
 */
static const struct fz_config configs[] = {
	{ "src", .match = BLOOMXDP_MATCH_SRC, .layout = BLOOMXDP_LAYOUT_BLOCKED, .fpr = TINY_FPR },
	{ "all-bits-nxdomain", .match = MATCH_ALL, .layout = BLOOMXDP_LAYOUT_BITS,
	  .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN, .fpr = TINY_FPR },
	{ "all-blocked-ports", .match = MATCH_ALL, .layout = BLOOMXDP_LAYOUT_BLOCKED,
	  .fpr = TINY_FPR, .dns_ports = { 53, 5353 }, .http_ports = { 80, 8080, 8000 },
	  .tls_ports = { 443, 8443 }, .quic_ports = { 443, 8443 } },
	{ "all-kernel", .match = MATCH_ALL, .layout = BLOOMXDP_LAYOUT_KERNEL, .fpr = TINY_FPR },
	{ "verify-allow-nxdomain-events", .match = MATCH_ALL, .layout = BLOOMXDP_LAYOUT_BLOCKED,
	  .verify = true, .allowlist = true, .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN,
	  .events_per_sec = 100, .fpr = TINY_FPR },
	{ "verify-allow-fp", .match = MATCH_ALL, .layout = BLOOMXDP_LAYOUT_BITS, .verify = true,
	  .allowlist = true, .fpr = 0.05, .capacity = 200 },
	{ "monitor-nxdomain-fp", .match = MATCH_ALL, .layout = BLOOMXDP_LAYOUT_BLOCKED,
	  .action = BLOOMXDP_ACTION_MONITOR, .dns_reply = BLOOMXDP_DNS_REPLY_NXDOMAIN,
	  .fpr = 0.05, .capacity = 300 },
	/* Addresses exact, names in a filter with frequent false positives; a QUIC budget. */
	{ "intervals-fp", .match = MATCH_ALL, .layout = BLOOMXDP_LAYOUT_BITS, .intervals = true,
	  .fpr = 0.05, .capacity = 300, .quic_per_sec = 200 },
};

#define N_CONFIGS ARRAY_SIZE(configs)

/* ------------------------------------------------------------ the run */

struct defect_stats {
	__u64 in_class;		/* frames of the class */
	__u64 failed;		/* of which failed a check the defect explains */
	char first[160];	/* where the first failure was */
};

struct fz_stats {
	__u64 frames, failed, excused;
	__u64 verdicts[5];
	__u64 known_names;		/* frames whose name outcome was known */
	__u64 listed_dropped;		/* listed keys (addresses, names) blocked */
	__u64 unlisted_passed;
	__u64 fp_addr, fp_name;		/* false positives the user-space filter predicts */
	char fp_first[160];		/* the first one */
	__u64 false_positives;		/* the counter, with --verify */
	__u64 replies;			/* NXDOMAIN answers checked */
	__u64 quic_initials;		/* to a QUIC port, of a known version, long header Initial */
	__u64 quic_known;		/* ... built, unmutated: their outcome known */
	__u64 quic_checked, quic_hits, quic_unparsed, quic_unseen, quic_spent;
	__u64 classes[9];
	__u64 fields[7];
	__u64 answers[3];		/* responses by enum m_answers */
	__u64 answers_known, answers_hit;	/* read, their outcome known; of which hit */
	__u64 answers_bad, answers_over;	/* read: a malformed record; ANCOUNT above 16 */
	__u64 rewritten;		/* responses rewritten NXDOMAIN, checked */
	double seconds;
};

struct fz_prog {
	const struct fz_config *c;
	int index;			/* in configs[]: part of every frame's seed */
	struct xdp_harness h;
	struct vh v;
	struct xdp_harness *hp;
	__u64 kinds;			/* the filter's header: what the list holds */
	struct fz_gen_cfg gen;
	struct bloomxdp_counters prev;
	__u64 cur;			/* the frame being checked */
	struct fz_stats st;
	struct list_build b;		/* c->intervals: the build, with its intervals */
	struct suffix_map sk;		/* the public suffixes, as the program's map holds them */
	int range_fds[2];
};

static struct fz_world world;
static __u64 seed;
static bool verbose;
static struct defect_stats defects[16];
static const char *prog_name = "test_fuzz";

/* The hash key of a configuration follows from the seed: false positives repeat too. */
static void config_hash_key(int index, __u64 key[2])
{
	struct rng r = rng_for(seed, 2000 + index, 0);

	key[0] = rng_next(&r);
	key[1] = rng_next(&r);
}

/* As load --store intervals: both address families in exact intervals, names in the filter. */
static int intervals_open(struct fz_prog *p, const struct harness_config *hc, char *err)
{
	__u32 zero = 0;
	char path[64];
	int ret, fam;

	ret = harness_open(&p->h, hc);
	if (!ret)
		ret = harness_write_list(world.block.lines, world.block.nlines, path);
	if (ret)
		return ret;
	list_build_init(&p->b, &p->h.lp.filter, LIST_DEFAULT_PREFIX_PROBES);
	p->b.ranges_ok = true;
	p->b.store = RANGE_STORE_INTERVALS;
	ret = harness_build_read(&p->b, bpf_map__fd(p->h.lp.skel->maps.suffixes), 0, path, err);
	unlink(path);
	for (fam = 0; fam < 2 && !ret; fam++) {
		if (!p->b.cost[fam].use_ranges)
			continue;
		p->range_fds[fam] = range_set_create_map(&p->b.ranges[fam]);
		if (p->range_fds[fam] < 0)
			return p->range_fds[fam];
		if (bpf_map_update_elem(bpf_map__fd(fam ? p->h.lp.skel->maps.ranges_v6 :
						    p->h.lp.skel->maps.ranges_v4), &zero,
					&p->range_fds[fam], BPF_ANY))
			ret = -errno;
	}
	return ret;
}

static int prog_open(struct fz_prog *p, const struct fz_config *c, int index)
{
	char err[LIST_ERROR_LEN] = "";
	struct prefix_plan plan[2];
	__u64 key[2];
	int ret;

	memset(p, 0, sizeof(*p));
	p->range_fds[0] = p->range_fds[1] = -1;
	p->c = c;
	p->index = index;
	config_hash_key(index, key);
	if (c->verify) {
		struct vh_config vc = { .match = c->match, .action = c->action, .verify = 1,
					.events_per_sec = c->events_per_sec, .hash_key = key,
					.capacity = c->capacity ? c->capacity : 1000,
					.fpr = c->fpr, .exact_room = 4000, .layout = c->layout,
					.dns_reply = c->dns_reply,
					.quic_per_sec = c->quic_per_sec ? c->quic_per_sec :
							FZ_QUIC_PER_SEC };

		ret = vh_open(&p->v, &vc);
		if (!ret)
			ret = vh_load_blocklist(&p->v, 0, world.block.lines, world.block.nlines,
						LIST_DEFAULT_PREFIX_PROBES, NULL, err);
		if (!ret && c->allowlist)
			ret = vh_load_allowlist(&p->v, 0, world.allow.lines, world.allow.nlines,
						err);
		p->hp = &p->v.h;
	} else {
		struct harness_config hc = { .match = c->match, .action = c->action,
					     .hash_key = key, .capacity = c->capacity,
					     .fpr = c->fpr, .dns_reply = c->dns_reply,
					     .layout = c->layout,
					     .quic_per_sec = c->quic_per_sec ? c->quic_per_sec :
							     FZ_QUIC_PER_SEC };

		memcpy(hc.dns_ports, c->dns_ports, sizeof(hc.dns_ports));
		memcpy(hc.http_ports, c->http_ports, sizeof(hc.http_ports));
		memcpy(hc.tls_ports, c->tls_ports, sizeof(hc.tls_ports));
		memcpy(hc.quic_ports, c->quic_ports, sizeof(hc.quic_ports));
		if (c->intervals)
			ret = intervals_open(p, &hc, err);
		else
			ret = harness_open_list(&p->h, &hc, world.block.lines, world.block.nlines,
						LIST_DEFAULT_PREFIX_PROBES, plan, err);
		p->hp = &p->h;
	}
	if (ret) {
		printf("# %s: cannot load: %s %s\n", c->name, strerror(-ret), err);
		return ret;
	}
	/* The oracle's filter confirms hits at public depths as the program does. */
	ret = suffix_map_read(&p->sk, bpf_map__fd(p->hp->lp.skel->maps.suffixes));
	if (ret) {
		printf("# %s: cannot read the public suffixes: %s\n", c->name, strerror(-ret));
		return ret;
	}
	p->hp->lp.filter.public_suffixes = &p->sk;
	p->hp->lp.filter.slot = 0;
	p->kinds = filter_header(&p->hp->lp.filter);
	p->gen.world = &world;
	p->gen.allowlist = c->allowlist;
	memcpy(p->gen.dns_ports, p->hp->config.dns_ports, sizeof(p->gen.dns_ports));
	memcpy(p->gen.http_ports, p->hp->config.http_ports, sizeof(p->gen.http_ports));
	memcpy(p->gen.tls_ports, p->hp->config.tls_ports, sizeof(p->gen.tls_ports));
	memcpy(p->gen.quic_ports, p->hp->config.quic_ports, sizeof(p->gen.quic_ports));
	return harness_counters(p->hp, &p->prev);
}

static void prog_close(struct fz_prog *p)
{
	suffix_map_free(&p->sk);
	list_build_free(&p->b);
	if (p->range_fds[0] >= 0)
		close(p->range_fds[0]);
	if (p->range_fds[1] >= 0)
		close(p->range_fds[1]);
	if (p->c && p->c->verify)
		vh_close(&p->v);
	else if (p->c)
		harness_close(&p->h);
}

/* ------------------------------------------------------------ oracles */

/*
 * What the program must decide for one address field: blocked or not;
 * *allowed when the allowlist let a confirmed hit through. With --verify
 * exactly the listed addresses are blocked; without, whatever the filter says
 * yes to (user space reads the same map), listed ones always.
 */
static bool oracle_addr(struct fz_prog *p, int v6, const __u8 *a, bool *allowed, char *err,
			size_t errlen)
{
	struct entry e = { .kind = ENTRY_ADDR };
	bool member, allow, bloom;
	char why[128];

	if (v6 && bloomxdp_ipv6_is_v4mapped(a)) {
		v6 = 0;
		a += 12;
	}
	member = fz_addr_in(&world.block, v6, a);
	allow = p->c->allowlist && fz_addr_in(&world.allow, v6, a);
	if (v6)
		bloomxdp_key_ipv6(&e.addr, a, 128);
	else
		bloomxdp_key_ipv4(&e.addr, a, 32);
	if (p->c->intervals && p->b.ranges[v6].r) {
		/* Exact: user space's search must agree with the list, the program with both. */
		bloom = entry_keys_lookup_range(&p->b.ranges[v6], &e, why, sizeof(why));
		if (bloom != member)
			snprintf(err, errlen, "user space: the intervals say %s, the list %s",
				 bloom ? "yes" : "no", member ? "yes" : "no");
		return member;
	}
	bloom = entry_keys_lookup(&p->hp->lp.filter, &e, why, sizeof(why));
	if (member && !bloom)
		snprintf(err, errlen, "user space: listed address not in the filter");
	if (!member && bloom && !p->st.fp_addr++) {
		char text[INET6_ADDRSTRLEN];

		inet_ntop(v6 ? AF_INET6 : AF_INET, a, text, sizeof(text));
		snprintf(p->st.fp_first, sizeof(p->st.fp_first), "frame %llu: %s (as %.60s)",
			 CNT(p->cur), text, why);
	}
	*allowed = p->c->verify && member && allow;
	return p->c->verify ? member && !allow : bloom;
}

/* The same for the name (and path) a parser found, in field. */
static bool oracle_name(struct fz_prog *p, const char *name, const char *path, bool *allowed,
			char *err, size_t errlen)
{
	bool url = path != NULL, member, allow, bloom;
	struct entry e = { .kind = url ? ENTRY_URL : ENTRY_NAME };
	char why[300];

	member = fz_name_in(&world.block, name) || (url && fz_url_in(&world.block, name, path));
	allow = p->c->allowlist && fz_name_in(&world.allow, name);
	snprintf(e.name, sizeof(e.name), "%.253s", name);
	if (url)
		snprintf(e.path, sizeof(e.path), "%.255s", path);
	bloom = entry_keys_lookup(&p->hp->lp.filter, &e, why, sizeof(why));
	if (member && !bloom)
		snprintf(err, errlen, "user space: listed name not in the filter");
	if (!member && bloom && !p->st.fp_name++ && !p->st.fp_first[0])
		snprintf(p->st.fp_first, sizeof(p->st.fp_first), "frame %llu: %.60s (as %.60s)",
			 CNT(p->cur), name, why);
	*allowed = p->c->verify && member && allow;
	return p->c->verify ? member && !allow : bloom;
}

/* ------------------------------------------------------------- checks */

enum group {
	G_CORE,		/* never excused */
	G_NAME,		/* a name's outcome: excused by defects 4, 5, 6 */
	G_DNS_EMPTY,	/* DNS counters of a datagram without payload: defects 4, 11 */
};

#define MAX_MSGS 8

struct fz_result {
	char msgs[MAX_MSGS][240];
	int groups[MAX_MSGS];
	int n;
};

static void fz_fail(struct fz_result *res, int group, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fz_fail(struct fz_result *res, int group, const char *fmt, ...)
{
	va_list ap;

	if (res->n >= MAX_MSGS)
		return;
	va_start(ap, fmt);
	vsnprintf(res->msgs[res->n], sizeof(res->msgs[0]), fmt, ap);
	va_end(ap);
	res->groups[res->n++] = group;
}

#define EXPECT(group, cond, ...)				\
	do {							\
		if (!(cond))					\
			fz_fail(res, group, __VA_ARGS__);	\
	} while (0)

/*
 * An NXDOMAIN answer: the query turned around (MACs, addresses, ports),
 * cut after the question, lengths and both checksums right, QR and RCODE 3.
 */
static void check_reply(struct fz_result *res, const struct model *m, const struct frame *in,
			const struct frame *out)
{
	const __u8 *q = in->data, *a = out->data;
	__u32 l4 = m->l4, udp_len = out->len - l4, dns = l4 + UDP_HLEN;
	bool v6 = m->cls == M_IPV6;
	struct model om;

	if (out->len < dns + DNS_HDR_LEN + 5 || out->len > in->len) {
		fz_fail(res, G_CORE, "NXDOMAIN answer of %u bytes to a query of %u", out->len,
			in->len);
		return;
	}
	model_parse(a, out->len, &om);
	EXPECT(G_CORE, om.cls == m->cls && om.l4 == l4 && om.l4_proto == IPPROTO_UDP,
	       "NXDOMAIN answer does not parse as the query did");
	EXPECT(G_CORE, !memcmp(a, q + 6, 6) && !memcmp(a + 6, q, 6), "answer: MACs not swapped");
	EXPECT(G_CORE, get_be16(a + l4) == get_be16(q + l4 + 2) &&
		       get_be16(a + l4 + 2) == get_be16(q + l4), "answer: ports not swapped");
	EXPECT(G_CORE, get_be16(a + l4 + 4) == udp_len, "answer: UDP length %u, %u bytes",
	       get_be16(a + l4 + 4), udp_len);
	if (v6) {
		EXPECT(G_CORE, !memcmp(a + m->l3 + 8, q + m->l3 + 24, 16) &&
			       !memcmp(a + m->l3 + 24, q + m->l3 + 8, 16),
		       "answer: IPv6 addresses not swapped");
		EXPECT(G_CORE, get_be16(a + m->l3 + 4) == out->len - m->l3 - IP6_HLEN,
		       "answer: IPv6 payload length %u", get_be16(a + m->l3 + 4));
	} else {
		EXPECT(G_CORE, !memcmp(a + m->l3 + 12, q + m->l3 + 16, 4) &&
			       !memcmp(a + m->l3 + 16, q + m->l3 + 12, 4),
		       "answer: IPv4 addresses not swapped");
		EXPECT(G_CORE, get_be16(a + m->l3 + 2) == out->len - m->l3,
		       "answer: IPv4 total length %u", get_be16(a + m->l3 + 2));
		EXPECT(G_CORE, inet_fold(inet_sum(0, a + m->l3, (a[m->l3] & 15) * 4)) == 0xffff,
		       "answer: bad IPv4 header checksum");
	}
	EXPECT(G_CORE, l4_sum(a, m->l3, l4, udp_len, v6, IPPROTO_UDP) == 0xffff &&
		       get_be16(a + l4 + 6), "answer: bad UDP checksum");
	EXPECT(G_CORE, get_be16(a + dns) == get_be16(q + dns), "answer: DNS id changed");
	EXPECT(G_CORE, (a[dns + 2] & 0x80) && (a[dns + 3] & 0x0f) == 3 &&
		       (a[dns + 2] & 0x78) == (q[dns + 2] & 0x78),
	       "answer: not an NXDOMAIN response");
	EXPECT(G_CORE, get_be16(a + dns + 4) == 1 && !get_be16(a + dns + 6) &&
		       !get_be16(a + dns + 8) && !get_be16(a + dns + 10),
	       "answer: counts %u/%u/%u/%u, not 1/0/0/0", get_be16(a + dns + 4),
	       get_be16(a + dns + 6), get_be16(a + dns + 8), get_be16(a + dns + 10));
	EXPECT(G_CORE, !memcmp(a + dns + DNS_HDR_LEN, q + dns + DNS_HDR_LEN,
			       out->len - dns - DNS_HDR_LEN), "answer: question changed");
}

/* Everything known about one frame, checked against its verdict and counter deltas. */
struct fz_frame_ctx {
	const struct fz_frame *fr;
	struct model m;
	enum m_field field;
	bool examined;		/* the name matcher of field ran */
	bool payload;		/* ... on a payload */
	bool bad_tcp;		/* ... on a malformed TCP header: counted as unparsed */
	bool addr_block, name_known, name_block;
	unsigned int classes;	/* known-defect classes */
};

static struct m_answers_walk answers;

/*
 * A DNS response (field dns-answer): counted once as the model reads it; the
 * first item a list holds (the oracle) decides, unless a malformed record
 * comes first; ANCOUNT above 16 is unparsed whatever is read.
 */
static void check_answers(struct fz_prog *p, struct fz_frame_ctx *x,
			  const struct bloomxdp_counters *d, struct fz_result *res)
{
	const struct model *m = &x->m;
	struct m_answers_walk *w = &answers;
	bool hit = false, known = true, allowed;
	char err[128] = "", text[256];
	__u32 i;

	model_answers(x->fr->f.data, m, w);
	p->st.answers[w->res]++;
	p->st.answers_bad += w->res == MA_CHECKED && w->bad;
	p->st.answers_over += w->res == MA_CHECKED && w->over;
	EXPECT(G_CORE, d->checked_dns_answers == (w->res == MA_CHECKED) &&
		       (w->res != MA_UNPARSED || d->unparsed_dns_answers == 1) &&
		       (w->res != MA_NONE || !d->unparsed_dns_answers),
	       "DNS answer %s: checked_dns_answers +%llu, unparsed_dns_answers +%llu",
	       w->res == MA_NONE ? "without payload" : w->res == MA_UNPARSED ? "unparsed" :
	       "read", CNT(d->checked_dns_answers), CNT(d->unparsed_dns_answers));
	EXPECT(G_CORE, d->hits_dns_answers <= d->checked_dns_answers,
	       "hits_dns_answers +%llu above checked", CNT(d->hits_dns_answers));
	if (w->res != MA_CHECKED)
		return;
	for (i = 0; i < w->n && !hit; i++) {
		const struct ma_item *it = &w->items[i];

		if (!it->addr && !it->text_ok) {
			known = false;		/* the dotted text would misstate its labels */
			break;
		}
		hit = it->addr ? oracle_addr(p, it->v6, it->a, &allowed, err, sizeof(err)) :
		      oracle_name(p, it->name, NULL, &allowed, err, sizeof(err));
		EXPECT(G_CORE, !err[0], "%s", err);
	}
	if (!known)
		return;
	p->st.answers_known++;
	p->st.answers_hit += hit;
	if (i && w->items[i - 1].addr)
		inet_ntop(w->items[i - 1].v6 ? AF_INET6 : AF_INET, w->items[i - 1].a, text,
			  sizeof(text));
	else
		snprintf(text, sizeof(text), "%.200s", i ? w->items[i - 1].name : "");
	EXPECT(G_NAME, d->hits_dns_answers == hit,
	       "DNS answer: item %u of %u (%s, type %u) %s, hits_dns_answers +%llu", i, w->n,
	       text, i ? w->items[i - 1].rr_type : 0, hit ? "must decide" : "none must",
	       CNT(d->hits_dns_answers));
	EXPECT(G_NAME, d->unparsed_dns_answers == (w->over || (!hit && w->bad)),
	       "DNS answer: unparsed_dns_answers +%llu, ANCOUNT over %d, malformed record %d, "
	       "hit %d", CNT(d->unparsed_dns_answers), w->over, w->bad, hit);
}

/*
 * --dns-reply nxdomain: a listed response over UDP, not a fragment, is
 * rewritten in place when its question lies in the first buffer: cut after
 * the question, its checksums right.
 */
static void check_rewrite(struct fz_prog *p, struct fz_frame_ctx *x, __u32 verdict,
			  const struct bloomxdp_counters *d, const struct frame *out,
			  struct fz_result *res)
{
	const struct bloomxdp_config *cfg = &p->hp->config;
	const struct model *m = &x->m;
	__u32 qend = answers.question_end, want;
	bool can;

	if (x->field != F_DNS_ANSWER || !d->hits_dns_answers) {
		EXPECT(G_CORE, !d->dns_answers_rewritten, "dns_answers_rewritten +%llu, field %s",
		       CNT(d->dns_answers_rewritten), m_field_names[x->field]);
		return;
	}
	can = cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN && m->l4_proto == IPPROTO_UDP &&
	      !m->fragment && m->l4 <= 256 && UDP_HLEN + qend <= 300 &&
	      m->l4 + UDP_HLEN + qend <= x->fr->f.len && x->fr->f.len <= FRAME_LINEAR;
	if (cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN && x->fr->f.len <= FRAME_LINEAR)
		EXPECT(G_NAME, d->dns_answers_rewritten == can,
		       "listed response, l4 at %u, question end %u: dns_answers_rewritten +%llu",
		       m->l4, qend, CNT(d->dns_answers_rewritten));
	if (verdict != XDP_PASS || !out || !d->dns_answers_rewritten)
		return;
	p->st.rewritten++;
	want = m->l4 + UDP_HLEN + qend;
	EXPECT(G_NAME, out->len == want, "rewritten response of %u bytes, not %u", out->len, want);
	if (out->len != want)
		return;
	EXPECT(G_NAME, (out->data[m->l4 + UDP_HLEN + 3] & 0xf) == 3 &&
		       !memcmp(out->data + m->l4 + UDP_HLEN + 6, "\0\0\0\0\0\0", 6),
	       "rewritten response: rcode or counts wrong");
	EXPECT(G_NAME, l4_sum(out->data, m->l3, m->l4, out->len - m->l4, m->cls == M_IPV6,
			      IPPROTO_UDP) == 0xffff, "rewritten response: UDP checksum wrong");
	if (m->cls == M_IPV4)
		EXPECT(G_NAME, ipv4_checksum(out->data + m->l3, (out->data[m->l3] & 15) * 4) == 0,
		       "rewritten response: IPv4 header checksum wrong");
}

static void check_frame(struct fz_prog *p, struct fz_frame_ctx *x, __u32 verdict,
			const struct bloomxdp_counters *d, const struct frame *out,
			struct fz_result *res)
{
	const struct bloomxdp_config *cfg = &p->hp->config;
	const struct fz_frame *fr = x->fr;
	const struct model *m = &x->m;
	bool ip = m->cls == M_IPV4 || m->cls == M_IPV6, allowed = false, a2 = false;
	bool monitor = cfg->action == BLOOMXDP_ACTION_MONITOR, names_listed, text_ok = true, chain;
	enum m_quic quic;
	const char *name = fr->name, *path = fr->has_path ? fr->path : NULL;
	char dns_name[BLOOMXDP_NAME_BUF];
	enum fz_parse parse;
	__u32 qend = 0;
	__u64 hits = d->hits_v4 + d->hits_v6 + d->hits_dns + d->hits_http + d->hits_sni +
		     d->hits_quic + d->hits_dns_answers + d->hits_learned;
	__u64 n_allowed = 0;
	char err[128] = "";

	/* The verdict, and the counters every frame moves. */
	EXPECT(G_CORE, verdict == XDP_PASS || verdict == XDP_DROP || verdict == XDP_TX,
	       "verdict %s", verdict_name(verdict));
	EXPECT(G_CORE, d->packets == 1 &&
		       d->bytes == (m->cls == M_SPLIT_ETH ? ETH_HLEN : fr->f.len),
	       "packets +%llu, bytes +%llu", CNT(d->packets), CNT(d->bytes));
	EXPECT(G_CORE, d->passed == (verdict == XDP_PASS) && d->dropped == (verdict == XDP_DROP) &&
		       d->dns_replies == (verdict == XDP_TX),
	       "verdict %s but passed +%llu, dropped +%llu, dns_replies +%llu",
	       verdict_name(verdict), CNT(d->passed), CNT(d->dropped), CNT(d->dns_replies));
	/* malformed is the sum of the bad_* classes; a third VLAN tag is not malformed. */
	EXPECT(G_CORE, d->malformed == d->bad_eth + d->bad_vlan + d->bad_ipv4 + d->bad_ipv4_ihl +
				       d->bad_ipv6, "malformed +%llu is not the sum of bad_*",
	       CNT(d->malformed));
	/*
	 * Each frame is in exactly one of these (with a filter installed, never
	 * no_filter; frames of one buffer, split only when padded).
	 */
	EXPECT(G_CORE, d->malformed + d->vlan_too_deep + d->non_ip + d->no_filter +
		       d->checked_v4 + d->checked_v6 + d->split_headers == 1,
	       "malformed/vlan_too_deep/non_ip/no_filter/checked_v4/checked_v6/split_headers "
	       "not one of them");
	EXPECT(G_CORE, d->split_headers == (m->cls == M_SPLIT_ETH) && d->bad_eth == 0 &&
		       d->bad_vlan == (m->cls == M_BAD_VLAN) &&
		       d->vlan_too_deep == (m->cls == M_VLAN_TOO_DEEP) &&
		       d->non_ip == (m->cls == M_NON_IP) && d->bad_ipv4 == (m->cls == M_BAD_IPV4) &&
		       d->bad_ipv4_ihl == (m->cls == M_BAD_IPV4_IHL) &&
		       d->bad_ipv6 == (m->cls == M_BAD_IPV6) &&
		       d->checked_v4 == (m->cls == M_IPV4) && d->checked_v6 == (m->cls == M_IPV6) &&
		       d->no_filter == 0,
	       "class: the model says %s", m_class_names[m->cls]);
	EXPECT(G_CORE, d->fragments == (ip && m->fragment), "fragments +%llu, model %d",
	       CNT(d->fragments), ip && m->fragment);
	EXPECT(G_CORE, d->ipv6_ext_unparsed == (ip && m->ext_unparsed),
	       "ipv6_ext_unparsed +%llu, model %d", CNT(d->ipv6_ext_unparsed),
	       ip && m->ext_unparsed);
	EXPECT(G_CORE, d->hits_v4 <= d->checked_v4 && d->hits_v6 <= d->checked_v6 &&
		       d->hits_dns <= d->checked_dns && d->hits_http <= d->checked_http &&
		       d->hits_sni <= d->checked_sni && d->hits_quic <= d->checked_quic,
		       "a hits_* counter above its checked_*");
	EXPECT(G_CORE, hits <= 1, "%llu hits for one frame", CNT(hits));

	/* Addresses: the source, then the destination if the source did not block. */
	x->addr_block = false;
	if (ip && (cfg->match & BLOOMXDP_MATCH_SRC)) {
		x->addr_block = oracle_addr(p, m->cls == M_IPV6, m->src, &allowed, err,
					    sizeof(err));
		n_allowed += allowed;
	}
	if (ip && !x->addr_block && (cfg->match & BLOOMXDP_MATCH_DST)) {
		x->addr_block = oracle_addr(p, m->cls == M_IPV6, m->dst, &a2, err, sizeof(err));
		n_allowed += a2;
	}
	EXPECT(G_CORE, !err[0], "%s", err);
	EXPECT(G_CORE, d->hits_v4 == (m->cls == M_IPV4 && x->addr_block) &&
		       d->hits_v6 == (m->cls == M_IPV6 && x->addr_block),
	       "address %s, hits_v4 +%llu, hits_v6 +%llu",
	       x->addr_block ? "blocked" : "not blocked", CNT(d->hits_v4), CNT(d->hits_v6));
	if (ip && !fr->mutated && x->addr_block)
		p->st.listed_dropped++;

	/* The name matcher the port selects, and whether it runs on a payload. */
	names_listed = p->kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS);
	x->field = ip && !x->addr_block && (cfg->match & BLOOMXDP_MATCH_NAMES) ?
		   model_field(cfg, m) : F_NONE;
	x->examined = x->field == F_DNS_TCP || x->field == F_DNS_ANSWER ||
		      (names_listed && (x->field == F_DNS || x->field == F_HTTP ||
					x->field == F_TLS || x->field == F_QUIC));
	quic = x->examined && x->field == F_QUIC ? model_quic_class(m, fr->f.data) : MQ_NONE;
	x->payload = x->field == F_DNS ? model_udp_payload(m) :
		     x->field != F_NONE && x->field != F_QUIC && x->field != F_DNS_ANSWER &&
		     model_tcp_payload(m, fr->f.data);
	x->bad_tcp = x->field != F_NONE && x->field != F_QUIC && x->field != F_DNS &&
		     x->field != F_DNS_ANSWER && model_tcp_malformed(m, fr->f.data);
	p->st.fields[x->field]++;

	/* Known-defect classes of the frame. */
	x->classes = 0;
	if (x->examined && m->l4 >= 1024)
		x->classes |= CLASS(4);
	if (x->examined && x->field == F_DNS && !x->payload)
		x->classes |= CLASS(11);

	if (quic != MQ_INITIAL)
		EXPECT(G_CORE, d->unseen_quic == (quic == MQ_UNSEEN) &&
			       d->unparsed_quic == (quic == MQ_UNPARSED) &&
			       !d->checked_quic && !d->hits_quic && !d->quic_budget_spent,
		       "QUIC: unseen_quic +%llu, unparsed_quic +%llu, checked_quic +%llu, field %s",
		       CNT(d->unseen_quic), CNT(d->unparsed_quic), CNT(d->checked_quic),
		       m_field_names[x->field]);
	else	/* An Initial of a known version: one of them. */
		EXPECT(G_CORE, d->unseen_quic + d->unparsed_quic + d->checked_quic +
			       d->quic_budget_spent == 1,
		       "QUIC Initial: unseen_quic +%llu, unparsed_quic +%llu, checked_quic +%llu, "
		       "quic_budget_spent +%llu", CNT(d->unseen_quic), CNT(d->unparsed_quic),
		       CNT(d->checked_quic), CNT(d->quic_budget_spent));
	if (quic == MQ_INITIAL) {
		p->st.quic_initials++;
		p->st.quic_checked += d->checked_quic;
		p->st.quic_hits += d->hits_quic;
		p->st.quic_unparsed += d->unparsed_quic;
		p->st.quic_unseen += d->unseen_quic;
		p->st.quic_spent += d->quic_budget_spent;
	}
	/* Read as built, but where a budget is set: spent there, and passed, its name unread. */
	EXPECT(G_CORE, !d->quic_budget_spent || cfg->quic_per_sec < FZ_QUIC_PER_SEC,
	       "quic_budget_spent +%llu under a budget of %u a second", CNT(d->quic_budget_spent),
	       cfg->quic_per_sec);
	EXPECT(G_CORE, d->ech_seen <= 1 && (!d->ech_seen || x->field == F_TLS ||
					    x->field == F_QUIC),
	       "ech_seen +%llu, field %s", CNT(d->ech_seen), m_field_names[x->field]);
	EXPECT(G_NAME, d->unseen_dns_tcp == (x->field == F_DNS_TCP && (x->payload || x->bad_tcp)),
	       "unseen_dns_tcp +%llu, field %s", CNT(d->unseen_dns_tcp),
	       m_field_names[x->field]);

	/* Counters of the matchers not selected stay; the selected one counts each payload once. */
	/* An IPv6 chain not walked to its end: unparsed in each name field matched. */
	chain = ip && m->ext_unparsed;
	if (!(x->examined && x->field == F_DNS))
		EXPECT(G_CORE, !d->checked_dns && !d->hits_dns &&
			       d->unparsed_dns == (chain && (cfg->match & BLOOMXDP_MATCH_DNS)),
		       "DNS counters moved, field %s", m_field_names[x->field]);
	else if (x->payload)
		EXPECT(G_NAME, d->checked_dns + d->unparsed_dns == 1,
		       "DNS query: checked_dns +%llu, unparsed_dns +%llu", CNT(d->checked_dns),
		       CNT(d->unparsed_dns));
	else	/* docs/design.md: unparsed_dns, UDP to a DNS port but not one standard query */
		EXPECT(G_DNS_EMPTY, d->unparsed_dns == 1 && !d->checked_dns,
		       "UDP to a DNS port without payload: checked_dns +%llu, unparsed_dns +%llu",
		       CNT(d->checked_dns), CNT(d->unparsed_dns));
	if (x->field != F_DNS_ANSWER)
		EXPECT(G_CORE, !d->checked_dns_answers && !d->hits_dns_answers &&
			       d->unparsed_dns_answers ==
			       (chain && (cfg->match & BLOOMXDP_MATCH_DNS_ANSWERS)),
		       "DNS answer counters moved, field %s", m_field_names[x->field]);
	else
		check_answers(p, x, d, res);
	EXPECT(G_CORE, !d->hits_learned && !d->learned, "learned without a learning list");
	if (!(x->examined && x->field == F_HTTP))
		EXPECT(G_CORE, !d->checked_http && !d->hits_http &&
			       d->unparsed_http == (chain && (cfg->match & BLOOMXDP_MATCH_HTTP)),
		       "HTTP counters moved, field %s", m_field_names[x->field]);
	else
		EXPECT(G_NAME, d->checked_http + d->unparsed_http == (x->payload || x->bad_tcp),
		       "HTTP: checked_http +%llu, unparsed_http +%llu, payload %d, bad TCP %d",
		       CNT(d->checked_http), CNT(d->unparsed_http), x->payload, x->bad_tcp);
	if (!(x->examined && x->field == F_TLS))
		EXPECT(G_CORE, !d->checked_sni && !d->hits_sni &&
			       d->unparsed_tls == (chain && (cfg->match & BLOOMXDP_MATCH_SNI)),
		       "TLS counters moved, field %s", m_field_names[x->field]);
	else	/* Only ClientHellos count: other records pass uncounted. */
		EXPECT(G_NAME, d->checked_sni + d->unparsed_tls ==
			       ((x->payload && model_tls_hello_start(m, fr->f.data)) || x->bad_tcp),
		       "TLS: checked_sni +%llu, unparsed_tls +%llu, payload %d, bad TCP %d",
		       CNT(d->checked_sni), CNT(d->unparsed_tls), x->payload, x->bad_tcp);

	/*
	 * What the matcher must make of the payload: a frame built to be parsed
	 * (or refused) in the field it was sent to says so; for DNS, the model
	 * says so for every frame, mutated or not.
	 */
	parse = FZ_UNKNOWN;
	if (x->examined && x->payload && !fr->mutated &&
	    ((fr->app == APP_DNS && x->field == F_DNS) ||
	     (fr->app == APP_HTTP && x->field == F_HTTP) ||
	     (fr->app == APP_TLS && x->field == F_TLS)))
		parse = fr->parse;
	/* A QUIC Initial as built: read as a TLS ClientHello is (unless its budget is spent). */
	if (x->examined && x->field == F_QUIC && fr->quic && !fr->mutated && quic == MQ_INITIAL &&
	    !d->quic_budget_spent) {
		parse = fr->parse;
		p->st.quic_known++;
		EXPECT(G_NAME, d->unparsed_quic == (parse == FZ_UNPARSED),
		       "QUIC Initial built %s: unparsed_quic +%llu",
		       parse == FZ_UNPARSED ? "not to parse" : "to parse", CNT(d->unparsed_quic));
		EXPECT(G_NAME, d->ech_seen == fr->quic_ech, "QUIC Initial: ech_seen +%llu, built %d",
		       CNT(d->ech_seen), fr->quic_ech);
	}
	if (x->examined && x->payload && x->field == F_DNS) {
		enum fz_parse dns = model_dns(fr->f.data, m, dns_name, &text_ok, &qend) ?
				    FZ_PARSED : FZ_UNPARSED;

		EXPECT(G_CORE, parse == FZ_UNKNOWN || parse == dns,
		       "fuzzer: the DNS model and the generator disagree");
		parse = dns;
		name = dns_name;
		path = NULL;
	}
	x->name_known = parse == FZ_UNPARSED || (parse == FZ_PARSED && text_ok);
	x->name_block = false;
	if (x->name_known && fr->defect && !fr->mutated)
		x->classes |= CLASS(fr->defect);
	if (parse != FZ_UNKNOWN) {
		__u64 checked = x->field == F_DNS ? d->checked_dns : x->field == F_HTTP ?
				d->checked_http : x->field == F_QUIC ? d->checked_quic :
				d->checked_sni;

		p->st.known_names++;
		if (parse == FZ_UNPARSED) {
			EXPECT(G_NAME, !checked, "%s: parsed, though it must not be (%s)",
			       m_field_names[x->field], fr->what);
		} else {
			EXPECT(G_NAME, checked == 1, "%s: not parsed: name \"%s\"",
			       m_field_names[x->field], name);
		}
	}
	if (parse == FZ_PARSED && text_ok) {
		__u64 name_hits = x->field == F_DNS ? d->hits_dns : x->field == F_HTTP ?
				  d->hits_http : x->field == F_QUIC ? d->hits_quic : d->hits_sni;

		err[0] = '\0';
		x->name_block = oracle_name(p, name, path, &allowed, err, sizeof(err));
		n_allowed += allowed;
		EXPECT(G_CORE, !err[0], "%s", err);
		EXPECT(G_NAME, name_hits == x->name_block, "%s: name \"%s\"%s%s %s, hits +%llu",
		       m_field_names[x->field], name, path ? " path " : "", path ? path : "",
		       x->name_block ? "must be blocked" : "must pass", CNT(name_hits));
		if (x->name_block)
			p->st.listed_dropped++;
		else
			p->st.unlisted_passed++;
		/* The answer needs UDP in the first 256 bytes; further in, the query is dropped. */
		if (x->name_block && x->field == F_DNS && !monitor &&
		    cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN)
			EXPECT(G_NAME, verdict == (m->l4 <= 256 && !m->fragment ? XDP_TX : XDP_DROP),
			       "blocked DNS query, l4 at %u: %s", m->l4, verdict_name(verdict));
	}

	/* The verdict follows from the hits. */
	if (monitor) {
		EXPECT(G_CORE, verdict == XDP_PASS && d->would_drop == hits,
		       "monitor: %s, would_drop +%llu, hits %llu", verdict_name(verdict),
		       CNT(d->would_drop), CNT(hits));
	} else {
		/* A response rewritten NXDOMAIN passes on to its client. */
		EXPECT(G_CORE, (verdict != XDP_PASS) == (hits == 1 && !d->dns_answers_rewritten) &&
			       !d->would_drop,
		       "%s with %llu hits, would_drop +%llu, dns_answers_rewritten +%llu",
		       verdict_name(verdict), CNT(hits), CNT(d->would_drop),
		       CNT(d->dns_answers_rewritten));
		check_rewrite(p, x, verdict, d, out, res);
		EXPECT(G_CORE, verdict != XDP_TX || (d->hits_dns == 1 &&
			       cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN),
		       "XDP_TX without a blocked DNS query under --dns-reply nxdomain");
	}

	/*
	 * Bloom counters. With --verify every Bloom hit goes to the exact copy:
	 * bloom_hits = confirmed + false_positives + suffix_false_positives (a
	 * hit at a public suffix the list does not hold is refused; URL host
	 * markers are probes, not hits, and counted in none). Without it (and so
	 * without an allowlist here) every Bloom hit ends the lookup with a hit
	 * unless it is refused at a public suffix: bloom_hits = the hits_*
	 * counters + suffix_false_positives. A hit of the exact intervals (load
	 * --store) is no Bloom hit and needs no confirmation: range_hits, in the
	 * same places.
	 */
	if (p->c->verify) {
		EXPECT(G_CORE, d->bloom_hits == d->confirmed + d->false_positives +
			       d->suffix_false_positives,
		       "bloom_hits +%llu != confirmed +%llu + false_positives +%llu + "
		       "suffix_false_positives +%llu", CNT(d->bloom_hits), CNT(d->confirmed),
		       CNT(d->false_positives), CNT(d->suffix_false_positives));
		EXPECT(G_CORE, d->allowed <= d->confirmed + d->range_hits,
		       "allowed +%llu above confirmed +%llu + range_hits +%llu",
		       CNT(d->allowed), CNT(d->confirmed), CNT(d->range_hits));
		p->st.false_positives += d->false_positives;
	} else {
		EXPECT(G_CORE, !d->confirmed && !d->false_positives &&
			       d->bloom_hits + d->range_hits == hits + d->suffix_false_positives,
		       "no --verify: bloom_hits +%llu, hits %llu, suffix_false_positives +%llu, "
		       "confirmed +%llu, false_positives +%llu", CNT(d->bloom_hits), CNT(hits),
		       CNT(d->suffix_false_positives), CNT(d->confirmed),
		       CNT(d->false_positives));
	}
	if (!p->c->allowlist)
		EXPECT(G_CORE, !d->allowed, "allowed +%llu without an allowlist", CNT(d->allowed));
	else if (!x->examined || x->name_known)
		EXPECT(x->examined ? G_NAME : G_CORE, d->allowed == n_allowed,
		       "allowed +%llu, expected %llu", CNT(d->allowed), CNT(n_allowed));

	/* Every hit is one event, sent or not. */
	if (cfg->events_per_sec)
		EXPECT(G_CORE, d->events_sent + d->events_ratelimited + d->events_lost == hits,
		       "events %llu/%llu/%llu for %llu hits", CNT(d->events_sent),
		       CNT(d->events_ratelimited), CNT(d->events_lost), CNT(hits));
	else
		EXPECT(G_CORE, !d->events_sent && !d->events_ratelimited && !d->events_lost,
		       "events without --events-per-sec");

	if (verdict == XDP_TX && out) {
		check_reply(res, m, &fr->f, out);
		EXPECT(G_NAME, !qend || out->len == m->l4 + UDP_HLEN + qend,
		       "answer of %u bytes, not cut after the question (%u bytes)", out->len,
		       m->l4 + UDP_HLEN + qend);
		p->st.replies++;
	}
}

/* ------------------------------------------------------------- reports */

static void hexdump(const __u8 *p, __u32 len)
{
	__u32 i;

	for (i = 0; i < len; i++) {
		if (i % 16 == 0)
			printf("%s#   %04x:", i ? "\n" : "", i);
		printf(" %02x", p[i]);
	}
	printf("\n");
}

static void print_deltas(const struct bloomxdp_counters *d)
{
	size_t i, n = 0;

	printf("#   counters:");
	for (i = 0; i < HARNESS_NCOUNTERS; i++) {
		__u64 v = *counter_at((struct bloomxdp_counters *)d, i);

		if (v && strcmp(harness_counter_names[i], "bytes"))
			printf("%s %s +%llu", n++ ? "," : "", harness_counter_names[i], CNT(v));
	}
	printf("\n");
}

static void print_frame(const struct fz_prog *p, __u64 index, const struct fz_frame_ctx *x,
			__u32 verdict, const struct bloomxdp_counters *d,
			const struct fz_result *res, const char *why, bool dump)
{
	const struct fz_frame *fr = x->fr;
	int i;

	printf("# %s: config %s seed %llu frame %llu (again: %s --seed %llu"
	       " --config %s --frame %llu -v)\n", why, p->c->name, seed, index, prog_name,
	       seed, p->c->name, index);
	printf("#   %s, %u bytes%s: %s\n", fr->kind, fr->f.len, fr->mutated ? ", mutated" : "",
	       fr->what[0] ? fr->what : "-");
	if (fr->name[0])
		printf("#   name \"%s\"%s%s, %s\n", fr->name, fr->has_path ? " path " : "",
		       fr->has_path ? fr->path : "", fr->parse == FZ_PARSED ? "built to parse" :
		       fr->parse == FZ_UNPARSED ? "built not to parse" : "-");
	printf("#   model: %s, l3 %u, l4 %u (%d), dport %u, ip_end %u, field %s%s%s; verdict %s\n",
	       m_class_names[x->m.cls], x->m.l3, x->m.l4, x->m.l4_proto, x->m.dport, x->m.ip_end,
	       m_field_names[x->field], x->payload ? " with payload" : "",
	       x->addr_block ? ", address blocked" : "", verdict_name(verdict));
	print_deltas(d);
	for (i = 0; res && i < res->n; i++)
		printf("#   check: %s\n", res->msgs[i]);
	if (dump)
		hexdump(fr->f.data, fr->f.len);
}

/* ---------------------------------------------------------------- run */

static struct fz_frame frame_buf;
static struct frame out_buf;

/* One frame: generate, run, read the counters, check. Returns 1 on a new failure. */
static int run_frame(struct fz_prog *p, __u64 index, bool show)
{
	struct rng r = rng_for(seed, p->index, index);
	struct fz_frame_ctx x = { .fr = &frame_buf };
	struct fz_frame *fr = &frame_buf;
	struct bloomxdp_counters now, d;
	bool want_out = p->hp->config.dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN;
	struct fz_result res = { .n = 0 };
	unsigned int excused = 0;
	__u32 verdict = 0;
	size_t i;
	int ret, k;

	fz_gen_frame(&r, &p->gen, fr);
	p->cur = index;
	out_buf.len = 0;
	/* The kernel takes no frame shorter than ETH_HLEN as is: xdp_test_run() pads it. */
	if (fr->f.len < ETH_HLEN)
		ret = xdp_test_run(p->hp->prog_fd, fr->f.data, fr->f.len, NULL, 0, &verdict);
	else
		ret = harness_run_frame(p->hp, &fr->f, want_out ? &out_buf : NULL, &verdict, NULL);
	if (!ret)
		ret = harness_counters(p->hp, &now);
	if (ret) {
		fz_fail(&res, G_CORE, "BPF_PROG_TEST_RUN or the counters: %s", strerror(-ret));
		memset(&d, 0, sizeof(d));
	} else {
		for (i = 0; i < HARNESS_NCOUNTERS; i++)
			*counter_at(&d, i) = *counter_at(&now, i) - *counter_at(&p->prev, i);
		p->prev = now;
		model_parse(fr->f.data, fr->f.len, &x.m);
		check_frame(p, &x, verdict, &d, want_out ? &out_buf : NULL, &res);
	}
	p->st.frames++;
	p->st.verdicts[verdict < 5 ? verdict : 0]++;
	p->st.classes[x.m.cls]++;
	for (k = 0; k < 16; k++)
		if (x.classes & CLASS(k))
			defects[k].in_class++;

	/* Failures a known defect of the frame's class explains are excused. */
	for (i = 0; i < (size_t)res.n; i++) {
		unsigned int by = res.groups[i] == G_NAME ? CLASS(4) | CLASS(5) | CLASS(6) :
				  res.groups[i] == G_DNS_EMPTY ? CLASS(4) | CLASS(11) : 0;

		by &= x.classes;
		for (k = 0; k < 16; k++)
			if ((by & CLASS(k)) && defect_known(k))
				break;
		if (k == 16)
			break;
		excused |= CLASS(k);
	}
	if (show) {
		print_frame(p, index, &x, verdict, &d, &res, res.n ? "failed" : "passed", true);
		if (out_buf.len && verdict == XDP_TX) {
			printf("#   answer:\n");
			hexdump(out_buf.data, out_buf.len);
		}
	}
	if (res.n && i == (size_t)res.n) {
		p->st.excused++;
		for (k = 0; k < 16; k++) {
			if (!(excused & CLASS(k)))
				continue;
			if (!defects[k].failed++) {
				snprintf(defects[k].first, sizeof(defects[k].first),
					 "config %s frame %llu", p->c->name, index);
				if (!show)	/* no dump: the command above repeats it */
					print_frame(p, index, &x, verdict, &d, &res,
						    "known defect, first frame", false);
			}
			break;
		}
		return 0;
	}
	if (res.n) {
		if (p->st.failed++ < 3 && !show)
			print_frame(p, index, &x, verdict, &d, &res, "FAILED", true);
		return 1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_stats(const struct fz_prog *p)
{
	const struct fz_stats *s = &p->st;

	printf("# %s: %llu frames in %.2f s (%.0f frames/s): PASS %llu, DROP %llu, TX %llu;"
	       " ipv4 %llu, ipv6 %llu, malformed %llu, other %llu\n", p->c->name, s->frames,
	       s->seconds, s->seconds > 0 ? s->frames / s->seconds : 0,
	       CNT(s->verdicts[XDP_PASS]), CNT(s->verdicts[XDP_DROP]), CNT(s->verdicts[XDP_TX]),
	       CNT(s->classes[M_IPV4]), CNT(s->classes[M_IPV6]),
	       CNT(s->classes[M_BAD_VLAN] + s->classes[M_BAD_IPV4] +
		   s->classes[M_BAD_IPV4_IHL] + s->classes[M_BAD_IPV6]),
	       CNT(s->classes[M_SPLIT_ETH] + s->classes[M_NON_IP] + s->classes[M_VLAN_TOO_DEEP]));
	printf("# %s: names to dns/http/tls/quic %llu/%llu/%llu/%llu, outcome known %llu; listed keys"
	       " blocked %llu, unlisted names passed %llu; Bloom false positives predicted: %llu"
	       " addresses, %llu names%s; NXDOMAIN answers checked %llu\n", p->c->name,
	       CNT(s->fields[F_DNS]), CNT(s->fields[F_HTTP]), CNT(s->fields[F_TLS]),
	       CNT(s->fields[F_QUIC]),
	       CNT(s->known_names), CNT(s->listed_dropped), CNT(s->unlisted_passed),
	       CNT(s->fp_addr), CNT(s->fp_name), p->c->verify ? " (refused by --verify)" : "",
	       CNT(s->replies));
	if (s->quic_initials)
		printf("# %s: QUIC Initials %llu (%llu as built): checked_quic %llu, hits_quic %llu,"
		       " unparsed_quic %llu, unseen_quic %llu, quic_budget_spent %llu\n", p->c->name,
		       CNT(s->quic_initials), CNT(s->quic_known), CNT(s->quic_checked),
		       CNT(s->quic_hits), CNT(s->quic_unparsed), CNT(s->quic_unseen),
		       CNT(s->quic_spent));
	printf("# %s: DNS responses %llu: no payload %llu, unparsed %llu, read %llu (outcome known"
	       " %llu, listed %llu, a malformed record %llu, ANCOUNT over 16 %llu); rewritten"
	       " NXDOMAIN %llu\n", p->c->name,
	       CNT(s->fields[F_DNS_ANSWER]), CNT(s->answers[MA_NONE]), CNT(s->answers[MA_UNPARSED]),
	       CNT(s->answers[MA_CHECKED]), CNT(s->answers_known), CNT(s->answers_hit),
	       CNT(s->answers_bad), CNT(s->answers_over), CNT(s->rewritten));
	if (s->fp_first[0])
		printf("# %s: first false positive: %s\n", p->c->name, s->fp_first);
	if (p->c->verify)
		printf("# %s: false_positives counter %llu\n", p->c->name, CNT(s->false_positives));
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [--frames N] [--seed S] [--config NAME] [--frame I] [-v]\n",
		prog_name);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "frames", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "frame", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL, *env = getenv("BLOOMXDP_TEST_SEED");
	__u64 frames = 10000, single = 0, f;
	bool have_seed = false, one = false;
	int opt, tap = 0, bad = 0, loaded = 0;
	double total_s = 0;
	__u64 total_frames = 0;
	size_t i;

	prog_name = argv[0];
	while ((opt = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			frames = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 'c':
			only = optarg;
			break;
		case 'f':
			single = strtoull(optarg, NULL, 0);
			one = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind != argc) {
		usage();
		return 2;
	}
	if (!have_seed && env && *env) {
		seed = strtoull(env, NULL, 0);
		have_seed = true;
	}
	if (!have_seed && getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = time(NULL);
	/* Half the range: the seed goes through strtoull again when repeated. */
	if (!have_seed)
		seed >>= 1;
	printf("# fuzz: seed %llu (--seed %llu or BLOOMXDP_TEST_SEED=%llu repeats this run), %llu"
	       " frames per configuration\n", CNT(seed), CNT(seed), CNT(seed), CNT(frames));

	fz_world_init(&world, seed);
	for (i = 0; i < N_CONFIGS; i++)
		loaded += !only || !strcmp(only, configs[i].name);
	if (!loaded) {
		fprintf(stderr, "%s: no configuration named %s\n", prog_name, only);
		return 2;
	}
	for (i = 0; i < N_CONFIGS; i++) {
		struct fz_prog *p;
		double t0;

		if (only && strcmp(only, configs[i].name))
			continue;
		p = calloc(1, sizeof(*p));
		assert(p);
		tap++;
		if (prog_open(p, &configs[i], i)) {
			printf("not ok %d - %s: the program did not load\n", tap, configs[i].name);
			bad++;
			free(p);
			continue;
		}
		if (one) {
			bad += run_frame(p, single, true);
			printf("%s %d - %s: frame %llu\n", bad ? "not ok" : "ok", tap,
			       configs[i].name, single);
			prog_close(p);
			free(p);
			continue;
		}
		t0 = now_s();
		for (f = 0; f < frames; f++)
			run_frame(p, f, verbose);
		p->st.seconds = now_s() - t0;
		total_s += p->st.seconds;
		total_frames += p->st.frames;
		print_stats(p);
		if (p->st.failed) {
			printf("not ok %d - %s: %llu of %llu frames failed a check\n",
			       tap, configs[i].name, p->st.failed, p->st.frames);
			bad++;
		} else {
			printf("ok %d - %s: %llu frames, every check held (%llu"
			       " excused by known defects)\n", tap, configs[i].name, p->st.frames,
			       p->st.excused);
		}
		prog_close(p);
		free(p);
	}
	if (one) {
		printf("1..%d\n", tap);
		fz_world_free(&world);
		return bad ? 1 : 0;
	}
	printf("# all: %llu frames in %.2f s of runs and checks: %.0f frames/s\n",
	       total_frames, total_s, total_s > 0 ? total_frames / total_s : 0);
	for (i = 0; KNOWN_DEFECTS[i].what; i++) {
		const struct known_defect *kd = &KNOWN_DEFECTS[i];
		const struct defect_stats *ds = &defects[kd->id];

		tap++;
		if (ds->failed)
			printf("not ok %d - known defect %d, %s: %llu of %llu frames of its class "
			       "failed (first: %s) # TODO known defect %d: remove it from "
			       "KNOWN_DEFECTS once fixed\n", tap, kd->id, kd->what, CNT(ds->failed),
			       CNT(ds->in_class), ds->first, kd->id);
		else if (ds->in_class)
			printf("ok %d - known defect %d, %s: %llu frames of its class, none "
			       "failed: fixed? remove it from KNOWN_DEFECTS\n", tap, kd->id,
			       kd->what, CNT(ds->in_class));
		else
			printf("ok %d - known defect %d: no frame of its class # SKIP\n", tap,
			       kd->id);
	}
	printf("1..%d\n", tap);
	fz_world_free(&world);
	return bad ? 1 : 0;
}
