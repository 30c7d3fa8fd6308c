#!/usr/bin/env bash
# The pins against a hostile interface name and a hijacked pin directory.
#
#   - every command refuses '..', '.', 'a/b', '../x', 'a:b', 'a b', a 16-byte
#     name, an empty name and a name with a newline: exit 2 (a usage error),
#     one line on stderr, the name escaped, and nothing on the bpffs touched
#     (decoy pins of "another tool" at /sys/fs/bpf/other/link and
#     /sys/fs/bpf/{config,prog,state,link} survive 'detach ../other' and
#     'detach ..');
#   - a bloomxdp directory made by someone else (an unprivileged uid, mode
#     0777), a bloomxdp that is a symbolic link, or one with group/other
#     permissions: attach, load and detach refuse it (exit 1, one line that
#     says why and what to do) and put nothing in it;
#   - an interface directory that is a symbolic link to a victim's pins, or
#     is owned by someone else: detach refuses, the victim's pins survive;
#   - root's own 0700 directories work, premade or made by attach;
#   - pins of another version (a configuration of another size): status, load, add and query
#     refuse in one line that says detach, then restore; doing so brings the list back.
#
# Runs in a private mount namespace with a fresh bpffs at /sys/fs/bpf (mode
# 1777, as 'mount -t bpf bpf /sys/fs/bpf' makes it), and a private network
# namespace with a veth pair of its own: the machine's bpffs and network are
# never touched, and both namespaces (pins, XDP links, veths) vanish with the
# script, however it ends. Speaks TAP. Needs root; about 5 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_private_bpffs "pin directory tests" setpriv bpftool -- "$@"
check_eq "a fresh bpffs in a private mount namespace, mode 1777 (as CI mounts it)" 1777 \
	"$(stat -c %a /sys/fs/bpf)"

BPFFS=/sys/fs/bpf
IF=$IF_SRV
NOBODY=$(id -u nobody 2>/dev/null || echo 65534)
E2E_TMP=$(mktemp -d "/tmp/bxp-$E2E_ID.XXXXXX") || exit 1
trap 'rm -rf -- "$E2E_TMP"' EXIT
export BLOOMXDP_STATE_DIR=$E2E_TMP/state
LIST=$E2E_TMP/list.txt
echo 192.0.2.10 >"$LIST"

# Our own veth pair, in our own network namespace.
if ! ip link add "$IF" type veth peer name "$IF_CLI" || ! ip link set "$IF" up ||
	! ip link set "$IF_CLI" up; then
	not_ok "create a veth pair in the private network namespace"
	tap_finish
	exit 1
fi

bxp() { timeout 20 "$BLOOMXDP" "$@"; }
as_nobody() { setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups -- "$@"; }
# A pinned map, as another tool (or a victim) would leave one.
plant() { bpftool map create "$1" type array key 4 value 4 entries 1 name decoy; }
# Everything on the bpffs: name, type, owner, mode.
snapshot() { find "$BPFFS" -printf '%p %y %U %m\n' | sort; }
xdp_here() { ip -d link show dev "$IF" | grep -oE 'prog/xdp[a-z]* id [0-9]+'; }
shown() { printf '%q' "$1"; }
# Each case starts from a bloomxdp as it sets it up (a failure of an earlier
# one must not hide the next): whatever is there goes, pins and links with it.
reset_root() { rm -rf -- "$PIN_ROOT"; }
# A victim's pins, named like ours, afresh; victim lists them.
plant_victim() {
	local p
	rm -rf -- "$BPFFS/victim"
	mkdir -m 0700 "$BPFFS/victim"
	for p in link prog config state filter; do
		plant "$BPFFS/victim/$p" || not_ok "plant the victim's pin $p"
	done
	victim=$(find "$BPFFS/victim" | sort)
}
# The bpffs but our own pins.
others() { snapshot | grep -v "^$PIN_ROOT"; }

