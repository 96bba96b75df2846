#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# With ht_bug_workaround at 0 the XSU core lock is never taken: a
# scheduling pass, an event leaving and the PMU's re-enable all skip it,
# so the two threads of a core do not bounce its cache line on every
# context switch. Counted by lock statistics (CONFIG_LOCK_STAT,
# /proc/lock_stat, Documentation/locking/lockstat.rst): the lock class
# "&xc->lock" may not gain an acquisition while both threads schedule
# events with the knob at 0 (perf stat on each CPU, and a per-task event
# that follows a task switching between them), and must gain some with
# it at 1, or the check could not fail. Skips without the knob or without
# lock statistics.

. /tests/host/siblings.sh
LOCK_STAT=/proc/lock_stat
trap 'kill $la $lb 2>/dev/null; [ -n "$orig" ] && echo "$orig" > "$KNOB"' EXIT
orig=
if [ ! -e "$KNOB" ]; then
	echo "SKIP: no $KNOB: the erratum cannot occur here"
	exit 4
fi
if [ ! -w "$LOCK_STAT" ]; then
	echo "SKIP: no $LOCK_STAT (CONFIG_LOCK_STAT)"
	exit 4
fi
orig=$(cat "$KNOB")

# acquisitions: the XSU lock's acquisitions since the last reset (its
# class line in /proc/lock_stat: name, con-bounces, contentions, waittime
# min/max/total/avg, acq-bounces, acquisitions, ...).
acquisitions() {
	awk '$1 == "&xc->lock:" && NF == 13 { print $(NF - 4); found = 1; exit }
	     END { if (!found) print 0 }' "$LOCK_STAT"
}

# workload: events scheduled on both threads, on both ways the kernel
# reschedules them (a CPU-wide event, a per-task one across a migration).
workload() {
	perf stat --no-big-num -C "$a" -e r00c4:u,r81d0:u -o /tmp/lockstat-a.txt -- sleep 1 &
	pa=$!
	perf stat --no-big-num -C "$b" -e r00c5:u,r82d0:u -o /tmp/lockstat-b.txt -- sleep 1
	wait $pa
	perf stat --no-big-num -e r00c4:u,r01d1:u -o /tmp/lockstat-t.txt -- \
		sh -c "taskset -c $a true; taskset -c $b true; x86pmu-load $a 0.2; x86pmu-load $b 0.2"
}

status=0
echo 0 > "$KNOB"
echo 0 > "$LOCK_STAT"
workload
off=$(acquisitions)
echo 1 > "$KNOB"
echo 0 > "$LOCK_STAT"
workload
on=$(acquisitions)
echo "XSU core lock acquisitions during the same workload: $off with the workaround off, $on with it on"
if [ "$off" -ne 0 ]; then
	echo "FAIL: the lock was taken $off times with the workaround off"
	status=1
fi
if [ "$on" -eq 0 ]; then
	echo "FAIL: no acquisition with the workaround on: the check cannot see the lock"
	grep -c . "$LOCK_STAT"
	status=1
fi
exit $status
