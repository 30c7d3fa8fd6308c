#!/usr/bin/env bash
# End-to-end test of name matching (DNS query names, HTTP Host and URL, TLS
# SNI) with real servers and clients on a veth pair between two network
# namespaces (see lib.sh): dnsmasq and nginx in the server namespace, dig and
# curl in the client one, bloomxdp attached to the server end with
# '--match src,dns,http,sni'. Checks what gets through, the counters, 'query'
# and 'status', the NXDOMAIN answers of '--dns-reply nxdomain', and that
# detach and cleanup leave nothing behind.
# Speaks TAP ("ok N - name" / "not ok N - name"); tests/run.sh counts it.
#
# Needs root, dnsmasq, dig, nginx, curl and openssl (tests/install-deps.sh).
# Runs in about 25 s. Touches nothing but its own namespaces, veths, pins,
# temporary directory and server processes (all named after E2E_ID), and
# removes them on any exit. Traffic only between the two namespaces, to and
# from documentation addresses.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

PASS_OBJ=$E2E_ROOT/build/xdp_pass.bpf.o

e2e_need "end-to-end name tests" dnsmasq dig nginx curl openssl ps
if [ ! -f "$PASS_OBJ" ]; then
	skip "end-to-end name tests" "$PASS_OBJ is missing: run 'make' first"
	tap_finish
	exit 0
fi
e2e_install_trap
T0=$SECONDS

# Client addresses: none of them is listed; names decide everything here.
CLI4=192.0.2.2
CLI6=2001:db8:b10::2

if ! topo_up "$CLI4" "$CLI6"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV"

# ------------------------------------------------------------ the list
# Entries: evil.example, mixed.example, tracker.example and ads.example (the
# hosts line; localhost is skipped), banner.example (adblock), bücher.example
# (IDN, xn--bcher-kva.example), two URLs, one address no client uses.
LIST=$E2E_TMP/names.txt
cat >"$LIST" <<'EOF'
# names test list: every line format that auto-detection knows
evil.example
MiXeD.Example.			# case and a trailing dot are normalized
0.0.0.0 tracker.example ads.example localhost	# hosts line
||banner.example^
! an adblock comment
bücher.example
good.example/malware/
http://shop.example/cart?from=list
198.51.100.7
EOF
LIST_ENTRIES=9

# ------------------------------------------------------------ helpers
# sub A B: A - B, or "?" unless both are numbers
sub() {
	case "$1$2" in *[!0-9-]* | "") echo "?" ;; *) echo $(($1 - $2)) ;; esac
}
xdp_on() { ip -n "$1" -d link show dev "$2" | grep -oE 'prog/xdp[a-z]* id [0-9]+'; }
srv_of() { case $1 in 6) echo "$SRV6" ;; *) echo "$SRV4" ;; esac; }
cli_of() { case $1 in 6) echo "$CLI6" ;; *) echo "$CLI4" ;; esac; }
# Kills (RST) what the client still has open towards the server: the requests
# that were dropped leave connections that would retransmit into later checks.
cli_kill_sockets() {
	in_cli ss -K -t state all '( dport = :80 or dport = :8080 or dport = :443 )' \
		>/dev/null 2>&1
}
cli_open_sockets() {
	in_cli ss -H -t state all '( dport = :80 or dport = :8080 or dport = :443 )' \
		2>/dev/null | grep -v TIME-WAIT
}

# dnsmasq_seen LINE: the names (lower-cased, sorted, unique) of the A queries
# dnsmasq logged after line LINE of its log.
dnsmasq_seen() {
	tail -n +$(($1 + 1)) "$DNSMASQ_LOG" | sed -n 's/.*query\[A\] \([^ ]*\) from .*/\1/p' |
		tr '[:upper:]' '[:lower:]' | sort -u
}
dnsmasq_lines() { wc -l <"$DNSMASQ_LOG"; }

