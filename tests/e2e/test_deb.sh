#!/usr/bin/env bash
# make deb and the Debian package it builds, installed, upgraded, removed and purged:
#
#   - make deb builds build/bloomxdp_VERSION_ARCH.deb (dpkg-buildpackage, debhelper) from the
#     build make all left, compiling nothing again; its version is the file VERSION's; its
#     shared-library dependencies are dpkg-shlibdeps'; lintian says no error and no warning;
#   - dpkg -i installs /usr/sbin/bloomxdp (--version: VERSION's; --help), bloomxdp(8), the
#     completion, the unit in /lib/systemd/system naming /usr/sbin/bloomxdp (systemd-analyze
#     verify accepts it), the fail2ban action, the docs, the Grafana dashboard in
#     /usr/share/bloomxdp/grafana, and /etc/bloomxdp/example.conf and the
#     action as conffiles; its maintainer scripts start and enable nothing;
#   - an edited conffile survives an upgrade and dpkg -r; dpkg -P removes it, and every
#     path of the package that the install made is gone.
#
# Restores the machine: a package installed here is purged on exit, whatever happens. When
# bloomxdp is installed as a package already, or a file of the package is there already
# (make install to /, say), it installs nothing, and says so (skip). No network.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

TMP=$(mktemp -d "/tmp/bxd-$E2E_ID.XXXXXX") || exit 1
INSTALLED_HERE=0

# dpkg ARG...: dpkg, waiting (at most 60 s) while another dpkg or apt holds its lock.
dpkg() {
	local out rc i
	for ((i = 0; i < 60; i++)); do
		out=$(DEBIAN_FRONTEND=noninteractive command dpkg "$@" 2>&1)
		rc=$?
		if [ "$rc" -eq 0 ] || ! grep -q 'locked by another process' <<<"$out"; then
			break
		fi
		sleep 1
	done
	printf '%s\n' "$out"
	return "$rc"
}
deb_cleanup() {
	if [ "$INSTALLED_HERE" = 1 ] &&
	   dpkg-query -W -f='${db:Status-Status}' bloomxdp 2>/dev/null | grep -qvx not-installed; then
		dpkg -P bloomxdp >/dev/null 2>&1 || echo "# cleanup: 'dpkg -P bloomxdp' failed" >&2
	fi
	rm -rf -- "$TMP"
}
trap deb_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

VERSION=$(cat VERSION)
for tool in dpkg-buildpackage dh lintian; do
	if ! command -v "$tool" >/dev/null; then
		skip "make deb" "$tool is missing: run tests/install-deps.sh"
		tap_finish
		exit 0
	fi
done
DEB=build/bloomxdp_${VERSION}_$(dpkg-architecture -qDEB_HOST_ARCH).deb

# ---------------------------------------------------------------- make deb

if ! out=$(make -s all 2>&1); then
	not_ok "make all" "$out"
	tap_finish
	exit 1
fi
before=$(stat -c %Y build/bloomxdp)
rm -f "$DEB"
start=$(date +%s%N)
out=$(make deb 2>&1)
rc=$?
secs=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
if [ "$rc" -ne 0 ] || [ ! -s "$DEB" ]; then
	not_ok "make deb builds $DEB" "exit status $rc" "$(tail -n 20 <<<"$out")"
	tap_finish
	exit 1
fi
ok "make deb builds $DEB ($(stat -c %s "$DEB") bytes, ${secs} s)"
check_eq "... compiling nothing again after make all" "$before:" \
	"$(stat -c %Y build/bloomxdp):$(grep -E '^\s*(cc|gcc|clang) ' <<<"$out" | head -n 3)"
check_eq "... nothing written beside the checkout" "" \
	"$(ls ../bloomxdp_"$VERSION"_* 2>/dev/null)"
check_eq "the package's version is the file VERSION's" "bloomxdp $VERSION" \
	"$(dpkg-deb -f "$DEB" Package Version | awk '{ printf "%s%s", sep, $2; sep = " " }')"
