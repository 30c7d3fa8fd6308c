#!/usr/bin/env bash
# The service's capabilities, proven: the commands run as bloomxdp@.service
# would run them, as uid nobody with only the capabilities of the unit's
# AmbientCapabilities= (setpriv: inheritable, ambient and bounding sets), on a
# veth pair of our own:
#
#   - with all of them: attach, load, load --allow, add, query, status, stats,
#     stats --prometheus and detach work, and a listed source is dropped;
#   - each one is needed: without CAP_SYS_ADMIN, add, query and status cannot
#     open the live filter by its map id (attach, load, stats and detach, what
#     restore and refresh do, still work); CAP_SYS_ADMIN passes the kernel's
#     checks of the three others, so each of those is shown needed without
#     it: without CAP_NET_ADMIN attach is refused, without CAP_PERFMON the
#     verifier refuses the program, without CAP_BPF nothing runs;
#   - stats --prometheus passes 'promtool check metrics', with an interface
#     name that needs escaping, and says the same dropped count as stats --json.
#
# Runs in a private mount namespace with a fresh bpffs (mode 1777, where
# nobody may make its pin directory) and a private network namespace: the
# machine's bpffs and network are never touched. Speaks TAP. Needs root.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

UNIT_IN=dist/bloomxdp@.service.in

e2e_private_bpffs "capability tests" setpriv -- "$@"

NOBODY=$(id -u nobody 2>/dev/null || echo 65534)
NOGROUP=$(id -g nobody 2>/dev/null || echo 65534)
# World-readable: nobody reads the lists.
E2E_TMP=$(mktemp -d "/tmp/bxc-$E2E_ID.XXXXXX") || exit 1
chmod 755 "$E2E_TMP"
trap 'rm -rf -- "$E2E_TMP"' EXIT
LIST=$E2E_TMP/list.txt
ALLOW=$E2E_TMP/allow.txt
printf '192.0.2.10\n198.51.100.0/24\n' >"$LIST"
echo 192.0.2.11 >"$ALLOW"
chmod 644 "$LIST" "$ALLOW"
# The state of this test's interfaces, not the machine's: root's, and nobody's own
# (a state directory must belong to whoever writes it).
export BLOOMXDP_STATE_DIR=$E2E_TMP/state
NOBODY_STATE=$E2E_TMP/state-nobody
mkdir -m 700 "$NOBODY_STATE" && chown "$NOBODY:$NOGROUP" "$NOBODY_STATE"

# The veth pair: frames sent out of $PEER arrive on $IF, where XDP runs.
IF=$IF_SRV
PEER=$IF_CLI
if ! ip link add "$IF" type veth peer name "$PEER" || ! ip link set "$IF" up ||
	! ip link set "$PEER" up || ! ip addr add 192.0.2.10/24 dev "$PEER"; then
	not_ok "create a veth pair in the private network namespace"
	tap_finish
	exit 1
fi

# "CAP_BPF CAP_NET_ADMIN" -> "+bpf,+net_admin", setpriv's form.
UNIT_CAPS=$(sed -n 's/^AmbientCapabilities=//p' "$UNIT_IN")
check_eq "the unit's bounding set is its ambient set" "$UNIT_CAPS" \
	"$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT_IN")"
