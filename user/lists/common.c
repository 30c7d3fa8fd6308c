// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What load, add, del and query share: entries from arguments, the live filter, warnings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/attachment.h"
#include "filter/match.h"
#include "filter/layout.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/log.h"
#include "filter/bloom_plan.h"

/*
 * A list whose entries the attachment never looks at is most likely a
 * mistake (a typo that made an address a domain, a names list on a src-only
 * attachment): say so, once.
 */
void warn_unmatched_kinds(const struct filter *f, const struct bloomxdp_config *cfg,
			  const char *ifname)
{
	__u64 kinds = filter_header(f);
	char match[64];

	match_text(cfg->match, match, sizeof(match));
	if ((kinds & (BLOOMXDP_HAS_NAME_DEPTHS | BLOOMXDP_HAS_URLS)) &&
	    !(cfg->match & BLOOMXDP_MATCH_NAMES))
		log_warn("the list holds domains or URLs, but %s matches only %s: they block "
			 "nothing (attach with --match including dns, http, sni or dns-answers)", ifname, match);
	if ((kinds & (BLOOMXDP_HAS_IPV4 | BLOOMXDP_HAS_IPV6)) &&
	    !(cfg->match & (BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST | BLOOMXDP_MATCH_DNS_ANSWERS)))
		log_warn("the list holds addresses, but %s matches only %s: they block nothing "
			 "(attach with --match including src, dst or dns-answers)", ifname, match);
	if ((kinds & BLOOMXDP_HAS_URLS) && !(cfg->match & BLOOMXDP_MATCH_HTTP))
		log_warn("the list holds URLs, but %s does not match http: they block nothing",
			 ifname);
}

int op_state_get(struct op_state *s)
{
	if (!s->tried)
		s->err = state_open(state_root(s->state_dir), s->ifname, false, &s->sd);
	s->tried = true;
	return s->err;
}

void op_state_close(struct op_state *s)
{
	if (s->tried && !s->err)
		state_close(&s->sd);
	s->tried = false;
}

int live_filter_open(const struct attachment *att, bool exact, struct live_filter *lf)
{
	int ret;

	memset(lf, 0, sizeof(*lf));
	lf->f.map_fd = lf->f.kbloom_fd = -1;
	exact_set_init(&lf->exact);
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &lf->slot);
	if (!ret)
		ret = filter_open(att->filter_fd, lf->slot, &att->config, &lf->f);
	if (!ret)
		ret = filter_open_kernel(att->kfilter_fd, lf->slot, &lf->f);
	if (!ret && exact && exact_outer_has(&att->verify, lf->slot))
		ret = exact_set_open(&att->verify, lf->slot, &lf->exact);
	if (!ret)
		ret = attachment_read_state(att, lf->slot, &lf->st);
	return ret;
}

void live_filter_close(struct live_filter *lf)
{
	exact_set_close(&lf->exact);
	filter_close(&lf->f);
}

/*
 * Distinct keys in a filter: estimated from the fill where the bits can be
 * read, so that duplicates do not count; else the keys inserted.
 */
double filter_keys_now(const struct filter *f, const struct bloomxdp_state *st)
{
	if (!f->ops->readable)
		return st->keys;
	return bloom_entries_for_fill(f->bits, f->hashes, (double)filter_popcount(f) / f->bits);
}

static __u32 entry_allow_flag(const struct entry *e)
{
	if (e->kind != ENTRY_ADDR)
		return BLOOMXDP_ALLOW_HAS_NAMES;
	return key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? BLOOMXDP_ALLOW_HAS_V4 :
							   BLOOMXDP_ALLOW_HAS_V6;
}

/*
 * Inserts entries into the live allowlist, in place; *added says how many
 * made it when one fails (the allowlist is full).
 */
int allowlist_insert(struct attachment *att, const struct entry *e, size_t n, size_t *added)
{
	struct exact_set live;
	__u32 slot;
	int ret;

	*added = 0;
	ret = attachment_active(att, BLOOMXDP_ACTIVE_ALLOW, &slot);
	if (!ret)
		ret = exact_set_open(&att->allow, slot, &live);
	if (ret)
		return ret;
	for (; *added < n && !ret; ++*added) {
		ret = exact_set_add(&live, att->config.hash_key, &e[*added]);
		/* After the entry: a packet may then look it up. */
		if (!ret)
			ret = attachment_allow_add_flags(att, entry_allow_flag(&e[*added]));
		if (ret)
			break;
	}
	exact_set_close(&live);
	return ret;
}


static int take_entry(const struct entry *e, void *ctx)
{
	struct parsed_args *p = ctx;
	struct entry *grown_e;
	int *grown_a;

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		grown_e = realloc(p->e, p->cap * sizeof(*grown_e));
		if (grown_e)
			p->e = grown_e;
		grown_a = realloc(p->arg, p->cap * sizeof(*grown_a));
		if (grown_a)
			p->arg = grown_a;
		if (!grown_e || !grown_a)
			return -ENOMEM;
	}
	p->e[p->n] = *e;
	p->arg[p->n++] = p->current;
	return 0;
}

void parsed_args_free(struct parsed_args *p)
{
	free(p->e);
	free(p->arg);
}

/* One command-line argument, its entries into p; after ends the error line. */
int parse_arg(const char *arg, enum list_format format, struct parsed_args *p, const char *after)
{
	struct list_parse parse;
	const char *why = NULL;
	char text[1024];
	int ret;

	if (strlen(arg) >= sizeof(text) || strpbrk(arg, " \t\r\n")) {
		log_error("%s: one address, domain or URL per argument%s", arg, after);
		return -EINVAL;
	}
	strcpy(text, arg);
	list_parse_init(&parse, format, NULL);
	ret = list_parse_line(&parse, text, take_entry, p, &why);
	if (ret == -ENOMEM) {
		log_error("%s: out of memory%s", arg, after);
		return ret;
	}
	if (ret) {
		log_error("%s: %s%s", arg, why ? why : "not an entry", after);
		return -EINVAL;
	}
	/* What add stores; query looks up what the XDP program examines, the same. */
	if (parse.widened && *after)
		log_warn("%s: %s", arg, parse.widened);
	return 0;
}

int entry_ranged_family(const struct filter *f, const struct entry *e)
{
	int fam;

	if (e->kind != ENTRY_ADDR)
		return -1;
	fam = key_family(&e->addr) == BLOOMXDP_KEY_IPV4 ? 0 : 1;
	return BLOOMXDP_IS_RANGES_WORD(filter_header_word(f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
							     BLOOMXDP_HDR_V4_LENGTHS)) ? fam : -1;
}
