#!/usr/bin/env bash
# End-to-end test of bloomxdp with real traffic on a veth pair between two
# network namespaces (see lib.sh): attach in native mode, load lists, ping /
# UDP / TCP from listed and unlisted source addresses, counters, the atomic
# swap under traffic, bad input, monitor mode, --force, detach, error paths.
# Speaks TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts it.
#
# Needs root. Runs in about 30 s. Touches nothing but its own namespaces,
# veths and pins (all named after E2E_ID), and removes them on any exit.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "end-to-end tests"
e2e_install_trap

# ------------------------------------------------------------ addresses
# Client addresses. "Listed" ones are in $LIST; 192.0.2.11 only as the
# IPv4-mapped ::ffff:192.0.2.11, 2001:db8:b10::11 only in its long form.
C4_BLOCK=192.0.2.10
C4_MAPPED=192.0.2.11
C4_ALLOW=192.0.2.12
C6_BLOCK=2001:db8:b10::10
C6_LONG=2001:db8:b10::11
C6_ALLOW=2001:db8:b10::12
C4_ADD=192.0.2.30	# inserted later with 'bloomxdp add'
# The swap test: in both lists A and B, only in A, only in B, in neither.
S4_BOTH=192.0.2.20 S4_A=192.0.2.21 S4_B=192.0.2.22 S4_NONE=192.0.2.23
S6_BOTH=2001:db8:b10::20 S6_A=2001:db8:b10::21 S6_B=2001:db8:b10::22 S6_NONE=2001:db8:b10::23

ALL_CLIENT=("$C4_BLOCK" "$C4_MAPPED" "$C4_ALLOW" "$C6_BLOCK" "$C6_LONG" "$C6_ALLOW" "$C4_ADD"
	"$S4_BOTH" "$S4_A" "$S4_B" "$S4_NONE" "$S6_BOTH" "$S6_A" "$S6_B" "$S6_NONE")

if ! topo_up "${ALL_CLIENT[@]}"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV"

LIST=$E2E_TMP/main.txt
cat >"$LIST" <<EOF
# main test list: 7 entries, one duplicate

$C4_BLOCK
::ffff:$C4_MAPPED	# IPv4-mapped: blocks $C4_MAPPED
  $C6_BLOCK   # surrounding white space
2001:0db8:0b10:0000:0000:0000:0000:0011
198.51.100.7
203.0.113.99
$C4_BLOCK
EOF
LIST_ENTRIES=7


# ------------------------------------------------------------ not attached yet
check_fails "status on a not-attached interface" 1 "not attached" bx status "$IF_SRV"
check_fails "stats on a not-attached interface" 1 "not attached" bx stats "$IF_SRV" --json
check_fails "detach on a not-attached interface" 1 "not attached" bx detach "$IF_SRV"
check_fails "load on a not-attached interface" 1 "not attached" bx load "$IF_SRV" "$LIST"
check_fails "attach to a missing interface" 1 "no such interface" bx attach "bxe${E2E_ID}x"
check_fails "load on a missing interface: says there is no such interface" 1 \
	"bxe${E2E_ID}x: no such interface in this network namespace" bx load "bxe${E2E_ID}x" "$LIST"
check_fails "status on a missing interface: the same" 1 "bxe${E2E_ID}x: no such interface" \
	bx status "bxe${E2E_ID}x"
check_fails "attach --capacity abc" 2 "--capacity abc: expected a whole number" \
	bx attach "$IF_SRV" --capacity abc
check_fails "attach --capacity 0" 2 "--capacity 0: expected a whole number" \
	bx attach "$IF_SRV" --capacity 0
check_fails "attach --fpr 1.5" 2 "--fpr 1.5: expected a rate between 0 and 1" \
	bx attach "$IF_SRV" --fpr 1.5
check_fails "attach --fpr 0" 2 "--fpr 0: expected a rate" bx attach "$IF_SRV" --fpr 0
check_fails "attach --mode bogus" 2 "--mode bogus: expected native, generic or auto" \
	bx attach "$IF_SRV" --mode bogus
if [ ! -e "$PIN_DIR" ] && [ -z "$(xdp_on_if)" ]; then
	ok "failed attaches leave no pin directory and no XDP program"
else
	not_ok "failed attaches leave no pin directory and no XDP program" \
		"$(ls -la "$PIN_DIR" 2>&1)" "$(xdp_on_if)"
fi

