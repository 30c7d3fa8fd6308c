#!/usr/bin/env bash
# The CrowdSec bouncer against a hostile or broken LAPI: a small Python HTTP
# server of the test's own in the server's namespace answers the decision
# stream with what the test chooses: a good reply (the key is sent, startup
# first), then a body over max_bytes, a gzip body that inflates past it, text
# that is not JSON, nesting a million levels deep, a reply too slow for the
# timeout (the daemon's metrics answer meanwhile), a 403, a redirect elsewhere. Each is refused and counted, the ban
# held stays enforced, the daemon stays up and logs the outage once; a good
# reply again resyncs (startup=true) and lifts what is gone. Speaks TAP; needs
# root, python3, curl; about 30 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "crowdsec hostile LAPI tests" python3 curl
e2e_install_trap

BANNED=192.0.2.140
LATER=192.0.2.141	# banned by the good reply after the outage
if ! topo_up "$BANNED" "$LATER"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

PORT=18090
METRICS_PORT=9728
FAKE=$E2E_TMP/lapi
CONF=$E2E_TMP/$IF_SRV.conf
ERR=$E2E_TMP/daemon.err
mkdir -p "$FAKE"
echo good >"$FAKE/mode"

# The reply for each mode; every request is logged (path and X-Api-Key).
cat >"$FAKE/server.py" <<'EOF'
import gzip, http.server, sys, time
d, port = sys.argv[1], int(sys.argv[2])
# Made once: 64 MiB of JSON white space in 64 KiB of gzip.
bomb = gzip.compress(b'{"new":[' + b' ' * (64 << 20) + b']}')
ban = lambda v, dur: ('{"duration":"%s","id":1,"origin":"cscli","scenario":"x",'
                      '"scope":"Ip","type":"ban","value":"%s"}' % (dur, v))
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        mode = open(d + '/mode').read().strip()
        with open(d + '/requests', 'a') as f:
            f.write('%s %s %s\n' % (mode, self.path, self.headers.get('X-Api-Key')))
        headers, code, body = {}, 200, b''
        if mode == 'good':
            body = ('{"new":[%s],"deleted":null}' % ban('192.0.2.140', '4m59.5s')).encode()
        elif mode == 'good2':
            body = ('{"new":[%s],"deleted":null}' % ban('192.0.2.141', '5m')).encode()
        elif mode == 'big':
            body = b'{"new":[' + b' ' * (3 << 20) + b']}'
        elif mode == 'gzipbomb':
            body = bomb
            headers['Content-Encoding'] = 'gzip'
        elif mode == 'garbage':
            body = b'<html>502 Bad Gateway</html>'
        elif mode == 'deep':
            body = b'{"new":' + b'[' * 1000000
        elif mode == 'slow':
            time.sleep(4)
            body = b'{}'
        elif mode == 'forbidden':
            code, body = 403, b'{"message":"access forbidden"}'
        elif mode == 'redirect':
            code, headers['Location'] = 302, 'http://127.0.0.1:%d/elsewhere' % port
        self.send_response(code)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.ThreadingHTTPServer(('127.0.0.1', port), H).serve_forever()
EOF
bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- python3 "$FAKE/server.py" "$FAKE" \
	"$PORT" 2>"$FAKE/server.err"
wait_listen tcp "$PORT"
check_eq "the test's LAPI listens" 0 "$?"

printf '%s\n' "testkey-$E2E_ID" >"$FAKE/key"
chmod 600 "$FAKE/key"
printf '%s\n' 192.0.2.250 >"$E2E_TMP/list.txt"
crowdsec_conf "$CONF" "http://127.0.0.1:$PORT" "$FAKE/key" "timeout = 2s" "max_bytes = 1M"
# nsenter execs the daemon: BG_PID is the daemon's own PID, for the signals (timeout would
# ignore a second SIGHUP).
bg_start nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	--config "$CONF" >"$E2E_TMP/daemon.out" 2>"$ERR"
DAEMON_PID=$BG_PID
connected=0
wait_log "crowdsec: connected to" 1 15 && connected=1
check_eq "the daemon connects and applies the ban" 1 "$connected" "$(tail -5 "$ERR")"
check_eq "the first request asks for the whole set, with the key in X-Api-Key" \
	"good /v1/decisions/stream?startup=true&scopes=ip,range testkey-$E2E_ID" \
	"$(head -1 "$FAKE/requests")"
