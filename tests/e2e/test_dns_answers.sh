#!/usr/bin/env bash
# End-to-end test of DNS answers (--match dns-answers, issue 25) with a real resolver and client:
# dnsmasq in the server namespace (cname=, host-record=, dns-rr= lines, short TTLs), dig in the
# client one, bloomxdp attached to the client's end $IF_CLI, where the responses arrive. Checks
# CNAME cloaking, listed A/AAAA addresses, DNAME and HTTPS targets and questions in answers, over
# UDP (IPv4, IPv6: dropped, or rewritten NXDOMAIN with lengths and checksums right, captured after
# XDP) and TCP (dropped), a monitor list, 17 records (one past the bound: answered, unparsed), the
# events (watch --json), learned addresses (load --learn: the question's or a CNAME target's,
# unreachable over TCP and UDP after the answer, 'query', 'status' and 'del', reachable again
# after the TTL held to 30 s), --doh-canary on responses and queries, and HTTPS/SVCB queries
# blocked by --match dns on $IF_SRV.
# Speaks TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts it.
#
# Needs root, dnsmasq, dig and python3 (tests/install-deps.sh). Runs in about 45 s, most of it
# the wait for the learned addresses to expire. Touches nothing but its own namespaces, veths,
# pins, temporary directory and server processes (all named after E2E_ID), and removes them on any
# exit. Traffic only between the two namespaces, to and from documentation addresses.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "end-to-end DNS answers tests" dnsmasq dig python3
T0=$SECONDS

CLI4=192.0.2.2
CLI6=2001:db8:b10::2
# Addresses the learning list's names resolve to: on the server's end, an echo on ECHO_PORT.
LEARN4=192.0.2.80
LEARN6=2001:db8:b10::80
GONE4=192.0.2.81
ALIAS4=192.0.2.82
ALLOW4=192.0.2.83
ECHO_PORT=7007
# In the answers: a listed address of each family, the unlisted ones the names resolve to.
BAD4=198.51.100.66
BAD6=2001:db8:bad::66
TRACKER4=198.51.100.77
GOOD4=198.51.100.10
MON4=198.51.100.20
# many.publisher.test: 17 A records, one more than the program reads.
MANY=(198.51.100.{101..117})
CANARY4=192.0.2.99
PIN_CLI=$PIN_ROOT/$IF_CLI
ECHO=$E2E_ROOT/tests/e2e/echo_tools.py

# bloomxdp on the client's end (lib.sh's bx works on $IF_SRV, in the server's namespace).
bxc() { timeout 30 nsenter --net="/run/netns/$NS_CLI" -- "$BLOOMXDP" "$@"; }
cli_stats() { bxc stats "$IF_CLI" --json 2>&1; }
# The client's attachment goes first, while its interface is there; then lib.sh's cleanup.
cleanup() {
	if [ -d "$PIN_CLI" ]; then
		timeout 30 "$BLOOMXDP" detach "$IF_CLI" >/dev/null 2>&1 ||
			echo "# cleanup: 'bloomxdp detach $IF_CLI' failed" >&2
	fi
	e2e_cleanup
}
e2e_install_trap
trap cleanup EXIT

if ! topo_up "$CLI4" "$CLI6"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
# The echo's addresses on the server's end, with permanent neighbour entries as topo_up's.
topo_more() {
	local a mac_srv
	mac_srv=$(ip -n "$NS_SRV" -br link show dev "$IF_SRV" | awk '{print $3}')
	[ -n "$mac_srv" ] || return 1
	for a in "$LEARN4" "$GONE4" "$ALIAS4" "$ALLOW4" "$LEARN6"; do
		case $a in
		*:*) ip -n "$NS_SRV" addr add "$a/$PREFIX6" dev "$IF_SRV" nodad || return 1 ;;
		*) ip -n "$NS_SRV" addr add "$a/$PREFIX4" dev "$IF_SRV" || return 1 ;;
		esac
		ip -n "$NS_CLI" neigh replace "$a" lladdr "$mac_srv" dev "$IF_CLI" nud permanent ||
			return 1
	done
}
if ! topo_more; then
	not_ok "add the echo's addresses to $IF_SRV"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV"

