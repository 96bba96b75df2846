#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the workbench itself, in TAP: a series that does not apply is
# refused with the patch and file named and the tree left as it was, a
# diff may not edit a file that the series adds as a new file unless it is
# a backport-*.patch, the series written back from its applied branch is
# the series, and the export signs off with the exporter's identity or
# refuses without one.
# Then the mainline parts (when build/linux-7.3 is there): a part that
# does not apply is refused with the part, patch and file named, and
# neither the tree nor any part's branch changes; the parts present stop
# at the first missing one; re-applying them touches no file; the export
# writes a signed set per part, an unsigned one only into
# build/series-check/; and the git am check catches an export that is not
# the applied part.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

head_before=$(git -C "$KSRC" rev-parse HEAD)
status_before=$(git -C "$KSRC" status --porcelain | wc -l)

# copy NAME: a copy of the series to break, with the series beside it
# (a backport names patches of another series by ../ paths); prints the
# copy's series directory.
copy() {
	cp -r "$(dirname "$SERIES_DIR")" "$tmp/$1"
	echo "$tmp/$1/$(basename "$SERIES_DIR")"
}

# 1. Break a context line of the second patch's first hunk.
broken=$(copy broken)
p2=$(grep -v '^[#[:space:]]' "$broken/series" | grep . | sed -n 2p)
f2=$(sed -n 's|^+++ b/||p' "$broken/$p2" | head -1)
awk '/^@@ / { h = 1 } h && !done && /^ ./ { $0 = $0 "  // changed"; done = 1 } 1' \
	"$broken/$p2" > "$tmp/p2" && cat "$tmp/p2" > "$broken/$p2"
SERIES_DIR=$broken "$TOP/scripts/apply-series.sh" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ]; result $? "a patch that does not apply is refused"
grep -qF "patch $p2 does not apply to $f2" "$tmp/out"
result $? "the error names the patch and the file"
[ "$(git -C "$KSRC" rev-parse HEAD)" = "$head_before" ] &&
	[ "$(git -C "$KSRC" status --porcelain | wc -l)" = "$status_before" ]
result $? "the tree is left exactly as it was"

# 2. A diff that edits a file the series adds is refused.
edit_new_file() {
	local f=arch/x86/events/counter_match.h
	printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,4 +1,4 @@\n' \
		"$f" "$f" "$f" "$f"
	sed -n '1s/^/-/p' "$TOP/$f"
	echo '+/* SPDX-License-Identifier: GPL-2.0-only */'
	sed -n '2,4s/^/ /p' "$TOP/$f"
}
twice=$(copy twice)
edit_new_file >> "$twice/$p2"
SERIES_DIR=$twice "$TOP/scripts/apply-series.sh" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ] && grep -q "edits arch/x86/events/counter_match.h, a new file" "$tmp/out"
result $? "a diff of a file the series adds is refused"

# 2a. The same edit as a patch of its own at the end of the series: only
#     a backport-*.patch may make it. The accepted one is applied to a
#     scratch branch, deleted after; the work tree is not touched.
adapt() {
	local sd=$1 name=$2
	printf 'Adapt a new file\n\nA test of apply-series.sh.\n---\n' > "$sd/$name"
	edit_new_file >> "$sd/$name"
	echo "$name" >> "$sd/series"
}
other=$(copy other)
adapt "$other" 0099-not-a-backport.patch
SERIES_DIR=$other "$TOP/scripts/apply-series.sh" --branch lts-test-backport \
	--no-checkout > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ] && grep -q "0099-not-a-backport.patch edits arch/x86/events/counter_match.h, a new file" "$tmp/out" &&
	! git -C "$KSRC" rev-parse -q --verify lts-test-backport > /dev/null
result $? "a patch not named backport-* still may not edit a new file"
bp=$(copy backport)
adapt "$bp" backport-test-adapt.patch
SERIES_DIR=$bp "$TOP/scripts/apply-series.sh" --branch lts-test-backport \
	--no-checkout > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -eq 0 ] &&
	git -C "$KSRC" show lts-test-backport:arch/x86/events/counter_match.h |
	head -1 | grep -qx '/\* SPDX-License-Identifier: GPL-2.0-only \*/'