# Without bloomxdp every client address gets through.
ping_many 1 0.2 "${ALL_CLIENT[@]}"
bad=
for a in "${ALL_CLIENT[@]}"; do
	[ "${PING_RX[$a]}" = 1 ] || bad+=" $a"
done
check_eq "before attach, every client address gets a ping reply" "" "$bad" \
	"no reply from:$bad"

# ------------------------------------------------------------ attach
check "attach $IF_SRV --mode native" bx attach "$IF_SRV" --mode native
prog=$(xdp_on_if)
case $prog in
"prog/xdp id "*) ok "ip link shows a native XDP program ($prog)" ;;
*) not_ok "ip link shows a native XDP program" "$(ip -n "$NS_SRV" -d link show dev "$IF_SRV")" ;;
esac
st=$(status_json)
check_eq "status --json: mode native" native "$(json_str "$st" mode)" "$st"
check_eq "status --json: action drop, match src, 0 entries, generation 0" \
	"drop src 0 0" "$(json_str "$st" action) $(json_str "$st" match) $(json_num "$st" entries) $(json_num "$st" generation)" "$st"
# The kernel and what the attachment needs of it (test_kernel_features.sh says more).
check_eq "status --json: the kernel's release, and bpf_loop among its features" \
	"$(uname -r) yes" "$(json_str "$st" kernel) $(grep -q '"features":\[[^]]*"bpf_loop"' <<<"$st" &&
		echo yes)" "$st"
check_fails "attach twice is refused" 1 "already attached to $IF_SRV" \
	bx attach "$IF_SRV" --mode native
check_eq "the refused attach left the program in place" "$prog" "$(xdp_on_if)"
check_fails "attach twice with --force replaces the program in place (test_reattach.sh)" 0 \
	"replaced the program of $IF_SRV in place" bx attach "$IF_SRV" --mode native --force
prog=$(xdp_on_if)

# ------------------------------------------------------------ load, query, traffic
out=$(bx load "$IF_SRV" "$LIST" 2>&1)
check_eq "load the main list" "loaded $LIST_ENTRIES entries into $IF_SRV" \
	"$(grep -o "loaded [0-9]* entries into $IF_SRV" <<<"$out")" "$out"
st=$(status_json)
check_eq "status --json: $LIST_ENTRIES entries, generation 1" "$LIST_ENTRIES 1" \
	"$(json_num "$st" entries) $(json_num "$st" generation)" "$st"

want="$C4_BLOCK: blocked
::ffff:$C4_BLOCK: blocked
$C4_MAPPED: blocked
$C6_BLOCK: blocked
$C6_LONG: blocked
198.51.100.7: blocked
$C4_ALLOW: not blocked
$C6_ALLOW: not blocked
$S4_NONE: not blocked"
got=$(bxq "$IF_SRV" "$C4_BLOCK" "::ffff:$C4_BLOCK" "$C4_MAPPED" "$C6_BLOCK" "$C6_LONG" \
	198.51.100.7 "$C4_ALLOW" "$C6_ALLOW" "$S4_NONE" 2>&1)
check_eq "query agrees with the list (mapped and long forms too)" "$want" "$got"
# (A bare word such as "nonsense" is a valid domain entry: the invalid entries
# below look like addresses.)
check_fails "query with an invalid entry exits 1" 1 "192\.0\.2\.300: not an IPv4 or IPv6 address" \
	bx query "$IF_SRV" "$C4_BLOCK" 192.0.2.300

# ICMP echo: the only traffic between the two snapshots, so the counters must
# match the echo requests exactly (permanent neighbours: no ARP/NDP).
N=5
before=$(stats_json)
ping_many "$N" 0.02 "$C4_BLOCK" "$C4_MAPPED" "$C6_BLOCK" "$C6_LONG" "$C4_ALLOW" "$C6_ALLOW"
after=$(stats_json)
for a in "$C4_BLOCK" "$C4_MAPPED" "$C6_BLOCK" "$C6_LONG"; do
	check_eq "ping from listed $a: $N sent, no reply" "$N 0" "${PING_TX[$a]} ${PING_RX[$a]}" \
		"$(cat "${PING_OUT[$a]}")"
done
for a in "$C4_ALLOW" "$C6_ALLOW"; do
	check_eq "ping from unlisted $a: $N sent, $N replies" "$N $N" \
		"${PING_TX[$a]} ${PING_RX[$a]}" "$(cat "${PING_OUT[$a]}")"
