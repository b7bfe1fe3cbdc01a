#!/bin/bash
# Run the kernel build (the KMAKE command line given after --), or skip it
# when nothing it reads changed since its last successful run.
#
# A kbuild that has nothing to do still costs 3-5 s on this machine: its
# top-level Makefile probes the compiler, and it walks every directory and
# reads every object's .cmd file (about 54 MB of them with this debug
# config).  The stamp proves in well under a second that the run would be a
# no-op.  It is a file written when a kbuild succeeded (created just before
# that kbuild started, so that an edit made while it ran counts as newer)
# holding a key; kbuild is skipped only when all of these hold:
#
#  - no file or directory under SRC (the kernel tree, .git left out: git's
#    own bookkeeping is not source) is newer than the stamp: kbuild decides
#    by mtimes too, and a deleted or renamed file makes its directory newer;
#  - no file under WATCH paths is newer (the .config, the initramfs list and
#    the /init it names, the host's /usr/include and gcc's own headers, which
#    UML's user-space half includes);
#  - the key is the same: the KMAKE command line (less the path of the
#    lock it queues on, which make bench-loop changes), the versions of
#    gcc and ld, the environment (kbuild reads KCFLAGS, KBUILD_*,
#    LOCALVERSION and more from it; all of it counts except variables that
#    only say where the shell is or which make job server to use), and the
#    variables given on make's command line (MAKEFLAGS) except the ones of
#    our Makefile that kbuild does not read;
#  - every OUTPUT exists (what kbuild left when it succeeded is current as
#    of the stamp; one removed since must be made again).
#
# Anything else runs kbuild, which then decides as always.
#
# usage: kbuild.sh --stamp FILE --src DIR [--watch PATH]... [--output FILE]...
#                  -- KMAKE...
set -eu

stamp=
src=
watch=()
outputs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--stamp) stamp=$2; shift 2 ;;
	--src) src=$2; shift 2 ;;
	--watch) watch+=("$2"); shift 2 ;;
	--output) outputs+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) echo "kbuild: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ -z "$stamp" ] || [ -z "$src" ] || [ $# -eq 0 ]; then
	echo "kbuild: usage: see $0" >&2
	exit 2
fi

# Variables of the top-level Makefile that reach kbuild through MAKEFLAGS
# but that kbuild never reads: they select tests, runs and benchmarks.
OUR_VARS='T|RUN_ARGS|TIMEOUT|SECONDS|SEED|FAULTS|FAULT_PERCENT|ROUNDS|JOBS'
OUR_VARS+='|SEED_SUITE_TIMEOUT|SEED_TEST_TIMEOUT|SEED_BOOT_PER_TEST'
OUR_VARS+='|COVERAGE_FUZZ_SECONDS|LOOP_BOOT_ARGS|CPUS|ACCEL|X86_CPUS|GDB_PORT'

key() {
	# The command line, less the lock it queues on (flock FILE ...).
	if [ "$1" = flock ]; then
		shift 2
	fi
	printf '%s\n' "$*"
	gcc --version | head -n 1
	ld --version | head -n 1
	# The environment, less what differs between two shells on the same
	# tree without changing a build: the job server, the shell's place,
	# make's own recursion bookkeeping, the build lock's path and our own
	# variables.
	env -0 | tr '\0' '\n' | grep -Ev "^(MAKEFLAGS|MFLAGS|MAKELEVEL|MAKE_TERMOUT|MAKE_TERMERR|MAKEOVERRIDES|OLDPWD|PWD|SHLVL|_|KBUILD_LOCK|$OUR_VARS)=" |
		sort
	# Command-line variables, the part of MAKEFLAGS after " -- ".
	case "${MAKEFLAGS:-}" in
	*' -- '*) printf '%s\n' "${MAKEFLAGS#* -- }" | tr ' ' '\n' |
		grep -Ev "^($OUR_VARS)=" | sort ;;
	esac
}

unchanged() {
	local path
	[ -f "$stamp" ] || return 1
	for path in "${outputs[@]}"; do
		[ -e "$path" ] || return 1
	done
	[ "$(tail -n +2 "$stamp")" = "$(key "$@")" ] || return 1
	[ -z "$(find "$src" -path "$src/.git" -prune -o -newer "$stamp" -print -quit)" ] ||
		return 1
	[ "${#watch[@]}" -eq 0 ] && return 0
	for path in "${watch[@]}"; do
		[ -e "$path" ] || return 1
	done
	[ -z "$(find "${watch[@]}" -newer "$stamp" -print -quit)" ]
}

# As make would have echoed it (make bench-loop's phases start here).
echo "$*"
if unchanged "$@"; then
	echo "kbuild: skipped: nothing it reads changed since it last ran ($stamp)"
	exit 0
fi
rm -f "$stamp"
{ echo "kbuild stamp: see uml/kbuild.sh"; key "$@"; } >"$stamp.new"
"$@"
mv "$stamp.new" "$stamp"
