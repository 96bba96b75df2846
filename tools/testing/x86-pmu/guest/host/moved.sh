#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A corrupting event that moves down in the scheduling pass keeps its
# counter index to itself (x86pmu-moved, moved.c): $RUNS times, with the
# workaround on and both threads loaded, the emulator's ledger may not
# move. Where the knob is absent (6.12; an unaffected model, whose ledger
# never moves) it runs as the kernel has it.

RUNS=5

. /tests/host/siblings.sh
knob_on

status=0
clean=0
i=1
while [ $i -le $RUNS ]; do
	echo "== run $i"
	x86pmu-moved "$a" "$b"
	r=$?
	[ $r -eq 4 ] && exit 4
	[ $r -eq 0 ] && clean=$((clean + 1))
	i=$((i + 1))
done
echo "no leak and no exposure in $clean of $RUNS runs"
[ $clean -eq $RUNS ] || status=1
exit $status
