#!/usr/bin/env bash
# 'make demo' as on a fresh machine: bpffs not mounted. In a private mount
# namespace of its own (the machine's bpffs untouched), /sys/fs/bpf is
# unmounted, then tests/demo.sh runs: it must mount bpffs itself, attach,
# load, see each client's pings dropped or passed as query says, and end
# "demo: OK" with exit status 0. Speaks TAP; needs root, unshare; about 10 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "demo test" unshare ping

out=$(timeout 120 unshare --mount --propagation private -- bash -c '
	umount /sys/fs/bpf 2>/dev/null
	if [ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ]; then
		echo "bpffs is still mounted"
		exit 9
	fi
	exec bash tests/demo.sh' 2>&1)
rc=$?
check_eq "make demo without bpffs mounted: exit status 0" 0 "$rc" "$(tail -n 30 <<<"$out")"
check "... it mounts bpffs itself" grep -q 'demo: mounting bpffs' <<<"$out"
check "... every client's pings go as query says" bash -c \
	'! grep -q UNEXPECTED <<<"$1" && [ "$(grep -cE "dropped by XDP|passed$" <<<"$1")" = 5 ]' \
	_ "$out"
check "... and it ends OK" grep -q '^demo: OK$' <<<"$out"

tap_finish
