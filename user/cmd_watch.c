// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* watch: drop events from the ring buffer, as they come. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
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

static const char watch_help[] =
	"Usage: bloomxdp watch IFNAME [--json] [--count N] [--timeout S]\n\n"
	"Prints the drop (or would-drop, or NXDOMAIN) events of IFNAME as they come:\n"
	"time, interface, source and destination, the field that matched (src, dst,\n"
	"dns, http, sni) and the kind of key (address, prefix, name, url). The XDP\n"
	"program sends at most --events-per-sec (see attach) per CPU and second; what\n"
	"it could not send is counted in stats as events_ratelimited and events_lost (the\n"
	"ring buffer is full while nobody watches). Only events from now on are shown.\n\n"
	"  -j, --json       one JSON object per line\n"
	"  -n, --count N    stop after N events\n"
	"  -t, --timeout S  stop after S seconds\n";

/* The fields an event carries; the others of enum bloomxdp_field never match. */
static const char *const field_names[] = {
	[BLOOMXDP_FIELD_NONE] = "?", [BLOOMXDP_FIELD_SRC] = "src", [BLOOMXDP_FIELD_DST] = "dst",
	[BLOOMXDP_FIELD_DNS] = "dns", [BLOOMXDP_FIELD_HTTP] = "http", [BLOOMXDP_FIELD_SNI] = "sni",
};
static const char *const kind_names[] = { "?", "address", "prefix", "name", "url" };
static const char *const verdict_names[] = { "?", "drop", "would_drop", "nxdomain" };

#define NAME_OF(table, i) ((i) < sizeof(table) / sizeof(table[0]) ? table[i] : "?")

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
		json_kv_string(&j, "verdict", NAME_OF(verdict_names, ev->verdict));
		json_kv_string(&j, "field", NAME_OF(field_names, ev->field));
		json_kv_string(&j, "key", NAME_OF(kind_names, ev->key_kind));
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
		       ifname, NAME_OF(verdict_names, ev->verdict), src, dst,
		       NAME_OF(field_names, ev->field), NAME_OF(kind_names, ev->key_kind),
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

int cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct watch_ctx w = {};
	double timeout = 0;
	const char *ifname;
	char *end;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "jn:t:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			w.json = true;
			break;
		case 'n':
			if (parse_count("--count", optarg, &w.count))
				return 2;
			break;
		case 't':
			/* Bounded: "inf" or "nan" would make a script's timeout a no-op. */
			timeout = strtod(optarg, &end);
			if (end == optarg || *end || !(timeout > 0 && timeout <= MAX_WATCH_SECONDS)) {
				log_error("--timeout %s: expected seconds above 0 and at most %d "
					  "(without --timeout, watch runs until interrupted)", optarg,
					  MAX_WATCH_SECONDS);
				return 2;
			}
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(watch_help, stdout);
			return 0;
		default:
			return usage_error("watch", argv);
		}
	}
	if (take_only_ifname("watch", argc, argv, optind, &ifname))
		return 2;
	return do_watch(ifname, &w, timeout) ? 1 : 0;
}
