/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * bpf_loop() with its result deliberately ignored. It fails (-E2BIG,
 * -EINVAL) only for more than 1 << 23 iterations or non-zero flags: no
 * call here asks for either (the most is the TLS walk's 4,097 steps). Were
 * one to fail, no step would run, and every walk's context would say "not
 * found" or "cut short": the packet passes, as anything that cannot be
 * parsed does. What a walk found is in its context, never in this count of
 * steps.
 */
#ifndef BLOOMXDP_LOOP_H
#define BLOOMXDP_LOOP_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define bpf_loop_bounded(nr_loops, callback, ctx) \
	((void)bpf_loop((nr_loops), (callback), (ctx), 0))

#endif /* BLOOMXDP_LOOP_H */
