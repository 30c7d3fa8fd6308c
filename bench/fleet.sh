#!/usr/bin/env bash
# The fleet benchmark (root; not part of make test): FLEET_COUNTS nodes on this
# machine, each a network namespace with its own veth pair, the XDP program
# attached to it and a daemon subscribed (unix socket) to a redis-server of
# the benchmark's own. For each count (nodes are added, never restarted) and
# each list size of FLEET_SIZES (random IPv4 addresses, build/bench/mklists):
# a full version is published and the time until every node reports it
# applied is taken, from the announcement (XADD) and from the start of
# 'bloomxdp publish' (which compiles the list); then FLEET_DELTAS single-address
# deltas, each node's time from the announcement to its swap. Writes
# bench/fleet-results.md (or $FLEET_OUT).
#
#   make all build/bench/mklists && bench/fleet.sh
#   FLEET_COUNTS="10 30" FLEET_SIZES="1000000" bench/fleet.sh    # a shorter run
set -u
cd "$(dirname "$0")/.." || exit 1
BLOOMXDP=$PWD/build/bloomxdp
MKLISTS=$PWD/build/bench/mklists
COUNTS=${FLEET_COUNTS:-10 30 100}
SIZES=${FLEET_SIZES:-1000000 10000000}
DELTAS=${FLEET_DELTAS:-10}
OUT=${FLEET_OUT:-bench/fleet-results.md}
ID=$(printf '%04x' $(($$ & 0xffff)))
TMP=$(mktemp -d "/tmp/bxf-$ID.XXXXXX")
SOCK=$TMP/redis.sock
CHANNEL=bench$ID
export BLOOMXDP_STATE_DIR=$TMP/state
PIDS=() NODES=0 REDIS_PID=

