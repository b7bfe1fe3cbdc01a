#!/bin/bash
# ./linux under batch gdb, for the checks that drive it (gdb-check.sh,
# halt-check.sh): the project's gdbinit, the GDB_OPTIONs given, one harness
# test selected, the boot arguments of uml/boot.args and a uml_dir of its
# own.  Paths in the options are relative to the top of the tree.  Exits
# with gdb's status.
#
# usage: gdb-run.sh LOG TEST [GDB_OPTION...]
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
log=$(realpath -m "$1")
test=$2
shift 2
cd "$root"

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
read -r -a args < <(grep -v '^#' uml/boot.args)

timeout --kill-after=10 600 gdb -q -batch -x gdbinit "$@" \
	--args ./linux "${args[@]}" "uml_dir=$workdir" "harness.run=$test" \
	</dev/null >"$log" 2>&1
