#!/usr/bin/env bash
# The daemon under systemd, without systemd (it is not PID 1 here): what the
# unit's Type=notify and WatchdogSec= read of it. NOTIFY_SOCKET names a unix
# datagram socket of the test's (tests/e2e/notify_listen.py), WATCHDOG_USEC=1 s:
# READY=1 comes once the list is enforced (at that moment a listed source is
# blocked, the load is in the log), with a STATUS= that says so; WATCHDOG=1
# every half second; RELOADING=1 then READY=1 around a SIGHUP; STOPPING=1 on
# SIGTERM. Then the journal: in a private mount namespace, a /run of its own
# where a listener owns journald's socket (/run/systemd/journal/socket), and
# JOURNAL_STREAM naming the daemon's stderr: each line is a journal entry with
# PRIORITY=, MESSAGE=, INTERFACE=, LIST=, EVENT=, and stderr holds none of them;
# with a JOURNAL_STREAM that is not its stderr, the log stays on stderr and the
# journal gets nothing. Speaks TAP; needs root, unshare, python3; about 14 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "daemon notify tests" unshare python3
e2e_install_trap

LISTED=192.0.2.70
UNLISTED=192.0.2.71
if ! topo_up "$LISTED" "$UNLISTED"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

LISTEN=$E2E_ROOT/tests/e2e/notify_listen.py
CONF=$E2E_TMP/$IF_SRV.conf
LIST=$E2E_TMP/list.txt
ERR=$E2E_TMP/daemon.err
SOCK=$E2E_TMP/notify.sock
NOTES=$E2E_TMP/notify.txt
# The listed source among 200,000 other addresses: the load takes a while, so that a READY=1
# sent before it ends would be read with the source not blocked yet.
python3 -c '
import sys
print(sys.argv[1])
for i in range(200000):
    print("10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255))' "$LISTED" >"$LIST"
printf '%s\n' "[attach]" "capacity = 300000" "fpr = 1%" "match = src" "" "[list local]" \
	"source = $LIST" "refresh = 0" "" "[daemon]" "state_dir = $E2E_TMP/state" \
	"events = none" >"$CONF"

# What holds when READY=1 is read: query's verdicts, and the loads the log said by then.
printf '%s\n' "nsenter --net=/run/netns/$NS_SRV -- '$BLOOMXDP' query '$IF_SRV' '$LISTED' \
'$UNLISTED' | sed 's/ (.*//'" "grep -c 'blocklist loaded' '$ERR'" >"$E2E_TMP/at_ready.sh"
bg_start timeout 60 python3 "$LISTEN" notify "$SOCK" "$NOTES" bash "$E2E_TMP/at_ready.sh"
LPID=$BG_PID
for ((i = 0; i < 40; i++)); do [ -S "$SOCK" ] && break; sleep 0.05; done

# env and nsenter exec the daemon: BG_PID is the daemon's own PID, for the signals.
bg_start env NOTIFY_SOCKET="$SOCK" WATCHDOG_USEC=1000000 \
	nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" --config "$CONF" \
	>"$E2E_TMP/daemon.out" 2>"$ERR"
DPID=$BG_PID
ready=0
wait_log 'READY=1' 1 20 "$NOTES" && ready=1
check_eq "the daemon tells NOTIFY_SOCKET READY=1" 1 "$ready" "$(cat "$NOTES" "$ERR")"
for ((i = 0; i < 100; i++)); do [ -s "$NOTES.ready" ] && break; sleep 0.05; done
sleep 0.2
check_eq "at READY=1 the list is enforced: the listed source is blocked, the other not" \
	"$LISTED: blocked
$UNLISTED: not blocked" "$(head -n 2 "$NOTES.ready")" "$(cat "$NOTES.ready" "$NOTES")"
check_eq "... and the log had said the load" 1 "$(sed -n 3p "$NOTES.ready")"
ready_line=$(grep -m1 'READY=1' "$NOTES")
check "... READY=1 comes with a STATUS= of the sources enforced" \
	grep -q 'STATUS=1 of 1 source enforced (200001 entries' <<<"$ready_line"
before=$(sed -n '/READY=1/q;p' "$NOTES" | grep -o 'STATUS=[^|]*' | paste -sd';')
diag "STATUS= before READY=1: $before"
check "... and the STATUS= before it say the start" grep -q 'starting.*attached; loading 1 source' \
	<<<"$before"
check_eq "the listed source is dropped, the other passes" "0 3" \
	"$(ping_recv "$LISTED" "$SRV4" 3 0.05 | cut -d' ' -f2) $(ping_recv "$UNLISTED" "$SRV4" 3 \
	0.05 | cut -d' ' -f2)"

# The watchdog: WATCHDOG_USEC=1 s, a WATCHDOG=1 every 0.5 s, whatever the loop waits for.
sleep 3
pings=$(awk -v t0="${ready_line%% *}" '$1 > t0 && $1 <= t0 + 3 && /WATCHDOG=1/ { print $1 }' \
	"$NOTES")
gaps=$(awk 'NR > 1 { printf "%.3f\n", $1 - last } { last = $1 }' <<<"$pings")
n=$(grep -c . <<<"$pings")
diag "WATCHDOG=1 in the 3 s after READY=1: $n pings, gaps (s): $(paste -sd' ' <<<"$gaps")"
check "WATCHDOG=1 about every 0.5 s (WATCHDOG_USEC=1000000): 5 to 7 in the 3 s after READY=1" \
	test "$n" -ge 5 -a "$n" -le 7
check_eq "... no gap over 0.75 s, none under 0.45 s" "" \
	"$(awk '$1 > 0.75 || $1 < 0.45' <<<"$gaps")" "$gaps"

# SIGHUP: RELOADING=1, then READY=1 with the status again.
kill -HUP "$DPID"
wait_log 'READY=1' 2 10 "$NOTES"
check_eq "SIGHUP: RELOADING=1, then READY=1" "RELOADING=1 READY=1" \
	"$(grep -oE '(RELOADING|READY)=1' "$NOTES" | tail -n 2 | paste -sd' ')" "$(cat "$NOTES")"

kill -TERM "$DPID"
wait_pid "$DPID" 10
check_eq "SIGTERM: the daemon exits 0" 0 "$?"
check "... having told STOPPING=1" grep -q 'STOPPING=1' "$NOTES"
check "... and its log went to stderr as without systemd (no JOURNAL_STREAM)" \
	grep -q "^bloomxdp: daemon $IF_SRV: blocklist loaded from 1 source" "$ERR"
check_eq "the filter stays: the listed source is still dropped" "0" \
	"$(ping_recv "$LISTED" "$SRV4" 3 0.05 | cut -d' ' -f2)"
stop_pid "$LPID"

# The journal. journal_run NAME JOURNAL_STREAM: the daemon in a private mount namespace
# whose /run is a tmpfs where a listener owns journald's socket; its entries into
# $E2E_TMP/NAME.journal (JSON lines), its stderr into $E2E_TMP/NAME.err.
# JOURNAL_STREAM "stderr": the device and inode of that stderr, as systemd sets it.
journal_run() {
	local name=$1 stream=$2
	printf '%s\n' "set -e" "mount --make-rprivate /" "mount -t tmpfs -o mode=755 tmpfs /run" \
		"mkdir -p /run/systemd/journal" \
		"python3 '$LISTEN' journal /run/systemd/journal/socket '$E2E_TMP/$name.journal' &" \
		"echo \$! >'$E2E_TMP/$name.pid'" \
		"for i in \$(seq 50); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done" \
		"stream=$stream" \
		"[ \"\$stream\" = stderr ] && stream=\$(stat -L -c '%d:%i' /proc/self/fd/2)" \
		"echo \$\$ >'$E2E_TMP/$name.dpid'" \
		"JOURNAL_STREAM=\$stream exec '$BLOOMXDP' daemon '$IF_SRV' --config '$CONF'" \
		>"$E2E_TMP/$name.sh"
	: >"$E2E_TMP/$name.journal"
	# The network namespace first: the tmpfs hides /run/netns.
	bg_start timeout 60 nsenter --net="/run/netns/$NS_SRV" -- unshare -m --propagation private \
		bash "$E2E_TMP/$name.sh" >/dev/null 2>"$E2E_TMP/$name.err"
	JPID=$BG_PID
}
# journal_stop NAME: SIGTERM to the daemon alone (the shell's PID it took: timeout would signal
# the listener too), then the listener ended by its PID.
journal_stop() {
	[ -s "$E2E_TMP/$1.dpid" ] && kill -TERM "$(cat "$E2E_TMP/$1.dpid")" 2>/dev/null
	wait_pid "$JPID" 10
	[ -s "$E2E_TMP/$1.pid" ] && stop_pid "$(cat "$E2E_TMP/$1.pid")"
}
# A new copy of the list: the daemon loads it at start (the state has the one before).
printf '%s\n' "$LISTED" 198.51.100.7 >"$LIST"
journal_run journal stderr
wait_log '"EVENT": "ready"' 1 15 "$E2E_TMP/journal.journal"
journal_stop journal
# The listener outlives the shell that started it: ended by the cleanup too, by PID.
[ -s "$E2E_TMP/journal.pid" ] && E2E_PIDS+=("$(cat "$E2E_TMP/journal.pid")")
J=$E2E_TMP/journal.journal
diag "$(grep -c . "$J") journal entries; stderr: $(grep -c . "$E2E_TMP/journal.err") lines"
check "under systemd the load is a journal entry: MESSAGE=, PRIORITY=6, INTERFACE=, LIST=, EVENT=" \
	python3 -c '
import json, sys
want = {"PRIORITY": "6", "INTERFACE": sys.argv[2], "LIST": "local", "EVENT": "list-loaded",
        "SYSLOG_IDENTIFIER": "bloomxdp"}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if "blocklist loaded from 1 source" in e.get("MESSAGE", "") and \
       all(e.get(k) == v for k, v in want.items()):
        sys.exit(0)
sys.exit(1)' "$J" "$IF_SRV"
check "... the load's report too, an entry per line, with its list" grep -qE \
	"\"MESSAGE\": \"loaded [^\"]*\", \"PRIORITY\": \"6\", .*\"LIST\": \"local\"" "$J"
check_eq "... start, ready and stop are events" 3 \
	"$(grep -c -e '"EVENT": "start"' -e '"EVENT": "ready"' -e '"EVENT": "stop"' "$J")"
check_eq "... and stderr holds none of them (one path, not two copies)" "" \
	"$(grep -E 'blocklist loaded|ready|exiting' "$E2E_TMP/journal.err")"

printf '%s\n' "$LISTED" >"$LIST"
journal_run other 0:0
wait_log 'daemon .*: ready' 1 15 "$E2E_TMP/other.err"
journal_stop other
[ -s "$E2E_TMP/other.pid" ] && E2E_PIDS+=("$(cat "$E2E_TMP/other.pid")")
check_eq "with a JOURNAL_STREAM that is not its stderr, the journal gets nothing" "" \
	"$(cat "$E2E_TMP/other.journal")"
check "... and the log stays on stderr" grep -q "^bloomxdp: daemon $IF_SRV: blocklist loaded" \
	"$E2E_TMP/other.err"

tap_finish
