#!/usr/bin/env bash
# The daemon's CrowdSec bouncer against a real Local API: Debian's crowdsec,
# run by the test as 'crowdsec -no-cs' (the LAPI alone) in the server's
# network namespace, with a configuration, database and key of the test's
# own. Decisions made with cscli (an address for 1 minute, a range, an IPv6
# address, one of a few seconds, a captcha) are enforced by XDP within a few
# seconds; 'cscli decisions delete' lets the address pass again; the short
# one expires on its own while the LAPI is down, the others stay enforced and
# the outage is logged once; back up, the LAPI's set is resynced; a daemon
# started again lifts what was deleted while it was stopped. Speaks TAP;
# needs root, crowdsec, cscli; about 50 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "crowdsec tests" crowdsec cscli curl python3
e2e_install_trap

BANNED=192.0.2.120	# an Ip decision for 1 minute, then deleted
SHORT=192.0.2.121	# an Ip decision for 25 s
OTHER=192.0.2.122	# a captcha decision: not a ban, ignored
IN_RANGE=192.0.2.130	# under a Range decision, 192.0.2.128/26
LISTED=192.0.2.123	# in the daemon's own list file too
BANNED6=2001:db8:b10::66	# an IPv6 Ip decision, deleted while the LAPI is down
if ! topo_up "$BANNED" "$SHORT" "$OTHER" "$IN_RANGE" "$LISTED" "$BANNED6"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

CS=$E2E_TMP/crowdsec
CS_CONF=$CS/config.yaml
# The LAPI listens in the server's namespace: the port is the test's own.
LAPI_PORT=18080
METRICS_PORT=9727
CONF=$E2E_TMP/$IF_SRV.conf
ERR=$E2E_TMP/daemon.err
mkdir -p "$CS/data"

# Debian's configuration with the test's paths and port, and without online_client
# (the Central API): the LAPI runs offline.
python3 - "$CS" "$LAPI_PORT" <<'EOF' || exit 1
import re, sys
d, port = sys.argv[1], sys.argv[2]
s = open('/etc/crowdsec/config.yaml').read()
s = re.sub(r'\n    online_client:[^\n]*\n(      [^\n]*\n)*', '\n', s)
for a, b in (('daemonize: true', 'daemonize: false'), ('log_media: file', 'log_media: stdout'),
             ('log_dir: /var/log/', 'log_dir: %s/' % d),
             ('data_dir: /var/lib/crowdsec/data/', 'data_dir: %s/data/' % d),
             ('db_path: /var/lib/crowdsec/data/crowdsec.db', 'db_path: %s/data/crowdsec.db' % d),
             ('listen_uri: 127.0.0.1:8080', 'listen_uri: 127.0.0.1:%s' % port),
             ('/etc/crowdsec/local_api_credentials.yaml', '%s/lapi.yaml' % d)):
    if a not in s:
        sys.exit('crowdsec config.yaml: no "%s"' % a)
    s = s.replace(a, b)
s = re.sub(r'prometheus:\n  enabled: true', 'prometheus:\n  enabled: false', s)
open(d + '/config.yaml', 'w').write(s)
EOF

cscli_() { timeout 30 nsenter --net="/run/netns/$NS_SRV" -- cscli -c "$CS_CONF" "$@"; }

lapi_start() {
	bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- \
		crowdsec -c "$CS_CONF" -no-cs >>"$CS/lapi.log" 2>&1
	LAPI_PID=$BG_PID
	wait_log "CrowdSec Local API listening" "$1" 20 "$CS/lapi.log"
}

if ! lapi_start 1; then
	skip "crowdsec's Local API" "crowdsec -no-cs did not start: $(tail -3 "$CS/lapi.log" |
		tr '\n' ' ')"
	tap_finish
	exit 0
fi
ok "crowdsec -no-cs: the LAPI listens on 127.0.0.1:$LAPI_PORT (offline, own database)"
check "cscli machines add (the decisions' author)" cscli_ machines add "bx-$E2E_ID" --auto \
	-f "$CS/lapi.yaml" --url "http://127.0.0.1:$LAPI_PORT/"
KEY=$(cscli_ bouncers add "bx-$E2E_ID" -o raw 2>"$CS/bouncer.err")
check_eq "cscli bouncers add gives a key" 1 "$(grep -cE '^[A-Za-z0-9]{16,}$' <<<"$KEY")" \
	"$(cat "$CS/bouncer.err")"
