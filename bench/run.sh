#!/usr/bin/env bash
# make bench: the benchmarks of bloomxdp, written to bench/results.md and
# bench/throughput.png (raw data in build/bench/results/). Needs root. Not part
# of make test.
#
#   1. per-packet cost, hot caches (build/bench/prog_run, BPF_PROG_TEST_RUN);
#   2. throughput through a real receive path: a generator (bench/gen.c,
#      BPF_F_TEST_XDP_LIVE_FRAMES) pinned to one CPU pushes 60-byte IPv4/UDP
#      frames into veth pairs, each frame stamped with the next source address
#      of a traffic file; the receiver under test sits on the peer (native
#      XDP, veth NAPI in threaded mode, its thread pinned to the other CPU).
#      Receivers, side by side in one run and alternating: bare (no lookup:
#      the limit), bloomxdp in each layout, a BPF hash map, an LPM trie,
#      nftables (a set in a prerouting chain at priority raw) and ipset +
#      iptables (raw table), all holding the same list; three traffic mixes:
#      all listed, none listed, 30% listed. Listed frames are dropped;
#      unlisted ones go up the stack to a blackhole route, the same for all.
#   3. memory: the kernel's own accounting of each (map memlock, ipset's
#      "Size in memory") and the change of kernel memory in /proc/meminfo;
#      bits per entry against log2(1/p);
#   4. load time: entries per second of bloomxdp load, next to nft -f,
#      ipset restore and the BPF maps' batch updates;
#   5. named lists (bench/lists.sh): 1, 4 and 16 named lists against the
#      default list, all listed and none listed;
#   6. hooks (bench/hooks.sh): the program time per packet (bpf_stats) of
#      XDP ingress, tc ingress and tc egress, all listed and none listed;
#   7. names at line rate (run_names): a DNS query flood, every name new
#      (random 8-letter labels under a zone: the water-torture attack), at
#      bloomxdp --match dns holding a list of names, and at the bare program
#      on another veth pair; zones listed and not, names of 3 and 5 labels;
#      with program time on, each receiver's bpf_stats time beside the floor
#      of its footprint, and (name_paths) TLS ClientHellos at --match sni,
#      HTTP requests at --match http and DNS responses (CNAME + 3 A) at
#      --match dns-answers, every name new (3 labels, unlisted), the same way;
#   9. program time (progtime, in run_size): each receiver's own XDP program
#      time per packet from bpf_stats (kernel.bpf_stats_enabled=1 for the run,
#      put back on exit): delta run_time_ns / delta run_cnt around a window of
#      live frames, one receiver and mix at a time, rounds alternating; beside
#      each, the floor of its footprint (bench/receivers.bpf.c rx_floor: hash
#      the source address, read one 64-byte line of an array of the filter's
#      bytes) on a veth of its own, and the ratio to it. xdp-filter (xdp-tools)
#      is a receiver too where its map holds the list (10,000 addresses):
#      libxdp's dispatcher is refused here (EPERM on its compatibility check)
#      and libxdp falls back by itself to one program without dispatcher.
#      Written to RAW/progtime/section.md (a section of results.md).
#   8. QUIC (bench/quic.sh): a flood of real QUIC Initials (gtlsclient's,
#      captured) at --match sni: the program time per packet, packets/s, the
#      receiving CPU, the QUIC counters, with the default --quic-budget and 0.
#
# Environment: BENCH_QUICK=1 (100k entries, short runs, for development);
# BENCH_SIZES="1000000 10000000" (the default), BENCH_ROUNDS (10), BENCH_WINDOW
# (seconds per measurement, 0.5), BENCH_TRAFFIC (frames in each traffic file,
# 4194304), BENCH_GEN_CPU (0), BENCH_RX_CPU (1), BENCH_BATCH (64),
# BENCH_GEN_THREADS (2), BENCH_RECEIVERS (a subset, e.g. "bare bits hash"),
# BENCH_OUT (the results file; default bench/results.md, with BENCH_QUICK=1
# build/bench/results-quick.md; the plot goes beside it), BENCH_NAMES (1: the
# names flood too, the default; 0: not; only: nothing else, no report: the
# table is printed and left in the raw directory as names.md), BENCH_NAMES_LIST
# (names listed, 1000000; 100000 with BENCH_QUICK=1), BENCH_NAMES_ATTACH (more
# options of its attach, e.g. "--events-per-sec 0"), BENCH_NAMES_GEN (more
# options of the generator, e.g. --dns-fixed: one name, not random ones),
# BENCH_NAME_PATHS (1: TLS, HTTP and DNS answers timed against the floor
# with the names flood, the default when program time is on; 0: not),
# BENCH_LISTS (1: the named lists of bench/lists.sh, the default; 0: not),
# BENCH_HOOKS (1: the hooks of bench/hooks.sh, the default; 0: not), BENCH_QUIC
# (1: the Initial flood of bench/quic.sh, the default; 0: not), BENCH_PROGTIME
# (1: program time against the floor, the default; 0: not), BENCH_PT_ROUNDS
# (its rounds, half of ROUNDS), BENCH_PT_WINDOW (its seconds per slot, 1),
# BENCH_THROUGHPUT (1: the veth-throughput rounds, the default; 0: verdicts
# and program time only), BENCH_PROG_RUN (1: prog_run first, the default; 0: not), BENCH_FLOORS (more floor sizes in bytes, e.g.
# "262144 1048576 2097152 4194304 16777216": the floor curve), BENCH_BLOOMXDP_ALT
# (another bloomxdp binary: receiver bloom-<default layout>-alt, a change's
# before and after side by side).
# shellcheck disable=SC2086
#
# Network safety: everything lives in namespaces of this run (bxb-ID-*; veth
# ends bxbIDgN and bIDrN, ID from the PID and random bits), the
# veth pairs are born in them, nothing is configured in the root namespace;
# nft, iptables and ipset run inside those namespaces only. The EXIT trap
# detaches bloomxdp, kills the generators this script started (by PID) and
# deletes the namespaces (and so the veths, and the programs on them),
# unloads xdp-filter from the interface it was loaded on (its pins under
# /sys/fs/bpf/xdp-filter go with the last interface) and puts
# kernel.bpf_stats_enabled back.
# Sources come from 240.0.0.0/4 (reserved, never routed), destinations from
# 198.18.0.0/15 (benchmarking); no frame leaves the namespaces.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$ROOT/build
BLOOMXDP=${BENCH_BLOOMXDP:-$B/bloomxdp}
# Another build of bloomxdp as receiver bloom-<default layout>-alt, beside
# the first (a change measured before and after in one run): its binary.
BLOOMXDP_ALT=${BENCH_BLOOMXDP_ALT:-}
RAW=$B/bench/results
PIN_ROOT=/sys/fs/bpf/bloomxdp

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	SIZES=(${BENCH_SIZES:-100000})
	ROUNDS=${BENCH_ROUNDS:-3}
	WINDOW=${BENCH_WINDOW:-0.3}
	TRAFFIC=${BENCH_TRAFFIC:-1048576}
	PROG_RUN_ENTRIES=100000
else
	SIZES=(${BENCH_SIZES:-1000000 10000000})
	ROUNDS=${BENCH_ROUNDS:-10}
	WINDOW=${BENCH_WINDOW:-0.5}
	TRAFFIC=${BENCH_TRAFFIC:-4194304}
	PROG_RUN_ENTRIES=1000000
fi
# A quick run is for development: it leaves bench/results.md as it is.
if [ "$QUICK" = 1 ]; then
	OUT_MD=${BENCH_OUT:-$B/bench/results-quick.md}
	RAW=$B/bench/results-quick
else
	OUT_MD=${BENCH_OUT:-$ROOT/bench/results.md}
