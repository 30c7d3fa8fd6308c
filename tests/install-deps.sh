#!/usr/bin/env bash
# Installs, with apt-get, what building and testing bloomxdp needs and is not
# installed yet. Idempotent: does nothing (not even 'apt-get update') when
# everything is present. Debian/Ubuntu only.
set -eu

PACKAGES=(
	clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config gcc make	# build
	libc6-dev linux-libc-dev libidn2-dev						# names (IDN)
	libxdp-dev xdp-tools							# libxdp's run config (xdp_helpers.h); xdp-loader (e2e)
	libpsl-dev publicsuffix							# public suffixes
	libcurl4-openssl-dev libssl-dev						# feed refresh (fetch), SHA-256 of copies
	webext-ublock-origin-firefox						# real filter lists (feed tests)
	libcmocka-dev								# unit tests
	libinih-dev libmicrohttpd-dev						# daemon: config file, metrics
	iproute2 iputils-ping netcat-openbsd python3				# e2e tests, demo
	nftables								# e2e egress tests: the peer counts what reaches it
	dnsmasq-base dnsutils nginx curl openssl procps			# e2e name tests; openssl: test_fleet_tls's CA
	ngtcp2-client ngtcp2-server						# e2e QUIC test: gtlsclient, gtlsserver
	chromium								# e2e QUIC test: a browser's HTTP/3 (headless)
	fail2ban								# its action (e2e)
	libhiredis-dev redis-server redis-tools					# the fleet: hiredis; a Redis of the test's own (e2e)
	libjson-c-dev								# daemon: CrowdSec LAPI replies
	libsystemd-dev								# daemon: sd_notify (Type=notify, watchdog), the journal
	util-linux coreutils strace						# nsenter, prlimit, setpriv, timeout
	mandoc groff-base systemd libcap2-bin prometheus			# install test: man lint, systemd-analyze, capsh, promtool
	qemu-system-x86 busybox-static cpio file xz-utils			# the kernel tier: other kernels under qemu
	debhelper lintian							# make deb (debian/): dpkg-buildpackage, dh; its test's lintian
)

missing=()
for p in "${PACKAGES[@]}"; do
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		missing+=("$p")
	fi
done
# crowdsec (the e2e test runs its Local API): Debian's postinst registers with the
# Central API, which fails offline and leaves the package half-configured, and every
# later apt-get install then fails on it too. Debian's opt-out (README.Debian) is an
# online_api_credentials.yaml holding a comment before crowdsec is configured: made
# here when crowdsec is not configured yet and the file is absent or empty (the empty
# file is what a failed postinst leaves). crowdsec is installed on its own, last: if
# its configuration fails anyway, the script goes on when its binaries run.
crowdsec_capi=/etc/crowdsec/online_api_credentials.yaml
crowdsec_status=$(dpkg-query -W -f='${Status}' crowdsec 2>/dev/null || true)
need_crowdsec=
[ "$crowdsec_status" != "install ok installed" ] && need_crowdsec=1
# npm fetches the feed tests' real lists (npm pack): Debian's, unless a Node.js
# that brings its own npm (and conflicts with Debian's) is installed.
if ! command -v npm >/dev/null; then
	missing+=(nodejs npm)
fi
[ "${#missing[@]}" -eq 0 ] && [ -z "$need_crowdsec" ] && exit 0

if ! command -v apt-get >/dev/null; then
	echo "install-deps: missing ${missing[*]}, and there is no apt-get: install them by hand" >&2
	exit 1
fi
sudo=
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "install-deps: missing ${missing[*]}: run this script as root" >&2
		exit 1
	fi
	sudo=sudo
fi
echo "install-deps: installing ${missing[*]} ${need_crowdsec:+crowdsec}"
export DEBIAN_FRONTEND=noninteractive
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
# Packages such as nginx and dnsmasq would start system services: the tests run
# their own instances, so forbid starting services while installing.
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
	$sudo chmod 755 "$policy"
	made_policy=1
fi
status=0
if [ -n "$need_crowdsec" ] && [ ! -s "$crowdsec_capi" ]; then
	$sudo mkdir -p "${crowdsec_capi%/*}"
	echo "# no Central API: registration skipped offline (bloomxdp's install-deps.sh)" |
		$sudo tee "$crowdsec_capi" >/dev/null
fi
if [ "${#missing[@]}" -gt 0 ]; then
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" || status=$?
fi
if [ -n "$need_crowdsec" ] && [ "$status" -eq 0 ]; then
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends crowdsec; then
		if crowdsec -version >/dev/null 2>&1 && cscli version >/dev/null 2>&1; then
			echo "install-deps: crowdsec is installed but not configured (see above);" \
			     "its binaries run, which is all the tests need" >&2
		else
			status=1
		fi
	fi
fi
[ -n "$made_policy" ] && $sudo rm -f "$policy"
exit "$status"