done
check_eq "stats: dropped grew by exactly the $((4 * N)) blocked echo requests" $((4 * N)) \
	"$(delta "$before" "$after" dropped)" "before: $before" "after:  $after"
check_eq "stats: hits_v4 and hits_v6 grew by $((2 * N)) each" "$((2 * N)) $((2 * N))" \
	"$(delta "$before" "$after" hits_v4) $(delta "$before" "$after" hits_v6)" \
	"before: $before" "after:  $after"
check_eq "stats: would_drop and no_filter stay 0" "0 0" \
	"$(json_num "$after" would_drop) $(json_num "$after" no_filter)" "$after"
p=$(delta "$before" "$after" passed)
if [ "$p" -ge $((2 * N)) ]; then
	ok "stats: passed grew by at least the $((2 * N)) allowed echo requests ($p)"
else
	not_ok "stats: passed grew by at least $((2 * N))" "got $p"
fi

# UDP with nc: one datagram per client, server in the server namespace.
port=40000
udp_try() { # SRC -> prints what the server received
	local src=$1 dst out=$E2E_TMP/udp.$port srv
	case $src in *:*) dst=$SRV6 ;; *) dst=$SRV4 ;; esac
	bg_start timeout 5 nsenter --net="/run/netns/$NS_SRV" -- nc -u -l -W 1 "$dst" "$port" >"$out"
	srv=$BG_PID
	if ! wait_listen udp "$port"; then
		echo "(no UDP listener on $port)"
		stop_pid "$srv"
		return
	fi
	printf 'token-%s\n' "$src" | timeout 5 nsenter --net="/run/netns/$NS_CLI" -- \
		nc -u -w 1 -s "$src" "$dst" "$port" >/dev/null 2>&1
	wait_pid "$srv" 1 >/dev/null
	stop_pid "$srv"
	cat "$out"
	port=$((port + 1))
}
before=$(stats_json)
for a in "$C4_ALLOW" "$C6_ALLOW"; do
	check_eq "UDP (nc) from unlisted $a reaches the server" "token-$a" "$(udp_try "$a")"
done
for a in "$C4_BLOCK" "$C6_BLOCK"; do
	check_eq "UDP (nc) from listed $a never reaches the server" "" "$(udp_try "$a")"
done
after=$(stats_json)
check_eq "stats: dropped grew by exactly the 2 blocked datagrams" 2 \
	"$(delta "$before" "$after" dropped)" "before: $before" "after:  $after"

# TCP with nc: the allowed client connects and its data arrives; the blocked
# one never gets a SYN-ACK and times out (-w 2).
before=$(stats_json)
for a in "$C4_ALLOW" "$C6_ALLOW"; do
	check_eq "TCP (nc) from unlisted $a connects and delivers" "rc=0 data=token-$a" \
		"$(tcp_try "$a")"
done
for a in "$C4_BLOCK" "$C6_BLOCK"; do
	r=$(tcp_try "$a")
	case $r in
	"rc=0 "* | *token*) not_ok "TCP (nc) from listed $a cannot connect" "$r" ;;
	*) ok "TCP (nc) from listed $a cannot connect ($r)" ;;
	esac
done
after=$(stats_json)
d=$(delta "$before" "$after" dropped)
if [ "$d" -ge 2 ]; then
	ok "stats: the blocked SYNs were dropped ($d, retransmissions included)"
else
	not_ok "stats: the blocked SYNs were dropped" "dropped grew by $d" "$after"
fi

# ------------------------------------------------------------ add
check_eq "before 'add', $C4_ADD gets replies" "2 2" "$(ping_recv "$C4_ADD" "$SRV4" 2 0.05)"
out=$(bx add "$IF_SRV" "$C4_ADD" 2>&1)
check_eq "add $C4_ADD" "added 1 entry to $IF_SRV (1 not already in the filter)" "$out"
check_eq "after 'add', query says blocked" "$C4_ADD: blocked" "$(bxq "$IF_SRV" "$C4_ADD" 2>&1)"
check_eq "after 'add', $C4_ADD gets no reply" "3 0" "$(ping_recv "$C4_ADD" "$SRV4" 3 0.05)"
st=$(status_json)
check_eq "status: entries $((LIST_ENTRIES + 1)) after add, generation still 1" \
	"$((LIST_ENTRIES + 1)) 1" "$(json_num "$st" entries) $(json_num "$st" generation)" "$st"
