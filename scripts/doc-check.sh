#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation checks, in TAP: the tree's scripts/kernel-doc -Wall on
# every new C file of the series (every exported or non-trivial function
# documented, parameters and return values described), and the new
# reStructuredText pages through docutils with warnings as errors.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=0
fail=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}

for f in $(sed -n 's/^[[:space:]]\+\(.*\.[ch]\)$/\1/p' "$SERIES_DIR/series"); do
	case $f in tools/*) continue ;; esac
	out=$(perl "$KSRC/scripts/kernel-doc" -none -Wall "$TOP/$f" 2>&1)
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	[ -z "$out" ]
	result $? "kernel-doc -Wall: $f"
done

for f in $(sed -n 's/^[[:space:]]\+\(.*\.rst\)$/\1/p' "$SERIES_DIR/series"); do
	out=$(/usr/bin/rst2pseudoxml --halt=2 --report=2 "$TOP/$f" 2>&1 >/dev/null)
	rc=$?
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	result $rc "reStructuredText (docutils): $f"
done

echo "1..$n"
exit $fail
