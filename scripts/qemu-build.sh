#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the emulated affected host: Debian 12's QEMU source with this
# project's patches (qemu/patches/series and the new files under qemu/), a
# TCG x86_64 system emulator with an Intel architectural PMU and a
# switchable model of the SandyBridge/IvyBridge/Haswell HT erratum, and
# AMD's family 15h core PMU.
#
#   1. a deb-src entry for Debian 12 (created if apt has none), apt-get update
#   2. the build dependencies (apt-get install, only what is missing)
#   3. apt-get source qemu into build/qemu-dl; Debian's patched tree as git
#      in build/qemu-src, tagged 'base' (reused while the version matches)
#   4. our patches as commits base..xpmu (scripts/apply-series.sh)
#   5. configure x86_64-softmmu into build/qemu-obj (once), ninja
#   6. the binary at build/qemu/qemu-system-x86_64 (a symlink)
#
# A second run with nothing changed rebuilds nothing; a change to one
# emulator file rebuilds what depends on it. Runs as root or through sudo.
# One build at a time: a second one waits for the first (make check starts
# one beside the kernel trees' preparation, the boots' job another).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD"
exec 9> "$BUILD/.qemu-build.lock"
flock 9

QDL=$BUILD/qemu-dl		# apt-get source downloads
QSRC=$BUILD/qemu-src		# git: tag base = Debian's tree, branch xpmu
QOBJ=$BUILD/qemu-obj		# meson/ninja build
QOUT=$BUILD/qemu		# stable path of the binary
SRC_LIST=/etc/apt/sources.list.d/x86-pmu-deb-src.sources
CONFIGURE=(--target-list=x86_64-softmmu --meson=/usr/bin/meson
	--disable-docs --disable-werror --without-default-features
	--enable-tcg --enable-slirp --enable-fdt=system
	--with-git-submodules=ignore)
PACKAGES=(
	dpkg-dev		# apt-get source: dpkg-source
	build-essential pkg-config git xz-utils python3
	meson ninja-build	# Debian 12's meson 1.0 builds QEMU 7.2
	libglib2.0-dev libpixman-1-dev libslirp-dev libfdt-dev zlib1g-dev
	qemu-system-data seabios	# firmware and option ROMs (-L)
)

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || die "run as root, or install sudo"
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# Debian's python3 (and meson) first: a pyenv shim would win otherwise.
export PATH=/usr/bin:/bin:$PATH

# 1. Source entries
has_source() {
	local info

	info=$(apt-cache showsrc qemu 2>/dev/null) || true
	grep -q '^Package: qemu$' <<< "$info"
}
if ! has_source; then
	if [ ! -f "$SRC_LIST" ]; then
		step "adding the Debian 12 source entries ($SRC_LIST)"
		$SUDO tee "$SRC_LIST" >/dev/null <<-'EOF'
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: bookworm bookworm-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

		Types: deb-src
		URIs: http://deb.debian.org/debian-security
		Suites: bookworm-security
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
	fi
	step "apt-get update (source indexes)"
	apt_serial $SUDO apt-get update -qq
	has_source ||
		die "apt knows no source package qemu even with $SRC_LIST"
fi

# 2. Build dependencies
install_missing "${PACKAGES[@]}" || die "cannot install ${PACKAGES[*]}"

# 3. Debian's QEMU source as a git tree tagged base
mkdir -p "$QDL"
# (from an empty directory: apt prints no URI for files already there)
probe=$(mktemp -d)
dsc=$(cd "$probe" && apt-get source --print-uris -qq qemu |
	sed -n "s/^'[^']*' \(qemu_[^ ]*\.dsc\) .*/\1/p")
