#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run checkpatch.pl --strict on every patch of an export
# (scripts/export-series.sh); one TAP line per patch, "ok" only when it
# reports no error, warning or check.
#
#   checkpatch.sh [EXPORT_DIR]   (default: build/series; UNSIGNED=1:
#                                build/series-check)
#
# Each set of the export, EXPORT_DIR/N-NAME/ (a mainline part) or
# EXPORT_DIR/6.12/ (the backport), is checked with the checkpatch.pl of
# the tree it is against (build/linux-7.3, build/linux-6.12). With
# UNSIGNED=1 (an export-series.sh --unsigned, on a machine without a git
# identity) the missing sign-off alone is not reported.
#
# checkpatch.pl looks the commit ids of Fixes: tags up in the tree it runs
# in; Debian's trees are one commit each (tag 'base'), with no upstream
# history, so there every id is "unknown" (UNKNOWN_COMMIT_ID). In such a
# tree that one check is left out, and the TAP says so; in a tree with
# history it runs.
#
# A patch that adds files is warned "does MAINTAINERS need updating?"
# (FILE_PATH_CHANGES) whatever MAINTAINERS already says. That warning is
# left out for a patch only when scripts/get_maintainer.pl of the tree
# finds a maintainer for every file it adds (part 1's AMD test falls under
# PERFORMANCE EVENTS SUBSYSTEM, arch/*/events/*/*); a new file nobody
# maintains still fails.
#
# A patch that passed is remembered (build/checkpatch-cache/): while the
# patch file, the options and the tree it was checked in (its HEAD and
# work tree, checkpatch.pl and what it reads included) are the same, the
# next run reuses the result and says so; anything else runs checkpatch
# again. Remove build/checkpatch-cache/ to run every patch.
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
	dir=${1:-${SERIES_CHECK_OUT:-$BUILD/series-check}}
	echo "# unsigned export (no git identity here): the sign-off is not checked"
else
	dir=${1:-$SERIES_OUT}
fi
[ -d "$dir" ] || die "no export in $dir: run scripts/export-series.sh"

# maintained TREE PATCH: PATCH adds files, and TREE's MAINTAINERS names a
# maintainer for each of them.
maintained() {
	local tree=$1 patch=$2 f one found
	local files
	files=$(awk '/^diff --git /{f=$4} /^new file mode/{sub(/^b\//, "", f); print f}' "$patch")
	[ -n "$files" ] || return 1
	one=$(mktemp)
	for f in $files; do
		printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' \
			"$f" "$f" "$f" > "$one"
		found=$(cd "$tree" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats --no-l --no-r --no-s "$one" 2>/dev/null | head -1)
		[ -n "$found" ] || { rm -f "$one"; return 1; }
	done
	rm -f "$one"
}

# inherited_reuse TREE OUTPUT: succeeds, printing their names, when every
# "Macro argument reuse" of checkpatch's OUTPUT is in a macro that TREE's
# tag 'base' already defines and whose argument it already reuses there.
inherited_reuse() {
	local tree=$1 out=$2 name arg def any=
	while read -r name arg; do
		def=$(git -C "$tree" grep -h -A8 "^#define $name(" base -- arch/x86/events 2>/dev/null |
		      sed '/[^\\]$/q' | tr -d '\\\n')
		[ -n "$def" ] || return 1
		[ "$(echo "$def" | grep -o "\b$arg\b" | wc -l)" -gt 2 ] || return 1
		any+="$name "
	done < <(echo "$out" | awk '
		/CHECK: Macro argument reuse/ { arg = $0; sub(/.*reuse .\047?/, "", arg); sub(/\047.*/, "", arg); want = 1; next }
		want && /^\+#define/ { n = $2; sub(/\(.*/, "", n); print n, arg; want = 0 }')
	[ -n "$any" ] && echo "${any% }"
}

CACHE=$BUILD/checkpatch-cache
mkdir -p "$CACHE"
# tree_key TREE: what of TREE checkpatch depends on, hashed.
tree_key() {
	{ git -C "$1" rev-parse HEAD; git -C "$1" diff HEAD; } | sha256sum | cut -c1-16
}

sets=()
for d in "$dir"/*/; do
	[ -f "$d/0000-cover-letter.patch" ] && sets+=("${d%/}")
done
[ ${#sets[@]} -gt 0 ] || die "no exported series in $dir (no */0000-cover-letter.patch)"

for d in "${sets[@]}"; do
	set_name=$(basename "$d")
	case $set_name in
	"$LTS") tree=$(ksrc "$LTS") ;;
	*) tree=$(ksrc "$MAINLINE") ;;
	esac
	echo "# $set_name: checkpatch.pl of ${tree#"$TOP"/}"
	tkey=$(tree_key "$tree")
	nohist=()
	if [ "$(git -C "$tree" rev-list --count base)" -le 1 ]; then
		nohist=(--ignore UNKNOWN_COMMIT_ID)
		echo "# $set_name: ${tree#"$TOP"/} has no upstream history: the commit ids of Fixes: tags are not looked up (UNKNOWN_COMMIT_ID)"
	fi
	for p in "$d"/[0-9][0-9][0-9][0-9]-*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		n=$((n + 1))
		name=$set_name/$(basename "$p")
		key=$({ echo "$tkey ${ignore[*]} ${nohist[*]}"; cat "$p"; } | sha256sum | cut -c1-16)
		if [ -f "$CACHE/$key" ]; then
			echo "# $name: patch, options and tree unchanged since it passed (key $key): result reused"
			echo "ok $n - checkpatch --strict: $name"
			continue
		fi
		covered=()
		if maintained "$tree" "$p"; then
			covered=(--ignore FILE_PATH_CHANGES)
			echo "# $name: every file it adds has a maintainer (scripts/get_maintainer.pl): FILE_PATH_CHANGES left out"
		fi
		out=$(cd "$tree" && ./scripts/checkpatch.pl --strict "${ignore[@]}" "${nohist[@]}" \
			"${covered[@]}" --showfile "$p" 2>&1) || true
		# A macro argument reused in a macro the tree already defines
		# with that reuse (struct event_constraint's initializers,
		# which part 2 only drops an argument from) is upstream's, not
		# the patch's: then, and only then, MACRO_ARG_REUSE is left out.
		if reused=$(inherited_reuse "$tree" "$out"); then
			echo "# $name: MACRO_ARG_REUSE only in macros the tree defines with that reuse ($reused): left out"
			out=$(cd "$tree" && ./scripts/checkpatch.pl --strict "${ignore[@]}" "${nohist[@]}" \
				"${covered[@]}" --ignore MACRO_ARG_REUSE --showfile "$p" 2>&1) || true
		fi
		total=$(echo "$out" | grep '^total:' || echo "total: checkpatch did not finish")
		if echo "$total" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
			echo "ok $n - checkpatch --strict: $name"
			touch "$CACHE/$key"
		else
			echo "$out" | sed 's/^/# /'
			echo "not ok $n - checkpatch --strict: $name ($total)"
			fail=1
		fi
	done
done
echo "1..$n"
exit $fail
