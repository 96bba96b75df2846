#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the user-space harness (tools/testing/x86-pmu): the
# kernel's KUnit suites built on the harness's KUnit shim, property tests
# of the matcher against oracles, the libFuzzer target, the
# micro-benchmark against upstream's greedy, the matcher's frame size, and
# the mutation check (planted bugs that some test must catch). Each writes
# TAP into build/results/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# The mainline tree: its event tables, upstream's greedy (tag base), and
# the series' perf_event.h for the matcher's KUnit suite (branch ht).
KSRC=$(ksrc "$MAINLINE")

H=$TOP/tools/testing/x86-pmu
OUT=$BUILD/harness
FUZZ_RUNS=${FUZZ_RUNS:-50000}
mkdir -p "$RESULTS"

step "building the user-space harness"
make -s -C "$H" KSRC="$KSRC" O="$OUT" all "$OUT/counter_match.su" ||
	die "the harness does not build"

# kunit NAME PROGRAM: a KUnit program's KTAP into NAME.ktap, and one TAP
# line per case into NAME.tap (ktap-flat.awk).
kunit() {
	local name=$1 prog=$2 rc
	"$OUT/$prog" > "$RESULTS/$name.ktap"
	rc=$?
	awk -v prog="$prog" -v rc=$rc -f "$H/shared/ktap-flat.awk" \
		< "$RESULTS/$name.ktap" | tee "$RESULTS/$name.tap"
}

step "KUnit suites in user space: x86_counter_match, x86_intel_xsu, x86_intel_xsu_arb"
kunit harness-kunit-match match_kunit
kunit harness-kunit-xsu xsu_kunit

step "matcher properties: exhaustive, randomized against brute force"
"$OUT/match_test" | tee "$RESULTS/harness-match.tap"

step "matcher bound: a broken walk planted in the phases"
"$OUT/match_bound_test" | tee "$RESULTS/harness-match-bound.tap"

step "XSU unit: the protocol walkthrough through a scheduling pass"
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
bash "$H/sim/sim_cli_test.sh" "$OUT/x86-pmu-sim" "$KSRC" "$OUT/svg" |
	tee "$RESULTS/harness-sim-cli.tap"

step "scheduling simulator: perf's metric groups, against what perf opens"
"$OUT/sim_metrics_test" "$KSRC" "$H/sim/sim_metrics_perf.ref" |
	tee "$RESULTS/harness-sim-metrics.tap"
# make check runs this one after the boots' build of perf, beside the
# per-patch builds (HARNESS_PERF=0 here).
[ "${HARNESS_PERF:-1}" = 0 ] ||
	bash "$H/sim/sim_metrics_perf_test.sh" "$PERF_OUT/perf" "$H/sim/sim_metrics_perf.ref" \
		"$OUT/svg" | tee "$RESULTS/harness-sim-metrics-perf.tap"

step "perf core: scheduling past a failed group (kernel/events/sched_budget.h)"
"$OUT/sched_budget_test" | tee "$RESULTS/harness-sched-budget.tap"

# The two slowest steps, the fuzzer and the mutation check, depend only on
# the harness's sources, the mainline tree's work tree and the compilers:
# when none of these changed since the run that passed, its TAP is reused
# (a line says so); remove build/harness-cache/ to run them again.
CACHE=$BUILD/harness-cache
KEY=$({
	find "$H" -type f -print0 | sort -z | xargs -0 sha256sum
	sha256sum "$0"
	git -C "$KSRC" rev-parse HEAD
	git -C "$KSRC" diff HEAD
	gcc --version
	clang --version
} 2>&1 | sha256sum | cut -c1-16)

# cached NAME: true (and NAME's TAP restored) when the inputs are those of
# the last passing run of NAME.
cached() {
	[ -f "$CACHE/$1.$KEY.tap" ] || return 1
	{
		echo "# $1: sources, tree and compilers unchanged since its last passing run (key $KEY): result reused"
		cat "$CACHE/$1.$KEY.tap"
	} | tee "$RESULTS/$1.tap"
}

