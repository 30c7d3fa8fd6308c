#!/usr/bin/env bash
# Metrics as a monitoring system sees them: the daemon serves GET /metrics,
# promtool accepts it, and a real Prometheus server (Debian's prometheus,
# started here on the server namespace's loopback, scraping every second)
# ingests it: a query through its HTTP API returns the same `dropped` as
# `stats --json`, and the filter's gauges. Speaks TAP; needs root; about 15 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "prometheus tests" curl python3 prometheus promtool
e2e_install_trap

LISTED=192.0.2.70
UNLISTED=192.0.2.71
if ! topo_up "$LISTED" "$UNLISTED"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

# Both servers live in the server's network namespace: these ports are its own.
METRICS_PORT=9725
PROM_PORT=9090
CONF=$E2E_TMP/$IF_SRV.conf
printf '%s\n' "$LISTED" >"$E2E_TMP/list.txt"
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
EOF
bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	--config "$CONF" >/dev/null 2>"$E2E_TMP/daemon.err"
check "the daemon serves its metrics" wait_listen tcp "$METRICS_PORT"
check "promtool check metrics accepts GET /metrics" bash -c \
	"nsenter --net=/run/netns/$NS_SRV -- curl -sf -m 3 http://127.0.0.1:$METRICS_PORT/metrics |
	promtool check metrics"

check "prometheus listens" prom_start "$PROM_PORT" "$METRICS_PORT"

check_eq "the listed source is dropped, the other passes" "0 5" \
	"$(ping_recv "$LISTED" "$SRV4" 5 0.02 | cut -d' ' -f2) $(ping_recv "$UNLISTED" "$SRV4" 5 0.02 |
	cut -d' ' -f2)"
dropped=$(json_num "$(stats_json)" dropped)
check "stats counts the drops" test "${dropped:-0}" -ge 5

# Scrapes every second: wait for one after the pings (at most 20 s).
seen=
for ((i = 0; i < 80; i++)); do
	seen=$(promql "$PROM_PORT" "bloomxdp_dropped_total{ifname=\"$IF_SRV\"}")
	[ "$seen" = "$dropped" ] && break
	sleep 0.25
done
check_eq "prometheus' query of bloomxdp_dropped_total equals stats --json's dropped" \
	"$dropped" "$seen" "$(tail -5 "$E2E_TMP/prom.log")"
check_eq "... and the filter's entries gauge is the list's" 1 \
	"$(promql "$PROM_PORT" "bloomxdp_filter_entries{ifname=\"$IF_SRV\"}")"
check_eq "... and the daemon's own metrics are ingested" 1 \
	"$(promql "$PROM_PORT" "bloomxdp_daemon_list_loads_total{ifname=\"$IF_SRV\"}")"
check_eq "... and the source's entries (per list)" 1 \
	"$(promql "$PROM_PORT" "bloomxdp_daemon_source_entries{ifname=\"$IF_SRV\",list=\"local\"}")"
check_eq "... and the target is up" 1 "$(promql "$PROM_PORT" 'up{job="bloomxdp"}')"
check_eq "... and bloomxdp_build_info names the version of the file VERSION" 1 \
	"$(promql "$PROM_PORT" "bloomxdp_build_info{version=\"$(cat "$E2E_ROOT/VERSION")\"}")"
check_eq "stats --prometheus has it too" "bloomxdp_build_info{version=\"$(cat "$E2E_ROOT/VERSION")\"} 1" \
	"$(bx stats "$IF_SRV" --prometheus | grep '^bloomxdp_build_info')"

tap_finish
