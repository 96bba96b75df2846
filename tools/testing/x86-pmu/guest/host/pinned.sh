#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A pinned group beside a sibling that holds every counter with flexible
# corrupting events, with perf stat as a user runs it: CPU B counts four
# corrupting events system-wide, then
#
#   perf stat -C A -e '{branches:u,branch-misses:u}:D' -- sleep 1
#
# runs $RUNS times (PINNED_RUNS from the environment, which the kernel
# command line sets for /init: PINNED_RUNS=40). The group's events are
# not corrupting, so they may not share a counter index with the
# sibling's corrupting events. 6.12 halves
# the GP counters of both threads while a corrupting event is present, so
# the group always finds two; the series must get them back from the
# sibling (its arbitration, and -EBUSY so that the pinned group waits
# instead of going into error). Every run must count the group (no
# "<not counted>"), for at least $MIN_PCT% of the time it was enabled.
# Where the erratum cannot occur (no knob) the sibling blocks nothing and
# the same must hold.

RUNS=${PINNED_RUNS:-5}
MIN_PCT=90

. /tests/host/siblings.sh
pb=
trap 'kill $la $lb $pb 2>/dev/null' EXIT

# No workload: it counts until interrupted.
perf stat --no-big-num -C "$b" -e r81d0:u,r82d0:u,r01d1:u,r02d1:u \
	-o /tmp/holder.txt &
pb=$!
sleep 1

status=0
counted=0
worst=100
i=1
while [ $i -le $RUNS ]; do
	perf stat --no-big-num -C "$a" -e '{branches:u,branch-misses:u}:D' \
		-o /tmp/pinned.txt -- sleep 1
	echo "== run $i: perf stat -C $a -e '{branches:u,branch-misses:u}:D' while CPU $b counts r81d0:u,r82d0:u,r01d1:u,r02d1:u"
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
kill -INT $pb 2>/dev/null
# perf stat prints its counts and exits on SIGINT; if it is still there
# after 20 s, say where it is stuck, then kill it.
t=0
while [ -d /proc/$pb ] && [ $t -lt 20 ]; do
	sleep 1
	t=$((t + 1))
done
if [ -d /proc/$pb ]; then
	echo "FAIL: the holder's perf stat (pid $pb) did not exit on SIGINT:"
	grep -E '^(State|SigIgn|SigCgt|SigBlk)' /proc/$pb/status
	for task in /proc/$pb/task/*; do
		echo "task ${task##*/}: $(cat $task/wchan 2>/dev/null)"
		cat $task/stack 2>/dev/null
	done
	kill -KILL $pb 2>/dev/null
	status=1
fi
wait $pb 2>/dev/null
pb=
echo "== the sibling's flexible corrupting events meanwhile:"
grep -v '^$' /tmp/holder.txt | grep -v '^#'

echo "pinned group counted for at least $MIN_PCT% of its time in $counted of $RUNS runs (lowest share $worst%)"
[ $counted -eq $RUNS ] || status=1
exit $status