# ------------------------------------------------------------ servers
# HTTPS records (type 65): priority 1, target metrics.tracker-cdn.test (of svc.publisher.test),
# cdn.goodcdn.test (of ok-svc.publisher.test); a DNAME (39) to tracker-cdn.test.
HTTPS_RDATA=0001076d6574726963730b747261636b65722d63646e047465737400
HTTPS_OK_RDATA=00010363646e07676f6f6463646e047465737400
DNAME_RDATA=0b747261636b65722d63646e047465737400
DNSMASQ_LOG=$E2E_TMP/dnsmasq.log
cat >"$E2E_TMP/dnsmasq.conf" <<EOF
port=53
listen-address=$SRV4
listen-address=$SRV6
bind-interfaces
no-resolv
no-hosts
local=/test/
local=/net/
log-queries
log-facility=$DNSMASQ_LOG
pid-file=
user=root
host-record=metrics.tracker-cdn.test,$TRACKER4,60
cname=stats.publisher.test,metrics.tracker-cdn.test,60
host-record=shop.publisher.test,$BAD4,$BAD6,60
host-record=cdn.goodcdn.test,$GOOD4,60
cname=www.publisher.test,cdn.goodcdn.test,60
dns-rr=svc.publisher.test,65,$HTTPS_RDATA
dns-rr=ok-svc.publisher.test,65,$HTTPS_OK_RDATA
dns-rr=dn.publisher.test,39,$DNAME_RDATA
host-record=x.monitor-cdn.test,$MON4,60
cname=mon.publisher.test,x.monitor-cdn.test,60
host-record=learn.test,$LEARN4,$LEARN6,1
host-record=gone.learn.test,$GONE4,1
host-record=cdn.learn.test,$ALIAS4,1
host-record=ok.learn.test,$ALLOW4,1
cname=alias.publisher.test,cdn.learn.test,60
host-record=use-application-dns.net,$CANARY4,60
EOF
printf 'host-record=many.publisher.test,%s,60\n' "${MANY[@]}" >>"$E2E_TMP/dnsmasq.conf"
bg_start timeout 300 nsenter --net="/run/netns/$NS_SRV" -- \
	dnsmasq --keep-in-foreground --conf-file="$E2E_TMP/dnsmasq.conf" 2>"$E2E_TMP/dnsmasq.err"
DNSMASQ_PID=$BG_PID
bg_start timeout 300 nsenter --net="/run/netns/$NS_SRV" -- \
	python3 "$ECHO" serve "$ECHO_PORT" "$LEARN4" "$GONE4" "$ALIAS4" "$ALLOW4" "$LEARN6"
ECHO_PID=$BG_PID
if wait_listen udp 53 && wait_listen tcp 53 && wait_listen tcp "$ECHO_PORT"; then
	ok "dnsmasq (pid $DNSMASQ_PID) and the echo (pid $ECHO_PID) listen in $NS_SRV"
else
	not_ok "dnsmasq and the echo listen in $NS_SRV" "$(cat "$E2E_TMP/dnsmasq.err" 2>&1)" \
		"$(in_srv ss -tuln 2>&1)"
	tap_finish
	exit 1
fi

