#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the patched tree as a KUnit kernel (x86_64; outputs in build/kunit,
# reused between runs), the perf_events kselftests as static programs and
# an initramfs holding them, then boot it all under QEMU. The KUnit suites
# run at boot, then /init runs the kselftests and powers off. Prints the
# KUnit results, then the kselftest TAP; writes build/results/kunit.tap,
# kselftest.tap and kunit-stack.tap, and the whole console to console.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# The series' .kunitconfig files and the suites they must produce.
KUNITCONFIGS=(arch/x86/events arch/x86/events/intel)
SUITES=(x86_counter_match x86_intel_xsu x86_intel_xsu_arb)
# What booting with an initramfs and running the selftests needs.
BOOT_CONFIG=(CONFIG_SMP=y CONFIG_BLK_DEV_INITRD=y CONFIG_DEVTMPFS=y
	     CONFIG_TMPFS=y CONFIG_PROC_FS=y CONFIG_SYSFS=y
	     CONFIG_BINFMT_ELF=y CONFIG_BINFMT_SCRIPT=y)

QEMU_TIMEOUT=${QEMU_TIMEOUT:-900}
ST=$BUILD/selftests
INITRAMFS=$BUILD/initramfs.cpio
mkdir -p "$RESULTS"
rm -f "$RESULTS"/kunit.json "$RESULTS"/kunit.tap "$RESULTS"/kselftest.tap \
	"$RESULTS"/kunit-stack.tap "$RESULTS"/console.log

fail() {
	echo "not ok - $*" >> "$RESULTS/kunit.tap"
	echo "error: $*" >&2
	exit 1
}

args=(--arch=x86_64 --build_dir="$KBUILD" --jobs="$JOBS"
      --make_options=KCFLAGS=-fstack-usage)
for k in "${KUNITCONFIGS[@]}"; do
	args+=(--kunitconfig="$k")
done
for c in "${BOOT_CONFIG[@]}"; do
	args+=(--kconfig_add="$c")
done

step "building the patched kernel (about 4 minutes the first time on 2 cores, seconds after; log in build/results/kernel-build.log)"
(cd "$KSRC" && python3 tools/testing/kunit/kunit.py build "${args[@]}") \
	> "$RESULTS/kernel-build.log" 2>&1 ||
	{ tail -30 "$RESULTS/kernel-build.log"; fail "the patched kernel does not build"; }

step "building the perf_events kselftests (static) and the initramfs"
mkdir -p "$ST/perf_events"
make -s -C "$KSRC" O="$KBUILD" ARCH=x86_64 headers > "$RESULTS/selftests-build.log" 2>&1 &&
make -s -C "$KSRC/tools/testing/selftests/perf_events" OUTPUT="$ST/perf_events" \
	CC="gcc -static" KHDR_INCLUDES="-isystem $KBUILD/usr/include" \
	>> "$RESULTS/selftests-build.log" 2>&1 ||
	{ tail -30 "$RESULTS/selftests-build.log"; fail "the kselftests do not build"; }
cp "$KSRC/tools/testing/selftests/perf_events/settings" "$ST/perf_events/" 2>/dev/null
rm -rf "$ST/root"
mkdir -p "$ST/root"/{proc,sys,dev,tmp,tests}
cp -r "$ST/perf_events" "$ST/root/tests/"
gcc -static -O2 -Wall -o "$ST/root/init" "$TOP/tools/testing/x86-pmu/qemu/init.c" ||
	fail "the initramfs /init does not build"
(cd "$ST/root" && find . | cpio -o -H newc --quiet > "$INITRAMFS") ||
	fail "cannot write the initramfs"

step "booting the patched kernel under QEMU (software emulation, 2 CPUs)"
timeout "$QEMU_TIMEOUT" qemu-system-x86_64 -nodefaults -m 1024 -smp 2 \
	-kernel "$KBUILD/arch/x86/boot/bzImage" -initrd "$INITRAMFS" \
	-append "console=ttyS0 kunit.enable=1 rdinit=/init panic=-1" \
	-no-reboot -nographic -serial stdio -bios qboot.rom \
	< /dev/null > "$RESULTS/console.log" 2>&1
status=$?
[ $status -eq 0 ] || echo "qemu exited with $status (124: timeout after ${QEMU_TIMEOUT}s)"

# KUnit: what the kernel printed before /init started.
sed '/^x86-pmu-selftests: begin/,$d' "$RESULTS/console.log" > "$RESULTS/kunit.log"
(cd "$KSRC" && python3 tools/testing/kunit/kunit.py parse \
	--json="$RESULTS/kunit.json" "$RESULTS/kunit.log")

