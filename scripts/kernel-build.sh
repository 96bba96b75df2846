#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernels the boot matrix boots. Outputs are reused: a second run
# rebuilds only what changed. Every build prints and records its time
# (build/results/kernel-times.txt).
#
# One git worktree per kernel, build/k-NAME, its output in
# build/k-NAME/.build (inside the worktree, so that Kbuild names the sources
# relative to it and a copy of one kernel's worktree and output can seed
# another: only the files that differ rebuild), each built through kunit.py
# so that the KUnit suites of the tree are built in:
#
#   kernel    tree and commit                  configuration
#   series    7.3, parts 1-3 (the highest      every .kunitconfig of the series in
#             present: ht, matcher or fixes)   the tree (arch/x86/events/amd,
#                                              arch/x86/events, arch/x86/events/intel:
#                                              those that exist) + BOOT + DEBUG,
#                                              KASAN included
#   rfc       7.3, parts 1-4 (core; only       as series; seeded from series'
#             when part 4 exists)              worktree and build
#   mainline  7.3, tag base (plain mainline)   COMMON + BOOT + DEBUG without KASAN
#   fixes     7.3, part 1 (branch fixes)       mainline's + part 1's .kunitconfig
#                                              (arch/x86/events/amd); seeded from
#                                              mainline's worktree and build
#   cost      7.3, parts 1-3 (as series)       mainline's, exactly: the series'
#                                              path cost against plain 7.3's
#                                              (cost/cost.sh); seeded from
#                                              mainline's worktree and build
#   lts       6.12, branch series of           the backport's .kunitconfig files +
#             build/linux-6.12 (the backport)  BOOT + DEBUG without KASAN
#
# (COMMON: KUnit itself and the x86 PMU drivers; BOOT and DEBUG below.
# Every kernel but fixes also has AMD's BRS, as distributions build it:
# below. Mainline's and fixes' configurations differ in part 1's test and
# BRS only.)
# KASAN costs a first build about 40% more CPU (series 957 s against
# mainline's 672 s here) and a boot more still: the comparison kernels go
# without it; lockdep and the lockup detectors stay on every kernel. A
# seeded fixes build took 43 s of copying and 55 s of CPU.
#
#   kernel-build.sh series|rfc|mainline|fixes|cost|lts...
#   kernel-build.sh --print-args NAME   kunit.py's arguments for a built
#                                       kernel, one a line (kunit-qemu.sh)
#
# All carry what the boots check with: lockdep and lock statistics
# (host/lockstat.sh), atomic-sleep checks, the soft- and hard-lockup
# detectors (the NMI watchdog is a perf event), the msr driver (the
# emulator's tests read its ledger) and CPU hotplug; KASAN where the table
# above says so.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# Booting with an initramfs, running static test programs and perf; the
# scenarios trace the multiplexing timer (timer:hrtimer_expire_entry).
BOOT_CONFIG=(CONFIG_SMP=y CONFIG_BLK_DEV_INITRD=y CONFIG_DEVTMPFS=y
	     CONFIG_TMPFS=y CONFIG_PROC_FS=y CONFIG_SYSFS=y CONFIG_DEBUG_FS=y
	     CONFIG_BINFMT_ELF=y CONFIG_BINFMT_SCRIPT=y CONFIG_HOTPLUG_CPU=y
	     CONFIG_X86_MSR=y CONFIG_KALLSYMS=y CONFIG_FTRACE=y)
# What makes a boot fail loudly on a defect.
DEBUG_CONFIG=(CONFIG_KASAN=y CONFIG_PROVE_LOCKING=y CONFIG_DEBUG_ATOMIC_SLEEP=y
	      CONFIG_SOFTLOCKUP_DETECTOR=y CONFIG_HARDLOCKUP_DETECTOR=y
	      CONFIG_HARDLOCKUP_DETECTOR_PERF=y CONFIG_LOCK_STAT=y)

mkdir -p "$RESULTS"

# KUnit, the PMU drivers and DEBUG_KERNEL (which the debug options need), in
# every kernel.
COMMON_CONFIG=(CONFIG_KUNIT=y CONFIG_PERF_EVENTS=y CONFIG_CPU_SUP_INTEL=y CONFIG_DEBUG_KERNEL=y
	       CONFIG_CPU_SUP_AMD=y)
# AMD's Branch Sampling, as distributions commonly build it, in every
# kernel but fixes (BRS=n). Without it, 7.3's stub amd_brs_init() returns
# 0 and amd_core_pmu_init() replaces family 15h's constraint table with
# family 19h's, which lets every event use every counter: plain 7.3's AMD
# family 15h boot (amd/f15h.sh) would test no constraint at all. Part 1
# fixes the stub; the fixes kernel, built without BRS, shows it (its
# family 15h boot checks that the table is applied).
BRS_CONFIG=CONFIG_PERF_EVENTS_AMD_BRS=y

