#!/usr/bin/env bash
# The state on disk (docs/operations.md, "State"): query tells a listed entry from a false
# positive by it; a simulated reboot (the XDP program and the pin directory
# removed by hand) is undone by 'restore' from the state alone, with identical
# verdicts on real pings; a second restore changes nothing; a load killed
# between its swap and its state write is seen, not papered over.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "restore tests"
e2e_install_trap

C_LISTED=192.0.2.10	# in the blocklist
C_PREFIX=192.0.2.35	# under 192.0.2.32/28, listed
C_ALLOWED=192.0.2.40	# under it too, but allowlisted
C_ADDED=192.0.2.20	# added after the load
C_FREE=192.0.2.50	# in no list
CLIENTS=("$C_LISTED" "$C_PREFIX" "$C_ALLOWED" "$C_ADDED" "$C_FREE")

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "set up namespaces and veth pair"
	tap_finish
	exit 1
fi
STATE=$BLOOMXDP_STATE_DIR/$IF_SRV

# ------------------------------------------------ query tells the truth
# A filter at FPR 0.3, nearly full: unlisted names are often false positives.
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "listed-%d.example\n", i }' >"$E2E_TMP/names.txt"
printf '198.51.100.0/24\n2001:db8:77::/48\n2001:db8:78::9\n' >>"$E2E_TMP/names.txt"
# The filter alone (--verify off): with the exact stage, no false positive is blocked.
check "attach at FPR 0.3 for names" bx attach "$IF_SRV" --capacity 1000 --fpr 0.3 --match src,dns \
	--verify off
check "load 1000 names and a prefix into the Bloom filter" \
	bx load "$IF_SRV" --store bloom "$E2E_TMP/names.txt"
check_eq "query: a listed name names itself" \
	"listed-7.example: blocked (listed: listed-7.example)" \
	"$(bx query "$IF_SRV" listed-7.example 2>&1)"
check_eq "query: a name under a listed one names the listed one" \
	"www.listed-7.example: blocked (listed: listed-7.example)" \
	"$(bx query "$IF_SRV" www.listed-7.example 2>&1)"
check_eq "query: an address under a listed prefix names the prefix" \
	"198.51.100.77: blocked (listed: 198.51.100.0/24)" \
	"$(bx query "$IF_SRV" 198.51.100.77 2>&1)"
check_eq "query: IPv6, under a listed prefix and a listed host" \
	"2001:db8:77::5: blocked (listed: 2001:db8:77::/48)
2001:db8:78::9: blocked (listed: 2001:db8:78::9)" \
	"$(bx query "$IF_SRV" 2001:db8:77::5 2001:db8:78::9 2>&1)"
mapfile -t unlisted < <(awk 'BEGIN { for (i = 0; i < 300; i++) printf "unlisted-%d.example\n", i }')
fp=$(bx query "$IF_SRV" "${unlisted[@]}" 2>&1 | grep -m1 ': blocked')
if [ -z "$fp" ]; then
	not_ok "query: an unlisted name the filter matches (a false positive) is found"
else
	want="${fp%%:*}: blocked (a false positive of the filter: not in the list as last applied)"
	check_eq "query: a false positive of the filter is said to be one" "$want" "$fp"
fi
mv "$STATE" "$E2E_TMP/state.aside"
out=$(bx query "$IF_SRV" listed-7.example 2>&1)
check_eq "query without state: the filter's verdict, and why it cannot tell more" \
	"listed-7.example: blocked
yes" "$(grep -v '^bloomxdp:' <<<"$out")
$(grep -q 'cannot tell a listed entry from a false positive.*no state' <<<"$out" &&
	echo yes)" "$out"
mv "$E2E_TMP/state.aside" "$STATE"
check "detach --forget" bx detach --forget "$IF_SRV"
check_eq "... removes the state of the interface" "no" "$([ -e "$STATE" ] && echo yes || echo no)"

# ------------------------------------------------ the lists, and their verdicts
printf '%s\n192.0.2.32/28\nevil.example\n' "$C_LISTED" >"$E2E_TMP/block.txt"
check "attach" bx attach "$IF_SRV" --capacity 1000 --match src,dns --action drop
check "load a blocklist" bx load "$IF_SRV" "$E2E_TMP/block.txt"
check "load an allowlist from standard input" \
	bash -c "echo $C_ALLOWED | timeout 30 nsenter --net=/run/netns/$NS_SRV -- \
		$BLOOMXDP load --allow $IF_SRV -"
