#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every patch must build on its own. Check out each commit in a worktree
# of its own and build arch/x86/events/ and kernel/events/ with W=1 and
# the QEMU kernel's configuration without KASAN (with PCI and the Intel
# uncore driver, which it leaves out), plus the perf_events
# selftests when the commit touches them; then report the stack frames of
# the scheduling path at the tip against the base. One TAP line per patch.
# A commit that built once is remembered by its hash (the series is
# applied with fixed dates, so an unchanged patch keeps its hash).
#
# Every patch of every mainline part present, in order (base..fixes,
# fixes..matcher, ...), worktree build/k-bisect with its output in
# k-bisect/.build, the configuration of the rfc kernel when it exists, else
# of the series kernel (scripts/kernel-build.sh); the stack comparison
# against 7.3's base once part 2 (the matcher) exists,
# intel_stop_scheduling()'s once part 3 (the HT erratum) does.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

commits=()
labels=()
TREE=$(ksrc "$MAINLINE")
WT=$(kdir bisect)
OUT=$(kout bisect)
DONE=$BUILD/k-bisect-ok
BASE_OUT=$WT/.build-base
CONFIG=$(kout series)/.config
[ -f "$(kout rfc)/.config" ] && [ -n "$(rfc_branch)" ] && CONFIG=$(kout rfc)/.config
KHDR=$(kout series)/usr/include
BASE_NAME=$MAINLINE
STACK=0
[ -f "$CONFIG" ] || die "no kernel configuration in ${CONFIG#"$TOP"/}: run scripts/kernel-build.sh series first"
prev=base
for p in $(parts); do
	b=$(part_branch "$p")
	git -C "$TREE" rev-parse -q --verify "refs/heads/$b" > /dev/null ||
		die "part ${p%%-*} is not applied (no branch $b): run scripts/apply-parts.sh"
	i=0
	for c in $(git -C "$TREE" rev-list --reverse "$prev..$b"); do
		i=$((i + 1))
		commits+=("$c")
		labels+=("part ${p%%-*} ($b) patch $i")
	done
	case ${p%%-*} in 2) STACK=1 ;; 3) STACK=2 ;; esac
	prev=$b
done
missing=$(first_missing_part)
[ -z "$missing" ] || echo "# part ${missing%%-*} (${missing#*-}) is not there yet: the patches of parts 1-$(parts | wc -l)"
touch "$DONE"

if ! git -C "$WT" rev-parse -q --verify HEAD > /dev/null 2>&1; then
	rm -rf "$WT" "$DONE"
	touch "$DONE"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$WT" base ||
		die "cannot create the worktree $WT"
fi
mkdir -p "$OUT/selftests"

n=0
fail=0
start=$SECONDS
for i in "${!commits[@]}"; do
	c=${commits[$i]}
	n=$((n + 1))
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	if grep -qx "$c" "$DONE"; then
		echo "ok $n - ${labels[$i]} builds on its own: $subject (built before)"
		continue
	fi
	git -C "$WT" checkout -q --detach "$c"
	# The boot kernel's configuration without KASAN: faster to build,
	# and the stack frames below are the ones of a production kernel;
	# with PCI and the Intel uncore driver, which the boot kernels leave
	# out, so that its calls of perf_assign_events() build too.
	cp "$CONFIG" "$OUT/.config"
	"$WT/scripts/config" --file "$OUT/.config" -d KASAN -e PCI \
		-e PERF_EVENTS_INTEL_UNCORE
	log=$RESULTS/bisect-$n.log
	if make -s -C "$WT" O="$OUT" ARCH=x86_64 -j"$JOBS" olddefconfig > "$log" 2>&1 &&
	   make -s -C "$WT" O="$OUT" ARCH=x86_64 -j"$JOBS" W=1 KCFLAGS=-fstack-usage \
		arch/x86/events/ kernel/events/ >> "$log" 2>&1 &&
	   { git -C "$TREE" diff --quiet "$c~1" "$c" -- tools/testing/selftests/perf_events ||
	     make -s -C "$WT/tools/testing/selftests/perf_events" OUTPUT="$OUT/selftests" \
		KHDR_INCLUDES="-isystem $KHDR" >> "$log" 2>&1; } &&
	   ! grep -q "warning:" "$log"; then
		echo "ok $n - ${labels[$i]} builds on its own: $subject"
		echo "$c" >> "$DONE"
	else
		grep -E "error|warning" "$log" | head -20 | sed 's/^/# /'
		echo "not ok $n - ${labels[$i]} builds on its own: $subject (see ${log#"$TOP"/})"
		fail=1
	fi
