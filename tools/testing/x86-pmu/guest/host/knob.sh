#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The thesis' first experiment (chapter 7), with perf stat as a user runs
# it: both threads of a core run a load loop; MEM_UOPS_RETIRED.ALL_LOADS
# (r81d0:u, a corrupting event) is counted on one thread and
# ROB_MISC_EVENTS.LBR_INSERTS (r20cc:u, which cannot occur here: nothing
# uses the LBR) on its sibling, with ht_bug_workaround at 0, then at 1.
# The victim must read 0 with the workaround on and be over-counted with
# it off: under the emulator, by exactly what its ledger says leaked. Where the knob is absent (6.12, whose workaround cannot be
# switched off) the experiment runs once, as the kernel has it.

SECONDS_EACH=2

. /tests/host/siblings.sh
trap 'kill $la $lb 2>/dev/null' EXIT

# count FILE EVENT: the count perf stat printed for EVENT, or -1.
count() {
	awk -v ev="$2" '$2 == ev { print ($1 ~ /^[0-9]+$/) ? $1 : -1; found = 1 }
		END { if (!found) print -1 }' "$1"
}

# experiment LABEL: perf stat on both threads at once; prints both outputs
# and sets $victim.
experiment() {
	before=$(x86pmu-ledger "$a" 2>/dev/null)
	perf stat --no-big-num -C "$a" -e r81d0:u -o /tmp/a.txt -- sleep $SECONDS_EACH &
	pa=$!
	perf stat --no-big-num -C "$b" -e r20cc:u -o /tmp/b.txt -- sleep $SECONDS_EACH
	wait $pa
	echo "== $1: perf stat -C $a -e r81d0:u and, at the same time, perf stat -C $b -e r20cc:u"
	grep -v '^$' /tmp/a.txt
	grep -v '^$' /tmp/b.txt
	victim=$(count /tmp/b.txt r20cc:u)
	loads=$(count /tmp/a.txt r81d0:u)
	# What the emulator's ledger of the core saw meanwhile, if there is
	# one (it is never reset: the host reads the whole boot's at exit).
	exposed=0
	leaked=-1
	if after=$(x86pmu-ledger "$a" 2>/dev/null); then
		l0=$(field leaked "$before") l1=$(field leaked "$after")
		e0=$(field exposed_ns "$before") e1=$(field exposed_ns "$after")
		exposed=$((e1 - e0))
		leaked=$((l1 - l0))
		echo "emulator ledger over the experiment: leaked $((l1 - l0)), exposed $exposed ns"
	fi
}

# field NAME "k=v ...": the value of NAME.
field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

status=0
if [ ! -e "$KNOB" ]; then
	experiment "no $KNOB (workaround as the kernel has it)"
	echo "victim r20cc:u on CPU $b: $victim (loads on CPU $a: $loads)"
	exit 0
fi

orig=$(cat "$KNOB")
echo 0 > "$KNOB"
experiment "ht_bug_workaround=0"
off=$victim
off_leaked=$leaked
echo 1 > "$KNOB"
experiment "ht_bug_workaround=1"
on=$victim
on_exposed=$exposed
echo "$orig" > "$KNOB"

echo "victim r20cc:u on CPU $b: $off with the workaround off, $on with it on"
if [ "$off" -le 0 ]; then
	echo "FAIL: no over-count with the workaround off"
	status=1
fi
# The victim's event cannot occur: all it counts leaked into it, and the
# emulator's ledger (where there is one) counted the same leak.
if [ "$off_leaked" -ge 0 ] && [ "$off" -ne "$off_leaked" ]; then
	echo "FAIL: the victim counted $off with the workaround off, the emulator leaked $off_leaked into it"
	status=1
fi
if [ "$on" -ne 0 ]; then
	echo "FAIL: the victim counted $on with the workaround on"
	status=1
fi
if [ "$on_exposed" -ne 0 ]; then
	echo "FAIL: the emulator saw $on_exposed ns of exposure with the workaround on"
	status=1
fi
exit $status
