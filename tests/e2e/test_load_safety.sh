#!/usr/bin/env bash
# What a load must never do, end to end: empty the live list from an empty or
# failed input, take a read error or an endless line for the end of a list,
# leave 'status' describing another list than the one enforced when killed at
# any BPF syscall, hold the writers' lock while it waits for its input, or say
# "loaded" when nothing enforces the list. Also the one-line errors of bad
# options. Speaks TAP; needs root; about 20 s.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

e2e_need "load safety tests"

# A second interface of ours, deleted while attached (see the last tests).
IF_GONE=bxe${E2E_ID}g
IF_GONE_PEER=bxe${E2E_ID}h
# An interface name Linux allows and JSON must escape: a quote and a backslash.
IF_QUOTE="bx\"${E2E_ID}\\q"
safety_cleanup() {
	[ -d "$PIN_ROOT/$IF_GONE" ] && timeout 30 "$BLOOMXDP" detach "$IF_GONE" >/dev/null 2>&1
	[ -d "$PIN_ROOT/$IF_QUOTE" ] && timeout 30 nsenter --net="/run/netns/$NS_SRV" -- \
		"$BLOOMXDP" detach "$IF_QUOTE" >/dev/null 2>&1
	e2e_cleanup
}
e2e_install_trap
trap safety_cleanup EXIT

C4_A=192.0.2.40		# only in list A
C4_B=192.0.2.41		# only in list B
if ! topo_up "$C4_A" "$C4_B"; then
	not_ok "build the test topology (namespaces $NS_CLI, $NS_SRV)"
	tap_finish
	exit 1
fi
check "attach $IF_SRV" bx attach "$IF_SRV" --capacity 10000 --fpr 0.0001 || {
	tap_finish
	exit 1
}

LIST_A=$E2E_TMP/a.txt
LIST_B=$E2E_TMP/b.txt
printf '%s\n198.51.100.1\n198.51.100.2\n' "$C4_A" >"$LIST_A"		# 3 entries
printf '%s\n203.0.113.1\n203.0.113.2\n203.0.113.3\n203.0.113.4\n' "$C4_B" >"$LIST_B"	# 5
check "load list A" bx load "$IF_SRV" "$LIST_A"

