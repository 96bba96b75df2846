#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the workbench itself, in TAP: a series that does not apply is
# refused with the patch and file named and the tree left as it was, a
# diff may not edit a file that the series adds as a new file, the
# series written back from its applied branch is the series, and the
# export signs off with the exporter's identity or refuses without one.
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

# 1. Break a context line of the second patch's core.c hunk.
cp -r "$SERIES_DIR" "$tmp/broken"
p2=$(sed -n '/^0002-/p' "$tmp/broken/series")
sed -i '0,/^ \tstatic_call_cond(x86_pmu_start_scheduling)(cpuc);$/s//&  \/\/ changed/' "$tmp/broken/$p2"
SERIES_DIR=$tmp/broken "$TOP/scripts/apply-series.sh" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ]; result $? "a patch that does not apply is refused"
grep -q "patch $p2 does not apply to arch/x86/events/core.c" "$tmp/out"
result $? "the error names the patch and the file"
[ "$(git -C "$KSRC" rev-parse HEAD)" = "$head_before" ] &&
	[ "$(git -C "$KSRC" status --porcelain | wc -l)" = "$status_before" ]
result $? "the tree is left exactly as it was"

# 2. A diff that edits a file the series adds is refused.
cp -r "$SERIES_DIR" "$tmp/twice"
cat >> "$tmp/twice/$p2" <<'DIFF'
diff --git a/arch/x86/events/counter_match.h b/arch/x86/events/counter_match.h
--- a/arch/x86/events/counter_match.h
+++ b/arch/x86/events/counter_match.h
@@ -1 +1 @@
-/* SPDX-License-Identifier: GPL-2.0 */
+/* SPDX-License-Identifier: GPL-2.0-only */
DIFF
SERIES_DIR=$tmp/twice "$TOP/scripts/apply-series.sh" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -ne 0 ] && grep -q "edits arch/x86/events/counter_match.h, a new file" "$tmp/out"
result $? "a diff of a file the series adds is refused"

# 3. Applying the real series again changes nothing in the work tree.
before=$(stat -c %Y "$KSRC/arch/x86/events/core.c")
"$TOP/scripts/apply-series.sh" > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(stat -c %Y "$KSRC/arch/x86/events/core.c")" = "$before" ]
result $? "re-applying an unchanged series touches no file"

# 4. Writing the series back from its own branch changes nothing: the
#    patches round-trip through git (scripts/update-series.sh).
cp -r "$SERIES_DIR" "$tmp/back"
for f in $(sed -n 's/^[[:space:]]\+//p' "$SERIES_DIR/series"); do
	mkdir -p "$tmp/top/$(dirname "$f")"
	cp "$TOP/$f" "$tmp/top/$f"
done
SERIES_DIR=$tmp/back FILES_DIR=$tmp/top "$TOP/scripts/update-series.sh" "$KSRC" > "$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
[ $rc -eq 0 ] && [ ! -s "$tmp/out" ] && diff -r "$SERIES_DIR" "$tmp/back" > /dev/null
result $? "update-series.sh writes the applied series back unchanged"

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
