#!/usr/bin/env bash
# What a fleet node trusts (issue 21, 3.7: "a Redis writer commands every
# node"). A redis-server of the test's own, two nodes (node 0 is lib.sh's
# server, whose client pings show what it enforces; node 1 in a namespace of
# its own). A writer with access to Redis alone, as redis-cli:
#   - announces an all-ones filter claiming 2 entries, with a correct CRC32C
#     and SHA-256: refused by both, every unlisted source still passes;
#   - re-announces an older version: refused, the newer list still enforced;
#     publish --rollback N is the way back (a new version, taken);
# then with verify_key = the publisher's public key (publish --sign-key):
#   - a version published without the key, or with another key, a signed
#     announcement replayed as another version, an unsigned delta, a signed
#     delta replayed after its del, a set in force written into Redis for
#     nodes that start from a snapshot: all refused, the signed list enforced;
#   - a node whose state is unreadable applies nothing until it is removed.
#   - publish --sign-key --rollback refuses to sign a version it did not sign;
#   - a verify_key that is not a key: the node does not start.
# Node 0's GET /metrics counts the refusals by reason (payload, stale, signature).
# Speaks TAP; needs root; about 70 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
# shellcheck source=tests/e2e/fleet_lib.sh
. tests/e2e/fleet_lib.sh

e2e_need "fleet trust tests" redis-server redis-cli python3 sha256sum openssl

FLEET_NODES=2
C_LISTED=192.0.2.90	# in every version
C_V2=192.0.2.91		# in version 2 (v2.txt) only
C_WRITER=192.0.2.92	# what the writer without the key lists
C_FREE=192.0.2.93	# never listed by the publisher
C_DELTA=192.0.2.94	# a signed delta's
CLIENTS=("$C_LISTED" "$C_V2" "$C_WRITER" "$C_FREE" "$C_DELTA")
CHANNEL=t$E2E_ID
NODE_NS=() NODE_IF=() DAEMON=()
NODE_METRICS=([0]=9728)	# node 0's GET /metrics, a port of its namespace
FAILS=()	# fleet_metrics' words for failures_total of each reason
for r in payload signature stale; do FAILS+=("bloomxdp_fleet_failures_total,reason=\"$r\""); done

trust_cleanup() {
	local pid
	for pid in "${E2E_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${E2E_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
	E2E_PIDS=()
	[ -n "${NODE_IF[1]:-}" ] && [ -d "$PIN_ROOT/${NODE_IF[1]}" ] &&
		timeout 30 "$BLOOMXDP" detach "${NODE_IF[1]}" >/dev/null 2>&1
	[ -n "${NODE_NS[1]:-}" ] && [ -e "/run/netns/${NODE_NS[1]}" ] &&
		ip netns del "${NODE_NS[1]}" 2>/dev/null
	e2e_cleanup
}
trap trust_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
NODE_NS[0]=$NS_SRV
NODE_IF[0]=$IF_SRV
if ! node_ns_up 1; then
	not_ok "build node 1's namespace ${NODE_NS[1]}"
	tap_finish
	exit 1
fi

RDIR=$E2E_TMP/redis
SOCK=$RDIR/redis.sock
mkdir -p "$RDIR"
bg_start redis-server --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --dir "$RDIR" \
	--save '' --logfile "$RDIR/redis.log"
for ((j = 0; j < 100; j++)); do
	[ -S "$SOCK" ] && rcli ping | grep -q PONG && break
	sleep 0.05
done
if ! rcli ping | grep -q PONG; then
	not_ok "start redis-server on $SOCK" "$(tail -n 5 "$RDIR/redis.log")"
	tap_finish
	exit 1
fi
publish() { timeout 60 "$BLOOMXDP" publish --redis "unix://$SOCK" --channel "$CHANNEL" "$@"; }
STREAM=bloomxdp:$CHANNEL:stream

