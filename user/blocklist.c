// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What an entry puts into the filter, and how a packet's fields are looked up. */
#include <stdio.h>
#include <string.h>

#include "blocklist.h"

static int name_labels(const char *name)
{
	int n = 1;

	for (; *name; name++)
		n += *name == '.';
	return n;
}

bool blocklist_insert(struct filter *f, const struct entry *e)
{
	__u64 prefix[BLOOMXDP_MAX_PATH_PREFIXES], host;
	int n;

	switch (e->kind) {
	case ENTRY_ADDR:
		return filter_insert(f, &e->addr);
	case ENTRY_NAME:
		filter_header_set(f, BLOOMXDP_HAS_NAME_DEPTH(name_labels(e->name)));
		return filter_insert_hash(f, name_hash(f->hash_key, e->name));
	case ENTRY_URL:
		filter_header_set(f, BLOOMXDP_HAS_URLS);
		host = name_hash(f->hash_key, e->name);
		/* The entry's own path is the last of its prefixes. */
		n = path_prefix_hashes(f->hash_key, e->path, strlen(e->path), prefix, NULL);
		return filter_insert_hash(f, bloomxdp_url_host_key(f->hash_key, host)) |
		       filter_insert_hash(f, bloomxdp_url_key(f->hash_key, host, prefix[n - 1]));
	}
	return false;
}

/* The rightmost j + 1 labels of name: suffix j (0-based), counted from the right. */
static const char *suffix_text(const char *name, int j)
{
	const char *p = name + strlen(name);

	/* From the right: the name may hold more labels than the 16 examined. */
	while (p > name && (p[-1] != '.' || j-- > 0))
		p--;
	return p;
}

static bool lookup_name(const struct filter *f, const char *name, char *why, size_t len)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS], depths = filter_header(f);
	int n = name_suffix_hashes(f->hash_key, name, suffix), j;

	for (j = 0; j < n; j++) {
		if ((depths & BLOOMXDP_HAS_NAME_DEPTH(j + 1)) && filter_test_hash(f, suffix[j])) {
			snprintf(why, len, "%s", suffix_text(name, j));
			return true;
		}
	}
	return false;
}

static bool lookup_url(const struct filter *f, const struct entry *e, char *why, size_t len)
{
	__u64 suffix[BLOOMXDP_MAX_LABELS], prefix[BLOOMXDP_MAX_PATH_PREFIXES];
	size_t ends[BLOOMXDP_MAX_PATH_PREFIXES];
	int nlabels, nprefix, j, i;

	if (lookup_name(f, e->name, why, len))
		return true;
	if (!(filter_header(f) & BLOOMXDP_HAS_URLS))
		return false;
	nlabels = name_suffix_hashes(f->hash_key, e->name, suffix);
	nprefix = path_prefix_hashes(f->hash_key, e->path, strlen(e->path), prefix, ends);
	for (j = 0; j < nlabels; j++) {
		if (!filter_test_hash(f, bloomxdp_url_host_key(f->hash_key, suffix[j])))
			continue;
		for (i = 0; i < nprefix; i++) {
			if (filter_test_hash(f, bloomxdp_url_key(f->hash_key, suffix[j], prefix[i]))) {
				snprintf(why, len, "%s%.*s/", suffix_text(e->name, j),
					 (int)ends[i], e->path);
				return true;
			}
		}
	}
	return false;
}

bool blocklist_lookup(const struct filter *f, const struct entry *e, char *why, size_t len)
{
	why[0] = '\0';
	switch (e->kind) {
	case ENTRY_ADDR:
		return filter_test(f, &e->addr);
	case ENTRY_NAME:
		return lookup_name(f, e->name, why, len);
	case ENTRY_URL:
		return lookup_url(f, e, why, len);
	}
	return false;
}
