#!/bin/bash
# make coverage: build the test kernel with UML's gcov in build/coverage/obj,
# run the suite and a short fuzz run on it, and turn the .gcda files it
# writes at power-off into lcov's HTML (build/coverage/html) and a summary
# of the lines and branches reached in mm/mshare.c and arch/um/kernel/tlb.c.
#
# usage: coverage.sh SRC FUZZ_SECONDS FRAGMENT...
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
src=$1
fuzz_seconds=$2
shift 2
out=$root/build/coverage
obj=$out/obj
cfg=$root/uml/coverage/coverage.config
kmake=(flock "$KBUILD_LOCK" make -C "$src" O="$obj" ARCH=um SUBARCH=x86_64
	CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)")
lcov_opts=(--quiet --rc lcov_branch_coverage=1)

mkdir -p "$obj"
"${kmake[@]}" -s defconfig
(cd "$src" && ARCH=um SUBARCH=x86_64 scripts/kconfig/merge_config.sh -m \
	-O "$obj" "$obj/.config" "$@" "$cfg" >/dev/null)
"${kmake[@]}" -s olddefconfig
sh "$root/uml/check-config.sh" "$obj/.config" "$@" "$cfg"

# gcc 12's libgcov.a defines mangle_path(), as fs/seq_file.c does: the link
# fails with "multiple definition of `mangle_path'".  Link a copy with
# libgcov's renamed, found first through LIBRARY_PATH (gcc appends
# MACHINE/VERSION to each of its directories).
gcovlib=$out/gcov/$(gcc -dumpmachine)/$(gcc -dumpversion)
mkdir -p "$gcovlib"
objcopy --redefine-sym mangle_path=__gcov_mangle_path \
	"$(gcc -print-file-name=libgcov.a)" "$gcovlib/libgcov.a"
LIBRARY_PATH=$out/gcov "${kmake[@]}" linux

# Counters of earlier runs would add up: start from none.
find "$obj" -name '*.gcda' -delete
echo "coverage: the suite"
LINUX=$obj/linux bash "$root/uml/run-linux.sh" --quiet --timeout 1800 \
	--log "$out/suite.log" || echo "coverage: the suite failed (see $out/suite.log); counting anyway"
echo "coverage: $fuzz_seconds s of the fuzzer, seed 1"
LINUX=$obj/linux bash "$root/uml/fuzz.sh" --quiet --seconds "$fuzz_seconds" \
	--seed 1 --log "$out/fuzz.log" || echo "coverage: the fuzz run failed (see $out/fuzz.log); counting anyway"

# geninfo's own warnings (Debian's lcov 1.16 with gcc 12) go to lcov.log.
lcov "${lcov_opts[@]}" --capture --directory "$obj/mm" \
	--directory "$obj/arch/um/kernel" --directory "$obj/fs" \
	--output-file "$out/all.info" 2>"$out/lcov.log"
lcov "${lcov_opts[@]}" --extract "$out/all.info" '*/mm/mshare.c' \
	'*/mm/memory.c' '*/arch/um/kernel/tlb.c' --output-file "$out/mshare.info"
rm -rf "$out/html"
genhtml "${lcov_opts[@]}" --branch-coverage --output-directory "$out/html" \
	"$out/mshare.info"
echo "coverage: HTML in $out/html/index.html"
for file in mm/mshare.c arch/um/kernel/tlb.c mm/memory.c; do
	echo "coverage: $file"
	lcov "${lcov_opts[@]}" --extract "$out/mshare.info" "*/$file" \
		--output-file "$out/one.info"
	lcov --rc lcov_branch_coverage=1 --summary "$out/one.info" 2>&1 |
		grep -E '^ *(lines|branches)' | sed 's/^ */coverage:   /'
done
