// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sd_notify(3) for the daemon: readiness, status, reload, stop, and the watchdog's pings. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <systemd/sd-daemon.h>

#include "util/log.h"
#include "util/notify.h"

/* Half of WatchdogSec=, in microseconds (0: no watchdog), and the last ping (CLOCK_MONOTONIC). */
static uint64_t ping_every_us, pinged_us;

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
}

void notify_init(void)
{
	uint64_t usec = 0;
	int ret;

	ret = sd_watchdog_enabled(0, &usec);
	if (ret < 0)
		log_warn("WATCHDOG_USEC=%s WATCHDOG_PID=%s not understood (%d): systemd's watchdog "
			 "is not fed", getenv("WATCHDOG_USEC") ?: "", getenv("WATCHDOG_PID") ?: "",
			 ret);
	ping_every_us = ret > 0 ? usec / 2 : 0;
	pinged_us = now_us();
	if (ping_every_us)
		log_debug("systemd's watchdog: WATCHDOG=1 every %llu ms",
			  (unsigned long long)(ping_every_us / 1000));
}

/* One message; sd_notify()'s failure is not the daemon's: said with -v only. */
static void send_state(const char *state)
{
	int ret = sd_notify(0, state);

	if (ret < 0)
		log_debug("sd_notify: %d", ret);
}

static void send_status(const char *first, const char *fmt, va_list ap)
{
	char line[512], state[600];

	vsnprintf(line, sizeof(line), fmt, ap);
	snprintf(state, sizeof(state), "%sSTATUS=%s", first, line);
	send_state(state);
}

void notify_ready(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_status("READY=1\n", fmt, ap);
	va_end(ap);
}

void notify_status(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_status("", fmt, ap);
	va_end(ap);
}

void notify_reloading(void)
{
	char state[64];

	/* MONOTONIC_USEC: what Type=notify-reload (systemd 253) asks of RELOADING=1. */
	snprintf(state, sizeof(state), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)now_us());
	send_state(state);
}

void notify_stopping(void)
{
	send_state("STOPPING=1\nSTATUS=stopping; the filter stays attached");
}

void notify_watchdog(void)
{
	uint64_t now;

	if (!ping_every_us)
		return;
	now = now_us();
	if (now - pinged_us < ping_every_us)
		return;
	pinged_us = now;
	send_state("WATCHDOG=1");
}

int notify_watchdog_ms(void)
{
	uint64_t now, due;

	if (!ping_every_us)
		return -1;
	now = now_us();
	due = pinged_us + ping_every_us;
	return due <= now ? 0 : (int)((due - now + 999) / 1000);
}
