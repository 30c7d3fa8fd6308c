// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * restore: attach again and reload the lists from the state, after a reboot or
 * lost pins; or a saved filter swapped in (lists/restore.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/attach.h"
#include "kernel/attachment.h"
#include "util/ifname.h"
#include "lists/build.h"
#include "lists/lists.h"
#include "util/log.h"
#include "lists/report.h"
#include "lists/savefile.h"
#include "kernel/state_dir.h"
#include "kernel/xdp_hook.h"
#include "lists/expiry.h"
#include "lists/restore.h"

/* How long a link whose pins were removed may take to leave the interface. */
#define XDP_GONE_WAIT_MS 3000
/* What to do about damaged settings (state_read_sealed()). */
#define SETTINGS_THEN "attach it by hand ('bloomxdp attach IFNAME ...' records them anew)"

/*
 * A link of ours that outlived its pins (something else holds it): detached,
 * so that a new attachment can take the interface. -ENOENT when none.
 */
static int detach_orphan_link(int ifindex, __u32 prog_id)
{
	struct bpf_link_info info;
	__u32 id = 0, len;
	int fd, ret = -ENOENT;

	while (ret == -ENOENT && !bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_XDP &&
		    info.xdp.ifindex == (__u32)ifindex && info.prog_id == prog_id)
			ret = bpf_link_detach(fd) ? -errno : 0;
		close(fd);
	}
	return ret;
}

/*
 * Whether an XDP program still runs on the interface without pins: a link
 * whose pins were just removed goes a little later (an RCU callback, then a
 * work item). *ours: it is bloomxdp's program (restore replaces it); -EBUSY
 * with the error printed when it is another's.
 */
static int xdp_left(const char *ifname, int ifindex, bool *ours)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int waited, fd;

	*ours = false;
	for (waited = 0;; waited += 100) {
		if (bpf_xdp_query(ifindex, 0, &q))
			return -errno;
		if (q.attach_mode == XDP_ATTACHED_NONE)
			return 0;
		if (waited >= XDP_GONE_WAIT_MS)
			break;
		usleep(100 * 1000);
	}
	fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    !strcmp(info.name, "bloomxdp_xdp"))
		*ours = true;
	if (fd >= 0)
		close(fd);
	/* Ours, held by a link that outlived its pins: detached; else attach --force removes it. */
	if (*ours && !detach_orphan_link(ifindex, q.prog_id))
		fprintf(stderr, "bloomxdp: %s: detached the XDP link of bloomxdp's program %u, "
			"which had lost its pins\n", ifname, q.prog_id);
	/* libxdp's dispatcher: attach joins it, or refuses, as the settings' --multiprog says. */
	if (*ours || !strcmp(info.name, XDP_DISPATCHER_NAME))
		return 0;
	log_error("%s: another XDP program (id %u, '%s') runs on it: nothing was restored; "
		  "remove it, then restore", ifname, q.prog_id, info.name);
	return -EBUSY;
}

/* Pins whose program no longer runs (its link detached): removed, as detach would. */
static int remove_stale_pins(const char *ifname)
{
	struct pin_dir pd;
	int ret;

	ret = pin_dir_open(ifname, false, &pd);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	flock(pd.fd, LOCK_EX);
	ret = attachment_unpin_all(&pd, ifname);
	if (ret)
		log_error("%s: cannot remove its stale pins in %s: %s", ifname, pd.path,
			  strerror(-ret));
	pin_dir_close(&pd);
	return ret;
}

/*
 * What runs now: 1 when attached and enforced at the generation the state
 * records (nothing to do), 0 when nothing (or only stale pins) is there, or
 * -errno, printed.
 */
static int live_matches(const char *ifname, const struct state_list *block)
{
	struct link_view link = {};
	struct bloomxdp_state st = {};
	struct attachment att;
	struct pin_dir pd;
	__u32 slot;
	int ret;

	ret = pin_dir_open(ifname, false, &pd);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	pin_dir_close(&pd);
	ret = attachment_open(ifname, false, &att);
	if (ret)
		return ret;
	if (attachment_read_link(&att, &link) || !link.ifindex) {
		attachment_close(&att);
		return remove_stale_pins(ifname);
	}
	ret = attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = attachment_read_state(&att, slot, &st);
	attachment_close(&att);
	if (ret) {
		log_error("%s: cannot read its live generation: %s", ifname, strerror(-ret));
		return ret;
	}
	if (st.generation == block->generation)
		return 1;
	log_error("%s: attached at generation %llu, but the state records generation %llu (a "
		  "load whose state write did not complete, or another state directory): nothing "
		  "was changed; load its list again to record it", ifname,
		  (unsigned long long)st.generation, (unsigned long long)block->generation);
	return -ESTALE;
}

