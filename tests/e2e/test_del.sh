#!/usr/bin/env bash
# del (docs/operations.md, "Delete"): a deleted entry passes, every other listed entry
# still drops (real pings, and query over a filter whose bits are heavily
# shared); a deleted then re-added entry drops again; restore after a delete
# does not bring it back; an unlisted entry is refused and nothing changes;
# layout kernel and a missing state are refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "del tests"
e2e_install_trap

C_DEL=192.0.2.10	# listed, deleted
C_KEEP=192.0.2.11	# listed, kept
C_PREFIX=192.0.2.35	# under 192.0.2.32/28, listed
C_ADDED=192.0.2.20	# added after the load, then deleted
C_FREE=192.0.2.50	# in no list
CLIENTS=("$C_DEL" "$C_KEEP" "$C_PREFIX" "$C_ADDED" "$C_FREE")

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "set up namespaces and veth pair"
	tap_finish
	exit 1
fi
STATE=$BLOOMXDP_STATE_DIR/$IF_SRV

# ------------------------------------------------ shared bits: no false negative
# FPR 0.3 and a full filter: keys share most of their bits.
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "n%d.example\n", i }' >"$E2E_TMP/names.txt"
awk 'BEGIN { for (i = 0; i < 200; i++) printf "2001:db8:99::%x\n", i }' >>"$E2E_TMP/names.txt"
check "attach at FPR 0.3" bx attach "$IF_SRV" --capacity 1000 --fpr 0.3 --match src,dns
check "load 1000 names and 200 IPv6 hosts into the Bloom filter" \
	bx load "$IF_SRV" --store bloom "$E2E_TMP/names.txt"
check_eq "the counters are in the state" yes \
	"$([ -s "$STATE/block.bitcounts" ] && echo yes)"
st=$(status_json)
check_eq "status: the counters' size, none saturated" \
	"$(stat -c %s "$STATE/block.bitcounts") 0" \
	"$(json_num "$st" del_counters_bytes) $(json_num "$st" del_counters_saturated)"
mapfile -t gone < <(awk 'BEGIN { for (i = 0; i < 1000; i += 10) printf "n%d.example\n", i
	for (i = 0; i < 200; i += 10) printf "2001:db8:99::%x\n", i }')
out=$(bx del "$IF_SRV" "${gone[@]}" 2>&1)
check_eq "del 120 of them" "0 yes" \
	"$? $(grep -q '^deleted 120 entries from the list of' <<<"$out" && echo yes)" "$out"
mapfile -t kept < <(grep -vxF -f <(printf '%s\n' "${gone[@]}") "$E2E_TMP/names.txt")
missed=$(bx query "$IF_SRV" "${kept[@]}" 2>&1 | grep -c ': not blocked')
check_eq "the other 1080 still match: 0 false negatives" "0 1080" "$missed ${#kept[@]}"
listed=$(bx query "$IF_SRV" "${gone[@]}" 2>&1 | grep -c '(listed')
check_eq "query: no deleted entry is listed any more" 0 "$listed"
check "detach --forget" bx detach --forget "$IF_SRV"

# ------------------------------------------------ pings
printf '%s\n%s\n192.0.2.32/28\nevil.example\n' "$C_DEL" "$C_KEEP" >"$E2E_TMP/block.txt"
check "attach" bx attach "$IF_SRV" --capacity 1000 --match src,dns --action drop
check "load a blocklist" bx load "$IF_SRV" --store bloom "$E2E_TMP/block.txt"
check "add an entry" bx add "$IF_SRV" "$C_ADDED"
check_eq "pings: all listed dropped" \
	"$C_DEL:0 $C_KEEP:0 $C_PREFIX:0 $C_ADDED:0 $C_FREE:3 " "$(verdicts)"
check "del a loaded and an added entry" bx del "$IF_SRV" "$C_DEL" "$C_ADDED"
check_eq "pings: the deleted pass, the rest still drop" \
	"$C_DEL:3 $C_KEEP:0 $C_PREFIX:0 $C_ADDED:3 $C_FREE:3 " "$(verdicts)"
check_eq "query: the deleted are not blocked" \
	"$C_DEL: not blocked
$C_ADDED: not blocked" "$(bx query "$IF_SRV" "$C_DEL" "$C_ADDED" 2>&1)"

snap() { (cd "$STATE" && sha256sum -- *) 2>&1; bx query "$IF_SRV" "$C_KEEP" 2>&1; }
before=$(snap)
check_fails "del of an entry not listed: exit 1, says so" 1 "not in the list" \
	bx del "$IF_SRV" "$C_KEEP" "$C_FREE"
