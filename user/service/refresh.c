// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Feed refresh: fetch, judge by the guards, apply atomically, keep the cache (refresh.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "service/config.h"
#include "service/fetch.h"
#include "util/dirs.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/atomic_file.h"
#include "util/log.h"
#include "util/sha256.h"
#include "filter/ranges.h"
#include "service/refresh.h"
#include "kernel/state_dir.h"

#define FEEDS_DIR	"feeds"

int feed_name_check(const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_' || name[i] == '-'))
			break;
	if (len && len < FEED_NAME_MAX && i == len && name[0] != '-')
		return 0;
	log_error("bad list name '%.*s': 1 to %d of a-z, 0-9, '_' and '-', not starting with '-'",
		  (int)(len > 64 ? 64 : len), name, FEED_NAME_MAX - 1);
	return -EINVAL;
}

void feed_spec_defaults(struct feed_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->load.format = FORMAT_AUTO;
	s->load.prefix_probes = LIST_DEFAULT_PREFIX_PROBES;
	s->max_shrink_pct = FEED_DEFAULT_MAX_SHRINK;
	s->timeout_s = FEED_DEFAULT_TIMEOUT_S;
	s->max_bytes = FEED_DEFAULT_MAX_BYTES;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

int feed_spec_check(const struct feed_spec *s)
{
	int i;

	if (feed_name_check(s->name))
		return -EINVAL;
	if (!s->source[0] || has_control(s->source) || has_control(s->ca_file)) {
		log_error("list %s: give its source, a path or an http(s):// URL, without control "
			  "characters", s->name);
		return -EINVAL;
	}
	if (strstr(s->source, "://") && !fetch_is_url(s->source)) {
		log_error("list %s: only http:// and https:// feeds are fetched, not '%s'",
			  s->name, s->source);
		return -EINVAL;
	}
	if (s->max_shrink_pct > 100 || !s->timeout_s || !s->max_bytes) {
		log_error("list %s: max_shrink is 0 to 100 (percent), the timeout and max_bytes "
			  "more than 0", s->name);
		return -EINVAL;
	}
	if (s->load.column && (strlen(s->load.column) >= FEED_TEXT_MAX ||
			       has_control(s->load.column)))
		goto long_text;
	if (s->load.where.count > FEED_WHERE_MAX) {
		log_error("list %s: at most %d --where", s->name, FEED_WHERE_MAX);
		return -EINVAL;
	}
	for (i = 0; i < s->load.where.count; i++)
		if (strlen(s->load.where.items[i]) >= FEED_TEXT_MAX ||
		    has_control(s->load.where.items[i]))
			goto long_text;
	return 0;
long_text:
	log_error("list %s: --column and --where take at most %d bytes, without control "
		  "characters", s->name, FEED_TEXT_MAX - 1);
	return -EINVAL;
}

/* ------------------------------------------------------------ the cache's files */

/* A directory of the feed cache: ours, 0700, never a link (as the pins' and the state's). */
static int own_dir(int parent_fd, const char *name, const char *path, bool create)
{
	return own_dir_open(parent_fd, name, path, create, 077, "refresh again");
}

/* a/b into out; -ENAMETOOLONG, printed, when it does not fit. */
static int join(char *out, size_t len, const char *a, const char *b)
{
	if (snprintf(out, len, "%s/%s", a, b) < (int)len)
		return 0;
	log_error("%s/%s: the path is too long", a, b);
	return -ENAMETOOLONG;
}

struct feed_dirs {
	const char *state_dir;
	struct state_dir sd;		/* <state_dir>/<ifname> */
	int feeds_fd, feed_fd;
	char feeds_path[PATH_MAX];	/* <state_dir>/<ifname>/feeds */
	char path[PATH_MAX];		/* <feeds_path>/<name> */
};

static void dirs_close(struct feed_dirs *d)
{
	if (d->feed_fd >= 0)
		close(d->feed_fd);
	if (d->feeds_fd >= 0)
		close(d->feeds_fd);
	d->feed_fd = d->feeds_fd = -1;
	state_close(&d->sd);
}

/*
 * The cache directories of a feed (name NULL: up to feeds/). The state
 * directory may be made, never one anyone else may write to.
 */
static int dirs_open(const char *state_dir, const char *ifname, const char *name, bool create,
		     struct feed_dirs *d)
{
	int ret;

	d->feeds_fd = d->feed_fd = -1;
	d->state_dir = state_dir;
	/* <root>/<ifname>/ as the rest of the state: the same checks. */
	ret = state_open(state_dir, ifname, create, &d->sd);
	if (ret)
		return ret;
	ret = join(d->feeds_path, sizeof(d->feeds_path), d->sd.path, FEEDS_DIR);
	if (!ret)
		ret = d->feeds_fd = own_dir(d->sd.fd, FEEDS_DIR, d->feeds_path, create);
	if (ret < 0 || !name)
		goto done;
	ret = join(d->path, sizeof(d->path), d->feeds_path, name);
	if (!ret)
		ret = d->feed_fd = own_dir(d->feeds_fd, name, d->path, create);
done:
	if (ret >= 0)
		return 0;
	dirs_close(d);
	return ret;
}

/* name in dir_fd replaced whole by text (atomic_file.h); the error printed. */
static int write_atomic(int dir_fd, const char *dir, const char *name, const char *text,
			size_t len)
{
	int ret = atomic_file_write(dir_fd, name, text, len);

	if (ret)
		log_error("cannot write %s/%s: %s", dir, name, strerror(-ret));
	return ret;
}

/* A one-line value: control bytes (a server's reason, say) become '?'. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* "key = value" lines of name in dir_fd, to fn; -ENOENT (unprinted) if it is not there. */
static int kv_read(int dir_fd, const char *name, void (*fn)(const char *key, char *value,
							       void *arg), void *arg)
{
	char line[FEED_SOURCE_MAX + 64], *eq, *key, *value, *end;
	FILE *f;
	int fd;

	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		key = line;
		for (end = eq; end > key && end[-1] == ' '; end--)
			;
		*end = '\0';
		value = eq + 1;
		while (*value == ' ')
			value++;
		fn(key, value, arg);
	}
	fclose(f);
	return 0;
}

