#!/bin/bash
# Give every test of the harness a verdict on the seed kernel (the faithful
# port, `make SERIES=seed`), although some of its defects crash the kernel or
# hang it: one boot per suite, and for a suite whose boot ended without the
# harness verdict (panic, timeout), one boot per test of that suite.  With
# --boot-per-test every test gets a boot of its own: lockdep reports only its
# first finding of a boot, and a test can fail from an earlier one's damage.
#
# Prints a table: suite/test, result (pass, FAIL, crash = the kernel died,
# hang = no power-off before the timeout, skip = a suite the harness or the
# target leaves out, with its reason) and, for a failure, the first bad
# kernel log record (BUG:, WARNING:, KASAN, refcount_t, lockdep...) or else
# the first CUnit assertion.  kmemleak's end-of-run scan and kernel log
# records after the last test are not any one test's: they get rows of their
# own, "SELECTION [kmemleak]" and "SELECTION [log after last test]".
# Writes the table to OUT_DIR/results.txt, the rows to OUT_DIR/results.tsv
# (test, result, boot log, detail) and each boot's console and CUnit XML to
# OUT_DIR/boots/.  Exits 1 if any row is not a pass.
#
# With --qemu, the kernel is the x86_64 target's seed (make SERIES=seed
# ARCH=x86_64): KERNEL_IMAGE booted by uml/run-qemu.sh, with INITRD, ACCEL
# and LA57 from the environment as run-qemu.sh reads them; the claims
# checked are then the "x86_64:" ones, and under TCG the suites of
# uml/qemu/tcg-skip.txt get "skip" rows instead of boots.
#
# usage: seed-compare.sh [--suite-timeout SECONDS] [--test-timeout SECONDS]
#                        [--boot-per-test] [--shard K/N] [--qemu]
#                        [--suites SUITE[,SUITE...]]
#                        LINUX_BINARY|KERNEL_IMAGE OUT_DIR
#        seed-compare.sh --merge OUT_DIR SHARD_OUT_DIR...
# --shard K/N: the suites of every N-th, from the K-th on (a CI matrix, N
# runners): the shard's rows and table, no claims checked.  --suites: those
# suites alone (names as harness.list prints them), and the claims about
# their tests; the claims about other tests are listed as not checked.  --merge: the
# shards' rows into one OUT_DIR/results.tsv, then the table and the claims
# of a whole run.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
run_linux=$root/uml/run-linux.sh
# Per boot: a hang costs the whole timeout, and a suite boot took 7-12 s
# on the seed (2026-12-03).  A suite that runs out of it is run test by test.
# A suite that harness.list marks "(timeout N s a test)" gets N s for each
# test boot, and N s times its tests for its suite boot, where that is more.
suite_timeout=120
test_timeout=60
boot_per_test=
shard_index=1
shard_count=1
merge=
# Listing the tests runs none: the boot takes seconds.
list_timeout=120
# --qemu: the x86_64 target, whose claims are the "x86_64:" ones.
qemu=
target=um
only_suites=
# Finds kernel reports in consoles that end without the harness's verdict,
# with the harness's own table of patterns (harness/kmsg_patterns.c).
host_harness=$root/build/harness/host-harness

die() {
	echo "seed-compare: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--suite-timeout) suite_timeout=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	--boot-per-test) boot_per_test=1; shift ;;
	--shard)
		# K/N as the harness reads harness.shard= (harness/shard.c)
		why=$("$host_harness" --list_tests --shard "$2" 2>&1) ||
			die "--shard: ${why%%$'\n'*}"
		shard_index=${2%/*}
		shard_count=${2#*/}
		shift 2 ;;
	--qemu) qemu=1; target=x86_64; shift ;;
	--suites) only_suites=",$2,"; shift 2 ;;
	--merge) merge=1; shift; break ;;
	-*) die "unknown option $1 (see the usage line in $0)" ;;
	*) break ;;
	esac
