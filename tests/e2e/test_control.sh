#!/usr/bin/env bash
# The daemon's control socket: $BLOOMXDP_RUN_DIR/IFNAME.sock (a directory of
# the test's own), mode 0600 in a 0700 directory; status and query through it
# say what the CLI says (and the CLI goes through it: with a wrong state
# directory of its own it still says what the daemon's state records); reload
# as SIGHUP, a broken configuration refused; refresh --accept of a feed (a
# real nginx in the server's namespace) applied at once; garbage, unknown
# commands and a 1 MB line get an error and the daemon answers on; a client
# that sends nothing holds neither the loop (metrics and requests answered)
# nor its connection past 2 s; a symbolic link at the socket's name is not
# followed, a dead daemon's socket is replaced, a live one refused; the CLI
# works as before without a daemon. Speaks TAP; needs root; about 20 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "control socket tests" nginx python3 curl
e2e_install_trap

C_FILE=192.0.2.91	# in the local list
C_FEED1=192.0.2.92	# in the feed's first version
C_FEED2=192.0.2.93	# in the feed's second, shrunk version
C_NONE=192.0.2.94	# in no list
C_OTHER=192.0.2.95	# in the list a reload adds
C_TIMED=192.0.2.96	# added with --timeout
if ! topo_up "$C_FILE" "$C_FEED1" "$C_FEED2" "$C_NONE" "$C_OTHER"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

TOOLS=tests/e2e/control_tools.py
# topo_up exported BLOOMXDP_STATE_DIR and BLOOMXDP_RUN_DIR, under E2E_TMP.
NGX=$E2E_TMP/nginx
WWW=$NGX/www
HTTP_PORT=8082
METRICS_PORT=9727
STATE=$E2E_TMP/state
CONF=$E2E_TMP/$IF_SRV.conf
ERR=$E2E_TMP/daemon.err
SOCK=$BLOOMXDP_RUN_DIR/$IF_SRV.sock
mkdir -p "$WWW"
printf '%s\n' "$C_FILE" >"$E2E_TMP/local.txt"
printf '%s\n' "$C_OTHER" >"$E2E_TMP/other.txt"
# write_feed LINE...: the served copy, replaced at once, its mtime (the ETag) new.
write_feed() {
	printf '%s\n' "$@" >"$WWW/feed.txt.tmp"
	touch -d "+$((++FEED_V)) seconds" "$WWW/feed.txt.tmp"
	mv "$WWW/feed.txt.tmp" "$WWW/feed.txt"
}
FEED_V=0
# Version 1: C_FEED1 and nine more; version 2 (one line) shrinks it past 50%.
write_feed "# version 1" "$C_FEED1" 198.51.100.{1..9}
write_conf() {
	cat >"$CONF.tmp" <<EOF
[attach]
capacity = 1000
fpr = 1%
match = src

[list local]
source = $E2E_TMP/local.txt
refresh = 0

[list web]
source = http://127.0.0.1:$HTTP_PORT/feed.txt
format = addr
refresh = 1h
$(printf '%s\n' "$@")

[daemon]
state_dir = $STATE
metrics = 127.0.0.1:$METRICS_PORT
events = json
EOF
	mv "$CONF.tmp" "$CONF"
}
write_conf

nginx_start "$NGX" "'\$status \$request_uri'" <<EOF
	server {
		listen 127.0.0.1:$HTTP_PORT;
		root $WWW;
	}
EOF
check "nginx serves the feed in $NS_SRV" wait_listen tcp "$HTTP_PORT"

received() {
	local src out=()
	for src in "$@"; do
		out+=("$(ping_recv "$src" "$SRV4" 5 0.02 | cut -d' ' -f2)")
	done
	echo "${out[*]}"
}
ctl() { timeout 10 python3 "$TOOLS" send "$SOCK" "$1"; }
start_daemon() {
	: >"$ERR"
	bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
		--config "$CONF" >/dev/null 2>"$ERR"
	DPID=$BG_PID
}
stop_daemon() {
	kill -TERM "$DPID" 2>/dev/null
	wait_pid "$DPID" 10
}
# json_eq A B: the same JSON value (key order and all).
json_eq() {
	python3 -c 'import json,sys; a,b=(json.loads(x) for x in sys.argv[1:3]); sys.exit(a!=b)' \
		"$1" "$2"
}

