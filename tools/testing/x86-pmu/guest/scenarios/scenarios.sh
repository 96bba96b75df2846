#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The scheduling simulator's scenarios (tools/testing/x86-pmu/sim/sim_scenarios.c)
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
# Then perf's metric groups as users run them, XSU on, for $METRIC_TICKS
# ticks: one perf stat -M GROUP -A on both siblings, which enables the
# second CPU's list a few ticks after the first (two perf stats started
# together enabled theirs up to 63 ticks apart under load):
#
#   metrics G xsu on ticks T
#   metrics G thread T event E running P
#   metrics G ledger leaked N exposed_ns T
#
# and when each sibling rotated its list. Both run the same list, each
# rotating it on its own multiplexing hrtimer; a vCPU that does not run
# when its timer is due (the emulator's host busy elsewhere) loses the
# rotations it missed (hrtimer_forward_now()), so the two lists can drift
# out of step, and with the workaround on what one thread can place
# depends on which groups the other has at the head and on which of the
# two rotated last. From the timer's trace (function
# perf_mux_hrtimer_handler; tracepoints timer:hrtimer_start, whose first
# on a CPU is when its list was enabled and a group failed, and
# timer:hrtimer_expire_entry, a rotation), per thread T, in ms after the
# first expiry of either (the simulator replays them,
# scripts/host-vs-sim.sh), and the events the trace buffer lost, if any:
#
#   metrics G interval_ms I
#   metrics G trace_overrun N
#   metrics G enabled T MS
#   metrics G expiries T MS,MS,...
#
# scripts/host-vs-sim.sh compares these lines with the simulator.
# Scenarios: 1 (XSU on, HT1 joins at tick 30), 2 (the same, workaround
# off), 5 (four corrupting events on HT0, branches on HT1). Metric groups
# of perf's Haswell tables: CacheHits (41 events a thread, four of them
# corrupting; weak groups perf opens singly), also with the workaround
# off, and tma_l3_bound_group (44 events, nine corrupting). Each perf stat
# -M takes tens of seconds of CPU to start under emulation: MemoryBound and
# tma_l3_bound_group with the workaround off, compared here before, were
# left out to keep the boot within its share of make check's time.

MUX=/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms
MUX_MS=${MUX_MS:-30}
SCALE=${SCALE:-3}
METRIC_TICKS=${METRIC_TICKS:-600}

LOAD_NICE=19
. /tests/host/siblings.sh
orig_mux=$(cat $MUX)
echo "$MUX_MS" > $MUX
orig_knob=
[ -e $KNOB ] && orig_knob=$(cat $KNOB)
WATCHDOG=/proc/sys/kernel/nmi_watchdog
orig_watchdog=
[ -e $WATCHDOG ] && orig_watchdog=$(cat $WATCHDOG)
restore() {
	kill $la $lb 2>/dev/null
	echo "$orig_mux" > $MUX
	[ -n "$orig_knob" ] && echo "$orig_knob" > $KNOB
	[ -n "$orig_watchdog" ] && echo "$orig_watchdog" > $WATCHDOG
	[ -e "$TIMER_EVENT/enable" ] && echo 0 > "$TIMER_EVENT/enable"
	[ -e "$TIMER_START/enable" ] && echo 0 > "$TIMER_START/enable"
}
trap restore EXIT

# secs TICKS: the length of TICKS multiplexing intervals, in seconds.
secs() {
	awk -v t="$1" -v ms="$MUX_MS" 'BEGIN { printf "%.3f", t * ms / 1000 }'
}

# fractions S T FILE [KIND]: one line per event of a perf stat output. A
# metric's value can push perf's bracket to a continuation line (one that
# starts with "#"): it belongs to the event above.
fractions() {
	awk -v k="${4:-scenario}" -v s="$1" -v t="$2" '
		function flush() {
			if (ev != "")
				printf "%s %s thread %s event %s running %s\n", k, s, t, ev, p
			ev = ""
		}
		function bracket() {
			if (match($0, /\(([0-9.]+)%\)/)) {
				p = substr($0, RSTART + 1, RLENGTH - 3)
				return 1
			}
			return 0
		}
		/^ *([0-9]+|<not counted>|<not supported>) / {
			flush()
			if ($1 == "<not") { ev = $3; p = 0; next }
			ev = $2; p = 100
			bracket()
			next
		}
		/^ *#/ { if (ev != "") bracket(); next }
		{ flush() }
		END { flush() }' "$3"
}

