#!/usr/bin/env bash
# attach --direction egress|both and --hook tc with real clients: bloomxdp runs
# in the server namespace ($NS_SRV) and checks what leaves it; nginx and
# dnsmasq run in the peer namespace ($NS_CLI) on addresses listed or not. An
# nftables counter in the peer proves that nothing sent to a listed address,
# nor a query or request for a listed name, reached the wire; unlisted traffic
# is untouched. Then: both directions with one list and one load, a load under
# live egress traffic (no listed packet leaves), stats/status/metrics by
# direction, --hook tc beside another XDP program and another tc program, and detach.
# Speaks TAP; needs root, nft, nginx, dnsmasq, dig, curl; about 40 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "egress tests" nft nginx dnsmasq dig curl
e2e_install_trap

# The peer's addresses: remote hosts as seen from bloomxdp's side.
P4_LISTED=192.0.2.60
P4_OTHER=192.0.2.61
P6_LISTED=2001:db8:b10::60
if ! topo_up "$P4_LISTED" "$P4_OTHER" "$P6_LISTED"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
in_peer() { nsenter --net="/run/netns/$NS_CLI" -- "$@"; }

# The peer counts what reaches it, per destination, and what carries a listed name.
in_peer nft -f - <<EOF || not_ok "the peer's nftables counters"
table inet bxegress {
	counter listed4 {}
	counter listed6 {}
	counter other4 {}
	chain input {
		type filter hook input priority 0;
		ip daddr $P4_LISTED counter name listed4
		ip6 daddr $P6_LISTED counter name listed6
		ip daddr $P4_OTHER counter name other4
	}
}
EOF
peer_count() {
	in_peer nft list counter inet bxegress "$1" 2>/dev/null |
		sed -n 's/.*packets \([0-9]*\).*/\1/p'
}

# nginx on both peer addresses; dnsmasq on the unlisted one, logging what it is asked.
NGX=$E2E_TMP/nginx
mkdir -p "$NGX"
NGINX_NS=$NS_CLI nginx_start "$NGX" "'\$host \$request_uri'" <<EOF
	server {
		listen $P4_LISTED:80 default_server;
		listen $P4_OTHER:80;
		listen [$P6_LISTED]:80 default_server;
		location / { return 200 "ok \$host\n"; }
	}
EOF
DNSMASQ_LOG=$E2E_TMP/dnsmasq.log
bg_start timeout 300 nsenter --net="/run/netns/$NS_CLI" -- \
	dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts \
	--listen-address="$P4_OTHER" --bind-interfaces --port=53 \
	--address=/example/"$P4_OTHER" --pid-file= --user=root \
	--log-queries --log-facility="$DNSMASQ_LOG" 2>"$E2E_TMP/dnsmasq.err"
for ((i = 0; i < 60; i++)); do
	in_peer ss -Hln "sport = :80" | grep -q . && in_peer ss -Huln "sport = :53" | grep -q . &&
		break
	sleep 0.05
done

LIST=$E2E_TMP/list.txt
printf '%s\n%s\nevil.example\nblocked-host.example\n' "$P4_LISTED" "$P6_LISTED" >"$LIST"

http() { timeout 5 nsenter --net="/run/netns/$NS_SRV" -- curl -s -m 1 "$@" 2>/dev/null; }
pings() { # pings DST COUNT: received replies (0 too when the guard refuses the send)
	local rx
	rx=$(timeout 10 nsenter --net="/run/netns/$NS_SRV" -- ping -n -q -c "$2" -i 0.05 -W 1 \
		"$1" 2>/dev/null | sed -n 's/.*transmitted, \([0-9]*\) received.*/\1/p')
	echo "${rx:-0}"
}
asked() { grep -c "query\[A\] $1 " "$DNSMASQ_LOG" 2>/dev/null; }

# ---------------------------------------------------------------- egress only
check "attach $IF_SRV --direction egress --match src,dns,http" \
	bx attach "$IF_SRV" --direction egress --match src,dns,http --capacity 1000 ||
	{ tap_finish; exit 1; }
check "... loads its list" bx load "$IF_SRV" "$LIST"
st=$(status_json)
check_eq "status: direction egress, at tc" "egress tc" \
	"$(json_str "$st" direction) $(json_str "$st" hook)" "$st"

check_eq "ping to the unlisted peer is answered" 5 "$(pings "$P4_OTHER" 5)"
check_eq "ping to the listed peer gets nothing" 0 "$(pings "$P4_LISTED" 5)"
check_eq "ping to the listed IPv6 peer gets nothing" 0 "$(pings "$P6_LISTED" 3)"
check_eq "curl to the unlisted peer: nginx answers" "ok $P4_OTHER" "$(http "http://$P4_OTHER/")"
check_eq "curl to the listed peer gets nothing" "" "$(http "http://$P4_LISTED/")"
# The socket guard (on with egress): the host's own connect() fails at once.
t0=$(date +%s%N)
out=$(timeout 5 nsenter --net="/run/netns/$NS_SRV" -- curl -sS -m 3 "http://$P4_LISTED/" 2>&1)
rc=$? ms=$((($(date +%s%N) - t0) / 1000000))
check "curl to the listed peer fails at once (exit 7 in ${ms} ms, not its 3 s timeout)" \
	test "$rc" -eq 7 -a "$ms" -lt 1000
