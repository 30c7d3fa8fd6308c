// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Drop events as text and JSON, for watch and the daemon. */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "kernel/events.h"
#include "util/json.h"
#include "util/options.h"

/* The fields an event carries; the others of enum bloomxdp_field never match. */
static const struct enum_value field_values[] = {
	ENUM_VALUE("src", BLOOMXDP_FIELD_SRC, NULL),
	ENUM_VALUE("dst", BLOOMXDP_FIELD_DST, NULL),
	ENUM_VALUE("dns", BLOOMXDP_FIELD_DNS, NULL),
	ENUM_VALUE("http", BLOOMXDP_FIELD_HTTP, NULL),
	ENUM_VALUE("sni", BLOOMXDP_FIELD_SNI, NULL),
	ENUM_VALUE("quic", BLOOMXDP_FIELD_QUIC, NULL),
	ENUM_VALUE("dns-answer", BLOOMXDP_FIELD_DNS_ANSWER, NULL),
	{}
};

/* A DNS response's record that matched (field dns-answer): 0 is its question. */
static const struct enum_value record_values[] = {
	ENUM_VALUE("question", 0, NULL),
	ENUM_VALUE("A", BLOOMXDP_DNS_TYPE_A, NULL),
	ENUM_VALUE("CNAME", BLOOMXDP_DNS_TYPE_CNAME, NULL),
	ENUM_VALUE("AAAA", BLOOMXDP_DNS_TYPE_AAAA, NULL),
	ENUM_VALUE("DNAME", BLOOMXDP_DNS_TYPE_DNAME, NULL),
	ENUM_VALUE("SVCB", BLOOMXDP_DNS_TYPE_SVCB, NULL),
	ENUM_VALUE("HTTPS", BLOOMXDP_DNS_TYPE_HTTPS, NULL),
	{}
};

static const struct enum_value key_values[] = {
	ENUM_VALUE("address", BLOOMXDP_EVKEY_ADDRESS, NULL),
	ENUM_VALUE("prefix", BLOOMXDP_EVKEY_PREFIX, NULL),
	ENUM_VALUE("name", BLOOMXDP_EVKEY_NAME, NULL),
	ENUM_VALUE("url", BLOOMXDP_EVKEY_URL, NULL),
	ENUM_VALUE("range", BLOOMXDP_EVKEY_RANGE, NULL),
	ENUM_VALUE("learned", BLOOMXDP_EVKEY_LEARNED, NULL),
	ENUM_VALUE("canary", BLOOMXDP_EVKEY_CANARY, NULL),
	{}
};

static const struct enum_value verdict_values[] = {
	ENUM_VALUE("drop", BLOOMXDP_EVVERDICT_DROP, NULL),
	ENUM_VALUE("would_drop", BLOOMXDP_EVVERDICT_WOULD_DROP, NULL),
	ENUM_VALUE("nxdomain", BLOOMXDP_EVVERDICT_NXDOMAIN, NULL),
	ENUM_VALUE("reject", BLOOMXDP_EVVERDICT_REJECT, NULL),
	{}
};

static const struct enum_value origin_values[] = {
	ENUM_VALUE("packet", BLOOMXDP_EVORIGIN_PACKET, NULL),
	ENUM_VALUE("socket", BLOOMXDP_EVORIGIN_SOCKET, NULL),
	{}
};

void events_clock_now(struct events_clock *c)
{
	struct timespec mono, real;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	c->mono_to_real = (real.tv_sec - mono.tv_sec) + (real.tv_nsec - mono.tv_nsec) / 1e9;
	c->since_ns = mono.tv_sec * 1000000000ULL + mono.tv_nsec;
	c->lists_fd = -1;
}

int events_stale(const struct events_clock *c, const void *data, size_t size)
{
	const struct bloomxdp_event *ev = data;

	/* The ring keeps what nobody read: only events from now on. */
	return size < sizeof(*ev) || ev->ts_ns < c->since_ns;
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

struct event_view {
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE];
	char when[40];		/* 2026-12-01T07:00:00 */
	int usec;
	char name[BLOOMXDP_EVENT_NAME_MAX * 4 + 8];
	char list[BLOOMXDP_LIST_NAME_MAX + 8];	/* whose action applied */
	/* field dns-answer: the record ("TYPE65534" if unknown), an A or AAAA's address */
	char record[16], answer[INET6_ADDRSTRLEN];
};