printf '%s\n' "$C_LISTED" evil.example >"$E2E_TMP/v1.txt"
printf '%s\n' "$C_LISTED" "$C_V2" evil.example >"$E2E_TMP/v2.txt"
printf '%s\n' "$C_WRITER" "$C_FREE" >"$E2E_TMP/writer.txt"

# announce FIELD VALUE...: an entry added to the stream by the writer (redis-cli).
announce() { rcli xadd "$STREAM" '*' "$@" >/dev/null; }
# replay FIELD VALUE [FIELD VALUE...] [-- FIELD VALUE...]: the oldest stream entry whose
# fields hold the pairs before '--' added again by the writer, with the pairs after it
# replaced (a value @NAME@V: field NAME of full version V's announcement).
replay() {
	python3 - "$SOCK" "$STREAM" "$@" <<'PY'
import socket, sys

def cmd(s, f, *args):
    s.sendall(b"*%d\r\n" % len(args) + b"".join(
        b"$%d\r\n%s\r\n" % (len(a), a) for a in (x.encode() for x in args)))
    return read(f)

def read(f):
    line = f.readline().rstrip(b"\r\n")
    t, rest = line[:1], line[1:]
    if t == b"*":
        return [read(f) for _ in range(int(rest))] if int(rest) >= 0 else None
    if t == b"$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:-2].decode()
    if t == b"-":
        raise SystemExit("redis: " + rest.decode())
    return rest.decode()

sock, stream, a = sys.argv[1], sys.argv[2], sys.argv[3:]
i = a.index("--") if "--" in a else len(a)
want, repl = a[:i], a[i + 1:]
s = socket.socket(socket.AF_UNIX)
s.connect(sock)
f = s.makefile("rb")
entries = [dict(zip(x[0::2], x[1::2])) for _, x in cmd(s, f, "XRANGE", stream, "-", "+")]
for d in entries:
    if all(d.get(k) == v for k, v in zip(want[0::2], want[1::2])):
        for k, v in zip(repl[0::2], repl[1::2]):
            # "@FIELD@VERSION": that field of full version VERSION's announcement.
            if v.startswith("@"):
                _, name, ver = v.split("@")
                v = next(e[name] for e in entries if e.get("type") == "full" and
                         e.get("version") == ver)
            d[k] = v
        print(cmd(s, f, "XADD", stream, "*", *[x for kv in d.items() for x in kv]))
        break
else:
    raise SystemExit("no entry with " + " ".join(want))
PY
}

# refused_mark; ...; refused_more SECONDS: until each node refused one more than at the mark.
refused_mark() { R0=$(field 0 refused); R1=$(field 1 refused); }
refused_more() {
	local t
	for ((t = 0; t < $1 * 5; t++)); do
		[ "$(field 0 refused)" -gt "${R0:-0}" ] && [ "$(field 1 refused)" -gt "${R1:-0}" ] &&
			return 0
		sleep 0.2
	done
	echo "refused: n0 $(field 0 refused) (was $R0), n1 $(field 1 refused) (was $R1)"
	return 1
}

for i in 0 1; do node_conf "$i" "unix://$SOCK"; done

# --- without verify_key: a payload inconsistent with itself, an older version

check "publish version 1" publish "$E2E_TMP/v1.txt"
daemon_start 0
daemon_start 1
if late=$(converged version=1 30); then ok "both nodes apply version 1"; else
	not_ok "both nodes apply version 1" "late:$late" "$(tail -n 5 "$E2E_TMP/node0.err")"; fi
check "publish version 2" publish "$E2E_TMP/v2.txt"
if late=$(converged version=2 30); then ok "both nodes apply version 2"; else
	not_ok "both nodes apply version 2" "late:$late"; fi
check_eq "node 0 drops version 2's clients, passes the unlisted one" "1 1 0" \
	"$(listed "$C_LISTED") $(listed "$C_V2") $(listed "$C_FREE")"

