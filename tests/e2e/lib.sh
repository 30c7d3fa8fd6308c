# shellcheck shell=bash
# shellcheck disable=SC2034  # variables for the scripts that source this file
# Shared helpers of the end-to-end tests (tests/e2e/test_*.sh) and of the demo
# (tests/demo.sh). Source it; it defines functions and variables only.
#
# Topology (two network namespaces, nothing in the root one):
#
#   netns $NS_CLI                         netns $NS_SRV
#   $IF_CLI  <------------ veth ---------->  $IF_SRV   <- bloomxdp attaches here
#   client addresses (listed or not)         $SRV4, $SRV6
#
# Frames the client sends enter $IF_SRV, where the XDP program sees them; the
# replies go back through $IF_CLI, which has no XDP program. bloomxdp runs with
# 'nsenter --net' (see bx): it joins the server's network namespace but keeps
# the root mount namespace, so it sees the pins in /sys/fs/bpf. ('ip netns
# exec' remounts /sys and would hide them.) The pin directory is
# /sys/fs/bpf/bloomxdp/$IF_SRV.
#
# Every name carries E2E_ID (pid and random bits), so that concurrent runs and
# anything else on the machine are never touched. e2e_cleanup, installed as an
# EXIT trap by e2e_install_trap, detaches, kills the background processes this
# script started (by saved PID) and deletes the namespaces (and so the veths).

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BLOOMXDP=${BLOOMXDP:-$E2E_ROOT/build/bloomxdp}
PROBE_OBJ=$E2E_ROOT/build/hash_probe.bpf.o
PIN_ROOT=/sys/fs/bpf/bloomxdp

# 6 hex digits: interface names stay well under IFNAMSIZ (15 characters).
E2E_ID=$(printf '%04x%02x' $(($$ & 0xffff)) $((RANDOM & 0xff)))
NS_CLI=bxe-$E2E_ID-cli
NS_SRV=bxe-$E2E_ID-srv
IF_CLI=bxe${E2E_ID}c
IF_SRV=bxe${E2E_ID}s
PIN_DIR=$PIN_ROOT/$IF_SRV

# Documentation ranges only.
SRV4=192.0.2.1
SRV6=2001:db8:b10::1
PREFIX4=24
PREFIX6=64

E2E_TMP=
E2E_PIDS=()
E2E_TOPO_UP=0

# ---------------------------------------------------------------- TAP

TAP_N=0
TAP_FAILED=0

# Diagnostics: every line prefixed with '# ' so that tests/run.sh never
# mistakes command output for a result line.
diag() {
	local line
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/# /'
	done
}

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
	e2e_abort_hook
}

# not_ok NAME [DIAGNOSTIC...]
not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
	shift
	diag "$@"
	e2e_abort_hook
}

# skip NAME REASON: a TAP skip, counted as passed by tests/run.sh.
skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

# todo NAME REASON [DIAGNOSTIC...]: a failure that a known defect explains (TAP's TODO
# directive): tests/run.sh lists it apart, and it fails neither the script nor the run.
todo() {
	TAP_N=$((TAP_N + 1))
	echo "not ok $TAP_N - $1 # TODO $2"
	shift 2
	diag "$@"
	e2e_abort_hook
}

# check NAME COMMAND...: ok if COMMAND exits 0; else not ok with its output.
check() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$name"
	else
		not_ok "$name" "command: $*" "exit status $rc" "$(printf '%s\n' "$out" | tail -n 8)"
	fi
	return "$rc"
}

# check_eq NAME EXPECTED ACTUAL [DIAGNOSTIC...]
check_eq() {
	local name=$1 want=$2 got=$3
	shift 3
	if [ "$want" = "$got" ]; then
		ok "$name"
	else
		not_ok "$name" "expected: $want" "got:      $got" "$@"
		return 1
	fi
}

