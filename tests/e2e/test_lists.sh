#!/usr/bin/env bash
# Named lists (docs/operations.md, "Named lists"): load --list NAME with its own action;
# a monitor list's address passes and is counted, a drop list's is dropped;
# replacing one list leaves the others enforced; add/del/query --list; the
# union's hits no list holds pass; restore brings every list back, without
# what expired meanwhile (add --list --timeout).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "named list tests"
e2e_install_trap

C_MON=192.0.2.10	# in list watch (monitor)
C_DROP=192.0.2.11	# in list bad (drop)
C_BOTH=192.0.2.12	# in both: drop wins
C_DEF=192.0.2.13	# in the default list
C_FREE=192.0.2.50	# in no list
CLIENTS=("$C_MON" "$C_DROP" "$C_BOTH" "$C_DEF" "$C_FREE")

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "set up namespaces and veth pair"
	tap_finish
	exit 1
fi

# hits LIST: the hits stats --json gives the list.
hits() {
	stats_json | sed -n "s/.*\"list\":\"$1\",\"list_action\":\"[a-z]*\",\"list_entries\":[0-9]*,\"list_hits\":\([0-9]*\).*/\1/p"
}

printf '%s\n%s\n' "$C_MON" "$C_BOTH" >"$E2E_TMP/watch.txt"
printf '%s\n%s\n' "$C_DROP" "$C_BOTH" >"$E2E_TMP/bad.txt"
check "attach" bx attach "$IF_SRV" --capacity 1000 --match src --action drop
echo "$C_DEF" >"$E2E_TMP/def.txt"
check "load the default list" bx load "$IF_SRV" "$E2E_TMP/def.txt"
check "load --list watch --action monitor" \
	bx load "$IF_SRV" --list watch --action monitor "$E2E_TMP/watch.txt"
check "load --list bad --action drop" bx load "$IF_SRV" --list bad --action drop "$E2E_TMP/bad.txt"
check_eq "pings: monitor passes, drop drops, drop wins over monitor" \
	"$C_MON:3 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:3 " "$(verdicts)"
st=$(stats_json)
check_eq "stats: would_drop counts the monitor list's pings" 3 "$(json_num "$st" would_drop)"
check_eq "stats: per-list hits (watch bad default)" "6 6 3" \
	"$(hits watch) $(hits bad) $(hits default)" "$st"
out=$(bx query "$IF_SRV" "$C_BOTH" "$C_MON" "$C_FREE" 2>&1)
check_eq "query names the lists" "$C_BOTH: blocked (listed in watch, bad)
$C_MON: monitored (listed in watch)
$C_FREE: not blocked" "$(sed -e 's/ (listed: [^)]*)//' <<<"$out")" "$out"

# Replace one list: the other's entries stay enforced.
echo "$C_MON" >"$E2E_TMP/mon.txt"
check "load --list watch again, without $C_BOTH" \
	bx load "$IF_SRV" --list watch --action monitor "$E2E_TMP/mon.txt"
check_eq "pings: bad still drops" "$C_MON:3 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:3 " \
	"$(verdicts)"
echo "$C_FREE" >"$E2E_TMP/free.txt"
check "load --list bad with $C_FREE only" bx load "$IF_SRV" --list bad "$E2E_TMP/free.txt"
check_eq "pings: watch and default unchanged, bad replaced" \
	"$C_MON:3 $C_DROP:3 $C_BOTH:3 $C_DEF:0 $C_FREE:0 " "$(verdicts)"

# add / del --list
check "add --list bad" bx add "$IF_SRV" --list bad "$C_DROP"
check_eq "pings: the added entry drops" "$C_MON:3 $C_DROP:0 $C_BOTH:3 $C_DEF:0 $C_FREE:0 " \
	"$(verdicts)"
check "del --list bad" bx del "$IF_SRV" --list bad "$C_FREE"
check_eq "pings: the deleted entry passes" "$C_MON:3 $C_DROP:0 $C_BOTH:3 $C_DEF:0 $C_FREE:3 " \
	"$(verdicts)"
check "add --list new makes the list" bx add "$IF_SRV" --list new "$C_BOTH"
check_eq "pings: the new list drops (attach's action)" \
	"$C_MON:3 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:3 " "$(verdicts)"
# Past the room of the filter (sized for 1024 keys) and of the named lists' key map (its keys
# and 1024): every list rebuilt from the state, the entries with them.
mapfile -t many < <(awk 'BEGIN { for (i = 0; i < 2000; i++) printf "10.9.%d.%d\n", i / 250, i % 250 }')
out=$(bx add "$IF_SRV" --list new "${many[@]}" 2>&1)
check_eq "add --list of 2000 entries: past the rooms, every list rebuilt" "0 yes" \
	"$? $(grep -q 'rebuilding' <<<"$out" && echo yes)" "$out"
check_eq "query: the first and the last are in list new" \
	"10.9.0.0: blocked (listed in new)
