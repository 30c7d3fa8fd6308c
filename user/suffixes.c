// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>
#include <libpsl.h>

#include "suffixes.h"

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

bool public_suffix_is(const char *name)
{
	const psl_ctx_t *ctx = suffix_list();

	/* Both sections count: blocking github.io blocks every GitHub page. */
	return ctx && psl_is_public_suffix2(ctx, name, PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE);
}
