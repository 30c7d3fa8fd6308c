#!/usr/bin/env bash
# Part of make bench (bench/run.sh calls it; it also runs alone, as root): a
# flood of QUIC Initials at 'attach --match sni' (issue 24), written as a
# section of markdown that bench/report.py puts in bench/results.md
# (bench/quic.md has runs and their reading).
#
# The Initials are real: Debian's gtlsclient (ngtcp2 0.12.1 over GnuTLS)
# run BENCH_QUIC_POOL times against a UDP sink on loopback, in a namespace of
# this run, its first datagram each time kept (tests/e2e/quic_tools.py pool):
# 1,200-byte QUIC v1 Initials, each with a Destination Connection ID of its
# own (so each needs its own key derivation), carrying a whole ClientHello
# (about 380 bytes) that names the 3-label www.unlisted.example (or
# www.listed.example). They are captured once and kept in
# build/bench/quic-pools/ (delete it to capture again). (gtlsclient ignores
# --sni: its HOST is the name, mapped to 127.0.0.1 by a one-line /etc/hosts
# bind-mounted in a mount namespace of each client's own.)
#
# Traffic: build/bench/tx udp, pinned to BENCH_GEN_CPU, sends them in turn
# (sendmmsg of BENCH_QUIC_BATCH) through a connected UDP socket of the peer's
# namespace, over a veth pair, to the attached end, whose NAPI runs threaded
# on BENCH_RX_CPU (the receiving CPU). Four traffics:
#   unlisted    the pool of www.unlisted.example, to port 443
#   repeated    its first Initial only, to port 443: one DCID again and again
#   listed      the pool of www.listed.example, to port 443 (dropped)
#   other-port  the unlisted pool to port 4443, no QUIC port: one port check
#   idle        nothing sent: what else keeps the receiving CPU busy (the
#               machine is shared)
# Each in each configuration of the program: this build's attach --match sni
# with its default --quic-budget, and with --quic-budget 0 and 1000000 (or
# the values BENCH_QUIC_BUDGETS names) when attach has the option; a build without it
# runs once ("this build": UDP to port 443 counted as unseen_quic, unread).
# Measured over BENCH_QUIC_WINDOW seconds, medians of BENCH_QUIC_ROUNDS
# rounds: the program's own time per packet (bpf_stats: delta run_time_ns /
# delta run_cnt of the attachment's program, kernel.bpf_stats_enabled=1 for
# the run, put back on exit), the packets it ran on per second, the
# receiving CPU's use (the NAPI thread's utime + stime, and the CPU's busy
# share in /proc/stat), the sender's rate, and per second the counters
# checked_quic, hits_quic, unparsed_quic, quic_budget_spent, unseen_quic and
# dropped. Also hot: BPF_PROG_TEST_RUN of one unlisted and one listed
# Initial, 10,000 runs (build/bench/tx run ... POOL 443): the issue's bound
# is 20 us a packet for a 3-label SNI.
#
# Environment: BENCH_QUICK (1 s windows, 1 round, pools of 128),
# BENCH_QUIC_POOL (Initials a pool, 512), BENCH_QUIC_ROUNDS (3),
# BENCH_QUIC_WINDOW (seconds a slot, 3), BENCH_QUIC_BATCH (datagrams a
# sendmmsg, 32), BENCH_QUIC_BUDGETS (the --quic-budget values besides the
# default, "0 1000000": 0 decrypts none, so its rows are what an Initial
# over the budget costs; 1,000,000 decrypts every one, so its rows are the
# decryption's cost and the receiving CPU's ceiling), BENCH_QUIC_ONLY (a subset of the traffics, e.g. "unlisted
# listed"), BENCH_GEN_CPU (0), BENCH_RX_CPU (1), BENCH_QUIC_RAW (raw data and
# section.md; default build/bench/quic).
#
# Network safety: run.sh's functions are used. The veth pair is born in two
# namespaces of this run (bxb-ID-qa, bxb-ID-qp; nothing in the root
# namespace); the capture runs on the loopback of a third (bxb-ID-cap); the
# flood goes to 198.19.0.1 (198.18.0.0/15, benchmarking), a blackhole route
# in the attached end's namespace. The EXIT trap detaches, kills the sink,
# deletes the namespaces and puts kernel.bpf_stats_enabled back.
set -u
# shellcheck source=bench/run.sh
. "$(dirname "${BASH_SOURCE[0]}")/run.sh"

