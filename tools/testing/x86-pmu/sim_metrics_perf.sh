#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What perf itself opens for `perf stat -M NAMES`: the event lists perf's
# own metricgroup.c builds ("Parsing metric events '...'" of perf stat
# -vv), one a line, in the form x86-pmu-sim --metric-expand prints:
#
#   group|nogroup ID ID ...      (ids sorted; "group": a weak group {...}:W)
#
# The host has no hardware PMU, so perf runs in a private mount namespace
# (unshare -m, root) in which sysfs shows what an affected host shows:
# a core PMU "cpu" (type and format files only: perf takes the events
# from its compiled-in tables, chosen by PERF_CPUID), the msr, cstate and
# uncore PMUs that some metrics name, SMT on (smt/active 1, cpu0 and cpu1
# siblings) and the NMI watchdog off. perf stat -C 0 then parses every
# metric of NAMES as on one hyper-thread of such a host; opening the
# events fails afterwards, which does not matter here. Nothing outside
# the namespace changes.
#
# usage: sim_metrics_perf.sh PERF MODEL [NAMES...]
#   PERF: a perf 6.12 binary (scripts/build-perf.sh: build/perf/perf)
#   MODEL: snb, ivb or hsw
#   NAMES: metrics or metric groups; none: every group and every metric
#          perf lists for the model (perf list --raw-dump)
# Prints one block per name: "# MODEL NAME", then its lists; exits
# non-zero if perf cannot parse a name's events (its message is printed).
#
# The reference the harness compares the simulator with
# (sim_metrics_perf.ref) is this script's output for snb, ivb and hsw:
#   for m in snb ivb hsw; do
#       tools/testing/x86-pmu/sim_metrics_perf.sh build/perf/perf $m
#   done > tools/testing/x86-pmu/sim_metrics_perf.ref
set -euo pipefail

perf=$1 model=$2
shift 2
case $model in
snb) cpuid=GenuineIntel-6-2A-7 ;;
ivb) cpuid=GenuineIntel-6-3A-9 ;;
hsw) cpuid=GenuineIntel-6-3C-3 ;;
*) echo "sim_metrics_perf.sh: unknown model '$model' (snb, ivb, hsw)" >&2; exit 2 ;;
esac
[ -x "$perf" ] || { echo "sim_metrics_perf.sh: no perf binary at $perf" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "sim_metrics_perf.sh: needs root (unshare -m)" >&2; exit 2; }

fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT

# pmu NAME TYPE FORMAT...: a PMU directory with its format files.
pmu() {
	local d=$fake/devs/$1 f
	mkdir -p "$d/format" "$d/events"
	echo "$2" > "$d/type"
	shift 2
	for f in "$@"; do
		echo "${f#*=}" > "$d/format/${f%%=*}"
	done
}
mkdir -p "$fake/devs"
pmu cpu 4 event=config:0-7 umask=config:8-15 edge=config:18 pc=config:19 \
	any=config:21 inv=config:23 cmask=config:24-31 in_tx=config:32 \
	in_tx_cp=config:33 ldlat=config1:0-15 offcore_rsp=config1:0-63
pmu msr 9 event=config:0-63
for e in tsc=0x00 aperf=0x01 mperf=0x02 smi=0x04; do
	echo "event=${e#*=}" > "$fake/devs/msr/events/${e%%=*}"
done
pmu cstate_core 10 event=config:0-63
pmu cstate_pkg 11 event=config:0-63
for e in c3 c6 c7; do
	echo "event=0x01" > "$fake/devs/cstate_core/events/$e-residency"
done
for e in c2 c3 c6 c7; do
	echo "event=0x01" > "$fake/devs/cstate_pkg/events/$e-residency"
done
pmu uncore_arb 12 event=config:0-7 umask=config:8-15 edge=config:18 \
	inv=config:23 cmask=config:24-28
pmu uncore_clock 13 event=config:0-7
pmu uncore_cbox_0 14 event=config:0-7 umask=config:8-15 edge=config:18 \
	inv=config:23 cmask=config:24-28
for d in /sys/bus/event_source/devices/*; do
	n=${d##*/}
	[ -e "$fake/devs/$n" ] || ln -s "$(readlink -f "$d")" "$fake/devs/$n"
done
echo 1 > "$fake/smt_active"
echo 0-1 > "$fake/siblings"
echo 0 > "$fake/nmi_watchdog"

# perf's output (per name, after "@@ NAME") to the event lists, decoded to
# metric ids; a name perf fails on is reported and makes the exit non-zero.
normalize() {
	python3 -c '
import re, sys
model, code, status, name = sys.argv[1], ",-=@", 0, None
def ids_of(s):
    grouped = False
    if s.startswith("{"):
        end = s.index("}:W")
        rest = s[end + 3:].lstrip(",")
        grouped, s = True, s[1:end] + ("," + rest if rest else "")
    items, cur, inside = [], "", False
    for c in s:
        if c == "/":
            inside = not inside
        if c == "," and not inside:
            items.append(cur)
            cur = ""
        else:
            cur += c
    items.append(cur)
    ids = []
    for it in items:
        m = re.search(r"metric-id=([^/,]*)", it)
        if not m:
            ids.append(it)
            continue
        ids.append(re.sub(r"!([0-3])", lambda d: code[int(d.group(1))],
                          m.group(1)))
    return ("group " if grouped else "nogroup ") + " ".join(sorted(ids))
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("@@ "):
        name = line[3:]
        print("# %s %s" % (model, name))
        continue
    if re.search(r"event syntax error|Cannot find metric|Cannot resolve", line):
        print("# perf failed for %s: %s" % (name, line))
        status = 1
    m = re.match(r"Parsing metric events \x27(.*)\x27$", line)
    if m:
        print(ids_of(m.group(1)))
sys.exit(status)
' "$model"
}

# Inside the namespace: every name in turn, perf's output per name
# between "@@ NAME" lines.
run_perf() {
	unshare -m --propagation private bash -c '
		f=$1 perf=$2 cpuid=$3
		shift 3
		mount --bind "$f/devs" /sys/bus/event_source/devices
		mount --bind "$f/smt_active" /sys/devices/system/cpu/smt/active
		for c in 0 1; do
			t=/sys/devices/system/cpu/cpu$c/topology
			mount --bind "$f/siblings" $t/core_cpus_list
			mount --bind "$f/siblings" $t/thread_siblings_list
		done
		mount --bind "$f/nmi_watchdog" /proc/sys/kernel/nmi_watchdog
		export PERF_CPUID=$cpuid
		if [ $# = 0 ]; then
			"$perf" list --raw-dump metricgroups
			"$perf" list --raw-dump metrics
			exit
		fi
		for name in "$@"; do
			echo "@@ $name"
			"$perf" stat -C 0 -vv -M "$name" -- true 2>&1
		done
	' x "$fake" "$perf" "$cpuid" "$@"
}

# Without names: every metric group and every metric perf knows for the
# model, as perf list names them.
if [ $# = 0 ]; then
	set -- $(run_perf | tr ' ' '\n' | grep -v '^$')
fi

run_perf "$@" | normalize