(umask 077 && printf '%s\n' "$KEY" >"$CS/key")

printf '%s\n' "$LISTED" >"$E2E_TMP/list.txt"
crowdsec_conf "$CONF" "http://127.0.0.1:$LAPI_PORT/" "$CS/key"
check "check-config reads [crowdsec]" "$BLOOMXDP" check-config "$CONF"
chmod 644 "$CS/key"
check_fails "check-config refuses a key file others can read" 1 "chmod 600" \
	"$BLOOMXDP" check-config "$CONF"
chmod 600 "$CS/key"

bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	--config "$CONF" >"$E2E_TMP/daemon.out" 2>"$ERR"
DAEMON_PID=$BG_PID
connected=0
wait_log "crowdsec: connected to" 1 15 && connected=1
check_eq "the daemon attaches, loads its list and connects to the LAPI" 1 "$connected" \
	"$(tail -5 "$ERR")"

# received SRC...: how many of 3 pings from each SRC got a reply. The clients
# ping at once: a round takes ping's 2 s wait for a dropped reply, however many
# of them are dropped (one after the other, 5 dropped took 5 s a round).
received() {
	local src out=()
	ping_many 3 0.02 "$@"
	for src in "$@"; do
		out+=("${PING_RX[$src]}")
	done
	echo "${out[*]}"
}
# until_received WANT SECONDS SRC...: polls until 'received SRC...' is WANT; prints the last.
until_received() {
	local want=$1 secs=$2 got start=$SECONDS
	shift 2
	while :; do
		got=$(received "$@")
		[ "$got" = "$want" ] || [ $((SECONDS - start)) -ge "$secs" ] && break
		sleep 0.2
	done
	echo "$got"
}
ALL=("$BANNED" "$SHORT" "$OTHER" "$IN_RANGE" "$LISTED" "$BANNED6")
check_eq "before: every client passes but the one the list file names" "3 3 3 3 0 3" \
	"$(received "${ALL[@]}")"

check "cscli decisions add -i $BANNED -d 1m" cscli_ decisions add -i "$BANNED" -d 1m
check "cscli decisions add --range 192.0.2.128/26 -d 5m" cscli_ decisions add \
	--range 192.0.2.128/26 -d 5m
check "cscli decisions add -i $BANNED6 -d 1m" cscli_ decisions add -i "$BANNED6" -d 1m
check "cscli decisions add -i $SHORT -d 25s" cscli_ decisions add -i "$SHORT" -d 25s
check "cscli decisions add -i $OTHER -t captcha -d 1m" cscli_ decisions add -i "$OTHER" \
	-t captcha -d 1m
T0=$SECONDS
# The bouncer pulls every second; polled for 10 s, rounds of about 2 s.
check_eq "the bans are dropped by XDP; the captcha is not a ban" "0 0 3 0 0 0" \
	"$(until_received "0 0 3 0 0 0" 10 "${ALL[@]}")" "$(grep crowdsec "$ERR" | tail -5)"
diag "$((SECONDS - T0)) s after the last 'cscli decisions add', a round of pings included"
check_eq "... query names the banned address and range" \
	"$BANNED: blocked $IN_RANGE: blocked" \
	"$(bxq "$IF_SRV" "$BANNED" "$IN_RANGE" | sed 's/ (listed [^)]*)//' | tr '\n' ' ' |
		sed 's/ $//')"

metric() {
	in_srv curl -s -m 3 "http://127.0.0.1:$METRICS_PORT/metrics" |
		sed -n "s/^bloomxdp_crowdsec_$1{ifname=\"$IF_SRV\"${2:-}} //p"
}
check_eq "metrics: 4 decisions applied, the captcha ignored as a type, the bouncer up" \
	"4 1 1" "$(metric decisions_applied_total) $(metric decisions_ignored_total \
	',reason="type"') $(metric up)"

if command -v promtool >/dev/null; then
	out=$(in_srv curl -s -m 3 "http://127.0.0.1:$METRICS_PORT/metrics" | promtool check metrics 2>&1)
	check_eq "promtool check metrics: the daemon's metrics with the bouncer's pass" "0:" \
		"$?:$out"
fi

