#!/usr/bin/env bash
# The fleet through Redis: a redis-server of the test's own (a temporary
# directory, a free loopback port and a unix socket, which the nodes reach
# from their network namespaces), FLEET_NODES nodes (each a namespace, a veth,
# the XDP program and a daemon with subscribe = ...); node 0 is lib.sh's
# server, whose client pings show what it enforces. They converge on a
# version; a delta add and del reach them; Redis killed: they keep enforcing,
# and converge on the next version once it is back; a node whose daemon was
# stopped while two versions were published catches up to the latest; a
# corrupted and a truncated payload are refused by all, which fleet status
# shows; with requirepass, a node without the password is refused and says
# why; a payload of format version 1 (an older bloomxdp's save) is published
# and applied by all. Node 0's GET /metrics follows it: connected, version, versions applied
# and when, reconnections, the refusals by reason (promtool checks it).
# Speaks TAP; needs root; about 40 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
# shellcheck source=tests/e2e/fleet_lib.sh
. tests/e2e/fleet_lib.sh

e2e_need "fleet tests" redis-server redis-cli python3 sha256sum

FLEET_NODES=${FLEET_NODES:-10}
C_LISTED=192.0.2.70	# in every version
C_DELTA=192.0.2.71	# added, then deleted, by deltas
C_LATER=192.0.2.72	# in the versions published after Redis came back
CLIENTS=("$C_LISTED" "$C_DELTA" "$C_LATER")
CHANNEL=t$E2E_ID
NODE_NS=() NODE_IF=() DAEMON=()
NODE_METRICS=([0]=9727)	# node 0's GET /metrics, a port of its namespace
F=bloomxdp_fleet
FAILS=()	# fleet_metrics' words for failures_total of each reason
for r in payload signature stale state apply; do FAILS+=("bloomxdp_fleet_failures_total,reason=\"$r\""); done