setpriv_caps() {
	local c out=
	for c in "$@"; do
		c=${c#CAP_}
		out+=",+${c,,}"
	done
	echo "${out#,}"
}
# without CAP_X...: the unit's capabilities less those.
caps_without() {
	local c keep=() drop
	for c in $UNIT_CAPS; do
		for drop in "$@"; do [ "$c" = "$drop" ] && continue 2; done
		keep+=("$c")
	done
	setpriv_caps "${keep[@]}"
}
# as CAPS COMMAND...: uid and gid nobody, no groups, exactly CAPS.
as() {
	local caps=$1
	shift
	BLOOMXDP_STATE_DIR=$NOBODY_STATE timeout 30 setpriv --reuid="$NOBODY" \
		--regid="$NOGROUP" --clear-groups --inh-caps="-all,$caps" \
		--ambient-caps="-all,$caps" --bounding-set="-all,$caps" -- "$@"
}
# shellcheck disable=SC2086  # one word per capability
ALL=$(setpriv_caps $UNIT_CAPS)
diag "the unit's capabilities: $UNIT_CAPS"
# Whoever made them owns the pins: clear them between cases as root.
reset_pins() {
	timeout 30 "$BLOOMXDP" detach "$IF" >/dev/null 2>&1
	rm -rf /sys/fs/bpf/bloomxdp
	ip link set dev "$IF" xdp off 2>/dev/null
	return 0
}

# ---------------------------------------------------------------- the unit's set

# shellcheck disable=SC2016  # awk's $2
eff=$(as "$ALL" awk '/^CapEff/ { print $2 }' /proc/self/status)
got=$(capsh --decode="$eff" | sed 's/.*=//' | tr ',' '\n' | sort | xargs)
check_eq "a command gets exactly the unit's capabilities, as uid nobody" \
	"$(tr ' ' '\n' <<<"${UNIT_CAPS,,}" | sort | xargs) uid=$NOBODY" \
	"$got uid=$(as "$ALL" id -u)"
check "as nobody with the unit's capabilities: attach" \
	as "$ALL" "$BLOOMXDP" attach "$IF" --mode generic --capacity 1000 --match src,dns
check_eq "... the pins are nobody's" "$NOBODY" "$(stat -c %u "$PIN_ROOT/$IF" 2>&1)"
check "... load" as "$ALL" "$BLOOMXDP" load "$IF" "$LIST"
check "... load --allow" as "$ALL" "$BLOOMXDP" load --allow "$IF" "$ALLOW"
check "... add" as "$ALL" "$BLOOMXDP" add "$IF" 203.0.113.7 evil.example
check_eq "... query" "192.0.2.10: blocked" \
	"$(as "$ALL" "$BLOOMXDP" query "$IF" 192.0.2.10 2>&1 | sed 's/ (.*//')"
check "... status" as "$ALL" "$BLOOMXDP" status "$IF"
# A listed source (192.0.2.10, the peer's address) sends 5 frames into $IF.
mac=$(ip -br link show dev "$IF" | awk '{ print $3 }')
ip neigh replace 192.0.2.99 lladdr "$mac" dev "$PEER" nud permanent
timeout 10 ping -n -q -c 5 -i 0.05 -W 1 -I "$PEER" 192.0.2.99 >/dev/null 2>&1
json=$(as "$ALL" "$BLOOMXDP" stats "$IF" --json 2>&1)
check_eq "... stats: the listed source's 5 frames dropped" 5 "$(json_num "$json" dropped)" "$json"
prom=$(as "$ALL" "$BLOOMXDP" stats "$IF" --prometheus 2>&1)
check_eq "... stats --prometheus: the same dropped count" \
	"bloomxdp_dropped_total{ifname=\"$IF\",direction=\"ingress\"} 5" \
	"$(grep '^bloomxdp_dropped_total' <<<"$prom")"
check_eq "... and the live filter's generation and entries" \
	"bloomxdp_filter_entries{ifname=\"$IF\"} 4 bloomxdp_filter_generation{ifname=\"$IF\"} 1" \
	"$(grep -E '^bloomxdp_filter_(generation|entries)' <<<"$prom" | paste -sd ' ')"
if command -v promtool >/dev/null; then
	check_eq "promtool check metrics: stats --prometheus passes" "0:" \
		"$(out=$(promtool check metrics <<<"$prom" 2>&1); echo "$?:$out")"
else
	skip "promtool check metrics" "promtool is missing: run tests/install-deps.sh"
fi
check "... detach" as "$ALL" "$BLOOMXDP" detach "$IF"
check_eq "... leaves no pin" "" "$(find /sys/fs/bpf/bloomxdp -mindepth 1 2>/dev/null)"

# ---------------------------------------------------------------- each one is needed

reset_pins
caps=$(caps_without CAP_SYS_ADMIN)
check "without CAP_SYS_ADMIN: attach works" \
	as "$caps" "$BLOOMXDP" attach "$IF" --mode generic --capacity 1000
check "... load works" as "$caps" "$BLOOMXDP" load "$IF" "$LIST"
check "... stats works" as "$caps" "$BLOOMXDP" stats "$IF"
check_fails "... status cannot open the live filter (by map id: CAP_SYS_ADMIN only)" 1 \
	"cannot read the live filter of .*: Operation not permitted" \
	as "$caps" "$BLOOMXDP" status "$IF"
check_fails "... nor add" 1 "Operation not permitted" as "$caps" "$BLOOMXDP" add "$IF" 192.0.2.77
check_fails "... nor query" 1 "Operation not permitted" \
	as "$caps" "$BLOOMXDP" query "$IF" 192.0.2.77
check "... detach works" as "$caps" "$BLOOMXDP" detach "$IF"

# CAP_SYS_ADMIN passes the kernel's checks of the three others (bpf_capable,
# perfmon_capable, bpf_net_capable): each is needed once it is gone.
reset_pins
caps=$(caps_without CAP_SYS_ADMIN CAP_NET_ADMIN)
check_fails "without CAP_SYS_ADMIN and CAP_NET_ADMIN: attach is refused" 1 "needs root" \
	as "$caps" "$BLOOMXDP" attach "$IF" --mode generic --capacity 1000

reset_pins
caps=$(caps_without CAP_SYS_ADMIN CAP_PERFMON)
check_fails "without CAP_SYS_ADMIN and CAP_PERFMON: the verifier refuses the program" 1 \
	"pointer -= pointer prohibited" \
	as "$caps" "$BLOOMXDP" -v attach "$IF" --mode generic --capacity 1000

reset_pins
caps=$(caps_without CAP_SYS_ADMIN CAP_BPF)
check_fails "without CAP_SYS_ADMIN and CAP_BPF: refused" 1 "needs root \(or CAP_BPF" \
	as "$caps" "$BLOOMXDP" attach "$IF" --mode generic --capacity 1000

reset_pins
check "with CAP_SYS_ADMIN alone, attach works (it stands for the three others)" \
	as "$(setpriv_caps CAP_SYS_ADMIN)" "$BLOOMXDP" attach "$IF" --mode generic --capacity 1000
reset_pins

# ---------------------------------------------------------------- escaping

# A name the exposition format must escape (a double quote and a backslash).
ODD="bx\"${E2E_ID}\\q"
if ip link add "$ODD" type veth peer name "bxc${E2E_ID}o" && ip link set "$ODD" up; then
	check "attach to an interface named $ODD" \
		timeout 30 "$BLOOMXDP" attach "$ODD" --mode generic --capacity 1000
	prom=$(timeout 30 "$BLOOMXDP" stats "$ODD" --prometheus 2>&1)
	check_eq "its label value is escaped" \
		"bloomxdp_dropped_total{ifname=\"bx\\\"${E2E_ID}\\\\q\",direction=\"ingress\"} 0" \
		"$(grep '^bloomxdp_dropped_total' <<<"$prom")"
	if command -v promtool >/dev/null; then
		check_eq "promtool check metrics passes on it" "0:" \
			"$(out=$(promtool check metrics <<<"$prom" 2>&1); echo "$?:$out")"
	fi
	timeout 30 "$BLOOMXDP" detach "$ODD" >/dev/null 2>&1
else
	not_ok "create an interface named $ODD"
fi

tap_finish