check "cscli decisions delete -i $BANNED" cscli_ decisions delete -i "$BANNED"
lifted=0
wait_log "crowdsec: .*[-]$BANNED" 1 5 && lifted=1
check_eq "within 5 s of the delete the bouncer lifts the ban" 1 "$lifted" \
	"$(grep crowdsec "$ERR" | tail -3)"
check_eq "... and the address passes again, the others stay dropped" "3 0 3 0 0 0" \
	"$(received "${ALL[@]}")"

# The LAPI down: what is held stays enforced; the short ban expires on its own.
stop_pid "$LAPI_PID"
bg_forget "$LAPI_PID"
down=0
wait_log "crowdsec: pulling decisions from .* failed|crowdsec: pulling decisions from" 1 10 &&
	down=1
check_eq "the LAPI stopped: the daemon says so" 1 "$down" "$(tail -3 "$ERR")"
check_eq "the short ban expires on its own (its timeout) while the LAPI is down;" \
	"3 3 3 0 0 0" "$(until_received "3 3 3 0 0 0" 20 "${ALL[@]}")"
check_eq "... the outage is logged once, not per retry" 1 \
	"$(grep -c "crowdsec: pulling decisions from" "$ERR")"

# Back up: the LAPI's set is read whole (resync), the delete made since is enforced.
if lapi_start 2; then
	check "cscli decisions delete -i $BANNED6 (right after the LAPI is back)" \
		cscli_ decisions delete -i "$BANNED6"
	back=0
	wait_log "crowdsec: in touch again" 1 70 && back=1
	check_eq "the daemon is in touch again with the LAPI" 1 "$back" "$(tail -3 "$ERR")"
	check_eq "the resync lifts the IPv6 ban; the range stays dropped" "3 3 3 0 0 3" \
		"$(until_received "3 3 3 0 0 3" 5 "${ALL[@]}")" "$(grep crowdsec "$ERR" | tail -4)"
	check_eq "metrics: the bouncer is up, its pulls are counted" "1 yes" \
		"$(metric up) $([ "$(metric pulls_total)" -gt 2 ] && echo yes)"
else
	not_ok "crowdsec -no-cs starts again" "$(tail -3 "$CS/lapi.log")"
fi

# A delete of a decision on an address that another source lists: the list
# file's entry stays (the bouncer's entries are the named list 'crowdsec').
cscli_ decisions add -i "$LISTED" -d 1m >/dev/null 2>&1
wait_log "crowdsec: .*[+]$LISTED" 1 5
cscli_ decisions delete -i "$LISTED" >/dev/null 2>&1
lifted=0
wait_log "crowdsec: .*[-]$LISTED" 1 5 && lifted=1
check_eq "the bouncer bans and lifts an address the list file names too" 1 "$lifted"
check_eq "a decision deleted on an address the list file names: still dropped" 0 \
	"$(received "$LISTED")"

kill -TERM "$DAEMON_PID" 2>/dev/null
wait_pid "$DAEMON_PID" 10
check_eq "SIGTERM: the daemon exits 0" 0 "$?" "$(tail -3 "$ERR")"
bg_forget "$DAEMON_PID"

# Started again: the bans of the run before are checked at its first pull.
check "cscli decisions delete --range 192.0.2.128/26 (the daemon stopped)" \
	cscli_ decisions delete --range 192.0.2.128/26
check_eq "... the range stays dropped while no daemon runs" 0 "$(received "$IN_RANGE")"
bg_start timeout 60 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	--config "$CONF" >>"$E2E_TMP/daemon.out" 2>>"$ERR"
DAEMON_PID=$BG_PID
lifted=0
wait_log "crowdsec: resync: .*[-]192.0.2.128/26" 1 15 && lifted=1
check_eq "the daemon started again lifts the range deleted while it was stopped" 1 \
	"$lifted" "$(grep crowdsec "$ERR" | tail -4)"
check_eq "... and the range's client passes" 3 "$(received "$IN_RANGE")"
kill -TERM "$DAEMON_PID" 2>/dev/null
wait_pid "$DAEMON_PID" 10
check_eq "SIGTERM: the daemon exits 0" 0 "$?" "$(tail -3 "$ERR")"
bg_forget "$DAEMON_PID"
check "detach" bx detach "$IF_SRV"

tap_finish
