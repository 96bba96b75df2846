#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the applied series as mailable git format-patch sets, each with a
# cover letter (subject and blurb from its cover-letter file) and
# base-commit / prerequisite-patch-id lines (--base=base):
#
#   OUT/N-NAME/   each mainline part present (scripts/apply-parts.sh): the
#                 commits PREVIOUS..NAME of build/linux-7.3, where PREVIOUS
#                 is the part before it ('base' for part 1); its cover
#                 letter from series/7.3/N-NAME/cover-letter
#   OUT/6.12/     the 6.12 backport: base..series of build/linux-6.12, its
#                 cover letter from series/6.12/cover-letter
#
#   export-series.sh [7.3] [6.12]   (make series) signed off by you into
#                 build/series/: author, From: and Signed-off-by: are your
#                 git identity (git config user.name and user.email);
#                 without one it refuses and exports nothing
#   export-series.sh --unsigned [7.3] [6.12]   no author of yours and no
#                 sign-off, into build/series-check/ (README there: for
#                 make check's checks only, never for mailing), for a
#                 machine without a git identity (CI)
#
# Default: both trees; an export replaces the sets of the trees it exports
# and keeps the other's. The commits of the trees carry a fixed placeholder
# identity (scripts/lib.sh) so that applying the same series always gives
# the same commits; the signed export rewrites them onto the exporter, and
# build/series/ never holds a patch under the placeholder: the export is
# written aside and only moved there once no patch names it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

signed=1
which=()
for a in "$@"; do
	case $a in
	--unsigned) signed=0 ;;
	"$MAINLINE" | "$LTS") which+=("$a") ;;
	*) die "usage: $0 [--unsigned] [$MAINLINE] [$LTS]" ;;
	esac
