#!/usr/bin/env bash
# End-to-end test of bloomxdp at jumbo MTUs on a veth pair between two network
# namespaces (see lib.sh). At MTU 1500, 4000 and 9000 on both ends: 'attach
# --mode native' takes (the program is multi-buffer aware, xdp.frags), pings
# of the MTU's size from a listed source get no reply and from an unlisted one
# replies, counted frame by frame and byte by byte. A TLS ClientHello whose
# server_name lies past byte 3,520 of its frame (past veth's first buffer, in
# a fragment), sent in one send() over a real TCP connection to a listener in
# the server namespace: dropped when its name is listed (--match sni,
# hits_sni), through when not; at MTU 1500 the same hello spans segments and
# passes (unparsed_tls: the SNI must be in the segment the record starts in).
# Then the one-line reasons of a refused native attach: fewer rx queues than
# the veth peer has tx queues, a driver without native XDP.
# Speaks TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts it.
#
# Needs root and python3. Runs in about 50 s. Touches nothing but its own
# namespaces, veths, bridge and pins (all named after E2E_ID), and removes them
# on any exit. Traffic only between the two namespaces.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "jumbo MTU tests" python3

# More interfaces of ours, in the server's namespace: a veth whose peer has
# more tx queues than it has rx queues, and a bridge (no native XDP).
IF_FEWQ=bxe${E2E_ID}q
IF_FEWQ_PEER=bxe${E2E_ID}r
IF_BR=bxe${E2E_ID}b
jumbo_cleanup() {
	local i
	for i in "$IF_FEWQ" "$IF_BR"; do
		[ -d "$PIN_ROOT/$i" ] && timeout 30 "$BLOOMXDP" detach "$i" >/dev/null 2>&1
	done
	e2e_cleanup
}
e2e_install_trap
trap jumbo_cleanup EXIT

C4_BLOCK=192.0.2.10
C4_PASS=192.0.2.12
C6_BLOCK=2001:db8:b10::10
C6_PASS=2001:db8:b10::12
CLIENTS=("$C4_BLOCK" "$C4_PASS" "$C6_BLOCK" "$C6_PASS")
TLS_PORT=443

if ! topo_up "${CLIENTS[@]}"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV"

LIST=$E2E_TMP/jumbo.txt
printf '%s\n' "$C4_BLOCK" "$C6_BLOCK" evil.example >"$LIST"

# ------------------------------------------------------------ helpers
# ping_size SRC SIZE COUNT: COUNT echo requests of SIZE payload bytes from SRC
# to the server, never fragmented (-M do); prints "TRANSMITTED RECEIVED".
ping_size() {
	local src=$1 size=$2 count=$3 dst out tx rx
	case $src in *:*) dst=$SRV6 ;; *) dst=$SRV4 ;; esac
	out=$(timeout 10 nsenter --net="/run/netns/$NS_CLI" -- \
		ping -n -q -M "do" -s "$size" -c "$count" -i 0.05 -W 1 -I "$src" "$dst" 2>&1)
	tx=$(sed -n 's/^\([0-9][0-9]*\) packets transmitted.*/\1/p' <<<"$out")
	rx=$(sed -n 's/.*transmitted, \([0-9][0-9]*\) received.*/\1/p' <<<"$out")
	echo "${tx:-0} ${rx:-0}"
}

# The hello's sender and the listener, in Python: a ClientHello of one record
# (legacy_version, random, a session id, three suites, no compression), its
# extensions a padding extension (RFC 7685) of PAD bytes, then server_name.
TLS_PY=$E2E_TMP/tls.py
cat >"$TLS_PY" <<'EOF'
import socket, struct, sys, time

def client_hello(name, pad):
    name = name.encode()
    sni = struct.pack('!HHHBH', 0, len(name) + 5, len(name) + 3, 0, len(name)) + name
    exts = struct.pack('!HH', 21, pad) + bytes(pad) + sni
    body = (b'\x03\x03' + bytes(range(32)) + b'\x20' + bytes(32) +
            b'\x00\x06\x13\x01\x13\x02\x13\x03' + b'\x01\x00' +
            struct.pack('!H', len(exts)) + exts)
    hs = b'\x01' + struct.pack('!I', len(body))[1:] + body
    return b'\x16\x03\x01' + struct.pack('!H', len(hs)) + hs, 5 + len(hs) - len(name)

def family(addr):
    return socket.AF_INET6 if ':' in addr else socket.AF_INET

if sys.argv[1] == 'serve':
    # serve ADDR PORT OUT: accept one connection, write the bytes it brought
    # within 3 s of its start (or "none" if none came) to OUT.
    addr, port, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(1)
    s.settimeout(15)
    try:
        c, _ = s.accept()
    except socket.timeout:
        open(out, 'w').write('none\n')
        sys.exit(0)
    got, end = 0, time.time() + 3
    while time.time() < end:
        c.settimeout(max(end - time.time(), 0.01))
        try:
            d = c.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not d:
            break
        got += len(d)
    open(out, 'w').write('%d\n' % got)
