#!/usr/bin/env bash
# Part of make bench (bench/run.sh calls it; it also runs alone, as root):
# prefix lists and load times, written as a section of markdown that
# bench/report.py puts in bench/results.md.
#
#   1. a list of 50,000 IPv4 and 10,000 IPv6 prefixes of every length
#      (build/bench/mklists --prefixes: disjoint, in 240.0.0.0/4 and
#      2000::/3, lengths as in published country and ASN lists), held by
#      bloomxdp (--store auto, and --store intervals: exact), a BPF LPM trie,
#      an nftables set with flags interval and ipset hash:net, side by side
#      through the veth as in run.sh (IPv4 traffic: all listed, none, 30%);
#   2. load: a list of BENCH_LOAD_ENTRIES hosts (10M) loaded BENCH_LOAD_RUNS
#      times into each layout: seconds and the loader's peak RSS
#      (/usr/bin/time), medians.
#
# Then (BENCH_PROGTIME=1, the default) each receiver's program time from
# bpf_stats beside the floor of its footprint (run.sh's progtime): the issue's
# target is bloomxdp within 1.5x the floor on unlisted frames.
#
# Environment: as run.sh (BENCH_QUICK, BENCH_ROUNDS, BENCH_WINDOW,
# BENCH_TRAFFIC, BENCH_PROGTIME, BENCH_PT_ROUNDS, BENCH_PT_WINDOW,
# BENCH_THROUGHPUT, CPUs); BENCH_PREFIX_V4 (50000), BENCH_PREFIX_V6 (10000),
# BENCH_LOAD_ENTRIES (10000000; quick 1000000), BENCH_LOAD_RUNS (3), BENCH_LOAD=0
# (no load times), BENCH_BLOOMXDP_ALT (another bloomxdp binary: receiver
# bloom-auto-alt, a change's before and after in the same rounds),
# BENCH_PREFIX_RECEIVERS (a subset of: bare bloom-auto bloom-auto-alt
# bloom-intervals lpmnet nft ipset; "none": load times only),
# BENCH_PREFIX_RAW (where the raw data and section.md go; default
# build/bench/prefixes). Network safety: run.sh's (its functions are used).
set -u
# shellcheck source=bench/run.sh
. "$(dirname "${BASH_SOURCE[0]}")/run.sh"

P_RAW=${BENCH_PREFIX_RAW:-$B/bench/prefixes}
N4=${BENCH_PREFIX_V4:-50000}
N6=${BENCH_PREFIX_V6:-10000}
if [ "$QUICK" = 1 ]; then
	LOAD_N=${BENCH_LOAD_ENTRIES:-1000000}
else
	LOAD_N=${BENCH_LOAD_ENTRIES:-10000000}
fi
LOAD_RUNS=${BENCH_LOAD_RUNS:-3}
declare -A LOAD_ARGS

