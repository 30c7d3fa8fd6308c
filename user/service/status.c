// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: what an attachment is and does, read once for the text and the JSON (status.h). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "filter/layout.h"
#include "filter/match.h"
#include "filter/packet_fpr.h"
#include "kernel/attach.h"
#include "kernel/attachment.h"
#include "kernel/features.h"
#include "kernel/guard.h"
#include "kernel/loader.h"
#include "lists/bitcounts.h"
#include "lists/expiry.h"
#include "lists/learned.h"
#include "lists/lists.h"
#include "service/status.h"
#include "parse/prefixes.h"
#include "util/json.h"
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
	if (v->exact_on)
		v->table_bytes = exact_outer_table_bytes(&att->verify, slot);
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
/* Each list: its name, action, entries and hits (the default list first, always). */
void status_lists_write(const struct named_view *v, const struct bloomxdp_config *cfg,
			struct json *j, FILE *out)
{
	__u32 id;

	if (j) {
		json_key(j, "lists");
		json_array_start(j);
	}
	for (id = 0; id < BLOOMXDP_LIST_IDS; id++) {
		const char *name = id ? v->list[id].name : "default";
		__u32 action = id ? list_action_of(&v->list[id], cfg) : list_default_action(cfg);
		bool learn = id && (v->list[id].has & BLOOMXDP_LIST_LEARN);

		if (id && !(v->present & (1U << id)))
			continue;
		if (!j) {
			fprintf(out, "list %-13s %20llu hits, %llu entries, action %s%s\n", name,
			        (unsigned long long)v->hits[id],
			        (unsigned long long)v->list[id].entries, list_action_name(action),
			        learn ? ", learns addresses from DNS answers" : "");
			continue;
		}
		/* Keys of their own: status and stats have "action" and "entries" already. */
		json_object_start(j);
		json_kv_string(j, "list", name);
		json_kv_string(j, "list_action", list_action_name(action));
		json_kv_u64(j, "list_entries", v->list[id].entries);
		json_kv_u64(j, "list_hits", v->hits[id]);
		json_kv_bool(j, "learn", learn);
		json_object_end(j);
	}
	if (j)
		json_array_end(j);
}

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

/* "replaced_xdp": what attach --force replaced, and whether it still exists. */
static void replaced_json(struct json *j, const struct xdp_hook *h)
{
	unsigned int i;

	json_key(j, "replaced_xdp");
	json_array_start(j);
	for (i = 0; i < h->n; i++) {
		json_object_start(j);
		json_kv_u64(j, "id", h->prog[i].id);
		json_kv_string(j, "name", h->prog[i].name);
		json_kv_string(j, "mode", xdp_held_mode_name(h->prog[i].mode));
		json_kv_string(j, "tag", h->prog[i].tag);
		json_kv_bool(j, "exists", xdp_held_alive(&h->prog[i]));
		json_object_end(j);
	}
	json_array_end(j);
}

