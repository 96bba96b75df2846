# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the experiments on the emulated host (not run: not
# executable). Sets $a and $b to CPU 0 and its sibling thread, skipping the
# test where there is none, and starts a load loop on each; $la and $lb are
# the loops' pids, for the caller to kill. Defines pct() for reading perf
# stat's output and knob_on.
KNOB=/sys/bus/event_source/devices/cpu/ht_bug_workaround

# pct FILE EVENT: the share of its enabled time EVENT ran, in percent
# (100 when perf stat prints none), or -1 when it was not counted.
pct() {
	awk -v ev="$2" '
		index($0, ev) {
			found = 1
			if ($0 ~ /not counted|not supported/) { print -1; exit }
			p = 100
			if (match($0, /\([0-9.]+%\)/))
				p = substr($0, RSTART + 1, RLENGTH - 3)
			print p
			exit
		}
		END { if (!found) print -1 }' "$1"
}

# knob_on: the workaround on, where the knob exists, until the script exits;
# then the loops are killed and the knob gets its value back.
knob_on() {
	orig=
	if [ -e "$KNOB" ]; then
		orig=$(cat "$KNOB")
		echo 1 > "$KNOB"
	fi
	trap 'kill $la $lb 2>/dev/null; [ -n "$orig" ] && echo "$orig" > "$KNOB"' EXIT
}

set -- $(tr ',-' '  ' < /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
a=$1
b=${2:-}
if [ -z "$b" ]; then
	echo "SKIP: CPU 0 has no sibling thread"
	exit 4
fi

# LOAD_NICE (default 0): the loops' nice value. The scenarios count
# system-wide and set 19, so that perf's start-up, which is CPU-bound under
# emulation, is not slowed by them; the loops still fill the time perf
# sleeps in, the measurement itself.
x86pmu-load "$a" &
la=$!
x86pmu-load "$b" &
lb=$!
[ "${LOAD_NICE:-0}" = 0 ] || renice "$LOAD_NICE" -p "$la" "$lb" > /dev/null