else:
    # send SRC DST PORT NAME PAD: the hello in one send(); prints its length
    # and where the name starts in it; then a reset (SO_LINGER 0), so that
    # nothing is retransmitted into later checks.
    src, dst, port, name, pad = sys.argv[2:7]
    data, name_at = client_hello(name, int(pad))
    s = socket.socket(family(dst), socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.bind((src, 0))
    s.settimeout(5)
    s.connect((dst, int(port)))
    s.sendall(data)
    print(len(data), name_at)
    time.sleep(3.5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    s.close()
EOF

# tls_try SRC NAME PAD: sends the hello for NAME (PAD bytes of padding before
# it) from SRC; prints "SENT_BYTES NAME_OFFSET_IN_RECORD RECEIVED_BYTES".
tls_try() {
	local src=$1 name=$2 pad=$3 dst out=$E2E_TMP/tls.out srv sent
	case $src in *:*) dst=$SRV6 ;; *) dst=$SRV4 ;; esac
	rm -f "$out"
	bg_start timeout 20 nsenter --net="/run/netns/$NS_SRV" -- \
		python3 "$TLS_PY" serve "$dst" "$TLS_PORT" "$out"
	srv=$BG_PID
	if ! wait_listen tcp "$TLS_PORT"; then
		echo "(no listener on $TLS_PORT)"
		stop_pid "$srv"
		return
	fi
	sent=$(timeout 10 nsenter --net="/run/netns/$NS_CLI" -- \
		python3 "$TLS_PY" send "$src" "$dst" "$TLS_PORT" "$name" "$pad" 2>&1)
	wait_pid "$srv" 10 >/dev/null
	echo "$sent $(cat "$out" 2>/dev/null || echo '?')"
}

set_mtu() {
	ip -n "$NS_CLI" link set dev "$IF_CLI" mtu "$1" &&
		ip -n "$NS_SRV" link set dev "$IF_SRV" mtu "$1"
}

# ------------------------------------------------------------ pings at each MTU
# without_control PACKETS BYTES p b REST...: "p b REST" with the kernel's own control frames
# taken out of p and b: what exceeds PACKETS by 1 to 3 frames of 40 to 200 bytes each (said);
# anything else is left as it is, for the check to show.
without_control() {
	local want_p=$1 want_b=$2 p=$3 b=$4 extra extra_b
	shift 4
	extra=$((p - want_p))
	extra_b=$((b - want_b))
	if [ "$extra" -ge 1 ] && [ "$extra" -le 3 ] && [ "$extra_b" -ge $((extra * 40)) ] &&
	   [ "$extra_b" -le $((extra * 200)) ]; then
		diag "$extra control frame(s) of $extra_b bytes in all came between the readings" >&2
		p=$want_p
		b=$want_b
	fi
	echo "$p $b $*"
}

