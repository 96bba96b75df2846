#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build what the boots need and boot the emulated hosts.
#
#   qemu-run.sh           make run: the affected host only (Haswell, one core,
#                         two threads, the series kernel): KUnit, the
#                         kselftests, perf stat
#   qemu-run.sh --matrix  make check: every host of the boot matrix, and the
#                         upstream kernel on the affected host for comparison
#   --only NAME[,NAME]    only these boots of the matrix (and their kernels)
#   --build-only          build what the boots need, boot nothing (make check
#                         runs it in the background beside its checks)
#   --list                print the boots selected, build and boot nothing
#
# The matrix (BOOTS below) boots the mainline parts 1-3 (kernel 'series') on every host,
# parts 1-4 ('rfc', when part 4 exists) and plain 7.3 ('mainline') on the
# affected host, part 1 alone ('fixes') with the fixes' host tests, and the
# 6.12 backport ('lts') with its KUnit suites and kselftests; which kernel
# has which configuration: scripts/kernel-build.sh.
#
# Builds (all reused between runs): the emulator (scripts/qemu-build.sh),
# the kernels (scripts/kernel-build.sh), perf (scripts/build-perf.sh), the
# initramfs (scripts/initramfs.sh; on 7.3 from the series kernel's tree, and
# one from the backport's tree for its boot). Each boot writes
# build/results/boot-NAME.tap, its console and the emulator's exposure
# ledger (scripts/boot.sh); the KUnit results of a boot with KUnit go to
# kunit.tap (hsw-ht) or kunit-NAME.tap.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

matrix=0
only=
build_only=0
list=0
while [ $# -gt 0 ]; do
	case $1 in
	--matrix) matrix=1; shift ;;
	--only) only=,$2,; matrix=1; shift 2 ;;
	--build-only) build_only=1; shift ;;
	--list) list=1; shift ;;
	*) echo "usage: $0 [--matrix] [--only NAME,...] [--build-only] [--list]" >&2; exit 2 ;;
	esac
done

HT=2,sockets=1,cores=1,threads=2	# one core, two threads: siblings
NOHT=2,sockets=1,cores=2,threads=1	# two cores, HT off
KUNIT=kunit.enable=1
NOKUNIT=kunit.enable=0
ALL=perf_events,host,scenarios,stress

