#!/bin/bash
# make pgbench: PostgreSQL 15 under pgbench inside ./linux, the server once
# plain and once under mshare-run, in one boot (uml/pgbench/guest.sh does
# the work, through uml/run-program.sh), then the results: the guest's raw
# records out of the console log into build/pgbench/results.tsv and
# table.md (uml/pgbench/results.py) and build/pgbench/pagetables.png
# (uml/pgbench/pagetables.gp).  Exits non-zero if a check in the guest
# failed or the kernel log did not stay clean.
#
# usage: pgbench.sh [--short] [--clients "N..."] [--scale N] [--seconds N]
#                   [--shared-memory-type mmap|sysv] [--out DIR]
# Defaults: clients 1 8 32 64 128, scale 16, 30 seconds, into build/pgbench.
# --short: the version for make test: 8 clients, scale 1, 4 seconds, the
# kill -9 run; into build/pgbench/short unless --out says otherwise.  One
# client count: with 2 and 8 the boot took 76 to 93 s, with 8 alone 70 s
# (83 s beside a kernel build).
# The other options override either mode's values.  --seconds: what each
# run's clients get once connected; pgbench's -T, whose clock counts the
# connecting, is 0.3 s a client more.  --shared-memory-type: how the
# server makes its main segment (PostgreSQL's setting): mmap, its default,
# or sysv, for mshare-run's SysV path (guest.sh).
# The cluster after initdb and pgbench -i is kept per scale in
# build/pgbench/cache (uml/pgbench/guest.sh's --cache): ./linux takes
# about 25 s for initdb alone.
# Environment: MSHARE_RUN, the launcher (default build/mshare-run/mshare-run;
# a stand-in such as /usr/bin/env runs everything but the region checks);
# MSHARE_RUN_OPTS, its options (default "--strict -v"; empty for a
# stand-in); PGBENCH_MEM, the guest's memory (default 3G, 1536M with
# --short); PGBENCH_TIMEOUT, the boot's timeout in seconds (default: from
# the runs asked for).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/uml/pgbench
postgres_bin=/usr/lib/postgresql/15/bin

short=
clients=
scale=
seconds=
out=
shared_memory_type=mmap

die() {
	echo "pgbench: $*" >&2
	exit 2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--short) short=1; shift ;;
		--clients) clients=$2; shift 2 ;;
		--scale) scale=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--shared-memory-type) shared_memory_type=$2; shift 2 ;;
		*) die "unknown option $1 (see the usage line in $0)" ;;
		esac
	done
	case "$shared_memory_type" in
	mmap | sysv) ;;
	*) die "--shared-memory-type: mmap or sysv (PostgreSQL's shared_memory_type), got '$shared_memory_type'" ;;
	esac
	if [ -n "$short" ]; then
		: "${clients:=8}" "${scale:=1}" "${seconds:=4}"
		: "${out:=$root/build/pgbench/short}" "${PGBENCH_MEM:=1536M}"
	else
		: "${clients:=1 8 32 64 128}" "${scale:=16}" "${seconds:=30}"
		: "${out:=$root/build/pgbench}" "${PGBENCH_MEM:=3G}"
	fi
}

# What the boot needs on the host, each missing one named with its cure.
check_prerequisites() {
	local program
	for program in postgres initdb pg_ctl psql pgbench; do
		[ -x "$postgres_bin/$program" ] ||
			die "$postgres_bin/$program not found (PostgreSQL 15): sh uml/install-deps.sh uml/packages-pgbench.txt"
	done
	[ -x "$launcher" ] ||
		die "launcher $launcher not found: make builds build/mshare-run/mshare-run (or set MSHARE_RUN)"
	command -v gnuplot >/dev/null ||
		die "gnuplot not found: make deps installs gnuplot-nox"
	command -v python3 >/dev/null || die "python3 not found: make deps installs it"
	[ -x "$root/linux" ] || die "./linux not found: run make first"
}

# A guard against a hang, not an estimate: fifteen minutes for the boot,
# the kill -9 run and the rest, a minute and a half over each run's
# length (the connecting, the checks), a minute per unit of scale for a
# cluster made afresh (initdb, pgbench -i).
default_timeout() {
	local counts
	read -r -a counts <<<"$clients"
	echo $((900 + ${#counts[@]} * 2 * (seconds + 90) + scale * 60))
}

run_guest() {
	local args=(--launcher "$launcher" --scale "$scale" --seconds "$seconds"
		--shared-memory-type "$shared_memory_type"
		--cache "$root/build/pgbench/cache")
	local opts counts opt
	read -r -a opts <<<"$launcher_opts"
	read -r -a counts <<<"$clients"
	for opt in "${opts[@]}"; do
		args+=(--launcher-opt "$opt")
	done
	args+=(-- "${counts[@]}")
	echo "pgbench: booting ./linux mem=$PGBENCH_MEM: clients $clients, scale $scale, ${seconds}s a run once connected, shared_memory_type $shared_memory_type (console in $log)"
	bash "$root/uml/run-program.sh" --timeout "$timeout" --mem "$PGBENCH_MEM" \
		--log "$log" "$here/guest.sh" "${args[@]}" >/dev/null
}

main() {
	local start rc=0 elapsed
	parse_args "$@"
	launcher=${MSHARE_RUN:-$root/build/mshare-run/mshare-run}
	launcher_opts=${MSHARE_RUN_OPTS---strict -v}
	timeout=${PGBENCH_TIMEOUT:-$(default_timeout)}
	log=$out/console.log
	check_prerequisites
	mkdir -p "$out"
	rm -f "$log" "$out/results.tsv" "$out/table.md" "$out/pagetables.dat" "$out/pagetables.png"

	start=$(date +%s)
	run_guest || rc=$?
	elapsed=$(($(date +%s) - start))

	# The table and the plot from whatever the guest printed, even when a
	# check failed: the console log then says which.
	python3 "$here/results.py" --log "$log" --out "$out" || { [ "$rc" -ne 0 ] || rc=1; }
	if [ -s "$out/pagetables.dat" ]; then
		gnuplot -e "dat='$out/pagetables.dat'; png='$out/pagetables.png'" \
			"$here/pagetables.gp" || { [ "$rc" -ne 0 ] || rc=1; }
	fi
	echo "pgbench: results in $out (results.tsv, table.md, pagetables.png, console.log)"
	echo "pgbench: boot to power-off ${elapsed}s"
	if [ "$rc" -ne 0 ]; then
		grep -a 'pgbench: .*FAIL\|^harness: verdict' "$log" | sed 's/^/  | /' >&2 || true
		echo "pgbench: FAILED (exit $rc): see $log" >&2
		exit "$rc"
	fi
}

main "$@"
