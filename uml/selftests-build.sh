#!/bin/bash
# Build the mm selftests of a kernel tree, static, for the UML guest (x86_64
# userspace): the tree's x86 UAPI headers (make headers, out of tree), then
# tools/testing/selftests/mm with make -k, so that one binary that does not
# build does not stop the others.  Prints the binaries that did not build;
# which of them run, and why the others do not, is tests/mm_selftests.c and
# docs/selftests.md.
#
# usage: selftests-build.sh SRC_DIR OUT_DIR
#   OUT_DIR/hdr: the headers' objects; OUT_DIR/bin: the binaries;
#   OUT_DIR/build.log: the compiler's output.
set -eu

src=$1
out=$2
mm=$src/tools/testing/selftests/mm
log=$out/build.log

[ -d "$mm" ] || { echo "selftests-build: $mm not found" >&2; exit 1; }
mkdir -p "$out/hdr" "$out/bin"
out=$(cd "$out" && pwd)
log=$out/build.log

echo "selftests-build: UAPI headers of $src (ARCH=x86)"
make -s -C "$src" ARCH=x86 O="$out/hdr" headers >"$log" 2>&1 || {
	cat "$log" >&2
	exit 1
}
echo "selftests-build: $mm -> $out/bin (static)"
# check_config.sh writes local_config.{h,mk} into the source directory (they
# are in its .gitignore).  make -k: the exit status says nothing we need, the
# list below does.
make -k -C "$mm" -j"$(nproc)" OUTPUT="$out/bin" \
	KHDR_INCLUDES="-isystem $out/hdr/usr/include" USERLDFLAGS=-static \
	>>"$log" 2>&1 || true

missing=()
while read -r name; do
	[ -x "$out/bin/$name" ] || missing+=("$name")
done < <(make -s -C "$mm" OUTPUT="$out/bin" --no-print-directory \
	-f Makefile -f - print-gen-files <<'EOF'
print-gen-files:
	@printf '%s\n' $(notdir $(TEST_GEN_FILES))
EOF
)
echo "selftests-build: $(find "$out/bin" -maxdepth 1 -type f -executable | wc -l) built;" \
	"not built: ${missing[*]:-none} (see $log)"
