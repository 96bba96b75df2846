#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the user-space harness (tools/testing/x86-pmu): property
# tests of the matcher against oracles, the libFuzzer target, the
# micro-benchmark against upstream's greedy, and the matcher's frame size.
# Each writes TAP into build/results/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

H=$TOP/tools/testing/x86-pmu
OUT=$BUILD/harness
FUZZ_RUNS=${FUZZ_RUNS:-50000}
mkdir -p "$RESULTS"

step "building the user-space harness"
make -s -C "$H" KSRC="$KSRC" O="$OUT" all "$OUT/counter_match.su" ||
	die "the harness does not build"

step "matcher properties: exhaustive, randomized against brute force"
"$OUT/match_test" | tee "$RESULTS/harness-match.tap"

step "XSU unit: table, protocol walkthrough, release, switching, hotplug"
"$OUT/xsu_test" | tee "$RESULTS/harness-xsu.tap"

step "XSU unit: two pthread siblings under ThreadSanitizer"
"$OUT/xsu_stress" 2>&1 | tee "$RESULTS/harness-xsu-stress.tap"
if grep -q "ThreadSanitizer" "$RESULTS/harness-xsu-stress.tap"; then
	echo "not ok - ThreadSanitizer reported a data race" >> "$RESULTS/harness-xsu-stress.tap"
fi

step "scheduling simulator: event tables, SVG, greedy model, scenarios, command line"
"$OUT/sim_events_test" "$KSRC" | tee "$RESULTS/harness-sim-events.tap"
mkdir -p "$OUT/svg"
"$OUT/sim_svg_test" "$OUT/svg" | tee "$RESULTS/harness-sim-svg.tap"
"$OUT/sim_test" "$KSRC" | tee "$RESULTS/harness-sim.tap"
bash "$H/sim_cli_test.sh" "$OUT/x86-pmu-sim" "$KSRC" "$OUT/svg" |
	tee "$RESULTS/harness-sim-cli.tap"

step "scheduling simulator: perf's metric groups, against what perf opens"
"$OUT/sim_metrics_test" "$KSRC" "$H/sim_metrics_perf.ref" |
	tee "$RESULTS/harness-sim-metrics.tap"
bash "$H/sim_metrics_perf_test.sh" "$BUILD/perf/perf" "$H/sim_metrics_perf.ref" \
	"$OUT/svg" | tee "$RESULTS/harness-sim-metrics-perf.tap"

step "perf core: scheduling past a failed group (kernel/events/sched_budget.h)"
"$OUT/sched_budget_test" | tee "$RESULTS/harness-sched-budget.tap"

step "libFuzzer: $FUZZ_RUNS runs, seed 1"
if "$OUT/match_fuzz" -runs="$FUZZ_RUNS" -seed=1 -max_len=160 \
	> "$RESULTS/fuzz.log" 2>&1; then
	r="ok 1 - libFuzzer: $FUZZ_RUNS inputs, no failure"
else
	tail -20 "$RESULTS/fuzz.log"
	r="not ok 1 - libFuzzer: failure, see build/results/fuzz.log"
fi
printf '%s\n1..1\n' "$r" | tee "$RESULTS/harness-fuzz.tap"

step "micro-benchmark: matcher against upstream 6.12 greedy, same run"
"$OUT/match_bench" | tee "$RESULTS/harness-bench.tap"

step "stack frame of x86_counter_match (gcc -fstack-usage, user space)"
frame=$(awk -F'\t' '$1 ~ /:x86_counter_match$/ { print $2 }' "$OUT/counter_match.su")
grep counter_match.c "$OUT/counter_match.su" | sed 's/^/# /'
if [ -n "$frame" ] && [ "$frame" -le 1024 ]; then
	r="ok 1 - x86_counter_match frame $frame bytes (<= 1024, user-space build)"
else
	r="not ok 1 - x86_counter_match frame '${frame}' bytes, limit 1024"
fi
printf '%s\n1..1\n' "$r" | tee "$RESULTS/harness-stack.tap"