# ledger: the core's leaked count and exposure so far ("0 0" without one).
ledger() {
	x86pmu-ledger "$a" 2>/dev/null |
		sed -n 's/^leaked=\([0-9]*\) exposed_ns=\([0-9]*\).*/\1 \2/p' | grep . ||
		echo "0 0"
}

# knob WHAT KNOB: switch the workaround to KNOB (0 or 1) and set $xsu;
# fails, saying so, where there is no knob to switch it off.
knob() {
	if [ "$2" = 0 ] && [ ! -e $KNOB ]; then
		echo "$1: skipped, no $KNOB to switch the workaround off"
		return 1
	fi
	[ -e $KNOB ] && echo "$2" > $KNOB
	xsu=on
	[ "$2" = 0 ] && xsu=off
	return 0
}

# both KIND NAME TICKS OPTS0 OPTS1: perf stat with OPTS0 on CPU $a and
# OPTS1 on CPU $b, started together (perf's own start-up, long under
# emulation, then delays both alike) for TICKS ticks; prints both outputs,
# the fraction lines and the ledger line of KIND NAME.
both() {
	set -- "$@" $(ledger)
	perf stat --no-big-num -C "$a" $4 -o /tmp/s0.txt -- sleep "$(secs "$3")" &
	p0=$!
	perf stat --no-big-num -C "$b" $5 -o /tmp/s1.txt -- sleep "$(secs "$3")"
	wait $p0
	grep -v '^$' /tmp/s0.txt
	grep -v '^$' /tmp/s1.txt
	fractions "$2" 0 /tmp/s0.txt "$1"
	fractions "$2" 1 /tmp/s1.txt "$1"
	leaked0=$6 exposed0=$7
	set -- "$1" "$2" $(ledger)
	echo "$1 $2 ledger leaked $(($3 - leaked0)) exposed_ns $(($4 - exposed0))"
}

# scenario S KNOB LIST0 LIST1 START1 TICKS (the simulator's ticks); the
# second list counts from its tick on.
scenario() {
	s=$1 l0=$3 l1=$4 start1=$(($5 * SCALE)) ticks=$(($6 * SCALE))
	knob "scenario $s" "$2" || return
	echo "== scenario $s: CPU $a: $l0 for $ticks ticks; CPU $b: $l1 from tick $start1 (tick = $MUX_MS ms${orig_knob:+, ht_bug_workaround=$2})"
	echo "scenario $s xsu $xsu ticks $ticks start1 $start1 ht0 $l0 ht1 $l1"
	both scenario "$s" "$ticks" "-e $l0" "-e $l1 -D $((start1 * MUX_MS))"
}

# together KIND NAME TICKS OPTS: one perf stat with OPTS on CPUs $a and $b
# (-A: a line per CPU and event) for TICKS ticks, so that one process opens
# and enables both lists; prints its output, the fraction lines of each
# CPU (thread 0: $a, 1: $b) and the ledger line of KIND NAME.
together() {
	set -- "$@" $(ledger)
	perf stat --no-big-num -C "$a,$b" -A $4 -o /tmp/s.txt -- sleep "$(secs "$3")"
	grep -v '^$' /tmp/s.txt
	# "CPUn" starts every line of CPU n, a continuation line too: each
	# CPU's lines, without it, are one perf stat output as above.
	for t in 0 1; do
		cpu=$a
		[ $t = 1 ] && cpu=$b
		awk -v c="CPU$cpu" '
			$1 == c { sub(/^CPU[0-9]+/, ""); print; next }
			$1 !~ /^CPU[0-9]+$/' /tmp/s.txt > /tmp/s$t.txt
		fractions "$2" $t /tmp/s$t.txt "$1"
	done
	leaked0=$5 exposed0=$6
	set -- "$1" "$2" $(ledger)
	echo "$1 $2 ledger leaked $(($3 - leaked0)) exposed_ns $(($4 - exposed0))"
}

