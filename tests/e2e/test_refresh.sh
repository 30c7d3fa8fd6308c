#!/usr/bin/env bash
# Feed refresh against a real nginx in the server's namespace: 'bloomxdp refresh'
# as cron would run it (no daemon), the feed a real published list (uBlock
# Origin's URLhaus list from Debian's webext-ublock-origin-firefox, the one
# tests/e2e/test_feeds.sh loads) plus one documentation address per version,
# so that real pings show which version is enforced:
#
#   a feed is fetched and applied; changed on the server, it is picked up;
#   unchanged, nginx answers 304 to the ETag sent back (its access log shows
#   it); a 500, a server too slow for --timeout, a body over --max-bytes (gzip,
#   stopped while it arrives), a truncated body, an empty one and one shrunk by
#   80% each leave the old list enforced and are counted; --accept applies the
#   shrunk one; a redirect to file:// is refused; HTTPS with the test's own CA
#   is verified with --ca-file and refused without it.
#
# Speaks TAP; needs root, nginx, openssl, python3; about 20 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

UBO='/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}'
URLHAUS=$UBO/uBlock0@raymondhill.net/assets/thirdparties/urlhaus-filter/urlhaus-filter-online.txt
# Client addresses: listed by version 1, 2 and the shrunk version, and never.
V1=192.0.2.60
V2=192.0.2.61
V3=192.0.2.62
NONE=192.0.2.70

e2e_need "refresh tests" nginx openssl python3
if [ ! -r "$URLHAUS" ]; then
	skip "refresh tests" "$URLHAUS is missing: run tests/install-deps.sh"
	tap_finish
	exit 0
fi
T0=$SECONDS
e2e_install_trap
if ! topo_up "$V1" "$V2" "$V3" "$NONE"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
STATE=$E2E_TMP/state
FEED=$STATE/$IF_SRV/feeds/urlhaus