# ------------------------------------------------------------ helpers
# dig_start KEY NAME [-6] [DIG OPTIONS...]: one query from the client (over IPv6 with -6), one
# try of two seconds, in the background; output in DIG[KEY] (a file).
declare -A DIG
dig_n=0
dig_start() {
	local key=$1 name=$2 srv=$SRV4 cli=$CLI4
	shift 2
	dig_n=$((dig_n + 1))
	DIG[$key]=$E2E_TMP/dig.$dig_n
	if [ "${1:-}" = -6 ]; then
		srv=$SRV6 cli=$CLI6
		shift
	fi
	job_start "${DIG[$key]}" timeout 20 nsenter --net="/run/netns/$NS_CLI" -- \
		env HOME="$E2E_TMP" dig @"$srv" -b "$cli" +tries=1 +time=2 +nocookie "$@" "$name"
}
# dig_result KEY: "STATUS RECORDS", RECORDS the answer section's "TYPE=DATA" comma-separated
# (or "-"), e.g. "NOERROR CNAME=metrics.tracker-cdn.test.,A=198.51.100.77"; or "timeout".
dig_result() {
	local f=${DIG[$1]} st ans
	st=$(sed -n 's/.*->>HEADER<<-.* status: \([A-Z]*\),.*/\1/p' "$f" | head -n 1)
	if [ -z "$st" ]; then
		if grep -q 'timed out' "$f"; then echo timeout; else echo "error: $(tail -n 1 "$f")"; fi
		return
	fi
	ans=$(awk '/^;; ANSWER SECTION:/ { a = 1; next } a && /^$/ { a = 0 }
		a { d = $5; for (i = 6; i <= NF; i++) d = d " " $i; print $4 "=" d }' "$f" | paste -sd, -)
	echo "$st ${ans:--}"
}
# reach_start KEY ADDRESS: the echo probed from the client in the background; reach KEY:
# "tcp=ok udp=ok" (or fail).
declare -A REACH
reach_start() {
	REACH[$1]=$E2E_TMP/reach.$1
	job_start "${REACH[$1]}" timeout 20 nsenter --net="/run/netns/$NS_CLI" -- \
		python3 "$ECHO" probe "$2" "$ECHO_PORT"
}
reach() { cat "${REACH[$1]}"; }
# Kills (RST) the client's TCP sockets to the resolver: a dropped response would be sent again
# into the later checks.
cli_kill_dns_tcp() { in_cli ss -K -t state all '( dport = :53 )' >/dev/null 2>&1; }
# dnsmasq_seen TYPE NAME: the number of TYPE queries for NAME (any case) dnsmasq logged.
dnsmasq_seen() { grep -ci "query\[$1\] $2 from" "$DNSMASQ_LOG"; }

# ------------------------------------------------------------ without bloomxdp
dig_start stats stats.publisher.test
dig_start shop shop.publisher.test
dig_start canary use-application-dns.net
dig_start svc svc.publisher.test HTTPS
reach_start learn "$LEARN4"
jobs_wait
check_eq "before attach: stats.publisher.test is a CNAME to the tracker, answered" \
	"NOERROR CNAME=metrics.tracker-cdn.test.,A=$TRACKER4" "$(dig_result stats)" \
	"$(cat "${DIG[stats]}")"
check_eq "before attach: shop.publisher.test answered" "NOERROR A=$BAD4" "$(dig_result shop)"
check_eq "before attach: use-application-dns.net answered" "NOERROR A=$CANARY4" \
	"$(dig_result canary)"
check_eq "before attach: svc.publisher.test HTTPS answered (target metrics.tracker-cdn.test)" \
	"NOERROR HTTPS=1 metrics.tracker-cdn.test." "$(dig_result svc)" "$(cat "${DIG[svc]}")"
check_eq "before attach: $LEARN4 echoes over TCP and UDP" "tcp=ok udp=ok" "$(reach learn)"

LIST=$E2E_TMP/list.txt
printf '%s\n' tracker-cdn.test "$BAD4" "$BAD6" >"$LIST"
LEARN_LIST=$E2E_TMP/learn.txt
echo learn.test >"$LEARN_LIST"
MON_LIST=$E2E_TMP/monitor.txt
echo monitor-cdn.test >"$MON_LIST"
ALLOW_LIST=$E2E_TMP/allow.txt
echo "$ALLOW4" >"$ALLOW_LIST"

# ------------------------------------------------------------ drop (no --dns-reply)
check "attach $IF_CLI --match dns-answers" \
	bxc attach "$IF_CLI" --mode native --capacity 1000 --match dns-answers
check "load tracker-cdn.test, $BAD4, $BAD6" bxc load "$IF_CLI" "$LIST"
check "load --list mon --action monitor monitor-cdn.test" \
	bxc load "$IF_CLI" "$MON_LIST" --list mon --action monitor
before=$(cli_stats)
dig_start stats stats.publisher.test
dig_start shop shop.publisher.test
dig_start shop6 shop.publisher.test AAAA
dig_start www www.publisher.test
dig_start mon mon.publisher.test
dig_start tcp stats.publisher.test +tcp
dig_start tcpwww www.publisher.test +tcp
jobs_wait
cli_kill_dns_tcp
after=$(cli_stats)
check_eq "drop: stats.publisher.test (CNAME to a listed name): no answer" timeout \
	"$(dig_result stats)" "$(cat "${DIG[stats]}")"
check_eq "drop: shop.publisher.test (A, a listed address): no answer" timeout "$(dig_result shop)"
check_eq "drop: shop.publisher.test AAAA (a listed address): no answer" timeout \
	"$(dig_result shop6)"
check_eq "drop: www.publisher.test (CNAME to an unlisted name): answered" \
	"NOERROR CNAME=cdn.goodcdn.test.,A=$GOOD4" "$(dig_result www)"
check_eq "monitor: mon.publisher.test (CNAME to a monitored name): answered" \
	"NOERROR CNAME=x.monitor-cdn.test.,A=$MON4" "$(dig_result mon)"
check_eq "drop: dig +tcp stats.publisher.test: no answer" timeout "$(dig_result tcp)" \
	"$(cat "${DIG[tcp]}")"
check_eq "drop: dig +tcp www.publisher.test: answered" \
	"NOERROR CNAME=cdn.goodcdn.test.,A=$GOOD4" "$(dig_result tcpwww)"
# The queries went through: the responses were dropped.
check_eq "drop: dnsmasq got the queries of the blocked answers (before attach, now, +tcp)" \
	"3 2 1" "$(dnsmasq_seen A stats.publisher.test) $(dnsmasq_seen A shop.publisher.test) $(
		dnsmasq_seen AAAA shop.publisher.test)"
