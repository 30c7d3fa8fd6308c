#!/usr/bin/env bash
# Brings the kernels of the kernel tier from Debian's registry into
# build/kernels (once: a package already there is kept) and prints the path of
# each package, one a line. The kernels are Debian 12's own: its 6.1 (the
# linux-image-cloud-amd64 metapackage) and its 6.12 (linux-image-6.12-cloud-
# amd64); each metapackage names the current image, which is what is fetched.
# The cloud flavour: the same kernel as the generic one with fewer drivers, so
# a smaller package and a faster boot.
set -eu
cd "$(dirname "$0")/../.."
CACHE=build/kernels
METAS=(linux-image-cloud-amd64 linux-image-6.12-cloud-amd64)

mkdir -p "$CACHE"
image_of() {
	apt-cache depends "$1" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' |
		head -1
}
for meta in "${METAS[@]}"; do
	image=$(image_of "$meta")
	if [ -z "$image" ]; then
		apt-get update -q >/dev/null 2>&1 || true
		image=$(image_of "$meta")
	fi
	if [ -z "$image" ]; then
		echo "kernels.sh: apt-cache knows no $meta: is this Debian 12 (bookworm)?" >&2
		exit 1
	fi
	deb=$(ls "$CACHE/${image}"_*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		# apt-get download writes to the current directory; _apt cannot write here.
		if ! (cd "$CACHE" && apt-get download -q "$image" >/dev/null 2>&1); then
			apt-get update -q >/dev/null 2>&1 || true
			if ! (cd "$CACHE" && apt-get download -q "$image" >/dev/null 2>&1); then
				echo "kernels.sh: cannot download $image from Debian's registry" >&2
				exit 1
			fi
		fi
		deb=$(ls "$CACHE/${image}"_*.deb | head -1)
	fi
	echo "$deb"
done
