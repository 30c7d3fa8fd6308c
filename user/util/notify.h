/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The daemon under systemd (Type=notify, WatchdogSec=): what it tells the
 * service manager through sd_notify(3). Without NOTIFY_SOCKET (not run by
 * systemd) each call does nothing.
 */
#ifndef BLOOMXDP_NOTIFY_H
#define BLOOMXDP_NOTIFY_H

/* Reads the watchdog's interval (sd_watchdog_enabled(): WATCHDOG_USEC, WATCHDOG_PID). */
void notify_init(void);
/* READY=1 with STATUS=: the lists of the configuration are enforced. */
void notify_ready(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* STATUS=: one line of what the daemon does (systemctl status shows it). */
void notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* RELOADING=1 (a SIGHUP's reload begins; notify_ready() when it is done). */
void notify_reloading(void);
/* STOPPING=1: the daemon exits. */
void notify_stopping(void);
/*
 * WATCHDOG=1 when half of the watchdog's interval passed since the last:
 * called from the loop, and from a long step in it (a fetch's progress).
 */
void notify_watchdog(void);
/* Milliseconds until the next WATCHDOG=1 is due (0: now), or -1 without a watchdog. */
int notify_watchdog_ms(void);

#endif