# The forged payload: node 0's live filter saved, every bit set, entries and keys 2, its
# CRC32C recomputed, announced with its true size and SHA-256.
bx save "$IF_SRV" "$E2E_TMP/saved" >/dev/null 2>&1
python3 - "$E2E_TMP/saved" "$E2E_TMP/forged" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
m = struct.unpack_from("<Q", b, 24)[0]
b[160:160 + m // 8] = b"\xff" * (m // 8)
struct.pack_into("<QQ", b, 80, 2, 2)
crc = 0xFFFFFFFF
for x in b[:-4]:
    crc ^= x
    for _ in range(8):
        crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
struct.pack_into("<I", b, len(b) - 4, crc ^ 0xFFFFFFFF)
open(sys.argv[2], "wb").write(b)
PY
rcli -x set "bloomxdp:$CHANNEL:payload:900" <"$E2E_TMP/forged" >/dev/null
refused_mark
announce type full version 900 key "bloomxdp:$CHANNEL:payload:900" \
	size "$(stat -c %s "$E2E_TMP/forged")" sha256 "$(sha256sum <"$E2E_TMP/forged" | cut -c1-64)"
if late=$(refused_more 15); then
	ok "an all-ones filter claiming 2 entries (CRC32C, SHA-256 correct) is refused by both"
	diag "$(grep -m1 "bits are set" "$E2E_TMP/node0.err")"
else not_ok "an all-ones filter claiming 2 entries (CRC32C, SHA-256 correct) is refused by both" \
	"late:$late" "$(tail -n 3 "$E2E_TMP/node0.err")"; fi
check_eq "node 0 still passes unlisted clients and drops listed ones (version 2)" "0 0 1 1 2" \
	"$(listed "$C_FREE") $(listed "$C_WRITER") $(listed "$C_LISTED") $(listed "$C_V2") \
$(field 0 version)"

# Version 1's announcement added again (its payload is still kept): a rollback by a writer.
refused_mark
check "the writer announces version 1 again" replay type full version 1
if late=$(refused_more 15); then ok "version 1 announced again is refused by both"
	diag "$(grep -m1 "not newer than" "$E2E_TMP/node0.err")"
else not_ok "version 1 announced again is refused by both" "late:$late"; fi
check_eq "node 0 stays on version 2: its client still dropped" "1 2" \
	"$(listed "$C_V2") $(field 0 version)"
check_eq "node 0's metrics count them: the forged payload (payload), version 1 again (stale)" \
	"2 1 0 1" "$(fleet_metrics 0 bloomxdp_fleet_version "${FAILS[@]}")"

check "publish --rollback 1: version 1's payload as version 3" publish --rollback 1
if late=$(converged version=3 30); then ok "both nodes take the rollback (version 3)"; else
	not_ok "both nodes take the rollback (version 3)" "late:$late"; fi
check_eq "node 0 enforces version 1's list again" "1 0" "$(listed "$C_LISTED") $(listed "$C_V2")"

# --- with verify_key: only what the publisher's key signed

openssl genpkey -algorithm ed25519 -out "$E2E_TMP/publisher.pem" 2>/dev/null
openssl genpkey -algorithm ed25519 -out "$E2E_TMP/other.pem" 2>/dev/null
chmod 600 "$E2E_TMP/publisher.pem" "$E2E_TMP/other.pem"
openssl pkey -in "$E2E_TMP/publisher.pem" -pubout -out "$E2E_TMP/publisher.pub" 2>/dev/null
chmod 644 "$E2E_TMP/other.pem"
check_fails "publish --sign-key refuses a private key others may read" 1 "chmod 600" \
	publish --sign-key "$E2E_TMP/other.pem" "$E2E_TMP/v2.txt"
chmod 600 "$E2E_TMP/other.pem"
for i in 0 1; do
	daemon_stop "$i"
	echo "verify_key = $E2E_TMP/publisher.pub" >>"$E2E_TMP/node$i.conf"
	daemon_start "$i"
done
check "publish --sign-key version 4" publish --sign-key "$E2E_TMP/publisher.pem" "$E2E_TMP/v2.txt"
if late=$(converged version=4 30); then ok "both nodes apply the signed version 4"; else
	not_ok "both nodes apply the signed version 4" "late:$late" \
		"$(tail -n 3 "$E2E_TMP/node0.err")"; fi
check_eq "node 0 enforces version 4" "1 1 0" \
	"$(listed "$C_LISTED") $(listed "$C_V2") $(listed "$C_WRITER")"
fp=$(field 0 verify_key)
status=$(timeout 30 "$BLOOMXDP" fleet status --redis "unix://$SOCK" --channel "$CHANNEL" 2>&1)
if [[ $fp == SHA256:* ]] && grep -q "^n0 .* $fp " <<<"$status" &&
   grep -q "latest version 4 (signed)" <<<"$status"; then
	ok "fleet status shows the key each node verifies with, and the latest version signed"
	diag "$(grep "n0 " <<<"$status")"
else not_ok "fleet status shows the key each node verifies with, and the latest version signed" \
	"verify_key=$fp" "$status"; fi

refused_mark
check "a writer without the key publishes version 5 (unsigned)" publish "$E2E_TMP/writer.txt"
if late=$(refused_more 15); then
	ok "the unsigned version 5 is refused by both"
	diag "$(grep -m1 "not signed with" "$E2E_TMP/node0.err")"
else not_ok "the unsigned version 5 is refused by both" "late:$late"; fi
check_eq "node 0 passes the writer's clients, enforces version 4" "0 0 1 4" \
	"$(listed "$C_WRITER") $(listed "$C_FREE") $(listed "$C_V2") $(field 0 version)"
refused_mark
check "a writer with another key publishes version 6" \
	publish --sign-key "$E2E_TMP/other.pem" "$E2E_TMP/writer.txt"
if late=$(refused_more 15); then ok "version 6, of another key, is refused"
else not_ok "version 6, of another key, is refused" "late:$late"; fi
# Version 4's signed announcement for the writer's payload (version 5's) as version 99.
refused_mark
check "the writer announces version 5's payload as 99 with version 4's signature" \
	replay type full version 4 -- version 99 key @key@5 size @size@5 sha256 @sha256@5
if late=$(refused_more 15); then
	ok "a signature made for another version and payload is refused"
else not_ok "a signature made for another version and payload is refused" "$late"; fi
check_eq "node 0 still enforces version 4" "0 1 4" \
	"$(listed "$C_WRITER") $(listed "$C_V2") $(field 0 version)"
check_eq "node 0's metrics (since its restart with verify_key): version 4, 3 signature failures" \
	"4 0 3 0" "$(fleet_metrics 0 bloomxdp_fleet_version "${FAILS[@]}")"
check_fails "publish --sign-key --rollback 5 refuses to sign the writer's version 5" 1 \
	"version 5 was not signed with" publish --sign-key "$E2E_TMP/publisher.pem" --rollback 5
check "publish --sign-key --rollback 4 (version 7, the payload both apply)" \
	publish --sign-key "$E2E_TMP/publisher.pem" --rollback 4
if late=$(converged version=7 15); then
	ok "both nodes take version 7 (version 4's payload): only the number moves"
else not_ok "both nodes take version 7 (version 4's payload): only the number moves" \
	"late:$late"; fi
check_eq "node 0 still enforces version 4's list" "0 1" "$(listed "$C_WRITER") $(listed "$C_V2")"

# --- deltas

check "publish --sign-key --add $C_DELTA" publish --sign-key "$E2E_TMP/publisher.pem" \
	--add "$C_DELTA"
if late=$(converged inforce=1 10); then ok "the signed add reaches both"; else
	not_ok "the signed add reaches both" "late:$late"; fi
check_eq "node 0 drops the added client" 1 "$(listed "$C_DELTA")"
refused_mark
check "an unsigned --add $C_FREE" publish --add "$C_FREE"
if late=$(refused_more 15); then ok "the unsigned add is refused by both"
else not_ok "the unsigned add is refused by both" "late:$late"; fi
check_eq "node 0 passes the client of the unsigned add" 0 "$(listed "$C_FREE")"
check "publish --sign-key --del $C_DELTA" publish --sign-key "$E2E_TMP/publisher.pem" \
	--del "$C_DELTA"
if late=$(converged inforce=0 10); then ok "the signed del reaches both"; else
	not_ok "the signed del reaches both" "late:$late"; fi
# The signed add of C_DELTA (the oldest entry that adds it) added again by the writer.
refused_mark
check "the writer replays the signed add" replay type add entries "$C_DELTA"
if late=$(refused_more 15); then
	ok "the signed add replayed after its del is refused (seq)"
	diag "$(grep -m1 "a replay" "$E2E_TMP/node0.err")"
else not_ok "the signed add replayed after its del is refused (seq)" "late:$late"; fi
check_eq "node 0 passes the deleted client" 0 "$(listed "$C_DELTA")"

# --- a node that starts from a snapshot takes only the signed set in force

check "publish --sign-key --add $C_DELTA again" publish --sign-key "$E2E_TMP/publisher.pem" \
	--add "$C_DELTA"
check "publish --sign-key version 8" publish --sign-key "$E2E_TMP/publisher.pem" \
	"$E2E_TMP/v2.txt"
converged version=8 30 >/dev/null
rcli hset "bloomxdp:$CHANNEL:inforce" "$C_FREE" 0 >/dev/null
daemon_stop 0
rm -f "$E2E_TMP/state/$IF_SRV/fleet-$CHANNEL.state"
daemon_start 0
if late=$(converged version=8 20); then ok "node 0 without its state starts from the snapshot"
else not_ok "node 0 without its state starts from the snapshot" "late:$late"; fi
sleep 0.5
check_eq "it enforces the signed set in force, not what the writer put in Redis" "1 0 1" \
	"$(listed "$C_DELTA") $(listed "$C_FREE") $(listed "$C_V2")"

# --- an unreadable state: nothing applied until it is removed

daemon_stop 1
printf 'bloomxdp-fleet 1\nversion 8x\n' >"$E2E_TMP/state/${NODE_IF[1]}/fleet-$CHANNEL.state"
daemon_start 1
check "publish --sign-key version 9" publish --sign-key "$E2E_TMP/publisher.pem" \
	"$E2E_TMP/v1.txt"
converged version=9 20 >/dev/null	# node 0
if wait_log "state .* is unreadable" 1 10 "$E2E_TMP/node1.err" && sleep 1 &&
   [ "$(field 1 version)" = 8 ]; then
	ok "node 1, whose state is unreadable, stays on version 8 and says which file to remove"
	diag "$(grep -m1 "is unreadable" "$E2E_TMP/node1.err")"
else not_ok "node 1, whose state is unreadable, stays on version 8" \
	"version: $(field 1 version)" "$(tail -n 3 "$E2E_TMP/node1.err")"; fi
daemon_stop 1
rm -f "$E2E_TMP/state/${NODE_IF[1]}/fleet-$CHANNEL.state"
daemon_start 1
if late=$(converged version=9 20); then ok "with the file removed, it takes version 9"; else
	not_ok "with the file removed, it takes version 9" "late:$late"; fi

# --- a verify_key that is not a key: the node does not start (no unsigned fallback)

daemon_stop 1
sed "s|^verify_key = .*|verify_key = $E2E_TMP/writer.txt|" "$E2E_TMP/node1.conf" \
	>"$E2E_TMP/node1-bad.conf"
check_fails "a node whose verify_key is no Ed25519 key refuses to start, saying why" nonzero \
	"verify_key: .* is not a PEM public Ed25519 key" timeout 30 \
	nsenter --net="/run/netns/${NODE_NS[1]}" -- "$BLOOMXDP" daemon "${NODE_IF[1]}" \
	--config "$E2E_TMP/node1-bad.conf"

tap_finish
