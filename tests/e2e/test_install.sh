#!/usr/bin/env bash
# make install and make uninstall into a DESTDIR, and what they install:
#
#   - the binary, bloomxdp(8), the bash completion, bloomxdp@.service,
#     example.conf, the fail2ban action, the README and docs/*.md land under PREFIX
#     (default /usr/local; /usr too) and DESTDIR; the unit names the installed
#     binary; uninstall removes them all and bloomxdp's own directories, but
#     keeps an edited example.conf (and says so);
#   - --version, 'bloomxdp version', the last line of --help and the man page
#     give the version of the file VERSION; 'bloomxdp help load' is load's
#     help; no help or page says "(default ?)";
#   - the man page renders without a warning (mandoc -Tlint, groff -ww) and
#     holds every command of 'bloomxdp --help' with every option of its
#     'bloomxdp COMMAND --help' in its own section;
#   - the completion script, sourced as bash-completion would, completes a
#     command, an option, an enumerated value, a comma list, an interface and
#     a file (COMP_WORDS/COMP_CWORD set, _bloomxdp called, COMPREPLY read);
#   - systemd-analyze verify accepts the installed unit (no warning).
#
# Touches nothing outside its temporary directory; no network. Speaks TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

TMP=$(mktemp -d "/tmp/bxi-$E2E_ID.XXXXXX") || exit 1
trap 'rm -rf -- "$TMP"' EXIT
DEST=$TMP/dest

# ---------------------------------------------------------------- install

FILES=(usr/local/sbin/bloomxdp usr/local/share/man/man8/bloomxdp.8
       usr/local/share/bash-completion/completions/bloomxdp
       usr/local/lib/systemd/system/bloomxdp@.service etc/bloomxdp/example.conf
       etc/fail2ban/action.d/bloomxdp.conf usr/local/share/doc/bloomxdp/README.md
       usr/local/share/bloomxdp/grafana/bloomxdp.json)
# docs/ beside the README, so that the README's links to docs/*.md hold where it is installed.
for d in docs/*.md; do
	FILES+=("usr/local/share/doc/bloomxdp/$d")
done
if ! out=$(make -s install DESTDIR="$DEST" 2>&1); then
	not_ok "make install DESTDIR=..." "$out"
	tap_finish
	exit 1
fi
ok "make install DESTDIR=..."
for f in "${FILES[@]}"; do
	if [ -f "$DEST/$f" ] && [ -s "$DEST/$f" ]; then
		ok "installs /$f"
	else
		not_ok "installs /$f" "$(cd "$DEST" && find . -type f)"
	fi
done
check_eq "nothing else installed" "$(printf '%s\n' "${FILES[@]}" | sort)" \
	"$(cd "$DEST" && find . -type f | sed 's|^\./||' | sort)"
perms=755
for ((i = 1; i < ${#FILES[@]}; i++)); do
	perms+=" 644"
done
check_eq "the binary is executable, the rest is not" "$perms" \
	"$(cd "$DEST" && stat -c %a "${FILES[@]}" | xargs)"
check_eq "the unit starts the installed binary" \
	"ExecStartPre=-/usr/local/sbin/bloomxdp restore %I" \
	"$(grep '^ExecStartPre=' "$DEST/usr/local/lib/systemd/system/bloomxdp@.service")"
check_eq "fail2ban's action runs the installed binary" "bloomxdp = /usr/local/sbin/bloomxdp" \
	"$(grep '^bloomxdp = ' "$DEST/etc/fail2ban/action.d/bloomxdp.conf")"

BIN=$DEST/usr/local/sbin/bloomxdp
PAGE=$DEST/usr/local/share/man/man8/bloomxdp.8
UNIT=$DEST/usr/local/lib/systemd/system/bloomxdp@.service
COMPLETION=$DEST/usr/local/share/bash-completion/completions/bloomxdp

check_eq "the README is the tree's" "" "$(cmp README.md "$DEST/usr/local/share/doc/bloomxdp/README.md" 2>&1)"
differ=()
for d in docs/*.md; do
	cmp -s "$d" "$DEST/usr/local/share/doc/bloomxdp/$d" || differ+=("$d")
done
check_eq "... and docs/*.md are the tree's, beside it" "" "${differ[*]}"

# ---------------------------------------------------------------- version and help

VERSION=$(cat VERSION)
check_eq "--version: the file VERSION's" "bloomxdp $VERSION" "$("$BLOOMXDP" --version 2>&1)"
check_eq "... and 'bloomxdp version'" "bloomxdp $VERSION" "$("$BLOOMXDP" version 2>&1)"
check_eq "... and the last line of --help" "bloomxdp $VERSION" "$("$BLOOMXDP" --help | tail -n 1)"
check_eq "'bloomxdp help load' is 'bloomxdp load --help'" "$("$BLOOMXDP" load --help)" \
	"$("$BLOOMXDP" help load 2>&1)"
check_fails "'bloomxdp help nosuch': exit 2, saying so" 2 "unknown command 'nosuch'" \
	"$BLOOMXDP" help nosuch
check_eq "load --help names --action's default" \
	"applies (default attach's --action)" \
	"$("$BLOOMXDP" load --help | grep -o "applies (default attach's --action)")"
unknown=()
for cmd in $("$BLOOMXDP" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
	"$BLOOMXDP" "$cmd" --help | grep -q "default ?" && unknown+=("$cmd")
done
check_eq "no command's --help says '(default ?)'" "" "${unknown[*]}"

# ---------------------------------------------------------------- the man page

if command -v mandoc >/dev/null; then
	check_eq "mandoc -Tlint: no warning, not even of style" "" \
		"$(mandoc -Tlint "$PAGE" 2>&1)"
else
	skip "mandoc -Tlint" "mandoc is missing: run tests/install-deps.sh"
fi
check_eq "groff -ww -z -man: no warning" "" "$(groff -ww -z -man "$PAGE" 2>&1)"
check_eq "the page says no '(default ?)'" "" "$(grep -n 'default ?' "$PAGE")"
check_eq "the page's title line has the version" "bloomxdp $VERSION" \
	"$(grep '^\.TH ' "$PAGE" | grep -o "bloomxdp $VERSION")"
check_eq "man -l renders it without a warning" "" \
	"$(MANWIDTH=100 man -l "$PAGE" 2>&1 >/dev/null)"

# The section of one command: from '.SS NAME' to the next .SS or .SH.
page_section() { awk -v name="$1" '/^\.S[SH] / { on = ($0 == ".SS " name) } on' "$PAGE"; }

commands=$("$BIN" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
missing=()
nopts=0
for cmd in $commands; do
	section=$(page_section "$cmd")
	if [ -z "$section" ]; then
		missing+=("command $cmd")
		continue
	fi
	for opt in $("$BIN" "$cmd" --help | sed -n 's/^  \(-., \|    \)--\([a-z0-9-]*\).*/\2/p'); do
		nopts=$((nopts + 1))
		grep -qF -- "\\fB\\-\\-$opt\\fR" <<<"$section" || missing+=("$cmd --$opt")
	done
