# SPDX-License-Identifier: GPL-2.0
# Common settings for the scripts: where things are, how progress is shown.
# Sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# Debian's kernel trees as git (scripts/prepare-tree.sh): tag 'base'.
ksrc() { echo "$BUILD/linux-$1"; }
MAINLINE=7.3			# the tree the parts are against
LTS=6.12			# the tree of the backport
KSRC=${KSRC:-$(ksrc $LTS)}	# the backport's tree: branch 'series'
# What the boots put in their initramfs: perf (build-perf.sh), the
# kselftests and the initramfs (initramfs.sh), from the series kernel's tree.
PERF_OUT=${PERF_OUT:-$BUILD/perf-$MAINLINE}
INITRAMFS_OUT=${INITRAMFS_OUT:-$BUILD/initramfs-$MAINLINE.cpio}
RESULTS=${RESULTS:-$BUILD/results}	# one TAP file per test step
SERIES_OUT=${SERIES_OUT:-$BUILD/series}	# git format-patch output
SERIES_DIR=${SERIES_DIR:-$TOP/series/$LTS}
JOBS=${JOBS:-$(nproc)}

# The mainline parts: series/7.3/N-NAME/, applied by scripts/apply-parts.sh
# onto tag 'base' of build/linux-7.3, each as branch NAME on top of the
# part before it. A part exists when its directory has a 'series' list;
# the parts present are the ones before the first missing.
PARTS_DIR=${PARTS_DIR:-$TOP/series/$MAINLINE}
PART_NAMES=(fixes matcher ht core)
# parts: "N-NAME" of every part present, in order.
parts() {
	local i=1 p
	for p in "${PART_NAMES[@]}"; do
		[ -f "$PARTS_DIR/$i-$p/series" ] || break
		echo "$i-$p"
		i=$((i + 1))
	done
}
# first_missing_part: "N-NAME" of the first part not present (none: empty).
first_missing_part() {
	local n
	n=$(parts | wc -l)
	[ "$n" -lt ${#PART_NAMES[@]} ] && echo "$((n + 1))-${PART_NAMES[$n]}"
	return 0
}
# part_branch N-NAME: the branch of a part in build/linux-7.3 (NAME).
part_branch() { echo "${1#*-}"; }
# series_branch: what a maintainer would merge first, parts 1-3: the
# branch of the highest part present among them (empty: no part).
series_branch() {
	local p b=
	for p in $(parts); do
		case ${p%%-*} in 1 | 2 | 3) b=$(part_branch "$p") ;; esac
	done
	echo "$b"
}
# have_part N: whether part N is present. (Not "parts | grep -q": under
# pipefail, grep leaving at the first match can fail the pipeline with
# SIGPIPE while parts is still writing.)
have_part() { [ -n "$(part_of "$1")" ]; }
# part_of N: "N-NAME" of part N, when present.
part_of() { local p; for p in $(parts); do [ "${p%%-*}" = "$1" ] && echo "$p"; done; return 0; }
# rfc_branch: the branch of part 4 (perf core, RFC) when it exists.
rfc_branch() { have_part 4 && part_branch "$(part_of 4)"; return 0; }
# patch_part PATCH: the part directory a patch of a series list belongs to
# ("2-matcher" for 2-matcher/0002-... and ../7.3/2-matcher/0001-...);
# empty for a patch at the top of the list (a backport- patch).
patch_part() {
	local p=${1#../*/}
	case $p in */*) echo "${p%%/*}" ;; *) echo "" ;; esac
}

# The kernels of the 7.3 boot matrix (scripts/kernel-build.sh says which
# has which configuration): a worktree each, build/k-NAME, with its build
# output inside it, build/k-NAME/.build (ignored by the kernel's own
# .gitignore), so that Kbuild names every source file relative to the
# output and one kernel's build can seed another's.
KERNELS=(series rfc mainline fixes cost lts)
# The series' .kunitconfig files, where a kernel's tree has them, and the
# KUnit suites each one builds in (a boot of a kernel built with one must
# run its suites). The glue suite is part of intel/core.c when the XSU
# tests are built in; it skips on a host without the erratum.
ALL_KUNITCONFIGS=(arch/x86/events/amd arch/x86/events arch/x86/events/intel)
declare -A KUNIT_SUITES=(
	[arch/x86/events/amd]="x86_amd_f15h_assign"
	[arch/x86/events]="x86_counter_match"
	[arch/x86/events/intel]="x86_intel_xsu x86_intel_xsu_arb x86_intel_xsu_glue"
)
kdir() { echo "$BUILD/k-$1"; }
kout() { echo "$BUILD/k-$1/.build"; }
kimage() { echo "$BUILD/k-$1/.build/arch/x86/boot/bzImage"; }

# Fixed identity and dates: the same series always gives the same commits,
# so a second run finds nothing changed and rebuilds nothing.
export GIT_AUTHOR_NAME="x86 PMU scheduler maintainers"
export GIT_AUTHOR_EMAIL="x86-pmu-sched@example.org"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-11-01T00:00:00Z"
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

# cpu_now: sets CPU_NOW to the CPU seconds (user + system) of the finished
# children of this shell so far (bash's times, run in this shell, not in a
# subshell); the difference around a build is its CPU time, which another
# engineer's build on the same cores does not inflate.
cpu_now() {
	local f
	f=$(mktemp)
	times > "$f"
	CPU_NOW=$(awk 'NR == 2 {
		t = 0
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2]
		}
		printf "%d\n", t }' "$f")
	rm -f "$f"
}

# A kernel report in a console line (a Perl/Python regular expression):
# any WARNING, BUG (KASAN's included), lockdep report, lockup or panic
# fails the boot or run whose console has one. A report starts its line
# (after the console's or the log dump's prefix: "# ", "<level>",
# "[time]"); "RETBleed: WARNING: ..." is a message, not one.
KERNEL_REPORT_RE='^(?:# )?(?:<\d>)?(?:\[\s*[0-9.]+\]\s*)?'\
'(?:WARNING:|BUG:|Oops|Kernel panic|UBSAN:|general protection fault|watchdog: BUG:)|'\
'Call Trace:|hard LOCKUP|soft lockup|detected stalls?|'\
'possible circular locking|inconsistent lock state'
# kernel_reports FILE: print the lines of a console that are kernel reports
# (KERNEL_REPORT_RE); false when there is none.
kernel_reports() { grep -aP -- "$KERNEL_REPORT_RE" "$1"; }

step() {
	printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# apt_serial COMMAND...: COMMAND (apt-get) once no other apt-get of ours
# runs on this machine: make check fetches the QEMU source while it
# fetches the kernel trees, and apt's lists are the machine's.
apt_serial() {
	flock "${TMPDIR:-/tmp}/x86-pmu-apt.lock" "$@"
}

# install_missing PACKAGE...: install those of Debian's packages that are
# not installed yet (as root, or through sudo), saying which.
install_missing() {
	local p missing=() sudo=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	step "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt_serial $sudo apt-get update -qq &&
	DEBIAN_FRONTEND=noninteractive apt_serial $sudo apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# cpu_ticks: the machine's CPU time busy and in all, in ticks since boot
# (/proc/stat's first line; iowait counts as idle). busy_pct B0 A0 B1 A1:
# how busy the CPUs were between two such readings, in percent.
cpu_ticks() { awk '/^cpu /{ print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat; }
busy_pct() { echo $(( ($3 - $1) * 100 / ($4 - $2 > 0 ? $4 - $2 : 1) )); }