check_fails "add with an invalid entry fails and adds nothing" 1 \
	"192\.0\.2\.300: not an IPv4 or IPv6 address.*nothing was added|nothing was added" \
	bx add "$IF_SRV" 192.0.2.31 192.0.2.300
check_eq "after the failed add, its valid entry is not blocked" "192.0.2.31: not blocked" \
	"$(bxq "$IF_SRV" 192.0.2.31 2>&1)"
check_fails "add of a prefix with host bits set suggests the prefix" 1 \
	"did you mean 192.0.2.0/24" bx add "$IF_SRV" 192.0.2.1/24
st=$(status_json)
check_eq "failed adds leave the entry count at $((LIST_ENTRIES + 1))" "$((LIST_ENTRIES + 1))" \
	"$(json_num "$st" entries)" "$st"

# ------------------------------------------------------------ load with a bad line
BAD=$E2E_TMP/bad.txt
printf '# a list with a bad fourth line\n192.0.2.40\n\n192.0.2.256\n192.0.2.41\n' >"$BAD"
check_fails "load of a list with a bad line: non-zero, FILE:LINE:, the --lenient hint and 'unchanged'" 1 \
	"$BAD:4: 192\.0\.2\.256: not an IPv4 or IPv6 address; --lenient skips such lines; the live list of $IF_SRV is unchanged" \
	bx load "$IF_SRV" "$BAD"
check_fails "load from standard input with a bad line names (standard input):2:" 1 \
	"\(standard input\):2: 10\.0\.0\.300" \
	bash -c 'printf "192.0.2.40\n10.0.0.300\n" | "$@"' _ timeout 30 \
	nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" load "$IF_SRV" -
check_fails "load of a missing file says it cannot open it" 1 "cannot open" \
	bx load "$IF_SRV" "$E2E_TMP/no-such-list.txt"
check_fails "load of a good file then a bad one changes nothing" 1 "$BAD:4:" \
	bx load "$IF_SRV" "$LIST" "$BAD"
# Issue 21: prefixes shorter than /8 (IPv4) or /32 (IPv6) only with --allow-wide.
WIDE=$E2E_TMP/wide.txt
printf '192.0.2.40\n0.0.0.0/1\n' >"$WIDE"
check_fails "load of a list holding 0.0.0.0/1: refused at its line, naming --allow-wide and --lenient" \
	1 "$WIDE:2: 0\.0\.0\.0/1: a prefix shorter than /8 .*give --allow-wide.*; --lenient skips such lines; the live list of $IF_SRV is unchanged" \
	bx load "$IF_SRV" "$WIDE"
out=$(bx add "$IF_SRV" 0.0.0.0/0 2>&1)
rc=$?
check_eq "add 0.0.0.0/0: exit 1, one line naming --allow-wide, nothing added" \
	"1 1 yes yes" "$rc $(wc -l <<<"$out") $(grep -qe '--allow-wide' <<<"$out" && echo yes) $(grep -q 'nothing was added' <<<"$out" && echo yes)" "$out"
check_fails "add 2001::/16: refused too (IPv6: shorter than /32)" 1 "--allow-wide.*nothing was added" \
	bx add "$IF_SRV" 2001::/16
check_fails "add of a range covering a /7: refused" 1 "--allow-wide" \
	bx add "$IF_SRV" 100.0.0.0-101.255.255.255
# CSV without --column: refused before anything is read (it took start,end rows as hosts).
printf 'start,end,cc\n198.51.100.0,198.51.100.255,ZZ\n' >"$E2E_TMP/ranges.csv"
check_fails "load --format csv without --column: refused, naming --column" 2 \
	"--format csv needs --column" bx load "$IF_SRV" --format csv "$E2E_TMP/ranges.csv"
# Public suffixes: without --lenient the count, the lines and both ways out; with it, skipped.
printf '192.0.2.40\nedu.pl\n' >"$E2E_TMP/suffix.txt"
check_fails "load of a list holding edu.pl: refused, naming its line, --allow-public-suffix and --lenient" \
	1 "1 public suffix in the list.*suffix\.txt:2 \(edu\.pl\).*--allow-public-suffix.*--lenient to skip it" \
	bx load "$IF_SRV" "$E2E_TMP/suffix.txt"