static __u64 to_u64(const char *v)
{
	return strtoull(v, NULL, 10);
}

#define COPY_TEXT(dst, src) snprintf((dst), sizeof(dst), "%s", (src))

/* ------------------------------------------------------------ spec */

static int spec_write(const struct feed_dirs *d, const struct feed_spec *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i, ret;

	if (!f)
		return -ENOMEM;
	fprintf(f, "# bloomxdp feed spec (written by refresh)\nsource = %s\nformat = %s\n"
		"lenient = %d\nallow = %d\nallow_public_suffix = %d\nallow_wide = %d\ncolumn = %s\n",
		s->source, enum_value_name(list_format_values, s->load.format), s->load.lenient,
		s->load.allow, s->load.allow_public_suffix, s->load.allow_wide,
		s->load.column ? s->load.column : "");
	for (i = 0; i < s->load.where.count; i++)
		fprintf(f, "where = %s\n", s->load.where.items[i]);
	fprintf(f, "prefix_probes = %llu\nstore = %s\nrefresh = %llu\nmax_shrink = %u\n"
		"timeout = %llu\nmax_bytes = %llu\nca_file = %s\n",
		(unsigned long long)s->load.prefix_probes,
		enum_value_name(range_store_values, s->load.store),
		(unsigned long long)s->refresh_s, s->max_shrink_pct,
		(unsigned long long)s->timeout_s, (unsigned long long)s->max_bytes, s->ca_file);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	ret = write_atomic(d->feed_fd, d->path, "spec", text, len);
	free(text);
	return ret;
}

/* Points the spec's pointers at st's own storage (again, after st moved). */
static void stored_fix(struct feed_stored *st)
{
	int i;

	for (i = 0; i < FEED_WHERE_MAX; i++)
		st->where_items[i] = st->where[i];
	st->spec.load.where.items = st->where_items;
	st->spec.load.column = st->column[0] ? st->column : NULL;
}

static void spec_value(const char *key, char *v, void *arg)
{
	struct feed_stored *st = arg;
	struct feed_spec *s = &st->spec;
	__u32 value;

	if (!strcmp(key, "source"))
		COPY_TEXT(s->source, v);
	else if (!strcmp(key, "format") && !enum_value_parse(list_format_values, v, &value))
		s->load.format = value;
	else if (!strcmp(key, "lenient"))
		s->load.lenient = to_u64(v);
	else if (!strcmp(key, "allow"))
		s->load.allow = to_u64(v);
	else if (!strcmp(key, "allow_public_suffix"))
		s->load.allow_public_suffix = to_u64(v);
	else if (!strcmp(key, "allow_wide"))
		s->load.allow_wide = to_u64(v);
	else if (!strcmp(key, "column"))
		COPY_TEXT(st->column, v);
	else if (!strcmp(key, "where") && s->load.where.count < FEED_WHERE_MAX)
		COPY_TEXT(st->where[s->load.where.count++], v);
	else if (!strcmp(key, "prefix_probes"))
		s->load.prefix_probes = to_u64(v);
	else if (!strcmp(key, "store") && !enum_value_parse(range_store_values, v, &value))
		s->load.store = value;
	else if (!strcmp(key, "refresh"))
		s->refresh_s = to_u64(v);
	else if (!strcmp(key, "max_shrink"))
		s->max_shrink_pct = to_u64(v);
	else if (!strcmp(key, "timeout"))
		s->timeout_s = to_u64(v);
	else if (!strcmp(key, "max_bytes"))
		s->max_bytes = to_u64(v);
	else if (!strcmp(key, "ca_file"))
		COPY_TEXT(s->ca_file, v);
}