done
echo "# per-patch builds: $((SECONDS - start)) s"

if [ $STACK -eq 0 ]; then
	echo "# stack of the scheduling path: not compared before part 2 (the matcher) exists"
	echo "1..$n"
	exit $fail
fi

# Stack of the scheduling path, series against its base (6.12 or 7.3), from gcc's
# -fstack-usage with the same configuration (KASAN off: the frames of a
# production kernel). 6.12's arch/x86/events/ is built once, into a
# directory of its own. Two chains start at x86_schedule_events(): the
# assignment (6.12: perf_assign_events() with whatever of its walk gcc did
# not inline; the series: the deepest chain from x86_counter_match_in()
# through the functions of counter_match.c, from their frames and the
# calls and tail jumps in counter_match.o, scripts/stack-chain.sh; their
# sum, which bounds it, is printed too), held to at most 256 bytes more
# than 6.12, and, on
# Intel, intel_stop_scheduling() (the series: the deeper of the
# arbitration's xsu_arb_end() and the matcher's unpaired count under
# xsu_arb_unplaced(), the deepest chain from x86_counter_match_count()),
# held to the same bound. Calls that leave arch/x86/events (irq_work,
# hrtimer) are not followed on either side.
# checkstack.pl's figure is shown too: on x86_64 it adds the epilogue's
# "add $N,%rsp" to the prologue's "sub $N,%rsp", so it doubles.
if [ ! -s "$BASE_OUT/arch/x86/events/core.su" ]; then
	git -C "$WT" checkout -q --detach base
	mkdir -p "$BASE_OUT"
	cp "$CONFIG" "$BASE_OUT/.config"
	"$WT/scripts/config" --file "$BASE_OUT/.config" -d KASAN
	make -s -C "$WT" O="$BASE_OUT" ARCH=x86_64 -j"$JOBS" olddefconfig \
		> "$RESULTS/bisect-base.log" 2>&1 &&
	make -s -C "$WT" O="$BASE_OUT" ARCH=x86_64 -j"$JOBS" \
		KCFLAGS=-fstack-usage arch/x86/events/ >> "$RESULTS/bisect-base.log" 2>&1
fi

# frame SUFILE REGEX [NOT]: the sum of the frames of the functions
# matching REGEX (and not NOT)
frame() {
	awk -F'\t' -v re="$2" -v not="${3:-^$}" '{ fn = $1; sub(/.*:/, "", fn) }
		fn ~ re && fn !~ not {
			sum += $2; printf "# frame: %s %s\n", fn, $2 > "/dev/stderr"
		}
		END { print sum + 0 }' "$1" 2>>"$RESULTS/bisect-frames.txt"
}
: > "$RESULTS/bisect-frames.txt"
B=$BASE_OUT/arch/x86/events
S=$OUT/arch/x86/events
echo "# frame: $BASE_NAME" >> "$RESULTS/bisect-frames.txt"
base_sched=$(frame "$B/core.su" '^x86_schedule_events$')
base_assign=$(frame "$B/core.su" '^(perf_assign_events|perf_sched_)')
base_stop=$(frame "$B/intel/core.su" '^intel_stop_scheduling$')
echo "# frame: series" >> "$RESULTS/bisect-frames.txt"
sched=$(frame "$S/core.su" '^x86_schedule_events$')
match=$(frame "$S/counter_match.su" '^(x86_counter_match_in|match_)')
stop=$(frame "$S/intel/core.su" '^intel_stop_scheduling$')
arb=$(frame "$S/intel/xsu_arb.su" '^xsu_arb_end$')
cat "$RESULTS/bisect-frames.txt"
# The matcher's deepest chain (its frames summed if that cannot be had).
msum=$match
if mchain=$("$TOP/scripts/stack-chain.sh" "$S/counter_match.o" \
	"$S/counter_match.su" x86_counter_match_in '^x86_counter_match$') &&
	[ "${mchain%% *}" -gt 0 ]; then
	match=${mchain%% *}
	echo "# matcher: deepest chain $mchain; all its frames summed $msum"