# setup_prefix_rx NAME: attaches receiver NAME and loads the prefix list ($WORK/p).
setup_prefix_rx() {
	local name=$1 ns=${RNS[$1]} r=${RIF[$1]} dir=$WORK/p out tr bin
	case ${KIND[$name]} in
	bare | lpmnet)
		if [ "${KIND[$name]}" = bare ]; then
			out=$(in_ns "$ns" "$B/bench/rx" attach bare "$r") || return 1
		else
			tr=$(timed "$WORK/rx.out" nsenter --net="/run/netns/$ns" -- "$B/bench/rx" \
				attach lpmnet "$r" "$dir/lpm.bin") || return 1
			out=$(cat "$WORK/rx.out")
			record_load p "$name" "batch update (IPv4)" "${tr% *}" "$N4" "${tr#* }"
		fi
		PROG[$name]=$(awk '{ print $2 }' <<<"$out")
		;;
	bloom)
		bin=$BLOOMXDP
		[ "${name%-alt}" != "$name" ] && bin=$BLOOMXDP_ALT	# the other build, side by side
		BIN[$name]=$bin	# counters() reads its pins with it
		out=$(timeout 120 nsenter --net="/run/netns/$ns" -- "$bin" attach "$r" \
			--capacity $((N4 + N6)) --fpr "$FPR" --match src --mode native 2>&1) || {
			log "bloomxdp attach: $out"
			return 1
		}
		ATTACHED+=("$r")
		# --allow-wide: mklists draws IPv6 prefixes from /16 (load refuses below /32).
		# shellcheck disable=SC2086
		tr=$(timed "$WORK/load.out" timeout 600 nsenter --net="/run/netns/$ns" -- \
			"$bin" load "$r" --allow-wide ${LOAD_ARGS[$name]} "$dir/list.txt") ||
			return 1
		record_load p "$name" "load" "${tr% *}" "$((N4 + N6))" "${tr#* }"
		cp "$WORK/load.out" "$RAW/load-$name.txt"
		out=$(nsenter --net="/run/netns/$ns" -- "$bin" status "$r" --json) || return 1
		printf '%s\n' "$out" >"$RAW/status-$name.json"
		PROG[$name]=$(sed -n 's/.*"prog_id":\([0-9]*\).*/\1/p' <<<"$out")
		;;
	nft)
		out=$(in_ns "$ns" "$B/bench/rx" attach pass "$r") || return 1
		PROG[$name]=$(awk '{ print $2 }' <<<"$out")
		ip netns exec "$ns" nft "add table inet bxb;
			add set inet bxb bl4 { type ipv4_addr; flags interval; };
			add set inet bxb bl6 { type ipv6_addr; flags interval; };
			add chain inet bxb pre { type filter hook prerouting priority raw; policy accept; };
			add rule inet bxb pre ip saddr @bl4 drop;
			add rule inet bxb pre ip6 saddr @bl6 drop" || return 1
		tr=$(timed "$WORK/nft.out" ip netns exec "$ns" nft -f "$dir/nft.txt") || return 1
		record_load p "$name" "nft -f" "${tr% *}" "$((N4 + N6))" "${tr#* }"
		;;
	ipset)
		out=$(in_ns "$ns" "$B/bench/rx" attach pass "$r") || return 1
		PROG[$name]=$(awk '{ print $2 }' <<<"$out")
		ip netns exec "$ns" ipset create bxb hash:net family inet hashsize 65536 \
			maxelem $((N4 * 2)) || return 1
		ip netns exec "$ns" ipset create bxb6 hash:net family inet6 hashsize 16384 \
			maxelem $((N6 * 2)) || return 1
		tr=$(timed "$WORK/ipset.out" ip netns exec "$ns" ipset restore -f "$dir/ipset.txt") ||
			return 1
		record_load p "$name" "ipset restore" "${tr% *}" "$((N4 + N6))" "${tr#* }"
		ip netns exec "$ns" iptables-legacy -t raw -A PREROUTING -m set --match-set bxb src \
			-j DROP || return 1
		;;
	esac
	rx_threaded "$name"
}

# prefix_progtime I: with BENCH_PROGTIME=1 (the default), each receiver's
# program time (run.sh's progtime) beside the floor of its footprint, on veth
# pairs from I on: bloomxdp's the live filter's and exact intervals' bytes
# (status_bytes); bare and the LPM trie set against bloomxdp --store auto's.
prefix_progtime() {
	local name f=
	[ "$PROGTIME" = 1 ] || return 0
	for name in bloom-auto bloom-intervals bloom-auto-alt; do
		[ -e "$RAW/status-$name.json" ] || continue
		FLOOR_OF[$name]=floor-$(status_bytes "$RAW/status-$name.json")
		[ -n "$f" ] || f=${FLOOR_OF[$name]}
	done
	for name in bare lpmnet; do
		FLOOR_OF[$name]=$f
	done
	floors_up p "$1" || return 1
	log "prefix list: program time, $PT_ROUNDS rounds, ${PT_WINDOW} s a slot"
	progtime p
}

