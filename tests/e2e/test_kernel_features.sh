#!/usr/bin/env bash
# The kernel features bloomxdp probes at attach (user/kernel/features.c), on a
# veth pair between two network namespaces of our own (see lib.sh):
#
#   - status (text and --json) says the kernel's release and the features the
#     attachment needs, layout kernel's one more;
#   - a kernel that lacks a feature is refused in one line on stderr, exit 1,
#     nothing attached: through the test hooks BLOOMXDP_TEST_KERNEL_LACKS and
#     BLOOMXDP_TEST_KERNEL_RELEASE, which pretend what an old kernel would
#     say (what every attachment needs; what only --layout kernel needs; a
#     release that should have it), and refuse a name that is no feature;
#   - a release older than 6.1 with every feature (a backporting kernel)
#     attaches, with a notice; -v says what each probe found.
#
# Speaks TAP. Needs root. Touches nothing but its own namespaces, veths and
# pins (all named after E2E_ID), and removes them on any exit.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "kernel feature tests"
e2e_install_trap

# No client address: no traffic is sent.
# shellcheck disable=SC2119
if ! topo_up; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
ok "topology: $NS_CLI/$IF_CLI <-> $NS_SRV/$IF_SRV"

RELEASE=$(uname -r)
LACKS=BLOOMXDP_TEST_KERNEL_LACKS
AS_RELEASE=BLOOMXDP_TEST_KERNEL_RELEASE
# What every attachment needs of the kernel, whatever its layout (a few of them).
ALWAYS="bpf_link bpf_loop ringbuf xdp_load_bytes lpm_trie array_of_maps bloom_filter_map"
NEEDS="bloomxdp needs Linux 6.1 or later"

# features_of JSON: the "features" array of status --json; has JSON NAME: yes or no.
features_of() { sed -n 's/.*"features":\[\([^]]*\)\].*/\1/p' <<<"$1"; }
has() {
	if tr ',' '\n' <<<"$(features_of "$1")" | grep -qxF "\"$2\""; then
		echo yes
	else
		echo no
	fi
}
# bxenv VAR=VALUE... -- ARGS...: bloomxdp ARGS in the server's namespace with the hooks VAR.
bxenv() {
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" timeout 30 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" "$@"
}

# refused NAME WANT_STDERR VAR=VALUE... -- ATTACH_ARGS...: attach with those hooks exits 1,
# says WANT_STDERR (one line) and nothing else, and leaves no program and no pin.
refused() {
	local name=$1 want=$2 out err rc
	shift 2
	err=$(bxenv "$@" 2>&1 >"$E2E_TMP/stdout")
	rc=$?
	out=$(cat "$E2E_TMP/stdout")
	check_eq "$name: exit 1, one line on stderr, nothing on stdout" "1|$want|" \
		"$rc|$err|$out"
	check_eq "... nothing attached (no XDP program, no pin directory)" "|no" \
		"$(xdp_on_if)|$([ -e "$PIN_DIR" ] && echo yes || echo no)"
}

# ------------------------------------------------------------ status

check "attach $IF_SRV" bx attach "$IF_SRV" --mode generic
st=$(status_json)
check_eq "status --json: kernel is uname -r" "$RELEASE" "$(json_str "$st" kernel)" "$st"
bad=
for f in $ALWAYS; do
	[ "$(has "$st" "$f")" = yes ] || bad+=" $f"
done
check_eq "status --json: features has what every attachment needs" "" "$bad" "$st"
check_eq "... not layout kernel's program runs, nor tcx (nothing needs it yet)" "no no" \
	"$(has "$st" xdp_test_run) $(has "$st" tcx)" "$st"
got="$(json_str "$st" action) $(json_str "$st" match) $(json_str "$st" layout)"
check_eq "... and the keys status had before" "drop src blocked 0" \
	"$got $(json_num "$st" generation)" "$st"
