#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the applied series (base..series of $KSRC) as a mailable
# git format-patch set with a cover letter into build/series/:
#
#   export-series.sh             signed off by you: author, From: and
#                                Signed-off-by: are your git identity
#                                (git config user.name and user.email);
#                                without one it refuses and exports nothing
#   export-series.sh --unsigned  no author of yours and no sign-off: for
#                                checkpatch in make check on a machine
#                                without a git identity, never for mailing
#
# The commits of $KSRC carry a fixed placeholder identity (scripts/lib.sh)
# so that applying the same series always gives the same commits; the
# export rewrites them onto the exporter, whose sign-off the patches need.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

signed=1
case ${1:-} in
--unsigned) signed=0 ;;
"") ;;
*) die "usage: $0 [--unsigned]" ;;
esac

count=$(git -C "$KSRC" rev-list --count base..series)
[ "$count" -gt 0 ] || die "no series applied: run scripts/apply-series.sh"

# The exporter's identity, from git's configuration, not from the fixed
# identity lib.sh puts in the environment.
ident() {
	env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
		-u GIT_COMMITTER_EMAIL git -C "$KSRC" config --get "$1" || true
}
tip=series
if [ $signed -eq 1 ]; then
	name=$(ident user.name)
	email=$(ident user.email)
	[ -n "$name" ] && [ -n "$email" ] ||
		die "make series signs every patch off with your git identity, and none is set; set it with
  git config --global user.name 'Your Name'
  git config --global user.email you@example.org
and run it again (nothing was exported)"
	export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
	export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
	# The same trees and messages, authored by the exporter.
	tip=base
	for c in $(git -C "$KSRC" rev-list --reverse base..series); do
		tip=$(git -C "$KSRC" log -1 --format=%B "$c" |
		      git -C "$KSRC" commit-tree "$c^{tree}" -p "$tip")
	done
fi

rm -rf "$SERIES_OUT"
signoff=()
[ $signed -eq 1 ] && signoff=(--signoff)
git -C "$KSRC" format-patch -q "${signoff[@]}" --cover-letter --base=base \
	-o "$SERIES_OUT" "base..$tip"

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

if [ $signed -eq 1 ]; then
	echo "series: $count patches and a cover letter in ${SERIES_OUT#"$TOP"/}/, signed off by $name <$email>"
else
	echo "series: $count patches and a cover letter in ${SERIES_OUT#"$TOP"/}/, UNSIGNED (for checkpatch only; make series signs off)"
fi
ls "$SERIES_OUT" | sed 's/^/  /'
