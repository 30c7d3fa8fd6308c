#!/usr/bin/env bash
# The end-to-end smoke of tests/kernel/vm.sh's guest (any kernel; it runs on
# the host too): real packets over a veth pair between two namespaces (see
# tests/e2e/lib.sh). Attach in native mode, load, a listed source dropped and
# an unlisted one answered (IPv4 and IPv6), a named list that monitors, every
# layout and the fullest configuration attached in place with --force, swaps
# under traffic, the status' kernel, detach; egress and tc ingress (tcx, or
# clsact before 6.6). TAP on standard output.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "kernel smoke"
e2e_install_trap

C4_LISTED=192.0.2.10 C4_FREE=192.0.2.12 C4_MON=192.0.2.14
C6_LISTED=2001:db8:b10::10 C6_FREE=2001:db8:b10::12
if ! topo_up "$C4_LISTED" "$C4_FREE" "$C4_MON" "$C6_LISTED" "$C6_FREE"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV on $(uname -r)"

LIST_A=$E2E_TMP/a.txt LIST_B=$E2E_TMP/b.txt MON=$E2E_TMP/mon.txt
printf '%s\n' "$C4_LISTED" "$C6_LISTED" 198.51.100.0/24 evil.example >"$LIST_A"
printf '%s\n' "$C4_LISTED" "$C6_LISTED" 203.0.113.0/24 other.example >"$LIST_B"
printf '%s\n' "$C4_MON" >"$MON"

# pings SRC COUNT WANT: WANT replies of COUNT pings from SRC ("all" or "none").
pings() {
	local src=$1 count=$2 want=$3 dst=$SRV4 tx= rx=
	case $src in *:*) dst=$SRV6 ;; esac
	read -r tx rx < <(ping_recv "$src" "$dst" "$count" 0.02)
	if [ "$want" = all ]; then
		check "$src answered ($rx of $tx)" test "$tx" -eq "$count" -a "$rx" -eq "$count"
	else
		check "$src dropped ($rx of $tx answered)" test "$tx" -eq "$count" -a "$rx" -eq 0
	fi
}

check "attach --mode native" bx attach "$IF_SRV" --mode native --match src,dst,dns,http,sni
check "load a list" bx load "$IF_SRV" "$LIST_A"
check_eq "status: mode" native "$(json_str "$(status_json)" mode)"
pings "$C4_LISTED" 10 none
pings "$C4_FREE" 10 all
pings "$C6_LISTED" 10 none
pings "$C6_FREE" 10 all

# A drop event through the ring buffer, as watch prints it.
bg_start timeout 20 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" watch "$IF_SRV" --json \
	--count 1 --timeout 15 >"$E2E_TMP/watch.json" 2>&1
sleep 0.5
ping_recv "$C4_LISTED" "$SRV4" 3 0.2 >/dev/null
wait_pid "$BG_PID" 15
check "watch: the drop event names the source" grep -q "\"$C4_LISTED\"" "$E2E_TMP/watch.json"
diag "$(head -c 300 "$E2E_TMP/watch.json")"

check "a named list that monitors" bx load "$IF_SRV" --list watch --action monitor "$MON"
before=$(json_num "$(stats_json)" would_drop)
pings "$C4_MON" 5 all
after=$(json_num "$(stats_json)" would_drop)
check_eq "would_drop counts the monitored pings" 5 "$((after - before))"
check "the named list dropped" bx load "$IF_SRV" --list watch --allow-empty /dev/null

# Each program configuration, in place: the list carries over (attach --force).
for args in "--match src,dst,dns,http,sni --dns-reply nxdomain" "--action monitor" \
	"--match src"; do
	check "attach --force $args" bx attach "$IF_SRV" --force $args
done
check "attach --force --match src,dst,dns,http,sni" \
	bx attach "$IF_SRV" --force --match src,dst,dns,http,sni
pings "$C4_LISTED" 5 none

