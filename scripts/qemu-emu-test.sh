#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# User-space tests of the emulated PMU model: compiles
# qemu/tests/unit/test-xpmu-model.c with plain gcc against the same
# qemu/target/i386/xpmu-model.c that the QEMU build uses (with
# AddressSanitizer and UBSan) and runs it. Prints TAP on stdout; exits
# non-zero if the build or a test fails. Needs nothing from QEMU.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/qemu-emu-test
mkdir -p "$out"
src=$TOP/qemu/tests/unit/test-xpmu-model.c
model=$TOP/qemu/target/i386/xpmu-model.c
CFLAGS=(-O2 -g -std=gnu11 -Wall -Wextra -Werror -Wno-sign-compare
	-Wno-unused-parameter -Wstrict-prototypes -Wmissing-prototypes
	-fsanitize=address,undefined -fno-sanitize-recover=all
	-I "$TOP/qemu/target/i386")

if ! gcc "${CFLAGS[@]}" -o "$out/test-xpmu-model" "$src" "$model" \
	2> "$out/build.log"; then
	echo "not ok 1 - build of test-xpmu-model"
	sed 's/^/# /' "$out/build.log"
	echo "1..1"
	exit 1
fi
"$out/test-xpmu-model"
