#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project. Installs what is missing, prepares
# the base tree, applies the series, then runs the user-space harness,
# checkpatch on the exported series, the workbench tests, the emulator's
# tests, then boots the matrix of emulated hosts (scripts/qemu-run.sh
# --matrix: KUnit, the perf_events kselftests, the emulator's guest test,
# perf stat experiments; the unpatched 6.12 beside the series) and builds
# every patch on its own. Every step writes TAP into build/results/;
# the last line counts every test that ran.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

"$TOP/scripts/setup.sh" || die "setup failed"
"$TOP/scripts/prepare-tree.sh" $LTS || die "the $LTS tree could not be prepared"
"$TOP/scripts/apply-series.sh" || die "the series does not apply"

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

run harness harness "$TOP/scripts/harness.sh"

step "exporting the series and running checkpatch.pl --strict on every patch"
# make series signs off with the exporter's git identity and refuses
# without one; a machine without one still checks everything else.
if [ -n "$(env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
	-u GIT_COMMITTER_EMAIL git -C "$KSRC" config --get user.email)" ]; then
	unsigned=0
	run series series "$TOP/scripts/export-series.sh"
else
	unsigned=1
	run series series "$TOP/scripts/export-series.sh" --unsigned
fi
run checkpatch checkpatch bash -c "UNSIGNED=$unsigned '$TOP/scripts/checkpatch.sh' | tee '$RESULTS/checkpatch.tap'; exit \${PIPESTATUS[0]}"

step "documentation: kernel-doc -Wall, reStructuredText"
run docs docs bash -c "'$TOP/scripts/doc-check.sh' | tee '$RESULTS/docs.tap'; exit \${PIPESTATUS[0]}"

step "workbench: refusing broken series"
run scripts scripts bash -c "'$TOP/scripts/test-scripts.sh' | tee '$RESULTS/scripts.tap'"

step "the emulator's own tests (its counting model, user space)"
run emulator emulator bash -c "'$TOP/scripts/qemu-emu-test.sh' | tee '$RESULTS/emulator.tap'; exit \${PIPESTATUS[0]}"

run boots kunit "$TOP/scripts/qemu-run.sh" --matrix
run metrics-perf harness-sim-metrics-perf bash -c "bash '$TOP/tools/testing/x86-pmu/sim_metrics_perf_test.sh' '$BUILD/perf/perf' '$TOP/tools/testing/x86-pmu/sim_metrics_perf.ref' '$BUILD/harness' | tee '$RESULTS/harness-sim-metrics-perf.tap'; exit \${PIPESTATUS[0]}"

step "every patch builds on its own (arch/x86/events with W=1, selftests)"
run bisect bisect bash -c "'$TOP/scripts/bisect-build.sh' | tee '$RESULTS/bisect.tap'; exit \${PIPESTATUS[0]}"

pass=$(cat "$RESULTS"/*.tap | grep -c '^ok ')
fail=$(cat "$RESULTS"/*.tap | grep -c '^not ok')
echo
grep -h '^not ok' "$RESULTS"/*.tap | sed 's/^/FAILED: /'
echo "make check took $(( $(date +%s) - start )) s; TAP files in ${RESULTS#"$TOP"/}/"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