# The boot matrix: name|kernel|QEMU -cpu|-smp|test directories|kernel
# args|count or info. 'info' boots (the upstream kernel, for comparison)
# are reported, not counted (boot.sh's INFO_ONLY). The first line is make
# run's boot. The test directories are the initramfs' (scripts/initramfs.sh):
# perf_events (the kselftests), host (perf stat experiments), scenarios,
# stress, fixes (the fixes' host tests). The scenarios have a boot of their
# own (hsw-ht-scen) beside hsw-ht's: the longest boot bounds the matrix;
# plain 7.3 runs them no more (host-vs-sim.sh reported its comparison with
# the simulator's upstream model, counted nothing, and the boot took
# 150-300 s longer for it).
# Where the series' code is the same as in another boot, the upstream
# kselftests that do not schedule counters (sigtrap_threads and
# remove_on_exec: breakpoints, 40-80 s each under TCG) are left out
# (x86pmu.skip), host/half.sh runs 50 groups (100 on hsw-ht, 20 on
# Skylake, where nothing competes) and the stress 30 s (60 on hsw-ht).
# topdown/topdown.sh (perf stat --topdown, -M TopdownL1/L2, a many-group
# perf record; scripts/topdown-table.sh) runs on the three affected hosts
# with the series (hsw-ht-scen, snb-ht, ivb-ht) and with plain 7.3
# (hsw-ht-7.3, and snb-ht-7.3 and ivb-ht-7.3, which run nothing else).
# lone/lone.sh (single events beside four corrupting events on the
# sibling, the NMI watchdog on and off; scripts/lone-table.sh) runs on the
# three affected hosts with the series, part 1 alone (hsw-ht-fixes,
# snb-ht-fixes, ivb-ht-fixes) and plain 7.3; hsw-ht-rfc runs it for part 4.
# The cost-* boots measure the kernel's instructions per context switch
# (cost/cost.sh, scripts/switch-cost.sh): the series and plain 7.3 built
# alike (the cost and mainline kernels), HT on and off.
# f15h, f15h-fixes and f15h-7.3 boot the AMD family 15h host (Opteron_G5,
# six core counters; -xsave: qemu/README.md; two cores, family 15h has no
# SMT) with amd/f15h.sh: the three sets of six events that fit the
# counters but that plain 7.3's greedy refuses, as single events, as a
# group and in a perf record. The series' boot runs the cost kernel
# (parts 1-3 with mainline's configuration: the matcher and part 1's fix,
# lockdep and the lockup detectors, no KASAN; built for the cost-* boots
# anyway, and a KASAN boot would take minutes); f15h-fixes runs part 1
# alone, built without AMD's BRS (scripts/kernel-build.sh), where 7.3
# drops the family 15h table: it shows part 1's two AMD fixes. Both
# assert that the table is applied and every set placed
# (x86pmu.expect=placed); plain 7.3's boot reports only.
# grt and grt-7.3 boot the Gracemont host (Alder Lake-N: Skylake-Client
# given model 190, qemu/README.md; two cores, no SMT) with grt/pebs.sh:
# two instructions:ppp and the load latency event, which fit the PMU but
# not plain 7.3's greedy, as single events, as a group, in perf record and
# perf mem. The series' boot (parts 1-3, the matrix's KASAN kernel)
# asserts every event counted all of its time and sampled
# (x86pmu.expect=placed); plain 7.3's reports only.
# kernels: scripts/kernel-build.sh (series = parts 1-3, rfc = parts
# 1-4, mainline = tag base, fixes = part 1, cost = parts 1-3 configured as
# mainline, lts = the 6.12 backport)
LIGHT="x86pmu.skip=sigtrap_threads,remove_on_exec"
# On SandyBridge and IvyBridge, also the host tests whose paths do not
# depend on the model's constraint tables (the knob, lock statistics,
# switching under load, a pinned group held beside its sibling): hsw-ht
# and hsw-ht-rfc run them.
MODEL="$LIGHT,knob.sh,lockstat.sh,switch.sh,pinned-held.sh"
# Part 4 changes perf core: its boot keeps the breakpoint kselftests and
# leaves out the same host tests (arch/x86 code that parts 1-3 have alone).
RFC="x86pmu.skip=knob.sh,lockstat.sh,switch.sh,pinned-held.sh"
# The AMD family 15h host (qemu/README.md: Opteron_G5 needs -xsave).
F15H=Opteron_G5,pmu=on,-xsave
# The Gracemont host (qemu/README.md: family 6 model 0xbe, PEBS).
GRT=Skylake-Client,model=190,pmu=on
BOOTS=(
	"hsw-ht|series|Haswell,pmu=on|$HT|perf_events,host,lone,stress|$KUNIT|count"
	"hsw-ht-scen|series|Haswell,pmu=on|$HT|scenarios,topdown|$NOKUNIT|count"
	"hsw-ht-7.3|mainline|Haswell,pmu=on|$HT|perf_events,host,lone,stress,topdown|$NOKUNIT $LIGHT HALF_GROUPS=50 x86pmu.stress=30|info"
	"hsw-ht-rfc|rfc|Haswell,pmu=on|$HT|perf_events,host,lone,stress|$KUNIT $RFC HALF_GROUPS=50 x86pmu.stress=30|count"
	"snb-ht|series|SandyBridge,pmu=on|$HT|perf_events,host,lone,stress,topdown|$NOKUNIT $MODEL HALF_GROUPS=50 x86pmu.stress=30|count"
	"ivb-ht|series|IvyBridge,pmu=on|$HT|perf_events,host,lone,stress,topdown|$NOKUNIT $MODEL HALF_GROUPS=50 x86pmu.stress=30|count"
	"snb-ht-7.3|mainline|SandyBridge,pmu=on|$HT|lone,topdown|$NOKUNIT|info"
	"ivb-ht-7.3|mainline|IvyBridge,pmu=on|$HT|lone,topdown|$NOKUNIT|info"
	"skl-ht|series|Skylake-Client,pmu=on|$HT|perf_events,host|$NOKUNIT $LIGHT HALF_GROUPS=20|count"
	"hsw-ht-6.12|lts|Haswell,pmu=on|$HT|perf_events|$KUNIT|count"
	"hsw-noht|series|Haswell,pmu=on|$NOHT|perf_events|$NOKUNIT $LIGHT|count"
	"nopmu|series|-|2|perf_events|$NOKUNIT $LIGHT|count"
	"hsw-ht-fixes|fixes|Haswell,pmu=on|$HT|fixes,lone|$KUNIT|count"
	"snb-ht-fixes|fixes|SandyBridge,pmu=on|$HT|lone|$NOKUNIT|count"
	"ivb-ht-fixes|fixes|IvyBridge,pmu=on|$HT|lone|$NOKUNIT|count"
	"cost-ht|cost|Haswell,pmu=on|$HT|cost|$NOKUNIT|count"
	"cost-noht|cost|Haswell,pmu=on|$NOHT|cost|$NOKUNIT|count"
	"cost-ht-7.3|mainline|Haswell,pmu=on|$HT|cost|$NOKUNIT|info"
	"cost-noht-7.3|mainline|Haswell,pmu=on|$NOHT|cost|$NOKUNIT|info"
	"f15h|cost|$F15H|$NOHT|amd|$NOKUNIT x86pmu.expect=placed|count"
	"f15h-fixes|fixes|$F15H|$NOHT|amd|$NOKUNIT x86pmu.expect=placed|count"
	"f15h-7.3|mainline|$F15H|$NOHT|amd|$NOKUNIT|info"
	"grt|series|$GRT|$NOHT|grt|$NOKUNIT x86pmu.expect=placed|count"
	"grt-7.3|mainline|$GRT|$NOHT|grt|$NOKUNIT|info"
)
# The series kernel is simulated with --continue only where its tree
# has the perf-core capability (part 4 adds it).
model=hk
grep -qs PERF_PMU_CAP_SCHED_CONTINUE "$(kdir series)/include/linux/perf_event.h" &&
	model=hk+continue
