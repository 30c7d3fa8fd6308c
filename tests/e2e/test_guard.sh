#!/usr/bin/env bash
# The socket guard (attach --cgroup PATH; docs/operations.md, "The socket guard"): a
# process of the cgroup, in the attachment's network namespace, gets EPERM at once from
# connect() (TCP, IPv4, IPv6, IPv4-mapped IPv6) and UDP sendto() to a listed address;
# unlisted addresses, the allowlist and a monitor list let it through; a process outside
# the cgroup, or in another namespace, is not looked at; a load's generation swap reaches
# the guard; events say "socket"; detach removes the hooks, restore brings them back.
#
#   netns $NS_SRV (bloomxdp on $IF_SRV, clients in $CG)  --veth-->  netns $NS_CLI (listeners)
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "socket guard tests" python3 bpftool curl

L4=192.0.2.20		# in the default list
L6=2001:db8:b10::20	# in the default list
U4=192.0.2.21		# in no list
U6=2001:db8:b10::21
A4=192.0.2.22		# in the default list and in the allowlist
M4=192.0.2.23		# in list watch, action monitor
PORT=8000

CG_ROOT=$(awk '$9 == "cgroup2" && $4 == "/" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$CG_ROOT" ]; then
	skip "socket guard tests" "no cgroup v2 hierarchy is mounted"
	tap_finish
	exit 0
fi
CG=$CG_ROOT/bxe-$E2E_ID

# The cgroup is ours: removed once its processes (each client, one at a time) are gone.
guard_cleanup() {
	e2e_cleanup
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	return 0
}
trap guard_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! topo_up "$L4" "$L6" "$U4" "$U6" "$A4" "$M4" || ! mkdir "$CG"; then
	not_ok "set up namespaces, veth pair and cgroup $CG"
	tap_finish
	exit 1
fi

# A TCP listener on every address of the peer, both families: accepts and closes.
cat >"$E2E_TMP/listen.py" <<'EOF'
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", 8000))
s.listen(64)
while True:
    c, _ = s.accept()
    c.close()
EOF
# probe tcp|udp ADDR [FAMILY]: "ok MS" or the error's name and the milliseconds the call took.
cat >"$E2E_TMP/probe.py" <<'EOF'
import errno, socket, sys, time
kind, addr = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM)
s.settimeout(1)
t = time.monotonic()
try:
    if kind == "tcp":
        s.connect((addr, 8000))
    else:
        s.sendto(b"bloomxdp", (addr, 9))
    r = "ok"
except socket.timeout:
    r = "timeout"
except OSError as e:
    r = errno.errorcode.get(e.errno, str(e.errno))
print(r, int((time.monotonic() - t) * 1000))
EOF

# guarded COMMAND...: run in the cgroup and the server's namespace (nsenter: 'ip netns exec'
# remounts /sys, where the pins are).
guarded() {
	timeout 10 bash -c 'echo $$ >"$0/cgroup.procs" || exit 99
		exec nsenter --net="$1" -- "${@:2}"' "$CG" "/run/netns/$NS_SRV" "$@"
}
# The verdicts of TCP connects (and UDP sends with udp:ADDR) from the cgroup: "ADDR:RESULT ".
verdicts_of() {
	local a out="" r
	for a in "$@"; do
		case $a in
		udp:*) r=$(guarded python3 "$E2E_TMP/probe.py" udp "${a#udp:}") ;;
		*) r=$(guarded python3 "$E2E_TMP/probe.py" tcp "$a") ;;
		esac
		out+="$a:${r%% *} "
	done
	echo "$out"
}
# The guard's counter NAME, summed over CPUs.
guard_counter() {
	bpftool -j map dump pinned "$PIN_DIR/guard_counters" 2>/dev/null |
		python3 -c 'import json, sys
print(sum(v["value"]["'"$1"'"] for e in json.load(sys.stdin) for v in e["formatted"]["values"]))'
}
json_bool() { sed -n "s/.*\"$2\":\(true\|false\).*/\1/p" <<<"$1"; }
hooks_on_cgroup() { bpftool cgroup show "$CG" 2>/dev/null | grep -c 'bloomxdp_'; }

bg_start timeout 300 nsenter --net="/run/netns/$NS_CLI" -- python3 "$E2E_TMP/listen.py"
printf '%s\n' "$L4" "$L6" "$A4" >"$E2E_TMP/default.txt"
echo "$A4" >"$E2E_TMP/allow.txt"
echo "$M4" >"$E2E_TMP/watch.txt"

check "attach --cgroup $CG" bx attach "$IF_SRV" --capacity 1000 --match src --cgroup "$CG"
check_eq "four hooks on the cgroup" 4 "$(hooks_on_cgroup)" "$(bpftool cgroup show "$CG")"
check "load the default list" bx load "$IF_SRV" "$E2E_TMP/default.txt"
check "load --allow" bx load "$IF_SRV" --allow "$E2E_TMP/allow.txt"
check "load --list watch --action monitor" \
	bx load "$IF_SRV" --list watch --action monitor "$E2E_TMP/watch.txt"
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(verdicts_of "$U4")" = "$U4:ok " ] && break
	sleep 0.1
done

read -r r ms < <(guarded python3 "$E2E_TMP/probe.py" tcp "$L4")
check_eq "connect to a listed address: EPERM" EPERM "$r"
if [ "${ms:-999}" -lt 100 ]; then ok "... at once ($ms ms, under 100)"; else
	not_ok "... at once" "took $ms ms"; fi
