// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A fleet node's side of the attachment: versions and deltas into the live list (fleet/node.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/attach.h"
#include "kernel/attachment.h"
#include "filter/entry_keys.h"
#include "fleet/node.h"
#include "fleet/redis.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "lists/report.h"
#include "util/log.h"
#include "filter/ranges.h"
#include "lists/savefile.h"

int fleet_entries_add(struct fleet_entries *s, const char *e, __u64 deadline)
{
	size_t i, cap = s->cap ? s->cap * 2 : 16;
	__u64 *dl;
	char **grown;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i], e)) {
			s->deadline[i] = deadline;
			return 0;
		}
	if (s->n == s->cap) {
		grown = realloc(s->e, cap * sizeof(*s->e));
		if (!grown)
			return -ENOMEM;
		s->e = grown;
		dl = realloc(s->deadline, cap * sizeof(*s->deadline));
		if (!dl)
			return -ENOMEM;
		s->deadline = dl;
		s->cap = cap;
	}
	s->e[s->n] = strdup(e);
	if (!s->e[s->n])
		return -ENOMEM;
	s->deadline[s->n++] = deadline;
	return 0;
}

__u64 fleet_entries_next_deadline(const struct fleet_entries *s)
{
	__u64 next = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->deadline[i] && (!next || s->deadline[i] < next))
			next = s->deadline[i];
	return next;
}

bool fleet_entries_has(const struct fleet_entries *s, const char *e)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i], e))
			return true;
	return false;
}

bool fleet_entries_remove(struct fleet_entries *s, const char *e)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->e[i], e))
			continue;
		free(s->e[i]);
		s->e[i] = s->e[--s->n];
		s->deadline[i] = s->deadline[s->n];
		return true;
	}
	return false;
}

void fleet_entries_free(struct fleet_entries *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->e[i]);
	free(s->e);
	free(s->deadline);
	memset(s, 0, sizeof(*s));
}

/* Whether the live attachment answers with the payload's key, layout and k. */
static int fits(const char *ifname, const struct savefile_info *in, bool *attached, bool *same)
{
	struct attachment att;
	struct pin_dir pd;
	int ret;

	*attached = *same = false;
	ret = pin_dir_open(ifname, false, &pd);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	pin_dir_close(&pd);
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	*attached = true;
	*same = att.config.layout == in->layout && att.config.hashes == in->hashes &&
		!memcmp(att.config.hash_key, in->hash_key, sizeof(in->hash_key)) &&
		att.config.verify != BLOOMXDP_VERIFY_ON;
	attachment_close(&att);
	return 0;
}

/*
 * Attached with the payload's key: a first version, or a new key (rotation).
 * Between the detach and the swap that follows the interface filters nothing:
 * a few milliseconds, once per key (docs/design.md, The fleet). What detach and attach did goes
 * to the daemon's log, in their words.
 */
static int attach_for(const struct fleet_config *cfg, const struct savefile_info *in,
		      bool attached, char *why, size_t len)
{
	struct attach_filter filter = { .layout = in->layout,
					.fpr = (double)in->fpr_ppb / BLOOMXDP_PPB,
					.hash_key = in->hash_key };
	/* The daemon's state directory, not the environment's. */
	struct detach_opts detach = { .state_dir = cfg->state_dir };
	struct attach_opts o = cfg->attach ? *cfg->attach : attach_defaults;
	struct detach_result detached;
	struct attach_result res;
	char text[ATTACH_TEXT_MAX];
	int ret;

	if (attached) {
		log_warn("fleet %s: the payload's hash key, layout or k is not the attachment's: "
			 "attaching again with the fleet's", cfg->ifname);
		ret = detach_run(cfg->ifname, &detach, &detached);
		if (detach_result_text(cfg->ifname, &detached, text, sizeof(text))[0])
			log_text(LOG_INFO, &(struct log_fields){ .event = "fleet-detach" }, text);
		if (ret) {
			snprintf(why, len, "cannot detach to attach with the fleet's key: %s",
				 strerror(-ret));
			return ret;
		}
	}
	if (cfg->state_dir)
		o.state_dir = cfg->state_dir;
	ret = attach_with_filter(cfg->ifname, &o, &filter, &res);
	if (ret)
		snprintf(why, len, "cannot attach with the fleet's key: %s", strerror(-ret));
	else
		log_text(LOG_INFO, &(struct log_fields){ .event = "fleet-attach" },
			 attach_result_text(cfg->ifname, &res, text, sizeof(text)));
	return ret;
}

