#!/usr/bin/env bash
# The Grafana dashboard (dist/grafana/bloomxdp.json) without Grafana, which is not
# in Debian: a daemon with a feed and a CrowdSec bouncer (a small Python LAPI of
# the test's own banning one address) serves its metrics, Debian's Prometheus
# scrapes them every second, pings are dropped (by the list, by the ban) and
# passed; then every panel's PromQL, Grafana's variables substituted, evaluated
# through Prometheus' HTTP API returns data, and the JSON follows Grafana's
# dashboard schema as far as checkable here (tests/e2e/dashboard_check.py).
# Panels of subsystems not running here (the socket guard, DNS-answer learning,
# the fleet: this daemon is no fleet node, a [list] source cannot be one) are
# checked for validity only, and say so; test_fleet.sh checks the fleet's metrics
# on a node.
# Speaks TAP; needs root; about 20 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "dashboard tests" curl python3 prometheus
e2e_install_trap

DASH=dist/grafana/bloomxdp.json
LISTED=192.0.2.80
UNLISTED=192.0.2.81
BANNED=192.0.2.82	# CrowdSec's ban
if ! topo_up "$LISTED" "$UNLISTED" "$BANNED"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

# The servers live in the server's network namespace: these ports are its own.
METRICS_PORT=9726
PROM_PORT=9091
LAPI_PORT=18091
CONF=$E2E_TMP/$IF_SRV.conf
printf '%s\n' "$LISTED" >"$E2E_TMP/list.txt"
printf '%s\n' "testkey-$E2E_ID" >"$E2E_TMP/key"
chmod 600 "$E2E_TMP/key"
cat >"$CONF" <<EOF
[attach]
capacity = 1000
fpr = 1%
match = src

[list local]
source = $E2E_TMP/list.txt
refresh = 0

[daemon]
state_dir = $E2E_TMP/state
metrics = 127.0.0.1:$METRICS_PORT
events = none

[crowdsec]
lapi_url = http://127.0.0.1:$LAPI_PORT/
api_key_file = $E2E_TMP/key
interval = 1s
EOF

# The LAPI's decision stream: the ban at startup, no change after.
cat >"$E2E_TMP/lapi.py" <<'EOF'
import http.server, sys
ban = ('{"new":[{"duration":"4h","id":1,"origin":"cscli","scenario":"x","scope":"Ip",'
       '"type":"ban","value":"%s"}],"deleted":null}' % sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        body = (ban if 'startup=true' in self.path else '{"new":null,"deleted":null}').encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
EOF
bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- python3 "$E2E_TMP/lapi.py" \
	"$LAPI_PORT" "$BANNED" 2>"$E2E_TMP/lapi.err"
check "the test's LAPI listens" wait_listen tcp "$LAPI_PORT"

bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	--config "$CONF" >/dev/null 2>"$E2E_TMP/daemon.err"
check "the daemon serves its metrics" wait_listen tcp "$METRICS_PORT"
check "prometheus listens" prom_start "$PROM_PORT" "$METRICS_PORT"

# scrape: the daemon's GET /metrics, into $E2E_TMP/metrics.
scrape() {
	in_srv curl -sf -m 3 "http://127.0.0.1:$METRICS_PORT/metrics" >"$E2E_TMP/metrics"
}
bans=
for ((i = 0; i < 40; i++)); do
	scrape && bans=$(sed -n 's/^bloomxdp_crowdsec_bans{[^}]*} //p' "$E2E_TMP/metrics")
	[ "$bans" = 1 ] && break
	sleep 0.25
done
check_eq "the bouncer holds the LAPI's ban" 1 "$bans" "$(tail -3 "$E2E_TMP/daemon.err")"

# The counters' zeros ingested before the pings, the ban's list's too (a scrape after the
# ban): the rates over them are then positive.
zero=
for ((i = 0; i < 40; i++)); do
	zero=$(promql "$PROM_PORT" "bloomxdp_list_hits_total{ifname=\"$IF_SRV\",list=\"crowdsec\"}")
	[ -n "$zero" ] && break
	sleep 0.25
done
check_eq "prometheus ingested the counters before the pings (the ban's list's hits)" 0 "$zero" \
	"$(tail -3 "$E2E_TMP/prom.log")"
check_eq "the listed and the banned sources are dropped, the other passes" "0 0 5" \
	"$(for a in "$LISTED" "$BANNED" "$UNLISTED"; do ping_recv "$a" "$SRV4" 5 0.02 |
		cut -d' ' -f2; done | paste -sd' ')"
scrape
check "the hits are counted per list (local, crowdsec)" bash -c \
	"grep -q '^bloomxdp_list_hits_total{ifname=\"$IF_SRV\",list=\"local\"} [1-9]' $E2E_TMP/metrics &&
	grep -q '^bloomxdp_list_hits_total{ifname=\"$IF_SRV\",list=\"crowdsec\"} [1-9]' $E2E_TMP/metrics"

# dash_check MODE ARG...: dashboard_check.py's lines, each a TAP result.
dash_check() {
	local verdict name why
	while IFS=$'\t' read -r verdict name why; do
		if [ "$verdict" = PASS ]; then
			ok "$name"
		else
			not_ok "$name" "$why"
		fi
	done < <("$@" 2>&1)
}

dash_check python3 tests/e2e/dashboard_check.py lint "$DASH" "$E2E_TMP/metrics"
# A rate needs two scrapes after the pings: retried for at most 20 s.
dash_check in_srv python3 tests/e2e/dashboard_check.py query "$DASH" \
	"http://127.0.0.1:$PROM_PORT" "$IF_SRV" "$E2E_TMP/metrics" 20 \
	"bloomxdp_guard_=the socket guard" "bloomxdp_learned_addresses=DNS-answer learning" \
	"bloomxdp_fleet_=a fleet node"
# dash_expr TITLE REFID: that target's expression, Grafana's variables substituted.
dash_expr() {
	python3 - "$DASH" "$1" "$2" "$IF_SRV" <<'EOF'
import json, sys
sys.path.insert(0, "tests/e2e")
from dashboard_check import substitute
d, title, ref, ifname = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
print(next(substitute(t["expr"], ifname) for p in d["panels"] if p["title"] == title
           for t in p.get("targets", []) if t["refId"] == ref))
EOF
}
positive() { python3 -c 'import sys; sys.exit(not float(sys.argv[1] or 0) > 0)' "$1"; }
check "the drop rate panel shows the drops" \
	positive "$(promql "$PROM_PORT" "$(dash_expr 'Dropped and passed, packets/s' A)")"
check "... the pass rate the passes" \
	positive "$(promql "$PROM_PORT" "$(dash_expr 'Dropped and passed, packets/s' B)")"
check "... and the hits per list those of the ban (list crowdsec)" positive "$(promql \
	"$PROM_PORT" "($(dash_expr 'Hits per list, /s' A)) and on (list)
	label_replace(vector(1), \"list\", \"crowdsec\", \"\", \"\")")"
check_eq "this daemon, no fleet node, declares the fleet's families without samples" \
	"8 0" "$(grep -c '^# TYPE bloomxdp_fleet_' "$E2E_TMP/metrics") \
$(grep -c '^bloomxdp_fleet_' "$E2E_TMP/metrics")"

tap_finish