/* A list as the state recorded it, read and checked before anything is attached. */
struct saved_list {
	struct list_inputs in;
	struct list_opts o;
	bool present;
};

static int saved_open(struct saved_list *l, const struct state_dir *sd, const char *state_dir,
		      bool allow)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->o.format = FORMAT_AUTO;
	l->o.prefix_probes = LIST_DEFAULT_PREFIX_PROBES;
	ret = list_inputs_state_at(&l->in, sd, allow ? STATE_ALLOW : STATE_BLOCK, true, true,
				   &l->o);
	l->o.state_dir = state_dir;
	l->present = !ret;
	return ret == -ENOENT ? 0 : ret;
}

static void saved_close(struct saved_list *l)
{
	if (l->present)
		list_inputs_free(&l->in);
	free(l->o.where.items);
}

/* One list from its copies and journals into the new attachment: restore says one line. */
static int reload_list(struct attachment *att, struct saved_list *l)
{
	struct bloomxdp_state st = {};
	struct load_result r;
	__u32 slot;
	int ret;

	if (!l->present)
		return 0;
	if (l->in.n) {
		/* It passed its checks when it was loaded; it may be all journal now. */
		l->o.allow_empty = true;
		load_result_init(&r, att->ifname);
		return list_load_inputs(att, &l->o, &l->in, &r);
	}
	/* Nothing to load: the state records the empty list's generation. */
	ret = attachment_active(att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = attachment_read_state(att, slot, &st);
	if (!ret)
		ret = list_inputs_commit(&l->in, &l->o, st.generation, 0);
	return ret;
}

static void restore_expire(const char *ifname, const char *state_dir)
{
	__u64 expired, next;
	int ret;

	ret = expiry_run(ifname, state_dir, time(NULL), true, &expired, &next, NULL, NULL);
	if (ret && ret != -ENOENT)
		log_warn("%s: entries whose timeout passed could not be taken out of its state: "
			 "they are restored; 'bloomxdp del' them", ifname);
}

/*
 * A group's members (attach IF1 IF2 ...) but the home: what is left of them
 * removed (the group is attached anew, over new maps), and the interface
 * free of an XDP program of ours. *ours: one was (attach --force then).
 */
static int members_clear(char members[][BLOOMXDP_IFNAME_LEN], int n, bool *ours)
{
	int i, ifindex, ret = 0;
	bool theirs;

	for (i = 1; i < n && !ret; i++) {
		ret = detach_pins(members[i]);
		if (!ret)
			ret = check_interface(members[i], &ifindex);
		if (!ret)
			ret = xdp_left(members[i], ifindex, &theirs);
		*ours |= theirs;
	}
	return ret;
}

static int restore_one(const char *ifname, const char *state_dir, bool follow,
		       struct restore_outcome *r);

int restore_state(const char *ifname, const char *state_dir, struct restore_outcome *r)
{
	return restore_one(ifname, state_dir, true, r);
}

/* follow: a member's state leads to its home's, once. */
static int restore_one(const char *ifname, const char *state_dir, bool follow,
		       struct restore_outcome *r)
{
	char members[BLOOMXDP_GROUP_MAX][BLOOMXDP_IFNAME_LEN], home[BLOOMXDP_IFNAME_LEN];
	int n = 0;
	struct saved_list lists[2] = {};	/* allowlist, blocklist */
	struct state_list block = {};
	struct bloomxdp_state st = {};
	struct attachment att;
	struct state_dir sd;
	char *settings = NULL;
	int ifindex, ret, i;
	bool ours, attached = false, legacy;
	size_t len;
	__u32 slot;

	*r = (struct restore_outcome){};
	ret = state_open(state_root(state_dir), ifname, false, &sd);
	if (ret == -ENOENT)
		log_error("%s: no state in %s/%s: nothing to restore (attach and load it by hand)",
			  ifname, state_root(state_dir), ifname);
	if (ret)
		return ret;
	ret = state_read_sealed(&sd, STATE_SETTINGS, SETTINGS_THEN, &settings, &len, &legacy);
	if (ret == -ENOENT)
		log_error("%s: its state in %s holds no settings: attach it by hand", ifname,
			  sd.path);
	if (!ret)
		ret = attach_group_from_settings(ifname, settings, home, members, &n);
	if (!ret && home[0] && follow) {
		/* A group's member: the group is restored from its home. */
		ret = restore_one(home, state_dir, false, r);
		goto out;
	}
	if (!ret && home[0]) {
		log_error("%s: its state names %s as its group's home, whose state names another: "
			  "attach the group by hand", home, ifname);
		ret = -EINVAL;
	}
	if (!ret)
		ret = state_list_read(&sd, STATE_BLOCK, &block);
	if (ret == -ENOENT)
		ret = 0;
	if (ret)
		goto out;
	ret = live_matches(ifname, &block);
	if (ret == 1) {
		r->already = true;
		r->generation = block.generation;
		ret = 0;
		goto out;
	}
	if (!ret)
		ret = check_interface(ifname, &ifindex);
	/* Entries whose time passed while it was down are not brought back (expiry.h). */
	if (!ret)
		restore_expire(ifname, state_dir);
	/* Every copy read and checked before anything is attached. */
	for (i = 0; i < 2 && !ret; i++)
		ret = saved_open(&lists[i], &sd, state_dir, i == 0);
	if (!ret)
		ret = xdp_left(ifname, ifindex, &ours);
	if (!ret)
		ret = members_clear(members, n, &ours);
	if (ret)
		goto out;
	/* attach's and the loads' results are not printed: restore says one line. */
	ret = attach_restore(ifname, settings, state_dir, ours, NULL);
	if (!ret)
		ret = attachment_open(ifname, true, &att);
	if (ret)
		goto out;
	attached = true;
	/* The allowlist first: the blocklist's exceptions then go into it. */
	for (i = 0; i < 2 && !ret; i++)
		ret = reload_list(&att, &lists[i]);
	if (!ret)
		ret = attachment_active(&att, BLOOMXDP_ACTIVE_BLOCK, &slot);
	if (!ret)
		ret = attachment_read_state(&att, slot, &st);
	if (ret) {
		log_error("%s: attached with its settings, but its lists could not be loaded "
			  "(see above): it filters with what was loaded", ifname);
		goto out;
	}
	r->restored = true;
	r->entries = st.entries;
	r->generation = st.generation;
	r->loaded = block.time;
	r->block_inputs = lists[1].in.n;
	r->allow_inputs = lists[0].in.n;
out:
	if (attached)
		attachment_close(&att);
	for (i = 0; i < 2; i++)
		saved_close(&lists[i]);
	state_list_free(&block);
	free(settings);
	state_close(&sd);
	return ret;
}

/*
 * restore --file: a filter saved by 'bloomxdp save', swapped in as a new
 * generation. An interface that is not attached is attached first, with the
 * settings its state records (else the defaults) and the file's layout, FPR
 * and hash key, the one key the filter answers with.
 */
int restore_file(const char *ifname, const char *path, const char *state_dir,
		 struct restore_result *restored)
{
	struct savefile_info info;
	struct attach_filter filter;
	struct attachment att;
	struct pin_dir pd;
	struct state_dir sd;
	char why[256], *settings = NULL;
	bool legacy;
	size_t len;
	int ret;

	ret = savefile_check(path, &info, why, sizeof(why));
	if (ret) {
		log_error("%s: %s; nothing changed", path, why);
		return ret;
	}
	ret = pin_dir_open(ifname, false, &pd);
	pin_dir_close(&pd);
	if (ret == -ENOENT) {
		/* Not attached: settings from the state if it has any, else the defaults. */
		ret = 0;
		if (!state_open(state_root(state_dir), ifname, false, &sd)) {
			ret = state_read_sealed(&sd, STATE_SETTINGS, SETTINGS_THEN, &settings,
						&len, &legacy);
			if (ret == -ENOENT)
				ret = 0;
			state_close(&sd);
		}
		filter = (struct attach_filter){ .layout = info.layout,
						 .fpr = (double)info.fpr_ppb / BLOOMXDP_PPB,
						 .hash_key = info.hash_key };
		/* Damaged settings refused (said): never attached with defaults instead. */
		if (!ret)
			ret = attach_restore(ifname, settings, state_dir, false, &filter);
		free(settings);
	}
	if (ret)
		return ret;
	ret = attachment_open(ifname, true, &att);
	if (ret)
		return ret;
	/* Attached with another key: replaced in place with the file's, in the swap. */
	ret = savefile_apply_any_key(&att, path, restored);
	if (!ret)
		ret = attachment_check_enforced(&att);
	attachment_close(&att);
	return ret;
}

void restore_outcome_print(const char *ifname, const struct restore_outcome *r, FILE *out)
{
	char when[64];
	struct tm tm;

	if (r->already) {
		fprintf(out, "%s: already attached at generation %llu, as its state records: "
			"nothing changed\n", ifname, (unsigned long long)r->generation);
		return;
	}
	if (!r->restored)
		return;
	localtime_r(&(time_t){ r->loaded }, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	fprintf(out, "%s: restored: attached as recorded, %llu blocklist entries from %d input%s "
		"(as loaded %s), allowlist from %d input%s, generation %llu\n", ifname,
		(unsigned long long)r->entries, r->block_inputs, r->block_inputs == 1 ? "" : "s",
		when, r->allow_inputs, r->allow_inputs == 1 ? "" : "s",
		(unsigned long long)r->generation);
}
