// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Prometheus text of stats --prometheus and the daemon: every counter
 * once as bloomxdp_<name>_total with # HELP and # TYPE, a sample per
 * interface, label values escaped, unknown gauges absent rather than NaN.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "service/metrics.h"
#include "util/version.h"

static char *render(const struct iface_metrics *m, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(metrics_write(f, m, n), 0);
	fclose(f);
	return text;
}

static int count_lines_starting(const char *text, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *line;
	int n = 0;

	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		n += !strncmp(line, prefix, len);
	return n;
}

static void test_every_counter_once_per_family(void **state)
{
	struct iface_metrics m[2] = { { .ifname = "eth0" }, { .ifname = "eth1" } };
	char want[256], *text;
	size_t i;

	(void)state;
	/* eth0 checks ingress, eth1 both directions (attach --direction both). */
	m[0].counters.present = 1U << BLOOMXDP_DIR_INGRESS;
	m[1].counters.present = 1U << BLOOMXDP_DIR_INGRESS | 1U << BLOOMXDP_DIR_EGRESS;
	for (i = 0; i < BLOOMXDP_NCOUNTERS; i++) {
		m[0].counters.dir[BLOOMXDP_DIR_INGRESS][i] = i + 1;
		m[1].counters.dir[BLOOMXDP_DIR_INGRESS][i] = 1000 + i;
		m[1].counters.dir[BLOOMXDP_DIR_EGRESS][i] = 2000 + i;
	}
	m[0].gauges.fill = m[1].gauges.fill = 0.25;
	text = render(m, 2);
	for (i = 0; i < BLOOMXDP_NCOUNTERS; i++) {
		snprintf(want, sizeof(want), "# HELP bloomxdp_%s_total %s\n", counter_names[i],
			 counter_help[i]);
		assert_int_equal(count_lines_starting(text, want), 1);
		snprintf(want, sizeof(want), "# TYPE bloomxdp_%s_total counter\n",
			 counter_names[i]);
		assert_int_equal(count_lines_starting(text, want), 1);
		snprintf(want, sizeof(want),
			 "bloomxdp_%s_total{ifname=\"eth0\",direction=\"ingress\"} %zu\n",
			 counter_names[i], i + 1);
		assert_int_equal(count_lines_starting(text, want), 1);
		snprintf(want, sizeof(want),
			 "bloomxdp_%s_total{ifname=\"eth1\",direction=\"ingress\"} %zu\n",
			 counter_names[i], 1000 + i);
		assert_int_equal(count_lines_starting(text, want), 1);
		snprintf(want, sizeof(want),
			 "bloomxdp_%s_total{ifname=\"eth1\",direction=\"egress\"} %zu\n",
			 counter_names[i], 2000 + i);
		assert_int_equal(count_lines_starting(text, want), 1);
		/* No egress sample where no egress program runs. */
		snprintf(want, sizeof(want),
			 "bloomxdp_%s_total{ifname=\"eth0\",direction=\"egress\"}", counter_names[i]);
		assert_int_equal(count_lines_starting(text, want), 0);
	}
	assert_int_equal(count_lines_starting(text, "# TYPE bloomxdp_filter_fill_ratio gauge\n"),
			 1);
	assert_int_equal(count_lines_starting(text, "bloomxdp_filter_fill_ratio{"), 2);
	/* Every sample follows its family's TYPE: families are not interleaved. */
	assert_int_equal(count_lines_starting(text, "# TYPE "),
			 count_lines_starting(text, "# HELP "));
	free(text);
}

static void test_label_values_are_escaped(void **state)
{
	struct iface_metrics m = { .ifname = "bx\"a\\b\nc", .counters.present = 1 };
	char *text;

	(void)state;
	text = render(&m, 1);
	assert_non_null(strstr(text, "bloomxdp_dropped_total{ifname=\"bx\\\"a\\\\b\\nc\","
				     "direction=\"ingress\"} 0\n"));
	assert_null(strstr(text, "bx\"a"));
	free(text);
}

static void test_unknown_gauges_are_absent(void **state)
{
	struct iface_metrics m = { .ifname = "eth0" };
	char *text;

	(void)state;
	m.gauges.fill = NAN;
	m.gauges.fpr = 0.01;
	m.gauges.st.generation = 7;
	m.gauges.bytes = 1344;
	text = render(&m, 1);
	assert_null(strstr(text, "NaN"));
	assert_int_equal(count_lines_starting(text, "bloomxdp_filter_fill_ratio{"), 0);
	assert_non_null(strstr(text, "\nbloomxdp_filter_estimated_fpr{ifname=\"eth0\"} 0.01"));
	assert_non_null(strstr(text, "\nbloomxdp_filter_generation{ifname=\"eth0\"} 7\n"));
	assert_non_null(strstr(text, "\nbloomxdp_filter_bytes{ifname=\"eth0\"} 1344\n"));
	assert_non_null(strstr(text, "\nbloomxdp_filter_entries{ifname=\"eth0\"} 0\n"));
	free(text);
}

/* bloomxdp_build_info{version="..."} 1: once, whatever the interfaces, the version of version.h. */
static void test_build_info(void **state)
{
	struct iface_metrics m[2] = { { .ifname = "eth0" }, { .ifname = "eth1" } };
	char want[128], *text;

	(void)state;
	assert_true(strlen(bloomxdp_version()) > 0);
	text = render(m, 2);
	snprintf(want, sizeof(want), "bloomxdp_build_info{version=\"%s\"} 1\n", bloomxdp_version());
	assert_int_equal(count_lines_starting(text, want), 1);
	assert_int_equal(count_lines_starting(text, "bloomxdp_build_info"), 1);
	assert_int_equal(count_lines_starting(text, "# TYPE bloomxdp_build_info gauge\n"), 1);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_counter_once_per_family),
		cmocka_unit_test(test_label_values_are_escaped),
		cmocka_unit_test(test_unknown_gauges_are_absent),
		cmocka_unit_test(test_build_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
