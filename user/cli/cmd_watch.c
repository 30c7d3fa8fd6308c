// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* watch: drop events from the ring buffer, as they come. */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

#include "kernel/attachment.h"
#include "cli/commands.h"
#include "kernel/events.h"
#include "util/log.h"

/* A year: longer is a mistake, and "inf" no number. */
#define MAX_WATCH_SECONDS (365 * 86400)

struct watch_ctx {
	bool json;
	struct events_clock clock;
	__u64 seen;
	__u64 count;
};

static volatile sig_atomic_t stop_watching;

static void on_signal(int sig)
{
	(void)sig;
	stop_watching = 1;
}

static int on_event(void *arg, void *data, size_t size)
{
	const struct bloomxdp_event *ev = data;
	struct watch_ctx *w = arg;
	char line[BLOOMXDP_EVENT_NAME_MAX * 4 + 256];

	if (events_stale(&w->clock, data, size))
		return 0;
	if (w->json) {
		event_write_json(&w->clock, ev, stdout);
	} else {
		event_text(&w->clock, ev, line, sizeof(line));
		printf("%s\n", line);
	}
	fflush(stdout);
	if (w->count && ++w->seen >= w->count)
		stop_watching = 1;
	return 0;
}

static int do_watch(const char *ifname, struct watch_ctx *w, double timeout)
{
	struct ring_buffer *rb = NULL;
	struct attachment att;
	struct timespec start, now;
	int ret;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	if (!att.config.events_per_sec)
		log_warn("%s was attached with --events-per-sec 0: no event will come", ifname);
	events_clock_now(&w->clock);
	w->clock.lists_fd = att.lists_fd;
	rb = ring_buffer__new(att.events_fd, on_event, w, NULL);
	if (!rb) {
		ret = -errno;
		log_error("cannot read the events of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!stop_watching) {
		ret = ring_buffer__poll(rb, 100);
		if (ret < 0 && ret != -EINTR) {
			log_error("reading the events of %s: %s", ifname, strerror(-ret));
			goto cleanup;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timeout > 0 && (now.tv_sec - start.tv_sec) +
				   (now.tv_nsec - start.tv_nsec) / 1e9 >= timeout)
			break;
	}
	ret = 0;
cleanup:
	ring_buffer__free(rb);
	attachment_close(&att);
	return ret;
}

struct watch_opts {
	__u64 count;
	double timeout;
};

static int run_watch(const struct cli_call *call)
{
	const struct watch_opts *o = call->opts;
	struct watch_ctx w = { .json = call->json, .count = o->count };

	return do_watch(call->ifname, &w, o->timeout);
}

static const struct option_spec watch_options[] = {
	OPTION("count", 'n', OPT_COUNT, offsetof(struct watch_opts, count), "N",
	       "stop after N events", .min = 1, .max = COUNT_MAX),
	/* Bounded: "inf" or "nan" would make a script's timeout a no-op. */
	OPTION("timeout", 't', OPT_SECONDS, offsetof(struct watch_opts, timeout), "S",
	       "stop after S seconds (without it: when interrupted)",
	       .min = 0.001, .max = MAX_WATCH_SECONDS),
	{}
};

static const struct watch_opts watch_defaults;

const struct command command_watch = {
	.name = "watch",
	.args = "IFNAME",
	.summary = "print drop events as they come",
	.description =
		"Prints the drop (or would-drop, or NXDOMAIN) events of IFNAME as they come:\n"
		"time, interface, source and destination, the field that matched (src, dst,\n"
		"dns, http, sni, dns-answer with its record) and the kind of key (address,\n"
		"prefix, name, url, learned, canary). The XDP\n"
		"program sends at most --events-per-sec (see attach) per CPU and second; what\n"
		"it could not send is counted in stats as events_ratelimited and events_lost (the\n"
		"ring buffer is full while nobody watches). Only events from now on are shown.\n",
	.options = watch_options,
	.opts_size = sizeof(struct watch_opts),
	.defaults = &watch_defaults,
	.json = true,
	.ifname = true,
	.run = run_watch,
};
