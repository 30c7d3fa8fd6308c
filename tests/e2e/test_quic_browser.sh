#!/usr/bin/env bash
# End-to-end test of '--match sni' on a real browser's HTTP/3 (issue 24): Debian's
# Chromium, headless, in the client's namespace (see lib.sh), fetches pages from
# Debian's ngtcp2 server (gtlsserver, HTTP/3 over QUIC v1) in the server's, where
# bloomxdp is attached natively with --match sni and a list holding listed.example.
# Nothing listens on TCP 443 there, and Chromium is told to speak QUIC to the names
# fetched (--origin-to-force-quic-on): a page that loads came over HTTP/3, and no
# TCP fallback can carry a listed one. Holds:
# - unlisted names load, over HTTP/3: the page's token in the DOM (--dump-dom), a
#   QUIC session whose handshake completed and HTTP/3 response headers in Chromium's
#   net-log, no TCP connection tried, the request in the server's log; checked_quic
#   counts them, hits_quic and dropped +0, unparsed_quic +0;
# - listed names (the listed name and a name under it) never load: no DOM token, no
#   request at the server, no TCP tried; hits_quic counts them, dropped = hits_quic,
#   unparsed_quic +0;
# - Chrome's first flights captured once (tests/e2e/chrome_flights.hex), replayed to
#   a UDP sink on a QUIC port: the same ClientHello layouts every run, where the live
#   fetches get one at random (extension order is random).
# What Chrome's Initials hold is printed from the server's log (quic_tools.py hellos).
#
# Found while writing it (Chromium 156.0.8078.114, ngtcp2 0.12.1 over GnuTLS 3.7.9):
# - Chrome's ClientHello is 1,880 to 1,991 bytes (an X25519MLKEM768 key share of
#   1,216 bytes beside X25519's; GnuTLS picks X25519) in two Initials of 1,250-byte
#   datagrams, packet numbers 1 and 2, no SCID. The first carries the hello's first 55
#   to 86 bytes AND its last 856 to 936; the second the middle: head and tail, then
#   middle, every time (Chrome's net-log shows the same two CRYPTO frames a packet
#   before its chaos protection cuts them up). Each Initial holds 3 to 12 CRYPTO
#   frames, shuffled, among 2 to 10 PINGs and 1 to 8 PADDING frames. Extension order is
#   random: a server_name after key_share (half of the hellos) lies in the first
#   Initial's tail; of 61 hellos, it lay in the head in 3, in the second Initial in 33,
#   in the tail in 25.
# - Every hello carries encrypted_client_hello (0xfe0d): Chrome's GREASE ECH. ech_seen
#   counts every Chrome hello read to its end, and --ech drop would drop them all.
# - bpf/quic.h reads such a flight so: the head is walked, the tail (past the gap the
#   middle leaves) is stashed in the connection's kept walk, and the second Initial's
#   middle completes the walk, through the stash to the name (or the walk jumps over
#   key_share's body into the tail, finds the name in the first Initial, and keeps the
#   walk, so that the second is dropped without crypto). Before the stash, 28 of 44
#   fetches of listed names loaded (the name in the tail, half of Chrome's hellos).
# - ngtcp2's server answers an Initial whose CRYPTO data does not start at 0 (the
#   middle, its first Initial dropped) with a Retry: Chrome then sends its hello again
#   under a new DCID, with a token, split elsewhere (a shorter head).
# - Chromium's flags: --headless=new, --no-sandbox (root), --disable-gpu,
#   --user-data-dir, --origin-to-force-quic-on=NAME:443 (QUIC without Alt-Svc, no
#   TCP job), --host-resolver-rules="MAP NAME ADDR, MAP * ~NOTFOUND" (nothing else
#   resolves: no background request reaches the server),
#   --ignore-certificate-errors-spki-list (the self-signed certificate's key, SHA-256,
#   base64), --log-net-log, --dump-dom, --timeout. A blocked fetch ends when Chrome
#   gives the handshake up (4 s of silence): about 5 s.
#
# Needs root, chromium, gtlsserver (ngtcp2-server), openssl, python3
# (tests/install-deps.sh). Runs in about 13 s. Touches nothing but its own
# namespaces, veths, pins, temporary directory (Chromium's profiles, HOME and
# caches in it) and processes (each Chromium in the process group of its
# timeout(1), ended with it), all named after E2E_ID; traffic only between the two
# namespaces. Speaks TAP; tests/run.sh counts it.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

TOOLS=$E2E_ROOT/tests/e2e/quic_tools.py
FLIGHTS=$E2E_ROOT/tests/e2e/chrome_flights.hex

e2e_need "HTTP/3 from Chromium through --match sni" chromium gtlsserver openssl python3
e2e_install_trap
T0=$SECONDS