# refused NAME WANT_RC REGEX COMMAND...: COMMAND exits WANT_RC with nothing on
# stdout and exactly one line on stderr matching REGEX, and the bpffs is as it was.
refused() {
	local name=$1 want=$2 regex=$3 before after rc lines
	shift 3
	before=$(snapshot)
	"$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err"
	rc=$?
	after=$(snapshot)
	lines=$(wc -l <"$E2E_TMP/err")
	# One newline, and it ends the output: exactly one line.
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] &&
		[ -z "$(tail -c 1 "$E2E_TMP/err" | tr -d '\n')" ] && [ ! -s "$E2E_TMP/out" ] &&
		grep -qE -- "$regex" "$E2E_TMP/err" && [ "$before" = "$after" ]; then
		ok "$name"
		return 0
	fi
	not_ok "$name" "exit status $rc (want $want), $lines line(s) on stderr (want 1):" \
		"$(od -c "$E2E_TMP/err" | head -n 6)" "stdout: $(head -c 200 "$E2E_TMP/out")" \
		"want /$regex/" \
		"bpffs changed: $(diff <(echo "$before") <(echo "$after") | head -n 8)"
	return 1
}

# ------------------------------------------------------------ root's own directories work
check "attach $IF (creates $PIN_ROOT)" bxp attach "$IF" --capacity 1000
check_eq "$PIN_ROOT and $PIN_ROOT/$IF are root's, mode 700" "d 0 700 d 0 700" \
	"$(stat -c '%F %u %a' "$PIN_ROOT" "$PIN_ROOT/$IF" | sed 's/^directory/d/' | paste -sd ' ')"
modes=$(find "$PIN_ROOT/$IF" -mindepth 1 -printf '%U %m\n' | sort -u)
check_eq "every pin is root's, mode 600" "0 600" "$modes"
check "load, through the checked directory" bxp load "$IF" "$LIST"
check_eq "query sees the loaded list" "192.0.2.10: blocked (listed: 192.0.2.10)" \
	"$(bxp query "$IF" 192.0.2.10 2>&1)"
check "status reads the link pin" bxp status "$IF"

# ------------------------------------------------------------ hostile names
# Decoys: another tool's link pin, and pins named like ours in the bpffs root.
mkdir -m 0700 "$BPFFS/other"
for p in other/link config prog state link; do
	plant "$BPFFS/$p" || not_ok "plant the decoy $BPFFS/$p"
done
decoys_before=$(others)

HOSTILE=(.. . a/b ../x ../other a:b 'a b' 0123456789abcdef '' $'a\nb' $'a\tb' $'\xa0x' \
	"$IF/../$IF" "../bloomxdp/$IF")
for name in "${HOSTILE[@]}"; do
	for cmd in attach detach load add query stats status watch; do
		case $cmd in
		load) args=("$name" "$LIST") ;;
		add | query) args=("$name" 192.0.2.99) ;;
		watch) args=("$name" --timeout 1) ;;
		*) args=("$name") ;;
		esac
		refused "$cmd $(shown "$name"): exit 2, one line" 2 "is not an interface name" \
			bxp "$cmd" "${args[@]}"
	done
done
refused "a newline in the name is shown escaped" 2 \
	"^bloomxdp: 'a\\\\x0ab' is not an interface name" \
	bxp detach $'a\nb'
refused "detach ../other: exit 2, says why" 2 \
	"'\.\./other' is not an interface name: it contains '/'" \
	bxp detach ../other
refused "detach ..: exit 2, says why" 2 "'\.\.' is not an interface name: it is '\.' or '\.\.'" \
	bxp detach ..
check_eq "the decoy pins of another tool survive every hostile name" "$decoys_before" "$(others)"
check "$IF is still attached and readable" bxp status "$IF"
if [ -n "$(xdp_here)" ]; then
	ok "the XDP program is still on $IF"
else
	not_ok "the XDP program is still on $IF" "$(ip -d link show dev "$IF")"
fi

# A name the kernel allows, with a control character: managed, and echoed escaped.
refused "a control character in an unknown name is escaped, one line" 1 \
	"a\\\\x01b: no such interface" bxp stats $'a\x01b'
refused "attach to an unknown name with a control character: one line" 1 \
	"a\\\\x01b: no such interface" bxp attach $'a\x01b'
