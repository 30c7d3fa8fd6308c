#!/usr/bin/env bash
# End-to-end test of attach --verify with prefixes and an allowlist, with
# real traffic on a veth pair between two network namespaces (see lib.sh):
# a blocked /25 (and an IPv6 /120) with allowlisted hosts inside, a blocked
# /32, clients inside and outside the ranges; ping and nc from each; the
# counters (confirmed, allowed, false_positives); 'query' naming the listed
# prefix; 'watch --json' showing the drops; 'plan --verify'; a second load
# replacing the list atomically (under traffic); detach leaving nothing; then
# --verify auto, the default: the exact stage on for a list within a quarter
# of --max-memory (a Bloom false positive of a tiny filter passes), off over
# it (the same packet dropped), status saying which and why, on again.
# Speaks TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts it.
#
# Needs root. Runs in about 25 s. Touches nothing but its own namespaces,
# veths and pins (all named after E2E_ID), and removes them on any exit.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "end-to-end tests of --verify"
e2e_install_trap

# ------------------------------------------------------------ addresses
# Documentation ranges only. The first list blocks 198.51.100.0/25,
# 203.0.113.77 and 2001:db8:b10::100/120; the second 198.51.100.128/25,
# 203.0.113.78 and 2001:db8:b10::200/120.
P_IN1=198.51.100.5		# in the first /25
P_IN2=198.51.100.126		# in the first /25
P_ALLOW1=198.51.100.10		# in the first /25, allowlisted by 'load --allow FILE'
P_ALLOW2=198.51.100.20		# in the first /25, allowlisted by 'add --allow'
P_OUT=198.51.100.200		# outside the first /25, inside the second
H_BLOCK=203.0.113.77		# the first list's /32
H_NB=203.0.113.78		# its neighbour: the second list's /32
C_PLAIN=192.0.2.50		# in no list (and the client's route to $SRV4)
V_IN=2001:db8:b10::105		# in the first /120
V_ALLOW=2001:db8:b10::1fe	# in the first /120, allowlisted by 'load --allow FILE'
V_OUT=2001:db8:b10::205		# outside the first /120, inside the second

# Candidates for a Bloom false positive (--verify auto below): in no list, on-link.
FP_CAND=()
for ((i = 100; i < 124; i++)); do
	FP_CAND+=("192.0.2.$i")
done

ALL_CLIENT=("$P_IN1" "$P_IN2" "$P_ALLOW1" "$P_ALLOW2" "$P_OUT" "$H_BLOCK" "$H_NB" "$C_PLAIN"
	"$V_IN" "$V_ALLOW" "$V_OUT" "${FP_CAND[@]}")

if ! topo_up "${ALL_CLIENT[@]}"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
# The server's way back to the client addresses outside its own /24: on-link
# routes (the client's neighbour entries are permanent already).
if ip -n "$NS_SRV" route add 198.51.100.0/24 dev "$IF_SRV" &&
	ip -n "$NS_SRV" route add 203.0.113.0/24 dev "$IF_SRV"; then
	ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV, routes to 198.51.100.0/24, 203.0.113.0/24"
else
	not_ok "routes in $NS_SRV"
	tap_finish
	exit 1
fi

LIST1=$E2E_TMP/list1.txt
cat >"$LIST1" <<EOF
# the first blocklist: two prefixes and a host
198.51.100.0/25
$H_BLOCK
2001:db8:b10::100/120
EOF
LIST2=$E2E_TMP/list2.txt
cat >"$LIST2" <<EOF
# the second blocklist
198.51.100.128/25
$H_NB
2001:db8:b10::200/120
EOF
ALLOW=$E2E_TMP/allow.txt
printf '# allowlist\n%s\n%s\n' "$P_ALLOW1" "$V_ALLOW" >"$ALLOW"


