// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * attach's option table: the command line (cli/cmd_attach.c), [attach] of a
 * configuration (service/config.c) and the settings the state records (attach.c).
 */
#include <stddef.h>

#include "filter/layout.h"
#include "filter/match.h"
#include "kernel/attach.h"
#include "kernel/state_dir.h"
#include "util/numbers.h"

/* More would be a packet capture, not a log of drops. */
#define MAX_EVENTS_PER_SEC 1000000
/* Default of --events-per-sec: per CPU, enough to see a flood, not to be flooded. */
#define DEFAULT_EVENTS_PER_SEC 100
/* Default of --icmp-per-sec: per CPU, as the kernel's own net.ipv4.icmp_msgs_per_sec. */
#define DEFAULT_ICMP_PER_SEC 1000
/* --learn-ttl-max at most: a day. */
#define LEARN_TTL_MAX_MAX 86400

static const struct enum_value action_values[] = {
	ENUM_VALUE("drop", BLOOMXDP_ACTION_DROP, "drop the packet"),
	ENUM_VALUE("monitor", BLOOMXDP_ACTION_MONITOR, "count it as would_drop, and pass it"),
	ENUM_VALUE("reject", BLOOMXDP_ACTION_REJECT,
		   "TCP: a RST; UDP: ICMP port unreachable; else drop"),
	{}
};

const char *attach_action_name(__u32 action)
{
	return enum_value_name(action_values, action);
}

static const struct enum_value dns_reply_values[] = {
	ENUM_VALUE("none", BLOOMXDP_DNS_REPLY_NONE, "follow --action"),
	ENUM_VALUE("nxdomain", BLOOMXDP_DNS_REPLY_NXDOMAIN, "answer NXDOMAIN from XDP at once"),
	{}
};

static const struct enum_value verify_values[] = {
	ENUM_VALUE("auto", BLOOMXDP_VERIFY_AUTO, "when it fits in a quarter of --max-memory"),
	ENUM_VALUE("on", BLOOMXDP_VERIFY_ON, "always (a load it cannot fit in is refused)"),
	ENUM_VALUE("off", BLOOMXDP_VERIFY_OFF, "never: a Bloom hit drops"),
	ENUM_ALIAS("true", BLOOMXDP_VERIFY_ON), ENUM_ALIAS("yes", BLOOMXDP_VERIFY_ON),
	ENUM_ALIAS("1", BLOOMXDP_VERIFY_ON), ENUM_ALIAS("false", BLOOMXDP_VERIFY_OFF),
	ENUM_ALIAS("no", BLOOMXDP_VERIFY_OFF), ENUM_ALIAS("0", BLOOMXDP_VERIFY_OFF),
	{}
};

static const struct enum_value policy_values[] = {
	ENUM_VALUE("pass", BLOOMXDP_POLICY_PASS, "pass it, counted"),
	ENUM_VALUE("drop", BLOOMXDP_POLICY_DROP, "drop it, whatever the lists say"),
	{}
};

static const struct enum_value mode_values[] = {
	ENUM_VALUE("native", ATTACH_MODE_NATIVE, "in the driver"),
	ENUM_VALUE("generic", ATTACH_MODE_GENERIC, "after the driver (skb), for any interface"),
	ENUM_VALUE("auto", ATTACH_MODE_AUTO,
		   "native; generic, with a notice saying why, where refused"),
	ENUM_ALIAS("skb", ATTACH_MODE_GENERIC),
	{}
};

static const struct enum_value direction_values[] = {
	ENUM_VALUE("ingress", ATTACH_DIR_INGRESS, "arriving packets (XDP, or tc with --hook tc)"),
	ENUM_VALUE("egress", ATTACH_DIR_EGRESS, "leaving packets (tc), the host's own included"),
	ENUM_VALUE("both", ATTACH_DIR_BOTH, "both, with the same lists"),
	{}
};

static const struct enum_value hook_values[] = {
	ENUM_VALUE("xdp", BLOOMXDP_HOOK_XDP, "in the driver, before the stack (fastest)"),
	ENUM_VALUE("tc", BLOOMXDP_HOOK_TC, "tc ingress: tcx (clsact before Linux 6.6), beside others"),
	{}
};

