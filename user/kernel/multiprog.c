// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bloomxdp's XDP program as a component of libxdp's dispatcher (multiprog.h). */
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "kernel/attach.h"
#include "kernel/multiprog.h"
#include "util/log.h"

/* libxdp's last warning or notice: the reason of a failure, for the one line that says it. */
static char last_said[MULTIPROG_WHY_MAX];

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	static const char prefix[] = "libxdp: ";
	char line[MULTIPROG_WHY_MAX], *at = line;
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(at, prefix, sizeof(prefix) - 1))
		at += sizeof(prefix) - 1;
	n = strlen(at);
	if (log_verbose)
		fprintf(stderr, "libxdp: %s\n", at);
	/* "Falling back to ..." is what libxdp does next, not why. */
	if (level != LIBXDP_DEBUG && n && !strstr(at, "Falling back"))
		memmove(last_said, at, n + 1);
	return 0;
}

/* The last line of the verifier's log of a refused load: the kernel's reason (libbpf says it). */
static char load_said[MULTIPROG_WHY_MAX];
static libbpf_print_fn_t libbpf_print_before;

/* The verifier's figures at the end of its log, which are not its reason. */
static bool verifier_stats(const char *line)
{
	return !strncmp(line, "processed ", 10) || !strncmp(line, "verification time", 17) ||
	       !strncmp(line, "stack depth", 11) || strstr(line, "END PROG LOAD LOG");
}

static int libbpf_capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char log_end[] = "-- END PROG LOAD LOG --";
	char *text, *end, *line;
	va_list copy;

	va_copy(copy, ap);
	if (libbpf_print_before)
		libbpf_print_before(level, fmt, copy);
	va_end(copy);
	if (level != LIBBPF_WARN || vasprintf(&text, fmt, ap) < 0)
		return 0;
	end = strstr(text, log_end);
	while (end && end > text) {
		*end = '\0';
		line = strrchr(text, '\n');
		line = line ? line + 1 : text;
		if (line[0] && !verifier_stats(line)) {
			snprintf(load_said, sizeof(load_said), "%s", line);
			break;
		}
		end = line > text ? line - 1 : NULL;
	}
	free(text);
	return 0;
}

static void quiet(void)
{
	last_said[0] = '\0';
	libxdp_set_print(libxdp_print);
}

static const char *mode_name(enum xdp_attach_mode m)
{
	return m == XDP_MODE_NATIVE ? "native" : m == XDP_MODE_SKB ? "generic" :
	       m == XDP_MODE_HW ? "offload" : "unknown";
}

/* ifindex's dispatcher, or NULL (none, or a program without one). */
static struct xdp_multiprog *dispatcher_of(int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);

	if (libxdp_get_error(mp) || !mp)
		return NULL;
	if (xdp_multiprog__is_legacy(mp) || !xdp_multiprog__main_prog(mp)) {
		xdp_multiprog__close(mp);
		return NULL;
	}
	return mp;
}

static enum xdp_attach_mode join_mode(int ifindex, __u32 mode)
{
	struct xdp_multiprog *mp;
	enum xdp_attach_mode m;

	if (mode == ATTACH_MODE_NATIVE)
		return XDP_MODE_NATIVE;
	if (mode == ATTACH_MODE_GENERIC)
		return XDP_MODE_SKB;
	mp = dispatcher_of(ifindex);
	m = mp ? xdp_multiprog__attach_mode(mp) : XDP_MODE_UNSPEC;
	xdp_multiprog__close(mp);
	return m;
}

int multiprog_join(int ifindex, struct bpf_object *obj, __u32 mode, char *why, size_t len)
{
	struct xdp_program *prog;
	struct xdp_multiprog *mp;
	enum xdp_attach_mode m;
	int ret;

	quiet();
	prog = xdp_program__from_bpf_obj(obj, NULL);
	ret = (int)libxdp_get_error(prog);
	if (ret) {
		snprintf(why, len, "libxdp cannot read the program: %s", strerror(-ret));
		return ret;
	}
	m = join_mode(ifindex, mode);
	load_said[0] = '\0';
	libbpf_print_before = libbpf_set_print(libbpf_capture);
	ret = xdp_program__attach(prog, ifindex, m, 0);
	libbpf_set_print(libbpf_print_before);
	if (!ret) {
		/* Where the dispatcher cannot load, libxdp attaches the program alone. */
		mp = xdp_multiprog__get_from_ifindex(ifindex);
		if (!libxdp_get_error(mp) && mp && xdp_multiprog__is_legacy(mp)) {
			(void)xdp_program__detach(prog, ifindex, xdp_multiprog__attach_mode(mp), 0);
			ret = -EOPNOTSUPP;
		}
		if (!libxdp_get_error(mp))
			xdp_multiprog__close(mp);
	}
	if (ret && load_said[0])
		snprintf(why, len, "the kernel refused the program there (%s)", load_said);
	else if (ret)
		snprintf(why, len, "%s", last_said[0] ? last_said : strerror(-ret));
	xdp_program__close(prog);
	return ret;
}

/* The component prog_id of mp (NULL: none), its view in *v. */
static struct xdp_program *component(struct xdp_multiprog *mp, __u32 prog_id,
				     struct multiprog_view *v)
{
	struct xdp_program *p;
	__u32 a;

	for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp)) {
		if (xdp_program__id(p) != prog_id)
			continue;
		v->priority = xdp_program__run_prio(p);
		v->chain = 0;
		for (a = XDP_ABORTED; a <= XDP_REDIRECT; a++)
			if (xdp_program__chain_call_enabled(p, a))
				v->chain |= 1U << a;
		v->mode = mode_name(xdp_multiprog__attach_mode(mp));
		return p;
	}
	return NULL;
}

int multiprog_find(int ifindex, __u32 prog_id, struct multiprog_view *v)
{
	struct xdp_multiprog *mp;
	int ret;

	quiet();
	mp = dispatcher_of(ifindex);
	if (!mp)
		return -ENOENT;
	ret = component(mp, prog_id, v) ? 0 : -ENOENT;
	xdp_multiprog__close(mp);
	return ret;
}

int multiprog_leave(int ifindex, __u32 prog_id)
{
	struct multiprog_view v;
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int ret = -ENOENT;

	quiet();
	mp = dispatcher_of(ifindex);
	if (!mp)
		return ret;
	p = component(mp, prog_id, &v);
	if (p)
		ret = xdp_program__detach(p, ifindex, xdp_multiprog__attach_mode(mp), 0);
	if (ret && ret != -ENOENT)
		log_warn("libxdp cannot take bloomxdp's program (id %u) out of the dispatcher: %s; "
			 "'xdp-loader unload -i %u IF' does", prog_id,
			 last_said[0] ? last_said : strerror(-ret), prog_id);
	xdp_multiprog__close(mp);
	return ret;
}
