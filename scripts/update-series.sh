#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Developer helper: write the whole series back from a git branch whose
# commits map one to one onto the patches of series/series, in order
# (typically a worktree of build/linux where a patch was fixed with
# "git rebase -i"). For every commit, the patch file gets the commit's
# message and its diff of upstream files; the new files the series adds are
# copied into this repository as they are at the end of their part, since
# they exist once, here. A later part that changes a new file of an
# earlier one (part 2 changing part 1's KUnit suite) keeps that change as
# a diff. Nothing is written unless the commit count matches the series.
#
#   git -C build/linux-6.12 worktree add -b edit ../edit series     # once
#   ... git -C build/edit rebase -i base, fix patch N, continue ...
#   scripts/update-series.sh build/edit
#
# A mainline part: the commits between the part before it and HEAD, e.g.
#   scripts/update-series.sh --series series/7.3/2-matcher --onto fixes build/edit-7.3
#
# A backport (series/6.12) reuses patches of another series by a relative
# name (../7.3/...): those are never written from here, only checked: the
# commit must still be that patch (same message, same git patch-id), or
# the backport needs a copy of its own. A backport-*.patch diffs new files
# (apply-series.sh): its diff keeps them, and a new file it edits is
# copied back from the commit before it, where it is still the
# repository's version.
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
declare -A file_part
while IFS= read -r line; do
	case $line in
	'' | '#'*) ;;
	[[:space:]]*)
		f=$(echo "$line" | xargs)
		new_files+=("$f")
		file_part[$f]=$(patch_part "${patches[-1]}")
		;;
	*) patches+=("$line") ;;
	esac
done < "$list"

mapfile -t commits < <(git -C "$tree" rev-list --reverse "$ONTO..$HEAD_REF")
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "$tree has ${#commits[@]} commits over base, the series ${#patches[@]} patches"

# skip_for INDEX: pathspecs that leave out of patch INDEX's diff the new
# files of its own part (they are the repository's, whole); a new file of
# an earlier part that this one changes keeps its diff. A backport- patch
# is the one diff that keeps every new file.
skip_for() {
	local part f
	case ${patches[$1]##*/} in backport-*) return 0 ;; esac
	part=$(patch_part "${patches[$1]}")
	for f in "${new_files[@]}"; do
		[ "${file_part[$f]}" = "$part" ] && echo ":(exclude)$f"
	done
	return 0
}

# message COMMIT: the commit's message as a patch file holds it.
message() {
	git -C "$tree" log -1 --format=%B "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# A reused patch of another series is checked, never written: all of
# them before anything is written.
for i in "${!patches[@]}"; do
	case ${patches[$i]} in ../*) ;; *) continue ;; esac
	c=${commits[$i]} pf=$SERIES_DIR/${patches[$i]}
	[ -f "$pf" ] || die "reused patch ${patches[$i]} is missing"
	mapfile -t skip < <(skip_for "$i")
	mine=$(git -C "$tree" diff "$c~1" "$c" -- . "${skip[@]}" |
	       git patch-id --stable | cut -d' ' -f1)
	theirs=$(sed '1,/^---$/d' "$pf" | git patch-id --stable | cut -d' ' -f1)
	[ "$(message "$c")" = "$(sed '/^---$/,$d' "$pf")" ] && [ "$mine" = "$theirs" ] ||
		die "commit $((i + 1)) of $tree is no longer ${patches[$i]}: edit it in its own series, or give $(basename "$SERIES_DIR") a copy of its own"
done

# Where a new file is the repository's: at the last patch of its part, or
# before the first backport- patch that adapts it, if that comes first.
declare -A source
for f in "${new_files[@]}"; do
	last=-1
	for i in "${!patches[@]}"; do
		case ${patches[$i]##*/} in backport-*) continue ;; esac
		[ "$(patch_part "${patches[$i]}")" = "${file_part[$f]}" ] && last=$i
	done
	source[$f]=${commits[$last]}
	for ((i = 0; i < last; i++)); do
		case ${patches[$i]##*/} in backport-*) ;; *) continue ;; esac
		if ! git -C "$tree" diff --quiet "${commits[$i]}~1" "${commits[$i]}" -- "$f"; then
			source[$f]=${commits[$i]}~1
			break
		fi
	done
done

for i in "${!patches[@]}"; do
	c=${commits[$i]} pf=$SERIES_DIR/${patches[$i]}
	case ${patches[$i]} in ../*) continue ;; esac
	mapfile -t skip < <(skip_for "$i")
	tmp=$(mktemp)
	message "$c" > "$tmp"
	echo "---" >> "$tmp"
	# A fixed abbreviation: git shortens hashes by the repository's size.
	git -C "$tree" -c core.abbrev=9 diff "$c~1" "$c" -- . "${skip[@]}" >> "$tmp"
	if ! cmp -s "$tmp" "$pf"; then
		mv "$tmp" "$pf"
		echo "updated ${pf#"$TOP"/}"
	else
		rm -f "$tmp"
	fi
done

for f in "${new_files[@]}"; do
	tmp=$(mktemp)
	git -C "$tree" show "${source[$f]}:$f" > "$tmp"
	if ! cmp -s "$tmp" "$FILES_DIR/$f"; then
		mv "$tmp" "$FILES_DIR/$f"
		echo "updated $f"
	else
		rm -f "$tmp"
	fi
done
