#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make $KSRC (build/linux) a pristine git tree of Debian's linux-source-6.12:
# one commit tagged 'base'. Re-extracted only when the package changes.
# Prints the exact upstream version.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKG=linux-source-6.12
TARBALL=/usr/src/$PKG.tar.xz

pkgver=$(dpkg-query -W -f='${Version}' $PKG 2>/dev/null) ||
	die "$PKG is not installed: run scripts/setup.sh"
[ -f "$TARBALL" ] || die "$TARBALL is missing: reinstall $PKG"
stamp=$KSRC/.git/x86-pmu-base

if [ "$(cat "$stamp" 2>/dev/null)" != "$pkgver" ] ||
   ! git -C "$KSRC" rev-parse -q --verify base >/dev/null; then
	step "extracting $TARBALL (Debian $PKG $pkgver), about a minute"
	tmp=$KSRC.new
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xJf "$TARBALL" -C "$tmp" --strip-components=1
	version=$(make -s -C "$tmp" kernelversion)
	step "recording Linux $version as git tag 'base'"
	git -C "$tmp" init -q
	git -C "$tmp" add -Af .
	git -C "$tmp" commit -q -m "Linux $version (Debian $PKG $pkgver)"
	git -C "$tmp" tag base
	echo "$pkgver" > "$tmp/.git/x86-pmu-base"
	rm -rf "$KSRC"
	mv "$tmp" "$KSRC"
fi

version=$(make -s -C "$KSRC" kernelversion)
echo "base tree: Linux $version (Debian $PKG $pkgver) in ${KSRC#"$TOP"/}"