CTL=$'bx\x01'$E2E_ID
if ip link add "$CTL" type veth peer name "${IF_CLI}x" 2>/dev/null; then
	check "attach to an interface whose name has a control character" bxp attach "$CTL" \
		--capacity 1000 --mode generic
	check "detach it" bxp detach "$CTL"
	ip link del "$CTL"
else
	skip "attach to an interface whose name has a control character" "ip link add refused it"
fi

# Pins of another version (its configuration of another size: the maps' shapes differ, and
# a map of the old shape refuses the new with a bare EINVAL): every command refuses, one line
# saying what to do, and doing it (detach, restore) brings the list back.
cfg_bytes=$(bpftool map show pinned "$PIN_ROOT/$IF/config" -j | sed -n 's/.*"bytes_value":\([0-9]*\).*/\1/p')
rm -f "$PIN_ROOT/$IF/config"
bpftool map create "$PIN_ROOT/$IF/config" type array key 4 value $((cfg_bytes - 8)) entries 1 \
	name config || not_ok "plant a configuration of another version"
for cmd in status load add query; do
	case $cmd in
	load) args=("$IF" "$LIST") ;;
	add | query) args=("$IF" 192.0.2.10) ;;
	*) args=("$IF") ;;
	esac
	refused "$cmd on the pins of another version: says detach, then restore" 1 \
		"attached by another version of bloomxdp \(config of $((cfg_bytes - 8)) bytes, not $cfg_bytes\): 'bloomxdp detach $IF', then 'bloomxdp restore $IF'" \
		bxp "$cmd" "${args[@]}"
done
check "detach the attachment of another version" bxp detach "$IF"
check "restore attaches it again" bxp restore "$IF"
check_eq "with the list its state records" "192.0.2.10: blocked (listed: 192.0.2.10)" \
	"$(bxp query "$IF" 192.0.2.10 2>&1)"

# An attachment of an earlier bloomxdp lacks the pins of later maps: say how to upgrade it.
rm -f "$PIN_ROOT/$IF/list_keys"
refused "a pin missing (an earlier bloomxdp's attachment): says detach and restore" 1 \
	"no such pin: attached by an earlier bloomxdp.*bloomxdp restore $IF" bxp stats "$IF"

check "detach $IF" bxp detach "$IF"
check_eq "detach removes $PIN_ROOT once empty" "" "$(ls -d "$PIN_ROOT" 2>/dev/null)"
check_eq "the decoys survive detach too" "$decoys_before" "$(others)"

# ------------------------------------------------------------ a bloomxdp made by someone else
reset_root
OWNED="is owned by uid $NOBODY with mode 0777, not root's with 0700: someone else may have made"
OWNED+=" it; check its contents, remove it, and attach again"
as_nobody mkdir -m 0777 "$PIN_ROOT"
check_eq "nobody made $PIN_ROOT, mode 777" "$NOBODY 777" "$(stat -c '%u %a' "$PIN_ROOT")"
refused "attach refuses a $PIN_ROOT made by uid $NOBODY (exit 1, one line, why and what to do)" 1 \
	"^bloomxdp: $PIN_ROOT $OWNED\$" bxp attach "$IF" --capacity 1000
check_eq "nothing of root's was created in it" "" "$(find "$PIN_ROOT" -mindepth 1)"
check_eq "and no XDP program is left on $IF" "" "$(xdp_here)"
for cmd in load detach status stats add query watch; do
	case $cmd in
	load) args=("$IF" "$LIST") ;;
	add | query) args=("$IF" 192.0.2.99) ;;
	watch) args=("$IF" --timeout 1) ;;
	*) args=("$IF") ;;
	esac
	refused "$cmd refuses it too" 1 "^bloomxdp: $PIN_ROOT $OWNED\$" bxp "$cmd" "${args[@]}"
done

