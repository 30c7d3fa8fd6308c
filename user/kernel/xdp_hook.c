// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What holds an interface's XDP hook, removed and recorded by attach --force (xdp_hook.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/state_dir.h"
#include "kernel/xdp_hook.h"
#include "util/log.h"

static const char *const mode_names[XDP_HELD_MODES] = {
	[XDP_HELD_NATIVE] = "native", [XDP_HELD_GENERIC] = "generic",
	[XDP_HELD_OFFLOAD] = "offload",
};

/* The flags that remove a program of each mode (bpf_xdp_detach). */
static const __u32 mode_flags[XDP_HELD_MODES] = {
	[XDP_HELD_NATIVE] = XDP_FLAGS_DRV_MODE, [XDP_HELD_GENERIC] = XDP_FLAGS_SKB_MODE,
	[XDP_HELD_OFFLOAD] = XDP_FLAGS_HW_MODE,
};

const char *xdp_held_mode_name(__u32 mode)
{
	return mode < XDP_HELD_MODES ? mode_names[mode] : "unknown";
}

/* Its name and tag, as the kernel says them (left empty when it will not). */
static void held_describe(struct xdp_held *p)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd, i;

	fd = bpf_prog_get_fd_by_id(p->id);
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
		snprintf(p->name, sizeof(p->name), "%.*s", (int)sizeof(info.name) - 1, info.name);
		for (i = 0; i < BPF_TAG_SIZE; i++)
			snprintf(p->tag + 2 * i, 3, "%02x", info.tag[i]);
	}
	close(fd);
}

int xdp_hook_read(int ifindex, struct xdp_hook *h)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	__u32 ids[XDP_HELD_MODES];
	__u32 m;

	memset(h, 0, sizeof(*h));
	if (bpf_xdp_query(ifindex, 0, &q))
		return -errno;
	ids[XDP_HELD_NATIVE] = q.drv_prog_id;
	ids[XDP_HELD_GENERIC] = q.skb_prog_id;
	ids[XDP_HELD_OFFLOAD] = q.hw_prog_id;
	for (m = 0; m < XDP_HELD_MODES; m++) {
		if (!ids[m])
			continue;
		h->prog[h->n] = (struct xdp_held){ .id = ids[m], .mode = m };
		held_describe(&h->prog[h->n++]);
	}
	return 0;
}

bool xdp_hook_dispatcher(const struct xdp_hook *h)
{
	unsigned int i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->prog[i].name, XDP_DISPATCHER_NAME))
			return true;
	return false;
}

int xdp_hook_clear(const char *ifname, int ifindex, const struct xdp_hook *h)
{
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		if (!bpf_xdp_detach(ifindex, mode_flags[h->prog[i].mode], NULL))
			continue;
		log_error("cannot remove XDP program %u from %s (%s): it is held by a bpf link; "
			  "detach it with the tool that attached it", h->prog[i].id, ifname,
			  strerror(errno));
		return -EBUSY;
	}
	return 0;
}