/* A DNS response's event: its record, and the address of an A or AAAA one. */
static void event_record(const struct bloomxdp_event *ev, struct event_view *v)
{
	const char *name = enum_value_name(record_values, ev->rr_type);

	v->record[0] = v->answer[0] = '\0';
	if (ev->field != BLOOMXDP_FIELD_DNS_ANSWER)
		return;
	if (strcmp(name, "?"))
		snprintf(v->record, sizeof(v->record), "%s", name);
	else
		snprintf(v->record, sizeof(v->record), "TYPE%u", ev->rr_type);
	if (ev->rr_type == BLOOMXDP_DNS_TYPE_A)
		inet_ntop(AF_INET, ev->answer, v->answer, sizeof(v->answer));
	else if (ev->rr_type == BLOOMXDP_DNS_TYPE_AAAA)
		inet_ntop(AF_INET6, ev->answer, v->answer, sizeof(v->answer));
}

/* The list's name from its id: "default", a named list's, or "#ID" when unknown. */
static void event_list(const struct events_clock *c, const struct bloomxdp_event *ev,
		       char *out, size_t len)
{
	struct bloomxdp_list l;
	__u32 id = ev->list;

	if (id == BLOOMXDP_LIST_DEFAULT_ID) {
		snprintf(out, len, "default");
		return;
	}
	if (c->lists_fd >= 0 && !bpf_map_lookup_elem(c->lists_fd, &id, &l) && l.name[0]) {
		l.name[BLOOMXDP_LIST_NAME_MAX] = '\0';
		snprintf(out, len, "%s", l.name);
		return;
	}
	snprintf(out, len, "#%u", id);
}

static void event_view(const struct events_clock *c, const struct bloomxdp_event *ev,
		       struct event_view *v)
{
	int af = ev->family == 6 ? AF_INET6 : AF_INET;
	double t;
	time_t secs;
	struct tm tm;

	inet_ntop(af, ev->src, v->src, sizeof(v->src));
	inet_ntop(af, ev->dst, v->dst, sizeof(v->dst));
	strcpy(v->ifname, "?");
	if_indextoname(ev->ifindex, v->ifname);
	t = ev->ts_ns / 1e9 + c->mono_to_real;
	secs = (time_t)t;
	v->usec = (int)((t - secs) * 1e6);
	strftime(v->when, sizeof(v->when), "%Y-%m-%dT%H:%M:%S", gmtime_r(&secs, &tm));
	event_name(ev, v->name, sizeof(v->name));
	event_list(c, ev, v->list, sizeof(v->list));
	event_record(ev, v);
}

void event_write_json(const struct events_clock *c, const struct bloomxdp_event *ev, FILE *out)
{
	struct event_view v;
	struct json j;
	char stamp[64];

	event_view(c, ev, &v);
	snprintf(stamp, sizeof(stamp), "%s.%06dZ", v.when, v.usec);
	json_start(&j, out);
	json_object_start(&j);
	json_kv_string(&j, "time", stamp);
	json_kv_string(&j, "ifname", v.ifname);
	json_kv_u64(&j, "ifindex", ev->ifindex);
	json_kv_string(&j, "direction", ev->direction ? "egress" : "ingress");
	json_kv_string(&j, "origin", enum_value_name(origin_values, ev->origin));
	json_kv_string(&j, "verdict", enum_value_name(verdict_values, ev->verdict));
	json_kv_string(&j, "field", enum_value_name(field_values, ev->field));
	if (v.record[0])
		json_kv_string(&j, "record", v.record);
	if (v.answer[0])
		json_kv_string(&j, "answer", v.answer);
	json_kv_string(&j, "key", enum_value_name(key_values, ev->key_kind));
	json_kv_u64(&j, "key_len", ev->key_len);
	json_kv_string(&j, "src", v.src);
	json_kv_string(&j, "dst", v.dst);
	json_kv_u64(&j, "proto", ev->l4_proto == 0xff ? 0 : ev->l4_proto);
	json_kv_u64(&j, "sport", ntohs(ev->sport));
	json_kv_u64(&j, "dport", ntohs(ev->dport));
	json_kv_string(&j, "name", v.name);
	json_kv_string(&j, "list", v.list);
	json_object_end(&j);
	json_end(&j);
}

