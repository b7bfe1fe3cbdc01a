#!/bin/bash
# Apply mm-patches/series one patch at a time onto the base commit, in a
# worktree of its own (build/linux and its objects stay untouched), and build
# ./linux after each: every prefix of the series must build.  checkpatch.pl
# --strict runs on each patch; errors fail it, warnings are listed.
#
# usage: check-series.sh SRC_DIR OBJ_DIR SERIES_FILE FRAGMENT...
set -eu

src=$1
obj=$2
series=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
patchdir=$(cd "$(dirname "$series")" && pwd)
work=$root/build/series-src
jobs=$(nproc)

die() {
	echo "check-series: $*" >&2
	exit 1
}

kmake() {
	flock "${KBUILD_LOCK:-/tmp/mshare-uml-kbuild.lock}" make -C "$work" O="$obj" ARCH=um SUBARCH=x86_64 \
		CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs" "$@"
}

configure() {
	mkdir -p "$obj"
	kmake -s defconfig
	(cd "$work" && ARCH=um SUBARCH=x86_64 scripts/kconfig/merge_config.sh \
		-m -O "$obj" "$obj/.config" "$@" "$root/uml/check-series.config" >/dev/null)
	kmake -s olddefconfig
}

build_prefix() {
	local label=$1
	echo "check-series: building $label"
	if ! kmake -s linux >"$obj/build.log" 2>&1; then
		tail -n 30 "$obj/build.log" >&2
		die "the series does not build after $label"
	fi
	if grep -E 'warning:' "$obj/build.log" | grep -v '^make' >&2; then
		die "$label adds compiler warnings (listed above)"
	fi
}

[ -d "$src/.git" ] || die "$src is not prepared; run make first"
git -C "$src" worktree remove --force "$work" 2>/dev/null || rm -rf "$work"
git -C "$src" worktree prune
git -C "$src" worktree add -q --detach "$work" base
configure "$@"
build_prefix "the base commit"

errors=0
n=0
while read -r patch; do
	n=$((n + 1))
	git -C "$work" am -q "$patchdir/$patch" ||
		die "$patch does not apply"
	summary=$(perl "$work/scripts/checkpatch.pl" --strict --terse \
		"$patchdir/$patch" | tail -n 1)
	echo "check-series: $patch: checkpatch: $summary"
	# --terse prints nothing at all for a patch without any finding.
	case "$summary" in
	"" | *" 0 errors"*) ;;
	*) errors=$((errors + 1)) ;;
	esac
	# A patch may add Kconfig options the fragments select.
	configure "$@"
	build_prefix "$n: $patch"
done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$series")

git -C "$src" worktree remove --force "$work"
[ "$errors" -eq 0 ] || die "$errors patches have checkpatch errors"
echo "check-series: all $n prefixes build"
