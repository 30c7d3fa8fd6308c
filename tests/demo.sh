#!/usr/bin/env bash
# 'make demo': bloomxdp on a throw-away veth pair between two network
# namespaces. Attaches, loads lists/sample.txt, pings from listed and unlisted
# addresses, shows the counters and the status, then removes everything.
# Needs root; touches nothing outside its own sandbox. Exits non-zero if the
# traffic does not behave as the list says.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

LIST=lists/sample.txt
SRV6=2001:db8::1	# the sample list's IPv6 entries are in 2001:db8::/64
# Client addresses: three in the list (one of them as ::ffff:192.0.2.99), two not.
CLIENTS=(192.0.2.66 192.0.2.99 192.0.2.10 2001:db8::bad:1 2001:db8::10)
PINGS=3

heading() { printf '\n== %s\n' "$*"; }
# Shows a bloomxdp command as a user would type it, then its output, indented.
show() {
	local rc
	printf '$ bloomxdp %s\n' "$*"
	bx "$@" 2>&1 | sed 's/^/    /'
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || printf '    (exit status %d)\n' "$rc"
	return "$rc"
}
die() {
	echo "demo: $*" >&2
	exit 1
}

# On a fresh machine bpffs is not mounted: mount it, as .ci/run does.
if [ "$(id -u)" -eq 0 ] && [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
	echo "demo: mounting bpffs at /sys/fs/bpf (mount -t bpf bpf /sys/fs/bpf)"
	mount -t bpf bpf /sys/fs/bpf || die "cannot mount bpffs at /sys/fs/bpf"
fi
if ! why=$(e2e_requirements); then
	die "$why"
fi
e2e_install_trap

heading "Sandbox"
topo_up "${CLIENTS[@]}" || die "cannot build the sandbox"
cat <<EOF
Two network namespaces joined by a veth pair (all removed at the end):
  client  netns $NS_CLI, $IF_CLI: ${CLIENTS[*]}
  server  netns $NS_SRV, $IF_SRV: $SRV4 $SRV6   <- bloomxdp attaches here
(bloomxdp runs as 'nsenter --net=/run/netns/$NS_SRV bloomxdp ...': it needs the
server's network namespace and the root mount namespace, where bpffs is.)
EOF

heading "Attach the XDP program (native mode) with an empty filter"
show attach "$IF_SRV" --mode native --capacity 10000 --fpr 0.001 || die "attach failed"

heading "Load $LIST"
echo "Its entries (comments and blank lines left out):"
grep -vE '^[[:space:]]*(#|$)' "$LIST" | sed 's/[[:space:]]*#.*//; s/^[[:space:]]*/    /'
show load "$IF_SRV" "$LIST" || die "load failed"
show query "$IF_SRV" "${CLIENTS[@]}"

heading "Traffic: $PINGS pings to the server from each client address"
ping_many "$PINGS" 0.1 "${CLIENTS[@]}"
status=0
printf '  %-18s %-12s %s\n' "source" "query says" "ping replies"
for a in "${CLIENTS[@]}"; do
	# "ADDR: blocked (listed: ENTRY)" or "ADDR: not blocked": the verdict after the address.
	verdict=$(bx query "$IF_SRV" "$a" 2>/dev/null)
	verdict=${verdict#"$a: "}
	verdict=${verdict%% (*}
	rx=${PING_RX[$a]}
	printf '  %-18s %-12s %s/%s' "$a" "$verdict" "$rx" "${PING_TX[$a]}"
	if [ "$verdict" = blocked ] && [ "$rx" = 0 ]; then
		echo "   dropped by XDP"
	elif [ "$verdict" = "not blocked" ] && [ "$rx" = "$PINGS" ]; then
		echo "   passed"
	else
		echo "   UNEXPECTED"
		status=1
	fi
done

heading "Counters"
show stats "$IF_SRV"

heading "Status"
show status "$IF_SRV"

heading "Detach and clean up"
show detach "$IF_SRV"
e2e_cleanup
left=$(e2e_leftovers)
if [ -n "$left" ]; then
	echo "left behind:"
	echo "$left"
	status=1
else
	echo "namespaces, veth pair and pins removed"
fi

echo
[ "$status" -eq 0 ] && echo "demo: OK" || echo "demo: FAILED (see UNEXPECTED above)"
exit "$status"
