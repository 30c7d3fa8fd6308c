#!/usr/bin/env bash
# Exact intervals (load --store, add, plan --list): a real country list, the ranges
# npm @ip-location-db/asn-country@2.3.2026061719 gives the US (~15,000 IPv4 and
# ~10,000 IPv6 rows, prefixes of every length), loaded whole. The edges of a
# listed range (first, last) must block and the addresses just outside must
# not, by 'bloomxdp query' and by ping through the XDP program; status must
# show as many intervals as Python merges from the file.
# Speaks TAP; needs root and npm; about 15 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

ASN_COUNTRY=@ip-location-db/asn-country@2.3.2026061719
CC=US

e2e_need "exact ranges tests"
if ! command -v npm >/dev/null; then
	skip "exact ranges tests" "npm is missing: run tests/install-deps.sh"
	tap_finish
	exit 0
fi
e2e_install_trap
PKGDIR=$(mktemp -d "/tmp/bxe-$E2E_ID-npm.XXXXXX") || exit 1
trap 'rm -rf -- "$PKGDIR"; e2e_cleanup' EXIT
tgz=$(cd "$PKGDIR" && timeout 180 npm pack --silent --cache "$PKGDIR/cache" "$ASN_COUNTRY" 2>&1 |
	tail -n 1)
if [ ! -f "$PKGDIR/$tgz" ] || ! tar -xzf "$PKGDIR/$tgz" -C "$PKGDIR"; then
	skip "exact ranges tests" "npm pack $ASN_COUNTRY failed: $tgz"
	tap_finish
	exit 0
fi
V4CSV=$PKGDIR/package/asn-country-ipv4.csv
V6CSV=$PKGDIR/package/asn-country-ipv6.csv

