#!/bin/bash
# The mshare lifecycle fuzzer (suite mshare_fuzz, tests/mshare_fuzz*.c) in one
# boot of ./linux: SECONDS of random operations from SEED, then the end-of-run
# checks.  Prints the seed first and a one-line verdict last; the exit status
# is ./linux's (0 only if the fuzzer passed and the kernel log stayed clean).
#
# usage: fuzz.sh [--seconds N] [--seed N] [--log FILE] [--quiet]
# Without --seed the seed comes from the clock.  LINUX is the kernel to boot,
# as for run-linux.sh (default ./linux).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60
seed=
log=$root/build/fuzz.log
quiet=()

die() {
	echo "fuzz: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--quiet) quiet=(--quiet); shift ;;
	*) die "unknown option $1 (see the usage line in $0)" ;;
	esac
done

[ -n "$seed" ] || seed=$(($(date +%s%N) / 1000 % 1000000000))
for value in "$seconds" "$seed"; do
	case "$value" in
	'' | *[!0-9]*) die "--seconds and --seed want whole numbers, got '$value'" ;;
	esac
done
[ "$seconds" -gt 0 ] || die "--seconds wants at least 1"

echo "fuzz: seed $seed, $seconds s (again: make fuzz SEED=$seed SECONDS=$seconds)"
# Past the run: the boot (~5 s), the end of the run, kmemleak's wait (6 s),
# and up to 20 s for an agent that hangs.
rc=0
bash "$root/uml/run-linux.sh" "${quiet[@]}" --timeout $((seconds + 120)) \
	--log "$log" --tests mshare_fuzz -- \
	"harness.fuzz_seed=$seed" "harness.fuzz_seconds=$seconds" || rc=$?

rate=$(grep -m1 '^mshare_fuzz: [0-9]* ops in' "$log" | cut -d';' -f1 || true)
if [ "$rc" -eq 0 ]; then
	echo "fuzz: PASS seed $seed: ${rate#mshare_fuzz: }"
else
	why=$(grep -m1 '^mshare_fuzz: FAILED at op' "$log" || true)
	echo "fuzz: FAIL seed $seed, exit $rc: ${why:-no fuzzer failure; see the harness verdict} (log: $log)"
fi
exit "$rc"
