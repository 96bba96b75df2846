#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: install what is missing, prepare Debian's 6.12 tree, apply the
# series, build the patched kernel and boot it under QEMU, where the KUnit
# suites run and then the perf_events kselftests; both results are printed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/setup.sh" || die "setup failed"
"$TOP/scripts/prepare-tree.sh" $LTS || die "the $LTS tree could not be prepared"
"$TOP/scripts/apply-series.sh" || die "the series does not apply"
"$TOP/scripts/qemu-run.sh"
