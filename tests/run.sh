#!/usr/bin/env bash
# Runs every test tier and ends with "N passed, N failed".
# Each test program speaks TAP: lines "ok N - name" / "not ok N - name".
# A program that exits non-zero without reporting a failure counts one failure.
# "not ok N - name # TODO ..." is a known defect (TAP's TODO directive): counted
# and listed apart, not as a failure.
set -u
cd "$(dirname "$0")/.."

export CMOCKA_MESSAGE_OUTPUT=TAP
passed=0
failed=0
todo=0
failed_names=()

run_one() {
	local name=$1; shift
	local out rc ok bad todos
	local start=$SECONDS
	echo "=== $name"
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	# Where a run's time goes: CI must stay well under 30 minutes.
	echo "# $name: $((SECONDS - start)) s"
	ok=$(grep -cE '^ok [0-9]+' <<<"$out")
	bad=$(grep -E '^not ok [0-9]+' <<<"$out" | grep -cvE '# TODO')
	todos=$(grep -cE '^not ok [0-9]+.*# TODO' <<<"$out")
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		bad=1
		echo "not ok - $name exited with status $rc"
	fi
	if [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then
		bad=1
		echo "not ok - $name ran no test"
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	todo=$((todo + todos))
	[ "$bad" -gt 0 ] && failed_names+=("$name")
}

for t in build/tests/test_*; do
	[ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
# The rules of the house (docs/hacking.md): folders, one-way dependencies, no stdout in the
# library, functions of at most 120 lines.
run_one house python3 tests/house.py
for t in tests/e2e/test_*.sh; do
	[ -f "$t" ] && run_one "$(basename "$t")" bash "$t"
done
# The kernel tier: the BPF tier and a smoke on each of Debian's kernels, under
# qemu (tests/kernel/vm.sh); kernels.sh fetches them. A kernel that cannot be
# fetched is a failure, not a skip: CI reaches Debian's registry.
if kernels=$(bash tests/kernel/kernels.sh); then
	for k in $kernels; do
		run_one "kernel ${k##*/}" bash tests/kernel/vm.sh "$k"
	done
else
	echo "not ok - the kernel tier: tests/kernel/kernels.sh could not fetch its kernels"
	failed=$((failed + 1))
	failed_names+=("kernel tier")
fi

echo
[ "${#failed_names[@]}" -gt 0 ] && echo "failing: ${failed_names[*]}"
[ "$todo" -gt 0 ] && echo "$todo known defects (not ok # TODO), not counted as failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
