#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the mainline parts, series/7.3/N-NAME/, in order onto tag 'base'
# of Debian's 7.3 tree (build/linux-7.3), each as branch NAME on top of the
# part before it:
#
#   base <- fixes (part 1) <- matcher (part 2) <- ht (part 3) <- core (part 4)
#
# The parts present are applied: the first missing part stops the list,
# and it says so. Every part is first applied as commits alone
# (scripts/apply-series.sh --commit-only); only when all of them applied
# are the branches set and one checked out, so a part that does not apply
# is refused with the part, the patch and the file named, and the tree
# and every branch are left as they were. The commits carry a fixed
# identity and date (scripts/lib.sh): an unchanged part gives the same
# commits, and re-applying an unchanged series touches no file.
#
# Usage: apply-parts.sh [--checkout BRANCH]
#   BRANCH: the branch left checked out in build/linux-7.3: a part's
#   (fixes, matcher, ht, core), 'base', or 'none' to leave the work tree
#   alone; default: the highest of fixes, matcher, ht present (parts 1-3,
#   what the 'series' kernel is built from).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TREE=$(ksrc $MAINLINE)
checkout=
while [ $# -gt 0 ]; do
	case $1 in
	--checkout) checkout=${2:-}; shift 2 ;;
	--tree) TREE=$(realpath -m "$2"); shift 2 ;;
	*) die "usage: $0 [--checkout fixes|matcher|ht|core|base|none]" ;;
	esac
done
git -C "$TREE" rev-parse -q --verify base > /dev/null 2>&1 ||
	die "no $MAINLINE tree in ${TREE#"$TOP"/} (tag 'base'): run scripts/prepare-tree.sh $MAINLINE"

mapfile -t present < <(parts)
[ ${#present[@]} -gt 0 ] || die "no part in ${PARTS_DIR#"$TOP"/}/ (1-fixes/series is missing)"
[ -n "$checkout" ] || checkout=$(series_branch)

declare -A tip
prev=base
for p in "${present[@]}"; do
	n=${p%%-*}
	b=$(part_branch "$p")
	[ -f "$PARTS_DIR/$p/cover-letter" ] ||
		echo "warning: part $n ($b) has no cover-letter (${PARTS_DIR#"$TOP"/}/$p/cover-letter): make series needs one" >&2
	tip[$b]=$("$TOP/scripts/apply-series.sh" --tree "$TREE" --series "$PARTS_DIR/$p" \
		--onto "$prev" --what "part $n ($b): patch" --commit-only) ||
		die "part $n ($b) does not apply (${PARTS_DIR#"$TOP"/}/$p): nothing was changed in ${TREE#"$TOP"/}"
	prev=${tip[$b]}
done

case $checkout in
none | base) ;;
*) [ -n "${tip[$checkout]:-}" ] ||
	die "cannot check out '$checkout': the parts present are ${present[*]}" ;;
esac

# Set the branches. A part branch checked out is first left for its own
# commit, detached, so that the work tree is only switched once, below.
head=$(git -C "$TREE" symbolic-ref -q --short HEAD || true)
if [ -n "$head" ] && [ -n "${tip[$head]:-}" ] &&
   [ "$(git -C "$TREE" rev-parse "$head")" != "${tip[$head]}" ]; then
	git -C "$TREE" checkout -q --detach
fi
prev=base
for p in "${present[@]}"; do
	b=$(part_branch "$p")
	git -C "$TREE" update-ref "refs/heads/$b" "${tip[$b]}"
	printf 'part %s (%s): %s patch(es), %s..%s (%s)\n' "${p%%-*}" "$b" \
		"$(git -C "$TREE" rev-list --count "$prev..$b")" "$prev" "$b" \
		"$(git -C "$TREE" rev-parse --short=9 "$b")"
	prev=$b
done
missing=$(first_missing_part)
if [ -n "$missing" ]; then
	applied="parts 1-${#present[@]}"
	[ ${#present[@]} -eq 1 ] && applied="part 1"
	echo "part ${missing%%-*} (${missing#*-}) is not there yet (no ${PARTS_DIR#"$TOP"/}/$missing/series): $applied applied, the parts after it are not looked for"
fi

# Switch the work tree only when something changed: git rewrites just the
# files that differ, so only they rebuild.
case $checkout in
none) echo "work tree of ${TREE#"$TOP"/} left as it was" ;;
*)
	target=$checkout
	if [ "$checkout" = base ]; then
		[ "$(git -C "$TREE" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse base^{commit})" ] &&
			git -C "$TREE" diff --quiet HEAD -- ||
			git -C "$TREE" checkout -q -f --detach base
	elif [ "$(git -C "$TREE" symbolic-ref -q --short HEAD)" != "$target" ] ||
	     ! git -C "$TREE" diff --quiet HEAD --; then
		git -C "$TREE" checkout -q -f "$target"
	fi
	echo "checked out in ${TREE#"$TOP"/}: $checkout ($(git -C "$TREE" rev-parse --short=9 HEAD))"
	;;
esac
