// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The refresh of an http(s) feed in the daemon: feed_refresh_apply() fetches
 * it (conditionally), judges the copy (parse, empty, shrink guards) and keeps
 * it as the feed's good copy in the feed cache; the daemon then loads its
 * whole list, local files and feeds together, in one swap. A refused copy
 * changes nothing: the good copy of before stays in the list.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "service/daemon.h"
#include "util/log.h"
#include "service/refresh.h"

/* The daemon loads after the round of refreshes: nothing to do at the guards' yes. */
static int load_later(void *ctx, const char *path, bool allow_empty)
{
	(void)ctx;
	(void)path;
	(void)allow_empty;
	return 0;
}

/* The feed's next attempt: its backoff after a failure, else its interval. */
static void schedule_next(struct daemon_source *src, __u64 next_due)
{
	struct timespec mono;
	__u64 now = time(NULL);

	if (!src->spec.refresh_s || next_due == UINT64_MAX)
		return;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	src->due_ms = mono.tv_sec * 1000ULL + mono.tv_nsec / 1000000 +
		      (next_due > now ? next_due - now : 0) * 1000;
}

int refresh_feed_run(void *ctx, struct daemon_source *src, bool accept, char *said,
		     size_t said_len)
{
	const struct refresh_feed_ctx *feed = ctx;
	const char *state_dir = feed->state_dir, *ifname = feed->ifname;
	struct refresh_result r;
	bool had = src->path[0];
	int ret;

	ret = feed_refresh_apply(state_dir, ifname, &src->spec, accept, load_later, NULL, &r);
	/* In the log, as every line of the daemon's: its stdout is the events' stream. */
	log_text(ret < 0 ? LOG_ERR : LOG_INFO,
		 &(struct log_fields){ .list = src->spec.name, .event = "feed-refresh" },
		 feed_refresh_summary(ifname, &src->spec, &r, said, said_len));
	schedule_next(src, r.next_due);
	if (ret < 0) {
		/* Started anew: the copy a run before applied is what the list held. */
		if (!had && !feed_good_path(state_dir, ifname, src->spec.name, src->path,
					    sizeof(src->path)))
			return 1;
		return ret;
	}
	if (feed_good_path(state_dir, ifname, src->spec.name, src->path,
			   sizeof(src->path))) {
		src->path[0] = '\0';
		return -ENOENT;
	}
	return r.outcome == REFRESH_APPLIED || !had;
}

static int feed_refresh_op(void *ctx, struct daemon_source *src)
{
	char said[FEED_SUMMARY_MAX];

	return refresh_feed_run(ctx, src, false, said, sizeof(said));
}

static void feed_applied(void *ctx, struct daemon_source *src, int result)
{
	(void)ctx;
	if (result)
		log_error("list %s: the copy of %s passed the guards, but the load failed; "
			  "the list before stays enforced until a source changes", src->spec.name,
			  src->spec.source);
}

static void feed_op_forget(void *ctx, struct daemon_source *src)
{
	(void)ctx;
	(void)src;
}

const struct refresh_ops refresh_feed = {
	.name = "feed",
	.refresh = feed_refresh_op,
	.applied = feed_applied,
	.forget = feed_op_forget,
};