void status_json_value(const struct status_view *v, struct json *j)
{
	const struct bloomxdp_config *cfg = v->cfg;
	const struct filter_gauges *g = &v->g;
	char l4[64], l6[64];
	size_t i;

	json_object_start(j);
	json_kv_string(j, "ifname", v->ifname);
	if (v->group) {
		json_key(j, "group");
		json_object_start(j);
		json_kv_string(j, "home", v->group->members[0]);
		json_key(j, "members");
		json_array_start(j);
		for (i = 0; i < v->group->n; i++)
			json_string(j, v->group->members[i]);
		json_array_end(j);
		json_object_end(j);
	}
	json_kv_u64(j, "ifindex", v->link.ifindex);
	json_kv_u64(j, "prog_id", v->link.prog_id);
	json_kv_string(j, "mode", v->link.mode);
	json_kv_string(j, "direction", v->egress.hook ? "both" : v->link.direction);
	json_kv_string(j, "hook", v->link.hook);
	if (v->egress.hook) {
		json_key(j, "egress");
		json_object_start(j);
		json_kv_u64(j, "prog_id", v->egress.prog_id);
		json_kv_string(j, "mode", v->egress.mode);
		json_kv_string(j, "hook", v->egress.hook);
		json_object_end(j);
	}
	json_kv_string(j, "match", v->match);
	json_kv_string(j, "action", attach_action_name(cfg->action));
	json_kv_string(j, "dns_reply",
		       cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? "nxdomain" : "none");
	json_kv_string(j, "dns_ports", v->dns_ports);
	json_kv_string(j, "http_ports", v->http_ports);
	json_kv_string(j, "tls_ports", v->tls_ports);
	json_kv_string(j, "quic_ports", v->quic_ports);
	json_kv_string(j, "quic_unparsed",
		       cfg->quic_unparsed == BLOOMXDP_POLICY_DROP ? "drop" : "pass");
	json_kv_u64(j, "quic_budget", cfg->quic_per_sec);
	json_kv_string(j, "ech", cfg->ech == BLOOMXDP_POLICY_DROP ? "drop" : "pass");
	json_kv_u64(j, "learn_ttl_max", cfg->learn_ttl_max);
	json_kv_u64(j, "learned", v->learned);
	json_kv_bool(j, "doh_canary", cfg->doh_canary);
	json_kv_string(j, "layout", layout_name(cfg->layout));
	json_kv_u64(j, "capacity", cfg->capacity);
	json_kv_u64(j, "sized_for", g->sized_for);
	json_kv_u64(j, "max_memory", g->st.max_memory);
	json_kv_u64(j, "entries", g->st.entries);
	json_kv_u64(j, "keys", g->keys);
	/* JSON has no NaN nor infinity: unknown (or past counting) is null. */
	json_kv_double(j, "distinct_estimate", "%.0f", g->distinct);
	json_kv_u64(j, "bits", g->bits);
	json_kv_u64(j, "hashes", cfg->hashes);
	json_kv_u64(j, "bytes", g->bytes);
	json_kv_u64(j, "set_bits", g->set_bits);
	json_kv_double(j, "fill_ratio", "%.6g", g->fill);
	json_kv_double(j, "estimated_fpr", "%.6g", g->fpr);
	json_kv_double(j, "estimated_fpr_fill", "%.6g", g->fpr_fill);
	json_kv_double(j, "target_fpr", "%g", g->target);
	/* --fpr is per packet: each field's chance, from the per-key estimate. */
	json_kv_double(j, "probe_fpr", "%.6g", g->probe_fpr);
	packet_fpr_json(j, &g->probes, g->fpr);
	json_kv_u64(j, "generation", g->st.generation);
	json_kv_string(j, "loaded_at", v->loaded);
	json_kv_bool(j, "verify", v->exact_on);
	json_kv_string(j, "verify_mode", verify_mode_name(cfg->verify));
	json_kv_string(j, "verify_reason", v->verify_reason);
	json_kv_u64(j, "exact_keys", g->st.exact_keys);
	json_kv_u64(j, "exact_bytes", g->st.exact_bytes);
	json_kv_u64(j, "exact_table_bytes", v->table_bytes);
	json_kv_double(j, "observed_fpr", "%.6g", v->observed_fpr);
	json_kv_u64(j, "false_positives", v->fps);
	json_kv_string(j, "prefix_lengths_v4", lengths_text(g->v4_lengths, l4, sizeof(l4)));
	json_kv_string(j, "prefix_lengths_v6", lengths_text(g->v6_lengths, l6, sizeof(l6)));
	json_kv_u64(j, "ranges_v4", g->ranges_v4);
	json_kv_u64(j, "ranges_v6", g->ranges_v6);
	json_kv_u64(j, "ranges_bytes", g->ranges_bytes);
	json_kv_u64(j, "events_per_sec", cfg->events_per_sec);
	json_kv_u64(j, "icmp_per_sec", cfg->icmp_per_sec);
	json_kv_bool(j, "guard", v->guard.on);
	json_kv_string(j, "guard_cgroup", v->guard.cgroup);
	json_kv_u64(j, "guard_checked", v->guard.checked);
	json_kv_u64(j, "guard_refused", v->guard.refused);
	json_kv_string(j, "state", v->state);
	json_kv_u64(j, "del_counters_bytes", v->del_bytes);
	json_kv_u64(j, "del_counters_saturated", v->del_saturated);
	json_kv_u64(j, "timeouts", v->timeouts);
	json_kv_u64(j, "next_expiry", v->next_expiry);
	json_kv_string(j, "kernel", v->kernel);
	json_key(j, "features");
	json_array_start(j);
	for (i = 0; i < kernel_features_count; i++)
		if (v->features & (1ULL << i))
			json_string(j, kernel_features[i].name);
	json_array_end(j);
	status_lists_write(&v->lists, cfg, j, NULL);
	replaced_json(j, &v->before);
	json_object_end(j);
}

void status_write_json(const struct status_view *v, FILE *out)
{
	struct json j;

	json_start(&j, out);
	status_json_value(v, &j);
	json_end(&j);
}

