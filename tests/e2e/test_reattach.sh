#!/usr/bin/env bash
# attach --force on an attached interface: a new program with new settings over
# the live maps, swapped in by one BPF link update, with no moment without a
# filter: a listed source sending throughout gets no reply, an unlisted one gets
# every reply, the list, generation and counters carry over. What the list
# cannot survive (another layout or k, another XDP mode) is refused and changes
# nothing; --verify off and on are taken over the live exact copy. Speaks TAP; needs root; about 15 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "re-attach tests"
e2e_install_trap

C4_LISTED=192.0.2.50
C4_OTHER=192.0.2.51
if ! topo_up "$C4_LISTED" "$C4_OTHER"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
LIST=$E2E_TMP/list.txt
printf '%s\nevil.example\n198.51.100.0/24\n' "$C4_LISTED" >"$LIST"
check "attach $IF_SRV (src)" bx attach "$IF_SRV" --mode native --capacity 1000 ||
	{ tap_finish; exit 1; }
check "load the list (in the Bloom filter)" bx load "$IF_SRV" --store bloom "$LIST"
prog0=$(json_num "$(status_json)" prog_id)
gen0=$(json_num "$(status_json)" generation)

# Replacements while both sources send every 10 ms.
before=$(stats_json)
ping_many_start 400 0.01 "$C4_LISTED" "$C4_OTHER"
replaced=0 failed=0 err=
for ((i = 0; i < 6; i++)); do
	if [ $((i % 2)) -eq 0 ]; then
		set -- --match src,dst,dns --events-per-sec 0
	else
		set -- --match src --events-per-sec 100
	fi
	if out=$(bx attach "$IF_SRV" --force --capacity 1000 "$@" 2>&1); then
		replaced=$((replaced + 1))
	else
		failed=$((failed + 1))
		err=$out
	fi
	sleep 0.3
done
ping_many_wait
after=$(stats_json)
check_eq "6 replacements under traffic, none failed" "6 0" "$replaced $failed" "$err"
check_eq "the listed source got no reply, the other every reply" \
	"0 ${PING_TX[$C4_OTHER]}" "${PING_RX[$C4_LISTED]} ${PING_RX[$C4_OTHER]}"
check_eq "... and it sent throughout (400 requests each)" "400 400" \
	"${PING_TX[$C4_LISTED]} ${PING_TX[$C4_OTHER]}"
check_eq "counters carried over: dropped grew by every listed request" \
	"${PING_TX[$C4_LISTED]}" "$(delta "$before" "$after" dropped)"
st=$(status_json)
check_eq "the last settings are live: match src, events 100, same generation" \
	"src 100 $gen0" \
	"$(json_str "$st" match) $(json_num "$st" events_per_sec) $(json_num "$st" generation)" "$st"
prog1=$(json_num "$st" prog_id)
if [ -n "$prog1" ] && [ "$prog1" != "$prog0" ]; then
	ok "a new program runs (id $prog0 -> $prog1)"
else
	not_ok "a new program runs" "ids $prog0 and $prog1"
fi
check_eq "the list is still there" "$C4_LISTED: blocked
evil.example: blocked
$C4_OTHER: not blocked" "$(bxq "$IF_SRV" "$C4_LISTED" evil.example "$C4_OTHER" 2>&1)"
check "--max-memory changes in place" bx attach "$IF_SRV" --force --capacity 1000 \
	--max-memory 50000000
check_eq "... and status shows it" 50000000 "$(json_num "$(status_json)" max_memory)"

# What the list cannot survive is refused, and the program stays.
prog1=$(json_num "$(status_json)" prog_id)
check_fails "another layout is refused" 1 "would have to be built again" \
	bx attach "$IF_SRV" --force --capacity 1000 --layout bits
check_fails "another k (--fpr 1e-6) is refused" 1 "would have to be built again" \
	bx attach "$IF_SRV" --force --capacity 1000 --fpr 1e-6
check_fails "another XDP mode is refused" 1 "runs in native mode" \
	bx attach "$IF_SRV" --force --capacity 1000 --mode generic
check_eq "the refusals left the program" "$prog1" "$(json_num "$(status_json)" prog_id)"

# --verify may change: each generation says whether it has an exact copy (the
# load under the default auto made one), and the program reads it or not.
check "--force --verify off" bx attach "$IF_SRV" --force --capacity 1000 --verify off
st=$(status_json)
check_eq "status: verify_mode off, verify false" "off false" \
	"$(json_str "$st" verify_mode) $(sed -n 's/.*"verify":\([a-z]*\).*/\1/p' <<<"$st")" "$st"
check "--force --verify on over the live copy" bx attach "$IF_SRV" --force --capacity 1000 \
	--verify on
st=$(status_json)
check_eq "status: verify_mode on, verify true, the copy of the auto load" \
	"on true exact stage on: attach --verify on" \
	"$(json_str "$st" verify_mode) $(sed -n 's/.*"verify":\([a-z]*\).*/\1/p' <<<"$st") $(json_str "$st" verify_reason | sed 's/ (.*//')" "$st"
before=$(stats_json)
ping_many 3 0.05 "$C4_LISTED" "$C4_OTHER"
after=$(stats_json)
check_eq "--verify on: the listed source dropped, confirmed by the copy" "0 3 3" \
	"${PING_RX[$C4_LISTED]} ${PING_RX[$C4_OTHER]} $(delta "$before" "$after" confirmed)" "$after"
check_fails "without --force, attach twice is refused" 1 "already attached to $IF_SRV" \
	bx attach "$IF_SRV"
if ls -A "$PIN_DIR" | grep -q '_new$'; then
	not_ok "no temporary pin is left" "$(ls -A "$PIN_DIR")"
else
	ok "no temporary pin is left"
fi
check "detach" bx detach "$IF_SRV"
tap_finish
