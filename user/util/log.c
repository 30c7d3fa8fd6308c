// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "util/log.h"

bool log_verbose;
const char *log_context;

/*
 * One line whatever the arguments hold (an interface name, a list line):
 * control bytes are written as \xNN, so that nothing echoed can end the
 * line early or drive the terminal.
 */
static void log_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024], *text = buf;
	const unsigned char *p;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf)) {
		text = malloc(n + 1);
		if (text)
			vsnprintf(text, n + 1, fmt, again);
		else
			text = buf;
	}
	va_end(again);
	fprintf(stderr, "bloomxdp: %s%s", log_context ? log_context : "", prefix);
	for (p = (const unsigned char *)text; n > 0 && *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	}
	fputc('\n', stderr);
	if (text != buf)
		free(text);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line("", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_line("", fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!log_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