# dig_start FAMILY NAME [DIG OPTIONS...]: one A query from the client, one try
# of one second, in the background; output in $E2E_TMP/dig.N. DIG_FILES[NAME/FAMILY]
# names the file.
declare -A DIG_FILES
dig_n=0
dig_start() {
	local fam=$1 name=$2 f
	shift 2
	dig_n=$((dig_n + 1))
	f=$E2E_TMP/dig.$dig_n
	DIG_FILES[$name/$fam]=$f
	job_start "$f" timeout 5 nsenter --net="/run/netns/$NS_CLI" -- \
		env HOME="$E2E_TMP" LC_ALL=C.UTF-8 dig @"$(srv_of "$fam")" -b "$(cli_of "$fam")" \
		+tries=1 +time=1 "$@" "$name" A
}
# dig_result FILE: "STATUS ANSWER SERVER" (e.g. "NOERROR 192.0.2.1 192.0.2.1",
# "NXDOMAIN - 192.0.2.1") or "timeout".
dig_result() {
	local f=$1 st ans srv
	st=$(sed -n 's/.*->>HEADER<<-.* status: \([A-Z]*\),.*/\1/p' "$f" | head -n 1)
	if [ -z "$st" ]; then
		if grep -q 'timed out' "$f"; then echo timeout; else echo "error: $(tail -n 1 "$f")"; fi
		return
	fi
	ans=$(awk '/^;; ANSWER SECTION:/ { a = 1; next } a && /^$/ { a = 0 } a && $4 == "A" { print $5 }' "$f" |
		paste -sd, -)
	srv=$(sed -n 's/^;; SERVER: \(.*\)#53(.*/\1/p' "$f")
	echo "$st ${ans:--} ${srv:-?}"
}