# The attack itself: a link in the foreign bloomxdp to a victim's pins.
reset_root
as_nobody mkdir -m 0777 "$PIN_ROOT"
plant_victim
as_nobody ln -s "$BPFFS/victim" "$PIN_ROOT/rlp9"
refused "detach rlp9 through a foreign bloomxdp with a link to a victim: refused" 1 \
	"^bloomxdp: $PIN_ROOT $OWNED\$" bxp detach rlp9
check_eq "the victim's pins survive" "$victim" "$(find "$BPFFS/victim" | sort)"

# ------------------------------------------------------------ a bloomxdp that is a symbolic link
reset_root
mkdir -m 0700 "$BPFFS/elsewhere"
as_nobody ln -s elsewhere "$PIN_ROOT"
for cmd in attach detach load; do
	case $cmd in load) args=("$IF" "$LIST") ;; *) args=("$IF") ;; esac
	refused "$cmd refuses $PIN_ROOT as a symbolic link" 1 \
		"^bloomxdp: $PIN_ROOT is a symbolic link, not a directory: .*remove it" \
		bxp "$cmd" "${args[@]}"
done
check_eq "nothing was created where the link points" "" "$(find "$BPFFS/elsewhere" -mindepth 1)"
check_eq "no XDP program on $IF" "" "$(xdp_here)"

# ------------------------------------------------------------ root's, but group/other may write
reset_root
mkdir -m 0755 "$PIN_ROOT"
refused "attach refuses a $PIN_ROOT of root's with mode 0755" 1 \
	"^bloomxdp: $PIN_ROOT is owned by uid 0 with mode 0755, not root's with 0700" \
	bxp attach "$IF" --capacity 1000
check_eq "nothing was created in it" "" "$(find "$PIN_ROOT" -mindepth 1)"

# ------------------------------------------------------------ bad interface directories
reset_root
plant_victim
mkdir -m 0700 "$PIN_ROOT"
ln -s "$BPFFS/victim" "$PIN_ROOT/rlp9"
refused "detach refuses an interface directory that is a link to a victim's pins" 1 \
	"^bloomxdp: $PIN_ROOT/rlp9 is a symbolic link, not a directory" bxp detach rlp9
refused "status refuses it too" 1 "$PIN_ROOT/rlp9 is a symbolic link" bxp status rlp9
check_eq "the victim's pins survive" "$victim" "$(find "$BPFFS/victim" | sort)"
rm -f "$PIN_ROOT/rlp9"

mkdir -m 0700 "$PIN_ROOT/rlp8"
plant "$PIN_ROOT/rlp8/config"
chown -R "$NOBODY" "$PIN_ROOT/rlp8"
refused "detach refuses an interface directory owned by uid $NOBODY" 1 \
	"^bloomxdp: $PIN_ROOT/rlp8 is owned by uid $NOBODY with mode 0700, not root's" \
	bxp detach rlp8
check_eq "what it holds survives" "$PIN_ROOT/rlp8/config" "$(find "$PIN_ROOT/rlp8" -mindepth 1)"

# ------------------------------------------------------------ a premade 0700 bloomxdp of root's
reset_root
mkdir -m 0700 "$PIN_ROOT"
check_eq "$PIN_ROOT premade by root, mode 700, empty" "0 700 " \
	"$(stat -c '%u %a' "$PIN_ROOT") $(find "$PIN_ROOT" -mindepth 1)"
check "attach uses it" bxp attach "$IF" --capacity 1000
check "load" bxp load "$IF" "$LIST"
check_eq "query" "192.0.2.10: blocked (listed: 192.0.2.10)" "$(bxp query "$IF" 192.0.2.10 2>&1)"
check_fails "attach twice still says already attached" 1 "already attached to $IF" \
	bxp attach "$IF" --capacity 1000
check "detach" bxp detach "$IF"
check_eq "nothing of ours is left" "" "$(ls -d "$PIN_ROOT" 2>/dev/null)"
missing=
for p in other/link config prog state link victim/link victim/prog victim/config victim/state \
	victim/filter; do
	bpftool map show pinned "$BPFFS/$p" >/dev/null 2>&1 || missing+=" $p"
done
check_eq "the victim's pins and the decoys are all still there" "" "$missing"

tap_finish
