#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf as users run it, with perf's own event tables: an event by its name
# from the model's JSON table, and a metric group (-M) expanded by perf.
# The counts are the emulator's (mostly synthetic, qemu/README.md): only
# that they are there is checked, not what they are.

. /tests/host/siblings.sh
trap 'kill $la $lb 2>/dev/null' EXIT
status=0

model=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)
case $model in
60) event=MEM_UOPS_RETIRED.ALL_LOADS ;;	# Haswell
42|58) event=MEM_UOPS_RETIRED.ALL_LOADS ;;	# SandyBridge, IvyBridge
*) event=BR_INST_RETIRED.ALL_BRANCHES ;;
esac

echo "== perf stat -C $a -e $event:u (a name from perf's table for model $model)"
perf stat --no-big-num -C "$a" -e "$event:u" -o /tmp/n.txt -- sleep 0.5
grep -v '^$' /tmp/n.txt
if ! awk -v ev="$event:u" 'tolower($2) == tolower(ev) && $1 ~ /^[0-9]+$/ && $1 > 0 { ok = 1 }
		END { exit !ok }' /tmp/n.txt; then
	echo "FAIL: $event did not count"
	status=1
fi

echo "== perf stat -M TopdownL1 -C $a (a metric group from perf's table)"
perf stat --no-big-num -M TopdownL1 -C "$a" -o /tmp/m.txt -- sleep 0.5
grep -v '^$' /tmp/m.txt
if ! grep -q 'tma_' /tmp/m.txt; then
	echo "FAIL: perf printed no TopdownL1 metric"
	status=1
fi
exit $status