# kernel_def NAME: sets TREE, REF, SEED (a kernel whose worktree and build
# may seed this one's), KASAN (y/n), BRS (y/n), KUNITS (the .kunitconfig
# directories to use: "present" = every one of ALL_KUNITCONFIGS in the
# tree).
kernel_def() {
	SEED= KUNITS=present BRS=y
	case $1 in
	series)	TREE=$(ksrc $MAINLINE) REF=$(series_branch) KASAN=y
		[ -n "$REF" ] || { echo "error: no part of the series in ${PARTS_DIR#"$TOP"/}" >&2; return 1; } ;;
	rfc)	TREE=$(ksrc $MAINLINE) REF=$(rfc_branch) KASAN=y SEED=series
		[ -n "$REF" ] || { echo "error: no part 4 (perf core, RFC): no rfc kernel" >&2; return 1; } ;;
	mainline) TREE=$(ksrc $MAINLINE) REF=base KASAN=n KUNITS= ;;
	fixes)	TREE=$(ksrc $MAINLINE) REF=fixes KASAN=n SEED=mainline BRS=n
		KUNITS=arch/x86/events/amd
		have_part 1 || { echo "error: no part 1 (fixes)" >&2; return 1; } ;;
	cost)	TREE=$(ksrc $MAINLINE) REF=$(series_branch) KASAN=n SEED=mainline KUNITS=
		[ -n "$REF" ] || { echo "error: no part of the series in ${PARTS_DIR#"$TOP"/}" >&2; return 1; } ;;
	lts)	TREE=$(ksrc $LTS) REF=series KASAN=n ;;
	*)	echo "error: unknown kernel '$1' (${KERNELS[*]})" >&2; return 1 ;;
	esac
	git -C "$TREE" rev-parse -q --verify "$REF^{commit}" > /dev/null ||
		{ echo "error: no '$REF' in ${TREE#"$TOP"/} for the $1 kernel (scripts/apply-parts.sh, scripts/apply-series.sh)" >&2; return 1; }
}

# worktree NAME: build/k-NAME as a worktree of TREE at REF, touching only
# the files that differ from what it had. A new one is seeded from SEED's
# worktree and build when those exist: its files are copied with their
# times (the build then finds them older than its objects), the paths that
# name SEED's worktree in the build's records are renamed, and the commit
# is checked out over them, rewriting only the files that differ.
worktree() {
	local dir commit seed
	dir=$(kdir "$1")
	commit=$(git -C "$TREE" rev-parse "$REF^{commit}")
	if [ "$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" = \
	     "$(git -C "$TREE" rev-parse --path-format=absolute --git-common-dir)" ]; then
		if [ "$(git -C "$dir" rev-parse HEAD)" != "$commit" ] ||
		   ! git -C "$dir" diff --quiet HEAD --; then
			git -C "$dir" checkout -q -f --detach "$commit" || return 1
		fi
		return 0
	fi
	rm -rf "$dir"
	git -C "$TREE" worktree prune
	seed=
	[ -n "$SEED" ] && seed=$(kdir "$SEED")
	if [ -n "$seed" ] && [ -f "$(kimage "$SEED")" ] &&
	   git -C "$seed" rev-parse -q --verify HEAD > /dev/null 2>&1; then
		step "seeding k-$1 from k-$SEED (worktree and build, copied with their times)"
		git -C "$TREE" worktree add -q --no-checkout --detach "$dir" \
			"$(git -C "$seed" rev-parse HEAD)" || return 1
		(cd "$seed" && tar -cf - --exclude=./.git .) | (cd "$dir" && tar -xf -) ||
			return 1
		git -C "$dir" reset -q || return 1
		# Host tools (objtool, fixdep, ...) are built with absolute
		# paths: name the new worktree in their records.
		grep -rlIZ -F "$seed/" "$dir/.build" 2>/dev/null |
			xargs -0 -r sed -i "s|$seed/|$dir/|g"
		grep -rlIZ -F "$seed " "$dir/.build" 2>/dev/null |
			xargs -0 -r sed -i "s|$seed |$dir |g"
		git -C "$dir" checkout -q -f --detach "$commit" || return 1
	else
		git -C "$TREE" worktree add -q --detach "$dir" "$commit" || return 1
	fi
}

