#!/bin/bash
# The mshare lifecycle fuzzer (suite mshare_fuzz, tests/fuzz/) in one
# boot of ./linux: SECONDS of random operations from SEED, then the end-of-run
# checks.  Prints the seed first and a one-line verdict last; the exit status
# is ./linux's (0 only if the fuzzer passed and the kernel log stayed clean).
#
# usage: fuzz.sh [--seconds N] [--seed N] [--faults PERCENT] [--log FILE] [--quiet]
#                [--shard K/N] [--cpus N]
# Without --seed the seed comes from the clock.  --faults: fail-nth fault
# injection on that share of the ops (tests/fuzz/mshare_fuzz_faults.c); the seed
# and the percentage together replay a run.  LINUX is the kernel to boot, as
# for run-linux.sh (default ./linux).  --cpus N: the x86_64 target under qemu
# with N CPUs (uml/run-qemu.sh, KERNEL and INITRD as it reads them) instead
# of ./linux; the agents then run on every CPU.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60
seed=
faults=0
log=$root/build/fuzz.log
quiet=()
shard=
runner=(bash "$root/uml/run-linux.sh")
arch_again=

die() {
	echo "fuzz: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--faults) faults=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--quiet) quiet=(--quiet); shift ;;
	--shard) shard=$2; shift 2 ;;
	--cpus)
		runner=(bash "$root/uml/run-qemu.sh" --cpus "$2")
		arch_again=" ARCH=x86_64 CPUS=$2"
		shift 2 ;;
	*) die "unknown option $1 (see the usage line in $0)" ;;
	esac
done

if [ -n "$shard" ] && [ -z "$seed" ]; then
	die "--shard wants --seed: the campaign's first seed, the same on every runner"
fi
[ -n "$seed" ] || seed=$(($(date +%s%N) / 1000 % 1000000000))
for value in "$seconds" "$seed" "$faults"; do
	case "$value" in
	'' | *[!0-9]*) die "--seconds, --seed and --faults want whole numbers, got '$value'" ;;
	esac
done
[ "$seconds" -gt 0 ] || die "--seconds wants at least 1"
# --shard K/N: the K-th of N runners of one campaign runs seed SEED+K-1,
# so that N runners fuzz N seeds, each replayed by its own line below.
if [ -n "$shard" ]; then
	# K/N as the harness reads harness.shard= (harness/shard.c)
	why=$("$root/build/harness/host-harness" --list_tests --shard "$shard" 2>&1) ||
		die "--shard: ${why%%$'\n'*}"
	echo "fuzz: shard $shard of a campaign from seed $seed: seed $((seed + ${shard%/*} - 1))"
	seed=$((seed + ${shard%/*} - 1))
fi
[ "$faults" -le 100 ] || die "--faults is a percentage, got $faults"

again="SEED=$seed SECONDS=$seconds$arch_again"
with=
if [ "$faults" -gt 0 ]; then
	again="$again FAULTS=1 FAULT_PERCENT=$faults"
	with=", fault injection on $faults% of the ops"
fi
echo "fuzz: seed $seed, $seconds s$with (again: make fuzz $again)"
# Past the run: the boot (~5 s), the end of the run, kmemleak's wait (6 s),
# and up to 20 s for an agent that hangs.
rc=0
"${runner[@]}" "${quiet[@]}" --timeout $((seconds + 120)) \
	--log "$log" --tests mshare_fuzz -- \
	"harness.fuzz_seed=$seed" "harness.fuzz_seconds=$seconds" \
	"harness.fuzz_faults=$faults" || rc=$?

rate=$(grep -m1 '^mshare_fuzz: [0-9]* ops in' "$log" | cut -d';' -f1 || true)
# The fault injection table, when there is one.
grep '^mshare_fuzz: faults:' "$log" | sed 's/^mshare_fuzz: /fuzz: /' || true
if [ "$rc" -eq 0 ]; then
	echo "fuzz: PASS seed $seed$with: ${rate#mshare_fuzz: }"
else
	why=$(grep -m1 '^mshare_fuzz: FAILED at op' "$log" || true)
	echo "fuzz: FAIL seed $seed$with, exit $rc: ${why:-no fuzzer failure; see the harness verdict} (log: $log)"
fi
exit "$rc"
