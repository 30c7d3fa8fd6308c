#!/usr/bin/env bash
# bloomxdp beside another tool's XDP program (tests/e2e/lib.sh's topology):
# xdp-loader (Debian's xdp-tools) loads a program on the server's veth first.
# attach without --force refuses and names it (and whether a libxdp dispatcher
# holds the hook: where the kernel cannot load one, xdp-loader loads without,
# and bloomxdp says there is nothing to share the hook with); attach --force
# replaces it and names it, the state records it through restore, status shows
# it, detach says what ran before and that it is gone. A program that a pin
# holds is said to still exist. attach --multiprog: a component of libxdp's
# dispatcher where the kernel loads one (Debian's 6.1 under tests/kernel/vm.sh),
# else --multiprog yes refuses in one line. TAP on standard output.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "running beside other XDP programs" xdp-loader bpftool

PASS_OBJ=$E2E_ROOT/build/xdp_pass.bpf.o
HELD_PIN=/sys/fs/bpf/bxe-$E2E_ID-pass
LIBXDP_PINS=/sys/fs/bpf/xdp
NEW_LIBXDP_DIRS=()
coexist_cleanup() {
	local d
	e2e_cleanup
	rm -f "$HELD_PIN"
	# libxdp's pins of a dispatcher this test's xdp-loader made (none where it made none).
	for d in "${NEW_LIBXDP_DIRS[@]}"; do
		rm -rf "$d"
	done
}
trap coexist_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

C4_LISTED=192.0.2.20 C4_FREE=192.0.2.22
if ! topo_up "$C4_LISTED" "$C4_FREE"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
[ -f "$PASS_OBJ" ] || { not_ok "$PASS_OBJ is missing: make all first"; tap_finish; exit 1; }
LIST=$E2E_TMP/list.txt
printf '%s\n' "$C4_LISTED" >"$LIST"
SETTINGS=$BLOOMXDP_STATE_DIR/$IF_SRV/settings

# xdp-loader's program: its id on the hook (empty: none).
hook_id() { xdp_on_if | grep -oE '[0-9]+$' | head -1; }

libxdp_dirs() { ls -d "$LIBXDP_PINS"/dispatch-* 2>/dev/null; }
before_dirs=$(libxdp_dirs)
START_LIBXDP_DIRS=$before_dirs
# The dispatchers' pins made since the test began: removed at exit.
note_libxdp_dirs() {
	local d
	for d in $(libxdp_dirs); do
		grep -qxF "$d" <<<"$START_LIBXDP_DIRS" || NEW_LIBXDP_DIRS+=("$d")
	done
}
check "xdp-loader loads xdp_pass on $IF_SRV (generic)" \
	in_srv xdp-loader load -m skb "$IF_SRV" "$PASS_OBJ"
for d in $(libxdp_dirs); do
	grep -qxF "$d" <<<"$before_dirs" || NEW_LIBXDP_DIRS+=("$d")
done
loader_status=$(in_srv xdp-loader status "$IF_SRV" 2>&1)
diag "$(grep -E "$IF_SRV|xdp_" <<<"$loader_status" | head -3)"
id=$(hook_id)
check "the hook holds a program" test -n "$id"
dispatcher=
grep -q xdp_dispatcher <<<"$loader_status" && dispatcher=1

# Where a dispatcher holds the hook, --multiprog auto (the default) joins it (below): these
# checks of a refusal and a replacement ask for bloomxdp's own link.
MP=()
[ -n "$dispatcher" ] && MP=(--multiprog no)
if [ -z "$dispatcher" ]; then
	out=$(bx attach "$IF_SRV" --multiprog yes 2>&1)
	check "--multiprog yes refuses xdp_pass held without a dispatcher" test $? -ne 0
	check "... and says so" grep -q "no libxdp dispatcher to share the hook" <<<"$out"
fi

# Without --force: refused, the program named, the hook left as it was.
out=$(bx attach "$IF_SRV" "${MP[@]}" 2>&1)
rc=$?
diag "$out"
check "attach without --force refuses" test "$rc" -ne 0
check_eq "the hook is unchanged" "$id" "$(hook_id)"
if [ -n "$dispatcher" ]; then
	check "the refusal names libxdp's dispatcher (id $id)" \
		grep -q "libxdp's dispatcher, xdp_dispatcher (id $id, generic)" <<<"$out"
else
	check "the refusal names xdp_pass (id $id, generic)" \
		grep -q "XDP program, xdp_pass (id $id, generic)" <<<"$out"
	check "the refusal says no libxdp dispatcher shares the hook" \
		grep -q "no libxdp dispatcher to share the hook" <<<"$out"