read -r ck hits drop wd rew unp <<<"$(deltas "$before" "$after" checked_dns_answers \
	hits_dns_answers dropped would_drop dns_answers_rewritten unparsed_dns_answers)"
# UDP: 3 blocked, 1 monitored, 1 passed; TCP: 1 blocked (2 or more with retransmissions), 1
# passed.
if [ "$ck" -ge 7 ] && [ "$hits" -ge 5 ] && [ "$((ck - hits))" = 2 ] && [ "$wd" = 1 ] &&
	[ "$((drop + wd))" = "$hits" ] && [ "$rew" = 0 ] && [ "$unp" = 0 ]; then
	ok "drop: stats checked_dns_answers +$ck, hits_dns_answers +$hits = dropped + would_drop 1"
else
	not_ok "drop: stats hits_dns_answers (>= 5) = dropped + would_drop (1), 2 passed" \
		"checked +$ck hits +$hits dropped +$drop would_drop +$wd rewritten +$rew unparsed +$unp" \
		"before: $before" "after:  $after"
fi
check "detach $IF_CLI" bxc detach "$IF_CLI"
if ms=$(wait_no_xdp "$NS_CLI" "$IF_CLI" 3); then
	ok "the XDP program left $IF_CLI ${ms} ms after detach returned"
else
	not_ok "the XDP program left $IF_CLI within 3 s of detach"
fi

# ------------------------------------------------------------ nxdomain, learning, canary
check "attach $IF_CLI --match dns-answers --dns-reply nxdomain --doh-canary" \
	bxc attach "$IF_CLI" --mode native --capacity 1000 --match dns-answers \
	--dns-reply nxdomain --doh-canary
check "load tracker-cdn.test, $BAD4, $BAD6" bxc load "$IF_CLI" "$LIST"
check "load --list learning --learn --action drop learn.test" \
	bxc load "$IF_CLI" "$LEARN_LIST" --list learning --learn --action drop
check "load --allow $ALLOW4" bxc load "$IF_CLI" "$ALLOW_LIST" --allow
WATCH=$E2E_TMP/watch.json
bg_start timeout 80 nsenter --net="/run/netns/$NS_CLI" -- "$BLOOMXDP" watch "$IF_CLI" --json \
	>"$WATCH" 2>"$E2E_TMP/watch.err"
WATCH_PID=$BG_PID
sleep 0.5

# Learning: the answers pass, their addresses are learned.
before=$(cli_stats)
dig_start learn learn.test
dig_start learn6 learn.test AAAA
dig_start gone gone.learn.test
dig_start alias alias.publisher.test
dig_start allow ok.learn.test
jobs_wait
T_LEARN=$SECONDS
after=$(cli_stats)
check_eq "learn: dig learn.test answered (a learning list blocks no DNS)" "NOERROR A=$LEARN4" \
	"$(dig_result learn)" "$(cat "${DIG[learn]}")"
check_eq "learn: dig learn.test AAAA and gone.learn.test answered" \
	"NOERROR AAAA=$LEARN6 NOERROR A=$GONE4" "$(dig_result learn6) $(dig_result gone)"
