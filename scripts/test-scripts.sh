#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the workbench itself, in TAP: a series that does not apply is
# refused with the patch and file named and the tree left as it was, a
# diff may not edit a file that the series adds as a new file unless it is
# a backport-*.patch, the series written back from its applied branch is
# the series, and the export signs off with the exporter's identity or
# refuses without one.
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
	"$TOP/scripts/export-series.sh" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ] && grep -q "git identity" "$tmp/out" && [ -f "$tmp/export/marker" ]
result $? "export-series.sh without a git identity refuses and exports nothing"

# 6. With one, every patch is from the exporter and signed off by the
#    exporter, and no placeholder identity is left anywhere.
printf '[user]\n\tname = Test Exporter\n\temail = exporter@test.invalid\n' > "$tmp/ident"
GIT_CONFIG_GLOBAL=$tmp/ident GIT_CONFIG_NOSYSTEM=1 SERIES_OUT=$tmp/export \
	"$TOP/scripts/export-series.sh" > "$tmp/out" 2>&1
rc=$?
ok=$rc
total=0
for p in "$tmp"/export/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	total=$((total + 1))
	grep -q '^From: Test Exporter <exporter@test.invalid>$' "$p" &&
		grep -q '^Signed-off-by: Test Exporter <exporter@test.invalid>$' "$p" ||
		{ echo "# $(basename "$p"): no From: or Signed-off-by: of the exporter"; ok=1; }
done
if grep -l "$GIT_AUTHOR_EMAIL" "$tmp"/export/*.patch > "$tmp/placeholder"; then
	sed 's/^/# placeholder identity in /' "$tmp/placeholder"
	ok=1
fi
[ $ok -eq 0 ] && [ $total -eq "$(git -C "$KSRC" rev-list --count base..series)" ]
result $? "export-series.sh signs off all $total patches with the exporter's identity"

echo "1..$n"
