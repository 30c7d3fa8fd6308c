/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_SUFFIXES_H
#define BLOOMXDP_SUFFIXES_H

#include <stdbool.h>

/*
 * Whether a normalised name is a public suffix: a name under which others
 * register theirs (edu.pl, co.uk, and the private section's github.io,
 * blogspot.com), so that blocking it blocks every one of them. Explicit rules
 * of the Public Suffix List only: an unknown single label ("wpad") is not one.
 * The list is libpsl's psl_latest(): the newer of the data built into libpsl
 * and Debian's publicsuffix package (/usr/share/publicsuffix), which is
 * updated without rebuilding libpsl.
 */
bool public_suffix_is(const char *name);

/* False when no list could be loaded (then nothing is a public suffix). */
bool public_suffix_available(void);

#endif