start_daemon
check "the daemon loads its lists and is ready" wait_log 'ready' 1 15

check_eq "the socket is IFNAME.sock in the run directory, a socket of mode 0600, root's" \
	"socket 600 root" "$(stat -c '%F %a %U' "$SOCK" 2>&1)"
check_eq "... in a directory of mode 0700, root's" "700 root" \
	"$(stat -c '%a %U' "$BLOOMXDP_RUN_DIR" 2>&1)"

# status: the socket's, the CLI's through it, and the CLI's own (--state-dir: no daemon).
REPLY=$(ctl '{"cmd":"status"}')
SOCK_STATUS=$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["status"]))' \
	"$REPLY" 2>&1)
CLI_STATUS=$(bx status "$IF_SRV" --json 2>&1)
OWN_STATUS=$(bx status "$IF_SRV" --json --state-dir "$STATE" 2>&1)
check "status through the socket equals the CLI's own status --json" \
	json_eq "$SOCK_STATUS" "$OWN_STATUS"
check "status --json through the CLI equals it too" json_eq "$CLI_STATUS" "$OWN_STATUS"
check_eq "status (text) through the socket equals the CLI's own" \
	"$(bx status "$IF_SRV" --state-dir "$STATE" 2>&1)" "$(bx status "$IF_SRV" 2>&1)"
check_eq "the CLI asks the daemon: with a wrong state directory of its own, the daemon's state" \
	"current" "$(json_str "$(BLOOMXDP_STATE_DIR=$E2E_TMP/nowhere bx status "$IF_SRV" --json)" \
	state)"

# query: listed and unlisted keys, a timed entry.
bx add "$IF_SRV" "$C_TIMED" --timeout 1h >/dev/null 2>&1
REPLY=$(ctl "{\"cmd\":\"query\",\"keys\":[\"$C_FILE\",\"$C_NONE\"]}")
check_eq "query through the socket: the listed key blocked, the unlisted not" "true false" \
	"$(python3 -c 'import json,sys; print(" ".join(str(v["blocked"]).lower() for v in
json.loads(sys.argv[1])["query"]))' "$REPLY")" "$REPLY"
check_eq "query (text) through the CLI says what the CLI says without the daemon" \
	"$(bx query "$IF_SRV" "$C_FILE" "$C_NONE" "$C_TIMED" --state-dir "$STATE" 2>&1)" \
	"$(bx query "$IF_SRV" "$C_FILE" "$C_NONE" "$C_TIMED" 2>&1)"
check_eq "query --json through the CLI too" \
	"$(bx query "$IF_SRV" "$C_FILE" "$C_TIMED" --json --state-dir "$STATE" 2>&1)" \
	"$(bx query "$IF_SRV" "$C_FILE" "$C_TIMED" --json 2>&1)"
check_eq "... the entry added with --timeout is blocked, in the daemon's view" \
	"$C_TIMED: blocked" \
	"$(BLOOMXDP_STATE_DIR=$E2E_TMP/nowhere bxq "$IF_SRV" "$C_TIMED")"
check_fails "a query of a bad key is refused, with the CLI's own words" 1 "$C_NONE/99|prefix" \
	bx query "$IF_SRV" "$C_NONE/99"

# stats --top: the entries the daemon's drop events hit, counted by it.
received "$C_FILE" "$C_FILE" "$C_NONE" >/dev/null
TOP=$(bx stats "$IF_SRV" --top 3 --json 2>&1)
# A host of a list held exactly (the ranges' stage) is a "range" hit, shown by its address.
check_eq "stats --top --json: the listed source's 10 drops, its list, no error, one entry" \
	"range $C_FILE local 10 0 1 10" "$(python3 -c 'import json,sys; t=json.loads(sys.argv[1])
e=t["entries"][0]; print(e["entry"], e["list"], e["count"], e["error"], len(t["entries"]),
t["events"])' "$TOP" 2>&1)" "$TOP"
check_eq "... saying it is a sample at the events' rate" "True 100 512" \
	"$(python3 -c 'import json,sys; t=json.loads(sys.argv[1])
