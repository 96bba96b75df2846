#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kunit-qemu: the series kernel's KUnit suites run the way kernel
# developers run any suite, 'kunit.py run', with a --qemu_config that starts
# this project's QEMU as the emulated affected host (Haswell, one core, two
# threads: tools/testing/x86-pmu/kunit-qemu/hsw_ht.py), so that the glue
# suite runs its cases instead of skipping them as under kunit.py's stock
# QEMU.
#
# kunit.py runs in the series kernel's worktree (build/k-series) with
# exactly the configuration and build arguments scripts/kernel-build.sh
# built it with (kernel-build.sh --print-args series): it finds the
# configuration unchanged and the build done, and only boots. A run in
# which it configured the kernel again, or compiled more than a few
# objects, fails.
#
# Writes build/results/kunit-qemu.tap: one line per KUnit case (a skipped
# case fails: the emulated host must run every one), a line for each suite
# of the kernel's .kunitconfig files that did not run, one for the build
# being reused (no new configuration, at most a few objects compiled
# again), one for the console (any WARNING, BUG, KASAN, lockdep,
# lockup report fails, the boots' scan: scripts/lib.sh), one for kunit.py's
# exit status, and kunit.py's summary. Beside it: kunit-qemu.log (what
# kunit.py printed), .console (the guest's whole console), .json (kunit.py's
# results), .ledger (the emulator's exposure ledger).
#
#   kunit-qemu.sh
#
# Environment, to run on another build: KUNIT_TREE (the kernel tree to run
# kunit.py in; default build/k-series), KUNIT_ARGS (kunit.py's configuration
# and build arguments, blank-separated, exactly as the build had them),
# XPMU_QEMU (the emulator; default build/qemu/qemu-system-x86_64),
# QEMU_ARGS (more QEMU arguments, kunit.py's --qemu_args; "-cpu Haswell"
# takes the PMU away), KUNIT_TIMEOUT (kunit.py's --timeout, default 600 s:
# booting and running the suites took 15 to 22 s here with KASAN and
# lockdep under TCG, beside 33 to 74 s of kunit.py's make finding the
# build done; a loaded host takes longer, a hang the whole timeout).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

CONFIG=$TOP/tools/testing/x86-pmu/kunit-qemu/hsw_ht.py
TREE=${KUNIT_TREE:-$(kdir series)}
TIMEOUT=${KUNIT_TIMEOUT:-600}
FEW=20		# objects kunit.py may compile again: the tree changed a little
export XPMU_QEMU=${XPMU_QEMU:-$BUILD/qemu/qemu-system-x86_64}
out=$RESULTS/kunit-qemu
tap=$out.tap
mkdir -p "$RESULTS"
rm -f "$out".*

fail() {
	printf 'not ok 1 - kunit-qemu: %s\n1..1\n' "$*" > "$tap"
	echo "error: $*" >&2
	exit 1
}

[ -x "$XPMU_QEMU" ] ||
	fail "no emulator at $XPMU_QEMU (scripts/qemu-build.sh builds it)"
if [ -n "${KUNIT_ARGS:-}" ]; then
	read -r -a args <<< "$KUNIT_ARGS"
else
	a=$("$TOP/scripts/kernel-build.sh" --print-args series) ||
		fail "no arguments for the series kernel (scripts/kernel-build.sh series builds it)"
	mapfile -t args <<< "$a"
fi