# A listed address of A still blocked: the live list is A, unchanged.
a_still_live() {
	local out
	out=$(bxq "$IF_SRV" "$C4_A" "$C4_B" 2>&1)
	[ "$out" = "$C4_A: blocked
$C4_B: not blocked" ]
}

# ------------------------------------------------------------ empty inputs
: >"$E2E_TMP/empty.txt"
check_fails "an empty file is refused" 1 "no entry in .*empty.txt.*--allow-empty" \
	bx load "$IF_SRV" "$E2E_TMP/empty.txt"
check "... and list A is still enforced" a_still_live
check_fails "empty standard input is refused" 1 "no entry in the standard input" \
	bx load "$IF_SRV" - </dev/null
yes '' | head -n 200000 >"$E2E_TMP/blank.txt"
printf '# only comments\n   \n' >>"$E2E_TMP/blank.txt"
check_fails "200,000 blank lines and comments are refused" 1 "no entry" \
	bx load "$IF_SRV" "$E2E_TMP/blank.txt"
check_fails "an empty allowlist is refused too" 1 "no entry.*the allowlist of .* is unchanged" \
	bx load "$IF_SRV" --allow "$E2E_TMP/empty.txt"
check "list A is still enforced" a_still_live
check "--allow-empty empties the list on purpose" \
	bx load "$IF_SRV" --allow-empty "$E2E_TMP/empty.txt"
check_eq "... and then nothing is blocked" "$C4_A: not blocked" "$(bxq "$IF_SRV" "$C4_A")"
check_fails "--allow-empty goes with load only" 2 "goes with 'bloomxdp load'" \
	bx add "$IF_SRV" --allow-empty "$C4_A"
check "load list A again" bx load "$IF_SRV" "$LIST_A"

# add --format: entries read as a list line of that format.
check "add --format adblock '||ads.example^'" bx add "$IF_SRV" --format adblock '||ads.example^'
check_eq "... blocks ads.example and names under it" "x.ads.example: blocked" \
	"$(bxq "$IF_SRV" x.ads.example)"
check_fails "add --format addr refuses a domain, and adds nothing" 1 \
	"evil.example: .*nothing was added" bx add "$IF_SRV" --format addr evil.example
check "load list A again" bx load "$IF_SRV" "$LIST_A"

# Without --verify, the list as last applied (the state) names the listed prefix.
printf '%s\n203.0.113.0/24\n' "$C4_A" >"$E2E_TMP/prefix.txt"
check "load a list with 203.0.113.0/24 (in the Bloom filter)" \
	bx load "$IF_SRV" --store bloom "$E2E_TMP/prefix.txt"
check_eq "query of an address under it names the listed prefix, from the state" \
	"203.0.113.77: blocked (listed: 203.0.113.0/24)" \
	"$(bx query "$IF_SRV" 203.0.113.77)"
check "load list A again" bx load "$IF_SRV" "$LIST_A"

# ------------------------------------------------------------ bad reads
check_fails "/dev/zero is refused at its first line" 1 "/dev/zero:1: .*unchanged" \
	bx load "$IF_SRV" /dev/zero
# 100 MB without a newline between two entries, under a 256 MB address-space
# limit: refused at that line, in bounded memory.
{
	echo 198.51.100.50
	head -c 100000000 /dev/zero | tr '\0' a
	printf '\n198.51.100.51\n'
} >"$E2E_TMP/longline.txt"
check_fails "a 100 MB line is an error at line 2, in 256 MB of address space" 1 \
	"longline.txt:2: line longer than 8192 bytes.*unchanged" \
	timeout 30 nsenter --net="/run/netns/$NS_SRV" -- prlimit --as=268435456 -- \
	"$BLOOMXDP" load "$IF_SRV" "$E2E_TMP/longline.txt"
check_eq "... and the entry before it was not loaded" "198.51.100.50: not blocked" \
	"$(bxq "$IF_SRV" 198.51.100.50)"
check_fails "a directory fails as a read error, not as an empty list" 1 \
	"read failed after line 0: Is a directory" bx load "$IF_SRV" "$E2E_TMP"
check "list A is still enforced after the bad reads" a_still_live

# ------------------------------------------------------------ kills
# strace kills load at its Nth bpf() syscall, for every N a load makes: after
# each kill, what status reports (entries, generation) must describe the list
# that query finds enforced.
NCALLS=$(nsenter --net="/run/netns/$NS_SRV" -- strace -f -qq -c -e trace=bpf \
	"$BLOOMXDP" load "$IF_SRV" "$LIST_A" 2>&1 >/dev/null | awk '$NF == "bpf" {print $4}')
if [ -z "$NCALLS" ] || [ "$NCALLS" -lt 5 ]; then
	not_ok "count the bpf() calls of a load" "got '$NCALLS'"
	NCALLS=0
fi
bad_kills=()
gens=()
for ((n = 1; n <= NCALLS + 1; n++)); do
	bx load "$IF_SRV" "$LIST_A" >/dev/null 2>&1 || { bad_kills+=("$n: reload A failed"); continue; }
	before=$(json_num "$(status_json)" generation)
	# In a subshell whose stderr is closed: bash reports the kill there.
	(timeout 30 nsenter --net="/run/netns/$NS_SRV" -- strace -f -qq -o /dev/null -e trace=bpf \
		-e inject=bpf:signal=SIGKILL:when="$n" "$BLOOMXDP" load "$IF_SRV" "$LIST_B"; true) \
		>/dev/null 2>&1
	st=$(status_json)
	entries=$(json_num "$st" entries)
	gen=$(json_num "$st" generation)
	case $(bxq "$IF_SRV" "$C4_B" 2>&1) in
	# Exact intervals (load --store auto) also say what matched: "blocked (listed ...)".
	"$C4_B: blocked"*) want_entries=5 want_gen=$((before + 1)) ;;
	"$C4_B: not blocked") want_entries=3 want_gen=$before ;;
	*) bad_kills+=("$n: query failed"); continue ;;
	esac
	if [ "$entries" != "$want_entries" ] || [ "$gen" != "$want_gen" ]; then
		bad_kills+=("kill at bpf call $n: status says $entries entries, generation $gen; enforced: $want_entries, $want_gen")
	fi
	gens+=("$want_gen")
