#!/usr/bin/env bash
# bloomxdp daemon with a configuration file: it attaches with [attach], loads
# a local list; a change of the file is enforced within its refresh interval;
# SIGHUP applies a new list and a new metrics address, and refuses a broken
# configuration (FILE:LINE) keeping the running one; drop events come out as
# JSON lines; GET /metrics answers 200 (404 elsewhere); SIGTERM exits 0 and
# the filter keeps dropping; SIGHUP with new [attach] settings replaces the
# program in place; started on an attached interface it keeps the attachment
# and loads its blocklist and allowlist. Speaks TAP; needs root; about 25 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "daemon tests" curl python3
e2e_install_trap

C4_FIRST=192.0.2.60	# in the list at start
C4_NEXT=192.0.2.61	# in the list once the file changes
C4_OTHER=192.0.2.62	# in the list that SIGHUP adds
if ! topo_up "$C4_FIRST" "$C4_NEXT" "$C4_OTHER"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

CONF=$E2E_TMP/$IF_SRV.conf
ONE=$E2E_TMP/one.txt
TWO=$E2E_TMP/two.txt
OUT=$E2E_TMP/daemon.out
ERR=$E2E_TMP/daemon.err
# The daemon runs in the server's network namespace: these ports are its own.
PORT1=9725
PORT2=9726

# write_conf METRICS_PORT [EXTRA_SECTION_LINES...]; ACTION: attach's action.
ACTION=drop
write_conf() {
	local port=$1
	shift
	cat >"$CONF.tmp" <<EOF
# bloomxdp daemon test
[attach]
action = $ACTION
capacity = 1000
fpr = 1%
match = src
events-per-sec = 1000

[list one]
source = $ONE
refresh = 1s

[daemon]
state_dir = $E2E_TMP/state
metrics = 127.0.0.1:$port
events = json
EOF
	printf '%s\n' "$@" >>"$CONF.tmp"
	mv "$CONF.tmp" "$CONF"
}

# Replaces a list file at once, as an operator's tool should (rename).
write_list() {
	printf '%s\n' "${@:2}" >"$1.tmp"
	mv "$1.tmp" "$1"
}

http_code() {
	in_srv curl -s -o /dev/null -m 3 -w '%{http_code}' "http://127.0.0.1:$1$2"
}

# received SRC: how many of 10 pings from SRC got a reply.
received() {
	local r
	r=$(ping_recv "$1" "$SRV4" 10 0.02)
	echo "${r#* }"
}

write_list "$ONE" "$C4_FIRST"
write_conf "$PORT1"
check "check-config accepts the configuration" "$BLOOMXDP" check-config "$CONF"

check_fails "a daemon with a broken configuration does not start, naming FILE:LINE" 1 \
	"$CONF.bad:3: fpr = 2" bash -c "printf '[attach]\n\nfpr = 2\n' >'$CONF.bad' &&
	timeout 10 nsenter --net=/run/netns/$NS_SRV -- '$BLOOMXDP' daemon '$IF_SRV' \
	--config '$CONF.bad'"
check_eq "... and attached nothing" "" "$(xdp_on_if)"

# nsenter execs the daemon: BG_PID is the daemon's own PID, for the signals.
bg_start nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" --config "$CONF" \
	>"$OUT" 2>"$ERR"
DPID=$BG_PID
if wait_log 'blocklist loaded' 1 15; then
	ok "the daemon attached and loaded its list"
else
	not_ok "the daemon attached and loaded its list" "$(cat "$ERR")"
fi
check_eq "the listed source is dropped, the others pass" "0 10 10" \
	"$(received "$C4_FIRST") $(received "$C4_NEXT") $(received "$C4_OTHER")"

# The file changes: enforced within the refresh interval (1 s), with a margin.
t0=$(date +%s%N)
write_list "$ONE" "$C4_NEXT"
if wait_log 'blocklist loaded' 2 5; then
	ok "the changed list file was loaded in $((($(date +%s%N) - t0) / 1000000)) ms (refresh 1s)"
else
	not_ok "the changed list file was loaded within 5 s (refresh 1s)" "$(cat "$ERR")"
fi
check_eq "the new list is enforced: the old source passes, the new one is dropped" "10 0 10" \
	"$(received "$C4_FIRST") $(received "$C4_NEXT") $(received "$C4_OTHER")"

check_eq "GET /metrics answers 200" 200 "$(http_code "$PORT1" /metrics)"
check_eq "GET / answers 404" 404 "$(http_code "$PORT1" /)"
check_eq "the metrics server listens on the configured address only" "127.0.0.1:$PORT1" \
	"$(in_srv ss -Htln "sport = :$PORT1" | awk '{print $4}' | sort -u | paste -sd' ')"
body=$(in_srv curl -s -m 3 "http://127.0.0.1:$PORT1/metrics")
check_eq "the metrics count the loads" "bloomxdp_daemon_list_loads_total{ifname=\"$IF_SRV\"} 2" \
	"$(grep '^bloomxdp_daemon_list_loads_total' <<<"$body")" "$body"

# SIGHUP: a second list and another metrics address.
write_list "$TWO" "$C4_OTHER"
write_conf "$PORT2" "" "[list two]" "source = $TWO" "refresh = 1h"
kill -HUP "$DPID"
if wait_log 'applied' 1 10 && wait_log 'blocklist loaded' 3 5; then
	ok "SIGHUP: the new configuration was applied"
