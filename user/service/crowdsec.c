// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CrowdSec bouncer (crowdsec.h): pull, plan the changes against the bans
 * held, apply them with one list_del and one list_add per deadline, and keep
 * what is enforced when the LAPI is down.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/config.h"
#include "service/crowdsec.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/duration.h"
#include "lists/report.h"
#include "util/log.h"
#include "service/metrics.h"
#include "kernel/state_dir.h"

/* A ban this much longer than its decision is cut to it (the decision was replaced). */
#define PLAN_SLACK_S	2
/*
 * The bans held, in the interface's state: "UNTIL APPLIED VALUE" lines, so
 * that a daemon started again lifts, at its first pull, what the LAPI
 * deleted meanwhile. Bounded as a reply's decisions are.
 */
/* Its lines in the journal: LIST= the bouncer's list, EVENT= what it did. */
#define CROWDSEC_LOG(event_name)							\
	(&(struct log_fields){ .list = CROWDSEC_LIST, .event = (event_name) })
#define BANS_FILE	"crowdsec.bans"
#define BANS_LINE_MAX	(2 * 21 + CROWDSEC_VALUE_MAX + 4)

struct crowdsec {
	char ifname[64];
	char state_dir[PATH_MAX];
	struct crowdsec_config cfg;
	struct crowdsec_ban *held;	/* sorted by value */
	size_t nheld;
	bool resync;			/* the next pull asks for the whole set */
	bool pulled;			/* some pull was tried: a state to change from */
	struct crowdsec_pull *pull;	/* under way */
	bool pull_startup;		/* ... asking for the whole set */
	unsigned int failures;		/* in a row: the backoff's step */
	__u64 due_ms;
	struct crowdsec_stats st;
};

static int ban_cmp(const void *a, const void *b)
{
	return strcmp(((const struct crowdsec_ban *)a)->value,
		      ((const struct crowdsec_ban *)b)->value);
}

static int decision_cmp(const void *a, const void *b)
{
	const struct crowdsec_decision *x = a, *y = b;
	int c = strcmp(x->value, y->value);

	/* The longest first among equal values: it is the one kept. */
	return c ? c : (x->duration_ms < y->duration_ms) - (x->duration_ms > y->duration_ms);
}

static size_t decisions_unique(struct crowdsec_decision *d, size_t n)
{
	size_t i, k = 0;

	qsort(d, n, sizeof(*d), decision_cmp);
	for (i = 0; i < n; i++)
		if (!k || strcmp(d[k - 1].value, d[i].value))
			d[k++] = d[i];
	return k;
}

__u64 crowdsec_deadline(__u64 until, __u64 now)
{
	__u64 left = until > now ? until - now : 1, grid = 1, applied;

	while (grid * 2 <= left / 16)
		grid *= 2;
	applied = (until + grid - 1) / grid * grid;
	/* add --timeout takes at most a year: the bouncer adds it again then. */
	if (applied - now > DURATION_MAX_S)
		applied = now + DURATION_MAX_S;
	return applied;
}

/*
 * A held entry that needs no add: its deadline is the decision's end, or, for
 * a ban longer than add --timeout's year (capped), more than half a year away
 * (then it is added again, once, a year from then).
 */
static bool held_enough(const struct crowdsec_ban *h, __u64 until, __u64 now)
{
	if (h->applied <= now)
		return false;
	return h->applied >= until || h->applied - now > DURATION_MAX_S / 2;
}

static int push(struct crowdsec_ban **a, size_t *n, const struct crowdsec_ban *b)
{
	struct crowdsec_ban *grown;

	/* 16, then doubled: full when *n is 16 or a power of two above. */
	if (!*n || (*n >= 16 && !(*n & (*n - 1)))) {
		grown = realloc(*a, (*n ? *n * 2 : 16) * sizeof(**a));
		if (!grown)
			return -ENOMEM;
		*a = grown;
	}
	(*a)[(*n)++] = *b;
	return 0;
}

static const struct crowdsec_decision *take(const struct crowdsec_decision *d, size_t n,
					    size_t *i, const char *value)
{
	if (*i < n && !strcmp(d[*i].value, value))
		return &d[(*i)++];
	return NULL;
}

