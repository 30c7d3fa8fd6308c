/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef BLOOMXDP_IFNAME_H
#define BLOOMXDP_IFNAME_H

#include <stddef.h>
#include <net/if.h>

/*
 * Why the kernel would refuse name for a network interface (its
 * dev_valid_name()), or NULL if it would accept it: 1 to IF_NAMESIZE - 1
 * bytes, no '/', ':' or white space, not "." or "..". A name it accepts is
 * one path component, safe to append to a directory.
 */
const char *ifname_invalid(const char *name);

/* ifname_invalid() with the error printed: 0 or -EINVAL. */
int ifname_check(const char *name);

/*
 * text for a message, on one line whatever it holds: bytes outside printable
 * ASCII, and '\', as \xNN; cut with "..." to fit len (at least 4). Returns out.
 */
const char *text_escape(const char *text, char *out, size_t len);

#endif
