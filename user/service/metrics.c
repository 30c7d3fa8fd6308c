// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counters and filter figures of an attachment, and their Prometheus text. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/attachment.h"
#include "filter/filter.h"
#include "filter/layout.h"
#include "util/log.h"
#include "service/metrics.h"
#include "kernel/guard.h"
#include "lists/learned.h"
#include "filter/ranges.h"
#include "filter/bloom_plan.h"
#include "util/version.h"

#define COUNTER_NAME(name, help) #name,
const char *const counter_names[] = { BLOOMXDP_COUNTERS(COUNTER_NAME) };
#undef COUNTER_NAME
#define COUNTER_HELP(name, help) help,
const char *const counter_help[] = { BLOOMXDP_COUNTERS(COUNTER_HELP) };
#undef COUNTER_HELP

_Static_assert(sizeof(counter_names) / sizeof(counter_names[0]) == BLOOMXDP_NCOUNTERS,
	       "counters are all __u64, in X-macro order");

int counters_read(int fd, __u64 sum[BLOOMXDP_NCOUNTERS])
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
	memset(sum, 0, BLOOMXDP_NCOUNTERS * sizeof(__u64));
	for (cpu = 0; cpu < ncpus; cpu++)
		for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
			sum[i] += ((__u64 *)&percpu[cpu])[i];
out:
	free(percpu);
	return ret;
}

int filter_gauges_read(const struct attachment *att, struct filter_gauges *g)
{
	const struct bloomxdp_config *cfg = &att->config;
	struct filter f = { .map_fd = -1 };
	int ret, i;

	memset(g, 0, sizeof(*g));
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &g->slot);
	if (!ret)
		ret = filter_open(att->filter_fd, g->slot, cfg, &f);
	if (!ret)
		ret = filter_open_kernel(att->kfilter_fd, g->slot, &f);
	if (!ret)
		ret = attachment_read_state(att, g->slot, &g->st);
	if (ret) {
		log_error("cannot read the live filter of %s: %s", att->ifname, strerror(-ret));
		goto cleanup;
	}
	g->set_bits = filter_popcount(&f);
	g->v4_lengths = filter_header_word(&f, BLOOMXDP_HDR_V4_LENGTHS);
	g->v6_lengths = filter_header_word(&f, BLOOMXDP_HDR_V6_LENGTHS);
	/* A family in exact intervals: their array holds their count. */
	if (BLOOMXDP_IS_RANGES_WORD(g->v4_lengths))
		ret = range_set_count(att->ranges_v4_fd, g->slot, &g->ranges_v4);
	if (!ret && BLOOMXDP_IS_RANGES_WORD(g->v6_lengths))
		ret = range_set_count(att->ranges_v6_fd, g->slot, &g->ranges_v6);
	if (ret) {
		log_error("cannot read the exact intervals of %s: %s", att->ifname,
			  strerror(-ret));
		goto cleanup;
	}
	g->ranges_bytes = range_set_bytes(BLOOMXDP_KEY_IPV4, g->ranges_v4) +
			  range_set_bytes(BLOOMXDP_KEY_IPV6, g->ranges_v6);
	/*
	 * Per key of the live generation, as its filter was sized: a prefix
	 * stored as several keys counts as several. Both estimates are of the
	 * live filter, with its own m. Entries in exact intervals make no key:
	 * 0 keys is then the count.
	 */
	g->keys = g->st.keys || g->ranges_v4 || g->ranges_v6 ? g->st.keys : g->st.entries;
	g->bits = f.ops->bits(&f);
	g->bytes = filter_map_bytes(&f);
	g->sized_for = g->st.capacity ? g->st.capacity : cfg->capacity;
	if (!f.ops->readable) {
		/* No fill to read: the key count only. */
		g->fill = g->fpr_fill = NAN;
		g->distinct = g->keys;
	} else {
		g->fill = (double)g->set_bits / f.bits;
		g->fpr_fill = bloom_layout_fpr_for_fill(cfg->layout, f.bits, cfg->hashes, g->fill);
		g->distinct = bloom_entries_for_fill(f.bits, cfg->hashes, g->fill);
	}
	g->fpr = bloom_layout_fpr(cfg->layout, g->bits, cfg->hashes, g->keys);
	g->target = (double)cfg->fpr_ppb / BLOOMXDP_PPB;
	packet_probes_of_header(&g->probes, cfg->match, filter_header(&f), g->v4_lengths,
				g->v6_lengths);
	for (i = 0; i < PACKET_FIELDS; i++)
		g->packet_fpr[i] = packet_field_fpr(&g->probes, i, g->fpr);
	g->packet_fpr_worst = packet_worst_fpr(&g->probes, g->fpr);
	g->probe_fpr = packet_probe_fpr(&g->probes, g->target);
