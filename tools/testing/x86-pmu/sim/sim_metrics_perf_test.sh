#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Is sim_metrics_perf.ref still what perf opens? Runs sim_metrics_perf.sh
# with the static perf for snb, ivb and hsw and compares its output with
# the reference the simulator's tests use (sim_metrics_test), in TAP.
# Without a perf binary (scripts/build-perf.sh builds build/perf/perf) or
# without root (the fake sysfs needs a mount namespace) the test SKIPs.
#
# usage: sim_metrics_perf_test.sh PERF REFERENCE OUTPUT_DIR
set -u
perf=$1 ref=$2 out=$3
here=$(dirname "$0")

if [ ! -x "$perf" ]; then
	echo "ok 1 # SKIP no perf binary at $perf (scripts/build-perf.sh)"
elif [ "$(id -u)" != 0 ]; then
	echo "ok 1 # SKIP not root: no mount namespace for the fake PMU"
else
	# The three models side by side (each perf in a mount namespace and
	# a temporary directory of its own), their outputs in this order.
	rc=0
	for m in snb ivb hsw; do
		"$here/sim_metrics_perf.sh" "$perf" "$m" > "$out/sim_metrics_perf.now.$m" &
	done
	for m in snb ivb hsw; do
		wait -n || rc=1
	done
	for m in snb ivb hsw; do
		cat "$out/sim_metrics_perf.now.$m"
		rm -f "$out/sim_metrics_perf.now.$m"
	done > "$out/sim_metrics_perf.now"
	if [ $rc = 0 ] && cmp -s "$out/sim_metrics_perf.now" "$ref"; then
		echo "ok 1 - perf opens what sim_metrics_perf.ref says for all $(grep -c '^# ' "$ref") names of snb, ivb, hsw"
	else
		diff "$ref" "$out/sim_metrics_perf.now" | head -40 | sed 's/^/# /'
		echo "not ok 1 - perf's expansions differ from sim_metrics_perf.ref (regenerate: see sim_metrics_perf.sh)"
	fi
fi
echo "1..1"