HVS_BOOTS="hsw-ht:series:$model hsw-ht-scen:series:$model"
SERIES_KERNEL=series

# A kernel that cannot exist yet drops its boots: rfc before part 4,
# fixes before part 1.
have_kernel() {
	case $1 in
	rfc) [ -n "$(rfc_branch)" ] ;;
	fixes) have_part 1 ;;
	*) true ;;
	esac
}
selected=()
for b in "${BOOTS[@]}"; do
	IFS='|' read -r name kernel _ <<< "$b"
	[ $matrix -eq 1 ] || [ ${#selected[@]} -eq 0 ] || continue
	[ -z "$only" ] || [[ $only == *",$name,"* ]] || continue
	have_kernel "$kernel" || { echo "note: boot $name skipped: no $kernel kernel yet"; continue; }
	selected+=("$b")
done
BOOTS=("${selected[@]}")
[ ${#BOOTS[@]} -gt 0 ] || die "no boot selected"

image() { kimage "$1"; }
# The kernel's name in the tables.
label() { echo "$1"; }
# The source tree of a kernel (its kunit.py parses its KUnit output).
tree_of() { kdir "$1"; }
# The initramfs a kernel boots with: on 7.3 the backport has its own (its
# kselftests), every other kernel the series'.
initramfs_of() {
	case $1 in
	lts) echo "$BUILD/initramfs-$LTS.cpio" ;;
	*) echo "$INITRAMFS_OUT" ;;
	esac
}
suites_of() {
	local k

	for k in $(cat "$(kout "$1")/x86-pmu-kunitconfigs" 2>/dev/null); do
		echo "${KUNIT_SUITES[$k]:-}"
	done | xargs
}
kunit_tap() { [ "$1" = hsw-ht ] && echo "$RESULTS/kunit.tap" || echo "$RESULTS/kunit-$1.tap"; }

if [ $list -eq 1 ]; then
	echo "the boot matrix:"
	printf '  %-13s %-9s %-22s %-30s %-34s %-15s %s\n' boot kernel "-cpu" "-smp" runs "kernel args" counted
	for b in "${BOOTS[@]}"; do
		IFS='|' read -r name kernel cpu smp run append kind <<< "$b"
		printf '  %-13s %-9s %-22s %-30s %-34s %-15s %s\n' "$name" "$(label "$kernel")" "$cpu" "$smp" \
			"$run" "$append" "$([ "$kind" = info ] && echo "no (reported)" || echo yes)"
	done
	exit 0
fi

mkdir -p "$RESULTS"
if [ $build_only -eq 0 ]; then
	for b in "${BOOTS[@]}"; do
		IFS='|' read -r name _ <<< "$b"
		rm -f "$RESULTS/boot-$name".* "$(kunit_tap "$name")" "$RESULTS/kunit-$name".{json,log}
	done
	rm -f "$RESULTS"/kunit.json "$RESULTS"/kunit.log "$RESULTS"/host-vs-sim.tap "$RESULTS"/switch-cost.tap \
		"$RESULTS"/topdown.tap "$RESULTS"/lone.tap
	[ $matrix -eq 1 ] && [ -z "$only" ] && rm -f "$RESULTS"/emulator-guest.tap
fi

fail() {
	echo "not ok - $*" >> "$RESULTS/kunit.tap"
	echo "error: $*" >&2
	exit 1
}

"$TOP/scripts/qemu-build.sh" || fail "the emulator does not build"

# The kernels the selected boots need, each built once.
needed=()
for b in "${BOOTS[@]}"; do
	IFS='|' read -r _ kernel _ <<< "$b"
	[[ " ${needed[*]} " == *" $kernel "* ]] || needed+=("$kernel")
done
# series always: perf and the initramfs come from its tree. In this
# order: a kernel's seed first (fixes from mainline, rfc from series).
for k in series mainline fixes cost lts rfc; do
	[ $k = series ] || [[ " ${needed[*]} " == *" $k "* ]] || continue
	"$TOP/scripts/kernel-build.sh" "$k" || fail "the $k kernel does not build"
done
PERF_SRC=$(kdir series)
PERF_SRC=$PERF_SRC "$TOP/scripts/build-perf.sh" > "$RESULTS/perf-build.out" 2>&1 ||
	{ cat "$RESULTS/perf-build.out"; fail "perf does not build"; }
grep -h "built in" "$RESULTS/perf-build.out"
"$TOP/scripts/initramfs.sh" "$(kdir series)" "$(kout series)" "$INITRAMFS_OUT" ||
	fail "the initramfs cannot be built"
if [[ " ${needed[*]} " == *" lts "* ]]; then
	"$TOP/scripts/initramfs.sh" "$(kdir lts)" "$(kout lts)" "$(initramfs_of lts)" ||
		fail "the initramfs of the $LTS backport cannot be built"
fi

[ $build_only -eq 0 ] || exit 0

# The boots, $BOOT_JOBS at a time (default: one per core), the longest
# first. Each boot keeps both of its virtual CPUs busy most of the time
# (the tests' load loops), and under TCG a busy virtual CPU is a busy host
# thread: more boots than cores gain little (on 2 cores four at a time
# took 1074-1312 s, two at a time 1178-1441 s, here), and with four the
# host ran a virtual CPU more than 20 ms late often enough that half.sh
# could not judge a quarter of its groups in one run.
BOOT_JOBS=${BOOT_JOBS:-$JOBS}
slot() {
	while [ "$(jobs -rp | wc -l)" -ge "$BOOT_JOBS" ]; do
		wait -n
	done
}
boot_job() {
	local name kernel cpu smp run append kind info=0
	IFS='|' read -r name kernel cpu smp run append kind <<< "$1"
	[ "$kind" = info ] && info=1
	INFO_ONLY=$info INITRAMFS=$(initramfs_of "$kernel") "$TOP/scripts/boot.sh" \
		"$name" "$(image "$kernel")" "$cpu" "$smp" "$run" "$append" > /dev/null
}
boots_start=$SECONDS
read -r busy0 all0 < <(cpu_ticks)
status=0
for b in "${BOOTS[@]}"; do
	IFS='|' read -r name kernel cpu smp run _ kind <<< "$b"
	slot
	step "booting $name: -cpu $cpu -smp $smp, the $(label "$kernel") kernel$([ "$kind" = info ] && echo " (for comparison, not counted)"), running $run"
	boot_job "$b" &
done
# The emulator's own guest test, on the same kernel: the PMU programmed
# directly on every model, the erratum on and off, multi-threaded TCG, the
# NMI watchdog under load. Then kunit.py.
guest=0
if [ $matrix -eq 1 ] && [ -z "$only" ]; then
	guest=1
	slot
	step "the emulator's guest test (emulator_test on 10 hosts, the $(label $SERIES_KERNEL) kernel)"
	KERNEL=$(image $SERIES_KERNEL) "$TOP/scripts/qemu-emu-guest-test.sh" > "$RESULTS/emulator-guest.tap" &
	slot
	step "kunit.py run of the $(label $SERIES_KERNEL) kernel's KUnit suites on the emulated affected host (${RESULTS#"$TOP"/}/kunit-qemu-run.out)"
	{
		"$TOP/scripts/kunit-qemu.sh" > "$RESULTS/kunit-qemu-run.out" 2>&1
		rc=$?
		[ $rc -eq 0 ] || grep -qs '^not ok' "$RESULTS/kunit-qemu.tap" ||
			echo "not ok - kunit-qemu.sh (exit $rc)" >> "$RESULTS/kunit-qemu.tap"
	} &
fi
wait
read -r busy1 all1 < <(cpu_ticks)
echo "boots took $((SECONDS - boots_start)) s (CPUs $(busy_pct "$busy0" "$all0" "$busy1" "$all1")% busy)"

for b in "${BOOTS[@]}"; do
	IFS='|' read -r name _ _ _ _ _ kind <<< "$b"
	echo "boot $name$([ "$kind" = info ] && echo " (reported, not counted)"):"
	grep -E '^(not ok|# )' "$RESULTS/boot-$name.tap" | head -20
	echo "   $(grep -c '^ok' "$RESULTS/boot-$name.tap") ok, $(grep -c '^not ok' "$RESULTS/boot-$name.tap") not ok; console in ${RESULTS#"$TOP"/}/boot-$name.console"
	grep -q '^not ok' "$RESULTS/boot-$name.tap" && status=1
done
if [ $guest -eq 1 ]; then
	echo "kunit.py run on the emulated host:"
	cat "$RESULTS/kunit-qemu-run.out"
	grep -q '^not ok' "$RESULTS/kunit-qemu.tap" && status=1
	echo "the emulator's guest test:"
	grep -E '^(not ok|# .*retried)' "$RESULTS/emulator-guest.tap"
	echo "   $(grep -c '^ok' "$RESULTS/emulator-guest.tap") ok, $(grep -c '^not ok' "$RESULTS/emulator-guest.tap") not ok"
	grep -q '^not ok' "$RESULTS/emulator-guest.tap" && status=1
fi

# The matrix side by side: results, the emulator's ledger over the whole
# boot (leaks are expected where a test switches the workaround off),
# kernel reports (the lines boot.sh's scan finds, scripts/lib.sh).
if [ $matrix -eq 1 ]; then
	echo
	echo "boot matrix (ledger: the emulator's, over the whole boot):"
	printf '  %-12s %-8s %5s %7s %14s %16s %8s\n' boot kernel ok "not ok" "ledger leaked" "exposed ns" reports
	for b in "${BOOTS[@]}"; do
		IFS='|' read -r name kernel _ <<< "$b"
		f=$RESULTS/boot-$name
		leaked=$(sed -n 's/^xpmu-ledger: leaked=\([0-9]*\).*/\1/p' "$f.ledger" 2>/dev/null)
		exposed=$(sed -n 's/^xpmu-ledger: .*exposed_ns=\([0-9]*\).*/\1/p' "$f.ledger" 2>/dev/null)
		reports=$(kernel_reports "$f.console" 2>/dev/null | wc -l)
		printf '  %-12s %-8s %5s %7s %14s %16s %8s\n' "$name" "$(label "$kernel")" \
			"$(grep -c '^ok' "$f.tap" 2>/dev/null)" "$(grep -c '^not ok' "$f.tap" 2>/dev/null)" \
			"${leaked:--}" "${exposed:--}" "$reports"
	done
fi

# summary RUN HEADER PROGRAM: under HEADER, the awk PROGRAM over the
# console of each boot that runs RUN (-v b: the boot, k: its kernel); the
# serial console ends its lines with carriage returns.
summary() {
	local b name kernel run shown=0

	for b in "${BOOTS[@]}"; do
		IFS='|' read -r name kernel _ _ run _ <<< "$b"
		[[ ",$run," = *,$1,* ]] || continue
		[ $shown -eq 1 ] || { echo; echo "$2"; shown=1; }
		tr -d '\r' < "$RESULTS/boot-$name.console" |
			awk -v b="$name" -v k="$(label "$kernel")" "$3"
	done
}

# The family 15h sets (amd/f15h.sh), the series beside plain 7.3:
# whether the kernel applies family 15h's constraint table; per set, the
# lowest share of its time an event counted as a single event, and
# whether the group counted; the record's events with samples.
summary amd "AMD family 15h, sets of six that fit (table: family 15h's constraints applied; singles: lowest share counted):" '
	$2 == "f15h" && $3 == "set" && $5 == "singles" { s[$4] = $NF "%" }
	$2 == "f15h" && $3 == "set" && $5 == "group" && $6 == "counted" { g[$4] = $7 }
	$2 == "f15h" && $3 == "table" { t = $5 }
	$2 == "f15h" && $3 == "record" { r = $11 "/" $7 }
	END {
		line = sprintf("  %-9s %-9s table %s;", b, k, t == "" ? "-" : t)
		for (i = 1; i <= 3; i++)
			line = line sprintf(" set %d: %s, group %s;", i,
					    i in s ? s[i] : "-", i in g ? g[i] : "-")
		print line " record: " (r == "" ? "-" : r) " events sampled"
	}'

# Gracemont's PEBS set (grt/pebs.sh), the series beside plain 7.3: the
# lowest share of its time an event counted, alone and in the group
# (x86pmu-share: what perf stat would print); the records' events with
# samples, alone and as a group; perf mem's samples.
summary grt "Gracemont, load latency and two instructions:ppp (share: lowest share counted, events counted; record: events sampled):" '
	$2 == "grt" && $3 == "share" { s[$4] = $10 "%, " $8 "/3 counted" }
	$2 == "grt" && $3 == "record" { r[$4] = $10 "/3" }
	$2 == "grt" && $3 == "mem" { m = $6 }
	END {
		printf "  %-9s %-9s singles %s; group %s; record %s, as a group %s; perf mem %s samples\n",
		       b, k, "singles" in s ? s["singles"] : "-", "group" in s ? s["group"] : "-",
		       "singles" in r ? r["singles"] : "-", "group" in r ? r["group"] : "-",
		       m == "" ? "-" : m
	}'

# The fixes' host tests, before (plain 7.3) and after (part 1): each must
# fail before and pass after, or it proves nothing (fixes.tap).
shown=0
: > "$RESULTS/fixes.tap"
for b in "${BOOTS[@]}"; do
	IFS='|' read -r name kernel _ _ run _ <<< "$b"
	case $name in hsw-ht-7.3 | hsw-ht-fixes) ;; *) continue ;; esac
	[ $shown -eq 1 ] || { echo; echo "the fixes' host tests, plain 7.3 (before) and part 1 (after):"; shown=1; }
	python3 - "$RESULTS/boot-$name.console" "$name" "$(label "$kernel")" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
