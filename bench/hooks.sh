#!/usr/bin/env bash
# Part of make bench (bench/run.sh calls it; it also runs alone, as root): the
# program time of each hook bloomxdp attaches at, written as a section of
# markdown that bench/report.py puts in bench/results.md.
#
# One list of BENCH_HOOKS_ENTRIES IPv4 hosts (1,000,000; build/bench/mklists),
# loaded into one attachment per hook configuration, each on a veth pair of
# its own:
#   xdp      attach (ingress at XDP, the default)
#   tc       attach --hook tc (ingress at tc: tcx)
#   egress   attach --direction egress --cgroup none (tc egress: tcx)
# Traffic: 60-byte IPv4/UDP frames from build/bench/tx, the same sender for
# every hook, pinned to one CPU, sendmmsg of 64: for ingress sent from the
# peer's namespace (each frame's source the next address of the traffic file),
# for egress out of the attached interface itself, through dev_queue_xmit and
# so through tc egress (each frame's destination the next address: the remote
# host, as --match src means it on egress). Mixes: all listed and none listed.
# The sender is a raw IPv4 socket (IP_HDRINCL, routed by the stack) by
# default; BENCH_HOOKS_SEND=packet takes AF_PACKET (no PACKET_QDISC_BYPASS),
# where every frame tc egress drops fails its send with ENOBUFS and ends the
# sendmmsg: egress all listed then runs one frame a system call, and the
# program's time per packet more than doubles from the cold caches alone (a
# raw IPv4 socket without IP_RECVERR does not report these drops).
# Measured: the program's own time, from the kernel's bpf_stats
# (kernel.bpf_stats_enabled=1 for the run, put back as it was on exit):
# delta run_time_ns / delta run_cnt of the program the attachment runs
# (status --json prog_id), over BENCH_HOOKS_WINDOW seconds, medians of
# BENCH_HOOKS_ROUNDS rounds (the hooks alternate within a round), and the
# per-round ratios egress / ingress and tc / XDP. The receiving path around
# the program (veth, skb allocation, the stack) is not in these figures. Also
# (rows of their own): the ingress hooks under bench/gen's live frames (tc
# ingress with an XDP program that passes all while they come: a veth takes
# XDP frames only with NAPI on), and every program hot (BPF_PROG_TEST_RUN of
# one frame, build/bench/tx run). bench/hooks.md has runs and their reading.
#
# Environment: BENCH_QUICK (100k entries, 1 s windows), BENCH_HOOKS_ENTRIES
# (1000000), BENCH_HOOKS_ROUNDS (3), BENCH_HOOKS_WINDOW (seconds a slot, 3),
# BENCH_HOOKS_TRAFFIC (frames in each traffic file, 1048576), BENCH_HOOKS_BATCH
# (frames a sendmmsg, 64), BENCH_HOOKS_SEND (ip or packet), BENCH_HOOKS_LIVE (1:
# the ingress hooks also under live frames, the default; 0: not),
# BENCH_HOOKS_ONLY (a subset, e.g. "xdp egress"), BENCH_HOOKS_ATTACH (more
# options of every attach, e.g. "--verify off"), BENCH_GEN_CPU (the sender's
# CPU, 0), BENCH_HOOKS_RAW (raw data and section.md; default build/bench/hooks).
#
# Network safety: run.sh's functions are used. Each veth pair is born in two
# namespaces of this run (bxb-ID-aN, bxb-ID-pN; nothing in the root namespace),
# the senders send only on those ends, to addresses of 240.0.0.0/4 (reserved)
# and 198.19.0.0/16 (a blackhole route); each peer's XDP program drops what
# reaches it (bench/rx bare: every frame's IPv4 ID is 1). The EXIT trap
# detaches, deletes the namespaces (and so the veths and the programs on them)
# and puts kernel.bpf_stats_enabled back.
set -u
# shellcheck source=bench/run.sh
. "$(dirname "${BASH_SOURCE[0]}")/run.sh"

H_RAW=${BENCH_HOOKS_RAW:-$B/bench/hooks}
if [ "$QUICK" = 1 ]; then
	H_N=${BENCH_HOOKS_ENTRIES:-100000}
	H_WINDOW=${BENCH_HOOKS_WINDOW:-1}
else
	H_N=${BENCH_HOOKS_ENTRIES:-1000000}
	H_WINDOW=${BENCH_HOOKS_WINDOW:-3}