check_eq "learn: alias.publisher.test (CNAME to cdn.learn.test) answered" \
	"NOERROR CNAME=cdn.learn.test.,A=$ALIAS4" "$(dig_result alias)"
check_eq "learn: ok.learn.test (an allowed address) answered" "NOERROR A=$ALLOW4" \
	"$(dig_result allow)"
check_eq "learn: stats learned +5, hits_dns_answers +0" "5 0" \
	"$(deltas "$before" "$after" learned hits_dns_answers)" "before: $before" "after:  $after"
st=$(bxc status "$IF_CLI" --json 2>&1)
check_eq "learn: status --json learned 5" 5 "$(json_num "$st" learned)" "$st"
reach_start learn "$LEARN4"
reach_start learn6 "$LEARN6"
reach_start gone "$GONE4"
reach_start alias "$ALIAS4"
reach_start allow "$ALLOW4"
jobs_wait
check_eq "learn: $ALLOW4, learned but allowed, reachable (TCP, UDP)" "tcp=ok udp=ok" \
	"$(reach allow)"
check_eq "learn: $LEARN4, $LEARN6, $GONE4, $ALIAS4 unreachable (TCP, UDP)" \
	"tcp=fail udp=fail tcp=fail udp=fail tcp=fail udp=fail tcp=fail udp=fail" \
	"$(reach learn) $(reach learn6) $(reach gone) $(reach alias)"
st=$(cli_stats)
h=$(delta "$after" "$st" hits_learned)
a=$(delta "$after" "$st" allowed)
if [ "${h:-0}" -ge 8 ] 2>/dev/null && [ "${a:-0}" -ge 2 ] 2>/dev/null; then
	ok "learn: stats hits_learned +$h (at least one per blocked probe), allowed +$a"
else
	not_ok "learn: stats hits_learned +8 at least, allowed +2 at least" \
		"hits_learned +$h allowed +$a" "$st"
fi
out=$(bxc query "$IF_CLI" "$LEARN4" "$LEARN6" 2>&1)
re="^$LEARN4: blocked \(learned from the answer for learn\.test at [^,]*, expires at [^;]*; "
if grep -qE "${re}list learning\)$" <<<"$out" &&
	grep -qE "^$LEARN6: blocked \(learned from the answer for learn\.test at " <<<"$out"; then
	ok "learn: query $LEARN4 $LEARN6 says learned from the answer for learn.test, list learning"
else
	not_ok "learn: query says learned from the answer for learn.test" "$out"
fi
out=$(bxc query "$IF_CLI" "$GONE4" --json 2>&1)
check_eq "learn: query --json $GONE4: list learning, name gone.learn.test, ttl 30 (1 held to 30)" \
	"learning gone.learn.test 30" "$(json_str "$out" list) $(json_str "$out" name) $(
		json_num "$out" ttl)" "$out"
out=$(bxc query "$IF_CLI" "$ALIAS4" --json 2>&1)
check_eq "learn: query --json $ALIAS4 (after a CNAME): learned from alias.publisher.test" \
	"learning alias.publisher.test" "$(json_str "$out" list) $(json_str "$out" name)" "$out"
check "learn: del $GONE4 deletes the learned entry" bxc del "$IF_CLI" "$GONE4"
out=$(bxc query "$IF_CLI" "$GONE4" 2>&1)
check_eq "learn: query $GONE4 after del: not blocked" "$GONE4: not blocked" "$out"
reach_start gone "$GONE4"
jobs_wait
check_eq "learn: $GONE4 reachable at once after del" "tcp=ok udp=ok" "$(reach gone)"

# Answers with a listed record: rewritten NXDOMAIN. The canary too. What arrives is captured
# after XDP: the rewritten responses' lengths and checksums. (Only theirs: veth hands on the
# server's datagrams with the UDP checksum left to offload, a partial sum the program replaces.)
SUMS=$E2E_TMP/sums
bg_start timeout 20 nsenter --net="/run/netns/$NS_CLI" -- python3 "$ECHO" sums "$IF_CLI" 5 \
	>"$SUMS" 2>&1