else
	echo "# matcher: stack-chain.sh failed, all its frames summed: $msum"
fi
# The arbitration's check: the matcher without paired events.
# x86_counter_match_count() passes no paired event: match_pairs() is a
# branch it never takes.
if fchain=$("$TOP/scripts/stack-chain.sh" "$S/counter_match.o" \
	"$S/counter_match.su" x86_counter_match_count '^match_pairs') &&
	[ "${fchain%% *}" -gt 0 ]; then
	fit=${fchain%% *}
	echo "# matcher, unpaired count: deepest chain $fchain"
else
	fit=$msum
	echo "# matcher, unpaired count: stack-chain.sh failed, all its frames summed: $msum"
fi
under_stop=$(( arb > fit ? arb : fit ))

# chain NAME SERIES BASE: one TAP line, the series' chain against 6.12's
chain() {
	n=$((n + 1))
	if [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$2" -le $(($3 + 256)) ]; then
		echo "ok $n - stack, $1: series $2 bytes, $BASE_NAME $3 bytes, $(($2 - $3)) added (<= 256, KASAN off)"
	else
		echo "not ok $n - stack, $1: series '$2' bytes, $BASE_NAME '$3' bytes (at most 256 added; see build/results/bisect-base.log)"
		fail=1
	fi
}
chain "x86_schedule_events() and the assignment" $((sched + match)) \
	$((base_sched + base_assign))
[ $STACK -ge 2 ] && chain "x86_schedule_events() and intel_stop_scheduling()" \
	$((sched + stop + under_stop)) $((base_sched + base_stop))
# struct cpu_hw_events: the size of the per-CPU object of core.o, series
# against its base, at most 128 bytes more (issue 39); the matcher's own
# per-CPU memory beside it is printed.
# objsize OBJECT SYMBOL: its size in bytes (0 when absent)
objsize() {
	local hex
	hex=$(nm -S "$1" 2>/dev/null | awk -v s="$2" '$4 == s { print $2; exit }')
	echo $((16#${hex:-0}))
}
n=$((n + 1))
cpuc=$(objsize "$S/core.o" cpu_hw_events)
base_cpuc=$(objsize "$B/core.o" cpu_hw_events)
scratch=$(objsize "$S/core.o" x86_sched_scratch)
if [ "$cpuc" -gt 0 ] && [ "$base_cpuc" -gt 0 ] && [ "$cpuc" -le $((base_cpuc + 128)) ]; then
	echo "ok $n - struct cpu_hw_events: series $cpuc bytes, $BASE_NAME $base_cpuc bytes, $((cpuc - base_cpuc)) added (<= 128; nm -S core.o); the matcher's per-CPU memory beside it: $scratch bytes"
else
	echo "not ok $n - struct cpu_hw_events: series '$cpuc' bytes, $BASE_NAME '$base_cpuc' bytes (at most 128 added; nm -S core.o)"
	fail=1
fi
# Part 2's size (issue 39: at most 600 lines added outside tests and
# documentation): the lines its patches add outside the KUnit files and
# Documentation/, and of those the code (not blank, not a comment line).
n=$((n + 1))
p2=$(part_branch "$(part_of 2)")
p1=$(part_branch "$(part_of 1)")
added=$(git -C "$TREE" diff "$p1" "$p2" -- . ':!*kunit*' ':!*.kunitconfig' \
	':!Documentation' | sed -n 's/^+//p' | grep -v '^++ ')
all=$(printf '%s\n' "$added" | wc -l)
code=$(printf '%s\n' "$added" | grep -v '^[[:space:]]*$' |
	grep -cv '^[[:space:]]*\(/\*\|\*\|//\)')
if [ "$code" -gt 0 ] && [ "$code" -le 600 ]; then
	echo "ok $n - part 2 adds $code lines of code outside tests and documentation (<= 600; $all lines with its comments and kernel-doc; git diff $p1 $p2)"
else
	echo "not ok $n - part 2 adds '$code' lines of code outside tests and documentation (at most 600; git diff $p1 $p2)"
	fail=1
fi
objdump -d "$OUT/arch/x86/events/counter_match.o" |
	perl "$TREE/scripts/checkstack.pl" x86_64 0 | sed 's/^/# checkstack.pl: /'
echo "1..$n"
exit $fail
