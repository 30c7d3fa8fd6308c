#!/bin/bash
# --fpr per packet, as an operator reads it (issue 21): a list of IPv4 prefixes
# of every length /12 to /32 (6 target lengths) and names of 2 and 3 labels is
# loaded with --store bloom at --fpr 1% on an attachment matching src and dns.
# status --json says per field how many probes a packet takes (ipv4 6, dns 2,
# worst 8: a query's source and its name) and an estimated chance per unlisted
# packet within the target; status's text says it, and stats --prometheus
# exports bloomxdp_filter_packet_fpr{field="ipv4"|"dns"|"worst"} with the same
# figures. Loaded again with --store auto, the prefixes go to exact intervals:
# field ipv4 takes no probe and its rate is 0. A list of /24s (one probe) to which add
# brings a host, a new length (two probes, past the target at that size), is rebuilt
# from its state, sized for two probes. (The drop rate of 200,000
# unlisted packets is measured by build/tests/test_packet_fpr_xdp.)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh

e2e_need "per-packet FPR tests"
e2e_install_trap

FPR=0.01
if ! topo_up 192.0.2.50 192.0.2.51; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

# 3,000 prefixes of /12 to /32 over 20.0.0.0/6, and 200 names.
awk 'BEGIN {
	srand(21)
	for (i = 0; i < 3000; i++) {
		len = 12 + i % 21
		a = 20 * 2^24 + int(rand() * 2^26)
		a = a - a % 2^(32 - len)
		printf "%d.%d.%d.%d/%d\n", int(a / 2^24), int(a / 2^16) % 256,
			int(a / 2^8) % 256, a % 256, len
	}
	for (i = 0; i < 100; i++)
		printf "bad%d.example\nx.bad%d.example\n", i, i
}' >"$E2E_TMP/list.txt"

# The "fpr" of a field of status --json's packet_fpr.
field_fpr() {
	sed -n "s/.*\"packet_fpr\":{.*\"$2\":{\"probes\":[0-9]*,\"fpr\":\([-0-9.e+]*\)}.*/\1/p" \
		<<<"$1"
}
field_probes() { sed -n "s/.*\"packet_fpr\":{.*\"$2\":{\"probes\":\([0-9]*\),.*/\1/p" <<<"$1"; }
within() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v != "" && v + 0 <= t + 0) }'; }

check "attach --match src,dns --fpr $FPR" bx attach "$IF_SRV" --match src,dns --fpr "$FPR" || {
	tap_finish
	exit 1
}
check "load --store bloom" bx load "$IF_SRV" --store bloom "$E2E_TMP/list.txt"
st=$(status_json)
check_eq "status --json: probes per packet ipv4, dns, worst" "6 2 8" \
	"$(field_probes "$st" ipv4) $(field_probes "$st" dns) $(field_probes "$st" worst)" "$st"
worst=$(field_fpr "$st" worst)
check "... the worst packet's estimated rate $worst within the target $FPR" within "$worst" "$FPR"
check "... and above the per-key estimate $(json_num "$st" estimated_fpr)" \
	awk -v w="$worst" -v k="$(json_num "$st" estimated_fpr)" 'BEGIN { exit !(w > k) }'
text=$(bx status "$IF_SRV" 2>&1)
check "status: a per packet line with the target" grep -q "^per packet .*(target 0.01): ipv4 " \
	<<<"$text"
prom=$(bx stats "$IF_SRV" --prometheus 2>&1)
for f in ipv4 dns worst; do
	v=$(sed -n "s/^bloomxdp_filter_packet_fpr{ifname=\"$IF_SRV\",field=\"$f\"} //p" <<<"$prom")
	check "stats --prometheus: packet_fpr field $f $v, as status says $(field_fpr "$st" $f)" \
		awk -v a="$v" -v b="$(field_fpr "$st" $f)" \
		'BEGIN { exit !(a != "" && (a - b) ^ 2 <= (1e-5 * b) ^ 2) }'
done

check "load --store auto" bx load "$IF_SRV" "$E2E_TMP/list.txt"
st=$(status_json)
check_eq "status --json: IPv4 in exact intervals, no probe, rate 0" "0 0 yes" \
	"$(field_probes "$st" ipv4) $(field_fpr "$st" ipv4) $( [ "$(json_num "$st" ranges_v4)" \
	-gt 0 ] 2>/dev/null && echo yes)" "$st"

# /24s only: one probe at 1%. An add of hosts, a new length (/32), takes every IPv4 packet to
# two probes: past the target at this size, so add rebuilds the list from its state, sized for two.
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "10.%d.%d.0/24\n", i / 256, i % 256 }' \
	>"$E2E_TMP/nets.txt"
check "load 3000 /24s --store bloom" bx load "$IF_SRV" --store bloom "$E2E_TMP/nets.txt"
st=$(status_json)
check_eq "status --json: one probe per IPv4 address" "1" "$(field_probes "$st" ipv4)" "$st"
# 700 hosts: within the keys the filter is sized for (3750), but each probe then near 1%.
mapfile -t hosts < <(awk 'BEGIN { for (i = 0; i < 700; i++)
	printf "198.18.%d.%d\n", i / 256, i % 256 }')
out=$(bx add "$IF_SRV" "${hosts[@]}" 2>&1)
st=$(status_json)
check_eq "add of 700 hosts, a new length: rebuilt from the state, 2 probes" "yes 2" \
	"$(grep -q rebuilding <<<"$out" && echo yes) $(field_probes "$st" ipv4)" "$out" "$st"
worst=$(field_fpr "$st" worst)
check "... the worst packet's estimated rate $worst within the target $FPR" within "$worst" "$FPR"
expect_query "... query: the host and a listed /24 are blocked" "198.18.0.7: blocked" \
	"198.18.2.187: blocked" "10.0.5.9: blocked"

check "detach" bx detach "$IF_SRV"
left=$(e2e_leftovers)
check_eq "cleanup leaves no namespace, interface, pin or temporary file" "" \
	"$(e2e_cleanup; e2e_leftovers)" "$left"
tap_finish
