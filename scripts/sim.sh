#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make sim: build the scheduling simulator (tools/testing/x86-pmu) and run
# the six regression scenarios of the simulator issue, each policy side
# by side. make sim ARGS="..." runs build/harness/x86-pmu-sim with ARGS
# instead (see x86-pmu-sim --help).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/setup.sh" || die "setup failed"
"$TOP/scripts/prepare-tree.sh" > /dev/null || die "the base tree could not be prepared"
make -s -C "$TOP/tools/testing/x86-pmu" KSRC="$KSRC" O="$BUILD/harness" \
	"$BUILD/harness/x86-pmu-sim" || die "the simulator does not build"
SIM=$BUILD/harness/x86-pmu-sim

if [ $# -gt 0 ]; then
	exec "$SIM" --tree "$KSRC" "$@"
fi

scenario() {
	echo
	echo "######## $1"
	shift
	echo "\$ x86-pmu-sim $*"
	"$SIM" --tree "$KSRC" "$@" || exit 1
}

S1_0=r81d0:u,r08d1:u,r20cc:u
S1_1=r20cc:u,r81d0:u,r08d1:u
S3=r81d0,r02c4,r20cc,r10c4,r08c4
S4=r81d0,r08d1,r10d1,r01d1,r02c4,r20cc,r10c4,r08c4,r01c9,r04c8

scenario "1. HSW, XSU on: HT0 from tick 0, HT1 from tick 30" \
	--ht0 $S1_0 --ht1 $S1_1 --start1 30 --ticks 90 --matcher hk \
	--xsu upstream,series,research
scenario "2. the same lists with XSU off: which events are exposed" \
	--ht0 $S1_0 --ht1 $S1_1 --start1 30 --ticks 90 --matcher hk --xsu off
scenario "3. 1 corrupting + 4 other events on both threads, XSU off vs on" \
	--ht0 $S3 --ht1 $S3 --ticks 100 --matcher hk --xsu off,series,research
scenario "4. 10 events, 4 corrupting, on both threads" \
	--ht0 $S4 --ht1 $S4 --ticks 100 --matcher all --xsu off,series
scenario "5. four corrupting events on HT0, branches on HT1: starvation" \
	--ht0 r81d0,r08d1,r10d1,r01d1 --ht1 branches --start1 1 --ticks 100 \
	--matcher hk --xsu upstream,series,research
scenario "6. -C 0x6,0x8,0x9,0xb: greedy places 3 per pass, hk 4" \
	--model generic --counters 4 -C 0x6,0x8,0x9,0xb --ticks 40
scenario "exhaustive: every mask tuple of 4 events on 4 counters" --exhaustive 4