int crowdsec_plan(const struct crowdsec_ban *held, size_t nheld, struct crowdsec_batch *b,
		  bool startup, __u64 now, struct crowdsec_plan *p)
{
	size_t i = 0, j = 0, k = 0;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	b->nadded = decisions_unique(b->added, b->nadded);
	b->ndeleted = decisions_unique(b->deleted, b->ndeleted);
	while (!ret && (i < nheld || j < b->nadded || k < b->ndeleted)) {
		const struct crowdsec_ban *h = NULL;
		const struct crowdsec_decision *a, *d;
		const char *v = NULL;
		struct crowdsec_ban ban;
		__u64 until = 0;

		if (i < nheld)
			v = held[i].value;
		if (j < b->nadded && (!v || strcmp(b->added[j].value, v) < 0))
			v = b->added[j].value;
		if (k < b->ndeleted && (!v || strcmp(b->deleted[k].value, v) < 0))
			v = b->deleted[k].value;
		snprintf(ban.value, sizeof(ban.value), "%s", v);
		if (i < nheld && !strcmp(held[i].value, ban.value))
			h = &held[i++];
		a = take(b->added, b->nadded, &j, ban.value);
		d = take(b->deleted, b->ndeleted, &k, ban.value);
		/* What should be banned, and until when: the LAPI's word, else what is held. */
		if (a)
			until = now + (a->duration_ms + 999) / 1000;
		if (!startup && h && !d && h->until > now && h->until > until)
			until = h->until;
		if (!until) {
			if (h)
				ret = push(&p->del, &p->ndel, h);
			continue;
		}
		/* Held longer than the LAPI now says: out, and in again with its deadline. */
		if (h && h->until > until + PLAN_SLACK_S) {
			ret = push(&p->del, &p->ndel, h);
			h = NULL;
		}
		ban.until = until;
		if (h && held_enough(h, until, now)) {
			ban.applied = h->applied;	/* in the list, long enough */
		} else {
			ban.applied = crowdsec_deadline(until, now);
			if (!ret)
				ret = push(&p->add, &p->nadd, &ban);
		}
		if (!ret)
			ret = push(&p->next, &p->nnext, &ban);
	}
	if (ret)
		crowdsec_plan_free(p);
	return ret;
}

void crowdsec_plan_free(struct crowdsec_plan *p)
{
	free(p->next);
	free(p->del);
	free(p->add);
	memset(p, 0, sizeof(*p));
}

static int applied_cmp(const void *a, const void *b)
{
	const struct crowdsec_ban *x = a, *y = b;

	return (x->applied > y->applied) - (x->applied < y->applied);
}

static bool ban_in(const struct crowdsec_ban *set, size_t n, const char *value)
{
	struct crowdsec_ban key;

	snprintf(key.value, sizeof(key.value), "%s", value);
	return bsearch(&key, set, n, sizeof(*set), ban_cmp);
}

/*
 * The plan into the list: one del of every value to lift, then one add per
 * deadline. What fails is left out of what is held (an add) or kept in it (a
 * del), and the next pull resyncs. Returns 0 or the first error.
 */
static int plan_apply(struct crowdsec *cs, struct crowdsec_plan *p)
{
	struct list_opts o = {
		.format = FORMAT_ADDR, .prefix_probes = LIST_DEFAULT_PREFIX_PROBES,
		.state_dir = cs->state_dir, .list = CROWDSEC_LIST,
	};
	char **values;
	struct crowdsec_ban *failed = NULL;
	struct add_result added;
	struct del_result deleted;
	size_t i, first, nfailed = 0, nvalues = p->ndel > p->nadd ? p->ndel : p->nadd;
	__u64 now;
	int ret = 0, r;

	values = calloc(nvalues ? nvalues : 1, sizeof(*values));
	if (!values)
		return -ENOMEM;
	if (p->ndel) {
		for (i = 0; i < p->ndel; i++)
			values[i] = p->del[i].value;
		/* Lenient: what the list's own expiry took out already is no error. */
		o.lenient = true;
		ret = list_del(cs->ifname, &o, values, (int)p->ndel, &deleted);
		LOG_REPORT(ret ? LOG_ERR : LOG_INFO, CROWDSEC_LOG("crowdsec-delete"),
			   del_result_print, &deleted);
		o.lenient = false;
		if (ret) {
			size_t sorted = p->nnext;

			/* Still in the list: still held, to be lifted by the resync. */
			for (i = 0; i < p->ndel; i++)
				if (!ban_in(p->next, sorted, p->del[i].value) &&
				    push(&p->next, &p->nnext, &p->del[i]))
					break;
			qsort(p->next, p->nnext, sizeof(*p->next), ban_cmp);
		} else {
			cs->st.deleted += p->ndel;
		}
	}
	qsort(p->add, p->nadd, sizeof(*p->add), applied_cmp);
	for (first = 0; first < p->nadd; first = i) {
		for (i = first; i < p->nadd && p->add[i].applied == p->add[first].applied; i++)
			values[i - first] = p->add[i].value;
		now = time(NULL);
		o.timeout = p->add[first].applied > now ? p->add[first].applied - now : 1;
		r = list_add(cs->ifname, &o, values, (int)(i - first), &added);
		LOG_REPORT(r ? LOG_ERR : LOG_INFO, CROWDSEC_LOG("crowdsec-add"), add_result_print,
			   &added);
		if (!r) {
			cs->st.applied += i - first;
			continue;
		}
		ret = ret ? ret : r;
		for (; first < i; first++)
			if (push(&failed, &nfailed, &p->add[first]))
				break;
	}
	/* Adds that failed are not held: the resync adds them again. */
	if (nfailed) {
		size_t kept = 0;

		qsort(failed, nfailed, sizeof(*failed), ban_cmp);
		for (i = 0; i < p->nnext; i++)
			if (!ban_in(failed, nfailed, p->next[i].value))
				p->next[kept++] = p->next[i];
		p->nnext = kept;
	}
	free(failed);
	free(values);
	return ret;
}

