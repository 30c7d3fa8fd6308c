#!/usr/bin/env bash
# issue 21, 3.3 and 3.10 (docs/operations.md, "State"): the settings and manifests end in
# the SHA-256 of their text, each journal record in its own. restore refuses a
# file cut short at any byte, a journal with lines appended by hand (0.0.0.0/1),
# naming the file, and changes nothing; an add cut short mid-line is left out.
# State of an older bloomxdp (no checksums) is restored once and rewritten
# sealed. A load or add whose state cannot be written (a full disk: ENOSPC; EIO
# injected at each fsync and rename) exits 1 saying so, and then either the
# list is unchanged or the message says it is live but not recorded.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "state integrity tests"
for tool in strace unshare truncate; do
	if ! command -v "$tool" >/dev/null; then
		skip "state integrity tests" "$tool is not installed"
		tap_finish
		exit 0
	fi
done
e2e_install_trap

C_LISTED=192.0.2.10	# in the blocklist
C_ADDED=192.0.2.20	# added after the load
C_NAMED=192.0.2.30	# in list n1
C_FREE=192.0.2.50	# in no list
CLIENTS=("$C_LISTED" "$C_ADDED" "$C_NAMED" "$C_FREE")

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "set up namespaces and veth pair"
	tap_finish
	exit 1
fi
STATE=$BLOOMXDP_STATE_DIR/$IF_SRV
want_pings="$C_LISTED:0 $C_ADDED:0 $C_NAMED:0 $C_FREE:3 "

# A simulated reboot: the program and pins gone (test_restore.sh).
reboot() {
	local i
	rm -rf -- "$PIN_DIR"
	for ((i = 0; i < 60; i++)); do
		[ -z "$(xdp_on_if)" ] && break
		sleep 0.05
	done
}

printf '%s\n198.51.100.0/24\nevil.example\n2001:db8::1\n203.0.113.9\n' "$C_LISTED" \
	>"$E2E_TMP/block.txt"
echo "$C_NAMED" >"$E2E_TMP/n1.txt"
check "attach --match src,dns" bx attach "$IF_SRV" --match src,dns --action drop
check "load a blocklist of 5 entries" bx load "$IF_SRV" "$E2E_TMP/block.txt"
check "add an entry" bx add "$IF_SRV" "$C_ADDED"
check "load --list n1" bx load "$IF_SRV" --list n1 "$E2E_TMP/n1.txt"
check_eq "pings: listed, added and n1's dropped" "$want_pings" "$(verdicts)"
journal=$(cd "$STATE" && ls block-*.journal.auto)
check_eq "the files are sealed, the journal's add is a record" \
	"bloomxdp-state 2 yes yes yes" \
	"$(head -1 "$STATE/block") $(tail -1 "$STATE/block" | grep -qE '^end sha256 [0-9a-f]{64}$' &&
		echo yes) $(tail -1 "$STATE/settings" | grep -qE '^end sha256 [0-9a-f]{64}$' &&
		echo yes) $(grep -qE '^#bloomxdp-record [0-9]+ [0-9a-f]{64}$' "$STATE/$journal" &&
		echo yes)"

# ------------------------------------------------ cut short
# restore on the live interface reads the settings and manifest first: each
# cut is refused, exit 1, the file named; the live list stays.
# cut_every FILE STEP COMMAND...: "CUTS REFUSED" over every STEPth length from 0
# to its size - 1.
cut_every() {
	local f=$1 step=$2 size n cuts=0 refused=0 out
	shift 2
	cp "$STATE/$f" "$E2E_TMP/whole"
	size=$(stat -c %s "$E2E_TMP/whole")
	for ((n = 0; n < size; n += step)); do
		cuts=$((cuts + 1))
		head -c "$n" "$E2E_TMP/whole" >"$STATE/$f"
		out=$("$@" 2>&1) && continue
		grep -qF "$STATE/$f" <<<"$out" && refused=$((refused + 1))
	done
	cp "$E2E_TMP/whole" "$STATE/$f"
	echo "$cuts $refused"
}
read -r size refused < <(cut_every block 3 bx restore "$IF_SRV")
# Every third length (tests/unit/test_state.c cuts at every byte).
check_eq "the manifest 'block' cut at $size places: every restore refused, named" \
	"$size" "$refused"
out=$(head -c 60 "$STATE/block" >"$E2E_TMP/cut"; cp "$STATE/block" "$E2E_TMP/whole.block"
	cp "$E2E_TMP/cut" "$STATE/block"; bx restore "$IF_SRV" 2>&1)
cp "$E2E_TMP/whole.block" "$STATE/block"
diag "$out"
read -r size refused < <(cut_every settings 3 bx restore "$IF_SRV")
check_eq "the settings cut at $size places: every restore refused, named" \
	"$size" "$refused"