SUMS_PID=$BG_PID
wait_log capturing 1 5 "$SUMS"
before=$(cli_stats)
dig_start stats6 stats.publisher.test -6
dig_start www6 www.publisher.test -6
dig_start stats stats.publisher.test
dig_start shop shop.publisher.test
dig_start shop6 shop.publisher.test AAAA
dig_start tracker metrics.tracker-cdn.test
dig_start svc svc.publisher.test HTTPS
dig_start oksvc ok-svc.publisher.test HTTPS
dig_start dname dn.publisher.test DNAME
dig_start many many.publisher.test
dig_start www www.publisher.test
dig_start canary use-application-dns.net
dig_start canary6 USE-Application-DNS.net AAAA
dig_start tcp stats.publisher.test +tcp
dig_start tcpwww www.publisher.test +tcp
jobs_wait
cli_kill_dns_tcp
after=$(cli_stats)
bad=
for k in stats stats6 shop shop6 tracker svc dname canary canary6; do
	r=$(dig_result "$k")
	[ "$r" = "NXDOMAIN -" ] || bad+="
$k: $r"
done
check_eq "nxdomain: listed CNAME, DNAME, HTTPS target, A, AAAA, question, canary: NXDOMAIN" \
	"" "$bad"
f=${DIG[stats]}
if grep -q 'flags: qr rd ra;' "$f" && grep -q 'ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0' "$f" &&
	grep -q '^;stats\.publisher\.test\.[[:space:]]*IN[[:space:]]*A$' "$f" &&
	! grep -qi 'warning' "$f"; then
	ok "nxdomain: the rewritten response keeps the question, flags qr rd ra, no record"
else
	not_ok "nxdomain: the rewritten response keeps the question, flags qr rd ra, no record" \
		"$(cat "$f")"
fi
check_eq "nxdomain: www.publisher.test (unlisted target) answered (IPv4, IPv6)" \
	"NOERROR CNAME=cdn.goodcdn.test.,A=$GOOD4 NOERROR CNAME=cdn.goodcdn.test.,A=$GOOD4" \
	"$(dig_result www) $(dig_result www6)"
check_eq "nxdomain: ok-svc.publisher.test HTTPS (unlisted target) answered" \
	"NOERROR HTTPS=1 cdn.goodcdn.test." "$(dig_result oksvc)"
r=$(dig_result many)
check_eq "nxdomain: many.publisher.test (17 unlisted A records) answered whole" \
	"NOERROR 17" "${r%% *} $(tr , '\n' <<<"${r#* }" | grep -c '^A=198\.51\.100\.1[01][0-9]$')" "$r"
check_eq "nxdomain: dig +tcp stats.publisher.test: no answer (TCP is dropped)" timeout \
	"$(dig_result tcp)" "$(cat "${DIG[tcp]}")"
check_eq "nxdomain: dig +tcp www.publisher.test: answered" \
	"NOERROR CNAME=cdn.goodcdn.test.,A=$GOOD4" "$(dig_result tcpwww)"
read -r ck hits rew can unp <<<"$(deltas "$before" "$after" checked_dns_answers \
	hits_dns_answers dns_answers_rewritten doh_canary unparsed_dns_answers)"
# Rewritten: the 7 listed, the 2 canaries. Unparsed: the 17 records.
if [ "$rew" = 9 ] && [ "$can" = 2 ] && [ "$hits" -ge 10 ] && [ "$unp" = 1 ] &&
	[ "$((ck - hits))" -ge 5 ]; then
	ok "nxdomain: stats dns_answers_rewritten +9, doh_canary +2, unparsed_dns_answers +1, $(
		)hits_dns_answers +$hits, checked +$ck"
else
	not_ok "nxdomain: stats dns_answers_rewritten +9, doh_canary +2, unparsed +1, hits >= 10" \
		"checked +$ck hits +$hits rewritten +$rew doh_canary +$can unparsed +$unp" \
		"before: $before" "after:  $after"
fi

wait_pid "$SUMS_PID" 10 >/dev/null
bg_forget "$SUMS_PID"
sums=$(sort "$SUMS" | uniq -c | sed 's/^ *//')
got=$(grep -c '^v4 rcode=3 an=0 ns=0 ar=0 len=ok ip=ok udp=ok$' "$SUMS")/$(
	grep -c '^v6 rcode=3 an=0 ns=0 ar=0 len=ok ip=ok udp=ok$' "$SUMS")