done
if [ -n "$merge" ]; then
	[ $# -ge 2 ] || die "usage: $0 --merge OUT_DIR SHARD_OUT_DIR..."
	out=$1
	shift
	shard_outs=("$@")
else
	[ $# -eq 2 ] || die "usage: $0 [--suite-timeout S] [--test-timeout S] [--boot-per-test] [--shard K/N] [--qemu] LINUX_BINARY|KERNEL_IMAGE OUT_DIR"
	[ -x "$host_harness" ] || die "$host_harness not built (make harness)"
	linux=$1
	out=$2
	if [ -n "$qemu" ]; then
		[ -r "$linux" ] || die "$linux not found; run make SERIES=seed ARCH=x86_64 first"
	else
		[ -x "$linux" ] || die "$linux not found or not executable; run make SERIES=seed first"
	fi
fi

boots=$out/boots
rows=$out/results.tsv.new
# What the seed is claimed to get wrong, and the patches that fix it.
defects=$root/uml/seed-defects.tsv
series=$root/mm-patches/series
mkdir -p "$out"
rm -f "$out/defects.broken"
touch "$out/defects.broken"

rm -rf "$boots"
mkdir -p "$boots"
printf 'test\tresult\tboot_log\tdetail\n' >"$rows"
boot_count=0

add_row() {
	local test=$1 result=$2 log=$3 detail=$4
	printf '%s\t%s\t%s\t%s\n' "$test" "$result" "${log#"$out"/}" "${detail//$'\t'/ }" >>"$rows"
}

# One boot of the seed kernel, with run-linux.sh's (and run-qemu.sh's)
# options: ./linux, or with --qemu the x86_64 kernel under qemu.
run_kernel() {
	if [ -n "$qemu" ]; then
		KERNEL=$linux bash "$root/uml/run-qemu.sh" "$@"
	else
		LINUX=$linux bash "$run_linux" "$@"
	fi
}

# Boot the seed kernel with harness.run=SEL.  Sets boot_log, boot_xml (the
# CUnit XML file, written only if the harness got to its verdict) and
# boot_status (run-linux.sh's exit status: 124 on a timeout).
boot() {
	local sel=$1 timeout=$2 name=${1//\//--} start=$SECONDS
	boot_log=$boots/$name.log
	boot_xml=$boots/$name.xml.d/mshare-uml-Results.xml
	boot_status=0
	# run-linux.sh reports a panic or timeout on stderr; the console has it all.
	run_kernel --quiet --timeout "$timeout" --log "$boot_log" \
		--results "$boots/$name.xml.d" --tests "$sel" </dev/null 2>/dev/null || boot_status=$?
	boot_count=$((boot_count + 1))
	echo "seed-compare: booted $sel: $(boot_summary) ($((SECONDS - start)) s)"
}

# verdict (the harness finished and wrote its XML), hang or crash.
boot_outcome() {
	if grep -q '^harness: verdict ' "$boot_log" && [ -r "$boot_xml" ]; then
		echo verdict
	elif [ "$boot_status" -eq 124 ]; then
		echo hang
	else
		echo crash
	fi
}

# A boot's console without the carriage returns of the tty's CRLF output.
console() {
	tr -d '\r' <"$1"
}

# What the progress line says about a boot.
boot_summary() {
	local outcome
	outcome=$(boot_outcome)
	if [ "$outcome" = verdict ]; then
		console "$boot_log" | grep -m 1 -o '^harness: verdict [A-Z]*' | sed 's/^harness: //'
	else
		echo "$outcome"
	fi
}

# The first kernel report line of the console, without its timestamp (the
# harness's own "  KMSG| " copies of records included), or nothing.
first_report_line() {
	local report status=0
	report=$("$host_harness" --classify-console "$1") || status=$?
	case $status in
	0) ;;
	1) cut -f 2- <<<"${report%%$'\n'*}" ;;
	*) die "$report" ;;
	esac
}

