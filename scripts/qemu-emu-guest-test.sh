#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side tests of the emulated affected host: boots a kernel on
# build/qemu/qemu-system-x86_64 (scripts/qemu-build.sh) with
# tools/testing/x86-pmu/guest/emulator_test as /init, once per host below,
# and prints TAP: the guest's own TAP lines prefixed with the host's name,
# then the host-side checks of each boot (the kernel's PMU banner, the
# ledger file written at exit, no warning, the guest test finished).
#
#   haswell         -cpu Haswell,pmu=on (erratum on: auto), 1 core x 2 threads
#   haswell-off     the same with ht-erratum=off
#   haswell-mttcg   the same as haswell with multi-threaded TCG (one host
#                   thread per vCPU: the per-core lock at work); the others
#                   run single-threaded, as the boot matrix does
#   sandybridge     -cpu SandyBridge,pmu=on
#   ivybridge       -cpu IvyBridge,pmu=on
#   skylake         -cpu Skylake-Client,pmu=on (unaffected: erratum off)
#   nopmu           -cpu Haswell (no pmu=on: no PMU, as before)
#   watchdog        Haswell with the NMI watchdog on, WATCHDOG_SECS of load
#   opteron         -cpu Opteron_G5,pmu=on,-xsave: the AMD family 15h core
#                   PMU (six counters, K7 aliases), 1 socket x 2 cores
#                   (family 15h has no SMT); -xsave: this TCG hangs Linux at
#                   its first CR4.OSXSAVE write on Opteron_G4/G5, PMU or not
#   opteron-nopmu   -cpu Opteron_G5,-xsave (no pmu=on: no PerfCtrExtCore, the
#                   F15h MSRs read 0, Linux finds no PMU, as before)
#   gracemont       -cpu Skylake-Client,model=190,pmu=on: Gracemont (Alder
#                   Lake-N, 6/0xbe), PMU version 5, six GP counters, adaptive
#                   PEBS; 1 socket x 2 cores (no SMT), its own raw-MSR checks
#                   and PEBS samples through perf
#
# Environment: KERNEL (a bzImage with CONFIG_X86_MSR=y, CONFIG_PERF_EVENTS,
# the hardlockup detector; default the series kernel of the boot matrix,
# build/k-series, scripts/kernel-build.sh), RUNS (names above),
# WATCHDOG_SECS (70), TIMEOUT per boot (600 s). Consoles, TAP and ledgers
# go to build/qemu-emu-guest/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

QEMU=${QEMU:-$BUILD/qemu/qemu-system-x86_64}
KERNEL=${KERNEL:-$(kout series)/arch/x86/boot/bzImage}
RUNS=${RUNS:-haswell haswell-off haswell-mttcg sandybridge ivybridge skylake nopmu watchdog opteron opteron-nopmu gracemont}
ST=tcg,thread=single
WATCHDOG_SECS=${WATCHDOG_SECS:-70}
TIMEOUT=${TIMEOUT:-600}
OUT=$BUILD/qemu-emu-guest

[ -x "$QEMU" ] || die "no emulator at $QEMU: run scripts/qemu-build.sh"
[ -f "$KERNEL" ] || die "no kernel at $KERNEL (set KERNEL=path/to/bzImage)"
mkdir -p "$OUT/root"
gcc -static -O2 -Wall -o "$OUT/root/init" \
	"$TOP/tools/testing/x86-pmu/guest/emulator_test.c" ||
	die "emulator_test does not build"
(cd "$OUT/root" && echo init | cpio -o -H newc --quiet > "$OUT/initramfs.cpio") ||
	die "cannot write $OUT/initramfs.cpio"

