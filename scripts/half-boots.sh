#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The arbitration's guarantee over many boots: boot the emulated affected
# host (Haswell, one core, two threads) N times in a row with only
# host/half.sh (x86pmu.run=half: 100 groups asking for half of the GP
# counters on CPU 0, per task and CPU-wide, counting and sampling, beside
# four corrupting events on CPU 1; each group must run at least 95% of its
# window) and tally the boots:
#
#   [HALF_PARALLEL=P] half-boots.sh [N] [KERNEL]
#                     (default: 20 boots of the series kernel, one at a time)
#
# KERNEL is a kernel of scripts/kernel-build.sh (series, rfc, mainline;
# HALF_IMAGE=bzImage boots another image under that name),
# built first if missing, with the initramfs of scripts/qemu-run.sh. A boot
# passes when half.sh passes and its kernel log is clean (scripts/boot.sh).
# Prints one line per boot (each mode's lowest share) and the tally, also
# written to build/results/half-boots-KERNEL.txt; exits non-zero if any
# boot failed (for the mainline kernel the tally is reported, the exit is 0).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=${1:-20}
kernel=${2:-series}
case $n in ''|*[!0-9]*) die "usage: $0 [N] [series|rfc|mainline]" ;; esac
case $kernel in series|rfc|mainline) ;; *) die "usage: $0 [N] [series|rfc|mainline]" ;; esac

image=${HALF_IMAGE:-$(kimage "$kernel")}
[ -f "$image" ] || "$TOP/scripts/kernel-build.sh" "$kernel" || die "the $kernel kernel does not build"
[ -f "$INITRAMFS_OUT" ] || "$TOP/scripts/qemu-run.sh" --only hsw-ht --build-only ||
	die "the initramfs does not build"
tally=$RESULTS/half-boots-$kernel.txt
mkdir -p "$RESULTS"
: > "$tally"

# tally I: boot I's line.
tally_boot() {
	local i=$1 name=half-$kernel-$1 con lows sib below stall verdict
	con=$(tr -d '\r' < "$RESULTS/boot-$name.console")
	lows=$(echo "$con" | sed -n 's/^#   \(.*[a-z]\) *[0-9]* groups, lowest share \(.*\)%$/\1 \2%/p' |
		paste -sd, -)
	sib=$(echo "$con" | sed -n 's/^#   sibling \(.*\): ran \([0-9.]*\)% while.*/\2%/p' | paste -sd/ -)
	below=$(echo "$con" | sed -n 's/^# \([0-9]*\) of [0-9]* groups ran less than 95% of their window; \([0-9]*\) not judged$/\1, \2 not judged/p')
	stall=$(echo "$con" | sed -n 's/^#   the host stalled the guest.s CPUs \(.*\) s and \(.*\) s .*/\1 s + \2 s/p')
	if ! grep -q '^not ok' "$RESULTS/boot-$name.tap" &&
	   grep -q '^ok .*half.sh' "$RESULTS/boot-$name.tap"; then
		verdict=pass
		pass=$((pass + 1))
	else
		verdict=FAIL
	fi
	echo "boot $i: $verdict; groups under 95%: ${below:-?}; lowest: ${lows:-none printed}; sibling ran ${sib:-?} in the windows; host stalls ${stall:-?}" |
		tee -a "$tally"
}

# HALF_PARALLEL boots at a time (default 1): each emulator runs its guest
# on one host thread, so a machine with a core per boot and nothing else
# to do runs them side by side as fast as one (half.c judges a group only
# on the time the host ran the guest).
par=${HALF_PARALLEL:-1}
pass=0
start=$SECONDS
for first in $(seq 1 "$par" "$n"); do
	last=$((first + par - 1))
	[ "$last" -le "$n" ] || last=$n
	for i in $(seq "$first" "$last"); do
		step "boot $i of $n: host/half.sh on the $kernel kernel (half-$kernel-$i)"
		"$TOP/scripts/boot.sh" "half-$kernel-$i" "$image" Haswell,pmu=on \
			2,sockets=1,cores=1,threads=2 half > /dev/null 2>&1 &
	done
	wait
	for i in $(seq "$first" "$last"); do
		tally_boot "$i"
	done
done
echo "$kernel kernel: $pass of $n boots passed host/half.sh ($((SECONDS - start)) s)" | tee -a "$tally"
[ "$kernel" = mainline ] || [ "$pass" -eq "$n" ]
