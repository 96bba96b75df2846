#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the x86-pmu-sim command line, in TAP: help, bad input refused
# with the bad token named and nothing run, --exhaustive 4 in seconds, and
# an SVG timeline that is well-formed XML and renders (rsvg-convert).
#
# usage: sim_cli_test.sh SIM_BINARY KERNEL_TREE OUTPUT_DIR
set -u
sim=$1 tree=$2 out=$3
n=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

"$sim" --help | grep "usage: x86-pmu-sim" > /dev/null
result $? "--help prints the usage"

# Bad input: exit 2, the token named on stderr, nothing on stdout.
refused() {
	local token=$1
	shift
	"$sim" --tree "$tree" "$@" > "$out/sim.out" 2> "$out/sim.err"
	local rc=$?
	sed 's/^/# /' "$out/sim.err"
	[ $rc -eq 2 ] && [ ! -s "$out/sim.out" ] && grep -qF -- "'$token'" "$out/sim.err"
}
refused nosuchevent --ht0 r81d0,nosuchevent
result $? "an unknown event name is refused, named, nothing run"
refused r8x1d0 --ht0 r8x1d0
result $? "a malformed raw code is refused, named, nothing run"
refused "cycles:q" --ht1 cycles:q
result $? "an unknown modifier is refused, named, nothing run"
refused 0x6q -C 0x6q,0x8
result $? "a malformed counter mask is refused, named, nothing run"
refused pentium --model pentium --ht0 cycles
result $? "an unknown PMU model is refused, named"
refused x --ht0 r81d0,r20cc --rates0 1,x
result $? "bad rates are refused"

refused 2x --ht0 cycles --rotate1 2x
result $? "a bad --rotate1 is refused"
refused 1-1 --ht0 cycles --rotations1 1-1
result $? "bad --rotations1 digits are refused"
refused 012 --ht0 cycles --first 012
result $? "a --first digit other than 0 or 1 is refused"
refused 0 --ht0 cycles --hold 0
result $? "a --hold of 0 ticks is refused"

refused NoSuchGroup --ht0-metrics TopdownL1,NoSuchGroup --ht1 cycles
result $? "an unknown metric group is refused, named, nothing run"
refused tma_info_inst_mix_bptkbranch --model snb --ht1-metrics tma_info_inst_mix_bptkbranch
result $? "a metric the model's tables lack is refused, named, nothing run"
refused Bogus --metric-expand Bogus
result $? "--metric-expand refuses an unknown name"
refused generic --model generic --counters 4 --ht0-metrics TopdownL1
result $? "a model without metric tables is refused"
"$sim" --tree "$tree" --ht0-metrics TopdownL1 --ht1-metrics Mem --ticks 60 \
	--matcher hk --xsu series > "$out/metrics.txt"
rc=$?
[ $rc -eq 0 ] && grep -q "IDQ_UOPS_NOT_DELIVERED.CORE" "$out/metrics.txt" &&
	grep -q "MEM_LOAD_UOPS_RETIRED.L3_MISS .* C" "$out/metrics.txt"
result $? "--ht0-metrics TopdownL1 --ht1-metrics Mem runs both, corrupting events marked"

# --rotate1 counts in groups of HT1's list, modulo their number: G of
# them are no rotation at all, and fewer change the run.
rot() {
	"$sim" --tree "$tree" --ht0-metrics CacheHits --ht1-metrics CacheHits \
		--ticks 120 --matcher hk --xsu series --continue --rotate1 "$1" \
		> "$out/rotate1.$1.txt"
}
rot 0 && groups=$(sed -n "s/^HT1's list starts 0 rotations ahead of HT0's, of \([0-9]*\) groups$/\1/p" \
	"$out/rotate1.0.txt") && [ -n "$groups" ] && rot "$groups" && rot 3 &&
	cmp -s "$out/rotate1.0.txt" "$out/rotate1.$groups.txt" &&
	! cmp -s "$out/rotate1.0.txt" "$out/rotate1.3.txt"
result $? "--rotate1 G (CacheHits: ${groups:-?} groups) is --rotate1 0, --rotate1 3 is not"

refused "{cycles,{r81d0}}" --ht0 "{cycles,{r81d0}}"
result $? "nested group braces are refused, the list named"
refused "{cycles,r81d0" --ht0 "{cycles,r81d0"
result $? "an unclosed group is refused, the list named"

# A cycle-accounting tool's collection (topdown.sh's record): six groups
# of four events on both threads, four GP events in five of them, on the
# models with the erratum under the series' XSU and arbitration. Both
# threads waiting for groups wider than half the counters take turns at
# the core: every group runs (a thread's groups share its turns, about
# 1/12 of the time each); capped at half, only the first one would.
six='{cycles,instructions,r81d0,r82d0},{branches,branch-misses,r01d1,r08d1},{r010e,r01c2,r10d1,r20d1},{r0108,r0149,r01d2,r02d2},{r0148,r01a2,r04a2,r08a2},{r0279,r0479,r0879,r01d3}'
for m in snb ivb hsw; do
	"$sim" --tree "$tree" --model $m --ht0 "$six" --ht1 "$six" --ticks 2000 \
		--matcher hk --xsu series > "$out/six.$m.txt"
	rc=$?
	# every event of both threads at least 5% of the ticks, and the
	# events of a group scheduled together (as one)
	awk '/^HT[01]/ { t = $1; k = 0; next }
	     / r[0-9a-f]+ | cycles | instructions | branch/ && t {
		v = $2; sub(/%/, "", v)
		if (v + 0 < 5) low = low " " t ":" $1
		if (k % 4 && v != g) split_ = 1
		if (k % 4 == 0) g = v
		k++; n++
	     }
	     END { printf "# %s events, below 5%%:%s\n", n, low == "" ? " none" : low
		   exit !(n == 48 && low == "" && !split_) }' "$out/six.$m.txt"
	result $(( rc || $? )) "$m: six groups of four on both threads, every group runs (series)"
done

start=$(date +%s%N)
"$sim" --exhaustive 4 > "$out/exhaustive.txt"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
sed 's/^/# /' "$out/exhaustive.txt"
[ $rc -eq 0 ] && [ $ms -lt 10000 ] && grep -q "all 50625 tuples" "$out/exhaustive.txt"
result $? "--exhaustive 4 covers 50625 tuples in ${ms} ms"

"$sim" --tree "$tree" --ht0 r81d0:u,r08d1:u,r20cc:u --ht1 r20cc:u,r81d0:u,r08d1:u \
	--start1 10 --ticks 60 --matcher hk --xsu series --svg "$out/timeline.svg" \
	--rates0 1000,500,2 --rates1 2,1000,500 > "$out/timeline.txt"
result $? "a run with an SVG timeline and estimated counts"
python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$out/timeline.svg"
result $? "the SVG timeline is well-formed XML"
rsvg-convert -o "$out/timeline.png" "$out/timeline.svg" &&
	[ "$(stat -c %s "$out/timeline.png")" -gt 2000 ]
result $? "the SVG timeline renders (rsvg-convert, $out/timeline.png)"
grep -q "raw count" "$out/timeline.txt"
result $? "estimated raw and scaled counts are printed"

echo "1..$n"
