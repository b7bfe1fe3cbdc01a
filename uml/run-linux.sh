#!/bin/bash
# Boot ./linux once: console on stdout and in a log file, under a timeout, in
# a process group of its own that is gone afterwards.  Exits with ./linux's
# status (the harness verdict written to /proc/exitcode), or non-zero with the
# last lines of the log when the kernel panicked, hung or timed out.
#
# usage: run-linux.sh [--timeout SECONDS] [--log FILE] [--tests SEL[,SEL]]
#                     [--results HOSTDIR] [--quiet] [--] [KERNEL_ARG...]
# LINUX_WRAPPER, if set, is a command ./linux runs under, e.g.
# "setarch x86_64 -R" (no host ASLR: repeatable memory figures).
#
# Every boot gets two block devices, host files made here and removed
# afterwards: /dev/ubda, a swap area (mkswap; the tests that swap turn it
# on and off themselves), and /dev/ubdb, a scratch disk of zeroes (O_DIRECT
# to and from memory).  Their sizes: SWAP_MB, SCRATCH_MB.
# /dev/tty1 is a console whose host end goes away: its input (con1=fd:4) is
# a pipe whose writer closes it when the guest has written a byte to its
# output (fd 5, a FIFO to that writer, which then reads to the end).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
linux=${LINUX:-$root/linux}
read -r -a wrapper <<<"${LINUX_WRAPPER:-}"
timeout=900
log=$root/build/run.log
tests=
results=
quiet=

die() {
	echo "run-linux: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--) shift; break ;;
	*) die "unknown option $1 (see the usage line in $0)" ;;
	esac
done

[ -x "$linux" ] || die "$linux not found or not executable; run make first"
case "$timeout" in
'' | *[!0-9]*) die "--timeout wants whole seconds, got '$timeout'" ;;
esac

mkdir -p "$(dirname "$log")"
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
# UML keeps a pid file and its mconsole socket in uml_dir; a killed run
# leaves them behind, so each run gets its own, removed afterwards.
uml_dir=$workdir/uml
mkdir "$uml_dir"
read -r -a args < <(grep -v '^#' "$root/uml/boot.args")
args+=("uml_dir=$uml_dir")

# Sparse files: they cost the host nothing until written.
swap_disk=$workdir/swap.img
scratch_disk=$workdir/scratch.img
truncate -s "${SWAP_MB:-256}M" "$swap_disk"
mkswap -q "$swap_disk" >/dev/null
truncate -s "${SCRATCH_MB:-16}M" "$scratch_disk"
args+=("ubd0=$swap_disk" "ubd1=$scratch_disk")
# /dev/tty1, the uml_console suite's: a console whose host input goes away
# once the guest has written a byte to it (fds 4 and 5 below).
args+=("con1=fd:4,fd:5")
# Where tests/mshare_run.c finds the launcher it runs, on the host's root.
args+=("mshare_run.dir=$root/build/mshare-run")
[ -n "$tests" ] && args+=("harness.run=$tests")
if [ -n "$results" ]; then
	mkdir -p "$results"
	args+=("harness.results=$(cd "$results" && pwd)")
fi
args+=("$@")

fifo=$workdir/console
mkfifo "$fifo"
tty1_out=$workdir/tty1-out
mkfifo "$tty1_out"

if [ -n "$quiet" ]; then
	tee "$log" <"$fifo" >/dev/null &
else
	tee "$log" <"$fifo" &
fi
tee_pid=$!

# timeout(1) puts itself and ./linux in a new process group and signals the
# whole group, which reaches the host processes UML forks for its guest's
# processes.  No core files from a panicking UML.
ulimit -c 0
exec 3>"$fifo"
echo "run-linux: ${wrapper[*]:+${wrapper[*]} }$linux ${args[*]}" >&3
# shellcheck disable=SC2094 # tty1_out is a FIFO: ./linux writes, the helper reads
timeout --kill-after=10 "$timeout" "${wrapper[@]}" "$linux" "${args[@]}" </dev/null >&3 2>&1 \
	4< <({ head -c 1 >/dev/null; exec >&-; exec cat >/dev/null; } <"$tty1_out") \
	5>"$tty1_out" &
group=$!
exec 3>&-
set +e
wait "$group"
status=$?
set -e
wait "$tee_pid" || true

# Whatever UML left behind in its group (a helper of a panicked kernel) goes.
if pgrep -g "$group" >/dev/null 2>&1; then
	echo "run-linux: killing leftover host processes: $(pgrep -g "$group" | tr '\n' ' ')" >&2
	kill -KILL -- "-$group" 2>/dev/null || true
fi

report() {
	echo "run-linux: $*" >&2
	echo "run-linux: last lines of $log:" >&2
	tail -n 25 "$log" | sed 's/^/  | /' >&2
}

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	report "FAIL: no power-off within ${timeout}s (hang or timeout)"
	exit 124
fi
if ! grep -q '^harness: verdict ' "$log"; then
	report "FAIL: the harness gave no verdict (exit status $status: kernel panic or harness crash)"
	[ "$status" -ne 0 ] || status=1
	exit "$status"
fi
exit "$status"
