#!/usr/bin/env bash
# bloomxdp save on a veth attachment: the file is written with mode 0600 (it
# holds the hash key), atomically (a file of that name replaced in one rename,
# no temporary file left, the live list untouched), starts with its magic and
# is as long as the bits and the intervals make it; a save that cannot be made
# (no such directory, layout kernel, not attached) exits 1 with one line and
# leaves no file. The file records the bloomxdp that wrote it (VERSION, at bytes
# 160-191 of its header), which save and restore say. restore --file into an attachment of another hash key replaces
# its program in place: no packet of a source both lists hold passes during the
# swap. The restore side (savefile_apply) and the format's checks
# are in tests/bpf/test_savefile_xdp.c. Speaks TAP; needs root; about 5 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "save tests"
e2e_install_trap

C4_LISTED=192.0.2.50
C4_FREE=192.0.2.51
if ! topo_up "$C4_LISTED" "$C4_FREE"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

check "attach (layout blocked)" bx attach "$IF_SRV" --capacity 1000 || {
	tap_finish
	exit 1
}
printf '%s\n' "$C4_LISTED" 203.0.113.0/24 2001:db8::7 evil.example >"$E2E_TMP/list.txt"
check "load a list of 4 entries" bx load "$IF_SRV" --store bloom "$E2E_TMP/list.txt"
before=$(status_json)

FILE=$E2E_TMP/saved.bxs
(umask 000 && : >"$FILE" && chmod 0644 "$FILE")
VERSION=$(cat VERSION)
out=$(bx save "$IF_SRV" "$FILE" 2>&1)
check_eq "save $IF_SRV over an existing file of mode 0644: exit 0, says its writer" "0 1" \
	"$? $(grep -c ", by bloomxdp $VERSION\$" <<<"$out")" "$out"
check_eq "the file has mode 0600 (it holds the hash key)" 600 "$(stat -c %a "$FILE")"
check_eq "it starts with the magic BXDPSAVE" BXDPSAVE "$(head -c 8 "$FILE")"
bits=$(json_num "$before" bits)
check_eq "format version 2, a header of 192 bytes" "2 192" \
	"$(od -An -tu4 -j8 -N8 "$FILE" | xargs)"
check_eq "bytes 160-191: the writer's version, NUL-padded" "$VERSION" \
	"$(dd if="$FILE" bs=1 skip=160 count=32 status=none | tr -d '\0')"
check_eq "... its padding all NUL" "$((32 - ${#VERSION}))" \
	"$(dd if="$FILE" bs=1 skip=160 count=32 status=none | tr -cd '\0' | wc -c)"
# Header 192, the bits, no intervals (--store bloom), no sources, CRC32C 4.
check_eq "its size: header, $bits bits, checksum" $((192 + bits / 8 + 4)) "$(stat -c %s "$FILE")"
check_eq "no temporary file left beside it" "saved.bxs" \
	"$(cd "$E2E_TMP" && ls | grep saved | tr '\n' ' ' | sed 's/ $//')"
after=$(status_json)
check_eq "the live list is untouched (generation, keys)" \
	"$(json_num "$before" generation) $(json_num "$before" keys)" \
	"$(json_num "$after" generation) $(json_num "$after" keys)"
check_eq "the hash key is in the file (bytes 56-71 are not all zero)" 1 \
	"$(od -An -tx1 -j56 -N16 "$FILE" | grep -qv '^[ 0]*$' && echo 1)"

# Exact intervals are saved too: the file grows by 8 bytes per IPv4 interval.
check "load with --store intervals" bx load "$IF_SRV" --store intervals "$E2E_TMP/list.txt"
st=$(status_json)
check "save again" bx save "$IF_SRV" "$FILE"
check_eq "size: header, bits, 2 IPv4 intervals, 1 IPv6 interval, checksum" \
	$((192 + $(json_num "$st" bits) / 8 + 2 * 8 + 32 + 4)) "$(stat -c %s "$FILE")"

# The filter back after the attachment is gone: restore --file attaches with the file's key.
check_eq "before: the listed source is dropped, the other passes" "0 5" \
	"$(ping_recv "$C4_LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$C4_FREE" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
check "detach --forget (no pins, no state)" bx detach "$IF_SRV" --forget
check_eq "detached: both pass" "5 5" \
	"$(ping_recv "$C4_LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$C4_FREE" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
DAMAGED=$E2E_TMP/damaged.bxs
cp "$FILE" "$DAMAGED"
printf '\xff' | dd of="$DAMAGED" bs=1 seek=200 conv=notrunc status=none
check_fails "restore --file of a damaged copy: exit 1, nothing attached" 1 "checksum" \
	bx restore "$IF_SRV" --file "$DAMAGED"
check_eq "... and nothing is on the interface" "" "$(xdp_on_if)"
out=$(bx restore "$IF_SRV" --file "$FILE" 2>&1)
check_eq "restore --file: attaches with the file's key, swaps the filter in, says its writer" \
	"0 1" "$? $(grep -c ", saved by bloomxdp $VERSION at " <<<"$out")" "$out"
check_eq "the same verdicts: the listed source is dropped, the other passes" "0 5" \
	"$(ping_recv "$C4_LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$C4_FREE" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
expect_query "query agrees: the listed prefix is blocked" "203.0.113.9: blocked (listed)"
check_eq "the intervals came back (status ranges_v4)" 2 "$(json_num "$(status_json)" ranges_v4)"
check "restore --file on the attached interface: a new generation" \
	bx restore "$IF_SRV" --file "$FILE"
