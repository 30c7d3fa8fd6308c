/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LOG_H
#define BLOOMXDP_LOG_H

#include <stdbool.h>

extern bool log_verbose;
/* When set, each line says it after "bloomxdp: ": "FILE:LINE: " of a configuration file. */
extern const char *log_context;

/* One line on stderr, prefixed "bloomxdp: "; the text says what to do next. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What a long-running command did: one line on stderr (journald keeps it). */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with -v. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Routes libbpf's own messages: shown only with -v. */
void log_setup_libbpf(void);

#endif
