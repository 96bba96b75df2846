#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the tree's checkpatch.pl --strict on every exported patch; one TAP
# line per patch, "ok" only when it reports no error, warning or check.
# With UNSIGNED=1 (an export-series.sh --unsigned, on a machine without a
# git identity) the missing sign-off alone is not reported.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# checkpatch.pl runs scripts/spdxcheck.py with the first python3 on PATH;
# Debian's has the python3-ply and python3-git modules it needs.
export PATH=/usr/bin:$PATH

n=0
fail=0
ignore=()
if [ "${UNSIGNED:-0}" = 1 ]; then
	ignore=(--ignore MISSING_SIGN_OFF)
	echo "# unsigned export (no git identity here): the sign-off is not checked"
fi
for p in "$SERIES_OUT"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	name=$(basename "$p")
	out=$(cd "$KSRC" && ./scripts/checkpatch.pl --strict "${ignore[@]}" --showfile "$p" 2>&1) || true
	total=$(echo "$out" | grep '^total:' || echo "total: checkpatch did not finish")
	if echo "$total" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		echo "ok $n - checkpatch --strict: $name"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n - checkpatch --strict: $name ($total)"
		fail=1
	fi
done
echo "1..$n"
exit $fail