# ------------------------------------------------------------ nginx
NGX=$E2E_TMP/nginx
WWW=$NGX/www
mkdir -p "$WWW"
# A CA of the test's own, and a certificate for the server's address signed by it.
{
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
		-keyout "$NGX/ca.key" -out "$NGX/ca.pem" -subj "/CN=bloomxdp test CA" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$NGX/key.pem" -out "$NGX/srv.csr" -subj "/CN=$SRV4" &&
	printf 'subjectAltName=IP:%s\nbasicConstraints=CA:FALSE\n' "$SRV4" >"$NGX/ext" &&
	openssl x509 -req -in "$NGX/srv.csr" -CA "$NGX/ca.pem" -CAkey "$NGX/ca.key" \
		-CAcreateserial -days 1 -extfile "$NGX/ext" -out "$NGX/cert.pem"
} >"$NGX/openssl.log" 2>&1
nginx_start "$NGX" "escape=none
		'\$status \$request_uri inm=\$http_if_none_match enc=\$sent_http_content_encoding'
		' ims=\$http_if_modified_since'" <<EOF
	gzip on;
	gzip_types text/plain;
	server {
		listen $SRV4:8080;
		listen $SRV4:8443 ssl;
		ssl_certificate $NGX/cert.pem;
		ssl_certificate_key $NGX/key.pem;
		root $WWW;
		# The failures a feed has, switched on by files next to it.
		location = /feed.txt {
			if (-f $WWW/fail-500) { return 500; }
			if (-f $WWW/slow) { set \$limit_rate 2048; }
		}
		location = /to-file { return 302 file:///etc/passwd; }
		location = /loop { return 302 /loop; }
	}
EOF
# Version 1, 2 and the shrunk one (a fifth of the rules: 80% fewer entries).
RULES=$(grep -vc '^!' "$URLHAUS")
{ cat "$URLHAUS"; echo "$V1"; } >"$E2E_TMP/v1.txt"
{ cat "$URLHAUS"; echo "$V2"; } >"$E2E_TMP/v2.txt"
{ grep -v '^!' "$URLHAUS" | head -n $((RULES / 5)); echo "$V3"; } >"$E2E_TMP/v3.txt"
# serve FILE SECONDS_AGO: the feed's new body, with an mtime (hence ETag) of its own.
serve() {
	cp "$1" "$WWW/feed.txt.new" && touch -d "@$(($(date +%s) - $2))" "$WWW/feed.txt.new" &&
		mv "$WWW/feed.txt.new" "$WWW/feed.txt"
}
serve "$E2E_TMP/v1.txt" 100

if wait_listen tcp 8080 && wait_listen tcp 8443; then
	ok "nginx (pid $NGINX_PID) serves the feed on $SRV4:8080 and :8443 (TLS) in $NS_SRV"
else
	not_ok "nginx listens in $NS_SRV" "$(cat "$NGX/error.log" "$NGX/openssl.log" 2>&1)"
	tap_finish
	exit 1
fi

check "attach $IF_SRV" bx attach "$IF_SRV" --capacity 100000 --fpr 0.000001 \
	--match src,dns,http,sni || {
	tap_finish
	exit 1
}

# rf ARGS...: 'bloomxdp refresh IF_SRV ARGS' with the test's state directory;
# output in $OUT, exit status in $RC.
rf() {
	local t0
	t0=$(date +%s%N)
	OUT=$(bx refresh "$IF_SRV" "$@" --state-dir "$STATE" 2>&1)
	RC=$?
	RF_MS=$((($(date +%s%N) - t0) / 1000000))
}
# counter NAME [FEED]: a counter of the feed's cache.
counter() { sed -n "s/^$1 = //p" "$STATE/$IF_SRV/feeds/${2:-urlhaus}/counters" 2>/dev/null; }
# enforced: which version's address is dropped ("v1 v2 v3" replies: 0 = dropped), and
# whether an unlisted address gets through.
enforced() {
	local a r out=
	for a in "$V1" "$V2" "$V3" "$NONE"; do
		r=$(ping_recv "$a" "$SRV4" 2 0.05)
		out+="${r#* } "
	done
	echo "${out% }"
}
# Replies from V1 V2 V3 NONE when version 1, 2 or 3 is enforced (2 pings each).
EN1="0 2 2 2"
EN2="2 0 2 2"
EN3="2 2 0 2"
# Known entries of the list, and a neighbour.
IP1=$(grep -m1 -E '^[0-9.]+$' "$URLHAUS")
HOST1=$(grep -m1 -E '^[a-z0-9._-]*[a-z][a-z0-9._-]*$' "$URLHAUS")
QUERY_LISTED=0

# ------------------------------------------------------------ first fetch
check_eq "before any refresh: nothing is dropped" "2 2 2 2" "$(enforced)"
rf urlhaus --source "http://$SRV4:8080/feed.txt" --format adblock --lenient
LOADED=$(sed -n 's/^loaded \([0-9]*\) entries.*/\1/p' <<<"$OUT")
check_eq "refresh --source: fetched and applied (exit 0), 'loaded N entries'" "0 yes" \
	"$RC $(grep -q "refresh urlhaus of $IF_SRV: applied $LOADED entries" <<<"$OUT" &&
	echo yes)" \
	"$OUT"
diag "urlhaus + 1 address: $LOADED entries of $RULES rules; fetched, checked, applied in $RF_MS ms"
check_eq "version 1 is enforced: $V1 dropped, the others answered" "$EN1" "$(enforced)"
expect_query "listed entries of the real list are blocked, a neighbour is not" \
	"$IP1: blocked" "$HOST1: blocked" "x.$HOST1: blocked" "192.0.2.99: not blocked"
# A feed is the named list of its name (as a daemon's [list NAME]); a subdomain of a listed
# domain is in it as XDP matches it.
check_eq "query: the feed's entries are in list urlhaus" "x.$HOST1: blocked (listed in urlhaus)" \
	"$(bx query "$IF_SRV" "x.$HOST1" 2>&1)"
check_eq "the cache keeps the spec, the good copy and its ETag" "yes yes yes" \
	"$(grep -q "^source = http://$SRV4:8080/feed.txt" "$FEED/spec" && echo yes) $(cmp -s \
	"$FEED/good" "$E2E_TMP/v1.txt" && echo yes) $(grep -qE '^etag = .+' "$FEED/good.meta" \
	&& echo yes)" "$(cat "$FEED/spec" "$FEED/good.meta" 2>&1)"
