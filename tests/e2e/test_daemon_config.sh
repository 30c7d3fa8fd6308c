#!/usr/bin/env bash
# The daemon on its configuration alone (BLOOMXDP_STATE_DIR unset): it attaches
# with [daemon] state_dir (an empty 0700 directory) and enforces its lists
# there, nothing in the default state directory; a feed that has no good copy
# (404) is reported and keeps out only itself: the other feed, the local file
# and [list default] are enforced from the first start; [list default] is the
# default list (one "list default" row in status), which the configuration's
# file replaces, entries loaded by hand into it included. A 304 to a first
# fetch is no copy; a feed failing every second is logged at its 1st, 2nd,
# 4th... failure, "not modified" not at all. Without a configuration file,
# 'daemon IFNAME' runs with the defaults and expires entries added with
# --timeout. Started again, the daemon does not load again the lists that the
# state records as they are. Speaks TAP; needs root, nginx, python3; about 35 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "daemon configuration tests" nginx python3
e2e_install_trap

C_FEED=192.0.2.90	# in feed a
C_FILE=192.0.2.91	# in the local file of [list c]
C_DEF=192.0.2.92	# in the file of [list default]
C_HAND=192.0.2.93	# loaded by hand into the default list
C_NONE=192.0.2.94	# never listed
if ! topo_up "$C_FEED" "$C_FILE" "$C_DEF" "$C_HAND" "$C_NONE"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

# On main, the daemon attached with the default state directory: whatever a run
# leaves there for this run's interface goes too (its name is this run's own).
DEFAULT_STATE=/var/lib/bloomxdp
DEFAULT_HAD=0
[ -d "$DEFAULT_STATE" ] && DEFAULT_HAD=1
default_state_cleanup() {
	rm -rf -- "${DEFAULT_STATE:?}/$IF_SRV"
	[ "$DEFAULT_HAD" = 1 ] || rmdir -- "$DEFAULT_STATE" 2>/dev/null
	return 0
}
trap 'e2e_cleanup; default_state_cleanup' EXIT

NGX=$E2E_TMP/nginx
WWW=$NGX/www
HTTP_PORT=8083
SD=$E2E_TMP/sd4
CONF=$E2E_TMP/$IF_SRV.conf
ERR=$E2E_TMP/daemon.err
mkdir -p "$WWW"
mkdir -m 0700 "$SD"
printf '%s\n' "$C_FEED" >"$WWW/a.txt"
printf '%s\n' "$C_FILE" >"$E2E_TMP/local.txt"
printf '%s\n' "$C_DEF" >"$E2E_TMP/default.txt"
printf '%s\n' "$C_HAND" >"$E2E_TMP/hand.txt"
cat >"$CONF" <<EOF
[attach]
capacity = 10000
match = src

[list a]
source = http://127.0.0.1:$HTTP_PORT/a.txt
format = addr
refresh = 1s

[list b]
source = http://127.0.0.1:$HTTP_PORT/none.txt
format = addr
refresh = 1s

[list e]
source = http://127.0.0.1:$((HTTP_PORT + 1))/e.txt
format = addr
refresh = 1h

[list c]
source = $E2E_TMP/local.txt
refresh = 1s

[list default]
source = $E2E_TMP/default.txt
refresh = 1s

[daemon]
state_dir = $SD
events = none
EOF
check "check-config accepts the configuration" env -u BLOOMXDP_STATE_DIR \
	"$BLOOMXDP" check-config "$CONF"

nginx_start "$NGX" "'\$status \$request_uri'" <<EOF
	server {
		listen 127.0.0.1:$HTTP_PORT;
		root $WWW;
	}
EOF
check "nginx serves feed a (feed b answers 404)" wait_listen tcp "$HTTP_PORT"
# Feed e: a server that answers 304 to everything, validators or not.
cat >"$E2E_TMP/304.py" <<'EOF'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(304)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
bg_start timeout 90 nsenter --net="/run/netns/$NS_SRV" -- python3 "$E2E_TMP/304.py" \
	$((HTTP_PORT + 1))
