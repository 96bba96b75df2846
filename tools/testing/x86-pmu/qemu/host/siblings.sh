# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the experiments on the emulated host (not run: not
# executable). Sets $a and $b to CPU 0 and its sibling thread, skipping the
# test where there is none, and starts a load loop on each; $la and $lb are
# the loops' pids, for the caller to kill.
KNOB=/sys/bus/event_source/devices/cpu/ht_bug_workaround

set -- $(tr ',-' '  ' < /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
a=$1
b=${2:-}
if [ -z "$b" ]; then
	echo "SKIP: CPU 0 has no sibling thread"
	exit 4
fi

x86pmu-load "$a" &
la=$!
x86pmu-load "$b" &
lb=$!
