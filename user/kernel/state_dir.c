// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The state directory: atomic files, bounded reads, copies and journals (lists/state_dir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/dirs.h"
#include "util/ifname.h"
#include "util/atomic_file.h"
#include "util/log.h"
#include "util/sha256.h"
#include "kernel/state_dir.h"

#define STATE_THEN "run the command again"
/*
 * Nobody else may write in the state's directories; reading is allowed, as
 * systemd's StateDirectory= makes them 0755 by default.
 */
#define STATE_FORBIDDEN 022

const char *state_root(const char *given)
{
	const char *env = getenv(STATE_DIR_ENV);

	if (given && *given)
		return given;
	return env && *env ? env : STATE_ROOT_DEFAULT;
}

void state_close(struct state_dir *sd)
{
	if (sd->fd >= 0)
		close(sd->fd);
	if (sd->root_fd >= 0)
		close(sd->root_fd);
	sd->fd = sd->root_fd = -1;
}

int state_dup(const struct state_dir *from, struct state_dir *to)
{
	int ret;

	to->root_fd = fcntl(from->root_fd, F_DUPFD_CLOEXEC, 0);
	to->fd = to->root_fd < 0 ? -1 : fcntl(from->fd, F_DUPFD_CLOEXEC, 0);
	snprintf(to->path, sizeof(to->path), "%s", from->path);
	if (to->fd >= 0)
		return 0;
	ret = -errno;
	state_close(to);
	return ret;
}

/* The root's parent by its path (an administrator's choice), the root itself checked. */
static int open_root(const char *root, bool create)
{
	char parent[PATH_MAX], base[PATH_MAX];
	int pfd, fd;

	if (strlen(root) >= sizeof(parent)) {
		log_error("%s: state directory path too long", root);
		return -ENAMETOOLONG;
	}
	strcpy(parent, root);
	strcpy(base, root);
	pfd = open(dirname(parent), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		fd = -errno;
		if (fd == -ENOENT && !create)
			return fd;
		log_error("cannot open %s, where the state directory %s goes: %s", parent, root,
			  strerror(-fd));
		return fd;
	}
	fd = own_dir_open(pfd, basename(base), root, create, STATE_FORBIDDEN, STATE_THEN);
	close(pfd);
	return fd;
}

int state_open(const char *root, const char *ifname, bool create, struct state_dir *sd)
{
	int ret;

	sd->root_fd = sd->fd = -1;
	sd->path[0] = '\0';
	/* One path component: never "..", never "a/b". */
	ret = ifname_check(ifname);
	if (ret)
		return ret;
	if (snprintf(sd->path, sizeof(sd->path), "%s/%s", root, ifname) >= (int)sizeof(sd->path)) {
		log_error("%s: state directory path too long", root);
		return -ENAMETOOLONG;
	}
	ret = sd->root_fd = open_root(root, create);
	if (ret >= 0)
		ret = sd->fd = own_dir_open(sd->root_fd, ifname, sd->path, create, STATE_FORBIDDEN,
					    STATE_THEN);
	if (ret < 0) {
		state_close(sd);
		return ret;
	}
	return 0;
}

static int fsync_dir(int dir_fd)
{
	return fsync(dir_fd) ? -errno : 0;
}

int state_write_begin(const struct state_dir *sd, const void *buf, size_t len,
		      char tmp[STATE_NAME_MAX])
{
	int ret = atomic_file_stage(sd->fd, buf, len, tmp);

	if (ret)
		log_error("cannot write a file in %s: %s", sd->path, strerror(-ret));
	return ret;
}

int state_write_finish(const struct state_dir *sd, char tmp[STATE_NAME_MAX], const char *name)
{
	int ret = atomic_file_commit(sd->fd, tmp, name);

	if (ret)
		log_error("cannot write %s/%s: %s", sd->path, name, strerror(-ret));
	return ret;
}

void state_write_abandon(const struct state_dir *sd, char tmp[STATE_NAME_MAX])
{
	atomic_file_abandon(sd->fd, tmp);
}

int state_write(const struct state_dir *sd, const char *name, const void *buf, size_t len)
{
	char tmp[STATE_NAME_MAX];
	int ret;

	ret = state_write_begin(sd, buf, len, tmp);
	return ret ? ret : state_write_finish(sd, tmp, name);
}

