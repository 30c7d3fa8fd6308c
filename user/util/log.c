// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <bpf/libbpf.h>
#include <systemd/sd-journal.h>

#include "util/log.h"

bool log_verbose;
const char *log_context;
const char *log_interface;
/* log_journal_setup() found stderr connected to the journal. */
static bool log_journal;

/*
 * One line whatever the arguments hold (an interface name, a list line):
 * control bytes are written as \xNN, so that nothing echoed can end the
 * line early or drive the terminal. Returns a buffer to free, or NULL.
 */
static char *escaped(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	char *out = malloc(len * 4 + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < len && p[i]; i++) {
		if (p[i] < 0x20 || p[i] == 0x7f)
			o += sprintf(o, "\\x%02x", p[i]);
		else
			*o++ = p[i];
	}
	*o = 0;
	return out;
}

/* One field NAME=VALUE of an entry, when value is set. */
static int field(struct iovec *iov, int n, char *buf, size_t size, const char *name,
		 const char *value)
{
	if (!value)
		return n;
	snprintf(buf, size, "%s=%s", name, value);
	iov[n] = (struct iovec){ .iov_base = buf, .iov_len = strlen(buf) };
	return n + 1;
}

/* One entry of the journal; false if it could not be sent (journald gone: stderr then). */
static bool journal_line(int priority, const struct log_fields *f, const char *msg)
{
	char prio[16], ifname[64], list[128], event[64], *message;
	struct iovec iov[6];
	int n = 0;
	bool sent;

	message = malloc(strlen(msg) + sizeof("MESSAGE=") + strlen(log_context ?: ""));
	if (!message)
		return false;
	sprintf(message, "MESSAGE=%s%s", log_context ?: "", msg);
	iov[n++] = (struct iovec){ .iov_base = message, .iov_len = strlen(message) };
	snprintf(prio, sizeof(prio), "PRIORITY=%d", priority & 7);
	iov[n++] = (struct iovec){ .iov_base = prio, .iov_len = strlen(prio) };
	iov[n++] = (struct iovec){ .iov_base = "SYSLOG_IDENTIFIER=bloomxdp",
				   .iov_len = strlen("SYSLOG_IDENTIFIER=bloomxdp") };
	n = field(iov, n, ifname, sizeof(ifname), "INTERFACE",
		  f && f->ifname ? f->ifname : log_interface);
	n = field(iov, n, list, sizeof(list), "LIST", f ? f->list : NULL);
	n = field(iov, n, event, sizeof(event), "EVENT", f ? f->event : NULL);
	sent = sd_journal_sendv(iov, n) >= 0;
	free(message);
	return sent;
}

static void log_line(int priority, const struct log_fields *f, const char *prefix,
		     const char *fmt, va_list ap)
{
	char buf[1024], *text = buf, *line;
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
	line = escaped(text, n < 0 ? 0 : strlen(text));
	if (!line || !log_journal || !journal_line(priority, f, line))
		fprintf(stderr, "bloomxdp: %s%s%s\n", log_context ? log_context : "", prefix,
			line ? line : text);
	free(line);
	if (text != buf)
		free(text);
}

void log_at(int priority, const struct log_fields *f, const char *fmt, ...)
{
	va_list ap;

	if (priority == LOG_DEBUG && !log_verbose)
		return;
	va_start(ap, fmt);
	log_line(priority, f, priority == LOG_WARNING ? "warning: " : "", fmt, ap);
	va_end(ap);
}

void log_text(int priority, const struct log_fields *f, const char *text)
{
	const char *end;
	char *line;

	if (!log_journal) {
		fputs(text, stderr);
		if (*text && text[strlen(text) - 1] != '\n')
			fputc('\n', stderr);
		return;
	}
	for (; *text; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		if (end == text)
			continue;
		line = escaped(text, end - text);
		if (!line || !journal_line(priority, f, line))
			fprintf(stderr, "%.*s\n", (int)(end - text), text);
		free(line);
	}
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(LOG_ERR, NULL, "", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(LOG_WARNING, NULL, "warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(LOG_INFO, NULL, "", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_line(LOG_DEBUG, NULL, "", fmt, ap);
	va_end(ap);
}

bool log_journal_setup(void)
{
	const char *stream = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	log_journal = stream && sscanf(stream, "%llu:%llu", &dev, &ino) == 2 &&
		      !fstat(fileno(stderr), &st) && st.st_dev == dev && st.st_ino == ino;
	return log_journal;
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