# The other lists' manifests are read by a load of the default list (the union).
read -r size refused < <(cut_every list.n1 5 bx load "$IF_SRV" "$E2E_TMP/block.txt")
check_eq "the manifest 'list.n1' cut at $size places: every load refused, named" \
	"$size" "$refused"
check_eq "... the live lists unchanged" "$want_pings" "$(verdicts)"
out=$(bx restore "$IF_SRV" 2>&1)
check_eq "... and restore of the files as written: nothing changed" "0 yes" \
	"$? $(grep -q 'nothing changed' <<<"$out" && echo yes)" "$out"

# ------------------------------------------------ a journal appended by hand
cp "$STATE/$journal" "$E2E_TMP/journal.saved"
printf '0.0.0.0/1\n128.0.0.0/1\n' >>"$STATE/$journal"
check_fails "load --list over a forged journal: refused, naming it and what to do" 1 \
	"$journal:.*no record's checksum covers.*truncate -s" \
	bx load "$IF_SRV" --list n1 "$E2E_TMP/n1.txt"
check_eq "... the live list unchanged: $C_FREE passes" "$want_pings" "$(verdicts)"
reboot
check_fails "after a reboot, restore refuses the forged journal" 1 \
	"$journal:.*no record's checksum covers" bx restore "$IF_SRV"
check_eq "... before attaching anything" "" "$(xdp_on_if)$([ -e "$PIN_DIR" ] && echo pins)"
cp "$E2E_TMP/journal.saved" "$STATE/$journal"
# An add cut short: part of a line, never reported done.
printf '12.9.9.' >>"$STATE/$journal"
out=$(bx restore "$IF_SRV" 2>&1)
check_eq "an add cut short mid-line is left out, said; the rest restored" "0 yes" \
	"$? $(grep -q 'an add that never finished, are left out' <<<"$out" && echo yes)" "$out"
check_eq "... identical verdicts" "$want_pings" "$(verdicts)"
cp "$E2E_TMP/journal.saved" "$STATE/$journal"

# ------------------------------------------------ state of an older bloomxdp
# Version 1: no seal lines, no records; read once as it is, rewritten sealed.
for f in settings block allow list.n1; do
	[ -e "$STATE/$f" ] || continue
	sed -i -e '1s/^bloomxdp-state 2$/bloomxdp-state 1/' -e '/^end sha256 /d' "$STATE/$f"
done
sed -i '/^#bloomxdp-record /d' "$STATE"/*.journal.*
reboot
out=$(bx restore "$IF_SRV" 2>&1)
check_eq "restore of version 1 state (no checksums): exit 0" 0 "$?" "$out"
check_eq "... identical verdicts" "$want_pings" "$(verdicts)"
check_eq "... the settings, the manifest and its journal rewritten sealed" \
	"bloomxdp-state 2 yes yes yes" \
	"$(head -1 "$STATE/block") $(tail -1 "$STATE/block" | grep -qE '^end sha256 ' &&
		echo yes) $(tail -1 "$STATE/settings" | grep -qE '^end sha256 ' &&
		echo yes) $(grep -qE '^#bloomxdp-record ' "$STATE/$journal" && echo yes)"

# ------------------------------------------------ EIO at each fsync and rename
# A load of a new list with the Nth fsync (then rename) failing with EIO: exit
# 0 only with the new list live and recorded; exit 1 with the old list live
# ("unchanged") or the new one live and said not recorded.
printf '%s\n%s\n' "$C_LISTED" 192.0.2.77 >"$E2E_TMP/new.txt"
bad=0 runs=0 refused=0 behind=0
for call in fsync rename; do
	for ((n = 1; n <= 12; n++)); do
		bx load "$IF_SRV" "$E2E_TMP/block.txt" >/dev/null 2>&1
		calls=$call
		[ "$call" = rename ] && calls=rename,renameat,renameat2
		out=$(timeout 30 nsenter --net="/run/netns/$NS_SRV" -- strace -f -qq -o /dev/null \
			-e trace="$calls" -e inject="$calls:error=EIO:when=$n" \
			"$BLOOMXDP" load "$IF_SRV" "$E2E_TMP/new.txt" 2>&1)
		rc=$?
		runs=$((runs + 1))
		q=$(bx query "$IF_SRV" 192.0.2.77 2>/dev/null | sed 's/ (.*//')
		state=$(json_str "$(status_json)" state)
		if [ "$rc" = 0 ]; then
			[ "$q" = "192.0.2.77: blocked" ] && [ "$state" = current ] ||
				{ bad=$((bad + 1)); diag "$call #$n: exit 0, $q, state $state"; }
		elif grep -q 'so it is not swapped in: the live list is unchanged' <<<"$out"; then
			refused=$((refused + 1))
			[ "$q" = "192.0.2.77: not blocked" ] ||
				{ bad=$((bad + 1)); diag "$call #$n: said unchanged, $q"; }
		elif grep -q 'is live, but its state could not record it' <<<"$out"; then
			behind=$((behind + 1))
			[ "$q" = "192.0.2.77: blocked" ] ||
				{ bad=$((bad + 1)); diag "$call #$n: said live, $q"; }
		else
			bad=$((bad + 1))
			diag "$call #$n: exit $rc: $out"
		fi
	done
