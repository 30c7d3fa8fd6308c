#!/usr/bin/env bash
# The fleet over TLS (rediss://): a CA and a server certificate for 127.0.0.1
# made here with openssl, a redis-server of the test's own with only a TLS
# port (and a unix socket for the test's own checks), in lib.sh's server
# namespace, where both nodes run (node 0 on lib.sh's server interface, whose
# client pings show what it enforces; node 1 on a veth of its own). Publish,
# subscribe and fleet status over rediss:// with the CA; a delta; Redis
# restarted (the nodes' TLS bridges end and come back, none left over); a
# wrong CA, the system's CAs, a name the certificate does not hold, and
# redis:// to the TLS port are refused saying why; requirepass and an ACL
# user over TLS.
# Speaks TAP; needs root; about 30 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
# shellcheck source=tests/e2e/fleet_lib.sh
. tests/e2e/fleet_lib.sh

e2e_need "fleet TLS tests" redis-server redis-cli python3 openssl

FLEET_NODES=2
C_LISTED=192.0.2.80
C_DELTA=192.0.2.81
C_LATER=192.0.2.82
CLIENTS=("$C_LISTED" "$C_DELTA" "$C_LATER")
CHANNEL=tls$E2E_ID
NODE_IF=() DAEMON=()

tls_cleanup() {
	local pid
	for pid in "${E2E_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${E2E_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
	E2E_PIDS=()
	[ -n "${NODE_IF[1]:-}" ] && [ -d "$PIN_ROOT/${NODE_IF[1]}" ] &&
		timeout 30 "$BLOOMXDP" detach "${NODE_IF[1]}" >/dev/null 2>&1
	e2e_cleanup
}
trap tls_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
NODE_IF[0]=$IF_SRV
# Node 1: a veth pair of its own in the server namespace (nothing crosses it).
NODE_IF[1]=bxe${E2E_ID}t1
if ! ip -n "$NS_SRV" link add "${NODE_IF[1]}" type veth peer name "bxe${E2E_ID}u1" ||
   ! ip -n "$NS_SRV" link set "${NODE_IF[1]}" up ||
   ! ip -n "$NS_SRV" link set "bxe${E2E_ID}u1" up; then
	not_ok "build node 1's veth ${NODE_IF[1]}"
	tap_finish
	exit 1
fi

# --- certificates: a CA, the server's (IP 127.0.0.1 only), and another CA that signed nothing

PKI=$E2E_TMP/pki
mkdir -p "$PKI"
pki() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bloomxdp test CA $E2E_ID" \
		-keyout "$PKI/ca.key" -out "$PKI/ca.pem" &&
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=some other CA $E2E_ID" \
		-keyout "$PKI/other.key" -out "$PKI/other.pem" &&
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
		-keyout "$PKI/server.key" -out "$PKI/server.csr" &&
	openssl x509 -req -in "$PKI/server.csr" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" \
		-CAcreateserial -days 2 -out "$PKI/server.pem" \
		-extfile <(printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n')
}
if ! pki >"$PKI/log" 2>&1; then
	not_ok "make a CA and a server certificate with openssl" "$(tail -n 5 "$PKI/log")"
	tap_finish
	exit 1
fi