check_eq "verdicts: listed refused (IPv4, IPv6, mapped, UDP), unlisted, allowlisted and monitored through" \
	"$L4:EPERM $L6:EPERM ::ffff:$L4:EPERM udp:$L4:EPERM udp:$L6:EPERM $U4:ok $U6:ok udp:$U4:ok $A4:ok $M4:ok " \
	"$(verdicts_of "$L4" "$L6" "::ffff:$L4" "udp:$L4" "udp:$L6" "$U4" "$U6" "udp:$U4" "$A4" "$M4")"
check_fails "nc from the cgroup: Operation not permitted" nonzero "Operation not permitted" \
	guarded nc -v -z -w 2 "$L4" "$PORT"
check_fails "curl from the cgroup fails at once" 7 "Failed to connect" \
	guarded curl -sS -m 2 "http://$L4:$PORT/"
check "nc to an unlisted address connects" guarded nc -z -w 2 "$U4" "$PORT"
check_eq "counters: refused, would_drop (monitor), allowed" "8 1 1" \
	"$(guard_counter dropped) $(guard_counter would_drop) $(guard_counter allowed)"

st=$(status_json)
check_eq "status --json: guard on, its cgroup, calls looked up and refused" "true $CG 15 8" \
	"$(json_bool "$st" guard) $(json_str "$st" guard_cgroup) $(json_num "$st" guard_checked) $(json_num "$st" guard_refused)" \
	"$(grep -o '"guard[^,]*' <<<"$st")"
check_fails "status's text says so" 0 "^socket guard +on, cgroup $CG: 15 calls looked up, 8 refused" \
	bx status "$IF_SRV"

# Outside the cgroup, or in another network namespace: not looked at.
r=$(in_srv python3 "$E2E_TMP/probe.py" udp "$L4")
check_eq "outside the cgroup: UDP to a listed address is sent" ok "${r%% *}"
r=$(in_srv python3 "$E2E_TMP/probe.py" tcp "$L4")
[ "${r%% *}" != EPERM ] && ok "outside the cgroup: connect is not refused ($r)" ||
	not_ok "outside the cgroup: connect is not refused" "$r"
r=$(timeout 10 bash -c 'echo $$ >"$0/cgroup.procs" && exec nsenter --net="$1" -- "${@:2}"' \
	"$CG" "/run/netns/$NS_CLI" python3 "$E2E_TMP/probe.py" udp "$L4")
check_eq "in the cgroup, another namespace: not looked at" ok "${r%% *}"

# A load reaches the guard with its generation swap.
echo "$U4" >"$E2E_TMP/new.txt"
check "load a new default list" bx load "$IF_SRV" "$E2E_TMP/new.txt"
check_eq "after the load: the new address refused, the old one through" \
	"$U4:EPERM $L4:ok $L6:ok " "$(verdicts_of "$U4" "$L4" "$L6")"

# Events of the guard say so.
bg_start bash -c "timeout 8 nsenter --net=/run/netns/$NS_SRV -- $BLOOMXDP watch $IF_SRV --json \
	--count 1 --timeout 6 >$E2E_TMP/watch.out 2>&1"
WATCH_PID=$BG_PID
sleep 0.5
guarded python3 "$E2E_TMP/probe.py" tcp "$U4" >/dev/null
wait_pid "$WATCH_PID" 8 >/dev/null
ev=$(cat "$E2E_TMP/watch.out")
diag "$ev"
check_eq "watch: the refusal, origin socket, to $U4 port $PORT" "socket drop $U4 $PORT" \
	"$(json_str "$ev" origin) $(json_str "$ev" verdict) $(json_str "$ev" dst) $(json_num "$ev" dport)" \
	"$ev"

bg_start bash -c "timeout 8 nsenter --net=/run/netns/$NS_SRV -- $BLOOMXDP watch $IF_SRV \
	--count 1 --timeout 6 >$E2E_TMP/watch.txt 2>&1"
WATCH_PID=$BG_PID
sleep 0.5
guarded python3 "$E2E_TMP/probe.py" udp "$U4" >/dev/null
wait_pid "$WATCH_PID" 8 >/dev/null
ev=$(cat "$E2E_TMP/watch.txt")
check_eq "watch's text: the interface, egress, socket, the verdict, local -> remote, what matched" \
	"$IF_SRV egress socket drop 0.0.0.0 -> $U4 src address list default" "${ev#* }"

# detach takes the hooks away at once; restore brings them back.
check "detach" bx detach "$IF_SRV"
check_eq "detach: no hook left on the cgroup" 0 "$(hooks_on_cgroup)"
check_eq "after detach: connects" "$U4:ok " "$(verdicts_of "$U4")"
check "restore" bx restore "$IF_SRV"
check_eq "restore: the four hooks again" 4 "$(hooks_on_cgroup)"
check_eq "after restore: refused again" "$U4:EPERM $L4:ok " "$(verdicts_of "$U4" "$L4")"
check_fails "attach --cgroup of no cgroup v2 directory is refused" nonzero "not a cgroup v2" \
	bx attach "$IF_SRV" --force --cgroup /tmp
check_eq "... and the guard is untouched" 4 "$(hooks_on_cgroup)"
# attach --force: the guard takes the new settings on the same links, or goes without --cgroup.
check "attach --force --cgroup --action monitor" \
	bx attach "$IF_SRV" --force --match src --action monitor --cgroup "$CG"
check_eq "... the hooks stay, their new programs: monitor lets it through" "4 $U4:ok " \
	"$(hooks_on_cgroup) $(verdicts_of "$U4")"
check "attach --force without --cgroup" bx attach "$IF_SRV" --force --match src
check_eq "... the guard is off, status says so" "0 false" \
	"$(hooks_on_cgroup) $(json_bool "$(status_json)" guard)"
check "detach" bx detach "$IF_SRV"
check_eq "no hook left" 0 "$(hooks_on_cgroup)"

tap_finish
