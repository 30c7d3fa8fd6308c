#!/usr/bin/env bash
# The daemon with events = syslog: each drop event goes through syslog(3) as
# one line (watch's text form), facility daemon, tag bloomxdp. The machine has no syslog
# daemon (no /dev/log), so the test makes its own: in a private mount
# namespace, /dev is a fresh tmpfs (the null device bound back into it) where
# a python3 listener owns /dev/log; the daemon runs in that mount namespace
# (bpffs is still the machine's: mounts are copied) and in the server's
# network namespace. Speaks TAP; needs root, unshare, python3; about 10 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "daemon syslog tests" unshare python3
e2e_install_trap

LISTED=192.0.2.90
UNLISTED=192.0.2.91
if ! topo_up "$LISTED" "$UNLISTED"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

CONF=$E2E_TMP/$IF_SRV.conf
LOG=$E2E_TMP/syslog.txt
printf '%s\n' "$LISTED" >"$E2E_TMP/list.txt"
cat >"$CONF" <<EOF
[attach]
capacity = 1000
fpr = 1%
match = src
events-per-sec = 1000

[list local]
source = $E2E_TMP/list.txt
refresh = 0

[daemon]
state_dir = $E2E_TMP/state
events = syslog
EOF
# The listener: every datagram to /dev/log, one per line.
cat >"$E2E_TMP/listen.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
with open(sys.argv[1], "a") as out:
    while True:
        out.write(s.recv(65536).decode("utf-8", "replace").rstrip("\n") + "\n")
        out.flush()
EOF
# In a private mount namespace: /dev a tmpfs of its own, /dev/null bound back, the
# listener on /dev/log, then the daemon in the server's network namespace.
mkdir -p "$E2E_TMP/olddev"
cat >"$E2E_TMP/inside.sh" <<EOF
set -e
mount --make-rprivate /
mount --bind /dev "$E2E_TMP/olddev"
mount -t tmpfs -o mode=755 tmpfs /dev
touch /dev/null && mount --bind "$E2E_TMP/olddev/null" /dev/null
python3 "$E2E_TMP/listen.py" "$LOG" &
echo \$! >"$E2E_TMP/listener.pid"
for i in \$(seq 50); do [ -S /dev/log ] && break; sleep 0.05; done
exec nsenter --net=/run/netns/$NS_SRV -- "$BLOOMXDP" daemon "$IF_SRV" --config "$CONF"
EOF
bg_start timeout 60 unshare -m --propagation private bash "$E2E_TMP/inside.sh" \
	>"$E2E_TMP/daemon.out" 2>"$E2E_TMP/daemon.err"
DPID=$BG_PID

loaded=0
wait_log 'blocklist loaded' 1 10 "$E2E_TMP/daemon.err" && loaded=1
check_eq "the daemon, in a mount namespace with a /dev/log of the test's, loaded its list" 1 \
	"$loaded" "$(cat "$E2E_TMP/daemon.err")"
# The listener outlives the shell that started it (the daemon took its place): ended by
# the cleanup, by PID, as every process of the test.
[ -s "$E2E_TMP/listener.pid" ] && E2E_PIDS+=("$(cat "$E2E_TMP/listener.pid")")
check_eq "the listed source is dropped, the other passes" "0 5" \
	"$(ping_recv "$LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$UNLISTED" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
sleep 0.5
check "drop events reached syslog, facility daemon, tag bloomxdp" \
	grep -qE '^<29>.*bloomxdp\[[0-9]+\]: ' "$LOG"
check "... each names the interface, the verdict, the listed source and what matched" \
	grep -qE "bloomxdp\\[[0-9]+\\]: [0-9T:.-]+Z $IF_SRV ingress drop $LISTED .* src address" "$LOG"
check_eq "... and none names the unlisted source" 0 "$(grep -c " $UNLISTED " "$LOG")"
check_eq "standard output holds no event" "" "$(cat "$E2E_TMP/daemon.out")"

kill -TERM "$DPID" 2>/dev/null
wait_pid "$DPID" 10
check_eq "SIGTERM: the daemon exits 0" 0 "$?"
stop_pid "$(cat "$E2E_TMP/listener.pid")"

tap_finish