n=0
failed=0
ok() {	# ok COND DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# boot NAME CPU ACCEL CMDLINE-EXTRA INIT-ARGS [SMP]
# A boot that dies of the known multi-threaded TCG race (qemu/README.md,
# "Known issue": Oops: int3 before /init ran) is retried once, saying so.
boot() {
	local name=$1 cpu=$2 accel=$3 extra=$4 args=$5
	local smp=${6:-2,sockets=1,cores=1,threads=2}
	local con=$OUT/$name.console ledger=$OUT/$name.ledger try

	for try in 1 2; do
		rm -f "$con" "$ledger"
		XPMU_LEDGER=$ledger timeout "$TIMEOUT" "$QEMU" \
			-L /usr/share/qemu -L /usr/share/seabios -bios qboot.rom \
			-nodefaults -m 1024 -smp "$smp" \
			-cpu "$cpu" -accel "$accel" \
			-kernel "$KERNEL" -initrd "$OUT/initramfs.cpio" \
			-append "console=ttyS0 rdinit=/init panic=-1 msr.allow_writes=on kunit.enable=0 $extra -- $args" \
			-no-reboot -nographic -serial stdio < /dev/null > "$con" 2>&1
		echo $? > "$OUT/$name.status"
		if [ $try = 1 ] && grep -q 'Oops: int3' "$con" &&
		   ! grep -q '^TAP version' "$con"; then
			cp "$con" "$OUT/$name.console.oops"
			echo "# $name: retried: the boot died of Oops: int3 before /init (known MTTCG race, qemu/README.md; console in $name.console.oops)"
			continue
		fi
		break
	done
}

# The guest's TAP, renumbered, prefixed with the host's name
guest_tap() {
	local name=$1 line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		'ok '[0-9]*' - '*)
			n=$((n + 1)); echo "ok $n - $name: ${line#ok * - }" ;;
		'not ok '[0-9]*' - '*)
			n=$((n + 1)); failed=$((failed + 1))
			echo "not ok $n - $name: ${line#not ok * - }" ;;
		'# '*) echo "$line" ;;
		esac
	done < <(sed -n '/^TAP version/,/^# emulator_test:/p' "$OUT/$name.console")
}

# check NAME BANNER ERRATUM(on/off/none) LEAK(yes/no/any) [PMU(intel/amd/grt)]
check() {
	local name=$1 banner=$2 erratum=$3 leak=$4 pmu=${5:-intel}
	local con=$OUT/$name.console ledger=$OUT/$name.ledger summary

	ok "$([ "$(cat "$OUT/$name.status")" = 0 ] && echo 1)" \
		"$name: QEMU exited by itself (status $(cat "$OUT/$name.status"); 124 = timeout)"
	ok "$(grep -q '^# emulator_test: .* 0 failed' "$con" && echo 1)" \
		"$name: the guest test ran to the end, nothing failed"
	ok "$(grep -q "$banner" "$con" && echo 1)" \
		"$name: kernel banner: $(grep -m1 -o 'Performance Events: .*' "$con" | tr -d '\r')"
	if [ "$pmu" = amd ]; then
		ok "$(grep -Eq '\.\.\. generic (registers|counters): +6[[:space:]]*$' "$con" &&
		      grep -Eq '\.\.\. version: +0[[:space:]]*$' "$con" &&
		      grep -Eq '\.\.\. bit width: +48[[:space:]]*$' "$con" && echo 1)" \
			"$name: kernel sees 6 generic counters of 48 bits, version 0 (no PerfMonV2)"
	fi
	if [ "$pmu" = grt ]; then
		ok "$(grep -Eq '\.\.\. generic counters: +6[[:space:]]*$' "$con" &&
		      grep -Eq '\.\.\. fixed-purpose counters: +3[[:space:]]*$' "$con" &&
		      grep -Eq '\.\.\. version: +5[[:space:]]*$' "$con" &&
		      grep -Eq '\.\.\. bit width: +48[[:space:]]*$' "$con" && echo 1)" \
			"$name: kernel sees version 5, 6 generic and 3 fixed counters of 48 bits"
	fi
	if [ "$erratum" != none ] && [ "$pmu" != intel ]; then
		summary=$(head -1 "$ledger" 2>/dev/null)
		ok "$(grep -q "^xpmu-ledger: leaked=0 settlements=0 exposed_ns=0 erratum=off " <<< "$summary" && echo 1)" \
			"$name: ledger written at exit, empty, erratum off: $summary"
	elif [ "$erratum" != none ]; then
		# 6.12 prints "generic registers" and "fixed-purpose events",
		# 7.3 "generic counters" and "fixed-purpose counters".
		ok "$(grep -Eq '\.\.\. generic (registers|counters): +4[[:space:]]*$' "$con" &&
		      grep -Eq '\.\.\. fixed-purpose (events|counters): +3[[:space:]]*$' "$con" &&
		      grep -Eq '\.\.\. version: +3[[:space:]]*$' "$con" && echo 1)" \
			"$name: kernel sees version 3, 4 generic and 3 fixed counters"
		summary=$(head -1 "$ledger" 2>/dev/null)
		ok "$(grep -q "^xpmu-ledger: .* erratum=$erratum " <<< "$summary" && echo 1)" \
			"$name: ledger written at exit: $summary"
		case $leak in
		yes) ok "$(grep -q '^xpmu-ledger: leaked=[1-9]' <<< "$summary" && echo 1)" \
			"$name: the ledger recorded the test's leaks" ;;
		no) ok "$(grep -q '^xpmu-ledger: leaked=0 settlements=0 exposed_ns=0 ' <<< "$summary" && echo 1)" \
			"$name: the ledger is empty" ;;
		esac
	else
		ok "$([ ! -e "$ledger" ] && echo 1)" "$name: no PMU, no ledger file"
	fi
	ok "$(grep -qE 'WARNING: CPU:|WARNING: at |BUG:|Oops|hard LOCKUP|Kernel panic|Uhhuh\. NMI received|irq loop stuck' "$con" || echo 1)" \
		"$name: no warning, BUG, lockup or unknown NMI in the console"
}

