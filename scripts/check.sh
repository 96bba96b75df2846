#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project. Every step writes TAP into
# build/results/; the last line counts every test that ran.
#
# The mainline parts (series/7.3/N-NAME/, applied by scripts/apply-parts.sh
# as branches fixes, matcher, ht, core of build/linux-7.3) and the 6.12
# backport (series/6.12/, branch 'series' of build/linux-6.12): the
# user-space harness (with the mutation check); the export of every part
# and of the backport, checkpatch --strict on all of it, and each part
# applied with git am on a clean 7.3 after the parts before it, the backport
# on a clean 6.12 (scripts/check-parts.sh); the documentation, workbench and
# emulator tests; the boot matrix (scripts/qemu-run.sh --matrix: parts 1-3
# on every host, parts 1-4, plain 7.3 beside them, part 1 alone with the
# fixes' tests, the 6.12 backport on the affected host; kernels and their
# configurations in scripts/kernel-build.sh), with the series kernel's
# KUnit suites once more through kunit.py run on the emulated affected
# host, on the same build, in the boots' queue (scripts/kunit-qemu.sh);
# every patch of every part building on its own (scripts/bisect-build.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# phase NAME: the time since the last phase and how busy the machine's
# CPUs were in it (/proc/stat: time not idle over all time), for the
# summary: a phase well under 100% waits on something other than the CPU.
phases=()
last=$start
read -r last_busy last_all < <(cpu_ticks)
phase() {
	local now busy all
	now=$(date +%s)
	read -r busy all < <(cpu_ticks)
	phases+=("$(printf '%-34s %5d s  CPUs %3d%% busy' "$1" $((now - last)) \
		"$(busy_pct "$last_busy" "$last_all" "$busy" "$all")")")
	last=$now last_busy=$busy last_all=$all
}

"$TOP/scripts/setup.sh" || die "setup failed"
# The emulator builds while the trees are extracted and recorded (one core
# each, mostly): the boots' job below waits for it (qemu-build.sh's lock).
step "building the emulator in the background (${RESULTS#"$TOP"/}/qemu-build.log)"
"$TOP/scripts/qemu-build.sh" > "$RESULTS/qemu-build.log" 2>&1 &
"$TOP/scripts/prepare-tree.sh" $LTS || die "the $LTS tree could not be prepared"
"$TOP/scripts/apply-series.sh" || die "the series does not apply"
"$TOP/scripts/prepare-tree.sh" $MAINLINE || die "the $MAINLINE tree could not be prepared"
"$TOP/scripts/apply-parts.sh" || die "the mainline parts do not apply"
phase "setup, trees, applying"

