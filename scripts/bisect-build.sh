#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every patch of the series must build on its own. Check out each commit
# of base..series in a worktree of its own (build/bisect) and build
# arch/x86/events/ and kernel/events/ with W=1 and the QEMU kernel's
# configuration, plus the perf_events selftests when the commit touches
# them, and reports the stack frames of the scheduling path at the tip.
# One TAP line per patch. A commit that built once is remembered by its hash (the series
# is applied with fixed dates, so an unchanged patch keeps its hash).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

WT=$BUILD/bisect
OUT=$BUILD/bisect-out
DONE=$BUILD/bisect-ok
touch "$DONE"

[ -f "$KBUILD/.config" ] || die "no kernel configuration in ${KBUILD#"$TOP"/}: run scripts/qemu-run.sh first"
if ! git -C "$WT" rev-parse -q --verify HEAD > /dev/null 2>&1; then
	rm -rf "$WT" "$OUT" "$DONE"
	touch "$DONE"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$WT" base ||
		die "cannot create the worktree $WT"
fi
mkdir -p "$OUT/selftests"

n=0
fail=0
for c in $(git -C "$KSRC" rev-list --reverse base..series); do
	n=$((n + 1))
	subject=$(git -C "$KSRC" log -1 --format=%s "$c")
	if grep -qx "$c" "$DONE"; then
		echo "ok $n - patch $n builds on its own: $subject (built before)"
		continue
	fi
	git -C "$WT" checkout -q --detach "$c"
	# The boot kernel's configuration without KASAN: faster to build,
	# and the stack frames below are the ones of a production kernel.
	cp "$KBUILD/.config" "$OUT/.config"
	"$WT/scripts/config" --file "$OUT/.config" -d KASAN
	log=$RESULTS/bisect-$n.log
	if make -s -C "$WT" O="$OUT" ARCH=x86_64 -j"$JOBS" olddefconfig > "$log" 2>&1 &&
	   make -s -C "$WT" O="$OUT" ARCH=x86_64 -j"$JOBS" W=1 KCFLAGS=-fstack-usage \
		arch/x86/events/ kernel/events/ >> "$log" 2>&1 &&
	   { git -C "$KSRC" diff --quiet "$c~1" "$c" -- tools/testing/selftests/perf_events ||
	     make -s -C "$WT/tools/testing/selftests/perf_events" OUTPUT="$OUT/selftests" \
		KHDR_INCLUDES="-isystem $KBUILD/usr/include" >> "$log" 2>&1; } &&
	   ! grep -q "warning:" "$log"; then
		echo "ok $n - patch $n builds on its own: $subject"
		echo "$c" >> "$DONE"
	else
		grep -E "error|warning" "$log" | head -20 | sed 's/^/# /'
		echo "not ok $n - patch $n builds on its own: $subject (see ${log#"$TOP"/})"
		fail=1
	fi
done

# Stack frames of the scheduling path at the series' tip (the last commit
# built above), from gcc's -fstack-usage. checkstack.pl's figure is shown
# too: on x86_64 it adds the epilogue's "add $N,%rsp" to the prologue's
# "sub $N,%rsp", so it doubles.
frames() {
	local su=$OUT/$1 fn=$2 limit=$3 bytes
	n=$((n + 1))
	bytes=$(awk -F'\t' -v fn="$fn" '$1 ~ ":" fn "$" { print $2 }' "$su" 2>/dev/null)
	if [ -n "$bytes" ] && [ "$bytes" -le "$limit" ]; then
		echo "ok $n - kernel stack frame of $fn: $bytes bytes (<= $limit, KASAN off)"
	else
		echo "not ok $n - kernel stack frame of $fn: '$bytes' bytes, limit $limit"
		fail=1
	fi
}
frames arch/x86/events/counter_match.su x86_counter_match 768
frames arch/x86/events/core.su perf_assign_events 640
frames arch/x86/events/core.su x86_schedule_events 256
objdump -d "$OUT/arch/x86/events/counter_match.o" |
	perl "$KSRC/scripts/checkstack.pl" x86_64 0 | sed 's/^/# checkstack.pl: /'
echo "1..$n"
exit $fail