static int spec_read_at(int feed_fd, const char *path, const char *name, struct feed_stored *st)
{
	int ret;

	memset(st, 0, sizeof(*st));
	feed_spec_defaults(&st->spec);
	COPY_TEXT(st->spec.name, name);
	ret = kv_read(feed_fd, "spec", spec_value, st);
	stored_fix(st);
	if (ret == -ENOENT)
		log_error("list %s has no spec in %s: register it with 'bloomxdp refresh IFNAME %s "
			  "--source URL|PATH'", name, path, name);
	else if (ret)
		log_error("cannot read %s/spec: %s", path, strerror(-ret));
	else if (!st->spec.source[0] || st->spec.load.prefix_probes < 1 ||
		 st->spec.load.prefix_probes > BLOOMXDP_MAX_PREFIX_LENGTHS)
		ret = -EINVAL;
	if (ret == -EINVAL)
		log_error("%s/spec is damaged: register the list again with --source", path);
	return ret;
}

int feed_spec_read(const char *state_dir, const char *ifname, const char *name,
		   struct feed_stored *st)
{
	struct feed_dirs d;
	int ret;

	if (feed_name_check(name))
		return -EINVAL;
	ret = dirs_open(state_dir, ifname, name, false, &d);
	if (ret == -ENOENT)
		log_error("list %s of %s is not in %s: register it with 'bloomxdp refresh %s %s "
			  "--source URL|PATH'", name, ifname, state_dir, ifname, name);
	if (!ret)
		ret = spec_read_at(d.feed_fd, d.path, name, st);
	dirs_close(&d);
	return ret;
}

/* ------------------------------------------------------------ copies and counters */

/* What the cache says of a copy (good.meta, pending.meta). */
struct copy_meta {
	bool present;
	char source[FEED_SOURCE_MAX];
	char etag[FETCH_VALIDATOR_MAX];
	char last_modified[FETCH_VALIDATOR_MAX];
	char sha256[SHA256_HEX];
	__u64 entries, bytes, fetched, applied;
	char why[FEED_WHY_MAX];
};

static void meta_value(const char *key, char *v, void *arg)
{
	struct copy_meta *m = arg;

	if (!strcmp(key, "source"))
		COPY_TEXT(m->source, v);
	else if (!strcmp(key, "etag"))
		COPY_TEXT(m->etag, v);
	else if (!strcmp(key, "last_modified"))
		COPY_TEXT(m->last_modified, v);
	else if (!strcmp(key, "sha256"))
		COPY_TEXT(m->sha256, v);
	else if (!strcmp(key, "entries"))
		m->entries = to_u64(v);
	else if (!strcmp(key, "bytes"))
		m->bytes = to_u64(v);
	else if (!strcmp(key, "fetched"))
		m->fetched = to_u64(v);
	else if (!strcmp(key, "applied"))
		m->applied = to_u64(v);
	else if (!strcmp(key, "why"))
		COPY_TEXT(m->why, v);
}

