#!/bin/bash
# make bench-loop: the edit-to-verdict loop, ours against kunit.py's, N rounds.
#
# Ours: append a line to build/linux/mm/mshare.c, `make`, boot ./linux with
# one suite (uml/run-linux.sh --tests SUITE).  kunit.py's: append the same
# kind of line to mm/memory.c of a stock tree of its own (build/kunit/linux,
# the same tarball, extracted once), `kunit.py run --arch=um` with its
# default .kunitconfig and its build dir in build/kunit/obj.
#
# The line: by default an unused static definition, which changes what the
# compiler sees as a real edit does.  --edit comment appends a comment
# instead; ccache (ours) then finds the object in its cache, because the
# preprocessor drops comments, and the compile costs nothing: not a real
# edit.  Each round prints its
# totals; the end prints every phase, the medians and their ratio
# (uml/bench_loop.py), then the time of a `make` with nothing changed.
#
# The trees are built once, untimed, before the first round (the kunit tree
# from scratch the first time: several minutes).  Each side of a round holds
# the kernel build lock for its build and its boot (a minute at most), so
# that no other checkout's build runs inside a measurement; the Makefile's
# own flock gets a private lock meanwhile.
#
# Afterwards both edited files hold their old contents again (git status is
# as it was), but with a new mtime: the next make recompiles mm/mshare.c.
#
# usage: bench-loop.sh [--rounds N] [--suite SEL] [--edit code|comment]
#                      [--out DIR] [-- BOOT_ARG...]
# BOOT_ARGs go to ./linux after the suite (default: LOOP_BOOT_ARGS's words).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3
suite=mshare_refcount
edit=code
out=$root/build/bench-loop
read -r -a boot_args <<<"${LOOP_BOOT_ARGS:-}"
lock=${KBUILD_LOCK:-/tmp/mshare-uml-kbuild.lock}
tarball=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
kunit_src=$root/build/kunit/linux
kunit_obj=$root/build/kunit/obj
kunit=$kunit_src/tools/testing/kunit/kunit.py
ours_file=$root/build/linux/mm/mshare.c
kunit_file=$kunit_src/mm/memory.c

die() {
	echo "bench-loop: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--suite) suite=$2; shift 2 ;;
	--edit) edit=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--) shift; boot_args=("$@"); break ;;
	*) die "unknown option $1 (see the usage line in $0)" ;;
	esac
done
case "$rounds" in
'' | *[!0-9]* | 0) die "--rounds wants a whole number above 0, got '$rounds'" ;;
esac
case "$edit" in
code | comment) ;;
*) die "--edit wants code or comment, got '$edit'" ;;
esac
[ -f "$ours_file" ] || die "$ours_file not found: run make first"

# Append round $2's line to file $1.
edit_file() {
	if [ "$edit" = code ]; then
		printf 'static int __maybe_unused bench_loop_round_%d;\n' "$2" >>"$1"
	else
		printf '/* bench-loop round %d */\n' "$2" >>"$1"
	fi
}

# stamp OUT CMD...: run CMD (a child of this shell, in its environment),
# its output lines timed into OUT, its exit status appended; returns it.
stamp() {
	local out=$1 start rc
	shift
	start=$(date +%s.%N)
	"$@" </dev/null 2>&1 | python3 "$root/uml/bench_loop.py" stamp "$out" "$start"
	rc=${PIPESTATUS[0]}
	printf -- '-\tEXIT %d\n' "$rc" >>"$out"
	return "$rc"
}

mkdir -p "$out"
rm -f "$out"/ours-* "$out"/kunit-* "$out"/noop-make
# The Makefile's flock, while this script holds the real lock.
export KBUILD_LOCK=$out/inner.lock

mkdir -p "$kunit_obj"
if [ ! -d "$kunit_src" ]; then
	echo "bench-loop: extracting $tarball into $kunit_src (once)"
	rm -rf "$kunit_src.tmp"
	mkdir -p "$kunit_src.tmp"
	tar -C "$kunit_src.tmp" --strip-components=1 -xf "$tarball"
	mv "$kunit_src.tmp" "$kunit_src"
fi

# Both files get their contents back whatever happens.
cp "$ours_file" "$out/mshare.c.orig"
cp "$kunit_file" "$out/memory.c.orig"
restore() {
	cat "$out/mshare.c.orig" >"$ours_file"
	cat "$out/memory.c.orig" >"$kunit_file"
}
trap restore EXIT

# Run "$@" holding the lock on fd 9 (closed for "$@", so that nothing it
# leaves running keeps the lock); returns its status.
exec 9>>"$lock"
locked() {
	local rc=0
	flock 9
	"$@" 9>&- || rc=$?
	flock -u 9
	return "$rc"
}

echo "bench-loop: load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
echo "bench-loop: building both trees once, untimed (make -> $out/warmup-make.log," \
	"kunit.py -> $out/warmup-kunit.log; the first kunit build takes minutes)"
locked make -C "$root" --no-print-directory >"$out/warmup-make.log" 2>&1 ||
	die "make failed (see $out/warmup-make.log)"
(cd "$kunit_src" && locked python3 "$kunit" run --arch=um --build_dir="$kunit_obj") \
	>"$out/warmup-kunit.log" 2>&1 || die "kunit.py run failed (see $out/warmup-kunit.log)"

ours_round() {
	local i=$1 rc=0
	edit_file "$ours_file" "$i"
	stamp "$out/ours-$i.make" make -C "$root" --no-print-directory || rc=$?
	[ "$rc" -eq 0 ] || return "$rc"
	stamp "$out/ours-$i.boot" bash "$root/uml/run-linux.sh" --timeout 300 \
		--log "$out/ours-$i.console" --tests "$suite" -- "${boot_args[@]}" || rc=$?
	return "$rc"
}

kunit_round() {
	local i=$1
	edit_file "$kunit_file" "$i"
	# kunit.py run configures, builds and boots; the stamp splits it there.
	(cd "$kunit_src" && stamp "$out/kunit-$i.run" python3 "$kunit" run \
		--arch=um --build_dir="$kunit_obj")
}

for i in $(seq 1 "$rounds"); do
	locked ours_round "$i" || die "round $i: make or ./linux failed (see $out/ours-$i.*)"
	locked kunit_round "$i" || die "round $i: kunit.py run failed (see $out/kunit-$i.run)"
	python3 "$root/uml/bench_loop.py" round "$out" "$i"
done
restore
trap - EXIT
echo "bench-loop: load after: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
python3 "$root/uml/bench_loop.py" report "$out" "$rounds"

# The restored mm/mshare.c builds once more; then a make with nothing to do.
locked make -C "$root" --no-print-directory >"$out/warmup-make.log" 2>&1 ||
	die "make failed (see $out/warmup-make.log)"
locked stamp "$out/noop-make" make -C "$root" --no-print-directory
python3 "$root/uml/bench_loop.py" noop "$out/noop-make"