const char *xdp_hook_text(const struct xdp_hook *h, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;
	int w;

	buf[0] = '\0';
	for (i = 0; i < h->n && n < len; i++) {
		const struct xdp_held *p = &h->prog[i];

		w = snprintf(buf + n, len - n, "%s%s (id %u, %s)", i ? ", " : "",
			     p->name[0] ? p->name : "unnamed", p->id, xdp_held_mode_name(p->mode));
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

bool xdp_held_alive(const struct xdp_held *p)
{
	struct xdp_held now = { .id = p->id };

	held_describe(&now);
	return now.tag[0] && !strcmp(now.tag, p->tag);
}

void xdp_held_write(const struct xdp_held *p, char *buf, size_t len)
{
	snprintf(buf, len, XDP_HELD_KEY "=%u,%s,%s,%s", p->id, xdp_held_mode_name(p->mode),
		 p->tag[0] ? p->tag : "-", p->name[0] ? p->name : "-");
}

/* A kernel object name: letters, digits, '_' and '.' (what the kernel itself accepts). */
static bool name_valid(const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i + 1 >= max || !(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

static bool tag_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return i == 2 * BPF_TAG_SIZE;
}

int xdp_held_parse(const char *line, struct xdp_hook *h)
{
	static const char key[] = XDP_HELD_KEY "=";
	char mode[16], tag[2 * BPF_TAG_SIZE + 2], name[BPF_OBJ_NAME_LEN + 1];
	const char *at = line + sizeof(key) - 1;
	unsigned long long id;
	struct xdp_held p = {};
	char *end;
	int n = 0;
	__u32 m;

	if (strncmp(line, key, sizeof(key) - 1))
		return 0;
	if (!isdigit((unsigned char)*at))
		return -EINVAL;
	errno = 0;
	id = strtoull(at, &end, 10);
	if (errno || !id || id > UINT32_MAX || *end != ',')
		return -EINVAL;
	if (sscanf(end + 1, "%15[a-z],%17[0-9a-f-],%16[A-Za-z0-9_.-]%n", mode, tag, name,
		   &n) != 3 || end[1 + n])
		return -EINVAL;
	for (m = 0; m < XDP_HELD_MODES && strcmp(mode, mode_names[m]); m++)
		;
	if (m == XDP_HELD_MODES || (strcmp(tag, "-") && !tag_valid(tag)))
		return -EINVAL;
	if (strcmp(name, "-") && !name_valid(name, sizeof(p.name)))
		return -EINVAL;
	p.id = id;
	p.mode = m;
	if (strcmp(tag, "-"))
		memcpy(p.tag, tag, sizeof(p.tag));
	if (strcmp(name, "-"))
		snprintf(p.name, sizeof(p.name), "%.*s", (int)sizeof(p.name) - 1, name);
	if (h->n < XDP_HELD_MODES)
		h->prog[h->n++] = p;
	return 1;
}

int xdp_hook_from_settings(const char *text, size_t len, struct xdp_hook *h)
{
	char line[128];	/* a line of xdp_held_write(): well under */
	size_t at = 0, n;
	const char *nl;

	memset(h, 0, sizeof(*h));
	while (at < len) {
		nl = memchr(text + at, '\n', len - at);
		n = nl ? (size_t)(nl - (text + at)) : len - at;
		if (n >= sizeof(line) && !strncmp(text + at, XDP_HELD_KEY "=",
						  sizeof(XDP_HELD_KEY)))
			return -EINVAL;
		if (n < sizeof(line)) {
			memcpy(line, text + at, n);
			line[n] = '\0';
			if (xdp_held_parse(line, h) < 0)
				return -EINVAL;
		}
		at += n + 1;
	}
	return 0;
}

int xdp_hook_recorded(const char *ifname, const char *state_dir, struct xdp_hook *h)
{
	struct state_dir sd;
	char *text = NULL;
	size_t len = 0;
	bool legacy;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = state_open(state_root(state_dir), ifname, false, &sd);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	ret = state_read_sealed(&sd, STATE_SETTINGS, "attach it again to record them", &text,
				&len, &legacy);
	if (!ret) {
		ret = xdp_hook_from_settings(text, len, h);
		if (ret)
			log_error("%s: the settings in %s name a replaced XDP program in a form "
				  "this bloomxdp does not read: attach it again", ifname, sd.path);
	}
	if (ret == -ENOENT)
		ret = 0;
	free(text);
	state_close(&sd);
	return ret;
}

const char *xdp_hook_before_text(const char *ifname, const struct xdp_hook *h, char *buf,
				 size_t len)
{
	char progs[XDP_HOOK_TEXT_MAX];
	bool alive = false;
	unsigned int i;

	buf[0] = '\0';
	if (!h->n)
		return buf;
	for (i = 0; i < h->n; i++)
		alive |= xdp_held_alive(&h->prog[i]);
	snprintf(buf, len, "before bloomxdp, %s ran XDP program %s; attach --force replaced it "
		 "and bloomxdp does not put it back: %s", ifname,
		 xdp_hook_text(h, progs, sizeof(progs)),
		 alive ? "it still exists (a pin or a process holds it): attach it again with "
			 "the tool that loaded it" :
			 "it no longer exists; load it again with the tool that loaded it");
	return buf;
}

int xdp_hook_take(const char *ifname, int ifindex, bool force, struct xdp_hook *replaced)
{
	char progs[XDP_HOOK_TEXT_MAX];
	struct xdp_hook h;
	int ret;

	memset(replaced, 0, sizeof(*replaced));
	ret = xdp_hook_read(ifindex, &h);
	if (ret || !h.n)
		return ret;
	xdp_hook_text(&h, progs, sizeof(progs));
	if (!force && xdp_hook_dispatcher(&h)) {
		log_error("%s holds libxdp's dispatcher, %s ('xdp-loader status %s' lists its "
			  "programs): attach with --multiprog auto to join it as a component, "
			  "--force to replace them all, or run bloomxdp on another interface",
			  ifname, progs, ifname);
		return -EBUSY;
	}
	if (!force) {
		log_error("%s already has an XDP program, %s, and no libxdp dispatcher to share "
			  "the hook with (xdp-loader loads without one where the kernel refuses "
			  "it): remove it, or pass --force to replace it", ifname, progs);
		return -EBUSY;
	}
	ret = xdp_hook_clear(ifname, ifindex, &h);
	if (ret)
		return ret;
	fprintf(stderr, "bloomxdp: removed XDP program %s from %s (--force)\n", progs, ifname);
	*replaced = h;
	return 0;
}

int xdp_hook_record(const struct state_dir *sd, const struct xdp_hook *now, bool keep, FILE *out)
{
	struct xdp_hook old = {};
	const struct xdp_hook *h = now;
	char line[128], *text = NULL;
	unsigned int i;
	size_t len = 0;
	bool legacy;
	int ret;

	/* Settings that cannot be read are written anew all the same, without the record. */
	if (!now->n && keep) {
		ret = state_read_sealed(sd, STATE_SETTINGS, "they are written anew now, without what "
					"attach --force replaced", &text, &len, &legacy);
		if (!ret && xdp_hook_from_settings(text, len, &old))
			log_warn("%s/%s: its record of what attach --force replaced is not one this "
				 "bloomxdp reads: dropped", sd->path, STATE_SETTINGS);
		free(text);
		h = &old;
	}
	for (i = 0; i < h->n; i++) {
		xdp_held_write(&h->prog[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	return 0;
}
