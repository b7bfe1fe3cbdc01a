#!/bin/bash
# shellcheck disable=SC2016 # gdb expressions, not shell ones, in single quotes
# Batch gdb run that checks the debugging workflow docs/gdb.md describes: boot a
# fault-redirection test under gdb with our gdbinit, stop in
# find_shared_vma(), print a backtrace through handle_mm_fault() and UML's
# fault path, run the mshare commands and an lx- helper, continue, and require
# the run to end with the test passing.
#
# usage: gdb-check.sh LOG [TEST]
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
log=$1
test=${2:-mshare_faults/non_creator_first_touch}

fail() {
	echo "gdb-check: FAIL: $* (see $log)"
	exit 1
}

bash "$root/uml/gdb-run.sh" "$log" "$test" \
	-ex mshare-break -ex run -ex 'bt 8' -ex mshare-regions -ex mshare-layout \
	-ex 'mshare-pgd *addrp' -ex 'p $lx_current().comm' -ex 'delete' \
	-ex continue ||
	fail "gdb exited $?"

# What each check is for: the breakpoint, the fault path, our commands, an
# lx- helper, and that the run under gdb still passes.
grep -q 'hit Breakpoint 1, find_shared_vma' "$log" || fail "find_shared_vma was never hit"
grep -q ' in handle_mm_fault ' "$log" || fail "backtrace lacks handle_mm_fault"
grep -q ' in handle_page_fault ' "$log" || fail "backtrace lacks UML's handle_page_fault"
grep -Eq '^mshare-regions: [1-9][0-9]* region' "$log" || fail "mshare-regions listed no region"
grep -Eq '^  0x[0-9a-f]+-0x[0-9a-f]+ rw- anon$' "$log" || fail "mshare-layout listed no vma"
grep -q '^  shared: ' "$log" || fail "mshare-pgd printed nothing"
grep -q '^mshare: find_shared_vma returned 0: guest 0x' "$log" || fail "no find_shared_vma result"
grep -q '^\$1 = "init"' "$log" || fail "\$lx_current() did not work"
grep -q '^harness: verdict PASS' "$log" || fail "the test did not pass under gdb"
grep -q 'exited normally' "$log" || fail "./linux did not exit 0 under gdb"
echo "gdb-check: PASS: stopped in find_shared_vma, bt, mshare-regions, mshare-layout, mshare-pgd, \$lx_current(), test passed"
