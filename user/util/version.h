/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_VERSION_H
#define BLOOMXDP_VERSION_H

/*
 * The version of bloomxdp: the file VERSION at the top of the tree, its one
 * source (the build passes it as BLOOMXDP_VERSION to user/util/version.c only;
 * --version, --help, bloomxdp(8) and bloomxdp_build_info read it here).
 */
const char *bloomxdp_version(void);

#endif