# remember NAME: keep NAME's TAP for the next run if it passed.
remember() {
	rm -f "$CACHE/$1".*.tap
	grep -q '^not ok' "$RESULTS/$1.tap" && return
	mkdir -p "$CACHE"
	grep -v '^# .*: result reused$' "$RESULTS/$1.tap" > "$CACHE/$1.$KEY.tap"
}

step "libFuzzer: $FUZZ_RUNS runs, seed 1"
if ! cached harness-fuzz; then
	if "$OUT/match_fuzz" -runs="$FUZZ_RUNS" -seed=1 -max_len=160 \
		> "$RESULTS/fuzz.log" 2>&1; then
		r="ok 1 - libFuzzer: $FUZZ_RUNS inputs, no failure"
	else
		tail -20 "$RESULTS/fuzz.log"
		r="not ok 1 - libFuzzer: failure, see build/results/fuzz.log"
	fi
	printf '%s\n1..1\n' "$r" | tee "$RESULTS/harness-fuzz.tap"
	remember harness-fuzz
fi

step "micro-benchmark: matcher against upstream 6.12 greedy, same run"
"$OUT/match_bench" | tee "$RESULTS/harness-bench.tap"

step "instruction counts: matcher against greedy and first fit (valgrind --tool=callgrind)"
# Inclusive instruction counts of the three assigners' calls, N calls each
# per mix, from one callgrind run per mix: a figure the machine's noise
# does not move. The matcher must not cost more than upstream's greedy on
# any mix, nor more than 1.3x the plain first fit on mixes 0 and 1, where
# everything fits (the first fit's own ground; the matcher's first fit
# also reads every event's previous counter before it, the warm start:
# about 6 instructions per event).
#
# Then warm calls, as x86_schedule_events()'s slow path makes them: every
# event's previous counter given, after an event was added, removed, or
# lost its counter from its mask (match_bench --count-warm). Upstream's
# greedy ignores previous counters, so its figure is its cold call on the
# changed list. Each instance's calls are counted apart (callgrind dumps,
# only the two assigners' calls collected): the matcher must not cost more
# than the greedy per call on any mix and change, and the instance where
# it costs most against the greedy is printed.
CG_CALLS=20000
CG_WARM_CALLS=200
{
	n=0 fail=0
	printf '# %-44s %8s %8s %8s %6s %6s\n' "instruction count per call" greedy "1st fit" matcher m/g m/ff
	for mix in 0 1 2 3 4; do
		out=$OUT/callgrind.$mix
		name=$(valgrind --tool=callgrind --callgrind-out-file="$out" \
			"$OUT/match_bench" --count "$mix" "$CG_CALLS" 2>/dev/null)
		read -r g f m < <(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
			awk -v calls="$CG_CALLS" '
			/(greedy_call|first_fit_assign|hk_assign) \[/ {
				ir = $1; gsub(",", "", ir)
				for (i = 1; i <= NF; i++)
					if ($i ~ /:(greedy_call|first_fit_assign|hk_assign)$/) {
						fn = $i; sub(/.*:/, "", fn)
					}
				v[fn] = ir / calls
			}
			END { printf "%.0f %.0f %.0f\n", v["greedy_call"],
				v["first_fit_assign"], v["hk_assign"] }')
		n=$((n + 1))
		if [ -z "$name" ] || [ "${g:-0}" -le 0 ] || [ "${m:-0}" -le 0 ] || [ "${f:-0}" -le 0 ]; then
			echo "not ok $n - callgrind on mix $mix gave no counts"
			fail=1
			continue
		fi
		printf '# %-44s %8d %8d %8d %5.2fx %5.2fx\n' "$name" "$g" "$f" "$m" \
			"$(echo "$m / $g" | bc -l)" "$(echo "$m / $f" | bc -l)"
		if [ "$m" -le "$g" ]; then
			echo "ok $n - $name: matcher $m <= greedy $g instructions per call"
		else
			echo "not ok $n - $name: matcher $m > greedy $g instructions per call"
			fail=1
		fi
		[ "$mix" -le 1 ] || continue
		n=$((n + 1))
		if [ $((m * 10)) -le $((f * 13)) ]; then
			echo "ok $n - $name: matcher $m <= 1.3 x first fit $f instructions per call"
		else
			echo "not ok $n - $name: matcher $m > 1.3 x first fit $f instructions per call"
			fail=1
		fi
	done
	printf '# %-58s %8s %8s %6s %12s\n' "warm calls: instructions per call" greedy matcher m/g "worst m/g"
	for mix in 0 1 2 3 4; do
		for kind in added removed shrunk; do
			dir=$OUT/callgrind-warm.$mix.$kind
			rm -rf "$dir"
			mkdir -p "$dir"
			name=$(valgrind --tool=callgrind --toggle-collect=greedy_call \
				--toggle-collect=hk_assign --callgrind-out-file="$dir/out" \
				"$OUT/match_bench" --count-warm "$mix" "$kind" "$CG_WARM_CALLS" 2>/dev/null)
			read -r g m worst at < <(cat "$dir"/out.* 2>/dev/null | awk -v calls="$CG_WARM_CALLS" '
				/^desc: Trigger: Client Request: / { who = $5; v = $6 }
				/^totals:/ { c[who, v] = $2; seen[v] = 1 }
				END {
					for (v in seen) {
						g += c["greedy", v]; m += c["matcher", v]; k++
						if (c["greedy", v] > 0 &&
						    c["matcher", v] / c["greedy", v] > w) {
							w = c["matcher", v] / c["greedy", v]; at = v
						}
					}
					if (k) printf "%.0f %.0f %.2f %d\n", g / k / calls, m / k / calls, w, at
				}')
			n=$((n + 1))
			if [ -z "$name" ] || [ "${g:-0}" -le 0 ] || [ "${m:-0}" -le 0 ]; then
				echo "not ok $n - callgrind on mix $mix, one $kind, gave no counts"
				fail=1
				continue
			fi
			printf '# %-58s %8d %8d %5.2fx %6.2fx (#%d)\n' "$name" "$g" "$m" \
				"$(echo "$m / $g" | bc -l)" "$worst" "$at"
			if [ "$m" -le "$g" ]; then
				echo "ok $n - warm, $name: matcher $m <= greedy $g instructions per call"
			else
				echo "not ok $n - warm, $name: matcher $m > greedy $g instructions per call"
				fail=1
			fi
		done
	done
	# Paired events: the block reservations' work on 16 blocks, AMD's
	# masks and arbitrary even masks (match_bench --count-pairs). Every
	# subset of 16 blocks would be about 155 M instructions per call;
	# match_pairs() tries 2 per block beyond 6 blocks (32 on 16), a few
	# thousand instructions each: the call must stay under PAIRS_MAX.
	PAIRS_MAX=1000000
	printf '# %-58s %8s %8s\n' "paired events: instructions per call" greedy matcher
	for blocks in 16 any; do
		out=$OUT/callgrind.pairs-$blocks
		name=$(valgrind --tool=callgrind --callgrind-out-file="$out" \
			"$OUT/match_bench" --count-pairs "$blocks" 64 2>/dev/null)
		read -r g m < <(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
			awk '/(greedy_call|hk_assign) \[/ {
				ir = $1; gsub(",", "", ir)
				for (i = 1; i <= NF; i++)
					if ($i ~ /:(greedy_call|hk_assign)$/) {
						fn = $i; sub(/.*:/, "", fn)
					}
				v[fn] = ir / 64
			}
			END { printf "%.0f %.0f\n", v["greedy_call"], v["hk_assign"] }')
		n=$((n + 1))
		if [ -z "$name" ] || [ "${m:-0}" -le 0 ]; then
			echo "not ok $n - callgrind on paired events ($blocks) gave no counts"
			fail=1
			continue
		fi
		printf '# %-58s %8d %8d\n' "$name" "$g" "$m"
		if [ "$m" -le "$PAIRS_MAX" ]; then
			echo "ok $n - pairs, $name: matcher $m <= $PAIRS_MAX instructions per call"
		else
			echo "not ok $n - pairs, $name: matcher $m > $PAIRS_MAX instructions per call"
			fail=1
		fi
	done
	echo "1..$n"
} | tee "$RESULTS/harness-callgrind.tap"

step "stack of the matcher (gcc -fstack-usage, user space)"
# The deepest chain of counter_match.c's frames, from the calls and tail
# jumps in the object (scripts/stack-chain.sh): with the state lent
# (x86_counter_match_in(), as the scheduling path calls it) and on its own
# stack (x86_counter_match()). Every function summed bounds it from above
# (no recursion) but grows with every split that shortens the chain, so it
# is printed, and the chain is checked against it.
grep counter_match.c "$OUT/counter_match.su" | sed 's/^/# /'
lent=$(awk -F'\t' '{ fn = $1; sub(/.*:/, "", fn) }
	fn != "x86_counter_match" { s += $2 }
	END { print s + 0 }' "$OUT/counter_match.su")
chain=$("$TOP/scripts/stack-chain.sh" "$OUT/counter_match.o" \
	"$OUT/counter_match.su" x86_counter_match_in '^x86_counter_match$') ||
	chain="0 (stack-chain.sh failed)"
own=$("$TOP/scripts/stack-chain.sh" "$OUT/counter_match.o" \
	"$OUT/counter_match.su" x86_counter_match) ||
	own="0 (stack-chain.sh failed)"
echo "# deepest chain, state lent: $chain"
echo "# deepest chain, state on the stack: $own"
echo "# all frames summed, state lent: $lent"
if [ "${chain%% *}" -gt 0 ] && [ "${chain%% *}" -le 512 ] &&
	[ "${own%% *}" -gt 0 ] && [ "${own%% *}" -le 1024 ]; then
	r="ok 1 - matcher stack: deepest chain ${chain%% *} bytes with the state lent (<= 512), ${own%% *} on its own stack (<= 1024), user-space build"
else
	r="not ok 1 - matcher stack: deepest chain '${chain%% *}' bytes with the state lent (limit 512), '${own%% *}' on its own stack (limit 1024)"
fi
if [ "${chain%% *}" -gt 0 ] && [ "${chain%% *}" -le "$lent" ]; then
	r2="ok 2 - matcher deepest chain: ${chain%% *} bytes with the state lent (<= the sum, $lent)"
else
	r2="not ok 2 - matcher deepest chain: '${chain%% *}' bytes (sum $lent)"
fi
printf '%s\n%s\n1..2\n' "$r" "$r2" | tee "$RESULTS/harness-stack.tap"

step "size of the matcher: lines of code, text at -O2"
# Lines of code: the lines left once gcc's preprocessor has dropped the
# comments (gcc -fpreprocessed -dD -E -P), blank ones not counted. Text:
# size(1) of the harness's object, gcc -O2, user space (issue 39: at most
# 350 lines and 4 KB; 7.3's walk it replaces is about 1.2 KB).
M=$TOP/arch/x86/events/counter_match.c
loc=$(gcc -fpreprocessed -dD -E -P "$M" | grep -c '[^[:space:]]')
hloc=$(gcc -fpreprocessed -dD -E -P "${M%.c}.h" | grep -c '[^[:space:]]')
text=$(size "$OUT/counter_match.o" | awk 'NR == 2 { print $1 }')
echo "# counter_match.c: $loc lines of code, counter_match.h: $hloc; text $text bytes ($(gcc -dumpfullversion), -O2)"
{
	if [ "$loc" -le 350 ]; then
		echo "ok 1 - counter_match.c: $loc lines of code (<= 350)"
	else
		echo "not ok 1 - counter_match.c: $loc lines of code (> 350)"
	fi
	if [ "${text:-99999}" -le 4096 ]; then
		echo "ok 2 - counter_match.c: $text bytes of text at -O2 (<= 4096)"
	else
		echo "not ok 2 - counter_match.c: '$text' bytes of text at -O2 (> 4096)"
	fi
	echo "1..2"
} | tee "$RESULTS/harness-size.tap"

step "mutation check: every planted bug of mutations.txt fails some test"
# Each bug in a copy of arch/x86/events (build/mutation/src); which test
# caught it on its line, the logs in build/mutation/logs/.
if ! cached harness-mutation; then
	"$H/mutate.sh" -o "$BUILD/mutation" -k "$KSRC" |
		tee "$RESULTS/harness-mutation.tap"
	remember harness-mutation
fi
