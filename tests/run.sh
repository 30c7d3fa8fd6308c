#!/usr/bin/env bash
# Runs every test tier and ends with "N passed, N failed".
# Each test program speaks TAP: lines "ok N - name" / "not ok N - name".
# A program that exits non-zero without reporting a failure counts one failure.
# "not ok N - name # TODO ..." is a known defect (TAP's TODO directive): counted
# and listed apart, not as a failure; "ok N # SKIP ..." (cmocka: "not ok N #
# SKIP") is counted apart too, neither a pass nor a failure.
set -u
cd "$(dirname "$0")/.."

export CMOCKA_MESSAGE_OUTPUT=TAP
passed=0
failed=0
todo=0
skipped=0
failed_names=()

# Counts one program's TAP output ($2) and exit status ($3), which took $4 seconds.
tally() {
	local name=$1 out=$2 rc=$3 secs=$4 ok bad todos skips
	printf '%s\n' "$out"
	# Where a run's time goes: CI must stay well under 30 minutes.
	echo "# $name: $secs s"
	ok=$(grep -E '^ok [0-9]+' <<<"$out" | grep -cvE '# SKIP')
	# cmocka says a skip() as "not ok N # SKIP": a skip too, not a failure.
	skips=$(grep -cE '^(not )?ok [0-9]+.*# SKIP' <<<"$out")
	bad=$(grep -E '^not ok [0-9]+' <<<"$out" | grep -cvE '# (TODO|SKIP)')
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
	skipped=$((skipped + skips))
	[ "$bad" -gt 0 ] && failed_names+=("$name")
}

run_one() {
	local name=$1; shift
	local out rc start=$SECONDS

	echo "=== $name"
	out=$("$@" 2>&1)
	rc=$?
	tally "$name" "$out" "$rc" "$((SECONDS - start))"
}

for t in build/tests/test_*; do
	[ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
# The rules of the house (docs/hacking.md): folders, one-way dependencies, no stdout in the
# library, functions of at most 120 lines.
run_one house python3 tests/house.py
# The kernel tier: the BPF tier and a smoke on each of Debian's kernels, under
# qemu (tests/kernel/vm.sh); kernels.sh fetches them. A kernel that cannot be
# fetched is a failure, not a skip: CI reaches Debian's registry.
# The guests run beside the end-to-end tier at the lowest CPU priority (nice
# 19): its tests take the CPUs whenever they want them, and the guests take
# what it leaves idle, its waits on clients, servers and timers (each guest
# keeps one host CPU busy when it can; their timeout is doubled for the time
# they wait). Not beside the BPF tier, which keeps both CPUs busy: the guests'
# own timed tests would starve. Their TAP is counted at the end.
kdir=$(mktemp -d /tmp/bloomxdp-kernels.XXXXXX)
kpids=()
if kernels=$(bash tests/kernel/kernels.sh); then
	for k in $kernels; do
		(
			start=$SECONDS
			VM_TIMEOUT=${VM_TIMEOUT:-1800} nice -n 19 bash tests/kernel/vm.sh "$k" \
				>"$kdir/${k##*/}.out" 2>&1
			echo "$? $((SECONDS - start))" >"$kdir/${k##*/}.rc"
		) &
		kpids+=("$!")
	done
else
	kernels=
fi

for t in tests/e2e/test_*.sh; do
	[ -f "$t" ] && run_one "$(basename "$t")" bash "$t"
done
if [ -n "$kernels" ]; then
	start=$SECONDS
	wait "${kpids[@]}"
	echo "# the kernel tier ran $((SECONDS - start)) s past the host's tiers"
	for k in $kernels; do
		echo "=== kernel ${k##*/}"
		read -r rc secs <"$kdir/${k##*/}.rc" || { rc=1; secs=0; }
		tally "kernel ${k##*/}" "$(cat "$kdir/${k##*/}.out")" "$rc" "$secs"
	done
else
	echo "not ok - the kernel tier: tests/kernel/kernels.sh could not fetch its kernels"
	failed=$((failed + 1))
	failed_names+=("kernel tier")
fi
rm -rf "$kdir"

echo
[ "${#failed_names[@]}" -gt 0 ] && echo "failing: ${failed_names[*]}"
[ "$todo" -gt 0 ] && echo "$todo known defects (not ok # TODO), not counted as failures"
[ "$skipped" -gt 0 ] && echo "$skipped skipped (ok # SKIP: see their reasons above), not counted as passed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