result $? "a backport-*.patch may edit a new file"
git -C "$KSRC" branch -q -D lts-test-backport > /dev/null 2>&1

# 3. Applying the real series again changes nothing in the work tree.
before=$(stat -c %Y "$KSRC/arch/x86/events/core.c")
"$TOP/scripts/apply-series.sh" > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(stat -c %Y "$KSRC/arch/x86/events/core.c")" = "$before" ]
result $? "re-applying an unchanged series touches no file"

# 4. Writing the series back from its own branch changes nothing: the
#    patches round-trip through git (scripts/update-series.sh).
back=$(copy back)
for f in $(sed -n 's/^[[:space:]]\+//p' "$SERIES_DIR/series"); do
	mkdir -p "$tmp/top/$(dirname "$f")"
	cp "$TOP/$f" "$tmp/top/$f"
done
SERIES_DIR=$back FILES_DIR=$tmp/top "$TOP/scripts/update-series.sh" "$KSRC" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
same=0
for f in $(sed -n 's/^[[:space:]]\+//p' "$SERIES_DIR/series"); do
	cmp -s "$TOP/$f" "$tmp/top/$f" || { echo "# new file $f written back changed"; same=1; }
done
[ $rc -eq 0 ] && [ ! -s "$tmp/out" ] && [ $same -eq 0 ] &&
	diff -r "$(dirname "$SERIES_DIR")" "$tmp/back" > /dev/null
result $? "update-series.sh writes the applied series back unchanged"

# 4a. A patch reused from another series (a ../ path) is never written
#     back: when the branch no longer matches it, update-series.sh says so
#     and writes nothing.
reused=$(grep '^\.\./' "$SERIES_DIR/series" | head -1)
if [ -n "$reused" ]; then
	stale=$(copy stale)
	sed -i '1s/$/ (changed)/' "$stale/$reused"
	cp -r "$stale/.." "$tmp/stale-before"
	SERIES_DIR=$stale FILES_DIR=$tmp/top "$TOP/scripts/update-series.sh" "$KSRC" > "$tmp/out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/out"
	[ $rc -ne 0 ] && grep -qF "is no longer $reused" "$tmp/out" &&
		diff -r "$tmp/stale-before" "$stale/.." > /dev/null
	result $? "update-series.sh refuses a branch that no longer matches a reused patch, and writes nothing"
fi

# 5. make series refuses to export without a git identity, and leaves
#    what was there.
mkdir -p "$tmp/export"
echo keep > "$tmp/export/marker"
printf '' > "$tmp/noident"
GIT_CONFIG_GLOBAL=$tmp/noident GIT_CONFIG_NOSYSTEM=1 SERIES_OUT=$tmp/export \
	"$TOP/scripts/export-series.sh" $LTS > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ] && grep -q "git identity" "$tmp/out" && [ -f "$tmp/export/marker" ]
result $? "export-series.sh without a git identity refuses and exports nothing"

# 6. With one, every patch is from the exporter and signed off by the
#    exporter, and no placeholder identity is left anywhere.
printf '[user]\n\tname = Test Exporter\n\temail = exporter@test.invalid\n' > "$tmp/ident"
GIT_CONFIG_GLOBAL=$tmp/ident GIT_CONFIG_NOSYSTEM=1 SERIES_OUT=$tmp/export \
	"$TOP/scripts/export-series.sh" $LTS > "$tmp/out" 2>&1
rc=$?
ok=$rc
total=0
for p in "$tmp"/export/$LTS/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	total=$((total + 1))
	grep -q '^From: Test Exporter <exporter@test.invalid>$' "$p" &&
		grep -q '^Signed-off-by: Test Exporter <exporter@test.invalid>$' "$p" ||
		{ echo "# $(basename "$p"): no From: or Signed-off-by: of the exporter"; ok=1; }