# The build directory and the suites its .kunitconfig files build in.
bdir=
suites=()
for a in "${args[@]}"; do
	case $a in
	--build_dir=*) bdir=${a#--build_dir=} ;;
	--kunitconfig=*)
		k=${a#--kunitconfig=}
		k=${k%/}
		k=${k%/.kunitconfig}
		read -r -a s <<< "${KUNIT_SUITES[$k]:-}"
		suites+=("${s[@]}") ;;
	esac
done
[ -n "$bdir" ] || fail "no --build_dir in kunit.py's arguments"
case $bdir in /*) ;; *) bdir=$TREE/$bdir ;; esac
image=$bdir/arch/x86/boot/bzImage
[ -f "$image" ] || fail "no kernel at $image (scripts/kernel-build.sh series builds it)"
[ ${#suites[@]} -gt 0 ] || fail "no KUnit suite of the series among kunit.py's --kunitconfig"
image_time=$(stat -c %Y "$image")

step "kunit.py run in ${TREE#"$TOP"/} (build ${bdir#"$TOP"/}) on the emulated Haswell, 1 core x 2 threads (${CONFIG#"$TOP"/}${QEMU_ARGS:+, QEMU arguments added: $QEMU_ARGS}); suites ${suites[*]}; timeout $TIMEOUT s; log in ${out#"$TOP"/}.log"
start=$SECONDS
touch "$out.start"
qemu_args=()
[ -z "${QEMU_ARGS:-}" ] || qemu_args=(--qemu_args="$QEMU_ARGS")
# kunit.py's lines with a time stamp, but for each passed case: configuring,
# building, booting, each suite, its failures and skips, the summary.
(cd "$TREE" && PATH=/usr/bin:$PATH PYTHONDONTWRITEBYTECODE=1 XPMU_LEDGER=$out.ledger \
	python3 tools/testing/kunit/kunit.py run "${args[@]}" --qemu_config="$CONFIG" \
	--timeout="$TIMEOUT" --json="$out.json" "${qemu_args[@]}") 2>&1 | tee "$out.log" |
	grep --line-buffered -E '^\[[0-9:]{8}\] ' | grep --line-buffered -v '\[PASSED\]'
rc=${PIPESTATUS[0]}
secs=$((SECONDS - start))
if [ "$bdir/test.log" -nt "$out.start" ]; then
	cp "$bdir/test.log" "$out.console"
fi
# What kunit.py's build step compiled: nothing when the tree is as it was
# built; a changed kernel release (the tree's commit, CONFIG_LOCALVERSION_AUTO)
# or a changed file recompiles a few objects and relinks the image; a
# different configuration or make option, most of the kernel.
objs=$(find "$bdir" -name '*.o' -newer "$out.start" | wc -l)
rm -f "$out.start"

# The TAP: every case, the suites that did not run, then the run itself.
"$TOP/scripts/kunit-tap.py" --no-skip --no-plan "$out.json" "kunit-qemu: " "${suites[@]}" > "$tap"
n=$(grep -cE '^(not )?ok ' "$tap")
line() {
	n=$((n + 1))
	printf '%s %d - kunit-qemu: %s\n' "$1" $n "$2" >> "$tap"
}
times=$(sed -n 's/.*Elapsed time: \(.*\)$/\1/p' "$out.log" | tail -1)
if grep -qE '^(Regenerating|Generating) \.config' "$out.log"; then
	line "not ok" "the build was not reused: kunit.py configured the kernel again (its arguments differ from the build's; $times)"
elif [ "$objs" -gt "$FEW" ]; then
	line "not ok" "the build was not reused: kunit.py compiled $objs objects again ($times)"
elif [ "$(stat -c %Y "$image" 2>/dev/null)" != "$image_time" ]; then
	line ok "the build was reused: $objs objects compiled again and the image relinked, the tree changed since its build ($times)"
	echo "note: kunit.py compiled $objs objects again and relinked the kernel: the tree changed since its build"
else
	line ok "the build was reused (${times:-kunit.py printed no times})"
fi
if [ ! -s "$out.console" ]; then
	line "not ok" "console clean: no console (kunit.py did not start the emulator, see ${out#"$TOP"/}.log)"
elif reports=$(kernel_reports "$out.console"); then
	line "not ok" "console clean: $(echo "$reports" | wc -l) WARNING, BUG, KASAN, lockdep or lockup report lines"
	echo "$reports" | head -20 | sed 's/^/# /' >> "$tap"
else
	line ok "console clean: no WARNING, BUG, KASAN, lockdep, lockup report"
fi
if [ "$rc" -eq 0 ]; then
	line ok "kunit.py run exit 0"
elif grep -q "^Command .* timed out after" "$out.log"; then
	line "not ok" "kunit.py run exit $rc: the emulator was stopped at the timeout, $TIMEOUT s (see ${out#"$TOP"/}.log)"
else
	line "not ok" "kunit.py run exit $rc (see ${out#"$TOP"/}.log)"
fi
summary=$(sed -n 's/^\[[0-9:]*\] \(Testing complete\..*\)$/\1/p' "$out.log" | tail -1)
{
	echo "# kunit.py: ${summary:-no summary}"
	echo "# kunit-qemu took $secs s"
	echo "1..$n"
} >> "$tap"

echo "kunit.py run on the emulated Haswell: $(grep -c '^ok' "$tap") ok, $(grep -c '^not ok' "$tap") not ok in $secs s (${tap#"$TOP"/}); kunit.py: ${summary:-no summary}; ${times:-no times}"
grep -E '^(not ok|# )' "$tap" | grep -v '^# kunit'
! grep -q '^not ok' "$tap"
