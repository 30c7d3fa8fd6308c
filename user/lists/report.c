// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The results of the list operations as text: the lines their commands print (report.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lists/learned.h"
#include "lists/named.h"
#include "lists/report.h"
#include "util/json.h"

void load_result_init(struct load_result *r, const char *ifname)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
}

/* The expansion of prefixes, for load's report. */
static void prefix_plans_print(const struct prefix_plan plan[2], const struct range_cost cost[2],
			       FILE *out)
{
	static const char *const family[2] = { "IPv4", "IPv6" };
	int i;

	for (i = 0; i < 2; i++) {
		if (cost[i].use_ranges) {
			fprintf(out, "%s prefixes: %llu entries stored exact as %llu intervals "
				"(%llu bytes, %u search steps) instead of %.0f Bloom keys\n",
				family[i], (unsigned long long)plan[i].entries,
				(unsigned long long)cost[i].intervals,
				(unsigned long long)cost[i].range_bytes, cost[i].steps,
				plan[i].expanded);
			continue;
		}
		if (!plan[i].entries || (plan[i].ntargets == 1 &&
					 plan[i].target[0] == (i ? 128 : 32)))
			continue;
		fprintf(out, "%s prefixes: %llu entries stored as %.0f keys, %u probes per "
			"packet\n", family[i], (unsigned long long)plan[i].entries,
			plan[i].expanded, plan[i].ntargets);
	}
}

void load_result_print(const struct load_result *r, FILE *out)
{
	int i;

	if (r->exceptions)
		fprintf(out, "added %zu exception%s of the list (@@, rpz-passthru) to the "
			"allowlist of %s; they stay until 'load --allow' replaces it\n",
			r->exceptions, r->exceptions == 1 ? "" : "s", r->ifname);
	if (r->allowlist)
		fprintf(out, "loaded %llu allowlist entries into %s\n",
			(unsigned long long)r->entries, r->ifname);
	if (!r->swapped)
		goto kept;
	for (i = 0; i < r->nnamed; i++) {
		const struct load_named_result *p = &r->named[i];

		if (p->dropped)
			fprintf(out, "dropped list %s of %s: it is empty\n", p->name, r->ifname);
		else
			fprintf(out, "loaded %llu entries into list %s of %s (action %s)\n",
				(unsigned long long)p->entries, p->name, r->ifname,
				list_action_name(p->action));
	}
	fprintf(out, "loaded %llu entries into %s in %.2f s%s\n", (unsigned long long)r->entries,
		r->ifname, r->seconds, r->is_union ? " (the union of its lists)" : "");
	prefix_plans_print(r->plan, r->cost, out);
	fprintf(out, "filter sized for %llu keys (the list makes %llu; the previous filter was "
		"sized for %llu): %llu bytes, estimated FPR %.3g per key, %.3g per packet at most "
		"(up to %u probes), at FPR %g asked\n", (unsigned long long)r->capacity,
		(unsigned long long)r->keys, (unsigned long long)r->previous_capacity,
		(unsigned long long)r->bytes, r->key_fpr, r->packet_fpr, r->probes, r->fpr);
	if (r->verify[0])
		fprintf(out, "%s\n", r->verify);
kept:
	if (r->kept)
		fprintf(out, "kept %llu entr%s added with --timeout (until %s deadline%s)\n",
			(unsigned long long)r->kept, r->kept == 1 ? "y" : "ies",
			r->kept == 1 ? "its" : "their", r->kept == 1 ? "" : "s");
}

void add_result_print(const struct add_result *r, FILE *out)
{
	if (r->making) {
		fprintf(out, "making list %s of %s\n", r->list, r->ifname);
		load_result_print(&r->load, out);
		return;
	}
	if (r->added && r->allow)
		fprintf(out, "added %zu entr%s to the allowlist of %s\n", r->entries,
			r->entries == 1 ? "y" : "ies", r->ifname);
	else if (r->added)
		fprintf(out, "added %zu entr%s to %s (%llu not already in the filter)\n",
			r->entries, r->entries == 1 ? "y" : "ies", r->ifname,
			(unsigned long long)r->inserted);
	if (!r->rebuilding)
		return;
	fprintf(out, "%d entr%s past the room of the filter of %s: rebuilding it from the state "
		"with them\n", r->n, r->n == 1 ? "y" : "ies", r->ifname);
	load_result_print(&r->load, out);
}

void del_result_print(const struct del_result *r, FILE *out)
{
	if (r->unlearned)
		fprintf(out, "deleted %llu learned address%s from %s: no longer blocked as learned "
			"from a DNS answer\n", (unsigned long long)r->unlearned,
			r->unlearned == 1 ? "" : "es", r->ifname);
	if (r->list[0]) {
		load_result_print(&r->load, out);
		if (r->deleted)
			fprintf(out, "deleted %llu entr%s from list %s of %s\n",
				(unsigned long long)r->n, r->n == 1 ? "y" : "ies", r->list,
				r->ifname);
		return;
	}
	if (!r->deleted)
		return;
	fprintf(out, "deleted %llu entr%s from the %s of %s", (unsigned long long)r->n,
		r->n == 1 ? "y" : "ies", r->allow ? "allowlist" : "list", r->ifname);
	if (!r->allow)
		fprintf(out, " (%llu bits cleared)", (unsigned long long)r->cleared);
	fprintf(out, "\n");
}

