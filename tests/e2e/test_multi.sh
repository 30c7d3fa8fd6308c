#!/usr/bin/env bash
# attach IF1 IF2: one set of lists for two interfaces (two veth pairs between the
# same two namespaces). One load, both drop a listed source and pass an unlisted
# one; the filter map is the same map on both (bpftool's id); loads under
# traffic on both never let a listed packet through; stats shows each
# interface's counters and their sum; add and del through the member change
# both; detach of the member leaves the home enforcing, and the home is refused
# while a member remains; restore brings the group back after its pins are
# removed. Speaks TAP; needs root; about 20 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "several interfaces, one list" bpftool python3

# The second pair: $IF_CLI2 (client) <-> $IF_SRV2 (server), another subnet.
IF_CLI2=bxe${E2E_ID}d
IF_SRV2=bxe${E2E_ID}t
SRV4B=203.0.113.1
A_LISTED=192.0.2.50
A_OTHER=192.0.2.51
B_LISTED=203.0.113.50
B_OTHER=203.0.113.51

# The member first: the home refuses to go while it remains.
multi_cleanup() {
	[ -d "$PIN_ROOT/$IF_SRV2" ] && timeout 30 "$BLOOMXDP" detach "$IF_SRV2" >/dev/null 2>&1
	e2e_cleanup
}
trap multi_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

pair2_up() {
	local mac_cli mac_srv a
	ip -n "$NS_CLI" link add "$IF_CLI2" type veth peer name "$IF_SRV2" netns "$NS_SRV" ||
		return 1
	ip -n "$NS_SRV" addr add "$SRV4B/24" dev "$IF_SRV2" || return 1
	ip -n "$NS_CLI" addr add "$B_LISTED/24" dev "$IF_CLI2" || return 1
	ip -n "$NS_CLI" addr add "$B_OTHER/24" dev "$IF_CLI2" || return 1
	ip -n "$NS_CLI" link set "$IF_CLI2" up || return 1
	ip -n "$NS_SRV" link set "$IF_SRV2" up || return 1
	mac_cli=$(ip -n "$NS_CLI" -br link show dev "$IF_CLI2" | awk '{print $3}')
	mac_srv=$(ip -n "$NS_SRV" -br link show dev "$IF_SRV2" | awk '{print $3}')
	ip -n "$NS_CLI" neigh replace "$SRV4B" lladdr "$mac_srv" dev "$IF_CLI2" nud permanent ||
		return 1
	for a in "$B_LISTED" "$B_OTHER"; do
		ip -n "$NS_SRV" neigh replace "$a" lladdr "$mac_cli" dev "$IF_SRV2" nud permanent ||
			return 1
	done
}

if ! topo_up "$A_LISTED" "$A_OTHER" || ! pair2_up; then
	not_ok "build the test topology (two veth pairs)"
	tap_finish
	exit 1
fi

# pings SRC DST COUNT INTERVAL: "TRANSMITTED RECEIVED" of a ping in the background,
# as pings_start and pings_wait run them (in MULTI_OUT[SRC]).
declare -A MULTI_OUT
MULTI_PIDS=()
pings_start() {
	local count=$1 interval=$2 src dst i=0
	shift 2
	MULTI_PIDS=()
	for src in "$@"; do
		case $src in 203.*) dst=$SRV4B ;; *) dst=$SRV4 ;; esac
		MULTI_OUT[$src]=$E2E_TMP/ping.$i
		bg_start timeout 30 nsenter --net="/run/netns/$NS_CLI" -- \
			ping -n -q -c "$count" -i "$interval" -W 1 -I "$src" "$dst" \
			>"${MULTI_OUT[$src]}" 2>&1
		MULTI_PIDS+=("$BG_PID")
		i=$((i + 1))
	done
}
pings_wait() {
	local pid
	for pid in "${MULTI_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
		bg_forget "$pid"
	done
}
rx_of() { sed -n 's/.*transmitted, \([0-9][0-9]*\) received.*/\1/p' "${MULTI_OUT[$1]}"; }
tx_of() { sed -n 's/^\([0-9][0-9]*\) packets transmitted.*/\1/p' "${MULTI_OUT[$1]}"; }
# "RX_LISTED_A RX_OTHER_A RX_LISTED_B RX_OTHER_B" of 5 pings each.
verdicts4() {
	pings_start 5 0.05 "$A_LISTED" "$A_OTHER" "$B_LISTED" "$B_OTHER"
	pings_wait
	echo "$(rx_of "$A_LISTED") $(rx_of "$A_OTHER") $(rx_of "$B_LISTED") $(rx_of "$B_OTHER")"
}
map_id() { bpftool -j map show pinned "$PIN_ROOT/$1/$2" 2>/dev/null | json_num "$(cat)" id; }

LIST=$E2E_TMP/list.txt
printf '%s\n%s\n' "$A_LISTED" "$B_LISTED" >"$LIST"

check "attach $IF_SRV $IF_SRV2 at once" bx attach "$IF_SRV" "$IF_SRV2" --capacity 1000 ||
	{ tap_finish; exit 1; }