fi
[ "${BENCH_NAMES:-1}" = only ] && RAW=$B/bench/results-names	# the last full run's data stays
OUT_PNG=${OUT_MD%.md}.png
[ "$OUT_MD" = "$ROOT/bench/results.md" ] && OUT_PNG=$ROOT/bench/throughput.png
GEN_CPU=${BENCH_GEN_CPU:-0}
RX_CPU=${BENCH_RX_CPU:-1}
BATCH=${BENCH_BATCH:-64}
FPR=0.01
WARMUP=0.2
GEN_THREADS=${BENCH_GEN_THREADS:-2}
PROGTIME=${BENCH_PROGTIME:-1}
PT_ROUNDS=${BENCH_PT_ROUNDS:-$(((ROUNDS + 1) / 2))}
PT_WINDOW=${BENCH_PT_WINDOW:-1}
MIXES=(all none mix30)

ID=$(printf '%04x%02x' $(($$ & 0xffff)) $((RANDOM & 0xff)))
GNS=bxb-$ID-gen
DST=198.19.0.1		# behind a blackhole route in every receiver namespace
WORK=
PIDS=()
declare -A RNS GIF RIF RMAC KIND PROG FOOT FLOOR_OF
declare -A BIN		# the bloomxdp binary of a bloom receiver (BLOOMXDP_ALT's: its pins' version)
FLOORS=()		# floor receivers of this size
XDPF_AT=()		# where xdp-filter is loaded: "NAMESPACE INTERFACE"
XDPF_PINS_OURS=0	# 1: /sys/fs/bpf/xdp-filter did not exist before this run
XDPF_MAX=10000		# xdp-filter's filter_ipv4 map (max_entries)
STATS_WAS=
STATS_PID=		# build/bench/tx hold-stats (pt_on)
PT_DIR=			# where pt_record writes progtime.tsv (empty: RAW)
RXS=()			# receivers of this size, in order
NS_MADE=()
ATTACHED=()		# interfaces bloomxdp is attached to
DEFAULT_LAYOUT=		# what 'attach' uses without --layout

log() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }
# bloom_detach [nsenter ...] IFNAME: detach and forget the state of an
# interface this run made (a build without --forget: detach alone).
bloom_detach() {
	local ifname=${*: -1}
	local bin
	for bin in "$BLOOMXDP" ${BLOOMXDP_ALT:+"$BLOOMXDP_ALT"}; do
		"${@:1:$#-1}" "$bin" detach "$ifname" --forget >/dev/null 2>&1 && return 0
		"${@:1:$#-1}" "$bin" detach "$ifname" >/dev/null 2>&1 && return 0
	done
	return 1
}
die() { log "error: $*"; exit 1; }
now_ns() { date +%s%N; }

# ---------------------------------------------------------------- setup

install_deps() {
	local missing=() cmd pkg
	for cmd in nft:nftables ipset:ipset iptables-legacy:iptables gnuplot:gnuplot-nox \
		perf:linux-perf python3:python3 /usr/bin/time:time; do
		command -v "${cmd%%:*}" >/dev/null || missing+=("${cmd#*:}")
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	log "installing ${missing[*]} (bench only)"
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}" >/dev/null || log "could not install ${missing[*]}"
	for pkg in nft ipset iptables-legacy gnuplot python3 /usr/bin/time; do
		command -v "$pkg" >/dev/null || die "$pkg is missing"
	done
}

requirements() {
	[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP, bpffs)"
	[ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ] ||
		die "bpffs is not mounted at /sys/fs/bpf"
	local f
	for f in "$BLOOMXDP" "$B/bench/gen" "$B/bench/rx" "$B/bench/mklists" "$B/bench/prog_run" \
		"$B/bench/tx"; do
		[ -x "$f" ] || die "$f is missing: run 'make bench'"
	done
	if [ "$(nproc)" -lt 2 ]; then
		log "one CPU only: generator and receivers share it"
		GEN_CPU=0
		RX_CPU=0
	fi
}

cleanup() {
	local pid ifname ns
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	PIDS=()
	for ifname in "${ATTACHED[@]}"; do
		[ -d "$PIN_ROOT/$ifname" ] && bloom_detach timeout 60 "$ifname"
	done
	ATTACHED=()
	xdpf_unload
	for ns in "${NS_MADE[@]}"; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns" 2>/dev/null
	done
	NS_MADE=()
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		rm -rf -- "$WORK"
	fi
}

# xdpf_unload: xdp-filter off the interfaces of this run; its pins
# (/sys/fs/bpf/xdp-filter) removed when this run made them and no program of
# it is left there.
xdpf_unload() {
	local at ns ifname pins=/sys/fs/bpf/xdp-filter
	for at in "${XDPF_AT[@]}"; do
		read -r ns ifname <<<"$at"
		[ -e "/run/netns/$ns" ] &&
			timeout 30 nsenter --net="/run/netns/$ns" -- xdp-filter unload "$ifname" -v \
				>>"$RAW/xdpf-unload.txt" 2>&1
	done
	if [ "${#XDPF_AT[@]}" -gt 0 ] && [ "$XDPF_PINS_OURS" = 1 ] && [ -d "$pins" ] &&
		[ -z "$(ls -A "$pins/programs" 2>/dev/null)" ]; then
		rm -f -- "$pins"/filter_ethernet "$pins"/filter_ipv4 "$pins"/filter_ipv6 \
			"$pins"/filter_ports "$pins"/xdp_stats_map
		rmdir -- "$pins/programs" "$pins" 2>/dev/null
	fi
	XDPF_AT=()
}

# run_exit: the EXIT trap of run.sh.
run_exit() {
	cleanup
	if [ -n "$STATS_PID" ]; then
		kill "$STATS_PID" 2>/dev/null
		wait "$STATS_PID" 2>/dev/null
		STATS_PID=
	fi
	if [ -n "$STATS_WAS" ]; then
		sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS" ||
			log "could not put kernel.bpf_stats_enabled back to $STATS_WAS"
	fi
}

# forget_pid PID: a generator of ours has been waited for; cleanup must not
# signal a PID the kernel may hand to another process.
forget_pid() {
	local p keep=()
	for p in "${PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	PIDS=("${keep[@]}")
}

in_ns() { local ns=$1; shift; nsenter --net="/run/netns/$ns" -- "$@"; }

# A network namespace of this run: no IPv6 (no RS/ND/MLD frames), no reverse
# path filter, loopback up.
make_ns() {
	local ns=$1
	ip netns add "$ns" || return 1
	NS_MADE+=("$ns")
	in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 >/dev/null || return 1
	ip -n "$ns" link set lo up
}

# kernel memory now, in bytes: slab + vmalloc + per-CPU (/proc/meminfo)
kmem() { awk '/^(Slab|VmallocUsed|Percpu):/ { s += $2 } END { printf "%.0f", s * 1024 }' /proc/meminfo; }

# Runs COMMAND..., prints "SECONDS PEAK_RSS_KB" (its stdout and stderr go to FILE).
timed() {
	local out=$1 t0 t1 rss
	shift
	t0=$(now_ns)
	/usr/bin/time -f '%M' -o "$out.rss" "$@" >"$out" 2>&1 || { cat "$out" >&2; return 1; }
	t1=$(now_ns)
	rss=$(tail -n 1 "$out.rss")
	awk -v a="$t0" -v b="$t1" -v r="$rss" 'BEGIN { printf "%.3f %s\n", (b - a) / 1e9, r }'
}

# ---------------------------------------------------------------- receivers

# rx_up I NAME KIND: namespace bxb-ID-I with the receiving end of veth pair I,
# the sending end in the generator's namespace.
rx_up() {
	local i=$1 name=$2 kind=$3 ns=bxb-$ID-$1
	RNS[$name]=$ns
	GIF[$name]=bxb${ID}g$i
	# Short: the NAPI thread's name, "napi/IFNAME-ID", must show "napi/IFNAME-"
	# within the 15 characters of a task name (see rx_threaded).
	RIF[$name]=b${ID}r$i
	KIND[$name]=$kind
	make_ns "$ns" || return 1
	ip -n "$GNS" link add "${GIF[$name]}" type veth peer name "${RIF[$name]}" netns "$ns" ||
		return 1
	ip -n "$GNS" link set "${GIF[$name]}" up || return 1
	ip -n "$ns" link set "${RIF[$name]}" up || return 1
	ip -n "$ns" addr add 198.18.0.1/24 dev "${RIF[$name]}" || return 1
	ip -n "$ns" route add blackhole 198.19.0.0/16 || return 1
	RMAC[$name]=$(ip -n "$ns" -br link show dev "${RIF[$name]}" | awk '{print $3}')
	[ -n "${RMAC[$name]}" ]
}

