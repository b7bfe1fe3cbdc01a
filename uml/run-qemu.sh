#!/bin/bash
# Boot the x86_64 kernel (make ARCH=x86_64) once under qemu-system-x86_64,
# as uml/run-linux.sh boots ./linux: console on stdout and in a log file,
# under a timeout, the harness as /init (in build/x86_64/initramfs.cpio), and
# the harness's verdict as the exit status.
#
# usage: run-qemu.sh [--timeout SECONDS] [--log FILE] [--tests SEL[,SEL]]
#                    [--results HOSTDIR] [--cpus N] [--quiet]
#                    [--] [KERNEL_ARG...]
#        run-qemu.sh --skipped-suites
#
# KVM when a guest boots with it (uml/qemu/kvm-probe.py), TCG otherwise;
# ACCEL=tcg forces TCG.  The CPU is the host's (KVM) or qemu's "max" (TCG)
# without LA57: 4-level paging, where a v2 region is PGDIR_SIZE, 512 GiB.
# LA57=on gives the CPU LA57, and the kernel 5-level paging: a region is
# then 256 TiB, above the 128 TiB below which mmap() without a hint
# places anything (a KVM host's CPU must have LA57 itself).  The first
# line of the log says which.  MEM_MB is
# the guest's memory (default 1024).  QEMU_GDB_PORT: qemu's gdb stub on
# that port of 127.0.0.1, the guest stopped until gdb continues it
# (uml/qemu/gdb.sh).
#
# Disks as ./linux has them, virtio-blk from sparse host files made here
# and removed afterwards: /dev/vda, a swap area, and /dev/vdb, a scratch
# disk of zeroes (SWAP_MB, SCRATCH_MB).  --results exports HOSTDIR over
# virtio-9p (tag "results"); the harness mounts it for its results files.
# The host's / is exported (tag "hostroot") for the programs of make prog
# and mshare_run (harness/host_root.c), as hostfs gives ./linux the host's /;
# mshare_run.dir= tells the harness where mshare-run is built.
#
# Under TCG a run without --tests leaves out the suites of
# uml/qemu/tcg-skip.txt (one a line, its reason after it; '#' comments),
# printed, and reported by the harness as skipped (harness.skip=): they
# take minutes each when every instruction is emulated.  With KVM, or
# when --tests names them, they run.  --skipped-suites boots nothing: it
# prints the suites a run without --tests would leave out, a line each,
# the suite and its reason separated by a tab (nothing under KVM).
#
# The harness writes its exit code to qemu's isa-debug-exit port; qemu then
# exits with 2 * code + 1.  Any other end (a panic: panic=-1 and -no-reboot
# make qemu exit; a power-off without a code) is no verdict.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/x86_64
kernel=${KERNEL:-$out/obj/arch/x86/boot/bzImage}
initrd=${INITRD:-$out/initramfs.cpio}
timeout=900
log=$out/run.log
tests=
results=
quiet=
cpus=2
tcg_skip=$root/uml/qemu/tcg-skip.txt
list_skipped=

die() {
	echo "run-qemu: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--skipped-suites) list_skipped=1; shift ;;
	--) shift; break ;;
	*) die "unknown option $1 (see the usage line in $0)" ;;
	esac
done

[ -r "$kernel" ] || die "$kernel not found; run make ARCH=x86_64 first"
[ -r "$initrd" ] || die "$initrd not found; run make ARCH=x86_64 first"
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 not found; make deps installs Debian's qemu-system-x86"
for n in "$timeout" "$cpus" "${MEM_MB:-1024}"; do
	case "$n" in
	'' | *[!0-9]*) die "--timeout, --cpus and MEM_MB want whole numbers, got '$n'" ;;
	esac
done

la57=${LA57:-off}
case "$la57" in
on | off) ;;
*) die "LA57 wants on (5-level paging) or off, got '$la57'" ;;
esac
kvm_accel=(-accel kvm -cpu "host,la57=$la57")
tcg_accel=(-accel tcg -cpu "max,la57=$la57")
if [ "${ACCEL:-}" = tcg ]; then
	accel=("${tcg_accel[@]}")
	accel_why="tcg: forced by ACCEL=tcg"
elif accel_why=$(python3 "$root/uml/qemu/kvm-probe.py" --kernel "$kernel" \
		--cache "$out/kvm-probe.cache" -- "${kvm_accel[@]}"); then
	accel=("${kvm_accel[@]}")
