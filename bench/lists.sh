#!/usr/bin/env bash
# Part of make bench (bench/run.sh calls it; it also runs alone, as root):
# named lists, written as a section of markdown that bench/report.py puts in
# bench/results.md. One list of BENCH_LISTS_ENTRIES IPv4 hosts (100,000:
# build/bench/mklists), held by bloomxdp as its default list ("one"), and
# split into 1, 4 and 16 named lists of equal size (the union filter behind
# them holds the same keys; each list an exact copy of its own), side by side
# through the veth as in run.sh: every frame listed (each hit attributed to
# its list) and none listed (the union filter's fast path only). The ratios
# to the default list are what the section reports. Then (BENCH_PROGTIME=1,
# the default) each receiver's program time from bpf_stats beside the floor
# of its footprint (run.sh's progtime: live frames at one receiver at a time).
#
# Environment: as run.sh (BENCH_QUICK, BENCH_ROUNDS, BENCH_WINDOW,
# BENCH_TRAFFIC, BENCH_PROGTIME, BENCH_PT_ROUNDS, BENCH_PT_WINDOW,
# BENCH_THROUGHPUT, CPUs); BENCH_LISTS_ENTRIES (100000), BENCH_LISTS_RAW (where
# the raw data and section.md go; default build/bench/lists). The state of
# the attachments goes to the run's temporary directory. Network safety:
# run.sh's (its functions are used).
set -u
# shellcheck source=bench/run.sh
. "$(dirname "${BASH_SOURCE[0]}")/run.sh"

L_RAW=${BENCH_LISTS_RAW:-$B/bench/lists}
L_N=${BENCH_LISTS_ENTRIES:-100000}
MIXES=(all none)
declare -A NLISTS=([one]=0 [lists1]=1 [lists4]=4 [lists16]=16)