# Threaded NAPI on the receiving veth (it exists once an XDP program is
# attached), its thread pinned to RX_CPU: the receiver runs on a CPU of its
# own, apart from the generator.
rx_threaded() {
	local name=$1 pid found=0
	ip netns exec "${RNS[$name]}" sh -c "echo 1 > /sys/class/net/${RIF[$name]}/threaded" ||
		return 1
	sleep 0.1
	for pid in $(ps -eo pid=,comm= | awk -v p="napi/${RIF[$name]}-" 'index($2, p) == 1 { print $1 }'); do
		taskset -pc "$RX_CPU" "$pid" >/dev/null || return 1
		found=1
	done
	[ "$found" = 1 ] || { log "no NAPI thread found for ${RIF[$name]}"; return 1; }
}

# Appends "SIZE RECEIVER WHAT SECONDS ENTRIES PEAK_RSS_KB" to load.tsv.
record_load() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RAW/load.tsv"; }
# Appends "SIZE RECEIVER OWN_BYTES KMEM_DELTA LAYOUT NOTE" to memory.tsv.
record_mem() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RAW/memory.tsv"; }

# setup_rx N NAME: attaches receiver NAME and loads the list of N entries.
setup_rx() {
	local n=$1 name=$2 ns=${RNS[$2]} r=${RIF[$2]} dir=$WORK/$1 k0 k1 out tr own layout
	local sec rss
	k0=$(kmem)
	case ${KIND[$name]} in
	bare | hash | lpm)
		if [ "${KIND[$name]}" = bare ]; then
			out=$(in_ns "$ns" "$B/bench/rx" attach bare "$r") || return 1
		else
			tr=$(timed "$WORK/rx.out" nsenter --net="/run/netns/$ns" -- "$B/bench/rx" attach "${KIND[$name]}" "$r" \
				"$dir/list.bin") || return 1
			out=$(cat "$WORK/rx.out")
			record_load "$n" "$name" "batch update" \
				"$(awk '{ for (i = 1; i < NF; i++) if ($i == "load_seconds") print $(i + 1) }' <<<"$out")" \
				"$n" "${tr#* }"
		fi
		PROG[$name]=$(awk '{ print $2 }' <<<"$out")
		own=$(awk '{ print $6 }' <<<"$out")
		sleep 0.3
		k1=$(kmem)
		record_mem "$n" "$name" "$own" "$((k1 - k0))" "-" "map memlock"
		;;
	bloom)
		layout=${name#bloom-}
		local args=(attach "$r" --capacity "$n" --fpr "$FPR" --match src --mode native)
		local bin=$BLOOMXDP
		if [ "${layout%-alt}" != "$layout" ]; then
			bin=$BLOOMXDP_ALT	# the other build, side by side (before/after)
			layout=${layout%-alt}
		fi
		if [ "${layout%-ev0}" != "$layout" ]; then
			args+=(--events-per-sec 0)	# no drop events: what they cost
			layout=${layout%-ev0}
		fi
		[ "$layout" != default ] && args+=(--layout "$layout")
		out=$(timeout 120 nsenter --net="/run/netns/$ns" -- "$bin" "${args[@]}" 2>&1) || {
			log "bloomxdp ${args[*]}: $out"
			return 2
		}
		ATTACHED+=("$r")
		BIN[$name]=$bin
		tr=$(timed "$WORK/load.out" timeout 600 nsenter --net="/run/netns/$ns" -- "$bin" \
			load "$r" "$dir/list.txt") || return 1
		record_load "$n" "$name" "load" "${tr% *}" "$n" "${tr#* }"
		# The same list again: a swap of a full filter for a new one (skipped
		# when the first load took more than 10 s).
		if awk -v s="${tr% *}" 'BEGIN { exit !(s < 10) }'; then
			tr=$(timed "$WORK/load.out" timeout 600 nsenter --net="/run/netns/$ns" -- \
				"$bin" load "$r" "$dir/list.txt") || return 1
			record_load "$n" "$name" "reload (swap)" "${tr% *}" "$n" "${tr#* }"
		fi
		out=$(nsenter --net="/run/netns/$ns" -- "$bin" status "$r" --json) || return 1
		printf '%s\n' "$out" >"$RAW/status-$n-$name.json"
		PROG[$name]=$(sed -n 's/.*"prog_id":\([0-9]*\).*/\1/p' <<<"$out")
		layout=$(sed -n 's/.*"layout":"\([^"]*\)".*/\1/p' <<<"$out")
		sleep 0.3
		k1=$(kmem)
		"$B/bench/rx" maps "${PROG[$name]}" >"$RAW/maps-$n-$name.txt"
		# Own accounting: the inner maps of the outer maps of the filter ("filter",
		# and "kfilter" of layout kernel): the live filter.
		own=$(awk '$1 == "map" && $6 ~ /filter/ && $14 == 0 { outer[$2] = 1 }
			$1 == "map" && ($14 in outer) { s += $8 } END { print s + 0 }' \
			"$RAW/maps-$n-$name.txt")
		record_mem "$n" "$name" "$own" "$((k1 - k0))" "$layout" \
			"filter map memlock; all maps $(awk '$1 == "map" { s += $8 } END { print s + 0 }' \
			"$RAW/maps-$n-$name.txt") B"
		;;
	floor)
		out=$(in_ns "$ns" "$B/bench/rx" attach floor "$r" "${FOOT[$name]}") || return 1
		PROG[$name]=$(awk '{ print $2 }' <<<"$out")
		;;
	xdpf)
		# libxdp: "Compatibility check for dispatcher program failed: Operation
		# not permitted ... Falling back to loading single prog without
		# dispatcher" on this host; nothing to ask for.
		# xdpf: every feature (the default); xdpf4: --features ipv4. The
		# addresses go into the one filter_ipv4 map of the host (pinned),
		# once.
		local feat=all
		[ "$name" = xdpf4 ] && feat=ipv4
		[ "${#XDPF_AT[@]}" -gt 0 ] || [ -e /sys/fs/bpf/xdp-filter ] || XDPF_PINS_OURS=1
		timeout 60 nsenter --net="/run/netns/$ns" -- xdp-filter load "$r" --mode native \
			--features "$feat" >"$WORK/xdpf.out" 2>&1 || {
			log "xdp-filter load: $(tail -n 2 "$WORK/xdpf.out")"
			return 2
		}
		XDPF_AT+=("$ns $r")
		PROG[$name]=$(ip -n "$ns" link show dev "$r" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
		[ -n "${PROG[$name]}" ] || return 1
		if [ "${#XDPF_AT[@]}" -gt 1 ]; then
			rx_threaded "$name"
			return
		fi
		# shellcheck disable=SC2016
		tr=$(timed "$WORK/xdpf.out" nsenter --net="/run/netns/$ns" -- sh -c \
			'while read -r a; do xdp-filter ip "$a" --mode src || exit 1; done' \
			<"$dir/list.txt") || return 1
		record_load "$n" "$name" "xdp-filter ip (one a call)" "${tr% *}" "$n" "${tr#* }"
		own=$(bpftool map show pinned /sys/fs/bpf/xdp-filter/filter_ipv4 2>/dev/null |
			sed -n 's/.*memlock \([0-9]*\)B.*/\1/p')
		sleep 0.3
		k1=$(kmem)
		record_mem "$n" "$name" "$own" "$((k1 - k0))" "-" "filter_ipv4 memlock"
		;;
	nft)
		out=$(in_ns "$ns" "$B/bench/rx" attach pass "$r") || return 1
		PROG[$name]=$(awk '{ print $2 }' <<<"$out")
		ip netns exec "$ns" nft "add table ip bxb; add set ip bxb bl { type ipv4_addr; size $n; };
			add chain ip bxb pre { type filter hook prerouting priority raw; policy accept; };
			add rule ip bxb pre ip saddr @bl counter drop" || return 1
		tr=$(timed "$WORK/nft.out" ip netns exec "$ns" nft -f "$dir/nft.txt") || return 1
		record_load "$n" "$name" "nft -f" "${tr% *}" "$n" "${tr#* }"
		sleep 0.3
		k1=$(kmem)
		record_mem "$n" "$name" "" "$((k1 - k0))" "-" "nft reports no memory figure"
		;;
	ipset)
		out=$(in_ns "$ns" "$B/bench/rx" attach pass "$r") || return 1
		PROG[$name]=$(awk '{ print $2 }' <<<"$out")
		local hs=1024
		while [ "$hs" -lt "$n" ]; do hs=$((hs * 2)); done
		ip netns exec "$ns" ipset create bxb hash:ip family inet hashsize "$hs" \
			maxelem "$n" || return 1
		tr=$(timed "$WORK/ipset.out" ip netns exec "$ns" ipset restore -f "$dir/ipset.txt") ||
			return 1
		record_load "$n" "$name" "ipset restore" "${tr% *}" "$n" "${tr#* }"
		ip netns exec "$ns" iptables-legacy -t raw -A PREROUTING -m set --match-set bxb src \
			-j DROP || return 1
		own=$(ip netns exec "$ns" ipset list bxb -t | sed -n 's/^Size in memory: //p')
		sleep 0.3
		k1=$(kmem)
		record_mem "$n" "$name" "$own" "$((k1 - k0))" "-" "ipset: Size in memory"
		;;
	esac
	rx_threaded "$name" || return 1
}