/* The bans of the run before (a missing or unreadable file: none, said). */
static void bans_load(struct crowdsec *cs)
{
	struct crowdsec_ban b;
	struct state_dir sd;
	char *text = NULL, *line, *save, value[CROWDSEC_VALUE_MAX + 1];
	unsigned long long until, applied;
	size_t len, bad = 0;
	int ret;

	ret = state_open(state_root(cs->state_dir), cs->ifname, false, &sd);
	if (ret)
		return;
	ret = state_read(&sd, BANS_FILE, (size_t)CROWDSEC_MAX_DECISIONS * BANS_LINE_MAX, &text,
			 &len);
	state_close(&sd);
	if (ret) {
		if (ret != -ENOENT)
			log_warn("daemon %s: crowdsec: the bans of the run before are not known "
				 "(%s): they end with their timeouts", cs->ifname, strerror(-ret));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%llu %llu %64s", &until, &applied, value) != 3 ||
		    crowdsec_value_canonical(value, true, b.value) || strcmp(value, b.value)) {
			bad++;
			continue;
		}
		/* Not known to be in the list (it may have been replaced): added again if due. */
		b.until = until;
		b.applied = 0;
		if (push(&cs->held, &cs->nheld, &b))
			break;
	}
	free(text);
	qsort(cs->held, cs->nheld, sizeof(*cs->held), ban_cmp);
	if (bad)
		log_warn("daemon %s: crowdsec: %zu lines of %s not read", cs->ifname, bad,
			 BANS_FILE);
	if (cs->nheld)
		log_info("daemon %s: crowdsec: %zu ban%s of the run before, checked at the first "
			 "pull", cs->ifname, cs->nheld, cs->nheld == 1 ? "" : "s");
}

/* The bans held, for the next run; without state (nothing loaded yet) there is nowhere. */
static void bans_save(struct crowdsec *cs)
{
	struct state_dir sd;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	if (state_open(state_root(cs->state_dir), cs->ifname, false, &sd))
		return;
	f = open_memstream(&text, &len);
	if (f) {
		for (i = 0; i < cs->nheld; i++)
			fprintf(f, "%llu %llu %s\n", (unsigned long long)cs->held[i].until,
				(unsigned long long)cs->held[i].applied, cs->held[i].value);
		if (fclose(f) || state_write(&sd, BANS_FILE, text, len))
			log_warn("daemon %s: crowdsec: the bans held are not saved: a daemon "
				 "started again leaves them to their timeouts", cs->ifname);
	}
	free(text);
	state_close(&sd);
}

int crowdsec_new(const char *ifname, const char *state_dir, const struct crowdsec_config *cfg,
		 struct crowdsec **out)
{
	struct crowdsec *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return -ENOMEM;
	snprintf(cs->ifname, sizeof(cs->ifname), "%s", ifname);
	cs->resync = true;
	crowdsec_reconfigure(cs, state_dir, cfg);
	bans_load(cs);
	cs->st.bans = cs->nheld;
	*out = cs;
	return 0;
}