done
if [ "$NCALLS" -gt 0 ] && [ "${#bad_kills[@]}" -eq 0 ]; then
	ok "killed at each of the $NCALLS bpf() calls of a load, status describes the enforced list"
else
	not_ok "status describes the enforced list after a kill at any bpf() call" "${bad_kills[@]}"
fi
check "a load after the kills works" bx load "$IF_SRV" "$LIST_A"
check "... and list A is enforced" a_still_live

# ------------------------------------------------------------ slow input
# A load waiting for its input holds no lock: add goes through meanwhile.
FIFO=$E2E_TMP/feed.fifo
mkfifo "$FIFO"
bg_start timeout 20 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" load "$IF_SRV" "$FIFO" \
	>"$E2E_TMP/fifo.out" 2>&1
LOAD_PID=$BG_PID
sleep 0.3
check "add completes while a load waits on a FIFO" timeout 5 \
	nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" add "$IF_SRV" 198.51.100.60
printf '%s\n' "$C4_B" >"$FIFO"
wait_pid "$LOAD_PID" 10
bg_forget "$LOAD_PID"
check_eq "... and the load then completes with the FIFO's list" \
	"$C4_B: blocked" "$(bxq "$IF_SRV" "$C4_B")" "$(cat "$E2E_TMP/fifo.out")"
check "load list A again" bx load "$IF_SRV" "$LIST_A"

# ------------------------------------------------------------ not enforced
# The link pin removed by hand: the list is written, but say that nothing enforces it.
mv "$PIN_DIR/link" "$E2E_TMP/" 2>/dev/null || rm -f "$PIN_DIR/link"
check_fails "load without the link pin fails: nothing enforces it" 1 \
	"nothing enforces it.*link pin" bx load "$IF_SRV" "$LIST_A"
check_fails "add without the link pin fails too" 1 "nothing enforces it" \
	bx add "$IF_SRV" 198.51.100.61
check "detach without the link pin" bx detach "$IF_SRV"

if ip -n "$NS_SRV" link add "$IF_GONE" type veth peer name "$IF_GONE_PEER" &&
	ip -n "$NS_SRV" link set "$IF_GONE" up && ip -n "$NS_SRV" link set "$IF_GONE_PEER" up; then
	check "attach $IF_GONE" bx attach "$IF_GONE" --mode generic
	ip -n "$NS_SRV" link del "$IF_GONE"
	check_fails "load after the interface was deleted fails: nothing enforces it" 1 \
		"nothing enforces it: the interface is gone" bx load "$IF_GONE" "$LIST_A"
	check_fails "add after the interface was deleted fails too" 1 "interface is gone" \
		bx add "$IF_GONE" 198.51.100.62
	check "detach $IF_GONE after its interface is gone" bx detach "$IF_GONE"
else
	not_ok "create $IF_GONE in $NS_SRV"
fi

# ------------------------------------------------------------ JSON
# Every --json output parses, for an interface named bx"<id>\q.
json_ok() { python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin if l.strip()]'; }
# Its peer is in the client's namespace, with 198.51.100.1 (listed in A) to send from.
Q_PEER=${IF_GONE_PEER}q
if ip -n "$NS_SRV" link add "$IF_QUOTE" type veth peer name "$Q_PEER" netns "$NS_CLI" &&
	ip -n "$NS_SRV" addr add 198.51.100.254/24 dev "$IF_QUOTE" &&
	ip -n "$NS_CLI" addr add 198.51.100.1/24 dev "$Q_PEER" &&
	ip -n "$NS_SRV" link set "$IF_QUOTE" up && ip -n "$NS_CLI" link set "$Q_PEER" up
