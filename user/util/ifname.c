// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Interface names as the kernel takes them: they become directory names of pins. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/ifname.h"
#include "util/log.h"

/* The kernel's isspace() (lib/ctype.c), which also counts 0xa0, unlike the C locale's. */
static bool kernel_isspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

const char *ifname_invalid(const char *name)
{
	const unsigned char *p;

	if (!name[0])
		return "it is empty";
	if (strnlen(name, IF_NAMESIZE) == IF_NAMESIZE)
		return "it is longer than 15 bytes";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "it is '.' or '..'";
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p == '/')
			return "it contains '/'";
		if (*p == ':')
			return "it contains ':'";
		if (kernel_isspace(*p))
			return "it contains white space";
	}
	return NULL;
}

int ifname_check(const char *name)
{
	const char *why = ifname_invalid(name);
	char shown[64];

	if (!why)
		return 0;
	log_error("'%s' is not an interface name: %s (names have 1 to %d bytes, without '/', "
		  "':' or white space, and are not '.' or '..'; see 'ip link')",
		  text_escape(name, shown, sizeof(shown)), why, IF_NAMESIZE - 1);
	return -EINVAL;
}

const char *text_escape(const char *text, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t used = 0, keep = 0;
	char piece[5];
	int n;

	for (; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			n = snprintf(piece, sizeof(piece), "%c", *p);
		else
			n = snprintf(piece, sizeof(piece), "\\x%02x", *p);
		if (used + n >= len) {
			/* Cut at the last whole piece that leaves room for "...". */
			strcpy(out + keep, "...");
			return out;
		}
		memcpy(out + used, piece, n);
		used += n;
		if (used + 3 < len)
			keep = used;
	}
	out[used] = '\0';
	return out;
}