Q_RAW=${BENCH_QUIC_RAW:-$B/bench/quic}
Q_POOLS=$B/bench/quic-pools
if [ "$QUICK" = 1 ]; then
	Q_WINDOW=${BENCH_QUIC_WINDOW:-1}
	Q_ROUNDS=${BENCH_QUIC_ROUNDS:-1}
	Q_POOL=${BENCH_QUIC_POOL:-128}
else
	Q_WINDOW=${BENCH_QUIC_WINDOW:-3}
	Q_ROUNDS=${BENCH_QUIC_ROUNDS:-3}
	Q_POOL=${BENCH_QUIC_POOL:-512}
fi
Q_BATCH=${BENCH_QUIC_BATCH:-32}
Q_HOT=10000
TOOLS=$ROOT/tests/e2e/quic_tools.py
Q_ADDR_A=198.18.0.1	# the attached end
Q_ADDR_P=198.18.0.2	# the sender's end; the flood goes to $DST (198.19.0.1), a blackhole
UNLISTED=www.unlisted.example
LISTED=www.listed.example
# NAME PORT POOL POOL_SIZE (0: all of it)
Q_TRAFFICS=("unlisted 443 $UNLISTED 0" "repeated 443 $UNLISTED 1" "listed 443 $LISTED 0"
	"other-port 4443 $UNLISTED 0" "idle 0 - 0")
Q_PROG=
Q_PIF=
Q_PNS=

# capture_pool NAME: $Q_POOLS/NAME.hex holds at least $Q_POOL client Initials
# naming NAME, one a line in hex (captured now if it does not).
capture_pool() {
	local name=$1 f=$Q_POOLS/$1.hex ns=bxb-$ID-cap sink i
	if [ -f "$f" ] && [ "$(wc -l <"$f")" -ge "$Q_POOL" ]; then
		return 0
	fi
	mkdir -p "$Q_POOLS"
	if [ ! -e "/run/netns/$ns" ]; then
		make_ns "$ns" || return 1
	fi
	printf '127.0.0.1 %s\n' "$name" >"$WORK/hosts.$name"
	: >"$WORK/cap.$name"
	# timeout passes the TERM of cleanup (or of the kill below) on to the sink.
	timeout 300 nsenter --net="/run/netns/$ns" -- python3 "$TOOLS" udp-sink 127.0.0.1 443 \
		"$WORK/cap.$name" 290 &
	sink=$!
	PIDS+=("$sink")
	for ((i = 0; i < 40; i++)); do
		in_ns "$ns" ss -H -uln 'sport = :443' | grep -q . && break
		sleep 0.05
	done
	log "quic: capturing $Q_POOL Initials of gtlsclient naming $name"
	# Each client: its Initial at once, its handshake given up after 20 ms.
	# shellcheck disable=SC2016  # $0 and $@ are the inner shell's
	seq "$Q_POOL" | xargs -P 4 -I{} timeout 10 nsenter --net="/run/netns/$ns" -- \
		unshare --mount --propagation private -- \
		sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$WORK/hosts.$name" \
		gtlsclient -q --handshake-timeout=20ms --timeout=20ms "$name" 443 >/dev/null 2>&1
	sleep 0.3
	kill "$sink" 2>/dev/null
	wait "$sink" 2>/dev/null
	forget_pid "$sink"
	python3 "$TOOLS" pool "$WORK/cap.$name" >"$f.tmp" || return 1
	i=$(wc -l <"$f.tmp")
	[ "$i" -ge "$Q_POOL" ] || { log "captured $i Initials of $name, not $Q_POOL"; return 1; }
	mv "$f.tmp" "$f"
}