diag "$out"
out=$(timeout 5 nsenter --net="/run/netns/$NS_SRV" -- python3 -c '
import errno, socket, sys, time
t = time.monotonic()
try:
	socket.create_connection((sys.argv[1], 80), timeout=3)
	print("connected")
except OSError as e:
	print(errno.errorcode.get(e.errno, e.errno), int((time.monotonic() - t) * 1000))' \
	"$P4_LISTED" 2>&1)
check "connect() to the listed peer: EPERM in under 100 ms ($out ms)" \
	test "${out% *}" = EPERM -a "${out#* }" -lt 100
check_eq "curl to the listed IPv6 peer gets nothing" "" "$(http "http://[$P6_LISTED]/")"
timeout 5 nsenter --net="/run/netns/$NS_SRV" -- python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5): s.sendto(b"x", (sys.argv[1], 9))' "$P4_LISTED" 2>/dev/null
check_eq "nothing sent to a listed address reached the peer (IPv4, IPv6)" "0 0" \
	"$(peer_count listed4) $(peer_count listed6)"
check "... while the unlisted peer got its packets" test "$(peer_count other4)" -gt 5

check_eq "dig for an unlisted name is answered" "$P4_OTHER" \
	"$(in_srv dig +short +tries=1 +time=1 @"$P4_OTHER" fine.example A 2>/dev/null)"
in_srv dig +short +tries=1 +time=1 @"$P4_OTHER" www.evil.example A >/dev/null 2>&1
check_eq "a query for a listed name never reached dnsmasq" "0 1" \
	"$(asked www.evil.example) $(asked fine.example)"
check_eq "an HTTP request for a listed host never reached nginx" "" \
	"$(http -H 'Host: blocked-host.example' "http://$P4_OTHER/")"
check_fails "... nginx logged no such request" 1 "" grep -q blocked-host "$NGX/access.log"
check_eq "... while another host on the same server is answered" "ok fine.example" \
	"$(http -H 'Host: fine.example' "http://$P4_OTHER/")"

js=$(stats_json)
check_eq "stats --json: direction egress" egress \
	"$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["direction"])' "$js")" "$js"
check "stats: the drops are counted" python3 -c '
import json, sys
assert json.loads(sys.argv[1])["dropped"] >= 3' "$js"
# The request's segment is sent again and again (TCP retransmits it), each dropped.
check "stats: a DNS hit, and HTTP hits" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["hits_dns"] == 1 and j["hits_http"] >= 1, j' "$js"
check "stats --json: the socket guard's refusals apart (guard.dropped >= 2)" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["guard"]["dropped"] >= 2 and j["guard"]["checked_v4"] >= 2, j["guard"]' "$js"
prom=$(bx stats "$IF_SRV" --prometheus 2>&1)
check "metrics: bloomxdp_guard_refused_total" \
	grep -qE "^bloomxdp_guard_refused_total\{ifname=\"$IF_SRV\"\} [1-9]" <<<"$prom"
check "metrics carry direction=\"egress\"" \
	grep -q "^bloomxdp_dropped_total{ifname=\"$IF_SRV\",direction=\"egress\"} [1-9]" <<<"$prom"
check_fails "... and no ingress sample" 1 "" \
	grep -q "^bloomxdp_dropped_total{ifname=\"$IF_SRV\",direction=\"ingress\"}" <<<"$prom"
check "detach" bx detach "$IF_SRV"
check_eq "after detach the listed peer answers again" 3 "$(pings "$P4_LISTED" 3)"

# ------------------------------------------------------------------- both
check "attach --direction both" bx attach "$IF_SRV" --direction both --capacity 1000
check "... one load for both" bx load "$IF_SRV" "$LIST"
check_eq "ingress: the listed peer's pings to us get nothing" "3 0" \
	"$(ping_recv "$P4_LISTED" "$SRV4" 3)"
check_eq "ingress: the unlisted peer's are answered" "3 3" "$(ping_recv "$P4_OTHER" "$SRV4" 3)"
check_eq "egress: ping to the listed peer gets nothing" 0 "$(pings "$P4_LISTED" 3)"
# Past the guard (--cgroup none is not asked: a raw packet is), the egress program drops.
check "... nor does a raw IPv4 packet sent past the sockets' hooks" nsenter \
	--net="/run/netns/$NS_SRV" -- python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 253)
