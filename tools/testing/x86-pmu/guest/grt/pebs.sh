#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# On the emulated Gracemont host (Alder Lake-N, family 6 model 0xbe: six
# GP counters, three fixed, adaptive PEBS; qemu/README.md): two
# instructions:ppp and the PEBS load latency event fit the PMU, but plain
# 7.3's greedy perf_assign_events() cannot place them together.
# tnt_get_event_constraints() gives instructions:ppp fixed counter 0 or
# GP counter 0 (the reduced-skid PEBS of Gracemont), and
# intel_grt_pebs_event_constraints gives the load latency event (raw
# 0x5d0 with ldlat) GP counters 0-1. The greedy puts the load latency
# event on counter 0, the first instructions:ppp on fixed counter 0, and
# the second finds nothing; GP counter 1, GP counter 0 and fixed counter 0
# fit all three, which part 2's matcher finds. The order matters to the
# greedy: the three weigh the same (two counters each), so it takes them
# in the order perf adds them, the order of the command line; only with
# the load latency event last does it place them (fixed counter 0, GP
# counter 0, GP counter 1). The set is given load latency first:
#
#   LDLAT=cpu/event=0xd0,umask=0x5,ldlat=3/pp
#   the set: $LDLAT, instructions:ppp, instructions:ppp
#
# On CPU 1, loaded by x86pmu-load, with the NMI watchdog off:
#   1. the three as single events and as one group, counted for $SHARE_S s
#      with their enabled and running times (x86pmu-share, share.c: what
#      perf stat would print; perf stat itself cannot count precise events,
#      step 2);
#   2. perf stat of the three as a user types it, for the record: the
#      kernel refuses a precise event that does not sample, on any kernel;
#   3. perf record of the three as single events, then as one group, with
#      a fixed period for $RECORD_S s, and perf report's header per event;
#   4. perf mem record, for the record (perf's own load latency event).
# Lines for the reader (README, "Gracemont"):
#
#   grt pebs kernel <the kernel's PEBS banner>
#   grt share singles|group events 3 counted C min P
#   grt stat events 3 counted C
#   grt record singles|group events 3 reported E sampled S samples T
#   grt mem record samples T
#
# C: events with a non-zero count; P: the lowest share of its enabled time
# an event counted (0 for a group the kernel refuses); E: events perf
# report has a header for; S: those with samples; T: samples, as perf
# rounds them ("8K"). Counts are the emulator's (qemu/README.md): only
# zero or non-zero is judged, never a value.
#
# Asserted only where the boot says the kernel places the set,
# "x86pmu.expect=placed" (scripts/qemu-run.sh gives it to the series'
# boot): every event counted, 100% of its time, alone and in the group,
# and both records have samples of all three events. Without it (plain
# 7.3) the script reports and passes.

SHARE_S=${GRT_SHARE_S:-3}
RECORD_S=${GRT_RECORD_S:-3}
PERIOD=100003
CPU=1
LDLAT=cpu/event=0xd0,umask=0x5,ldlat=3/pp
SET="$LDLAT,instructions:ppp,instructions:ppp"

if ! grep -q '^model[[:space:]]*: 190$' /proc/cpuinfo ||
   ! grep -q '^vendor_id[[:space:]]*: GenuineIntel$' /proc/cpuinfo; then
	echo "SKIP: not a Gracemont (Alder Lake-N) host"
	exit 4
fi
banner=$(dmesg | sed -n 's/.*Performance Events: \(PEBS[^,]*\),.*/\1/p' | head -1)
echo "grt pebs kernel ${banner:-none}"
expect=
grep -qw 'x86pmu.expect=placed' /proc/cmdline && expect=placed
echo "kernel: $(uname -r); expected: ${expect:-nothing (reported only)}"

status=0
fail() {
	echo "FAIL: $*"
	status=1
}
[ -n "$banner" ] || fail "the kernel set up no PEBS"

WATCHDOG=/proc/sys/kernel/nmi_watchdog
orig_wd=
[ -e $WATCHDOG ] && { orig_wd=$(cat $WATCHDOG); echo 0 > $WATCHDOG; }
x86pmu-load $CPU &
load=$!
trap 'kill $load 2>/dev/null; [ -n "$orig_wd" ] && echo "$orig_wd" > $WATCHDOG' EXIT

# 1. enabled and running times
for mode in singles group; do
	echo "== x86pmu-share $CPU $mode $SHARE_S"
	x86pmu-share $CPU $mode "$SHARE_S" > /tmp/grt-share.txt 2>&1 ||
		fail "x86pmu-share $mode: exit $?"
	cat /tmp/grt-share.txt
	set -- $(grep "^share $mode events " /tmp/grt-share.txt)
	echo "grt share $mode events ${4:-0} counted ${6:-0} min ${8:-0}"
	[ "$expect" = placed ] || continue
	[ "${6:-0}" = 3 ] || fail "$mode: ${6:-0} of 3 events counted"
	[ "${8:-0}" = 100.00 ] || fail "$mode: an event counted ${8:-0}% of its time, not 100%"
done

# 2. perf stat as typed
echo "== perf stat -C $CPU -e '$SET' -- sleep 1"
perf stat --no-big-num -C $CPU -e "$SET" -o /tmp/grt-stat.txt -- sleep 1 2>&1
grep -v '^$' /tmp/grt-stat.txt
echo "grt stat events 3 counted $(grep -c '^ *[0-9][0-9]* ' /tmp/grt-stat.txt)"

# 3. perf record, singles and group: perf report's "# Samples: N of
# event 'E'" lines say which events have samples.
record() {
	echo "== perf record -c $PERIOD -C $CPU -e '$2' -- sleep $RECORD_S"
	perf record -q -c $PERIOD -C $CPU -e "$2" -o /tmp/grt.data -- sleep "$RECORD_S" 2>&1 ||
		{ [ "$expect" != placed ] || fail "$1 record: perf record failed"; }
	perf report -i /tmp/grt.data --no-group --stdio --sort cpu > /tmp/grt-report.txt 2>&1
	grep '^# Samples' /tmp/grt-report.txt
	set -- "$1" $(x86pmu-samples /tmp/grt-report.txt)
	echo "grt record $1 events 3 reported $2 sampled $3 samples $4"
	rm -f /tmp/grt.data
	[ "$expect" = placed ] || return 0
	[ "$2" = 3 ] || fail "$1 record: $2 events in perf report, not 3"
	[ "$3" = 3 ] || fail "$1 record: $3 of 3 events have samples"
}
record singles "$SET"
record group "{$SET}"

# 4. perf mem record: perf's load latency event (mem-loads, ldlat=30)
echo "== perf mem record -C $CPU -- sleep 1"
perf mem record -o /tmp/grt-mem.data -C $CPU -- sleep 1 > /tmp/grt-mem.txt 2>&1
grep -v 'libbpf\|schedstat' /tmp/grt-mem.txt
perf mem report -i /tmp/grt-mem.data --stdio > /tmp/grt-mem-report.txt 2>&1
grep '^# Samples\|^# Total weight' /tmp/grt-mem-report.txt
echo "grt mem record samples $(awk '/^# Samples: /{ print $3; exit }' /tmp/grt-mem-report.txt)"
rm -f /tmp/grt-mem.data
exit $status