cleanup:
	filter_close(&f);
	return ret;
}

int direction_counters_read(const struct attachment *att, struct direction_counters *dc)
{
	struct guard_status gs;
	__u32 first = att->config.direction == BLOOMXDP_DIR_EGRESS ? BLOOMXDP_DIR_EGRESS :
								   BLOOMXDP_DIR_INGRESS;
	size_t i;
	int ret;

	memset(dc, 0, sizeof(*dc));
	ret = counters_read(att->counters_fd, dc->dir[first]);
	if (ret)
		return ret;
	dc->present = 1U << first;
	if (att->egress.present) {
		ret = counters_read(att->egress.counters_fd, dc->dir[BLOOMXDP_DIR_EGRESS]);
		if (ret)
			return ret;
		dc->present |= 1U << BLOOMXDP_DIR_EGRESS;
	}
	for (i = 0; i < BLOOMXDP_NCOUNTERS; i++)
		dc->total[i] = dc->dir[0][i] + dc->dir[1][i];
	/* The socket guard's calls: apart, they are no packets. */
	if (guard_status(att, &gs) || !gs.on)
		return 0;
	ret = counters_read(gs.counters_fd, dc->guard_counters);
	dc->guard = !ret;
	guard_status_close(&gs);
	return ret;
}

int group_counters_read(const struct attachment *att, struct group_counters *gc)
{
	struct attachment other;
	struct named_view v;
	size_t i;
	int ret = 0;

	memset(gc, 0, sizeof(*gc));
	for (gc->n = 0; gc->n < (int)att->group.n && !ret; gc->n++) {
		const char *name = att->group.members[gc->n];

		memcpy(gc->names[gc->n], name, sizeof(gc->names[gc->n]));
		if (!strcmp(name, att->ifname)) {
			ret = direction_counters_read(att, &gc->dc[gc->n]);
			if (!ret)
				ret = named_view_read(att, &v);
		} else if (!attachment_open(name, false, &other)) {
			ret = direction_counters_read(&other, &gc->dc[gc->n]);
			if (!ret)
				ret = named_view_read(&other, &v);
			attachment_close(&other);
		} else {
			continue;	/* said by attachment_open(): it counts nothing */
		}
		for (i = 0; !ret && i < BLOOMXDP_NCOUNTERS; i++)
			gc->total[i] += gc->dc[gc->n].total[i];
		for (i = 0; !ret && i < BLOOMXDP_LIST_IDS; i++)
			gc->list_hits[i] += v.hits[i];
	}
	return ret;
}

