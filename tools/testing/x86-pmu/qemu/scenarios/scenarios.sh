#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The scheduling simulator's scenarios (tools/testing/x86-pmu/sim_scenarios.c)
# on the emulated host, with perf stat as a user runs it: one perf stat per
# thread of the core, system-wide on that CPU, with the scenario's event
# list, start and length. A tick of the simulator is one multiplexing
# interval, set here to $MUX_MS; every scenario runs $SCALE times as many
# ticks as the simulator's, so that a tick of timing noise between the two
# siblings weighs less. Per scenario it prints its parameters, for the
# simulator to replay:
#
#   scenario S xsu on|off ticks T start1 S1 ht0 LIST0 ht1 LIST1
#
# for every event the fraction of time it ran (perf's bracket figure, 100%
# when perf prints none):
#
#   scenario S thread T event E running P
#
# and what the emulator's ledger saw on the core meanwhile:
#
#   scenario S ledger leaked N exposed_ns T
#
# scripts/host-vs-sim.sh compares these lines with the simulator.
# Scenarios: 1 (XSU on, HT1 joins at tick 30), 2 (the same, workaround
# off), 5 (four corrupting events on HT0, branches on HT1).

MUX=/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms
MUX_MS=${MUX_MS:-30}
SCALE=${SCALE:-3}

. /tests/host/siblings.sh
orig_mux=$(cat $MUX)
echo "$MUX_MS" > $MUX
orig_knob=
[ -e $KNOB ] && orig_knob=$(cat $KNOB)
restore() {
	kill $la $lb 2>/dev/null
	echo "$orig_mux" > $MUX
	[ -n "$orig_knob" ] && echo "$orig_knob" > $KNOB
}
trap restore EXIT

# secs TICKS: the length of TICKS multiplexing intervals, in seconds.
secs() {
	awk -v t="$1" -v ms="$MUX_MS" 'BEGIN { printf "%.3f", t * ms / 1000 }'
}

# fractions S T FILE: one line per event of a perf stat output.
fractions() {
	awk -v s="$1" -v t="$2" '
		/^ *([0-9]+|<not counted>|<not supported>) / {
			if ($1 == "<not") { ev = $3; p = 0 }
			else {
				ev = $2; p = 100
				if (match($0, /\(([0-9.]+)%\)/))
					p = substr($0, RSTART + 1, RLENGTH - 3)
			}
			printf "scenario %s thread %s event %s running %s\n", s, t, ev, p
		}' "$3"
}

# ledger: the core's leaked count and exposure so far ("0 0" without one).
ledger() {
	x86pmu-ledger "$a" 2>/dev/null |
		sed -n 's/^leaked=\([0-9]*\) exposed_ns=\([0-9]*\).*/\1 \2/p' | grep . ||
		echo "0 0"
}

# scenario S KNOB LIST0 LIST1 START1 TICKS (the simulator's ticks)
scenario() {
	s=$1 knob=$2 l0=$3 l1=$4 start1=$(($5 * SCALE)) ticks=$(($6 * SCALE))
	if [ "$knob" = 0 ] && [ ! -e $KNOB ]; then
		echo "scenario $s: skipped, no $KNOB to switch the workaround off"
		return
	fi
	[ -e $KNOB ] && echo "$knob" > $KNOB
	xsu=on
	[ "$knob" = 0 ] && xsu=off
	set -- $(ledger)
	leaked0=$1 exposed0=$2
	echo "== scenario $s: CPU $a: $l0 for $ticks ticks; CPU $b: $l1 from tick $start1 (tick = $MUX_MS ms${orig_knob:+, ht_bug_workaround=$knob})"
	echo "scenario $s xsu $xsu ticks $ticks start1 $start1 ht0 $l0 ht1 $l1"
	# Both start together, so that perf's own start-up (long under
	# emulation) delays both alike; the second counts from its tick on.
	perf stat --no-big-num -C "$a" -e "$l0" -o /tmp/s0.txt -- sleep "$(secs "$ticks")" &
	p0=$!
	perf stat --no-big-num -C "$b" -e "$l1" -D $((start1 * MUX_MS)) -o /tmp/s1.txt \
		-- sleep "$(secs "$ticks")"
	wait $p0
	grep -v '^$' /tmp/s0.txt
	grep -v '^$' /tmp/s1.txt
	fractions "$s" 0 /tmp/s0.txt
	fractions "$s" 1 /tmp/s1.txt
	set -- $(ledger)
	echo "scenario $s ledger leaked $(($1 - leaked0)) exposed_ns $(($2 - exposed0))"
}

scenario 1 1 r81d0:u,r08d1:u,r20cc:u r20cc:u,r81d0:u,r08d1:u 30 90
scenario 2 0 r81d0:u,r08d1:u,r20cc:u r20cc:u,r81d0:u,r08d1:u 30 90
scenario 5 1 r81d0,r08d1,r10d1,r01d1 branches 1 100
exit 0