fi
check "no pins made" test ! -e "$PIN_DIR"
name=xdp_pass
[ -n "$dispatcher" ] && name=xdp_dispatcher

# With --force: replaced, and named on stdout.
out=$(bx attach "$IF_SRV" "${MP[@]}" --force 2>/dev/null)
check "attach --force replaces it" test $? -eq 0
diag "$out"
check "attach names what it replaced" \
	grep -q "^replaced XDP program $name (id $id, generic) (--force)" <<<"$out"
check "xdp-loader status lists bloomxdp_xdp" grep -q bloomxdp_xdp \
	<<<"$(in_srv xdp-loader status "$IF_SRV" 2>&1)"
check "the state records it" grep -qE "^replaced-xdp=$id,generic,[0-9a-f]{16},$name\$" "$SETTINGS"
check "bloomxdp enforces" bx load "$IF_SRV" "$LIST"
read -r tx rx < <(ping_recv "$C4_LISTED" "$SRV4" 5 0.02)
check "the listed source is dropped ($rx of $tx answered)" test "$tx" -eq 5 -a "$rx" -eq 0
read -r tx rx < <(ping_recv "$C4_FREE" "$SRV4" 5 0.02)
check "an unlisted one answered ($rx of $tx)" test "$tx" -eq 5 -a "$rx" -eq 5

st=$(bx status "$IF_SRV" 2>&1)
check "status names it" grep -q "^replaced  *$name (id $id, generic)" <<<"$st"
js=$(status_json)
check "status --json: replaced_xdp" \
	grep -q "\"replaced_xdp\":\[{\"id\":$id,\"name\":\"$name\",\"mode\":\"generic\"" <<<"$js"

# An in-place swap (attach --force over ours) and a restore keep the record.
check "attach --force over bloomxdp" bx attach "$IF_SRV" --force --action monitor
check "the record outlives the swap" grep -q "^replaced-xdp=$id," "$SETTINGS"
check "detach" bx detach "$IF_SRV"
check "restore reads the settings with the record" bx restore "$IF_SRV"
check "the record outlives restore" grep -q "^replaced-xdp=$id," "$SETTINGS"

out=$(bx detach "$IF_SRV" 2>&1)
check "detach" test $? -eq 0
diag "$out"
if [ -n "$dispatcher" ]; then
	# libxdp's pins hold the dispatcher's programs.
	check "detach says what ran before, still held" \
		grep -q "^before bloomxdp, $IF_SRV ran XDP program $name (id $id, generic);.*still exists" \
		<<<"$out"
else
	check "detach says what ran before, and that it is gone" \
		grep -q "^before bloomxdp, $IF_SRV ran XDP program $name (id $id, generic);.*no longer exists" \
		<<<"$out"
fi
check "nothing left on the hook" test -z "$(xdp_on_if)"

# A program that something else still holds (here a pin): detach says it still exists.
# (ip -n would run ip in a mount namespace of its own, whose /sys has no bpffs.)
for d in "${NEW_LIBXDP_DIRS[@]}"; do
	rm -rf "$d"
done
NEW_LIBXDP_DIRS=()
if check "a pinned xdp_pass attached by ip" bash -c "bpftool prog load $PASS_OBJ $HELD_PIN && \
	nsenter --net=/run/netns/$NS_SRV -- ip link set dev $IF_SRV xdpgeneric pinned $HELD_PIN"; then
	id=$(hook_id)
	check "attach --force replaces it" bx attach "$IF_SRV" --force
	out=$(bx detach "$IF_SRV" 2>&1)
	diag "$out"
	check "detach says it still exists" \
		grep -q "ran XDP program xdp_pass (id $id, generic);.*still exists" <<<"$out"
fi

