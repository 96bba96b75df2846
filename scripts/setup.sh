#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build and the tests need from Debian's archive. Runs as
# root (or through sudo); a no-op when everything is already there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	linux-source-6.12	# the LTS tree of the backport
	build-essential bc bison flex libelf-dev libssl-dev cpio kmod
	python3 perl git xz-utils
	python3-ply python3-git	# checkpatch.pl runs spdxcheck.py
	python3-docutils	# checks the new Documentation/ pages
	qemu-system-x86		# firmware for our QEMU build (scripts/qemu-build.sh)
	busybox-static		# a shell in the test initramfs
	clang			# libFuzzer for the harness fuzz target
	valgrind		# helgrind/callgrind in the harness
	librsvg2-bin		# rsvg-convert: checks that the simulator's SVG renders
)

install_missing "${PACKAGES[@]}"
