#!/usr/bin/env bash
# fail2ban with bloomxdp's action (dist/fail2ban/bloomxdp.conf): a real
# fail2ban-server (Debian's fail2ban), started by the test in the server's
# network namespace with a configuration of the test's own, watches a log
# file the test writes. After maxretry failures of a client address its
# pings are dropped by XDP; after bantime fail2ban unbans it (bloomxdp del)
# and they pass again; an address that failed fewer times is never touched.
# Speaks TAP; needs root, fail2ban; about 15 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "fail2ban tests" fail2ban-server fail2ban-client python3
e2e_install_trap

ATTACKER=192.0.2.95
OTHER=192.0.2.96
LISTED=192.0.2.97	# in the list loaded by hand: stays dropped throughout
if ! topo_up "$ATTACKER" "$OTHER" "$LISTED"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi

BANTIME=4
F2B=$E2E_TMP/fail2ban
AUTHLOG=$E2E_TMP/auth.log
mkdir -p "$F2B/action.d" "$F2B/filter.d" "$F2B/jail.d" "$F2B/fail2ban.d"
: >"$AUTHLOG"
# The action as installed: the template with the built binary in place of @SBINDIR@.
sed "s|@SBINDIR@/bloomxdp|$BLOOMXDP|" dist/fail2ban/bloomxdp.conf >"$F2B/action.d/bloomxdp.conf"
cat >"$F2B/fail2ban.conf" <<EOF
[Definition]
loglevel = INFO
logtarget = $F2B/fail2ban.log
socket = $F2B/fail2ban.sock
pidfile = $F2B/fail2ban.pid
dbfile = :memory:
EOF
cat >"$F2B/filter.d/bx.conf" <<'EOF'
[Definition]
failregex = ^Failed login from <HOST>$
datepattern = {NONE}
EOF
cat >"$F2B/jail.conf" <<EOF
[DEFAULT]
backend = polling
[bx]
enabled = true
filter = bx
logpath = $AUTHLOG
maxretry = 3
findtime = 60
bantime = $BANTIME
action = bloomxdp[iface="$IF_SRV"]
EOF

check "attach $IF_SRV" bx attach "$IF_SRV" --capacity 1000 || {
	tap_finish
	exit 1
}
printf '%s\n' "$LISTED" >"$E2E_TMP/list.txt"
check "load a list" bx load "$IF_SRV" "$E2E_TMP/list.txt"

# received SRC...: how many of 3 pings from each SRC got a reply.
received() {
	local src out=()
	for src in "$@"; do
		out+=("$(ping_recv "$src" "$SRV4" 3 0.02 | cut -d' ' -f2)")
	done
	echo "${out[*]}"
}
# until_query ADDR WORD: until query's verdict of ADDR starts with WORD (blocked, not blocked),
# 5 s at most: fail2ban logs "Ban"/"Unban" before its action (bloomxdp add/del) has run.
until_query() {
	local i
	for ((i = 0; i < 50; i++)); do
		[[ $(bx query "$IF_SRV" "$1" 2>&1) == "$1: $2"* ]] && return 0
		sleep 0.1
	done
	return 1
}
check_eq "before: the attacker and the other pass, the listed address is dropped" "3 3 0" \
	"$(received "$ATTACKER" "$OTHER" "$LISTED")"

# fail2ban-server in the foreground, in the server's namespace: its actions run there.
bg_start timeout 60 nsenter --net="/run/netns/$NS_SRV" -- fail2ban-server -f -x \
	-c "$F2B" --logtarget "$F2B/fail2ban.log" >"$F2B/server.out" 2>&1
F2B_PID=$BG_PID
started=0
wait_log "Jail 'bx' started" 1 10 "$F2B/fail2ban.log" && started=1
check_eq "fail2ban-server started the jail" 1 "$started" \
	"$(cat "$F2B/fail2ban.log" "$F2B/server.out" 2>/dev/null | tail -20)"

# The other address fails twice only: under maxretry.
for i in 1 2 3; do
	echo "Failed login from $ATTACKER" >>"$AUTHLOG"
	[ "$i" -lt 3 ] && echo "Failed login from $OTHER" >>"$AUTHLOG"
done
banned=0
wait_log "Ban $ATTACKER" 1 10 "$F2B/fail2ban.log" && banned=1
check_eq "after 3 failures fail2ban bans the attacker" 1 "$banned" \
	"$(tail -20 "$F2B/fail2ban.log" 2>/dev/null)"
until_query "$ATTACKER" blocked
check_eq "banned: the attacker's pings are dropped by XDP, the others as before" "0 3 0" \
	"$(received "$ATTACKER" "$OTHER" "$LISTED")" "$(tail -5 "$F2B/fail2ban.log")"
check_eq "... and query says it is in list fail2ban" "$ATTACKER: blocked (listed in fail2ban)" \
	"$(bx query "$IF_SRV" "$ATTACKER" 2>&1)"

unbanned=0
wait_log "Unban $ATTACKER" 1 $((BANTIME + 6)) "$F2B/fail2ban.log" && unbanned=1
check_eq "after bantime ($BANTIME s) fail2ban unbans it" 1 "$unbanned"
until_query "$ATTACKER" "not blocked"
check_eq "unbanned: the attacker passes again, the listed address is still dropped" "3 3 0" \
	"$(received "$ATTACKER" "$OTHER" "$LISTED")" "$(tail -5 "$F2B/fail2ban.log")"

nsenter --net="/run/netns/$NS_SRV" -- fail2ban-client -s "$F2B/fail2ban.sock" stop \
	>/dev/null 2>&1
wait_pid "$F2B_PID" 10
check_eq "fail2ban-server stops" 0 "$?"
check "detach" bx detach "$IF_SRV"

tap_finish