void event_text(const struct events_clock *c, const struct bloomxdp_event *ev, char *buf,
		size_t len)
{
	struct event_view v;

	event_view(c, ev, &v);
	/*
	 * The direction after the interface, and a socket guard's event says so:
	 * "eth0 egress socket drop ...".
	 */
	/* A DNS response's: "dns-answer A 192.0.2.7 name ...", "dns-answer CNAME name ...". */
	snprintf(buf, len, "%s.%06dZ %s %s%s %s %s -> %s %s%s%s%s%s %s %s%s%s%slist %s", v.when,
		 v.usec, v.ifname, ev->direction ? "egress" : "ingress",
		 ev->origin == BLOOMXDP_EVORIGIN_SOCKET ? " socket" : "",
		 enum_value_name(verdict_values, ev->verdict), v.src, v.dst,
		 enum_value_name(field_values, ev->field), v.record[0] ? " " : "", v.record,
		 v.answer[0] ? " " : "", v.answer,
		 enum_value_name(key_values, ev->key_kind), v.name[0] ? "\"" : "", v.name,
		 v.name[0] ? "\"" : "", v.name[0] ? " " : "", v.list);
}

/* The last labels of a dotted name: its listed suffix (NULL when it has fewer). */
static const char *name_suffix(const char *name, unsigned int labels)
{
	const char *p = name + strlen(name);

	while (labels && p > name) {
		p--;
		if (*p == '.' && !--labels)
			return p + 1;
	}
	return labels == 1 && p == name ? name : NULL;
}

/* An address entry: the event's address of its field, masked to a prefix's length. */
static void entry_address(const struct bloomxdp_event *ev, char *out, size_t len)
{
	int ipv6 = ev->family == 6;
	__u8 a[16] = {};
	unsigned int i, bits;

	if (ev->field == BLOOMXDP_FIELD_DNS_ANSWER) {
		ipv6 = ev->rr_type == BLOOMXDP_DNS_TYPE_AAAA;
		memcpy(a, ev->answer, sizeof(a));
	} else {
		memcpy(a, ev->field == BLOOMXDP_FIELD_DST ? ev->dst : ev->src, sizeof(a));
	}
	bits = ipv6 ? 128 : 32;
	if (ev->key_kind == BLOOMXDP_EVKEY_PREFIX && ev->key_len < bits) {
		for (i = 0; i < bits / 8; i++)
			if (i * 8 >= ev->key_len)
				a[i] = 0;
			else if (i * 8 + 8 > ev->key_len)
				a[i] &= (__u8)(0xff << (8 - (ev->key_len - i * 8)));
		bits = ev->key_len;
	}
	inet_ntop(ipv6 ? AF_INET6 : AF_INET, a, out, len);
	if (ev->key_kind == BLOOMXDP_EVKEY_PREFIX)
		snprintf(out + strlen(out), len - strlen(out), "/%u", bits);
}

void event_entry(const struct events_clock *c, const struct bloomxdp_event *ev, char *entry,
		 size_t len, char *list, size_t list_len)
{
	const char *kind = enum_value_name(key_values, ev->key_kind), *suffix;
	char name[BLOOMXDP_EVENT_NAME_MAX * 4 + 8], text[INET6_ADDRSTRLEN + 8];

	event_list(c, ev, list, list_len);
	switch (ev->key_kind) {
	case BLOOMXDP_EVKEY_ADDRESS:
	case BLOOMXDP_EVKEY_PREFIX:
	case BLOOMXDP_EVKEY_RANGE:
	case BLOOMXDP_EVKEY_LEARNED:
		entry_address(ev, text, sizeof(text));
		snprintf(entry, len, "%s %s", kind, text);
		return;
	case BLOOMXDP_EVKEY_NAME:
		event_name(ev, name, sizeof(name));
		/* A name cut at the event's 64 bytes may lack its listed labels: shown as it came. */
		suffix = ev->name_len < BLOOMXDP_EVENT_NAME_MAX ? name_suffix(name, ev->key_len) :
								 NULL;
		snprintf(entry, len, "name %s%s", suffix ? suffix : name, suffix ? "" : "...");
		return;
	default:			/* url (its host), canary */
		event_name(ev, name, sizeof(name));
		snprintf(entry, len, "%s %s", kind, name);
	}
}