done
check_eq "every command ($(wc -w <<<"$commands")) and every option ($nopts) is in the page" \
	"" "${missing[*]}"
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$PAGE")
check_eq "... and the synopsis names every command" "$(wc -w <<<"$commands")" \
	"$(grep -c '^\.B bloomxdp [a-z]' <<<"$synopsis")"
check_eq "enumerated values are listed with their help (attach --dns-reply nxdomain)" \
	".B nxdomain|answer NXDOMAIN from XDP at once" \
	"$(page_section attach | grep -A1 -x '\.B nxdomain' | paste -sd '|')"
missing=()
for s in NAME SYNOPSIS DESCRIPTION COMMANDS FILES "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	grep -qx "\.SH \"\?$s\"\?" "$PAGE" || missing+=("section $s")
done
check_eq "the written sections are there" "" "${missing[*]}"

# The example configuration's [attach] keys are attach's options (the reader sets them by
# the table).
keys=$(awk '/^\[/ { on = ($0 == "[attach]") } on && /^[a-z]/ { print $1 }' \
	"$DEST/etc/bloomxdp/example.conf")
attach_opts=$("$BIN" attach --help | sed -n 's/^  \(-., \|    \)--\([a-z0-9-]*\).*/\2/p')
unknown=()
for k in $keys; do
	grep -qx -- "$k" <<<"$attach_opts" || unknown+=("$k")
done
check_eq "example.conf: its $(wc -w <<<"$keys") [attach] keys are attach's options" "" \
	"${unknown[*]}"

# ---------------------------------------------------------------- completion

# complete WORD...: what the completion script offers for the last word.
complete_words() {
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_bloomxdp
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@" | sort | xargs
}
check_eq "completion registers _bloomxdp for bloomxdp" "complete -F _bloomxdp bloomxdp" \
	"$(bash -c 'source "$1"; complete -p bloomxdp' _ "$COMPLETION")"
check_eq "completes a command: 'sta' -> stats status" "stats status" \
	"$(complete_words "$BIN" sta)"
# shellcheck disable=SC2086  # one word per command
check_eq "completes every command and help from nothing" \
	"$(printf '%s\n' $commands help | sort | xargs)" "$(complete_words "$BIN" "")"