# counters NAME: "PACKETS DROPPED" as the receiver counts them.
counters() {
	local name=$1 ns=${RNS[$1]} out p d
	case ${KIND[$name]} in
	bloom)
		out=$(nsenter --net="/run/netns/$ns" -- "${BIN[$name]:-$BLOOMXDP}" stats \
			"${RIF[$name]}" --json)
		p=$(sed -n 's/.*"packets":\([0-9]*\).*/\1/p' <<<"$out")
		d=$(sed -n 's/.*"dropped":\([0-9]*\).*/\1/p' <<<"$out")
		echo "${p:-0} ${d:-0}"
		;;
	xdpf)
		# xdp-filter's per-action counters (xdp_stats_map, pinned; shared by
		# its interfaces, which run one at a time here). Not 'xdp-filter
		# status': run in one namespace, it unpins the programs of the
		# interfaces of the others as stale.
		bpftool -j map dump pinned /sys/fs/bpf/xdp-filter/xdp_stats_map | python3 -c '
import json, sys
p = d = 0
for e in json.load(sys.stdin):
    for v in e["values"]:
        c = int.from_bytes(bytes(int(x, 16) for x in v["value"][:8]), "little")
        p += c
        d += c if int(e["key"][0], 16) == 1 else 0
print(p, d)'
		;;
	nft | ipset)
		# The stack's own counters: IP packets received (before the prerouting
		# hooks), less those that reached the blackhole route (InAddrErrors).
		# (Reading the nft rule's counter would list the whole set: minutes at
		# 10M entries.)
		nsenter --net="/run/netns/$ns" -- awk '$1 == "Ip:" && $4 ~ /^[0-9]+$/ {
			printf "%.0f %.0f\n", $4, $4 - $6 }' /proc/net/snmp
		;;
	*)
		"$B/bench/rx" counters "${PROG[$name]}" | awk '{ print $2, $4 }'
		;;
	esac
}

# rx_stats NAME: "NS_TIMESTAMP RX_PACKETS RX_DROPPED" of the receiving veth
# (rx_packets counts every frame its XDP program saw, rx_dropped the frames
# the generator could not queue because the receiver's ring was full).
rx_stats() {
	local name=$1 t0 t1 s
	t0=$(now_ns)
	s=$(ip -n "${RNS[$name]}" -s link show dev "${RIF[$name]}" |
		awk '/RX:/ { getline; print $2, $4; exit }')
	t1=$(now_ns)
	echo "$(((t0 + t1) / 2)) $s"
}

# gen_args N NAME...: the generator's options for receivers NAME... (every mix).
gen_args() {
	local n=$1 name mix
	shift
	printf '%s\n' --dst "$DST" --cpu "$GEN_CPU" --batch "$BATCH" --threads "$GEN_THREADS"
	for mix in "${MIXES[@]}"; do
		printf '%s\n' --mix "$mix=$WORK/$n/traffic-$mix.bin"
	done
	for name in "$@"; do
		printf '%s\n' --target "$name=${GIF[$name]}=${RMAC[$name]}"
	done
}

# verify N: each receiver and mix for a short while, its own counters read
# before and after: the share of frames it dropped (all listed: 100%, none:
# 0%, or the FPR for bloomxdp, 30% listed: 30%). Also warms every receiver up.
verify() {
	local n=$1 name mix c0 c1 args
	for name in "${RXS[@]}"; do
		for mix in "${MIXES[@]}"; do
			c0=$(counters "$name")
			timeout 60 nsenter --net="/run/netns/$GNS" -- "$B/bench/gen" --dst "$DST" \
				--cpu "$GEN_CPU" --batch "$BATCH" --threads "$GEN_THREADS" --warmup 0.1 \
				--window 0.4 --mix "$mix=$WORK/$n/traffic-$mix.bin" \
				--target "$name=${GIF[$name]}=${RMAC[$name]}" >/dev/null ||
				die "generator failed ($name, $mix)"
			c1=$(counters "$name")
			awk -v n="$n" -v rx="$name" -v mix="$mix" -v a="$c0" -v b="$c1" 'BEGIN {
				split(a, x, " "); split(b, y, " "); p = y[1] - x[1]; d = y[2] - x[2];
				printf "%s\t%s\t%s\t%.0f\t%.0f\t%.6f\n", n, rx, mix, p, d, (p > 0 ? d / p : -1) }' \
				>>"$RAW/verify.tsv"
		done
	done
	awk -F'\t' -v n="$n" '$1 == n { printf "  %-14s %-6s dropped %6.2f%% of %.0f frames\n", $2, $3,
		$6 * 100, $4 }' "$RAW/verify.tsv" >&2
}

