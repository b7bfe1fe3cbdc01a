#!/bin/bash
# Everything `make test` (and CI) checks: the stages of ./linux and of the
# x86_64 target as jobs, JOBS of them side by side (one boot per core), the
# longest first; each suite split into JOBS parts (harness.shard) whose
# results files are merged into one.  Each stage says PASS or FAIL with the
# reason and its time as it ends; the last line counts them, and the exit
# status is non-zero if any stage failed.
#
# usage: test.sh [--arch um|x86_64|all] [--jobs N] [--shard K/N]
# um: ./linux's stages; x86_64: the qemu target's (uml/run-qemu.sh); all
# (make test's default): both.  --jobs: how many boots at once (default:
# the CPUs).  --shard K/N: the K-th of N runners' share (a CI matrix, see
# docs/running-tests.md): every stage runs in one shard of N, each suite
# part in one; uml/merge-results.py puts the shards' results together.
set -eu

arch=all
jobs=$(nproc)
shard=1/1
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) arch=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--shard) shard=$2; shift 2 ;;
	*) echo "test: unknown option '$1' (usage: test.sh [--arch um|x86_64|all] [--jobs N] [--shard K/N])" >&2; exit 2 ;;
	esac
done
case "$arch" in
um | x86_64 | all) ;;
*) echo "test: --arch um, x86_64 or all, not '$arch'" >&2; exit 2 ;;
esac
case "$jobs" in
'' | *[!0-9]* | 0) echo "test: --jobs wants a number of boots at once (1 or more), not '$jobs'" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
run=$root/uml/run-linux.sh
host_harness=$root/build/harness/host-harness
# K/N as the harness reads harness.shard= (harness/shard.c says what is wrong).
if ! why=$("$host_harness" --list_tests --shard "$shard" 2>&1); then
	echo "test: --shard: ${why%%$'\n'*}" >&2
	exit 2
fi
shard_index=${shard%/*}
shard_count=${shard#*/}
kunit=$root/build/linux/tools/testing/kunit/kunit.py
out=$root/build/test
mkdir -p "$out"
passed=0
failed=0
# FUZZ_SECONDS: how long the fuzz stage runs; FUZZ_SEED: from which seed.
# A fixed seed keeps CI's verdict about the tree, not about the draw;
# `make fuzz` draws new seeds.
fuzz_seconds=${FUZZ_SECONDS:-30}
# Under qemu (TCG where there is no KVM) a shorter run: X86_FUZZ_SECONDS.
x86_fuzz_seconds=${X86_FUZZ_SECONDS:-15}
fuzz_seed=${FUZZ_SEED:-1}
# The fuzzer again with fault injection on FUZZ_FAULT_PERCENT of its ops.
fuzz_faults_seconds=${FUZZ_FAULTS_SECONDS:-20}
fuzz_fault_percent=${FUZZ_FAULT_PERCENT:-20}

# The boots that check something else than leaks (negative controls,
# selection) run without kmemleak: its cost, and its 5 s wait before the
# end-of-run scan, buy them nothing.  The suite's boots keep it.
no_kmemleak=kmemleak=off

# A stage's time: since the previous stage's result (stages run one after
# another, each ending with its result).
stage_clock=$SECONDS
stage_result() {
	local name=$1 ok=$2 why=$3 took=$((SECONDS - stage_clock))
	stage_clock=$SECONDS
	if [ "$ok" = yes ]; then
		passed=$((passed + 1))
		echo "test: PASS $name (${took} s)"
	else
		failed=$((failed + 1))
		echo "test: FAIL $name (${took} s): $why"
	fi
}

# The documentation (uml/check-docs.py): every table that
# uml/docs_tables.py generates (the seed table, the suites, the map) is what
# it prints now, every relative link of README.md, docs/*.md and
# harness/README.md resolves, and README's map names every docs/*.md.
# Quick, and no kernel: the suites come from the host build of the harness.
stage_docs() {
	local rc=0 log=$out/docs.log
	echo "test: == docs: generated tables up to date, relative links resolve =="
	python3 "$root/uml/check-docs.py" --host-harness "$host_harness" >"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		tail -n 1 "$log"
		stage_result docs yes ""
	else
		cat "$log"
		stage_result docs no "see the check-docs lines above (make docs writes the tables again)"
	fi
}

