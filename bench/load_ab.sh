#!/usr/bin/env bash
# Load time of two (or more) bloomxdp builds, alternating, on one list
# (bench/results.md, "Load, round three"): as root,
#
#   make build/bench/mklists && mkdir -p /tmp/l10m &&
#   build/bench/mklists /tmp/l10m 10000000 1000 17 &&
#   bench/load_ab.sh 5 /tmp/l10m/list.txt OLD_BLOOMXDP NEW_BLOOMXDP
#
# attaches the first build (--capacity 10M --fpr 0.01 --match src, native,
# --verify as attach's default unless LOAD_AB_ATTACH says more, e.g.
# "--verify off") to a veth of a namespace of its own, then loads the list
# RUNS times with each build in turn, replacing the last: one line per load,
# "BUILD SECONDS PEAK_RSS_KB" (wall time, /usr/bin/time's maximum RSS), then
# the median (min-max) of each. The namespace, its veths, the pins and the
# state directory are removed on any exit.
set -u
[ $# -ge 3 ] || { echo "usage: $0 RUNS LIST BLOOMXDP..." >&2; exit 2; }
runs=$1 list=$2
shift 2
first=$1 id=bxab-$$ tmp=$(mktemp -d)
ns=$id a=${id}a b=${id}b
in_ns() { timeout 600 nsenter --net="/run/netns/$ns" -- "$@"; }
cleanup() {
	in_ns "$first" detach "$a" >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns" || exit 1
ip netns exec "$ns" ip link add "$a" type veth peer name "$b" || exit 1
ip netns exec "$ns" ip link set "$a" up && ip netns exec "$ns" ip link set "$b" up || exit 1
mkdir -m 755 "$tmp/state" && export BLOOMXDP_STATE_DIR=$tmp/state
# shellcheck disable=SC2086 # LOAD_AB_ATTACH: options, split on purpose
in_ns "$first" attach "$a" --capacity 10000000 --fpr 0.01 --match src --mode native \
	${LOAD_AB_ATTACH:-} >/dev/null || exit 1
for ((i = 0; i < runs; i++)); do
	for bin in "$@"; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$tmp/rss" timeout 600 nsenter --net="/run/netns/$ns" -- \
			"$bin" load "$a" "$list" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
		t1=$(date +%s%N)
		echo "$bin $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') \
$(tail -n 1 "$tmp/rss")" | tee -a "$tmp/runs"
	done
done
for bin in "$@"; do
	awk -v b="$bin" '$1 == b { print $2 }' "$tmp/runs" | sort -n |
		awk -v b="$bin" '{ v[NR] = $1 } END { printf "%s median %s (%s-%s)\n", b,
			NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'
done
