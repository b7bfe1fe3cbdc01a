#!/bin/bash
# The mm selftests inside a UML kernel, compared with another kernel's.
#
# Builds the selftests of SRC (uml/selftests-build.sh), boots LINUX with
# harness.run=mm_selftests (tests/mm_selftests.c runs each binary under a
# timeout, the kernel log watch on), and boots again for the binaries after
# one under which the kernel died or hung; then parses every boot's console
# into OUT/results.tsv (uml/selftests/results.py) and prints the side-by-side
# table of BASE_RESULTS and FULL_RESULTS (uml/selftests/compare.py), also
# written to OUT/table.md.  Exits non-zero if the comparison fails.
#
# usage: selftests.sh --src SRC --linux LINUX --out OUT
#                     --base BASE_RESULTS --full FULL_RESULTS
#                     [--boot-timeout SECONDS] [--quiet]
# One of BASE_RESULTS and FULL_RESULTS is normally OUT/results.tsv.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
boot_timeout=3600
quiet=
src=''
linux=''
out=''
base=''
full=''

while [ $# -gt 0 ]; do
	case "$1" in
	--src) src=$2; shift 2 ;;
	--linux) linux=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--full) full=$2; shift 2 ;;
	--boot-timeout) boot_timeout=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	*) echo "selftests: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in src linux out base full; do
	[ -n "${!v}" ] || { echo "selftests: --$v is required" >&2; exit 2; }
done

bash "$root/uml/selftests-build.sh" "$src" "$out"
bin=$(cd "$out/bin" && pwd)
rm -rf "$out/boots"
mkdir -p "$out/boots"

boots=()
sel=mm_selftests
n=0
start=$(date +%s)
while [ -n "$sel" ]; do
	n=$((n + 1))
	log=$out/boots/boot$n.log
	echo "selftests: boot $n: harness.run=$sel"
	rc=0
	# mem=3G: mremap_test maps 2 GiB at once, which the default overcommit
	# heuristic refuses with less memory than that.
	LINUX=$linux bash "$root/uml/run-linux.sh" ${quiet:+--quiet} \
		--timeout "$boot_timeout" --log "$log" --tests "$sel" -- \
		mem=3G "mm_selftests.dir=$bin" >/dev/null 2>&1 || rc=$?
	boots+=("$log:$rc")
	grep -E '^MMST [^ ]+: end ' "$log" | tr -d '\r' | sed 's/^/  /' || true
	logs=("${boots[@]%:*}")
	if grep -q '^harness: verdict ' "$log"; then
		sel=
	else
		echo "selftests: boot $n ended without a verdict (exit $rc)"
		if ! grep -q '^MMST [^ ]*: begin' "$log"; then
			echo "selftests: boot $n ran no selftest; giving up (see $log)"
			break
		fi
		sel=$(python3 "$root/uml/selftests/results.py" remaining "${logs[@]}")
	fi
done
echo "selftests: $n boot(s), $(($(date +%s) - start)) s"

note="$(git -C "$src" rev-list --count base..HEAD) patches on"
note+=" $(git -C "$src" log -1 --format=%s base), the last: $(git -C "$src" log -1 --format=%s)"
python3 "$root/uml/selftests/results.py" tsv --note "$note" -o "$out/results.tsv" "${boots[@]}"
python3 "$root/uml/selftests/compare.py" --base "$base" --full "$full" \
	--expect "$root/uml/selftests/base-expected.tsv" -o "$out/table.md"
