#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the emulator's QEMU patches (qemu/patches/series) to Debian's QEMU
# tree in build/qemu-src (git, tag 'base'), one commit per patch on branch
# 'xpmu', the way scripts/apply-series.sh applies the kernel series: the
# commits are built in a private index, and the work tree is only switched
# once every patch has applied, so a patch that does not apply leaves the
# tree as it was. Fixed identity and dates (lib.sh): an unchanged series
# yields the same commits and touches no file, so nothing rebuilds.
#
# qemu/patches/series lists the patches in order; under each, indented, the
# new files it adds, taken from qemu/<path> in this repository. A patch is
# its commit message, a line "---", then a unified diff (a/ b/ paths) of
# existing QEMU files only.
#
# Usage: qemu-build-apply.sh [QEMU git tree] [patch directory]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

QSRC=$(realpath -m "${1:-$BUILD/qemu-src}")
PDIR=$(realpath -m "${2:-$TOP/qemu/patches}")
NEWROOT=$(cd "$PDIR/.." && pwd)		# qemu/ : new files at their QEMU paths
list=$PDIR/series

[ -f "$list" ] || die "no patch list at $list"
[ -d "$QSRC/.git" ] && git -C "$QSRC" rev-parse -q --verify base >/dev/null ||
	die "no QEMU base tree in $QSRC: run scripts/qemu-build.sh"

index=$QSRC/.git/xpmu-index
rm -f "$index"
trap 'rm -f "$index" "$index.msg" "$index.diff" "$index.err"' EXIT
export GIT_INDEX_FILE=$index
git -C "$QSRC" read-tree base

parent=$(git -C "$QSRC" rev-parse base)
patches=()
declare -A files new_files

while IFS= read -r line; do
	case $line in
	'' | '#'*) ;;
	[[:space:]]*)
		[ ${#patches[@]} -gt 0 ] || die "$list: file before any patch"
		f=$(echo "$line" | xargs)
		files[${patches[-1]}]+="$f "
		new_files[$f]=${patches[-1]}
		;;
	*)
		patches+=("$line")
		files[$line]=""
		;;
	esac
done < "$list"

for p in "${patches[@]}"; do
	pf=$PDIR/$p
	[ -f "$pf" ] || die "QEMU patch $p is listed in $list but missing"
	grep -qx -- '---' "$pf" || die "QEMU patch $p: no '---' line after the message"
	sed '/^---$/,$d' "$pf" > "$index.msg"
	sed '1,/^---$/d' "$pf" > "$index.diff"

	# A new file lives once, in this repository; no diff may touch it.
	for f in $(sed -n 's|^+++ b/||p' "$index.diff"); do
		[ -z "${new_files[$f]:-}" ] ||
			die "QEMU patch $p edits $f, a new file of ${new_files[$f]}: edit qemu/$f itself"
	done

	if [ -s "$index.diff" ] &&
	   ! git -C "$QSRC" apply --cached "$index.diff" 2>"$index.err"; then
		bad=$(sed -n 's/^error: patch failed: \(.*\):[0-9]*$/\1/p; s/^error: \(.*\): does not exist in index$/\1/p; s/^error: \(.*\): already exists in index$/\1/p' "$index.err" | head -1)
		cat "$index.err" >&2
		die "QEMU patch $p does not apply to ${bad:-the tree} (tree left unchanged)"
	fi

	for f in ${files[$p]}; do
		[ -f "$NEWROOT/$f" ] || die "QEMU patch $p: new file qemu/$f is missing from the repository"
		git -C "$QSRC" ls-files --error-unmatch -- "$f" >/dev/null 2>&1 &&
			die "QEMU patch $p: new file $f already exists in the QEMU tree"
		blob=$(git -C "$QSRC" hash-object -w --path="$f" -- "$NEWROOT/$f")
		git -C "$QSRC" update-index --add --cacheinfo "100644,$blob,$f"
	done

	tree=$(git -C "$QSRC" write-tree)
	parent=$(git -C "$QSRC" commit-tree "$tree" -p "$parent" -F "$index.msg")
done

unset GIT_INDEX_FILE
# Switch only when something changed (or the work tree was edited by hand):
# git rewrites just the files that differ, so only they rebuild.
if [ "$(git -C "$QSRC" rev-parse -q --verify HEAD)" != "$parent" ] ||
   ! git -C "$QSRC" diff --quiet HEAD --; then
	git -C "$QSRC" checkout -q -f -B xpmu "$parent"
fi
echo "QEMU patches: ${#patches[@]} applied as commits base..xpmu ($(git -C "$QSRC" rev-parse --short HEAD))"