fi
H_ROUNDS=${BENCH_HOOKS_ROUNDS:-3}
H_TRAFFIC=${BENCH_HOOKS_TRAFFIC:-1048576}
H_BATCH=${BENCH_HOOKS_BATCH:-64}
H_MIXES=(all none)
# Configurations: NAME, the direction of its traffic, attach's options.
H_CONFIGS=("xdp ingress --mode native" "tc ingress --hook tc"
	"egress egress --direction egress --cgroup none")
H_SEND=${BENCH_HOOKS_SEND:-ip}
H_LIVE=${BENCH_HOOKS_LIVE:-1}
SLOTS=()
FLOOR_SEEN=()	# the floors of the run (teardown empties FLOORS)
H_ADDR_A=198.18.0.1	# the attached end: egress frames' source
H_ADDR_P=198.18.0.2	# its peer; ingress frames go to $DST (198.19.0.1), a blackhole
declare -A HDIR HPROG HXDP PNS PIF PMAC

# hook_up I NAME: namespaces bxb-ID-aI (bloomxdp's end, aI) and bxb-ID-pI
# (the peer's end, pI) joined by a veth pair, addressed and routed so that a
# raw IPv4 socket reaches either side: the attached end 198.18.0.1 (the
# receivers' blackhole route for 198.19.0.0/16; 240.0.0.0/4, where the list
# lies, through the peer), the peer 198.18.0.2 (198.19.0.0/16 through the
# attached end); neighbours permanent (no ARP during a run). The peer's XDP
# drops what reaches it (bench/rx bare: every frame's IPv4 ID is 1).
hook_up() {
	local i=$1 name=$2 a=bxb-$ID-a$1 p=bxb-$ID-p$1
	RNS[$name]=$a
	PNS[$name]=$p
	RIF[$name]=bxb${ID}a$i
	PIF[$name]=bxb${ID}p$i
	KIND[$name]=bloom
	make_ns "$a" && make_ns "$p" || return 1
	ip -n "$p" link add "${PIF[$name]}" type veth peer name "${RIF[$name]}" netns "$a" ||
		return 1
	ip -n "$a" link set "${RIF[$name]}" up && ip -n "$p" link set "${PIF[$name]}" up || return 1
	RMAC[$name]=$(ip -n "$a" -br link show dev "${RIF[$name]}" | awk '{print $3}')
	PMAC[$name]=$(ip -n "$p" -br link show dev "${PIF[$name]}" | awk '{print $3}')
	ip -n "$a" addr add "$H_ADDR_A/24" dev "${RIF[$name]}" &&
		ip -n "$a" route add blackhole 198.19.0.0/16 &&
		ip -n "$a" neigh add "$H_ADDR_P" lladdr "${PMAC[$name]}" dev "${RIF[$name]}" \
			nud permanent &&
		ip -n "$a" route add 240.0.0.0/4 via "$H_ADDR_P" dev "${RIF[$name]}" || return 1
	ip -n "$p" addr add "$H_ADDR_P/24" dev "${PIF[$name]}" &&
		ip -n "$p" neigh add "$H_ADDR_A" lladdr "${RMAC[$name]}" dev "${PIF[$name]}" \
			nud permanent &&
		ip -n "$p" route add 198.19.0.0/16 via "$H_ADDR_A" dev "${PIF[$name]}" || return 1
	in_ns "$p" "$B/bench/rx" attach bare "${PIF[$name]}" >/dev/null
}