int iface_metrics_read(const char *ifname, struct iface_metrics *m)
{
	struct attachment att;
	int ret;

	memset(m, 0, sizeof(*m));
	m->ifname = ifname;
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	ret = direction_counters_read(&att, &m->counters);
	if (ret) {
		log_error("cannot read the counters of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}
	ret = filter_gauges_read(&att, &m->gauges);
	if (!ret)
		ret = named_view_read(&att, &m->lists);
	if (!ret && att.config.match & BLOOMXDP_MATCH_DNS_ANSWERS) {
		struct clock_pair now;
		__u64 total;

		clock_pair_now(&now);
		m->learning = !learned_count(att.learned_fd, now.mono_ns, &total, m->learned);
	}
cleanup:
	attachment_close(&att);
	return ret;
}

void metrics_label_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* HELP text: backslash and line feed escaped. */
static void help_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s ", name);
	help_text(out, help);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

static void sample_start(FILE *out, const char *name, const struct iface_metrics *m)
{
	fprintf(out, "%s{ifname=\"", name);
	metrics_label_value(out, m->ifname);
	fputs("\"", out);
}

static void sample_u64(FILE *out, const char *name, const struct iface_metrics *m, __u64 v)
{
	sample_start(out, name, m);
	fprintf(out, "} %llu\n", (unsigned long long)v);
}

static void sample_double(FILE *out, const char *name, const struct iface_metrics *m, double v)
{
	sample_start(out, name, m);
	/* %.17g: the double as read back exactly. */
	fprintf(out, "} %.17g\n", v);
}

/* The filter's gauges: a row per metric, read from struct filter_gauges. */
struct gauge {
	const char *name;
	const char *help;
	size_t offset;
	bool is_double;		/* else __u64 */
};

#define GAUGE_U64(n, field, h) \
	{ "bloomxdp_filter_" n, h, offsetof(struct filter_gauges, field), false }
#define GAUGE_DBL(n, field, h) \
	{ "bloomxdp_filter_" n, h, offsetof(struct filter_gauges, field), true }

static const struct gauge gauges[] = {
	GAUGE_DBL("fill_ratio", fill, "bits set over bits of the live Bloom filter "
		  "(absent for the kernel layout, which cannot be read)"),
	GAUGE_DBL("estimated_fpr", fpr, "false-positive rate the live filter's keys give"),
	GAUGE_DBL("target_fpr", target, "false-positive rate asked for at attach (--fpr)"),
	GAUGE_U64("entries", st.entries, "entries inserted since the last load, duplicates "
		  "included"),
	GAUGE_U64("keys", keys, "Bloom keys of the live list (prefixes expand, URLs make two)"),
	GAUGE_U64("sized_for_keys", sized_for, "keys the live filter is sized for"),
	GAUGE_U64("bytes", bytes, "bytes of the live filter's maps"),
	GAUGE_U64("ranges_v4", ranges_v4, "IPv4 exact intervals of the live list (0: in the "
		  "Bloom filter)"),
	GAUGE_U64("ranges_v6", ranges_v6, "IPv6 exact intervals of the live list (0: in the "
		  "Bloom filter)"),
	GAUGE_U64("ranges_bytes", ranges_bytes, "bytes of the live list's exact intervals"),
	GAUGE_U64("generation", st.generation, "generation of the live list, bumped by every "
		  "load"),
};

int metrics_write(FILE *out, const struct iface_metrics *m, size_t n)
{
	char name[128];
	size_t c, i, j;
	__u32 d;
	double v;

	family(out, "bloomxdp_build_info", "gauge", "the version of bloomxdp, as a label (always 1)");
	fputs("bloomxdp_build_info{version=\"", out);
	metrics_label_value(out, bloomxdp_version());
	fputs("\"} 1\n", out);
	for (c = 0; c < BLOOMXDP_NCOUNTERS; c++) {
		snprintf(name, sizeof(name), "bloomxdp_%s_total", counter_names[c]);
		family(out, name, "counter", counter_help[c]);
		for (i = 0; i < n; i++) {
			for (d = 0; d < 2; d++) {
				if (!(m[i].counters.present & (1U << d)))
					continue;
				sample_start(out, name, &m[i]);
				fprintf(out, ",direction=\"%s\"} %llu\n", direction_name(d),
					(unsigned long long)m[i].counters.dir[d][c]);
			}
		}
	}
	for (j = 0; j < sizeof(gauges) / sizeof(gauges[0]); j++) {
		family(out, gauges[j].name, "gauge", gauges[j].help);
		for (i = 0; i < n; i++) {
			const char *p = (const char *)&m[i].gauges + gauges[j].offset;

			if (!gauges[j].is_double) {
				sample_u64(out, gauges[j].name, &m[i], *(const __u64 *)p);
				continue;
			}
			v = *(const double *)p;
			/* Unknown is absent rather than NaN, which alerts would compare. */
			if (!isnan(v))
				sample_double(out, gauges[j].name, &m[i], v);
		}
	}
	family(out, "bloomxdp_filter_packet_fpr", "gauge",
	       "estimated chance that an unlisted packet is dropped by a false positive of the "
	       "live filter, per match field (ipv4, ipv6: its address fields; dns, http, sni: "
	       "its name; dns-answers: a DNS response's question and records; worst: a packet's address and name together; 0: exact or not looked up; "
	       "with --verify such a hit is checked against the exact copy and passed)");
	for (i = 0; i < n; i++) {
		for (j = 0; j <= PACKET_FIELDS; j++) {
			if (j < PACKET_FIELDS && !(m[i].gauges.probes.used & (1U << j)))
				continue;
			sample_start(out, "bloomxdp_filter_packet_fpr", &m[i]);
			fprintf(out, ",field=\"%s\"} %.17g\n",
				j < PACKET_FIELDS ? packet_field_names[j] : "worst",
				j < PACKET_FIELDS ? m[i].gauges.packet_fpr[j] :
						    m[i].gauges.packet_fpr_worst);
		}
	}
	family(out, "bloomxdp_filter_loaded_timestamp_seconds", "gauge",
	       "when the live list was loaded, in seconds since the epoch (0: never)");
	for (i = 0; i < n; i++)
		sample_double(out, "bloomxdp_filter_loaded_timestamp_seconds", &m[i],
			      m[i].gauges.st.loaded_at_ns / 1e9);
	family(out, "bloomxdp_list_hits_total", "counter",
	       "hits each list's action applied to (list \"default\": plain load and add)");
	for (i = 0; i < n; i++) {
		for (j = 0; j < BLOOMXDP_LIST_IDS; j++) {
			if (j && !(m[i].lists.present & (1U << j)))
				continue;
			sample_start(out, "bloomxdp_list_hits_total", &m[i]);
			fputs(",list=\"", out);
			metrics_label_value(out, j ? m[i].lists.list[j].name : "default");
			fprintf(out, "\"} %llu\n", (unsigned long long)m[i].lists.hits[j]);
		}
	}
	family(out, "bloomxdp_learned_addresses", "gauge",
	       "addresses learned from DNS answers and not expired, per learning list (load "
	       "--learn; attach --match dns-answers)");
	for (i = 0; i < n; i++) {
		for (j = 1; m[i].learning && j < BLOOMXDP_LIST_IDS; j++) {
			if (!(m[i].lists.present & (1U << j)) ||
			    !(m[i].lists.list[j].has & BLOOMXDP_LIST_LEARN))
				continue;
			sample_start(out, "bloomxdp_learned_addresses", &m[i]);
			fputs(",list=\"", out);
			metrics_label_value(out, m[i].lists.list[j].name);
			fprintf(out, "\"} %llu\n", (unsigned long long)m[i].learned[j]);
		}
	}
	family(out, "bloomxdp_guard_checked_total", "counter",
	       "local connect() and UDP sendmsg() calls the socket guard looked up (guard on)");
	for (i = 0; i < n; i++)
		if (m[i].counters.guard)
			sample_u64(out, "bloomxdp_guard_checked_total", &m[i],
				   m[i].counters.guard_counters[COUNTER_INDEX(checked_v4)] +
				   m[i].counters.guard_counters[COUNTER_INDEX(checked_v6)]);
	family(out, "bloomxdp_guard_refused_total", "counter",
	       "calls the socket guard refused with EPERM: to a listed address");
	for (i = 0; i < n; i++)
		if (m[i].counters.guard)
			sample_u64(out, "bloomxdp_guard_refused_total", &m[i],
				   m[i].counters.guard_counters[COUNTER_INDEX(dropped)]);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