# check_fails NAME WANT_RC REGEX COMMAND...: the command must exit with WANT_RC
# ('nonzero' for any failure) and print something matching REGEX (grep -E,
# case-insensitive) on stdout or stderr.
check_fails() {
	local name=$1 want=$2 regex=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if { [ "$want" = nonzero ] && [ "$rc" -ne 0 ]; } || [ "$rc" = "$want" ]; then
		if grep -qiE -- "$regex" <<<"$out"; then
			ok "$name"
			diag "$(printf '%s\n' "$out" | head -n 2)"
			return 0
		fi
		not_ok "$name" "command: $*" "output does not match /$regex/:" "$out"
		return 1
	fi
	not_ok "$name" "command: $*" "exit status $rc, expected $want" "$out"
	return 1
}

# Test hook for the cleanup test: E2E_ABORT_AFTER=N makes the script exit
# with status 3 right after its Nth result, as a failure midway would.
e2e_abort_hook() {
	if [ -n "${E2E_ABORT_AFTER:-}" ] && [ "$TAP_N" -ge "$E2E_ABORT_AFTER" ]; then
		diag "E2E_ABORT_AFTER=$E2E_ABORT_AFTER: aborting on purpose"
		exit 3
	fi
}

tap_finish() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# ---------------------------------------------------------------- running

in_cli() { nsenter --net="/run/netns/$NS_CLI" -- "$@"; }
in_srv() { nsenter --net="/run/netns/$NS_SRV" -- "$@"; }

