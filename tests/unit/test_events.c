// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drop events as text and JSON (user/kernel/events.c): a DNS response's
 * record and answer address, the learned and canary key kinds; the listed
 * entry an event hit (stats --top's key).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/events.h"
#include "service/top.h"

static struct bloomxdp_event answer_event(__u16 rr_type)
{
	struct bloomxdp_event ev = {
		.family = 4, .src = { 192, 0, 2, 53 }, .dst = { 192, 0, 2, 1 },
		.field = BLOOMXDP_FIELD_DNS_ANSWER, .key_kind = BLOOMXDP_EVKEY_ADDRESS,
		.verdict = BLOOMXDP_EVVERDICT_DROP, .rr_type = rr_type,
		.answer = { 198, 51, 100, 7 }, .name_wire = 1,
		.name = "\7tracker\7example", .name_len = 17,
	};

	return ev;
}

static void text_of(const struct bloomxdp_event *ev, char *buf, size_t len)
{
	struct events_clock c = { .lists_fd = -1 };

	event_text(&c, ev, buf, len);
}

static char *json_of(const struct bloomxdp_event *ev)
{
	struct events_clock c = { .lists_fd = -1 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	event_write_json(&c, ev, out);
	assert_int_equal(fclose(out), 0);
	return text;
}

static void test_dns_answer(void **state)
{
	struct bloomxdp_event ev = answer_event(BLOOMXDP_DNS_TYPE_A);
	char buf[512], *j;

	(void)state;
	text_of(&ev, buf, sizeof(buf));
	assert_non_null(strstr(buf, " dns-answer A 198.51.100.7 address \"tracker.example\" "));
	j = json_of(&ev);
	assert_non_null(strstr(j, "\"field\":\"dns-answer\""));
	assert_non_null(strstr(j, "\"record\":\"A\""));
	assert_non_null(strstr(j, "\"answer\":\"198.51.100.7\""));
	free(j);
	/* A CNAME's target is the name; no address. */
	ev = answer_event(BLOOMXDP_DNS_TYPE_CNAME);
	ev.key_kind = BLOOMXDP_EVKEY_NAME;
	text_of(&ev, buf, sizeof(buf));
	assert_non_null(strstr(buf, " dns-answer CNAME name \"tracker.example\" "));
	j = json_of(&ev);
	assert_non_null(strstr(j, "\"record\":\"CNAME\""));
	assert_null(strstr(j, "\"answer\""));
	free(j);
	/* The question, an AAAA, a type the program does not send. */
	ev = answer_event(0);
	text_of(&ev, buf, sizeof(buf));
	assert_non_null(strstr(buf, " dns-answer question "));
	ev = answer_event(BLOOMXDP_DNS_TYPE_AAAA);
	memcpy(ev.answer, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x09", 16);
	j = json_of(&ev);
	assert_non_null(strstr(j, "\"answer\":\"2001:db8::9\""));
	free(j);
	ev = answer_event(99);
	text_of(&ev, buf, sizeof(buf));
	assert_non_null(strstr(buf, " dns-answer TYPE99 "));
}

static void test_other_fields(void **state)
{
	struct bloomxdp_event ev = answer_event(BLOOMXDP_DNS_TYPE_A);
	char buf[512], *j;

	(void)state;
	/* Not a response: no record, no answer. */
	ev.field = BLOOMXDP_FIELD_SRC;
	ev.key_kind = BLOOMXDP_EVKEY_LEARNED;
	ev.name_len = 0;
	text_of(&ev, buf, sizeof(buf));
	assert_non_null(strstr(buf, " src learned list default"));
	j = json_of(&ev);
	assert_non_null(strstr(j, "\"key\":\"learned\""));
	assert_null(strstr(j, "\"record\""));
	free(j);
	ev.field = BLOOMXDP_FIELD_DNS;
	ev.key_kind = BLOOMXDP_EVKEY_CANARY;
	ev.verdict = BLOOMXDP_EVVERDICT_NXDOMAIN;
	text_of(&ev, buf, sizeof(buf));
	assert_non_null(strstr(buf, " nxdomain 192.0.2.53 -> 192.0.2.1 dns canary "));
}

static void entry_of(const struct bloomxdp_event *ev, const char *want)
{
	struct events_clock c = { .lists_fd = -1 };
	char entry[TOP_ENTRY_MAX], list[64];

	event_entry(&c, ev, entry, sizeof(entry), list, sizeof(list));
	assert_string_equal(entry, want);
	assert_string_equal(list, "default");
}

static void test_entry(void **state)
{
	struct bloomxdp_event ev = answer_event(BLOOMXDP_DNS_TYPE_A);

	(void)state;
	entry_of(&ev, "address 198.51.100.7");		/* an A record's address */
	ev.key_kind = BLOOMXDP_EVKEY_NAME;
	ev.rr_type = BLOOMXDP_DNS_TYPE_CNAME;
	ev.key_len = 1;
	entry_of(&ev, "name example");
	ev.key_len = 2;
	entry_of(&ev, "name tracker.example");
	ev.key_len = 3;				/* more labels than the name has: as it came */
	entry_of(&ev, "name tracker.example...");
	ev.field = BLOOMXDP_FIELD_SRC;
	ev.key_kind = BLOOMXDP_EVKEY_PREFIX;
	ev.key_len = 20;
	ev.src[2] = 0xff;			/* 192.0.255.53/20: 192.0.240.0/20 */
	entry_of(&ev, "prefix 192.0.240.0/20");
	ev.key_len = 32;
	entry_of(&ev, "prefix 192.0.255.53/32");
	ev.field = BLOOMXDP_FIELD_DST;
	ev.key_kind = BLOOMXDP_EVKEY_LEARNED;
	entry_of(&ev, "learned 192.0.2.1");
	ev.family = 6;
	ev.key_kind = BLOOMXDP_EVKEY_PREFIX;
	ev.key_len = 33;
	memset(ev.dst, 0xff, sizeof(ev.dst));
	entry_of(&ev, "prefix ffff:ffff:8000::/33");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dns_answer),
		cmocka_unit_test(test_other_fields),
		cmocka_unit_test(test_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