int state_open_file(const struct state_dir *sd, const char *name)
{
	struct stat st;
	int fd;

	fd = openat(sd->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* Not a FIFO or device that would block or never end; nobody else's. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int state_read(const struct state_dir *sd, const char *name, size_t max, char **buf,
	       size_t *len)
{
	char *p = NULL;
	size_t used = 0;
	ssize_t n;
	int fd, ret = 0;

	*buf = NULL;
	*len = 0;
	fd = state_open_file(sd, name);
	if (fd == -ENOENT)
		return fd;
	if (fd < 0) {
		log_error("cannot read %s/%s: %s%s", sd->path, name, strerror(-fd),
			  fd == -EPERM || fd == -ELOOP ? " (not a regular file of ours: check it, "
			  "remove it)" : "");
		return fd;
	}
	p = malloc(max + 1);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	/* One byte past max tells a file that is too large. */
	while (used <= max) {
		n = read(fd, p + used, max + 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (!n)
			break;
		used += n;
	}
	if (!ret && used > max)
		ret = -EFBIG;
	if (ret) {
		log_error("cannot read %s/%s: %s", sd->path, name, ret == -EFBIG ?
			  "larger than any state file bloomxdp writes: check it, remove it" :
			  strerror(-ret));
		goto out;
	}
	p[used] = '\0';
	*buf = p;
	*len = used;
	p = NULL;
out:
	free(p);
	close(fd);
	return ret;
}

/* text and its seal, malloc'd; NULL out of memory. */
static char *sealed(const char *text, size_t len, size_t *out_len)
{
	char hex[SHA256_HEX], *all;
	size_t n = len + strlen(STATE_SEAL) + SHA256_HEX + 1;

	all = malloc(n);
	if (!all || sha256_hex(text, len, hex)) {
		free(all);
		return NULL;
	}
	memcpy(all, text, len);
	*out_len = len + snprintf(all + len, n - len, STATE_SEAL "%s\n", hex);
	return all;
}

int state_write_sealed(const struct state_dir *sd, const char *name, const char *text, size_t len)
{
	size_t n;
	char *all = sealed(text, len, &n);
	int ret;

	ret = all ? state_write(sd, name, all, n) : -ENOMEM;
	free(all);
	return ret;
}

/* The seal of a version 2 file: its last line, the SHA-256 of all before it. */
static const char *seal_check(char *buf, size_t *len)
{
	size_t n = *len, start, slen = strlen(STATE_SEAL);
	char hex[SHA256_HEX];

	if (!n || buf[n - 1] != '\n')
		return "its end is missing (cut short)";
	for (start = n - 1; start && buf[start - 1] != '\n'; start--)
		;
	if (n - start != slen + SHA256_HEX || strncmp(buf + start, STATE_SEAL, slen))
		return "its last line is not its checksum (cut short, or appended to)";
	if (sha256_hex(buf, start, hex))
		return "out of memory";
	if (strncmp(buf + start + slen, hex, SHA256_HEX - 1))
		return "its SHA-256 is not the one it records (changed or damaged)";
	buf[start] = '\0';
	*len = start;
	return NULL;
}

int state_read_sealed(const struct state_dir *sd, const char *name, const char *then,
		      char **buf, size_t *len, bool *legacy)
{
	size_t mlen = strlen(STATE_MAGIC);
	const char *why;
	int ret;

	*legacy = false;
	ret = state_read(sd, name, STATE_TEXT_MAX, buf, len);
	if (ret)
		return ret;
	/* Same length: the version digit. */
	if (!strncmp(*buf, STATE_MAGIC_V1 "\n", mlen + 1)) {
		memcpy(*buf, STATE_MAGIC, mlen);
		*legacy = true;
		return 0;
	}
	why = strncmp(*buf, STATE_MAGIC, mlen) ? "not a state file of this version (its first "
		"line is not '" STATE_MAGIC "')" : seal_check(*buf, len);
	if (!why)
		return 0;
	ret = strncmp(*buf, STATE_MAGIC, mlen) ? -EINVAL : -EBADMSG;
	log_error("%s/%s: %s; nothing was changed: %s", sd->path, name, why, then);
	free(*buf);
	*buf = NULL;
	*len = 0;
	return ret;
}

char *state_journal_record(const char *body, size_t len, size_t *out_len)
{
	size_t n = len + strlen(STATE_RECORD) + 24 + SHA256_HEX + 1;
	char hex[SHA256_HEX], *all = malloc(n);

	if (!all || sha256_hex(body, len, hex)) {
		free(all);
		return NULL;
	}
	memcpy(all, body, len);
	*out_len = len + snprintf(all + len, n - len, STATE_RECORD "%zu %s\n", len, hex);
	return all;
}

/* The record a STATE_RECORD line at text[at] closes: its body's start, or -1. */
static long record_body(const char *text, size_t at, size_t line_len)
{
	char line[128], hex[SHA256_HEX], want[SHA256_HEX];
	unsigned long long bytes;
	int used = 0;

	if (line_len >= sizeof(line))
		return -1;
	memcpy(line, text + at, line_len);
	line[line_len] = '\0';
	if (sscanf(line, STATE_RECORD "%llu %64[0-9a-f]%n", &bytes, want, &used) != 2 ||
	    (size_t)used != line_len || strlen(want) != SHA256_HEX - 1 || bytes > at ||
	    (bytes && text[at - 1] != '\n'))
		return -1;
	if (sha256_hex(text + at - bytes, bytes, hex) || strcmp(hex, want))
		return -1;
	return at - bytes;
}

#define UNCOVERED "lines that no record's checksum covers (appended by hand?)"

static int journal_refuse(const struct state_dir *sd, const char *name, size_t good,
			  unsigned long line, const char *why)
{
	log_error("%s/%s:%lu: %s; nothing was changed: if the entries after byte %zu are not "
		  "yours, 'truncate -s %zu %s/%s' and run the command again, else load the "
		  "list again", sd->path, name, line, why, good, good, sd->path, name);
	return -EBADMSG;
}

int state_journal_read(const struct state_dir *sd, const char *name, bool legacy_ok,
		       char **body, size_t *len)
{
	size_t n, at, end, good = 0, out = 0, plen = strlen(STATE_RECORD);
	unsigned long line = 0, good_line = 0;
	bool records = false;
	char *text;
	long start;
	int ret;

	*body = NULL;
	*len = 0;
	ret = state_read(sd, name, STATE_JOURNAL_MAX, &text, &n);
	if (ret)
		return ret;
	/* The bodies are moved down over their record lines: out <= at always. */
	for (at = 0; at < n; at = end) {
		const char *nl = memchr(text + at, '\n', n - at);

		end = nl ? (size_t)(nl - text) + 1 : n;
		line++;
		if (!nl || end - at < plen || strncmp(text + at, STATE_RECORD, plen))
			continue;
		start = record_body(text, at, end - at - 1);
		if (start < 0 || (size_t)start < good) {
			ret = journal_refuse(sd, name, good, line, "a record whose checksum does "
					     "not match (changed, damaged or forged)");
			goto out;
		}
		if ((size_t)start > good && (records || !legacy_ok)) {
			ret = journal_refuse(sd, name, good, good_line + 1, UNCOVERED);
			goto out;
		}
		/* An older bloomxdp's lines (legacy_ok, before any record), then the body. */
		memmove(text + out, text + good, at - good);
		out += at - good;
		good = end;
		good_line = line;
		records = true;
	}
	if (good < n && text[n - 1] != '\n' && (records || !legacy_ok)) {
		/* An append cut short: add never said it was done. */
		log_warn("%s/%s: its last %zu bytes, an add that never finished, are left out",
			 sd->path, name, n - good);
		n = good;
	}
	if (good < n && (records || !legacy_ok)) {
		ret = journal_refuse(sd, name, good, good_line + 1, UNCOVERED);
		goto out;
	}
	memmove(text + out, text + good, n - good);
	out += n - good;
	text[out] = '\0';
	*body = text;
	*len = out;
	text = NULL;
out:
	free(text);
	return ret;
}

int state_append(const struct state_dir *sd, const char *name, const char *text, off_t *before)
{
	struct stat st;
	bool made;
	int fd, ret;

	fd = openat(sd->fd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	made = fd < 0 && errno == ENOENT;
	if (made)
		fd = openat(sd->fd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	if (fd < 0) {
		ret = -errno;
		goto err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		ret = -EPERM;
		goto err;
	}
	*before = st.st_size;
	ret = file_write_all(fd, text, strlen(text));
	if (!ret && fsync(fd))
		ret = -errno;
	/* A journal just made is durable only once its directory entry is. */
	if (!ret && made)
		ret = fsync_dir(sd->fd);
	if (ret) {
		/* A partial line would be read back as an entry. */
		if (ftruncate(fd, *before))
			log_warn("%s/%s: a partial line may be left at its end", sd->path, name);
		goto err;
	}
	close(fd);
	return 0;
err:
	if (fd >= 0)
		close(fd);
	log_error("cannot append to %s/%s: %s", sd->path, name, strerror(-ret));
	return ret;
}

int state_truncate(const struct state_dir *sd, const char *name, off_t len)
{
	int fd, ret = 0;

	fd = openat(sd->fd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, len) || fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

void state_copy_name(const char *which, unsigned long long serial, int i, char *out, size_t len)
{
	snprintf(out, len, "%s-%llu.%d", which, serial, i);
}

void state_journal_name(const char *which, unsigned long long serial, const char *format,
			char *out, size_t len)
{
	snprintf(out, len, "%s-%llu.journal.%s", which, serial, format);
}

/* Sources as given may hold any byte: %XX for controls, spaces and '%'. */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == '%' || *s == 0x7f)
			fprintf(out, "%%%02x", (unsigned char)*s);
		else
			fputc(*s, out);
}

static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	unsigned int v;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == '%' && sscanf(s + 1, "%2x", &v) == 1 && v) {
			*o++ = v;
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

/* A name the state itself made: what a manifest may point to. */
static bool state_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n >= STATE_NAME_MAX || name[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", name[i]))
			return false;
	return true;
}

int state_list_add_source(struct state_list *l, const char *source, const char *copy,
			  const char *sha256, unsigned long long bytes)
{
	struct state_source *grown, *s;

	grown = realloc(l->src, (l->nsources + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	l->src = grown;
	s = &l->src[l->nsources];
	memset(s, 0, sizeof(*s));
	s->source = strdup(source);
	if (!s->source)
		return -ENOMEM;
	snprintf(s->copy, sizeof(s->copy), "%s", copy);
	snprintf(s->sha256, sizeof(s->sha256), "%s", sha256);
	s->bytes = bytes;
	l->nsources++;
	return 0;
}

void state_list_free(struct state_list *l)
{
	int i;

	for (i = 0; i < l->nsources; i++) {
		free(l->src[i].source);
		free(l->src[i].options);
	}
	free(l->src);
	free(l->options);
	memset(l, 0, sizeof(*l));
}

/* A manifest's text, sealed, malloc'd; NULL out of memory. */
static char *list_text(const struct state_list *l, size_t *sealed_len)
{
	char *text = NULL, *all;
	size_t len = 0;
	FILE *out;
	int i;

	out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	fprintf(out, STATE_MAGIC "\nserial %llu\ngeneration %llu\ntime %lld\n", l->serial,
		l->generation, l->time);
	if (l->options) {
		char *line, *save, *opts = strdup(l->options);

		for (line = opts ? strtok_r(opts, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(out, "option %s\n", line);
		free(opts);
	}
	for (i = 0; i < l->nsources; i++) {
		fputs("source ", out);
		put_escaped(out, l->src[i].source);
		fprintf(out, "\ncopy %s\nsha256 %s\nbytes %llu\n", l->src[i].copy,
			l->src[i].sha256, l->src[i].bytes);
		if (l->src[i].options) {
			char *line, *save, *opts = strdup(l->src[i].options);

			for (line = opts ? strtok_r(opts, "\n", &save) : NULL; line;
			     line = strtok_r(NULL, "\n", &save))
				fprintf(out, "source-option %s\n", line);
			free(opts);
		}
	}
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	all = sealed(text, len, sealed_len);
	free(text);
	return all;
}

int state_list_write_begin(const struct state_dir *sd, const struct state_list *l,
			   char tmp[STATE_NAME_MAX])
{
	size_t len;
	char *text = list_text(l, &len);
	int ret;

	tmp[0] = '\0';
	ret = text ? state_write_begin(sd, text, len, tmp) : -ENOMEM;
	free(text);
	return ret;
}

int state_list_write(const struct state_dir *sd, const char *which, const struct state_list *l)
{
	char tmp[STATE_NAME_MAX];
	int ret;

	ret = state_list_write_begin(sd, l, tmp);
	return ret ? ret : state_write_finish(sd, tmp, which);
}

static int bad_manifest(const struct state_dir *sd, const char *which, int line, const char *why)
{
	log_error("%s/%s:%d: %s: not a state file of this version; check it, or forget the "
		  "state ('bloomxdp detach --forget')", sd->path, which, line, why);
	return -EINVAL;
}

/* One more "--name=value" line onto a source's options. */
static int append_line(char **text, const char *line)
{
	size_t had = *text ? strlen(*text) : 0, add = strlen(line);
	char *grown = realloc(*text, had + add + 2);

	if (!grown)
		return -ENOMEM;
	memcpy(grown + had, line, add);
	grown[had + add] = '\n';
	grown[had + add + 1] = '\0';
	*text = grown;
	return 0;
}

int state_list_read(const struct state_dir *sd, const char *which, struct state_list *l)
{
	char *text, *line, *save, *value, *opts = NULL;
	size_t len, olen = 0;
	FILE *o;
	int n = 0, ret;
	struct state_source *cur = NULL;
	bool legacy;

	memset(l, 0, sizeof(*l));
	ret = state_read_sealed(sd, which, "load the list again, or forget the state ('bloomxdp "
				"detach --forget') and attach anew", &text, &len, &legacy);
	if (ret)
		return ret;
	if (strlen(text) != len) {
		ret = bad_manifest(sd, which, 1, "a NUL byte");
		goto out;
	}
	o = open_memstream(&opts, &olen);
	if (!o) {
		ret = -ENOMEM;
		goto out;
	}
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		n++;
		if (n == 1) {
			if (strcmp(line, STATE_MAGIC))
				ret = bad_manifest(sd, which, n, "no '" STATE_MAGIC "' first");
			continue;
		}
		value = strchr(line, ' ');
		if (!value) {
			ret = bad_manifest(sd, which, n, "a line without a value");
			break;
		}
		*value++ = '\0';
		if (!strcmp(line, "serial")) {
			l->serial = strtoull(value, NULL, 10);
		} else if (!strcmp(line, "generation")) {
			l->generation = strtoull(value, NULL, 10);
		} else if (!strcmp(line, "time")) {
			l->time = strtoll(value, NULL, 10);
		} else if (!strcmp(line, "option")) {
			fprintf(o, "%s\n", value);
		} else if (!strcmp(line, "source")) {
			char *src = unescape(value);

			ret = src ? state_list_add_source(l, src, "", "", 0) : -ENOMEM;
			free(src);
			cur = ret ? NULL : &l->src[l->nsources - 1];
		} else if (cur && !strcmp(line, "copy")) {
			if (!state_name_ok(value))
				ret = bad_manifest(sd, which, n,
						   "a copy's name the state never makes");
			else
				snprintf(cur->copy, sizeof(cur->copy), "%s", value);
		} else if (cur && !strcmp(line, "sha256")) {
			snprintf(cur->sha256, sizeof(cur->sha256), "%s", value);
		} else if (cur && !strcmp(line, "bytes")) {
			cur->bytes = strtoull(value, NULL, 10);
		} else if (cur && !strcmp(line, "source-option")) {
			ret = append_line(&cur->options, value);
		} else {
			ret = bad_manifest(sd, which, n, "an unknown key");
		}
	}
	if (!ret && n == 0)
		ret = bad_manifest(sd, which, 1, "empty");
	for (n = 0; !ret && n < l->nsources; n++)
		if (!l->src[n].copy[0])
			ret = bad_manifest(sd, which, 0, "a source without its copy");
	if (fclose(o))
		ret = ret ? ret : -ENOMEM;
	l->options = opts;
	l->legacy = legacy;
out:
	free(text);
	if (ret)
		state_list_free(l);
	return ret;
}

/* Whether name is one of which's files that l still uses. */
static bool in_use(const char *name, const char *which, const struct state_list *l)
{
	char prefix[STATE_NAME_MAX];
	int i;

	for (i = 0; i < l->nsources; i++)
		if (!strcmp(name, l->src[i].copy))
			return true;
	/* The journals of the current serial, any format, and what del took out of it. */
	state_journal_name(which, l->serial, "", prefix, sizeof(prefix));
	if (!strncmp(name, prefix, strlen(prefix)))
		return true;
	snprintf(prefix, sizeof(prefix), "%s-%llu.deleted", which, l->serial);
	if (!strcmp(name, prefix))
		return true;
	snprintf(prefix, sizeof(prefix), "%s-%llu.index", which, l->serial);
	if (!strcmp(name, prefix))
		return true;
	snprintf(prefix, sizeof(prefix), "%s-%llu.timeouts", which, l->serial);
	return !strcmp(name, prefix);
}

/* A listing of the directory dir_fd (its own descriptor: dir_fd stays open); NULL, errno set. */
static DIR *dir_listing(int dir_fd)
{
	int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;

	if (fd < 0)
		return NULL;
	dir = fdopendir(fd);
	if (!dir) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return dir;
}

void state_prune(const struct state_dir *sd, const char *which, const struct state_list *l)
{
	char prefix[STATE_NAME_MAX];
	struct dirent *d;
	DIR *dir;

	dir = dir_listing(sd->fd);
	if (!dir)
		return;
	snprintf(prefix, sizeof(prefix), "%s-", which);
	/*
	 * "<which>-<serial>.": list "a"'s prefix "list.a-" is also the start of
	 * list "a-b"'s names, whose serial is not right after it.
	 */
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, prefix, strlen(prefix)) && state_name_ok(d->d_name) &&
		    strspn(d->d_name + strlen(prefix), "0123456789") &&
		    d->d_name[strlen(prefix) + strspn(d->d_name + strlen(prefix),
						      "0123456789")] == '.' &&
		    !in_use(d->d_name, which, l))
			unlinkat(sd->fd, d->d_name, 0);
	closedir(dir);
}

/* Everything under dir_fd, directories depth first, following no link. */
static int remove_tree(int dir_fd, int depth)
{
	struct dirent *d;
	int sub, ret = 0;
	DIR *dir;

	dir = dir_listing(dir_fd);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (!unlinkat(dir_fd, d->d_name, 0))
			continue;
		if (errno != EISDIR || depth > 4) {
			ret = -errno;
			continue;
		}
		sub = openat(dir_fd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			ret = -errno;
			continue;
		}
		ret = remove_tree(sub, depth + 1) ?: ret;
		close(sub);
		if (unlinkat(dir_fd, d->d_name, AT_REMOVEDIR))
			ret = -errno;
	}
	closedir(dir);
	return ret;
}

int state_forget(const char *root, const char *ifname)
{
	struct state_dir sd;
	int ret;

	ret = state_open(root, ifname, false, &sd);
	if (ret)
		return ret;
	ret = remove_tree(sd.fd, 0);
	if (!ret && unlinkat(sd.root_fd, ifname, AT_REMOVEDIR))
		ret = -errno;
	if (!ret)
		fsync_dir(sd.root_fd);
	if (ret)
		log_error("cannot remove all of %s: %s; see what is left with 'ls -la %s'", sd.path,
			  strerror(-ret), sd.path);
	state_close(&sd);
	return ret;
}

/* The named lists' manifests ("list.NAME") and their files: gone with a fresh attach. */
static void named_lists_reset(const struct state_dir *sd)
{
	const size_t plen = strlen(STATE_LIST_PREFIX);
	char which[STATE_NAME_MAX];
	struct state_list none = {};
	struct dirent *d;
	DIR *dir;

	dir = dir_listing(sd->fd);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		const char *name = d->d_name + plen;

		if (strncmp(d->d_name, STATE_LIST_PREFIX, plen) || !*name ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(name) ||
		    strlen(d->d_name) >= sizeof(which))
			continue;
		snprintf(which, sizeof(which), "%s", d->d_name);
		if (!unlinkat(sd->fd, which, 0))
			state_prune(sd, which, &none);
	}
	closedir(dir);
}

int state_lists_reset(const struct state_dir *sd)
{
	static const char *const which[] = { STATE_BLOCK, STATE_ALLOW };
	struct state_list old, l;
	size_t i;
	int ret = 0;

	for (i = 0; i < 2 && !ret; i++) {
		ret = state_list_read(sd, which[i], &old);
		if (ret && ret != -ENOENT)
			break;
		memset(&l, 0, sizeof(l));
		l.serial = ret ? 1 : old.serial + 1;
		l.time = time(NULL);
		state_list_free(&old);
		ret = state_list_write(sd, which[i], &l);
		if (!ret)
			state_prune(sd, which[i], &l);
	}
	if (!ret)
		named_lists_reset(sd);
	return ret;
}

int state_interfaces(const char *root, char ***names, int *n)
{
	struct dirent *d;
	struct state_dir sd;
	char **grown;
	DIR *dir;
	int fd, ret = 0;

	*names = NULL;
	*n = 0;
	fd = open_root(root, false);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	while ((d = readdir(dir)) && !ret) {
		if (d->d_name[0] == '.' || ifname_invalid(d->d_name))
			continue;
		/* Only the directories of ours, checked as restore will open them. */
		if (state_open(root, d->d_name, false, &sd))
			continue;
		state_close(&sd);
		grown = realloc(*names, (*n + 1) * sizeof(*grown));
		if (!grown || !(grown[*n] = strdup(d->d_name))) {
			if (grown)
				*names = grown;
			ret = -ENOMEM;
			break;
		}
		*names = grown;
		(*n)++;
	}
	closedir(dir);
	return ret;
}
