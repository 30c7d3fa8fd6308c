/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The lifetime of an attachment: attach (the XDP program loaded on an
 * interface with an empty filter, pinned, its settings recorded in the state
 * for restore), attach --force over an attachment of ours (a new program over
 * the live maps, swapped in by one link update), detach (every pin removed;
 * with forget, the state too). The command line, the daemon's [attach] and a
 * fleet node come through here; what was done comes back as a value, for the
 * caller to say. Errors are said on stderr; -errno.
 */
#ifndef BLOOMXDP_ATTACH_H
#define BLOOMXDP_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <bloomxdp/common.h>

#include "filter/bloom_plan.h"
#include "util/options.h"
#include "kernel/xdp_hook.h"

/* --mode: where XDP runs. */
enum attach_mode { ATTACH_MODE_AUTO, ATTACH_MODE_NATIVE, ATTACH_MODE_GENERIC };
/*
 * --multiprog: auto joins a libxdp dispatcher already on the hook, yes joins
 * or makes one, no attaches through bloomxdp's own link (kernel/multiprog.h).
 */
enum attach_multiprog { ATTACH_MULTIPROG_AUTO, ATTACH_MULTIPROG_YES, ATTACH_MULTIPROG_NO };

/* --cgroup none: no socket guard, not even with egress. */
#define ATTACH_CGROUP_NONE "none"

/* --direction: which packet programs run (bits: ingress, egress). */
enum attach_direction {
	ATTACH_DIR_INGRESS = 1,
	ATTACH_DIR_EGRESS = 2,
	ATTACH_DIR_BOTH = 3,
};

/* attach's options, as the command line, [attach] and the state's settings give them. */
struct attach_opts {
	__u64 capacity;
	double fpr;
	__u32 match;
	__u32 action;
	__u32 dns_reply;
	__u16 dns_ports[BLOOMXDP_MAX_PORTS];
	__u16 http_ports[BLOOMXDP_MAX_PORTS];
	__u16 tls_ports[BLOOMXDP_MAX_PORTS];
	__u16 quic_ports[BLOOMXDP_MAX_PORTS];
	__u32 quic_unparsed;	/* enum bloomxdp_policy */
	__u32 ech;		/* enum bloomxdp_policy */
	__u64 quic_per_sec;	/* --quic-budget: Initials decrypted per CPU and second */
	__u64 learn_ttl_max;	/* --learn-ttl-max: seconds a learned address is held at most */
	bool doh_canary;	/* --doh-canary: BLOOMXDP_DOH_CANARY answered NXDOMAIN */
	__u32 mode;		/* enum attach_mode */
	__u32 direction;	/* enum attach_direction */
	__u32 hook;		/* enum bloomxdp_hook of ingress (egress is tc) */
	__u32 multiprog;	/* enum attach_multiprog */
	bool force;
	__u32 verify;		/* enum bloomxdp_verify */
	__u64 events_per_sec;
	__u64 icmp_per_sec;	/* reject's ICMP answers, per CPU and second */
	__u32 layout;
	__u64 max_memory;
	bool max_memory_given;
	const char *state_dir;
	const char *cgroup;	/* --cgroup: the socket guard on that cgroup (kernel/guard.h) */
	const __u64 *hash_key;	/* restore --file: the file's key; NULL: a new random one */
};

/*
 * attach's one option table (attach_options.c): it parses the command line
 * and prints --help, the manual page and completion (cli/cmd_attach.c), reads
 * [attach] of a configuration and records the settings in the state.
 */
extern const struct option_spec attach_options[];
extern const struct attach_opts attach_defaults;
/* --action's name of enum bloomxdp_action. */
const char *attach_action_name(__u32 action);

/* How attach says a program that joined libxdp's dispatcher is attached. */
#define ATTACH_VIA_MULTIPROG "XDP, in libxdp's dispatcher"

/* What attach did. */
struct attach_result {
	bool replaced;		/* --force over an attachment of ours: its program swapped */
	__u32 direction;	/* enum attach_direction */
	const char *ingress_via;	/* "XDP", "tcx", "clsact": how each program is attached */
	const char *egress_via;
	struct bloom_plan plan;	/* else: the empty filter attached */
	__u64 max_memory;	/* ... and the most a load's filter may take */
	struct xdp_hook replaced_xdp;	/* another tool's program, removed by --force */
	bool multiprog;		/* XDP ingress joined libxdp's dispatcher (--multiprog) */
};

