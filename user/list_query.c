// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* query: what the XDP program decides for an entry, and why. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attachment.h"
#include "blocklist.h"
#include "listbuild.h"
#include "lists.h"
#include "log.h"

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

int list_query(const char *ifname, const struct list_opts *o, char **entries, int n)
{
	struct exact_set verify, allow;
	struct filter f = { .map_fd = -1 };
	__u32 block_slot, allow_slot;
	struct parsed_args args = {};
	struct attachment att;
	char matched[512];
	struct entry e;
	struct range_set ranges[2];
	int i, fam, ret, bad = 0;
	bool blocked;

	(void)o;
	range_set_init(&ranges[0], 0);
	range_set_init(&ranges[1], 0);
	exact_set_init(&verify);
	exact_set_init(&allow);
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
	if (!ret && att.config.verify)
		ret = exact_set_open(&att.verify, block_slot, &verify);
	if (!ret)
		ret = exact_set_open(&att.allow, allow_slot, &allow);
	for (fam = 0; fam < 2 && !ret; fam++) {
		__u64 word = filter_header_word(&f, fam ? BLOOMXDP_HDR_V6_LENGTHS :
						    BLOOMXDP_HDR_V4_LENGTHS);

		if (BLOOMXDP_IS_RANGES_WORD(word))
			ret = range_set_open(fam ? att.ranges_v6_fd : att.ranges_v4_fd, block_slot,
					     fam ? BLOOMXDP_KEY_IPV6 : BLOOMXDP_KEY_IPV4,
					     &ranges[fam]);
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
		if (blocked && att.config.verify) {
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
		print_verdict(entries[i], &e, blocked, matched, att.config.verify);
		if (blocked && matched[0])
			log_debug("%s: matched the %s %s %s", entries[i],
				  att.config.verify ? "listed" : "filter's key of a",
				  e.kind == ENTRY_ADDR ? "prefix" :
				  strchr(matched, '/') ? "URL" : "domain", matched);
		if (blocked && !att.config.verify)
			log_debug("%s: the filter alone cannot tell a listed entry from a false "
				  "positive (attach --verify can)", entries[i]);
	}
	ret = bad ? -EINVAL : 0;
cleanup:
	parsed_args_free(&args);
	range_set_free(&ranges[0]);
	range_set_free(&ranges[1]);
	exact_set_close(&verify);
	exact_set_close(&allow);
	filter_close(&f);
	attachment_close(&att);
	return ret;
}
