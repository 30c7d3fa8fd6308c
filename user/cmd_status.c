// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status and stats: read-only views of an attachment. */
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attachment.h"
#include "cli.h"
#include "filter.h"
#include "log.h"
#include "prefixes.h"
#include "sizing.h"

static const char status_help[] =
	"Usage: bloomxdp status IFNAME [--json]\n\n"
	"Shows the attachment (program id, XDP mode) and the filter: capacity, entries,\n"
	"bits m, hashes k, memory, fill ratio, and the estimated false-positive rate both\n"
	"from the entry count, (1 - e^(-kn/m))^k, and from the fill ratio, fill^k.\n\n"
	"  -j, --json  one JSON object\n";

static const char stats_help[] =
	"Usage: bloomxdp stats IFNAME [--json] [--interval S [--count N]]\n\n"
	"Shows the packet counters of IFNAME summed over all CPUs. With --interval,\n"
	"prints every S seconds the counters and their rates per second, until\n"
	"interrupted or N times.\n\n"
	"  -j, --json        JSON (one object per line with --interval)\n"
	"  -i, --interval S  seconds between samples (e.g. 1, 0.5)\n"
	"  -n, --count N     stop after N samples\n";

#define COUNTER_NAME(name, help) #name,
static const char *const counter_names[] = { BLOOMXDP_COUNTERS(COUNTER_NAME) };
#undef COUNTER_NAME
#define NCOUNTERS (sizeof(counter_names) / sizeof(counter_names[0]))

_Static_assert(sizeof(struct bloomxdp_counters) == NCOUNTERS * sizeof(__u64),
	       "counters are all __u64, in X-macro order");

static int read_counters(int fd, __u64 sum[NCOUNTERS])
{
	int ncpus = libbpf_num_possible_cpus();
	struct bloomxdp_counters *percpu;
	__u32 zero = 0;
	int cpu, ret = 0;
	size_t i;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &zero, percpu)) {
		ret = -errno;
		goto out;
	}
	memset(sum, 0, NCOUNTERS * sizeof(__u64));
	for (cpu = 0; cpu < ncpus; cpu++)
		for (i = 0; i < NCOUNTERS; i++)
			sum[i] += ((__u64 *)&percpu[cpu])[i];
out:
	free(percpu);
	return ret;
}

static void print_counters(const __u64 *now, const __u64 *before, double secs, bool json)
{
	size_t i;

	if (json) {
		printf("{");
		for (i = 0; i < NCOUNTERS; i++)
			printf("%s\"%s\":%llu", i ? "," : "", counter_names[i],
			       (unsigned long long)now[i]);
		if (before) {
			printf(",\"interval\":%.3f,\"rates\":{", secs);
			for (i = 0; i < NCOUNTERS; i++)
				printf("%s\"%s\":%.1f", i ? "," : "", counter_names[i],
				       (now[i] - before[i]) / secs);
			printf("}");
		}
		printf("}\n");
	} else {
		for (i = 0; i < NCOUNTERS; i++) {
			printf("%-18s %20llu", counter_names[i], (unsigned long long)now[i]);
			if (before)
				printf(" %14.1f/s", (now[i] - before[i]) / secs);
			printf("\n");
		}
		if (before)
			printf("\n");
	}
	fflush(stdout);
}

static volatile sig_atomic_t stop_sampling;