check_eq "nxdomain: the 8 rewritten over IPv4, 1 over IPv6 arrive, lengths and checksums right" \
	8/1 "$got" "$sums"
check_eq "nxdomain: no rewritten response arrives with a length or checksum wrong" "" \
	"$(grep ' rcode=3 ' "$SUMS" | grep -v 'len=ok ip=ok udp=ok$')" "$sums"

# The events of what happened since watch started.
sleep 0.3
stop_pid "$WATCH_PID"
ev() { # FIELD=VALUE...: the number of events with all of them
	python3 - "$WATCH" "$@" <<'EOF'
import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if all(str(e.get(k)) == v for k, v in (a.split('=', 1) for a in sys.argv[2:])):
        n += 1
print(n)
EOF
}
got="CNAME:$(ev field=dns-answer record=CNAME name=metrics.tracker-cdn.test key=name)"
got+=" A:$(ev field=dns-answer record=A answer="$BAD4")"
got+=" AAAA:$(ev field=dns-answer record=AAAA answer="$BAD6")"
got+=" question:$(ev field=dns-answer record=question name=metrics.tracker-cdn.test)"
got+=" HTTPS:$(ev field=dns-answer record=HTTPS name=metrics.tracker-cdn.test)"
got+=" DNAME:$(ev field=dns-answer record=DNAME name=tracker-cdn.test)"
got+=" learned:$(ev key=learned src="$LEARN4")"
got+=" canary:$(ev key=canary)"
re='^CNAME:[1-9][0-9]* A:1 AAAA:1 question:1 HTTPS:1 DNAME:1 learned:[1-9][0-9]* canary:2$'
if [[ $got =~ $re ]]; then
	ok "watch --json: events name the record ($got)"
else
	not_ok "watch --json: events name the record (CNAME, A, AAAA, question, HTTPS, learned, canary)" \
		"$got" "$(head -c 3000 "$WATCH")" "$(cat "$E2E_TMP/watch.err")"
fi

# ------------------------------------------------------------ queries: --match dns on $IF_SRV
# Queries arrive at the server's end: a second attachment there, meanwhile. Its NXDOMAIN answers
# (XDP_TX) reach the client through $IF_CLI's program.
check "attach $IF_SRV --match dns --dns-reply nxdomain --doh-canary" \
	bx attach "$IF_SRV" --mode native --capacity 1000 --match dns --dns-reply nxdomain --doh-canary
check "load tracker-cdn.test on $IF_SRV" bx load "$IF_SRV" "$LIST"
before=$(stats_json)
seen_canary=$(dnsmasq_seen A use-application-dns.net)
seen_ok=$(dnsmasq_seen HTTPS ok-svc.publisher.test)
dig_start q65 metrics.tracker-cdn.test HTTPS
dig_start q64 x.tracker-cdn.test TYPE64
dig_start q65ok ok-svc.publisher.test HTTPS
dig_start qcanary Use-Application-DNS.net
jobs_wait
after=$(stats_json)
check_eq "dns: HTTPS (65) and SVCB (64) queries for listed names: NXDOMAIN" \
	"NXDOMAIN - NXDOMAIN -" "$(dig_result q65) $(dig_result q64)" "$(cat "${DIG[q65]}")"
check_eq "dns: an HTTPS query for an unlisted name answered" \
	"NOERROR HTTPS=1 cdn.goodcdn.test." "$(dig_result q65ok)"
check_eq "dns --doh-canary: a query for Use-Application-DNS.net answered NXDOMAIN" "NXDOMAIN -" \
	"$(dig_result qcanary)" "$(cat "${DIG[qcanary]}")"
# (The unlisted HTTPS query's line shows how dnsmasq logs the type.)
check_eq "dns: dnsmasq got none of the blocked HTTPS/SVCB queries, nor the canary's" "0 0 0 1" \
	"$(dnsmasq_seen HTTPS metrics.tracker-cdn.test) $(dnsmasq_seen SVCB x.tracker-cdn.test) $((
		$(dnsmasq_seen A use-application-dns.net) - seen_canary)) $((
		$(dnsmasq_seen HTTPS ok-svc.publisher.test) - seen_ok))" "$(tail -n 20 "$DNSMASQ_LOG")"