check "add an entry" bx add "$IF_SRV" "$C_ADDED"
check_eq "the state: settings, lists and copies, the add's journal, del's counters" \
	"allow allow-2.0 block block-2.0 block-2.journal.auto block.bitcounts settings" \
	"$(cd "$STATE" && ls | tr '\n' ' ' | sed 's/ $//')"
check_eq "the blocklist's copy is the list as read, its SHA-256 recorded" \
	"$(sha256sum <"$E2E_TMP/block.txt" | cut -d' ' -f1)" \
	"$(sed -n 's/^sha256 //p' "$STATE/block")" "$(cat "$STATE/block")"
check_eq "the allowlist's source is recorded as stdin" "stdin" \
	"$(sed -n 's/^source //p' "$STATE/allow")"

queries() { bx query "$IF_SRV" "${CLIENTS[@]}" www.evil.example 2>&1; }
want_pings="$C_LISTED:0 $C_PREFIX:0 $C_ALLOWED:3 $C_ADDED:0 $C_FREE:3 "
check_eq "pings: listed, prefixed and added dropped; allowlisted and free through" \
	"$want_pings" "$(verdicts)"
want_queries=$(queries)
gen=$(json_num "$(status_json)" generation)

# ------------------------------------------------ a simulated reboot
# A link holds the program: 'xdp off' cannot remove it, the pins' removal does.
ip -n "$NS_SRV" link set dev "$IF_SRV" xdp off 2>/dev/null
rm -rf -- "$PIN_DIR"
for ((i = 0; i < 60; i++)); do
	[ -z "$(xdp_on_if)" ] && break
	sleep 0.05
done
check_eq "the program and pins are gone" "" "$(xdp_on_if)$([ -e "$PIN_DIR" ] && echo pins)"
check_eq "... and every ping gets through" \
	"$C_LISTED:3 $C_PREFIX:3 $C_ALLOWED:3 $C_ADDED:3 $C_FREE:3 " "$(verdicts)"
# No network, no sources: restore has only the state.
rm -f "$E2E_TMP/block.txt"
out=$(bx restore "$IF_SRV" 2>&1)
rc=$?
check_eq "restore: exit 0, one line" "0 1 yes" \
	"$rc $(wc -l <<<"$out") $(grep -q "^$IF_SRV: restored" <<<"$out" && echo yes)" "$out"
check_eq "... identical verdicts on pings" "$want_pings" "$(verdicts)"
check_eq "... and in query" "$want_queries" "$(queries)"
check_eq "... status: the state records the live list" current "$(json_str "$(status_json)" state)"
gen=$(json_num "$(status_json)" generation)
prog=$(xdp_on_if)
out=$(bx restore "$IF_SRV" 2>&1)
check_eq "a second restore changes nothing, and says so" \
	"0 $IF_SRV: already attached at generation $gen, as its state records: nothing changed" \
	"$? $out"
check_eq "... same program, same generation" "$prog $gen" \
	"$(xdp_on_if) $(json_num "$(status_json)" generation)"
out=$(bx restore --all 2>&1)
check_eq "restore --all: one line per interface with state" \
	"$IF_SRV: already attached at generation $gen, as its state records: nothing changed" "$out"

# ------------------------------------------------ a copy changed behind its back
rm -rf -- "$PIN_DIR"
for ((i = 0; i < 60; i++)); do
	[ -z "$(xdp_on_if)" ] && break
	sleep 0.05
done
cp "$STATE/block-2.0" "$E2E_TMP/copy.saved"
echo 192.0.2.99 >>"$STATE/block-2.0"
check_fails "restore refuses a copy whose SHA-256 is not the one recorded, naming it" 1 \
	"block-2.0, the copy of .*SHA-256 is not the one recorded" bx restore "$IF_SRV"
check_eq "... before attaching anything" "" "$(xdp_on_if)$([ -e "$PIN_DIR" ] && echo pins)"
cp "$E2E_TMP/copy.saved" "$STATE/block-2.0"
check "restore once the copy is back" bx restore "$IF_SRV"
check_eq "... identical verdicts on pings" "$want_pings" "$(verdicts)"

