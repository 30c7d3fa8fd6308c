/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LOG_H
#define BLOOMXDP_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

extern bool log_verbose;
/* When set, each line says it after "bloomxdp: ": "FILE:LINE: " of a configuration file. */
extern const char *log_context;
/* The journal's INTERFACE= of every line that names none (the daemon's interface), or NULL. */
extern const char *log_interface;

/*
 * What the journal keeps beside a line's text under systemd (log_journal_setup()):
 * INTERFACE=, LIST=, EVENT= (a word: "list-loaded", "reload"...). NULL members: none.
 */
struct log_fields {
	const char *ifname;
	const char *list;
	const char *event;
};

/*
 * The one path of every line: one line on stderr, prefixed "bloomxdp: " (as
 * below), or, once log_journal_setup() found that stderr is the journal, one
 * entry of the journal through sd_journal_send(): PRIORITY= (LOG_ERR...),
 * MESSAGE= (the line without the prefix) and the fields of f.
 */
void log_at(int priority, const struct log_fields *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Text of several lines (a load's report, as the commands print it): written
 * as it is on stderr (a last newline added if it has none), or an entry of
 * the journal per line, with f.
 */
void log_text(int priority, const struct log_fields *f, const char *text);
/*
 * A report into the log through log_text(): print(r, FILE *) writes its lines (the
 * *_print() functions of lists/report.h), as a command prints them.
 */
#define LOG_REPORT(priority, fields, print, r)						\
	do {										\
		char *text_ = NULL;							\
		size_t len_ = 0;							\
		FILE *out_ = open_memstream(&text_, &len_);				\
											\
		if (out_) {								\
			print(r, out_);							\
			if (!fclose(out_))						\
				log_text(priority, fields, text_);			\
		}									\
		free(text_);								\
	} while (0)

/* One line on stderr, prefixed "bloomxdp: "; the text says what to do next. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What a long-running command did: one line on stderr (journald keeps it). */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with -v. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Under systemd, log to the journal with fields: when JOURNAL_STREAM names
 * stderr's device and inode (systemd connected stderr to the journal, and the
 * operator did not redirect it). Returns whether it does.
 */
bool log_journal_setup(void);

/* Routes libbpf's own messages: shown only with -v. */
void log_setup_libbpf(void);

#endif