check_eq "directories of the cache are 0700" "700 700 700" \
	"$(stat -c %a "$STATE/$IF_SRV" "$STATE/$IF_SRV/feeds" "$FEED" | tr '\n' ' ' | sed 's/ $//')"

# ------------------------------------------------------------ unchanged: 304
ETAG=$(sed -n 's/^etag = //p' "$FEED/good.meta")
rf urlhaus
diag "not modified: $RF_MS ms"
check_eq "unchanged: not modified (exit 0), nothing loaded" "0 yes no" \
	"$RC $(grep -q 'not modified' <<<"$OUT" && echo yes) $(grep -q '^loaded' <<<"$OUT" &&
	echo yes || echo no)" "$OUT"
check_eq "nginx answered 304 to If-None-Match with the ETag it sent" "304 /feed.txt inm=$ETAG" \
	"$(tail -n 1 "$NGX/access.log" | cut -d' ' -f1-3)"

LASTMOD=$(sed -n 's/^last_modified = //p' "$FEED/good.meta")
check_eq "... and If-Modified-Since with the Last-Modified it sent ($LASTMOD)" "yes ims=$LASTMOD" \
	"$([ -n "$LASTMOD" ] && echo yes) $(tail -n 1 "$NGX/access.log" |
	sed -n 's/.* \(ims=.*\)/\1/p')"

# ------------------------------------------------------------ changed
serve "$E2E_TMP/v2.txt" 50
rf urlhaus
check_eq "changed on the server: picked up and applied" "0 yes" \
	"$RC $(grep -q 'applied' <<<"$OUT" && echo yes)" "$OUT"
check_eq "nginx sent it whole (200) to the old ETag" "200 /feed.txt inm=$ETAG" \
	"$(tail -n 1 "$NGX/access.log" | cut -d' ' -f1-3)"
check_eq "version 2 is enforced: $V2 dropped, $V1 answered again" "$EN2" "$(enforced)"

# ------------------------------------------------------------ failures
FAILS=$(counter refresh_failures)
check_eq "no failure counted so far" "0" "$FAILS"
# refused NAME REGEX: the last refresh exited 1 saying REGEX, one more failure was
# counted, and version 2 is still what is dropped.
refused() {
	local want=$((FAILS + 1)) got
	got=$(counter refresh_failures)
	check_eq "$1: refused (exit 1), said on one line, counted ($want)" "1 yes 1 $want" \
		"$RC $(grep -qE "$2" <<<"$OUT" && echo yes) $(grep -c 'refused' <<<"$OUT") $got" \
		"$OUT"
	FAILS=$got
	check_eq "$1: version 2 stays enforced" "$EN2" "$(enforced)"
}

touch "$WWW/fail-500"
rf urlhaus
refused "the server answers 500" "refused: fetch failed: HTTP 500; the last good copy stays"
rm -f "$WWW/fail-500"

touch "$WWW/slow"
serve "$E2E_TMP/v1.txt" 40
t0=$(date +%s%N)
rf urlhaus --timeout 2
ms=$((($(date +%s%N) - t0) / 1000000))
refused "a server too slow for --timeout 2" "fetch failed: timed out after 2 s"
check_eq "... given up after 2 s (${ms} ms), not the transfer's 170 s" yes \
	"$([ "$ms" -ge 1900 ] && [ "$ms" -lt 6000 ] && echo yes)"
rm -f "$WWW/slow"
rf urlhaus --timeout 60
check_eq "... once the server is fast again, the change is applied" "0 $EN1" \
	"$RC $(enforced)" "$OUT"
serve "$E2E_TMP/v2.txt" 30
rf urlhaus
check_eq "... and version 2 again" "0 $EN2" "$RC $(enforced)" "$OUT"
FAILS=$(counter refresh_failures)
check_eq "a success resets the consecutive failures, not the total" "0 2" \
	"$(counter consecutive_failures) $FAILS"

