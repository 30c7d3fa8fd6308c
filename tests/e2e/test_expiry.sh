#!/usr/bin/env bash
# Expiry (docs/operations.md, "Expiry"): the daemon deletes an entry within
# a second of its deadline (real pings: it passes then, never before), the
# later deadline of two adds is kept, status counts timeouts and the next
# deadline; a mass expiry of 100,000 entries in one second happens (its time
# is reported, not checked) and leaves every other entry enforced; restore
# skips entries whose time passed.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "expiry tests"
e2e_install_trap

C_KEEP=192.0.2.11	# loaded, stays
C_SHORT=192.0.2.12	# added for 3 s
C_LONG=192.0.2.13	# added for 2 s, then for 1 h: kept an hour
C_FREE=192.0.2.50
CLIENTS=("$C_KEEP" "$C_SHORT" "$C_LONG" "$C_FREE")

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "set up namespaces and veth pair"
	tap_finish
	exit 1
fi
STATE=$BLOOMXDP_STATE_DIR/$IF_SRV
CONF=$E2E_TMP/$IF_SRV.conf
ERR=$E2E_TMP/daemon.err
LIST=$E2E_TMP/list.txt
{
	echo "$C_KEEP"
	awk 'BEGIN { for (i = 0; i < 2000; i++) printf "kept-%d.example\n", i }'
} >"$LIST"
cat >"$CONF" <<EOF
[attach]
capacity = 5000
fpr = 1%
match = src,dns

[list one]
source = $LIST
refresh = 1h

[daemon]
state_dir = $BLOOMXDP_STATE_DIR
EOF

bg_start nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" --config "$CONF" \
	>/dev/null 2>"$ERR"
DPID=$BG_PID
if wait_log 'blocklist loaded' 1 15; then
	ok "the daemon attached and loaded its list"
else
	not_ok "the daemon attached and loaded its list" "$(cat "$ERR")"
fi

check_fails "add --timeout with a bad duration: refused (a usage error)" 2 "expected a duration" \
	bx add "$IF_SRV" --timeout 10x "$C_SHORT"
check_fails "add --allow --timeout: refused" 1 "do not expire" \
	bx add "$IF_SRV" --allow --timeout 10s "$C_SHORT"
check "add one for 3 s" bx add "$IF_SRV" --timeout 3s "$C_SHORT"
added=$(date +%s.%N)
check "add one for 2 s" bx add "$IF_SRV" --timeout 2s "$C_LONG"
check "... and again for 1 h: the later deadline is kept" bx add "$IF_SRV" --timeout 1h "$C_LONG"
st=$(status_json)
next=$(json_num "$st" next_expiry)
check_eq "status: 2 entries with a timeout, the next in 3 s" "2 yes" \
	"$(json_num "$st" timeouts) $(awk -v n="$next" -v a="$added" \
		'BEGIN { print (n - a > 2 && n - a <= 4) ? "yes" : "no" }')" "$st"
check_eq "pings: all listed drop" "$C_KEEP:0 $C_SHORT:0 $C_LONG:0 $C_FREE:3 " "$(verdicts)"
# Due at $next: still dropped just before, passing within a second after.
now=$(date +%s.%N)
sleep "$(awk -v n="$next" -v t="$now" 'BEGIN { d = n - t - 0.6; print (d > 0 ? d : 0) }')"
r=$(ping_recv "$C_SHORT" "$SRV4" 2 0.05)
check_eq "just before its deadline it still drops" 0 "${r#* }"
now=$(date +%s.%N)
sleep "$(awk -v n="$next" -v t="$now" 'BEGIN { d = n - t + 1.0; print (d > 0 ? d : 0) }')"
check_eq "a second after its deadline it passes; the rest still drop" \
	"$C_KEEP:0 $C_SHORT:3 $C_LONG:0 $C_FREE:3 " "$(verdicts)"
check_eq "the daemon says so" 1 "$(grep -c '1 entry expired' "$ERR")"
check_eq "status: 1 entry with a timeout left" 1 "$(json_num "$(status_json)" timeouts)"

