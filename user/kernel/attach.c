// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* attach and detach: the lifetime of an attachment and of its pins (attach.h). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stddef.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/attach.h"
#include "kernel/attachment.h"
#include "filter/exact.h"
#include "filter/filter.h"
#include "kernel/features.h"
#include "kernel/guard.h"
#include "filter/layout.h"
#include "kernel/loader.h"
#include "kernel/multiprog.h"
#include "util/log.h"
#include "kernel/netdev.h"
#include "filter/bloom_plan.h"
#include "kernel/state_dir.h"
#include "kernel/tc.h"
#include "kernel/xdp_hook.h"
#include "util/ifname.h"

/*
 * The settings into the state, to attach the same way again (restore); a
 * fresh attachment also starts its lists empty there. A failure is only
 * warned about: the attachment itself is made.
 */
static void record_attach(const char *ifname, const struct attach_opts *o, bool fresh,
			  const struct xdp_hook *replaced, const char *group, bool component)
{
	static const char *const skip[] = { "force", "state-dir", NULL };
	struct state_dir sd;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int ret;

	ret = state_open(state_root(o->state_dir), ifname, true, &sd);
	if (ret)
		goto out;
	out = open_memstream(&text, &len);
	ret = -ENOMEM;
	if (!out)
		goto out;
	fputs(STATE_MAGIC "\n", out);
	options_write(attach_options, o, skip, out);
	ret = xdp_hook_record(&sd, replaced, !fresh, out);
	if (group && group[0])
		fprintf(out, "%s\n", group);
	if (component)
		fputs(MULTIPROG_KEY "=" MULTIPROG_COMPONENT "\n", out);
	if (fclose(out) || ret)
		goto out;
	ret = state_write_sealed(&sd, STATE_SETTINGS, text, len);
	if (!ret && fresh)
		ret = state_lists_reset(&sd);
out:
	if (ret)
		log_warn("%s is attached, but its settings are not in the state (%s): 'bloomxdp "
			 "restore' cannot bring it back", ifname, strerror(-ret));
	free(text);
	state_close(&sd);
}

/* Why native XDP was refused, and what would let it attach (empty: nothing but generic). */
struct native_refusal {
	char why[192];
	char fix[128];
};

/*
 * The reason of the errno the kernel gave a native attach (veth's and most
 * drivers'): EOPNOTSUPP, no native XDP at all; ERANGE, an MTU above what the
 * driver's native XDP takes, even with frags (veth checks its peer's MTU);
 * ENOSPC from veth, fewer rx queues than the peer has tx queues.
 */
static void native_refusal(const char *ifname, int err, struct native_refusal *r)
{
	unsigned int mtu = 0, rxq = 0;
	char driver[32] = "";
	bool veth;

	r->fix[0] = '\0';
	(void)netdev_driver(ifname, driver, sizeof(driver));
	veth = !strcmp(driver, "veth");
	if (err == EOPNOTSUPP) {
		snprintf(r->why, sizeof(r->why), "the driver of %s has no native XDP", ifname);
	} else if (err == ERANGE && veth) {
		(void)netdev_mtu(ifname, &mtu);
		snprintf(r->why, sizeof(r->why), "the MTU of %s's veth peer is above what veth's "
			 "native XDP takes, even for a multi-buffer program (%s's MTU is %u)",
			 ifname, ifname, mtu);
		snprintf(r->fix, sizeof(r->fix), "lower the peer's MTU");
	} else if (err == ERANGE) {
		(void)netdev_mtu(ifname, &mtu);
		snprintf(r->why, sizeof(r->why), "the MTU of %s (%u) is above what its driver's "
			 "(%s) native XDP takes, even for a multi-buffer program", ifname, mtu,
			 driver[0] ? driver : "unknown");
		snprintf(r->fix, sizeof(r->fix), "lower it (ip link set dev %s mtu N)", ifname);
	} else if (err == ENOSPC && veth) {
		(void)netdev_rx_queues(ifname, &rxq);
		snprintf(r->why, sizeof(r->why), "%s has %u rx queue%s, fewer than its veth peer "
			 "has tx queues", ifname, rxq, rxq == 1 ? "" : "s");
		snprintf(r->fix, sizeof(r->fix), "give %s as many rx queues (ip link add ... "
			 "numrxqueues N)", ifname);
	} else {
		snprintf(r->why, sizeof(r->why), "native XDP refused on %s: %s", ifname,
			 strerror(err));
	}
}

static int attach_link(const char *ifname, int prog_fd, int ifindex, enum attach_mode mode)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	struct native_refusal r;
	int fd, err;

	opts.flags = mode == ATTACH_MODE_GENERIC ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);
	if (fd >= 0)
		return fd;
	err = errno;
	if (mode == ATTACH_MODE_GENERIC) {
		log_error("cannot attach XDP to %s in generic mode: %s", ifname, strerror(err));
		return -err;
	}
	native_refusal(ifname, err, &r);
	if (mode == ATTACH_MODE_NATIVE) {
		log_error("cannot attach XDP to %s in native mode: %s; %s%stry --mode generic",
			  ifname, r.why, r.fix, r.fix[0] ? ", or " : "");
		return -err;
	}
	opts.flags = XDP_FLAGS_SKB_MODE;
	fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);
	if (fd < 0) {
		err = errno;
		log_error("cannot attach XDP to %s: %s, and in generic mode: %s", ifname, r.why,
			  strerror(err));
		return -err;
	}
	fprintf(stderr, "bloomxdp: notice: %s: attached in generic mode, which is slower; %s%s%s"
		"--mode native refuses instead\n", r.why, r.fix[0] ? "for native, " : "", r.fix,
		r.fix[0] ? "; " : "");
	return fd;
}

static const char *const feature_states[] = {
	[KF_UNPROBED] = "not probed", [KF_PRESENT] = "present", [KF_ABSENT] = "absent",
	[KF_UNKNOWN] = "unknown",
};

/*
 * Refuses, in one line, a kernel that lacks a feature this attachment needs
 * (kernel/features.h): before anything is loaded. With -v, what each probe
 * found. A probe that cannot tell refuses nothing: the load says what fails.
 */