# kunit_args NAME: sets ARGS to kunit.py's configuration and build
# arguments for the kernel NAME (kernel_def run, its worktree present),
# relative to its worktree, and KUNITS to its .kunitconfig directories.
# 'kunit.py run' given the same ones (scripts/kunit-qemu.sh, through
# --print-args) finds the configuration unchanged and the build done.
kunit_args() {
	local dir k c

	dir=$(kdir "$1")
	mkdir -p "$BUILD/kunitconfigs"
	printf '%s\n' "${COMMON_CONFIG[@]}" > "$BUILD/kunitconfigs/common"
	ARGS=(--arch=x86_64 --build_dir=.build --jobs="$JOBS"
	      --make_options=KCFLAGS=-fstack-usage
	      --kunitconfig="$BUILD/kunitconfigs/common")
	if [ "$KUNITS" = present ]; then
		KUNITS=
		for k in "${ALL_KUNITCONFIGS[@]}"; do
			[ -f "$dir/$k/.kunitconfig" ] && KUNITS+="$k "
		done
	fi
	for k in $KUNITS; do
		ARGS+=(--kunitconfig="$k")
	done
	for c in "${BOOT_CONFIG[@]}" "${DEBUG_CONFIG[@]}"; do
		[ $KASAN = n ] && [ "$c" = CONFIG_KASAN=y ] && continue
		ARGS+=(--kconfig_add="$c")
	done
	[ $BRS = y ] && ARGS+=(--kconfig_add="$BRS_CONFIG")
	KUNITS=$(echo $KUNITS)
}

build_kernel() {
	local name=$1 dir out log c opt start secs cpu
	kernel_def "$name" || return 1
	start=$SECONDS
	cpu_now
	cpu=$CPU_NOW
	worktree "$name" || { echo "error: cannot set up the worktree $(kdir "$name")" >&2; return 1; }
	[ $((SECONDS - start)) -lt 5 ] || echo "worktree k-$name ready in $((SECONDS - start)) s"
	dir=$(kdir "$name")
	out=$(kout "$name")
	log=$RESULTS/kernel-$name-build.log
	kunit_args "$name"
	step "building the $name kernel: ${TREE#"$TOP"/} $REF ($(git -C "$dir" rev-parse --short=9 HEAD)), KASAN $KASAN, KUnit ${KUNITS:-none}; log in ${log#"$TOP"/}"
	(cd "$dir" && PATH=/usr/bin:$PATH python3 tools/testing/kunit/kunit.py build "${ARGS[@]}") \
		> "$log" 2>&1 ||
		{ tail -30 "$log"; echo "error: the $name kernel does not build" >&2; return 1; }
	secs=$((SECONDS - start))
	cpu_now
	cpu=$((CPU_NOW - cpu))
	# What the boots of this kernel must run (scripts/qemu-run.sh).
	echo "$KUNITS" | xargs -n1 2>/dev/null > "$out/x86-pmu-kunitconfigs"
	for c in "${DEBUG_CONFIG[@]}" CONFIG_X86_MSR=y CONFIG_HOTPLUG_CPU=y "$BRS_CONFIG"; do
		opt=${c%=y}
		if { [ $KASAN = n ] && [ "$opt" = CONFIG_KASAN ]; } ||
		   { [ $BRS = n ] && [ "$c" = "$BRS_CONFIG" ]; }; then
			! grep -qx "$c" "$out/.config" ||
				{ echo "error: $opt is set in the $name kernel's configuration" >&2; return 1; }
			continue
		fi
		grep -qx "$c" "$out/.config" ||
			{ echo "error: $opt is not set in the $name kernel's configuration" >&2; return 1; }
	done
	echo "kernel $name ($REF, $(git -C "$dir" rev-parse --short=9 HEAD)): built in $secs s ($cpu s of CPU; $JOBS jobs)" |
		tee -a "$RESULTS/kernel-times.txt"
}

# --print-args NAME: kunit.py's arguments for a kernel already built, one
# a line, for running its KUnit suites on the same build (kunit_args).
if [ "${1:-}" = --print-args ]; then
	[ $# -eq 2 ] || { echo "usage: $0 --print-args series|rfc|mainline|fixes|cost|lts" >&2; exit 2; }
	kernel_def "$2" || exit 1
	[ -f "$(kimage "$2")" ] ||
		{ echo "error: the $2 kernel is not built ($0 $2 builds it)" >&2; exit 1; }
	kunit_args "$2"
	printf '%s\n' "${ARGS[@]}"
	exit 0
fi

[ $# -gt 0 ] || { echo "usage: $0 series|rfc|mainline|fixes|cost|lts..." >&2; exit 2; }
status=0
for w in "$@"; do
	case $w in
	series | rfc | mainline | fixes | cost | lts) build_kernel "$w" || status=1 ;;
	*) echo "usage: $0 series|rfc|mainline|fixes|cost|lts..." >&2; exit 2 ;;
	esac
	[ $status -eq 0 ] || break
done
exit $status