echo "TAP version 13"
"$QEMU" --version | head -1 | sed 's/^/# /'
echo "# kernel: $KERNEL"
# nmi_watchdog=0 below: emulator_test programs the PMU's MSRs itself and
# needs every counter; the watchdog's cycles event would own one (its
# raw-MSR checks skip then). The host 'watchdog' runs with it on.
for run in $RUNS; do
	case $run in
	haswell)
		boot $run Haswell,pmu=on $ST "nmi_watchdog=0" ""
		guest_tap $run; check $run "Haswell events" on yes ;;
	haswell-off)
		boot $run Haswell,pmu=on,ht-erratum=off $ST "nmi_watchdog=0" ""
		guest_tap $run; check $run "Haswell events" off no ;;
	haswell-mttcg)
		boot $run Haswell,pmu=on tcg,thread=multi "nmi_watchdog=0" ""
		guest_tap $run; check $run "Haswell events" on yes ;;
	sandybridge)
		boot $run SandyBridge,pmu=on $ST "nmi_watchdog=0" ""
		guest_tap $run; check $run "SandyBridge events" on yes ;;
	ivybridge)
		boot $run IvyBridge,pmu=on $ST "nmi_watchdog=0" ""
		guest_tap $run; check $run "IvyBridge events" on yes ;;
	skylake)
		boot $run Skylake-Client,pmu=on $ST "nmi_watchdog=0" ""
		guest_tap $run; check $run "Skylake events" off no ;;
	nopmu)
		boot $run Haswell $ST "nmi_watchdog=0" ""
		guest_tap $run; check $run "no PMU driver, software events only" none no ;;
	watchdog)
		boot $run Haswell,pmu=on $ST "" "--perf --watchdog $WATCHDOG_SECS"
		guest_tap $run; check $run "Haswell events" on any
		ok "$(grep -q 'NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.' "$OUT/$run.console" && echo 1)" \
			"$run: NMI watchdog enabled on a hw-PMU counter" ;;
	opteron)
		boot $run Opteron_G5,pmu=on,-xsave $ST "nmi_watchdog=0" "" 2,sockets=1,cores=2,threads=1
		guest_tap $run
		check $run "Performance Events: Fam15h core perfctr, AMD PMU driver\." off no amd ;;
	opteron-nopmu)
		boot $run Opteron_G5,-xsave $ST "nmi_watchdog=0" "" 2,sockets=1,cores=2,threads=1
		guest_tap $run
		check $run "Performance Events: PMU not available due to virtualization" none no ;;
	gracemont)
		boot $run Skylake-Client,model=190,pmu=on $ST "nmi_watchdog=0" "" 2,sockets=1,cores=2,threads=1
		guest_tap $run
		check $run "Performance Events: PEBS fmt4+-baseline, Gracemont events, AnyThread deprecated, Intel PMU driver\." off no grt ;;
	*)
		die "unknown run $run" ;;
	esac
done
echo "1..$n"
[ $failed -eq 0 ]