# setup_hook I NAME DIRECTION ATTACH_OPTIONS...: veth pair I, bloomxdp attached
# with the options and loaded with the list.
setup_hook() {
	local i=$1 name=$2 dir=$3 ns r out
	shift 3
	hook_up "$i" "$name" || return 1
	ns=${RNS[$name]}
	r=${RIF[$name]}
	HDIR[$name]=$dir
	# shellcheck disable=SC2086
	out=$(timeout 120 nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" attach "$r" \
		--capacity "$H_N" --fpr "$FPR" --match src "$@" ${BENCH_HOOKS_ATTACH:-} 2>&1) || {
		log "bloomxdp attach $r $*: $out"
		return 1
	}
	ATTACHED+=("$r")
	out=$(timeout 600 nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" load "$r" \
		"$WORK/$H_N/list.txt" 2>&1) || { log "load: $out"; return 1; }
	out=$(nsenter --net="/run/netns/$ns" -- "$BLOOMXDP" status "$r" --json) || return 1
	printf '%s\n' "$out" >"$H_RAW/status-$name.json"
	HPROG[$name]=$(sed -n 's/^{[^{]*"prog_id":\([0-9]*\).*/\1/p' <<<"$out")
	[ -n "${HPROG[$name]}" ] || { log "$name: no prog_id in status --json"; return 1; }
	HXDP[$name]=0
	grep -q '"hook":"xdp"' <<<"$out" && HXDP[$name]=1
	return 0
}

# pass_xdp NAME on|off: on tc ingress, an XDP program that passes everything
# (bench/rx pass) while live frames come: a veth takes the generator's XDP
# frames only with NAPI on, which an XDP program turns on. Off for the sender,
# which reaches tc ingress without it.
pass_xdp() {
	[ "${HDIR[$1]}" = ingress ] && [ "${HXDP[$1]}" = 0 ] || return 0
	if [ "$2" = on ]; then
		in_ns "${RNS[$1]}" "$B/bench/rx" attach pass "${RIF[$1]}" >/dev/null
	else
		ip -n "${RNS[$1]}" link set dev "${RIF[$1]}" xdp off
	fi
}

# bloom_counters NAME: "PACKETS DROPPED" of the attachment (its one direction).
bloom_counters() {
	local out p d
	out=$(nsenter --net="/run/netns/${RNS[$1]}" -- "$BLOOMXDP" stats "${RIF[$1]}" --json)
	p=$(sed -n 's/^{[^{]*"packets":\([0-9]*\).*/\1/p' <<<"$out")
	d=$(sed -n 's/^{[^{]*"dropped":\([0-9]*\).*/\1/p' <<<"$out")
	echo "${p:-0} ${d:-0}"
}

# send NAME MIX SECONDS: the sender's line ("sent S refused R seconds T mpps M"):
# egress frames out of the attached end (to the next address of the traffic),
# ingress frames out of the peer's (from it); NAME-live: ingress frames from the
# live-frames generator (bench/gen), its Mpps.
send() {
	local name=$1 traffic=$WORK/$H_N/traffic-$2.bin
	case $name in
	*-live)
		name=${name%-live}
		pass_xdp "$name" on || return 1
		timeout 90 nsenter --net="/run/netns/${PNS[$name]}" -- "$B/bench/gen" --dst "$DST" \
			--cpu "$GEN_CPU" --batch "$H_BATCH" --warmup 0.2 --window "$3" \
			--mix "$2=$traffic" --target "$name=${PIF[$name]}=${RMAC[$name]}" |
			awk 'NF == 6 { print "sent 0 refused 0 seconds 0 mpps", $4 }'
		[ "${PIPESTATUS[0]}" = 0 ] && pass_xdp "$name" off
		return
		;;
	esac
	if [ "${HDIR[$name]}" = egress ]; then
		timeout 90 nsenter --net="/run/netns/${RNS[$name]}" -- taskset -c "$GEN_CPU" \
			"$B/bench/tx" send "$H_SEND" "${RIF[$name]}" "${PMAC[$name]}" "$traffic" dst \
			"$H_ADDR_A" "$3" "$H_BATCH"
	else
		timeout 90 nsenter --net="/run/netns/${PNS[$name]}" -- taskset -c "$GEN_CPU" \
			"$B/bench/tx" send "$H_SEND" "${PIF[$name]}" "${RMAC[$name]}" "$traffic" src \
			"$DST" "$3" "$H_BATCH"
	fi
}

# slot ROUND NAME MIX SECONDS: one measurement, appended to hooks.tsv:
# ROUND MIX NAME NS_PER_PACKET RUN_CNT PACKETS DROPPED SENDER_MPPS VERIFIED_INSNS
# (and, but for the verdicts' round, to progtime.tsv: run.sh's pt_record).
slot() {
	local round=$1 name=$2 mix=$3 base=${2%-live} s0 s1 c0 c1 out d
	s0=$(prog_time "${HPROG[$base]}") || return 1
	c0=$(bloom_counters "$base")
	out=$(send "$name" "$mix" "$4") || { log "sender failed ($name, $mix): $out"; return 1; }
	s1=$(prog_time "${HPROG[$base]}") || return 1
	c1=$(bloom_counters "$base")
	d=$(pt_delta "$s0" "$s1")
	awk -v r="$round" -v m="$mix" -v n="$name" -v d="$d" -v x="$c0" -v y="$c1" \
		-v o="$out" 'BEGIN {
		split(d, t, " "); split(x, c, " "); split(y, e, " "); split(o, f, " ")
		printf "%s\t%s\t%s\t%.1f\t%.0f\t%.0f\t%.0f\t%s\t%s\n", r, m, n, t[1], t[2],
			e[1] - c[1], e[2] - c[2], f[8], t[3]
	}' >>"$H_RAW/hooks.tsv"
	[ "$round" = verify ] || pt_record "$H_N" "$round" "$mix" "$name" "$d" "$c0" "$c1" \
		"$(awk '{ print $8 }' <<<"$out")"
}