check_fails "del of an entry already deleted: exit 1" 1 "not in the list" \
	bx del "$IF_SRV" "$C_DEL"
check_eq "... and nothing changed (state and verdicts)" "$before" "$(snap)"

check "add the deleted one again" bx add "$IF_SRV" "$C_DEL"
check_eq "pings: the re-added one drops again" \
	"$C_DEL:0 $C_KEEP:0 $C_PREFIX:0 $C_ADDED:3 $C_FREE:3 " "$(verdicts)"
check "... and can be deleted again" bx del "$IF_SRV" "$C_DEL"

# ------------------------------------------------ restore does not bring it back
ip -n "$NS_SRV" link set dev "$IF_SRV" xdp off 2>/dev/null
rm -rf -- "$PIN_DIR"
for ((i = 0; i < 60; i++)); do
	[ -z "$(xdp_on_if)" ] && break
	sleep 0.05
done
check "restore from the state" bx restore "$IF_SRV"
check_eq "pings after restore: the deleted still pass, the rest still drop" \
	"$C_DEL:3 $C_KEEP:0 $C_PREFIX:0 $C_ADDED:3 $C_FREE:3 " "$(verdicts)"
check "del after restore (counters rebuilt by it)" bx del "$IF_SRV" "$C_KEEP"
check_eq "pings: it passes too" \
	"$C_DEL:3 $C_KEEP:3 $C_PREFIX:0 $C_ADDED:3 $C_FREE:3 " "$(verdicts)"

# ------------------------------------------------ the allowlist
check "allowlist the prefixed client" bx add --allow "$IF_SRV" "$C_PREFIX"
check_fails "del --allow of an entry not allowlisted: exit 1" 1 "not in the allowlist" \
	bx del --allow "$IF_SRV" "$C_FREE"
check "del --allow" bx del --allow "$IF_SRV" "$C_PREFIX"
check_eq "pings: no longer allowlisted, it drops" "$C_PREFIX:0 " \
	"$(ping_many 3 0.05 "$C_PREFIX"; echo "$C_PREFIX:${PING_RX[$C_PREFIX]} ")"

# ------------------------------------------------ exact intervals, and --verify
check "detach --forget" bx detach --forget "$IF_SRV"
check "attach --verify" bx attach "$IF_SRV" --capacity 1000 --match src,dns --verify
check "load into exact intervals" bx load "$IF_SRV" --store intervals "$E2E_TMP/block.txt"
check "del a host held in intervals" bx del "$IF_SRV" "$C_DEL"
check_eq "pings: it passes, the host and prefix beside it still drop" \
	"$C_DEL:3 $C_KEEP:0 $C_PREFIX:0 $C_FREE:3 " \
	"$(ping_many 3 0.05 "$C_DEL" "$C_KEEP" "$C_PREFIX" "$C_FREE"
	   for c in "$C_DEL" "$C_KEEP" "$C_PREFIX" "$C_FREE"; do echo -n "$c:${PING_RX[$c]} "; done)"
check_eq "query: the name, from the Bloom filter behind --verify, still listed" \
	"evil.example: blocked (listed: evil.example)" "$(bx query "$IF_SRV" evil.example 2>&1)"
check "del the name" bx del "$IF_SRV" evil.example
check_eq "query: the name passes, the prefix still drops" \
	"evil.example: not blocked
$C_PREFIX: blocked (listed prefix 192.0.2.32/28)" \
	"$(bx query "$IF_SRV" evil.example "$C_PREFIX" 2>&1)"

# ------------------------------------------------ refusals
mv "$STATE" "$E2E_TMP/state.aside"
check_fails "without state: refused, saying so" 1 "no state" bx del "$IF_SRV" evil.example
mv "$E2E_TMP/state.aside" "$STATE"
check "detach --forget" bx detach --forget "$IF_SRV"
check "attach with layout kernel" bx attach "$IF_SRV" --layout kernel --capacity 1000 \
	--match src,dns
check "load" bx load "$IF_SRV" --store bloom "$E2E_TMP/block.txt"
check_fails "layout kernel: refused, saying why" nonzero "BLOOM_FILTER cannot delete" \
	bx del "$IF_SRV" evil.example
check_eq "status says so" "del counters    n/a (layout kernel cannot delete)" \
	"$(bx status "$IF_SRV" 2>&1 | grep '^del counters')"

tap_finish
