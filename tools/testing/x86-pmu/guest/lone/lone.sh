#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The events a user types first, alone on CPU A beside four corrupting
# events counted on its sibling B (x86pmu-lone, lone.c): cycles,
# instructions, a raw GP event, a group with a software leader and a group
# of two hardware events, per task and CPU-wide, counting and sampling,
# with the NMI watchdog on (as the kernel boots: its cycles event holds
# fixed counter 1 of each thread) and then off. Every event must run some
# of its time and count, with the watchdog on and off; where the kernel
# has the workaround (the knob), the emulator's ledger may not move.
# scripts/lone-table.sh sets each kernel's shares beside plain 7.3's.
#
# LONE_S (kernel command line) changes the seconds per case (default 1).

S=${LONE_S:-1}
WATCHDOG=/proc/sys/kernel/nmi_watchdog

. /tests/host/siblings.sh
orig=
[ -e "$KNOB" ] && { orig=$(cat "$KNOB"); echo 1 > "$KNOB"; }
orig_wd=
[ -e $WATCHDOG ] && orig_wd=$(cat $WATCHDOG)
restore() {
	kill $la $lb 2>/dev/null
	[ -n "$orig" ] && echo "$orig" > "$KNOB"
	[ -n "$orig_wd" ] && echo "$orig_wd" > $WATCHDOG
}
trap restore EXIT

leaked() {
	x86pmu-ledger "$a" 2>/dev/null | sed -n 's/^leaked=\([0-9]*\).*/\1/p'
}

status=0
before=$(leaked)
for wd in on off; do
	if [ -e $WATCHDOG ]; then
		[ $wd = on ] && echo 1 > $WATCHDOG || echo 0 > $WATCHDOG
	elif [ $wd = off ]; then
		break
	fi
	echo "lone watchdog $wd: nmi_watchdog=$(cat $WATCHDOG 2>/dev/null || echo none)"
	x86pmu-lone "$a" "$b" "$S" > /tmp/lone.out || status=1
	sed "s/^lone /lone watchdog=$wd /" /tmp/lone.out
	while read -r _ mode kind ev _ pct _ count; do
		case $pct in
		0|0.00) echo "FAIL: watchdog $wd: $ev ($mode, $kind) never ran"
			status=1 ;;
		esac
		[ "$count" = 0 ] && { echo "FAIL: watchdog $wd: $ev ($mode, $kind) counted 0"; status=1; }
	done < /tmp/lone.out
	[ "$(grep -c '^lone ' /tmp/lone.out)" = 20 ] ||
		{ echo "FAIL: watchdog $wd: $(grep -c '^lone ' /tmp/lone.out) of 20 cases ran"; status=1; }
done
after=$(leaked)
if [ -n "$before" ] && [ -n "$after" ]; then
	echo "lone ledger leaked $((after - before))"
	if [ -e "$KNOB" ] && [ "$after" != "$before" ]; then
		echo "FAIL: the sibling leaked with the workaround on"
		status=1
	fi
fi
exit $status
