#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The results page: RESULTS.md, the figures of one make check run, taken
# from the files it left in build/results/ (TAP, consoles, boots.log) and
# nothing else. make check writes it as its last step; run it again after
# one (or after make half-boots) to rewrite it:
#
#   results-page.sh [RESULTS_DIR [OUT]]   (build/results, RESULTS.md)
#
# Each section is headed by the command that produced its figures and the
# tree it ran on; a section whose files are missing says so. Nothing in
# the page is written by hand: to change a figure, change the code and run
# make check.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

R=${1:-$RESULTS}
OUT=${2:-$TOP/RESULTS.md}
[ -d "$R" ] || die "no results at $R: run make check first"

commit=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$TOP" status --porcelain --untracked-files=no -- series scripts tools arch \
	kernel qemu Documentation 2>/dev/null | head -1)
run_date=$(date -u -r "$R" '+%Y-%m-%d %H:%M UTC' 2>/dev/null)

# section TITLE COMMAND TREE: a heading and where its figures come from;
# COMMAND's words in parentheses are a note, outside the code span.
section() {
	local cmd=${2%% (*} note=
	[ "$cmd" = "$2" ] || note=" (${2#* (}"
	printf '\n## %s\n\n' "$1"
	printf 'Command: `%s`%s; tree: %s.\n\n' "$cmd" "$note" "$3"
}
# block FILE...: the lines given on stdin as a code block, or a note that
# FILE is missing.
have() {
	local f
	for f in "$@"; do
		[ -s "$f" ] || { printf '_Not in this run: %s is missing._\n' "${f#"$R"/}"; return 1; }
	done
}
block() {
	echo '```'
	cat
	echo '```'
}
# tap_lines FILE: its ok / not ok lines without their numbers.
tap_lines() {
	sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - /p' "$1"
}
# between FILE START: the lines of FILE from the one starting with START
# to the next blank line.
between() {
	awk -v s="$2" 'index($0, s) == 1 { on = 1 } on && /^$/ { exit } on' "$1"
}

{
	echo '# Results of one `make check` run'
	echo
	echo "Written by \`scripts/results-page.sh\` from \`${R#"$TOP"/}/\` of the run of commit"
	echo "$commit${dirty:+ (with uncommitted changes)}, finished $run_date, on a machine with $(nproc) cores."
	echo 'Do not edit: `make check` writes this page as its last step.'

	section "Totals and time by phase" "make check" "the parts on Debian's linux-source-$MAINLINE, the backport on linux-source-$LTS"
	if have "$R/check-summary.txt"; then
		block < "$R/check-summary.txt"
	fi

	section "The boot matrix" "scripts/qemu-run.sh --matrix (make check)" \
		"kernels of scripts/kernel-build.sh, hosts of this project's QEMU"
	if have "$R/boots.log"; then
		{
			"$TOP/scripts/qemu-run.sh" --matrix --list
			echo
			between "$R/boots.log" "boot matrix (ledger"
			grep -E '^KUnit on ' "$R/boots.log"
		} | block
	fi

	section "The fixes: each test before (plain $MAINLINE) and after (part 1)" \
		"scripts/qemu-run.sh --matrix (boots hsw-ht-$MAINLINE and hsw-ht-fixes)" "linux-source-$MAINLINE"
	if have "$R/fixes.tap" "$R/boots.log"; then
		{
			between "$R/boots.log" "the fixes' host tests"
			echo
			tap_lines "$R/fixes.tap"
		} | block
	fi

	section "A thread asking for half the counters beside a corrupting sibling" \
		"scripts/qemu-run.sh --matrix (host/half.sh in every affected boot)" "each boot's kernel"
	found=0
	for c in "$R"/boot-*.console; do
		[ -e "$c" ] || continue
		name=${c##*/boot-}
		name=${name%.console}
		case $name in half-*) continue ;; esac
		grep -q 'groups, lowest share' "$c" || continue
		found=1
		echo "$name:"
		tr -d '\r' < "$c" | sed -n 's/^#   \(.*groups, lowest share.*\|sibling .*ran.*\|the host stalled.*\)$/  \1/p;
			s/^# \([0-9]* of [0-9]* groups ran less than .*\)$/  \1/p'
	done | block
	for t in "$R"/half-boots-*.txt; do
		[ -e "$t" ] || continue
		k=${t##*/half-boots-}
		k=${k%.txt}
		printf '\nCommand: `make half-boots ARGS="%s %s"` (scripts/half-boots.sh).\n\n' \
			"$(grep -c '^boot ' "$t")" "$k"
		block < "$t"
	done

	section "The emulated host beside the simulator" "scripts/host-vs-sim.sh (scripts/qemu-run.sh --matrix)" \
		"perf's event tables of linux-source-$MAINLINE"
	if have "$R/host-vs-sim.tap"; then
		tap_lines "$R/host-vs-sim.tap" | block
	fi

	section "Kernel instructions per context switch with perf events, the series beside plain $MAINLINE" \
		"scripts/switch-cost.sh (cost/cost.sh in the boots cost-ht, cost-noht, cost-ht-$MAINLINE, cost-noht-$MAINLINE)" \
		"the cost kernel (parts 1-3) and the mainline kernel, built alike"
	if have "$R/switch-cost.tap"; then
		grep '^# |' "$R/switch-cost.tap" | sed 's/^# //'
		echo
		tap_lines "$R/switch-cost.tap" | block
	fi

	section "Topdown on the affected hosts, the series beside plain $MAINLINE" \
		"scripts/topdown-table.sh (topdown/topdown.sh in the boots hsw-ht-scen, snb-ht, ivb-ht, hsw-ht-$MAINLINE, snb-ht-$MAINLINE, ivb-ht-$MAINLINE)" \
		"the series kernel (parts 1-3) and the mainline kernel"
	if have "$R/topdown.tap"; then
		sed -n '/^|/p' "$R/topdown.tap"
		echo
		tap_lines "$R/topdown.tap" | block
	fi

	section "Single events beside a corrupting sibling, the NMI watchdog on and off" \
		"scripts/lone-table.sh (lone/lone.sh in the boots hsw-ht, snb-ht, ivb-ht, hsw-ht-fixes, snb-ht-fixes, ivb-ht-fixes, hsw-ht-$MAINLINE, snb-ht-$MAINLINE, ivb-ht-$MAINLINE, hsw-ht-rfc)" \
		"the series (parts 1-3), fixes (part 1), rfc (parts 1-4) and mainline kernels"
	if have "$R/lone.tap"; then
		sed -n '/^|/p' "$R/lone.tap"
		echo
		tap_lines "$R/lone.tap" | block
	fi

	section "KUnit through kunit.py on the emulated affected host" "scripts/kunit-qemu.sh (make kunit-qemu)" \
		"the series kernel (parts 1-3)"
	if have "$R/kunit-qemu.tap"; then
		grep -E '^(not ok|# kunit)' "$R/kunit-qemu.tap" | block
		echo
		echo "$(grep -c '^ok' "$R/kunit-qemu.tap") ok, $(grep -c '^not ok' "$R/kunit-qemu.tap") not ok."
	fi

	section "The matcher against upstream's greedy, same run" \
		"scripts/harness.sh (match_bench, callgrind, gcc -fstack-usage, size)" \
		"the matcher of part 2, upstream's greedy extracted from linux-source-$MAINLINE"
	if have "$R/harness-bench.tap"; then
		grep -E '^#' "$R/harness-bench.tap" | sed 's/^# \{0,1\}//' | block
	fi
	if [ -s "$R/harness-callgrind.tap" ]; then
		echo
		grep -E '^#' "$R/harness-callgrind.tap" | sed 's/^# \{0,1\}//' | block
	fi
	for f in "$R"/harness-size.tap "$R"/harness-stack.tap; do
		[ -s "$f" ] || continue
		echo
		tap_lines "$f" | block
	done
	if [ -s "$R/bisect.tap" ]; then
		echo
		echo "In the kernel (scripts/bisect-build.sh, gcc -fstack-usage and nm -S, KASAN off):"
		echo
		grep -E '^(not )?ok [0-9]+ - (stack|struct cpu_hw_events|part 2 adds)' "$R/bisect.tap" | block
	fi

	section "Planted bugs" "tools/testing/x86-pmu/mutate.sh (make mutation; scripts/harness.sh runs it)" \
		"copies of counter_match.c, xsu.c, xsu_arb.c"
	if have "$R/harness-mutation.tap"; then
		{
			tap_lines "$R/harness-mutation.tap"
		} | block
	fi

	section "Kernel builds" "scripts/kernel-build.sh (make check)" "as each kernel's line says"
	if have "$R/kernel-times.txt"; then
		block < "$R/kernel-times.txt"
	fi
} > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
echo "results page: ${OUT#"$TOP"/} (from ${R#"$TOP"/}/)"
