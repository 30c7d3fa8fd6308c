// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* attach and detach: the lifetime of an attachment and of its pins (attach.h). */
#include <errno.h>
#include <fcntl.h>
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
#include "filter/layout.h"
#include "kernel/loader.h"
#include "util/log.h"
#include "kernel/netdev.h"
#include "filter/bloom_plan.h"
#include "kernel/state_dir.h"
#include "kernel/xdp_hook.h"

/*
 * The settings into the state, to attach the same way again (restore); a
 * fresh attachment also starts its lists empty there. A failure is only
 * warned about: the attachment itself is made.
 */
static void record_attach(const char *ifname, const struct attach_opts *o, bool fresh,
			  const struct xdp_hook *replaced)
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

	if (plan->layout != live->layout || plan->hashes != live->hashes) {
		log_error("%s keeps its list in layout %s with %u hashes; --layout %s at --fpr %g "
			  "needs %u: the list would have to be built again ('bloomxdp detach %s', "
			  "attach, load)", att->ifname, layout_name(live->layout), live->hashes,
			  layout_name(plan->layout), plan->fpr, plan->hashes, att->ifname);
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
	__u32 slot;
	int link_fd = -1, ret;

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
	link_fd = pin_get(att.dir_fd, BLOOMXDP_PIN_LINK);
	if (link_fd < 0) {
		ret = link_fd;
		log_error("%s: cannot open its XDP link: %s; 'bloomxdp detach %s' and attach again",
			  ifname, strerror(-ret), ifname);
		goto cleanup;
	}
	if (bpf_link_update(link_fd, loader_prog_fd(&lp), NULL)) {
		ret = -errno;
		log_error("cannot swap the program of %s: %s; the old one runs on", ifname,
			  strerror(-ret));
		goto cleanup;
	}
	/* The link runs the new program: the pins follow, so that status reads its config. */
	ret = attachment_repin_program(&att, lp.skel);
	if (ret) {
		log_error("the new program of %s runs, but its pins could not be replaced: %s; "
			  "'bloomxdp detach %s' and attach again", ifname, strerror(-ret), ifname);
		goto cleanup;
	}
	if (o->max_memory_given && !attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &slot) &&
	    !attachment_read_state(&att, slot, &st)) {
		st.max_memory = o->max_memory;
		if (attachment_write_state(&att, slot, &st))
			log_warn("--max-memory could not be saved; the next load uses the old one");
	}
	record_attach(ifname, o, false, &res->replaced_xdp);
	res->replaced = true;
cleanup:
	if (link_fd >= 0)
		close(link_fd);
	if (lp.skel)
		loader_close(&lp);
	attachment_close(&att);
	return ret;
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
	bool loaded = false, pinned = false;
	int link_fd = -1;
	int ifindex;
	int ret;

	ret = check_privileges();
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
	ret = xdp_hook_take(ifname, ifindex, o->force, &res->replaced_xdp);
	if (ret)
		return ret;

	if (o->hash_key)
		memcpy(cfg.hash_key, o->hash_key, sizeof(cfg.hash_key));
	else
		ret = random_key(cfg.hash_key);
	if (ret)
		return ret;
	loader_config_plan(&cfg, &plan);
	config_from_opts(&cfg, o);
	ret = loader_load_room(&cfg, exact_room_for_memory(max_memory), &lp);
	if (ret)
		return ret;
	loaded = true;
	ret = loader_write_state0(&lp, max_memory);
	if (ret) {
		log_error("cannot write the bookkeeping of %s: %s", ifname, strerror(-ret));
		goto cleanup;
	}

	link_fd = attach_link(ifname, loader_prog_fd(&lp), ifindex, o->mode);
	if (link_fd < 0) {
		ret = link_fd;
		goto cleanup;
	}

	ret = pin_dir_open(ifname, true, &pd);
	if (ret) {
		if (ret == -EEXIST)
			already_attached(ifname);
		goto cleanup;
	}
	pinned = true;
	/* The link last: once it is pinned the attachment outlives this process. */
	ret = attachment_pin_all(&pd, lp.skel, link_fd);
	if (ret)
		goto cleanup;

	record_attach(ifname, o, !restoring, &res->replaced_xdp);
	res->plan = plan;
	res->max_memory = max_memory;
	pinned = false;
