// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* watch: drop events from the ring buffer, as they come. */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

#include "attachment.h"
#include "cli.h"
#include "json.h"
#include "log.h"

/* A year: longer is a mistake, and "inf" no number. */
#define MAX_WATCH_SECONDS (365 * 86400)

/* The fields an event carries; the others of enum bloomxdp_field never match. */
static const struct enum_value field_values[] = {
	ENUM_VALUE("src", BLOOMXDP_FIELD_SRC, NULL),
	ENUM_VALUE("dst", BLOOMXDP_FIELD_DST, NULL),
	ENUM_VALUE("dns", BLOOMXDP_FIELD_DNS, NULL),
	ENUM_VALUE("http", BLOOMXDP_FIELD_HTTP, NULL),
	ENUM_VALUE("sni", BLOOMXDP_FIELD_SNI, NULL),
	{}
};

static const struct enum_value key_values[] = {
	ENUM_VALUE("address", BLOOMXDP_EVKEY_ADDRESS, NULL),
	ENUM_VALUE("prefix", BLOOMXDP_EVKEY_PREFIX, NULL),
	ENUM_VALUE("name", BLOOMXDP_EVKEY_NAME, NULL),
	ENUM_VALUE("url", BLOOMXDP_EVKEY_URL, NULL),
	ENUM_VALUE("range", BLOOMXDP_EVKEY_RANGE, NULL),
	{}
};

static const struct enum_value verdict_values[] = {
	ENUM_VALUE("drop", BLOOMXDP_EVVERDICT_DROP, NULL),
	ENUM_VALUE("would_drop", BLOOMXDP_EVVERDICT_WOULD_DROP, NULL),
	ENUM_VALUE("nxdomain", BLOOMXDP_EVVERDICT_NXDOMAIN, NULL),
	{}
};

struct watch_ctx {
	bool json;
	__u64 since_ns;		/* CLOCK_MONOTONIC at start: older events are stale */
	__u64 seen;
	__u64 count;
	double mono_to_real;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, seconds */
};

static volatile sig_atomic_t stop_watching;

static void on_signal(int sig)
{
	(void)sig;
	stop_watching = 1;
}

/* The name of an event as text: DNS wire form decoded, other bytes escaped. */
static void event_name(const struct bloomxdp_event *ev, char *out, size_t len)
{
	size_t o = 0, i = 0, n = ev->name_len < sizeof(ev->name) ? ev->name_len : sizeof(ev->name);

	out[0] = '\0';
	while (i < n && o + 5 < len) {
		__u8 c = ev->name[i];

		if (ev->name_wire) {
			if (c == 0 || c > 63)
				break;
			if (o)
				out[o++] = '.';
			i++;
			for (; c > 0 && i < n && o + 5 < len; c--, i++)
				o += snprintf(out + o, len - o, (ev->name[i] > 0x20 && ev->name[i] < 0x7f &&
						ev->name[i] != '"' && ev->name[i] != '\\') ? "%c" : "\\x%02x",
					      ev->name[i]);
			continue;
		}
		o += snprintf(out + o, len - o, (c > 0x20 && c < 0x7f && c != '"' && c != '\\') ?
			      "%c" : "\\x%02x", c);
		i++;
	}
	out[o] = '\0';
}

static int on_event(void *arg, void *data, size_t size)
{
	const struct bloomxdp_event *ev = data;
	struct watch_ctx *w = arg;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE] = "?";
	char when[40], name[BLOOMXDP_EVENT_NAME_MAX * 4 + 8];
	int af = ev->family == 6 ? AF_INET6 : AF_INET;
	double t;
	time_t secs;

	/* The ring keeps what nobody read: only events from now on. */
	if (size < sizeof(*ev) || ev->ts_ns < w->since_ns)
		return 0;
	inet_ntop(af, ev->src, src, sizeof(src));
	inet_ntop(af, ev->dst, dst, sizeof(dst));
	if_indextoname(ev->ifindex, ifname);
	t = ev->ts_ns / 1e9 + w->mono_to_real;
	secs = (time_t)t;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", gmtime(&secs));
	event_name(ev, name, sizeof(name));
	if (w->json) {
		struct json j;
		char stamp[64];

		snprintf(stamp, sizeof(stamp), "%s.%06dZ", when, (int)((t - secs) * 1e6));
		json_start(&j, stdout);
		json_object_start(&j);
		json_kv_string(&j, "time", stamp);
		json_kv_string(&j, "ifname", ifname);
		json_kv_u64(&j, "ifindex", ev->ifindex);
		json_kv_string(&j, "verdict", enum_value_name(verdict_values, ev->verdict));
		json_kv_string(&j, "field", enum_value_name(field_values, ev->field));
		json_kv_string(&j, "key", enum_value_name(key_values, ev->key_kind));
		json_kv_u64(&j, "key_len", ev->key_len);
		json_kv_string(&j, "src", src);
		json_kv_string(&j, "dst", dst);
		json_kv_u64(&j, "proto", ev->l4_proto == 0xff ? 0 : ev->l4_proto);
		json_kv_u64(&j, "sport", ntohs(ev->sport));
		json_kv_u64(&j, "dport", ntohs(ev->dport));
		json_kv_string(&j, "name", name);
		json_object_end(&j);
		json_end(&j);
	} else
		printf("%s.%06dZ %s %s %s %s -> %s %s %s%s%s\n", when, (int)((t - secs) * 1e6),
		       ifname, enum_value_name(verdict_values, ev->verdict), src, dst,
		       enum_value_name(field_values, ev->field), enum_value_name(key_values, ev->key_kind),
		       name[0] ? "\"" : "", name, name[0] ? "\"" : "");
	fflush(stdout);
	if (w->count && ++w->seen >= w->count)
		stop_watching = 1;
	return 0;
}

static double clock_offset(void)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	return (real.tv_sec - mono.tv_sec) + (real.tv_nsec - mono.tv_nsec) / 1e9;
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
	w->mono_to_real = clock_offset();
	{
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		w->since_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	}
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
		"dns, http, sni) and the kind of key (address, prefix, name, url). The XDP\n"
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