# The tests of the selection in the XML, in order, one "test<TAB>result<TAB>
# detail" line each: a failed test's detail is its first bad kernel log
# record, or else its first failed assertion (file:line: condition).  A suite
# whose init failed gives one "(suite)" line.
xml_results() {
	local xml=$1 suite=$2 test=$3
	awk -v want_suite="$suite" -v want_test="$test" '
	function value(line) {
		sub(/^[^>]*> /, "", line)
		sub(/ <\/[A-Z_]+>$/, "", line)
		gsub(/&lt;/, "<", line)
		gsub(/&gt;/, ">", line)
		gsub(/&quot;/, "\"", line)
		gsub(/&amp;/, "\\&", line)
		return line
	}
	function wanted() {
		return suite == want_suite && (want_test == "" || name == want_test)
	}
	/<SUITE_NAME>/ { suite = value($0) }
	/<CUNIT_RUN_TEST_SUCCESS>/ { failed = 0 }
	/<CUNIT_RUN_TEST_FAILURE>/ { failed = 1 }
	/<TEST_NAME>/ { name = value($0) }
	/<FILE_NAME>/ { file = value($0) }
	/<LINE_NUMBER>/ { line = value($0) }
	/<CONDITION>/ { cond = value($0) }
	/<\/CUNIT_RUN_TEST_RECORD>/ && wanted() {
		if (!(name in seen)) {
			seen[name] = 1
			order[n++] = name
		}
		if (!failed)
			next
		bad[name] = 1
		if (cond ~ /^kernel log: /) {
			sub(/^kernel log: [0-9]+ bad record\(s\), first: /, "", cond)
			if (!(name in kernel))
				kernel[name] = cond
		} else if (!(name in assertion)) {
			assertion[name] = file ":" line ": " cond
		}
	}
	/<FAILURE_REASON>/ && suite == want_suite {
		printf "(suite)\tFAIL\t%s\n", value($0)
	}
	END {
		for (i = 0; i < n; i++) {
			name = order[i]
			if (!(name in bad))
				printf "%s\tpass\t\n", name
			else if (name in kernel)
				printf "%s\tFAIL\t%s\n", name, kernel[name]
			else
				printf "%s\tFAIL\t%s\n", name, assertion[name]
		}
	}' "$xml"
}

# kmemleak's report of the boot: "N unreferenced objects, first: size,
# comm and the first backtrace frames that are not the allocator's", or
# nothing when it found none.
kmemleak_summary() {
	local log=$1 count
	count=$(console "$log" | sed -n 's/^harness: kmemleak: \([0-9]*\) unreferenced objects$/\1/p')
	if console "$log" | grep -m 1 '^harness: kmemleak: scan failed'; then
		return
	fi
	[ -n "$count" ] && [ "$count" -gt 0 ] || return 0
	console "$log" | sed -n 's/^  KMEMLEAK| //p' | awk -v count="$count" '
	/^unreferenced object/ { objects++ }
	objects != 1 { next }
	/^unreferenced object/ { match($0, /\(size [0-9]+\)/); size = substr($0, RSTART, RLENGTH) }
	/^ *comm / { comm = $0; sub(/^ *comm /, "", comm); sub(/,.*/, "", comm) }
	# A frame: "function+off/size", after "[<address>] " in older kernels
	/^ *backtrace/ { in_trace = 1; next }
	in_trace && /^ +(\[<[0-9a-f]+>\] )?[A-Za-z_.][A-Za-z0-9_.]*\+0x/ {
		frame = $NF
		sub(/\+.*/, "", frame)
		if (frame ~ /^(kmemleak|__kmemleak|kmalloc|__kmalloc|kmem_cache|__kmem|slab|__slab|kzalloc|kmemdup|kstrdup|krealloc|__do_kmalloc|alloc_pages|__alloc|kasan|save_stack_trace|stack_trace_save|set_track_prepare|__create_object)/)
			next
		if (frames < 3)
			stack = stack (frames++ ? " < " : "") frame
	}
	END {
		printf "%d unreferenced object(s), first: %s comm %s from %s\n",
			count, size, comm, stack
	}'
}

# The first record the harness reports after the last test (CUnit's run
# summary comes before it).
log_after_last_test() {
	console "$1" | sed -n '/^Run Summary:/,$p' | grep -m 1 '^  KMSG| ' | sed 's/^  KMSG| //' || true
}

