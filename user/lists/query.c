// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* query: what the XDP program decides for an entry, and why. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/attachment.h"
#include "filter/entry_keys.h"
#include "lists/build.h"
#include "lists/learned.h"
#include "lists/lists.h"
#include "util/log.h"
#include "lists/named.h"
#include "lists/report.h"
#include "parse/prefixes.h"
#include "filter/suffix_map.h"

/*
 * With --verify, the listed prefix the exact copy matched (the Bloom hit may
 * have been a false positive at another length): into matched, or "" for a
 * host entry.
 */
static void exact_prefix_text(const struct exact_set *x, const struct bloomxdp_key *addr,
			      char *matched, size_t len)
{
	int len1 = exact_set_match_len(x, addr);
	struct bloomxdp_key listed = *addr;
	__u32 fam = key_family(addr);

	matched[0] = '\0';
	if (!len1 || (__u32)len1 - 1 >= key_width(addr))
		return;
	if (fam == BLOOMXDP_KEY_IPV4)
		bloomxdp_key_ipv4(&listed, (const __u8 *)&addr->word[0] + 4, len1 - 1);
	else
		bloomxdp_key_ipv6(&listed, &addr->word[1], len1 - 1);
	prefix_text(&listed, matched, len);
}

/*
 * What query says after "blocked", for a prefix: which one matched. Only the
 * exact copy (--verify) knows a prefix is listed; the filter alone matches a
 * key that may be a false positive, and says so.
 */
static enum query_said verdict_of(const struct entry *e, bool blocked, const char *matched,
				  bool exact)
{
	if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '/') && exact)
		return QUERY_PREFIX;
	if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '-') && exact)
		return QUERY_RANGE;
	if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '/'))
		return QUERY_FILTER_PREFIX;
	return blocked ? QUERY_BLOCKED : QUERY_NOT_BLOCKED;
}