void crowdsec_reconfigure(struct crowdsec *cs, const char *state_dir,
			  const struct crowdsec_config *cfg)
{
	snprintf(cs->state_dir, sizeof(cs->state_dir), "%s", state_dir);
	/* A pull under way with the old settings is dropped: the new ones pull now. */
	crowdsec_pull_free(cs->pull);
	cs->pull = NULL;
	cs->cfg = *cfg;
	cs->resync = true;
	cs->failures = 0;
	cs->due_ms = 0;
	log_info("daemon %s: crowdsec: decisions from %s every %llus, into the list '%s'",
		 cs->ifname, cfg->lapi_url, (unsigned long long)cfg->interval_s, CROWDSEC_LIST);
}

void crowdsec_free(struct crowdsec *cs)
{
	if (!cs)
		return;
	if (cs->nheld)
		log_info("daemon %s: crowdsec: the bouncer stops; its %zu ban%s stay until their "
			 "timeouts", cs->ifname, cs->nheld, cs->nheld == 1 ? "" : "s");
	crowdsec_pull_free(cs->pull);
	free(cs->held);
	free(cs);
}

__u64 crowdsec_due_ms(const struct crowdsec *cs)
{
	return cs->pull ? UINT64_MAX : cs->due_ms;
}

int crowdsec_poll_fds(struct crowdsec *cs, struct pollfd *fds, int max, int *timeout_ms)
{
	return cs->pull ? crowdsec_pull_fds(cs->pull, fds, max, timeout_ms) : 0;
}

/* A failed pull or apply: logged when the state changes, retried with backoff, then resync. */
static void failed(struct crowdsec *cs, __u64 now_ms, int err, const char *what, const char *why)
{
	__u64 wait_s = cs->cfg.interval_s;
	unsigned int i;

	for (i = 0; i < cs->failures && wait_s < CROWDSEC_RETRY_CAP_S; i++)
		wait_s *= 2;
	if (wait_s > CROWDSEC_RETRY_CAP_S && cs->cfg.interval_s < CROWDSEC_RETRY_CAP_S)
		wait_s = CROWDSEC_RETRY_CAP_S;
	cs->failures++;
	cs->resync = true;
	cs->due_ms = now_ms + wait_s * 1000;
	if (cs->st.up || !cs->pulled)
		log_error("daemon %s: crowdsec: %s %s: %s (%s); the %llu ban%s held stay "
			  "enforced; retrying, every %llus at most", cs->ifname, what,
			  cs->cfg.lapi_url, why, strerror(-err), (unsigned long long)cs->nheld,
			  cs->nheld == 1 ? "" : "s",
			  (unsigned long long)(cs->cfg.interval_s > CROWDSEC_RETRY_CAP_S ?
					       cs->cfg.interval_s : CROWDSEC_RETRY_CAP_S));
	cs->st.up = false;
	cs->pulled = true;
}

/* A few changes are named in the log: " (+192.0.2.7 -198.51.100.0/24)". */
static const char *plan_values(const struct crowdsec_plan *p, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	if (p->ndel + p->nadd > 4)
		return buf;
	for (i = 0; i < p->ndel; i++)
		n += snprintf(buf + n, len - n, "%s-%s", n ? " " : " (", p->del[i].value);
	for (i = 0; i < p->nadd && n < len; i++)
		n += snprintf(buf + n, len - n, "%s+%s", n ? " " : " (", p->add[i].value);
	if (n && n < len)
		snprintf(buf + n, len - n, ")");
	return buf;
}