# load_times: a list of LOAD_N hosts loaded LOAD_RUNS times into each layout.
load_times() {
	local name=load layout i tr ns r out
	mkdir -p "$WORK/l"
	"$B/bench/mklists" "$WORK/l" "$LOAD_N" 16 "$((LOAD_N + 7))" || die "mklists failed"
	rm -f "$WORK/l/nft.txt" "$WORK/l/ipset.txt"
	make_ns "$GNS" || die "cannot create namespace $GNS"
	rx_up 0 "$name" bloom || die "cannot build the veth pair for $name"
	ns=${RNS[$name]}
	r=${RIF[$name]}
	for layout in blocked bits kernel; do
		out=$(timeout 120 nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" attach "$r" \
			--capacity "$LOAD_N" --fpr "$FPR" --mode native --layout "$layout" 2>&1) ||
			die "bloomxdp attach --layout $layout: $out"
		ATTACHED+=("$r")
		for ((i = 0; i < LOAD_RUNS; i++)); do
			tr=$(timed "$WORK/load.out" timeout 600 nsenter --net="/run/netns/$ns" -- \
				"$BLOOMXDP" load "$r" --allow-wide "$WORK/l/list.txt") || die "load failed"
			record_load "$LOAD_N" "$layout" "load" "${tr% *}" "$LOAD_N" "${tr#* }"
			log "load of $LOAD_N hosts, layout $layout: ${tr% *} s, peak RSS ${tr#* } KiB"
		done
		bloom_detach timeout 60 nsenter --net="/run/netns/$ns" -- "$r" || die "detach failed"
		ATTACHED=()
	done
	teardown
	rm -rf -- "${WORK:?}/l"
}

prefix_main() {
	local i=0 name t0 t1
	requirements
	install_deps
	rm -rf -- "$P_RAW"
	mkdir -p "$P_RAW"
	RAW=$P_RAW
	WORK=$(mktemp -d "/tmp/bxb-$ID.XXXXXX") || die "mktemp"
	trap run_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	[ "$PROGTIME" = 1 ] && pt_on
	{
		echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
		echo "kernel $(uname -r)"
		echo "quick $QUICK"
		echo "prefixes $N4 $N6"
		echo "rounds $ROUNDS"
		echo "window $WINDOW"
		echo "load_entries $LOAD_N"
		echo "load_runs $LOAD_RUNS"
		echo "load_start $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$RAW/meta.txt"

	mkdir -p "$WORK/p"
	"$B/bench/mklists" --prefixes "$WORK/p" "$N4" "$N6" "$TRAFFIC" 11 ||
		die "mklists --prefixes failed"
	make_ns "$GNS" || die "cannot create namespace $GNS"
	LOAD_ARGS[bloom-auto]="--store auto"
	LOAD_ARGS[bloom-auto-alt]="--store auto"
	LOAD_ARGS[bloom-intervals]="--store intervals"
	for name in bare bloom-auto bloom-intervals lpmnet nft ipset ${BLOOMXDP_ALT:+bloom-auto-alt}; do
		if [ -n "${BENCH_PREFIX_RECEIVERS:-}" ] && ! grep -qw -- "$name" <<<"$BENCH_PREFIX_RECEIVERS"; then
			continue
		fi
		case $name in bloom-*) KIND[$name]=bloom ;; *) KIND[$name]=$name ;; esac
		rx_up "$i" "$name" "${KIND[$name]}" || die "cannot build the veth pair for $name"
		i=$((i + 1))
		t0=$(now_ns)
		setup_prefix_rx "$name" || die "setup of $name failed"
		RXS+=("$name")
		t1=$(now_ns)
		log "prefix list: $name ready in $(((t1 - t0) / 1000000)) ms"
	done
	if [ "${#RXS[@]}" -gt 0 ]; then
		log "prefix list: verdicts (each receiver's own counters)"
		verify p
		if [ "${BENCH_THROUGHPUT:-1}" = 1 ]; then
			log "prefix list: $ROUNDS rounds of ${#MIXES[@]} mixes x ${#RXS[@]} receivers"
			throughput p
		fi
		prefix_progtime "$i" || die "program time failed"
		# Where an unlisted frame's time goes (perf of the receiving CPU).
		for name in bare bloom-auto bloom-intervals; do
			[ -n "${GIF[$name]:-}" ] && perf_profile p "$name" none
		done
	fi
	teardown
	if [ "${BENCH_LOAD:-1}" = 1 ]; then
		log "load: $LOAD_N hosts, $LOAD_RUNS times per layout"
		load_times
	fi
	echo "load_end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RAW/meta.txt"
	python3 "$ROOT/bench/prefixes.py" "$RAW" >"$RAW/section.md" || die "report failed"
	if [ -s "$RAW/progtime.tsv" ]; then
		{ echo; python3 "$ROOT/bench/progtime.py" "$RAW" "The prefix list: program time \
against the floor"; } >>"$RAW/section.md" || die "report failed"
	fi
	log "done: $RAW/section.md"
}

prefix_main "$@"