for prog in ("moved.sh", "pinned-held.sh"):
    m = re.search(r"^(not ok|ok) \d+ selftests: (host|fixes): %s.*$" % re.escape(prog), text, re.M)
    if not m:
        continue
    block = text[:m.start()]
    start = block.rfind("# selftests: %s: %s" % (m.group(2), prog))
    summary = [l[2:] for l in text[start:m.start()].splitlines()
               if re.match(r"# (no leak|.*runs?( \(.*\))?$|.*leak)", l)][-1:] if start >= 0 else []
    print("  %-12s %-8s %-16s %-7s %s" % (sys.argv[2], sys.argv[3], prog, m.group(1),
          summary[0] if summary else ""))
PY
done
if [ $shown -eq 1 ]; then
	python3 - "$RESULTS/boot-hsw-ht-7.3.console" "$RESULTS/boot-hsw-ht-fixes.console" \
		> "$RESULTS/fixes.tap" <<'PY'
import re, sys
def result(path, prog):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return None
    m = re.search(r"^(not ok|ok) \d+ selftests: (host|fixes): %s\b(.*)$" % re.escape(prog), text, re.M)
    if not m:
        return None
    # A skipped test (it could not set up what it tests) proves nothing.
    return "skipped" if "# SKIP" in m.group(3) else m.group(1)