/* A copy's meta, present only when its body is there too. */
static void meta_read(int feed_fd, const char *body, const char *meta, struct copy_meta *m)
{
	struct stat st;

	memset(m, 0, sizeof(*m));
	if (fstatat(feed_fd, body, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return;
	m->present = !kv_read(feed_fd, meta, meta_value, m);
}

static int meta_write(const struct feed_dirs *d, const char *name, const struct copy_meta *m)
{
	char text[FEED_SOURCE_MAX + 2 * FETCH_VALIDATOR_MAX + FEED_WHY_MAX + 512];
	int len;

	len = snprintf(text, sizeof(text), "source = %s\netag = %s\nlast_modified = %s\n"
		       "sha256 = %s\nentries = %llu\nbytes = %llu\nfetched = %llu\n"
		       "applied = %llu\nwhy = %s\n", m->source, m->etag, m->last_modified,
		       m->sha256, (unsigned long long)m->entries, (unsigned long long)m->bytes,
		       (unsigned long long)m->fetched, (unsigned long long)m->applied, m->why);
	return write_atomic(d->feed_fd, d->path, name, text,
			    len < (int)sizeof(text) ? (size_t)len : sizeof(text) - 1);
}

static void counters_value(const char *key, char *v, void *arg)
{
	struct feed_counters *c = arg;

	if (!strcmp(key, "refresh_failures"))
		c->refresh_failures = to_u64(v);
	else if (!strcmp(key, "consecutive_failures"))
		c->consecutive_failures = to_u64(v);
	else if (!strcmp(key, "last_attempt"))
		c->last_attempt = to_u64(v);
	else if (!strcmp(key, "last_success"))
		c->last_success = to_u64(v);
	else if (!strcmp(key, "last_applied"))
		c->last_applied = to_u64(v);
	else if (!strcmp(key, "entries"))
		c->entries = to_u64(v);
	else if (!strcmp(key, "last_error"))
		COPY_TEXT(c->last_error, v);
}

static int counters_write(const struct feed_dirs *d, const struct feed_counters *c)
{
	char text[FEED_WHY_MAX + 512];
	int len;

	len = snprintf(text, sizeof(text), "refresh_failures = %llu\nconsecutive_failures = %llu\n"
		       "last_attempt = %llu\nlast_success = %llu\nlast_applied = %llu\n"
		       "entries = %llu\nlast_error = %s\n",
		       (unsigned long long)c->refresh_failures,
		       (unsigned long long)c->consecutive_failures,
		       (unsigned long long)c->last_attempt, (unsigned long long)c->last_success,
		       (unsigned long long)c->last_applied, (unsigned long long)c->entries,
		       c->last_error);
	return write_atomic(d->feed_fd, d->path, "counters", text,
			    len < (int)sizeof(text) ? (size_t)len : sizeof(text) - 1);
}

int feed_counters_read(const char *state_dir, const char *ifname, const char *name,
		       struct feed_counters *c)
{
	struct feed_dirs d;
	int ret;

	memset(c, 0, sizeof(*c));
	if (feed_name_check(name))
		return -EINVAL;
	ret = dirs_open(state_dir, ifname, name, false, &d);
	if (!ret) {
		ret = kv_read(d.feed_fd, "counters", counters_value, c);
		if (ret && ret != -ENOENT)
			log_error("cannot read %s/counters: %s", d.path, strerror(-ret));
	}
	dirs_close(&d);
	return ret == -ENOENT ? 0 : ret;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

int feed_list(const char *state_dir, const char *ifname, char (*names)[FEED_NAME_MAX], int max)
{
	struct feed_dirs d;
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd, n = 0, ret;

	ret = dirs_open(state_dir, ifname, NULL, false, &d);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	fd = openat(d.feeds_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		log_error("cannot list %s: %s", d.feeds_path, strerror(-ret));
		goto out;
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= FEED_NAME_MAX ||
		    fstatat(d.feeds_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (n < max)
			snprintf(names[n], FEED_NAME_MAX, "%s", de->d_name);
		n++;
	}
	closedir(dir);
	qsort(names, n < max ? n : max, FEED_NAME_MAX, compare_names);
	ret = n;
out:
	dirs_close(&d);
	return ret;
}

/* The temporary files a write cut short left in a feed's directory (atomic_file.h). */
static void remove_temporaries(int dir_fd)
{
	struct dirent *de;
	DIR *dir;
	int fd;

	fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir)))
		if (atomic_file_is_temp(de->d_name))
			unlinkat(dir_fd, de->d_name, 0);
	closedir(dir);
}

int feed_forget(const char *state_dir, const char *ifname, const char *name)
{
	/* .fetch.tmp is a fetch's; the other .tmp names an older bloomxdp's, still in a cache. */
	static const char *const files[] = {
		"spec", "good", "good.meta", "pending", "pending.meta", "counters",
		".fetch.tmp", ".spec.tmp", ".good.meta.tmp", ".pending.meta.tmp",
		".counters.tmp",
	};
	struct feed_dirs d;
	size_t i;
	int ret;

	if (feed_name_check(name))
		return -EINVAL;
	ret = dirs_open(state_dir, ifname, name, false, &d);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	if (flock(d.feeds_fd, LOCK_EX)) {
		ret = -errno;
		log_error("cannot lock %s: %s", d.feeds_path, strerror(-ret));
		goto out;
	}
	/* Only the names a refresh makes: anything else keeps the directory, and is said. */
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlinkat(d.feed_fd, files[i], 0);
	remove_temporaries(d.feed_fd);
	if (unlinkat(d.feeds_fd, name, AT_REMOVEDIR)) {
		ret = -errno;
		log_error("cannot remove %s: %s", d.path, strerror(-ret));
	}
out:
	dirs_close(&d);
	return ret;
}

__u64 feed_next_due(const struct feed_counters *c, __u64 refresh_s)
{
	__u64 cap = refresh_s ? refresh_s : FEED_RETRY_CAP_S, delay = FEED_RETRY_FIRST_S, i;

	if (!c->last_attempt)
		return 0;
	if (!c->consecutive_failures)
		return refresh_s ? c->last_attempt + refresh_s : UINT64_MAX;
	for (i = 1; i < c->consecutive_failures && delay < cap; i++)
		delay *= 2;
	return c->last_attempt + (delay < cap ? delay : cap);
}

/* The SHA-256 of a file of the cache (a copy just fetched). */
static int sha256_file(int dir_fd, const char *name, char hex[SHA256_HEX])
{
	int fd, ret;

	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = sha256_fd_hex(fd, hex);
	close(fd);
	return ret;
}

/* ------------------------------------------------------------ applying */

struct source_slot {
	char path[PATH_MAX];
	struct feed_stored st;
};

/*
 * Loads every feed of the interface with this one's kind (blocklist or
 * allowlist) in one swap: their good copies, each read with its own spec,
 * and this feed's copy at this_path. A blocklist feed is the named list of
 * its name, as a daemon's [list NAME] is (config_source_list()).
 */
static int apply_all(const struct feed_dirs *d, const char *ifname, const struct feed_spec *spec,
		     const char *this_path, bool allow_empty, struct load_result *r)
{
	struct source_slot *slots = NULL, *grown;
	struct list_source *src = NULL;
	struct list_opts o = spec->load, this_opts = spec->load;
	struct dirent *de;
	struct stat sb;
	size_t n = 0, cap = 0, i;
	DIR *dir = NULL;
	int fd, ret = 0;

	fd = openat(d->feeds_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		log_error("cannot list %s: %s", d->feeds_path, strerror(-ret));
		return ret;
	}
	while ((de = readdir(dir))) {
		char path[PATH_MAX];
		int feed_fd;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, spec->name) ||
		    strlen(de->d_name) >= FEED_NAME_MAX)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(slots, cap * sizeof(*slots));
			if (!grown) {
				ret = -ENOMEM;
				goto cleanup;
			}
			slots = grown;
		}
		ret = join(path, sizeof(path), d->feeds_path, de->d_name);
		if (ret)
			goto cleanup;
		feed_fd = own_dir(d->feeds_fd, de->d_name, path, false);
		if (feed_fd < 0) {
			ret = feed_fd == -ENOENT ? 0 : feed_fd;
			if (ret)
				goto cleanup;
			continue;
		}
		/* A feed never applied yet has no good copy: nothing of it is enforced. */
		if (fstatat(feed_fd, "good", &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode)) {
			close(feed_fd);
			continue;
		}
		ret = spec_read_at(feed_fd, path, de->d_name, &slots[n].st);
		close(feed_fd);
		if (ret)
			goto cleanup;
		if (slots[n].st.spec.load.allow != spec->load.allow)
			continue;
		ret = join(slots[n].path, sizeof(slots[n].path), path, "good");
		if (ret)
			goto cleanup;
		n++;
	}
	src = calloc(n + 1, sizeof(*src));
	if (!src) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		stored_fix(&slots[i].st);
		config_source_list(&slots[i].st.spec);
		src[i].path = slots[i].path;
		src[i].opts = &slots[i].st.spec.load;
	}
	this_opts.list = this_opts.allow ? NULL : spec->name;
	src[n].path = this_path;
	src[n].opts = &this_opts;
	o.allow_empty = allow_empty;
	o.max_memory_given = false;
	o.state_dir = d->state_dir;
	ret = list_load_sources(ifname, &o, src, n + 1, r);
