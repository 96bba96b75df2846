#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Developer helper: replace the diff part of a series patch with a diff
# taken from a git tree, keeping its commit message. Typical use, with a
# worktree of the base tree holding one branch per patch:
#
#   git -C build/linux worktree add ../edit base      # once
#   ... edit upstream files in build/edit, commit on branch p2 ...
#   scripts/update-diff.sh series/0002-*.patch build/edit p1 p2
#
# New files are not part of the diff: they live in this repository.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 PATCH TREE FROM TO" >&2; exit 2; }
patch=$1 tree=$2 from=$3 to=$4
grep -qx -- '---' "$patch" || { echo "$patch: no '---' line" >&2; exit 1; }
tmp=$(mktemp)
sed '/^---$/q' "$patch" > "$tmp"
git -C "$tree" diff "$from" "$to" >> "$tmp"
mv "$tmp" "$patch"