10.9.7.249: blocked (listed in new)" "$(bx query "$IF_SRV" 10.9.0.0 10.9.7.249 2>&1)"
check_eq "pings: the lists as before" "$C_MON:3 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:3 " \
	"$(verdicts)"
check_fails "a bad list name is refused" 2 "a list.s name" \
	bx load "$IF_SRV" --list "Bad/Name" "$E2E_TMP/bad.txt"
for i in $(seq 1 13); do
	bx add "$IF_SRV" --list "l$i" "198.51.100.$i" >/dev/null 2>&1
done
check_fails "a 17th list is refused" 1 "16 named lists" bx add "$IF_SRV" --list l14 198.51.100.14
check "load --list l13 --allow-empty /dev/null drops list l13" \
	bx load "$IF_SRV" --list l13 --allow-empty /dev/null
check "then a 16th list can be made" bx add "$IF_SRV" --list l14 198.51.100.14
check_eq "query --list l14" "198.51.100.14: listed in l14" \
	"$(bx query "$IF_SRV" --list l14 198.51.100.14 2>&1)"

# expiry per list: restore skips what expired meanwhile
check "add --list new --timeout 1s" bx add "$IF_SRV" --list new --timeout 1s "$C_FREE"
check_eq "pings: the entry with a timeout drops" \
	"$C_MON:3 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:0 " "$(verdicts)"
check_eq "status counts its timeout" 1 "$(json_num "$(status_json)" timeouts)"

# restore after a detach brings every list back
check "detach" bx detach "$IF_SRV"
sleep 1.1
check "restore" bx restore "$IF_SRV"
check_eq "pings after restore: every list back" \
	"$C_MON:3 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:3 " "$(verdicts)"
check_eq "stats after restore: watch is a monitor list again" 3 \
	"$(json_num "$(stats_json)" would_drop)"

# restore --file: a saved filter is the union without the lists' keys; every hit then takes
# the default action (fails closed) until a load of a named list puts the lists back
check "save" bx save "$IF_SRV" "$E2E_TMP/saved.bxf"
out=$(bx restore "$IF_SRV" --file "$E2E_TMP/saved.bxf" 2>&1)
check_eq "restore --file says the named lists are set aside" 1 \
	"$(grep -c 'holds no named lists' <<<"$out")" "$out"
check_eq "pings after restore --file: the monitored client dropped, none let through" \
	"$C_MON:0 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:3 " "$(verdicts)"
check "load --list watch puts the lists back" \
	bx load "$IF_SRV" --list watch --action monitor "$E2E_TMP/mon.txt"
check_eq "pings: watch monitors again" "$C_MON:3 $C_DROP:0 $C_BOTH:0 $C_DEF:0 $C_FREE:3 " \
	"$(verdicts)"

# a fresh attach starts without named lists (restore is what brings them back)
check "detach" bx detach "$IF_SRV"
check "attach again" bx attach "$IF_SRV" --capacity 1000 --match src
check_eq "no named list left in the state" 0 \
	"$(find "$BLOOMXDP_STATE_DIR/$IF_SRV" -name 'list.*' | wc -l)"
check "load the default list" bx load "$IF_SRV" "$E2E_TMP/def.txt"
check_eq "pings: only the default list drops" \
	"$C_MON:3 $C_DROP:3 $C_BOTH:3 $C_DEF:0 $C_FREE:3 " "$(verdicts)"

# A load warns of the input it loads, once: not of the other lists' copies read again for
# the union (issue 21: 18 warnings for a 1,071-line file).
printf '198.51.100.1\nnot an entry\n198.51.100.300\n' >"$E2E_TMP/noisy.txt"
out=$(bx load "$IF_SRV" --list noisy --lenient "$E2E_TMP/noisy.txt" 2>&1)
warnings() { grep -c 'warning' <<<"$1"; }
# noisy.txt:2 and :3, each once: the warnings of one load.
noted() { echo "$(warnings "$1") $(grep -c 'noisy.txt:2)' <<<"$1") $(grep -c 'noisy.txt:3)' <<<"$1")"; }
check_eq "load --list noisy --lenient: a warning of each of its 2 skipped lines" "2 1 1" \
	"$(noted "$out")" "$out"
out=$(bx load "$IF_SRV" --list quiet "$E2E_TMP/free.txt" 2>&1)
check_eq "load --list quiet of a clean file: no warning of noisy's copy" 0 "$(warnings "$out")" \
	"$out"
out=$(bx load "$IF_SRV" "$E2E_TMP/def.txt" 2>&1)
check_eq "load of the default list: none either" 0 "$(warnings "$out")" "$out"
out=$(bx load "$IF_SRV" --list noisy --lenient "$E2E_TMP/noisy.txt" 2>&1)
check_eq "load --list noisy again: its own warnings, once" "2 1 1" "$(noted "$out")" "$out"
tap_finish