cleanup:
	if (pinned)
		attachment_unpin_all(&pd, ifname);
	pin_dir_close(&pd);
	if (link_fd >= 0)
		close(link_fd);
	if (loaded)
		loader_close(&lp);
	return ret;
}

int attach_run(const char *ifname, const struct attach_opts *o, struct attach_result *res)
{
	memset(res, 0, sizeof(*res));
	return do_attach(ifname, o, false, res);
}

const char *attach_result_text(const char *ifname, const struct attach_result *res, char *buf,
			       size_t len)
{
	const struct bloom_plan *plan = &res->plan;
	char progs[XDP_HOOK_TEXT_MAX];
	int n;

	if (res->replaced)
		snprintf(buf, len, "replaced the program of %s in place: its list, counters and "
			 "generation kept", ifname);
	else
		snprintf(buf, len, "attached to %s: %s layout, %llu bits, %u hashes, %llu bytes "
			 "for %llu entries at FPR %g; loads size the filter for their lists, up to "
			 "%llu bytes (--max-memory)", ifname, layout_name(plan->layout),
			 (unsigned long long)plan->bits, plan->hashes,
			 (unsigned long long)plan->bytes, (unsigned long long)plan->capacity,
			 plan->fpr, (unsigned long long)res->max_memory);
	n = strlen(buf);
	if (res->replaced_xdp.n && (size_t)n < len)
		snprintf(buf + n, len - n, "\nreplaced XDP program %s (--force): 'bloomxdp detach "
			 "%s' does not put it back", xdp_hook_text(&res->replaced_xdp, progs,
			 sizeof(progs)), ifname);
	return buf;
}

int attach_restore(const char *ifname, char *settings, const char *state_dir, bool force,
		   const struct attach_filter *filter)
{
	struct attach_opts o = attach_defaults;
	struct attach_result res = {};
	char *line, *save;
	int ret = 0;

	line = settings ? strtok_r(settings, "\n", &save) : NULL;
	if (settings && (!line || strcmp(line, STATE_MAGIC))) {
		log_error("%s: its settings in the state are not of this version: attach it by "
			  "hand", ifname);
		return -EINVAL;
	}
	/* A replaced program's line is skipped here: record_attach() keeps it. */
	while (settings && !ret && (line = strtok_r(NULL, "\n", &save))) {
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
	return do_attach(ifname, &o, true, &res);
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
static void detach_link(const struct pin_dir *pd)
{
	int fd = pin_get(pd->fd, BLOOMXDP_PIN_LINK);

	if (fd < 0)
		return;
	/* ENOLINK: already detached, e.g. the interface is gone. */
	if (bpf_link_detach(fd) && errno != ENOLINK && errno != ENODEV)
		log_warn("cannot detach the link at %s/%s now: %s; it goes with its pin",
			 pd->path, BLOOMXDP_PIN_LINK, strerror(errno));
	close(fd);
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

int detach_run(const char *ifname, const struct detach_opts *o, struct detach_result *res)
{
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
	/* Wait for a load or add in progress. */
	flock(pd.fd, LOCK_EX);
	detach_link(&pd);
	ret = attachment_unpin_all(&pd, ifname);
	if (ret)
		log_error("cannot remove all of %s: %s; see what is left with 'ls %s'", pd.path,
			  strerror(-ret), pd.path);
	else
		res->detached = true;
	pin_dir_close(&pd);
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
		n = snprintf(buf, len, "detached from %s%s%s", ifname, res->before.n ? "\n" : "",
			     xdp_hook_before_text(ifname, &res->before, before, sizeof(before)));
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (res->state == DETACH_FORGOT)
		snprintf(buf + n, len - n, "%sforgot the state of %s", n ? "\n" : "", ifname);
	else if (res->state == DETACH_NOTHING_TO_FORGET)
		snprintf(buf + n, len - n, "%sno state of %s to forget", n ? "\n" : "", ifname);
	return buf;
}
