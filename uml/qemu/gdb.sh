#!/bin/bash
# make gdb ARCH=x86_64: boot the x86_64 kernel under qemu with its gdb stub,
# the guest stopped before its first instruction, and attach gdb to it with
# the kernel's lx- helpers and the mshare commands, stopped in
# find_shared_vma when the selected test faults into a region.  qemu's
# console goes to build/x86_64/gdb-run.log; it ends with gdb.
#
# usage: gdb.sh [TESTS] [-- GDB_ARG...]
# GDB_PORT: the stub's port on 127.0.0.1 (default 1234).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
tests=${1:-}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
port=${GDB_PORT:-1234}
log=$root/build/x86_64/gdb-run.log
cd "$root"

qemu_args=(--timeout 86400 --quiet --log "$log")
[ -n "$tests" ] && qemu_args+=(--tests "$tests")
QEMU_GDB_PORT=$port bash uml/run-qemu.sh "${qemu_args[@]}" &
qemu_pid=$!
trap 'kill "$qemu_pid" 2>/dev/null || true; wait "$qemu_pid" 2>/dev/null || true' EXIT
echo "gdb: qemu's console in $log"

# The stub listens once qemu has started; wait for it, at most 10 s.
# (Not by connecting: the stub would take that for gdb.)
for _ in $(seq 100); do
	[ -n "$(ss -Hltn "sport = :$port")" ] && break
	sleep 0.1
done
gdb -q -x uml/qemu/gdbinit -ex "target remote 127.0.0.1:$port" \
	-ex mshare-break -ex continue "$@" build/x86_64/obj/vmlinux