n = 0
for prog in ("moved.sh", "pinned-held.sh"):
    before, after = result(sys.argv[1], prog), result(sys.argv[2], prog)
    n += 1
    ok = before == "not ok" and after == "ok"
    print("%s %d - fix test %s: fails on plain 7.3 (%s), passes with part 1 (%s)"
          % ("ok" if ok else "not ok", n, prog, before or "did not run", after or "did not run"))
print("1..%d" % n)
PY
	cat "$RESULTS/fixes.tap"
	grep -q '^not ok' "$RESULTS/fixes.tap" && status=1
fi


# The glue stress of each boot that ran it, side by side (glue_stress.c):
# what it did and what it found; a kernel without the knob has its ledger
# over the whole run.
if [ $matrix -eq 1 ]; then
	echo
	echo "glue stress (stress/glue_stress: 60 s on hsw-ht, 30 s where x86pmu.stress says so):"
	printf '  %-12s %-8s %6s %9s %9s %9s %22s %14s %12s %8s\n' boot kernel lists events switches hotplugs \
		"ledger at 1: leaked" "exposed ns" "pinned error" "run>en"
	for b in "${BOOTS[@]}"; do
		IFS='|' read -r name kernel _ _ run _ <<< "$b"
		[[ ",$run," = *,stress,* ]] || continue
		python3 - "$RESULTS/boot-$name.console" "$name" "$(label "$kernel")" <<'PY'
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
config=$(kout series)/.config
HVS_BOOTS=$HVS_BOOTS HVS_CONFIG=$config HVS_TREE=$PERF_SRC \
	"$TOP/scripts/host-vs-sim.sh" > "$RESULTS/host-vs-sim.tap"
