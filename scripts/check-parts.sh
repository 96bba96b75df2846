#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The exported series as a maintainer takes it (TAP): every mainline part
# of an export (scripts/export-series.sh) is applied with git am, in order,
# to a clean 7.3 tree (a worktree at tag 'base', build/am-7.3), and after
# each part the tree must be exactly the tree of that part's branch
# (scripts/apply-parts.sh); the 6.12 backport the same way on a clean 6.12
# tree (build/am-6.12) against branch 'series'. Each cover letter must
# carry its subject and blurb and the base-commit line.
#
#   check-parts.sh [EXPORT_DIR]   (default: build/series, or
#                                 build/series-check with UNSIGNED=1)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ "${UNSIGNED:-0}" = 1 ]; then
	dir=${1:-${SERIES_CHECK_OUT:-$BUILD/series-check}}
else
	dir=${1:-$SERIES_OUT}
fi
[ -d "$dir" ] || die "no export in $dir: run scripts/export-series.sh"

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

# clean_worktree TREE DIR: DIR as a worktree of TREE at 'base', nothing
# else in it (only the files that differ are rewritten).
clean_worktree() {
	local tree=$1 wt=$2
	if ! git -C "$wt" rev-parse -q --verify HEAD > /dev/null 2>&1; then
		rm -rf "$wt"
		git -C "$tree" worktree prune
		git -C "$tree" worktree add -q --detach "$wt" base || return 1
	fi
	git -C "$wt" am --abort > /dev/null 2>&1
	git -C "$wt" checkout -q -f --detach base && git -C "$wt" clean -q -fdx
}

# cover SET_DIR TREE NPREV: the cover letter has its text, the base-commit
# and a prerequisite-patch-id per patch of the parts before it (NPREV).
cover() {
	local c=$1/0000-cover-letter.patch base
	base=$(git -C "$2" rev-parse base^{commit})
	! grep -q -e '\*\*\* SUBJECT HERE \*\*\*' -e '\*\*\* BLURB HERE \*\*\*' "$c" &&
		grep -qx "base-commit: $base" "$c" &&
		[ "$(grep -c '^prerequisite-patch-id: ' "$c")" -eq "$3" ]
}

# am TREE WT SET_DIR BRANCH WHAT: git am every patch of SET_DIR on WT's
# HEAD; the result must have BRANCH's tree.
am() {
	local tree=$1 wt=$2 d=$3 branch=$4 what=$5 patches log
	log=$RESULTS/check-parts-$(basename "$d").log
	mapfile -t patches < <(find "$d" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | sort)
	if ! git -C "$wt" am -q "${patches[@]}" > "$log" 2>&1; then
		sed 's/^/# /' "$log" | head -20
		git -C "$wt" am --abort > /dev/null 2>&1
		result 1 "$what: git am applies its ${#patches[@]} patches (see ${log#"$TOP"/})"
		return 1
	fi
	result 0 "$what: git am applies its ${#patches[@]} patches"
	if [ "$(git -C "$wt" rev-parse HEAD^{tree})" = "$(git -C "$tree" rev-parse "$branch^{tree}")" ]; then
		result 0 "$what: the tree after git am is the tree of branch $branch"
	else
		git -C "$wt" diff --stat HEAD "$(git -C "$tree" rev-parse "$branch")" | sed 's/^/# /' | tail -20
		result 1 "$what: the tree after git am is the tree of branch $branch"
	fi
}

mkdir -p "$RESULTS"
# The mainline parts, in order, each on top of the ones before.
T73=$(ksrc "$MAINLINE")
mapfile -t present < <(parts)
echo "# export: $dir"
if [ ${#present[@]} -gt 0 ]; then
	if clean_worktree "$T73" "$BUILD/am-$MAINLINE"; then
		ok=1
		nprev=0
		prev=base
		for p in "${present[@]}"; do
			what="part ${p%%-*} ($(part_branch "$p"))"
			if [ ! -d "$dir/$p" ]; then
				result 1 "$what: exported into ${dir#"$TOP"/}/$p/"
				ok=0
				continue
			fi
			cover "$dir/$p" "$T73" "$nprev"
			result $? "$what: cover letter with its subject, blurb, base-commit and $nprev prerequisite patch ids (${PARTS_DIR#"$TOP"/}/$p/cover-letter)"
			nprev=$((nprev + $(git -C "$T73" rev-list --count "$prev..$(part_branch "$p")")))
			prev=$(part_branch "$p")
			if [ $ok -eq 1 ]; then
				am "$T73" "$BUILD/am-$MAINLINE" "$dir/$p" "$(part_branch "$p")" "$what on a clean $MAINLINE after the parts before it" || ok=0
			else
				result 1 "$what: not applied, a part before it failed"
			fi
		done
	else
		result 1 "a clean $MAINLINE worktree at ${BUILD#"$TOP"/}/am-$MAINLINE"
	fi
	missing=$(first_missing_part)
	[ -z "$missing" ] || echo "# part ${missing%%-*} (${missing#*-}) is not there yet: parts 1-${#present[@]} checked"
fi

# The 6.12 backport, when exported.
if [ -d "$dir/$LTS" ]; then
	T612=$(ksrc "$LTS")
	cover "$dir/$LTS" "$T612" 0
	result $? "the $LTS backport: cover letter with its subject, blurb and base-commit"
	if clean_worktree "$T612" "$BUILD/am-$LTS"; then
		am "$T612" "$BUILD/am-$LTS" "$dir/$LTS" series "the $LTS backport on a clean $LTS"
	else
		result 1 "a clean $LTS worktree at ${BUILD#"$TOP"/}/am-$LTS"
	fi
fi
echo "1..$n"
exit $fail
