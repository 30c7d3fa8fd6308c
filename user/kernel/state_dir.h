/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What is enforced, kept on disk so that it outlives the pins (a reboot, a
 * lost pin directory): <root>/<ifname>/ holds the attachment's settings and,
 * per list (block, allow), a manifest of its sources with a copy of each as
 * read, and a journal of the entries added since. docs/operations.md ("State") describes
 * the files. The directories are checked as the pins' are (attachment.h).
 */
#ifndef BLOOMXDP_STATE_H
#define BLOOMXDP_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/options.h"
#include "util/sha256.h"

#define STATE_ROOT_DEFAULT "/var/lib/bloomxdp"
#define STATE_DIR_ENV "BLOOMXDP_STATE_DIR"
/* Settings and manifests are read whole, up to this: a larger one is not ours. */
#define STATE_TEXT_MAX (1 << 20)
/*
 * The first line of every settings file and manifest; their last is
 * STATE_SEAL and the SHA-256 of all before it. Version 1 (older bloomxdp) had
 * no seal: read once as it is, and rewritten sealed (docs/operations.md, "State").
 */
#define STATE_MAGIC "bloomxdp-state 2"
#define STATE_MAGIC_V1 "bloomxdp-state 1"
#define STATE_SEAL "end sha256 "
/* Each record appended to a journal ends with this line: "<prefix><bytes> <sha256>". */
#define STATE_RECORD "#bloomxdp-record "
/* A journal is read whole, up to this. */
#define STATE_JOURNAL_MAX ((size_t)STATE_TEXT_MAX * 256)
#define STATE_SETTINGS "settings"
#define STATE_BLOCK "block"
#define STATE_ALLOW "allow"
/* A named list's manifest: "list.NAME" (named.h). */
#define STATE_LIST_PREFIX "list."
/* A copy's, a journal's name: "block-<serial>.<n>", "block-<serial>.journal.<format>". */
#define STATE_NAME_MAX 96

/* --state-dir, the same row for every command that reads or writes state. */
#define OPTION_STATE_DIR(type)								\
	OPTION("state-dir", 0, OPT_TEXT, offsetof(type, state_dir), "DIR",		\
	       "where the state is kept (default $" STATE_DIR_ENV ",\n"		\
	       "else " STATE_ROOT_DEFAULT ")")

/* The state directory of one interface, opened as the pins' directory is. */
struct state_dir {
	int root_fd;
	int fd;
	char path[PATH_MAX];	/* for messages */
};

/* The root: given (--state-dir), else $BLOOMXDP_STATE_DIR, else STATE_ROOT_DEFAULT. */
const char *state_root(const char *given);

/*
 * Opens <root>/<ifname>/, each level with O_NOFOLLOW relative to the one
 * above, refusing one not owned by the effective uid or writable by group or
 * others; with create, makes what is missing with mode 0700. -ENOENT
 * unprinted when it is not there; other errors printed.
 */
int state_open(const char *root, const char *ifname, bool create, struct state_dir *sd);
/*
 * Another handle on a state directory open already (descriptors of its own,
 * nothing resolved or checked again): an operation opens its state once and
 * passes it down to what keeps a hold of it. -errno.
 */
int state_dup(const struct state_dir *from, struct state_dir *to);
void state_close(struct state_dir *sd);
/* The interfaces with a state directory under root (restore --all), malloc'd names. */
int state_interfaces(const char *root, char ***names, int *n);
/* detach --forget: removes <root>/<ifname>/ and what is in it, following no link. */
int state_forget(const char *root, const char *ifname);

/* Replaces name atomically: a temporary file, fsync, renameat, fsync of the directory. */
int state_write(const struct state_dir *sd, const char *name, const void *buf, size_t len);
/*
 * state_write() in two steps: the temporary file written and fsync'd (tmp
 * its name; failures printed, nothing left), then given its name. A load
 * writes its state first and swaps its list in only once it is durable;
 * state_write_abandon() removes a temporary file not given its name.
 */
int state_write_begin(const struct state_dir *sd, const void *buf, size_t len,
		      char tmp[STATE_NAME_MAX]);
int state_write_finish(const struct state_dir *sd, char tmp[STATE_NAME_MAX], const char *name);
void state_write_abandon(const struct state_dir *sd, char tmp[STATE_NAME_MAX]);
/* As state_write(), text ending in its seal (STATE_SEAL). */
int state_write_sealed(const struct state_dir *sd, const char *name, const char *text, size_t len);
/*
 * As state_read(), a file state_write_sealed() wrote: -EBADMSG, printed with
 * then (what to do), when its seal is missing or does not match; the seal
 * taken off. *legacy: a version 1 file (no seal), its first line then made
 * STATE_MAGIC.
 */