void query_result_free(struct query_result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].text);
		free(r->v[i].learned);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void query_verdict_print(const struct query_verdict *v, FILE *out)
{
	const char *t = v->text ? v->text : "";

	switch (v->said) {
	case QUERY_NOT_BLOCKED:
		fprintf(out, "%s: not blocked\n", v->arg);
		break;
	case QUERY_BLOCKED:
		fprintf(out, "%s: blocked\n", v->arg);
		break;
	case QUERY_PREFIX:
		fprintf(out, "%s: blocked (listed prefix %s)\n", v->arg, t);
		break;
	case QUERY_RANGE:
		fprintf(out, "%s: blocked (listed range %s)\n", v->arg, t);
		break;
	case QUERY_FILTER_PREFIX:
		fprintf(out, "%s: blocked (the filter matches %s: listed, or a false positive)\n",
			v->arg, t);
		break;
	case QUERY_LISTED:
		fprintf(out, "%s: blocked (listed: %s)\n", v->arg, t);
		break;
	case QUERY_FALSE_POSITIVE:
		fprintf(out, "%s: blocked (a false positive of the filter: not in the list as last "
			"applied)\n", v->arg);
		break;
	case QUERY_NAMED:
		fprintf(out, "%s: %s (listed in %s)\n", v->arg,
			v->monitored ? "monitored" : "blocked", t);
		break;
	case QUERY_IN_LIST:
	case QUERY_NOT_IN_LIST:
		fprintf(out, "%s: %s %s\n", v->arg, v->said == QUERY_IN_LIST ? "listed in" :
			"not in", t);
		break;
	case QUERY_LEARNED:
		fprintf(out, "%s: %s (learned from the answer for %s at %s, expires at %s; list "
			"%s)\n", v->arg, v->allowed ? "not blocked: on the allowlist" :
			v->monitored ? "monitored" : "blocked", v->learned->name,
			v->learned->learned_at, v->learned->expires_at, t);
		break;
	}
}

void query_result_print(const struct query_result *r, FILE *out)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		query_verdict_print(&r->v[i], out);
}

void save_result_print(const struct save_result *r, FILE *out)
{
	if (r->saved)
		fprintf(out, "saved the filter of %s to %s: %llu entries, %llu keys, %llu bytes, "
			"by bloomxdp %s\n", r->ifname, r->path, (unsigned long long)r->entries,
			(unsigned long long)r->keys, (unsigned long long)r->bytes, r->saved_by);
}

void restore_result_print(const struct restore_result *r, FILE *out)
{
	time_t saved_at = r->created_ns / 1000000000ULL;
	char when[32];
	struct tm tm;

	if (!r->restored)
		return;
	if (!gmtime_r(&saved_at, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof(when), "?");
	fprintf(out, "restored %llu entries (%llu keys) from %s, saved by %s%s at %s, "
		"into %s%s\n",
		(unsigned long long)r->entries, (unsigned long long)r->keys, r->path,
		r->saved_by[0] ? "bloomxdp " : "an older bloomxdp", r->saved_by, when, r->ifname,
		r->rekeyed ? ", with the file's hash key (its program replaced in place)" : "");
}

/* query --json: each verdict's name. */
static const char *const query_said_names[] = {
	[QUERY_NOT_BLOCKED] = "not_blocked", [QUERY_BLOCKED] = "blocked",
	[QUERY_PREFIX] = "prefix", [QUERY_RANGE] = "range",
	[QUERY_FILTER_PREFIX] = "filter_prefix", [QUERY_LISTED] = "listed",
	[QUERY_FALSE_POSITIVE] = "false_positive", [QUERY_NAMED] = "named",
	[QUERY_IN_LIST] = "in_list", [QUERY_NOT_IN_LIST] = "not_in_list",
	[QUERY_LEARNED] = "learned",
};

/* "learned": {"list", "name", "learned_at", "expires_at", "ttl"} */
static void learned_json(struct json *j, const struct query_verdict *v)
{
	json_key(j, "learned");
	json_object_start(j);
	json_kv_string(j, "list", v->text ? v->text : "");
	json_kv_string(j, "name", v->learned->name);
	json_kv_string(j, "learned_at", v->learned->learned_at);
	json_kv_string(j, "expires_at", v->learned->expires_at);
	json_kv_u64(j, "ttl", v->learned->v.ttl);
	json_object_end(j);
}

/* An array of {"entry", "verdict", "text", "monitored", "allowed", "learned"}. */
void query_result_json(const struct query_result *r, struct json *j)
{
	size_t i;

	json_array_start(j);
	for (i = 0; i < r->n; i++) {
		const struct query_verdict *v = &r->v[i];

		json_object_start(j);
		json_kv_string(j, "entry", v->arg);
		json_kv_string(j, "verdict", query_said_names[v->said]);
		json_kv_bool(j, "blocked", v->said != QUERY_NOT_BLOCKED &&
			     v->said != QUERY_IN_LIST && v->said != QUERY_NOT_IN_LIST &&
			     !v->monitored && !v->allowed);
		if (v->text && v->text[0])
			json_kv_string(j, "text", v->text);
		json_kv_bool(j, "monitored", v->monitored);
		if (v->said == QUERY_LEARNED) {
			json_kv_bool(j, "allowed", v->allowed);
			learned_json(j, v);
		}
		json_object_end(j);
	}
	json_array_end(j);
}

void query_result_write_json(const struct query_result *r, FILE *out)
{
	struct json j;

	json_start(&j, out);
	query_result_json(r, &j);
	json_end(&j);
}
