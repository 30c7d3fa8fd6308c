#!/usr/bin/env bash
# The daemon with an http feed (a real nginx in the server's namespace) beside
# a local file: both lists are enforced together; an unchanged feed costs a
# 304 to the ETag sent back (nginx's access log); a change is picked up within
# its interval; an empty copy is refused by the guard, and the feed's last
# good copy stays enforced along with the local file; a daemon started again
# while nginx is down loads the feed's good copy from the feed cache.
# Speaks TAP; needs root, nginx, python3; about 20 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "daemon feed tests" nginx python3
e2e_install_trap

C_FILE=192.0.2.80	# in the local file
C_FEED1=192.0.2.81	# in the feed's first version
C_FEED2=192.0.2.82	# in the feed's second version
C_NONE=192.0.2.83	# never listed
if ! topo_up "$C_FILE" "$C_FEED1" "$C_FEED2" "$C_NONE"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

NGX=$E2E_TMP/nginx
WWW=$NGX/www
HTTP_PORT=8081
CONF=$E2E_TMP/$IF_SRV.conf
ERR=$E2E_TMP/daemon.err
mkdir -p "$WWW"
printf '%s\n' "$C_FILE" >"$E2E_TMP/local.txt"
# write_feed LINE...: the served copy, replaced at once.
write_feed() {
	printf '%s\n' "$@" >"$WWW/feed.txt.tmp"
	mv "$WWW/feed.txt.tmp" "$WWW/feed.txt"
}
write_feed "# feed version 1" "$C_FEED1"
cat >"$CONF" <<EOF
[attach]
capacity = 1000
fpr = 1%
match = src

[list local]
source = $E2E_TMP/local.txt
refresh = 0

[list web]
source = http://127.0.0.1:$HTTP_PORT/feed.txt
format = addr
refresh = 1s

[daemon]
state_dir = $E2E_TMP/state
events = none
EOF
check "check-config accepts a feed beside a local file" "$BLOOMXDP" check-config "$CONF"

nginx_start "$NGX" "escape=none '\$status \$request_uri inm=\$http_if_none_match'" <<EOF
	server {
		listen 127.0.0.1:$HTTP_PORT;
		root $WWW;
	}
EOF
HTTP_PID=$NGINX_PID
check "nginx serves the feed in $NS_SRV" wait_listen tcp "$HTTP_PORT"

# received SRC...: how many of 5 pings from each SRC got a reply.
received() {
	local src out=()
	for src in "$@"; do
		out+=("$(ping_recv "$src" "$SRV4" 5 0.02 | cut -d' ' -f2)")
	done
	echo "${out[*]}"
}

bg_start timeout 90 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	--config "$CONF" >/dev/null 2>"$ERR"
DPID=$BG_PID
check "the daemon loads the file and the feed together" wait_log 'blocklist loaded from 2' 1 15
check_eq "the file's and the feed's sources are dropped, the others pass" "0 0 5 5" \
	"$(received "$C_FILE" "$C_FEED1" "$C_FEED2" "$C_NONE")" "$(cat "$ERR")"

# Unchanged for a few intervals: conditional requests, answered 304.
sleep 2.5
check "an unchanged feed costs a 304 to the ETag sent back (nginx's access log)" \
	grep -qE '^304 /feed.txt inm="[0-9a-f]+-[0-9a-f]+"$' "$NGX/access.log"
write_feed "# feed version 2" "$C_FEED2"
# The ETag is mtime and size: make the new copy's mtime differ.
touch -d '+2 seconds' "$WWW/feed.txt"
# Only the list whose copy changed is loaded again: the file's stays as loaded.
check "the changed feed is loaded within its interval" wait_log 'blocklist loaded from 1 source$' 1 10
check_eq "the feed's new version is enforced, the file's still" "0 5 0 5" \
	"$(received "$C_FILE" "$C_FEED1" "$C_FEED2" "$C_NONE")" "$(cat "$ERR")"

: >"$WWW/feed.txt"
touch -d '+4 seconds' "$WWW/feed.txt"
check "an empty copy of the feed is refused by its guard" wait_log 'web.*(empty|no entr)' 1 10
check_eq "... and the feed's good copy stays enforced, with the file" "0 5 0 5" \
	"$(received "$C_FILE" "$C_FEED1" "$C_FEED2" "$C_NONE")" "$(cat "$ERR")"

kill -TERM "$DPID" 2>/dev/null
wait_pid "$DPID" 10
check_eq "SIGTERM ends the daemon with status 0" 0 "$?"
stop_pid "$HTTP_PID"
bx detach "$IF_SRV" >/dev/null 2>&1
: >"$ERR"
bg_start timeout 90 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	--config "$CONF" >/dev/null 2>"$ERR"
DPID=$BG_PID
check "started again with the feed server down, it loads the feed's good copy" \
	wait_log 'blocklist loaded from 2' 1 15
check_eq "... the last good version of the feed and the file are enforced" "0 5 0 5" \
	"$(received "$C_FILE" "$C_FEED1" "$C_FEED2" "$C_NONE")" "$(cat "$ERR")"
kill -TERM "$DPID" 2>/dev/null
wait_pid "$DPID" 10

tap_finish
