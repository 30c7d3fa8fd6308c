// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>
#include <stdbool.h>
#include <libpsl.h>

#include "parse/public_suffix.h"

static const psl_ctx_t *suffix_list(void)
{
	static const psl_ctx_t *ctx;
	static bool tried;

	if (!tried) {
		tried = true;
		/* Kept for the life of the process: a command is short. */
		ctx = psl_latest(NULL);
		if (!ctx)
			ctx = psl_builtin();
	}
	return ctx;
}

bool public_suffix_available(void)
{
	return suffix_list() != NULL;
}

/* The list's rules match names of at most 5 labels today; one more for lists to come. */
#define SUFFIX_MAX_LABELS 6

bool public_suffix_is(const char *name)
{
	const psl_ctx_t *ctx = suffix_list();
	int labels = 1;
	const char *c;

	/* A lookup costs ~270 ns: deeper names, most of a feed, are none. */
	for (c = name; *c; c++)
		if (*c == '.' && ++labels > SUFFIX_MAX_LABELS)
			return false;
	/* Both sections count: blocking github.io blocks every GitHub page. */
	return ctx && psl_is_public_suffix2(ctx, name, PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE);
}
