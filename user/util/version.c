// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "util/version.h"

#ifndef BLOOMXDP_VERSION
#error "BLOOMXDP_VERSION: the Makefile passes it from the file VERSION"
#endif

const char *bloomxdp_version(void)
{
	return BLOOMXDP_VERSION;
}
