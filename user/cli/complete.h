/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_COMPLETE_H
#define BLOOMXDP_COMPLETE_H

#include <stdio.h>

struct command;

/*
 * Hidden 'bloomxdp __complete CWORD WORD...' (COMP_CWORD and COMP_WORDS, as bash
 * gives them to the completion script): the candidates for word CWORD, one a
 * line, from the commands' tables, /sys/class/net for an interface; the line
 * "@files" asks the script for file names. Returns 0 (an exit status).
 */
int complete_main(const struct command *const *all, int argc, char **argv, FILE *out);

#endif
