#!/usr/bin/env bash
# Real published lists, loaded as operators load them, each line either loaded
# or skipped with a reason (--lenient), the counts checked against what awk or
# Python computes from the file on their own, and known entries (and known
# non-entries) asked with 'bloomxdp query':
#
#   Debian 12 webext-ublock-origin-firefox 1.67.0+dfsg-1~deb12u1 (tests/install-deps.sh):
#     urlhaus-filter-online.txt (URL and host rules, $all), easylist.txt,
#     easyprivacy.txt (its @@ exceptions go to the allowlist)
#   npm disposable-email-domains@1.0.62 (index.json: public suffixes in it)
#   npm @ip-location-db/asn-country@2.3.2026061719 (start,end,CC CSV, dotted and decimal)
#
# The npm packages are fetched at test time with 'npm pack' (pinned versions).
# Speaks TAP; needs root; about 20 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

UBO=/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}
UBO=$UBO/uBlock0@raymondhill.net/assets
URLHAUS=$UBO/thirdparties/urlhaus-filter/urlhaus-filter-online.txt
EASYLIST=$UBO/thirdparties/easylist/easylist.txt
EASYPRIVACY=$UBO/thirdparties/easylist/easyprivacy.txt
DISPOSABLE=disposable-email-domains@1.0.62
ASN_COUNTRY=@ip-location-db/asn-country@2.3.2026061719

e2e_need "feed tests"
e2e_install_trap
if ! topo_up 192.0.2.50; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
# A false positive in a query would read as a listed entry: make them negligible.
check "attach $IF_SRV" bx attach "$IF_SRV" --capacity 300000 --fpr 0.000001 \
	--match src,dns,http,sni || {
	tap_finish
	exit 1
}

# load_out FILE... OPTIONS: runs load, stdout and stderr in $OUT, status in $RC.
load_out() {
	OUT=$(bx load "$IF_SRV" "$@" 2>&1)
	RC=$?
}
# The entries 'loaded N entries' says, and the lines every 'skipped N lines' adds up to.
loaded() { sed -n 's/^loaded \([0-9]*\) entries.*/\1/p' <<<"$OUT"; }
skipped() {
	sed -n 's/.*warning: skipped \([0-9]*\) line.*/\1/p' <<<"$OUT" |
		awk '{s += $1} END {print s + 0}'
}
# has REGEX: "yes" when the output of the last load matches.
has() { grep -qE "$1" <<<"$OUT" && echo yes; }
QUERY_LISTED=0	# the lists' own verdicts, whatever holds them

# ------------------------------------------------------------ urlhaus (adblock URLs)
if [ ! -r "$URLHAUS" ]; then
	skip "uBlock Origin's lists" "$UBO is missing: run tests/install-deps.sh"
