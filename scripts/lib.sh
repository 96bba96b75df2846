# SPDX-License-Identifier: GPL-2.0
# Common settings for the scripts: where things are, how progress is shown.
# Sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# Debian's kernel trees as git (scripts/prepare-tree.sh): tag 'base'.
ksrc() { echo "$BUILD/linux-$1"; }
MAINLINE=7.3			# the tree the parts are against
LTS=6.12			# the tree of the backport
KSRC=${KSRC:-$(ksrc $LTS)}	# the backport's tree: branch 'series'
KBUILD=$BUILD/kunit		# kernel build outputs (O=) for the QEMU kernel
RESULTS=$BUILD/results		# one TAP file per test step
SERIES_OUT=${SERIES_OUT:-$BUILD/series}	# git format-patch output
SERIES_DIR=${SERIES_DIR:-$TOP/series/$LTS}
JOBS=${JOBS:-$(nproc)}

# Fixed identity and dates: the same series always gives the same commits,
# so a second run finds nothing changed and rebuilds nothing.
export GIT_AUTHOR_NAME="x86 PMU scheduler maintainers"
export GIT_AUTHOR_EMAIL="x86-pmu-sched@example.org"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-11-01T00:00:00Z"
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

step() {
	printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# install_missing PACKAGE...: install those of Debian's packages that are
# not installed yet (as root, or through sudo), saying which.
install_missing() {
	local p missing=() sudo=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	step "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq &&
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}