# quic_up: namespaces bxb-ID-qa (bloomxdp's end, b<ID>q) and bxb-ID-qp (the
# sender's, bxb<ID>qp), joined by a veth pair; the attached end routes
# 198.19.0.0/16 to a blackhole, the sender's end reaches it through the attached
# end; neighbours permanent.
quic_up() {
	local a=bxb-$ID-qa p=bxb-$ID-qp amac pmac
	RNS[quic]=$a
	RIF[quic]=b${ID}q	# short: its NAPI thread's name, napi/IFNAME-N, within 15 characters
	KIND[quic]=bloom
	Q_PNS=$p
	Q_PIF=bxb${ID}qp
	make_ns "$a" && make_ns "$p" || return 1
	ip -n "$p" link add "$Q_PIF" type veth peer name "${RIF[quic]}" netns "$a" || return 1
	ip -n "$a" link set "${RIF[quic]}" up && ip -n "$p" link set "$Q_PIF" up || return 1
	amac=$(ip -n "$a" -br link show dev "${RIF[quic]}" | awk '{print $3}')
	pmac=$(ip -n "$p" -br link show dev "$Q_PIF" | awk '{print $3}')
	ip -n "$a" addr add "$Q_ADDR_A/24" dev "${RIF[quic]}" &&
		ip -n "$a" route add blackhole 198.19.0.0/16 &&
		ip -n "$a" neigh add "$Q_ADDR_P" lladdr "$pmac" dev "${RIF[quic]}" nud permanent ||
		return 1
	ip -n "$p" addr add "$Q_ADDR_P/24" dev "$Q_PIF" &&
		ip -n "$p" neigh add "$Q_ADDR_A" lladdr "$amac" dev "$Q_PIF" nud permanent &&
		ip -n "$p" route add 198.19.0.0/16 via "$Q_ADDR_A" dev "$Q_PIF"
}

bx_q() { timeout 120 nsenter --net="/run/netns/${RNS[quic]}" -- "$BLOOMXDP" "$@"; }

# quic_attach CONFIG OPTIONS...: attach --match sni with OPTIONS, the list loaded,
# the program's id in Q_PROG, NAPI threaded on the receiving CPU.
quic_attach() {
	local config=$1 out
	shift
	if [ -d "$PIN_ROOT/${RIF[quic]}" ]; then
		bloom_detach timeout 60 nsenter --net="/run/netns/${RNS[quic]}" -- "${RIF[quic]}"
		ATTACHED=()
		sleep 0.5	# the kernel lets go of the XDP link a little later
	fi
	out=$(bx_q attach "${RIF[quic]}" --mode native --capacity 1000 --match sni "$@" 2>&1) ||
		{ log "attach $*: $out"; return 1; }
	ATTACHED+=("${RIF[quic]}")
	out=$(bx_q load "${RIF[quic]}" "$WORK/list.txt" 2>&1) || { log "load: $out"; return 1; }
	out=$(bx_q status "${RIF[quic]}" --json) || return 1
	printf '%s\n' "$out" >"$Q_RAW/status-$config.json"
	Q_PROG=$(sed -n 's/^{[^{]*"prog_id":\([0-9]*\).*/\1/p' <<<"$out")
	[ -n "$Q_PROG" ] || { log "$config: no prog_id in status --json"; return 1; }
	rx_threaded quic
}

