// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Durations (duration.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/duration.h"

/* Largest first, as duration_text() writes them. */
static const struct {
	char name;
	unsigned int seconds;
} units[] = {
	{ 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 },
};

/* The seconds of the unit that text ends with ("": 1); 0 when it is not one unit. */
static unsigned int unit_seconds(const char *end)
{
	size_t i;

	if (!*end)
		return 1;
	if (end[1])
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].name)
			return units[i].seconds;
	return 0;
}

int duration_parse(const char *text, __u64 *seconds)
{
	unsigned long long v;
	unsigned int unit;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	unit = unit_seconds(end);
	if (errno || !unit || v > DURATION_MAX_S / unit)
		return -EINVAL;
	*seconds = v * unit;
	return 0;
}

int duration_parse_real(const char *text, double *seconds)
{
	unsigned int unit;
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno)
		return -EINVAL;
	unit = unit_seconds(end);
	/* "inf" or "nan" would make a timeout or an interval a no-op. */
	if (!unit || !isfinite(v * unit) || v < 0)
		return -EINVAL;
	*seconds = v * unit;
	return 0;
}

const char *duration_text(__u64 seconds, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++)
		if (seconds && !(seconds % units[i].seconds))
			break;
	snprintf(buf, len, "%llu%c", (unsigned long long)(seconds / units[i].seconds),
		 units[i].name);
	return buf;
}