check_eq "... the next ones for the changes" "startup=false" \
	"$(sleep 1.5; sed -n 2p "$FAKE/requests" | grep -o 'startup=false')"
check_eq "the ban is dropped by XDP" "0 3" \
	"$(for a in "$BANNED" "$LATER"; do ping_recv "$a" "$SRV4" 3 0.02 | cut -d' ' -f2; done |
		paste -sd' ')"

metric() {
	in_srv curl -s -m "${METRIC_WAIT:-3}" "http://127.0.0.1:$METRICS_PORT/metrics" |
		sed -n "s/^bloomxdp_crowdsec_$1{ifname=\"$IF_SRV\"} //p"
}

# mode NAME: the LAPI answers so from now on. A new timeout and SIGHUP start the
# bouncer's retries over (else they back off: 1, 2, 4, 8 s...); waits for the request.
TIMEOUT=2
mode() {
	local i
	echo "$1" >"$FAKE/mode"
	TIMEOUT=$((5 - TIMEOUT))
	sed -i "s/^timeout = .*/timeout = ${TIMEOUT}s/" "$CONF"
	kill -HUP "$DAEMON_PID"
	for ((i = 0; i < 100; i++)); do
		grep -q "^$1 " "$FAKE/requests" && return 0
		sleep 0.1
	done
	return 1
}
for m in big gzipbomb garbage deep slow forbidden redirect; do
	failures=$(metric pull_failures_total)
	mode "$m"
	sleep 0.5
	if [ "$m" = slow ]; then
		# The pull runs in the daemon's loop without holding it: metrics answer.
		check_eq "slow: while the LAPI takes its time, the daemon answers GET /metrics" 0 \
			"$(METRIC_WAIT=1 metric up)"
		sleep "$TIMEOUT"
	fi
	check_eq "$m: refused and counted; the daemon runs on" "yes" \
		"$([ "$(metric pull_failures_total)" -gt "${failures:-0}" ] && echo yes)" \
		"$(tail -3 "$ERR")"
done
check_eq "every failure kept the ban enforced, and the bouncer says it is down" "0 0" \
	"$(ping_recv "$BANNED" "$SRV4" 3 0.02 | cut -d' ' -f2) $(metric up)"
check_eq "the outage is logged once, naming its first cause (over max_bytes)" \
	"1 1" "$(grep -c "crowdsec: pulling decisions from" "$ERR") $(grep -c \
	"crowdsec: pulling decisions from .*over max_bytes" "$ERR")"
check_eq "the daemon never asked for what the redirect pointed to" 0 \
	"$(grep -c elsewhere "$FAKE/requests")"

mode good2
back=0
wait_log "crowdsec: in touch again" 1 70 && back=1
check_eq "a good reply again: in touch" 1 "$back" "$(tail -3 "$ERR")"
check_eq "... it asked for the whole set, which lifts the ban gone from it and adds the new" \
	"3 0" "$(for a in "$BANNED" "$LATER"; do ping_recv "$a" "$SRV4" 3 0.02 | cut -d' ' -f2
		done | paste -sd' ')" "$(grep "crowdsec: resync" "$ERR" | tail -2)"
check_eq "... with startup=true" 1 \
	"$(grep '^good2 ' "$FAKE/requests" | head -1 | grep -c 'startup=true')"

kill -TERM "$DAEMON_PID" 2>/dev/null
wait_pid "$DAEMON_PID" 10
check_eq "SIGTERM: the daemon exits 0" 0 "$?" "$(tail -3 "$ERR")"
bg_forget "$DAEMON_PID"
check "detach" bx detach "$IF_SRV"

tap_finish