CLI4=192.0.2.2
SINK_PORT=8443		# a QUIC port where a UDP sink of the test's own gets replayed flights
TOKEN=h3-ok-$E2E_ID	# the page's
UNLISTED=(www.unlisted.example unlisted.example)
LISTED=(www.listed.example listed.example www.listed.example listed.example)

if ! topo_up "$CLI4"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV"

# ------------------------------------------------------------ helpers

# chrome_start KEY NAME: headless Chromium in the client's namespace fetching
# https://NAME/ over QUIC only, NAME resolved to the server and nothing else; its
# files (dom, err, netlog.json, profile, HOME) in $E2E_TMP/chrome.KEY. Bounded by
# timeout(1), whose process group holds every Chromium process.
declare -A CHROME_NAME
chrome_start() {
	local key=$1 name=$2 d=$E2E_TMP/chrome.$1
	mkdir -p "$d"
	CHROME_NAME[$key]=$name
	bg_start timeout -k 3 25 nsenter --net="/run/netns/$NS_CLI" -- \
		env HOME="$d" XDG_CONFIG_HOME="$d/config" XDG_CACHE_HOME="$d/cache" \
		chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$d/profile" \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --password-store=basic \
		--enable-quic --origin-to-force-quic-on="$name:443" \
		--host-resolver-rules="MAP $name $SRV4, MAP * ~NOTFOUND" \
		--ignore-certificate-errors-spki-list="$SPKI" \
		--log-net-log="$d/netlog.json" --timeout=15000 --dump-dom "https://$name/" \
		>"$d/dom" 2>"$d/err"
	JOB_PID[$d/dom]=$BG_PID
}
loaded() { grep -q "$TOKEN" "$E2E_TMP/chrome.$1/dom"; }
netlog() { python3 "$TOOLS" netlog "$E2E_TMP/chrome.$1/netlog.json" "${CHROME_NAME[$1]}"; }

