#!/usr/bin/env bash
# One del from a large list (docs/operations.md, "Delete"): a veth of its own, N IPv4 hosts
# (default 10 million) loaded into the Bloom filter, then DEL_RUNS deletes of
# one entry each, timed as a whole command (process start to exit); prints
# each and the median. Not part of make test. Needs root.
#   DEL_ENTRIES=10000000 DEL_RUNS=7 bash bench/del.sh
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/e2e/lib.sh

N=${DEL_ENTRIES:-10000000}
RUNS=${DEL_RUNS:-7}
trap e2e_cleanup EXIT
topo_up 192.0.2.10 >/dev/null || { echo "cannot set up a veth pair" >&2; exit 1; }
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	printf "%d.%d.%d.%d\n", 10 + int(i / 16777216), int(i / 65536) % 256,
		int(i / 256) % 256, i % 256 }' >"$E2E_TMP/hosts.txt"
bx attach "$IF_SRV" --capacity "$N" >/dev/null || exit 1
/usr/bin/time -f "load: %e s, %M KB max RSS" \
	timeout 600 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" load "$IF_SRV" \
	--store bloom "$E2E_TMP/hosts.txt" >/dev/null || exit 1
echo "counters file: $(stat -c %s "$BLOOMXDP_STATE_DIR/$IF_SRV/block.bitcounts") bytes"
times=()
for ((r = 0; r < RUNS; r++)); do
	entry=$(sed -n "$((r * 997 + 1))p" "$E2E_TMP/hosts.txt")
	t0=$(date +%s%N)
	bx del "$IF_SRV" "$entry" >/dev/null || exit 1
	t1=$(date +%s%N)
	times+=($(((t1 - t0) / 1000)))
	echo "del $entry: $(((t1 - t0) / 1000)) us"
done
printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
	printf "median of %d: %.1f ms\n", NR, a[int((NR + 1) / 2)] / 1000 }'