# throughput N: ROUNDS rounds of every mix against every receiver, in turn, by
# one generator process (bench/gen.c); appends "N ROUND MIX RECEIVER MPPS
# GEN_MPPS REFUSED" lines to throughput.tsv.
throughput() {
	local n=$1 line args
	mapfile -t args < <(gen_args "$n" "${RXS[@]}")
	timeout $((ROUNDS * ${#RXS[@]} * ${#MIXES[@]} * 5 + 60)) \
		nsenter --net="/run/netns/$GNS" -- "$B/bench/gen" "${args[@]}" --rounds "$ROUNDS" \
		--window "$WINDOW" --warmup "$WARMUP" >"$WORK/gen.out" 2>&1 &
	GEN_PID=$!
	PIDS+=("$GEN_PID")
	tail -f --pid="$GEN_PID" "$WORK/gen.out" 2>/dev/null | while read -r line; do
		printf '  %s\n' "$line" >&2
	done
	wait "$GEN_PID" || die "generator failed: $(tail -n 3 "$WORK/gen.out")"
	forget_pid "$GEN_PID"
	awk -v n="$n" 'NF == 6 { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n, $1, $2, $3, $4, $5, $6 }' \
		"$WORK/gen.out" >>"$RAW/throughput.tsv"
}

# perf_profile N NAME MIX: where the receiving CPU spends its time.
perf_profile() {
	local n=$1 name=$2 mix=$3 pid
	command -v perf >/dev/null || return 0
	timeout 60 nsenter --net="/run/netns/$GNS" -- "$B/bench/gen" --dst "$DST" --cpu "$GEN_CPU" \
		--batch "$BATCH" --threads "$GEN_THREADS" --warmup 0.3 --window 1.5 \
		--mix "$mix=$WORK/$n/traffic-$mix.bin" --target "$name=${GIF[$name]}=${RMAC[$name]}" \
		>/dev/null 2>&1 &
	pid=$!
	PIDS+=("$pid")
	sleep 0.5
	timeout 30 perf record -q -C "$RX_CPU" -e cpu-clock -F 4999 -o "$WORK/perf.data" \
		-- sleep 1 >/dev/null 2>&1
	wait "$pid"
	forget_pid "$pid"
	perf report -i "$WORK/perf.data" --stdio --no-children --sort sym --percent-limit 1.5 \
		2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 25 >"$RAW/perf-$n-$name-$mix.txt"
}

teardown() {
	local name ns
	for name in "${RXS[@]}"; do
		if [ "${KIND[$name]}" = bloom ] && [ -d "$PIN_ROOT/${RIF[$name]}" ]; then
			bloom_detach timeout 60 "${RIF[$name]}" || log "detach ${RIF[$name]} failed"
		fi
	done
	ATTACHED=()
	xdpf_unload
	for ns in "${NS_MADE[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	NS_MADE=()
	RXS=()
	FLOORS=()
	FLOOR_OF=()
}

# ---------------------------------------------------------------- program time

# status_bytes FILE: the footprint of a bloomxdp receiver from its status --json
# (FILE): the live filter's "bytes" and its exact intervals' "ranges_bytes",
# rounded up to 64; nothing if there is none.
status_bytes() {
	python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
b = int(s.get("bytes", 0)) + int(s.get("ranges_bytes", 0))
print((b + 63) // 64 * 64 if b > 0 else "")' "$1" 2>/dev/null
}

# setup_floors N I: a floor receiver (rx_floor) for each footprint of this
# size, on veth pairs from I on: the bytes of each bloomxdp receiver's live
# filter (status_bytes of RAW/status-N-NAME.json), and BENCH_FLOORS. The
# receivers without a footprint of their own (bare, hash, lpm, xdp-filter)
# are set against the floor of the first bloomxdp receiver.
setup_floors() {
	local n=$1 i=$2 name bytes first=''
	for name in "${RXS[@]}"; do
		[ "${KIND[$name]}" = bloom ] || continue
		bytes=$(status_bytes "$RAW/status-$n-$name.json")
		[ -n "$bytes" ] || continue
		FLOOR_OF[$name]=floor-$bytes
		[ -n "$first" ] || first=floor-$bytes
	done
	for name in "${RXS[@]}"; do
		case ${KIND[$name]} in bare | hash | lpm | xdpf) FLOOR_OF[$name]=$first ;; esac
	done
	floors_up "$n" "$i"
}

# floors_up N I: the floor receivers of every footprint FLOOR_OF names, and of
# BENCH_FLOORS, on veth pairs from I on (rx_up: the generator's namespace GNS
# is there), each once; FLOORS lists them. Run by every script that times a
# path against its floor.
floors_up() {
	local n=$1 i=$2 name bytes f sizes=()
	for name in "${!FLOOR_OF[@]}"; do
		f=${FLOOR_OF[$name]}
		[ -n "$f" ] && sizes+=("${f#floor-}")
	done
	for bytes in ${BENCH_FLOORS:-}; do
		sizes+=("$bytes")
	done
	for bytes in $(printf '%s\n' "${sizes[@]}" | sort -nu); do
		f=floor-$bytes
		[[ " ${FLOORS[*]} " == *" $f "* ]] && continue
		FOOT[$f]=$bytes
		rx_up "$i" "$f" floor || return 1
		i=$((i + 1))
		setup_rx "$n" "$f" || return 1
		FLOORS+=("$f")
	done
}

# prog_time PROG_ID: "RUN_TIME_NS RUN_CNT VERIFIED_INSNS" (bpf_stats): the one
# reader of bpf_stats of the bench (run.sh, hooks.sh, quic.sh, lists.sh,
# prefixes.sh).
prog_time() {
	"$B/bench/tx" stats "$1" | awk '{ print $6, $8, $10 }'
}

# pt_delta BEFORE AFTER: "NS_PER_PACKET RUN_CNT VERIFIED_INSNS" between two
# readings of prog_time (NS_PER_PACKET -1 if the program did not run).
pt_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, s, " "); split(b, t, " "); dc = t[2] - s[2]
		printf "%.2f %.0f %s\n", (dc > 0 ? (t[1] - s[1]) / dc : -1), dc, t[3] }'
}

# pt_record N ROUND MIX NAME DELTA COUNTERS0 COUNTERS1 MPPS: appends "N ROUND MIX
# NAME NS_PER_PACKET RUN_CNT PACKETS DROPPED MPPS" to progtime.tsv of PT_DIR (RAW
# when it is empty; bench/progtime.py makes the table) (DELTA from pt_delta,
# COUNTERS "PACKETS DROPPED" before and after).
pt_record() {
	awk -v n="$1" -v r="$2" -v m="$3" -v rx="$4" -v d="$5" -v x="$6" -v y="$7" \
		-v o="$8" 'BEGIN { split(d, t, " "); split(x, c, " "); split(y, e, " ")
		printf "%s\t%s\t%s\t%s\t%.2f\t%.0f\t%.0f\t%.0f\t%s\n", n, r, m, rx, t[1], t[2],
			e[1] - c[1], e[2] - c[2], o }' >>"${PT_DIR:-$RAW}/progtime.tsv"
}

# pt_slot N ROUND MIX NAME [GENERATOR_OPTIONS...]: one window of live frames
# at receiver NAME alone (the traffic: GENERATOR_OPTIONS, by default --mix
# MIX=$WORK/N/traffic-MIX.bin), recorded by pt_record.
pt_slot() {
	local n=$1 round=$2 mix=$3 name=$4 s0 s1 c0 c1 out
	shift 4
	[ "$#" -gt 0 ] || set -- --mix "$mix=$WORK/$n/traffic-$mix.bin"
	s0=$(prog_time "${PROG[$name]}") || return 1
	c0=$(counters "$name")
	out=$(timeout 60 nsenter --net="/run/netns/$GNS" -- "$B/bench/gen" --dst "$DST" \
		--cpu "$GEN_CPU" --batch "$BATCH" --threads "$GEN_THREADS" --warmup 0.1 \
		--window "$PT_WINDOW" "$@" --target "$name=${GIF[$name]}=${RMAC[$name]}") || return 1
	s1=$(prog_time "${PROG[$name]}") || return 1
	c1=$(counters "$name")
	pt_record "$n" "$round" "$mix" "$name" "$(pt_delta "$s0" "$s1")" "$c0" "$c1" \
		"$(awk 'NF == 6 { print $4 }' <<<"$out" | tail -n 1)"
}

# pt_floors N [NAME...]: progtime-floors.tsv, "N NAME FLOOR BYTES" for every
# NAME (by default every receiver) and floor.
pt_floors() {
	local n=$1 name
	shift
	[ "$#" -gt 0 ] || set -- "${RXS[@]}"
	for name in "$@" "${FLOORS[@]}"; do
		printf '%s\t%s\t%s\t%s\n' "$n" "$name" "${FLOOR_OF[$name]:-}" \
			"${FOOT[$name]:-}" >>"${PT_DIR:-$RAW}/progtime-floors.tsv"
	done
}