static int check_kernel(const struct attach_opts *o)
{
	struct kernel_view kv;
	__u64 needed, absent;
	char line[1024];
	bool frags;
	size_t i;
	int ret;

	ret = loader_program_frags(&frags);
	if (ret) {
		log_error("cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	needed = kernel_features_needed(o->layout, frags);
	ret = kernel_features_probe(needed, &kv);
	if (ret)
		return ret;
	for (i = 0; i < kernel_features_count; i++)
		if (needed & (1ULL << i))
			log_debug("kernel %s: %s (Linux %u.%u) %s%s%s", kv.release,
				  kernel_features[i].name, kernel_features[i].major,
				  kernel_features[i].minor, feature_states[kv.state[i]],
				  kv.err[i] ? ": " : "", kv.err[i] ? strerror(-kv.err[i]) : "");
	absent = kernel_features_absent(&kv, needed);
	if (absent) {
		kernel_features_refusal(&kv, absent, line, sizeof(line));
		log_error("%s", line);
		return -EOPNOTSUPP;
	}
	if (kernel_older_than(&kv, KERNEL_OLDEST_MAJOR, KERNEL_OLDEST_MINOR))
		fprintf(stderr, "bloomxdp: notice: this kernel (%s) is older than Linux %u.%u, the "
			"oldest bloomxdp supports, but has every feature it needs: attaching\n",
			kv.release, KERNEL_OLDEST_MAJOR, KERNEL_OLDEST_MINOR);
	return 0;
}

/*
 * --action reject answers a DNS query with ICMP port unreachable: the default
 * list has one action, and --dns-reply nxdomain would be a second.
 * --doh-canary is an NXDOMAIN answer to a DNS query or response.
 */
static int check_action(const struct attach_opts *o)
{
	if (o->action == BLOOMXDP_ACTION_REJECT && o->dns_reply == BLOOMXDP_DNS_REPLY_NXDOMAIN) {
		log_error("--action reject and --dns-reply nxdomain: choose one (a named list "
			  "with 'load --list NAME --action nxdomain' answers its names NXDOMAIN "
			  "beside a reject default list)");
		return -EINVAL;
	}
	if (o->doh_canary && (o->dns_reply != BLOOMXDP_DNS_REPLY_NXDOMAIN ||
			      !(o->match & (BLOOMXDP_MATCH_DNS | BLOOMXDP_MATCH_DNS_ANSWERS)))) {
		log_error("--doh-canary answers use-application-dns.net NXDOMAIN: attach with "
			  "--dns-reply nxdomain and --match including dns or dns-answers");
		return -EINVAL;
	}
	return 0;
}

static int random_key(__u64 key[2])
{
	if (getrandom(key, 2 * sizeof(__u64), 0) != 2 * sizeof(__u64)) {
		log_error("cannot read random bytes for the hash key: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

static int already_attached(const char *ifname)
{
	log_error("already attached to %s: change its list with 'bloomxdp load %s FILE', its "
		  "settings with 'bloomxdp attach --force %s ...'", ifname, ifname, ifname);
	return -EEXIST;
}

/* What the options set of the configuration, besides the geometry and the hash key. */
static void config_from_opts(struct bloomxdp_config *cfg, const struct attach_opts *o)
{
	cfg->match = o->match;
	cfg->action = o->action;
	cfg->dns_reply = o->dns_reply;
	memcpy(cfg->dns_ports, o->dns_ports, sizeof(cfg->dns_ports));
	memcpy(cfg->http_ports, o->http_ports, sizeof(cfg->http_ports));
	memcpy(cfg->tls_ports, o->tls_ports, sizeof(cfg->tls_ports));
	cfg->verify = o->verify;
	cfg->events_per_sec = o->events_per_sec;
	cfg->icmp_per_sec = o->icmp_per_sec;
	memcpy(cfg->quic_ports, o->quic_ports, sizeof(cfg->quic_ports));
	cfg->quic_per_sec = o->quic_per_sec;
	cfg->quic_unparsed = o->quic_unparsed;
	cfg->ech = o->ech;
	cfg->learn_ttl_max = o->learn_ttl_max;
	cfg->doh_canary = o->doh_canary;
	cfg->pins_version = BLOOMXDP_PINS_VERSION;
	/* The program with the plain pins: ingress where checked, else egress (tc). */
	cfg->direction = o->direction & ATTACH_DIR_INGRESS ? BLOOMXDP_DIR_INGRESS :
							     BLOOMXDP_DIR_EGRESS;
	cfg->hook = o->direction & ATTACH_DIR_INGRESS ? o->hook : BLOOMXDP_HOOK_TC;
}

/*
 * The cgroup of the socket guard (kernel/guard.h): --cgroup PATH, else with
 * egress the whole hierarchy, so that the host's own connect() and sendmsg()
 * to a listed address fail at once; --cgroup none: no guard. NULL: none.
 */
static const char *guard_cgroup(const struct attach_opts *o)
{
	if (o->cgroup && !strcmp(o->cgroup, ATTACH_CGROUP_NONE))
		return NULL;
	if (o->cgroup)
		return o->cgroup;
	if (!(o->direction & ATTACH_DIR_EGRESS))
		return NULL;
	if (guard_cgroup_mounted())
		return GUARD_CGROUP_ROOT;
	/* Not asked for by name: egress goes on without it, and says so. */
	fprintf(stderr, "bloomxdp: notice: no cgroup v2 hierarchy is mounted: the socket guard is "
		"off, so a local connect() to a listed address waits for its timeout (its packets "
		"are dropped on egress); mount one, or give --cgroup PATH\n");
	return NULL;
}

/* How a program is attached, as attach says it. */
static const char *via_name(__u32 hook, enum tc_via via)
{
	return hook == BLOOMXDP_HOOK_TC ? tc_via_name(via) : "XDP";
}

/*
 * Attaches the program of lp where its configuration says (XDP, or the tc
 * hook of its direction): its link in *link_fd, -1 for a clsact filter,
 * which hook_undo() removes.
 */
static int hook_attach(const char *ifname, int ifindex, const struct loaded_prog *lp,
		       enum attach_mode mode, const char **via, int *link_fd)
{
	const struct bloomxdp_config *cfg = loader_config(lp);
	enum tc_via tv = TC_VIA_TCX;
	int ret;

	if (cfg->hook != BLOOMXDP_HOOK_TC) {
		*link_fd = attach_link(ifname, loader_prog_fd(lp), ifindex, mode);
		*via = via_name(cfg->hook, tv);
		return *link_fd < 0 ? *link_fd : 0;
	}
	ret = tc_attach(ifname, ifindex, loader_prog_fd(lp), cfg->direction, &tv, link_fd);
	*via = via_name(cfg->hook, tv);
	return ret;
}

/* The id of a loaded program (0 if it cannot be read). */
static __u32 prog_id_of(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(prog_fd, &info, &len) ? 0 : info.id;
}

/* attach joining libxdp's dispatcher: where, how, and what it made. */
struct join_ctx {
	int ifindex;
	__u32 mode;			/* enum attach_mode */
	__u32 prog_id;			/* the component, once joined */
	char why[MULTIPROG_WHY_MAX];	/* else why not */
};

static int join_load(struct bpf_object *obj, void *ctx)
{
	struct join_ctx *j = ctx;
	int ret;

	ret = multiprog_join(j->ifindex, obj, j->mode, j->why, sizeof(j->why));
	if (!ret)
		j->prog_id = prog_id_of(bpf_program__fd(bpf_object__next_program(obj, NULL)));
	return ret;
}

/*
 * --multiprog: whether attach joins libxdp's dispatcher (*join) rather than
 * attaching a link of its own: auto where a dispatcher holds the hook, yes
 * always (another program without one is first removed, as --force says).
 */
static int multiprog_plan(const char *ifname, int ifindex, const struct attach_opts *o,
			  struct xdp_hook *replaced, bool *join)
{
	struct xdp_hook h;
	bool dispatcher;

	*join = false;
	if (o->multiprog == ATTACH_MULTIPROG_NO || !(o->direction & ATTACH_DIR_INGRESS) ||
	    o->hook != BLOOMXDP_HOOK_XDP || xdp_hook_read(ifindex, &h))
		return 0;	/* a hook that cannot be read: xdp_hook_take() says why */
	dispatcher = xdp_hook_dispatcher(&h);
	*join = dispatcher || o->multiprog == ATTACH_MULTIPROG_YES;
	if (*join && h.n && !dispatcher)
		return xdp_hook_take(ifname, ifindex, o->force, replaced);
	return 0;
}

/*
 * The program loaded and attached by libxdp as a component of ifindex's
 * dispatcher, generation 0 installed (j->prog_id). Refused: yes fails, with
 * why; auto goes on to a link of its own, with a notice (-EAGAIN).
 */
static int load_joined(const char *ifname, const struct bloomxdp_config *cfg,
		       const struct attach_opts *o, __u64 max_memory, struct join_ctx *j,
		       struct loaded_prog *lp)
{
	int ret;

	j->mode = o->mode;
	ret = loader_load_room_by(cfg, exact_room_for_memory(max_memory), join_load, j, lp);
	if (ret && j->prog_id)
		(void)multiprog_leave(j->ifindex, j->prog_id);	/* the loader said why */
	if (!ret || j->prog_id)
		return ret;
	if (o->multiprog == ATTACH_MULTIPROG_YES) {
		log_error("%s: cannot run bloomxdp in libxdp's dispatcher: %s; attach with "
			  "--multiprog no (bloomxdp's own link: no other XDP program can share "
			  "%s then)", ifname, j->why, ifname);
		return ret;
	}
	fprintf(stderr, "bloomxdp: notice: %s: cannot join libxdp's dispatcher: %s; falling "
		"back to bloomxdp's own link, which needs the hook to itself (--multiprog yes "
		"refuses instead)\n", ifname, j->why);
	return -EAGAIN;
}

/*
 * The program loaded for ifname: into libxdp's dispatcher where --multiprog
 * says (*joined: attached there too), else for a link of its own once the XDP
 * hook is free (xdp_hook_take()).
 */
static int load_program(const char *ifname, const struct attach_opts *o,
			const struct bloomxdp_config *cfg, __u64 max_memory, struct join_ctx *j,
			struct loaded_prog *lp, struct attach_result *res, bool *joined)
{
	int ret;

	ret = multiprog_plan(ifname, j->ifindex, o, &res->replaced_xdp, joined);
	if (!ret && *joined)
		ret = load_joined(ifname, cfg, o, max_memory, j, lp);
	if (ret != -EAGAIN && (ret || *joined))
		return ret;
	*joined = false;
	if ((o->direction & ATTACH_DIR_INGRESS) && o->hook == BLOOMXDP_HOOK_XDP) {
		ret = xdp_hook_take(ifname, j->ifindex, o->force, &res->replaced_xdp);
		if (ret)
			return ret;
	}
	return loader_load_room(cfg, exact_room_for_memory(max_memory), lp);
}

/* Undoes hook_attach() of a clsact filter, which no closed fd removes. */
static void hook_undo(int ifindex, const struct loaded_prog *lp, int link_fd)
{
	const struct bloomxdp_config *cfg = loader_config(lp);
	__u32 id = prog_id_of(loader_prog_fd(lp));

	if (link_fd < 0 && cfg->hook == BLOOMXDP_HOOK_TC && id)
		(void)tc_clsact_detach(ifindex, cfg->direction, id);
}

/* The XDP mode an attachment runs in, as --mode names it (ATTACH_MODE_AUTO: unknown). */
static enum attach_mode live_mode(const struct attachment *att)
{
	struct link_view link = {};

	if (attachment_read_link(att, &link))
		return ATTACH_MODE_AUTO;
	return !strcmp(link.mode, "native") ? ATTACH_MODE_NATIVE :
	       !strcmp(link.mode, "generic") ? ATTACH_MODE_GENERIC : ATTACH_MODE_AUTO;
}

/* The directions an attachment checks (enum attach_direction). */
static __u32 live_direction(const struct attachment *att)
{
	return (att->config.direction == BLOOMXDP_DIR_EGRESS ? ATTACH_DIR_EGRESS :
							       ATTACH_DIR_INGRESS) |
	       (att->egress.present ? ATTACH_DIR_EGRESS : 0);
}

/* "ingress at XDP", "egress at tc", "ingress at tc and egress at tc". */
static const char *live_hooks(const struct attachment *att)
{
	static char buf[64];
	const char *first = att->config.hook == BLOOMXDP_HOOK_TC ? "tc" : "XDP";

	snprintf(buf, sizeof(buf), "%s at %s%s", direction_name(att->config.direction), first,
		 att->egress.present ? " and egress at tc" : "");
	return buf;
}

/*
 * What a new program over the live maps cannot change without the list: the
 * layout and k (the bits every listed key set), the hash key. (--verify may
 * change: each generation says whether it has an exact copy, and the next load
 * makes one or not.) Prints why, with what to do instead.
 */
static int check_replaceable(const struct attachment *att, const struct attach_opts *o,
			     const struct bloom_plan *plan)
{
	const struct bloomxdp_config *live = &att->config;
	enum attach_mode mode = live_mode(att);
	struct link_view link = {};

	/* libxdp swaps a component only by building its dispatcher again: not done here. */
	if (!attachment_read_link(att, &link) && link.component) {
		log_error("%s runs bloomxdp in libxdp's dispatcher: its settings are changed by "
			  "'bloomxdp detach %s' and attach again (the list is loaded again then)",
			  att->ifname, att->ifname);
		return -EOPNOTSUPP;
	}

	if (plan->layout != live->layout || plan->hashes != live->hashes) {
		log_error("%s keeps its list in layout %s with %u hashes; --layout %s at --fpr %g "
			  "needs %u: the list would have to be built again ('bloomxdp detach %s', "
			  "attach, load)", att->ifname, layout_name(live->layout), live->hashes,
			  layout_name(plan->layout), plan->fpr, plan->hashes, att->ifname);
		return -EINVAL;
	}
	if (live_direction(att) != o->direction ||
	    ((o->direction & ATTACH_DIR_INGRESS) && live->hook != o->hook)) {
		log_error("%s runs %s: --direction and --hook are changed by 'bloomxdp detach %s' "
			  "and attach again", att->ifname, live_hooks(att), att->ifname);
		return -EINVAL;
	}
	if (o->mode != ATTACH_MODE_AUTO && mode != ATTACH_MODE_AUTO && o->mode != mode) {
		log_error("%s runs in %s mode: a link keeps its mode ('bloomxdp detach %s' to "
			  "change it)", att->ifname,
			  mode == ATTACH_MODE_NATIVE ? "native" : "generic", att->ifname);
		return -EINVAL;
	}
	return 0;
}

/*
 * Swaps the program a hook of att runs (egress: the egress program of
 * --direction both) for prog_fd: one update of its link (XDP, tcx), or its
 * clsact filter replaced in place. On failure the old one runs on.
 */
static int hook_replace(const struct attachment *att, bool egress, int prog_fd,
			enum tc_via *via)
{
	const struct bloomxdp_config *cfg = egress ? &att->egress.config : &att->config;
	int link_fd, ifindex, ret = 0;

	*via = TC_VIA_TCX;
	link_fd = pin_get(att->dir_fd, egress ? BLOOMXDP_PIN_EGRESS_PREFIX BLOOMXDP_PIN_LINK :
					       BLOOMXDP_PIN_LINK);
	if (link_fd == -ENOENT && cfg->hook == BLOOMXDP_HOOK_TC) {
		*via = TC_VIA_CLSACT;
		ifindex = if_nametoindex(att->ifname);
		if (ifindex)
			return tc_clsact_replace(att->ifname, ifindex, prog_fd, cfg->direction);
		log_error("%s is gone: 'bloomxdp detach %s', and attach again once it is back",
			  att->ifname, att->ifname);
		return -ENODEV;
	}
	if (link_fd < 0) {
		log_error("%s: cannot open its link: %s; 'bloomxdp detach %s' and attach again",
			  att->ifname, strerror(-link_fd), att->ifname);
		return link_fd;
	}
	if (bpf_link_update(link_fd, prog_fd, NULL)) {
		ret = -errno;
		log_error("cannot swap the program of %s: %s; the old one runs on", att->ifname,
			  strerror(-ret));
	}
	close(link_fd);
	return ret;
}

/*
 * --direction both: the egress program (tc) beside primary, the ingress one,
 * sharing its lists, pinned with BLOOMXDP_PIN_EGRESS_PREFIX in dir_fd. att:
 * the attachment whose egress program this replaces (its counters kept, its
 * hook swapped to the new program), or NULL for a fresh one.
 */
static int attach_egress(const char *ifname, int ifindex, const struct loaded_prog *primary,
			 const struct attachment *att, int dir_fd, const char **via)
{
	struct bloomxdp_config cfg = *loader_config(primary);
	struct loaded_prog lp = { .skel = NULL };
	int link_fd = -1, ret;
	enum tc_via tv;

	cfg.direction = BLOOMXDP_DIR_EGRESS;
	cfg.hook = BLOOMXDP_HOOK_TC;
	ret = loader_load_beside(&cfg, primary, att ? att->egress.counters_fd : -1,
				 att ? att->egress.list_hits_fd : -1, &lp);
	if (ret)
		return ret;
	if (att)
		ret = hook_replace(att, true, loader_prog_fd(&lp), &tv);
	else
		ret = tc_attach(ifname, ifindex, loader_prog_fd(&lp), BLOOMXDP_DIR_EGRESS, &tv,
				&link_fd);
	*via = via_name(BLOOMXDP_HOOK_TC, tv);
	if (!ret)
		ret = attachment_pin_egress(dir_fd, lp.skel, link_fd);
	if (ret && !att)
		hook_undo(ifindex, &lp, link_fd);
	if (link_fd >= 0)
		close(link_fd);
	loader_close(&lp);
	return ret;
}

/* A member of a group, not its home: its lists and socket guard are the home's. */
static bool group_member(const struct attachment *att)
{
	return att->grouped && strcmp(att->group.members[0], att->ifname);
}

/*
 * The settings line of att's part in a group: the home's members
 * (ATTACH_GROUP_MEMBERS_KEY=IF2,IF3), a member's home
 * (ATTACH_GROUP_HOME_KEY=IF1); "" in none.
 */
static const char *group_line_of(const struct bloomxdp_group *g, const char *ifname, char *buf,
				 size_t len)
{
	size_t used;
	__u32 i;

	buf[0] = '\0';
	if (g->n < 2)
		return buf;
	if (strcmp(g->members[0], ifname)) {
		snprintf(buf, len, ATTACH_GROUP_HOME_KEY "=%s", g->members[0]);
		return buf;
	}
	used = snprintf(buf, len, ATTACH_GROUP_MEMBERS_KEY "=");
	for (i = 1; i < g->n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i > 1 ? "," : "", g->members[i]);
	return buf;
}

static const char *group_line(const struct attachment *att, char *buf, size_t len)
{
	buf[0] = '\0';
	return att->grouped ? group_line_of(&att->group, att->ifname, buf, len) : buf;
}

/*
 * attach --force on an attached interface: a new program with the new
 * settings over the live maps, swapped in by one link update. Packets see
 * the old program or the new one, the list throughout; on any failure the
 * old program stays.
 */
static int replace_attached(const char *ifname, const struct attach_opts *o,
			    struct attach_result *res)
{
	struct loaded_prog lp = { .skel = NULL };
	struct bloomxdp_state st;
	struct attachment att;
	struct bloomxdp_config cfg;
	struct bloom_plan plan;
	char line[ATTACH_GROUP_LINE_MAX];
	const char *cgroup;
	enum tc_via tv;
	__u32 slot;
	int ret;

	ret = attachment_open(ifname, true, &att);
	if (ret)
		return ret;
	ret = plan_or_explain(o->capacity, o->fpr, o->layout, &plan);
	if (!ret)
		ret = check_replaceable(&att, o, &plan);
	if (ret)
		goto cleanup;
	cfg = att.config;	/* the hash key, layout and k the list was built with */
	loader_config_plan(&cfg, &plan);
	config_from_opts(&cfg, o);
	ret = loader_load_reusing(&cfg, &att, &lp);
	if (ret)
		goto cleanup;
	ret = hook_replace(&att, false, loader_prog_fd(&lp), &tv);
	if (ret)
		goto cleanup;
	/* The link runs the new program: the pins follow, so that status reads its config. */
	ret = attachment_repin_program(&att, lp.skel);
	if (!ret && att.egress.present)
		ret = attach_egress(ifname, 0, &lp, &att, att.dir_fd, &res->egress_via);
	if (ret) {
		log_error("the new program of %s runs, but its pins could not be replaced: %s; "
			  "'bloomxdp detach %s' and attach again", ifname, strerror(-ret), ifname);
		goto cleanup;
	}
	/* The socket guard follows the new settings: its programs too, or it goes. */
	att.config = cfg;
	cgroup = group_member(&att) ? NULL : guard_cgroup(o);
	ret = cgroup ? guard_attach_att(&att, cgroup) : guard_detach_att(&att);
	if (ret)
		goto cleanup;
	if (o->max_memory_given && !attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &slot) &&
	    !attachment_read_state(&att, slot, &st)) {
		st.max_memory = o->max_memory;
		if (attachment_write_state(&att, slot, &st))
			log_warn("--max-memory could not be saved; the next load uses the old one");
	}
	record_attach(ifname, o, false, &res->replaced_xdp, group_line(&att, line, sizeof(line)),
		      false);
	res->replaced = true;
	res->direction = o->direction;
cleanup:
	if (lp.skel)
		loader_close(&lp);
	attachment_close(&att);
	return ret;
}

/* What hook_and_pin() made, for its caller's one cleanup path (hook_and_pin_undo()). */
struct hooked {
	int link_fd;		/* the link of lp's program (-1: none, or a clsact filter) */
	__u32 component;	/* else its id in libxdp's dispatcher, which holds it (0: no) */
	bool hooked;		/* lp's program runs on the interface */
	bool pinned;		/* the pin directory is made */
};

/*
 * lp's program attached where its configuration says (or already, by libxdp:
 * h->component), the attachment's pins made in ifname's new directory pd (the
 * link last), and with --direction both its egress program beside it. h says
 * what to undo on failure.
 */
static int hook_and_pin(const char *ifname, int ifindex, const struct loaded_prog *lp,
			const struct attach_opts *o, struct pin_dir *pd, struct hooked *h,
			const char **ingress_via, const char **egress_via)
{
	int ret = 0;

	if (h->component)
		*ingress_via = ATTACH_VIA_MULTIPROG;	/* joined as libxdp loaded it */
	else
		ret = hook_attach(ifname, ifindex, lp, o->mode, ingress_via, &h->link_fd);
	if (ret)
		return ret;
	h->hooked = true;
	ret = pin_dir_open(ifname, true, pd);
	if (ret) {
		if (ret == -EEXIST)
			already_attached(ifname);
		return ret;
	}
	h->pinned = true;
	ret = attachment_pin_all(pd, lp->skel, h->link_fd);
	if (!ret && o->direction == ATTACH_DIR_BOTH)
		ret = attach_egress(ifname, ifindex, lp, NULL, pd->fd, egress_via);
	return ret;
}

/* Undoes what h says hook_and_pin() made (nothing once the caller clears it); closes the link. */
static void hook_and_pin_undo(const char *ifname, int ifindex, const struct loaded_prog *lp,
			      struct pin_dir *pd, struct hooked *h)
{
	if (h->pinned)
		attachment_unpin_all(pd, ifname);
	if (h->hooked && h->component)
		(void)multiprog_leave(ifindex, h->component);
	else if (h->hooked)
		hook_undo(ifindex, lp, h->link_fd);
	pin_dir_close(pd);
	if (h->link_fd >= 0)
		close(h->link_fd);
	h->link_fd = -1;
}

/* restoring: the state's lists are about to be loaded again, not emptied. */
static int do_attach(const char *ifname, const struct attach_opts *o, bool restoring,
		     struct attach_result *res)
{
	struct pin_dir pd = { .bpffs_fd = -1, .root_fd = -1, .fd = -1 };
	struct loaded_prog lp = { .skel = NULL };
	struct bloomxdp_config cfg = {};
	__u64 max_memory = o->max_memory_given ? o->max_memory : default_max_memory();
	struct bloom_plan plan;
	struct hooked h = { .link_fd = -1 };
	struct join_ctx j = {};
	bool loaded = false, joined;
	const char *cgroup;
	int ifindex;
	int ret;

	ret = check_privileges();
	if (!ret)
		ret = check_action(o);
	if (!ret)
		ret = check_kernel(o);
	if (!ret)
		ret = check_bpffs();
	if (!ret)
		ret = check_interface(ifname, &ifindex);
	if (!ret)
		ret = plan_or_explain(o->capacity, o->fpr, o->layout, &plan);
	if (ret)
		return ret;
	if (bloom_plan_map_bytes(&plan) > max_memory) {
		log_error("a filter for --capacity %llu at FPR %g takes %llu bytes, over "
			  "--max-memory %llu: lower --capacity, or raise --max-memory",
			  (unsigned long long)plan.capacity, plan.fpr,
			  (unsigned long long)bloom_plan_map_bytes(&plan),
			  (unsigned long long)max_memory);
		return -E2BIG;
	}
	/* Before anything is made: refuses a pin directory that is not ours. */
	ret = pin_dir_open(ifname, false, &pd);
	pin_dir_close(&pd);
	if (ret == 0 && o->force)
		return replace_attached(ifname, o, res);
	if (ret == 0)
		return already_attached(ifname);
	if (ret != -ENOENT)
		return ret;

	ret = 0;
	if (o->hash_key)
		memcpy(cfg.hash_key, o->hash_key, sizeof(cfg.hash_key));
	else
		ret = random_key(cfg.hash_key);
	if (ret)
		return ret;
	loader_config_plan(&cfg, &plan);
	config_from_opts(&cfg, o);
	j.ifindex = ifindex;
	ret = load_program(ifname, o, &cfg, max_memory, &j, &lp, res, &joined);
	if (ret)
		return ret;
	loaded = true;
	h.component = joined ? j.prog_id : 0;
	h.hooked = joined;
	ret = loader_write_state0(&lp, max_memory);
	if (ret) {
		log_error("cannot write the bookkeeping of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}

	res->multiprog = joined;
	/* The link last: once it is pinned the attachment outlives this process. */
	ret = hook_and_pin(ifname, ifindex, &lp, o, &pd, &h, &res->ingress_via, &res->egress_via);
	cgroup = ret ? NULL : guard_cgroup(o);
	if (cgroup)
		ret = guard_attach(ifname, cgroup);
	if (ret)
		goto cleanup;

	record_attach(ifname, o, !restoring, &res->replaced_xdp, NULL, joined);
	res->plan = plan;
	res->max_memory = max_memory;
	res->direction = o->direction;
	if (!(o->direction & ATTACH_DIR_INGRESS)) {
		res->egress_via = res->ingress_via;
		res->ingress_via = NULL;
	}
	h.pinned = h.hooked = false;
cleanup:
	hook_and_pin_undo(ifname, ifindex, &lp, &pd, &h);
	if (loaded)
		loader_close(&lp);
	return ret;
}

int attach_run(const char *ifname, const struct attach_opts *o, struct attach_result *res)
{
	memset(res, 0, sizeof(*res));
	return do_attach(ifname, o, false, res);
}

/* One member of a group: a program of its own over the home's maps, pinned beside them. */
static int attach_member(const struct attachment *home, const char *ifname,
			 const struct attach_opts *o, const char *line)
{
	struct pin_dir pd = { .bpffs_fd = -1, .root_fd = -1, .fd = -1 };
	struct loaded_prog lp = { .skel = NULL };
	struct xdp_hook replaced = {};
	struct hooked h = { .link_fd = -1 };
	const char *via = NULL;
	int ifindex, ret;

	ret = check_interface(ifname, &ifindex);
	if (!ret && (o->direction & ATTACH_DIR_INGRESS) && o->hook == BLOOMXDP_HOOK_XDP)
		ret = xdp_hook_take(ifname, ifindex, o->force, &replaced);
	if (!ret)
		ret = loader_load_member(&home->config, home, &lp);
	if (ret)
		return ret;
	ret = hook_and_pin(ifname, ifindex, &lp, o, &pd, &h, &via, &via);
	if (!ret)
		ret = group_pin(pd.fd, home->group_fd);
	if (ret)
		goto cleanup;
	record_attach(ifname, o, false, &replaced, line, false);
	h.pinned = h.hooked = false;
cleanup:
	hook_and_pin_undo(ifname, ifindex, &lp, &pd, &h);
	loader_close(&lp);
	return ret;
}

/* The names of a group, checked before anything is attached: into g, the home first. */
static int group_check_names(char *const *names, int n, struct bloomxdp_group *g)
{
	struct pin_dir pd;
	int i, j, ret;

	memset(g, 0, sizeof(*g));
	if (n > BLOOMXDP_GROUP_MAX) {
		log_error("attach: %d interfaces, at most %d share one list", n,
			  BLOOMXDP_GROUP_MAX);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		ret = ifname_check(names[i]);
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (!strcmp(names[i], names[j])) {
				log_error("attach: %s is named twice", names[i]);
				return -EINVAL;
			}
		ret = pin_dir_open(names[i], false, &pd);
		pin_dir_close(&pd);
		if (!ret) {
			log_error("already attached to %s: a group is attached at once ('bloomxdp "
				  "detach %s' first)", names[i], names[i]);
			return -EEXIST;
		}
		if (ret != -ENOENT)
			return ret;
		snprintf(g->members[i], sizeof(g->members[i]), "%s", names[i]);
	}
	g->n = n;
	return 0;
}

/* The home's group pinned, then each member attached; on failure all of it undone. */
static int attach_members(char *const *names, int n, const struct attach_opts *o,
			  const struct bloomxdp_group *g, int *done)
{
	char line[ATTACH_GROUP_LINE_MAX];
	struct attachment att;
	int i, ret;

	*done = 0;
	ret = attachment_open(names[0], true, &att);
	if (ret)
		return ret;
	ret = att.group_fd = group_create(g);
	if (ret >= 0)
		ret = group_pin(att.dir_fd, att.group_fd);
	if (ret)
		log_error("cannot pin the group of %s: %s", names[0], strerror(-ret));
	for (i = 1; i < n && !ret; i++) {
		ret = attach_member(&att, names[i], o, group_line_of(g, names[i], line,
								     sizeof(line)));
		if (!ret)
			*done = i;
	}
	attachment_close(&att);
	return ret;
}

static int attach_group(char *const *names, int n, const struct attach_opts *o, bool restoring,
			struct attach_result *res)
{
	char line[ATTACH_GROUP_LINE_MAX];
	struct bloomxdp_group g;
	int i, done, ret;

	ret = group_check_names(names, n, &g);
	if (!ret)
		ret = do_attach(names[0], o, restoring, res);
	if (ret)
		return ret;
	ret = attach_members(names, n, o, &g, &done);
	if (!ret) {
		record_attach(names[0], o, false, &res->replaced_xdp,
			      group_line_of(&g, names[0], line, sizeof(line)), res->multiprog);
		return 0;
	}
	log_error("the group of %s is not attached: its interfaces are detached again", names[0]);
	for (i = done; i >= 0; i--)
		(void)detach_pins(names[i]);
	return ret;
}

int attach_group_run(char *const *ifnames, int n, const struct attach_opts *o,
		     struct attach_result *res)
{
	memset(res, 0, sizeof(*res));
	if (n == 1)
		return do_attach(ifnames[0], o, false, res);
	return attach_group(ifnames, n, o, false, res);
}

const char *attach_group_text(char *const *ifnames, int n, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 1; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%sattached to %s: the lists of %s "
				 "(one group: 'load %s' or 'load %s' fills both)", i > 1 ? "\n" : "",
				 ifnames[i], ifnames[0], ifnames[0], ifnames[i]);
	return buf;
}

/* "IF2,IF3" into members[1..]: each name checked. */
static int group_names_parse(const char *list, char members[][BLOOMXDP_IFNAME_LEN], int *n)
{
	char buf[ATTACH_GROUP_LINE_MAX], *name, *save;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (*n >= BLOOMXDP_GROUP_MAX || ifname_invalid(name))
			return -EINVAL;
		snprintf(members[(*n)++], BLOOMXDP_IFNAME_LEN, "%s", name);
	}
	return *n > 1 ? 0 : -EINVAL;
}

int attach_group_from_settings(const char *ifname, const char *settings,
			       char home[BLOOMXDP_IFNAME_LEN],
			       char members[BLOOMXDP_GROUP_MAX][BLOOMXDP_IFNAME_LEN], int *n)
{
	static const char mkey[] = ATTACH_GROUP_MEMBERS_KEY "=", hkey[] = ATTACH_GROUP_HOME_KEY "=";
	const char *line, *end;
	char one[ATTACH_GROUP_LINE_MAX];
	size_t len;
	int ret = 0;

	home[0] = '\0';
	*n = 0;
	for (line = settings; line && *line && !ret; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		len = end ? (size_t)(end - line) : strlen(line);
		if (len >= sizeof(one))
			continue;
		memcpy(one, line, len);
		one[len] = '\0';
		if (!strncmp(one, hkey, sizeof(hkey) - 1)) {
			ret = ifname_invalid(one + sizeof(hkey) - 1) ? -EINVAL : 0;
			snprintf(home, BLOOMXDP_IFNAME_LEN, "%.15s", one + sizeof(hkey) - 1);
		} else if (!strncmp(one, mkey, sizeof(mkey) - 1)) {
			snprintf(members[0], BLOOMXDP_IFNAME_LEN, "%s", ifname);
			*n = 1;
			ret = group_names_parse(one + sizeof(mkey) - 1, members, n);
		}
	}
	if (ret || (home[0] && *n)) {
		log_error("%s: its settings name a group this bloomxdp does not read: attach it "
			  "by hand", ifname);
		return -EINVAL;
	}
	return 0;
}

const char *attach_result_text(const char *ifname, const struct attach_result *res, char *buf,
			       size_t len)
{
	const struct bloom_plan *plan = &res->plan;
	char progs[XDP_HOOK_TEXT_MAX];
	int n;

	if (res->replaced)
		n = snprintf(buf, len, "replaced the program of %s in place: its list, counters "
			     "and generation kept", ifname);
	else
		n = snprintf(buf, len, "attached to %s: %s layout, %llu bits, %u hashes, %llu "
			     "bytes for %llu entries at FPR %g; loads size the filter for their "
			     "lists, up to %llu bytes (--max-memory)", ifname,
			     layout_name(plan->layout), (unsigned long long)plan->bits,
			     plan->hashes, (unsigned long long)plan->bytes,
			     (unsigned long long)plan->capacity, plan->fpr,
			     (unsigned long long)res->max_memory);
	if (n < 0 || (size_t)n >= len)
		return buf;
	/* Where it runs, when not only at XDP ingress (the default says nothing more). */
	if (res->egress_via || (res->ingress_via && strcmp(res->ingress_via, "XDP")))
		n += snprintf(buf + n, len - n, "\n%s: %s%s%s%s%s", ifname,
			      res->ingress_via ? "ingress at " : "",
			      res->ingress_via ? res->ingress_via : "",
			      res->ingress_via && res->egress_via ? ", " : "",
			      res->egress_via ? "egress at " : "",
			      res->egress_via ? res->egress_via : "");
	if (res->replaced_xdp.n && (size_t)n < len)
		snprintf(buf + n, len - n, "\nreplaced XDP program %s (--force): 'bloomxdp detach "
			 "%s' does not put it back", xdp_hook_text(&res->replaced_xdp, progs,
			 sizeof(progs)), ifname);
	return buf;
}

int attach_restore(const char *ifname, char *settings, const char *state_dir, bool force,
		   const struct attach_filter *filter)
{
	char members[BLOOMXDP_GROUP_MAX][BLOOMXDP_IFNAME_LEN], home[BLOOMXDP_IFNAME_LEN];
	char *names[BLOOMXDP_GROUP_MAX];
	struct attach_opts o = attach_defaults;
	struct attach_result res = {};
	char *line, *save;
	int ret = 0, n = 0, i;

	if (settings)
		ret = attach_group_from_settings(ifname, settings, home, members, &n);
	if (ret)
		return ret;
	line = settings ? strtok_r(settings, "\n", &save) : NULL;
	if (settings && (!line || strcmp(line, STATE_MAGIC))) {
		log_error("%s: its settings in the state are not of this version: attach it by "
			  "hand", ifname);
		return -EINVAL;
	}
	/* A replaced program's line is skipped here: record_attach() keeps it. */
	while (settings && !ret && (line = strtok_r(NULL, "\n", &save))) {
		if (!strncmp(line, ATTACH_GROUP_MEMBERS_KEY "=", sizeof(ATTACH_GROUP_MEMBERS_KEY)) ||
		    !strncmp(line, ATTACH_GROUP_HOME_KEY "=", sizeof(ATTACH_GROUP_HOME_KEY)) ||
		    !strncmp(line, MULTIPROG_KEY "=", sizeof(MULTIPROG_KEY)))
			continue;
		ret = xdp_held_parse(line, &res.replaced_xdp);
		ret = ret ? (ret > 0 ? 0 : ret) : options_parse_line(attach_options, line, &o);
	}
	if (ret)
		return ret;
	if (filter) {
		/* What the saved filter was made with: the same k and positions. */
		o.layout = filter->layout;
		o.fpr = filter->fpr;
		o.hash_key = filter->hash_key;
	}
	o.state_dir = state_dir;
	o.force = force;
	if (n < 2)
		return do_attach(ifname, &o, true, &res);
	for (i = 0; i < n; i++)
		names[i] = members[i];
	return attach_group(names, n, &o, true, &res);
}

int attach_with_filter(const char *ifname, const struct attach_opts *opts,
		       const struct attach_filter *filter, struct attach_result *res)
{
	struct attach_opts o = opts ? *opts : attach_defaults;

	o.layout = filter->layout;
	o.fpr = filter->fpr;
	o.hash_key = filter->hash_key;
	o.force = false;
	memset(res, 0, sizeof(*res));
	return do_attach(ifname, &o, false, res);
}

/*
 * Detaches the program now: the link would otherwise go with its last pin,
 * later (an RCU callback, then a work item that waits for the RTNL), and an
 * attach right after could still find it on the interface.
 */
static void detach_link(const struct pin_dir *pd, const char *name)
{
	int fd = pin_get(pd->fd, name);

	if (fd < 0)
		return;
	/* ENOLINK: already detached, e.g. the interface is gone. */
	if (bpf_link_detach(fd) && errno != ENOLINK && errno != ENODEV)
		log_warn("cannot detach the link at %s/%s now: %s; it goes with its pin",
			 pd->path, name, strerror(errno));
	close(fd);
}

/* A clsact filter of ours (no link: a kernel without tcx) runs the pinned program name. */
static void detach_clsact(const struct pin_dir *pd, const char *ifname, const char *name)
{
	int fd = pin_get(pd->fd, name), ifindex = if_nametoindex(ifname);
	__u32 id;

	if (fd < 0)
		return;
	id = prog_id_of(fd);
	close(fd);
	if (!id || !ifindex)
		return;
	if (tc_clsact_detach(ifindex, BLOOMXDP_DIR_INGRESS, id) ||
	    tc_clsact_detach(ifindex, BLOOMXDP_DIR_EGRESS, id))
		log_warn("cannot remove the tc filter of %s (handle %#x): remove it with 'tc "
			 "filter del dev %s ingress|egress handle %#x prio %u bpf'", ifname,
			 BLOOMXDP_TC_HANDLE, ifname, BLOOMXDP_TC_HANDLE, BLOOMXDP_TC_PRIORITY);
}

/* An XDP program without a link of ours: out of libxdp's dispatcher, if it is one of its. */
static void detach_component(const struct pin_dir *pd, const char *ifname)
{
	int fd = pin_get(pd->fd, BLOOMXDP_PIN_LINK), ifindex = if_nametoindex(ifname);
	__u32 id;

	if (fd >= 0)
		close(fd);
	if (fd != -ENOENT || !ifindex)
		return;
	fd = pin_get(pd->fd, BLOOMXDP_PIN_PROG);
	if (fd < 0)
		return;
	id = prog_id_of(fd);
	close(fd);
	if (id)
		(void)multiprog_leave(ifindex, id);
}

/* Every program of the attachment off its interface: links, components, clsact filters. */
static void detach_hooks(const struct pin_dir *pd, const char *ifname)
{
	detach_component(pd, ifname);
	detach_link(pd, BLOOMXDP_PIN_LINK);
	detach_link(pd, BLOOMXDP_PIN_EGRESS_PREFIX BLOOMXDP_PIN_LINK);
	detach_clsact(pd, ifname, BLOOMXDP_PIN_PROG);
	detach_clsact(pd, ifname, BLOOMXDP_PIN_EGRESS_PREFIX BLOOMXDP_PIN_PROG);
}

static int forget_state(const char *ifname, const struct detach_opts *o,
			struct detach_result *res)
{
	int ret = state_forget(state_root(o->state_dir), ifname);

	if (ret == -ENOENT) {
		res->state = DETACH_NOTHING_TO_FORGET;
		return 0;
	}
	if (!ret)
		res->state = DETACH_FORGOT;
	return ret;
}

int detach_pins(const char *ifname)
{
	struct pin_dir pd;
	int ret;

	ret = pin_dir_open(ifname, false, &pd);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	detach_hooks(&pd, ifname);
	(void)guard_detach_dir(pd.fd, pd.path);
	ret = attachment_unpin_all(&pd, ifname);
	pin_dir_close(&pd);
	return ret;
}

/* The home's settings with the group's line of g (none once it is alone). */
static int group_settings_update(const struct bloomxdp_group *g, const char *state_dir)
{
	static const char key[] = ATTACH_GROUP_MEMBERS_KEY "=";
	char line[ATTACH_GROUP_LINE_MAX], *text = NULL, *out = NULL, *at, *end;
	struct state_dir sd;
	size_t len, used = 0;
	bool legacy;
	int ret;

	ret = state_open(state_root(state_dir), g->members[0], false, &sd);
	if (ret)
		return ret;
	ret = state_read_sealed(&sd, STATE_SETTINGS, "attach the group again to record it", &text,
				&len, &legacy);
	out = ret ? NULL : malloc(len + sizeof(line) + 2);
	if (!ret && !out)
		ret = -ENOMEM;
	for (at = text; !ret && at && *at; at = end ? end + 1 : NULL) {
		end = strchr(at, '\n');
		len = end ? (size_t)(end - at) : strlen(at);
		if (strncmp(at, key, sizeof(key) - 1)) {
			memcpy(out + used, at, len);
			used += len;
			out[used++] = '\n';
		}
	}
	if (!ret)
		used += sprintf(out + used, "%s%s", group_line_of(g, g->members[0], line,
								  sizeof(line)), g->n > 1 ? "\n" : "");
	if (!ret)
		ret = state_write_sealed(&sd, STATE_SETTINGS, out, used);
	free(text);
	free(out);
	state_close(&sd);
	return ret;
}

/*
 * A member leaves its group: out of the group map (the home's pin of it gone
 * with the last member), the home's settings, and its own state (which
 * holds nothing but its home's name).
 */
static void group_leave(const char *ifname, int group_fd, struct bloomxdp_group *g,
			const struct detach_opts *o, struct detach_result *res)
{
	struct pin_dir pd;
	__u32 i, j, zero = 0;
	int ret;

	for (i = j = 0; i < g->n; i++)
		if (strcmp(g->members[i], ifname))
			memcpy(g->members[j++], g->members[i], sizeof(g->members[i]));
	g->n = j;
	ret = bpf_map_update_elem(group_fd, &zero, g, BPF_ANY) ? -errno : 0;
	if (!ret && g->n == 1 && !pin_dir_open(g->members[0], false, &pd)) {
		if (unlinkat(pd.fd, BLOOMXDP_PIN_GROUP, 0) && errno != ENOENT)
			ret = -errno;
		pin_dir_close(&pd);
	}
	if (!ret)
		ret = group_settings_update(g, o->state_dir);
	if (ret)
		log_warn("%s left the group of %s, but its record could not be updated (%s): "
			 "'bloomxdp status %s' shows it", ifname, g->members[0], strerror(-ret),
			 g->members[0]);
	snprintf(res->left, sizeof(res->left), "%s", g->members[0]);
	ret = state_forget(state_root(o->state_dir), ifname);
	if (!ret || ret == -ENOENT)
		res->state = DETACH_KEPT;
}

/*
 * Its group, if any: the home is refused while members remain, a member's
 * lock is its home's (*lock_fd). 1: a member, 0: in no group.
 */
static int detach_group_check(const struct pin_dir *pd, const char *ifname, int *group_fd,
			      struct bloomxdp_group *g, int *lock_fd)
{
	char names[ATTACH_GROUP_LINE_MAX];
	int ret;

	*lock_fd = -1;
	ret = group_read(pd->fd, group_fd, g);
	if (ret == -ENOENT || (!ret && g->n < 2)) {
		flock(pd->fd, LOCK_EX);	/* Wait for a load or add in progress. */
		return 0;
	}
	if (!ret && !strcmp(g->members[0], ifname)) {
		log_error("%s holds the lists of its group (%s): detach them first ('bloomxdp "
			  "detach %s')", ifname, group_line_of(g, ifname, names, sizeof(names)) +
			  sizeof(ATTACH_GROUP_MEMBERS_KEY), g->members[1]);
		ret = -EBUSY;
	}
	if (!ret)
		ret = attachment_lock_dir(pd->fd, pd->path, lock_fd);
	if (ret && *group_fd >= 0)
		close(*group_fd);
	return ret ? ret : 1;
}

int detach_run(const char *ifname, const struct detach_opts *o, struct detach_result *res)
{
	struct bloomxdp_group g;
	int group_fd = -1, lock_fd = -1, member;
	struct pin_dir pd;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = check_privileges();
	if (ret)
		return ret;
	/* What ran before bloomxdp (attach --force), to be said: before --forget removes it. */
	(void)xdp_hook_recorded(ifname, o->state_dir, &res->before);
	ret = pin_dir_open(ifname, false, &pd);
	if (ret == -ENOENT && o->forget)
		return forget_state(ifname, o, res);
	if (ret == -ENOENT)
		log_error("not attached to %s (no %s/%s): nothing to detach", ifname,
			  BLOOMXDP_PIN_ROOT, ifname);
	if (ret)
		return ret;
	ret = member = detach_group_check(&pd, ifname, &group_fd, &g, &lock_fd);
	if (ret < 0) {
		pin_dir_close(&pd);
		return ret;
	}
	detach_hooks(&pd, ifname);
	(void)guard_detach_dir(pd.fd, pd.path);	/* its hooks gone now; said on failure */
	ret = attachment_unpin_all(&pd, ifname);
	if (ret)
		log_error("cannot remove all of %s: %s; see what is left with 'ls %s'", pd.path,
			  strerror(-ret), pd.path);
	else
		res->detached = true;
	pin_dir_close(&pd);
	if (member && res->detached)
		group_leave(ifname, group_fd, &g, o, res);
	if (group_fd >= 0)
		close(group_fd);
	if (lock_fd >= 0)
		close(lock_fd);
	if (!ret && o->forget)
		ret = forget_state(ifname, o, res);
	return ret;
}

const char *detach_result_text(const char *ifname, const struct detach_result *res, char *buf,
			       size_t len)
{
	char before[DETACH_TEXT_MAX / 2];
	int n = 0;

	buf[0] = '\0';
	if (res->detached)
		n = snprintf(buf, len, "detached from %s%s%s%s%s%s", ifname,
			     res->left[0] ? " (it left the group of " : "", res->left,
			     res->left[0] ? ", whose lists stay on it)" : "",
			     res->before.n ? "\n" : "",
			     xdp_hook_before_text(ifname, &res->before, before, sizeof(before)));
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (res->state == DETACH_FORGOT)
		snprintf(buf + n, len - n, "%sforgot the state of %s", n ? "\n" : "", ifname);
	else if (res->state == DETACH_NOTHING_TO_FORGET)
		snprintf(buf + n, len - n, "%sno state of %s to forget", n ? "\n" : "", ifname);
	return buf;
}