static void on_signal(int sig)
{
	(void)sig;
	stop_sampling = 1;
}

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int do_stats(const char *ifname, bool json, double interval, __u64 count)
{
	__u64 now[NCOUNTERS], before[NCOUNTERS];
	struct attachment att;
	double t_before, t_now;
	struct timespec nap;
	__u64 n;
	int ret;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = read_counters(att.counters_fd, now);
	if (ret) {
		log_error("cannot read the counters of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	if (interval <= 0) {
		print_counters(now, NULL, 0, json);
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	nap.tv_sec = (time_t)interval;
	nap.tv_nsec = (long)((interval - nap.tv_sec) * 1e9);
	t_before = monotonic_seconds();
	for (n = 0; (!count || n < count) && !stop_sampling; n++) {
		memcpy(before, now, sizeof(now));
		if (nanosleep(&nap, NULL) && stop_sampling)
			break;
		t_now = monotonic_seconds();
		ret = read_counters(att.counters_fd, now);
		if (ret) {
			log_error("cannot read the counters of %s: %s", ifname, strerror(-ret));
			goto cleanup;
		}
		print_counters(now, before, t_now - t_before, json);
		t_before = t_now;
	}
cleanup:
	attachment_close(&att);
	return ret;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	double interval = 0;
	const char *ifname;
	bool json = false;
	__u64 count = 0;
	char *end;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "ji:n:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (end == optarg || *end || !(interval >= 0.01 && interval <= 86400)) {
				log_error("--interval %s: expected seconds between 0.01 and 86400",
					  optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_count("--count", optarg, &count))
				return 2;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(stats_help, stdout);
			return 0;
		default:
			return usage_error("stats");
		}
	}
	if (take_only_ifname("stats", argc, argv, optind, &ifname))
		return 2;
	return do_stats(ifname, json, interval, count) ? 1 : 0;
}

struct link_view {
	__u32 prog_id;
	__u32 ifindex;		/* 0 once the interface is gone */
	const char *mode;
};

static int read_link(const struct attachment *att, struct link_view *view)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int fd, ret = 0;

	view->mode = "unknown";
	fd = pin_get(att->dir_fd, BLOOMXDP_PIN_LINK);
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		ret = -errno;
		goto out;
	}
	view->prog_id = info.prog_id;
	view->ifindex = info.xdp.ifindex;
	if (!view->ifindex) {
		view->mode = "detached (interface gone)";
		goto out;
	}
	/* The link holds an ifindex of its own namespace; this one may differ. */
	view->mode = "unknown (attached from another network namespace?)";
	if (bpf_xdp_query(view->ifindex, 0, &q) == 0) {
		if (q.drv_prog_id == view->prog_id)
			view->mode = "native";
		else if (q.skb_prog_id == view->prog_id)
			view->mode = "generic";
		else if (q.hw_prog_id == view->prog_id)
			view->mode = "offload";
	}
out:
	close(fd);
	return ret;
}

#define COUNTER_INDEX(name) (offsetof(struct bloomxdp_counters, name) / sizeof(__u64))

/* "32,24,16": the probed prefix lengths of a header word, or "none". */
static const char *lengths_text(__u64 word, char *buf, size_t len)
{
	__u8 lengths[BLOOMXDP_MAX_PREFIX_LENGTHS];
	__u32 n = prefix_word_lengths(word, lengths), i;
	size_t used = 0;

	snprintf(buf, len, "none");
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%u", i ? "," : "", lengths[i]);
	return buf;
}

/* "53,5353": a port list for status. */
static const char *ports_text(const __u16 *ports, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < BLOOMXDP_MAX_PORTS && ports[i] && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%u", i ? "," : "", ports[i]);
	return buf;
}

