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
#include "lists/lists.h"
#include "util/log.h"
#include "lists/named.h"
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
static void print_verdict(const char *arg, const struct entry *e, bool blocked,
			  const char *matched, bool exact)
{
	if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '/') && exact)
		printf("%s: blocked (listed prefix %s)\n", arg, matched);
	else if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '-') && exact)
		printf("%s: blocked (listed range %s)\n", arg, matched);
	else if (blocked && e->kind == ENTRY_ADDR && strchr(matched, '/'))
		printf("%s: blocked (the filter matches %s: listed, or a false positive)\n", arg,
		       matched);
	else
		printf("%s: %s\n", arg, blocked ? "blocked" : "not blocked");
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

/*
 * The state's list as live now, for query to tell a listed entry from a false
 * positive; why says why not where it is not there.
 */
static int open_listed(struct attachment *att, const struct list_opts *o, __u32 slot,
		       struct list_inputs *in, struct list_opts *lo, struct csv_spec *csv,
		       const char **why)
{
	struct bloomxdp_state st = {};
	const char *bad;
	int ret;

	ret = attachment_read_state(att, slot, &st);
	if (!ret)
		ret = list_inputs_state(in, att->ifname, o->state_dir, false, false, lo);
	if (ret == -ENOENT)
		*why = "it has no state (attached by an older bloomxdp, or the state was removed)";
	else if (!ret && in->list.generation != st.generation)
		*why = "its state records another generation (a load did not complete its state "
		       "write)";
	else if (!ret && csv_spec_parse(lo->column, lo->where.items, lo->where.count, csv, &bad))
		*why = "its state's options cannot be read";
	else if (ret)
		*why = "its state cannot be read";
	else
		return 0;
	return -ENOENT;
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

int list_query(const char *ifname, const struct list_opts *o, char **entries, int n)
{
	struct exact_set verify, allow;
	bool exact_live;
	struct filter f = { .map_fd = -1 };
	struct suffix_keys public_suffixes;
	__u32 block_slot, allow_slot;
	struct parsed_args args = {};
	struct attachment att;
	char matched[512], names[BLOOMXDP_LIST_IDS * (BLOOMXDP_LIST_NAME_MAX + 2)];
	struct named_view nv;
	struct entry e;
	struct range_set ranges[2];
	struct list_inputs in = { .sd = { -1, -1 } };
	struct list_opts lo = { .format = FORMAT_AUTO };
	struct listed_check lc;
	struct csv_spec csv;
	const char *no_state = NULL;
	bool state_tried = false, blocked;
	int i, fam, ret, bad = 0;

	range_set_init(&ranges[0], 0);
	range_set_init(&ranges[1], 0);
	exact_set_init(&verify);
	exact_set_init(&allow);
	suffix_keys_init(&public_suffixes);
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &block_slot);
	if (!ret)
		ret = attachment_active(&att, BLOOMXDP_ACTIVE_ALLOW, &allow_slot);
	if (!ret)
		ret = filter_open(att.filter_fd, block_slot, &att.config, &f);
	if (!ret)
		ret = filter_open_kernel(att.kfilter_fd, block_slot, &f);
	if (!ret && att.config.verify && exact_outer_has(&att.verify, block_slot))
		ret = exact_set_open(&att.verify, block_slot, &verify);
	exact_live = verify.names_fd >= 0;
	if (!ret)
		ret = exact_set_open(&att.allow, allow_slot, &allow);
	/* A hit at a public suffix stands only when listed, as in the program. */
	if (!ret)
		ret = suffix_keys_read(&public_suffixes, att.suffixes_fd);
	f.public_suffixes = &public_suffixes;
	f.slot = block_slot;
	for (fam = 0; fam < 2 && !ret; fam++) {
		__u64 word = filter_header_word(&f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
						    BLOOMXDP_HDR_V4_LENGTHS);

		if (BLOOMXDP_IS_RANGES_WORD(word))
			ret = range_set_open(fam ? att.ranges_v6_fd : att.ranges_v4_fd, block_slot,
					     fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4,
					     &ranges[fam]);
	}
	if (!ret)
		ret = named_view_read(&att, &nv);
	if (!ret && o->list && named_view_find(&nv, o->list) < 0) {
		log_error("%s has no list %s", ifname, o->list);
		ret = -ENOENT;
		goto cleanup;
	}
	if (ret) {
		log_error("cannot open the live lists of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
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
		e = args.e[0];
		if (o->list || (nv.present & BLOOMXDP_LISTS_NAMED)) {
			__u32 action, mask = named_holding(&att, &nv, &e, names, sizeof(names),
							   &action);

			if (o->list) {
				mask &= 1U << named_view_find(&nv, o->list);
				printf("%s: %s %s\n", entries[i], mask ? "listed in" : "not in",
				       o->list);
				continue;
			}
			if (mask && !blocklist_allowed(&allow, att.config.hash_key, &e)) {
				printf("%s: %s (listed in %s)\n", entries[i],
				       action == BLOOMXDP_LIST_MONITOR ? "monitored" : "blocked",
				       names);
				continue;
			}
			if (!mask && !(nv.present & BLOOMXDP_LIST_DEFAULT_PRESENT)) {
				printf("%s: not blocked\n", entries[i]);
				continue;
			}
		}
		fam = e.kind != ENTRY_ADDR ? -1 : key_family(&e.addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1;
		if (fam >= 0 && ranges[fam].family && ranges[fam].r) {
			/* Exact: no false positive to refuse, what matched is listed. */
			blocked = blocklist_lookup_range(&ranges[fam], &e, matched,
							 sizeof(matched));
			if (blocked && blocklist_allowed(&allow, att.config.hash_key, &e)) {
				log_debug("%s: on the allowlist", entries[i]);
				blocked = false;
			}
			print_verdict(entries[i], &e, blocked, matched, true);
			continue;
		}
		blocked = blocklist_lookup(&f, &e, matched, sizeof(matched));
		if (blocked && exact_live) {
			blocked = blocklist_confirm(&verify, att.config.hash_key, &e);
			if (!blocked)
				log_debug("%s: a false positive of the filter, refused by --verify",
					  entries[i]);
			else if (e.kind == ENTRY_ADDR)
				exact_prefix_text(&verify, &e.addr, matched, sizeof(matched));
		}
		if (blocked && blocklist_allowed(&allow, att.config.hash_key, &e)) {
			log_debug("%s: on the allowlist", entries[i]);
			blocked = false;
		}
		if (blocked) {
			/*
			 * The list as last applied names the listed entry; with the
			 * filter alone it also tells a listed entry from a false
			 * positive (the exact stage refused those already).
			 */
			if (!state_tried) {
				state_tried = true;
				open_listed(&att, o, block_slot, &in, &lo, &csv, &no_state);
			}
			lc.q = &e;
			ret = no_state ? 0 : find_listed(&in, &lo, &csv, &lc);
			if (ret == 1) {
				printf("%s: blocked (listed: %s)\n", entries[i], lc.covering);
				continue;
			}
			if (!ret && !no_state && !exact_live) {
				printf("%s: blocked (a false positive of the filter: not in the "
				       "list as last applied)\n", entries[i]);
				continue;
			}
			if (ret)
				no_state = "its state's copy of the list cannot be read";
		}
		print_verdict(entries[i], &e, blocked, matched, exact_live);
		if (blocked && no_state && !exact_live)
			log_warn("%s: cannot tell a listed entry from a false positive of the "
				 "filter: %s", ifname, no_state);
		if (blocked && matched[0])
			log_debug("%s: matched the %s %s %s", entries[i],
				  exact_live ? "listed" : "filter's key of a",
				  e.kind == ENTRY_ADDR ? "prefix" :
				  strchr(matched, '/') ? "URL" : "domain", matched);
		if (blocked && !exact_live)
			log_debug("%s: the filter alone cannot tell a listed entry from a false "
				  "positive (attach --verify can)", entries[i]);
	}
	ret = bad ? -EINVAL : 0;
cleanup:
	list_inputs_free(&in);
	free(lo.where.items);
	parsed_args_free(&args);
	range_set_free(&ranges[0]);
	range_set_free(&ranges[1]);
	exact_set_close(&verify);
	exact_set_close(&allow);
	filter_close(&f);
	suffix_keys_free(&public_suffixes);
	attachment_close(&att);
	return ret;
}