done
[ ${#which[@]} -gt 0 ] || which=("$MAINLINE" "$LTS")
PLACEHOLDER=$GIT_AUTHOR_EMAIL

if [ $signed -eq 1 ]; then
	OUT=$SERIES_OUT
else
	OUT=${SERIES_CHECK_OUT:-$BUILD/series-check}
	[ "$(realpath -m "$OUT")" != "$(realpath -m "$SERIES_OUT")" ] ||
		die "an unsigned export never goes to ${SERIES_OUT#"$TOP"/}/ (SERIES_CHECK_OUT)"
fi

# The exporter's identity, from git's configuration, not from the fixed
# identity lib.sh puts in the environment.
ident() {
	env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
		-u GIT_COMMITTER_EMAIL git config --get "$1" || true
}
if [ $signed -eq 1 ]; then
	name=$(ident user.name)
	email=$(ident user.email)
	[ -n "$name" ] && [ -n "$email" ] ||
		die "make series signs every patch off with your git identity, and none is set; set it with
  git config --global user.name 'Your Name'
  git config --global user.email you@example.org
and run it again (nothing was exported)"
	[ "$email" != "$PLACEHOLDER" ] ||
		die "your git identity is the placeholder $PLACEHOLDER of the applied commits: set your own (nothing was exported)"
fi

# What to export, checked before anything is written: "DIR TREE FROM TO
# COVER" per set.
sets=()
for w in "${which[@]}"; do
	case $w in
	"$MAINLINE")
		tree=$(ksrc "$MAINLINE")
		mapfile -t present < <(parts)
		[ ${#present[@]} -gt 0 ] || die "no mainline part in ${PARTS_DIR#"$TOP"/}/"
		prev=base
		for p in "${present[@]}"; do
			b=$(part_branch "$p")
			git -C "$tree" rev-parse -q --verify "refs/heads/$b" > /dev/null ||
				die "part ${p%%-*} is not applied (no branch $b in ${tree#"$TOP"/}): run scripts/apply-parts.sh"
			[ "$(git -C "$tree" rev-list --count "$prev..$b")" -gt 0 ] ||
				die "part ${p%%-*} ($b) has no commit over $prev"
			sets+=("$p $tree $prev $b $PARTS_DIR/$p/cover-letter")
			prev=$b
		done
		missing=$(first_missing_part)
		[ -z "$missing" ] || echo "note: part ${missing%%-*} (${missing#*-}) is not there yet: exporting parts 1-${#present[@]}"
		;;
	"$LTS")
		tree=$(ksrc "$LTS")
		git -C "$tree" rev-parse -q --verify refs/heads/series > /dev/null &&
			[ "$(git -C "$tree" rev-list --count base..series)" -gt 0 ] ||
			die "no backport applied in ${tree#"$TOP"/} (branch series): run scripts/apply-series.sh"
		sets+=("$LTS $tree base series $TOP/series/$LTS/cover-letter")
		;;
	esac
done

new=$OUT.new
rm -rf "$new"
mkdir -p "$new"
trap 'rm -rf "$new"' EXIT
if [ $signed -eq 1 ]; then
	export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
	export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
fi
declare -A mapped	# a commit of the tree -> the same commit authored by you
for s in "${sets[@]}"; do
	read -r dir tree from to cover <<< "$s"
	range_from=$from range_to=$to
	if [ $signed -eq 1 ]; then
		# The same trees and messages, authored by the exporter, on top of
		# the exporter's own commits of the parts before.
		tip=$(git -C "$tree" rev-parse "$from^{commit}")
		[ "$from" = base ] || tip=${mapped[$tip]}
		for c in $(git -C "$tree" rev-list --reverse "$from..$to"); do
			tip=$(git -C "$tree" log -1 --format=%B "$c" |
			      git -C "$tree" commit-tree "$c^{tree}" -p "$tip")
			mapped[$c]=$tip
		done
		range_to=$tip
		if [ "$from" != base ]; then
			range_from=${mapped[$(git -C "$tree" rev-parse "$from^{commit}")]}
		fi
	fi
	signoff=()
	[ $signed -eq 1 ] && signoff=(--signoff)
	git -C "$tree" format-patch -q "${signoff[@]}" --cover-letter --base=base \
		-o "$new/$dir" "$range_from..$range_to"
	if [ -f "$cover" ]; then
		python3 - "$new/$dir/0000-cover-letter.patch" "$cover" <<-'PY'
		import sys
		cover, text = sys.argv[1], open(sys.argv[2]).read().split("\n", 2)
		subject, blurb = text[0], text[2] if len(text) > 2 else ""
		s = open(cover).read()
		s = s.replace("*** SUBJECT HERE ***", subject)
		s = s.replace("*** BLURB HERE ***", blurb.rstrip("\n"))
		open(cover, "w").write(s)
		PY
	else
		echo "warning: no cover letter text at ${cover#"$TOP"/}: $dir/0000-cover-letter.patch keeps git's placeholders" >&2
	fi
done

if [ $signed -eq 1 ]; then
	if grep -rl -F "$PLACEHOLDER" "$new" > "$new.placeholder"; then
		sed 's/^/  /' "$new.placeholder" >&2
		rm -f "$new.placeholder"
		die "the export names the placeholder identity $PLACEHOLDER: nothing was written to ${OUT#"$TOP"/}/"
	fi
	rm -f "$new.placeholder"
else
	cat > "$new/README" <<-EOF
	FOR CHECKS ONLY - NOT FOR MAILING.

	An unsigned export of the series (scripts/export-series.sh --unsigned),
	made by make check on a machine without a git identity: the patches carry
	the placeholder author $PLACEHOLDER and no Signed-off-by:. checkpatch
	runs on them with --ignore MISSING_SIGN_OFF, and git am applies them.
	To mail the series, run make series: it writes build/series/, signed off
	with your own git identity.
	EOF
fi
# Replace what this run exported (every mainline part, or the backport),
# keep the other tree's sets of an earlier run.
mkdir -p "$OUT"
rm -f "$OUT"/*.patch	# the flat layout of before the parts
for w in "${which[@]}"; do
	case $w in
	"$MAINLINE") rm -rf "$OUT"/[0-9]-* ;;
	"$LTS") rm -rf "${OUT:?}/$LTS" ;;
	esac
done
for s in "${sets[@]}"; do
	read -r dir _ <<< "$s"
	mv "$new/$dir" "$OUT/$dir"
done
[ $signed -eq 1 ] || mv "$new/README" "$OUT/README"
rm -rf "$new"
trap - EXIT

for s in "${sets[@]}"; do
	read -r dir _ <<< "$s"
	echo "  ${OUT#"$TOP"/}/$dir/: $(find "$OUT/$dir" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | wc -l) patches and a cover letter"
done
if [ $signed -eq 1 ]; then
	echo "series: exported into ${OUT#"$TOP"/}/, signed off by $name <$email>"
else
	echo "series: exported into ${OUT#"$TOP"/}/, UNSIGNED, for checks only (make series signs off into ${SERIES_OUT#"$TOP"/}/)"
fi
