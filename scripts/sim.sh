#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make sim: build the scheduling simulator (tools/testing/x86-pmu) and run
# the six regression scenarios of the simulator issue, each policy side
# by side. make sim ARGS="..." runs build/harness/x86-pmu-sim with ARGS
# instead (see x86-pmu-sim --help); make sim-fairness compares the XSU
# policies (ARGS="--fairness 1000"); make sim-metrics runs perf's metric
# groups of SNB/IVB/HSW under each policy (ARGS="--metric-table --ticks
# 1000").
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# The mainline tree: its event tables, upstream's greedy (tag base), and
# the series' perf_event.h for the matcher's KUnit suite (branch ht).
KSRC=$(ksrc "$MAINLINE")

"$TOP/scripts/setup.sh" || die "setup failed"
"$TOP/scripts/prepare-tree.sh" $MAINLINE > /dev/null || die "the $MAINLINE tree could not be prepared"
make -s -C "$TOP/tools/testing/x86-pmu" KSRC="$KSRC" O="$BUILD/harness" \
	"$BUILD/harness/x86-pmu-sim" || die "the simulator does not build"
SIM=$BUILD/harness/x86-pmu-sim

if [ $# -gt 0 ]; then
	exec "$SIM" --tree "$KSRC" "$@"
fi

for i in 1 2 3 4 5 6; do
	echo
	echo "######## scenario $i"
	"$SIM" --tree "$KSRC" --scenario $i || exit 1
done
echo
echo "######## exhaustive: every mask tuple of 4 events on 4 counters"
"$SIM" --exhaustive 4