done
check_eq "$runs loads, EIO at each fsync and rename: none exits 0 unrecorded, each says which" \
	0 "$bad"
diag "refused before the swap: $refused; live but said not recorded: $behind"
check_eq "... some refused before the swap" yes "$([ "$refused" -gt 0 ] && echo yes)"
bx load "$IF_SRV" "$E2E_TMP/block.txt" >/dev/null 2>&1
out=$(timeout 30 nsenter --net="/run/netns/$NS_SRV" -- strace -f -qq -o /dev/null \
	-e trace=fsync -e inject=fsync:error=EIO:when=1 "$BLOOMXDP" add "$IF_SRV" 192.0.2.78 2>&1)
check_eq "add whose journal cannot be fsync'd: exit 1, nothing added, said" \
	"1 yes 192.0.2.78: not blocked" \
	"$? $(grep -q 'cannot record the entries.*nothing was added' <<<"$out" && echo yes) \
$(bxq "$IF_SRV" 192.0.2.78)" "$out"

# ------------------------------------------------ a full state filesystem
# In a mount namespace of its own: a 256 KiB tmpfs as the state directory, filled.
cat >"$E2E_TMP/full.sh" <<'EOF'
set -u
mount -t tmpfs -o size=256k,mode=0700 tmpfs "$SMALL" || exit 2
mkdir -m 0700 "$SMALL/state"
export BLOOMXDP_STATE_DIR=$SMALL/state
bx() { "$BLOOMXDP" "$@"; }
bx attach "$IF_SRV" --match src --action drop >/dev/null 2>&1 || exit 3
bx load "$IF_SRV" "$LIST" >/dev/null 2>&1 || exit 4
dd if=/dev/zero of="$SMALL/fill" bs=4k >/dev/null 2>&1
echo "load: $(bx load "$IF_SRV" "$NEW" 2>&1 >/dev/null; echo "rc=$?")"
echo "add: $(bx add "$IF_SRV" 192.0.2.79 2>&1 >/dev/null; echo "rc=$?")"
echo "query: $(bx query "$IF_SRV" 192.0.2.77 192.0.2.79 "$C_LISTED" 2>/dev/null |
	sed 's/ (.*//' | tr '\n' ' ')"
rm -f "$SMALL/fill"
echo "after: $(bx load "$IF_SRV" "$NEW" >/dev/null 2>&1; echo "rc=$?")"
echo "state: $(bx status "$IF_SRV" --json 2>/dev/null | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p')"
EOF
mkdir -m 0700 "$E2E_TMP/small"
bx detach "$IF_SRV" >/dev/null 2>&1
out=$(SMALL=$E2E_TMP/small LIST=$E2E_TMP/block.txt NEW=$E2E_TMP/new.txt IF_SRV=$IF_SRV \
	C_LISTED=$C_LISTED BLOOMXDP=$BLOOMXDP timeout 60 nsenter --net="/run/netns/$NS_SRV" -- \
	unshare -m --propagation private bash "$E2E_TMP/full.sh" 2>&1)
flat=$(tr '\n' ' ' <<<"$out")
check_eq "a full state filesystem: load refused (exit 1), ENOSPC and the path said" yes \
	"$(grep -q "load: .*cannot write the copy of .*new.txt in the state directory \
$E2E_TMP/small/state/$IF_SRV: No space left on device.* rc=1 add: " <<<"$flat" && echo yes)" \
	"$out"
check_eq "... add refused (exit 1), ENOSPC said" yes \
	"$(grep -q 'add: .*No space left on device.*nothing was added.* rc=1 query: ' <<<"$flat" &&
		echo yes)" "$out"
check_eq "... neither is live, the old list is" \
	"query: 192.0.2.77: not blocked 192.0.2.79: not blocked $C_LISTED: blocked " \
	"$(grep '^query: ' <<<"$out")" "$out"
check_eq "... once there is room, the load goes through and is recorded" \
	"after: rc=0
state: current" "$(grep -E '^(after|state): ' <<<"$out")" "$out"

tap_finish