# expect_replies NAME WANT_RX SRC...: every SRC got WANT_RX of N replies (ping_many ran).
N=3
expect_replies() {
	local name=$1 want=$2 a bad=
	shift 2
	for a in "$@"; do
		[ "${PING_TX[$a]}" = "$N" ] && [ "${PING_RX[$a]}" = "$want" ] ||
			bad+=" $a:${PING_TX[$a]}/${PING_RX[$a]}"
	done
	check_eq "$name" "" "$bad" "sent/received not $N/$want for:$bad"
}

# Without bloomxdp every client address gets through (the routes work).
ping_many 1 0.2 "${ALL_CLIENT[@]}"
bad=
for a in "${ALL_CLIENT[@]}"; do
	[ "${PING_RX[$a]}" = 1 ] || bad+=" $a"
done
check_eq "before attach, every client address gets a ping reply" "" "$bad" "no reply from:$bad"

# ------------------------------------------------------------ attach --verify, load, allow
check "attach $IF_SRV --verify --mode native" bx attach "$IF_SRV" --verify --mode native
st=$(status_json)
check_eq "status --json: native, verify true, verify_mode on" "native true on" \
	"$(json_str "$st" mode) $(sed -n 's/.*"verify":\([a-z]*\).*/\1/p' <<<"$st") $(json_str "$st" verify_mode)" "$st"
out=$(bx load "$IF_SRV" --store bloom "$LIST1" 2>&1)
check_eq "load the first list (3 entries)" "loaded 3 entries into $IF_SRV" \
	"$(grep -o "loaded [0-9]* entries into $IF_SRV" <<<"$out")" "$out"
out=$(bx load "$IF_SRV" --allow "$ALLOW" 2>&1)
check_eq "load --allow FILE" "loaded 2 allowlist entries into $IF_SRV" "$out"
out=$(bx add "$IF_SRV" --allow "$P_ALLOW2" 2>&1)
check_eq "add --allow $P_ALLOW2" "added 1 entry to the allowlist of $IF_SRV" "$out"
check_fails "add --allow of a URL is refused" 1 "the allowlist takes addresses" \
	bx add "$IF_SRV" --allow http://evil.example/x

want="$P_IN1: blocked (listed: 198.51.100.0/25)
$P_IN2: blocked (listed: 198.51.100.0/25)
$H_BLOCK: blocked (listed: $H_BLOCK)
$V_IN: blocked (listed: 2001:db8:b10::100/120)
$P_ALLOW1: not blocked
$P_ALLOW2: not blocked
$V_ALLOW: not blocked
$P_OUT: not blocked
$H_NB: not blocked
$V_OUT: not blocked
$C_PLAIN: not blocked"
got=$(bx query "$IF_SRV" "$P_IN1" "$P_IN2" "$H_BLOCK" "$V_IN" "$P_ALLOW1" "$P_ALLOW2" "$V_ALLOW" \
	"$P_OUT" "$H_NB" "$V_OUT" "$C_PLAIN" 2>&1)
check_eq "query: prefixes named, allowlisted and outside addresses not blocked" "$want" "$got"
got=$(bx query -v "$IF_SRV" "$P_ALLOW1" 2>&1)
if grep -q "on the allowlist" <<<"$got" && grep -q "^$P_ALLOW1: not blocked" <<<"$got"; then
	ok "query -v says why an allowlisted address is not blocked"
else
	not_ok "query -v says why an allowlisted address is not blocked" "$got"
fi

