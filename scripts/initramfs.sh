#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an initramfs the boots of the matrix use:
#
#   initramfs.sh SRC KBUILD OUT
#
# from the kernel tree SRC, its build KBUILD (the headers the kselftests
# build against) into OUT, the kselftests in build/selftests-NAME for
# OUT = build/initramfs-NAME.cpio. scripts/qemu-run.sh builds
# build/initramfs-7.3.cpio from the series kernel (build/k-series, its
# .build) and build/initramfs-6.12.cpio from the 6.12 backport's
# (build/k-lts) for the backport's boot. perf: PERF_OUT/perf
# (scripts/lib.sh).
#
#   /init                  tools/testing/x86-pmu/guest/init.c (static)
#   /bin/busybox, applets  Debian's busybox-static: a shell for the scripts
#   /usr/bin/perf          perf from the tree's tools/perf, static, with the
#                          JSON event tables (scripts/build-perf.sh)
#   /tests/perf_events/    the perf_events kselftests of the patched tree
#   /tests/host/           the knob experiment on the emulated host (perf
#                          stat); helper programs as /usr/bin/x86pmu-*
#   /tests/scenarios/      the simulator's scenarios with perf stat
#   /tests/cost/           the kernel's instructions per context switch
#                          with perf events (the emulator's count)
#   /tests/topdown/        perf --topdown, TopdownL1/L2 and a many-group record
#   /tests/lone/           single events beside a corrupting sibling, the NMI
#                          watchdog on and off (x86pmu-lone)
#   /tests/amd/            the AMD family 15h sets that plain 7.3 refuses
#                          (the sets plain 7.3 refuses): perf stat, perf record
#   /tests/grt/            Gracemont's PEBS set that plain 7.3 refuses (two
#                          instructions:ppp and load latency): x86pmu-share,
#                          perf record, perf mem
#   /usr/bin/x86pmu-samples  guest/perf-samples.awk: perf report's samples
#   /tests/stress/         glue_stress: the scheduling glue under random
#                          events, knob switches and CPU hotplug
#   /tests/fixes/          the host tests of the fixes (part 1), links to
#                          host/ (FIX_TESTS below; those that exist)
#   /tests/half/           host/half.sh alone, for repeated boots of it
#                          (scripts/half-boots.sh)
#
# Which directories a boot runs is on its kernel command line
# (x86pmu.run=...), see init.c.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 SRC KBUILD OUT" >&2; exit 2; }
KSRC=$1
KBUILD=$2
INITRAMFS=$3
ST=$BUILD/selftests-$(basename "$INITRAMFS" .cpio | sed 's/^initramfs-//')
ROOT=$ST/root
# The host tests of the fixes (tools/testing/x86-pmu/guest/host/), run by
# the boot of the fixes kernel (x86pmu.run=fixes).
FIX_TESTS=(moved.sh pinned-held.sh)
GUEST=$TOP/tools/testing/x86-pmu/guest
mkdir -p "$RESULTS"

fail() {
	echo "error: $*" >&2
	exit 1
}

step "building the perf_events kselftests (static) of ${KSRC#"$TOP"/} and ${INITRAMFS#"$TOP"/}"
mkdir -p "$ST/perf_events"
make -s -C "$KSRC" O="$KBUILD" ARCH=x86_64 headers > "$RESULTS/selftests-build-$(basename "$ST").log" 2>&1 &&
make -s -C "$KSRC/tools/testing/selftests/perf_events" OUTPUT="$ST/perf_events" \
	CC="gcc -static" KHDR_INCLUDES="-isystem $KBUILD/usr/include" \
	>> "$RESULTS/selftests-build-$(basename "$ST").log" 2>&1 ||
	{ tail -30 "$RESULTS/selftests-build-$(basename "$ST").log"; fail "the kselftests do not build"; }
cp "$KSRC/tools/testing/selftests/perf_events/settings" "$ST/perf_events/" 2>/dev/null

rm -rf "$ROOT"
mkdir -p "$ROOT"/{proc,sys,dev,tmp,bin,usr/bin,tests}
cp -r "$ST/perf_events" "$ROOT/tests/"
gcc -static -O2 -Wall -o "$ROOT/init" "$GUEST/init.c" ||
	fail "the initramfs /init does not build"

# A shell and the usual commands for the experiment scripts.
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || fail "$BUSYBOX is missing: scripts/setup.sh installs busybox-static"
cp "$BUSYBOX" "$ROOT/bin/busybox"
for applet in $("$BUSYBOX" --list); do
	[ -e "$ROOT/bin/$applet" ] || ln -s busybox "$ROOT/bin/$applet"
done

[ -x "$PERF_OUT/perf" ] || fail "no perf at ${PERF_OUT#"$TOP"/}/perf: run scripts/build-perf.sh"
cp "$PERF_OUT/perf" "$ROOT/usr/bin/perf"

for d in host scenarios cost topdown lone amd grt; do
	mkdir -p "$ROOT/tests/$d"
	for f in "$GUEST/$d"/*; do
		case $f in
		# Programs the scripts use, not tests themselves.
		*.c)	gcc -static -O2 -Wall -o "$ROOT/usr/bin/x86pmu-$(basename "${f%.c}")" \
				"$f" -lpthread || fail "$f does not build" ;;
		*)	cp "$f" "$ROOT/tests/$d/" ;;
		esac
	done
done

# perf report's sample headers, summed (amd/f15h.sh, grt/pebs.sh).
install -m 755 "$GUEST/perf-samples.awk" "$ROOT/usr/bin/x86pmu-samples" ||
	fail "cannot install perf-samples.awk"

# perf stat under TCG, beside other boots on the same cores, takes seconds
# per run: the host tests and the scenarios get more than the runner's default
# 120 s (the scenarios also run three metric groups of 600 intervals each;
# with five, 372-468 s on the series kernel with four boots at a time, and
# more than 900 s once, beside other work on the machine). These timeouts
# catch hangs; they are not measurements.
echo "timeout=300" > "$ROOT/tests/host/settings"
echo "timeout=900" > "$ROOT/tests/scenarios/settings"
echo "timeout=600" > "$ROOT/tests/cost/settings"
echo "timeout=600" > "$ROOT/tests/topdown/settings"
echo "timeout=300" > "$ROOT/tests/amd/settings"
echo "timeout=300" > "$ROOT/tests/lone/settings"
echo "timeout=300" > "$ROOT/tests/grt/settings"

# The fixes' host tests, where they exist.
mkdir -p "$ROOT/tests/fixes"
for t in "${FIX_TESTS[@]}"; do
	[ -f "$ROOT/tests/host/$t" ] && ln -s "../host/$t" "$ROOT/tests/fixes/$t"
done
echo "timeout=300" > "$ROOT/tests/fixes/settings"
mkdir -p "$ROOT/tests/half"
ln -s ../host/half.sh "$ROOT/tests/half/half.sh"
echo "timeout=300" > "$ROOT/tests/half/settings"

# The stress test of the scheduling glue: a test program itself.
mkdir -p "$ROOT/tests/stress"
gcc -static -O2 -Wall -o "$ROOT/tests/stress/glue_stress" \
	"$GUEST/stress/glue_stress.c" -lpthread || fail "glue_stress.c does not build"
echo "timeout=300" > "$ROOT/tests/stress/settings"

(cd "$ROOT" && find . | cpio -o -H newc --quiet > "$INITRAMFS") ||
	fail "cannot write the initramfs"
echo "initramfs: ${INITRAMFS#"$TOP"/} ($(du -h "$INITRAMFS" | cut -f1))"