/* The filter's lines of status's text: its size, fill, FPR, prefixes and ranges. */
static void status_text_filter(const struct status_view *v, FILE *out)
{
	const struct bloomxdp_config *cfg = v->cfg;
	const struct filter_gauges *g = &v->g;
	char l4[64], l6[64], text[256];

	fprintf(out, "capacity        %llu keys at attach; the live filter is sized for %llu\n",
	        (unsigned long long)cfg->capacity, (unsigned long long)g->sized_for);
	fprintf(out, "entries         %llu inserted as %llu keys, about %.0f distinct "
		"(from %s)%s\n",
	        (unsigned long long)g->st.entries, (unsigned long long)g->keys, g->distinct,
	        isnan(g->fill) ? "the keys" : "fill",
	        g->distinct > g->sized_for * 1.01 ? "  OVER CAPACITY" : "");
	fprintf(out, "bits (m)        %llu\n", (unsigned long long)g->bits);
	fprintf(out, "hashes (k)      %u\n", cfg->hashes);
	fprintf(out, "memory          %llu bytes (%.2f MiB); at most %llu per filter "
		"(--max-memory)\n",
	        (unsigned long long)g->bytes, g->bytes / 1048576.0,
	        (unsigned long long)g->st.max_memory);
	if (isnan(g->fill))
		fprintf(out, "fill ratio      n/a (the kernel's Bloom filter map cannot be "
			"read)\n");
	else
		fprintf(out, "fill ratio      %.6f (%llu bits set)\n", g->fill,
		        (unsigned long long)g->set_bits);
	if (isnan(g->fpr_fill))
		fprintf(out, "estimated FPR   %.3g per key from entries (sized for %.3g)\n", g->fpr,
		        g->probe_fpr);
	else
		fprintf(out, "estimated FPR   %.3g per key from entries, %.3g from fill (sized for "
		        "%.3g)\n", g->fpr, g->fpr_fill, g->probe_fpr);
	fprintf(out, "per packet      %.3g at most (target %g): %s\n", g->packet_fpr_worst,
		g->target,
	        packet_fpr_text(&g->probes, g->fpr, text, sizeof(text)));
	fprintf(out, "prefix lengths  IPv4 %s, IPv6 %s (probes per packet: one per length)\n",
	        lengths_text(g->v4_lengths, l4, sizeof(l4)),
	        lengths_text(g->v6_lengths, l6, sizeof(l6)));
	if (g->ranges_v4 || g->ranges_v6)
		fprintf(out, "exact ranges    IPv4 %llu intervals, IPv6 %llu intervals: %llu bytes "
		        "(those families are not in the Bloom filter: no false positive)\n",
		        (unsigned long long)g->ranges_v4, (unsigned long long)g->ranges_v6,
		        (unsigned long long)g->ranges_bytes);
	else
		fprintf(out, "exact ranges    none\n");
}

/* --match dns-answers and --doh-canary: what is learned, and the canary. */
static void status_text_dns(const struct status_view *v, FILE *out)
{
	const struct bloomxdp_config *cfg = v->cfg;

	if (cfg->match & BLOOMXDP_MATCH_DNS_ANSWERS)
		fprintf(out, "dns answers     read from ports %s; %llu address%s learned, held %u "
			"s at "
		        "most (--learn-ttl-max)\n", v->dns_ports, (unsigned long long)v->learned,
		        v->learned == 1 ? "" : "es", cfg->learn_ttl_max);
	if (cfg->doh_canary)
		fprintf(out, "doh canary      " BLOOMXDP_DOH_CANARY " answered NXDOMAIN "
			"(Firefox keeps "
		        "DNS over HTTPS off by default)\n");
}