# pt_on: bpf_stats on for the run: kernel.bpf_stats_enabled=1 (the value
# before in STATS_WAS, put back by run_exit), and held on by build/bench/tx
# hold-stats (BPF_ENABLE_STATS, its PID in STATS_PID, ended by run_exit): the
# sysctl is the machine's, and another process that puts it back to 0 during
# a run would stop the counters (seen: a window of run_cnt 0).
pt_on() {
	local k
	[ -r /proc/sys/kernel/bpf_stats_enabled ] || die "kernel.bpf_stats_enabled is missing"
	STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled) || die "cannot read bpf_stats_enabled"
	sysctl -qw kernel.bpf_stats_enabled=1 || die "cannot set kernel.bpf_stats_enabled=1"
	"$B/bench/tx" hold-stats 14400 >"$WORK/hold-stats.out" 2>&1 &
	STATS_PID=$!
	for ((k = 0; k < 40; k++)); do
		grep -q holding "$WORK/hold-stats.out" && return 0
		sleep 0.05
	done
	die "cannot hold bpf_stats on: $(cat "$WORK/hold-stats.out")"
}

# progtime N: PT_ROUNDS rounds; in each, every mix, and in each mix every
# receiver with an XDP program of its own and every floor, in turn.
progtime() {
	local n=$1 r mix name pt=()
	for name in "${RXS[@]}"; do
		case ${KIND[$name]} in bare | bloom | hash | lpm | lpmnet | xdpf) pt+=("$name") ;; esac
	done
	pt+=("${FLOORS[@]}")
	pt_floors "$n"
	for ((r = 1; r <= PT_ROUNDS; r++)); do
		for mix in "${MIXES[@]}"; do
			for name in "${pt[@]}"; do
				pt_slot "$n" "$r" "$mix" "$name" || die "program time: $name, $mix"
			done
		done
		log "$n entries: program time, round $r of $PT_ROUNDS"
	done
}

# ---------------------------------------------------------------- names

# Flood mixes: NAME ZONE RANDOM_LABELS LISTED (labels in all: RANDOM + 2).
NAME_MIXES=("unlisted-3 fine.example 1 0" "unlisted-5 fine.example 3 0"
	"listed-3 evil.example 1 1" "listed-5 evil.example 3 1")

# napi_ns NAME: nanoseconds the receiver's NAPI threads have run (schedstat):
# with the receive path in those threads, CPU time per frame that does not
# depend on what else the shared CPU runs.
napi_ns() {
	local pid s=0 v
	for pid in $(ps -eo pid=,comm= |
		awk -v p="napi/${RIF[$1]}-" 'index($2, p) == 1 { print $1 }'); do
		read -r v _ <"/proc/$pid/schedstat" && s=$((s + v))
	done
	echo "$s"
}

# names_list N FILE: N random names of 2 to 4 labels, and evil.example.
names_list() {
	awk -v n="$1" 'BEGIN {
		srand(7); split("com net org info", tld, " ")
		print "evil.example"
		for (i = 1; i < n; i++) {
			name = tld[int(rand() * 4) + 1]
			depth = 2 + int(rand() * 3)
			for (d = 1; d < depth; d++) {
				len = 5 + int(rand() * 6); l = ""
				for (c = 0; c < len; c++) l = l sprintf("%c", 97 + int(rand() * 26))
				name = l "." name
			}
			print name
		} }' >"$2"
}

# run_names: bare and bloomxdp (--match dns, the default layout) side by side
# under each flood mix; appends "MIX ROUND RECEIVER MPPS" to names.tsv and
# each receiver's verdicts to names-verify.tsv, and writes names.md.
run_names() {
	local n=${BENCH_NAMES_LIST:-$([ "$QUICK" = 1 ] && echo 100000 || echo 1000000)}
	local dir=$WORK/names m mix zone rnd listed name c0 c1 out args sec r t0 t1 s0 s1
	mkdir -p "$dir"
	names_list "$n" "$dir/names.txt"
	# traffic-none.bin: the frames' source addresses (not looked up with --match dns)
	"$B/bench/mklists" "$dir" 1000 65536 11 >/dev/null || die "mklists failed"
	make_ns "$GNS" || die "cannot create namespace $GNS"
	rx_up 0 bare bare || die "cannot build the veth pair for bare"
	out=$(in_ns "${RNS[bare]}" "$B/bench/rx" attach bare "${RIF[bare]}") || die "rx attach bare"
	PROG[bare]=$(awk '{ print $2 }' <<<"$out")
	rx_threaded bare || die "threaded NAPI for bare"
	rx_up 1 names bloom || die "cannot build the veth pair for names"
	out=$(timeout 120 nsenter --net="/run/netns/${RNS[names]}" -- "$BLOOMXDP" attach \
		"${RIF[names]}" --capacity "$n" --fpr "$FPR" --match dns --mode native \
		${BENCH_NAMES_ATTACH:-} 2>&1) ||
		die "bloomxdp attach --match dns: $out"
	ATTACHED+=("${RIF[names]}")
	sec=$(timed "$WORK/load.out" timeout 600 nsenter --net="/run/netns/${RNS[names]}" -- \
		"$BLOOMXDP" load "${RIF[names]}" "$dir/names.txt") || die "bloomxdp load of names"
	log "names: $n names loaded in ${sec% *} s"
	rx_threaded names || die "threaded NAPI for names"
	names_floor "$n" || die "the floor of the names flood"
	for m in "${NAME_MIXES[@]}"; do
		read -r mix zone rnd listed <<<"$m"
		args=(--dst "$DST" --cpu "$GEN_CPU" --batch "$BATCH" --threads "$GEN_THREADS"
			--dns-zone "$zone" --dns-random "$rnd")
		[ "$listed" = 1 ] && args+=(--listed)
		# shellcheck disable=SC2206
		args+=(${BENCH_NAMES_GEN:-})	# e.g. --dns-fixed
		args+=(--mix "$mix=$dir/traffic-none.bin")
		# Each receiver alone, in turn: its own counters (the verdicts) and the
		# CPU time of its NAPI threads per frame.
		for ((r = 1; r <= (ROUNDS + 1) / 2; r++)); do
			for name in bare names "${FLOORS[@]}"; do
				c0=$(counters "$name")
				t0=$(napi_ns "$name")
				[ "$PROGTIME" = 1 ] && s0=$(prog_time "${PROG[$name]}")
				timeout 60 nsenter --net="/run/netns/$GNS" -- "$B/bench/gen" \
					"${args[@]}" --warmup 0.1 --window "$WINDOW" \
					--target "$name=${GIF[$name]}=${RMAC[$name]}" >/dev/null ||
					die "generator failed ($name, $mix)"
				[ "$PROGTIME" = 1 ] && s1=$(prog_time "${PROG[$name]}")
				t1=$(napi_ns "$name")
				c1=$(counters "$name")
				[ "$PROGTIME" = 1 ] && pt_record "$n" "$r" "$mix" "$name" \
					"$(pt_delta "$s0" "$s1")" "$c0" "$c1" -
				awk -v rx="$name" -v mix="$mix" -v a="$c0" -v b="$c1" \
					-v t="$((t1 - t0))" 'BEGIN {
					split(a, x, " "); split(b, y, " ")
					p = y[1] - x[1]; d = y[2] - x[2]
					printf "%s\t%s\t%.0f\t%.0f\t%.6f\t%.1f\n", mix, rx, p, d,
						(p > 0 ? d / p : -1), (p > 0 ? t / p : -1) }' \
					>>"$RAW/names-verify.tsv"
			done
		done
		timeout $((ROUNDS * 10 + 60)) nsenter --net="/run/netns/$GNS" -- "$B/bench/gen" \
			"${args[@]}" --rounds "$ROUNDS" --window "$WINDOW" --warmup "$WARMUP" \
			--target "bare=${GIF[bare]}=${RMAC[bare]}" \
			--target "names=${GIF[names]}=${RMAC[names]}" >"$WORK/names-gen.out" 2>&1 ||
			die "generator failed ($mix): $(tail -n 3 "$WORK/names-gen.out")"
		awk 'NF == 6 { printf "%s\t%s\t%s\t%s\n", $2, $1, $3, $4 }' "$WORK/names-gen.out" \
			>>"$RAW/names.tsv"
		log "names: $mix done"
	done
	if [ "$PROGTIME" = 1 ] && [ "${BENCH_NAME_PATHS:-1}" = 1 ]; then
		log "names: TLS, HTTP and DNS answers against the floor ($PT_ROUNDS rounds)"
		name_paths "$n" "$dir" || die "names: the other paths failed"
	fi
	names_table "$n" >"$RAW/names.md"
	if [ "$PROGTIME" = 1 ]; then
		echo >>"$RAW/names.md"
		python3 "$ROOT/bench/progtime.py" "$PT_DIR" "The names flood: program time against \
the floor ($n names listed)" >>"$RAW/names.md" || log "bench/progtime.py failed (names)"
	fi
	PT_DIR=
	RXS+=(bare names)
	teardown
}

