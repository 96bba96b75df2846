#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Developer helper: write the whole series back from a git branch whose
# commits map one to one onto the patches of series/series, in order
# (typically a worktree of build/linux where a patch was fixed with
# "git rebase -i"). For every commit, the patch file gets the commit's
# message and its diff of upstream files; the new files the series adds are
# copied from the branch's tip into this repository, since they exist once,
# here. Nothing is written unless the commit count matches the series.
#
#   git -C build/linux-6.12 worktree add -b edit ../edit series     # once
#   ... git -C build/edit rebase -i base, fix patch N, continue ...
#   scripts/update-series.sh build/edit
#
# A mainline part: the commits between the part before it and HEAD, e.g.
#   scripts/update-series.sh --series series/7.3/2-matcher --onto fixes build/edit-7.3
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ONTO=base
HEAD_REF=HEAD
while [ $# -gt 1 ]; do
	case $1 in
	--series) SERIES_DIR=$(realpath -m "$2") ;;
	--onto) ONTO=$2 ;;
	--head) HEAD_REF=$2 ;;
	*) break ;;
	esac
	shift 2
done
[ $# -eq 1 ] || { echo "usage: $0 [--series DIR] [--onto REF] [--head REF] TREE (a git tree whose ONTO..HEAD is the series)" >&2; exit 2; }
tree=$1
list=$SERIES_DIR/series
# Where the new files are written (the repository; tests point elsewhere).
FILES_DIR=${FILES_DIR:-$TOP}

patches=()
new_files=()
while IFS= read -r line; do
	case $line in
	'' | '#'*) ;;
	[[:space:]]*) new_files+=("$(echo "$line" | xargs)") ;;
	*) patches+=("$line") ;;
	esac
done < "$list"

mapfile -t commits < <(git -C "$tree" rev-list --reverse "$ONTO..$HEAD_REF")
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "$tree has ${#commits[@]} commits over base, the series ${#patches[@]} patches"

# Pathspecs that leave the new files out of every diff.
exclude=()
for f in "${new_files[@]}"; do
	exclude+=(":(exclude)$f")
done

for i in "${!patches[@]}"; do
	c=${commits[$i]} pf=$SERIES_DIR/${patches[$i]}
	tmp=$(mktemp)
	git -C "$tree" log -1 --format=%B "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$tmp"
	echo "---" >> "$tmp"
	# A fixed abbreviation: git shortens hashes by the repository's size.
	git -C "$tree" -c core.abbrev=9 diff "$c~1" "$c" -- . "${exclude[@]}" >> "$tmp"
	if ! cmp -s "$tmp" "$pf"; then
		mv "$tmp" "$pf"
		echo "updated ${pf#"$TOP"/}"
	else
		rm -f "$tmp"
	fi
done

for f in "${new_files[@]}"; do
	tmp=$(mktemp)
	git -C "$tree" show "$HEAD_REF:$f" > "$tmp"
	if ! cmp -s "$tmp" "$FILES_DIR/$f"; then
		mv "$tmp" "$FILES_DIR/$f"
		echo "updated $f"
	else
		rm -f "$tmp"
	fi
done