cat "$RESULTS/host-vs-sim.tap"
grep -q '^not ok' "$RESULTS/host-vs-sim.tap" && status=1

# The kernel's instructions per context switch, the series against 7.3.
if [[ "${BOOTS[*]}" == *"cost-ht|"* ]]; then
	step "instructions per context switch with perf events, the series beside plain 7.3"
	"$TOP/scripts/switch-cost.sh" > "$RESULTS/switch-cost.tap"
	cat "$RESULTS/switch-cost.tap"
	grep -q '^not ok' "$RESULTS/switch-cost.tap" && status=1
fi

# Topdown on the affected hosts, the series beside plain 7.3.
if [[ "${BOOTS[*]}" == *"hsw-ht-scen|"* ]]; then
	step "perf's topdown and a many-group record on the affected hosts, the series beside plain 7.3"
	"$TOP/scripts/topdown-table.sh" > "$RESULTS/topdown.tap"
	cat "$RESULTS/topdown.tap"
	grep -q '^not ok' "$RESULTS/topdown.tap" && status=1
fi

# Single events beside a corrupting sibling, the NMI watchdog on and off:
# the series, part 1 alone and parts 1-4 beside plain 7.3 (the whole
# matrix: a boot or two alone have nothing to compare with).
if [ $matrix -eq 1 ] && [ -z "$only" ]; then
	step "single events beside a corrupting sibling, NMI watchdog on and off, beside plain 7.3"
	"$TOP/scripts/lone-table.sh" > "$RESULTS/lone.tap"
	cat "$RESULTS/lone.tap"
	grep -q '^not ok' "$RESULTS/lone.tap" && status=1