/* One verdict more into r; text (may be NULL) is copied. */
static int verdict_add(struct query_result *r, const char *arg, enum query_said said,
		       const char *text, bool monitored)
{
	struct query_verdict *grown;

	if (r->n == r->cap) {
		grown = realloc(r->v, (r->cap ? 2 * r->cap : 16) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		r->v = grown;
		r->cap = r->cap ? 2 * r->cap : 16;
	}
	r->v[r->n] = (struct query_verdict){ .arg = arg, .said = said, .monitored = monitored,
					     .text = text ? strdup(text) : NULL };
	if (text && !r->v[r->n].text)
		return -ENOMEM;
	r->n++;
	return 0;
}

/* What the state says of a Bloom hit: the list as last applied, read back. */
struct listed_check {
	const struct entry *q;
	const struct entry_set *skip;	/* what del took out of the copy being read */
	char covering[NAME_TEXT_MAX + BLOOMXDP_PATH_MAX + 8];
};

/* name is host itself, or under it. */
static bool name_under(const char *name, const char *host)
{
	size_t n = strlen(name), h = strlen(host);

	return n == h ? !strcmp(name, host) :
	       n > h && name[n - h - 1] == '.' && !strcmp(name + n - h, host);
}

/* Whether the listed entry l covers the queried q, as the XDP program would match it. */
static bool covers(const struct entry *l, const struct entry *q)
{
	struct bloomxdp_key k;
	__u32 len;
	size_t plen;

	if (l->allow)
		return false;
	if (q->kind == ENTRY_ADDR) {
		if (l->kind != ENTRY_ADDR || key_family(&l->addr) != key_family(&q->addr))
			return false;
		len = key_prefix_len(&l->addr);
		if (len > key_prefix_len(&q->addr))
			return false;
		memset(&k, 0, sizeof(k));
		if (key_family(&q->addr) == BLOOMXDP_KEY_IPV4) {
			bloomxdp_key_ipv4(&k, (const __u8 *)&q->addr.word[0] + 4, len);
			return k.word[0] == l->addr.word[0];
		}
		bloomxdp_key_ipv6(&k, &q->addr.word[1], len);
		return !memcmp(k.word, l->addr.word, sizeof(k.word));
	}
	if (l->kind == ENTRY_ADDR || !name_under(q->name, l->name))
		return false;
	if (l->kind == ENTRY_NAME)
		return true;
	/* A listed URL: the queried one's path starts with its path, segment by segment. */
	plen = strlen(l->path);
	return q->kind == ENTRY_URL && !strncmp(q->path, l->path, plen) &&
	       (q->path[plen] == '\0' || q->path[plen] == '/');
}

static int check_listed(const struct entry *e, void *ctx)
{
	struct listed_check *c = ctx;

	if (!covers(e, c->q) || (c->skip && entry_set_has(c->skip, e)))
		return 0;
	if (e->kind == ENTRY_ADDR) {
		prefix_text(&e->addr, c->covering, sizeof(c->covering));
		/* A host as itself, without "/32". */
		if (key_prefix_len(&e->addr) == key_width(&e->addr) && strchr(c->covering, '/'))
			*strchr(c->covering, '/') = '\0';
	}
	else
		snprintf(c->covering, sizeof(c->covering), "%s%s", e->name,
			 e->kind == ENTRY_URL ? e->path : "");
	return -ECANCELED;	/* found: stop reading */
}

/* A query: the live maps of the attachment, and the state's list once a hit needs it. */
struct query_op {
	const struct list_opts *o;
	struct attachment att;
	struct live_filter lf;		/* its exact copy only with --verify */
	struct exact_set allow;
	struct suffix_map public_suffixes;
	struct range_set ranges[2];
	struct named_view nv;
	bool exact_live;
	/* The list as last applied, read when a Bloom hit first needs it. */
	bool state_tried;
	const char *no_state;		/* why it cannot tell, when it cannot */
	struct list_inputs in;
	struct list_opts lo;
	struct csv_spec csv;
	struct query_result *r;
};

/*
 * The state's list as live now, for query to tell a listed entry from a false
 * positive; why says why not where it is not there.
 */
static void open_listed(struct query_op *q)
{
	const char *bad;
	int ret;

	q->state_tried = true;
	ret = list_inputs_state(&q->in, q->att.ifname, q->o->state_dir, false, false, &q->lo);
	if (ret == -ENOENT)
		q->no_state = "it has no state (attached by an older bloomxdp, or the state was "
			      "removed)";
	else if (!ret && q->in.list.generation != q->lf.st.generation)
		q->no_state = "its state records another generation (a load did not complete its "
			      "state write)";
	else if (!ret && csv_spec_parse(q->lo.column, q->lo.where.items, q->lo.where.count,
					&q->csv, &bad))
		q->no_state = "its state's options cannot be read";
	else if (ret)
		q->no_state = "its state cannot be read";
}

/* Whether a listed entry of the state covers e: its text into c->covering. */
static int find_listed(struct list_inputs *in, const struct list_opts *lo,
		       const struct csv_spec *csv, struct listed_check *c)
{
	struct list_read_opts ro = { .csv = csv, .lenient = lo->lenient };
	char err[LIST_ERROR_LEN];
	int i, ret = 0;

	c->covering[0] = '\0';
	for (i = 0; i < in->n && !ret; i++) {
		if (lseek(in->in[i].fd, 0, SEEK_SET))
			return -errno;
		ro.format = in->in[i].format;
		c->skip = i < in->list.nsources ? &in->deleted : NULL;
		ret = list_read_fd(in->in[i].fd, in->in[i].name, &ro, check_listed, c, err);
	}
	if (ret == -ECANCELED)
		return 1;
	return ret;
}

/* The live maps the XDP program decides with: said, when they cannot be opened. */
static int query_open(struct query_op *q, const char *ifname)
{
	struct attachment *att = &q->att;
	__u32 allow_slot;
	int fam, ret;

	ret = live_filter_open(att, att->config.verify != BLOOMXDP_VERIFY_OFF, &q->lf);
	q->exact_live = q->lf.exact.names_fd >= 0;
	if (!ret)
		ret = attachment_active(att, BLOOMXDP_ACTIVE_ALLOW, &allow_slot);
	if (!ret)
		ret = exact_set_open(&att->allow, allow_slot, &q->allow);
	/* A hit at a public suffix stands only when listed, as in the program. */
	if (!ret)
		ret = suffix_map_read(&q->public_suffixes, att->suffixes_fd);
	q->lf.f.public_suffixes = &q->public_suffixes;
	q->lf.f.slot = q->lf.slot;
	for (fam = 0; fam < 2 && !ret; fam++) {
		__u64 word = filter_header_word(&q->lf.f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
							  BLOOMXDP_HDR_V4_LENGTHS);

		if (BLOOMXDP_IS_RANGES_WORD(word))
			ret = range_set_open(fam ? att->ranges_v6_fd : att->ranges_v4_fd,
					     q->lf.slot,
					     fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4,
					     &q->ranges[fam]);
	}
	if (!ret)
		ret = named_view_read(att, &q->nv);
	if (!ret && q->o->list && named_view_find(&q->nv, q->o->list) < 0) {
		log_error("%s has no list %s", ifname, q->o->list);
		return -ENOENT;
	}
	if (ret)
		log_error("cannot open the live lists of %s: %s", ifname, strerror(-ret));
	return ret;
}

/*
 * With named lists: the lists holding e, and the verdict when theirs (1), or
 * that of the default list to come (0).
 */
static int query_named(struct query_op *q, const char *arg, const struct entry *e)
{
	char names[BLOOMXDP_LIST_IDS * (BLOOMXDP_LIST_NAME_MAX + 2)];
	const char *list = q->o->list;
	__u32 action, mask;
	int ret;

	if (!list && !(q->nv.present & BLOOMXDP_LISTS_NAMED))
		return 0;
	mask = named_holding(&q->att, &q->nv, e, names, sizeof(names), &action);
	if (list) {
		mask &= 1U << named_view_find(&q->nv, list);
		ret = verdict_add(q->r, arg, mask ? QUERY_IN_LIST : QUERY_NOT_IN_LIST, list, false);
		return ret ? ret : 1;
	}
	if (mask && !entry_keys_allowed(&q->allow, q->att.config.hash_key, e)) {
		ret = verdict_add(q->r, arg, QUERY_NAMED, names, action == BLOOMXDP_LIST_MONITOR);
		return ret ? ret : 1;
	}
	if (!mask && !(q->nv.present & BLOOMXDP_LIST_DEFAULT_PRESENT)) {
		ret = verdict_add(q->r, arg, QUERY_NOT_BLOCKED, NULL, false);
		return ret ? ret : 1;
	}
	return 0;
}

/*
 * A Bloom hit: the list as last applied names the listed entry; with the
 * filter alone it also tells a listed entry from a false positive (the exact
 * stage refused those already). 1 when said, 0 when not (print the hit).
 */
static int query_listed(struct query_op *q, const char *arg, const struct entry *e)
{
	struct listed_check lc = { .q = e };
	int ret;

	if (!q->state_tried)
		open_listed(q);
	ret = q->no_state ? 0 : find_listed(&q->in, &q->lo, &q->csv, &lc);
	if (ret == 1)
		return verdict_add(q->r, arg, QUERY_LISTED, lc.covering, false) ?: 1;
	if (!ret && !q->no_state && !q->exact_live)
		return verdict_add(q->r, arg, QUERY_FALSE_POSITIVE, NULL, false) ?: 1;
	if (ret)
		q->no_state = "its state's copy of the list cannot be read";
	return 0;
}

/*
 * A host address learned from a DNS answer (load --learn): a verdict of its
 * own, before the lists' (a packet from or to it gets the learning list's
 * action until it expires; the allowlist wins). query --list: that list's only.
 */
static int query_learned(struct query_op *q, const char *arg, const struct entry *e)
{
	struct bloomxdp_learn_key k;
	struct learned_view *v;
	char name[BLOOMXDP_LIST_NAME_MAX + 16];
	__u32 id, action;
	int ret;

	if (e->kind != ENTRY_ADDR || learned_key_of(&e->addr, &k))
		return 0;
	v = malloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	ret = learned_find(q->att.learned_fd, &k, v);
	id = v->v.list;
	/* The map is the program's: an id no present list has is said as such. */
	if (!ret && id < BLOOMXDP_LIST_IDS && id && (q->nv.present & (1U << id)))
		snprintf(name, sizeof(name), "%s", q->nv.list[id].name);
	else
		snprintf(name, sizeof(name), "id %u (no longer present)", id);
	if (ret || (q->o->list && strcmp(q->o->list, name))) {
		free(v);
		return ret == -ENOENT || !ret ? 0 : ret;
	}
	action = id < BLOOMXDP_LIST_IDS ? list_action_of(&q->nv.list[id], &q->att.config) :
					  BLOOMXDP_LIST_PASS;
	ret = verdict_add(q->r, arg, QUERY_LEARNED, name, action == BLOOMXDP_LIST_MONITOR);
	if (ret) {
		free(v);
		return ret;
	}
	q->r->v[q->r->n - 1].learned = v;
	q->r->v[q->r->n - 1].allowed = entry_keys_allowed(&q->allow, q->att.config.hash_key, e);
	return 0;
}

/* What the XDP program decides for e (arg as given), into q->r; -errno only out of memory. */
static int query_one(struct query_op *q, const char *arg, const struct entry *e)
{
	const __u64 *key = q->att.config.hash_key;
	char matched[512];
	bool blocked;
	int fam, ret;

	ret = query_learned(q, arg, e);
	if (ret)
		return ret;
	ret = query_named(q, arg, e);
	if (ret)
		return ret < 0 ? ret : 0;
	fam = e->kind != ENTRY_ADDR ? -1 : key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1;
	if (fam >= 0 && q->ranges[fam].family && q->ranges[fam].r) {
		/* Exact: no false positive to refuse, what matched is listed. */
		blocked = entry_keys_lookup_range(&q->ranges[fam], e, matched, sizeof(matched));
		if (blocked && entry_keys_allowed(&q->allow, key, e)) {
			log_debug("%s: on the allowlist", arg);
			blocked = false;
		}
		return verdict_add(q->r, arg, verdict_of(e, blocked, matched, true), matched,
				   false);
	}
	blocked = entry_keys_lookup(&q->lf.f, e, matched, sizeof(matched));
	if (blocked && q->exact_live) {
		blocked = entry_keys_confirm(&q->lf.exact, key, e);
		if (!blocked)
			log_debug("%s: a false positive of the filter, refused by --verify", arg);
		else if (e->kind == ENTRY_ADDR)
			exact_prefix_text(&q->lf.exact, &e->addr, matched, sizeof(matched));
	}
	if (blocked && entry_keys_allowed(&q->allow, key, e)) {
		log_debug("%s: on the allowlist", arg);
		blocked = false;
	}
	ret = blocked ? query_listed(q, arg, e) : 0;
	if (ret)
		return ret < 0 ? ret : 0;
	ret = verdict_add(q->r, arg, verdict_of(e, blocked, matched, q->exact_live), matched,
			  false);
	if (blocked && q->no_state && !q->exact_live)
		log_warn("%s: cannot tell a listed entry from a false positive of the filter: %s",
			 q->att.ifname, q->no_state);
	if (blocked && matched[0])
		log_debug("%s: matched the %s %s %s", arg,
			  q->exact_live ? "listed" : "filter's key of a",
			  e->kind == ENTRY_ADDR ? "prefix" :
			  strchr(matched, '/') ? "URL" : "domain", matched);
	if (blocked && !q->exact_live)
		log_debug("%s: the filter alone cannot tell a listed entry from a false positive "
			  "(attach --verify can)", arg);
	return ret;
}

int list_query(const char *given, const struct list_opts *o, char **entries, int n,
	       struct query_result *r)
{
	char ifname[IF_NAMESIZE];
	struct query_op q = { .o = o, .r = r, .in = { .sd = { -1, -1 } },
			      .lo = { .format = FORMAT_AUTO } };
	struct parsed_args args = {};
	int i, ret, bad = 0;

	/* A group's member: its lists are its home's (attach IF1 IF2 ...). */
	attachment_home(given, ifname);

	memset(r, 0, sizeof(*r));
	range_set_init(&q.ranges[0], 0);
	range_set_init(&q.ranges[1], 0);
	exact_set_init(&q.allow);
	suffix_map_init(&q.public_suffixes);
	ret = attachment_open(ifname, false, &q.att);
	if (ret)
		return ret;
	ret = query_open(&q, ifname);
	for (i = 0; i < n && !ret; i++) {
		args.n = 0;
		if (parse_arg(entries[i], FORMAT_AUTO, &args, "")) {
			bad++;
			continue;
		}
		if (args.n != 1) {
			log_error("%s: query one address, prefix, domain or URL at a time",
				  entries[i]);
			bad++;
			continue;
		}
		ret = query_one(&q, entries[i], &args.e[0]);
	}
	if (!ret)
		ret = bad ? -EINVAL : 0;
	list_inputs_free(&q.in);
	free(q.lo.where.items);
	parsed_args_free(&args);
	range_set_free(&q.ranges[0]);
	range_set_free(&q.ranges[1]);
	exact_set_close(&q.allow);
	live_filter_close(&q.lf);
	suffix_map_free(&q.public_suffixes);
	attachment_close(&q.att);
	return ret;
}