# ------------------------------------------------ lost pins, the program still running
# Another pin of the link (as a process holding it would) keeps the program on the interface.
HELD=/sys/fs/bpf/bxe-$E2E_ID-held
trap 'rm -f -- "$HELD"; e2e_cleanup' EXIT
check "pin the link elsewhere too" bpftool link pin pinned "$PIN_DIR/link" "$HELD"
rm -rf -- "$PIN_DIR"
sleep 0.5
check_eq "the pins are gone, the program still runs and drops" "yes $C_LISTED:0 $C_FREE:3 " \
	"$([ -n "$(xdp_on_if)" ] && echo yes) $(ping_many 3 0.05 "$C_LISTED" "$C_FREE"
		echo "$C_LISTED:${PING_RX[$C_LISTED]} $C_FREE:${PING_RX[$C_FREE]} ")"
out=$(bx restore "$IF_SRV" 2>&1)
check_eq "restore detaches the orphaned link and restores" "0 yes" \
	"$? $(grep -q "^$IF_SRV: restored" <<<"$out" && grep -q "had lost its pins" <<<"$out" &&
		echo yes)" "$out"
rm -f -- "$HELD"
check_eq "... identical verdicts on pings" "$want_pings" "$(verdicts)"

# ------------------------------------------------ killed between the swap and the state write
# A load's renames: its copy's, before the swap; its manifest's, the one after it.
gen=$(json_num "$(status_json)" generation)
echo 192.0.2.77 >"$E2E_TMP/new.txt"
(timeout 30 nsenter --net="/run/netns/$NS_SRV" -- strace -f -qq -o /dev/null \
	-e trace=rename,renameat,renameat2 \
	-e inject=rename,renameat,renameat2:signal=SIGKILL:when=2 \
	"$BLOOMXDP" load "$IF_SRV" "$E2E_TMP/new.txt"; true) >/dev/null 2>&1
check_eq "a load killed at its state write: the new list is live (generation +1)" \
	"$((gen + 1)) 192.0.2.77: blocked" \
	"$(json_num "$(status_json)" generation) $(bx query "$IF_SRV" 192.0.2.77 2>/dev/null)"
check_eq "... status says the state is behind" behind "$(json_str "$(status_json)" state)"
check_fails "... restore says the state lags the live list, and changes nothing" 1 \
	"attached at generation $((gen + 1)), but the state records generation $gen" \
	bx restore "$IF_SRV"
# With the exact stage (the default auto) the copy in the kernel answers; the filter alone cannot.
check "attach --force --verify off" bx attach "$IF_SRV" --force --capacity 1000 --match src,dns \
	--action drop --verify off
check_fails "... query says it cannot tell listed from false positive" 0 \
	"state records another generation" bx query "$IF_SRV" 192.0.2.77
check "attach --force --verify auto" bx attach "$IF_SRV" --force --capacity 1000 \
	--match src,dns --action drop
check "... a load again records it" bx load "$IF_SRV" "$E2E_TMP/new.txt"
check_eq "... then restore finds the live generation recorded" \
	"$IF_SRV: already attached at generation $((gen + 2)), as its state records: nothing \
changed" \
	"$(bx restore "$IF_SRV" 2>&1)"

# ------------------------------------------------ the load's options come back too
printf '192.0.2.60,DE\n192.0.2.61,FR\n' >"$E2E_TMP/rows.csv"
check "load a CSV list, rows of one country" \
	bx load "$IF_SRV" --format csv --column 1 --where 2=DE "$E2E_TMP/rows.csv"
rm -rf -- "$PIN_DIR" "$E2E_TMP/rows.csv"
for ((i = 0; i < 60; i++)); do
	[ -z "$(xdp_on_if)" ] && break
	sleep 0.05
done
check "restore it" bx restore "$IF_SRV"
check_eq "... read with the recorded --format csv --column 1 --where 2=DE" \
	"192.0.2.60: blocked (listed: 192.0.2.60)
192.0.2.61: not blocked" "$(bx query "$IF_SRV" 192.0.2.60 192.0.2.61 2>&1)"

# ------------------------------------------------ refusals
check_fails "restore of an interface without state names it" 1 "nostate0: no state in" \
	bx restore nostate0
check_fails "restore needs an interface or --all" 1 "give an interface or --all" bx restore
ln -s /tmp "$BLOOMXDP_STATE_DIR/lnk0"
check_fails "a state directory that is a symbolic link is refused" 1 \
	"lnk0 is a symbolic link" bx restore lnk0
rm -f "$BLOOMXDP_STATE_DIR/lnk0"

tap_finish
