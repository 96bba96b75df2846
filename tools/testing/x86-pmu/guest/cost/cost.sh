#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a context switch costs the kernel with perf events, in instructions
# the emulator counted at CPL 0 (x86pmu-switchcost, switchcost.c): two
# tasks on CPU 0 ping-pong COST_ROUNDS times (default 600) with N = 0, 2,
# 4 and 8 per-task events each, plain or corrupting, with the workaround on
# and off where the knob exists; every case REPS times (default 3), the
# cases interleaved so that a drift of the host's speed spreads over all.
# The multiplexing interval is 10 s meanwhile: eight events do not fit,
# and rotating them every few milliseconds would add a timer's work that
# depends on how fast the emulator ran, not on the switch. Prints a line
# "cost ..." per run (in the console: "# cost ...") for
# scripts/switch-cost.sh, which sets the boots' figures side by side;
# fails only when a run fails.

ROUNDS=${COST_ROUNDS:-600}
REPS=${COST_REPS:-3}
KNOB=/sys/bus/event_source/devices/cpu/ht_bug_workaround

if [ ! -e /dev/cpu/0/msr ]; then
	echo "SKIP: no /dev/cpu/0/msr"
	exit 4
fi
orig=
knobs=none
if [ -e "$KNOB" ]; then
	orig=$(cat "$KNOB")
	knobs="1 0"
fi

MUX=/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms
mux=$(cat "$MUX")
trap 'echo "$mux" > "$MUX"; [ -n "$orig" ] && echo "$orig" > "$KNOB"' EXIT
echo 10000 > "$MUX"

status=0
rep=1
while [ $rep -le "$REPS" ]; do
	for k in $knobs; do
		[ "$k" = none ] || echo "$k" > "$KNOB"
		for case in "0 plain" "2 plain" "4 plain" "8 plain" \
			    "2 corrupting" "4 corrupting" "8 corrupting"; do
			set -- $case
			out=$(x86pmu-switchcost 0 "$1" "$2" "$ROUNDS") || {
				echo "FAIL: x86pmu-switchcost 0 $1 $2 $ROUNDS"
				status=1
				continue
			}
			case $k in 1) w=on ;; 0) w=off ;; *) w=fixed ;; esac
			echo "cost knob=$w rep=$rep ${out#switchcost }"
		done
	done
	rep=$((rep + 1))
done
exit $status
