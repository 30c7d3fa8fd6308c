/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_MANPAGE_H
#define BLOOMXDP_MANPAGE_H

#include <stdio.h>

struct command;

/*
 * bloomxdp(8) (hidden 'bloomxdp --man < dist/bloomxdp.8.in'): the template
 * copied to out, its lines @SYNOPSIS@ and @COMMANDS@ made from the commands'
 * tables, all: NULL-terminated. Returns 0 or -EIO (printed).
 */
int manpage_write(const struct command *const *all, FILE *template, FILE *out);

#endif