void status_write_text(const struct status_view *v, FILE *out)
{
	const struct bloomxdp_config *cfg = v->cfg;
	char features[1024], before[XDP_HOOK_TEXT_MAX];

	__u32 i;

	fprintf(out, "interface       %s (ifindex %u)\n", v->ifname, v->link.ifindex);
	for (i = 0; v->group && i < v->group->n; i++)
		fprintf(out, "%s%s%s%s", i ? ", " : "group           ", v->group->members[i],
		        i ? "" : " (home: its lists)", i + 1 == v->group->n ? "\n" : "");
	fprintf(out, "program         id %u, mode %s\n", v->link.prog_id, v->link.mode);
	if (v->egress.hook)
		fprintf(out, "direction       both: ingress at %s, egress at tc\n", v->link.hook);
	else if (strcmp(v->link.hook, "xdp") || strcmp(v->link.direction, "ingress"))
		fprintf(out, "direction       %s at %s\n", v->link.direction, v->link.hook);
	if (v->egress.hook)
		fprintf(out, "egress program  id %u, mode %s\n", v->egress.prog_id, v->egress.mode);
	if (v->before.n)
		fprintf(out, "replaced        %s (attach --force; detach does not put it back)\n",
		        xdp_hook_text(&v->before, before, sizeof(before)));
	kernel_features_list(v->features, false, features, sizeof(features));
	fprintf(out, "kernel          %s\n", v->kernel);
	fprintf(out, "features        %s\n", v->features ? features :
	        "unknown (the BPF object cannot be opened)");
	fprintf(out, "match           %s\n", v->match);
	if (cfg->match & BLOOMXDP_MATCH_NAMES)
		fprintf(out, "ports           dns %s, http %s, tls %s, quic %s\n", v->dns_ports,
		        v->http_ports, v->tls_ports, v->quic_ports);
	if (cfg->match & BLOOMXDP_MATCH_SNI)
		fprintf(out, "quic            %u Initials decrypted per CPU and second at most; "
		        "unreadable ones %s; ECH %s\n", cfg->quic_per_sec,
		        cfg->quic_unparsed == BLOOMXDP_POLICY_DROP ? "dropped" : "passed",
		        cfg->ech == BLOOMXDP_POLICY_DROP ? "dropped" : "passed");
	fprintf(out, "action          %s%s\n", attach_action_name(cfg->action),
	        cfg->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN ? ", NXDOMAIN answers to DNS" : "");
	if (cfg->action == BLOOMXDP_ACTION_REJECT)
		fprintf(out, "                TCP answered RST, UDP ICMP port unreachable (%u "
			"per second "
		        "and CPU at most)\n", cfg->icmp_per_sec);
	if (cfg->match & BLOOMXDP_MATCH_DNS_ANSWERS || cfg->doh_canary)
		status_text_dns(v, out);
	fprintf(out, "layout          %s\n", layout_name(cfg->layout));
	status_text_filter(v, out);
	fprintf(out, "verify          %s (--verify %s)\n", v->verify_reason,
	        verify_mode_name(cfg->verify));
	if (v->table_bytes)
		fprintf(out, "                hosts read from tables of %llu bytes\n",
			(unsigned long long)v->table_bytes);
	if (v->exact_on)
		fprintf(out, "                %llu false positives refused, observed FPR %.3g\n",
		        (unsigned long long)v->fps, v->observed_fpr);
	else if (cfg->verify == BLOOMXDP_VERIFY_OFF)
		fprintf(out, "                attach --force --verify auto to never drop a false "
		        "positive where the copy is cheap\n");
	fprintf(out, "events          %u per second and CPU at most%s\n", cfg->events_per_sec,
	        cfg->events_per_sec ? " (bloomxdp watch)" : "");
	if (v->guard.on)
		fprintf(out, "socket guard    on, cgroup %s: %llu calls looked up, %llu refused\n",
		        v->guard.cgroup[0] ? v->guard.cgroup : "(not found)",
		        (unsigned long long)v->guard.checked, (unsigned long long)v->guard.refused);
	else
		fprintf(out, "socket guard    off (attach --cgroup PATH)\n");
	fprintf(out, "list            generation %llu, loaded %s\n",
	        (unsigned long long)v->g.st.generation, v->loaded);
	fprintf(out, "state           %s\n", !strcmp(v->state, "current") ?
	        "records this generation ('bloomxdp restore' brings it back)" :
	        !strcmp(v->state, "behind") ? "records another generation: a load did not "
	        "complete its state write; load the list again" :
	        "none for this list ('bloomxdp restore' cannot bring it back)");
	if (cfg->layout == BLOOMXDP_LAYOUT_KERNEL)
		fprintf(out, "del counters    n/a (layout kernel cannot delete)\n");
	else if (v->del_ret)
		fprintf(out, "del counters    none for this generation: 'bloomxdp del' refuses "
			"until a "
		        "load builds them\n");
	else
		fprintf(out, "del counters    %llu bytes in the state, %llu saturated (their bits "
			"stay "
		        "set: del never clears them)\n", (unsigned long long)v->del_bytes,
		        (unsigned long long)v->del_saturated);
	if (v->timeouts)
		fprintf(out, "timeouts        %llu entr%s, the next expires at %s (in %lld s)\n",
		        (unsigned long long)v->timeouts, v->timeouts == 1 ? "y" : "ies",
		        v->next_text, (long long)v->next_expiry - (long long)time(NULL));
	else
		fprintf(out, "timeouts        none\n");
	status_lists_write(&v->lists, cfg, NULL, out);
}