python3 - "$RESULTS/kunit.json" "${SUITES[@]}" > "$RESULTS/kunit.tap" <<'PY'
import json, sys
path, suites = sys.argv[1], sys.argv[2:]
n = 0
def line(ok, name):
    global n
    n += 1
    print(("ok" if ok else "not ok") + " %d - kunit: %s" % (n, name))
try:
    root = json.load(open(path))
except Exception as e:
    root = {"sub_groups": [], "test_cases": []}
    print("# no KUnit results: %s" % e)
seen = set()
def walk(group, prefix):
    for case in group.get("test_cases", []):
        line(case["status"] in ("PASS", "SKIP"),
             prefix + case["name"] + ("" if case["status"] == "PASS"
                                      else " (%s)" % case["status"]))
    for sub in group.get("sub_groups", []):
        seen.add(sub["name"])
        walk(sub, sub["name"] + ".")
walk(root, "")
for s in suites:
    if s not in seen:
        line(False, "suite %s did not run" % s)
print("1..%d" % n)
PY

# Lockdep and other kernel warnings fail the run.
if grep -qE "WARNING:|BUG:|possible circular locking|inconsistent lock state|INFO: lockdep" "$RESULTS/kunit.log"; then
	grep -E -A5 "WARNING:|BUG:|lockdep" "$RESULTS/kunit.log" | head -40
	echo "not ok - kernel log clean (warnings or lockdep reports above)" >> "$RESULTS/kunit.tap"
else
	echo "ok - kernel log clean: no WARNING, BUG or lockdep report (CONFIG_PROVE_LOCKING=y)" >> "$RESULTS/kunit.tap"
fi

# kselftests: what /init printed between its markers.
echo
echo "perf_events kselftests in the booted kernel:"
sed -n '/^x86-pmu-selftests: begin/,/^x86-pmu-selftests: end/p' \
	"$RESULTS/console.log" | sed '1d;$d' | tee "$RESULTS/kselftest.raw"
python3 - "$RESULTS/kselftest.raw" > "$RESULTS/kselftest.tap" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
n = 0
prog = None
out = []
for l in lines:
    m = re.match(r"# selftests: (\S+): (\S+)$", l)
    if m:
        prog = "%s: %s" % m.groups()
        continue
    m = re.match(r"# (not ok|ok) \d+ (\S+)(.*)$", l)
    if m and prog:
        n += 1
        out.append("%s %d - kselftest: %s: %s%s" % (m.group(1), n, prog, m.group(2), m.group(3)))
        continue
    m = re.match(r"(not ok|ok) \d+ selftests: (\S+): (\S+)(.*)$", l)
    if m:
        n += 1
        out.append("%s %d - kselftest: %s: %s%s" % (m.group(1), n, m.group(2), m.group(3), m.group(4)))
if not any(o.startswith("ok") or o.startswith("not ok") for o in out):
    n += 1
    out.append("not ok %d - kselftest: no results from the booted kernel" % n)
print("\n".join(out))
print("1..%d" % n)
PY

# Stack frames of the scheduling path in the kernel build, from gcc's
# -fstack-usage (checkstack.pl's figure is shown too: on x86_64 it adds the
# epilogue's "add $N,%rsp" to the prologue's "sub $N,%rsp", so it doubles).
frames() {
	local su=$KBUILD/$1 fn=$2 limit=$3 bytes
	bytes=$(awk -F'\t' -v fn="$fn" '$1 ~ ":" fn "$" { print $2 }' "$su" 2>/dev/null)
	if [ -n "$bytes" ] && [ "$bytes" -le "$limit" ]; then
		echo "ok - kernel stack frame of $fn: $bytes bytes (<= $limit)"
	else
		echo "not ok - kernel stack frame of $fn: '$bytes' bytes, limit $limit"
	fi
}
echo
{
	frames arch/x86/events/counter_match.su x86_counter_match 768
	frames arch/x86/events/core.su perf_assign_events 640
	frames arch/x86/events/core.su x86_schedule_events 256
} > "$RESULTS/kunit-stack.tap"
cat "$RESULTS/kunit-stack.tap"
objdump -d "$KBUILD/arch/x86/events/counter_match.o" |
	perl "$KSRC/scripts/checkstack.pl" x86_64 0 | sed 's/^/# checkstack.pl: /'

! grep -q '^not ok' "$RESULTS/kunit.tap" "$RESULTS/kselftest.tap" "$RESULTS/kunit-stack.tap"