check_fails "plan --lenient of that list: edu.pl skipped, reported with its line" 0 \
	"skipped 1 line \(.*suffix\.txt:2\): a public suffix" \
	bx plan --lenient --list "$E2E_TMP/suffix.txt"
st=$(status_json)
check_eq "after the failed loads: generation 1, entries $((LIST_ENTRIES + 1))" \
	"1 $((LIST_ENTRIES + 1))" "$(json_num "$st" generation) $(json_num "$st" entries)" "$st"
check_eq "after the failed loads: the live list is unchanged (query)" \
	"$C4_BLOCK: blocked
$C4_ADD: blocked
192.0.2.40: not blocked" "$(bxq "$IF_SRV" "$C4_BLOCK" "$C4_ADD" 192.0.2.40 2>&1)"
ping_many 3 0.05 "$C4_BLOCK" "$C6_BLOCK" "$C4_ALLOW"
check_eq "after the failed loads: listed addresses still get no reply, others do" \
	"3 0 3 0 3 3" \
	"${PING_TX[$C4_BLOCK]} ${PING_RX[$C4_BLOCK]} ${PING_TX[$C6_BLOCK]} ${PING_RX[$C6_BLOCK]} ${PING_TX[$C4_ALLOW]} ${PING_RX[$C4_ALLOW]}"
check_eq "after the refused adds: 0.0.0.0/0, 2001::/16 and 100.0.0.0/7 block nothing" \
	"203.0.113.250: not blocked
2001:db9::1: not blocked
101.2.3.4: not blocked" "$(bxq "$IF_SRV" 203.0.113.250 2001:db9::1 101.2.3.4 2>&1)"
check "add --allow-wide 100.0.0.0/7: taken" bx add "$IF_SRV" --allow-wide 100.0.0.0/7
check_eq "... 101.2.3.4 blocked, 102.0.0.1 not" "101.2.3.4: blocked
102.0.0.1: not blocked" "$(bxq "$IF_SRV" 101.2.3.4 102.0.0.1 2>&1)"
check "del 100.0.0.0/7" bx del "$IF_SRV" 100.0.0.0/7
check_eq "... and out again" "101.2.3.4: not blocked" "$(bxq "$IF_SRV" 101.2.3.4 2>&1)"

# ------------------------------------------------------------ atomic swap under traffic
LA=$E2E_TMP/list-a.txt
LB=$E2E_TMP/list-b.txt
printf '# list A\n%s\n' "$S4_BOTH" "$S4_A" "$S6_BOTH" "$S6_A" 198.51.100.1 203.0.113.5 >"$LA"
printf '# list B\n%s\n' "$S4_BOTH" "$S4_B" "$S6_BOTH" "$S6_B" 198.51.100.2 203.0.113.5 >"$LB"
# iputils ping keeps its 2 ms pace only while replies come back: a source whose
# requests are all dropped sends one every ~10 ms, so the flood lasts ~15 s and
# the one-list sources lose fewer than half of their requests (their blocked
# phases are sampled more sparsely). Every request is still accounted for.
SWAP_SRCS=("$S4_BOTH" "$S4_A" "$S4_B" "$S4_NONE" "$S6_BOTH" "$S6_A" "$S6_B" "$S6_NONE")
FLOOD=1500
check "swap: load list A before the traffic starts" bx load "$IF_SRV" "$LA"
gen0=$(json_num "$(status_json)" generation)
before=$(stats_json)
t0=$(date +%s.%N)
ping_many_start "$FLOOD" 0.002 "${SWAP_SRCS[@]}"
loads=0 load_fail=0 load_err=
for ((i = 0; i < 1000; i++)); do
	ping_many_running || break
	# Bounded in time too, whatever the pings do.
	[ "$(awk -v t0="$t0" -v now="$(date +%s.%N)" 'BEGIN { print (now - t0 > 30) }')" = 1 ] && break
	if [ $((i % 2)) -eq 0 ]; then f=$LB; else f=$LA; fi
	if out=$(bx load "$IF_SRV" "$f" 2>&1); then
		loads=$((loads + 1))
	else
		load_fail=$((load_fail + 1))
		load_err=$out
	fi
	sleep 0.01
done
ping_many_wait
t1=$(date +%s.%N)
after=$(stats_json)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
diag "swap: $loads loads (A<->B) in $secs s while 8 sources sent $FLOOD echo requests each"
for a in "${SWAP_SRCS[@]}"; do
	diag "  $a: sent ${PING_TX[$a]}, replies ${PING_RX[$a]}"