N=3
for mtu in 1500 4000 9000; do
	check "MTU $mtu on both ends of the veth" set_mtu "$mtu" || continue
	out=$(bx attach "$IF_SRV" --mode native --match src,dst,sni 2>&1)
	rc=$?
	check_eq "MTU $mtu: attach --mode native succeeds" 0 "$rc" "$out" || continue
	check_eq "MTU $mtu: status says native" native "$(json_str "$(status_json)" mode)"
	check "MTU $mtu: load the list" bx load "$IF_SRV" "$LIST"

	before=$(stats_json)
	declare -A got=()
	for src in "${CLIENTS[@]}"; do
		case $src in *:*) size=$((mtu - 48)) ;; *) size=$((mtu - 28)) ;; esac
		got[$src]=$(ping_size "$src" "$size" "$N")
	done
	after=$(stats_json)
	check_eq "MTU $mtu: pings of $((mtu - 28)) bytes from listed $C4_BLOCK: no reply" \
		"$N 0" "${got[$C4_BLOCK]}"
	check_eq "MTU $mtu: pings of $((mtu - 48)) bytes from listed $C6_BLOCK: no reply" \
		"$N 0" "${got[$C6_BLOCK]}"
	check_eq "MTU $mtu: pings of $((mtu - 28)) bytes from unlisted $C4_PASS: replies" \
		"$N $N" "${got[$C4_PASS]}"
	check_eq "MTU $mtu: pings of $((mtu - 48)) bytes from unlisted $C6_PASS: replies" \
		"$N $N" "${got[$C6_PASS]}"
	# Every frame is MTU + 14 bytes long: bytes counts the fragments too. The kernel's own
	# few small frames (IPv6 neighbour and multicast traffic, at moments of its choosing)
	# may come between the two readings: up to 3 of at most 200 bytes are taken out.
	check_eq "MTU $mtu: packets, bytes, dropped, hits_v4, hits_v6, split_headers" \
		"$((4 * N)) $((4 * N * (mtu + 14))) $((2 * N)) $N $N 0" \
		"$(without_control "$((4 * N))" "$((4 * N * (mtu + 14)))" \
		  $(deltas "$before" "$after" packets bytes dropped hits_v4 hits_v6 split_headers))"
	unset got

	# ------------------------------------------------ a ClientHello past byte 3,520
	# The name's offset in the frame: 14 + 20 (40) + 32 (TCP with timestamps)
	# + its offset in the record. At 1500 the hello is 5 KB in four segments.
	case $mtu in 1500 | 9000) pad=4800 ;; *) pad=3400 ;; esac
	for src in "$C4_PASS" "$C6_PASS"; do
		case $src in *:*) l3=40 ;; *) l3=20 ;; esac
		before=$(stats_json)
		res=$(tls_try "$src" evil.example "$pad")
		after=$(stats_json)
		at=$((14 + l3 + 32 + $(awk '{print $2 + 0}' <<<"$res")))
		read -r sent _ recvd <<<"$res"
		d=$(deltas "$before" "$after" hits_sni unparsed_tls dropped)
		read -r hits unparsed dropped <<<"$d"
		if [ "$mtu" = 1500 ]; then
			check_eq "MTU 1500: listed evil.example from $src, in segments: through" \
				"$sent 0" "$recvd $hits" "$res"
			check "MTU 1500: ... counted unparsed_tls" test "$unparsed" -ge 1
			continue
		fi
		check_eq "MTU $mtu: listed evil.example at frame byte $at from $src: dropped" \
			0 "$recvd" "$res"
		check "MTU $mtu: ... dropped, counted hits_sni" \
			test "$hits" -ge 1 -a "$dropped" -ge 1
		before=$(stats_json)
		res=$(tls_try "$src" fine.example "$pad")
		after=$(stats_json)
		read -r sent _ recvd <<<"$res"
		check_eq "MTU $mtu: unlisted fine.example at frame byte $at from $src: through" \
			"$sent" "$recvd" "$res"
		check_eq "MTU $mtu: ... checked_sni 1, hits_sni 0, dropped 0" "1 0 0" \
			"$(deltas "$before" "$after" checked_sni hits_sni dropped)"
	done
	check "MTU $mtu: detach" bx detach "$IF_SRV"
done

# ------------------------------------------------------------ why native is refused
auto_out=
if check "a veth with 1 rx queue, its peer 4 tx queues" \
	ip -n "$NS_SRV" link add "$IF_FEWQ" numtxqueues 1 numrxqueues 1 type veth \
	peer name "$IF_FEWQ_PEER" numtxqueues 4 numrxqueues 4; then
	ip -n "$NS_SRV" link set "$IF_FEWQ" up
	ip -n "$NS_SRV" link set "$IF_FEWQ_PEER" up
	why="$IF_FEWQ has 1 rx queue, fewer than its veth peer has tx queues"
	want="^bloomxdp: cannot attach XDP to $IF_FEWQ in native mode: $why; "
	want+=".*numrxqueues N\), or try --mode generic$"
	check_fails "attach --mode native: too few rx queues, said in one line" 1 "$want" \
		bx attach "$IF_FEWQ" --mode native
	auto_out=$(bx attach "$IF_FEWQ" 2>&1 >/dev/null)
	check_eq "attach (auto): generic, with a notice that says why" \
		"bloomxdp: notice: $why: attached in generic mode" \
		"$(grep -o '^bloomxdp: notice: .*: attached in generic mode' <<<"$auto_out")" \
		"$auto_out"
	check "detach $IF_FEWQ" bx detach "$IF_FEWQ"
fi
if ip -n "$NS_SRV" link add "$IF_BR" type bridge 2>/dev/null; then
	ip -n "$NS_SRV" link set "$IF_BR" up
	want="^bloomxdp: cannot attach XDP to $IF_BR in native mode: "
	want+="the driver of $IF_BR has no native XDP; try --mode generic$"
	check_fails "attach --mode native to a bridge: its driver has no native XDP" 1 "$want" \
		bx attach "$IF_BR" --mode native
else
	skip "attach --mode native to a bridge" "this kernel makes no bridge"
fi

if [ ! -e "$PIN_DIR" ] && [ ! -e "$PIN_ROOT/$IF_FEWQ" ] && [ -z "$(xdp_on_if)" ]; then
	ok "no pins and no XDP program left on $IF_SRV, $IF_FEWQ"
else
	not_ok "no pins and no XDP program left" "$(ls -la "$PIN_DIR" "$PIN_ROOT/$IF_FEWQ" 2>&1)"
fi
tap_finish
