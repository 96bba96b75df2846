#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A pinned group across the switch of ht_bug_workaround from 0 to 1, with
# perf stat as a user runs it: with the workaround off, CPU B counts four
# corrupting events system-wide and CPU A the pinned group
#
#   perf stat -C A -e '{branches:u,branch-misses:u}:D' -- sleep 3
#
# both on the same counters, which is allowed then. One second in, a
# process on CPU A writes 1: from then on the group's events may not share
# a counter index with the sibling's corrupting events, and every CPU
# reschedules. The sibling must give counters back (its corrupting events
# were placed while the workaround was off, and must count as competing at
# once) so that the group waits for them instead of going into error: each
# of $RUNS runs must count the group ("<not counted>" is an event in error)
# for at least $MIN_PCT% of its enabled time. Skipped without the knob.

RUNS=5
MIN_PCT=90

. /tests/host/siblings.sh
orig=
pb=
trap 'kill $la $lb $pb 2>/dev/null; [ -n "$orig" ] && echo "$orig" > "$KNOB"' EXIT
if [ ! -w "$KNOB" ]; then
	echo "SKIP: no $KNOB (the erratum cannot occur, or the kernel cannot switch the workaround)"
	exit 4
fi
orig=$(cat "$KNOB")

status=0
counted=0
worst=100
i=1
while [ $i -le $RUNS ]; do
	echo 0 > "$KNOB"
	perf stat --no-big-num -C "$b" -e r81d0:u,r82d0:u,r01d1:u,r02d1:u \
		-o /tmp/holder.txt &
	pb=$!
	sleep 1
	perf stat --no-big-num -C "$a" -e '{branches:u,branch-misses:u}:D' \
		-o /tmp/pinned.txt -- sleep 3 &
	pp=$!
	sleep 1
	taskset -c "$a" sh -c "echo 1 > $KNOB"
	wait $pp
	kill -INT $pb 2>/dev/null
	wait $pb 2>/dev/null
	pb=
	echo "== run $i: perf stat -C $a -e '{branches:u,branch-misses:u}:D' while CPU $b counts r81d0:u,r82d0:u,r01d1:u,r02d1:u; ht_bug_workaround 0, then 1 after one second"
	grep -v '^$' /tmp/pinned.txt | grep -v '^#'
	ok=1
	for ev in branches:u branch-misses:u; do
		p=$(pct /tmp/pinned.txt "$ev")
		if awk -v p="$p" -v m="$MIN_PCT" 'BEGIN { exit !(p < m) }'; then
			ok=0
		fi
		if awk -v p="$p" -v w="$worst" 'BEGIN { exit !(p < w) }'; then
			worst=$p
		fi
	done
	counted=$((counted + ok))
	i=$((i + 1))
done
echo "== the sibling's flexible corrupting events in the last run:"
grep -v '^$' /tmp/holder.txt | grep -v '^#'

echo "pinned group counted across the switch to 1, for at least $MIN_PCT% of its time, in $counted of $RUNS runs (lowest share $worst%)"
[ $counted -eq $RUNS ] || status=1
exit $status