# hot NAME: BPF_PROG_TEST_RUN of the attachment's program on one frame, listed
# and not (each 3 times, 1M runs): the program hot, without the sender and the
# path around it; appends "hot MIX NAME NS" lines to hooks.tsv.
hot() {
	local name=$1 m a src dst k ns
	for m in all none; do
		if [ "$m" = all ]; then
			a=$(head -n 1 "$WORK/$H_N/list.txt")
		else
			a=$(od -An -tu1 -N4 "$WORK/$H_N/traffic-none.bin" | awk '{ print $1 "." $2 "." $3 "." $4 }')
		fi
		src=$a
		dst=$DST
		if [ "${HDIR[$name]}" = egress ]; then
			src=$H_ADDR_A
			dst=$a
		fi
		for k in 1 2 3; do
			ns=$("$B/bench/tx" run "${HPROG[$name]}" "$src" "$dst" 1000000 | awk '{ print $2 }')
			[ -n "$ns" ] || return 1
			printf 'hot\t%s\t%s\t%s\n' "$m" "$name" "$ns" >>"$H_RAW/hooks.tsv"
		done
	done
}

# The section: medians of ns per packet, the per-round ratios, the verdicts.
hooks_section() {
	awk -F'\t' -v n="$H_N" -v rounds="$H_ROUNDS" -v window="$H_WINDOW" \
		-v kernel="$(uname -r)" -v send="$H_SEND" -v batch="$H_BATCH" '
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
	function range(key,    i, lo, hi) {
		lo = hi = v[key, 1]
		for (i = 2; i <= cnt[key]; i++) {
			if (v[key, i] < lo) lo = v[key, i]
			if (v[key, i] > hi) hi = v[key, i]
		}
		return sprintf("%.1f-%.1f", lo, hi)
	}
	function add(key, x) { v[key, ++cnt[key]] = x }
	function ratio(a, b, m, name,    r) {
		for (r in rounds_seen)
			if (at[r, m, b] > 0 && at[r, m, a] > 0)
				add(name SUBSEP m, at[r, m, a] / at[r, m, b])
	}
	$1 == "verify" { ver[$3, $2] = ($6 > 0 ? 100 * $7 / $6 : -1); next }
	$1 == "hot" { add("hot" SUBSEP $3 SUBSEP $2, $4); next }
	{
		at[$1, $2, $3] = $4; rounds_seen[$1] = 1
		add($3 SUBSEP $2, $4); add("mpps" SUBSEP $3 SUBSEP $2, $8); insns[$3] = $9
	}
	END {
		for (k = 1; k <= 2; k++) {
			m = k == 1 ? "all" : "none"
			ratio("tc", "xdp", m, "tc/xdp")
			ratio("egress", "tc", m, "egress/tc")
			ratio("egress", "xdp", m, "egress/xdp")
			ratio("tc-live", "xdp-live", m, "tc/xdp, live frames")
		}
		how = "AF_PACKET, no PACKET_QDISC_BYPASS"
		if (send == "ip")
			how = "a raw IPv4 socket, routed by the stack"
		printf "## Hooks: XDP, tc ingress and tc egress\n\n"
		printf "%d IPv4 hosts (`--match src`, the default layout and exact stage), one " \
		       "attachment per hook on a veth pair of its own: `attach` (XDP ingress), " \
		       "`attach --hook tc` (tcx ingress), `attach --direction egress --cgroup none` " \
		       "(tcx egress). The same sender for all (build/bench/tx %s: %s, sendmmsg of " \
		       "%d 60-byte IPv4/UDP frames, one CPU): from the peer for ingress (each " \
		       "frame'\''s source the next address of the traffic, listed or not), out of " \
		       "the attached interface for egress (its destination). The program'\''s own " \
		       "time per packet from bpf_stats (delta run_time_ns / delta run_cnt of the " \
		       "attachment'\''s program, kernel.bpf_stats_enabled=1), medians of %d rounds " \
		       "of %s s (hooks alternating; min-max beside), kernel %s. Hot: the same " \
		       "program by BPF_PROG_TEST_RUN on one frame, 1M runs (medians of 3): its " \
		       "instructions with warm caches, without the path around it. Live frames: " \
		       "the ingress hooks under bench/gen'\''s frames (BPF_F_TEST_XDP_LIVE_FRAMES " \
		       "into the peer, as the throughput runs and issue 27'\''s program times; tc " \
		       "ingress beside an XDP program that passes all while they come, which a " \
		       "veth needs to take them).\n\n", n, send,
		       how, batch, rounds, window, kernel
		printf "| hook | all listed, ns/packet | none listed, ns/packet | hot: all / none " \
		       "| sender Mpps (all / none) | dropped (all / none) | verified_insns |\n"
		printf "|---|---|---|---|---|---|---|\n"
		split("xdp tc egress xdp-live tc-live", hk, " ")
		split("XDP ingress|tc ingress (tcx)|tc egress (tcx)|XDP ingress, live frames" \
		      "|tc ingress (tcx), live frames", label, "|")
		for (i = 1; i <= 5; i++) {
			h = hk[i]
			if (!cnt[h SUBSEP "all"])
				continue
			hot = "-"
			if (cnt["hot" SUBSEP h SUBSEP "all"])
				hot = sprintf("%.0f / %.0f", median("hot" SUBSEP h SUBSEP "all"),
					      median("hot" SUBSEP h SUBSEP "none"))
			printf "| %s | %.1f (%s) | %.1f (%s) | %s | %.2f / %.2f " \
			       "| %.2f%% / %.2f%% | %s |\n",
			       label[i], median(h SUBSEP "all"), range(h SUBSEP "all"),
			       median(h SUBSEP "none"), range(h SUBSEP "none"), hot,
			       median("mpps" SUBSEP h SUBSEP "all"),
			       median("mpps" SUBSEP h SUBSEP "none"),
			       ver[h, "all"], ver[h, "none"], insns[h]
		}
		printf "\n| ratio (median of per-round ratios) | all listed | none listed |\n"
		printf "|---|---|---|\n"
		split("tc/xdp|egress/tc|egress/xdp|tc/xdp, live frames", rn, "|")
		for (i = 1; i <= 4; i++)
			if (cnt[rn[i] SUBSEP "all"])
				printf "| %s | %.2f | %.2f |\n", rn[i], median(rn[i] SUBSEP "all"),
				       median(rn[i] SUBSEP "none")
		if (cnt["egress/tc" SUBSEP "all"] && cnt["egress/xdp" SUBSEP "all"]) {
			over = ""
			for (i = 2; i <= 3; i++)
				for (k = 1; k <= 2; k++) {
					m = k == 1 ? "all" : "none"
					if (median(rn[i] SUBSEP m) > 1.10)
						over = over sprintf("%s%s %s listed %.2f", over == "" ? "" : ", ",
								    rn[i], m, median(rn[i] SUBSEP m))
				}
			printf "\nEgress within ingress + 10%% (egress/tc and egress/xdp, both mixes): " \
			       "%s.\n", over == "" ? "yes" : "**no** (" over ")"
		}
	}' "$H_RAW/hooks.tsv"
	local f
	for f in "$H_RAW"/status-*.json; do
		[ -e "$f" ] || continue
		printf '\nThe exact stage (--verify auto; status --json "verify_reason"): %s.\n' \
			"$(sed -n 's/.*"verify_reason":"\([^"]*\)".*/\1/p' "$f")"
		break
	done
}

# hooks_floor I: the floor of the list's footprint (the XDP attachment's
# live filter, status_bytes) on veth pair I, fed by bench/gen from the
# generator's namespace of run.sh: every hook is set against it.
hooks_floor() {
	local name f st
	for name in "${RXS[@]}"; do
		[ -e "$H_RAW/status-$name.json" ] && st=$H_RAW/status-$name.json && break
	done
	f=floor-$(status_bytes "$st")
	[ "$f" != floor- ] || return 1
	for name in "${SLOTS[@]}"; do
		FLOOR_OF[$name]=$f
	done
	make_ns "$GNS" || return 1
	floors_up "$H_N" "$1" || return 1
	FLOOR_SEEN=("${FLOORS[@]}")
	pt_floors "$H_N" "${SLOTS[@]}"
}

hooks_main() {
	local i=0 c name r m t0 t1
	[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, XDP, tc, bpffs, sysctl)"
	for c in "$BLOOMXDP" "$B/bench/tx" "$B/bench/rx" "$B/bench/mklists"; do
		[ -x "$c" ] || die "$c is missing: run 'make bench'"
	done
	[ -r /proc/sys/kernel/bpf_stats_enabled ] || die "kernel.bpf_stats_enabled is missing"
	rm -rf -- "$H_RAW"
	mkdir -p "$H_RAW"
	WORK=$(mktemp -d "/tmp/bxb-$ID.XXXXXX") || die "mktemp"
	export BLOOMXDP_STATE_DIR=$WORK/state
	trap run_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	pt_on
	RAW=$H_RAW	# run.sh's functions write there (progtime.tsv)
	mkdir -p "$WORK/$H_N"
	"$B/bench/mklists" "$WORK/$H_N" "$H_N" "$H_TRAFFIC" 17 >/dev/null || die "mklists failed"
	for c in "${H_CONFIGS[@]}"; do
		# shellcheck disable=SC2086
		set -- $c
		name=$1
		[ -n "${BENCH_HOOKS_ONLY:-}" ] && ! grep -qw -- "$name" <<<"$BENCH_HOOKS_ONLY" && continue
		t0=$(now_ns)
		setup_hook "$i" "$@" || die "setup of $name failed"
		i=$((i + 1))
		RXS+=("$name")
		t1=$(now_ns)
		log "hooks: $name ready in $(((t1 - t0) / 1000000)) ms (prog ${HPROG[$name]})"
	done
	# What is measured: every hook with the sender, the ingress ones with live frames too.
	SLOTS=("${RXS[@]}")
	if [ "$H_LIVE" = 1 ]; then
		for name in "${RXS[@]}"; do
			[ "${HDIR[$name]}" = ingress ] && SLOTS+=("$name-live")
		done
	fi
	if [ "$PROGTIME" = 1 ]; then
		hooks_floor "$i" || die "cannot set up the floor"
	fi
	# Warm-up and verdicts: each hook and mix for a second, its own counters.
	for name in "${SLOTS[@]}"; do
		for m in "${H_MIXES[@]}"; do
			slot verify "$name" "$m" 1 || die "$name, $m failed"
		done
	done
	awk -F'\t' '$1 == "verify" { printf "  %-11s %-5s dropped %6.2f%% of %.0f frames\n",
		$3, $2, ($6 > 0 ? 100 * $7 / $6 : -1), $6 }' "$H_RAW/hooks.tsv" >&2
	log "hooks: $H_ROUNDS rounds of ${#H_MIXES[@]} mixes x ${#SLOTS[@]} hooks, $H_WINDOW s each"
	for ((r = 1; r <= H_ROUNDS; r++)); do
		for m in "${H_MIXES[@]}"; do
			for name in "${SLOTS[@]}"; do
				slot "$r" "$name" "$m" "$H_WINDOW" || die "$name, $m failed"
				tail -n 1 "$H_RAW/hooks.tsv" | awk -F'\t' '{ printf \
					"  round %s %-5s %-11s %6.1f ns/packet over %.0f runs, %s Mpps\n",
					$1, $2, $3, $4, $5, $8 }' >&2
			done
			for name in "${FLOORS[@]}"; do
				pt_slot "$H_N" "$r" "$m" "$name" || die "$name, $m failed"
			done
		done
	done
	for name in "${RXS[@]}"; do
		hot "$name" || die "test run of $name failed"
	done
	teardown
	hooks_section >"$H_RAW/section.md" || die "report failed"
	if [ "${#FLOOR_SEEN[@]}" -gt 0 ]; then
		{ echo; python3 "$ROOT/bench/progtime.py" "$H_RAW" \
			"Hooks: program time against the floor"; } >>"$H_RAW/section.md" ||
			die "report failed"
	fi
	cat "$H_RAW/section.md" >&2
	log "done: $H_RAW/section.md"
}

hooks_main "$@"