void crowdsec_run(struct crowdsec *cs, __u64 now_ms)
{
	char values[4 * (CROWDSEC_VALUE_MAX + 2) + 8];
	struct crowdsec_batch b = {};
	struct crowdsec_plan p = {};
	bool startup = cs->pull ? cs->pull_startup : cs->resync;
	char why[256] = "";
	__u64 ignored = 0;
	size_t len = 0, i;
	char *body = NULL;
	int ret;

	if (!cs->pull && now_ms < cs->due_ms)
		return;
	if (!cs->pull) {
		ret = crowdsec_pull_start(&cs->cfg, startup, &cs->pull, why, sizeof(why));
		cs->pull_startup = startup;
	}
	if (cs->pull) {
		ret = crowdsec_pull_step(cs->pull, &body, &len, why, sizeof(why));
		if (ret == -EINPROGRESS)
			return;
		crowdsec_pull_free(cs->pull);
		cs->pull = NULL;
	}
	if (!ret)
		ret = crowdsec_parse(body, len, cs->cfg.scope_ip, cs->cfg.scope_range, &b, why,
				     sizeof(why));
	free(body);
	if (ret) {
		cs->st.pull_failures++;
		failed(cs, now_ms, ret, "pulling decisions from", why);
		return;
	}
	for (i = 0; i < CS_IGNORED_REASONS; i++) {
		cs->st.ignored[i] += b.ignored[i];
		ignored += b.ignored[i];
	}
	ret = crowdsec_plan(cs->held, cs->nheld, &b, startup, time(NULL), &p);
	if (!ret && (p.ndel || p.nadd))
		ret = plan_apply(cs, &p);
	if (p.next || !ret) {
		free(cs->held);
		cs->held = p.next;
		cs->nheld = p.nnext;
		p.next = NULL;
	}
	if (p.ndel || p.nadd)
		bans_save(cs);
	cs->st.bans = cs->nheld;
	if (ret) {
		cs->st.apply_failures++;
		snprintf(why, sizeof(why), "the list refused a change (see above)");
		failed(cs, now_ms, ret, "applying the decisions of", why);
		goto out;
	}
	cs->st.pulls++;
	cs->st.last_success = time(NULL);
	if (!cs->st.up)
		log_info("daemon %s: crowdsec: %s %s: %zu ban%s held", cs->ifname,
			 cs->pulled ? "in touch again with" : "connected to", cs->cfg.lapi_url,
			 cs->nheld, cs->nheld == 1 ? "" : "s");
	if (p.ndel || p.nadd || ignored)
		log_info("daemon %s: crowdsec: %s%zu added, %zu deleted, %llu ignored%s",
			 cs->ifname, startup ? "resync: " : "", p.nadd, p.ndel,
			 (unsigned long long)ignored,
			 plan_values(&p, values, sizeof(values)));
	cs->st.up = cs->pulled = true;
	cs->failures = 0;
	cs->resync = false;
	cs->due_ms = now_ms + cs->cfg.interval_s * 1000;
out:
	crowdsec_plan_free(&p);
	crowdsec_batch_free(&b);
}

void crowdsec_stats(const struct crowdsec *cs, struct crowdsec_stats *st)
{
	*st = cs->st;
}

int crowdsec_render_metrics(const struct crowdsec *cs, FILE *out)
{
	const struct crowdsec_stats *st = &cs->st;
	int i;

#define FAMILY(name, help, type)							\
	fprintf(out, "# HELP bloomxdp_crowdsec_" name " " help "\n"			\
		     "# TYPE bloomxdp_crowdsec_" name " " type "\n")
#define SAMPLE(name, labels, value)							\
	do {										\
		fprintf(out, "bloomxdp_crowdsec_" name "{ifname=\"");			\
		metrics_label_value(out, cs->ifname);					\
		fprintf(out, "\"%s} %llu\n", labels, (unsigned long long)(value));	\
	} while (0)
#define ONE(name, help, type, value)							\
	do {										\
		FAMILY(name, help, type);						\
		SAMPLE(name, "", value);						\
	} while (0)
	ONE("up", "1 when the last pull from the LAPI was applied, else 0.", "gauge", st->up);
	ONE("bans", "Values (addresses, ranges) the bouncer holds banned.", "gauge", st->bans);
	ONE("decisions_applied_total", "Bans added or extended from the LAPI's decisions.",
	    "counter", st->applied);
	ONE("decisions_deleted_total", "Bans lifted: deleted by the LAPI, over, or gone from "
	    "its set.", "counter", st->deleted);
	FAMILY("decisions_ignored_total", "Decisions not applied, by reason: type (not ban), "
	       "scope (not Ip or Range), value, duration, fields.", "counter");
	for (i = 0; i < CS_IGNORED_REASONS; i++) {
		char label[48];

		snprintf(label, sizeof(label), ",reason=\"%s\"", crowdsec_ignored_names[i]);
		SAMPLE("decisions_ignored_total", label, st->ignored[i]);
	}
	ONE("pulls_total", "Replies of the LAPI applied.", "counter", st->pulls);
	ONE("pull_failures_total", "Pulls that failed: the LAPI unreachable, refusing the key, "
	    "or a bad reply.", "counter", st->pull_failures);
	ONE("apply_failures_total", "Replies whose changes the list refused.", "counter",
	    st->apply_failures);
	ONE("last_success_seconds", "When a pull was last applied, seconds since the epoch "
	    "(0: never).", "gauge", st->last_success);
#undef ONE
#undef SAMPLE
#undef FAMILY
	return ferror(out) ? -EIO : 0;
}
