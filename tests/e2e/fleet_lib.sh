# shellcheck shell=bash
# shellcheck disable=SC2034  # variables for the scripts that source this file
# Helpers of the fleet tests (test_fleet.sh, test_fleet_tls.sh, test_fleet_trust.sh), sourced after
# lib.sh. The test sets: SOCK (its Redis's unix socket, for its own checks),
# CHANNEL, FLEET_NODES, NODE_IF[I] (node I's interface), NODE_NS[I] (its
# namespace; default the server's) and DAEMON=().

RCLI_AUTH=()
# node_ns_up I: node I's namespace (bxe-ID-nI) with a veth pair of its own (nothing crosses
# it), its names in NODE_NS[I] and NODE_IF[I]; non-zero when it cannot be made.
node_ns_up() {
	NODE_NS[$1]=bxe-$E2E_ID-n$1
	NODE_IF[$1]=bxe${E2E_ID}n$1
	ip netns add "${NODE_NS[$1]}" &&
		ip -n "${NODE_NS[$1]}" link add "${NODE_IF[$1]}" type veth peer name "bxe${E2E_ID}m$1" &&
		ip -n "${NODE_NS[$1]}" link set "${NODE_IF[$1]}" up &&
		ip -n "${NODE_NS[$1]}" link set "bxe${E2E_ID}m$1" up
}
# rcli ARGS...: redis-cli on the test's socket.
rcli() { redis-cli -s "$SOCK" "${RCLI_AUTH[@]}" "$@" 2>/dev/null; }

# node_conf I URL: node I's configuration, subscribed at URL; its metrics at NODE_METRICS[I]
# (a port of its namespace) when set.
node_conf() {
	cat >"$E2E_TMP/node$1.conf" <<CONF
[attach]
capacity = 1000
fpr = 1%
match = src

[daemon]
state_dir = $E2E_TMP/state
events = none
subscribe = $2
channel = $CHANNEL
node = n$1
${NODE_METRICS[$1]:+metrics = 127.0.0.1:${NODE_METRICS[$1]}}
CONF
}

# node_scrape I: node I's GET /metrics (NODE_METRICS[I]), into $E2E_TMP/metrics$I.
node_scrape() {
	timeout 10 nsenter --net="/run/netns/${NODE_NS[$1]:-$NS_SRV}" -- curl -sf -m 3 \
		"http://127.0.0.1:${NODE_METRICS[$1]}/metrics" >"$E2E_TMP/metrics$1"
}
# node_metric I NAME [LABELS]: the value of node I's sample NAME{ifname,channel LABELS}
# (LABELS: ',reason="x"'), as the last node_scrape I read it.
node_metric() {
	local want="$2{ifname=\"${NODE_IF[$1]}\",channel=\"$CHANNEL\"${3:-}} "
	awk -v w="$want" 'index($0, w) == 1 { print substr($0, length(w) + 1) }' \
		"$E2E_TMP/metrics$1"
}
# fleet_metrics I NAME[LABELS]...: node I scraped, then each sample's value, space separated
# (NAME and its extra labels as one word: 'bloomxdp_fleet_failures_total,reason="payload"').
fleet_metrics() {
	local i=$1 w out=
	shift
	node_scrape "$i" || { echo "no scrape of node $i"; return 1; }
	for w in "$@"; do
		case $w in
		*,*) out+=" $(node_metric "$i" "${w%%,*}" ",${w#*,}")" ;;
		*) out+=" $(node_metric "$i" "$w")" ;;
		esac
	done
	echo "${out# }"
}

# daemon_start I: node I's daemon, in its namespace; its PID in DAEMON[I].
daemon_start() {
	bg_start timeout 600 nsenter --net="/run/netns/${NODE_NS[$1]:-$NS_SRV}" -- "$BLOOMXDP" \
		daemon "${NODE_IF[$1]}" --config "$E2E_TMP/node$1.conf" >>"$E2E_TMP/node$1.out" \
		2>>"$E2E_TMP/node$1.err"
	DAEMON[$1]=$BG_PID
}
daemon_stop() { stop_pid "${DAEMON[$1]}"; bg_forget "${DAEMON[$1]}"; }

# field I NAME: what node I reported.
field() { rcli hget "bloomxdp:$CHANNEL:node:n$1" "$2"; }

# converged WHAT SECONDS [FIRST_NODE]: until every node reports WHAT ("version=N",
# "refused=N", "inforce=N"); prints the nodes that do not, if some never do.
converged() {
	local name=${1%%=*} want=${1#*=} i t late got
	for ((t = 0; t < $2 * 5; t++)); do
		late=
		# One redis-cli for all the nodes: the check stays well under its 0.2 s step.
		mapfile -t got < <(for ((i = ${3:-0}; i < FLEET_NODES; i++)); do
			echo "HGET bloomxdp:$CHANNEL:node:n$i $name"; done | rcli)
		for ((i = ${3:-0}; i < FLEET_NODES; i++)); do
			[ "${got[i - ${3:-0}]:-}" = "$want" ] || late+=" n$i=${got[i - ${3:-0}]:-}"
		done
		[ -z "$late" ] && return 0
		sleep 0.2
	done
	echo "$late"
	return 1
}

# listed SRC: whether node 0 (lib.sh's server) drops SRC's pings (1) or passes them (0).
listed() {
	local r
	r=$(ping_recv "$1" "$SRV4" 3 0.05)
	[ "${r#* }" = 0 ] && echo 1 || echo 0
}