# The other paths of names, timed against the floor (program time only):
# MIX RECEIVER MATCH PAYLOAD (bench/gen --payload), every name new
# (xxxxxxxx.fine.example: 3 labels, unlisted).
NAME_PATHS=("tls-3 names-tls sni tls" "http-3 names-http http http"
	"answers answers dns-answers answers")

# name_paths N DIR: a bloomxdp receiver for each of NAME_PATHS (attach --match
# MATCH, the names of DIR/names.txt), beside bare and the floor of its
# footprint; PT_ROUNDS rounds of each, one receiver at a time (pt_slot).
name_paths() {
	local n=$1 dir=$2 i=10 p mix name match payload out r rx
	for p in "${NAME_PATHS[@]}"; do
		read -r mix name match payload <<<"$p"
		rx_up "$i" "$name" bloom || return 1
		i=$((i + 1))
		out=$(timeout 120 nsenter --net="/run/netns/${RNS[$name]}" -- "$BLOOMXDP" attach \
			"${RIF[$name]}" --capacity "$n" --fpr "$FPR" --match "$match" --mode native \
			2>&1) || { log "attach --match $match: $out"; return 1; }
		ATTACHED+=("${RIF[$name]}")
		RXS+=("$name")
		timeout 600 nsenter --net="/run/netns/${RNS[$name]}" -- "$BLOOMXDP" load \
			"${RIF[$name]}" "$dir/names.txt" >/dev/null || return 1
		nsenter --net="/run/netns/${RNS[$name]}" -- "$BLOOMXDP" status "${RIF[$name]}" \
			--json >"$PT_DIR/status-$name.json" || return 1
		PROG[$name]=$(sed -n 's/^{[^{]*"prog_id":\([0-9]*\).*/\1/p' \
			"$PT_DIR/status-$name.json")
		FLOOR_OF[$name]=floor-$(status_bytes "$PT_DIR/status-$name.json")
		rx_threaded "$name" || return 1
	done
	floors_up "$n" "$i" || return 1
	pt_floors "$n" "${RXS[@]}"
	for ((r = 1; r <= PT_ROUNDS; r++)); do
		for p in "${NAME_PATHS[@]}"; do
			read -r mix name match payload <<<"$p"
			for rx in "$name" bare "${FLOORS[@]}"; do
				pt_slot "$n" "$r" "$mix" "$rx" --dns-zone fine.example --dns-random 1 \
					--payload "$payload" --mix "$mix=$dir/traffic-none.bin" || return 1
			done
		done
		log "names: other paths, round $r of $PT_ROUNDS"
	done
	# What the programs read (checked_*, unparsed_*: the frames parse as meant).
	for p in "${NAME_PATHS[@]}"; do
		read -r mix name match payload <<<"$p"
		nsenter --net="/run/netns/${RNS[$name]}" -- "$BLOOMXDP" stats "${RIF[$name]}" \
			--json >"$PT_DIR/stats-$name.json"
	done
}

# names_floor N: with program time on, the names receiver's prog id (PROG),
# and a floor of its footprint beside it for the flood's rounds (PT_DIR:
# RAW/names-pt); nothing without.
names_floor() {
	local out bytes
	[ "$PROGTIME" = 1 ] || return 0
	PT_DIR=$RAW/names-pt
	mkdir -p "$PT_DIR"
	out=$(nsenter --net="/run/netns/${RNS[names]}" -- "$BLOOMXDP" status "${RIF[names]}" \
		--json) || return 1
	printf '%s\n' "$out" >"$PT_DIR/status-names.json"
	PROG[names]=$(sed -n 's/^{[^{]*"prog_id":\([0-9]*\).*/\1/p' <<<"$out")
	bytes=$(status_bytes "$PT_DIR/status-names.json")
	[ -n "${PROG[names]}" ] && [ -n "$bytes" ] || return 1
	FLOOR_OF[names]=floor-$bytes
	FLOOR_OF[bare]=floor-$bytes
	floors_up "$1" 2 || return 1
	pt_floors "$1" bare names
}

# names_table N: the flood's table, medians over rounds of the per-round ratio.
names_table() {
	printf '%s%s%s%s\n' "| DNS flood ($1 names listed, bloomxdp --match dns) | bare: Mpps | " \
		"bloomxdp: Mpps | bloomxdp / bare (median of rounds, min-max) | receiving CPU, " \
		"ns/frame: bare / bloomxdp | bare / bloomxdp, CPU time | " \
		"dropped by bare / bloomxdp |"
	echo "|---|---|---|---|---|---|---|"
	awk -F'\t' -v vf="$RAW/names-verify.tsv" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	BEGIN { while ((getline l < vf) > 0) { split(l, f, "\t"); drop[f[1], f[2]] = f[5]
		nc[f[1], f[2]]++; cpu[f[1], f[2], nc[f[1], f[2]]] = f[6] } }
	function cpu_median(m, rx,   i, a) {
		for (i = 1; i <= nc[m, rx]; i++) a[i] = cpu[m, rx, i]
		return median(a, nc[m, rx])
	}
	{ rate[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++nm] = $1 }
	  if ($2 > rounds[$1]) rounds[$1] = $2 }
	END {
		for (k = 1; k <= nm; k++) {
			m = order[k]; nb = nn = nr = 0; lo = 1e9; hi = 0
			for (r = 1; r <= rounds[m]; r++) {
				b = rate[m, r, "bare"]; x = rate[m, r, "names"]
				B[++nb] = b; X[++nn] = x
				if (b > 0) {
					q = x / b; R[++nr] = q
					if (q < lo) lo = q
					if (q > hi) hi = q
				}
			}
			split(m, p, "-")
			cb = cpu_median(m, "bare"); cx = cpu_median(m, "names")
			printf "| %s zone, %s labels, random | %.2f | %.2f | %.2fx (%.2f-%.2f) ",
				p[1], p[2], median(B, nb), median(X, nn), median(R, nr), lo, hi
			printf "| %.0f / %.0f | %.2fx | %.1f%% / %.1f%% |\n", cb, cx,
				(cx > 0 ? cb / cx : 0), 100 * drop[m, "bare"], 100 * drop[m, "names"]
		}
	}' "$RAW/names.tsv"
}

# ---------------------------------------------------------------- main

# The bloomxdp receivers: one per layout the CLI knows (attach --layout), or
# one with its default layout.
# The default layout first (the one 'plan' reports without --layout), and it
# once more without drop events.
bloom_receivers() {
	local help l out=()
	help=$("$BLOOMXDP" attach --help 2>&1)
	if grep -q -- '--layout' <<<"$help"; then
		[ -n "$DEFAULT_LAYOUT" ] && out+=("bloom-$DEFAULT_LAYOUT")
		for l in bits blocked kernel; do
			[ "$l" = "$DEFAULT_LAYOUT" ] && continue
			grep -q -- "$l" <<<"$(grep -A3 -- '--layout' <<<"$help")" && out+=("bloom-$l")
		done
	fi
	[ "${#out[@]}" -eq 0 ] && out=(bloom-default)
	out+=("${out[0]}-ev0")
	[ -n "$BLOOMXDP_ALT" ] && out+=("${out[0]}-alt")
	echo "${out[@]}"
}

