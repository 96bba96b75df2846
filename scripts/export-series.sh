#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the applied series (base..series of $KSRC) as a mailable
# git format-patch set with a cover letter into build/series/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

count=$(git -C "$KSRC" rev-list --count base..series)
[ "$count" -gt 0 ] || die "no series applied: run scripts/apply-series.sh"

rm -rf "$SERIES_OUT"
git -C "$KSRC" format-patch -q --cover-letter --base=base \
	-o "$SERIES_OUT" base..series

# Subject and blurb of the cover letter come from series/cover-letter.
python3 - "$SERIES_OUT/0000-cover-letter.patch" "$SERIES_DIR/cover-letter" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().split("\n", 2)
subject, blurb = text[0], text[2] if len(text) > 2 else ""
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***", subject)
s = s.replace("*** BLURB HERE ***", blurb.rstrip("\n"))
open(cover, "w").write(s)
PY

echo "series: $count patches and a cover letter in ${SERIES_OUT#"$TOP"/}/"
ls "$SERIES_OUT" | sed 's/^/  /'
