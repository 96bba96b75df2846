#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build what the boots need and boot the emulated hosts.
#
#   qemu-run.sh           make run: the affected host only (Haswell, one core,
#                         two threads): KUnit, the kselftests, perf stat
#   qemu-run.sh --matrix  make check: every host of the boot matrix, and the
#                         unpatched 6.12 on the affected host for comparison
#
# Builds (all reused between runs): the emulator (scripts/qemu-build.sh),
# the patched kernel and, for the matrix, the unpatched one
# (scripts/kernel-build.sh), perf (scripts/build-perf.sh), the initramfs
# (scripts/initramfs.sh). Each boot writes build/results/boot-NAME.tap,
# its console and the emulator's exposure ledger (scripts/boot.sh); the
# KUnit results of the affected host's boot go to kunit.tap.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

matrix=0
[ "${1:-}" = --matrix ] && matrix=1

SUITES=(x86_counter_match x86_intel_xsu x86_intel_xsu_arb)
PATCHED=$KBUILD/arch/x86/boot/bzImage
BASE=$BUILD/kernel-base/arch/x86/boot/bzImage
HT=2,sockets=1,cores=1,threads=2	# one core, two threads: siblings
NOHT=2,sockets=1,cores=2,threads=1	# two cores, HT off
NOKUNIT=kunit.enable=0

# The boot matrix: name|kernel|QEMU -cpu|-smp|test directories|kernel args
BOOTS=(
	"hsw-ht|$PATCHED|Haswell,pmu=on|$HT|perf_events,host,scenarios,stress|kunit.enable=1"
	"hsw-ht-6.12|$BASE|Haswell,pmu=on|$HT|perf_events,host,scenarios,stress|$NOKUNIT"
	"snb-ht|$PATCHED|SandyBridge,pmu=on|$HT|perf_events,host,stress|$NOKUNIT"
	"ivb-ht|$PATCHED|IvyBridge,pmu=on|$HT|perf_events,host,stress|$NOKUNIT"
	"skl-ht|$PATCHED|Skylake-Client,pmu=on|$HT|perf_events,host|$NOKUNIT"
	"hsw-noht|$PATCHED|Haswell,pmu=on|$NOHT|perf_events|$NOKUNIT"
	"nopmu|$PATCHED|-|2|perf_events|$NOKUNIT"
)
[ $matrix -eq 1 ] || BOOTS=("${BOOTS[0]}")

mkdir -p "$RESULTS"
rm -f "$RESULTS"/kunit.json "$RESULTS"/kunit.tap "$RESULTS"/emulator-guest.tap \
	"$RESULTS"/boot-* "$RESULTS"/host-vs-sim.tap

fail() {
	echo "not ok - $*" >> "$RESULTS/kunit.tap"
	echo "error: $*" >&2
	exit 1
}

"$TOP/scripts/qemu-build.sh" || fail "the emulator does not build"
"$TOP/scripts/kernel-build.sh" patched || fail "the patched kernel does not build"
if [ $matrix -eq 1 ]; then
	"$TOP/scripts/kernel-build.sh" base || fail "the unpatched kernel does not build"
fi
"$TOP/scripts/build-perf.sh" > "$RESULTS/perf-build.out" 2>&1 ||
	{ cat "$RESULTS/perf-build.out"; fail "perf does not build"; }
"$TOP/scripts/initramfs.sh" || fail "the initramfs cannot be built"

# The boots, $JOBS at a time: single-threaded TCG keeps one host core busy
# per boot, so on 2 cores two boots run side by side in the time of one.
boot_job() {
	local name kernel cpu smp run append info=0
	IFS='|' read -r name kernel cpu smp run append <<< "$1"
	[ "$kernel" = "$BASE" ] && info=1
	INFO_ONLY=$info "$TOP/scripts/boot.sh" "$name" "$kernel" "$cpu" "$smp" \
		"$run" "$append" > /dev/null
}
status=0
for b in "${BOOTS[@]}"; do
	IFS='|' read -r name kernel cpu smp run _ <<< "$b"
	step "booting $name: -cpu $cpu -smp $smp, $([ "$kernel" = "$BASE" ] && echo "unpatched 6.12" || echo "patched kernel"), running $run"
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	boot_job "$b" &
done
# The emulator's own guest test, on the same kernel: the PMU programmed
# directly on every model, the erratum on and off, multi-threaded TCG, the
# NMI watchdog under load.
if [ $matrix -eq 1 ]; then
	step "the emulator's guest test (emulator_test on 8 hosts, the patched kernel)"
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	"$TOP/scripts/qemu-emu-guest-test.sh" > "$RESULTS/emulator-guest.tap" &
fi
wait