else
	accel=("${tcg_accel[@]}")
fi
# What TCG leaves out of a run without --tests: "SUITE<TAB>reason" lines.
tcg_skipped=
if [ "${accel[1]}" = tcg ]; then
	tcg_skipped=$(grep -v '^#' "$tcg_skip" | awk 'NF')
fi
if [ -n "$list_skipped" ]; then
	[ -z "$tcg_skipped" ] || printf '%s\n' "$tcg_skipped"
	exit 0
fi
skip=
if [ -z "$tests" ] && [ -n "$tcg_skipped" ]; then
	skip=$(cut -f1 <<<"$tcg_skipped" | paste -sd, -)
fi

mkdir -p "$(dirname "$log")"
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

read -r -a args < <(grep -v '^#' "$root/uml/qemu/boot.args")
[ -n "$tests" ] && args+=("harness.run=$tests")
[ -n "$skip" ] && args+=("harness.skip=$skip")
# shellcheck disable=SC2054 # qemu's option values have commas of their own
qemu=(qemu-system-x86_64 "${accel[@]}" -smp "$cpus" -m "${MEM_MB:-1024}"
	-kernel "$kernel" -initrd "$initrd"
	-machine q35 -display none -monitor none -serial stdio -nic none -no-reboot
	-device isa-debug-exit,iobase=0xf4,iosize=0x04)

if [ -n "${QEMU_GDB_PORT:-}" ]; then
	qemu+=(-gdb "tcp:127.0.0.1:$QEMU_GDB_PORT" -S)
fi

# Sparse files: they cost the host nothing until written.
swap_disk=$workdir/swap.img
scratch_disk=$workdir/scratch.img
truncate -s "${SWAP_MB:-256}M" "$swap_disk"
mkswap -q "$swap_disk" >/dev/null
truncate -s "${SCRATCH_MB:-16}M" "$scratch_disk"
qemu+=(-drive "file=$swap_disk,format=raw,if=virtio"
	-drive "file=$scratch_disk,format=raw,if=virtio")
if [ -n "$results" ]; then
	mkdir -p "$results"
	results=$(cd "$results" && pwd)
	qemu+=(-virtfs "local,path=$results,mount_tag=results,security_model=none")
	args+=("harness.results=$results")
fi
qemu+=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none")
args+=("mshare_run.dir=$root/build/mshare-run")
args+=("$@")

{
	echo "run-qemu: $cpus CPUs, $([ "$la57" = on ] && echo 5 || echo 4)-level paging, ${accel_why}"
	if [ -n "$skip" ]; then
		echo "run-qemu: tcg: leaving out the suites of ${tcg_skip#"$root"/}:"
		echo "run-qemu:   ${tcg_skipped//$'\n'/$'\n'run-qemu:   }"
	fi
	echo "run-qemu: ${qemu[*]} -append '${args[*]}'"
} >"$log"
[ -n "$quiet" ] || cat "$log"

# timeout(1) signals qemu's whole process group; no core files.
ulimit -c 0
set +e
if [ -n "$quiet" ]; then
	timeout --kill-after=10 "$timeout" "${qemu[@]}" -append "${args[*]}" \
		</dev/null >>"$log" 2>&1
else
	timeout --kill-after=10 "$timeout" "${qemu[@]}" -append "${args[*]}" \
		</dev/null 2>&1 | tee -a "$log"
	(exit "${PIPESTATUS[0]}")
fi
status=$?
set -e

report() {
	echo "run-qemu: $*" >&2
	echo "run-qemu: last lines of $log:" >&2
	tail -n 25 "$log" | sed 's/^/  | /' >&2
}

if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
	report "FAIL: qemu did not exit within ${timeout}s (hang or timeout)"
	exit 124
fi
if ! grep -q '^harness: verdict ' "$log"; then
	report "FAIL: the harness gave no verdict (qemu exited $status: kernel panic or harness crash)"
	exit 1
fi
# isa-debug-exit: 2 * code + 1.  Anything else came from elsewhere.
if [ $((status % 2)) -eq 1 ]; then
	exit $(((status - 1) / 2))
fi
report "FAIL: the harness gave a verdict but qemu exited $status, not through isa-debug-exit"
exit 1
