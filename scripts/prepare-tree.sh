#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make a pristine git tree of one of Debian's kernel source packages: one
# commit tagged 'base'. Re-extracted only when the package version changes.
# Prints the exact upstream version.
#
#   prepare-tree.sh [7.3]   mainline: linux-source-7.3 from Debian's
#                           trixie-backports, into build/linux-7.3
#   prepare-tree.sh 6.12    the LTS backport: linux-source-6.12 from
#                           Debian 12 (bookworm), into build/linux-6.12
#
# The package is fetched with apt-get download and unpacked with dpkg-deb
# into build/dl/: nothing is installed into the system. For 7.3 a sources
# entry for trixie-backports is added in a file of its own (apt's default
# priorities keep every installed package on bookworm).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ver=${1:-7.3}
case $ver in
7.3) suite=trixie-backports ;;
6.12) suite=bookworm ;;
*) die "usage: $0 [7.3|6.12]" ;;
esac
PKG=linux-source-$ver
TREE=$(ksrc "$ver")
DL=$BUILD/dl
SRC_LIST=/etc/apt/sources.list.d/x86-pmu-trixie-backports.sources
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

candidate() {
	apt-cache policy "$PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p' |
		grep -v '(none)' || true
}

pkgver=$(candidate)
if [ -z "$pkgver" ] && [ "$ver" = 7.3 ] && [ ! -f "$SRC_LIST" ]; then
	step "adding a sources entry for Debian's $suite ($SRC_LIST)"
	$SUDO tee "$SRC_LIST" > /dev/null <<-'EOF'
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: trixie-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
fi
if [ -z "$pkgver" ]; then
	step "apt-get update (looking for $PKG)"
	apt_serial $SUDO apt-get update -qq || true
	pkgver=$(candidate)
fi
stamp=$TREE/.git/x86-pmu-base
if [ -z "$pkgver" ]; then
	# Offline, or the archive dropped it: a tree already extracted will do.
	[ -s "$stamp" ] && git -C "$TREE" rev-parse -q --verify base > /dev/null ||
		die "Debian's archive does not serve $PKG (suite $suite) here: apt-cache policy $PKG has no candidate"
	pkgver=$(cat "$stamp")
	echo "note: $PKG is no longer offered by apt; keeping the tree of $pkgver"
fi

if [ "$(cat "$stamp" 2>/dev/null)" != "$pkgver" ] ||
   ! git -C "$TREE" rev-parse -q --verify base >/dev/null; then
	deb=$DL/${PKG}_${pkgver//:/%3a}_all.deb
	mkdir -p "$DL"
	if [ ! -s "$deb" ]; then
		step "downloading $PKG $pkgver ($suite) into ${DL#"$TOP"/}"
		(cd "$DL" && apt_serial apt-get download -q "$PKG=$pkgver" 2>&1 | grep -v '^W: Download is performed unsandboxed') ||
			die "apt-get download $PKG=$pkgver failed (suite $suite)"
		[ -s "$deb" ] || die "apt-get download did not write $deb"
	fi
	step "unpacking $PKG $pkgver with dpkg-deb"
	rm -rf "$DL/$PKG"
	dpkg-deb -x "$deb" "$DL/$PKG"
	tarball=$DL/$PKG/usr/src/$PKG.tar.xz
	[ -f "$tarball" ] || die "$deb holds no usr/src/$PKG.tar.xz"
	step "extracting $PKG.tar.xz into ${TREE#"$TOP"/}, about a minute"
	tmp=$TREE.new
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	rm -rf "${DL:?}/$PKG"
	version=$(make -s -C "$tmp" kernelversion)
	step "recording Linux $version as git tag 'base'"
	git -C "$tmp" init -q
	# No automatic repack: a commit of 90,000 loose objects starts one in
	# the background, minutes of CPU taken from the first run's builds.
	git -C "$tmp" config gc.auto 0
	git -C "$tmp" add -Af .
	git -C "$tmp" commit -q -m "Linux $version (Debian $PKG $pkgver)"
	git -C "$tmp" tag base
	echo "$pkgver" > "$tmp/.git/x86-pmu-base"
	rm -rf "$TREE"
	mv "$tmp" "$TREE"
fi

version=$(make -s -C "$TREE" kernelversion)
echo "base tree: Linux $version (Debian $PKG $pkgver) in ${TREE#"$TOP"/}"