for b in "${BOOTS[@]}"; do
	IFS='|' read -r name _ <<< "$b"
	echo "boot $name:"
	grep -E '^(not ok|# )' "$RESULTS/boot-$name.tap" | head -20
	echo "   $(grep -c '^ok' "$RESULTS/boot-$name.tap") ok, $(grep -c '^not ok' "$RESULTS/boot-$name.tap") not ok; console in ${RESULTS#"$TOP"/}/boot-$name.console"
	grep -q '^not ok' "$RESULTS/boot-$name.tap" && status=1
done
if [ $matrix -eq 1 ]; then
	echo "the emulator's guest test:"
	grep -E '^(not ok|# .*retried)' "$RESULTS/emulator-guest.tap"
	echo "   $(grep -c '^ok' "$RESULTS/emulator-guest.tap") ok, $(grep -c '^not ok' "$RESULTS/emulator-guest.tap") not ok"
	grep -q '^not ok' "$RESULTS/emulator-guest.tap" && status=1
fi

# The matrix side by side: results, the emulator's ledger over the whole
# boot (leaks are expected where a test switches the workaround off),
# kernel reports.
if [ $matrix -eq 1 ]; then
	echo
	echo "boot matrix (ledger: the emulator's, over the whole boot):"
	printf '  %-12s %-8s %5s %7s %14s %16s %8s\n' boot kernel ok "not ok" "ledger leaked" "exposed ns" reports
	for b in "${BOOTS[@]}"; do
		IFS='|' read -r name kernel _ <<< "$b"
		f=$RESULTS/boot-$name
		k=series
		[ "$kernel" = "$BASE" ] && k=6.12
		leaked=$(sed -n 's/^xpmu-ledger: leaked=\([0-9]*\).*/\1/p' "$f.ledger" 2>/dev/null)
		exposed=$(sed -n 's/^xpmu-ledger: .*exposed_ns=\([0-9]*\).*/\1/p' "$f.ledger" 2>/dev/null)
		reports=$(grep -cE '^(# )?(<[0-9]>)?(\[ *[0-9.]+\] *)?(WARNING|BUG):' "$f.console" 2>/dev/null)
		printf '  %-12s %-8s %5s %7s %14s %16s %8s\n' "$name" "$k" \
			"$(grep -c '^ok' "$f.tap" 2>/dev/null)" "$(grep -c '^not ok' "$f.tap" 2>/dev/null)" \
			"${leaked:--}" "${exposed:--}" "$reports"
	done
fi

# The glue stress of each boot that ran it, side by side (glue_stress.c):
# what it did and what it found; 6.12 has no knob, so its ledger covers the
# whole run.
if [ $matrix -eq 1 ]; then
	echo
	echo "glue stress (stress/glue_stress, 60 s per boot):"
	printf '  %-12s %-8s %6s %9s %9s %9s %22s %14s %12s %8s\n' boot kernel lists events switches hotplugs \
		"ledger at 1: leaked" "exposed ns" "pinned error" "run>en"
	for b in "${BOOTS[@]}"; do
		IFS='|' read -r name kernel _ _ run _ <<< "$b"
		[[ ",$run," = *,stress,* ]] || continue
		k=series
		[ "$kernel" = "$BASE" ] && k=6.12
		python3 - "$RESULTS/boot-$name.console" "$name" "$k" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
def find(pat, default="-"):
    m = re.search(pat, text)
    return m.groups() if m else (default,) * re.compile(pat).groups
lists, events, switches, hotplugs = find(r"# \d+ s: (\d+) event lists, (\d+) events .*?, (\d+) knob switches, (\d+) hotplugs")
leaked, exposed = find(r"ledger with the workaround on \(\d+ windows?\): leaked (\d+), exposed (\d+) ns")
pinned, = find(r"no pinned event put into error \(\d+ pinned events, (\d+) errors\)")
runen, = find(r"time_running <= time_enabled \(\d+ reads(?:, (\d+) not)?\)", "0")
print("  %-12s %-8s %6s %9s %9s %9s %22s %14s %12s %8s" % (sys.argv[2], sys.argv[3], lists,
      events, switches, hotplugs, leaked, exposed, pinned, runen or "0"))
PY
	done
fi

# The simulator's scenarios: the host beside the simulator.
step "the simulator's scenarios on the emulated host beside the simulator"
"$TOP/scripts/host-vs-sim.sh" > "$RESULTS/host-vs-sim.tap"
cat "$RESULTS/host-vs-sim.tap"
grep -q '^not ok' "$RESULTS/host-vs-sim.tap" && status=1

# KUnit: what the affected host's kernel printed before /init started.
console=$RESULTS/boot-hsw-ht.console
sed '/^x86-pmu-selftests: begin/,$d' "$console" > "$RESULTS/kunit.log"
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

# The tests of the affected host, with perf's own output.
echo
echo "tests on the emulated affected host (Haswell, 1 core x 2 threads):"
sed -n '/^x86-pmu-selftests: begin/,/^x86-pmu-selftests: end/p' "$console" |
	sed '1d;$d'

! grep -q '^not ok' "$RESULTS/kunit.tap" || status=1
exit $status