else
	not_ok "SIGHUP: the new configuration was applied" "$(cat "$ERR")"
fi
check_eq "the new list is enforced alongside the first" "10 0 0" \
	"$(received "$C4_FIRST") $(received "$C4_NEXT") $(received "$C4_OTHER")"
check_eq "metrics moved to the new address (200 there, none at the old)" "200 000" \
	"$(http_code "$PORT2" /metrics) $(http_code "$PORT1" /metrics)"

# SIGHUP with a broken configuration: refused, the running one kept.
cp "$CONF" "$CONF.good"
printf '[list three]\nrefresh = 1h\n[list one]\nsource = /x\n' >>"$CONF"
kill -HUP "$DPID"
if wait_log 'refused' 1 10; then
	ok "SIGHUP with a broken configuration: refused"
else
	not_ok "SIGHUP with a broken configuration: refused" "$(cat "$ERR")"
fi
check_eq "... naming FILE:LINE of each error" 2 \
	"$(grep -cE "$CONF:(2[0-9]|3[0-9]): " "$ERR")" "$(cat "$ERR")"
check_eq "... the daemon runs on" 0 "$(kill -0 "$DPID" 2>/dev/null; echo $?)"
check_eq "... and the lists are as before" "10 0 0" \
	"$(received "$C4_FIRST") $(received "$C4_NEXT") $(received "$C4_OTHER")"
check_eq "... and so are the metrics" 200 "$(http_code "$PORT2" /metrics)"
# The refresh timers run on under the old settings.
write_list "$ONE" "$C4_FIRST" "$C4_NEXT"
if wait_log 'blocklist loaded' 4 5; then
	ok "... and so do the refresh timers"
else
	not_ok "... and so do the refresh timers" "$(cat "$ERR")"
fi

# The drops above came out as JSON lines, one object each.
events=$(python3 - "$OUT" "$C4_FIRST" "$C4_NEXT" "$C4_OTHER" <<'EOF'
import json, sys
srcs = {}
bad = 0
for line in open(sys.argv[1]):
    try:
        ev = json.loads(line)
    except ValueError:
        bad += 1
        continue
    if ev.get("verdict") == "drop" and ev.get("field") == "src":
        srcs[ev.get("src")] = srcs.get(ev.get("src"), 0) + 1
print(bad, " ".join(str(min(srcs.get(s, 0), 1)) for s in sys.argv[2:]))
EOF
)
check_eq "events: only JSON lines on standard output, drops of each listed source" "0 1 1 1" \
	"$events" "$(head -n 3 "$OUT")"

# SIGHUP: [attach] changed (monitor: count, pass), a list removed.
ACTION=monitor
write_conf "$PORT2"
kill -HUP "$DPID"
# The removed list is dropped; the one kept is not loaded again (its copy is as loaded).
if wait_log 'applied' 2 10 && wait_log 'list [a-z]*: removed' 1 5; then
	ok "SIGHUP: new [attach] settings and a list removed"
else
	not_ok "SIGHUP: new [attach] settings and a list removed" "$(cat "$ERR")"
fi
check_eq "... the program was replaced in place, with action monitor" "monitor" \
	"$(json_str "$(status_json)" action)" "$(tail -n 5 "$ERR")"
check_eq "... every source passes" "10 10 10" \
	"$(received "$C4_FIRST") $(received "$C4_NEXT") $(received "$C4_OTHER")"
ACTION=drop
write_conf "$PORT2"
kill -HUP "$DPID"
wait_log 'applied' 3 10
check_eq "SIGHUP back to drop: the sources of the remaining list are dropped" "0 0 10" \
	"$(received "$C4_FIRST") $(received "$C4_NEXT") $(received "$C4_OTHER")"

# SIGTERM: exit 0, the filter stays.
kill -TERM "$DPID"
wait_pid "$DPID" 10
rc=$?
bg_forget "$DPID"
check_eq "SIGTERM: the daemon exits 0" 0 "$rc" "$(tail -n 3 "$ERR")"
check_eq "... leaving the filter attached and enforcing the last lists" "0 0 10" \
	"$(received "$C4_FIRST") $(received "$C4_NEXT") $(received "$C4_OTHER")"

# Started again on the attached interface (as after 'restore'): the attachment is kept;
# with an allowlist this time.
prog=$(json_num "$(status_json)" prog_id)
ALLOW=$E2E_TMP/allow.txt
write_list "$ONE" "$C4_FIRST" "$C4_OTHER"
write_list "$ALLOW" "$C4_FIRST"
write_conf "$PORT2" "[allowlist]" "source = $ALLOW"
bg_start nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" --config "$CONF" \
	>"$OUT" 2>"$ERR"
DPID=$BG_PID
if wait_log 'allowlist loaded' 1 15 && grep -q 'attached already' "$ERR"; then
	ok "a daemon started on an attached interface keeps the attachment and loads its lists"
else
	not_ok "a daemon started on an attached interface keeps the attachment and loads its \
lists" "$(cat "$ERR")"
fi
check_eq "... same program, the list file as it is now, the allowlisted source passes" \
	"$prog 10 10 0" \
	"$(json_num "$(status_json)" prog_id) $(received "$C4_FIRST") $(received "$C4_NEXT") \
$(received "$C4_OTHER")"
kill -INT "$DPID"
wait_pid "$DPID" 10
rc=$?
bg_forget "$DPID"
check_eq "SIGINT: the daemon exits 0" 0 "$rc" "$(tail -n 3 "$ERR")"

tap_finish