check_eq "dns: stats checked_dns +4, hits_dns +2, dns_replies +3, doh_canary +1" "4 2 3 1" \
	"$(deltas "$before" "$after" checked_dns hits_dns dns_replies doh_canary)" \
	"before: $before" "after:  $after"
check "detach $IF_SRV" bx detach "$IF_SRV"
if ms=$(wait_no_xdp "$NS_SRV" "$IF_SRV" 3); then
	ok "the XDP program left $IF_SRV ${ms} ms after detach returned"
else
	not_ok "the XDP program left $IF_SRV within 3 s of detach"
fi

# ------------------------------------------------------------ responses leaving: tc egress
# The resolver's own responses, on the way out of $IF_SRV: tc cannot rewrite, it drops (before
# $IF_CLI's program would rewrite them).
check "attach $IF_SRV --direction egress --match dns-answers --dns-reply nxdomain" \
	bx attach "$IF_SRV" --capacity 1000 --direction egress --match dns-answers \
	--dns-reply nxdomain
check "load tracker-cdn.test, $BAD4, $BAD6 on $IF_SRV" bx load "$IF_SRV" "$LIST"
# Without the socket guard's counters (an object of their own, "guard": {...}).
egress_stats() { stats_json | sed 's/"guard":{[^}]*},\{0,1\}//'; }
before=$(egress_stats)
dig_start stats stats.publisher.test
dig_start shop6 shop.publisher.test -6 AAAA
dig_start www www.publisher.test
jobs_wait
after=$(egress_stats)
check_eq "tc egress: stats.publisher.test and shop.publisher.test AAAA (IPv6): no answer" \
	"timeout timeout" "$(dig_result stats) $(dig_result shop6)" "$(cat "${DIG[stats]}")"
check_eq "tc egress: www.publisher.test answered" "NOERROR CNAME=cdn.goodcdn.test.,A=$GOOD4" \
	"$(dig_result www)"
check_eq "tc egress: stats checked_dns_answers +3, hits_dns_answers +2, dropped +2, rewritten +0" \
	"3 2 2 0" "$(deltas "$before" "$after" checked_dns_answers hits_dns_answers dropped \
	dns_answers_rewritten)" "before: $before" "after:  $after"
check "detach $IF_SRV (tc)" bx detach "$IF_SRV"

# ------------------------------------------------------------ the TTL
# The learned entries of TTL 1 are held to 30 s: expired 30 s after the answer.
wait_s=$((T_LEARN + 32 - SECONDS))
diag "waiting ${wait_s} s for the learned entries to expire"
[ "$wait_s" -gt 0 ] && sleep "$wait_s"
reach_start learn "$LEARN4"
reach_start learn6 "$LEARN6"
reach_start alias "$ALIAS4"
jobs_wait
check_eq "learn: after the TTL (30 s), $LEARN4, $LEARN6 and $ALIAS4 reachable again" \
	"tcp=ok udp=ok tcp=ok udp=ok tcp=ok udp=ok" "$(reach learn) $(reach learn6) $(reach alias)"
out=$(bxc query "$IF_CLI" "$LEARN4" 2>&1)
check_eq "learn: query $LEARN4 after the TTL: not blocked" "$LEARN4: not blocked" "$out"

# ------------------------------------------------------------ detach, cleanup
out=$(bxc detach "$IF_CLI" 2>&1)
check_eq "detach $IF_CLI" "detached from $IF_CLI" "$out"
ms=$(wait_no_xdp "$NS_CLI" "$IF_CLI" 3)
check_eq "after detach, no XDP program on $IF_CLI (after ${ms} ms) and no pin directory" "" \
	"$(ip -n "$NS_CLI" -d link show dev "$IF_CLI" | grep -o 'prog/xdp.*')$(
		[ -e "$PIN_CLI" ] && echo " pins: $PIN_CLI")"
cleanup
left=$(e2e_leftovers)
[ -e "$PIN_CLI" ] && left+=" pin directory $PIN_CLI"
for pid in $DNSMASQ_PID $ECHO_PID; do
	kill -0 "$pid" 2>/dev/null && left+=" process $pid ($(ps -o args= -p "$pid"))"
done
check_eq "cleanup leaves no namespace, interface, pin, file or server process" "" "$left"
diag "run time: $((SECONDS - T0)) s"

tap_finish