# curl_start FAMILY URL [CURL OPTIONS...]: one request from the client in the
# background, to the server's address whatever the URL's host (--resolve),
# at most 2 s. CURL_FILES[URL/FAMILY] names the output file.
declare -A CURL_FILES
curl_n=0
curl_start() {
	local fam=$1 url=$2 host port addr f
	shift 2
	host=${url#*://}
	host=${host%%/*}
	case $url in https:*) port=443 ;; *) port=80 ;; esac
	case $host in *:*) port=${host#*:} host=${host%%:*} ;; esac
	addr=$(srv_of "$fam")
	[ "$fam" = 6 ] && addr="[$addr]"
	curl_n=$((curl_n + 1))
	f=$E2E_TMP/curl.$curl_n
	CURL_FILES[$url/$fam]=$f
	job_start "$f" timeout 5 nsenter --net="/run/netns/$NS_CLI" -- \
		curl -sS -k --noproxy '*' --max-time 2 --resolve "$host:$port:$addr" \
		-o "$f.body" -w '%{http_code}\n' "$@" "$url"
}
# curl_result FILE: "200 BODY" or "rc=N".
curl_result() {
	local f=$1 rc=${JOB_RC[$1]}
	if [ "$rc" -eq 0 ]; then
		echo "$(head -n 1 "$f") $(cat "$f.body" 2>/dev/null)"
	else
		echo "rc=$rc"
	fi
}

# ------------------------------------------------------------ servers
# dnsmasq: answers every name under .example and .org with $SRV4; logs the
# queries it receives, so that the test sees which ones got through.
DNSMASQ_LOG=$E2E_TMP/dnsmasq.log
bg_start timeout 300 nsenter --net="/run/netns/$NS_SRV" -- \
	dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts \
	--listen-address="$SRV4" --listen-address="$SRV6" --bind-interfaces --port=53 \
	--address=/example/"$SRV4" --address=/org/"$SRV4" --pid-file= --user=root \
	--log-queries --log-facility="$DNSMASQ_LOG" 2>"$E2E_TMP/dnsmasq.err"
DNSMASQ_PID=$BG_PID

# nginx: its own configuration, certificate and files in $E2E_TMP; answers
# "ok HOST URI" on ports 80, 8080 and 443 (TLS) of both server addresses.
NGX=$E2E_TMP/nginx
mkdir -p "$NGX"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-keyout "$NGX/key.pem" -out "$NGX/cert.pem" -subj "/CN=bloomxdp-test.example" \
	-addext "subjectAltName=DNS:*.example,DNS:*.example.org,DNS:evil.example,DNS:good.example" \
	>"$NGX/openssl.log" 2>&1
nginx_start "$NGX" "'\$host \$server_port \$request_uri'" <<EOF
	server {
		listen $SRV4:80 default_server;
		listen [$SRV6]:80 default_server;
		listen $SRV4:8080 default_server;
		listen [$SRV6]:8080 default_server;
		listen $SRV4:443 ssl default_server;
		listen [$SRV6]:443 ssl default_server;
		ssl_certificate $NGX/cert.pem;
		ssl_certificate_key $NGX/key.pem;
		server_name _;
		location / { return 200 "ok \$host \$request_uri\n"; }
	}
EOF

if wait_listen udp 53 && wait_listen tcp 80 && wait_listen tcp 443 && wait_listen tcp 8080; then
	ok "dnsmasq (pid $DNSMASQ_PID) and nginx (pid $NGINX_PID) listen in $NS_SRV"
else
	not_ok "dnsmasq and nginx listen in $NS_SRV" "$(cat "$E2E_TMP/dnsmasq.err" 2>&1)" \
		"$(cat "$NGX/error.log" "$NGX/openssl.log" 2>&1)" "$(in_srv ss -tuln 2>&1)"
	tap_finish
	exit 1
fi

# Without bloomxdp, every name resolves and every site answers.
dig_start 4 evil.example
curl_start 4 http://evil.example/
curl_start 6 https://evil.example/
jobs_wait
check_eq "before attach: dig evil.example answers" "NOERROR 192.0.2.1 $SRV4" \
	"$(dig_result "${DIG_FILES[evil.example/4]}")" "$(cat "${DIG_FILES[evil.example/4]}")"
check_eq "before attach: http://evil.example/ answers" "200 ok evil.example /" \
	"$(curl_result "${CURL_FILES[http://evil.example//4]}")"
check_eq "before attach: https://evil.example/ (IPv6) answers" "200 ok evil.example /" \
	"$(curl_result "${CURL_FILES[https://evil.example//6]}")"

# ------------------------------------------------------------ attach, load
check "attach $IF_SRV --match src,dns,http,sni" \
	bx attach "$IF_SRV" --mode native --capacity 10000 --match src,dns,http,sni
out=$(bx load "$IF_SRV" "$LIST" 2>&1)
check_eq "load the names list (every format)" "loaded $LIST_ENTRIES entries into $IF_SRV" \
	"$(grep -o "loaded [0-9]* entries into $IF_SRV" <<<"$out")" "$out"

st=$(status_json)
check_eq "status --json: match, action, dns_reply, ports, entries" \
	"src,dns,http,sni drop none 53 80 443 $LIST_ENTRIES 1" \
	"$(json_str "$st" match) $(json_str "$st" action) $(json_str "$st" dns_reply) $(json_str "$st" dns_ports) $(json_str "$st" http_ports) $(json_str "$st" tls_ports) $(json_num "$st" entries) $(json_num "$st" generation)" \
	"$st"
out=$(bx status "$IF_SRV" 2>&1)
if grep -qE '^match +src,dns,http,sni$' <<<"$out" &&
	grep -qE '^ports +dns 53, http 80, tls 443, quic 443$' <<<"$out" &&
	grep -qE '^quic +10000 Initials decrypted per CPU and second at most' <<<"$out"; then
	ok "status shows the match list and the ports"
else
	not_ok "status shows the match list and the ports" "$out"
fi

# ------------------------------------------------------------ query
# What 'query' says must be what the traffic below shows.
QUERY_BLOCKED=(evil.example www.evil.example WwW.EvIl.ExAmPlE a.b.c.evil.example
	mixed.example MIXED.EXAMPLE tracker.example ads.example banner.example
	x.banner.example bücher.example xn--bcher-kva.example www.xn--bcher-kva.example
	good.example/malware/x good.example/malware good.example/malware/
	http://good.example/malware/x https://www.good.example/malware/a/b
	shop.example/cart shop.example/cart/item 198.51.100.7)
QUERY_PASSED=(notevil.example evil.example.org evilexample.example example
	good.example good.example/ok good.example/malwarex good.example/Malware/x
	good.example/ok/malware shop.example shop.example/carts bucher.example
	xn--bcher-kva.example.org localhost 198.51.100.8)
want=$(for q in "${QUERY_BLOCKED[@]}"; do echo "$q: blocked"; done
	for q in "${QUERY_PASSED[@]}"; do echo "$q: not blocked"; done)
raw=$(bx query "$IF_SRV" "${QUERY_BLOCKED[@]}" "${QUERY_PASSED[@]}" 2>&1)
got=$(sed -e 's/ (listed: .*)$//' <<<"$raw")
check_eq "query: every blocked name or URL names the listed entry that covers it" \
	"${#QUERY_BLOCKED[@]}" "$(grep -c ': blocked (listed: ' <<<"$raw")" "$raw"
check_eq "query: ${#QUERY_BLOCKED[@]} listed names, URLs and subdomains blocked, ${#QUERY_PASSED[@]} others not" \
	"$want" "$got" "$(diff <(echo "$want") <(echo "$got"))"

# ------------------------------------------------------------ DNS, drop
# Listed: no answer (the query is dropped before dnsmasq sees it). Unlisted,
# look-alikes included: dnsmasq's answer.
DNS_BLOCK4=(evil.example www.evil.example WwW.EvIl.ExAmPlE mixed.example tracker.example
	ads.example banner.example x.banner.example xn--bcher-kva.example)
DNS_BLOCK6=(evil.example WwW.EvIl.ExAmPlE xn--bcher-kva.example ads.example)
DNS_PASS4=(notevil.example evil.example.org evilexample.example NotEvil.Example
	good.example shop.example bucher.example)
DNS_PASS6=(notevil.example evil.example.org good.example)
before=$(stats_json)
for n in "${DNS_BLOCK4[@]}" "${DNS_PASS4[@]}"; do dig_start 4 "$n"; done
for n in "${DNS_BLOCK6[@]}" "${DNS_PASS6[@]}"; do dig_start 6 "$n"; done
# IDN in Unicode, converted by dig itself (+idnin).
dig_start 4 bücher.example +idnin
dig_start 6 bücher.example +idnin
dig_start 4 bücher.example.org +idnin
jobs_wait
after=$(stats_json)
bad=
for n in "${DNS_BLOCK4[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/4]}")
	[ "$r" = timeout ] || bad+="
$n (IPv4): $r"
done
check_eq "dig (IPv4) of ${#DNS_BLOCK4[@]} listed names (subdomains, mixed case, hosts, adblock, IDN): no answer" \
	"" "$bad"
bad=
for n in "${DNS_BLOCK6[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/6]}")
	[ "$r" = timeout ] || bad+="
$n (IPv6): $r"
done
check_eq "dig (IPv6) of ${#DNS_BLOCK6[@]} listed names: no answer" "" "$bad"
bad=
for n in "${DNS_PASS4[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/4]}")
	[ "$r" = "NOERROR $SRV4 $SRV4" ] || bad+="
$n (IPv4): $r"
done
check_eq "dig (IPv4) of ${#DNS_PASS4[@]} unlisted names (look-alikes too): dnsmasq's answer" \
	"" "$bad"
bad=
for n in "${DNS_PASS6[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/6]}")
	[ "$r" = "NOERROR $SRV4 $SRV6" ] || bad+="
$n (IPv6): $r"
done
check_eq "dig (IPv6) of ${#DNS_PASS6[@]} unlisted names: dnsmasq's answer" "" "$bad"
check_eq "dig +idnin bücher.example (IPv4, IPv6): no answer" "timeout timeout" \
	"$(dig_result "${DIG_FILES[bücher.example/4]}") $(dig_result "${DIG_FILES[bücher.example/6]}")" \
	"$(cat "${DIG_FILES[bücher.example/4]}")"
check_eq "dig +idnin bücher.example.org: answered" "NOERROR $SRV4 $SRV4" \
	"$(dig_result "${DIG_FILES[bücher.example.org/4]}")" "$(cat "${DIG_FILES[bücher.example.org/4]}")"
# dnsmasq saw the unlisted queries (the IDN one in its xn-- form), none of
# the listed ones.
seen=$(dnsmasq_seen 0)
want=$(printf '%s\n' evil.example "${DNS_PASS4[@]}" "${DNS_PASS6[@]}" xn--bcher-kva.example.org |
	tr '[:upper:]' '[:lower:]' | sort -u)
check_eq "dnsmasq received exactly the unlisted names (and the one before attach)" "$want" "$seen" \
	"$(diff <(echo "$want") <(echo "$seen"))"
nblock=$((${#DNS_BLOCK4[@]} + ${#DNS_BLOCK6[@]} + 2))
nall=$((nblock + ${#DNS_PASS4[@]} + ${#DNS_PASS6[@]} + 1))
check_eq "stats: checked_dns +$nall, hits_dns +$nblock, dropped +$nblock, unparsed_dns +0, dns_replies +0" \
	"$nall $nblock $nblock 0 0" \
	"$(deltas "$before" "$after" checked_dns hits_dns dropped unparsed_dns dns_replies)" \
	"before: $before" "after:  $after"

# DNS over TCP is not inspected (documented): answered, and counted once per
# segment with payload (dig sends one; two if it split the length prefix),
# never for the handshake, ACKs and FIN.
before=$(stats_json)
dig_start 4 evil.example +tcp
jobs_wait
after=$(stats_json)
r=$(dig_result "${DIG_FILES[evil.example/4]}")
d=$(delta "$before" "$after" unseen_dns_tcp)
if [ "$r" = "NOERROR $SRV4 $SRV4" ] && [ "$d" -ge 1 ] && [ "$d" -le 2 ]; then
	ok "dig +tcp evil.example is not inspected: answered, unseen_dns_tcp +$d"
else
	not_ok "dig +tcp evil.example is not inspected: answered, unseen_dns_tcp +1 (or 2)" \
		"dig: $r" "unseen_dns_tcp +$d" "before: $before" "after:  $after"
fi

# ------------------------------------------------------------ HTTP
# Listed host (Host header, any case, subdomains), or a URL entry's path
# prefix at a '/' boundary: the request segment is dropped, curl times out.
HTTP_BLOCK4=(http://evil.example/ http://www.evil.example/x http://tracker.example/
	http://xn--bcher-kva.example/ http://good.example/malware/x http://good.example/malware
	http://good.example/malware/ http://www.good.example/malware/x http://shop.example/cart?x=1
	http://shop.example/cart/item)
HTTP_BLOCK6=(http://evil.example/ http://good.example/malware/x)
HTTP_PASS4=(http://notevil.example/ http://evil.example.org/ http://good.example/
	http://good.example/ok http://good.example/malwarex http://good.example/Malware/x
	http://shop.example/carts http://shop.example/other http://evil.example:8080/)
HTTP_PASS6=(http://notevil.example/ http://good.example/ok)
before=$(stats_json)
for u in "${HTTP_BLOCK4[@]}" "${HTTP_PASS4[@]}"; do curl_start 4 "$u"; done
for u in "${HTTP_BLOCK6[@]}" "${HTTP_PASS6[@]}"; do curl_start 6 "$u"; done
curl_start 4 http://mixed.example/case -H 'Host: EVIL.Example'
jobs_wait
cli_kill_sockets
after=$(stats_json)
# http_want URL: what nginx answers ("200 ok HOST PATH").
http_want() {
	local u=${1#*://} host path
	host=${u%%/*}
	host=${host%%:*}
	path=/${u#*/}
	echo "200 ok $host $path"
}
bad=
for u in "${HTTP_BLOCK4[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/4]}")
	[ "$r" = rc=28 ] || bad+="