# The NAPI thread's CPU time (utime + stime, clock ticks) and the receiving
# CPU's "BUSY TOTAL" ticks from /proc/stat.
napi_ticks() {
	local pid t=0
	for pid in $(ps -eo pid=,comm= | awk -v p="napi/${RIF[quic]}-" 'index($2, p) == 1 { print $1 }'); do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
	done
	echo "$t"
}
cpu_ticks() {
	awk -v c="cpu$RX_CPU" '$1 == c { t = 0; for (i = 2; i <= NF; i++) t += $i
		print t - $5 - $6, t }' /proc/stat
}
counters_q() {
	local out c v=()
	out=$(bx_q stats "${RIF[quic]}" --json)
	for c in checked_quic hits_quic unparsed_quic quic_budget_spent unseen_quic dropped; do
		v+=("$(sed -n "s/^{[^{]*\"$c\":\([0-9]*\).*/\1/p" <<<"$out")")
		[ -n "${v[-1]}" ] || v[-1]=-
	done
	echo "${v[*]}"
}

# slot CONFIG ROUND TRAFFIC PORT NAME POOL_SIZE: one measurement, appended to quic.tsv:
# CONFIG TRAFFIC ROUND NS_PER_PACKET RUN_CNT SECONDS NAPI_TICKS CPU_BUSY CPU_TOTAL
# SENDER_MPPS CHECKED HITS UNPARSED SPENT UNSEEN DROPPED VERIFIED_INSNS
# (and, but for idle, to progtime.tsv as receiver quic-CONFIG: run.sh's pt_record).
slot() {
	local config=$1 round=$2 traffic=$3 port=$4 name=$5 size=$6 s0 s1 c0 c1 n0 n1 p0 p1 out d u v
	s0=$(prog_time "$Q_PROG") || return 1
	c0=$(counters_q)
	n0=$(napi_ticks)
	p0=$(cpu_ticks)
	if [ "$traffic" = idle ]; then
		sleep "$Q_WINDOW"
		out="sent 0 refused 0 seconds $Q_WINDOW mpps 0"
	else
		out=$(timeout 90 nsenter --net="/run/netns/$Q_PNS" -- taskset -c "$GEN_CPU" \
			"$B/bench/tx" udp "$DST" "$port" "$Q_POOLS/$name.hex" "$Q_WINDOW" \
			"$Q_BATCH" "$size") || { log "sender failed: $out"; return 1; }
	fi
	p1=$(cpu_ticks)
	n1=$(napi_ticks)
	c1=$(counters_q)
	s1=$(prog_time "$Q_PROG") || return 1
	d=$(pt_delta "$s0" "$s1")
	awk -v cf="$config" -v r="$round" -v tr="$traffic" -v d="$d" -v o="$out" \
		-v n0="$n0" -v n1="$n1" -v p0="$p0" -v p1="$p1" -v c0="$c0" -v c1="$c1" 'BEGIN {
		split(d, t, " "); split(o, f, " ")
		split(p0, x, " "); split(p1, y, " "); split(c0, u, " "); split(c1, v, " ")
		printf "%s\t%s\t%s\t%.1f\t%.0f\t%s\t%d\t%d\t%d\t%s", cf, tr, r,
			t[1], t[2], f[6], n1 - n0, y[1] - x[1], y[2] - x[2], f[8]
		for (i = 1; i <= 6; i++)
			printf "\t%s", (u[i] == "-" || v[i] == "-") ? "-" : v[i] - u[i]
		printf "\t%s\n", t[3]
	}' >>"$Q_RAW/quic.tsv"
	[ "$traffic" = idle ] && return 0
	read -r -a u <<<"$c0"
	read -r -a v <<<"$c1"
	pt_record 1 "$config.$round" "$traffic" "quic-$config" "$d" "0 ${u[5]/-/0}" \
		"$(awk '{ print $2 }' <<<"$d") ${v[5]/-/0}" "$(awk '{ print $8 }' <<<"$out")"
}

# quic_floor: the floor of the default attachment's footprint (its live
# filter, status_bytes) on a veth pair of run.sh's (rx_up, fed by bench/gen
# from GNS, 65,536 random IPv4 sources: the floor reads the source, not the
# Initial); every configuration is set against it (FLOOR_OF).
quic_floor() {
	local f
	f=floor-$(status_bytes "$Q_RAW/status-default.json")
	[ "$f" != floor- ] || f=floor-$(status_bytes "$Q_RAW/status-this-build.json")
	[ "$f" != floor- ] || return 1
	mkdir -p "$WORK/1"
	"$B/bench/mklists" "$WORK/1" 1000 65536 19 >/dev/null || return 1
	make_ns "$GNS" || return 1
	FLOOR_OF[quic]=$f
	floors_up 1 0
}

# floor_slots ROUND: the floor, one window under each traffic (its rows are
# matched with the program's by round and traffic).
floor_slots() {
	local round=$1 t f
	for f in "${FLOORS[@]}"; do
		for t in "${Q_TRAFFICS[@]}"; do
			# shellcheck disable=SC2086
			set -- $t
			[ "$1" = idle ] && continue
			[ -n "${BENCH_QUIC_ONLY:-}" ] && ! grep -qw -- "$1" <<<"$BENCH_QUIC_ONLY" &&
				continue
			pt_slot 1 "$round" "$1" "$f" --mix "$1=$WORK/1/traffic-none.bin" || return 1
		done
	done
}

# hot CONFIG: BPF_PROG_TEST_RUN of the first unlisted and listed Initial, 3 times
# each; hot.tsv: hot CONFIG NAME NS RETVAL CHECKED_QUIC SPENT (the counters'
# growth over the run: under a budget, the runs past it are not decrypted).
hot() {
	local config=$1 name k out c0 c1
	for name in "$UNLISTED" "$LISTED"; do
		for k in 1 2 3; do
			c0=$(counters_q)
			out=$("$B/bench/tx" run "$Q_PROG" "$Q_ADDR_P" "$DST" "$Q_HOT" \
				"$Q_POOLS/$name.hex" 443) || return 1
			c1=$(counters_q)
			awk -v cf="$config" -v n="$name" -v o="$out" -v c0="$c0" -v c1="$c1" 'BEGIN {
				split(o, f, " "); split(c0, u, " "); split(c1, v, " ")
				printf "hot\t%s\t%s\t%s\t%s\t%s\t%s\n", cf, n, f[2], f[4],
					u[1] == "-" ? "-" : v[1] - u[1], u[4] == "-" ? "-" : v[4] - u[4]
			}' >>"$Q_RAW/hot.tsv"
		done
	done
}