done
if grep -rl "$GIT_AUTHOR_EMAIL" "$tmp"/export > "$tmp/placeholder"; then
	sed 's/^/# placeholder identity in /' "$tmp/placeholder"
	ok=1
fi
[ $ok -eq 0 ] && [ $total -eq "$(git -C "$KSRC" rev-list --count base..series)" ]
result $? "export-series.sh signs off all $total patches with the exporter's identity"


# 7. An unsigned export never goes to build/series/.
GIT_CONFIG_GLOBAL=$tmp/noident GIT_CONFIG_NOSYSTEM=1 SERIES_OUT=$tmp/export \
	SERIES_CHECK_OUT=$tmp/export "$TOP/scripts/export-series.sh" --unsigned $LTS > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ] && [ "$(grep -rl "$GIT_AUTHOR_EMAIL" "$tmp/export" | wc -l)" -eq 0 ]
result $? "an unsigned export into build/series/ is refused"
GIT_CONFIG_GLOBAL=$tmp/noident GIT_CONFIG_NOSYSTEM=1 SERIES_CHECK_OUT=$tmp/check \
	"$TOP/scripts/export-series.sh" --unsigned $LTS > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "FOR CHECKS ONLY" "$tmp/check/README" &&
	[ -f "$tmp/check/$LTS/0000-cover-letter.patch" ]
result $? "an unsigned export goes to its own folder, whose README says it is for checks only"

# The mainline parts.
T73=$(ksrc "$MAINLINE")
if ! git -C "$T73" rev-parse -q --verify base > /dev/null 2>&1 || [ -z "$(parts)" ]; then
	echo "ok $((n + 1)) - mainline parts # SKIP no $MAINLINE tree or no part here"
	n=$((n + 1))
	echo "1..$n"
	exit 0
fi
# refs: every part branch and HEAD, to compare before and after.
refs() {
	local b
	for b in "${PART_NAMES[@]}"; do
		echo "$b $(git -C "$T73" rev-parse -q --verify "refs/heads/$b")"
	done
	echo "HEAD $(git -C "$T73" symbolic-ref -q HEAD) $(git -C "$T73" rev-parse HEAD)"
	git -C "$T73" status --porcelain | wc -l
}
refs_before=$(refs)
first=$(parts | head -1)

# 8. A part that does not apply: part 1 with a changed message (its branch
#    would move) and a part 2 that does not apply on it (part 1's first
#    patch again). Refused, part, patch and file named, nothing changed.
mkdir -p "$tmp/parts"
cp -r "$PARTS_DIR/$first" "$tmp/parts/$first"
p1=$(grep -v '^[#[:space:]]' "$PARTS_DIR/$first/series" | grep . | head -1)
last=$(grep -v '^[#[:space:]]' "$PARTS_DIR/$first/series" | grep . | tail -1)
sed -i '1s/$/ (changed)/' "$tmp/parts/$first/$last"
mkdir -p "$tmp/parts/2-matcher"
cp "$PARTS_DIR/$first/$p1" "$tmp/parts/2-matcher/$p1"
echo "$p1" > "$tmp/parts/2-matcher/series"
file=$(sed -n 's|^+++ b/||p' "$PARTS_DIR/$first/$p1" | head -1)
PARTS_DIR=$tmp/parts "$TOP/scripts/apply-parts.sh" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ]; result $? "a part that does not apply is refused"
grep -q "part 2 (matcher): patch $p1 does not apply to $file" "$tmp/out" &&
	grep -q "part 2 (matcher) does not apply" "$tmp/out"
result $? "the error names the part, the patch and the file"
[ "$(refs)" = "$refs_before" ]
result $? "the $MAINLINE tree and every part's branch are left exactly as they were"

