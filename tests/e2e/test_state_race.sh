#!/usr/bin/env bash
# issue 21, 3.2: an add that exits 0 while a named list is loaded is enforced
# afterwards. A load rebuilds the union of every list from the state; it reads
# the other lists' journals under the writers' lock, so an add that completed
# before its swap is in the new union, and one that did not waits for it.
# Rounds of 104 adds (4 workers) racing 20 'load --list n1' (2 workers) over a
# default list of 100,000 addresses in the Bloom filter: every add that exited
# 0 must be blocked (query), its journal hold it, and a real ping from three of
# the added addresses must be dropped.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "add/load race tests"
e2e_install_trap

ROUNDS=3
C_FREE=192.0.2.50	# in no list: its pings pass
# Three clients, one added in each round (by the last add worker).
CLIENTS=(192.0.2.21 192.0.2.22 192.0.2.23 "$C_FREE")

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "set up namespaces and veth pair"
	tap_finish
	exit 1
fi

awk 'BEGIN { for (i = 0; i < 100000; i++)
	printf "10.%d.%d.%d\n", int(i / 65536), int(i / 256) % 256, i % 256 }' \
	>"$E2E_TMP/big.txt"
awk 'BEGIN { for (i = 1; i <= 50; i++) printf "172.16.0.%d\n", i }' >"$E2E_TMP/n1.txt"
check "attach" bx attach "$IF_SRV" --match src --action drop
check "load --store bloom 100,000 addresses" bx load "$IF_SRV" --store bloom "$E2E_TMP/big.txt"
check "load --list n1" bx load "$IF_SRV" --list n1 "$E2E_TMP/n1.txt"

# add_worker ROUND W: adds 12.2.ROUND.(W*26+1 .. W*26+26), one command each, and
# writes "ADDRESS RC" per add; worker 3 adds the round's client address too.
add_worker() {
	local r=$1 w=$2 i a
	for ((i = w * 26 + 1; i <= w * 26 + 26; i++)); do
		a=12.2.$r.$i
		[ "$w" = 3 ] && [ "$i" = 104 ] && a=${CLIENTS[r - 1]}
		timeout 60 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" add "$IF_SRV" "$a" \
			>/dev/null 2>>"$E2E_TMP/add.err"
		echo "$a $?"
	done
}
load_worker() {
	local i
	for ((i = 0; i < 10; i++)); do
		timeout 60 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" load "$IF_SRV" \
			--list n1 "$E2E_TMP/n1.txt" >/dev/null 2>>"$E2E_TMP/load.err"
		echo "load $?"
	done
}

journal=$BLOOMXDP_STATE_DIR/$IF_SRV
for ((r = 1; r <= ROUNDS; r++)); do
	: >"$E2E_TMP/add.err"
	for w in 0 1 2 3; do
		job_start "$E2E_TMP/add.$w" add_worker "$r" "$w"
	done
	for w in 0 1; do
		job_start "$E2E_TMP/load.$w" load_worker
	done
	jobs_wait
	cat "$E2E_TMP"/add.? >"$E2E_TMP/adds"
	cat "$E2E_TMP"/load.? >"$E2E_TMP/loads"
	done_adds=$(awk '$2 == 0 { print $1 }' "$E2E_TMP/adds")
	check_eq "round $r: 104 adds, each exited 0; 20 loads, each exited 0" "104 104 20" \
		"$(wc -l <"$E2E_TMP/adds") $(wc -w <<<"$done_adds") $(grep -c ' 0$' \
		"$E2E_TMP/loads")" "$(grep -v ' 0$' "$E2E_TMP/adds" "$E2E_TMP/loads"; cat \
		"$E2E_TMP/add.err" "$E2E_TMP/load.err" 2>/dev/null | head -5)"
	# shellcheck disable=SC2086
	out=$(bx query "$IF_SRV" $done_adds 2>&1)
	check_eq "round $r: every add that exited 0 is blocked" "" \
		"$(grep -v ': blocked' <<<"$out")"
	# shellcheck disable=SC2086
	missing=$(for a in $done_adds; do
		cat "$journal"/block-*.journal.* 2>/dev/null | grep -qxF "$a" || echo "$a"
	done)
	check_eq "round $r: ... and in the journal" "" "$missing"
done
check_eq "pings: the added clients dropped, the free one through" \
	"${CLIENTS[0]}:0 ${CLIENTS[1]}:0 ${CLIENTS[2]}:0 $C_FREE:3 " "$(verdicts)"
check_eq "the default list still holds its 100,000 and n1 its 50" \
	"10.1.134.159: blocked
172.16.0.50: blocked" \
	"$(bxq "$IF_SRV" 10.1.134.159 172.16.0.50)"

tap_finish