rmdir "$probe"
[ -n "$dsc" ] || die "apt-get source --print-uris qemu names no .dsc"
version=$(apt-cache showsrc qemu 2>/dev/null | awk -v f="$dsc" '
	/^$/ { v = "" } /^Version:/ { v = $2 }
	/^ / && index($0, " " f) && v != "" && !done { print v; done = 1 }')
version=${version:-${dsc#qemu_}}
version=${version%.dsc}
if [ -d "$QSRC/.git" ] &&
   [ "$(git -C "$QSRC" config --get xpmu.version)" = "$version" ] &&
   git -C "$QSRC" rev-parse -q --verify base >/dev/null; then
	echo "QEMU source: Debian qemu $version in $QSRC (reused)"
else
	step "downloading the QEMU source package (apt-get source qemu) into $QDL"
	(cd "$QDL" && apt_serial apt-get source --download-only -qq qemu) > "$QDL/apt-get-source.log" 2>&1 ||
		{ cat "$QDL/apt-get-source.log"; die "apt-get source qemu failed"; }
	[ -f "$QDL/$dsc" ] || die "apt-get source did not leave $QDL/$dsc"
	step "extracting Debian qemu $version (dpkg-source, Debian's patches applied)"
	tmp=$BUILD/qemu-src.new
	rm -rf "$tmp"
	# (the signature cannot be checked without debian-keyring; apt has
	# checked the files' hashes against the signed archive index)
	dpkg-source -x "$QDL/$dsc" "$tmp" > "$QDL/dpkg-source.log" 2>&1 ||
		{ cat "$QDL/dpkg-source.log"; die "dpkg-source -x $QDL/$dsc failed"; }
	rm -rf "$tmp/.pc"		# quilt's bookkeeping, not source
	step "recording the tree as git (tag base) in $QSRC"
	git -C "$tmp" init -q
	git -C "$tmp" config gc.auto 0	# no background repack (prepare-tree.sh)
	git -C "$tmp" add -A -f .
	git -C "$tmp" commit -q -m "QEMU $version (Debian qemu source package, Debian patches applied)"
	git -C "$tmp" tag base
	git -C "$tmp" config xpmu.version "$version"
	rm -rf "$QSRC" "$QOBJ"
	mv "$tmp" "$QSRC"
	echo "QEMU source: Debian qemu $version in $QSRC"
fi

# 4. Our patches and new files
"$TOP/scripts/apply-series.sh" --tree "$QSRC" --series "$TOP/qemu/patches" \
	--files "$TOP/qemu" --branch xpmu --what "QEMU patch"

# 5. Configure once, then build
stamp="$version ${CONFIGURE[*]}"
if [ ! -f "$QOBJ/build.ninja" ] ||
   [ "$(cat "$QOBJ/.xpmu-configure" 2>/dev/null)" != "$stamp" ]; then
	step "configuring QEMU (x86_64-softmmu, TCG) in $QOBJ (about 30 s; log in $QOBJ/configure.out)"
	rm -rf "$QOBJ"
	mkdir -p "$QOBJ"
	(cd "$QOBJ" && "$QSRC/configure" "${CONFIGURE[@]}") > "$QOBJ/configure.out" 2>&1 ||
		{ tail -30 "$QOBJ/configure.out"; die "QEMU configure failed (log: $QOBJ/configure.out)"; }
	echo "$stamp" > "$QOBJ/.xpmu-configure"
fi
step "building qemu-system-x86_64 (about 5 minutes the first time on 2 idle cores, seconds after; log in $QOBJ/build.out)"
if ! ninja -C "$QOBJ" -j"$JOBS" qemu-system-x86_64 > "$QOBJ/build.out" 2>&1; then
	grep -E -A10 -m5 '^FAILED|error:' "$QOBJ/build.out" || tail -40 "$QOBJ/build.out"
	die "the QEMU build failed (log: $QOBJ/build.out)"
fi
tail -1 "$QOBJ/build.out"

# 6. Stable path
mkdir -p "$QOUT"
ln -sfn ../qemu-obj/qemu-system-x86_64 "$QOUT/qemu-system-x86_64"
"$QOUT/qemu-system-x86_64" --version | head -1
echo "emulator: $QOUT/qemu-system-x86_64 (-cpu Haswell,pmu=on[,ht-erratum=on|off], Opteron_G5,pmu=on,-xsave, or Skylake-Client,model=190,pmu=on (Gracemont); firmware: -L /usr/share/qemu -L /usr/share/seabios)"