# gzip: no Content-Length, so only the count of what arrives can stop it.
serve "$E2E_TMP/v1.txt" 20
rf urlhaus --max-bytes 100000
refused "a body over --max-bytes 100000 (gzip-compressed, chunked)" \
	"fetch failed: too large: over max_bytes 100000"
check_eq "... nginx sent it gzip-compressed (so without Content-Length)" "200 enc=gzip" \
	"$(tail -n 1 "$NGX/access.log" | cut -d' ' -f1,4)"
check_eq "... nothing of it is kept" "no" \
	"$([ -e "$FEED/pending" ] || [ -e "$FEED/.fetch.tmp" ] && echo yes || echo no)"
rf urlhaus --max-bytes 268435456 --max-shrink 50
check_eq "... with the limit back, version 1 is applied" "0 $EN1" "$RC $(enforced)" "$OUT"
serve "$E2E_TMP/v2.txt" 10
rf urlhaus
check_eq "... and version 2 again" "0 $EN2" "$RC $(enforced)" "$OUT"
FAILS=$(counter refresh_failures)

# A server that promises more than it sends, and closes: a truncated body.
cat >"$E2E_TMP/truncate.py" <<'EOF'
import socket, sys
body = open(sys.argv[2], 'rb').read()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 8081)); s.listen(1)
c, _ = s.accept(); c.recv(65536)
c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n'
          b'Connection: close\r\n\r\n' % (len(body) * 2) + body)
c.close()
EOF
bg_start timeout 20 nsenter --net="/run/netns/$NS_SRV" -- python3 "$E2E_TMP/truncate.py" \
	"$SRV4" "$E2E_TMP/v1.txt"
TRUNC_PID=$BG_PID
wait_listen tcp 8081
rf urlhaus --source "http://$SRV4:8081/feed.txt" --format adblock --lenient
refused "a body cut short of its Content-Length" "fetch failed: transfer closed"
wait_pid "$TRUNC_PID" 2 >/dev/null
bg_forget "$TRUNC_PID"
rf urlhaus --source "http://$SRV4:8080/feed.txt" --format adblock --lenient
check_eq "... back to nginx: not modified (the same body)" "0 yes" \
	"$RC $(grep -q 'not modified' <<<"$OUT" && echo yes)" "$OUT"

: >"$E2E_TMP/empty.txt"
serve "$E2E_TMP/empty.txt" 8
rf urlhaus
refused "an empty body" "the new copy has no entry"

serve "$E2E_TMP/v3.txt" 6
rf urlhaus
V3N=$(sed -n 's/.*the new copy has \([0-9]*\) entries.*/\1/p' <<<"$OUT")
SHRUNK="the new copy has [0-9]+ entries, [0-9]+ fewer than the good copy's $LOADED"
refused "a body shrunk by 80%" "$SHRUNK \(-(79|80)%, over max_shrink 50%\)"
check_eq "... kept as pending, with why" "yes yes" \
	"$(cmp -s "$FEED/pending" "$E2E_TMP/v3.txt" && echo yes) $(grep -q '^why = .*max_shrink' \
	"$FEED/pending.meta" && echo yes)" "$(cat "$FEED/pending.meta" 2>&1)"
rf urlhaus
refused "... fetched again: refused again" "over max_shrink 50%"
check_eq "... consecutive failures (the backoff's step): empty, shrunk, shrunk again" "3" \
	"$(counter consecutive_failures)"

rf urlhaus --accept
check_eq "refresh --accept applies the pending copy and says what it accepted" "0 yes yes" \
	"$RC $(grep -q "accepted and applied $V3N entries" <<<"$OUT" && echo yes) $(grep -q \
	'accepted despite: the new copy has .* over max_shrink 50%' <<<"$OUT" && echo yes)" "$OUT"
check_eq "... the shrunk version is enforced: $V3 dropped, $V2 answered" "$EN3" "$(enforced)"
check_eq "... it is the good copy now, nothing pending, failures since: 0" "yes no 0" \
	"$(cmp -s "$FEED/good" "$E2E_TMP/v3.txt" && echo yes) $([ -e "$FEED/pending" ] &&
	echo yes || echo no) $(counter consecutive_failures)"