static int do_status(const char *ifname, bool json)
{
	struct filter f = { .map_fd = -1 };
	const struct bloomxdp_config *cfg;
	struct bloomxdp_state st = {};
	struct link_view link = {};
	struct attachment att;
	double fill, fpr_n, fpr_fill, target, distinct;
	__u64 keys, bits_m;
	char fill_json[32], fpr_fill_json[32];
	char l4[64], l6[64];
	char loaded[32] = "never", match[64], dns_ports[32], http_ports[32], tls_ports[32];
	__u64 counts[NCOUNTERS], checked, fps, v4_lengths, v6_lengths;
	double observed_fpr;
	__u32 slot;
	__u64 set_bits;
	int ret;

	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	cfg = &att.config;
	ret = read_link(&att, &link);
	if (ret) {
		log_error("cannot read the XDP link of %s: %s; 'bloomxdp detach %s' and attach "
			  "again", ifname, strerror(-ret), ifname);
		goto cleanup;
	}
	ret = attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = filter_open(att.filter_fd, slot, cfg, &f);
	if (!ret)
		ret = filter_open_kernel(att.kfilter_fd, slot, &f);
	if (!ret)
		ret = attachment_read_state(&att, &st);
	if (ret) {
		log_error("cannot read the live filter of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	set_bits = filter_popcount(&f);
	v4_lengths = filter_header_word(&f, BLOOMXDP_HDR_V4_LENGTHS);
	v6_lengths = filter_header_word(&f, BLOOMXDP_HDR_V6_LENGTHS);
	/* Observed with --verify: the exact copy refused these Bloom hits. */
	memset(counts, 0, sizeof(counts));
	read_counters(att.counters_fd, counts);
	checked = counts[COUNTER_INDEX(checked_v4)] + counts[COUNTER_INDEX(checked_v6)] +
		  counts[COUNTER_INDEX(checked_dns)] + counts[COUNTER_INDEX(checked_http)] +
		  counts[COUNTER_INDEX(checked_sni)];
	fps = counts[COUNTER_INDEX(false_positives)];
	observed_fpr = checked ? (double)fps / checked : 0;
	/* Per key: a prefix stored as several keys counts as several. */
	keys = st.keys ? st.keys : st.entries;
	if (cfg->layout == BLOOMXDP_LAYOUT_KERNEL) {
		/* The kernel's map cannot be read: no fill, the entry count only. */
		bits_m = bloom_kernel_bits(cfg->capacity, cfg->hashes);
		fill = fpr_fill = NAN;
		distinct = keys;
	} else {
		bits_m = cfg->bits;
		fill = (double)set_bits / cfg->bits;
		fpr_fill = bloom_fpr_for_fill(fill, cfg->hashes);
		distinct = bloom_entries_for_fill(cfg->bits, cfg->hashes, fill);
	}
	fpr_n = bloom_layout_fpr(cfg->layout, bits_m, cfg->hashes, keys);
	target = (double)cfg->fpr_ppb / BLOOMXDP_PPB;
	match_text(cfg->match, match, sizeof(match));
	ports_text(cfg->dns_ports, dns_ports, sizeof(dns_ports));
	ports_text(cfg->http_ports, http_ports, sizeof(http_ports));
	ports_text(cfg->tls_ports, tls_ports, sizeof(tls_ports));
	if (st.loaded_at_ns) {
		time_t t = st.loaded_at_ns / 1000000000ULL;

		strftime(loaded, sizeof(loaded), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	}

	if (json) {
		printf("{\"ifname\":\"%s\",\"ifindex\":%u,\"prog_id\":%u,\"mode\":\"%s\","
		       "\"match\":\"%s\",\"action\":\"%s\",\"dns_reply\":\"%s\",",
		       ifname, link.ifindex, link.prog_id, link.mode, match,
		       cfg->action == BLOOMXDP_ACTION_MONITOR ? "monitor" : "drop",
		       cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? "nxdomain" : "none");
		printf("\"dns_ports\":\"%s\",\"http_ports\":\"%s\",\"tls_ports\":\"%s\","
		       "\"layout\":\"%s\",\"capacity\":%llu,\"entries\":%llu,"
		       "\"distinct_estimate\":%.0f,", dns_ports, http_ports, tls_ports,
		       layout_name(cfg->layout), (unsigned long long)cfg->capacity,
		       (unsigned long long)st.entries, distinct);
		/* JSON has no NaN: unknown is null. */
		snprintf(fill_json, sizeof(fill_json), isnan(fill) ? "null" : "%.6g", fill);
		snprintf(fpr_fill_json, sizeof(fpr_fill_json), isnan(fpr_fill) ? "null" : "%.6g",
			 fpr_fill);
		printf("\"bits\":%llu,\"hashes\":%u,\"bytes\":%llu,\"set_bits\":%llu,"
		       "\"fill_ratio\":%s,\"estimated_fpr\":%.6g,\"estimated_fpr_fill\":%s,"
		       "\"target_fpr\":%g,\"generation\":%llu,\"loaded_at\":\"%s\",",
		       (unsigned long long)bits_m, cfg->hashes,
		       (unsigned long long)(cfg->layout == BLOOMXDP_LAYOUT_KERNEL ? bits_m / 8 :
					    f.bytes),
		       (unsigned long long)set_bits, fill_json, fpr_n, fpr_fill_json, target,
		       (unsigned long long)st.generation, loaded);
		printf("\"verify\":%s,\"observed_fpr\":%.6g,\"false_positives\":%llu,"
		       "\"prefix_lengths_v4\":\"%s\",\"prefix_lengths_v6\":\"%s\","
		       "\"events_per_sec\":%u}\n", cfg->verify ? "true" : "false", observed_fpr,
		       (unsigned long long)fps, lengths_text(v4_lengths, l4, sizeof(l4)),
		       lengths_text(v6_lengths, l6, sizeof(l6)), cfg->events_per_sec);
		goto cleanup;
	}
	printf("interface       %s (ifindex %u)\n", ifname, link.ifindex);
	printf("program         id %u, mode %s\n", link.prog_id, link.mode);
	printf("match           %s\n", match);
	if (cfg->match & BLOOMXDP_MATCH_NAMES)
		printf("ports           dns %s, http %s, tls %s\n", dns_ports, http_ports, tls_ports);
	printf("action          %s%s\n", cfg->action == BLOOMXDP_ACTION_MONITOR ? "monitor" : "drop",
	       cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? ", NXDOMAIN answers to DNS" : "");
	printf("layout          %s\n", layout_name(cfg->layout));
	printf("capacity        %llu\n", (unsigned long long)cfg->capacity);
	printf("entries         %llu inserted, about %.0f distinct (from %s)%s\n",
	       (unsigned long long)st.entries, distinct, isnan(fill) ? "the keys" : "fill",
	       distinct > cfg->capacity * 1.01 ? "  OVER CAPACITY" : "");
	printf("bits (m)        %llu\n", (unsigned long long)bits_m);
	printf("hashes (k)      %u\n", cfg->hashes);
	{
		__u64 bytes = cfg->layout == BLOOMXDP_LAYOUT_KERNEL ? bits_m / 8 : f.bytes;

		printf("memory          %llu bytes (%.2f MiB)\n", (unsigned long long)bytes,
		       bytes / 1048576.0);
	}
	if (isnan(fill))
		printf("fill ratio      n/a (the kernel's Bloom filter map cannot be read)\n");
	else
		printf("fill ratio      %.6f (%llu bits set)\n", fill,
		       (unsigned long long)set_bits);
	if (isnan(fpr_fill))
		printf("estimated FPR   %.3g from entries (target %g)\n", fpr_n, target);
	else
		printf("estimated FPR   %.3g from entries, %.3g from fill (target %g)\n", fpr_n,
		       fpr_fill, target);
	printf("prefix lengths  IPv4 %s, IPv6 %s (probes per packet: one per length)\n",
	       lengths_text(v4_lengths, l4, sizeof(l4)), lengths_text(v6_lengths, l6, sizeof(l6)));
	if (cfg->verify)
		printf("verify          on: %llu false positives refused, observed FPR %.3g\n",
		       (unsigned long long)fps, observed_fpr);
	else
		printf("verify          off (attach --verify to never drop a false positive)\n");
	printf("events          %u per second and CPU at most%s\n", cfg->events_per_sec,
	       cfg->events_per_sec ? " (bloomxdp watch)" : "");
	printf("list            generation %llu, loaded %s\n", (unsigned long long)st.generation,
	       loaded);
cleanup:
	filter_close(&f);
	attachment_close(&att);
	return ret;
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *ifname;
	bool json = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "jvh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(status_help, stdout);
			return 0;
		default:
			return usage_error("status");
		}
	}
	if (take_only_ifname("status", argc, argv, optind, &ifname))
		return 2;
	return do_status(ifname, json) ? 1 : 0;
}