# bloomxdp's object as libxdp reads it: its run configuration (bpf/run_config.h) where a
# dispatcher loads, a component at priority 10 that chains on XDP_PASS, after xdp_pass.
# Kernels from 6.13 (and 6.12.y with the backport) refuse an extension that changes packet
# data (bloomxdp's NXDOMAIN answers call bpf_xdp_adjust_tail) in a slot that does not: libxdp's
# dispatcher has the workaround since May 2025 (xdp-tools PR #509), Debian 12's 1.3.1 has not.
if [ -n "$dispatcher" ]; then
	before_dirs=$(libxdp_dirs)
	loaded=0
	in_srv xdp-loader load -m skb "$IF_SRV" "$PASS_OBJ" >/dev/null 2>&1 &&
		in_srv xdp-loader load -vv -m skb "$IF_SRV" "$E2E_ROOT/build/bloomxdp.bpf.o" \
			>"$E2E_TMP/component.log" 2>&1 && loaded=1
	for d in $(libxdp_dirs); do
		grep -qxF "$d" <<<"$before_dirs" || NEW_LIBXDP_DIRS+=("$d")
	done
	if [ "$loaded" = 1 ]; then
		ok "xdp-loader loads xdp_pass, then bloomxdp's object, in one dispatcher"
		loader_status=$(in_srv xdp-loader status "$IF_SRV" 2>&1)
		diag "$loader_status"
		check "xdp-loader status: bloomxdp_xdp at priority 10, chaining on XDP_PASS" \
			grep -qE "^ +=> +10 +bloomxdp_xdp +[0-9]+ +[0-9a-f]+ +XDP_PASS" <<<"$loader_status"
	elif grep -q "Extension program changes packet data, while original does not" \
		"$E2E_TMP/component.log"; then
		skip "bloomxdp's object as a libxdp component" "this kernel refuses it in this \
libxdp's dispatcher: 'Extension program changes packet data, while original does not' (a \
libxdp without xdp-tools PR #509)"
	else
		not_ok "xdp-loader loads xdp_pass, then bloomxdp's object, in one dispatcher" \
			"$(grep -v "^libbpf: \(elf\|sec\|CO-RE\|map\|prog '[a-z_]*': insn\)" \
				"$E2E_TMP/component.log" | tail -n 12)"
	fi
	check "xdp-loader unloads them" in_srv xdp-loader unload "$IF_SRV" --all
else
	skip "bloomxdp's object as a libxdp component" \
		"this kernel cannot load libxdp's dispatcher (xdp-loader loaded without one)"
fi

