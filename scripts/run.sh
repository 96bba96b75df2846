#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: install what is missing, prepare Debian's 7.3 tree, apply the
# mainline parts, build the series kernel (parts 1-3, scripts/kernel-build.sh
# series) and boot the emulated affected host (hsw-ht) under QEMU, where the
# KUnit suites run and then the kselftests and perf stat; the results are
# printed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/setup.sh" || die "setup failed"
"$TOP/scripts/prepare-tree.sh" $MAINLINE || die "the $MAINLINE tree could not be prepared"
"$TOP/scripts/apply-parts.sh" || die "the mainline parts do not apply"
"$TOP/scripts/qemu-run.sh"