then
	check "attach an interface named $IF_QUOTE" bx attach "$IF_QUOTE" --mode generic
	check "load into it" bx load "$IF_QUOTE" "$LIST_A"
	out=$(bx status "$IF_QUOTE" --json)
	check "status --json parses" json_ok <<<"$out"
	check_eq "... and gives the name back" "$IF_QUOTE" \
		"$(python3 -c 'import json, sys; print(json.load(sys.stdin)["ifname"])' <<<"$out")"
	check "stats --json parses" json_ok < <(bx stats "$IF_QUOTE" --json)
	check "stats --json --interval parses" json_ok \
		< <(bx stats "$IF_QUOTE" --json --interval 0.1 --count 2)
	check "plan --json parses" json_ok < <(bx plan --json --list "$LIST_A")
	bg_start timeout 10 nsenter --net="/run/netns/$NS_SRV" -- "$BLOOMXDP" watch "$IF_QUOTE" \
		--json --count 1 >"$E2E_TMP/watch.json" 2>&1
	WATCH_PID=$BG_PID
	sleep 0.5
	in_cli ping -c 3 -i 0.2 -W 1 -I 198.51.100.1 198.51.100.254 >/dev/null 2>&1
	wait_pid "$WATCH_PID" 10
	bg_forget "$WATCH_PID"
	check "watch --json parses" json_ok <"$E2E_TMP/watch.json"
	check_eq "... and names the interface and the dropped source" "$IF_QUOTE 198.51.100.1" \
		"$(python3 -c 'import json, sys; e = json.load(sys.stdin); print(e["ifname"], e["src"])' \
		<"$E2E_TMP/watch.json" 2>&1)"
	check "detach $IF_QUOTE" bx detach "$IF_QUOTE"
	ip -n "$NS_SRV" link del "$IF_QUOTE" 2>/dev/null
else
	not_ok "create an interface named $IF_QUOTE in $NS_SRV"
fi

# ------------------------------------------------------------ one-line errors
one_line_error() {
	local want_rc=$1 out rc
	shift
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = "$want_rc" ] && [ -n "$out" ] && [ "$(wc -l <<<"$out")" = 1 ] ||
		{ echo "exit $rc, stderr: $out"; return 1; }
}
check "an unknown option: one line, exit 2" one_line_error 2 "$BLOOMXDP" load x --bogus f
check "an option without its value: one line" one_line_error 2 "$BLOOMXDP" load x --format
check "an unknown short option: one line" one_line_error 2 "$BLOOMXDP" status -z x
check "--events-per-sec 1e7: one line, not empty" one_line_error 2 \
	"$BLOOMXDP" attach x --events-per-sec 1e7
check "--prefix-probes 0: one line" one_line_error 2 "$BLOOMXDP" load x --prefix-probes 0 f
check "a bad add entry: one line that says nothing was added" one_line_error 1 \
	"$BLOOMXDP" add x not..valid
check_fails "... which says nothing was added" 1 "not..valid: .*; nothing was added" \
	"$BLOOMXDP" add x not..valid
if command -v setpriv >/dev/null; then
	check "plan --verify without privileges: one line" one_line_error 1 \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$BLOOMXDP" plan --verify \
		--list "$E2E_ROOT/lists/sample.txt"
fi
check_fails "watch --timeout inf is refused" 2 "--timeout inf: expected seconds" \
	"$BLOOMXDP" watch x --timeout inf
check_fails "watch --timeout nan is refused" 2 "--timeout nan" "$BLOOMXDP" watch x --timeout nan
check_fails "plan at 1e14 entries and FPR 0.99999 answers at once" 1 "more than 512 MiB" \
	timeout 10 "$BLOOMXDP" plan --capacity 1e14 --fpr 0.99999

tap_finish