# ------------------------------------------------ a mass expiry
mapfile -t mass < <(awk 'BEGIN { for (i = 0; i < 100000; i++) printf "mass-%d.example\n", i }')
# Two adds of 50,000 (one command line holds fewer than 100,000), both deadlines in the same
# second: started just after a second begins.
now=$(date +%s.%N)
sleep "$(awk -v t="$now" 'BEGIN { print int(t) + 1.02 - t }')"
t0=$(date +%s)
check "add 50,000 names for 5 s" bx add "$IF_SRV" --timeout 5s "${mass[@]:0:50000}"
check "... and 50,000 more in the same second" bx add "$IF_SRV" --timeout 5s "${mass[@]:50000}"
t1=$(date +%s)
check_eq "status: 100,001 with a timeout" 100001 "$(json_num "$(status_json)" timeouts)"
check_eq "... they drop" "mass-7.example: blocked
mass-99999.example: blocked" "$(bxq "$IF_SRV" mass-7.example mass-99999.example)"
if [ "$t1" != "$t0" ]; then
	# A loaded machine: the second add ended in the next second, and so may its deadlines:
	# one expiry of 100,000 or two of 50,000.
	diag "the adds took more than their second ($t0 -> $t1)"
	for ((i = 0; i < 400; i++)); do
		n=$(sed -n 's/.* \(50000\|100000\) entries expired, deleted in .*/\1/p' "$ERR" |
			awk '{ s += $1 } END { print s + 0 }')
		[ "$n" -ge 100000 ] && break
		sleep 0.05
	done
	ms=$(sed -n 's/.* \(50000\|100000\) entries expired, deleted in \([0-9]*\) ms.*/\2/p' \
		"$ERR" | sort -n | tail -n 1)
	check_eq "the mass expiry of 100,000 happened (${ms:-no} ms at most)" 100000 "$n" \
		"$(tail -n 5 "$ERR")"
elif wait_log '100000 entries expired' 1 20; then
	ms=$(sed -n 's/.*100000 entries expired, deleted in \([0-9]*\) ms.*/\1/p' "$ERR")
	ok "the mass expiry of 100,000 happened"
	# A figure, not a check: speed is make bench's (a timed check failed on a loaded machine).
	diag "100,000 entries expired in $ms ms"
else
	not_ok "the mass expiry happened" "$(tail -n 5 "$ERR")"
fi
missed=$(bx query "$IF_SRV" "${mass[@]:0:2000}" 2>&1 | grep -c '(listed')
check_eq "no expired name is listed any more (2000 queried)" 0 "$missed"
mapfile -t kept < <(grep -v '^192' "$LIST")
missed=$(bx query "$IF_SRV" "${kept[@]}" 2>&1 | grep -c ': not blocked')
check_eq "every loaded name still drops: 0 false negatives in 2000" 0 "$missed"
check_eq "pings: the rest still drop" "$C_KEEP:0 $C_SHORT:3 $C_LONG:0 $C_FREE:3 " "$(verdicts)"

kill -TERM "$DPID"
wait_pid "$DPID" 10
bg_forget "$DPID"

# ------------------------------------------------ restore skips what expired meanwhile
check "add one for 1 s, the daemon stopped" bx add "$IF_SRV" --timeout 1s "$C_SHORT"
ip -n "$NS_SRV" link set dev "$IF_SRV" xdp off 2>/dev/null
rm -rf -- "$PIN_DIR"
for ((i = 0; i < 60; i++)); do
	[ -z "$(xdp_on_if)" ] && break
	sleep 0.05
done
sleep 2
check "restore after its deadline" bx restore "$IF_SRV"
check_eq "pings: the expired one passes, the rest still drop" \
	"$C_KEEP:0 $C_SHORT:3 $C_LONG:0 $C_FREE:3 " "$(verdicts)"
check_eq "status: only the one-hour timeout left" 1 "$(json_num "$(status_json)" timeouts)"

# A load replaces the list, but entries with a deadline to come (bans) stay, until then.
check_fails "a load keeps the entry added with a 1 h timeout" 0 \
	"kept 1 entry added with --timeout" bx load "$IF_SRV" "$LIST"
check_eq "pings: it still drops after the load" "$C_KEEP:0 $C_SHORT:3 $C_LONG:0 $C_FREE:3 " \
	"$(verdicts)"
check_eq "status: its timeout kept" 1 "$(json_num "$(status_json)" timeouts)"
check "del of it" bx del "$IF_SRV" "$C_LONG"
check_eq "status: no timeout left (a deleted entry has none)" 0 \
	"$(json_num "$(status_json)" timeouts)"
check "load again" bx load "$IF_SRV" "$LIST"
check_eq "pings: the deleted one is not brought back by the load" \
	"$C_KEEP:0 $C_SHORT:3 $C_LONG:3 $C_FREE:3 " "$(verdicts)"

tap_finish