# attach --multiprog: bloomxdp itself a component of libxdp's dispatcher (auto: joining one
# xdp-loader made), dropping a listed source and passing the rest on to xdp_pass; detach
# leaves xdp_pass running. Where the dispatcher cannot load, --multiprog yes refuses in one
# line saying why and what to do.
multiprog_component() {
	local out st rc
	note_libxdp_dirs
	check "xdp-loader loads xdp_pass in a dispatcher" \
		in_srv xdp-loader load -m skb "$IF_SRV" "$PASS_OBJ"
	out=$(bx attach "$IF_SRV" 2>&1)
	rc=$?
	diag "$out"
	note_libxdp_dirs
	if [ "$rc" -ne 0 ] && grep -q "cannot join libxdp's dispatcher: .*changes packet data" \
		<<<"$out"; then
		check "--multiprog auto: a notice, then the refusal of the dispatcher" \
			grep -q "holds libxdp's dispatcher" <<<"$out"
		skip "bloomxdp as a libxdp component" "this kernel refuses it in Debian's libxdp \
1.3.1 dispatcher ('changes packet data': xdp-tools PR #509)"
		out=$(bx attach "$IF_SRV" --multiprog yes 2>&1)
		check "--multiprog yes refuses" test $? -ne 0
		diag "$out"
		check_eq "... in one line" 1 "$(grep -c . <<<"$out")"
		check "... saying the kernel's reason and what to do" grep -q "cannot run bloomxdp \
in libxdp's dispatcher: .*changes packet data.*; attach with --multiprog no" <<<"$out"
		check "xdp-loader unloads xdp_pass" in_srv xdp-loader unload "$IF_SRV" --all
		return
	fi
	check "attach (--multiprog auto) joins the dispatcher" test "$rc" -eq 0
	check "attach says so" grep -q "ingress at XDP, in libxdp's dispatcher" <<<"$out"
	loader_status=$(in_srv xdp-loader status "$IF_SRV" 2>&1)
	diag "$loader_status"
	check "xdp-loader status: bloomxdp_xdp at priority 10, chaining on XDP_PASS" \
		grep -qE "^ +=> +10 +bloomxdp_xdp +[0-9]+ +[0-9a-f]+ +XDP_PASS" <<<"$loader_status"
	check "xdp-loader status: xdp_pass after it" \
		grep -qE "^ +=> +50 +xdp_pass " <<<"$loader_status"
	st=$(bx status "$IF_SRV" 2>&1)
	check "status: mode libxdp (dispatcher, generic, priority 10)" \
		grep -q "^program .*mode libxdp (dispatcher, generic, priority 10)" <<<"$st"
	check "the state records it" grep -qx "multiprog-joined=libxdp-dispatcher" "$SETTINGS"
	check "load" bx load "$IF_SRV" "$LIST"
	read -r tx rx < <(ping_recv "$C4_LISTED" "$SRV4" 5 0.02)
	check "the listed source is dropped ($rx of $tx answered)" test "$tx" -eq 5 -a "$rx" -eq 0
	read -r tx rx < <(ping_recv "$C4_FREE" "$SRV4" 5 0.02)
	check "an unlisted one passes through xdp_pass ($rx of $tx answered)" \
		test "$tx" -eq 5 -a "$rx" -eq 5
	out=$(bx attach "$IF_SRV" --force --action monitor 2>&1)
	check "attach --force over a component refuses" test $? -ne 0
	check "... saying detach and attach" grep -q "in libxdp's dispatcher: its settings are \
changed by 'bloomxdp detach $IF_SRV'" <<<"$out"
	# restore joins again (the settings' multiprog-joined line skipped), its list with it.
	check "detach" bx detach "$IF_SRV"
	check "restore" bx restore "$IF_SRV"
	check "restore joins the dispatcher again" grep -qE "^ +=> +10 +bloomxdp_xdp " \
		<<<"$(in_srv xdp-loader status "$IF_SRV" 2>&1)"
	read -r tx rx < <(ping_recv "$C4_LISTED" "$SRV4" 3 0.02)
	check "the restored list drops ($rx of $tx answered)" test "$tx" -eq 3 -a "$rx" -eq 0
	# Taken out behind bloomxdp's back: load and status say so.
	bx_id=$(in_srv xdp-loader status "$IF_SRV" 2>&1 | awk '$3 == "bloomxdp_xdp" { print $4 }')
	check "xdp-loader unloads bloomxdp_xdp (id $bx_id)" \
		in_srv xdp-loader unload "$IF_SRV" -i "$bx_id"
	out=$(bx load "$IF_SRV" "$LIST" 2>&1)
	diag "$out"
	check "load says nothing enforces the list" \
		grep -q "nothing enforces it: its program is no longer in libxdp's dispatcher" <<<"$out"
	check "status says so" grep -q "^program .*detached (no longer in libxdp's dispatcher)" \
		<<<"$(bx status "$IF_SRV" 2>&1)"
	check "detach" bx detach "$IF_SRV"
	loader_status=$(in_srv xdp-loader status "$IF_SRV" 2>&1)
	diag "$loader_status"
	check "xdp_pass runs on in the dispatcher" grep -qE "^ +=> +50 +xdp_pass " <<<"$loader_status"
	check "bloomxdp_xdp is gone from it" bash -c "! grep -q bloomxdp_xdp <<<'$loader_status'"
	read -r tx rx < <(ping_recv "$C4_LISTED" "$SRV4" 3 0.02)
	check "the listed source is answered again ($rx of $tx)" test "$tx" -eq 3 -a "$rx" -eq 3
	check "xdp-loader unloads xdp_pass" in_srv xdp-loader unload "$IF_SRV" --all

	# --multiprog yes on an empty hook: a dispatcher of bloomxdp's own, for others to join.
	check "attach --multiprog yes makes a dispatcher" bx attach "$IF_SRV" --multiprog yes
	note_libxdp_dirs
	check "xdp-loader status lists bloomxdp_xdp in it" grep -qE "^ +=> +10 +bloomxdp_xdp " \
		<<<"$(in_srv xdp-loader status "$IF_SRV" 2>&1)"
	check "detach" bx detach "$IF_SRV"
	check "nothing left on the hook" test -z "$(xdp_on_if)"
}

multiprog_fallback() {
	local out rc
	out=$(bx attach "$IF_SRV" --multiprog yes 2>&1)
	rc=$?
	diag "$out"
	check "--multiprog yes refuses where the dispatcher cannot load" test "$rc" -ne 0
	check_eq "... in one line" 1 "$(grep -c . <<<"$out")"
	check "... saying why and what to do" grep -q "cannot run bloomxdp in libxdp's \
dispatcher: .*; attach with --multiprog no" <<<"$out"
	check "nothing left on the hook" test -z "$(xdp_on_if)"
	check "no pins made" test ! -e "$PIN_DIR"
}

if [ -n "$dispatcher" ]; then
	multiprog_component
else
	multiprog_fallback
fi

check "a fresh attach records nothing replaced" bx attach "$IF_SRV"
check "no replaced-xdp line" bash -c "! grep -q '^replaced-xdp=' $SETTINGS"
check_eq "status --json: replaced_xdp empty" 1 \
	"$(grep -c '"replaced_xdp":\[\]' <<<"$(status_json)")"
check "detach" bx detach "$IF_SRV"
tap_finish
