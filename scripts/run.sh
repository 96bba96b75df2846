#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: install what is missing, prepare the tree, apply the series,
# build the patched kernel and boot the emulated affected host (hsw-ht)
# under QEMU, where the KUnit suites run and then the kselftests and perf
# stat; the results are printed. MATRIX (scripts/lib.sh) says which kernel:
# 6.12 (the default for now) the old series on 6.12; 7.3 the series kernel
# of the mainline parts 1-3 (scripts/kernel-build.sh series).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/setup.sh" || die "setup failed"
if [ "$MATRIX" = "$MAINLINE" ]; then
	"$TOP/scripts/prepare-tree.sh" $MAINLINE || die "the $MAINLINE tree could not be prepared"
	"$TOP/scripts/apply-parts.sh" || die "the mainline parts do not apply"
else
	"$TOP/scripts/prepare-tree.sh" $LTS || die "the $LTS tree could not be prepared"
	"$TOP/scripts/apply-series.sh" || die "the series does not apply"
fi
"$TOP/scripts/qemu-run.sh"