static const struct enum_value multiprog_values[] = {
	ENUM_VALUE("auto", ATTACH_MULTIPROG_AUTO, "join a dispatcher on the hook; else a link"),
	ENUM_VALUE("yes", ATTACH_MULTIPROG_YES, "join one, or make one (refused if it cannot)"),
	ENUM_VALUE("no", ATTACH_MULTIPROG_NO, "bloomxdp's own link; --force replaces one"),
	{}
};

#define A(field) offsetof(struct attach_opts, field)
const struct option_spec attach_options[] = {
	OPTION("capacity", 'c', OPT_COUNT, A(capacity), "N",
	       "keys the empty filter is sized for (each load\n"
	       "then sizes its filter for its list)",
	       .min = 1, .max = COUNT_MAX),
	OPTION("max-memory", 0, OPT_COUNT, A(max_memory), "BYTES",
	       "memory a filter (and its exact copy) may take:\n"
	       "a list that needs more is refused ('64M' is\n"
	       "64,000,000; default 256 MiB, or an eighth of the\n"
	       "memory of a smaller machine)",
	       .min = MAX_MEMORY_MIN, .max = COUNT_MAX,
	       .given = OPTION_GIVEN(struct attach_opts, max_memory_given)),
	OPTION("fpr", 'p', OPT_RATE, A(fpr), "P", "target false-positive rate at capacity"),
	OPTION("match", 'm', OPT_ENUM_SET, A(match), "WHAT", "what is looked up, a comma list",
	       .values = match_values),
	OPTION("dns-ports", 0, OPT_PORTS, A(dns_ports), "P",
	       "UDP ports of DNS queries (and the ports DNS\n"
	       "responses come from, --match dns-answers), a comma\n"
	       "list of up to 4"),
	OPTION("http-ports", 0, OPT_PORTS, A(http_ports), "P", "TCP ports of HTTP requests"),
	OPTION("tls-ports", 0, OPT_PORTS, A(tls_ports), "P", "TCP ports of TLS ClientHellos"),
	OPTION("quic-ports", 0, OPT_PORTS, A(quic_ports), "P",
	       "UDP ports of QUIC Initials, whose ClientHello's SNI\n"
	       "--match sni reads too (v1 and v2)"),
	OPTION("quic-unparsed", 0, OPT_ENUM, A(quic_unparsed), "WHAT",
	       "on a QUIC Initial whose SNI cannot be read (drop: the\n"
	       "client falls back to TCP, where it can)",
	       .values = policy_values),
	OPTION("quic-budget", 0, OPT_COUNT, A(quic_per_sec), "N",
	       "QUIC Initials decrypted per CPU and second (0: none);\n"
	       "past it they are handled as unparsed\n"
	       "(quic_budget_spent)",
	       .min = 0, .max = MAX_EVENTS_PER_SEC),
	OPTION("ech", 0, OPT_ENUM, A(ech), "WHAT",
	       "on a ClientHello (TLS or QUIC) with Encrypted Client\n"
	       "Hello, whose SNI names only the provider",
	       .values = policy_values),
	OPTION("dns-reply", 0, OPT_ENUM, A(dns_reply), "R",
	       "on a blocked DNS query (and, with --match\ndns-answers, a blocked response)",
	       .values = dns_reply_values),
	OPTION("learn-ttl-max", 0, OPT_DURATION, A(learn_ttl_max), "DURATION",
	       "how long an address learned from a DNS answer\n"
	       "(load --learn) is held at most; its TTL, held to\n"
	       "30s at least, applies below it",
	       .min = BLOOMXDP_LEARN_TTL_MIN, .max = LEARN_TTL_MAX_MAX),
	OPTION("doh-canary", 0, OPT_FLAG, A(doh_canary), NULL,
	       "answer use-application-dns.net NXDOMAIN, which tells\n"
	       "Firefox not to turn on DNS over HTTPS by default on\n"
	       "this network (needs --dns-reply nxdomain and --match\n"
	       "dns or dns-answers)"),
	OPTION("action", 'a', OPT_ENUM, A(action), "WHAT", "on a hit", .values = action_values),
	OPTION("mode", 0, OPT_ENUM, A(mode), "MODE", "XDP mode", .values = mode_values),
	OPTION("direction", 0, OPT_ENUM, A(direction), "D",
	       "the traffic checked; fields go by role: src is the\n"
	       "remote host (the source of an arriving packet, the\n"
	       "destination of a leaving one), dst the local address",
	       .values = direction_values),
	OPTION("hook", 0, OPT_ENUM, A(hook), "H", "where ingress is checked",
	       .values = hook_values),
	OPTION("multiprog", 0, OPT_ENUM, A(multiprog), "M",
	       "XDP beside other programs, as a component of libxdp's\n"
	       "dispatcher (priority 10, going on after XDP_PASS;\n"
	       "'xdp-loader status IFNAME' lists it)",
	       .values = multiprog_values),
	OPTION("layout", 0, OPT_ENUM, A(layout), "L",
	       "how the filter lies in memory ('bloomxdp plan' shows\nthem side by side)",
	       .values_fn = layout_values),
	OPTION("verify", 0, OPT_ENUM_FLAG, A(verify), "WHEN",
	       "keep an exact copy of the list in the kernel and drop\n"
	       "only what it confirms: no false positive is dropped;\n"
	       "costs memory (plan --verify); alone: on; auto is\n"
	       "decided again at each load",
	       .values = verify_values, .bare = BLOOMXDP_VERIFY_ON),
	OPTION("events-per-sec", 0, OPT_COUNT, A(events_per_sec), "N",
	       "drop events for 'bloomxdp watch', per CPU and\nsecond (0: none)",
	       .min = 0, .max = MAX_EVENTS_PER_SEC),
	OPTION("icmp-per-sec", 0, OPT_COUNT, A(icmp_per_sec), "N",
	       "ICMP port unreachables --action reject sends,\nper CPU and second (over it: dropped)",
	       .min = 0, .max = MAX_EVENTS_PER_SEC),
	OPTION("cgroup", 0, OPT_TEXT, A(cgroup), "PATH",
	       "the socket guard: a connect() or UDP sendmsg() to a\n"
	       "listed address (as --match src looks up the remote\n"
	       "host) fails at once with EPERM, for every socket of\n"
	       "this network namespace whose process is in the cgroup\n"
	       "v2 directory PATH or below it ('root': the whole\n"
	       "hierarchy; 'none': no guard); with --direction\n"
	       "egress|both it is on for the whole hierarchy unless\n"
	       "--cgroup says otherwise"),
	OPTION("force", 'f', OPT_FLAG, A(force), NULL,
	       "replace another XDP program already on IFNAME\n"
	       "(named, and recorded for status and detach; not\n"
	       "put back by detach)"),
	OPTION_STATE_DIR(struct attach_opts),
	{}
};
#undef A

const struct attach_opts attach_defaults = {
	.capacity = DEFAULT_CAPACITY, .fpr = DEFAULT_FPR,
	.match = BLOOMXDP_MATCH_SRC, .action = BLOOMXDP_ACTION_DROP, .mode = ATTACH_MODE_AUTO,
	.dns_ports = { BLOOMXDP_DNS_PORT }, .http_ports = { BLOOMXDP_HTTP_PORT },
	.tls_ports = { BLOOMXDP_TLS_PORT }, .events_per_sec = DEFAULT_EVENTS_PER_SEC,
	.icmp_per_sec = DEFAULT_ICMP_PER_SEC,
	.quic_ports = { BLOOMXDP_QUIC_PORT }, .quic_per_sec = BLOOMXDP_QUIC_PER_SEC,
	.learn_ttl_max = BLOOMXDP_LEARN_TTL_MAX_DEFAULT,
	.layout = DEFAULT_LAYOUT, .verify = BLOOMXDP_VERIFY_AUTO,
	.direction = ATTACH_DIR_INGRESS, .hook = BLOOMXDP_HOOK_XDP,
};