fleet_cleanup() {
	local pid i
	for pid in "${E2E_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${E2E_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
	E2E_PIDS=()
	for ((i = 1; i < ${#NODE_IF[@]}; i++)); do
		[ -d "$PIN_ROOT/${NODE_IF[i]}" ] &&
			timeout 30 "$BLOOMXDP" detach "${NODE_IF[i]}" >/dev/null 2>&1
		[ -e "/run/netns/${NODE_NS[i]}" ] && ip netns del "${NODE_NS[i]}" 2>/dev/null
	done
	e2e_cleanup
}
trap fleet_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
NODE_NS[0]=$NS_SRV
NODE_IF[0]=$IF_SRV
# The other nodes: a namespace each with a veth pair of its own (nothing crosses it).
for ((i = 1; i < FLEET_NODES; i++)); do
	if ! node_ns_up "$i"; then
		not_ok "build node $i's namespace ${NODE_NS[i]}"
		tap_finish
		exit 1
	fi
done

RDIR=$E2E_TMP/redis
SOCK=$RDIR/redis.sock
mkdir -p "$RDIR"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PUB=redis://127.0.0.1:$PORT
REDIS_ARGS=()

# redis_start: its data survives a kill (append-only file, fsync'd at every write).
redis_start() {
	bg_start redis-server --port "$PORT" --bind 127.0.0.1 --unixsocket "$SOCK" \
		--unixsocketperm 700 --dir "$RDIR" --save '' --appendonly yes \
		--appendfsync always --logfile "$RDIR/redis.log" "${REDIS_ARGS[@]}"
	REDIS_PID=$BG_PID
	for ((j = 0; j < 100; j++)); do
		[ -S "$SOCK" ] && rcli ping | grep -q PONG && return 0
		sleep 0.05
	done
	return 1
}
publish() { timeout 60 "$BLOOMXDP" publish --redis "${PUBURL:-$PUB}" --channel "$CHANNEL" "$@"; }

printf '%s\n' "$C_LISTED" 198.51.100.0/24 evil.example >"$E2E_TMP/v1.txt"
printf '%s\n' "$C_LISTED" "$C_LATER" 198.51.100.0/24 evil.example >"$E2E_TMP/v2.txt"

if ! redis_start; then
	not_ok "start redis-server on 127.0.0.1:$PORT and $SOCK" "$(tail -n 5 "$RDIR/redis.log")"
	tap_finish
	exit 1
fi

# --- a full version, FLEET_NODES nodes

check "publish version 1 (lists compiled with a new fleet key)" publish "$E2E_TMP/v1.txt"
for ((i = 0; i < FLEET_NODES; i++)); do
	node_conf "$i" "unix://$SOCK"
	daemon_start "$i"
done
if late=$(converged version=1 30); then
	ok "$FLEET_NODES nodes converge on version 1"
else
	not_ok "$FLEET_NODES nodes converge on version 1" "late:$late" "$(tail -n 5 "$E2E_TMP/node0.err")"
fi
check_eq "node 0 drops a listed client, passes the others" "1 0 0" \
	"$(listed "$C_LISTED") $(listed "$C_DELTA") $(listed "$C_LATER")"
check_eq "node 0's metrics: connected, version 1, applied once, no failure of any reason" \
	"1 1 1 0 0 0 0 0" "$(fleet_metrics 0 "$F"_connected "$F"_version "$F"_applied_total \
	"${FAILS[@]}")" "$(grep "^$F" "$E2E_TMP/metrics0")"
last=$(node_metric 0 "$F"_last_apply_seconds)
check "... and when it applied it, seconds ago (bloomxdp_fleet_last_apply_seconds $last)" \
	test "$(($(date +%s) - ${last:-0}))" -lt 60
if command -v promtool >/dev/null; then
	check "promtool check metrics accepts a fleet node's" bash -c \
		"promtool check metrics <'$E2E_TMP/metrics0'"
fi
status=$(timeout 30 "$BLOOMXDP" fleet status --redis "$PUB" --channel "$CHANNEL" --json 2>&1)
check_eq "fleet status: every node at the latest version, lag 0" "$FLEET_NODES $FLEET_NODES" \
	"$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); n = d["nodes"]
print(len(n), sum(1 for x in n if x["latest"] and x["version"] == 1 and x["lag_seconds"] == 0))' \
	"$status" 2>&1)" "$status"

# --- deltas: an add, in force across full versions, then its del

check "publish --add $C_DELTA" publish --add "$C_DELTA"
if late=$(converged inforce=1 10); then ok "the add reaches every node"; else
	not_ok "the add reaches every node" "late:$late"; fi
check_eq "node 0 drops the added client" 1 "$(listed "$C_DELTA")"

# --- versions swapped in under traffic: the listed client and the added one never get through

ping_many_start 150 0.02 "$C_LISTED" "$C_DELTA"
for ((v = 0; v < 5; v++)); do
	publish "$E2E_TMP/v1.txt" >/dev/null 2>&1
	sleep 0.3
done
ping_many_wait
converged version=6 20 >/dev/null
check_eq "5 versions swapped in while node 0's listed and added clients ping: none gets through" \
	"150 0 150 0 6" "${PING_TX[$C_LISTED]} ${PING_RX[$C_LISTED]} ${PING_TX[$C_DELTA]} \
${PING_RX[$C_DELTA]} $(field 0 version)"
check_eq "the added entry stays in force across the versions on every node" "" \
	"$(converged inforce=1 1)"

check "publish --del $C_DELTA" publish --del "$C_DELTA"
if late=$(converged inforce=0 10); then ok "the del reaches every node"; else
	not_ok "the del reaches every node" "late:$late"; fi
check_eq "node 0 passes the deleted client again, still drops the listed one" "0 1" \
	"$(listed "$C_DELTA") $(listed "$C_LISTED")"

# --- an add with a timeout: in force on every node, then out at its deadline

check "publish --add --timeout 3s $C_DELTA" publish --add --timeout 3s "$C_DELTA"
if late=$(converged inforce=1 10); then ok "the timed add reaches every node"; else
	not_ok "the timed add reaches every node" "late:$late"; fi
check_eq "node 0 drops the client added for 3 s" 1 "$(listed "$C_DELTA")"
if late=$(converged inforce=0 15); then ok "at its deadline it leaves every node"; else
	not_ok "at its deadline it leaves every node" "late:$late"; fi
check_eq "node 0 passes it again, still drops the listed one" "0 1" \
	"$(listed "$C_DELTA") $(listed "$C_LISTED")"

# --- Redis killed and back

{ kill -KILL "$REDIS_PID"; wait "$REDIS_PID"; } 2>/dev/null	# (bash's "Killed" unsaid)
bg_forget "$REDIS_PID"
sleep 1
check_eq "Redis down: node 0 keeps enforcing version 6" "1 0" \
	"$(listed "$C_LISTED") $(listed "$C_LATER")"
check_eq "Redis down: node 0's metrics say it is not connected, at version 6" "0 6" \
	"$(fleet_metrics 0 "$F"_connected "$F"_version)"
check_fails "Redis down: publish fails and says so" 1 "cannot reach Redis" publish "$E2E_TMP/v2.txt"
if redis_start; then ok "Redis restarted (its append-only file kept the channel)"; else
	not_ok "Redis restarted"; fi
check "publish version 7 once Redis is back" publish "$E2E_TMP/v2.txt"
if late=$(converged version=7 30); then ok "every node converges on version 7"; else
	not_ok "every node converges on version 7" "late:$late"; fi
check_eq "node 0 drops the client version 7 lists" 1 "$(listed "$C_LATER")"
m=$(fleet_metrics 0 "$F"_connected "$F"_version "$F"_reconnects_total)
check "... its metrics: connected again, version 7, reconnected ($m)" \
	grep -qE '^1 7 [1-9][0-9]*$' <<<"$m"

# --- a node stopped while two versions are published catches up

stop_pid "${DAEMON[3]}"
bg_forget "${DAEMON[3]}"
check "publish version 8 while node 3 is stopped" publish "$E2E_TMP/v1.txt"
check "publish version 9 while node 3 is stopped" publish "$E2E_TMP/v2.txt"
converged version=9 20 4 >/dev/null
check_eq "node 3 still reports version 7" 7 "$(field 3 version)"
daemon_start 3
if late=$(converged version=9 20); then ok "node 3 restarted catches up to version 9"; else
	not_ok "node 3 restarted catches up to version 9" "late:$late" \
		"$(tail -n 5 "$E2E_TMP/node3.err")"; fi

# --- corrupted and truncated payloads

STREAM=bloomxdp:$CHANNEL:stream
head -c 5000 /dev/urandom >"$E2E_TMP/garbage"
rcli -x set "bloomxdp:$CHANNEL:payload:900" <"$E2E_TMP/garbage" >/dev/null
# The announced checksum is not the payload's: a payload damaged in Redis or on the way.
rcli xadd "$STREAM" '*' type full version 900 key "bloomxdp:$CHANNEL:payload:900" size 5000 \
	sha256 "$(printf 'x' | sha256sum | cut -c1-64)" >/dev/null
if late=$(converged refused=1 15); then ok "a payload whose SHA-256 differs is refused by all"
else not_ok "a payload whose SHA-256 differs is refused by all" "late:$late"; fi
# A payload cut short, announced with its own size and SHA-256: the file's checks refuse it.
timeout 30 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" save "$IF_SRV" "$E2E_TMP/saved" \
	>/dev/null 2>&1
head -c -100 "$E2E_TMP/saved" >"$E2E_TMP/cut"
rcli -x set "bloomxdp:$CHANNEL:payload:901" <"$E2E_TMP/cut" >/dev/null
rcli xadd "$STREAM" '*' type full version 901 key "bloomxdp:$CHANNEL:payload:901" \
	size "$(stat -c %s "$E2E_TMP/cut")" sha256 "$(sha256sum <"$E2E_TMP/cut" | cut -c1-64)" \
	>/dev/null
if late=$(converged refused=2 15); then ok "a truncated payload is refused by all"
else not_ok "a truncated payload is refused by all" "late:$late"; fi
# One byte of the bits flipped, announced with the damaged file's size and SHA-256: the
# header reads well, the CRC32C refuses it before anything is swapped in.
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[200] ^= 0x10
open(sys.argv[2], "wb").write(b)' "$E2E_TMP/saved" "$E2E_TMP/flipped"
rcli -x set "bloomxdp:$CHANNEL:payload:902" <"$E2E_TMP/flipped" >/dev/null
rcli xadd "$STREAM" '*' type full version 902 key "bloomxdp:$CHANNEL:payload:902" \
	size "$(stat -c %s "$E2E_TMP/flipped")" \
	sha256 "$(sha256sum <"$E2E_TMP/flipped" | cut -c1-64)" >/dev/null
if late=$(converged refused=3 15); then ok "a payload with a flipped bit (CRC32C) is refused by all"
else not_ok "a payload with a flipped bit (CRC32C) is refused by all" "late:$late"; fi
check_eq "every node stays on version 9, node 0 enforcing it" "9 1" \
	"$(converged version=9 1 >/dev/null && echo 9) $(listed "$C_LATER")"
check_eq "node 0's metrics: version 9, the 3 refusals counted as payload failures" \
	"9 3 0 0 0 0" "$(fleet_metrics 0 "$F"_version "${FAILS[@]}")"
status=$(timeout 30 "$BLOOMXDP" fleet status --redis "$PUB" --channel "$CHANNEL" 2>&1)
if grep -qE "^n0 +$IF_SRV +9  .* 3 +[0-9]+  - +payload refused" <<<"$status"; then
	ok "fleet status shows the refusals"; diag "$(grep "n0 " <<<"$status")"
else not_ok "fleet status shows the refusals" "$status"; fi

# --- requirepass, and what is refused

rcli config set requirepass "s3cret-$E2E_ID" >/dev/null
RCLI_AUTH=(-a "s3cret-$E2E_ID" --no-auth-warning)
check_fails "publish without the password is refused, saying why" 1 "requires a password" \
	publish "$E2E_TMP/v1.txt"
PUBURL=redis://:wrong@127.0.0.1:$PORT check_fails "a wrong password is refused" 1 \
	"refused the password" publish "$E2E_TMP/v1.txt"
check_fails "rediss:// to a port without TLS fails its handshake, nothing sent in clear" 1 \
	"TLS handshake with Redis at .* (failed|timed out)" \
	publish --redis "rediss://127.0.0.1:$PORT" --channel "$CHANNEL" "$E2E_TMP/v1.txt"
stop_pid "${DAEMON[5]}"
bg_forget "${DAEMON[5]}"
daemon_start 5
if wait_log "requires a password \(NOAUTH\)" 1 10 "$E2E_TMP/node5.err"; then
	ok "a node without the password is refused and says why"
	diag "$(grep -m1 NOAUTH "$E2E_TMP/node5.err")"
else not_ok "a node without the password is refused and says why" \
	"$(tail -n 5 "$E2E_TMP/node5.err")"; fi
stop_pid "${DAEMON[5]}"
bg_forget "${DAEMON[5]}"
node_conf 5 "unix://:s3cret-$E2E_ID@$SOCK"
daemon_start 5
PUBURL=redis://:s3cret-$E2E_ID@127.0.0.1:$PORT check "publish version 10 with the password" \
	publish "$E2E_TMP/v1.txt"
if late=$(converged version=10 30); then
	ok "with the password, every node converges on version 10"
else not_ok "with the password, every node converges on version 10" "late:$late"; fi
check_eq "node 0 enforces version 10" "1 0" "$(listed "$C_LISTED") $(listed "$C_LATER")"

# --- the other sources of a version: a node's live list, a file of 'bloomxdp save'

export PUBURL=redis://:s3cret-$E2E_ID@127.0.0.1:$PORT
check "publish --from node 0's interface (version 11)" \
	timeout 60 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" publish \
	--redis "unix://:s3cret-$E2E_ID@$SOCK" \
	--channel "$CHANNEL" --from "$IF_SRV"
if late=$(converged version=11 30); then ok "every node converges on version 11"; else
	not_ok "every node converges on version 11" "late:$late"; fi
check "publish the file 'bloomxdp save' wrote (version 12, the list of version 9)" \
	publish "$E2E_TMP/saved"
if late=$(converged version=12 30); then ok "every node converges on version 12"; else
	not_ok "every node converges on version 12" "late:$late"; fi
check_eq "node 0 enforces version 12" "1 1" "$(listed "$C_LISTED") $(listed "$C_LATER")"
# A payload of format version 1, as an older bloomxdp saved it (no writer, a 160-byte header):
# checked by the publisher, taken by every node, its bits read after its own header.
savefile_v1 "$E2E_TMP/saved" "$E2E_TMP/saved.v1"
check "publish version 13 (the list of version 10, without $C_LATER)" publish "$E2E_TMP/v1.txt"
if late=$(converged version=13 30); then ok "every node converges on version 13"; else
	not_ok "every node converges on version 13" "late:$late"; fi
check_eq "node 0 enforces version 13" "1 0" "$(listed "$C_LISTED") $(listed "$C_LATER")"
out=$(publish "$E2E_TMP/saved.v1" 2>&1)
check_eq "publish a file of format version 1 (version 14): says an older bloomxdp saved it" \
	"0 1" "$? $(grep -c "saved by an older bloomxdp" <<<"$out")" "$out"
if late=$(converged version=14 30); then ok "every node converges on version 14 (format 1)"
else not_ok "every node converges on version 14 (format 1)" "late:$late" \
	"$(tail -n 5 "$E2E_TMP/node0.err")"; fi
check_eq "node 0 enforces version 14, the list of version 9" "1 1" \
	"$(listed "$C_LISTED") $(listed "$C_LATER")"

# --- a new hash key: every node attaches again with it

check "publish --new-key (version 15)" publish --new-key "$E2E_TMP/v1.txt"
if late=$(converged version=15 30); then ok "every node attaches with the new key, version 15"
else not_ok "every node attaches with the new key, version 15" "late:$late" \
	"$(tail -n 5 "$E2E_TMP/node0.err")"; fi
check_eq "node 0 enforces version 15" "1 0" "$(listed "$C_LISTED") $(listed "$C_LATER")"
check "the new key is node 0's" grep -q "attaching again with the fleet's" "$E2E_TMP/node0.err"

tap_finish