cleanup:
	if (ret == -ENOMEM)
		log_error("out of memory; the live list of %s is unchanged", ifname);
	closedir(dir);
	free(src);
	free(slots);
	return ret;
}

/* ------------------------------------------------------------ one refresh */

static const char *age_text(__u64 t, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = t;

	if (!t || !gmtime_r(&tt, &tm))
		snprintf(buf, len, "never");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* The copy to judge: fetched now (into pending), or the pending one (--accept). */
struct judged {
	struct copy_meta meta;
	struct fetch_result fetch;
	bool from_pending;
};

__attribute__((format(printf, 3, 4)))
static void set_why(struct refresh_result *out, enum refresh_reason reason, const char *fmt, ...)
{
	va_list ap;

	out->outcome = REFRESH_REFUSED;
	out->reason = reason;
	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
	one_line(out->why);
}

/*
 * Fetches the feed (conditional on the good copy's validators when it came
 * from the same source): a new body goes to pending. Returns 1 when there
 * is a copy to judge, 0 when not modified, -errno when the fetch failed.
 */
static int fetch_new(const struct feed_dirs *d, const struct feed_spec *spec,
		     const struct copy_meta *good, struct judged *j, struct refresh_result *out)
{
	bool same = good->present && !strcmp(good->source, spec->source);
	struct fetch_opts fo = {
		.source = spec->source, .dir_fd = d->feed_fd, .tmp_name = ".fetch.tmp",
		.etag = same ? good->etag : NULL,
		.last_modified = same ? good->last_modified : NULL,
		.timeout_s = spec->timeout_s, .max_bytes = spec->max_bytes,
		.ca_file = spec->ca_file[0] ? spec->ca_file : NULL,
	};
	int ret;

	ret = fetch(&fo, &j->fetch);
	if (ret) {
		set_why(out, REFRESH_FETCH, "fetch failed: %s", j->fetch.why);
		return ret;
	}
	if (j->fetch.status == FETCH_NOT_MODIFIED && !same) {
		/* Asked without validators: a 304 brings no copy, which is no success. */
		set_why(out, REFRESH_FETCH, "the server answered 304 (not modified) to a request "
			"without validators: no copy of the feed was fetched");
		return -EPROTO;
	}
	if (j->fetch.status == FETCH_NOT_MODIFIED)
		return 0;
	memset(&j->meta, 0, sizeof(j->meta));
	COPY_TEXT(j->meta.source, spec->source);
	COPY_TEXT(j->meta.etag, j->fetch.etag);
	COPY_TEXT(j->meta.last_modified, j->fetch.last_modified);
	j->meta.bytes = j->fetch.bytes;
	j->meta.fetched = time(NULL);
	ret = sha256_file(d->feed_fd, fo.tmp_name, j->meta.sha256);
	if (!ret && same && good->sha256[0] && !strcmp(good->sha256, j->meta.sha256)) {
		/* The same body again (a server without validators): nothing to apply. */
		unlinkat(d->feed_fd, fo.tmp_name, 0);
		return 0;
	}
	if (!ret && renameat(d->feed_fd, fo.tmp_name, d->feed_fd, "pending"))
		ret = -errno;
	if (ret) {
		unlinkat(d->feed_fd, fo.tmp_name, 0);
		set_why(out, REFRESH_FETCH, "cannot keep the fetched copy in %s: %s", d->path,
			strerror(-ret));
		return ret;
	}
	return 1;
}

/* The guards a human may override: an empty copy, a copy shrunk past max_shrink. */
static int guard(const struct feed_spec *spec, const struct copy_meta *good, __u64 entries,
		 struct refresh_result *out)
{
	__u64 lost;

	if (!entries) {
		set_why(out, REFRESH_EMPTY, "the new copy has no entry");
		return -ENODATA;
	}
	if (!good->present || entries >= good->entries)
		return 0;
	lost = good->entries - entries;
	if (lost * 100 > (__u64)spec->max_shrink_pct * good->entries) {
		set_why(out, REFRESH_SHRINK, "the new copy has %llu entries, %llu fewer than the "
			"good copy's %llu (-%llu%%, over max_shrink %u%%)",
			(unsigned long long)entries, (unsigned long long)lost,
			(unsigned long long)good->entries,
			(unsigned long long)(lost * 100 / good->entries), spec->max_shrink_pct);
		return -ERANGE;
	}
	return 0;
}

/*
 * The daemon's refreshes (apply given) say less than 'bloomxdp refresh': not
 * modified only after failures, a run of failures with the same reason at its
 * 1st, 2nd, 4th, 8th... (a feed retried every few seconds, for hours).
 */
static bool report_quiet(bool daemon, __u64 failures_before, const char *error_before,
			 const struct feed_counters *c, const struct refresh_result *out)
{
	if (!daemon)
		return false;
	if (out->outcome == REFRESH_NOT_MODIFIED && out->reason != REFRESH_NOTHING)
		return !failures_before;
	if (out->outcome == REFRESH_APPLIED || !c->consecutive_failures)
		return false;
	return strcmp(error_before, c->last_error) == 0 &&
	       (c->consecutive_failures & (c->consecutive_failures - 1));
}

/* A refusal, on stderr (the success lines are feed_refresh_summary()'s, for the caller). */
static void report_refused(const char *ifname, const struct feed_spec *spec,
			   const struct copy_meta *good, const struct feed_counters *c,
			   const struct refresh_result *out)
{
	char times[64] = "";

	if (out->reason == REFRESH_NOTHING) {
		log_error("refresh %s of %s: %s", spec->name, ifname, out->why);
		return;
	}
	if (out->outcome != REFRESH_REFUSED)
		return;
	if (c->consecutive_failures > 1)
		snprintf(times, sizeof(times), " (%llu times in a row)",
			 (unsigned long long)c->consecutive_failures);
	log_error("refresh %s of %s refused: %s; %s%s", spec->name, ifname, out->why,
		  good->present ? "the last good copy stays enforced" :
		  "nothing of this list was ever applied", times);
	if (out->reason == REFRESH_EMPTY || out->reason == REFRESH_SHRINK)
		log_error("to apply it anyway: bloomxdp refresh %s %s --accept", ifname,
			  spec->name);
}

const char *feed_refresh_summary(const char *ifname, const struct feed_spec *spec,
				 const struct refresh_result *r, char *buf, size_t len)
{
	char when[32];
	int n;

	buf[0] = '\0';
	if (r->quiet || r->reason == REFRESH_NOTHING)
		return buf;
	if (r->outcome == REFRESH_APPLIED) {
		n = snprintf(buf, len, "refresh %s of %s: %sapplied %llu entries from %s (the good "
			     "copy had %llu)\n", spec->name, ifname,
			     r->accepted ? "accepted and " : "", (unsigned long long)r->entries,
			     spec->source, (unsigned long long)r->previous);
		if (r->accepted && n >= 0 && (size_t)n < len)
			snprintf(buf + n, len - n, "refresh %s of %s: accepted despite: %s\n",
				 spec->name, ifname, r->why);
	} else if (r->outcome == REFRESH_NOT_MODIFIED) {
		snprintf(buf, len, "refresh %s of %s: not modified; the good copy of %llu entries "
			 "(fetched %s) stays\n", spec->name, ifname,
			 (unsigned long long)r->good_entries,
			 age_text(r->good_fetched, when, sizeof(when)));
	}
	return buf;
}

/* The feed not modified (the good copy stays): its validators kept, no copy pending. */
static void not_modified(const struct feed_dirs *d, struct copy_meta *good, const struct judged *j,
			 bool accept, struct refresh_result *out)
{
	if (accept)
		set_why(out, REFRESH_NOTHING, "nothing to accept: no refused copy is pending, "
			"and the feed is not modified");
	out->outcome = REFRESH_NOT_MODIFIED;
	/* A refused copy the feed has since replaced is no longer pending. */
	unlinkat(d->feed_fd, "pending", 0);
	unlinkat(d->feed_fd, "pending.meta", 0);
	if (good->present && j->fetch.status == FETCH_NEW) {
		/* The same body under new validators: keep them for the next request. */
		COPY_TEXT(good->etag, j->fetch.etag);
		COPY_TEXT(good->last_modified, j->fetch.last_modified);
		meta_write(d, "good.meta", good);
	}
}

/* feed_refresh()'s apply: every cached feed of the interface with this one's kind. */
struct apply_cached {
	const struct feed_dirs *d;
	const char *ifname;
	const struct feed_spec *spec;
	struct load_result *load;
};

static int apply_cached(void *arg, const char *path, bool allow_empty)
{
	const struct apply_cached *a = arg;

	return apply_all(a->d, a->ifname, a->spec, path, allow_empty, a->load);
}

int feed_refresh(const char *state_dir, const char *ifname, const struct feed_spec *spec,
		 bool accept, struct refresh_result *out)
{
	return feed_refresh_apply(state_dir, ifname, spec, accept, NULL, NULL, out);
}

/* A refresh as it goes: the feed's cache, what it held, what changes. */
struct refresh_run {
	struct feed_dirs d;
	struct copy_meta good, pending;
	struct feed_counters c;
	__u64 failures_before;		/* the counters as they were: what the daemon said */
	char error_before[FEED_WHY_MAX];
	struct judged j;
	char pending_path[PATH_MAX];
	__u64 now;
};

/* The feed's directory made and locked, its spec written, what the cache holds of it read. */
static int run_begin(struct refresh_run *r, const char *state_dir, const char *ifname,
		     const struct feed_spec *spec)
{
	int ret;

	r->now = time(NULL);
	ret = feed_spec_check(spec);
	if (ret)
		return ret;
	ret = dirs_open(state_dir, ifname, spec->name, true, &r->d);
	if (ret)
		return ret;
	/* One refresh of an interface at a time: the daemon's, cron's, a human's. */
	if (flock(r->d.feeds_fd, LOCK_EX)) {
		ret = -errno;
		log_error("cannot lock %s: %s", r->d.feeds_path, strerror(-ret));
	}
	if (!ret)
		ret = spec_write(&r->d, spec);
	if (!ret)
		ret = join(r->pending_path, sizeof(r->pending_path), r->d.path, "pending");
	if (ret) {
		dirs_close(&r->d);
		return ret;
	}
	kv_read(r->d.feed_fd, "counters", counters_value, &r->c);
	r->failures_before = r->c.consecutive_failures;
	COPY_TEXT(r->error_before, r->c.last_error);
	meta_read(r->d.feed_fd, "good", "good.meta", &r->good);
	meta_read(r->d.feed_fd, "pending", "pending.meta", &r->pending);
	r->c.last_attempt = r->now;
	return 0;
}

/*
 * The copy to apply judged, parsed as load reads it (emptiness is judged
 * here, not refused by the parser) and by the guards, then applied: 0, or
 * -errno with out saying why.
 */
static int judge(struct refresh_run *r, const char *ifname, const struct feed_spec *spec,
		 bool accept, feed_apply_fn apply, void *apply_ctx, struct refresh_result *out)
{
	struct apply_cached cached = { .d = &r->d, .ifname = ifname, .spec = spec,
				       .load = &out->load };
	struct list_source src = { .path = r->pending_path, .opts = &spec->load };
	struct list_opts check = spec->load;
	char err[LIST_ERROR_LEN];
	int ret;

	check.allow_empty = true;
	ret = list_check_sources(&check, &src, 1, &out->entries, err);
	r->j.meta.entries = out->entries;
	if (ret) {
		set_why(out, REFRESH_PARSE, "%s", err);
		return ret;
	}
	ret = guard(spec, &r->good, out->entries, out);
	if (ret && !accept)
		return ret;
	out->accepted = ret != 0;
	ret = apply ? apply(apply_ctx, r->pending_path, accept) :
		      apply_cached(&cached, r->pending_path, accept);
	if (ret)
		set_why(out, REFRESH_APPLY, "the load into %s failed (said above)", ifname);
	return ret;
}

/* Applied: only now is the copy the good one. -errno, said, when it cannot be kept so. */
static int promote(struct refresh_run *r, struct refresh_result *out)
{
	int ret;

	r->j.meta.applied = r->now;
	r->j.meta.why[0] = '\0';
	if (renameat(r->d.feed_fd, "pending", r->d.feed_fd, "good")) {
		ret = -errno;
		log_error("applied, but cannot keep the copy as %s/good: %s", r->d.path,
			  strerror(-ret));
		return ret;
	}
	unlinkat(r->d.feed_fd, "pending.meta", 0);
	meta_write(&r->d, "good.meta", &r->j.meta);
	out->outcome = REFRESH_APPLIED;
	if (!out->accepted)
		out->why[0] = '\0';
	out->reason = REFRESH_OK;
	r->c.last_applied = r->now;
	r->c.entries = out->entries;
	return 0;
}

/* The counters after a success (applied, not modified) or a failure: the backoff's step. */
static void count(struct refresh_run *r, int ret, const struct refresh_result *out)
{
	if (ret) {
		r->c.refresh_failures++;
		r->c.consecutive_failures++;
		COPY_TEXT(r->c.last_error, out->why);
	} else {
		r->c.consecutive_failures = 0;
		r->c.last_success = r->now;
		r->c.last_error[0] = '\0';
	}
	if (!r->c.entries && r->good.present)
		r->c.entries = r->good.entries;
	counters_write(&r->d, &r->c);
}

int feed_refresh_apply(const char *state_dir, const char *ifname, const struct feed_spec *spec,
		       bool accept, feed_apply_fn apply, void *apply_ctx,
		       struct refresh_result *out)
{
	struct refresh_run r = {};
	int ret, got;

	memset(out, 0, sizeof(*out));
	/* Nothing to say until there is an outcome. */
	out->quiet = true;
	ret = run_begin(&r, state_dir, ifname, spec);
	if (ret)
		return ret;
	out->previous = r.good.entries;
	if (accept && r.pending.present) {
		/* What a human saw refused, rather than whatever the server has now. */
		r.j.meta = r.pending;
		r.j.from_pending = true;
		got = 1;
	} else {
		got = fetch_new(&r.d, spec, &r.good, &r.j, out);
	}
	ret = got < 0 ? got : 0;
	if (!got)
		not_modified(&r.d, &r.good, &r.j, accept, out);
	if (got > 0) {
		ret = judge(&r, ifname, spec, accept, apply, apply_ctx, out);
		if (ret) {
			/* Refused: the copy stays pending, with why. */
			COPY_TEXT(r.j.meta.why, out->why);
			meta_write(&r.d, "pending.meta", &r.j.meta);
		} else {
			ret = promote(&r, out);
			if (ret)
				goto cleanup;
		}
	}
	count(&r, ret, out);
	out->next_due = feed_next_due(&r.c, spec->refresh_s);
	out->good_entries = r.good.entries;
	out->good_fetched = r.good.fetched;
	out->quiet = report_quiet(apply != NULL, r.failures_before, r.error_before, &r.c, out);
	if (!out->quiet)
		report_refused(ifname, spec, &r.good, &r.c, out);
	if (out->reason == REFRESH_NOTHING)
		ret = -ENOENT;
cleanup:
	dirs_close(&r.d);
	return ret;
}

int feed_good_path(const char *state_dir, const char *ifname, const char *name, char *path,
		   size_t len)
{
	struct feed_dirs d;
	struct stat sb;
	int ret;

	ret = dirs_open(state_dir, ifname, name, false, &d);
	if (ret)
		return ret;
	if (fstatat(d.feed_fd, "good", &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
		ret = -ENOENT;
	else
		ret = join(path, len, d.path, "good");
	dirs_close(&d);
	return ret;
}