fi

# KUnit: what each boot with KUnit printed before /init started, parsed by
# its own tree's kunit.py; every suite its kernel was built with must run.
for b in "${BOOTS[@]}"; do
	IFS='|' read -r name kernel _ _ _ append _ <<< "$b"
	[[ " $append " == *" $KUNIT "* ]] || continue
	console=$RESULTS/boot-$name.console
	tap=$(kunit_tap "$name")
	prefix="kunit: "
	[ "$name" = hsw-ht ] || prefix="kunit $name: "
	sed '/^x86-pmu-selftests: begin/,$d' "$console" > "$RESULTS/kunit-$name.log"
	(cd "$(tree_of "$kernel")" && python3 tools/testing/kunit/kunit.py parse \
		--json="$RESULTS/kunit-$name.json" "$RESULTS/kunit-$name.log") > /dev/null
	# shellcheck disable=SC2046
	"$TOP/scripts/kunit-tap.py" "$RESULTS/kunit-$name.json" "$prefix" $(suites_of "$kernel") > "$tap"
	echo "KUnit on $name: $(grep -c '^ok' "$tap") ok, $(grep -c '^not ok' "$tap") not ok (${tap#"$TOP"/})"
	grep '^not ok' "$tap"
	grep -q '^not ok' "$tap" && status=1
done
[ -f "$RESULTS/kunit-hsw-ht.json" ] && cp "$RESULTS/kunit-hsw-ht.json" "$RESULTS/kunit.json"

# The tests of the affected host, with perf's own output.
if [ -f "$RESULTS/boot-hsw-ht.console" ]; then
	echo
	echo "tests on the emulated affected host (Haswell, 1 core x 2 threads, the series kernel):"
	sed -n '/^x86-pmu-selftests: begin/,/^x86-pmu-selftests: end/p' "$RESULTS/boot-hsw-ht.console" |
		sed '1d;$d'
fi
exit $status
