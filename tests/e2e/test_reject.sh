#!/usr/bin/env bash
# End-to-end test of 'attach --action reject': real sockets through a veth
# pair between two namespaces (lib.sh), bloomxdp on the server end. A TCP
# connect from a listed address is refused at once (a RST built in XDP, while
# a server listens on the port), a UDP datagram from one gets ICMP port
# unreachable (ECONNREFUSED on the client's connected socket), over IPv4 and
# IPv6; unlisted clients connect and get their echo. Then --action drop: the
# listed client waits for its timeout. Times are printed.
# Speaks TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts it.
#
# Needs root and python3. Runs in about 10 s. Touches nothing but its own
# namespaces, veths, pins, temporary directory and server process (named after
# E2E_ID), and removes them on any exit. Traffic only between the namespaces.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

PASS_OBJ=$E2E_ROOT/build/xdp_pass.bpf.o
PORT=8080
FAST_MS=100	# "at once": a refusal within this
TIMEOUT_S=1	# the client's timeout under --action drop

e2e_need "end-to-end reject tests" python3 ss
if [ ! -f "$PASS_OBJ" ]; then
	skip "end-to-end reject tests" "$PASS_OBJ is missing: run 'make' first"
	tap_finish
	exit 0
fi
e2e_install_trap

CLI4=192.0.2.2
CLI6=2001:db8:b10::2
LIST4=192.0.2.10
LIST6=2001:db8:b10::10

if ! topo_up "$CLI4" "$CLI6" "$LIST4" "$LIST6"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV"

# A TCP listener and a UDP echo on $PORT, IPv4 and IPv6: without them the
# server's own stack would refuse, and a refusal would prove nothing.
cat >"$E2E_TMP/server.py" <<'EOF'
import select, socket, sys
port = int(sys.argv[1])
socks = []
for fam, addr in ((socket.AF_INET, sys.argv[2]), (socket.AF_INET6, sys.argv[3])):
    t = socket.socket(fam, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind((addr, port))
    t.listen(64)
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.bind((addr, port))
    socks += [t, u]
while True:
    for s in select.select(socks, [], [])[0]:
        if s.type == socket.SOCK_STREAM:
            c, _ = s.accept()
            c.close()
        else:
            data, peer = s.recvfrom(2048)
            s.sendto(data, peer)
EOF
# client.py SRC DST PORT tcp|udp TIMEOUT: prints the outcome and the milliseconds it took.
cat >"$E2E_TMP/client.py" <<'EOF'
import socket, sys, time
src, dst, port, mode, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM if mode == "tcp" else socket.SOCK_DGRAM)
s.settimeout(timeout)
s.bind((src, 0))
t = time.monotonic()
try:
    s.connect((dst, port))
    if mode == "udp":
        s.send(b"ping")
        s.recv(64)
    r = "connected" if mode == "tcp" else "echo"
except ConnectionRefusedError:
    r = "refused"
except socket.timeout:
    r = "timeout"
except OSError as e:
    r = "error-%d" % e.errno
print(r, int((time.monotonic() - t) * 1000))
EOF
bg_start timeout 60 nsenter --net="/run/netns/$NS_SRV" -- python3 "$E2E_TMP/server.py" "$PORT" \
	"$SRV4" "$SRV6"
if wait_listen tcp "$PORT" && wait_listen udp "$PORT"; then
	ok "server listening on TCP and UDP $PORT"
else
	not_ok "server listening on TCP and UDP $PORT"
fi

# try SRC tcp|udp [TIMEOUT]: "OUTCOME MS" of one client from SRC.
try() {
	local dst=$SRV4
	case $1 in *:*) dst=$SRV6 ;; esac
	in_cli timeout 10 python3 "$E2E_TMP/client.py" "$1" "$dst" "$PORT" "$2" "${3:-3}" 2>&1
}

# expect_fast SRC PROTO OUTCOME: OUTCOME within FAST_MS.
expect_fast() {
	local out ms
	out=$(try "$1" "$2")
	ms=${out#* }
	if [ "${out%% *}" = "$3" ] && [ "$ms" -lt "$FAST_MS" ] 2>/dev/null; then
		ok "$2 from $1: $3 in $ms ms"
	else
		not_ok "$2 from $1: $3 within $FAST_MS ms" "got: $out"
	fi
}

# veth delivers XDP_TX frames only to a peer with NAPI on: an XDP program.
if out=$(ip -n "$NS_CLI" link set dev "$IF_CLI" xdp obj "$PASS_OBJ" sec xdp 2>&1); then
	ok "xdp_pass on the client end $IF_CLI"
else
	not_ok "xdp_pass on the client end $IF_CLI" "$out"
fi
printf '%s\n%s\n' "$LIST4" "$LIST6" >"$E2E_TMP/list.txt"
check "attach --action reject" bx attach "$IF_SRV" --mode native --capacity 1000 \
	--action reject
check "load the list" bx load "$IF_SRV" "$E2E_TMP/list.txt"
check_eq "status --json: action reject, icmp_per_sec 1000" "reject 1000" \
	"$(json_str "$(status_json)" action) $(json_num "$(status_json)" icmp_per_sec)"

before=$(stats_json)
expect_fast "$LIST4" tcp refused
expect_fast "$LIST6" tcp refused
expect_fast "$LIST4" udp refused
expect_fast "$LIST6" udp refused
expect_fast "$CLI4" tcp connected
expect_fast "$CLI6" tcp connected
expect_fast "$CLI4" udp echo
expect_fast "$CLI6" udp echo
after=$(stats_json)
check_eq "stats: rejected +4, icmp_ratelimited +0" "4 0" \
	"$(deltas "$before" "$after" rejected icmp_ratelimited)" "$after"

check "attach --force --action drop" bx attach "$IF_SRV" --force --mode native \
	--capacity 1000 --action drop
for src in "$LIST4" "$LIST6"; do
	out=$(try "$src" tcp "$TIMEOUT_S")
	ms=${out#* }
	if [ "${out%% *}" = timeout ] && [ "$ms" -ge $((TIMEOUT_S * 1000)) ] 2>/dev/null; then
		ok "drop: tcp from $src waits for its timeout ($ms ms)"
	else
		not_ok "drop: tcp from $src waits for its timeout" "got: $out"
	fi
done
expect_fast "$CLI4" tcp connected

check "detach" bx detach "$IF_SRV"
e2e_cleanup
left=$(e2e_leftovers)
check_eq "nothing left behind" "" "$left"
tap_finish
