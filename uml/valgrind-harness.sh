#!/bin/bash
# Run the host build of the harness under memcheck, following the children
# the tests fork.  Fails on any memcheck error, any leak, or a descriptor
# other than stdin/stdout/stderr still open at exit.  On the host, suites that
# need msharefs or the UML kernel log are reported as skipped.
#
# usage: valgrind-harness.sh HOST_HARNESS LOG [HARNESS_ARG...]
set -eu

harness=$1
log=$2
shift 2
[ -x "$harness" ] || { echo "valgrind-harness: $harness not built" >&2; exit 2; }

status=0
# Descriptors the caller (make, a CI runner) leaked into us are not ours.
for fd in /proc/self/fd/*; do
	fd=${fd##*/}
	if [ "$fd" -gt 2 ]; then
		eval "exec $fd>&-" 2>/dev/null || true
	fi
done
# memcheck reports on stderr (a --log-file would itself count as an open
# descriptor); each line carries the pid.
valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=all \
	--show-leak-kinds=all --error-exitcode=99 --track-fds=yes \
	--trace-children=yes "$harness" "$@" 2>"$log" || status=$?
grep -E 'ERROR SUMMARY|FILE DESCRIPTORS|definitely lost|indirectly lost|All heap blocks' "$log" |
	sed 's/^/valgrind-harness: /'
open_fds=$(grep -E 'FILE DESCRIPTORS: [0-9]+ open \([0-9]+ std\)' "$log" |
	sed -E 's/.*: ([0-9]+) open \(([0-9]+) std\).*/\1 \2/' |
	awk '$1 != $2' | wc -l)
if [ "$status" -ne 0 ]; then
	echo "valgrind-harness: FAIL: exit status $status (99: memcheck errors or leaks; see $log)"
	exit 1
fi
if [ "$open_fds" -ne 0 ]; then
	echo "valgrind-harness: FAIL: $open_fds processes exited with descriptors open (see $log)"
	exit 1
fi
echo "valgrind-harness: PASS: 0 errors, 0 leaks, no descriptors left open"