check "a server answers 304 to everything (feed e)" wait_listen tcp $((HTTP_PORT + 1))

# received SRC...: how many of 5 pings from each SRC got a reply.
received() {
	local src out=()
	for src in "$@"; do
		out+=("$(ping_recv "$src" "$SRV4" 5 0.02 | cut -d' ' -f2)")
	done
	echo "${out[*]}"
}

bg_start timeout 90 env -u BLOOMXDP_STATE_DIR nsenter --net="/run/netns/$NS_SRV" -- \
	"$BLOOMXDP" daemon "$IF_SRV" --config "$CONF" >/dev/null 2>"$ERR"
DPID=$BG_PID
# The commands of the test read the state where the configuration put it.
export BLOOMXDP_STATE_DIR=$SD
if wait_log 'blocklist loaded' 2 15; then
	ok "the daemon attached and loaded its lists"
else
	not_ok "the daemon attached and loaded its lists" "$(cat "$ERR")"
fi
check "the feed without a copy is reported by name" grep -q 'list b has no copy yet' "$ERR"
check "a 304 to a first fetch is no copy" grep -q 'refresh e of .*answered 304.*no copy' "$ERR"
check "... and feed e is reported as having none" grep -q 'list e has no copy yet' "$ERR"
check_eq "no list waits for it: nothing was refused for want of state" "" \
	"$(grep -E 'there is none|was not loaded' "$ERR")"
check "the attachment's state is in [daemon] state_dir" test -s "$SD/$IF_SRV/settings"
check_eq "... and nothing of it in the default state directory" "" \
	"$(ls -A "$DEFAULT_STATE/$IF_SRV" 2>/dev/null)"
expect_query "feed a, the local file and [list default] are enforced; b's absence is not" \
	"$C_FEED: blocked" "$C_FILE: blocked" "$C_DEF: blocked" \
	"$C_NONE: not blocked"
check_eq "their sources are dropped, the others pass" "0 0 0 5 5" \
	"$(received "$C_FEED" "$C_FILE" "$C_DEF" "$C_HAND" "$C_NONE")"
status=$(bx status "$IF_SRV" 2>&1)
check_eq "status shows one default list" 1 "$(grep -c 'list default' <<<"$status")" "$status"

# By hand into the default list; the configuration's file, changed, replaces it.
check "load by hand into the default list" bx load "$IF_SRV" "$E2E_TMP/hand.txt"
check_eq "... which is enforced for now" "0" "$(received "$C_HAND")"
printf '%s\n%s\n' "# changed" "$C_DEF" >"$E2E_TMP/default.txt.tmp"
mv "$E2E_TMP/default.txt.tmp" "$E2E_TMP/default.txt"
if wait_log 'blocklist loaded' 3 10; then
	ok "the changed file of [list default] was loaded"
else
	not_ok "the changed file of [list default] was loaded" "$(cat "$ERR")"
fi
expect_query "[list default] is the default list: its file replaced what was loaded by hand" \
	"$C_DEF: blocked" "$C_HAND: not blocked" "$C_FEED: blocked" \
	"$C_FILE: blocked"
status=$(bx status "$IF_SRV" 2>&1)
check_eq "status still shows one default list" 1 "$(grep -c 'list default' <<<"$status")" \
	"$status"

