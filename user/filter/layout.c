// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "filter/layout.h"
#include "util/log.h"
#include "util/options.h"
#include "filter/bloom_plan.h"

static const struct layout_ops *const layouts[LAYOUT_COUNT] = {
	[BLOOMXDP_LAYOUT_BITS] = &layout_bits,
	[BLOOMXDP_LAYOUT_BLOCKED] = &layout_blocked,
	[BLOOMXDP_LAYOUT_KERNEL] = &layout_kernel,
};

const struct layout_ops *layout_get(__u32 layout)
{
	return layout < LAYOUT_COUNT ? layouts[layout] : NULL;
}

__u32 layout_config_bits(const struct bloom_plan *plan)
{
	const struct layout_ops *ops = layout_get(plan->layout);

	return ops && ops->readable ? (__u32)plan->bits : 0;
}

const char *layout_name(__u32 layout)
{
	const struct layout_ops *ops = layout_get(layout);

	return ops ? ops->name : "?";
}

const struct enum_value *layout_values(void)
{
	static struct enum_value values[LAYOUT_COUNT + 1];
	__u32 i;

	for (i = 0; i < LAYOUT_COUNT && !values[i].name; i++) {
		values[i].name = layouts[i]->name;
		values[i].value = i;
		values[i].help = layouts[i]->help;
	}
	return values;
}

const char *layout_choices(void)
{
	static char text[128];
	size_t used = 0;
	__u32 i;

	if (text[0])
		return text;
	for (i = 0; i < LAYOUT_COUNT && used < sizeof(text); i++)
		used += snprintf(text + used, sizeof(text) - used, "%s%s",
				 !i ? "" : i + 1 < LAYOUT_COUNT ? ", " : " or ", layouts[i]->name);
	return text;
}

int layout_parse(const char *name, __u32 *layout)
{
	__u32 i;

	for (i = 0; i < LAYOUT_COUNT; i++) {
		if (!strcmp(name, layouts[i]->name)) {
			*layout = i;
			return 0;
		}
	}
	log_error("--layout %s: expected %s", name, layout_choices());
	return -EINVAL;
}