$u (IPv4): $r"
done
check_eq "curl (IPv4) of ${#HTTP_BLOCK4[@]} listed hosts and URLs: timeout (exit 28)" "" "$bad"
bad=
for u in "${HTTP_BLOCK6[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/6]}")
	[ "$r" = rc=28 ] || bad+="
$u (IPv6): $r"
done
check_eq "curl (IPv6) of ${#HTTP_BLOCK6[@]} listed hosts and URLs: timeout (exit 28)" "" "$bad"
check_eq "curl with 'Host: EVIL.Example': timeout (exit 28)" rc=28 \
	"$(curl_result "${CURL_FILES[http://mixed.example/case/4]}")"
bad=
for u in "${HTTP_PASS4[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/4]}")
	[ "$r" = "$(http_want "$u")" ] || bad+="
$u (IPv4): $r"
done
check_eq "curl (IPv4) of ${#HTTP_PASS4[@]} unlisted hosts and URLs (look-alikes, other paths, port 8080): 200" \
	"" "$bad"
bad=
for u in "${HTTP_PASS6[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/6]}")
	[ "$r" = "$(http_want "$u")" ] || bad+="
$u (IPv6): $r"
done
check_eq "curl (IPv6) of ${#HTTP_PASS6[@]} unlisted hosts and URLs: 200" "" "$bad"
# nginx logged only the unlisted requests.
seen=$(awk '$2 == 80 || $2 == 8080' "$NGX/access.log" | sort)
want=$(for u in http://evil.example/ "${HTTP_PASS4[@]}" "${HTTP_PASS6[@]}"; do
	read -r _ _ h path <<<"$(http_want "$u")"
	p=80
	case $u in *:8080/*) p=8080 ;; esac
	echo "$h $p $path"
done | sort)
check_eq "nginx received exactly the unlisted requests (and the one before attach)" "$want" "$seen" \
	"$(diff <(echo "$want") <(echo "$seen"))"
# Port 8080 is not an HTTP port of this attachment: nothing checked there.
npass=$((${#HTTP_PASS4[@]} + ${#HTTP_PASS6[@]} - 1))
nblock=$((${#HTTP_BLOCK4[@]} + ${#HTTP_BLOCK6[@]} + 1))
read -r checked hits dropped unparsed <<<"$(deltas "$before" "$after" checked_http \
	hits_http dropped unparsed_http)"
check_eq "stats: checked_http - hits_http = the $npass allowed requests on port 80, unparsed_http +0" \
	"$npass 0" "$(sub "$checked" "$hits") $unparsed" "before: $before" "after:  $after"
if [ "$hits" -ge "$nblock" ] && [ "$dropped" -eq "$hits" ]; then
	ok "stats: hits_http +$hits >= the $nblock blocked requests (retransmissions included), dropped +$dropped = hits"
else
	not_ok "stats: hits_http >= $nblock blocked requests, dropped = hits_http" \
		"hits_http +$hits, dropped +$dropped" "before: $before" "after:  $after"
fi
check_eq "after killing them, the client has no connection left to the server" "" \
	"$(cli_open_sockets)"

# DNS for a host with URL entries is untouched.
dig_start 4 good.example
jobs_wait
check_eq "dig good.example (host of a URL entry) answers" "NOERROR $SRV4 $SRV4" \
	"$(dig_result "${DIG_FILES[good.example/4]}")"

# ------------------------------------------------------------ HTTPS (SNI)
TLS_BLOCK4=(https://evil.example/ https://www.evil.example/ https://xn--bcher-kva.example/
	https://banner.example/ https://mixed.example/)
TLS_BLOCK6=(https://evil.example/ https://tracker.example/)
# URL entries need the path, which TLS hides: good.example and shop.example pass.
TLS_PASS4=(https://notevil.example/ https://evil.example.org/ https://good.example/malware/x
	https://shop.example/cart)
TLS_PASS6=(https://notevil.example/ https://good.example/)
before=$(stats_json)
for u in "${TLS_BLOCK4[@]}" "${TLS_PASS4[@]}"; do curl_start 4 "$u"; done
for u in "${TLS_BLOCK6[@]}" "${TLS_PASS6[@]}"; do curl_start 6 "$u"; done
jobs_wait
cli_kill_sockets
after=$(stats_json)
bad=
for u in "${TLS_BLOCK4[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/4]}")
	[ "$r" = rc=28 ] || bad+="
$u (IPv4): $r"
done
for u in "${TLS_BLOCK6[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/6]}")
	[ "$r" = rc=28 ] || bad+="
$u (IPv6): $r"
done
check_eq "curl https (IPv4, IPv6) with $((${#TLS_BLOCK4[@]} + ${#TLS_BLOCK6[@]})) listed SNIs: timeout (exit 28)" \
	"" "$bad"
bad=
for u in "${TLS_PASS4[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/4]}")
	[ "$r" = "$(http_want "$u")" ] || bad+="
$u (IPv4): $r"
done
for u in "${TLS_PASS6[@]}"; do
	r=$(curl_result "${CURL_FILES[$u/6]}")
	[ "$r" = "$(http_want "$u")" ] || bad+="
$u (IPv6): $r"
done
check_eq "curl https (IPv4, IPv6) with $((${#TLS_PASS4[@]} + ${#TLS_PASS6[@]})) unlisted SNIs: 200" \
	"" "$bad"
# openssl s_client, another TLS client: the handshake completes or not.
s_client() { # NAME -> "connected" / "no handshake"
	local out
	out=$(timeout 3 nsenter --net="/run/netns/$NS_CLI" -- openssl s_client -brief \
		-connect "$SRV4:443" -servername "$1" </dev/null 2>&1)
	if grep -q '^CONNECTION ESTABLISHED' <<<"$out"; then echo connected; else echo "no handshake"; fi
}
check_eq "openssl s_client -servername notevil.example: handshake" connected \
	"$(s_client notevil.example)"
check_eq "openssl s_client -servername Evil.Example: no handshake" "no handshake" \
	"$(s_client Evil.Example)"
cli_kill_sockets
after2=$(stats_json)
npass=$((${#TLS_PASS4[@]} + ${#TLS_PASS6[@]}))
nblock=$((${#TLS_BLOCK4[@]} + ${#TLS_BLOCK6[@]}))
# (dropped counts hits_http too: none, unless 'ss -K' left a blocked HTTP
# connection retransmitting.)
read -r checked hits dropped hh <<<"$(deltas "$before" "$after" checked_sni hits_sni dropped \
	hits_http)"
check_eq "stats: checked_sni - hits_sni = the $npass allowed handshakes, dropped = hits_sni" \
	"$npass $(sub "$hits" "-$hh")" "$(sub "$checked" "$hits") $dropped" "before: $before" "after:  $after"
if [ "$hits" -ge "$nblock" ]; then
	ok "stats: hits_sni +$hits >= the $nblock blocked handshakes (retransmissions included)"
else
	not_ok "stats: hits_sni >= the $nblock blocked handshakes" "hits_sni +$hits" "$after"
fi
check_eq "stats: s_client added one allowed and at least one blocked ClientHello" "1 1" \
	"$(sub "$(delta "$after" "$after2" checked_sni)" "$(delta "$after" "$after2" hits_sni)") $([ "$(delta "$after" "$after2" hits_sni)" -ge 1 ] 2>/dev/null && echo 1 || echo 0)" \
	"$after2"
# A completed handshake's other records (ChangeCipherSpec, Finished, the
# request, close_notify) are no ClientHellos: unparsed_tls counts none.
check_eq "stats: unparsed_tls +0 after $npass completed handshakes and their data" 0 \
	"$(delta "$before" "$after2" unparsed_tls)" "before: $before" "after:  $after2"

# ------------------------------------------------------------ DNS, NXDOMAIN answers
check "detach before re-attaching with --dns-reply nxdomain" bx detach "$IF_SRV"
# The kernel lets go of the XDP link a little after detach returns (see
# wait_no_xdp): an attach at once may find the old program still there.
if ms=$(wait_no_xdp "$NS_SRV" "$IF_SRV" 3); then
	ok "the XDP program left $IF_SRV ${ms} ms after detach returned"
else
	not_ok "the XDP program left $IF_SRV within 3 s of detach" "$(xdp_on "$NS_SRV" "$IF_SRV")"
fi
check "attach --match src,dns,http,sni --dns-reply nxdomain --http-ports 80,8080" \
	bx attach "$IF_SRV" --mode native --capacity 10000 --match src,dns,http,sni \
	--dns-reply nxdomain --http-ports 80,8080
check "load the names list again" bx load "$IF_SRV" "$LIST"
st=$(status_json)
check_eq "status --json: dns_reply nxdomain, http ports 80,8080" "src,dns,http,sni nxdomain 80,8080" \
	"$(json_str "$st" match) $(json_str "$st" dns_reply) $(json_str "$st" http_ports)" "$st"
# veth delivers XDP_TX frames only to a peer with NAPI on: an XDP program.
if out=$(ip -n "$NS_CLI" link set dev "$IF_CLI" xdp obj "$PASS_OBJ" sec xdp 2>&1) &&
	[ -n "$(xdp_on "$NS_CLI" "$IF_CLI")" ]; then
	ok "xdp_pass on the client end $IF_CLI ($(xdp_on "$NS_CLI" "$IF_CLI"))"
else
	not_ok "xdp_pass on the client end $IF_CLI" "$out"
fi
NX_BLOCK4=(evil.example www.evil.example MIXED.example xn--bcher-kva.example banner.example)
NX_BLOCK6=(evil.example tracker.example)
NX_PASS4=(notevil.example evil.example.org)
NX_PASS6=(notevil.example)
before=$(stats_json)
mark=$(dnsmasq_lines)
for n in "${NX_BLOCK4[@]}" "${NX_PASS4[@]}"; do dig_start 4 "$n"; done
for n in "${NX_BLOCK6[@]}" "${NX_PASS6[@]}"; do dig_start 6 "$n"; done
curl_start 4 http://evil.example:8080/
jobs_wait
cli_kill_sockets
after=$(stats_json)
bad=
for n in "${NX_BLOCK4[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/4]}")
	[ "$r" = "NXDOMAIN - $SRV4" ] || bad+="
$n (IPv4): $r"
done
for n in "${NX_BLOCK6[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/6]}")
	[ "$r" = "NXDOMAIN - $SRV6" ] || bad+="
$n (IPv6): $r"
done
check_eq "dig (IPv4, IPv6) of $((${#NX_BLOCK4[@]} + ${#NX_BLOCK6[@]})) listed names: NXDOMAIN from the server address" \
	"" "$bad"
f=${DIG_FILES[evil.example/4]}
qt=$(sed -n 's/^;; Query time: \([0-9]*\) msec.*/\1/p' "$f")
if [ -n "$qt" ] && [ "$qt" -lt 500 ] && grep -q '^;evil.example\.[[:space:]]*IN[[:space:]]*A$' "$f" &&
	grep -q 'flags: qr rd ra;' "$f" && ! grep -qi 'warning' "$f"; then
	ok "the NXDOMAIN answer is immediate (${qt} ms), echoes the question, flags qr rd ra"
else
	not_ok "the NXDOMAIN answer is immediate, echoes the question, flags qr rd ra" "$(cat "$f")"
fi
bad=
for n in "${NX_PASS4[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/4]}")
	[ "$r" = "NOERROR $SRV4 $SRV4" ] || bad+="