done
check_eq "swap: every load succeeded" 0 "$load_fail" "$load_err"
if [ "$loads" -ge 20 ]; then
	ok "swap: at least 20 swaps happened under traffic ($loads)"
else
	not_ok "swap: at least 20 swaps happened under traffic" "only $loads"
fi
for a in "$S4_BOTH" "$S6_BOTH"; do
	check_eq "swap: $a (in A and B) never got a reply" "$FLOOD 0" \
		"${PING_TX[$a]} ${PING_RX[$a]}" "$(cat "${PING_OUT[$a]}")"
done
for a in "$S4_NONE" "$S6_NONE"; do
	check_eq "swap: $a (in neither) got every reply" "$FLOOD $FLOOD" \
		"${PING_TX[$a]} ${PING_RX[$a]}" "$(cat "${PING_OUT[$a]}")" \
		"$(in_srv ip -s link show dev "$IF_SRV")"
done
for a in "$S4_A" "$S4_B" "$S6_A" "$S6_B"; do
	if [ "${PING_TX[$a]}" = "$FLOOD" ] && [ "${PING_RX[$a]}" -gt 0 ] &&
		[ "${PING_RX[$a]}" -lt "$FLOOD" ]; then
		ok "swap: $a (in one list) was blocked part of the time (${PING_RX[$a]}/$FLOOD replies)"
	else
		not_ok "swap: $a (in one list) was blocked part of the time" \
			"sent ${PING_TX[$a]}, replies ${PING_RX[$a]}"
	fi
done
lost4=0 lost6=0
for a in "${SWAP_SRCS[@]}"; do
	l=$((PING_TX[$a] - PING_RX[$a]))
	case $a in *:*) lost6=$((lost6 + l)) ;; *) lost4=$((lost4 + l)) ;; esac
done
check_eq "swap: dropped grew by exactly the unanswered requests ($((lost4 + lost6)))" \
	$((lost4 + lost6)) "$(delta "$before" "$after" dropped)" "before: $before" "after:  $after"
check_eq "swap: hits_v4 / hits_v6 match the unanswered IPv4 / IPv6 requests" \
	"$lost4 $lost6" "$(delta "$before" "$after" hits_v4) $(delta "$before" "$after" hits_v6)"
st=$(status_json)
check_eq "swap: generation grew by the number of loads" "$((gen0 + loads))" \
	"$(json_num "$st" generation)" "$st"

# ------------------------------------------------------------ monitor mode
check "detach before re-attaching in monitor mode" bx detach "$IF_SRV"
ms=$(wait_no_xdp "$NS_SRV" "$IF_SRV" 3) && diag "the XDP program left $IF_SRV $ms ms after detach"
check "attach --action monitor --mode native" \
	bx attach "$IF_SRV" --mode native --action monitor --capacity 1000 --fpr 0.001
check "load the main list (monitor)" bx load "$IF_SRV" "$LIST"
st=$(status_json)
check_eq "status: action monitor, mode native, capacity 1000" "monitor native 1000" \
	"$(json_str "$st" action) $(json_str "$st" mode) $(json_num "$st" capacity)" "$st"
before=$(stats_json)
ping_many "$N" 0.02 "$C4_BLOCK" "$C6_BLOCK"
after=$(stats_json)
check_eq "monitor: listed addresses still get every reply" "$N $N $N $N" \
	"${PING_TX[$C4_BLOCK]} ${PING_RX[$C4_BLOCK]} ${PING_TX[$C6_BLOCK]} ${PING_RX[$C6_BLOCK]}"
check_eq "monitor: would_drop grew by $((2 * N)), dropped by 0" "$((2 * N)) 0" \
	"$(delta "$before" "$after" would_drop) $(delta "$before" "$after" dropped)" "$after"
check_eq "monitor: hits_v4 / hits_v6 grew by $N each" "$N $N" \
	"$(delta "$before" "$after" hits_v4) $(delta "$before" "$after" hits_v6)" "$after"