# A file of format version 1, as an older bloomxdp saved it (no writer, a header of 160 bytes).
OLD=$E2E_TMP/old.bxs
savefile_v1 "$FILE" "$OLD"
out=$(bx restore "$IF_SRV" --file "$OLD" 2>&1)
check_eq "restore --file of a version 1 file: exit 0, saved by an older bloomxdp" "0 1" \
	"$? $(grep -c ", saved by an older bloomxdp at " <<<"$out")" "$out"
check_eq "... the same verdicts: the listed source is dropped, the other passes" "0 5" \
	"$(ping_recv "$C4_LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$C4_FREE" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
check "detach" bx detach "$IF_SRV"
check "attach anew (a new key)" bx attach "$IF_SRV" --capacity 1000
# restore --file into an attachment with another key (issue 21): the program is replaced in
# place with the file's key, in the same swap as the filter. $C4_LISTED is in both lists: a
# packet that met the new key with the old filter, or the old key with the new, would pass.
printf '%s\n' "$C4_LISTED" "$C4_FREE" >"$E2E_TMP/other.txt"
check "load another list under the new key (both sources)" bx load "$IF_SRV" "$E2E_TMP/other.txt"
check_eq "before: both sources are dropped" "0 0" \
	"$(ping_recv "$C4_LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$C4_FREE" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
prog_before=$(xdp_on_if)
# The public suffixes are keyed with the hash key: rekeyed with the file's, none of the old left.
suffix_keys() {
	bpftool -j map dump pinned "$PIN_DIR/suffixes" |
		python3 -c 'import json,sys; [print("".join(e["key"])) for e in json.load(sys.stdin)]' |
		sort
}
suffixes_before=$(suffix_keys)
ping_many_start 300 0.01 "$C4_LISTED"
sleep 0.5
out=$(bx restore "$IF_SRV" --file "$FILE" 2>&1)
check_eq "restore --file on an attachment with another key: exit 0, in place" "0 1" \
	"$? $(grep -c "with the file's hash key" <<<"$out")" "$out"
ping_many_wait
if [ "${PING_TX[$C4_LISTED]}" -ge 100 ] && [ "${PING_RX[$C4_LISTED]}" -eq 0 ]; then
	ok "no packet of the source both lists hold passed during the swap (0 of ${PING_TX[$C4_LISTED]})"
else
	not_ok "no packet of the source both lists hold passed during the swap" \
		"${PING_RX[$C4_LISTED]} of ${PING_TX[$C4_LISTED]} passed"
fi
check_eq "after: the file's verdicts (the listed source dropped, the other passes)" "0 5" \
	"$(ping_recv "$C4_LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$C4_FREE" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
expect_query "query agrees: the file's prefix is blocked" "203.0.113.9: blocked (listed)"
suffixes_after=$(suffix_keys)
check_eq "the public suffixes rekeyed: as many keys, none of the old key's" \
	"$(wc -l <<<"$suffixes_before") 0" \
	"$(wc -l <<<"$suffixes_after") $(comm -12 <(echo "$suffixes_before") \
	<(echo "$suffixes_after") | grep -c .)"
check_eq "the program was replaced (a new id on the interface)" 1 \
	"$([ -n "$prog_before" ] && [ "$(xdp_on_if)" != "$prog_before" ] && echo 1)"
check "a load after it works with the new key" bx load "$IF_SRV" "$E2E_TMP/other.txt"
check_eq "... both sources dropped again" "0 0" \
	"$(ping_recv "$C4_LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$C4_FREE" "$SRV4" 5 \
	0.02 | cut -d' ' -f2)"
check "detach" bx detach "$IF_SRV"
# An allowlist of names is made of keys of the live hash key: refused, nothing changed.
check "attach anew (another key)" bx attach "$IF_SRV" --capacity 1000
printf 'good.example\n' >"$E2E_TMP/allow.txt"
check "load an allowlist of a name" bx load "$IF_SRV" --allow "$E2E_TMP/allow.txt"
check "load the other list" bx load "$IF_SRV" "$E2E_TMP/other.txt"
gen=$(json_num "$(status_json)" generation)
check_fails "restore --file with an allowlist of names: refused, says why" 1 \
	"allowlist .* holds names" bx restore "$IF_SRV" --file "$FILE"
check_eq "... the live list unchanged (generation, the free source dropped)" "$gen 0" \
	"$(json_num "$(status_json)" generation) $(ping_recv "$C4_FREE" "$SRV4" 5 0.02 | cut -d' ' -f2)"

check_fails "save into a directory that does not exist: exit 1, one line" 1 \
	"cannot write .*nothing was saved" bx save "$IF_SRV" "$E2E_TMP/no/such/dir/f"
check_fails "save without FILE: a usage error" 2 "FILE" bx save "$IF_SRV"

check "detach" bx detach "$IF_SRV"
check_fails "save when not attached: exit 1" 1 "not attached" bx save "$IF_SRV" "$E2E_TMP/k.bxs"
check "attach --layout kernel" bx attach "$IF_SRV" --capacity 1000 --layout kernel
check_fails "layout kernel cannot be saved: exit 1, says why" 1 \
	"BPF_MAP_TYPE_BLOOM_FILTER.*cannot be saved" bx save "$IF_SRV" "$E2E_TMP/k.bxs"
check_eq "and no file is left" no "$([ -e "$E2E_TMP/k.bxs" ] && echo yes || echo no)"
check "detach" bx detach "$IF_SRV"

tap_finish