# Python's reference: the merged intervals per family, and one listed range per
# family whose neighbours (first - 1, last + 1) are not listed.
read -r N4 N6 F4 L4 B4 A4 F6 L6 B6 A6 < <(python3 - "$V4CSV" "$V6CSV" "$CC" <<'EOF'
import csv, ipaddress, sys
out, edges = [], []
for f in sys.argv[1:3]:
    r = sorted((int(ipaddress.ip_address(a)), int(ipaddress.ip_address(b)))
               for a, b, c in csv.reader(open(f)) if c == sys.argv[3])
    m = []
    for s, e in r:
        if m and s <= m[-1][1] + 1:
            m[-1][1] = max(m[-1][1], e)
        else:
            m.append([s, e])
    out.append(len(m))
    s, e = m[len(m) // 2]
    ip = ipaddress.ip_address
    v6 = ':' in open(f).readline()
    mk = (lambda x: ipaddress.IPv6Address(x)) if v6 else (lambda x: ipaddress.IPv4Address(x))
    edges += [mk(s), mk(e), mk(s - 1), mk(e + 1)]
print(*out, *edges)
EOF
)
diag "$ASN_COUNTRY $CC: $N4 IPv4 and $N6 IPv6 merged intervals (Python)"
diag "IPv4 range $F4-$L4 (outside: $B4, $A4); IPv6 range $F6-$L6 (outside: $B6, $A6)"

# IPv6 sources end in ffff: an address ending in a zero /64 is the subnet-router anycast.
if ! topo_up 192.0.2.50 "$L4" "$A4" "$L6" "$B6"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
for a in "$L4" "$A4"; do ip -n "$NS_SRV" route add "$a/32" dev "$IF_SRV"; done
for a in "$L6" "$B6"; do ip -n "$NS_SRV" route add "$a/128" dev "$IF_SRV"; done
# The client's addresses are in other /64s than the server's: a route to it.
ip -n "$NS_CLI" route add "$SRV6/128" dev "$IF_CLI"
check "attach $IF_SRV" bx attach "$IF_SRV" --match src || {
	tap_finish
	exit 1
}

# A country list holds ranges wider than /8 (the US: 6.0.0.0-8.127.255.255 covers
# 6.0.0.0/7) and IPv6 prefixes shorter than /32: refused unless --allow-wide.
check_fails "load without --allow-wide: refused at the first wide row, naming it" 1 \
	"asn-country-ipv4\.csv:[0-9]+: [0-9.]+,[0-9.]+,$CC: a prefix shorter than /8 .*--allow-wide.*unchanged" \
	bx load "$IF_SRV" --format csv --column 1,2 --where 3=$CC "$V4CSV" "$V6CSV"

load_out() {
	OUT=$(bx load "$IF_SRV" --allow-wide --format csv --column 1,2 --where 3=$CC "$V4CSV" \
		"$V6CSV" "$@" 2>&1)
	RC=$?
}

# tree_bytes 4|6 N: the bytes of the B+tree of N intervals (include/bloomxdp/common.h): a
# header line, leaves of 8 (IPv6 4) intervals, nodes of 17 (9) children, lines of 64 (128) bytes.
tree_bytes() {
	python3 -c 'import sys
v6, n = sys.argv[1] == "6", int(sys.argv[2])
lines = level = -(-n // (4 if v6 else 8))
while level > 1:
    level = -(-level // (9 if v6 else 17))
    lines += level
print((lines + 1) * (128 if v6 else 64))' "$1" "$2"
}

load_out --store intervals
check_eq "load --store intervals: the whole $CC list, both families as exact intervals" \
	"0 2" "$RC $(grep -c 'stored exact as' <<<"$OUT")" "$OUT"
diag "$(grep -E '^loaded|stored exact' <<<"$OUT")"
ST=$(status_json)
check_eq "... status: as many intervals as Python merges, and no key, no bit in the filter" \
	"$N4 $N6 $(($(tree_bytes 4 "$N4") + $(tree_bytes 6 "$N6"))) 0 0" "$(json_num "$ST" ranges_v4) $(json_num "$ST" ranges_v6) \
$(json_num "$ST" ranges_bytes) $(json_num "$ST" keys) $(json_num "$ST" set_bits)" "$ST"
check_eq "... and a Bloom filter sized for the few keys it holds, not attach's 1,000,000" \
	"1024 yes" "$(json_num "$ST" sized_for) $([ "$(json_num "$ST" bytes)" -le 2048 ] && echo yes)" \
	"$ST"
check "... status in text says so" bash -c "'$BLOOMXDP' status '$IF_SRV' | grep -q '^exact ranges    IPv4 $N4 intervals, IPv6 $N6 intervals'"
expect_query "... query: a range's edges are listed, the addresses beside them are not" \
	"$F4: blocked (listed)" "$L4: blocked (listed)" "$B4: not blocked" "$A4: not blocked" \
	"$F6: blocked (listed)" "$L6: blocked (listed)" "$B6: not blocked" "$A6: not blocked"
S0=$(stats_json)
read -r tl rl < <(ping_recv "$L4" "$SRV4" 5)
read -r ta ra < <(ping_recv "$A4" "$SRV4" 5)
read -r tl6 rl6 < <(ping_recv "$L6" "$SRV6" 5)
read -r ta6 ra6 < <(ping_recv "$B6" "$SRV6" 5)
check_eq "... ping: from the last address of the ranges dropped, from beside them answered" \
	"5 0 5 5 5 0 5 5" "$tl $rl $ta $ra $tl6 $rl6 $ta6 $ra6"
S1=$(stats_json)
check_eq "... the drops are interval hits: no Bloom hit" "0 yes" \
	"$(delta "$S0" "$S1" bloom_hits) $( [ "$(delta "$S0" "$S1" hits_v4)" -ge 5 ] && echo yes)" "$S1"
check "attach --force: a new program over the live intervals" bx attach "$IF_SRV" --force --match src,dst
read -r tl rl < <(ping_recv "$L4" "$SRV4" 3)
read -r ta ra < <(ping_recv "$A4" "$SRV4" 3)
check_eq "... which it searches: the listed source dropped, the other answered" "3 0 3 3" \
	"$tl $rl $ta $ra"
check "... add of prefixes goes into the intervals" bx add "$IF_SRV" 240.0.0.0/15 2001:db8::/33
ST=$(status_json)
check_eq "... one interval more per family" "$((N4 + 1)) $((N6 + 1))" \
	"$(json_num "$ST" ranges_v4) $(json_num "$ST" ranges_v6)" "$ST"
expect_query "... which block exactly them, and the list still" "239.255.255.255: not blocked" \
	"240.0.0.0: blocked (listed)" "240.1.255.255: blocked (listed)" \
	"240.2.0.0: not blocked" "2001:db8::: blocked (listed)" "2001:db8:8000::: not blocked" \
	"$F4: blocked (listed)" "$A4: not blocked"

load_out
check_eq "load (--store auto): IPv4 as intervals by the cost model, still exact" \
	"0 1" "$RC $(grep -c 'IPv4 prefixes: .* stored exact as' <<<"$OUT")" "$OUT"
diag "$(grep -E '^loaded|prefixes' <<<"$OUT")"
expect_query "... query agrees" "$F4: blocked (listed)" "$B4: not blocked" "$L4: blocked (listed)" \
	"$A4: not blocked"
PLAN=$("$BLOOMXDP" plan --list "$V4CSV" --list "$V6CSV" --format csv --column 1,2 \
	--where 3=$CC --allow-wide --json 2>&1)
check_eq "plan --list --json: the choice and both costs per family" "intervals $N4 $(tree_bytes 4 "$N4")" \
	"$(python3 -c 'import json, sys; v = json.load(sys.stdin)["list"]["ipv4"]
print(v["store"], v["intervals"], v["interval_bytes"])' <<<"$PLAN")" "$PLAN"

check "add --allow the last address of the IPv4 range" bx add --allow "$IF_SRV" "$L4"
expect_query "... query: allowed, its neighbour in the range still listed" "$L4: not blocked" \
	"$F4: blocked (listed)"
S0=$(stats_json)
read -r tl rl < <(ping_recv "$L4" "$SRV4" 3)
S1=$(stats_json)
check_eq "... ping through the XDP program answered: an interval hit, then allowed" "3 3 yes" \
	"$tl $rl $( [ "$(delta "$S0" "$S1" allowed)" -ge 3 ] && [ "$(delta "$S0" "$S1" range_hits)" -ge 3 ] && echo yes)" "$S1"
: >"$PKGDIR/empty.txt"
check "empty the allowlist" bx load --allow --allow-empty "$IF_SRV" "$PKGDIR/empty.txt"

load_out --store bloom
ST=$(status_json)
check_eq "load --store bloom: no intervals left" "0 0 0" \
	"$RC $(json_num "$ST" ranges_v4) $(json_num "$ST" ranges_v6)" "$OUT"
read -r tl rl < <(ping_recv "$L4" "$SRV4" 3)
check_eq "... and the Bloom filter blocks the list again" "3 0" "$tl $rl"

tap_finish
