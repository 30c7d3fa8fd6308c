#!/usr/bin/env bash
# Runs inside tests/kernel/vm.sh's guest, from the tree's copy (/src), as
# root: the BPF tier's programs (two at a time, one per virtual CPU), then
# the end-to-end smoke (smoke.sh), then test_coexist.sh. TAP on standard output, each program's
# lines after a "=== NAME" line and its time in seconds.
#
# Left out, and why: test_layout_fpr and test_savefile_xdp spend their time
# in user space (the layouts' false-positive rates over a million queries, a
# million addresses through the save file), and test_packet_fpr_xdp (800,000
# test runs measuring false drops per packet; its probes are those that
# test_prefixes_xdp and test_names_xdp check on each kernel), which are the
# same code on every kernel and take minutes under TCG; the host's tier runs them. It runs
# test_fuzz too, left out here: random frames through the program test its parsers'
# invariants, not the kernel's (20-25 s a kernel under TCG).
set -u
cd "$(dirname "$0")/../.." || exit 1
export CMOCKA_MESSAGE_OUTPUT=TAP
# Tests that time themselves know they run under emulation (qemu TCG): a second there holds
# a tenth of the host's work, less when two guests share the host's cores.
export BLOOMXDP_EMULATED=1

echo "# kernel $(uname -r), $(nproc) CPUs"
out=$(mktemp -d)
tests=()
for t in build/tests/test_*; do
	case ${t##*/} in
	test_layout_fpr | test_savefile_xdp | test_packet_fpr_xdp | test_fuzz) ;;
	*) tests+=("$t") ;;
	esac
done

run_test() {
	local t=$1 start rc
	start=$(date +%s)
	"$t" >"$out/${t##*/}" 2>&1
	rc=$?
	echo "# ${t##*/}: $(($(date +%s) - start)) s" >>"$out/${t##*/}"
	[ "$rc" -ne 0 ] && echo "not ok 1 - ${t##*/} exited with status $rc" >>"$out/${t##*/}"
}

# Two lanes, each taking every other program: the slowest ones are not all in one.
lane() {
	local i
	for ((i = $1; i < ${#tests[@]}; i += 2)); do
		run_test "${tests[i]}"
	done
}
start=$(date +%s)
lane 0 &
lane 1
wait
for t in "${tests[@]}"; do
	echo "=== ${t##*/}"
	cat "$out/${t##*/}"
done
echo "# BPF tier: $(($(date +%s) - start)) s"

echo "=== smoke.sh"
start=$(date +%s)
bash tests/kernel/smoke.sh
rc=$?
echo "# smoke.sh: $(($(date +%s) - start)) s"
[ "$rc" -ne 0 ] && echo "not ok 1 - smoke.sh exited with status $rc"
rm -rf "$out"

# Beside other XDP programs: xdp-loader's dispatcher, where this kernel loads it (vm.sh copies
# xdp-loader in where the host has it; test_coexist.sh skips without it).
echo "=== test_coexist.sh"
start=$(date +%s)
bash tests/e2e/test_coexist.sh
rc=$?
echo "# test_coexist.sh: $(($(date +%s) - start)) s"
[ "$rc" -ne 0 ] && echo "not ok 1 - test_coexist.sh exited with status $rc"
