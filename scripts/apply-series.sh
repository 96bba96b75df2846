#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply a series to a base tree as one git commit per patch, on a branch of
# that tree: by default the kernel series (series/) to Debian's 6.12 tree
# ($TREE, branch 'series'); scripts/qemu-build.sh applies the emulator's
# QEMU patches (qemu/patches/) the same way. The commits are built in a
# private index first; the work tree is only switched once every patch has
# applied, so a patch that does not apply leaves the tree as it was and
# nothing half applied is ever built. Files that did not change keep their
# timestamps, so the build after a second run only rebuilds what the
# series changed.
#
# The list (SERIES/series) names the patches in order; under each,
# indented, the new files it adds, taken from this repository (FILES/) at
# their path in the tree. A patch file is its commit message, a line "---",
# then a diff of existing files of the tree, never of a new file.
#
# A patch is named relative to the series directory, so a backport can
# reuse a patch of another series as it is instead of copying it: the
# 6.12 list names ../7.3/1-fixes/0001-....patch where the mainline patch
# applies to 6.12 unchanged. The one exception to "never a new file" is a
# backport's own adaptation: a patch whose file name starts with
# "backport-" may diff new files of the series (the repository keeps
# them once, as mainline has them; the backport- patch is what an older
# tree needs of them, e.g. a renamed API), and a patch of a later part
# (2-matcher/...) may diff a new file of an earlier one (1-fixes/...), as
# its mainline part does. Any other patch that edits a new file is
# refused.
#
# Usage: apply-series.sh [--tree DIR] [--series DIR] [--files DIR]
#                        [--branch NAME] [--onto REF] [--what WORDS]
#                        [--no-checkout | --commit-only]
#   defaults: build/linux-6.12, series/6.12/, the repository's top,
#   'series', 'base' (the commit the first patch applies to), 'patch'.
#   scripts/apply-parts.sh stacks the mainline parts with --onto.
#   --no-checkout only sets the branch; the work tree is left alone.
#   --commit-only sets no branch and leaves the work tree alone: it prints
#   the tip's commit id alone (scripts/apply-parts.sh sets every part's
#   branch once all of them applied).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TREE=$KSRC
FILES=$TOP
BRANCH=series
ONTO=base
WHAT=patch
CHECKOUT=1
COMMIT_ONLY=0
while [ $# -gt 0 ]; do
	case $1 in
	--tree) TREE=$(realpath -m "$2") ;;
	--series) SERIES_DIR=$(realpath -m "$2") ;;
	--files) FILES=$(realpath -m "$2") ;;
	--branch) BRANCH=$2 ;;
	--onto) ONTO=$2 ;;
	--no-checkout) CHECKOUT=0; shift; continue ;;
	--commit-only) COMMIT_ONLY=1; shift; continue ;;
	--what) WHAT=$2 ;;
	*) die "usage: $0 [--tree DIR] [--series DIR] [--files DIR] [--branch NAME] [--onto REF] [--what WORDS] [--no-checkout | --commit-only]" ;;
	esac
	shift 2
done
# How to name a new file here in messages: its path in this repository.
rel=${FILES#"$TOP"}
rel=${rel#/}
rel=${rel:+$rel/}

list=$SERIES_DIR/series
[ -f "$list" ] || die "no series list at $list"
git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1 ||
	die "no base tree in $TREE (tag 'base')"
git -C "$TREE" rev-parse -q --verify "$ONTO^{commit}" >/dev/null 2>&1 ||
	die "no commit '$ONTO' in $TREE to apply the $WHAT series onto"

index=$TREE/.git/series-index
rm -f "$index"
trap 'rm -f "$index" "$index.msg" "$index.diff" "$index.err"' EXIT
export GIT_INDEX_FILE=$index
git -C "$TREE" read-tree "$ONTO"

parent=$(git -C "$TREE" rev-parse "$ONTO^{commit}")
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
	[ -f "$pf" ] || die "$WHAT $p is listed in $list but missing"
	grep -qx -- '---' "$pf" || die "$WHAT $p: no '---' line after the message"
	sed '/^---$/,$d' "$pf" > "$index.msg"
	sed '1,/^---$/d' "$pf" > "$index.diff"

	# A new file lives once, in this repository; no diff may touch it,
	# but a backport's own adaptation (backport-*.patch) and a later
	# part's change to a new file of an earlier part.
	case ${p##*/} in
	backport-*) ;;
	*)
		for f in $(sed -n 's|^+++ b/||p' "$index.diff"); do
			[ -z "${new_files[$f]:-}" ] && continue
			pp=$(patch_part "$p") fp=$(patch_part "${new_files[$f]}")
			[ -n "$pp" ] && [ -n "$fp" ] &&
				[ "${pp%%-*}" -gt "${fp%%-*}" ] 2>/dev/null && continue
			die "$WHAT $p edits $f, a new file of ${new_files[$f]}: edit $rel$f itself (only a backport-*.patch or a later part may adapt it)"
		done
		;;
	esac

	if [ -s "$index.diff" ] &&
	   ! git -C "$TREE" apply --cached "$index.diff" 2>"$index.err"; then
		bad=$(sed -n 's/^error: patch failed: \(.*\):[0-9]*$/\1/p; s/^error: \(.*\): does not exist in index$/\1/p; s/^error: \(.*\): already exists in index$/\1/p' "$index.err" | head -1)
		cat "$index.err" >&2
		die "$WHAT $p does not apply to ${bad:-the tree} (tree left unchanged)"
	fi

	for f in ${files[$p]}; do
		[ -f "$FILES/$f" ] || die "$WHAT $p: new file $rel$f is missing from the repository"
		git -C "$TREE" ls-files --error-unmatch -- "$f" >/dev/null 2>&1 &&
			die "$WHAT $p: new file $f already exists in the tree"
		mode=100644
		[ -x "$FILES/$f" ] && mode=100755
		blob=$(git -C "$TREE" hash-object -w --path="$f" -- "$FILES/$f")
		git -C "$TREE" update-index --add --cacheinfo "$mode,$blob,$f"
	done

	tree=$(git -C "$TREE" write-tree)
	parent=$(git -C "$TREE" commit-tree "$tree" -p "$parent" -F "$index.msg")
done

unset GIT_INDEX_FILE
if [ $COMMIT_ONLY -eq 1 ]; then
	echo "$parent"
	exit 0
fi
if [ $CHECKOUT -eq 0 ] &&
   [ "$(git -C "$TREE" symbolic-ref -q HEAD)" != "refs/heads/$BRANCH" ]; then
	git -C "$TREE" update-ref "refs/heads/$BRANCH" "$parent"
	echo "$WHAT series: ${#patches[@]} patches applied as commits $ONTO..$BRANCH ($(git -C "$TREE" rev-parse --short=9 "$BRANCH"), not checked out)"
	exit 0
fi
# Switch only when something changed (or the work tree was edited by hand):
# git rewrites just the files that differ, so only they rebuild.
if [ "$(git -C "$TREE" rev-parse -q --verify HEAD)" != "$parent" ] ||
   ! git -C "$TREE" diff --quiet HEAD --; then
	git -C "$TREE" checkout -q -f -B "$BRANCH" "$parent"
fi
echo "$WHAT series: ${#patches[@]} patches applied as commits $ONTO..$BRANCH ($(git -C "$TREE" rev-parse --short=9 HEAD))"