# The server's log: log_mark, then hellos_since MARK: quic_tools.py hellos of the
# lines since (the connections of one phase).
SRV_LOG=$E2E_TMP/server.log
log_mark() { wc -l <"$SRV_LOG"; }
hellos_since() {
	tail -n +$(($1 + 1)) "$SRV_LOG" >"$E2E_TMP/server.part"
	python3 "$TOOLS" hellos "$E2E_TMP/server.part"
}
# field LINES KEY: KEY's value in each line of hellos' output.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p; s/^$2=\([^ ]*\).*/\1/p" <<<"$1"; }
sum_field() { field "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'; }
# describe LINES: Chrome's Initials as the server got them, a diagnostic a connection.
describe() {
	local line name
	while read -r line; do
		[ -n "$line" ] || continue
		name="$(field "$line" name): hello of $(field "$line" len) bytes, server_name at"
		name+=" $(field "$line" at) ($(field "$line" where)), ECH $(field "$line" ech)"
		[ "$(field "$line" name)" = - ] && name="a hello never read whole by the server"
		diag "$name; Initials (CRYPTO,PING,PADDING frames:ranges): $(field "$line" pkts)"
	done <<<"$1"
}
# The UDP sink: one line of hex a datagram.
SINK=$E2E_TMP/sink.hex
sink_mark() { wc -l <"$SINK"; }

# ------------------------------------------------------------ servers
# A self-signed certificate of this run for the names fetched; Chromium trusts
# its key (SHA-256 of the SubjectPublicKeyInfo, base64).
mkdir -p "$E2E_TMP/htdocs"
printf '<html><body><p id="token">%s</p></body></html>\n' "$TOKEN" >"$E2E_TMP/htdocs/index.html"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-keyout "$E2E_TMP/key.pem" -out "$E2E_TMP/cert.pem" -subj "/CN=quic-browser.example" \
	-addext "subjectAltName=DNS:*.example,DNS:*.listed.example,DNS:*.unlisted.example" \
	>"$E2E_TMP/openssl.log" 2>&1
SPKI=$(openssl x509 -in "$E2E_TMP/cert.pem" -pubkey -noout | openssl pkey -pubin -outform der |
	openssl dgst -sha256 -binary | base64)
# Not -q: its log (frames received, the ClientHello's bytes, the HTTP/3 requests) is read.
bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- gtlsserver --no-http-dump \
	-d "$E2E_TMP/htdocs" "$SRV4" 443 "$E2E_TMP/key.pem" "$E2E_TMP/cert.pem" >"$SRV_LOG" 2>&1
: >"$SINK"
bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- python3 "$TOOLS" udp-sink "$SRV4" \
	"$SINK_PORT" "$SINK" 110
if wait_listen udp 443 && wait_listen udp "$SINK_PORT" &&
	[ -z "$(in_srv ss -H -tln 2>&1)" ] && [ -n "$SPKI" ]; then
	ok "gtlsserver on UDP $SRV4:443, a sink on UDP $SINK_PORT; nothing listens on TCP in $NS_SRV"
else
	not_ok "gtlsserver and the sink listen in $NS_SRV, nothing on TCP" "$(cat "$SRV_LOG")" \
		"$(in_srv ss -tuln 2>&1)" "SPKI: $SPKI" "$(cat "$E2E_TMP/openssl.log")"
	tap_finish
	exit 1
fi

LIST=$E2E_TMP/list.txt
echo listed.example >"$LIST"
check "attach $IF_SRV --mode native --match sni --quic-ports 443,$SINK_PORT" bx attach "$IF_SRV" \
	--mode native --capacity 1000 --match sni --quic-ports "443,$SINK_PORT" &&
	check "load the list (listed.example)" bx load "$IF_SRV" "$LIST"

# ------------------------------------------------------------ unlisted names
before=$(stats_json)
mark=$(log_mark)
t=$SECONDS
keys=()
for ((i = 0; i < ${#UNLISTED[@]}; i++)); do
	chrome_start "u$i" "${UNLISTED[$i]}"
	keys+=("u$i")
done
jobs_wait
after=$(stats_json)
secs=$((SECONDS - t))
conns=$(hellos_since "$mark")
bad=
for key in "${keys[@]}"; do
	loaded "$key" || bad+=" $key (${CHROME_NAME[$key]}): $(head -c 300 "$E2E_TMP/chrome.$key/dom")"
done
check_eq "${UNLISTED[*]} load (the page's token, over QUIC: no TCP listener) in $secs s" "" \
	"$bad" "$(tail -n 5 "$E2E_TMP/chrome.${keys[0]}/err")"
bad=
for key in "${keys[@]}"; do
	n=$(netlog "$key")
	case $n in
	sessions=[1-9]*" confirmed="[1-9]*" h3="[1-9]*" initials="*" tcp=0") ;;
	*) bad+=" $key (${CHROME_NAME[$key]}): $n" ;;
	esac
done
check_eq "net-logs: a QUIC session to each, handshake complete, HTTP/3 headers, no TCP tried" \
	"" "$bad"
check_eq "the server's log: an HTTP/3 request for each" "$(printf '%s\n' "${UNLISTED[@]}" | sort)" \
	"$(field "$conns" h3 | tr ',' '\n' | grep -v '^-$' | sort)" "$conns"
describe "$conns"
read -r checked hits dropped unparsed ech <<<"$(deltas "$before" "$after" checked_quic \
	hits_quic dropped unparsed_quic ech_seen)"
n=$(grep -c . <<<"$conns")
diag "counters: checked_quic +$checked, hits_quic +$hits, dropped +$dropped," \
     "unparsed_quic +$unparsed, ech_seen +$ech over $n connections"
check_eq "hits_quic +0, dropped +0" "0 0" "$hits $dropped" "$after"
what="checked_quic >= the $n connections, unparsed_quic +0"
if [ "$checked" != "?" ] && [ "$checked" -ge "$n" ] && [ "$unparsed" = 0 ]; then
	ok "$what"
elif [ "$(sum_field "$conns" gapped)" -gt 0 ]; then
	not_ok "$what" "checked_quic +$checked, unparsed_quic +$unparsed"
else
	not_ok "$what" "checked_quic +$checked, unparsed_quic +$unparsed" "$after"
fi

# ------------------------------------------------------------ listed names
before=$(stats_json)
mark=$(log_mark)
t=$SECONDS
keys=()
for ((i = 0; i < ${#LISTED[@]}; i++)); do
	chrome_start "l$i" "${LISTED[$i]}"
	keys+=("l$i")
done
jobs_wait
after=$(stats_json)
secs=$((SECONDS - t))
conns=$(hellos_since "$mark")
served=$(field "$conns" h3 | tr ',' '\n' | grep -v '^-$')
nload=0
for key in "${keys[@]}"; do
	loaded "$key" && nload=$((nload + 1))
done
what="${#LISTED[@]} fetches of ${LISTED[*]} never load, the server gets no request ($secs s)"
if [ "$nload" = 0 ] && [ -z "$served" ]; then
	ok "$what"
elif [ "$(grep -v 'h3=-' <<<"$conns" | grep -cv 'where=tail')" = 0 ]; then
	not_ok "$what" "$nload loaded, each with its name in the first Initial's tail:" \
		"$(grep -v 'h3=-' <<<"$conns")"
else
	not_ok "$what" "$nload loaded; requests for: $served" "$conns"
fi
bad=
for key in "${keys[@]}"; do
	n=$(netlog "$key")
	case $n in
	sessions=[1-9]*" tcp=0") ;;
	*) bad+=" $key (${CHROME_NAME[$key]}): $n" ;;
	esac
done
check_eq "net-logs: each tried a QUIC session, none tried TCP" "" "$bad"
describe "$conns"
read -r checked hits dropped unparsed ech <<<"$(deltas "$before" "$after" checked_quic \
	hits_quic dropped unparsed_quic ech_seen)"
diag "counters: checked_quic +$checked, hits_quic +$hits, dropped +$dropped," \
     "unparsed_quic +$unparsed, ech_seen +$ech; $(grep -c . <<<"$conns") connections reached" \
     "the server"
nblocked=$((${#LISTED[@]} - nload))
what="hits_quic >= the ${#LISTED[@]} fetches, dropped = hits_quic, unparsed_quic +0"
if [ "$hits" != "?" ] && [ "$hits" -ge "${#LISTED[@]}" ] && [ "$dropped" = "$hits" ] &&
	[ "$unparsed" = 0 ]; then
	ok "$what"
elif [ "$dropped" = "$hits" ] && [ "$(sum_field "$conns" gapped)" -gt 0 ]; then
	not_ok "$what" "hits_quic +$hits ($nblocked fetches blocked), dropped +$dropped," \
		"unparsed_quic +$unparsed"
else
	not_ok "$what" "hits_quic +$hits, dropped +$dropped, unparsed_quic +$unparsed" "$after"
fi

# ------------------------------------------------------------ captured flights
# Each flight from a socket of its own (a connection of its own for the program):
# where its name lies, what reaches the sink (of 2 datagrams) and the counters.
# "SINK HITS CHECKED UNPARSED" as they must be.
declare -A FLIGHT_WANT=(
	[head]="0 2 2 0"		# the name in the first Initial: both dropped
	[second]="1 1 1 0"		# in the second: the first passes (pending), the second dropped
	[jump]="0 2 2 0"		# in the first's tail, read over key_share: both dropped
	[tail]="1 1 1 0"		# in the first's tail: read once the second fills the gap
	[tail-unlisted]="2 0 1 0"	# the same, unlisted: both pass, one lookup
)
for key in head second jump tail tail-unlisted; do
	name=$(sed -n "s/^flight $key \([^ ]*\) \([0-9]*\) .*/\1 at \2/p" "$FLIGHTS")
	before=$(stats_json)
	mark=$(sink_mark)
	sent=$(in_cli python3 "$TOOLS" flight "$SRV4" "$SINK_PORT" "$FLIGHTS" "$key")
	sleep 0.3
	after=$(stats_json)
	got="$(($(sink_mark) - mark)) $(deltas "$before" "$after" hits_quic checked_quic \
		unparsed_quic)"
	what="flight $key ($name, $sent datagrams): sink, hits_quic, checked_quic, unparsed_quic"
	if [ "$got" = "${FLIGHT_WANT[$key]}" ]; then
		ok "$what: $got"
	else
		not_ok "$what" "expected: ${FLIGHT_WANT[$key]}" "got:      $got" "$after"
	fi
done

# ------------------------------------------------------------ --quic-unparsed drop
# What cannot be read is dropped now: Chrome's hellos must all be read, the first
# Initial's tail stashed, for its unlisted names to load over QUIC.
out=$(bx detach "$IF_SRV" 2>&1)
check "attach --quic-unparsed drop" bx attach "$IF_SRV" --mode native --capacity 1000 \
	--match sni --quic-ports "443,$SINK_PORT" --quic-unparsed drop &&
	check "load the list again" bx load "$IF_SRV" "$LIST"
before=$(stats_json)
keys=()
for ((i = 0; i < ${#UNLISTED[@]}; i++)); do
	chrome_start "d$i" "${UNLISTED[$i]}"
	keys+=("d$i")
done
jobs_wait
after=$(stats_json)
bad=
for key in "${keys[@]}"; do
	loaded "$key" || bad+=" $key (${CHROME_NAME[$key]})"
done
check_eq "--quic-unparsed drop: ${UNLISTED[*]} load, unparsed_quic +0" " 0" \
	"$bad $(delta "$before" "$after" unparsed_quic)" "$after"

# ------------------------------------------------------------ cleanup
out=$(bx detach "$IF_SRV" 2>&1)
check_eq "detach" "detached from $IF_SRV" "$out"
left=$(pgrep -d, -f -- "$E2E_TMP/chrome")
check_eq "no Chromium process left" "" "$left" "$([ -n "$left" ] && ps -o pid,pgid,args -p "$left")"
e2e_cleanup
check_eq "cleanup leaves no namespace, interface, pin or file" "" "$(e2e_leftovers)"
diag "run time: $((SECONDS - T0)) s"

tap_finish