print(t["sampled"], t["events_per_sec"], t["capacity"])' "$TOP" 2>&1)"
TOP=$(bx stats "$IF_SRV" --top 3 2>&1)
check_eq "stats --top (text): what it covers, that it is a sample, the entry" \
	"over its last 10 drop events|sampled: |count error list entry|10 0 local range $C_FILE" \
	"$(grep -o 'over its last [0-9]* drop events' <<<"$TOP")|$(sed -n 2p <<<"$TOP" |
	cut -c1-9)|$(sed -n '3,$p' <<<"$TOP" | tr -s ' ' | sed 's/^ //' | paste -sd'|')" "$TOP"
check_fails "a request for more than 100 entries is refused" nonzero "from 1 to 100" \
	bx stats "$IF_SRV" --top 101
check "... and through the socket" grep -q '^{"ok":false,"error":"\\"n\\" must be' \
	<<<"$(ctl '{"cmd":"top","n":1000}')"

# reload: as SIGHUP; a broken configuration refused, the running one kept.
write_conf "" "[list other]" "source = $E2E_TMP/other.txt" "refresh = 0"
REPLY=$(ctl '{"cmd":"reload"}')
check "reload through the socket applies the configuration" \
	grep -q '^{"ok":true,"text":"daemon .* applied: 3 sources' <<<"$REPLY"
check_eq "... its new list is enforced" "0 5" "$(received "$C_OTHER" "$C_NONE")" "$(cat "$ERR")"
cp "$CONF" "$CONF.good"
printf '[attach]\nfpr = 2\n' >"$CONF"
REPLY=$(ctl '{"cmd":"reload"}')
check "a broken configuration: refused, saying to fix it" \
	grep -qE '^\{"ok":false,"error":".*refused.*check-config' <<<"$REPLY"
mv "$CONF.good" "$CONF"
check_eq "... and the lists as they were stay enforced" "0 0 5" \
	"$(received "$C_FILE" "$C_OTHER" "$C_NONE")"

# refresh --accept: a copy the guard refuses, accepted through the daemon at once.
write_feed "# version 2" "$C_FEED2"
check_fails "refresh of a shrunk feed (through the daemon's feed cache) is refused by its guard" \
	1 'shr' bx refresh "$IF_SRV" web
check_eq "... the first version stays enforced" "0 5" "$(received "$C_FEED1" "$C_FEED2")"
OUT=$(bx refresh "$IF_SRV" web --accept 2>&1)
check_eq "refresh --accept through the daemon: exit 0" 0 "$?" "$OUT"
check "... it says it was accepted and loaded at once" \
	grep -qE 'accepted.*' <<<"$OUT"
check "... by the daemon" grep -q 'loaded at once' <<<"$OUT"
check_eq "... the accepted version is enforced at once, with the local lists" "5 0 0 0" \
	"$(received "$C_FEED1" "$C_FEED2" "$C_FILE" "$C_OTHER")" "$OUT" "$(tail -n 5 "$ERR")"
check_fails "refresh --accept of a list the daemon reads from a file: refused by it" 1 \
	'local file' bx refresh "$IF_SRV" local --accept

# Bad requests: an error each, and the daemon answers on.
check "garbage gets an error reply" grep -q '^{"ok":false,"error":"the request is not JSON' \
	<<<"$(ctl 'hello {')"
check "an unknown command gets an error reply" grep -q '^{"ok":false,"error":"unknown cmd' \
	<<<"$(ctl '{"cmd":"reboot"}')"
check "a member of the wrong kind gets an error reply" grep -q '^{"ok":false,"error":".*key' \
	<<<"$(ctl '{"cmd":"query","key":7}')"
check "a 1 MB line gets an error reply" grep -q '^{"ok":false,"error":"the request is over 4096' \
	<<<"$(timeout 10 python3 "$TOOLS" big "$SOCK" 1048576)"
check "... and the daemon answers the next request" grep -q '^{"ok":true,"status":{' \
	<<<"$(ctl '{"cmd":"status"}')"