# 9. The parts present stop at the first missing one.
rm -rf "$tmp/parts"
mkdir -p "$tmp/parts"
cp -r "$PARTS_DIR/$first" "$tmp/parts/$first"
mkdir -p "$tmp/parts/3-ht"
echo "# nothing" > "$tmp/parts/3-ht/series"
[ "$(PARTS_DIR=$tmp/parts parts | xargs)" = "$first" ] &&
	[ "$(PARTS_DIR=$tmp/parts first_missing_part)" = 2-matcher ]
result $? "the parts present stop at the first missing one (part 3 without part 2: part 1 only)"

# 10. Re-applying the unchanged parts touches no file (with the branch
#     checked out as it is, so that a developer's tree is not switched).
head=$(git -C "$T73" symbolic-ref -q --short HEAD)
co=none
[[ " ${PART_NAMES[*]} " == *" $head "* ]] && co=$head
files=$(git -C "$T73" diff --name-only base "$(series_branch)" | head -50)
stamp() { (cd "$T73" && for f in $files; do stat -c '%n %Y %i' "$f" 2>/dev/null; done); }
before=$(stamp)
"$TOP/scripts/apply-parts.sh" --checkout $co > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -eq 0 ] && [ "$(stamp)" = "$before" ] && [ "$(refs)" = "$refs_before" ]
result $? "re-applying the unchanged parts changes no commit and touches no file (checked out: $co)"

# 11. The signed export of the parts: a set per part, every patch from and
#     signed off by the exporter, the base recorded, no placeholder.
GIT_CONFIG_GLOBAL=$tmp/ident GIT_CONFIG_NOSYSTEM=1 SERIES_OUT=$tmp/export \
	"$TOP/scripts/export-series.sh" $MAINLINE > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
ok=$rc
for p in $(parts); do
	b=$(part_branch "$p")
	prev=base
	[ "$p" = "$first" ] || prev=$(part_branch "$(parts | grep -B1 "^$p\$" | head -1)")
	count=$(find "$tmp/export/$p" -name '0*.patch' ! -name '0000-*' 2>/dev/null | wc -l)
	[ "$count" -eq "$(git -C "$T73" rev-list --count "$prev..$b")" ] ||
		{ echo "# $p: $count patches exported"; ok=1; }
	grep -q "^base-commit: $(git -C "$T73" rev-parse base)$" "$tmp/export/$p/0000-cover-letter.patch" ||
		{ echo "# $p: no base-commit line"; ok=1; }
	for f in "$tmp/export/$p"/0*.patch; do
		case $f in */0000-cover-letter.patch) continue ;; esac
		grep -q '^From: Test Exporter <exporter@test.invalid>$' "$f" &&
			grep -q '^Signed-off-by: Test Exporter <exporter@test.invalid>$' "$f" ||
			{ echo "# $p/$(basename "$f"): no From: or Signed-off-by: of the exporter"; ok=1; }
	done
done
grep -rq "$GIT_AUTHOR_EMAIL" "$tmp/export" && { echo "# placeholder identity in the export"; ok=1; }
[ -d "$tmp/export/$LTS" ] || { echo "# the backport's set of the run before is gone"; ok=1; }
[ $ok -eq 0 ]
result $? "the parts' export: a set per part, signed off by the exporter, base recorded, the backport's set kept"

# 12. The git am check passes on that export, and fails on an export that
#     lacks a patch of part 1.
"$TOP/scripts/check-parts.sh" "$tmp/export" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out" | grep -v 'cover letter'
grep -q "^not ok.*git am\|^not ok.*tree after" "$tmp/out"
[ $? -ne 0 ]
result $? "check-parts.sh: every part of the export applies with git am and gives its branch's tree"
rm -f "$tmp/export/$first/$(ls "$tmp/export/$first" | grep -v '^0000-' | tail -1)"
"$TOP/scripts/check-parts.sh" "$tmp/export" > "$tmp/out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "^not ok.*part 1 .*the tree after git am is the tree of branch" "$tmp/out"
result $? "check-parts.sh: an export without part 1's last patch fails (not the tree of the branch)"

echo "1..$n"