$n (IPv4): $r"
done
for n in "${NX_PASS6[@]}"; do
	r=$(dig_result "${DIG_FILES[$n/6]}")
	[ "$r" = "NOERROR $SRV4 $SRV6" ] || bad+="
$n (IPv6): $r"
done
check_eq "dig of unlisted names still gets dnsmasq's NOERROR answer" "" "$bad"
check_eq "http://evil.example:8080/ is blocked now that 8080 is an HTTP port" rc=28 \
	"$(curl_result "${CURL_FILES[http://evil.example:8080//4]}")"
nblock=$((${#NX_BLOCK4[@]} + ${#NX_BLOCK6[@]}))
nall=$((nblock + ${#NX_PASS4[@]} + ${#NX_PASS6[@]}))
read -r c h r dd hh hs <<<"$(deltas "$before" "$after" checked_dns hits_dns dns_replies dropped \
	hits_http hits_sni)"
check_eq "stats: checked_dns +$nall, hits_dns +$nblock, dns_replies +$nblock, dropped = hits_http (port 8080)" \
	"$nall $nblock $nblock $(sub "$hh" "-$hs")" "$c $h $r $dd" "before: $before" "after:  $after"
want=$(printf '%s\n' "${NX_PASS4[@]}" "${NX_PASS6[@]}" | sort -u)
seen=$(dnsmasq_seen "$mark")
check_eq "dnsmasq received exactly the unlisted names" "$want" "$seen" \
	"$(diff <(echo "$want") <(echo "$seen"))"

# ------------------------------------------------------------ detach
out=$(bx detach "$IF_SRV" 2>&1)
check_eq "detach" "detached from $IF_SRV" "$out"
ms=$(wait_no_xdp "$NS_SRV" "$IF_SRV" 3)
check_eq "after detach, no XDP program on $IF_SRV (after ${ms} ms) and no pin directory" "" \
	"$(xdp_on "$NS_SRV" "$IF_SRV")$([ -e "$PIN_DIR" ] && echo " pins: $PIN_DIR")"
dig_start 4 evil.example
jobs_wait
check_eq "after detach, dig evil.example answers again" "NOERROR $SRV4 $SRV4" \
	"$(dig_result "${DIG_FILES[evil.example/4]}")"

# ------------------------------------------------------------ cleanup
# The server processes (under their 'timeout'), nginx's workers: none may
# outlive the test.
procs=
for pid in $(ps -o pid= --ppid "$DNSMASQ_PID,$NGINX_PID" 2>/dev/null); do
	procs+=" $pid $(ps -o pid= --ppid "$pid" 2>/dev/null)"
done
diag "server processes: timeout $DNSMASQ_PID, $NGINX_PID; servers and workers:$(tr -s " " <<<"$procs")"
e2e_cleanup
left=$(e2e_leftovers)
for pid in $DNSMASQ_PID $NGINX_PID $procs; do
	kill -0 "$pid" 2>/dev/null && left+=" process $pid ($(ps -o args= -p "$pid"))"
done
check_eq "cleanup leaves no namespace, interface, pin, file or server process" "" "$left"
diag "run time: $((SECONDS - T0)) s"

tap_finish