# A client that connects and sends nothing.
timeout 10 python3 "$TOOLS" idle "$SOCK" 5 >"$E2E_TMP/idle.out" &
IDLE=$!
sleep 0.3
T0=$(date +%s%N)
check "while a client sends nothing, a request is answered" grep -q '^{"ok":true' \
	<<<"$(ctl '{"cmd":"query","key":"'"$C_FILE"'"}')"
check_eq "... and the metrics too" 200 "$(in_srv curl -s -o /dev/null -m 3 -w '%{http_code}' \
	"http://127.0.0.1:$METRICS_PORT/metrics")"
T1=$(date +%s%N)
check "... both within a second" test $(((T1 - T0) / 1000000)) -lt 1000
wait "$IDLE"
check "the silent client is closed after 2 s" grep -qE '^closed after 2\.[0-9] s$' \
	"$E2E_TMP/idle.out"

# Another daemon of the interface: refused, in a line, the first one answering on.
check_fails "a second daemon of the interface is refused while the first answers" 1 \
	"another daemon of $IF_SRV runs" timeout 10 nsenter --net="/run/netns/$NS_SRV" -- \
	"$BLOOMXDP" daemon "$IF_SRV" --config "$CONF"
check "... and the first one still answers" grep -q '^{"ok":true' <<<"$(ctl '{"cmd":"status"}')"

stop_daemon
check_eq "SIGTERM: the daemon exits 0" 0 "$?" "$(tail -n 3 "$ERR")"
check_eq "... and removes its socket" "gone" "$(test -e "$SOCK" || echo gone)"

# Without a daemon: the CLI as before.
check "without a daemon, status --json works as before" json_eq \
	"$(bx status "$IF_SRV" --json --state-dir "$STATE" 2>&1)" \
	"$(bx status "$IF_SRV" --json 2>&1)"
check_eq "... status equals the CLI's own" "$(bx status "$IF_SRV" --state-dir "$STATE" 2>&1)" \
	"$(bx status "$IF_SRV" 2>&1)"
check_eq "... query works" "$C_FEED2: blocked" "$(bxq "$IF_SRV" "$C_FEED2")"
check_fails "... stats --top says it needs a running daemon" 1 "no daemon of $IF_SRV answers" \
	bx stats "$IF_SRV" --top 5

# A dead daemon's socket: the CLI falls back, a daemon replaces it.
python3 "$TOOLS" stale "$SOCK"
check_eq "a dead daemon's socket: the CLI does the work itself" "$C_NONE: not blocked" \
	"$(bxq "$IF_SRV" "$C_NONE")"
start_daemon
check "a daemon replaces a dead daemon's socket" wait_log 'ready' 1 15
check "... says so" grep -q "dead daemon's socket, replaced" "$ERR"
check "... and answers on it" grep -q '^{"ok":true' <<<"$(ctl '{"cmd":"status"}')"
stop_daemon

# A symbolic link at the socket's name: not followed, the daemon refuses to start.
printf 'precious\n' >"$E2E_TMP/target"
ln -s "$E2E_TMP/target" "$SOCK"
check_fails "a symbolic link at the socket's name: the daemon refuses, in one line" 1 \
	"is a symbolic link, not a socket" timeout 10 nsenter --net="/run/netns/$NS_SRV" -- \
	"$BLOOMXDP" daemon "$IF_SRV" --config "$CONF"
check_eq "... the link and what it points to are untouched" "link precious" \
	"$(test -L "$SOCK" && echo link) $(cat "$E2E_TMP/target")"
check_eq "... the CLI does not connect through it" "$C_NONE: not blocked" \
	"$(bxq "$IF_SRV" "$C_NONE")"
rm -f "$SOCK"
ln -s "$E2E_TMP/target" "$E2E_TMP/run2"
check_fails "a symbolic link as the run directory: refused" 1 "symbolic link" \
	env BLOOMXDP_RUN_DIR="$E2E_TMP/run2" timeout 10 nsenter --net="/run/netns/$NS_SRV" -- \
	"$BLOOMXDP" daemon "$IF_SRV" --config "$CONF"

tap_finish