# Swaps under traffic: a listed and an unlisted source ping every 20 ms while
# the list is replaced six times; in both lists, the listed one never passes.
ping_many_start 150 0.02 "$C4_LISTED" "$C4_FREE"
swaps=0
for i in 1 2 3 4 5 6; do
	if [ $((i % 2)) = 1 ]; then list=$LIST_B; else list=$LIST_A; fi
	bx load "$IF_SRV" "$list" >/dev/null 2>&1 && swaps=$((swaps + 1))
	sleep 0.2
done
ping_many_wait
check_eq "six swaps under traffic" 6 "$swaps"
check "no reply to the listed source in the swaps (${PING_RX[$C4_LISTED]} of ${PING_TX[$C4_LISTED]})" \
	test "${PING_TX[$C4_LISTED]}" -gt 100 -a "${PING_RX[$C4_LISTED]}" -eq 0
check "every reply to the unlisted one (${PING_RX[$C4_FREE]} of ${PING_TX[$C4_FREE]})" \
	test "${PING_TX[$C4_FREE]}" -gt 100 -a "${PING_RX[$C4_FREE]}" -eq "${PING_TX[$C4_FREE]}"

# The other layouts and --verify need a fresh attachment (another layout or an exact copy).
check "detach" bx detach "$IF_SRV"
check "no XDP program left" test -z "$(xdp_on_if)"
for args in "--layout bits --verify" "--layout kernel --match src,dst,dns,http,sni --verify"; do
	if check "attach $args" bx attach "$IF_SRV" $args; then
		check "load ($args)" bx load "$IF_SRV" "$LIST_A"
		pings "$C4_LISTED" 5 none
		pings "$C4_FREE" 5 all
	fi
	check "detach ($args)" bx detach "$IF_SRV"
done
check "no XDP program left" test -z "$(xdp_on_if)"

# Egress and tc ingress: tcx links from Linux 6.6, clsact filters before (said by status).
want_tc=tcx
kernel_older() { printf '%s\n%s\n' "$1" "$(uname -r)" | sort -V -C; }
kernel_older 6.6 || want_tc=clsact
if check "attach --direction both --hook tc" bx attach "$IF_SRV" --direction both --hook tc \
	--match src,dst,dns,http,sni; then
	st=$(status_json)
	check_eq "status: ingress at tc by $want_tc" "both tc $want_tc" \
		"$(json_str "$st" direction) $(json_str "$st" hook) $(json_str "$st" mode)" "$st"
	check "load ($want_tc)" bx load "$IF_SRV" "$LIST_A"
	pings "$C4_LISTED" 5 none
	pings "$C4_FREE" 5 all
	# Egress: the server's own pings to the listed client leave nothing on the wire.
	out=$(in_srv ping -n -q -c 3 -i 0.05 -W 1 "$C4_LISTED" 2>&1)
	check "egress: the server's pings to the listed client get no reply" \
		grep -qE "(0 received|not permitted)" <<<"$out"
	check "egress: the unlisted client is reached" in_srv ping -n -q -c 2 -W 1 "$C4_FREE"
	# Pins lost (clsact filters outlive them; tcx links do not): restore takes the hooks back.
	rm -rf -- "$PIN_DIR"
	check "restore after the pins were lost ($want_tc)" bx restore "$IF_SRV"
	pings "$C4_LISTED" 3 none
	check_eq "... and status reads both hooks" "both $want_tc" \
		"$(json_str "$(status_json)" direction) $(json_str "$(status_json)" mode)"
	check "attach --force over it (the same hooks, new programs)" \
		bx attach "$IF_SRV" --force --direction both --hook tc --match src
	pings "$C4_LISTED" 5 none
	check "detach" bx detach "$IF_SRV"
	# Its filters or links gone: the listed client is answered both ways again.
	pings "$C4_LISTED" 3 all
	check "egress: the listed client is reached again" in_srv ping -n -q -c 2 -W 1 "$C4_LISTED"
fi
tap_finish