# run NAME TAPFILE COMMAND...: a step that fails without saying which test
# failed still counts as one failure.
run() {
	local name=$1 tap=$RESULTS/$2.tap
	shift 2
	"$@"
	local rc=$?
	if [ $rc -ne 0 ] && ! grep -qs '^not ok' "$RESULTS"/*.tap; then
		echo "not ok - $name (exit $rc)" >> "$tap"
	fi
}

# The builds the boots need (the emulator, five kernels, perf, the
# initramfs: most of a first run) and then the boots run in the
# background from now on (scripts/qemu-run.sh --matrix, one build at a
# time with $JOBS jobs, then the boots), beside the checks below, which are
# mostly one process at a time. On a second run the builds are no-ops and
# the boots overlap the checks. Its output: build/results/boots.log,
# printed when it is done.
step "building the emulator, the kernels, perf and the initramfs, then booting the matrix, in the background (${RESULTS#"$TOP"/}/boots.log)"
run boots kunit "$TOP/scripts/qemu-run.sh" --matrix > "$RESULTS/boots.log" 2>&1 &
boots=$!

run harness harness env HARNESS_PERF=0 "$TOP/scripts/harness.sh"
phase harness

step "exporting the series and running checkpatch.pl --strict on every patch"
# make series signs off with the exporter's git identity into build/series/
# and refuses without one; a machine without one (CI) exports unsigned into
# build/series-check/, for the checks only, and checkpatch leaves out the
# sign-off check there. build/series/ never holds an unsigned patch.
which="$MAINLINE $LTS"
if [ -n "$(env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
	-u GIT_COMMITTER_EMAIL git config --get user.email)" ]; then
	unsigned=0
	# shellcheck disable=SC2086
	run series series "$TOP/scripts/export-series.sh" $which
else
	unsigned=1
	# shellcheck disable=SC2086
	run series series "$TOP/scripts/export-series.sh" --unsigned $which
fi
run checkpatch checkpatch bash -c "UNSIGNED=$unsigned '$TOP/scripts/checkpatch.sh' | tee '$RESULTS/checkpatch.tap'; exit \${PIPESTATUS[0]}"
step "every part with git am on a clean $MAINLINE after the parts before it; the backport on a clean $LTS"
run check-parts check-parts bash -c "UNSIGNED=$unsigned '$TOP/scripts/check-parts.sh' | tee '$RESULTS/check-parts.tap'; exit \${PIPESTATUS[0]}"
phase "export, checkpatch, git am"

step "documentation: kernel-doc -Wall, reStructuredText"
run docs docs bash -c "'$TOP/scripts/doc-check.sh' | tee '$RESULTS/docs.tap'; exit \${PIPESTATUS[0]}"

step "workbench: refusing broken series"
run scripts scripts bash -c "'$TOP/scripts/test-scripts.sh' | tee '$RESULTS/scripts.tap'"

step "the emulator's own tests (its counting model, user space)"
run emulator emulator bash -c "'$TOP/scripts/qemu-emu-test.sh' | tee '$RESULTS/emulator.tap'; exit \${PIPESTATUS[0]}"
phase "docs, workbench, emulator tests"

step "waiting for the builds and boots in the background"
wait "$boots"
cat "$RESULTS/boots.log"
phase "waiting for the builds and boots"
# Two steps side by side: one perf process, the builds. (kunit.py's run on
# the emulated host was one of the boots.)
step "in the background: perf's metric groups against the simulator (${RESULTS#"$TOP"/}/metrics-perf.out)"
run metrics-perf harness-sim-metrics-perf bash -c "bash '$TOP/tools/testing/x86-pmu/sim/sim_metrics_perf_test.sh' '$PERF_OUT/perf' '$TOP/tools/testing/x86-pmu/sim/sim_metrics_perf.ref' '$BUILD/harness' > '$RESULTS/harness-sim-metrics-perf.tap'; exit \$?" > "$RESULTS/metrics-perf.out" 2>&1 &
mp=$!

step "every patch builds on its own (arch/x86/events with W=1, selftests)"
run bisect bisect bash -c "'$TOP/scripts/bisect-build.sh' | tee '$RESULTS/bisect.tap'; exit \${PIPESTATUS[0]}"
step "perf's metric groups against the simulator:"
wait $mp
cat "$RESULTS/metrics-perf.out" "$RESULTS/harness-sim-metrics-perf.tap"
phase "per-patch builds, perf's metrics"

pass=$(cat "$RESULTS"/*.tap | grep -c '^ok ')
fail=$(cat "$RESULTS"/*.tap | grep -c '^not ok')
echo
grep -h '^not ok' "$RESULTS"/*.tap | sed 's/^/FAILED: /'
{
	echo "time by phase:"
	printf '  %s\n' "${phases[@]}"
	echo "make check took $(( $(date +%s) - start )) s ($JOBS jobs); TAP files in ${RESULTS#"$TOP"/}/"
	echo "$pass passed, $fail failed"
} > "$RESULTS/check-summary.txt"
"$TOP/scripts/results-page.sh"
sed -n '1,/^make check took/p' "$RESULTS/check-summary.txt" | sed '$d'
[ -f "$RESULTS/kernel-times.txt" ] && sed 's/^/  /' "$RESULTS/kernel-times.txt"
tail -2 "$RESULTS/check-summary.txt"
[ "$fail" -eq 0 ]
