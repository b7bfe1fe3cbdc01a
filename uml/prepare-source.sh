#!/bin/bash
# Make build/linux a git tree of Debian's linux-source-6.12 with the
# mm-patches series applied by git am, one commit per patch.
#
# The tree is the developer's workspace: it is extracted once, and later runs
# only re-apply the patches that changed.  Local commits or edits are never
# thrown away: if the series changed underneath them, we stop and say so.
#
# With --seed, only the patches above the seed marker line of the series are
# applied (the faithful port, without the fixes of its defects below it): the
# series file and its patches are read where they are.  With --base, only the
# patches before the first one whose subject starts "mm/mshare" (the um:
# platform patches): the base kernel the mm selftests are compared with.
#
# usage: prepare-source.sh [--seed|--base] TARBALL SRC_DIR SERIES_FILE
set -eu

# The line of the series that ends the seed (uml/export-patches.sh keeps it).
SEED_MARKER='# seed ends here'
seed_only=
base_only=
if [ "${1:-}" = --seed ]; then
	seed_only=1
	shift
elif [ "${1:-}" = --base ]; then
	base_only=1
	shift
fi
tarball=$1
src=$2
series=$3
patchdir=$(dirname "$series")
state=$src/.git/mshare-uml-applied	# "sha256-of-patch commit" per line

die() {
	echo "prepare-source: $*" >&2
	exit 1
}

extract() {
	[ -r "$tarball" ] || die "$tarball not found: install Debian's" \
		"linux-source-6.12 package (make deps does it as root)"
	local tmp=$src.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	echo "prepare-source: extracting $tarball"
	tar -C "$tmp" --strip-components=1 -xf "$tarball"
	# Debian's tarball appends "ignore everything at the top level" to
	# .gitignore; drop that block so new files (mm/mshare.c) can be added.
	sed -i '/^# Debian packaging/,$d' "$tmp/.gitignore"
	git -C "$tmp" init -q -b mshare
	if [ -z "$(git config user.email || true)" ]; then
		# Only commits of this local tree; no person is named.
		git -C "$tmp" config user.name "mshare-uml build"
		git -C "$tmp" config user.email "build@mshare-uml.invalid"
	fi
	git -C "$tmp" add -A
	git -C "$tmp" commit -q -m "Linux $(make -s -C "$tmp" kernelversion) from $(basename "$tarball")" \
		-m "Debian's top-level ignore-everything block is dropped from .gitignore."
	git -C "$tmp" tag base
	: >"$tmp/.git/mshare-uml-applied"
	mv "$tmp" "$src"
}

# The lines of the series before its first mm/mshare patch.
base_lines() {
	local line
	while IFS= read -r line; do
		case "$line" in
		'#'* | '') ;;
		*) grep -q '^Subject: \(\[PATCH[^]]*\] \)\?mm/mshare' "$patchdir/$line" && return ;;
		esac
		printf '%s\n' "$line"
	done <"$series"
}

# The series, or its seed part: the lines above the seed marker, or its base.
series_lines() {
	if [ -n "$seed_only" ]; then
		sed "/^$SEED_MARKER/,\$d" "$series"
	elif [ -n "$base_only" ]; then
		base_lines
	else
		cat "$series"
	fi
}

series_patches() {
	series_lines | grep -v -e '^#' -e '^[[:space:]]*$' || true
}

# Print the commit that the longest unchanged prefix of the series ended at,
# and how many patches that prefix holds.  One sha256sum for every patch and
# one read of the state: this runs at every make.
unchanged_prefix() {
	local n=0 commit patch recorded
	local -a patches applied
	local -A sums=()
	commit=$(git -C "$src" rev-parse base)
	mapfile -t patches < <(series_patches)
	mapfile -t applied <"$state"
	if [ "${#patches[@]}" -gt 0 ]; then
		while read -r sum patch; do
			sums[$patch]=$sum
		# A patch that is missing gets no sum: the prefix ends there.
		done < <(cd "$patchdir" && { sha256sum -- "${patches[@]}" 2>/dev/null || true; })
	fi
	for patch in "${patches[@]}"; do
		recorded=${applied[n]:-}
		[ -n "${sums[$patch]:-}" ] || break
		[ "${recorded%% *}" = "${sums[$patch]}" ] || break
		commit=${recorded#* }
		n=$((n + 1))
	done
	echo "$commit $n"
}

last_applied() {
	if [ -s "$state" ]; then
		tail -n 1 "$state" | cut -d' ' -f2
	else
		git -C "$src" rev-parse base
	fi
}

check_no_local_work() {
	if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
		die "mm-patches changed but $src has uncommitted edits;" \
			"commit them and run 'make export-patches', or discard them"
	fi
	if [ "$(git -C "$src" rev-parse HEAD)" != "$(last_applied)" ]; then
		die "mm-patches changed but $src has commits that are not in" \
			"mm-patches; run 'make export-patches' or reset them"
	fi
}

apply_series() {
	local prefix commit n i=0 patch sum
	prefix=$(unchanged_prefix)
	commit=${prefix% *}
	n=${prefix#* }
	local total
	total=$(series_patches | wc -l)
	if [ "$n" -eq "$total" ] && [ "$(wc -l <"$state")" -eq "$total" ]; then
		return 0	# series unchanged since the last run
	fi
	check_no_local_work
	git -C "$src" reset -q --hard "$commit"
	head -n "$n" "$state" >"$state.new"
	while read -r patch; do
		i=$((i + 1))
		[ "$i" -le "$n" ] && continue
		[ -r "$patchdir/$patch" ] || die "$series names $patch, not found"
		echo "prepare-source: applying $patch"
		if ! git -C "$src" am -q --keep-cr "$(realpath "$patchdir/$patch")"; then
			git -C "$src" am --abort || true
			mv "$state.new" "$state"
			die "patch $patch does not apply to $(git -C "$src" log -1 --format=%s)"
		fi
		sum=$(sha256sum <"$patchdir/$patch" | cut -d' ' -f1)
		echo "$sum $(git -C "$src" rev-parse HEAD)" >>"$state.new"
	done < <(series_patches)
	mv "$state.new" "$state"
}

[ -r "$series" ] || die "series file $series not found"
if [ -n "$seed_only" ] && ! grep -q "^$SEED_MARKER" "$series"; then
	die "--seed: $series has no line starting with '$SEED_MARKER'"
fi
[ -d "$src/.git" ] || extract
apply_series
echo "prepare-source: Linux $(make -s -C "$src" kernelversion)" \
	"($(dpkg-query -W -f='${Package} ${Version}' linux-source-6.12 2>/dev/null || echo "$tarball")," \
	"$(wc -l <"$state") patches from $series${seed_only:+, the seed part}${base_only:+, the base part})"