# ------------------------------------------------------------ another XDP program, --force
check "detach before the --force test" bx detach "$IF_SRV"
ms=$(wait_no_xdp "$NS_SRV" "$IF_SRV" 3) && diag "the XDP program left $IF_SRV $ms ms after detach"
if out=$(ip -n "$NS_SRV" link set dev "$IF_SRV" xdpdrv obj "$PROBE_OBJ" sec xdp 2>&1) &&
	foreign=$(xdp_on_if) && [ -n "$foreign" ]; then
	ok "a foreign XDP program is on $IF_SRV ($foreign, via ip link)"
	check_fails "attach refuses to replace a foreign XDP program" 1 \
		"already has an XDP program, [^ ]+ \(id ${foreign##* }, native\).*--force" \
		bx attach "$IF_SRV" --mode native
	if [ ! -e "$PIN_DIR" ] && [ "$(xdp_on_if)" = "$foreign" ]; then
		ok "the refused attach left the foreign program and no pins"
	else
		not_ok "the refused attach left the foreign program and no pins" "$(xdp_on_if)" \
			"$(ls "$PIN_DIR" 2>&1)"
	fi
	check_fails "attach --force replaces it" 0 "removed XDP program [^ ]+ \(id ${foreign##* }, native\)" \
		bx attach "$IF_SRV" --mode native --force
	st=$(status_json)
	now=$(xdp_on_if)
	if [ "$(json_str "$st" mode)" = native ] && [ "$now" = "prog/xdp id $(json_num "$st" prog_id)" ] &&
		[ "$now" != "$foreign" ]; then
		ok "after --force, bloomxdp's program is the native one ($now)"
	else
		not_ok "after --force, bloomxdp's program is the native one" "ip link: $now" "$st"
	fi
else
	skip "foreign XDP program and --force" "ip link cannot load $PROBE_OBJ: $out"
	check "attach --mode native (no foreign program)" bx attach "$IF_SRV" --mode native
fi
check "load the main list again" bx load "$IF_SRV" "$LIST"
ping_many 3 0.05 "$C4_BLOCK" "$C4_ALLOW" "$C6_ALLOW"
check_eq "listed address blocked, unlisted ones answered" "0 3 3" \
	"${PING_RX[$C4_BLOCK]} ${PING_RX[$C4_ALLOW]} ${PING_RX[$C6_ALLOW]}"

# ------------------------------------------------------------ detach
out=$(bx detach "$IF_SRV" 2>&1)
check_eq "detach" "detached from $IF_SRV" "$(head -n 1 <<<"$out")"
# What attach --force replaced above (or nothing, where ip link could not load it).
if [ -n "${foreign:-}" ]; then
	check "detach says what ran before" grep -qE \
		"^before bloomxdp, $IF_SRV ran XDP program [^ ]+ \(id ${foreign##* }, native\)" <<<"$out"
fi
ms=$(wait_no_xdp "$NS_SRV" "$IF_SRV" 3) && diag "the XDP program left $IF_SRV $ms ms after detach"
if ip -n "$NS_SRV" -d link show dev "$IF_SRV" | grep -qE '\bxdp|prog/xdp'; then
	not_ok "after detach, ip link shows no XDP program" "$(ip -n "$NS_SRV" -d link show dev "$IF_SRV")"
else
	ok "after detach, ip link shows no XDP program"
fi
if [ -e "$PIN_DIR" ]; then
	not_ok "after detach, the pin directory is gone" "$(ls -la "$PIN_DIR")"
else
	ok "after detach, the pin directory is gone"
fi
check_eq "after detach, the listed address gets replies again" "3 3" \
	"$(ping_recv "$C4_BLOCK" "$SRV4" 3 0.05)"
check_fails "detach again says not attached" 1 "not attached" bx detach "$IF_SRV"

# Detach after the interface went away: the pins outlive it; detach cleans up.
check "attach once more" bx attach "$IF_SRV" --mode native
ip netns del "$NS_SRV"	# takes the veth pair with it
# The namespace goes away asynchronously: wait (at most 5 s) for the link to see it.
for ((i = 0; i < 50; i++)); do
	st=$(timeout 30 "$BLOOMXDP" status "$IF_SRV" --json 2>&1)
	[ "$(json_str "$st" mode)" = "detached (interface gone)" ] && break
	sleep 0.1
done
check_eq "status once the interface is gone says so" "detached (interface gone)" \
	"$(json_str "$st" mode)" "$st"
check "detach works once the interface is gone" timeout 30 "$BLOOMXDP" detach "$IF_SRV"

# ------------------------------------------------------------ cleanup
e2e_cleanup
left=$(e2e_leftovers)
check_eq "cleanup leaves no namespace, interface, pin or temporary file" "" "$left"

tap_finish
