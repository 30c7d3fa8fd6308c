// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The JSON writer: commas in place, every string escaped, no NaN or infinity. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/json.h"

struct doc {
	char *text;
	size_t len;
	FILE *f;
	struct json j;
};

static struct json *doc_start(struct doc *d)
{
	d->f = open_memstream(&d->text, &d->len);
	assert_non_null(d->f);
	json_start(&d->j, d->f);
	return &d->j;
}

/* The document as written, its final newline checked and cut. */
static const char *doc_text(struct doc *d)
{
	json_end(&d->j);
	fclose(d->f);
	assert_true(d->len > 0 && d->text[d->len - 1] == '\n');
	d->text[d->len - 1] = '\0';
	return d->text;
}

static void test_nesting_and_commas(void **state)
{
	struct doc d;
	struct json *j = doc_start(&d);

	(void)state;
	json_object_start(j);
	json_kv_u64(j, "a", 1);
	json_key(j, "list");
	json_array_start(j);
	json_u64(j, 2);
	json_object_start(j);
	json_kv_bool(j, "t", true);
	json_object_end(j);
	json_array_start(j);
	json_array_end(j);
	json_array_end(j);
	json_key(j, "empty");
	json_object_start(j);
	json_object_end(j);
	json_kv_string(j, "s", "x");
	json_object_end(j);
	assert_string_equal(doc_text(&d), "{\"a\":1,\"list\":[2,{\"t\":true},[]],\"empty\":{},"
					  "\"s\":\"x\"}");
	free(d.text);
}

static void test_strings_are_escaped(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "a\"b\\c", 5, "\"a\\\"b\\\\c\"" },		/* an interface name Linux allows */
		{ "l1\nl2\tx", 7, "\"l1\\nl2\\tx\"" },
		{ "\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"" },
		{ "b\xc3\xbc" "cher", 7, "\"b\xc3\xbc" "cher\"" },	/* valid UTF-8 as it is */
		{ "\xff\xfe", 2, "\"\\u00ff\\u00fe\"" },		/* bytes that are not UTF-8 */
		{ "\xc3", 1, "\"\\u00c3\"" },				/* truncated sequence */
		{ "\xc0\xaf", 2, "\"\\u00c0\\u00af\"" },		/* overlong '/' */
		{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"" },	/* a surrogate */
		{ "a\0b", 3, "\"a\\u0000b\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct doc d;
		struct json *j = doc_start(&d);

		json_string_len(j, cases[i].in, cases[i].len);
		if (strcmp(doc_text(&d), cases[i].out))
			fail_msg("case %zu: got %s, want %s", i, d.text, cases[i].out);
		free(d.text);
	}
}

static void test_non_finite_numbers_are_null(void **state)
{
	struct doc d;
	struct json *j = doc_start(&d);

	(void)state;
	json_array_start(j);
	json_double(j, "%.6g", NAN);
	json_double(j, "%.0f", INFINITY);
	json_double(j, "%.0f", -INFINITY);
	json_double(j, "%.6g", 0.25);
	json_null(j);
	json_array_end(j);
	assert_string_equal(doc_text(&d), "[null,null,null,0.25,null]");
	free(d.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_commas),
		cmocka_unit_test(test_strings_are_escaped),
		cmocka_unit_test(test_non_finite_numbers_are_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
