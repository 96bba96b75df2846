#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the series to the base tree as one git commit per patch, on branch
# 'series' of $KSRC. The commits are built in a private index first; the
# work tree is only switched once every patch has applied, so a patch that
# does not apply leaves the tree as it was and nothing half applied is ever
# built. Files that did not change keep their timestamps, so the kernel
# build after a second run only rebuilds what the series changed.
#
# series/series lists the patches in order; under each, indented, the new
# files it adds, taken from this repository at their kernel paths. A patch
# file is its commit message, a line "---", then a diff of upstream files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list=$SERIES_DIR/series
[ -f "$list" ] || die "no series list at $list"
git -C "$KSRC" rev-parse -q --verify base >/dev/null ||
	die "no base tree in $KSRC: run scripts/prepare-tree.sh"

index=$KSRC/.git/series-index
rm -f "$index"
trap 'rm -f "$index" "$index.msg" "$index.diff" "$index.err"' EXIT
export GIT_INDEX_FILE=$index
git -C "$KSRC" read-tree base

parent=$(git -C "$KSRC" rev-parse base)
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
	pf=$SERIES_DIR/$p
	[ -f "$pf" ] || die "patch $p is listed in $list but missing"
	grep -qx -- '---' "$pf" || die "patch $p: no '---' line after the message"
	sed '/^---$/,$d' "$pf" > "$index.msg"
	sed '1,/^---$/d' "$pf" > "$index.diff"

	# A new file lives once, in this repository; no diff may touch it.
	for f in $(sed -n 's|^+++ b/||p' "$index.diff"); do
		[ -z "${new_files[$f]:-}" ] ||
			die "patch $p edits $f, a new file of ${new_files[$f]}: edit the file itself"
	done

	if [ -s "$index.diff" ] &&
	   ! git -C "$KSRC" apply --cached "$index.diff" 2>"$index.err"; then
		bad=$(sed -n 's/^error: patch failed: \(.*\):[0-9]*$/\1/p; s/^error: \(.*\): does not exist in index$/\1/p; s/^error: \(.*\): already exists in index$/\1/p' "$index.err" | head -1)
		cat "$index.err" >&2
		die "patch $p does not apply to ${bad:-the tree} (tree left unchanged)"
	fi

	for f in ${files[$p]}; do
		[ -f "$TOP/$f" ] || die "patch $p: new file $f is missing from the repository"
		git -C "$KSRC" ls-files --error-unmatch -- "$f" >/dev/null 2>&1 &&
			die "patch $p: new file $f already exists in the tree"
		mode=100644
		[ -x "$TOP/$f" ] && mode=100755
		blob=$(git -C "$KSRC" hash-object -w --path="$f" -- "$TOP/$f")
		git -C "$KSRC" update-index --add --cacheinfo "$mode,$blob,$f"
	done

	tree=$(git -C "$KSRC" write-tree)
	parent=$(git -C "$KSRC" commit-tree "$tree" -p "$parent" -F "$index.msg")
done

unset GIT_INDEX_FILE
if [ "$(git -C "$KSRC" rev-parse -q --verify HEAD)" != "$parent" ]; then
	git -C "$KSRC" checkout -q -f -B series "$parent"
fi
echo "series: ${#patches[@]} patches applied as commits base..series ($(git -C "$KSRC" rev-parse --short HEAD))"