# Rows for a boot that got to the verdict: its tests, and what the end of
# the run found.  SEL is suite or suite/test; the tests of SEL named in
# EXPECTED (one per line) that have no result get a row too.
verdict_rows() {
	local sel=$1 expected=$2 suite=${1%%/*} test='' name result detail suite_failure=''
	[ "$sel" != "$suite" ] && test=${sel#*/}
	suite_failure=$(console "$boot_log" | sed -n "s/^harness: skipping suite $suite: /skipped: /p")
	while IFS=$'\t' read -r name result detail; do
		if [ "$name" = "(suite)" ]; then
			suite_failure=$detail
			continue
		fi
		add_row "$suite/$name" "$result" "$boot_log" "$detail"
		expected=$(grep -vxF "$name" <<<"$expected" || true)
	done < <(xml_results "$boot_xml" "$suite" "$test")
	while read -r name; do
		[ -n "$name" ] || continue
		if [[ "$suite_failure" == skipped:* ]]; then
			add_row "$suite/$name" skip "$boot_log" "${suite_failure#skipped: }"
		else
			add_row "$suite/$name" FAIL "$boot_log" "not run: ${suite_failure:-no result in the CUnit XML}"
		fi
	done <<<"$expected"
	if grep -q '^harness: [0-9]* bad kernel log record(s) after the last test' "$boot_log"; then
		add_row "$sel [log after last test]" FAIL "$boot_log" "$(log_after_last_test "$boot_log")"
	fi
	detail=$(kmemleak_summary "$boot_log")
	[ -z "$detail" ] || add_row "$sel [kmemleak]" FAIL "$boot_log" "$detail"
	if [ "$boot_status" -eq 124 ]; then
		add_row "$sel [power-off]" hang "$boot_log" "verdict given, but no power-off within the timeout"
	fi
}

# How the kernel died: its panic message and UML's "RIP:" line before it
# (the function it died in), when the console has them.
death_line() {
	console "$1" | awk '
	/RIP: / { rip = $0; sub(/^.*RIP: [0-9a-f]+:/, "", rip) }
	/Kernel panic - not syncing: / {
		panic = $0
		sub(/^.*Kernel panic - not syncing: /, "", panic)
		printf "panic: %s%s\n", panic, rip == "" ? "" : " in " rip
		exit
	}'
}

# The row of a test whose own boot ended without the verdict: the first
# kernel report, and the panic if that was not it.
died_row() {
	local sel=$1 result=$2 timeout=$3 detail death
	detail=$(first_report_line "$boot_log")
	death=$(death_line "$boot_log")
	if [ -z "$detail" ] || [[ "$detail" == "Kernel panic"* ]]; then
		detail=$death
	elif [ -n "$death" ]; then
		detail="$detail; $death"
	fi
	if [ -z "$detail" ] && [ "$result" = hang ]; then
		detail="no power-off within ${timeout} s, no kernel report"
	elif [ -z "$detail" ]; then
		detail="no harness verdict (exit $boot_status), no kernel report; last line: $(console "$boot_log" | tail -n 1)"
	fi
	add_row "$sel" "$result" "$boot_log" "$detail"
}