rf urlhaus --accept
check_eq "--accept with nothing pending and nothing new: exit 1, says so" "1 yes" \
	"$RC $(grep -q 'nothing to accept' <<<"$OUT" && echo yes)" "$OUT"

# A bad line is never accepted (one that even --lenient does not skip: over 8 KiB).
{ cat "$E2E_TMP/v3.txt"; head -c 9000 /dev/zero | tr '\0' a; echo; } >"$E2E_TMP/bad.txt"
serve "$E2E_TMP/bad.txt" 4
rf urlhaus --accept
check_eq "a copy with a bad line: refused even with --accept, FILE:LINE named" "1 yes $EN3" \
	"$RC $(grep -qE "feeds/urlhaus/pending:$(wc -l <"$E2E_TMP/bad.txt"): line longer" \
	<<<"$OUT" && echo yes) $(enforced)" "$OUT"

# ------------------------------------------------------------ redirects, TLS
rf redir --source "http://$SRV4:8080/to-file" --format adblock
check_eq "a redirect to file:// is refused (http and https only)" "1 yes" \
	"$RC $(grep -q 'http and https only' <<<"$OUT" && echo yes)" "$OUT"
rf loop --source "http://$SRV4:8080/loop" --format adblock
check_eq "a redirect loop is given up after 5 redirects" "1 yes 6" \
	"$RC $(grep -q 'more than 5 redirects' <<<"$OUT" && echo yes) $(grep -c '^302 /loop' \
	"$NGX/access.log")" "$OUT"
rf tls --source "https://$SRV4:8443/feed.txt" --format adblock --lenient
check_eq "https with the test's own CA, without --ca-file: refused (certificate)" "1 yes" \
	"$RC $(grep -qi 'certificate' <<<"$OUT" && echo yes)" "$OUT"
serve "$E2E_TMP/v2.txt" 2
rf tls --source "https://$SRV4:8443/feed.txt" --format adblock --lenient \
	--ca-file "$NGX/ca.pem"
check_eq "with --ca-file: verified, fetched and applied with the other feed" "0 yes" \
	"$RC $(grep -q 'refresh tls of .*: applied' <<<"$OUT" && echo yes)" "$OUT"
check_eq "... both feeds enforced: urlhaus (shrunk, $V3) and tls (version 2, $V2)" \
	"2 0 0 2" "$(enforced)"

# ------------------------------------------------------------ a local file
echo "$V1" >"$E2E_TMP/local.txt"
OUT=$(cd "$E2E_TMP" && bx refresh "$IF_SRV" mine --source local.txt --state-dir "$STATE" 2>&1)
RC=$?
check_eq "a local file (relative path) is a feed too, kept by its absolute path" "0 yes" \
	"$RC $(grep -qx "source = $E2E_TMP/local.txt" "$STATE/$IF_SRV/feeds/mine/spec" &&
	echo yes)" "$OUT"
check_eq "... all three feeds enforced: $V1 (mine), $V2 (tls), $V3 (urlhaus)" "0 0 0 2" \
	"$(enforced)"

# ------------------------------------------------------------ usage
rf 'Bad/Name' --source /dev/null
check_eq "a bad list name: usage error (exit 2)" 2 "$RC" "$OUT"
rf urlhaus --format domain
check_eq "--format without --source: usage error (exit 2)" "2 yes" \
	"$RC $(grep -q 'go with --source' <<<"$OUT" && echo yes)" "$OUT"

# ------------------------------------------------------------ cleanup
procs=$(ps -o pid= --ppid "$NGINX_PID" 2>/dev/null)
for pid in $procs; do procs+=" $(ps -o pid= --ppid "$pid" 2>/dev/null)"; done
e2e_cleanup
left=$(e2e_leftovers)
for pid in $NGINX_PID $procs; do
	kill -0 "$pid" 2>/dev/null && left+=" process $pid ($(ps -o args= -p "$pid"))"
done
check_eq "cleanup leaves no namespace, interface, pin, file or server process" "" "$left"
diag "run time: $((SECONDS - T0)) s"
tap_finish