# A suite's parts: this runner's JOBS parts of the suite of every shard,
# harness.shard=P/T with T = JOBS x the shards (every runner of a CI matrix
# must pass the same JOBS: merge-results.py names any test that no part
# ran).  part_spec J: the harness.shard= of this runner's J-th part.
part_spec() {
	echo "$(((shard_index - 1) * jobs + $1))/$((shard_count * jobs))"
}

# What a part ran, for the log: the shard line and the counts; a part
# that failed adds its console's last lines (CUnit's failure list).
part_summary() {
	local log=$1 rc=$2
	grep -E '^harness: ([0-9]+ passed|shard |skipping suite)' "$log" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" | sed 's/^/  | /'
	fi
}

# One part of a suite: a boot of RUNNER... with harness.shard=P/T, its
# console and results files (CUnit XML, KTAP, JUnit) in DIR.  NAME: the
# stage's; TITLE: what boots; KERNEL_ARGS: more words for its command
# line (none: "").
run_suite_part() {
	local name=$1 title=$2 part=$3 dir=$4 spec rc=0
	local -a kernel_args
	read -r -a kernel_args <<<"$5"
	shift 5
	spec=$(part_spec "$part")
	echo "test: == $title, part $spec: its share of every test =="
	rm -rf "$dir"
	mkdir -p "$dir"
	"$@" --quiet --log "$dir/console.log" --results "$dir/results" \
		-- "harness.shard=$spec" "${kernel_args[@]}" || rc=$?
	# run-qemu.sh's lines: KVM or TCG, and the suites TCG leaves out.
	grep '^run-qemu: ' "$dir/console.log" | grep -v '^run-qemu: qemu-system' || true
	part_summary "$dir/console.log" "$rc"
	if [ "$rc" -eq 0 ]; then
		stage_result "$name-part-$part" yes ""
	else
		stage_result "$name-part-$part" no "the boot exited $rc (see $dir/console.log)"
	fi
}