# rotations_start: trace perf's multiplexing hrtimer from now on: when it
# is started and when it expires (nothing where the kernel has no
# tracing).
TRACING=/sys/kernel/tracing
TIMER_EVENT=$TRACING/events/timer/hrtimer_expire_entry
TIMER_START=$TRACING/events/timer/hrtimer_start
rotations_start() {
	[ -e $TRACING/trace ] || mount -t tracefs nodev $TRACING 2>/dev/null
	[ -e $TIMER_EVENT/enable ] || return 0
	echo 0 > $TRACING/tracing_on
	echo 8192 > $TRACING/buffer_size_kb
	echo > $TRACING/trace
	echo 1 > $TIMER_EVENT/enable
	echo 1 > $TIMER_START/enable
	echo 1 > $TRACING/tracing_on
}

# rotations_report G: the "metrics G interval_ms", "metrics G enabled T"
# and "metrics G expiries T" lines of the trace; then the tracing stops.
# A thread's list was enabled when its timer was first started (a group
# failed); the timer is started again at every expiry that rotates.
rotations_report() {
	[ -e $TIMER_EVENT/enable ] || return 0
	echo 0 > $TRACING/tracing_on
	echo 0 > $TIMER_EVENT/enable
	echo 0 > $TIMER_START/enable
	lost=0
	for c in $a $b; do
		n=$(sed -n 's/^overrun: //p' $TRACING/per_cpu/cpu$c/stats)
		lost=$((lost + ${n:-0}))
	done
	awk -v g="$1" -v a="$a" -v b="$b" -v tick="$MUX_MS" -v lost="$lost" '
		/function=perf_mux_hrtimer_handler / {
			if (!match($0, /\[[0-9]+\]/))
				next
			cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
			if ((cpu != a && cpu != b) || !match($0, / [0-9]+\.[0-9]+: /))
				next
			t = substr($0, RSTART + 1, RLENGTH - 3) * 1000
			tid = cpu == b
			if ($0 ~ / hrtimer_start: /) {
				if (!(tid in enabled))
					enabled[tid] = t
				next
			}
			if (!n || t < first)
				first = t
			n++
			when[n] = t
			thread[n] = tid
		}
		END {
			if (!n)
				exit
			printf "metrics %s interval_ms %d\n", g, tick
			if (lost)
				printf "metrics %s trace_overrun %d\n", g, lost
			for (t = 0; t < 2; t++) {
				if (t in enabled)
					printf "metrics %s enabled %d %.3f\n", g, t,
					       enabled[t] - first
				line = ""
				for (i = 1; i <= n; i++)
					if (thread[i] == t)
						line = line (line == "" ? "" : ",") \
						       sprintf("%.3f", when[i] - first)
				printf "metrics %s expiries %d %s\n", g, t, line
			}
		}' $TRACING/trace
	echo > $TRACING/trace
}

# metrics GROUP [KNOB]: perf stat -M GROUP on both siblings, the workaround
# on (KNOB 1, the default) or off (0). The NMI watchdog is off meanwhile,
# as perf itself advises a metric user: its pinned cycles event would hold
# fixed counter 1 on each CPU, which the simulator does not model.
metrics() {
	knob "metric group $1" "${2:-1}" || return
	echo "== metric group $1: perf stat -M $1 on CPU $a and CPU $b for $METRIC_TICKS ticks (tick = $MUX_MS ms)"
	echo "metrics $1 xsu $xsu ticks $METRIC_TICKS"
	rotations_start
	together metrics "$1" "$METRIC_TICKS" "-M $1"
	rotations_report "$1"
}

scenario 1 1 r81d0:u,r08d1:u,r20cc:u r20cc:u,r81d0:u,r08d1:u 30 90
scenario 2 0 r81d0:u,r08d1:u,r20cc:u r20cc:u,r81d0:u,r08d1:u 30 90
scenario 5 1 r81d0,r08d1,r10d1,r01d1 branches 1 100
[ -n "$orig_watchdog" ] && echo 0 > $WATCHDOG
metrics CacheHits
metrics tma_l3_bound_group
metrics CacheHits 0
exit 0