quic_section() {
	local hz
	hz=$(getconf CLK_TCK)
	awk -F'\t' -v hz="$hz" -v rounds="$Q_ROUNDS" -v window="$Q_WINDOW" -v pool="$Q_POOL" \
		-v kernel="$(uname -r)" -v batch="$Q_BATCH" -v hot_n="$Q_HOT" '
	function median(key,    m, i, j, t, a) {
		m = cnt[key]
		for (i = 1; i <= m; i++)
			a[i] = val[key, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	function add(key, x) { val[key, ++cnt[key]] = x }
	function per_s(x, secs) { return x == "-" ? "-" : sprintf("%.0f", x / secs) }
	FILENAME ~ /hot.tsv$/ {
		add("hot" SUBSEP $2 SUBSEP $3, $4)
		ret[$2, $3] = "retval " $5
		if ($6 != "-")
			ret[$2, $3] = ret[$2, $3] sprintf(", checked_quic +%s, quic_budget_spent +%s",
							  $6, $7)
		next
	}
	{
		k = $1 SUBSEP $2
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		secs = $6 > 0 ? $6 : 1
		add(k SUBSEP "ns", $4); add(k SUBSEP "pps", $5 / secs)
		add(k SUBSEP "napi", 100 * $7 / hz / secs)
		add(k SUBSEP "busy", $9 > 0 ? 100 * $8 / $9 : 0); add(k SUBSEP "tx", $10)
		for (i = 11; i <= 16; i++)
			add(k SUBSEP i, $i == "-" ? -1 : $i / secs)
		insns[$1] = $17
	}
	function c(k, i,    x) { x = median(k SUBSEP i); return x < 0 ? "-" : sprintf("%.0f", x) }
	END {
		printf "## QUIC: an Initial flood\n\n"
		printf "`attach --match sni` (a list of one name, listed.example) on a veth pair, " \
		       "its NAPI threaded on a CPU of its own; build/bench/tx udp sends real QUIC v1 " \
		       "Initials of gtlsclient (1,200-byte datagrams, a ClientHello of about 380 " \
		       "bytes naming a 3-label name; a pool of %d, each its own DCID) from the " \
		       "other CPU, sendmmsg of %d. Medians of %d rounds of %s s, kernel %s. ns/packet: " \
		       "the program'\''s own time (bpf_stats); kpps: the packets it ran on; NAPI: " \
		       "the receiving thread'\''s CPU time; busy: the receiving CPU'\''s busy share " \
		       "(/proc/stat); counters per second. Traffics: unlisted (the pool, port 443), " \
		       "repeated (one Initial again and again), listed (www.listed.example, " \
		       "dropped), other-port (the pool to 4443, no QUIC port), idle (nothing " \
		       "sent: the receiving CPU'\''s other load).\n\n", pool, batch,
		       rounds, window, kernel
		printf "| configuration | traffic | ns/packet | kpps | NAPI CPU | CPU busy " \
		       "| sender Mpps | checked_quic/s | hits_quic/s | unparsed_quic/s " \
		       "| quic_budget_spent/s | unseen_quic/s | dropped/s |\n"
		printf "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
		for (i = 1; i <= n; i++) {
			k = order[i]
			split(k, kk, SUBSEP)
			ns = median(k SUBSEP "ns")
			printf "| %s | %s | %s | %.0f | %.0f%% | %.0f%% | %.3f | %s | %s | %s " \
			       "| %s | %s | %s |\n", kk[1], kk[2], ns < 0 ? "-" : sprintf("%.0f", ns),
			       median(k SUBSEP "pps") / 1000, median(k SUBSEP "napi"),
			       median(k SUBSEP "busy"), median(k SUBSEP "tx"), c(k, 11), c(k, 12),
			       c(k, 13), c(k, 14), c(k, 15), c(k, 16)
		}
		printf "\nHot (BPF_PROG_TEST_RUN, %d runs of one Initial, medians of 3): ", hot_n
		sep = ""
		for (k in cnt) {
			split(k, kk, SUBSEP)
			if (kk[1] != "hot")
				continue
			printf "%s%s, %s: %.0f ns (the last run: %s)", sep, kk[2], kk[3], median(k),
			       ret[kk[2], kk[3]]
			sep = "; "
		}
		printf ".\n\nverified_insns:"
		sep = " "
		for (k in insns) {
			printf "%s%s %s", sep, k, insns[k]
			sep = ", "
		}
		printf ".\n"
	}' "$Q_RAW/quic.tsv" "$Q_RAW/hot.tsv"
}

quic_main() {
	local c t r config opts configs=() help budgets
	[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP, bpffs, sysctl)"
	for c in "$BLOOMXDP" "$B/bench/tx"; do
		[ -x "$c" ] || die "$c is missing: run 'make bench'"
	done
	for c in gtlsclient python3 unshare xargs; do
		command -v "$c" >/dev/null || die "$c is missing: run tests/install-deps.sh"
	done
	[ -r /proc/sys/kernel/bpf_stats_enabled ] || die "kernel.bpf_stats_enabled is missing"
	if [ "$(nproc)" -lt 2 ]; then
		log "one CPU only: sender and receiver share it"
		GEN_CPU=0
		RX_CPU=0
	fi
	rm -rf -- "$Q_RAW"
	mkdir -p "$Q_RAW"
	WORK=$(mktemp -d "/tmp/bxb-$ID.XXXXXX") || die "mktemp"
	export BLOOMXDP_STATE_DIR=$WORK/state
	trap run_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	RAW=$Q_RAW	# run.sh's functions write there (progtime.tsv)
	echo listed.example >"$WORK/list.txt"
	for c in "$UNLISTED" "$LISTED"; do
		capture_pool "$c" || die "capturing the Initials of $c failed"
	done
	pt_on
	quic_up || die "the veth pair failed"
	# The configurations: the default, and each budget of BENCH_QUIC_BUDGETS, when
	# attach knows --quic-budget.
	help=$("$BLOOMXDP" attach --help 2>&1)
	if grep -q -- '--quic-budget' <<<"$help"; then
		configs=("default")
		for budgets in ${BENCH_QUIC_BUDGETS-0 1000000}; do
			configs+=("budget-$budgets")
		done
	else
		configs=("this-build")
		log "quic: attach has no --quic-budget: this build does not read QUIC; measured as it is"
	fi
	for config in "${configs[@]}"; do
		opts=()
		case $config in budget-*) opts=(--quic-budget "${config#budget-}") ;; esac
		quic_attach "$config" "${opts[@]}" || die "attach ($config) failed"
		log "quic: $config (prog $Q_PROG)"
		if [ "$PROGTIME" = 1 ] && [ "${#FLOORS[@]}" = 0 ]; then
			quic_floor || die "the floor failed"
		fi
		FLOOR_OF[quic-$config]=${FLOOR_OF[quic]:-}
		hot "$config" || die "test run ($config) failed"
		for ((r = 1; r <= Q_ROUNDS; r++)); do
			for t in "${Q_TRAFFICS[@]}"; do
				# shellcheck disable=SC2086
				set -- $t
				[ -n "${BENCH_QUIC_ONLY:-}" ] && ! grep -qw -- "$1" <<<"$BENCH_QUIC_ONLY" &&
					continue
				slot "$config" "$r" "$@" || die "$config, $1 failed"
				tail -n 1 "$Q_RAW/quic.tsv" | awk -F'\t' '{ printf \
					"  %-10s round %s %-10s %7.1f ns/packet %8.0f pps, sender %s Mpps\n",
					$1, $3, $2, $4, $5 / ($6 > 0 ? $6 : 1), $10 }' >&2
			done
			floor_slots "$config.$r" || die "the floor's slots failed"
		done
	done
	configs=("${configs[@]/#/quic-}")
	[ "${#FLOORS[@]}" -gt 0 ] && pt_floors 1 "${configs[@]}"
	cleanup
	quic_section >"$Q_RAW/section.md" || die "report failed"
	if [ -s "$Q_RAW/progtime.tsv" ]; then
		{ echo; python3 "$ROOT/bench/progtime.py" "$Q_RAW" \
			"QUIC Initials: program time against the floor"; } >>"$Q_RAW/section.md" ||
			die "report failed"
	fi
	cat "$Q_RAW/section.md" >&2
	log "done: $Q_RAW/section.md"
}

quic_main "$@"
