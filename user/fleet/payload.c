// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A full version's payload, made by the publisher: lists compiled into a
 * filter in memory (no attachment, no kernel), written in the save/restore
 * format (savefile.h), or a file 'bloomxdp save' wrote, checked as a node
 * will check it.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet/payload.h"
#include "filter/layout.h"
#include "lists/build.h"
#include "kernel/loader.h"
#include "util/log.h"
#include "filter/packet_fpr.h"
#include "filter/ranges.h"
#include "lists/savefile.h"
#include "filter/bloom_plan.h"

int fleet_compile(char **files, int nfiles, const struct fleet_compile_opts *o, const char *out,
		  struct savefile_info *made)
{
	const struct layout_ops *ops = layout_get(o->layout);
	struct filter f = { .map_fd = -1, .kbloom_fd = -1 };
	struct bloomxdp_config cfg = {};
	struct savefile_info meta = {};
	char err[LIST_ERROR_LEN];
	struct list_build b;
	struct bloom_plan plan;
	__u64 need_bytes, other = 0;
	int i, fam, ret = 0;

	if (!ops || !ops->readable) {
		log_error("publish: layout %s cannot be published (the kernel does not let user "
			  "space read its bits): use --layout blocked or bits",
			  layout_name(o->layout));
		return -EOPNOTSUPP;
	}
	list_build_init(&b, NULL, LIST_DEFAULT_PREFIX_PROBES);
	b.bloom = true;
	b.ranges_ok = true;
	b.store = RANGE_STORE_AUTO;
	b.bits_per_key = -log(o->fpr) / (M_LN2 * M_LN2);
	memcpy(b.hash_key, o->hash_key, sizeof(b.hash_key));
	for (i = 0; i < nfiles && !ret; i++)
		ret = list_build_read(&b, files[i], FORMAT_AUTO, err);
	list_notes_print(&b.notes);
	if (!ret && b.suffixes.count) {
		snprintf(err, sizeof(err), "%llu public suffix%s in the list (first: %s): they "
			 "would block every domain under them; remove them",
			 (unsigned long long)b.suffixes.count, b.suffixes.count == 1 ? "" : "es",
			 b.suffixes.first[0].name);
		ret = -EPERM;
	}
	if (!ret)
		ret = list_build_finish(&b, err);
	if (!ret && !b.read) {
		snprintf(err, sizeof(err), "no entry in %s", nfiles == 1 ? files[0] : "the files");
		ret = -ENODATA;
	}
	if (ret) {
		log_error("publish: %s; nothing was published", err);
		goto cleanup;
	}
	if (b.nexceptions)
		log_warn("publish: the list's %zu exceptions (@@, rpz-passthru) are not published: "
			 "a node's allowlist is its own", b.nexceptions);
	for (fam = 0; fam < 2; fam++)
		if (b.cost[fam].use_ranges)
			other += b.cost[fam].range_bytes;
	{
		/*
		 * --fpr per packet, whatever a node matches: each probe at the rate
		 * that keeps the worst packet of every field within it (packet_fpr.h).
		 */
		struct packet_probes pp;
		struct generation_need need = {
			.layout = o->layout, .hashes = ops->hashes(o->fpr), .fpr = o->fpr,
			.keys = b.keys, .floor = GENERATION_MIN_KEYS,
			.max_memory = o->max_memory ? o->max_memory : default_max_memory(),
			.other_bytes = other,
		};

		list_build_probes(&b, BLOOMXDP_MATCH_SRC | BLOOMXDP_MATCH_DST | BLOOMXDP_MATCH_NAMES,
				  &pp);
		need.fpr = packet_probe_fpr(&pp, o->fpr);
		ret = generation_plan(&need, &plan, &need_bytes);
	}
	if (ret) {
		log_error("publish: cannot size a filter for %llu keys at FPR %g within %llu bytes "
			  "(it needs %llu): %s; give --max-memory", (unsigned long long)b.keys,
			  o->fpr, (unsigned long long)(o->max_memory ? o->max_memory :
						      default_max_memory()),
			  (unsigned long long)need_bytes, strerror(-ret));
		goto cleanup;
	}
	memcpy(cfg.hash_key, o->hash_key, sizeof(cfg.hash_key));
	loader_config_plan(&cfg, &plan);
	ret = filter_init_memory(&cfg, &f);
	if (!ret)
		ret = list_build_insert(&b, &f, err);
	if (ret) {
		log_error("publish: cannot build the filter: %s; nothing was published",
			  ret == -ENOMEM ? "out of memory" : err);
		goto cleanup;
	}
	/* The target, not the rate per probe: a node attaches with the k of the target. */
	meta.fpr_ppb = (__u64)(o->fpr * BLOOMXDP_PPB + 0.5);
	meta.entries = b.read;
	meta.keys = b.keys;
	meta.capacity = plan.capacity;
	meta.generation = o->version;
	ret = savefile_write_filter(out, &f, b.ranges, &meta);
	if (ret) {
		log_error("publish: cannot write %s: %s", out, strerror(-ret));
		goto cleanup;
	}
	if (made) {
		char why[256];

		ret = savefile_check(out, made, why, sizeof(why));
		if (ret)
			log_error("publish: the payload made does not read back: %s", why);
	}
cleanup:
	filter_close(&f);
	list_build_free(&b);
	return ret;
}

bool fleet_is_savefile(const char *path)
{
	char magic[8];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) && !memcmp(magic, SAVEFILE_MAGIC, sizeof(magic));
}

int fleet_read_file(const char *path, __u64 max, void **data, size_t *len)
{
	struct stat st;
	size_t off = 0;
	ssize_t n;
	char *buf;
	int fd, ret = 0;

	*data = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (__u64)st.st_size > max) {
		ret = -EFBIG;
		goto out;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (off < (size_t)st.st_size) {
		n = read(fd, buf + off, st.st_size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			free(buf);
			goto out;
		}
		off += n;
	}
	*data = buf;
	*len = off;
out:
	close(fd);
	return ret;
}