else
	# What the file holds, counted apart: addresses, bare hosts and ||host^$all, URL
	# rules with a query string (skipped) and without (loaded), paths over 8 segments
	# or 254 bytes (widened).
	read -r U_IP U_NAME U_URL U_QUERY U_WIDE U_OTHER < <(awk '
		/^!/ || /^[ \t]*$/ { next }
		/^[0-9.]+$/ { ip++; next }
		/^[a-z0-9][a-z0-9._-]*$/ { name++; next }
		/^\|\|[^\/^]+\^\$all$/ { name++; next }
		/^\|\|[^\/^]+\/.*\^\$all$/ {
			path = $0; sub(/^\|\|[^\/]+/, "", path); sub(/\^\$all$/, "", path)
			if (path ~ /[?=&]/) { query++; next }
			url++
			if (gsub(/\//, "/", path) > 8 || length(path) > 254) wide++
			next
		}
		{ other++ }
		END { print ip + 0, name + 0, url + 0, query + 0, wide + 0, other + 0 }' "$URLHAUS")
	diag "urlhaus-filter-online.txt: $U_IP addresses, $U_NAME hosts, $U_URL URLs," \
		"$U_QUERY with a query string, $U_WIDE beyond 8 segments, $U_OTHER other"
	check_eq "urlhaus: every rule is an address, a host or a URL rule (awk)" 0 "$U_OTHER"

	load_out --format adblock "$URLHAUS"
	FIRST_QUERY=$(grep -nE '^\|\|[^/^]+/[^^]*[?=&]' "$URLHAUS" | head -n 1 | cut -d: -f1)
	U_AT="urlhaus-filter-online.txt:$FIRST_QUERY"
	check_eq "urlhaus without --lenient: refused at its first query-string rule, list kept" \
		"1 yes" "$RC $(has "$U_AT: .*query string.*unchanged")" "$OUT"

	load_out --format adblock --lenient "$URLHAUS"
	check_eq "urlhaus --lenient: loaded = addresses + hosts + URLs (awk)" \
		"0 $((U_IP + U_NAME + U_URL))" "$RC $(loaded)" "$OUT"
	check_eq "... skipped = the query-string rules, on one line naming the first" \
		"$U_QUERY yes" "$(skipped) $(has "skipped $U_QUERY lines \(.*$U_AT, .*query")" \
		"$OUT"
	check_eq "... widened = the paths beyond 8 segments, said so" "$U_WIDE" \
		"$(sed -n 's/.*warning: widened \([0-9]*\) lines.*first segments.*/\1/p' \
		<<<"$OUT")" "$OUT"

	# Known entries of the file, and near misses.
	IP1=$(grep -m1 -E '^[0-9.]+$' "$URLHAUS")
	HOST1=$(grep -m1 -E '^[a-z0-9._-]*[a-z][a-z0-9._-]*$' "$URLHAUS")
	URL1=$(grep -m1 -E '^\|\|[^/^]+/[^?=&]*\^\$all$' "$URLHAUS" | sed 's/^||//;s/\^\$all$//')
	WIDE1=$(awk '/^\|\|[^\/^]+\/[^?=&]*\^\$all$/ { p = $0; sub(/^\|\|/, "", p);
		sub(/\^\$all$/, "", p); if (gsub(/\//, "/", p) > 8) { print p; exit } }' "$URLHAUS")
	WIDE1_CUT=$(cut -d/ -f1-9 <<<"$WIDE1")
	expect_query "urlhaus: a listed address, host, URL are blocked; their neighbours are not" \
		"$IP1: blocked" "x.$HOST1: blocked" "$URL1: blocked" "$URL1/more: blocked" \
		"${URL1}x: not blocked" "${URL1%/*}/other: not blocked" "$HOST1.other: not blocked"
	expect_query "urlhaus: a URL beyond 8 segments blocks its first 8 and what is under them" \
		"$WIDE1: blocked" "$WIDE1_CUT/elsewhere: blocked" \
		"${WIDE1_CUT%/*}/other: not blocked"
fi

# ------------------------------------------------------------ EasyList, EasyPrivacy
if [ -r "$EASYLIST" ]; then
	# The rules that block a whole host, counted apart (the options that keep it whole).
	BLOCK_OPTS='(\$((all|important|doc|document|popup|popunder|match-case),?)+)?'
	E_TOTAL=$(wc -l <"$EASYLIST")
	E_QUIET=$(grep -cE '^(!|\[|[ \t]*$)' "$EASYLIST")
	E_HOSTS=$(grep -E "^\|\|[a-z0-9._-]+\^\|?$BLOCK_OPTS$" "$EASYLIST" |
		grep -cvE '^\|\|[0-9.]+\^')
	load_out --format adblock "$EASYLIST"
	FIRST_BAD=$(grep -nvE "^(!|\[|[ \t]*$|\|\|[a-z0-9._-]+\^\|?$BLOCK_OPTS$)" "$EASYLIST" |
		head -n 1 | cut -d: -f1)
	check_eq "easylist without --lenient: refused at its first rule it cannot honour" \
		"1 yes" "$RC $(grep -qE "easylist.txt:$FIRST_BAD: " <<<"$OUT" && echo yes)" "$OUT"
	load_out --format adblock --lenient "$EASYLIST"
	diag "easylist.txt: $E_TOTAL lines, $E_QUIET comments and blank, $E_HOSTS host rules;" \
		"loaded $(loaded), skipped $(skipped)"
	check_eq "easylist --lenient: every line is loaded, skipped with a reason, or a comment" \
		"0 $E_TOTAL" "$RC $(($(loaded) + $(skipped) + E_QUIET))" "$OUT"
	E_NAMES=$(json_num "$(bx plan --json --format adblock --lenient --list "$EASYLIST" \
		2>/dev/null)" names)
	check_eq "... its host rules are its domains (awk)" "$E_HOSTS" "$E_NAMES"
	# A host of a whole-host rule, and one listed only with $third-party (narrowed: skipped).
	E_HOST1=$(grep -m1 -E '^\|\|[a-z0-9.-]+\^$' "$EASYLIST" | sed 's/^||//;s/\^$//')
	E_POPUP1=$(grep -m1 -E '^\|\|[a-z0-9.-]+\^\$popup$' "$EASYLIST" | sed 's/^||//;s/\^.*//')
	E_3P=$(grep -E '^\|\|[a-z0-9.-]+\^\$third-party$' "$EASYLIST" | sed 's/^||//;s/\^.*//' |
		while read -r h; do
			grep -qE "^\|\|$h\^(\$(popup|doc|document|all|important))?$" "$EASYLIST" ||
				{ echo "$h"; break; }
		done)
	expect_query "easylist: ||host^ and ||host^\$popup block, ||host^\$third-party does not" \
		"$E_HOST1: blocked" "sub.$E_POPUP1: blocked" "$E_3P: not blocked"
fi
if [ -r "$EASYPRIVACY" ]; then
	P_EXC=$(grep -cE '^@@\|\|[a-z0-9.-]+\^(\$important)?$' "$EASYPRIVACY")
	P_EXC1=$(grep -m1 -E '^@@\|\|[a-z0-9.-]+\^$' "$EASYPRIVACY" | sed 's/^@@||//;s/\^$//')
	load_out --format adblock --lenient "$EASYPRIVACY"
	check_eq "easyprivacy: its $P_EXC @@||host^ exceptions are added to the allowlist" \
		"0 yes" "$RC $(has "^added $P_EXC exceptions .* allowlist of $IF_SRV")" "$OUT"
	check "... then blocking $P_EXC1 itself" bx add "$IF_SRV" "$P_EXC1"
	expect_query "... leaves it passed by the allowlist" "$P_EXC1: not blocked"
fi

# ------------------------------------------------------------ npm packages
# npm_fetch SPEC: unpacks the pinned package into $E2E_TMP/pkg-N, path in $PKG.
npm_n=0
npm_fetch() {
	local dir tgz
	npm_n=$((npm_n + 1))
	dir=$E2E_TMP/pkg-$npm_n
	mkdir -p "$dir" || return 1
	if ! command -v npm >/dev/null; then
		NPM_WHY="npm is missing: run tests/install-deps.sh"
		return 1
	fi
	tgz=$(cd "$dir" && timeout 180 npm pack --silent --cache "$E2E_TMP/npm-cache" "$1" 2>&1 |
		tail -n 1)
	if [ ! -f "$dir/$tgz" ] || ! tar -xzf "$dir/$tgz" -C "$dir"; then
		NPM_WHY="npm pack $1 failed: $tgz"
		return 1
	fi
	PKG=$dir/package
}

if ! npm_fetch "$DISPOSABLE"; then
	skip "$DISPOSABLE" "$NPM_WHY"
else
	D_LIST=$E2E_TMP/disposable.txt
	node -e 'for (const d of require(process.argv[1])) console.log(d)' "$PKG/index.json" \
		>"$D_LIST"
	D_TOTAL=$(wc -l <"$D_LIST")
	# The public suffixes among them, from Debian's publicsuffix data, by Python: a
	# name a rule lists, or one label under a wildcard rule (not an exception).
	python3 - "$D_LIST" >"$E2E_TMP/suffixes.txt" <<'EOF'
import sys
rules, wild, exc = set(), set(), set()
for line in open('/usr/share/publicsuffix/public_suffix_list.dat', encoding='utf-8'):
    r = line.strip().split(' ')[0]
    if not r or r.startswith('//'):
        continue
    try:
        r = '.'.join(l if l in ('*', '!') else l.encode('idna').decode() for l in r.split('.'))
    except UnicodeError:
        continue
    if r.startswith('!'):
        exc.add(r[1:])
    elif r.startswith('*.'):
        wild.add(r[2:])
    else:
        rules.add(r)
for n, name in enumerate(open(sys.argv[1]), 1):
    name = name.strip().lower()
    parent = name.split('.', 1)[1] if '.' in name else ''
    if name in rules or (parent in wild and name not in exc):
        print(n, name)
EOF
	D_SUFFIXES=$(wc -l <"$E2E_TMP/suffixes.txt")
	read -r S1_LINE S1_NAME < "$E2E_TMP/suffixes.txt"
	EDU_PL_LINE=$(grep -nx 'edu.pl' "$D_LIST" | cut -d: -f1)
	diag "$DISPOSABLE: $D_TOTAL domains, $D_SUFFIXES public suffixes (Python)" \
		"$(tr '\n' ' ' <"$E2E_TMP/suffixes.txt")"
	check_eq "disposable-email-domains holds public suffixes, edu.pl among them" "yes yes" \
		"$([ "$D_SUFFIXES" -gt 0 ] && echo yes) $([ -n "$EDU_PL_LINE" ] && echo yes)"
	D_AT="disposable.txt:$S1_LINE \\($S1_NAME\\)"
	load_out "$D_LIST"
	check_eq "... its load is refused, naming the count and the first line" "1 yes" \
		"$RC $(has "$D_SUFFIXES public suffixes in the list.*$D_AT.*allow-public-suffix")" \
		"$OUT"
	expect_query "... and the live list stays as it was" "www.uw.edu.pl: not blocked"
	# Issue 21: --lenient skips them, each counted, the first places named.
	load_out --lenient "$D_LIST"
	check_eq "... --lenient: loaded without them, all $D_SUFFIXES reported as skipped" \
		"0 $((D_TOTAL - D_SUFFIXES)) $D_SUFFIXES yes" \
		"$RC $(loaded) $(skipped) $(has "skipped $D_SUFFIXES lines \(.*disposable\.txt:$S1_LINE.*: a public suffix")" \
		"$OUT"
	expect_query "... www.uw.edu.pl passes, the list's other names are blocked" \
		"www.uw.edu.pl: not blocked" "$(sed -n '1000p' "$D_LIST"): blocked"
	check_fails "plan --list warns about them" 0 "warning: $D_SUFFIXES public suffixes" \
		bx plan --list "$D_LIST"
	check_fails "add refuses a public suffix" 1 "edu.pl: a public suffix.*nothing was added" \
		bx add "$IF_SRV" edu.pl
	load_out --allow-public-suffix "$D_LIST"
	check_eq "--allow-public-suffix loads every line" "0 $D_TOTAL" "$RC $(loaded)" "$OUT"
	D_ONE=$(sed -n '1000p' "$D_LIST")
	expect_query "... blocking what the operator asked, www.uw.edu.pl included" \
		"$D_ONE: blocked" "www.uw.edu.pl: blocked" "gmail.com: not blocked"
fi

if ! npm_fetch "$ASN_COUNTRY"; then
	skip "$ASN_COUNTRY" "$NPM_WHY"
else
	# The fewest prefixes covering each AU range, by Python's ipaddress.
	read -r A4 A6 < <(python3 - "$PKG" <<'EOF'
import csv, ipaddress, sys
n = []
for f in ('asn-country-ipv4.csv', 'asn-country-ipv6.csv'):
    n.append(sum(len(list(ipaddress.summarize_address_range(ipaddress.ip_address(r[0]),
                                                          ipaddress.ip_address(r[1]))))
                 for r in csv.reader(open(sys.argv[1] + '/' + f)) if r[2] == 'AU'))
print(*n)
EOF
	)
	A_ROWS=$(grep -c ',AU$' "$PKG/asn-country-ipv4.csv")
	diag "$ASN_COUNTRY: $A_ROWS AU rows in IPv4, $A4 + $A6 prefixes (Python)"
	# A country's IPv6 holds prefixes shorter than /32: --allow-wide (issue 21).
	load_out --allow-wide --format csv --column 1,2 --where 3=AU "$PKG/asn-country-ipv4.csv" \
		"$PKG/asn-country-ipv6.csv"
	check_eq "asn-country CSV, --column 1,2 --where 3=AU: the prefixes Python computes" \
		"0 $((A4 + A6))" "$RC $(loaded)" "$OUT"
	load_out --allow-wide --format csv --column 1,2 --where 3=AU \
		"$PKG/asn-country-ipv4-num.csv" "$PKG/asn-country-ipv6-num.csv"
	check_eq "... the same from its decimal files" "0 $((A4 + A6))" "$RC $(loaded)" "$OUT"
	AU1=$(grep -m1 ',AU$' "$PKG/asn-country-ipv4.csv" | cut -d, -f1)
	AU1_END=$(grep -m1 ',AU$' "$PKG/asn-country-ipv4.csv" | cut -d, -f2)
	CN1=$(grep -m1 ',CN$' "$PKG/asn-country-ipv4.csv" | cut -d, -f1)
	AU6=$(grep -m1 ',AU$' "$PKG/asn-country-ipv6.csv" | cut -d, -f1)
	expect_query "... an AU range's first and last address are blocked, a CN one's is not" \
		"$AU1: blocked" "$AU1_END: blocked" "$CN1: not blocked" "${AU6}1: blocked"
fi

# ------------------------------------------------------------ resolver formats, by hand
# No Debian or npm package ships a dnsmasq, Unbound or RPZ blocklist: lines as their
# manuals give them, in one file read in auto format.
MIXED=$E2E_TMP/mixed.txt
cat >"$MIXED" <<'EOF'
address=/dnsmasq.example/0.0.0.0
server=/nx.example/
server=/corp.example/192.0.2.53
local-zone: "unbound.example" always_nxdomain
local-zone: "seen.example" transparent
$TTL 300
$ORIGIN rpz.example.
@ IN SOA localhost. root.localhost. ( 1 3600
	900 604800 300 )
rpz.example.rpz.example. CNAME .
*.rpz.example CNAME .
24.0.100.51.198.rpz-ip CNAME .
passthru.rpz.example CNAME rpz-passthru.
1.10.16.0/20 ; SBL256894
203.0.113.10-203.0.113.13
EOF
load_out --lenient "$MIXED"
check_eq "dnsmasq, Unbound, RPZ, DROP and a range in one file: what blocks is loaded" \
	"0 9 2 1" "$RC $(loaded) $(skipped) $(grep -c '^added 1 exception' <<<"$OUT")" "$OUT"
expect_query "... and blocks; forwarders, transparent zones and the passthru do not" \
	"a.dnsmasq.example: blocked" "nx.example: blocked" "corp.example: not blocked" \
	"unbound.example: blocked" "seen.example: not blocked" "x.rpz.example: blocked" \
	"passthru.rpz.example: not blocked" "198.51.100.77: blocked" "1.10.31.255: blocked" \
	"203.0.113.9: not blocked" "203.0.113.10: blocked" "203.0.113.13: blocked" \
	"203.0.113.14: not blocked"
# 192.0.2.100/30, .104/30, .108/31.
OUT=$(bx add "$IF_SRV" 192.0.2.100-192.0.2.109 2>&1)
check_eq "add takes a range as the prefixes that cover it" \
	"added 3 entries to $IF_SRV (3 not already in the filter)" "$OUT"
expect_query "... which block it exactly" "192.0.2.99: not blocked" "192.0.2.100: blocked" \
	"192.0.2.109: blocked" "192.0.2.110: not blocked"

tap_finish
