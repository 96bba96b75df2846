#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the two kernels the boot matrix boots, with one configuration:
#
#   build/kunit        the patched tree (branch 'series'), through kunit.py
#                      with the series' .kunitconfig files, so that the
#                      KUnit suites are built in;
#   build/kernel-base  the unpatched 6.12 (tag 'base', worktree
#                      build/base-src), from the patched kernel's .config
#                      (olddefconfig drops the series' own symbols).
#
# Both carry what the boots check with: KASAN, lockdep, atomic-sleep
# checks, the soft- and hard-lockup detectors (the NMI watchdog is a perf
# event), the msr driver (the emulator's tests read its ledger) and CPU
# hotplug. Outputs are reused: a second run rebuilds only what changed.
#
# Usage: kernel-build.sh [patched|base|both]   (default: both)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-both}
BASE_SRC=$BUILD/base-src
BASE_OUT=$BUILD/kernel-base

# The series' .kunitconfig files.
KUNITCONFIGS=(arch/x86/events arch/x86/events/intel)
# Booting with an initramfs, running static test programs and perf; the
# scenarios trace the multiplexing timer (timer:hrtimer_expire_entry).
BOOT_CONFIG=(CONFIG_SMP=y CONFIG_BLK_DEV_INITRD=y CONFIG_DEVTMPFS=y
	     CONFIG_TMPFS=y CONFIG_PROC_FS=y CONFIG_SYSFS=y CONFIG_DEBUG_FS=y
	     CONFIG_BINFMT_ELF=y CONFIG_BINFMT_SCRIPT=y CONFIG_HOTPLUG_CPU=y
	     CONFIG_X86_MSR=y CONFIG_KALLSYMS=y CONFIG_FTRACE=y)
# What makes a boot fail loudly on a defect.
DEBUG_CONFIG=(CONFIG_KASAN=y CONFIG_PROVE_LOCKING=y CONFIG_DEBUG_ATOMIC_SLEEP=y
	      CONFIG_SOFTLOCKUP_DETECTOR=y CONFIG_HARDLOCKUP_DETECTOR=y
	      CONFIG_HARDLOCKUP_DETECTOR_PERF=y)

mkdir -p "$RESULTS"

build_patched() {
	local args=(--arch=x86_64 --build_dir="$KBUILD" --jobs="$JOBS"
		    --make_options=KCFLAGS=-fstack-usage) k c
	for k in "${KUNITCONFIGS[@]}"; do
		args+=(--kunitconfig="$k")
	done
	for c in "${BOOT_CONFIG[@]}" "${DEBUG_CONFIG[@]}"; do
		args+=(--kconfig_add="$c")
	done
	step "building the patched kernel (KASAN, lockdep; about 7 minutes the first time on 2 cores, seconds after; log in build/results/kernel-build.log)"
	(cd "$KSRC" && PATH=/usr/bin:$PATH python3 tools/testing/kunit/kunit.py build "${args[@]}") \
		> "$RESULTS/kernel-build.log" 2>&1 ||
		{ tail -30 "$RESULTS/kernel-build.log"; return 1; }
}

build_base() {
	local c opt
	[ -f "$KBUILD/.config" ] || { echo "error: build the patched kernel first" >&2; return 1; }
	if [ "$(git -C "$BASE_SRC" rev-parse -q --verify HEAD 2>/dev/null)" != \
	     "$(git -C "$KSRC" rev-parse base)" ]; then
		rm -rf "$BASE_SRC"
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$BASE_SRC" base ||
			{ echo "error: cannot create $BASE_SRC" >&2; return 1; }
	fi
	mkdir -p "$BASE_OUT"
	# Same configuration; rewrite it only when it changed, so that a
	# second run rebuilds nothing.
	if ! cmp -s "$KBUILD/.config" "$BASE_OUT/.config.patched"; then
		cp "$KBUILD/.config" "$BASE_OUT/.config"
		cp "$KBUILD/.config" "$BASE_OUT/.config.patched"
	fi
	step "building the unpatched 6.12 kernel with the same configuration (about 7 minutes the first time; log in build/results/kernel-base-build.log)"
	{ make -s -C "$BASE_SRC" O="$BASE_OUT" ARCH=x86_64 olddefconfig &&
	  make -s -C "$BASE_SRC" O="$BASE_OUT" ARCH=x86_64 -j"$JOBS" bzImage; } \
		> "$RESULTS/kernel-base-build.log" 2>&1 ||
		{ tail -30 "$RESULTS/kernel-base-build.log"; return 1; }
	for c in "${DEBUG_CONFIG[@]}" CONFIG_X86_MSR=y CONFIG_HOTPLUG_CPU=y; do
		opt=${c%=y}
		grep -qx "$c" "$BASE_OUT/.config" ||
			{ echo "error: $opt is not set in the unpatched kernel's configuration" >&2; return 1; }
	done
}

case $what in
patched) build_patched ;;
base) build_base ;;
both) build_patched && build_base ;;
*) echo "usage: $0 [patched|base|both]" >&2; exit 2 ;;
esac