for tool in redis-server redis-cli ip nsenter timeout "$BLOOMXDP" "$MKLISTS"; do
	command -v "$tool" >/dev/null || { echo "fleet.sh: $tool is missing (make all build/bench/mklists; tests/install-deps.sh)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "fleet.sh: needs root" >&2; exit 1; }

cleanup() {
	local pid i
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
	for ((i = 0; i < NODES; i++)); do
		[ -d "/sys/fs/bpf/bloomxdp/bxf${ID}n$i" ] &&
			{ timeout 30 "$BLOOMXDP" detach "bxf${ID}n$i" --forget >/dev/null 2>&1 ||
				timeout 30 "$BLOOMXDP" detach "bxf${ID}n$i" >/dev/null 2>&1; }
		ip netns del "bxf-$ID-n$i" 2>/dev/null
	done
	[ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
	rm -rf -- "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rcli() { redis-cli -s "$SOCK" "$@"; }
now_ms() { date +%s%3N; }

redis-server --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --dir "$TMP" --save '' \
	--appendonly no --logfile "$TMP/redis.log" &
REDIS_PID=$!
for ((i = 0; i < 100; i++)); do rcli ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done

add_node() {
	local i=$1 ns=bxf-$ID-n$1 ifn=bxf${ID}n$1
	ip netns add "$ns" && ip -n "$ns" link add "$ifn" type veth peer name "bxf${ID}m$i" &&
		ip -n "$ns" link set "$ifn" up && ip -n "$ns" link set "bxf${ID}m$i" up || return 1
	cat >"$TMP/n$i.conf" <<EOF
[attach]
capacity = 1000
fpr = 1%
match = src
max-memory = 64M
[daemon]
state_dir = $TMP/state
events = none
subscribe = unix://$SOCK
channel = $CHANNEL
node = n$i
EOF
	timeout 7200 nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" daemon "$ifn" \
		--config "$TMP/n$i.conf" >/dev/null 2>>"$TMP/n$i.err" &
	PIDS+=($!)
	NODES=$((NODES + 1))
}

# fields NAME: every node's NAME, one per line, in node order.
fields() {
	local i
	for ((i = 0; i < NODES; i++)); do echo "HGET bloomxdp:$CHANNEL:node:n$i $1"; done | rcli
}

# wait_all NAME VALUE SECONDS: until every node reports NAME = VALUE.
wait_all() {
	local t
	for ((t = 0; t < $3 * 10; t++)); do
		[ "$(fields "$1" | grep -cxF -- "$2")" -eq "$NODES" ] && return 0
		sleep 0.1
	done
	echo "fleet.sh: after $3 s, $(fields "$1" | grep -cxF -- "$2") of $NODES nodes have $1 = $2" >&2
	return 1
}

latest() { rcli hget "bloomxdp:$CHANNEL:latest" "$1"; }
top_id() { rcli xrevrange "bloomxdp:$CHANNEL:stream" + - COUNT 1 | head -n 1; }
# percentile P over numbers on stdin
pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { i = int((NR * p + 99) / 100); if (i < 1) i = 1; print a[i] }'; }

for size in $SIZES; do
	mkdir -p "$TMP/l$size"
	"$MKLISTS" "$TMP/l$size" "$size" 1 >/dev/null || exit 1
	rm -f "$TMP/l$size"/{ipset.txt,nft.txt,list.bin,traffic-*.bin}
done
printf '240.0.0.1\n' >"$TMP/small.txt"

{
	echo "# Fleet benchmark"
	echo
	echo "$(date -u +%FT%TZ), $(nproc) CPUs, $(free -g | awk '/Mem:/ { print $2 }') GiB,"
	echo "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), unix socket."
	echo "Reproduce: \`make all build/bench/mklists && bench/fleet.sh\` (FLEET_COUNTS, FLEET_SIZES, FLEET_DELTAS)."
	echo
	echo "| nodes | entries | payload bytes (per node) | publish (compile + store) s | announcement → all nodes s | publish start → all nodes s | delta p50 ms | delta p99 ms | delta max ms |"
	echo "|---|---|---|---|---|---|---|---|---|"
} >"$OUT.tmp"

"$BLOOMXDP" publish --redis "unix://$SOCK" --channel "$CHANNEL" "$TMP/small.txt" >/dev/null
for count in $COUNTS; do
	while [ "$NODES" -lt "$count" ]; do add_node "$NODES" || exit 1; done
	wait_all version "$(latest version)" 120 || exit 1
	for size in $SIZES; do
		t0=$(now_ms)
		"$BLOOMXDP" publish --redis "unix://$SOCK" --channel "$CHANNEL" \
			"$TMP/l$size/list.txt" >"$TMP/publish.out" 2>&1 || { cat "$TMP/publish.out"; exit 1; }
		t1=$(now_ms)
		v=$(latest version)
		announced=$(latest id)
		announced=${announced%-*}
		wait_all version "$v" 300 || exit 1
		last=$(fields entry_ms | sort -n | tail -n 1)
		bytes=$(latest size)
		# Deltas: one address each, every node's time from the XADD to its swap.
		: >"$TMP/lat"
		for ((d = 0; d < DELTAS; d++)); do
			addr=203.0.113.$((d % 250 + 1))
			"$BLOOMXDP" publish --redis "unix://$SOCK" --channel "$CHANNEL" --add "$addr" \
				>/dev/null || exit 1
			id=$(top_id)
			wait_all stream_id "$id" 60 || exit 1
			fields entry_ms | awk -v a="${id%-*}" '{ print $1 - a }' >>"$TMP/lat"
			"$BLOOMXDP" publish --redis "unix://$SOCK" --channel "$CHANNEL" --del "$addr" \
				>/dev/null || exit 1
			wait_all stream_id "$(top_id)" 60 || exit 1
		done
		printf '| %s | %s | %s | %.2f | %.2f | %.2f | %s | %s | %s |\n' "$NODES" "$size" "$bytes" \
			"$(echo "($t1 - $t0) / 1000" | bc -l)" "$(echo "($last - $announced) / 1000" | bc -l)" \
			"$(echo "($last - $t0) / 1000" | bc -l)" "$(pct 50 <"$TMP/lat")" \
			"$(pct 99 <"$TMP/lat")" "$(pct 100 <"$TMP/lat")" | tee -a "$OUT.tmp"
	done
done
{
	echo
	echo "A delta's time is each node's, from the announcement (the stream id's milliseconds)"
	echo "to the moment its entry was applied (the node's report entry_ms), over $DELTAS deltas"
	echo "of one address (each followed by its del, which rebuilds from the applied payload:"
	echo "not timed). Bytes per node: the payload each node fetches (GETRANGE), plus"
	echo "about 200 bytes a delta."
} >>"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