# The suites that write more than all of memory to push pages to swap:
# their time grows with the boot's memory (106 s for one case at mem=768M,
# 21 s at 256M), so each part runs them in a boot of its own with less.
ram_filling_suites=um_swap_pressure,mshare_kill_swap
ram_filling_mem=mem=256M
# Every other suite (the harness's "-SUITE" leaves one out)
not_ram_filling=-${ram_filling_suites//,/,-}

# The kinds of boot a part of ./linux's suite is: the part's directory
# under build/test/suite, then its selection (harness.run=; none: "").
suite_kinds=("part=$not_ram_filling" "small-ram-part=$ram_filling_suites")

stage_suite_part() {
	run_suite_part suite "suite: ./linux" "$1" "$out/suite/part-$1" \
		"harness.run=$not_ram_filling" bash "$run"
}

stage_suite_small_ram_part() {
	run_suite_part suite-small-ram "suite: ./linux $ram_filling_mem, $ram_filling_suites" \
		"$1" "$out/suite/small-ram-part-$1" \
		"harness.run=$ram_filling_suites $ram_filling_mem" bash "$run"
}

# The parts' results files merged into one KTAP and one JUnit file in DIR
# (uml/merge-results.py), checked against the plan: every test of the
# parts' selections has a result, none has two.  KINDS: the parts' kinds
# of boot, "SUBDIR=SELECTION" as suite_kinds.
merge_parts() {
	local name=$1 parts_dir=$2 dir=$3 part kind sel plan=$2/plan.txt log=$2/merge.log
	local -a results=()
	shift 3
	for kind; do
		sel=${kind#*=}
		for part in $(seq 1 "$jobs"); do
			"$host_harness" --list_tests --shard "$(part_spec "$part")" \
				${sel:+--run "$sel"}
			results+=("$parts_dir/${kind%%=*}-$part/results")
		done
	done >"$plan.parts"
	# The parts' tests in the order of one whole run.
	"$host_harness" --list_tests | grep -Fx -f "$plan.parts" >"$plan" || true
	rm -rf "$dir"
	if python3 "$root/uml/merge-results.py" --out "$dir" --plan "$plan" \
		"${results[@]}" >"$log" 2>&1; then
		grep -v ' results written to ' "$log"
		stage_result "$name" yes ""
	else
		cat "$log"
		stage_result "$name" no "the merged results of its parts fail (see $log)"
	fi
}

stage_suite_merge() {
	echo "test: == suite: its $jobs parts' results merged into build/test/results =="
	merge_parts suite "$out/suite" "$out/results" "${suite_kinds[@]}"
}

# The results files of the suite stage: kunit.py parse must read the KTAP
# file, the JUnit file must validate against uml/junit.xsd, and each must
# count what the harness counted (uml/check-results.py).
stage_results() {
	local format
	echo "test: == results: KTAP through kunit.py parse, JUnit through its schema =="
	for format in ktap junit; do
		if python3 "$root/uml/check-results.py" "$format" --console "$out/suite/merge.log" \
			--results "$out/results" --kunit "$kunit" --schema "$root/uml/junit.xsd"; then
			stage_result "results-$format" yes ""
		else
			stage_result "results-$format" no "see the check-results lines above"
		fi
	done
}

# The lifecycle fuzzer, short.  A failure is replayed with the
# `make fuzz SEED=n SECONDS=n` line it prints.
stage_fuzz() {
	local rc=0 log=$out/fuzz.log verdict=$out/fuzz.verdict
	echo "test: == fuzz: $fuzz_seconds s of the mshare lifecycle fuzzer, seed $fuzz_seed =="
	bash "$root/uml/fuzz.sh" --quiet --seconds "$fuzz_seconds" \
		--seed "$fuzz_seed" --log "$log" >"$verdict" || rc=$?
	cat "$verdict"
	if [ "$rc" -eq 0 ]; then
		stage_result fuzz yes ""
	else
		stage_result fuzz no "$(grep -m1 '^fuzz: FAIL' "$verdict" || echo "exit $rc, see $log")"
	fi
}

# The fuzzer with fail-nth fault injection (make fuzz FAULTS=1), short: the
# model must follow what the injected failures did, and the kernel log must
# hold no injection outside the agents' armed windows.
stage_fuzz_faults() {
	local rc=0 log=$out/fuzz-faults.log verdict=$out/fuzz-faults.verdict injected
	echo "test: == fuzz-faults: $fuzz_faults_seconds s of the fuzzer, seed $fuzz_seed, fault injection on $fuzz_fault_percent% of its ops =="
	bash "$root/uml/fuzz.sh" --quiet --seconds "$fuzz_faults_seconds" \
		--seed "$fuzz_seed" --faults "$fuzz_fault_percent" --log "$log" \
		>"$verdict" || rc=$?
	cat "$verdict"
	# The table's last row: "fuzz: faults: all ARMED INJECTED ...".
	injected=$(awk '$2 == "faults:" && $3 == "all" { print $5 }' "$verdict")
	if [ "$rc" -eq 0 ] && [ "${injected:-0}" -gt 0 ]; then
		stage_result fuzz-faults yes ""
	elif [ "$rc" -eq 0 ]; then
		stage_result fuzz-faults no "passed, but no failure was injected (see $log)"
	else
		stage_result fuzz-faults no "$(grep -m1 '^fuzz: FAIL' "$verdict" || echo "exit $rc, see $log")"
	fi
}

# Negative controls of the debug stack (tests/negative_control_debug.c): a
# UBSAN report and a fault injection outside the sweep's armed window must
# each fail their test, and for that reason.
stage_negative_debug() {
	local rc=0 log=$out/negative-debug.log kinds
	echo "test: == negative control: UBSAN and an unarmed fault injection must fail =="
	bash "$run" --quiet --log "$log" --tests negative_control_debug -- "$no_kmemleak" || rc=$?
	kinds=$("$host_harness" --classify-console "$log" | cut -f 1 | sort -u | tr '\n' ' ')
	if [ "$rc" -ne 0 ] && grep -q '^harness: 1 passed, 2 failed' "$log" &&
	   [ "$kinds" = "UBSAN fault injection " ]; then
		stage_result negative-debug yes ""
	else
		stage_result negative-debug no "exit $rc, reports '$kinds' (want both tests FAILED by UBSAN and fault injection; see $log)"
	fi
}

# Negative control: a test that makes the kernel print a WARNING must fail
# the run, and for that reason, not because the kernel crashed.
stage_negative_control() {
	local rc=0 log=$out/negative-control.log
	echo "test: == negative control: a kernel WARNING must fail the run =="
	bash "$run" --quiet --log "$log" --tests negative_control -- "$no_kmemleak" || rc=$?
	if [ "$rc" -eq 0 ]; then
		stage_result negative-control no "./linux exited 0 although the kernel printed a WARNING"
	elif ! grep -q '^harness: verdict FAIL' "$log" ||
	     ! "$host_harness" --classify-console "$log" | cut -f 1 | grep -qx WARNING; then
		stage_result negative-control no "exit $rc, but not a harness FAIL verdict caused by the WARNING (see $log)"
	else
		stage_result negative-control yes ""
	fi
}

# Selection: one named test runs alone; an unknown name is an error.
stage_selection() {
	local rc=0 log=$out/select-one.log
	echo "test: == selection: one test alone; an unknown name fails =="
	# kernel_log/boot_log_clean always runs first: it checks the boot log.
	bash "$run" --quiet --log "$log" --tests harness/selection_suite_only -- "$no_kmemleak" || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '^harness: 2 passed, 0 failed' "$log" ||
	   ! grep -q 'Test: selection_suite_only \.\.\.passed' "$log"; then
		stage_result select-one no "expected the boot-log check and the one selected test, exit $rc (see $log)"
	else
		stage_result select-one yes ""
	fi
	rc=0
	log=$out/select-unknown.log
	bash "$run" --quiet --log "$log" --tests no_such_suite || rc=$?
	if [ "$rc" -eq 0 ] || ! grep -q 'no_such_suite' "$log"; then
		stage_result select-unknown no "an unknown suite name gave exit $rc (see $log)"
	else
		stage_result select-unknown yes ""
	fi
	stage_selection_positional
}

# Words of their own on the ./linux command line select as harness.run=
# does, patterns included; an unknown one is an error that names the suites.
stage_selection_positional() {
	local rc=0 log=$out/select-positional.log
	bash "$run" --quiet --log "$log" -- 'harness/selection_suite_*' "$no_kmemleak" || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q '^harness: 3 passed, 0 failed' "$log" ||
	   ! grep -q 'Test: selection_suite_test \.\.\.passed' "$log"; then
		stage_result select-positional no "expected the boot-log check and the two tests 'harness/selection_suite_*' matches, exit $rc (see $log)"
	else
		stage_result select-positional yes ""
	fi
	rc=0
	log=$out/select-positional-unknown.log
	bash "$run" --quiet --log "$log" -- no_such_thing || rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q "unknown suite 'no_such_thing'" "$log" ||
	   ! grep -q '^harness: valid suites: .*mshare_fork' "$log"; then
		stage_result select-positional-unknown no "./linux no_such_thing: exit $rc, want 2 and the valid suites (see $log)"
	else
		stage_result select-positional-unknown yes ""
	fi
}

# Out of memory in a region: a boot with little memory, where filling a
# region ends in an OOM kill and the memory comes back (tests/mshare_oom.c).
stage_oom() {
	local rc=0 log=$out/oom.log
	echo "test: == out of memory in a region (mem=192M) =="
	bash "$run" --quiet --log "$log" --timeout 600 --tests mshare_oom \
		-- mem=192M || rc=$?
	if [ "$rc" -eq 0 ]; then
		stage_result oom yes ""
	else
		stage_result oom no "exit $rc (see $log)"
	fi
}

# A program of one's own inside ./linux (make prog): examples/region_tour.c,
# built on the host as a user builds it (dynamic), must pass; false(1) must
# make the boot fail, or the runner could not tell.  false runs from a
# directory under the host's /tmp: the program's working directory must
# be found inside ./linux wherever it is.
stage_program() {
	local rc=0 prog=$root/build/examples/region_tour cwd
	echo "test: == program: your own program inside ./linux (make prog) =="
	mkdir -p "$(dirname "$prog")"
	if ! cc -O2 -Wall -Werror -o "$prog" "$root/examples/region_tour.c"; then
		stage_result program no "cc examples/region_tour.c failed"
		return
	fi
	cwd=$(mktemp -d)
	if (cd "$cwd" && bash "$root/uml/run-program.sh" --timeout 120 \
		--log "$out/program-false.log" false >/dev/null 2>&1) ||
		! grep -q '^user_program false: end exit 1,' "$out/program-false.log"; then
		rmdir "$cwd"
		stage_result program no "false(1) did not fail the boot as a program that exits 1 (see $out/program-false.log)"
		return
	fi
	rmdir "$cwd"
	bash "$root/uml/run-program.sh" --timeout 120 --log "$out/program.log" "$prog" \
		>/dev/null 2>&1 || rc=$?
	grep '^user_program region_tour| ' "$out/program.log" || true
	if [ "$rc" -eq 0 ]; then
		stage_result program yes ""
	else
		stage_result program no "exit $rc (see $out/program.log)"
	fi
}

# The harness and the test code on the host, under memcheck.
# An unmodified database on mshare: PostgreSQL under pgbench inside
# ./linux, the server plain and under mshare-run --strict, 8 clients for a
# few seconds each, then a backend killed with SIGKILL mid-run
# (uml/pgbench/pgbench.sh --short; make pgbench is the long one).  The
# verdict: the TPC-B invariants, the transactions that survive the
# postmaster's reinitialisation, no region left once the server stops,
# and a clean kernel log.
stage_pgbench() {
	local rc=0 log=$out/pgbench.log
	echo "test: == pgbench: PostgreSQL in ./linux, plain and under mshare-run, and a backend killed =="
	bash "$root/uml/pgbench/pgbench.sh" --short --out "$out/pgbench" >"$log" 2>&1 || rc=$?
	grep -E '^\| (clients|[0-9])' "$out/pgbench/table.md" 2>/dev/null || true
	if [ "$rc" -eq 0 ]; then
		stage_result pgbench yes ""
	else
		stage_result pgbench no "exit $rc (see $log and $out/pgbench/table.md)"
	fi
}

stage_valgrind() {
	local rc=0
	echo "test: == valgrind: host build of the harness under memcheck =="
	bash "$root/uml/valgrind-harness.sh" "$host_harness" \
		"$out/valgrind.log" || rc=$?
	if [ "$rc" -eq 0 ]; then
		stage_result valgrind yes ""
	else
		stage_result valgrind no "memcheck found errors, leaks or open descriptors (see $out/valgrind.log)"
	fi
}

# The gdb workflow of docs/gdb.md: stop in find_shared_vma, our commands,
# continue.
stage_gdb() {
	echo "test: == gdb: stop in find_shared_vma, mshare commands, test still passes =="
	stage_of_check gdb gdb-check.sh
}

# UML's halt with a timer tick and an I/O event pending (gdb puts them
# there): ./linux must still exit with the verdict, not SIGABRT.
stage_halt() {
	echo "test: == halt: a SIGIO and a SIGALRM pending as the kernel halts =="
	stage_of_check halt halt-check.sh
}

# A stage that is one check script of uml/ given its log: the script's
# exit status is the stage's result.
stage_of_check() {
	local name=$1 script=$2 rc=0
	bash "$root/uml/$script" "$out/$name.log" || rc=$?
	if [ "$rc" -eq 0 ]; then
		stage_result "$name" yes ""
	else
		stage_result "$name" no "see $out/$name.log"
	fi
}

# The kernel's mm selftests inside ./linux against the committed results of
# the base kernel (uml/selftests/base-results.tsv): no case that passes there
# may fail, crash, hang or splat here.  First the comparison itself must
# fail on the base results with one passing case turned into a failure.
stage_selftests() {
	local rc=0 log=$out/selftests.log st=$out/selftests
	local base=$root/uml/selftests/base-results.tsv
	echo "test: == mm selftests: ./linux against the base kernel's results =="
	mkdir -p "$st"
	python3 "$root/uml/selftests/control.py" "$base" "$st/control.tsv"
	if python3 "$root/uml/selftests/compare.py" --base "$base" --full "$st/control.tsv" \
		--expect "$root/uml/selftests/base-expected.tsv" -o "$st/control.md" >/dev/null; then
		stage_result selftests no "the comparison passed a case lost on purpose ($st/control.md)"
		return
	fi
	bash "$root/uml/selftests.sh" --quiet --boot-timeout 600 --src "$root/build/linux" \
		--linux "$root/linux" --out "$st" --base "$base" --full "$st/results.tsv" \
		>"$log" 2>&1 || rc=$?
	grep -E '^(selftests|results):|^  [^ ]' "$log" | tail -n 25
	if [ "$rc" -eq 0 ]; then
		stage_result selftests yes ""
	else
		stage_result selftests no "exit $rc (table in $st/table.md, console in $st/boots/)"
	fi
}

# The x86_64 target: the same suite under qemu on X86_CPUS CPUs (KVM when
# the host has it, TCG otherwise; run-qemu.sh's first line says which).
x86_cpus=${X86_CPUS:-2}
x86_out=$out/x86_64
qemu_run=$root/uml/run-qemu.sh

# Under TCG the suites of uml/qemu/tcg-skip.txt are left out (printed).
stage_x86_suite_part() {
	run_suite_part x86_64-suite "x86_64 suite under qemu on $x86_cpus CPUs" \
		"$1" "$x86_out/suite/part-$1" "" bash "$qemu_run" --cpus "$x86_cpus"
}

stage_x86_suite_merge() {
	echo "test: == x86_64 suite: its $jobs parts' results merged into build/test/x86_64/results =="
	merge_parts x86_64-suite "$x86_out/suite" "$x86_out/results" "part="
}

# A qemu run of named suites as one stage: $1 the stage's name, $2 its
# log's name under build/test/x86_64, the rest run-qemu.sh's arguments.
qemu_suites_stage() {
	local name=$1 rc=0 log=$x86_out/$2
	shift 2
	bash "$qemu_run" --quiet --log "$log" "$@" || rc=$?
	grep -E '^harness: ([0-9]+ passed|skipping suite)' "$log" || true
	if [ "$rc" -eq 0 ]; then
		stage_result "$name" yes ""
	else
		stage_result "$name" no "qemu run exited $rc (see $log)"
	fi
}

# What only several CPUs have, on 4 of them: stale TLB entries of sharers
# on other CPUs, and the races suite.
stage_x86_smp() {
	echo "test: == x86_64 SMP: mshare_smp_tlb and mshare_races on 4 CPUs =="
	qemu_suites_stage x86_64-smp smp.log --cpus 4 \
		--tests mshare_smp_tlb,mshare_races
}

# 5-level paging (LA57=on): a region is 256 TiB, above the 128 TiB that
# mmap() without a hint stays under, and a sharer's access is limited in
# a PGD entry that points to a P4D table.  The suites of what that entry
# limits, of the unit's size and of placing a unit.
la57_suites=mshare_faults,mshare_gup,mshare_direct_io,mshare_protection,mshare_bad_input,mshare_replace,msharefs_fs
stage_x86_la57() {
	echo "test: == x86_64 on 5-level paging (LA57=on): $la57_suites =="
	LA57=on qemu_suites_stage x86_64-la57 la57.log --cpus "$x86_cpus" \
		--tests "$la57_suites"
}

# The fuzzer under qemu, its agents on every CPU: short, the same seed.
stage_x86_fuzz() {
	local rc=0 log=$x86_out/fuzz.log verdict=$x86_out/fuzz.verdict
	echo "test: == x86_64 fuzz: $x86_fuzz_seconds s of the fuzzer on $x86_cpus CPUs, seed $fuzz_seed =="
	bash "$root/uml/fuzz.sh" --quiet --cpus "$x86_cpus" --seconds "$x86_fuzz_seconds" \
		--seed "$fuzz_seed" --log "$log" >"$verdict" || rc=$?
	cat "$verdict"
	if [ "$rc" -eq 0 ]; then
		stage_result x86_64-fuzz yes ""
	else
		stage_result x86_64-fuzz no "$(grep -m1 '^fuzz: FAIL' "$verdict" || echo "exit $rc, see $log")"
	fi
}

# The kernel log rules hold under qemu as in ./linux: a WARNING fails.
stage_x86_negative_control() {
	local rc=0 log=$x86_out/negative-control.log
	echo "test: == x86_64 negative control: a kernel WARNING must fail the run =="
	bash "$qemu_run" --quiet --log "$log" --tests negative_control -- "$no_kmemleak" || rc=$?
	if [ "$rc" -ne 0 ] && grep -q '^harness: verdict FAIL' "$log" &&
	   "$host_harness" --classify-console "$log" | cut -f 1 | grep -qx WARNING; then
		stage_result x86_64-negative-control yes ""
	else
		stage_result x86_64-negative-control no "exit $rc, want a harness FAIL verdict caused by the WARNING (see $log)"
	fi
}

# The jobs, longest first (as their times in make test's log), so that the
# short ones fill in at the end; ./linux's and qemu's are marked for
# --arch.  A job is a stage function and its arguments.
parts=$(seq 1 "$jobs")
all_jobs=()
for part in $parts; do all_jobs+=("um stage_suite_part $part"); done
for part in $parts; do all_jobs+=("x86_64 stage_x86_suite_part $part"); done
all_jobs+=("um stage_pgbench" "x86_64 stage_x86_smp" "x86_64 stage_x86_la57"
	"x86_64 stage_x86_fuzz"
	"um stage_selftests")
for part in $parts; do all_jobs+=("um stage_suite_small_ram_part $part"); done
all_jobs+=("um stage_fuzz" "um stage_fuzz_faults" "um stage_gdb"
	"um stage_halt"
	"um stage_program" "um stage_oom" "x86_64 stage_x86_negative_control"
	"um stage_selection" "um stage_negative_control" "um stage_negative_debug"
	"um stage_valgrind" "um stage_docs")
queue=()
for job in "${all_jobs[@]}"; do
	if [ "$arch" = all ] || [ "${job%% *}" = "$arch" ]; then
		queue+=("${job#* }")
	fi
done

# With --shard K/N: the suite parts are this shard's (part_spec), and of
# the other stages every N-th, from the K-th on.
mine=()
other=0
for job in "${queue[@]}"; do
	case "$job" in
	stage_suite_part* | stage_suite_small_ram_part* | stage_x86_suite_part*) mine+=("$job") ;;
	*)
		other=$((other + 1))
		if [ $(((other - 1) % shard_count + 1)) -eq "$shard_index" ]; then
			mine+=("$job")
		fi
		;;
	esac