# bloomxdp in the server's network namespace, bounded in time.
bx() { timeout 30 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" "$@"; }

# Starts COMMAND... in the background and remembers its PID for cleanup.
# The PID is left in BG_PID. Use 'timeout' in COMMAND: it ends the command and
# passes on the TERM that cleanup sends it.
bg_start() {
	"$@" &
	BG_PID=$!
	E2E_PIDS+=("$BG_PID")
}

# Waits at most SECONDS for PID to exit; returns its status (or 124).
wait_pid() {
	local pid=$1 secs=$2 i
	for ((i = 0; i < secs * 20; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null
			return $?
		fi
		sleep 0.05
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 124
}

# Ends a background process of ours, by PID.
stop_pid() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# Waits (at most 3 s) until something listens on PROTO (tcp/udp) PORT in the
# server namespace.
wait_listen() {
	local proto=$1 port=$2 flag i
	[ "$proto" = udp ] && flag=-uln || flag=-tln
	for ((i = 0; i < 60; i++)); do
		if in_srv ss -H "$flag" "sport = :$port" 2>/dev/null | grep -q .; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# ping_recv SRC DST COUNT [INTERVAL]: pings DST from the client address SRC
# and prints "TRANSMITTED RECEIVED" (from ping's summary).
ping_recv() {
	local src=$1 dst=$2 count=$3 interval=${4:-0.05} out tx rx
	out=$(timeout $((count / 20 + 10)) nsenter --net="/run/netns/$NS_CLI" -- \
		ping -n -q -c "$count" -i "$interval" -W 1 -I "$src" "$dst" 2>&1)
	tx=$(sed -n 's/^\([0-9][0-9]*\) packets transmitted.*/\1/p' <<<"$out")
	rx=$(sed -n 's/.*transmitted, \([0-9][0-9]*\) received.*/\1/p' <<<"$out")
	echo "${tx:-0} ${rx:-0}"
}

# ping_many COUNT INTERVAL SRC...: pings the server from every client address
# SRC at once (IPv6 sources ping $SRV6, IPv4 ones $SRV4) and waits for all.
# Sets PING_TX[SRC] and PING_RX[SRC] from ping's summaries. PING_PIDS holds the
# PIDs while they run, for callers that act meanwhile (ping_many_start, then
# ping_many_wait).
declare -gA PING_TX PING_RX PING_OUT
PING_PIDS=()
PING_SRCS=()
ping_many_start() {
	local count=$1 interval=$2 src dst limit i=0
	shift 2
	PING_PIDS=()
	PING_SRCS=("$@")
	# Bounded: the pings' own duration plus a margin.
	limit=$(awk -v c="$count" -v i="$interval" 'BEGIN { printf "%d", c * i * 3 + 10 }')
	for src in "$@"; do
		case $src in *:*) dst=$SRV6 ;; *) dst=$SRV4 ;; esac
		PING_OUT[$src]=$E2E_TMP/ping.$i
		bg_start timeout "$limit" nsenter --net="/run/netns/$NS_CLI" -- \
			ping -n -q -c "$count" -i "$interval" -W 2 -I "$src" "$dst" \
			>"${PING_OUT[$src]}" 2>&1
		PING_PIDS+=("$BG_PID")
		i=$((i + 1))
	done
}
ping_many_running() {
	local pid
	for pid in "${PING_PIDS[@]}"; do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}
ping_many_wait() {
	local pid src out
	for pid in "${PING_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	for src in "${PING_SRCS[@]}"; do
		out=$(cat "${PING_OUT[$src]}" 2>/dev/null)
		PING_TX[$src]=$(sed -n 's/^\([0-9][0-9]*\) packets transmitted.*/\1/p' <<<"$out")
		PING_RX[$src]=$(sed -n 's/.*transmitted, \([0-9][0-9]*\) received.*/\1/p' <<<"$out")
		: "${PING_TX[$src]:=0}" "${PING_RX[$src]:=0}"
	done
	PING_PIDS=()
}
ping_many() {
	ping_many_start "$@"
	ping_many_wait
}

# Flat JSON of 'bloomxdp stats/status --json': json_num JSON KEY, json_str JSON KEY.
json_num() { sed -n "s/.*\"$2\":\([-0-9.e+]*\).*/\1/p" <<<"$1"; }
json_str() { sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p" <<<"$1"; }

# The server side's counters and status, as the CLI prints them with --json.
stats_json() { bx stats "$IF_SRV" --json 2>&1; }
status_json() { bx status "$IF_SRV" --json 2>&1; }
# delta BEFORE_JSON AFTER_JSON COUNTER: the growth, or "?" if a value is missing
delta() {
	local b a
	b=$(json_num "$1" "$3")
	a=$(json_num "$2" "$3")
	if [ -n "$a" ] && [ -n "$b" ]; then echo $((a - b)); else echo "?"; fi
}
# deltas BEFORE AFTER COUNTER...: the deltas, space-separated
deltas() {
	local b=$1 a=$2 c vals=()
	shift 2
	for c in "$@"; do
		vals+=("$(delta "$b" "$a" "$c")")
	done
	echo "${vals[*]}"
}
# expect_query NAME "ENTRY: VERDICT" ...: query's answers on $IF_SRV, in order. What
# the exact intervals or --verify say, "(listed prefix P)" or "(listed range A-B)",
# reads " (listed)"; what the filter alone says, "(the filter matches P: ...)",
# is cut. QUERY_LISTED=0 cuts the listed part too.
QUERY_LISTED=1
expect_query() {
	local name=$1 want got w entries=() listed=' (listed)'
	shift
	want=$(printf '%s\n' "$@")
	for w in "$@"; do entries+=("${w%%: *}"); done
	[ "$QUERY_LISTED" = 1 ] || listed=
	got=$(bx query "$IF_SRV" "${entries[@]}" 2>&1 |
		sed -e "s/ (listed \(prefix\|range\) [^)]*)\$/$listed/" -e 's/ (listed: .*)$//' \
		    -e 's/ (listed in [^)]*)$//' -e 's/ (the filter matches [^)]*)$//')
	check_eq "$name" "$want" "$got"
}

# query's verdicts only: "blocked (listed: ENTRY)" and "blocked (listed in LIST)" read
# "blocked" (what covers it, or the named lists holding it, cut).
# bxq IF ENTRY...: the verdicts alone, without what query says was listed (the state's entry,
# the named list, or the prefix or range of the exact intervals).
bxq() {
	bx query "$@" 2>&1 | sed -e 's/ (listed: .*)$//' -e 's/ (listed in [^)]*)$//' \
		-e 's/ (listed \(prefix\|range\) [^)]*)$//'
}

xdp_on_if() { ip -n "$NS_SRV" -d link show dev "$IF_SRV" | grep -oE 'prog/xdp[a-z]* id [0-9]+'; }
# tcp_try SRC: an nc connection from SRC to the server on $port (then $port + 1):
# prints "rc=N data=..." (rc 0 and the token when it got through).
tcp_try() {
	local src=$1 dst out=$E2E_TMP/tcp.$port srv rc
	case $src in *:*) dst=$SRV6 ;; *) dst=$SRV4 ;; esac
	bg_start timeout 6 nsenter --net="/run/netns/$NS_SRV" -- nc -l "$dst" "$port" >"$out"
	srv=$BG_PID
	if ! wait_listen tcp "$port"; then
		echo "(no TCP listener on $port)"
		stop_pid "$srv"
		return
	fi
	printf 'token-%s\n' "$src" | timeout 5 nsenter --net="/run/netns/$NS_CLI" -- \
		nc -N -w 2 -s "$src" "$dst" "$port" >/dev/null 2>&1
	rc=$?
	wait_pid "$srv" 1 >/dev/null
	stop_pid "$srv"
	echo "rc=$rc data=$(cat "$out")"
	port=$((port + 1))
}

# ---------------------------------------------------------------- topology

# Checks what the tests need; prints the reason and returns 1 if one is missing.
# verdicts: 3 pings from each address of the array CLIENTS; "SRC:REPLIES " each.
verdicts() {
	local src out=""
	ping_many 3 0.05 "${CLIENTS[@]}"
	for src in "${CLIENTS[@]}"; do out+="$src:${PING_RX[$src]} "; done
	echo "$out"
}

# wait_log REGEX COUNT SECONDS [FILE]: until FILE (default: $ERR, a daemon's
# log) holds COUNT lines matching REGEX; 1 if it does not within SECONDS.
wait_log() {
	local i n file=${4:-$ERR}
	for ((i = 0; i < $3 * 20; i++)); do
		# No file yet: grep prints nothing, which is 0 lines.
		n=$(grep -cE -- "$1" "$file" 2>/dev/null)
		[ "${n:-0}" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# nginx_start DIR LOG_FORMAT: an nginx of the test's own in the server's
# namespace: its files in DIR (access log DIR/access.log, LOG_FORMAT the rest of
# its log_format line), the server blocks read from standard input. Its PID in
# NGINX_PID (the timeout's, as every process of the test: ended by cleanup).
nginx_start() {
	local dir=$1 format=$2
	{
		cat <<EOF
user root;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 64; }
http {
	log_format bx $format;
	access_log $dir/access.log bx;
	client_body_temp_path $dir/body;
	proxy_temp_path $dir/proxy;
	fastcgi_temp_path $dir/fastcgi;
	uwsgi_temp_path $dir/uwsgi;
	scgi_temp_path $dir/scgi;
	default_type text/plain;
EOF
		cat
		echo "}"
	} >"$dir/nginx.conf"
	# $NGINX_NS: another namespace (the egress tests serve from the client's).
	bg_start timeout 300 nsenter --net="/run/netns/${NGINX_NS:-$NS_SRV}" -- \
		nginx -p "$dir/" -e "$dir/error.log" -c "$dir/nginx.conf" -g 'daemon off;'
	NGINX_PID=$BG_PID
}

# e2e_need WHAT [TOOL...]: skips the whole test (named WHAT, exit 0) unless the
# machine can run it (e2e_requirements) and every TOOL is there.
e2e_need() {
	local what=$1 why tool
	shift
	if ! why=$(e2e_requirements); then
		skip "$what" "$why"
		tap_finish
		exit 0
	fi
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null; then
			skip "$what" "$tool is missing: run tests/install-deps.sh"
			tap_finish
			exit 0
		fi
	done
}

# e2e_private_bpffs WHAT TOOL... -- ARGS: the calling script runs again (with ARGS) in
# a mount and network namespace of its own, where a fresh bpffs is mounted at
# /sys/fs/bpf: tests that attack or remount bpffs never touch the machine's. In
# that namespace it returns; outside, it never does.
e2e_private_bpffs() {
	local what=$1 tools=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		tools+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	if [ -z "${BX_PRIVATE_NS:-}" ]; then
		e2e_need "$what" unshare "${tools[@]}"
		BX_PRIVATE_NS=1 exec unshare --mount --net --propagation private -- bash "$0" "$@"
		echo "not ok 1 - unshare --mount --net failed"
		exit 1
	fi
	# Never mount over the machine's bpffs: this must be a mount namespace of our own.
	if [ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ]; then
		not_ok "running in a private mount namespace" "refusing to touch the real /sys/fs/bpf"
		tap_finish
		exit 1
	fi
	if ! mount -t bpf bpf /sys/fs/bpf; then
		not_ok "mount a fresh bpffs at /sys/fs/bpf in the private mount namespace"
		tap_finish
		exit 1
	fi
}

e2e_requirements() {
	local tool
	if [ "$(id -u)" -ne 0 ]; then
		echo "needs root (network namespaces, XDP, bpffs)"
		return 1
	fi
	if [ ! -x "$BLOOMXDP" ]; then
		echo "$BLOOMXDP is missing: run 'make' first"
		return 1
	fi
	if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
		echo "bpffs is not mounted at /sys/fs/bpf"
		return 1
	fi
	for tool in ip nsenter ping nc ss timeout; do
		if ! command -v "$tool" >/dev/null; then
			echo "$tool is missing: run tests/install-deps.sh"
			return 1
		fi
	done
	return 0
}

# topo_up CLIENT_ADDRESS...: builds the two namespaces and the veth pair, gives
# the server $SRV4 and $SRV6 and the client every address given (IPv6 ones
# with nodad), and installs permanent neighbour entries both ways so that no
# ARP/NDP traffic is needed (and none is sent from listed addresses, which
# keeps the drop counters exact).
topo_up() {
	local a mac_cli mac_srv ns

	E2E_TMP=$(mktemp -d "/tmp/bxe-$E2E_ID.XXXXXX") || return 1
	# The state (settings, lists) of this run's attachments: gone with E2E_TMP.
	export BLOOMXDP_STATE_DIR=$E2E_TMP/state
	# Its daemons' control sockets, beside it (not /run/bloomxdp).
	export BLOOMXDP_RUN_DIR=$E2E_TMP/run
	ip netns add "$NS_CLI" || return 1
	E2E_TOPO_UP=1
	ip netns add "$NS_SRV" || return 1
	for ns in "$NS_CLI" "$NS_SRV"; do
		nsenter --net="/run/netns/$ns" -- sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.default.accept_ra=0 \
			net.ipv6.conf.default.router_solicitations=0 >/dev/null || return 1
		ip -n "$ns" link set lo up || return 1
	done
	# Both ends are born in their namespaces: no interface of ours ever
	# appears in the root namespace.
	ip -n "$NS_CLI" link add "$IF_CLI" type veth peer name "$IF_SRV" netns "$NS_SRV" \
		|| return 1
	ip -n "$NS_SRV" addr add "$SRV4/$PREFIX4" dev "$IF_SRV" || return 1
	ip -n "$NS_SRV" addr add "$SRV6/$PREFIX6" dev "$IF_SRV" nodad || return 1
	for a in "$@"; do
		case $a in
		*:*) ip -n "$NS_CLI" addr add "$a/$PREFIX6" dev "$IF_CLI" nodad || return 1 ;;
		*) ip -n "$NS_CLI" addr add "$a/$PREFIX4" dev "$IF_CLI" || return 1 ;;
		esac
	done
	ip -n "$NS_CLI" link set "$IF_CLI" up || return 1
	ip -n "$NS_SRV" link set "$IF_SRV" up || return 1

	mac_cli=$(ip -n "$NS_CLI" -br link show dev "$IF_CLI" | awk '{print $3}')
	mac_srv=$(ip -n "$NS_SRV" -br link show dev "$IF_SRV" | awk '{print $3}')
	[ -n "$mac_cli" ] && [ -n "$mac_srv" ] || return 1
	ip -n "$NS_CLI" neigh replace "$SRV4" lladdr "$mac_srv" dev "$IF_CLI" nud permanent ||
		return 1
	ip -n "$NS_CLI" neigh replace "$SRV6" lladdr "$mac_srv" dev "$IF_CLI" nud permanent ||
		return 1
	for a in "$@"; do
		ip -n "$NS_SRV" neigh replace "$a" lladdr "$mac_cli" dev "$IF_SRV" nud permanent ||
			return 1
	done
	return 0
}

# Detaches (if attached), kills our background processes, deletes our
# namespaces and temporary directory. Idempotent; safe at any point.
e2e_cleanup() {
	local pid ns
	for pid in "${E2E_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${E2E_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	E2E_PIDS=()
	# Works without the interface: it removes the pins, and the XDP link goes
	# with the last of them.
	if [ -d "$PIN_DIR" ]; then
		timeout 30 "$BLOOMXDP" detach "$IF_SRV" >/dev/null 2>&1 ||
			echo "# cleanup: 'bloomxdp detach $IF_SRV' failed" >&2
	fi
	if [ "$E2E_TOPO_UP" = 1 ]; then
		for ns in "$NS_CLI" "$NS_SRV"; do
			[ -e "/run/netns/$ns" ] && ip netns del "$ns" 2>/dev/null
		done
		E2E_TOPO_UP=0
	fi
	if [ -n "$E2E_TMP" ] && [ -d "$E2E_TMP" ]; then
		rm -rf -- "$E2E_TMP"
	fi
	E2E_TMP=
}

# Lists what is left of this run (namespaces, interfaces, pins); prints
# nothing when all is gone.
e2e_leftovers() {
	ip netns list 2>/dev/null | grep -F -- "bxe-$E2E_ID-"
	ip -o link show 2>/dev/null | grep -F -- "bxe$E2E_ID"
	[ -e "$PIN_DIR" ] && echo "pin directory $PIN_DIR"
	[ -n "$E2E_TMP" ] && [ -e "$E2E_TMP" ] && echo "temporary directory $E2E_TMP"
	return 0
}

e2e_install_trap() {
	trap e2e_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# bg_forget PID: a background process of ours has been waited for; drops it
# from the cleanup list, so that cleanup never signals a PID the kernel may
# have handed to another process since.
bg_forget() {
	local pid keep=()
	for pid in "${E2E_PIDS[@]}"; do
		[ "$pid" = "$1" ] || keep+=("$pid")
	done
	E2E_PIDS=("${keep[@]}")
}

# Batches of clients run at once (each one bounded by its own timeout):
# job_start OUTFILE COMMAND... starts one, output (stdout and stderr) to
# OUTFILE; jobs_wait waits for all of them and sets JOB_RC[OUTFILE] to each
# exit status.
declare -gA JOB_RC JOB_PID
job_start() {
	local out=$1
	shift
	bg_start "$@" >"$out" 2>&1
	JOB_PID[$out]=$BG_PID
}
jobs_wait() {
	local out
	for out in "${!JOB_PID[@]}"; do
		wait "${JOB_PID[$out]}" 2>/dev/null
		JOB_RC[$out]=$?
		bg_forget "${JOB_PID[$out]}"
	done
	JOB_PID=()
}

# wait_no_xdp NS IFNAME [SECONDS]: waits (default at most 3 s) until IFNAME in
# netns NS has no XDP program; prints the milliseconds it took, returns 1 on
# timeout. 'bloomxdp detach' returns once the pins are gone, but the kernel
# releases the XDP link later (after an RCU grace period, from a work queue
# that needs the RTNL lock): under load the program stays a little while.
wait_no_xdp() {
	local ns=$1 ifname=$2 secs=${3:-3} t0 i
	t0=$(date +%s%N)
	for ((i = 0; i < secs * 100; i++)); do
		if ! ip -n "$ns" -d link show dev "$ifname" 2>/dev/null | grep -q 'prog/xdp'; then
			echo $((($(date +%s%N) - t0) / 1000000))
			return 0
		fi
		sleep 0.01
	done
	echo $((($(date +%s%N) - t0) / 1000000))
	return 1
}

# savefile_v1 IN OUT: OUT is IN, a file of 'bloomxdp save' (format version 2), as an older
# bloomxdp wrote it: format version 1, its header's first 160 bytes (no writer), the same body,
# its size and CRC32C made right (user/lists/savefile.h).
savefile_v1() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
def crc32c(data):
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82f63b78 if crc & 1 else crc >> 1
    return crc ^ 0xffffffff
v2 = open(sys.argv[1], "rb").read()
assert v2[:8] == b"BXDPSAVE" and struct.unpack_from("<II", v2, 8) == (2, 192)
v1 = bytearray(v2[:160] + v2[192:-4])
struct.pack_into("<II", v1, 8, 1, 160)
struct.pack_into("<Q", v1, 152, len(v1) + 4)
open(sys.argv[2], "wb").write(bytes(v1) + struct.pack("<I", crc32c(v1)))
PY
}

# prom_start PROM_PORT METRICS_PORT: Debian's Prometheus in the server's namespace, on its
# loopback's PROM_PORT, scraping bloomxdp's metrics at 127.0.0.1:METRICS_PORT every second
# (job "bloomxdp"), its database and log (prom.log) in $E2E_TMP; waits until it listens.
prom_start() {
	local port=$1 target=$2
	cat >"$E2E_TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: bloomxdp
    static_configs:
      - targets: ['127.0.0.1:$target']
EOF
	bg_start timeout 120 nsenter --net="/run/netns/$NS_SRV" -- prometheus \
		--config.file="$E2E_TMP/prometheus.yml" --storage.tsdb.path="$E2E_TMP/tsdb" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn >"$E2E_TMP/prom.log" 2>&1
	wait_listen tcp "$port"
}

# promql PROM_PORT EXPR: the value of an instant query's first sample, or "".
promql() {
	in_srv curl -s -m 3 "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null
}

# crowdsec_conf FILE LAPI_URL KEY_FILE [LINE...]: a daemon configuration with
# one list ($E2E_TMP/list.txt), metrics on $METRICS_PORT and a [crowdsec]
# section pulling every second; each LINE is added to that section.
crowdsec_conf() {
	local file=$1 url=$2 key=$3
	shift 3
	{
		printf '[attach]\ncapacity = 1000\n[list file]\nsource = %s\n' "$E2E_TMP/list.txt"
		printf '[daemon]\nstate_dir = %s\nmetrics = 127.0.0.1:%s\nevents = none\n' \
			"$E2E_TMP/state" "$METRICS_PORT"
		printf '[crowdsec]\nlapi_url = %s\napi_key_file = %s\ninterval = 1s\n' "$url" "$key"
		if [ $# -gt 0 ]; then printf '%s\n' "$@"; fi
	} >"$file"
}