check_eq "before any load, all four sources get replies" "5 5 5 5" "$(verdicts4)"
check "one load through the home" bx load "$IF_SRV" "$LIST"
check_eq "both interfaces drop their listed source, pass the other" "0 5 0 5" "$(verdicts4)"

f1=$(map_id "$IF_SRV" filter)
f2=$(map_id "$IF_SRV2" filter)
if [ -n "$f1" ] && [ "$f1" = "$f2" ]; then
	ok "the filter map is the same on both (id $f1)"
else
	not_ok "the filter map is the same on both" "ids '$f1' and '$f2'"
fi
c1=$(map_id "$IF_SRV" counters)
c2=$(map_id "$IF_SRV2" counters)
if [ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != "$c2" ]; then
	ok "each interface has counters of its own (ids $c1, $c2)"
else
	not_ok "each interface has counters of its own" "ids '$c1' and '$c2'"
fi
st=$(bx status "$IF_SRV2" --json 2>&1)
check_eq "status of the member names the group's home" "$IF_SRV" \
	"$(sed -n 's/.*"group":{"home":"\([^"]*\)".*/\1/p' <<<"$st")" "$st"
check_eq "... and reads the lists' state from the home's (current)" current \
	"$(json_str "$st" state)" "$st"

# Per-interface stats and their sum.
s=$(bx stats "$IF_SRV2" --json 2>&1)
got=$(python3 -c 'import json, sys
s = json.loads(sys.stdin.read())
print(s["interfaces"][sys.argv[1]]["dropped"], s["interfaces"][sys.argv[2]]["dropped"], s["dropped"])
' "$IF_SRV" "$IF_SRV2" <<<"$s" 2>&1)
check_eq "stats: each interface dropped its 5, the sum is 10" "5 5 10" "$got" "$s"
got=$(python3 -c 'import json, sys
s = json.loads(sys.stdin.read())
print([l["list_hits"] for l in s["lists"] if l["list"] == "default"][0])' <<<"$s" 2>&1)
check_eq "stats: the list's hits are the group's (10, not the member's 5)" 10 "$got" "$s"

# Loads under traffic on both: no listed packet passes.
LIST2=$E2E_TMP/list2.txt
printf '%s\n%s\n198.51.100.0/24\n' "$A_LISTED" "$B_LISTED" >"$LIST2"
pings_start 300 0.01 "$A_LISTED" "$A_OTHER" "$B_LISTED" "$B_OTHER"
loads=0 failed=0
for ((i = 0; i < 6; i++)); do
	if [ $((i % 2)) -eq 0 ]; then l=$LIST2; via=$IF_SRV2; else l=$LIST; via=$IF_SRV; fi
	if bx load "$via" "$l" >/dev/null 2>&1; then loads=$((loads + 1)); else failed=$((failed + 1)); fi
	sleep 0.2
done
pings_wait
check_eq "6 loads under traffic (through either interface), none failed" "6 0" "$loads $failed"
check_eq "the listed sources got no reply on either interface" "0 0" \
	"$(rx_of "$A_LISTED") $(rx_of "$B_LISTED")"
check_eq "the others got every reply (300 each)" "300 300" "$(rx_of "$A_OTHER") $(rx_of "$B_OTHER")"
check_eq "... and every source sent throughout" "300 300 300 300" \
	"$(tx_of "$A_LISTED") $(tx_of "$A_OTHER") $(tx_of "$B_LISTED") $(tx_of "$B_OTHER")"

# add and del through the member change both.
check "add $A_OTHER through the member" bx add "$IF_SRV2" "$A_OTHER" "$B_OTHER"
check_eq "both interfaces drop the added sources" "0 0 0 0" "$(verdicts4)"
check "del them through the member" bx del "$IF_SRV2" "$A_OTHER" "$B_OTHER"
check_eq "both pass them again" "0 5 0 5" "$(verdicts4)"
check_eq "query through the member reads the one list" "$A_LISTED: blocked (listed: $A_LISTED)
$A_OTHER: not blocked" "$(bx query "$IF_SRV2" "$A_LISTED" "$A_OTHER" 2>&1)"

# Restore after the pins are removed: the group comes back, its lists with it.
rm -rf -- "${PIN_ROOT:?}/$IF_SRV" "${PIN_ROOT:?}/$IF_SRV2"
check "restore through the member" bx restore "$IF_SRV2"
check_eq "after restore, both drop their listed source again" "0 5 0 5" "$(verdicts4)"
f1=$(map_id "$IF_SRV" filter)
f2=$(map_id "$IF_SRV2" filter)
check_eq "... over one filter map" "$f1" "$f2"

# detach: the home is refused while a member remains; the member goes alone.
check_fails "detach of the home is refused while $IF_SRV2 remains" 1 "detach them first" \
	bx detach "$IF_SRV"
check "detach the member" bx detach "$IF_SRV2"
check_eq "the home still drops, the member passes everything" "0 5 5 5" "$(verdicts4)"
st=$(bx status "$IF_SRV" --json 2>&1)
if grep -q '"group"' <<<"$st"; then
	not_ok "the home, alone, is in no group any more" "$st"
else
	ok "the home, alone, is in no group any more"
fi
check "load the home alone" bx load "$IF_SRV" "$LIST"
check "detach the home" bx detach "$IF_SRV"

tap_finish