depends=$(dpkg-deb -f "$DEB" Depends)
# shellcheck disable=SC2016  # a literal '${': a substitution variable left unexpanded
check_eq "its Depends: the libraries the binary links, found by dpkg-shlibdeps" \
	"libbpf1 libc6 libcurl4 libxdp1 no-substvar" \
	"$(grep -oE '\b(libbpf1|libc6|libcurl4|libxdp1)\b' <<<"$depends" | xargs) $(grep -q '\${' <<<"$depends" && echo substvar || echo no-substvar)" \
	"Depends: $depends"

# Root: lintian says so on stderr, which is no finding. Its temporary files
# (a Berkeley DB of its ELF check, /tmp/mldbm-elf-*, left behind) in $TMP.
lint=$(TMPDIR=$TMP lintian --display-info "$DEB" 2>&1 | grep -v 'running with root privileges')
check_eq "lintian: no error, no warning" "" "$(grep -E '^[EW]: ' <<<"$lint")" "$lint"
diag "lintian: $(grep -cE '^[IP]: ' <<<"$lint") informational tags" \
	"$(grep -E '^[IP]: ' <<<"$lint" | cut -d' ' -f3 | sort | uniq -c | xargs)"

# ---------------------------------------------------------------- install

status=$(dpkg-query -W -f='${db:Status-Status}' bloomxdp 2>/dev/null)
present=()
while read -r path; do
	[ -e "$path" ] && [ ! -d "$path" ] && present+=("$path")
done < <(dpkg-deb --fsys-tarfile "$DEB" | tar -t | sed 's|^\./|/|; /\/$/d')
if [ -n "$status" ] && [ "$status" != not-installed ]; then
	skip "dpkg -i $DEB" "bloomxdp is installed as a package already ($status): left alone"
	tap_finish
	exit
fi
if [ "${#present[@]}" -gt 0 ]; then
	skip "dpkg -i $DEB" "files of the package are there already, not a package's: ${present[*]}"
	tap_finish
	exit
fi
# The directories there before the install: those of the package that remain after purge.
dpkg-deb --fsys-tarfile "$DEB" | tar -t | sed 's|^\./|/|; s|/$||; /^$/d' | while read -r path; do
	[ -d "$path" ] && echo "$path"
done | sort >"$TMP/dirs-before"

INSTALLED_HERE=1
check "dpkg -i $DEB" dpkg -i "$DEB"
check_eq "... installed" "install ok installed $VERSION" \
	"$(dpkg-query -W -f='${Status} ${Version}' bloomxdp 2>&1)"
dpkg -L bloomxdp | grep -vx '/\.' | sort >"$TMP/listed"

BIN=/usr/sbin/bloomxdp
check_eq "$BIN --version: the file VERSION's" "bloomxdp $VERSION" "$("$BIN" --version 2>&1)"
check_eq "$BIN --help: exit 0, the commands and the version" "0 attach bloomxdp $VERSION" \
	"$("$BIN" --help >"$TMP/help" 2>&1; echo "$?") $(grep -o '^  attach' "$TMP/help" | xargs) $(tail -n 1 "$TMP/help")"

FILES=(/usr/share/man/man8/bloomxdp.8.gz /usr/share/bash-completion/completions/bloomxdp
       /lib/systemd/system/bloomxdp@.service /etc/fail2ban/action.d/bloomxdp.conf
       /etc/bloomxdp/example.conf /usr/share/doc/bloomxdp/README.md
       /usr/share/doc/bloomxdp/copyright /usr/share/doc/bloomxdp/changelog.gz
       /usr/share/bloomxdp/grafana/bloomxdp.json)