int fleet_apply_add(const struct fleet_config *cfg, char **entries, int n, char *why, size_t len)
{
	struct list_opts lo = { .format = FORMAT_AUTO,
				.prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
				.state_dir = cfg->state_dir };
	struct add_result r;
	int ret;

	if (!n)
		return 0;
	ret = list_add(cfg->ifname, &lo, entries, n, &r);
	LOG_REPORT(ret ? LOG_ERR : LOG_INFO, (&(struct log_fields){ .event = "fleet-delta" }),
		   add_result_print, &r);
	if (ret)
		snprintf(why, len, "a delta of %d entr%s was not added: %s (see the daemon's log)",
			 n, n == 1 ? "y" : "ies", strerror(-ret));
	return ret;
}

/* The entries in force, into a version before it is swapped in (savefile_apply_with()). */
struct inforce_ctx {
	const struct fleet_config *cfg;
	const struct fleet_entries *set;
	struct filter *f;
	struct range_set *s;
	__u64 *entries;
	bool ranged[2];
};

static int add_entry(const struct entry *e, void *arg)
{
	struct inforce_ctx *x = arg;
	int fam, ret;

	if (e->allow)
		return 0;	/* an exception: a node's allowlist is its own */
	fam = entry_ranged_family(x->f, e);
	if (fam >= 0) {
		ret = range_set_add_key(&x->s[fam], &e->addr);
		x->ranged[fam] = true;
	} else {
		ret = entry_keys_insert(x->f, e);
	}
	if (ret < 0)
		return ret;
	(*x->entries)++;
	return 0;
}

static int add_inforce(struct filter *f, struct range_set *s, __u64 *entries, void *arg)
{
	struct inforce_ctx *x = arg;
	char text[FLEET_ENTRY_MAX + 1];
	const char *why = NULL;
	size_t i;
	int fam, ret;

	x->f = f;
	x->s = s;
	x->entries = entries;
	for (i = 0; i < x->set->n; i++) {
		snprintf(text, sizeof(text), "%s", x->set->e[i]);
		ret = entry_parse_line(text, FORMAT_AUTO, add_entry, x, &why);
		if (ret == -EINVAL) {
			/* One bad entry does not hold a version back: said, and left out. */
			log_warn("fleet %s: entry in force '%s' left out: %s", x->cfg->ifname,
				 x->set->e[i], why ? why : "not an entry");
			continue;
		}
		if (ret < 0)
			return ret;
	}
	for (fam = 0; fam < 2; fam++)
		if (x->ranged[fam])
			range_set_merge(&s[fam]);
	return 0;
}

int fleet_apply_payload(const struct fleet_config *cfg, const char *path,
			const struct fleet_entries *inforce, bool *reattached, char *why,
			size_t len)
{
	struct savefile_info in;
	struct restore_result r;
	struct attachment att;
	bool attached, same;
	char what[256];
	int ret;

	*reattached = false;
	/* The header now; the body is read and checked by savefile_apply() before the swap. */
	ret = savefile_read_header(path, &in, what, sizeof(what));
	if (ret) {
		snprintf(why, len, "payload refused: %s", what);
		return -EBADMSG;
	}
	ret = fits(cfg->ifname, &in, &attached, &same);
	if (ret) {
		snprintf(why, len, "cannot open the attachment: %s", strerror(-ret));
		return ret;
	}
	/* Before an attachment is given up for the payload's key: the whole payload checked. */
	if (!same && savefile_check(path, &in, what, sizeof(what))) {
		snprintf(why, len, "payload refused: %s", what);
		return -EBADMSG;
	}
	if (!same) {
		ret = attach_for(cfg, &in, attached, why, len);
		if (ret)
			return ret;
		*reattached = true;
	}
	ret = attachment_open(cfg->ifname, true, &att);
	if (ret) {
		snprintf(why, len, "cannot open the attachment: %s", strerror(-ret));
		return ret;
	}
	/* The entries in force go in with the version: a ban never lapses across a swap. */
	ret = savefile_apply_with(&att, path, add_inforce,
				  &(struct inforce_ctx){ .cfg = cfg, .set = inforce }, &r);
	LOG_REPORT(ret ? LOG_ERR : LOG_INFO, (&(struct log_fields){ .event = "fleet-version" }),
		   restore_result_print, &r);
	if (!ret)
		ret = attachment_check_enforced(&att);
	attachment_close(&att);
	/* -EINVAL: the body failed its checks (CRC32C, intervals), said in the daemon's log. */
	if (ret == -EINVAL) {
		snprintf(why, len, "payload refused: its body failed the file's checks (see the "
			 "daemon's log)");
		return -EBADMSG;
	}
	if (ret) {
		snprintf(why, len, "the payload was not swapped in: %s (see the daemon's log)",
			 strerror(-ret));
		return ret;
	}
	return 0;
}