for i in range(3): s.sendto(b"bloomxdp", (sys.argv[1], 0))' "$P4_LISTED"
js=$(stats_json)
check "stats --json: both directions, each with its drops" python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["direction"] == "both"
assert j["ingress"]["dropped"] >= 3 and j["egress"]["dropped"] >= 3, j
assert j["dropped"] == j["ingress"]["dropped"] + j["egress"]["dropped"]' "$js"
st=$(bx status "$IF_SRV" 2>&1)
check "status shows the egress program" grep -q "^egress program  id [0-9]*, mode tcx" <<<"$st"

# A simulated reboot: the pins (and with them the tcx links) gone; restore brings both back.
rm -rf -- "$PIN_DIR"
sleep 0.2
check_eq "pins gone: the listed peer is reached again" 3 "$(pings "$P4_LISTED" 3)"
check "restore from the state" bx restore "$IF_SRV"
check_eq "restored: both directions drop the listed peer again" "0 0" \
	"$(pings "$P4_LISTED" 3) $(ping_recv "$P4_LISTED" "$SRV4" 3 | cut -d' ' -f2)"

# One load changes both directions: now the other peer is listed, the first is not.
printf '%s\n' "$P4_OTHER" >"$E2E_TMP/list2.txt"
check "load another list" bx load "$IF_SRV" "$E2E_TMP/list2.txt"
check_eq "both directions follow it: listed peer unblocked, other blocked" "3 3 0 0" \
	"$(pings "$P4_LISTED" 3) $(ping_recv "$P4_LISTED" "$SRV4" 3 | cut -d' ' -f2) \
$(pings "$P4_OTHER" 3) $(ping_recv "$P4_OTHER" "$SRV4" 3 | cut -d' ' -f2)"

# A load under live egress traffic never lets a listed packet out: the peer counts.
printf '%s\n192.0.2.200\n' "$P4_LISTED" >"$E2E_TMP/a.txt"
printf '%s\n192.0.2.201\n' "$P4_LISTED" >"$E2E_TMP/b.txt"
check "load the listed peer back" bx load "$IF_SRV" "$E2E_TMP/a.txt"
before=$(peer_count listed4)
bg_start timeout 20 nsenter --net="/run/netns/$NS_SRV" -- \
	ping -n -q -c 300 -i 0.01 -W 1 "$P4_LISTED" >/dev/null 2>&1
PING=$BG_PID
loads=0
for ((i = 0; i < 8; i++)); do
	[ $((i % 2)) -eq 0 ] && f=b.txt || f=a.txt
	bx load "$IF_SRV" "$E2E_TMP/$f" >/dev/null 2>&1 && loads=$((loads + 1))
done
wait_pid "$PING" 20
bg_forget "$PING"
check_eq "8 loads under 100 pings/s to the listed peer: all made" 8 "$loads"
check_eq "... and not one packet reached the peer" "$before" "$(peer_count listed4)"
check "detach both" bx detach "$IF_SRV"
check_eq "detach leaves no egress pin" "" "$(ls "$PIN_DIR" 2>/dev/null)"

# ------------------------------------------------------ --hook tc, beside XDP
check "attach --hook tc" bx attach "$IF_SRV" --hook tc --capacity 1000
check "... loads" bx load "$IF_SRV" "$LIST"
check "another XDP program on the same interface (generic)" \
	ip -n "$NS_SRV" link set dev "$IF_SRV" xdpgeneric obj build/xdp_pass.bpf.o sec xdp
check "another tc program on the same hook (a clsact filter: drops TOS 0x28)" in_srv sh -c \
	"tc qdisc add dev $IF_SRV clsact 2>/dev/null; tc filter add dev $IF_SRV ingress \
	 prio 1 bpf da obj build/tc_tos_drop.bpf.o sec tc"
check_eq "tc ingress drops the listed peer, beside them" "3 0" "$(ping_recv "$P4_LISTED" "$SRV4" 3)"
check_eq "... and passes the unlisted one" "3 3" "$(ping_recv "$P4_OTHER" "$SRV4" 3)"
out=$(timeout 10 nsenter --net="/run/netns/$NS_CLI" -- ping -n -q -c 3 -i 0.05 -W 1 -Q 0x28 \
	-I "$P4_OTHER" "$SRV4" 2>&1)
check "... while the other tc program still drops what it drops (TOS 0x28)" \
	grep -q " 0 received" <<<"$out"
st=$(status_json)
check_eq "status: ingress at tc" "ingress tc tcx" \
	"$(json_str "$st" direction) $(json_str "$st" hook) $(json_str "$st" mode)" "$st"
check "detach" bx detach "$IF_SRV"
check "the other XDP program is still there" xdp_on_if
check "... and the other tc program" in_srv sh -c "tc filter show dev $IF_SRV ingress | grep -q tc_tos_drop"
ip -n "$NS_SRV" link set dev "$IF_SRV" xdpgeneric off 2>/dev/null
check_eq "after detach the listed peer is answered" "3 3" "$(ping_recv "$P4_LISTED" "$SRV4" 3)"

tap_finish