# Feeds a and b are tried every second: a's "not modified" is not logged, b's
# failures at the 1st, 2nd, 4th, 8th...
sleep 8
counts=$(grep 'refresh b of' "$ERR" | sed -n 's/.*(\([0-9]*\) times in a row)$/\1/p' | paste -sd' ')
check_eq "feed b's failures in a row are logged at the 1st, 2nd, 4th, 8th... ($counts)" \
	"$(awk -v n="${counts##* }" 'BEGIN { for (i = 2; i <= n; i *= 2) s = s (s ? " " : "") i; print s }')" \
	"$counts" "$(grep 'refresh b of' "$ERR")"
check "... at least 8 of them by now" test "${counts##* }" -ge 8
check_eq "feed a, not modified every second, is not logged so" 0 \
	"$(grep -c 'refresh a of .*not modified' "$ERR")"
# Feed a served empty: refused by its guard, the hint naming the interface and the list.
: >"$WWW/a.txt"
touch -d '+3 seconds' "$WWW/a.txt"
if wait_log "to apply it anyway: bloomxdp refresh $IF_SRV a --accept" 1 10; then
	ok "an empty copy of feed a is refused, the hint names $IF_SRV and a"
else
	not_ok "an empty copy of feed a is refused, the hint names $IF_SRV and a" \
		"$(grep 'refresh a' "$ERR")"
fi
check_eq "... and feed a's good copy stays enforced" "$C_FEED: blocked" "$(bxq "$IF_SRV" "$C_FEED")"

kill -TERM "$DPID" 2>/dev/null
wait_pid "$DPID" 10
check_eq "SIGTERM ends the daemon with status 0" 0 "$?"
bg_forget "$DPID"

# Started again: the lists the state records as their sources are now are not loaded
# again; list c, now read another way (format = addr), is.
sed -i "s|^source = $E2E_TMP/local.txt\$|&\nformat = addr|" "$CONF"
: >"$ERR"
bg_start timeout 60 env -u BLOOMXDP_STATE_DIR nsenter --net="/run/netns/$NS_SRV" -- \
	"$BLOOMXDP" daemon "$IF_SRV" --config "$CONF" >/dev/null 2>"$ERR"
DPID=$BG_PID
if wait_log 'blocklist loaded' 1 15; then
	ok "started again, the daemon loaded what changed"
else
	not_ok "started again, the daemon loaded what changed" "$(cat "$ERR")"
fi
sleep 1
check_eq "... lists a and default are enforced already: not loaded again" \
	"list a: enforced already|list default: enforced already" \
	"$(grep -o 'list [a-z]*: enforced already' "$ERR" | sort | paste -sd'|')" "$(cat "$ERR")"
check_eq "... list c, read another way, is: one load of one source" \
	"blocklist loaded from 1 source" "$(grep -o 'blocklist loaded.*' "$ERR")"
expect_query "... and what they list is blocked" "$C_FEED: blocked" "$C_FILE: blocked" \
	"$C_DEF: blocked" "$C_NONE: not blocked"
kill -TERM "$DPID" 2>/dev/null
wait_pid "$DPID" 10
bg_forget "$DPID"

# No configuration file: the defaults, said; entries added with --timeout expire.
: >"$ERR"
bg_start timeout 60 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" daemon "$IF_SRV" \
	>/dev/null 2>"$ERR"
DPID=$BG_PID
if wait_log 'running with the defaults' 1 10; then
	ok "without /etc/bloomxdp/$IF_SRV.conf the daemon runs with the defaults, and says so"
else
	not_ok "without /etc/bloomxdp/$IF_SRV.conf the daemon runs with the defaults" "$(cat "$ERR")"
fi
check "add --timeout 2s" bx add "$IF_SRV" "$C_NONE" --timeout 2s
check_eq "... is enforced" "$C_NONE: blocked" "$(bxq "$IF_SRV" "$C_NONE")"
if wait_log 'expired' 1 8; then
	ok "the daemon expires it"
else
	not_ok "the daemon expires it" "$(cat "$ERR")"
fi
check_eq "... and it passes again" "$C_NONE: not blocked" "$(bxq "$IF_SRV" "$C_NONE")"
check_eq "the lists of before stay enforced" "$C_FEED: blocked" "$(bxq "$IF_SRV" "$C_FEED")"
kill -TERM "$DPID" 2>/dev/null
wait_pid "$DPID" 10
check_eq "SIGTERM ends it with status 0" 0 "$?"
bg_forget "$DPID"
tap_finish