int state_read_sealed(const struct state_dir *sd, const char *name, const char *then,
		      char **buf, size_t *len, bool *legacy);
/* body (its lines) and its closing STATE_RECORD line, malloc'd; NULL out of memory. */
char *state_journal_record(const char *body, size_t len, size_t *out_len);
/*
 * The entries of a journal, every record's checksum checked, into a malloc'd
 * *body. legacy_ok: lines before the first record (an older bloomxdp's) are
 * taken as they are. A last line cut short (an append that never finished,
 * never reported done) is left out, with a warning; lines after the last
 * record that are complete are refused (-EBADMSG, printed: the file and what
 * to do).
 */
int state_journal_read(const struct state_dir *sd, const char *name, bool legacy_ok,
		       char **body, size_t *len);
/*
 * Reads a whole regular file of at most max bytes, NUL-terminated, into a
 * malloc'd *buf. -ENOENT unprinted; -EFBIG when larger; others printed.
 */
int state_read(const struct state_dir *sd, const char *name, size_t max, char **buf,
	       size_t *len);
/* A regular file of the state, opened read-only without following a link; -errno. */
int state_open_file(const struct state_dir *sd, const char *name);
/* Appends text to a journal and fsyncs it; *before: its length before, for state_truncate(). */
int state_append(const struct state_dir *sd, const char *name, const char *text, off_t *before);
int state_truncate(const struct state_dir *sd, const char *name, off_t len);
/* Removes what the state holds for which that l does not name (older copies, journals). */
struct state_list;
void state_prune(const struct state_dir *sd, const char *which, const struct state_list *l);
/*
 * A fresh attachment: both lists recorded empty, their older copies and
 * journals removed, and the named lists' ("list.NAME") state with them.
 */
int state_lists_reset(const struct state_dir *sd);

/*
 * A copy of an input being written: a temporary file, hashed as it grows, by
 * a thread of its own (kernel/state_copy.c) from the first write to
 * state_copy_drain().
 */
struct copy_writer;
struct state_copy {
	int fd;
	char tmp[STATE_NAME_MAX];
	struct sha256 hash;
	unsigned long long bytes;
	char sha256[SHA256_HEX];
	int err;		/* of a write that failed (-ENOSPC: the disk is full) */
	struct copy_writer *writer;
};

int state_copy_begin(const struct state_dir *sd, struct state_copy *c);
/* Queued (copied): 0, or the error of an earlier write that failed (then kept in c->err). */
int state_copy_write(struct state_copy *c, const void *buf, size_t n);
/* Waits for what was queued to be written and ends the writer: 0 or c->err. */
int state_copy_drain(struct state_copy *c);
/* Drained, fsync and the digest; the copy stays open (c->fd, at its start) to be read. */
int state_copy_finish(struct state_copy *c);
/* Gives the temporary file its name, durably. */
int state_copy_commit(const struct state_dir *sd, struct state_copy *c, const char *name);
/* Closes it, and removes the temporary file if it was not committed. */
void state_copy_close(const struct state_dir *sd, struct state_copy *c);

/* One source of a list as last applied. */
struct state_source {
	char *source;		/* path or URL as given, or "stdin" */
	char copy[STATE_NAME_MAX];
	char sha256[SHA256_HEX];
	unsigned long long bytes;
	char *options;		/* its own load options, "--name=value\n" lines; NULL: the list's */
};

/* A list as last applied: the manifest "block" or "allow". */
struct state_list {
	unsigned long long serial;	/* names its copies and journals; +1 per load */
	unsigned long long generation;	/* the blocklist's live generation after the load */
	long long time;			/* of the load, seconds since the epoch */
	char *options;			/* the load's options, "--name=value\n" lines */
	struct state_source *src;
	int nsources;
	bool legacy;			/* read from a version 1 manifest: journals unsealed */
};

int state_list_read(const struct state_dir *sd, const char *which, struct state_list *l);
int state_list_write(const struct state_dir *sd, const char *which, const struct state_list *l);
/* Its first step (state_write_begin()): state_write_finish() names it which. */
int state_list_write_begin(const struct state_dir *sd, const struct state_list *l,
			   char tmp[STATE_NAME_MAX]);
void state_list_free(struct state_list *l);
/* A source into l (source is copied). */
int state_list_add_source(struct state_list *l, const char *source, const char *copy,
			  const char *sha256, unsigned long long bytes);
void state_copy_name(const char *which, unsigned long long serial, int i, char *out, size_t len);
void state_journal_name(const char *which, unsigned long long serial, const char *format,
			char *out, size_t len);

#endif
