/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_LOG_H
#define BLOOMXDP_LOG_H

#include <stdbool.h>

extern bool log_verbose;

/* One line on stderr, prefixed "bloomxdp: "; the text says what to do next. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with -v. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Routes libbpf's own messages: shown only with -v. */
void log_setup_libbpf(void);

#endif