RDIR=$E2E_TMP/redis
SOCK=$RDIR/redis.sock
mkdir -p "$RDIR"
PORT=$(in_srv python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
CA=$PKI/ca.pem
TLS=127.0.0.1:$PORT
PUB="rediss://$TLS?cacert=$CA"

# redis_start: only a TLS port on the server namespace's loopback (no client certificates),
# and a unix socket for the test's checks. Its data survives a kill (append-only file).
redis_start() {
	# nsenter execs redis-server: its PID is BG_PID, killed below as Redis lost.
	bg_start nsenter --net="/run/netns/$NS_SRV" -- redis-server --port 0 \
		--tls-port "$PORT" --bind 127.0.0.1 --tls-cert-file "$PKI/server.pem" \
		--tls-key-file "$PKI/server.key" --tls-ca-cert-file "$CA" --tls-auth-clients no \
		--unixsocket "$SOCK" --unixsocketperm 700 --dir "$RDIR" --save '' \
		--appendonly yes --appendfsync always --logfile "$RDIR/redis.log"
	REDIS_PID=$BG_PID
	for ((j = 0; j < 100; j++)); do
		[ -S "$SOCK" ] && rcli ping | grep -q PONG && return 0
		kill -0 "$REDIS_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# bxs COMMAND...: bloomxdp in the server namespace (where Redis's TLS port is).
bxs() { timeout 60 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" "$@"; }
publish() { bxs publish --redis "${PUBURL:-$PUB}" --channel "$CHANNEL" "$@"; }

# threads I: how many threads node I's daemon runs (the main one and a TLS bridge).
threads() {
	local pid
	pid=$(pgrep -P "${DAEMON[$1]}" -x bloomxdp | head -n 1)
	awk '/^Threads:/ { print $2 }' "/proc/${pid:-0}/status" 2>/dev/null
}

printf '%s\n' "$C_LISTED" 198.51.100.0/24 >"$E2E_TMP/v1.txt"
printf '%s\n' "$C_LISTED" "$C_LATER" 198.51.100.0/24 >"$E2E_TMP/v2.txt"

# Debian's redis-server is built with TLS; one built without it refuses --tls-port.
if ! redis_start; then
	not_ok "start redis-server with a TLS port (built with TLS?) on $TLS" \
		"$(tail -n 5 "$RDIR/redis.log")"
	tap_finish
	exit 1
fi
ok "redis-server listens with TLS only on $TLS"

# --- publish, subscribe and fleet status over TLS

check "publish version 1 over rediss:// with the test's CA" publish "$E2E_TMP/v1.txt"
for ((i = 0; i < FLEET_NODES; i++)); do
	node_conf "$i" "$PUB"
	daemon_start "$i"
done
if late=$(converged version=1 30); then ok "2 nodes subscribed over rediss:// converge on version 1"
else not_ok "2 nodes subscribed over rediss:// converge on version 1" "late:$late" \
	"$(tail -n 5 "$E2E_TMP/node0.err")"; fi
check_eq "node 0 drops the listed client, passes the others" "1 0 0" \
	"$(listed "$C_LISTED") $(listed "$C_DELTA") $(listed "$C_LATER")"
check_eq "each node runs one TLS bridge thread besides its main one" "2 2" \
	"$(threads 0) $(threads 1)"
status=$(bxs fleet status --redis "$PUB" --channel "$CHANNEL" --json 2>&1)
check_eq "fleet status over rediss://: both nodes at the latest version" "2 2" \
	"$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); n = d["nodes"]
print(len(n), sum(1 for x in n if x["latest"] and x["version"] == 1))' "$status" 2>&1)" "$status"

# A delta reaches the nodes on their long-lived connections (XREAD BLOCK through the bridge).
check "publish --add $C_DELTA over rediss://" publish --add "$C_DELTA"
if late=$(converged inforce=1 10); then ok "the add reaches both nodes over TLS"; else
	not_ok "the add reaches both nodes over TLS" "late:$late"; fi
check_eq "node 0 drops the added client" 1 "$(listed "$C_DELTA")"

# --- Redis killed and back: the bridges of the lost connections end, the nodes reconnect

{ kill -KILL "$REDIS_PID"; wait "$REDIS_PID"; } 2>/dev/null
bg_forget "$REDIS_PID"
check_fails "Redis down: publish over rediss:// fails and says so" 1 "cannot reach Redis" \
	publish "$E2E_TMP/v2.txt"
if redis_start; then ok "Redis restarted"; else not_ok "Redis restarted"; fi
check "publish version 2 over rediss:// once Redis is back" publish "$E2E_TMP/v2.txt"
if late=$(converged version=2 30); then ok "both nodes reconnect over TLS and converge on version 2"
else not_ok "both nodes reconnect over TLS and converge on version 2" "late:$late" \
	"$(tail -n 5 "$E2E_TMP/node0.err")"; fi
check_eq "node 0 drops the client version 2 lists" 1 "$(listed "$C_LATER")"
check_eq "the lost connections' bridge threads were joined: one each again" "2 2" \
	"$(threads 0) $(threads 1)"

# --- what is refused, saying why

check_fails "a certificate of another CA is refused, saying why" 1 \
	"certificate of Redis at .* is refused: .*certificate.*; give the CA that signed it" \
	publish --redis "rediss://$TLS?cacert=$PKI/other.pem" --channel "$CHANNEL" "$E2E_TMP/v1.txt"
check_fails "without ?cacert= the system's CAs do not know the test's: refused" 1 "is refused" \
	publish --redis "rediss://$TLS" --channel "$CHANNEL" "$E2E_TMP/v1.txt"
check_fails "a name the certificate does not hold (localhost) is refused" 1 "mismatch" \
	publish --redis "rediss://localhost:$PORT?cacert=$CA" --channel "$CHANNEL" "$E2E_TMP/v1.txt"
check_fails "redis:// to the TLS port fails, saying to use rediss://" 1 "use rediss://" \
	publish --redis "redis://$TLS" --channel "$CHANNEL" "$E2E_TMP/v1.txt"
check_fails "a CA file that cannot be read is said" 1 "cannot read the CA certificates" \
	publish --redis "rediss://$TLS?cacert=$PKI/none.pem" --channel "$CHANNEL" "$E2E_TMP/v1.txt"
check_eq "nothing refused was published: still version 2" 2 "$(rcli get "bloomxdp:$CHANNEL:version")"
daemon_stop 1
node_conf 1 "rediss://$TLS?cacert=$PKI/other.pem"
daemon_start 1
if wait_log "certificate of Redis at .* is refused: .*; give the CA" 1 10 "$E2E_TMP/node1.err"; then
	ok "a node given another CA refuses the certificate and says why"
	diag "$(grep -m1 "is refused" "$E2E_TMP/node1.err")"
else not_ok "a node given another CA refuses the certificate and says why" \
	"$(tail -n 5 "$E2E_TMP/node1.err")"; fi

# --- requirepass over TLS: AUTH after the handshake

rcli config set requirepass "s3cret-$E2E_ID" >/dev/null
RCLI_AUTH=(-a "s3cret-$E2E_ID" --no-auth-warning)
check_fails "over rediss:// without the password: refused, saying why" 1 "requires a password" \
	publish "$E2E_TMP/v1.txt"
PUBURL="rediss://:wrong@$TLS?cacert=$CA" check_fails "over rediss://, a wrong password is refused" \
	1 "refused the password" publish "$E2E_TMP/v1.txt"
daemon_stop 1
node_conf 1 "rediss://:s3cret-$E2E_ID@$TLS/0?cacert=$CA"
daemon_start 1
PUBURL="rediss://:s3cret-$E2E_ID@$TLS?cacert=$CA" check \
	"publish version 3 over rediss:// with the password" publish "$E2E_TMP/v1.txt"
if late=$(converged version=3 30); then
	ok "both nodes at version 3 (node 1 with the password over TLS)"
else not_ok "both nodes at version 3 (node 1 with the password over TLS)" "late:$late" \
	"$(tail -n 5 "$E2E_TMP/node1.err")"; fi
check_eq "node 0 enforces version 3" "1 0" "$(listed "$C_LISTED") $(listed "$C_LATER")"
# An ACL user: AUTH USER PASSWORD after the handshake.
rcli acl setuser "pub$E2E_ID" on ">pw-$E2E_ID" '~*' '+@all' >/dev/null
PUBURL="rediss://pub$E2E_ID:pw-$E2E_ID@$TLS?cacert=$CA" check \
	"publish version 4 over rediss:// as an ACL user" publish "$E2E_TMP/v2.txt"
if late=$(converged version=4 30); then ok "both nodes at version 4"; else
	not_ok "both nodes at version 4" "late:$late"; fi

tap_finish
