#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a static perf from the series tree's tools/perf for the test
# initramfs (QEMU, x86_64, no shared libraries there): PERF_OUT/perf
# (scripts/lib.sh: build/perf/perf, in the 7.3 matrix build/perf-7.3/perf).
# The tree: PERF_SRC (the 7.3 matrix: the series kernel's worktree,
# build/k-series; perf's tools are not changed by the series), default
# build/linux-6.12.
# perf's JSON event tables are compiled in (jevents.py, all x86 models), so
# `perf stat -e MEM_UOPS_RETIRED.ALL_LOADS`, `-M TopdownL1` and `--topdown`
# work as on a distribution's perf; raw events, groups, -a/-C and -x, are
# perf stat's own and need no library.
#
# Outputs go to PERF_OUT (O=), never into the kernel tree. A second run with
# the same tree commit, the same tools/ contents and the same script is
# skipped by a stamp; otherwise perf's make rebuilds what changed.
# The full build log: build/perf/build.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$PERF_OUT
KSRC=${PERF_SRC:-$KSRC}
LOG=$OUT/build.log
STAMP=$OUT/.stamp
PERF=$OUT/perf
JOBS=${PERF_JOBS:-2}	# 2 cores, and other builds may be running

# Debian's python3 (jevents.py) first: a pyenv shim must not shadow it.
export PATH=/usr/bin:/bin:$PATH

[ -d "$KSRC/tools/perf" ] ||
	die "no kernel tree in ${KSRC#"$TOP"/}: run scripts/prepare-tree.sh and scripts/apply-series.sh first (or make series)"

# What the static build needs: the compiler and libc.a (build-essential),
# flex/bison for perf's parsers, python3 for jevents, libelf.a and libz.a.
PACKAGES=(build-essential flex bison python3 libelf-dev zlib1g-dev file)
install_missing "${PACKAGES[@]}" || die "cannot install ${PACKAGES[*]}"
for a in libc.a libelf.a libz.a; do
	f=$(gcc -print-file-name="$a")
	[ "$f" != "$a" ] && [ -f "$f" ] ||
		die "static library $a not found (packages: ${PACKAGES[*]})"
done

# Features off, and why (see tools/perf/Makefile.perf for each switch):
#  no static archive in Debian 12, or not installed and not needed by
#  perf stat: libtraceevent, libdw (DWARF, dwarf unwind), libunwind, libbpf
#  and the BPF skeletons (also need clang/bpftool), capstone, libnuma,
#  libbabeltrace, libcap, libcrypto, slang/GTK (TUI/GUI), python/perl
#  (perf script bindings), libpfm4, libllvm, debuginfod, zstd, lzma,
#  systemtap SDT headers; the java agent (a shared library), the 32-bit/x32
#  vdso readers (need multilib gcc), C++ demangling (pulls static libstdc++
#  in; perf stat never demangles), shellcheck of the test scripts and the
#  Rust test workloads of perf test (7.3's perf builds them with rustc
#  where one is installed; at -j2 the archive of the test objects then
#  failed with "LLVM ERROR: Invalid encoding" here).
# Kept: libelf + zlib (symbol resolution for perf record/report), jevents,
# AIO, auxtrace, the syscall tables.
MAKEVARS=(
	LDFLAGS=-static
	PYTHON=/usr/bin/python3
	NO_LIBTRACEEVENT=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_GTK2=1 NO_SLANG=1
	NO_LIBUNWIND=1 NO_LIBDW_DWARF_UNWIND=1 NO_DWARF=1 NO_LIBDW=1
	NO_LIBBPF=1 NO_BPF_SKEL=1 BUILD_BPF_SKEL=0
	NO_JVMTI=1 NO_LIBCRYPTO=1 NO_LIBNUMA=1 NO_LIBBABELTRACE=1 NO_LIBCAP=1
	NO_CAPSTONE=1 NO_LIBPFM4=1 NO_LIBLLVM=1 NO_LIBDEBUGINFOD=1
	NO_LIBZSTD=1 NO_LZMA=1 NO_SDT=1 NO_DEMANGLE=1
	NO_PERF_READ_VDSO32=1 NO_PERF_READ_VDSOX32=1
	NO_SHELLCHECK=1 NO_RUST=1
	WERROR=0
)

# The stamp: tree commit, local changes under tools/ (if any), this script.
key=$({
	git -C "$KSRC" rev-parse HEAD
	git -C "$KSRC" status --porcelain -- tools
	git -C "$KSRC" diff HEAD -- tools
	cat "$0"
} | sha256sum | cut -d' ' -f1)

report() {
	step "perf: ${PERF#"$TOP"/} ($(stat -c %s "$PERF") bytes)"
	file -b "$PERF" | sed 's/^/    /'
}

if [ -x "$PERF" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$key" ]; then
	step "static perf is up to date (tree $(git -C "$KSRC" rev-parse --short HEAD))"
	report
	exit 0
fi

mkdir -p "$OUT"
rm -f "$STAMP"
step "building a static perf from ${KSRC#"$TOP"/}/tools/perf ($(git -C "$KSRC" rev-parse --short HEAD)), -j$JOBS; log: ${LOG#"$TOP"/}"
start=$SECONDS
if ! make -C "$KSRC/tools/perf" O="$OUT" JOBS="$JOBS" "${MAKEVARS[@]}" "$PERF" > "$LOG" 2>&1; then
	tail -n 40 "$LOG" >&2
	die "static perf build failed after $((SECONDS - start)) s: full log in ${LOG#"$TOP"/}"
fi
[ -x "$PERF" ] || die "perf's make succeeded but ${PERF#"$TOP"/} is missing (log: ${LOG#"$TOP"/})"
what=$(file -b "$PERF")
[[ $what == *"statically linked"* ]] ||
	die "${PERF#"$TOP"/} is not statically linked: $what"
# jevents stores event names in lower case; TopdownL1 is a metric group.
for s in mem_uops_retired.all_loads TopdownL1; do
	grep -aqF "$s" "$PERF" ||
		die "${PERF#"$TOP"/} lacks the JSON event tables (no '$s'; did jevents run? see ${LOG#"$TOP"/})"
done
step "perf built in $((SECONDS - start)) s"
echo "$key" > "$STAMP"
report