# ------------------------------------------------------------ traffic, counters, events
BLOCKED1=("$P_IN1" "$P_IN2" "$H_BLOCK" "$V_IN")
ALLOWED1=("$P_ALLOW1" "$P_ALLOW2" "$V_ALLOW")
OUTSIDE1=("$P_OUT" "$H_NB" "$C_PLAIN" "$V_OUT")
NEVENTS=$((N * ${#BLOCKED1[@]}))
WATCH=$E2E_TMP/watch.json
# Started before the traffic; the ring buffer keeps what comes before it reads.
bg_start timeout 15 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" watch "$IF_SRV" --json \
	--count "$NEVENTS" --timeout 5 >"$WATCH" 2>"$WATCH.err"
WATCH_PID=$BG_PID
# Ready once it holds the ring buffer (map type 27, BPF_MAP_TYPE_RINGBUF) open.
watch_ready() {
	local pid i
	for ((i = 0; i < 100; i++)); do
		for pid in $(pgrep -P "$WATCH_PID"); do
			grep -qsE '^map_type:[[:space:]]+27$' /proc/"$pid"/fdinfo/* && return 0
		done
		sleep 0.05
	done
	return 1
}
watch_ready || diag "watch did not open the ring buffer within 5 s"
before=$(stats_json)
ping_many "$N" 0.05 "${BLOCKED1[@]}" "${ALLOWED1[@]}" "${OUTSIDE1[@]}"
after=$(stats_json)
expect_replies "ping: blocked sources (prefixes, /32, v6 /120) get no reply" 0 "${BLOCKED1[@]}"
expect_replies "ping: allowlisted sources inside the blocked prefixes get every reply" "$N" \
	"${ALLOWED1[@]}"
expect_replies "ping: sources outside the lists get every reply" "$N" "${OUTSIDE1[@]}"
nb=$((N * ${#BLOCKED1[@]})) na=$((N * ${#ALLOWED1[@]}))
check_eq "stats: dropped $nb, allowed $na, confirmed $((nb + na)), false_positives 0" \
	"$nb $na $((nb + na)) 0" \
	"$(delta "$before" "$after" dropped) $(delta "$before" "$after" allowed) $(delta "$before" "$after" confirmed) $(delta "$before" "$after" false_positives)" \
	"before: $before" "after:  $after"
check_eq "stats: bloom_hits = confirmed, hits_v4 $((N * 3)), hits_v6 $N" \
	"$((nb + na)) $((N * 3)) $N" \
	"$(delta "$before" "$after" bloom_hits) $(delta "$before" "$after" hits_v4) $(delta "$before" "$after" hits_v6)" \
	"$after"
wait_pid "$WATCH_PID" 10
rc=$?
check_eq "watch --count $NEVENTS ended by itself with status 0" 0 "$rc" "$(cat "$WATCH.err")"
check_eq "watch printed $NEVENTS JSON lines" "$NEVENTS" "$(grep -c '^{' "$WATCH")" "$(cat "$WATCH")"
# One line per event: "src key key_len dst field verdict proto", sorted.
got=$(sed -n 's/.*"verdict":"\([^"]*\)","field":"\([^"]*\)","key":"\([^"]*\)","key_len":\([0-9]*\),"src":"\([^"]*\)","dst":"\([^"]*\)","proto":\([0-9]*\).*/\5 \3 \4 \6 \2 \1 \7/p' \
	"$WATCH" | sort | uniq -c | sed 's/^ *//')
want=$(printf '%s\n' "$N $H_BLOCK address 32 $SRV4 src drop 1" \
	"$N $P_IN1 prefix 25 $SRV4 src drop 1" "$N $P_IN2 prefix 25 $SRV4 src drop 1" \
	"$N $V_IN prefix 120 $SRV6 src drop 58" | sort)
check_eq "watch --json: each drop with field src, key prefix/25, /120 or address/32, src, dst" \
	"$want" "$got" "$(cat "$WATCH")"
check_eq "stats: events_sent $NEVENTS, none rate-limited or lost" "$NEVENTS 0 0" \
	"$(delta "$before" "$after" events_sent) $(delta "$before" "$after" events_ratelimited) $(delta "$before" "$after" events_lost)"

# TCP with nc: the blocked client never gets a SYN-ACK (-w 2); the others connect.
port=41000
before=$(stats_json)
for a in "$P_ALLOW2" "$V_ALLOW" "$P_OUT"; do
	check_eq "TCP (nc) from $a connects and delivers" "rc=0 data=token-$a" "$(tcp_try "$a")"
done
for a in "$P_IN2" "$V_IN"; do
	r=$(tcp_try "$a")
	case $r in
	"rc=0 "* | *token*) not_ok "TCP (nc) from blocked $a cannot connect" "$r" ;;
	*) ok "TCP (nc) from blocked $a cannot connect ($r)" ;;
	esac
done
after=$(stats_json)
d=$(delta "$before" "$after" dropped) c=$(delta "$before" "$after" confirmed)
al=$(delta "$before" "$after" allowed) fp=$(delta "$before" "$after" false_positives)
if [ "$d" -ge 2 ] && [ "$al" -ge 2 ] && [ "$c" = $((d + al)) ] && [ "$fp" = 0 ]; then
	ok "stats after nc: dropped $d, allowed $al, confirmed = dropped + allowed, no false positive"
else
	not_ok "stats after nc: confirmed = dropped + allowed" "dropped $d allowed $al confirmed $c fp $fp"
fi

# ------------------------------------------------------------ plan --verify
out=$(timeout 30 "$BLOOMXDP" plan --list "$LIST1" --verify 2>&1)
bytes=$(sed -n 's/^exact copy *\([0-9][0-9]*\) bytes (--verify; kernel accounting).*/\1/p' <<<"$out")
if [ -n "$bytes" ] && [ "$bytes" -gt 0 ]; then
	ok "plan --list FILE --verify prints the exact copy's bytes ($bytes)"
else
	not_ok "plan --list FILE --verify prints the exact copy's bytes" "$out"
fi
js=$(timeout 30 "$BLOOMXDP" plan --list "$LIST1" --verify --json 2>&1)
check_eq "plan --verify --json: the same exact_bytes" "$bytes" "$(json_num "$js" exact_bytes)" "$js"
check_fails "plan --verify without --list is refused" 2 "give it with --list" \
	timeout 30 "$BLOOMXDP" plan --verify

# ------------------------------------------------------------ the generations in the maps
# outer_ids NAME: the ids of the maps in the slots of an outer map, sorted.
# (The outer maps have no BTF: bpftool prints each value as 4 bytes, little-endian.)
outer_ids() {
	bpftool map dump pinned "$PIN_DIR/$1" -j 2>/dev/null |
		grep -oE '"value":\["0x[0-9a-f]+","0x[0-9a-f]+","0x[0-9a-f]+","0x[0-9a-f]+"\]' |
		grep -oE '0x[0-9a-f]+' | paste -d ' ' - - - - |
		while read -r b0 b1 b2 b3; do
			echo $((b0 | b1 << 8 | b2 << 16 | b3 << 24))
		done | sort -n | tr '\n' ' '
}
have_bpftool=0
command -v bpftool >/dev/null && bpftool map dump pinned "$PIN_DIR/filter" -j >/dev/null 2>&1 &&
	have_bpftool=1
slots_each() { # one slot in use in each outer map
	local m ids bad=
	for m in filter verify_v4 verify_v6 verify_names allow_v4 allow_v6 allow_names; do
		ids=$(outer_ids "$m")
		[ "$(wc -w <<<"$ids")" = 1 ] || bad+=" $m:[$ids]"
	done
	echo "$bad"
}
if [ "$have_bpftool" = 1 ]; then
	check_eq "one live slot in each outer map (the old generation freed)" "" "$(slots_each)" \
		"$(bpftool map dump pinned "$PIN_DIR/verify_v4" -j 2>&1)"
else
	skip "one live slot in each outer map" "bpftool cannot dump $PIN_DIR/filter"
fi

# ------------------------------------------------------------ a second load, atomically
gen0=$(json_num "$(status_json)" generation)
vids0=$(outer_ids verify_v4)
# Traffic during the swap: every request is either answered or dropped.
SWAP=("$P_IN1" "$P_OUT")
before=$(stats_json)
ping_many_start 200 0.01 "${SWAP[@]}"
sleep 0.5
out=$(bx load "$IF_SRV" --store bloom "$LIST2" 2>&1)
check_eq "load the second list under traffic" "loaded 3 entries into $IF_SRV" \
	"$(grep -o "loaded [0-9]* entries into $IF_SRV" <<<"$out")" "$out"
ping_many_wait
after=$(stats_json)
lost=$((PING_TX[$P_IN1] - PING_RX[$P_IN1] + PING_TX[$P_OUT] - PING_RX[$P_OUT]))
diag "swap: $P_IN1 ${PING_RX[$P_IN1]}/${PING_TX[$P_IN1]} replies, $P_OUT ${PING_RX[$P_OUT]}/${PING_TX[$P_OUT]}"
check_eq "swap: dropped grew by exactly the unanswered requests" "$lost" \
	"$(delta "$before" "$after" dropped)" "$after"
if [ "${PING_RX[$P_IN1]}" -gt 0 ] && [ "${PING_RX[$P_IN1]}" -lt 200 ] &&
	[ "${PING_RX[$P_OUT]}" -gt 0 ] && [ "${PING_RX[$P_OUT]}" -lt 200 ]; then
	ok "swap: $P_IN1 blocked then answered, $P_OUT answered then blocked"
else
	not_ok "swap: both sources changed verdict during the run" \
		"$P_IN1 ${PING_RX[$P_IN1]}/200, $P_OUT ${PING_RX[$P_OUT]}/200"
fi
check_eq "swap: confirmed = dropped, no false positive" \
	"$(delta "$before" "$after" dropped) 0" \
	"$(delta "$before" "$after" confirmed) $(delta "$before" "$after" false_positives)"
check_eq "status: generation +1" "$((gen0 + 1))" "$(json_num "$(status_json)" generation)"
if [ "$have_bpftool" = 1 ]; then
	check_eq "after the second load: one live slot in each outer map" "" "$(slots_each)"
	vids1=$(outer_ids verify_v4)
	if [ -n "$vids1" ] && [ "$vids1" != "$vids0" ]; then
		ok "the exact copy is a new map ($vids0-> $vids1)"
	else
		not_ok "the exact copy is a new map" "before: $vids0" "after: $vids1"
	fi
fi

BLOCKED2=("$P_OUT" "$H_NB" "$V_OUT")
ANSWERED2=("$P_IN1" "$P_IN2" "$H_BLOCK" "$V_IN" "$P_ALLOW1" "$C_PLAIN")
before=$(stats_json)
ping_many "$N" 0.05 "${BLOCKED2[@]}" "${ANSWERED2[@]}"
after=$(stats_json)
expect_replies "second list: addresses only in it get no reply" 0 "${BLOCKED2[@]}"
expect_replies "second list: addresses only in the first one (and others) get every reply" \
	"$N" "${ANSWERED2[@]}"
check_eq "second list: dropped $((N * 3)), allowed 0, confirmed $((N * 3))" \
	"$((N * 3)) 0 $((N * 3))" \
	"$(delta "$before" "$after" dropped) $(delta "$before" "$after" allowed) $(delta "$before" "$after" confirmed)"
want="$P_OUT: blocked (listed: 198.51.100.128/25)
$P_IN1: not blocked
$H_NB: blocked (listed: $H_NB)
$H_BLOCK: not blocked
$V_OUT: blocked (listed: 2001:db8:b10::200/120)"
check_eq "query after the second load" "$want" \
	"$(bx query "$IF_SRV" "$P_OUT" "$P_IN1" "$H_NB" "$H_BLOCK" "$V_OUT" 2>&1)"
# The allowlist has its own generation: a blocklist load keeps it.
out=$(bx add "$IF_SRV" 198.51.100.0/24 2>&1)
check_eq "add 198.51.100.0/24 to the live list" \
	"added 1 entry to $IF_SRV" "$(grep -o "added 1 entry to $IF_SRV" <<<"$out")" "$out"
before=$(stats_json)
ping_many "$N" 0.05 "$P_IN1" "$P_ALLOW1" "$P_ALLOW2"
after=$(stats_json)
expect_replies "after add: $P_IN1 blocked again" 0 "$P_IN1"
expect_replies "the allowlist survived the blocklist load" "$N" "$P_ALLOW1" "$P_ALLOW2"
check_eq "allowed grew by $((2 * N))" "$((2 * N))" "$(delta "$before" "$after" allowed)"

# ------------------------------------------------------------ detach
ids=
if [ "$have_bpftool" = 1 ]; then
	st=$(status_json)
	prog_id=$(json_num "$st" prog_id)
	for m in filter verify_v4 verify_v6 verify_names allow_v4 allow_v6 allow_names; do
		ids+=" $(outer_ids "$m")"
	done
fi
out=$(bx detach "$IF_SRV" 2>&1)
check_eq "detach" "detached from $IF_SRV" "$out"
if [ -z "$(xdp_on_if)" ] && [ ! -e "$PIN_DIR" ]; then
	ok "after detach: no XDP program on $IF_SRV, no pin directory"
else
	not_ok "after detach: no XDP program, no pins" "$(xdp_on_if)" "$(ls -la "$PIN_DIR" 2>&1)"
fi
if [ "$have_bpftool" = 1 ]; then
	# The kernel frees them once the last reference goes (after an RCU grace period).
	for ((i = 0; i < 50; i++)); do
		left=
		[ -n "$prog_id" ] && bpftool prog show id "$prog_id" >/dev/null 2>&1 &&
			left+=" prog:$prog_id"
		for id in $ids; do
			bpftool map show id "$id" >/dev/null 2>&1 && left+=" map:$id"
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	check_eq "after detach: the program and every filter and exact map are freed" "" "$left" \
		"ids:$ids"
	diag "freed: prog $prog_id, maps$ids"
fi
ping_many "$N" 0.05 "$P_OUT" "$H_NB" "$V_OUT"
expect_replies "after detach: the formerly blocked addresses get replies" "$N" \
	"$P_OUT" "$H_NB" "$V_OUT"

# ------------------------------------------------------------ --verify auto, the default
# A list of 3,000 hosts elsewhere and the first list, at --fpr 0.5: about half
# of all unlisted addresses are false positives of the filter.
BIG=$E2E_TMP/big.txt
{
	cat "$LIST1"
	for ((i = 0; i < 3000; i++)); do
		echo "10.$((i >> 8 & 255)).$((i & 255)).1"
	done
} >"$BIG"
check "attach $IF_SRV --fpr 0.5 (--verify not given)" bx attach "$IF_SRV" --fpr 0.5 --mode native
st=$(status_json)
check_eq "status --json: verify_mode auto by default" "auto" "$(json_str "$st" verify_mode)" "$st"
out=$(bx load "$IF_SRV" --store bloom "$BIG" 2>&1)
if grep -q "^exact stage on: 3003 keys need .*, within .* (a quarter of --max-memory)$" <<<"$out"; then
	ok "load (auto): the exact stage on, and why: $(grep '^exact stage' <<<"$out")"
else
	not_ok "load (auto): the exact stage on, and why" "$out"
fi
st=$(status_json)
reason=$(json_str "$st" verify_reason)
check_eq "status --json: verify true, the reason" "true exact stage on: 3003 keys" \
	"$(sed -n 's/.*"verify":\([a-z]*\).*/\1/p' <<<"$st") ${reason%% need*}" "$st"
out=$(bx status "$IF_SRV" 2>&1)
if grep -q "^verify          exact stage on: 3003 keys need .* (a quarter of --max-memory) (--verify auto)$" <<<"$out"; then
	ok "status: the exact stage on, and why"
else
	not_ok "status: the exact stage on, and why" "$out"
fi
# The false positives among the candidates: the filter matches them, the exact copy does not.
FPS=()
for a in "${FP_CAND[@]}"; do
	bx query -v "$IF_SRV" "$a" 2>&1 | grep -q "a false positive of the filter, refused by --verify" &&
		FPS+=("$a")
done
diag "false positives of the filter among ${#FP_CAND[@]} candidates: ${FPS[*]}"
if [ "${#FPS[@]}" -gt 0 ]; then
	ok "a tiny filter has false positives (${#FPS[@]} of ${#FP_CAND[@]})"
else
	not_ok "a tiny filter has false positives" "none of ${FP_CAND[*]}"
fi
FP=${FPS[0]:-${FP_CAND[0]}}
before=$(stats_json)
ping_many "$N" 0.05 "$H_BLOCK" "$FP"
after=$(stats_json)
expect_replies "exact stage on: the listed $H_BLOCK gets no reply" 0 "$H_BLOCK"
expect_replies "exact stage on: the false positive $FP gets every reply" "$N" "$FP"
check_eq "exact stage on: false_positives $N, confirmed = dropped $N" "$N $N $N" \
	"$(delta "$before" "$after" false_positives) $(delta "$before" "$after" confirmed) $(delta "$before" "$after" dropped)" \
	"$after"

# Over a quarter of --max-memory: the next load leaves the copy, and says why.
out=$(bx load "$IF_SRV" --store bloom "$BIG" --max-memory 200000 2>&1)
if grep -q "^exact stage off: 3003 keys need .*, more than 50.0 KB (a quarter of --max-memory)$" <<<"$out"; then
	ok "load --max-memory 200000: the exact stage off, and why: $(grep '^exact stage' <<<"$out")"
else
	not_ok "load --max-memory 200000: the exact stage off, and why" "$out"
fi
st=$(status_json)
check_eq "status --json: verify false, the reason names the limit" \
	"false exact stage off: 3003 keys" \
	"$(sed -n 's/.*"verify":\([a-z]*\).*/\1/p' <<<"$st") $(json_str "$st" verify_reason | sed 's/ need.*//')" "$st"
json_str "$st" verify_reason | grep -q "more than 50.0 KB (a quarter of --max-memory)" &&
	ok "status --json: verify_reason says more than 50.0 KB" ||
	not_ok "status --json: verify_reason says more than 50.0 KB" "$st"
before=$(stats_json)
ping_many "$N" 0.05 "$H_BLOCK" "$FP"
after=$(stats_json)
expect_replies "exact stage off: the listed $H_BLOCK gets no reply" 0 "$H_BLOCK"
expect_replies "exact stage off: the false positive $FP is dropped too" 0 "$FP"
check_eq "exact stage off: no confirmation, no refusal" "0 0" \
	"$(delta "$before" "$after" false_positives) $(delta "$before" "$after" confirmed)" "$after"
# And on again at the next load within the limit.
out=$(bx load "$IF_SRV" --store bloom "$BIG" --max-memory 64M 2>&1)
grep -q "^exact stage on: " <<<"$out" && ok "load --max-memory 64M: the exact stage on again" ||
	not_ok "load --max-memory 64M: the exact stage on again" "$out"
ping_many "$N" 0.05 "$FP"
expect_replies "exact stage on again: the false positive $FP gets every reply" "$N" "$FP"
# attach --force --verify off: the program ignores the live copy from now on.
check "attach --force --verify off" bx attach "$IF_SRV" --force --fpr 0.5 --verify off
out=$(bx status "$IF_SRV" 2>&1)
grep -q "^verify          exact stage off: attach --verify off (--verify off)$" <<<"$out" &&
	ok "status: exact stage off: attach --verify off" ||
	not_ok "status: exact stage off: attach --verify off" "$out"
ping_many "$N" 0.05 "$FP"
expect_replies "--verify off: the false positive $FP is dropped" 0 "$FP"
# An add under --verify off still goes into the live copy: turned on again, it is confirmed.
check "add $FP under --verify off" bx add "$IF_SRV" "$FP"
check "attach --force --verify auto" bx attach "$IF_SRV" --force --fpr 0.5 --verify auto
before=$(stats_json)
ping_many "$N" 0.05 "$FP"
after=$(stats_json)
expect_replies "--verify auto again: $FP, added meanwhile, is dropped" 0 "$FP"
check_eq "... confirmed by the exact copy" "$N 0" \
	"$(delta "$before" "$after" confirmed) $(delta "$before" "$after" false_positives)" "$after"
check "detach" bx detach "$IF_SRV"

# ------------------------------------------------------------ cleanup
e2e_cleanup
left=$(e2e_leftovers)
check_eq "cleanup leaves no namespace, interface, pin or temporary file" "" "$left"

tap_finish