run_size() {
	local n=$1 i=0 name k all_rx=() t0 t1
	mkdir -p "$WORK/$n"
	t0=$(now_ns)
	"$B/bench/mklists" "$WORK/$n" "$n" "$TRAFFIC" "$((n + 7))" || die "mklists failed"
	t1=$(now_ns)
	log "$n entries: lists written in $(((t1 - t0) / 1000000)) ms"
	make_ns "$GNS" || die "cannot create namespace $GNS"
	# shellcheck disable=SC2207
	all_rx=(bare $(bloom_receivers) hash lpm nft ipset)
	command -v xdp-filter >/dev/null && all_rx+=(xdpf xdpf4)
	if [ -n "${BENCH_RECEIVERS:-}" ]; then
		local want=() x
		for x in "${all_rx[@]}"; do
			grep -qw -- "${x#bloom-}" <<<"$BENCH_RECEIVERS" && want+=("$x")
		done
		all_rx=("${want[@]}")
	fi
	for name in "${all_rx[@]}"; do
		case $name in bloom-*) k=bloom ;; xdpf*) k=xdpf ;; *) k=$name ;; esac
		if [ "$k" = xdpf ] && [ "$n" -gt "$XDPF_MAX" ]; then
			printf '%s\t%s\t%s\n' "$n" "$name" \
				"xdp-filter holds $XDPF_MAX addresses" >>"$RAW/skipped.tsv"
			continue
		fi
		rx_up "$i" "$name" "$k" || die "cannot build the veth pair for $name"
		i=$((i + 1))
		t0=$(now_ns)
		setup_rx "$n" "$name"
		case $? in
		0) RXS+=("$name") ;;
		2) log "$name: skipped (attach refused)"
		   printf '%s\t%s\t%s\n' "$n" "$name" "attach refused" >>"$RAW/skipped.tsv" ;;
		*) die "setup of $name failed" ;;
		esac
		t1=$(now_ns)
		log "$n entries: $name ready in $(((t1 - t0) / 1000000)) ms"
	done
	if [ "$PROGTIME" = 1 ]; then
		setup_floors "$n" "$i" || die "cannot set up the floors"
	fi
	log "$n entries: verdicts (each receiver's own counters)"
	verify "$n"
	if [ "${BENCH_THROUGHPUT:-1}" = 1 ]; then
		log "$n entries: $ROUNDS rounds of ${#MIXES[@]} mixes x ${#RXS[@]} receivers, ${WINDOW} s each"
		throughput "$n"
	fi
	if [ "$PROGTIME" = 1 ]; then
		log "$n entries: program time, $PT_ROUNDS rounds, ${PT_WINDOW} s a slot"
		progtime "$n"
	fi
	if [ "$n" = "${SIZES[-1]}" ]; then
		for name in "${RXS[@]}"; do
			case $name in *-ev0) ;; bare | bloom-*) perf_profile "$n" "$name" all ;; esac
		done
		[ -n "${GIF[bare]:-}" ] && perf_profile "$n" bare none
		for name in "${RXS[@]}"; do
			case $name in bloom-*) perf_profile "$n" "$name" none; break ;; esac
		done
	fi
	teardown
	rm -rf -- "${WORK:?}/$n"
}

main() {
	local t_start t_end n
	requirements
	install_deps
	t_start=$(now_ns)
	DEFAULT_LAYOUT=$("$BLOOMXDP" plan --json 2>/dev/null |
		sed -n 's/.*"layout":"\([a-z]*\)","layouts".*/\1/p')
	rm -rf -- "$RAW"
	mkdir -p "$RAW"
	WORK=$(mktemp -d "/tmp/bxb-$ID.XXXXXX") || die "mktemp"
	trap run_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	{
		echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "kernel $(uname -r)"
		echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc)"
		echo "memory $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
		echo "quick $QUICK"
		echo "sizes ${SIZES[*]}"
		echo "rounds $ROUNDS"
		echo "window $WINDOW"
		echo "traffic $TRAFFIC"
		echo "batch $BATCH"
		echo "gen_threads $GEN_THREADS"
		echo "warmup $WARMUP"
		echo "gen_cpu $GEN_CPU"
		echo "rx_cpu $RX_CPU"
		echo "fpr $FPR"
		echo "default_layout ${DEFAULT_LAYOUT:-default}"
		echo "load_start $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "versions nft $(nft --version | awk '{ print $2 }'), ipset $(ipset --version | awk '{ print $2 }' | tr -d ,), $(iptables-legacy --version)"
	} >"$RAW/meta.txt"

	[ "$PROGTIME" = 1 ] && pt_on
	if [ "${BENCH_PROG_RUN:-1}" = 1 ]; then
		log "per-packet cost, hot (prog_run, $PROG_RUN_ENTRIES entries)"
		"$B/bench/prog_run" "$PROG_RUN_ENTRIES" >"$RAW/prog_run.md" || die "prog_run failed"
		cat "$RAW/prog_run.md" >&2
	fi

	if [ "${BENCH_NAMES:-1}" != only ]; then
		for n in "${SIZES[@]}"; do
			run_size "$n"
		done
		if [ "$PROGTIME" = 1 ]; then
			mkdir -p "$RAW/progtime"
			python3 "$ROOT/bench/progtime.py" "$RAW" >"$RAW/progtime/section.md" ||
				log "bench/progtime.py failed: its section is left out"
			cat "$RAW/progtime/section.md" >&2
		fi
	fi
	# Prefix lists and load times: a script of their own, a section of results.md.
	if [ "${BENCH_PREFIXES:-1}" = 1 ] && [ "${BENCH_NAMES:-1}" != only ]; then
		cleanup
		BENCH_PREFIX_RAW=$RAW/prefixes "$ROOT/bench/prefixes.sh" ||
			log "bench/prefixes.sh failed: its section is left out"
	fi
	# Named lists: a script of their own, a section of results.md.
	if [ "${BENCH_LISTS:-1}" = 1 ] && [ "${BENCH_NAMES:-1}" != only ]; then
		cleanup
		BENCH_LISTS_RAW=$RAW/lists "$ROOT/bench/lists.sh" ||
			log "bench/lists.sh failed: its section is left out"
	fi
	# Hooks (XDP, tc ingress, tc egress): a script of its own, a section of results.md.
	if [ "${BENCH_HOOKS:-1}" = 1 ] && [ "${BENCH_NAMES:-1}" != only ]; then
		cleanup
		BENCH_HOOKS_RAW=$RAW/hooks "$ROOT/bench/hooks.sh" ||
			log "bench/hooks.sh failed: its section is left out"
	fi
	# An Initial flood (QUIC): a script of its own, a section of results.md.
	if [ "${BENCH_QUIC:-1}" = 1 ] && [ "${BENCH_NAMES:-1}" != only ]; then
		cleanup
		BENCH_QUIC_RAW=$RAW/quic "$ROOT/bench/quic.sh" ||
			log "bench/quic.sh failed: its section is left out"
	fi
	if [ "${BENCH_NAMES:-1}" != 0 ]; then
		log "names: a DNS query flood of random names ($ROUNDS rounds, ${WINDOW} s each)"
		run_names
		cat "$RAW/names.md" >&2
	fi
	t_end=$(now_ns)
	echo "seconds $(((t_end - t_start) / 1000000000))" >>"$RAW/meta.txt"
	echo "load_end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RAW/meta.txt"
	if [ "${BENCH_NAMES:-1}" = only ]; then
		log "done in $(((t_end - t_start) / 1000000000)) s: $RAW/names.md"
		return 0
	fi
	python3 "$ROOT/bench/report.py" "$RAW" "$OUT_MD" "$OUT_PNG" || die "report failed"
	log "done in $(((t_end - t_start) / 1000000000)) s: $OUT_MD, $OUT_PNG"
}

# Sourced (bench/prefixes.sh uses these functions): define, do not run.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
