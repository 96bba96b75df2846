#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One boot of the matrix: start a kernel with the initramfs on the emulated
# host (our QEMU, build/qemu), keep its console, the emulator's exposure
# ledger and its trace of the writes that exposed a counter (XPMU_TRACE,
# qemu/README.md; the kernel boots with nokaslr so that the RIPs there
# read against System.map) under build/results/, and write TAP for it:
#
#   boot.sh NAME KERNEL CPU SMP RUN [APPEND...]
#
#   NAME    short name: files are build/results/boot-NAME.{console,ledger,trace,tap}
#   KERNEL  bzImage to boot
#   CPU     QEMU -cpu value (e.g. Haswell,pmu=on; "-" for QEMU's default,
#           which has no PMU)
#   SMP     QEMU -smp value (e.g. 2,sockets=1,cores=1,threads=2)
#   RUN     the test directories /init runs (x86pmu.run=, see init.c)
#   APPEND  more kernel command line
#
# Environment: INITRAMFS (default: the matrix's, scripts/lib.sh), INFO_ONLY (below).
#
# The TAP has one line per test program of the boot, a line "boot reached
# its end" and a line "kernel log clean": any WARNING, BUG (KASAN reports
# included), lockdep report, lockup or panic in the console or the kernel
# log fails it, whatever the tests said. With INFO_ONLY=1 (the unpatched
# kernel, booted for comparison) only reaching the end counts; the test
# results and kernel reports are kept as comments: they are findings about
# upstream, not failures of the series.
#
# Every boot has tsc=reliable. The emulated TSC is one host clock for all
# vCPUs, so it is synchronised by construction; but the guest's clocksource
# watchdog, when the host is loaded (several boots at once, as make check
# runs them), sees its reads of the TSC and of the HPET far apart and marks
# the TSC unstable after boot. sched_clock then switches to its per-CPU
# unstable mode while tests run, and the switch can step a CPU's clock back
# (kernel/sched/clock.c says as much), which perf's enabled and running
# times, computed from that clock, would show as going backwards.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 5 ] || { sed -n '/^#   boot.sh/,/^#   APPEND/p' "$0" >&2; exit 2; }
name=$1 kernel=$2 cpu=$3 smp=$4 run=$5
shift 5
append=$*

QEMU=${QEMU:-$BUILD/qemu/qemu-system-x86_64}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-2400}	# a hang's bound: hsw-ht took 1132 s with four boots at a time
INITRAMFS=${INITRAMFS:-$INITRAMFS_OUT}
out=$RESULTS/boot-$name
tap=$out.tap
mkdir -p "$RESULTS"
rm -f "$out".*

[ -x "$QEMU" ] || { echo "not ok 1 - boot $name: no emulator at $QEMU" > "$tap"; exit 1; }
[ -f "$kernel" ] || { echo "not ok 1 - boot $name: no kernel $kernel" > "$tap"; exit 1; }

cpuarg=()
[ "$cpu" = - ] || cpuarg=(-cpu "$cpu")

start=$(date +%s)
XPMU_LEDGER=$out.ledger XPMU_TRACE=$out.trace timeout "$QEMU_TIMEOUT" "$QEMU" \
	-L /usr/share/qemu -L /usr/share/seabios -nodefaults -m 2048 \
	-accel "tcg,thread=${TCG_THREAD:-single}" \
	-smp "$smp" "${cpuarg[@]}" \
	-kernel "$kernel" -initrd "$INITRAMFS" \
	-append "console=ttyS0 rdinit=/init panic=-1 log_buf_len=8M nokaslr tsc=reliable x86pmu.run=$run $append" \
	-no-reboot -nographic -serial stdio -bios qboot.rom \
	< /dev/null > "$out.console" 2>&1
status=$?
secs=$(( $(date +%s) - start ))

python3 - "$out.console" "$name" "$status" "$secs" "${INFO_ONLY:-0}" "$KERNEL_REPORT_RE" > "$tap" <<'PY'
import re, sys
path, name, status, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
info_only = sys.argv[5] == "1"
report = re.compile(sys.argv[6])
text = open(path, errors="replace").read()
lines = text.splitlines()
n = 0
out = []
def line(ok, what, counts=True):
    global n
    if info_only and not counts:
        out.append("# %s: %s: %s" % ("ok" if ok else "not ok", name, what))
        return
    n += 1
    out.append("%s %d - %s: %s" % ("ok" if ok else "not ok", n, name, what))

# Test programs: what /init printed between its markers.
prog = None
inside = False
for l in lines:
    if l.startswith("x86-pmu-selftests: begin"):
        inside = True
        continue
    if l.startswith("x86-pmu-selftests: end"):
        inside = False
        continue
    if not inside:
        continue
    m = re.match(r"# selftests: (\S+): (\S+)$", l)
    if m:
        prog = "%s: %s" % m.groups()
        continue
    m = re.match(r"# (not ok|ok) \d+ (?:- )?(.*)$", l)
    if m and prog:
        line(m.group(1) == "ok", "%s: %s" % (prog, m.group(2)), False)
        continue
    m = re.match(r"(not ok|ok) \d+ selftests: (\S+): (\S+)(.*)$", l)
    if m:
        line(m.group(1) == "ok", "%s: %s%s" % (m.group(2), m.group(3), m.group(4)), False)

ended = "x86-pmu-dmesg: end" in text
line(ended, "boot reached its end (qemu exit %d, %s s)" % (status, secs))

# Kernel reports anywhere in the console, including the log dump
# (KERNEL_REPORT_RE, scripts/lib.sh).
seen = [l for l in lines if report.search(l)]
if seen:
    for l in seen[:20]:
        out.append("# " + l)
line(not seen, "kernel log clean: no WARNING, BUG, KASAN, lockdep, lockup report", False)
print("\n".join(out))
print("1..%d" % n)
PY
cat "$tap"
! grep -q '^not ok' "$tap"