check_eq "completes an option of the command: 'attach lo --ma'" "--match --max-memory" \
	"$(complete_words "$BIN" attach lo --ma)"
check_eq "... only that command's: 'stats lo --'" \
	"--count --help --interval --json --prometheus --top --verbose" \
	"$(complete_words "$BIN" stats lo --)"
check_eq "completes an enumerated value: 'attach lo --mode g'" "generic" \
	"$(complete_words "$BIN" attach lo --mode g)"
check_eq "... after '=': 'attach lo --action=' (bash splits at =)" "drop monitor reject" \
	"$(complete_words "$BIN" attach lo --action = "")"
check_eq "... the next of a comma list: 'attach lo --match src,d'" "src,dns src,dns-answers src,dst" \
	"$(complete_words "$BIN" attach lo --match src,d)"
check_eq "... a value of a table made at run time: 'plan --layout b'" "bits blocked" \
	"$(complete_words "$BIN" plan --layout b)"
check_eq "completes an interface from /sys/class/net: 'status l'" "lo" \
	"$(complete_words "$BIN" status l | tr ' ' '\n' | grep -x lo)"
(cd "$TMP" && touch list-a.txt list-b.txt)
check_eq "completes a file where the command takes FILEs: 'load lo list-'" \
	"list-a.txt list-b.txt" "$(cd "$TMP" && complete_words "$BIN" load lo list-)"
check_eq "offers nothing for an unknown command" "" "$(complete_words "$BIN" frobnicate "")"

# ---------------------------------------------------------------- systemd

if command -v systemd-analyze >/dev/null; then
	# verify needs the binary where the unit says: the DESTDIR's, for the test.
	sed "s|/usr/local/sbin/bloomxdp|$BIN|g" "$UNIT" >"$TMP/bloomxdp@eth0.service"
	out=$(systemd-analyze verify --man=no "$TMP/bloomxdp@eth0.service" 2>&1)
	check_eq "systemd-analyze verify bloomxdp@eth0.service: exit 0, no warning" "0:" \
		"$?:$out"
	sed 's/^ProtectSystem=/ProtectSystm=/' "$TMP/bloomxdp@eth0.service" \
		>"$TMP/bloomxdp@eth1.service"
	check_fails "... which does warn of a misspelt setting" 0 "Unknown key 'ProtectSystm'" \
		systemd-analyze verify --man=no "$TMP/bloomxdp@eth1.service"
	diag "$(systemd-analyze security --offline=yes "$TMP/bloomxdp@eth0.service" 2>&1 |
		grep 'Overall exposure')"
else
	skip "systemd-analyze verify" "systemd-analyze is missing: run tests/install-deps.sh"
fi

# ---------------------------------------------------------------- uninstall

check "make uninstall DESTDIR=..." make -s uninstall DESTDIR="$DEST"
check_eq "uninstall leaves no file" "" "$(find "$DEST" -type f)"
check_eq "... and removes bloomxdp's directories (configuration, doc, fail2ban's it made)" "" \
	"$(find "$DEST" -path '*etc/bloomxdp*' -o -path '*doc/bloomxdp*' -o -path '*fail2ban*')"

# An edited example.conf is the operator's: kept, and said.
make -s install DESTDIR="$DEST" >/dev/null 2>&1
echo "# my edit" >>"$DEST/etc/bloomxdp/example.conf"
out=$(make -s uninstall DESTDIR="$DEST" 2>&1)
check_eq "uninstall keeps an edited example.conf" "# my edit" \
	"$(tail -n 1 "$DEST/etc/bloomxdp/example.conf" 2>&1)"
check_eq "... and says so" "kept $DEST/etc/bloomxdp/example.conf" "$(grep -o "^kept [^:]*" <<<"$out")"
check_eq "... removing every other file" "etc/bloomxdp/example.conf" \
	"$(cd "$DEST" && find . -type f | sed 's|^\./||')"

# Another PREFIX: the files and the unit follow it.
DEST2=$TMP/dest2
check "make install PREFIX=/usr DESTDIR=..." make -s install PREFIX=/usr DESTDIR="$DEST2"
check_eq "PREFIX=/usr: the binary in /usr/sbin, the unit starting it" \
	"ExecStart=/usr/sbin/bloomxdp daemon %I --config /etc/bloomxdp/%I.conf" \
	"$(grep '^ExecStart=' "$DEST2/usr/lib/systemd/system/bloomxdp@.service" 2>&1)"
check "make uninstall PREFIX=/usr DESTDIR=..." make -s uninstall PREFIX=/usr DESTDIR="$DEST2"
check_eq "... leaves no file" "" "$(find "$DEST2" -type f)"

tap_finish