for d in docs/*.md; do
	FILES+=("/usr/share/doc/bloomxdp/$d")
done
missing=()
for f in "${FILES[@]}"; do
	[ -s "$f" ] || missing+=("$f")
done
check_eq "installs bloomxdp(8), the completion, the unit, the fail2ban action, example.conf, the docs, the Grafana dashboard (${#FILES[@]} files)" \
	"" "${missing[*]}"
check_eq "man bloomxdp: the page of this version, rendered without a warning" \
	"bloomxdp $VERSION:" \
	"$(zcat /usr/share/man/man8/bloomxdp.8.gz | grep '^\.TH ' | grep -o "bloomxdp $VERSION"):$(MANWIDTH=100 man -l /usr/share/man/man8/bloomxdp.8.gz 2>&1 >/dev/null)"
check_eq "the completion completes with the installed binary: 'bloomxdp sta'" "stats status" \
	"$(bash -c 'source "$1"; COMP_WORDS=(bloomxdp sta); COMP_CWORD=1; _bloomxdp
		printf "%s\n" "${COMPREPLY[@]}"' _ /usr/share/bash-completion/completions/bloomxdp |
		sort | xargs)"
check_eq "the unit runs $BIN" \
	"ExecStart=$BIN daemon %I --config /etc/bloomxdp/%I.conf" \
	"$(grep '^ExecStart=' /lib/systemd/system/bloomxdp@.service)"
check_eq "fail2ban's action runs $BIN" "bloomxdp = $BIN" \
	"$(grep '^bloomxdp = ' /etc/fail2ban/action.d/bloomxdp.conf)"
if command -v systemd-analyze >/dev/null; then
	cp /lib/systemd/system/bloomxdp@.service "$TMP/bloomxdp@eth0.service"
	out=$(systemd-analyze verify --man=no "$TMP/bloomxdp@eth0.service" 2>&1)
	check_eq "systemd-analyze verify: the installed unit, no warning" "0:" "$?:$out"
else
	skip "systemd-analyze verify" "systemd-analyze is missing: run tests/install-deps.sh"
fi
check_eq "dpkg-query: /etc's files are conffiles" \
	"/etc/bloomxdp/example.conf /etc/fail2ban/action.d/bloomxdp.conf" \
	"$(dpkg-query -W -f='${Conffiles}\n' bloomxdp | awk 'NF { print $1 }' | sort | xargs)"
scripts=$(for s in preinst postinst prerm postrm; do
	dpkg-query --control-show bloomxdp "$s" 2>/dev/null; done | grep -v '^\s*#')
check_eq "maintainer scripts: systemd reloaded where it runs, nothing started or enabled" \
	"[ -d /run/systemd/system ]|" \
	"$(grep -o '\[ -d /run/systemd/system \]' <<<"$scripts" | sort -u)|$(grep -E 'deb-systemd|systemctl.* (start|restart|enable)|invoke-rc.d' <<<"$scripts")"

# ---------------------------------------------------------------- upgrade, remove, purge

EDIT="# edited by test_deb $E2E_ID"
echo "$EDIT" >>/etc/bloomxdp/example.conf
# An upgrade: the same package as version VERSION+test1 (dpkg-deb on its unpacked tree).
dpkg-deb -R "$DEB" "$TMP/next" &&
	sed -i "s/^Version: .*/Version: $VERSION+test1/" "$TMP/next/DEBIAN/control" &&
	dpkg-deb --root-owner-group -b "$TMP/next" "$TMP/next.deb" >/dev/null
check "dpkg -i: an upgrade to $VERSION+test1" dpkg -i "$TMP/next.deb"
check_eq "... the edited conffile survives it" "$EDIT" "$(tail -n 1 /etc/bloomxdp/example.conf)"
check "dpkg -r bloomxdp" dpkg -r bloomxdp
check_eq "... the edited conffile survives it" "$EDIT" "$(tail -n 1 /etc/bloomxdp/example.conf 2>&1)"
check_eq "... the rest is gone, the package's configuration kept" "config-files:$BIN absent" \
	"$(dpkg-query -W -f='${db:Status-Status}' bloomxdp):$BIN $([ -e "$BIN" ] && echo present || echo absent)"
check "dpkg -P bloomxdp" dpkg -P bloomxdp
check_eq "... not installed" "not-installed" \
	"$(dpkg-query -W -f='${db:Status-Status}' bloomxdp 2>/dev/null || echo not-installed)"
left=()
while read -r path; do
	[ -e "$path" ] && ! grep -qxF -- "$path" "$TMP/dirs-before" && left+=("$path")
done <"$TMP/listed"
check_eq "... nothing of its $(wc -l <"$TMP/listed") paths is left (the edited conffile neither)" \
	"" "${left[*]}"
INSTALLED_HERE=0

tap_finish