# "suite test seconds" lines for every test of the suites a plain boot runs
# (no explicit-only suite), as the seed kernel's own harness lists them:
# seconds is the suite's "(timeout N s a test)", or 0 for none.
list_tests() {
	local log=$boots/list.log
	run_kernel --quiet --timeout "$list_timeout" --log "$log" \
		-- harness.list </dev/null 2>/dev/null || true
	awk '
	/^[A-Za-z0-9_]+( \((explicit only|always runs|timeout [0-9]+ s a test)\))*$/ {
		explicit = /\(explicit only\)/
		seconds = match($0, /\(timeout [0-9]+ /) ? substr($0, RSTART + 9, RLENGTH - 10) : 0
	}
	/^  [A-Za-z0-9_]+\/[A-Za-z0-9_]+$/ && !explicit { sub(/^  /, ""); sub(/\//, " "); print $0, seconds }
	' < <(console "$log")
}

# A suite's timeouts: the defaults, or more where the suite asks for more
# for each test.  Sets this_test_timeout and this_suite_timeout.
suite_timeouts() {
	local per_test=$1 count=$2
	this_test_timeout=$((per_test > test_timeout ? per_test : test_timeout))
	this_suite_timeout=$((per_test * count > suite_timeout ? per_test * count : suite_timeout))
}

test_one_suite() {
	local suite=$1 expected=$2 outcome test why
	why=$(awk -F '\t' -v s="$suite" '$1 == s { print $2 }' "$out/skipped-suites.tsv")
	if [ -n "$why" ]; then
		while read -r test; do
			add_row "$suite/$test" skip "" "left out under TCG: $why"
		done <<<"$expected"
		echo "seed-compare: left out $suite under TCG: $why"
		return
	fi
	suite_timeouts "$3" "$(wc -l <<<"$expected")"
	if [ -z "$boot_per_test" ]; then
		boot "$suite" "$this_suite_timeout"
		outcome=$(boot_outcome)
		if [ "$outcome" = verdict ]; then
			verdict_rows "$suite" "$expected"
			return
		fi
	fi
	# The boot died somewhere (or was not tried): one boot per test.
	while read -r test; do
		boot "$suite/$test" "$this_test_timeout"
		outcome=$(boot_outcome)
		if [ "$outcome" = verdict ]; then
			verdict_rows "$suite/$test" "$test"
		else
			died_row "$suite/$test" "$outcome" "$this_test_timeout"
		fi
	done <<<"$expected"
}

print_table() {
	awk -F '\t' '
	NR == 1 { next }
	{ test[NR] = $1; result[NR] = $2; detail[NR] = $4; count[$2]++
	  if (length($1) > width) width = length($1) }
	END {
		printf "%-*s  %-6s  %s\n", width, "suite/test", "result", "first kernel report or assertion"
		for (i = 2; i <= NR; i++)
			printf "%-*s  %-6s  %s\n", width, test[i], result[i], detail[i]
		printf "\n%d rows: %d pass, %d FAIL, %d crash, %d hang, %d skip\n", NR - 1,
			count["pass"], count["FAIL"], count["crash"], count["hang"], count["skip"]
	}' "$1"
}

# The claims of seed-defects.tsv about this target that the run in $1
# does not bear out, one per line, to the file $2: a claim holds when a
# "fail" test did not pass, or a "pass" test passed.  ./linux's claims are
# those without a prefix, the x86_64 target's those of "x86_64:"; a test
# the run left out (skip) bears out nothing: it goes to $2.unchecked.  The table of
# them all, with the results, is uml/docs_tables.py's, as
# docs/seed-comparison.md has it.  Prints how many claims it checked.
broken_claims() {
	local results=$1 broken=$2
	: >"$broken.unchecked"
	awk -F '\t' -v broken="$broken" -v unchecked="$broken.unchecked" -v series="$series" -v target="$target" -v partial="$only_suites" '
	BEGIN {
		while ((getline line < series) > 0)
			if (line ~ /^[0-9][0-9][0-9][0-9]-/)
				patch[substr(line, 1, 4)] = line
	}
	FILENAME == ARGV[1] { if (FNR > 1) result[$1] = $2; next }
	/^#/ || NF < 3 { next }
	{
		p = $1; claim = $2; t = $3
		if (claim ~ /:/) {
			if (substr(claim, 1, length(target) + 1) != target ":")
				next
			claim = substr(claim, length(target) + 2)
		} else if (target != "um") {
			next
		}
		r = (t in result) ? result[t] : "missing"
		if (r == "missing" && partial)
			r = "skip"
		if (r == "skip")
			printf "%s: claimed %s on the seed, not checked: the run left it out\n", t, claim > unchecked
		else
			checked++
		if (r != "skip" && (r == "missing" || (claim == "fail") != (r != "pass")))
			printf "%s: claimed %s on the seed, got %s\n", t, claim, r > broken
		if (!(p in patch))
			printf "%s: patch %s is not in %s\n", t, p, series > broken
	}
	END { print checked + 0 }' "$results" "$defects"
}

# Tests that do not pass on the seed and have no row in seed-defects.tsv.
unclaimed_failures() {
	awk -F '\t' 'FILENAME == ARGV[1] { if (!/^#/) claimed[$3] = 1; next }
	FNR > 1 && $2 != "pass" && $2 != "skip" && !($1 in claimed) { print "  " $1 " (" $2 ")" }' \
		"$defects" "$1"
}

# The table of the rows in $out/results.tsv, then, for a whole run (not
# one shard of it), the defects table and the check of every claim.
report() {
	local what=$1 unclaimed consoles=$boots/ checked
	[ -z "$merge" ] || consoles="each shard's boots/"
	{
		echo "Seed kernel: every test$what, $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo
		print_table "$out/results.tsv"
		echo "$boot_count boots${boot_per_test:+ (one per test)} in $((SECONDS - start)) s" \
			"(timeouts: ${suite_timeout} s a suite, ${test_timeout} s a test, more where a suite asks)"
	} >"$out/results.txt"
	echo
	cat "$out/results.txt"
	if [ "$shard_count" -gt 1 ]; then
		echo "seed-compare: shard $shard_index/$shard_count: rows in $out/results.tsv; the claims are checked once the shards' rows are merged (seed-compare.sh --merge OUT_DIR SHARD_DIR...)"
		return
	fi
	checked=$(broken_claims "$out/results.tsv" "$out/defects.broken")
	python3 "$root/uml/docs_tables.py" --target "$target" --table-of-seed-run "$out/results.tsv" >"$out/defects.md"
	echo
	echo "The defects of the seed (${defects#"$root"/}), as docs/seed-comparison.md shows them" \
		"(python3 uml/docs_tables.py --target $target --seed-run $out/results.tsv --write puts this run's results there):"
	cat "$out/defects.md"
	unclaimed=$(unclaimed_failures "$out/results.tsv")
	if [ -n "$unclaimed" ]; then
		echo "Not passing on the seed, with no row in ${defects#"$root"/} (an earlier test's damage, or a defect to describe):"
		echo "$unclaimed"
	fi
	if [ -s "$out/defects.broken.unchecked" ]; then
		echo "Claims this run could not check:"
		sed 's/^/  /' "$out/defects.broken.unchecked"
	fi
	echo "seed-compare: table in $out/results.txt, rows in $out/results.tsv, defects in $out/defects.md, consoles in $consoles"
	if [ -s "$out/defects.broken" ]; then
		echo "seed-compare: FAIL: claims of ${defects#"$root"/} that the seed does not bear out:"
		sed 's/^/  /' "$out/defects.broken"
		exit 1
	fi
	echo "seed-compare: PASS: every claim of ${defects#"$root"/} for the $target target holds on the seed ($checked rows checked)"
}

# --merge: the shards' rows (each with its header) and boot counts.
merge_shards() {
	local dir
	boot_count=0
	for dir in "${shard_outs[@]}"; do
		[ -r "$dir/results.tsv" ] || die "$dir/results.tsv not found: that shard did not finish"
		tail -n +2 "$dir/results.tsv" >>"$rows"
		boot_count=$((boot_count + $(sed -n 's/^\([0-9]*\) boots.*/\1/p' "$dir/results.txt")))
	done
	mv "$rows" "$out/results.tsv"
	report " (${#shard_outs[@]} shards merged)"
}

[ -r "$defects" ] || die "$defects not found"
start=$SECONDS
if [ -n "$merge" ]; then
	merge_shards
	exit 0
fi
tests=$(list_tests)
boot_count=1
# The suites the target leaves out of a run (none but under TCG).
if [ -n "$qemu" ]; then
	run_kernel --skipped-suites >"$out/skipped-suites.tsv"
else
	: >"$out/skipped-suites.tsv"
fi
[ -n "$tests" ] || die "the seed kernel listed no tests (see $boots/list.log)"
mapfile -t suites < <(cut -d' ' -f1 <<<"$tests" | uniq)
for suite in ${only_suites//,/ }; do
	printf '%s\n' "${suites[@]}" | grep -qxF "$suite" ||
		die "--suites: no suite $suite in what the seed kernel lists (see $boots/list.log; explicit-only suites are not compared)"
done
index=0
for suite in "${suites[@]}"; do
	index=$((index + 1))
	[ $(((index - 1) % shard_count + 1)) -eq "$shard_index" ] || continue
	[ -z "$only_suites" ] || [[ "$only_suites" == *",$suite,"* ]] || continue
	test_one_suite "$suite" "$(awk -v s="$suite" '$1 == s { print $2 }' <<<"$tests")" \
		"$(awk -v s="$suite" '$1 == s { print $3; exit }' <<<"$tests")"
done
mv "$rows" "$out/results.tsv"
report "${linux:+ of $linux}$([ "$shard_count" -gt 1 ] && echo ", shard $shard_index/$shard_count")${only_suites:+, suites ${only_suites:1:-1}}"
