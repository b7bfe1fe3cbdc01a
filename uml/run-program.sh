#!/bin/bash
# Run a program of your own inside ./linux, as a test: one boot with the
# harness's explicit-only suite user_program (tests/user_program.c), which
# runs PROG with the host's root directory as its root (so a program built
# on the host runs as it is), the guest's /proc, /sys (msharefs on
# /sys/fs/mshare), /dev and /dev/shm over it, swap on the runner's
# swap disk (/dev/ubda) and the scratch disk at /dev/ubdb.  Exits with
# ./linux's status: 0 when PROG exited 0 and the kernel log stayed clean.
#
# usage: run-program.sh [--timeout SECONDS] [--log FILE] [--cpus N]
#                       [--mem SIZE] PROG [ARG...]
# PROG and its working directory are the caller's; an argument may hold
# no comma, blank or quote (the kernel command line carries them).
# --cpus N: inside the x86_64 target under qemu with N CPUs instead
# (uml/run-qemu.sh, which exports the host's root; its disks are /dev/vda
# and /dev/vdb).
# --mem SIZE: the guest's memory (e.g. 3G) instead of uml/boot.args's:
# mem=SIZE after it on ./linux's command line (the last mem= wins), or
# MEM_MB for qemu.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
timeout=600
log=$root/build/program.log
runner=(bash "$root/uml/run-linux.sh")
mem=

die() {
	echo "run-program: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--cpus) runner=(bash "$root/uml/run-qemu.sh" --cpus "$2"); shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see the usage line in $0)" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "usage: $0 [--timeout SECONDS] [--log FILE] PROG [ARG...]"
case "$timeout" in
'' | *[!0-9]* | 0) die "--timeout wants whole seconds, got '$timeout'" ;;
esac

prog=$1
case "$prog" in
*/*) ;;
*) prog=$(type -P "$1") || die "$1: not found in PATH" ;;
esac
if [ ! -f "$prog" ] || [ ! -x "$prog" ]; then
	die "$prog: not an executable file"
fi
prog=$(realpath "$prog")
shift
cwd=$(pwd -P)

argv=$prog
for arg in "$prog" "$cwd" "$@"; do
	case "$arg" in
	*[,\ \	\"\']* | '')
		die "'$arg': the kernel command line cannot carry an empty word or one with a comma, blank or quote" ;;
	esac
done
for arg in "$@"; do
	argv=$argv,$arg
done

mem_args=()
if [ -n "$mem" ]; then
	mem_mb=$(numfmt --from=iec --to-unit=Mi "$mem" 2>/dev/null) ||
		die "--mem wants a size such as 3G or 1536M, got '$mem'"
	case "${runner[1]}" in
	*/run-qemu.sh) export MEM_MB=$mem_mb ;;
	*) mem_args=("mem=${mem_mb}M") ;;
	esac
fi

# The boot lasts the program's timeout, plus a minute for boot and power-off.
exec "${runner[@]}" --timeout $((timeout + 60)) --log "$log" \
	--tests user_program -- "user_program.argv=$argv" \
	"user_program.cwd=$cwd" "user_program.timeout=$timeout" "${mem_args[@]}"