# setup_lists_rx NAME: attaches receiver NAME, loads the list whole or split into named lists.
setup_lists_rx() {
	local name=$1 k=${NLISTS[$1]} ns=${RNS[$1]} r=${RIF[$1]} out f
	out=$(timeout 120 nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" attach "$r" \
		--capacity "$L_N" --fpr "$FPR" --match src --mode native 2>&1) || {
		log "bloomxdp attach: $out"
		return 1
	}
	ATTACHED+=("$r")
	if [ "$k" = 0 ]; then
		out=$(timeout 600 nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" load "$r" \
			"$WORK/$L_N/list.txt" 2>&1) || { log "load: $out"; return 1; }
	else
		split -n "l/$k" -d -a 2 "$WORK/$L_N/list.txt" "$WORK/part-$name-" || return 1
		for f in "$WORK/part-$name-"*; do
			out=$(timeout 600 nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" load "$r" \
				--list "l${f##*-}" "$f" 2>&1) || { log "load --list: $out"; return 1; }
		done
	fi
	out=$(nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" status "$r" --json) || return 1
	printf '%s\n' "$out" >"$RAW/status-$name.json"
	PROG[$name]=$(sed -n 's/.*"prog_id":\([0-9]*\).*/\1/p' <<<"$out")
	rx_threaded "$name"
}

# The section: the median Mpps of each receiver and mix, and the median of its per-round
# ratios to "one" (the receivers alternate within a round: the machine's load cancels out).
lists_section() {
	awk -F'\t' -v n="$L_N" -v rounds="$ROUNDS" -v window="$WINDOW" '
	function median(key,    m, i, j, t, a) {
		m = cnt[key]
		for (i = 1; i <= m; i++)
			a[i] = v[key, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	{ k = $4 SUBSEP $3; v[k, ++cnt[k]] = $5; at[$2, $3, $4] = $5; round[$2] = 1 }
	END {
		split("one lists1 lists4 lists16", rx, " ")
		for (i = 2; i <= 4; i++)
			for (r in round)
				for (m = 1; m <= 2; m++) {
					mix = m == 1 ? "all" : "none"
					if ((r, mix, rx[i]) in at && at[r, mix, "one"] > 0) {
						k = "ratio-" rx[i] SUBSEP mix
						v[k, ++cnt[k]] = at[r, mix, rx[i]] / at[r, mix, "one"]
					}
				}
		printf "## Named lists\n\n"
		printf "%d IPv4 hosts, held as the default list or split into 1, 4 and 16 named " \
		       "lists of equal size (load --list), side by side in one run (%d rounds of " \
		       "%s s, receivers alternating): every frame listed (each hit attributed to its " \
		       "list by list_verdict()) and none listed (the union filter only: the same " \
		       "code as with one list). Mpps of the receiving CPU (medians), and the median " \
		       "of the per-round ratios to the default list.\n\n", n, rounds, window
		printf "| lists | all listed, Mpps | ratio | none listed, Mpps | ratio |\n"
		printf "|---|---|---|---|---|\n"
		for (i = 1; i <= 4; i++) {
			r = rx[i]
			if (!cnt[r SUBSEP "all"])
				continue
			label = "default list"
			ra = rn = 1
			if (r != "one") {
				label = substr(r, 6) " named"
				ra = median("ratio-" r SUBSEP "all")
				rn = median("ratio-" r SUBSEP "none")
			}
			printf "| %s | %.3f | %.2f | %.3f | %.2f |\n", label,
			       median(r SUBSEP "all"), ra, median(r SUBSEP "none"), rn
		}
	}' "$RAW/throughput.tsv"
}

lists_main() {
	local i=0 name t0 t1
	requirements	# nothing of install_deps: no nft, ipset or plot here
	rm -rf -- "$L_RAW"
	mkdir -p "$L_RAW"
	RAW=$L_RAW
	WORK=$(mktemp -d "/tmp/bxb-$ID.XXXXXX") || die "mktemp"
	export BLOOMXDP_STATE_DIR=$WORK/state
	trap run_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	[ "$PROGTIME" = 1 ] && pt_on
	mkdir -p "$WORK/$L_N"
	"$B/bench/mklists" "$WORK/$L_N" "$L_N" "$TRAFFIC" 13 || die "mklists failed"
	make_ns "$GNS" || die "cannot create namespace $GNS"
	for name in one lists1 lists4 lists16; do
		rx_up "$i" "$name" bloom || die "cannot build the veth pair for $name"
		i=$((i + 1))
		t0=$(now_ns)
		setup_lists_rx "$name" || die "setup of $name failed"
		RXS+=("$name")
		t1=$(now_ns)
		log "named lists: $name ready in $(((t1 - t0) / 1000000)) ms"
	done
	log "named lists: verdicts (each receiver's own counters)"
	verify "$L_N"
	if [ "${BENCH_THROUGHPUT:-1}" = 1 ]; then
		log "named lists: $ROUNDS rounds of ${#MIXES[@]} mixes x ${#RXS[@]} receivers"
		throughput "$L_N"
	fi
	if [ "$PROGTIME" = 1 ]; then
		for name in "${RXS[@]}"; do
			FLOOR_OF[$name]=floor-$(status_bytes "$RAW/status-$name.json")
		done
		floors_up "$L_N" "$i" || die "cannot set up the floors"
		log "named lists: program time, $PT_ROUNDS rounds, ${PT_WINDOW} s a slot"
		progtime "$L_N"
	fi
	teardown
	: >"$RAW/section.md"
	if [ -s "$RAW/throughput.tsv" ]; then
		lists_section >>"$RAW/section.md" || die "report failed"
	fi
	if [ "$PROGTIME" = 1 ]; then
		python3 "$ROOT/bench/progtime.py" "$RAW" "Named lists: program time against the floor" \
			>>"$RAW/section.md" || die "report failed"
	fi
	cat "$RAW/section.md" >&2
	log "done: $RAW/section.md"
}

lists_main "$@"
