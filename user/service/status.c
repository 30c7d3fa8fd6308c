// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: what an attachment is and does, read once for the text and the JSON (status.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "filter/match.h"
#include "kernel/attachment.h"
#include "kernel/features.h"
#include "kernel/guard.h"
#include "kernel/loader.h"
#include "lists/bitcounts.h"
#include "lists/expiry.h"
#include "lists/learned.h"
#include "lists/lists.h"
#include "service/status.h"
#include "util/log.h"



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

/* Whether the state records the live list: "current", "behind" (a state write lost), "none". */
static const char *state_text(const char *ifname, const char *state_dir, __u64 generation)
{
	int ret = list_state_current(ifname, state_dir, false, generation);

	return !ret ? "current" : ret == -ESTALE ? "behind" : "none";
}


/* The attachment's needs: its layout's, and this build's program's (multi-buffer or not). */
static __u64 features_used(const struct bloomxdp_config *cfg)
{
	bool frags;

	if (loader_program_frags(&frags))
		return 0;
	return kernel_features_needed(cfg->layout, frags);
}

/* The socket guard: on, on which cgroup, what it looked up and refused. */
static void guard_view_read(const struct attachment *att, struct status_view *v)
{
	__u64 counts[BLOOMXDP_NCOUNTERS];
	struct guard_status gs;

	memset(&v->guard, 0, sizeof(v->guard));
	if (guard_status(att, &gs) || !gs.on)
		return;
	v->guard.on = true;
	snprintf(v->guard.cgroup, sizeof(v->guard.cgroup), "%s", gs.cgroup);
	if (gs.counters_fd >= 0 && !counters_read(gs.counters_fd, counts)) {
		v->guard.checked = counts[COUNTER_INDEX(checked_v4)] +
				   counts[COUNTER_INDEX(checked_v6)];
		v->guard.refused = counts[COUNTER_INDEX(dropped)];
	}
	guard_status_close(&gs);
}

int status_view_read(struct attachment *att, const char *state_dir, struct status_view *v)
{
	const char *home;
	const struct bloomxdp_config *cfg = &att->config;
	__u64 counts[BLOOMXDP_NCOUNTERS], checked;
	struct direction_counters dc;
	__u32 slot;
	int ret;

	v->cfg = cfg;
	guard_view_read(att, v);
	if (named_view_read(att, &v->lists))
		memset(&v->lists, 0, sizeof(v->lists));
	ret = attachment_read_link(att, &v->link);
	memset(&v->egress, 0, sizeof(v->egress));
	if (!ret && att->egress.present)
		ret = attachment_read_hook(att, true, &v->egress);
	if (ret) {
		log_error("cannot read the link of %s: %s; 'bloomxdp detach %s' and attach "
			  "again", v->ifname, strerror(-ret), v->ifname);
		return ret;
	}
	/* What metrics export too: one reading of the live filter (metrics.c). */
	ret = filter_gauges_read(att, &v->g);
	if (ret)
		return ret;
	/* The counting filter of del, in the state (bitcounts.h). */
	/* The lists' state is the group's home's (attach IF1 IF2 ...). */
	home = att->grouped ? att->group.members[0] : v->ifname;
	v->del_ret = bitcounts_status(home, state_dir, cfg->layout, v->g.bits, cfg->hashes,
				      v->g.st.generation, &v->del_bytes, &v->del_saturated);
	/* Entries that expire (expiry.h). */
	if (!expiry_summary(home, state_dir, &v->timeouts, &v->next_expiry) &&
	    v->next_expiry) {
		time_t t = v->next_expiry;
		struct tm tm;

		strftime(v->next_text, sizeof(v->next_text), "%Y-%m-%d %H:%M:%S %Z",
			 localtime_r(&t, &tm));
	}
	/* Addresses learned from DNS answers, not expired. */
	if (cfg->match & BLOOMXDP_MATCH_DNS_ANSWERS) {
		struct clock_pair now;

		clock_pair_now(&now);
		if (learned_count(att->learned_fd, now.mono_ns, &v->learned, NULL))
			v->learned = 0;
	}
	/* The exact stage of the live generation: its load decided (--verify auto). */
	v->exact_on = cfg->verify != BLOOMXDP_VERIFY_OFF &&
		      !attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &slot) &&
		      exact_outer_has(&att->verify, slot);
	verify_reason(cfg->verify, v->exact_on, &v->g.st, v->verify_reason,
		      sizeof(v->verify_reason));
	/* Observed with --verify: the exact copy refused these Bloom hits. */
	memset(counts, 0, sizeof(counts));
	if (!direction_counters_read(att, &dc))
		memcpy(counts, dc.total, sizeof(counts));
	checked = counts[COUNTER_INDEX(checked_v4)] + counts[COUNTER_INDEX(checked_v6)] +
		  counts[COUNTER_INDEX(checked_dns)] + counts[COUNTER_INDEX(checked_http)] +
		  counts[COUNTER_INDEX(checked_sni)] + counts[COUNTER_INDEX(checked_dns_answers)];
	v->fps = counts[COUNTER_INDEX(false_positives)];
	v->observed_fpr = checked ? (double)v->fps / checked : 0;
	match_text(cfg->match, v->match, sizeof(v->match));
	ports_text(cfg->dns_ports, v->dns_ports, sizeof(v->dns_ports));
	ports_text(cfg->http_ports, v->http_ports, sizeof(v->http_ports));
	ports_text(cfg->tls_ports, v->tls_ports, sizeof(v->tls_ports));
	ports_text(cfg->quic_ports, v->quic_ports, sizeof(v->quic_ports));
	snprintf(v->loaded, sizeof(v->loaded), "never");
	if (v->g.st.loaded_at_ns) {
		time_t t = v->g.st.loaded_at_ns / 1000000000ULL;

		strftime(v->loaded, sizeof(v->loaded), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	}
	v->state = state_text(home, state_dir, v->g.st.generation);
	if (xdp_hook_recorded(v->ifname, state_dir, &v->before))
		memset(&v->before, 0, sizeof(v->before));
	if (kernel_release(v->kernel, sizeof(v->kernel)))
		snprintf(v->kernel, sizeof(v->kernel), "unknown");
	v->features = features_used(cfg);
	return 0;
}