done

# The pool: each job in a subshell of its own, its lines into a file,
# printed as a whole when it ends.  A job that reported no result fails.
declare -A job_log=()
jobs_dir=$out/jobs
rm -rf "$jobs_dir"
mkdir -p "$jobs_dir" "$x86_out"
start_job() {
	local job=$1 log
	log=$jobs_dir/${job// /-}.log
	(stage_clock=$SECONDS; $job) >"$log" 2>&1 &
	job_log[$!]=$log
}

finish_job() {
	local pid log
	wait -n -p pid || true
	log=${job_log[$pid]}
	cat "$log"
	if ! grep -q '^test: \(PASS\|FAIL\) ' "$log"; then
		echo "test: FAIL $(basename "$log" .log): the job ended without a result (see $log)" | tee -a "$log"
	fi
}

echo "test: ${#mine[@]} jobs, $jobs at once$([ "$shard_count" -gt 1 ] && echo ", shard $shard"); each job's lines when it ends"
running=0
for job in "${mine[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		finish_job
		running=$((running - 1))
	fi
	start_job "$job"
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	finish_job
	running=$((running - 1))
done
# The merged results of the parts this runner ran; a CI matrix merges its
# runners' build/test/results the same way (docs/running-tests.md).
stage_clock=$SECONDS
merged_log=$jobs_dir/merged-results.log
{
	if [ "$arch" != x86_64 ]; then
		stage_suite_merge
		stage_results
	fi
	if [ "$arch" != um ]; then
		stage_x86_suite_merge
	fi
} >"$merged_log" 2>&1
cat "$merged_log"

passed=$(cat "$jobs_dir"/*.log | grep -c '^test: PASS ' || true)
failed=$(cat "$jobs_dir"/*.log | grep -c '^test: FAIL ' || true)
# What failed, again at the end, where a CI log's tail shows it: the
# stages, and the tests of the merged suites with their first messages.
if [ "$failed" -gt 0 ]; then
	echo "test: what failed (the lines above say more):"
	grep -h -E '^test: FAIL |^merge-results: (FAILED |  )' "$jobs_dir"/*.log
fi
echo "test: $passed passed, $failed failed in $((SECONDS / 60)) min $((SECONDS % 60)) s"
[ "$failed" -eq 0 ]