text=$(bx status "$IF_SRV" 2>&1)
check_eq "status: a kernel line" "kernel          $RELEASE" "$(grep '^kernel ' <<<"$text")" "$text"
check_eq "status: a features line, the names of --json" \
	"features        $(features_of "$st" | sed 's/"//g; s/,/, /g')" \
	"$(grep '^features ' <<<"$text")" "$text"
check "detach" bx detach "$IF_SRV"

check "attach --layout kernel" bx attach "$IF_SRV" --mode generic --layout kernel
st=$(status_json)
check_eq "status --json of layout kernel: xdp_test_run too (its loads run a program)" yes \
	"$(has "$st" xdp_test_run)" "$st"
check "detach" bx detach "$IF_SRV"

# ------------------------------------------------------------ refusals

K515="bloomxdp: this kernel (5.15.0-91-generic) lacks"
AS_515="$AS_RELEASE=5.15.0-91-generic"
refused "a 5.15 kernel without bpf_loop" "$K515 bpf_loop (Linux 5.17): $NEEDS" \
	"$LACKS=bpf_loop" "$AS_515" -- attach "$IF_SRV" --mode generic
want="$K515 bloom_filter_map (Linux 5.16), bpf_loop (Linux 5.17), xdp_load_bytes (Linux 5.18)"
refused "... nor BLOOM_FILTER maps nor xdp_load_bytes: all of them, oldest first" \
	"$want: $NEEDS" "$LACKS=xdp_load_bytes,bpf_loop,bloom_filter_map" "$AS_515" -- \
	attach "$IF_SRV" --mode generic
want="bloomxdp: this kernel (4.9.0-19-amd64) lacks xdp_test_run (Linux 4.12), which --layout"
want+=" kernel needs: choose another --layout, or run Linux 4.12 or later"
refused "--layout kernel on a kernel without program runs: the option is named" "$want" \
	"$LACKS=xdp_test_run" "$AS_RELEASE=4.9.0-19-amd64" -- \
	attach "$IF_SRV" --mode generic --layout kernel
want="bloomxdp: this kernel ($RELEASE) lacks bpf_loop (Linux 5.17), though Linux"
want+=" $(cut -d. -f1,2 <<<"$RELEASE") has it: its configuration, or a capability this process"
want+=" lacks, holds it back (try as root)"
refused "this kernel's own release: not a matter of age" "$want" "$LACKS=bpf_loop" -- \
	attach "$IF_SRV" --mode generic
want="bloomxdp: $LACKS=bpf_lop: no feature is named bpf_lop (the test hook takes the names"
want+=" of 'bloomxdp status')"
refused "a test hook naming no feature" "$want" "$LACKS=bpf_lop" -- \
	attach "$IF_SRV" --mode generic

# What the attachment does not need is not asked for.
check "without --layout kernel, a kernel without program runs attaches" \
	bxenv "$LACKS=xdp_test_run" -- attach "$IF_SRV" --mode generic
check "detach" bx detach "$IF_SRV"

# ------------------------------------------------------------ old releases, -v

EL9=5.14.0-427.13.1.el9_4.x86_64
out=$(bxenv "$AS_RELEASE=$EL9" -- attach "$IF_SRV" --mode generic 2>&1)
want="bloomxdp: notice: this kernel ($EL9) is older than Linux 6.1, the oldest bloomxdp"
want+=" supports, but has every feature it needs: attaching"
check_eq "a 5.14 release with every feature (backports) attaches, with a notice" "$want" \
	"$(grep notice <<<"$out")" "$out"
check_eq "... attached" "prog/xdp" "$(xdp_on_if | cut -d' ' -f1)"
check "detach" bx detach "$IF_SRV"
out=$(bx -v attach "$IF_SRV" --mode generic 2>&1)
check_eq "-v: what each probe found" \
	"bloomxdp: kernel $RELEASE: bpf_loop (Linux 5.17) present" \
	"$(grep ': bpf_loop (' <<<"$out")" "$(grep '^bloomxdp: kernel' <<<"$out")"
check "detach" bx detach "$IF_SRV"

tap_finish