/*
 * Attaches to ifname as o says (attach --force on an attachment of ours:
 * replaces its program over the live maps, its list kept).
 */
int attach_run(const char *ifname, const struct attach_opts *o, struct attach_result *res);
/* The line attach prints of what it did ("attached to ...", "replaced the program of ..."). */
#define ATTACH_TEXT_MAX 1024
const char *attach_result_text(const char *ifname, const struct attach_result *res, char *buf,
			       size_t len);

/* What a saved filter needs of the attachment it goes into (restore --file, a fleet node). */
struct attach_filter {
	__u32 layout;
	double fpr;
	const __u64 *hash_key;
};

/*
 * attach with the settings the state recorded (settings: their text, cut
 * up here; NULL: the defaults), its lists left for the caller to load;
 * force: replace the XDP program already there; filter: with the layout, FPR
 * and hash key of a saved filter.
 */
int attach_restore(const char *ifname, char *settings, const char *state_dir, bool force,
		   const struct attach_filter *filter);

/*
 * attach with o (NULL: the defaults) but the layout, FPR and hash key of a
 * saved filter: a fleet node, whose every version is compiled with the
 * fleet's key. Never --force.
 */
int attach_with_filter(const char *ifname, const struct attach_opts *o,
		       const struct attach_filter *filter, struct attach_result *res);

/*
 * attach IF1 IF2 ...: one set of lists for all of them (BLOOMXDP_PIN_GROUP).
 * The first, the home, is attached as attach_run() does; each other gets a
 * program of its own (its configuration, counters, list hits) over the
 * home's maps, pinned in its own directory with the same maps. res: the
 * home's. The settings record the group: the home's line names the members
 * (ATTACH_GROUP_MEMBERS_KEY), each member's its home (ATTACH_GROUP_HOME_KEY).
 */
#define ATTACH_GROUP_MEMBERS_KEY "group-members"
#define ATTACH_GROUP_HOME_KEY "group-home"
#define ATTACH_GROUP_LINE_MAX (32 + BLOOMXDP_GROUP_MAX * BLOOMXDP_IFNAME_LEN)
int attach_group_run(char *const *ifnames, int n, const struct attach_opts *o,
		     struct attach_result *res);
/* The lines attach IF1 IF2 ... prints of its members (after attach_result_text()'s). */
const char *attach_group_text(char *const *ifnames, int n, char *buf, size_t len);
/*
 * A group's names from settings (their text, not changed): *home set from a
 * member's (ATTACH_GROUP_HOME_KEY), members[] (n of them, the home first) from
 * the home's. 0 and *n 0, *home "" when it names no group; -EINVAL when a
 * line is not one this bloomxdp reads.
 */
int attach_group_from_settings(const char *ifname, const char *settings,
			       char home[BLOOMXDP_IFNAME_LEN],
			       char members[BLOOMXDP_GROUP_MAX][BLOOMXDP_IFNAME_LEN], int *n);
/*
 * A member's programs off its interface and its pins removed, without the
 * writers' lock or its group's consent (restore, rebuilding a group). -errno.
 */
int detach_pins(const char *ifname);

/* detach's options. */
struct detach_opts {
	bool forget;		/* the state too */
	const char *state_dir;
};

/* What detach did. */
struct detach_result {
	bool detached;		/* the program and every pin */
	enum { DETACH_KEPT, DETACH_FORGOT, DETACH_NOTHING_TO_FORGET } state;
	struct xdp_hook before;	/* what attach --force replaced, as the state recorded it */
	char left[BLOOMXDP_IFNAME_LEN];	/* a member: the home of the group it left */
};

/*
 * Detaches ifname and removes every pin; with o->forget, its state too (also
 * when it is not attached). On an error, res says what was done before it.
 */
int detach_run(const char *ifname, const struct detach_opts *o, struct detach_result *res);
/* The lines detach prints of what it did ("detached from ...", ...); "": nothing. */
#define DETACH_TEXT_MAX 768
const char *detach_result_text(const char *ifname, const struct detach_result *res, char *buf,
			       size_t len);

#endif
