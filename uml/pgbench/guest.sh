#!/bin/bash
# make pgbench, the guest's half: runs as root inside ./linux (through
# uml/run-program.sh, the host's / as its root).  PostgreSQL 15 under
# pgbench's TPC-B-like script: a session of the server started plain, then
# one of the server started under the launcher (mshare-run), each running
# pgbench once for every client count and checking the TPC-B invariants
# after each run; the launcher's session ends with a kill -9 of a backend
# in the middle of a run and the checks of the recovery.  After each
# session: no region left, the memory back.
#
# usage: guest.sh --launcher PATH [--launcher-opt OPT]... [--scale N]
#                 [--seconds N] [--shared-buffers SIZE] [--kill-clients N]
#                 [--shared-memory-type mmap|sysv] [--no-kill-run]
#                 [--cache HOSTDIR] [--] CLIENTS...
# --shared-memory-type: PostgreSQL's setting of that name, which says how
# the server makes its main segment: mmap (its default) or sysv (shmget),
# the two ways mshare-run takes memory.
# --cache: where the initialised cluster of each scale is kept between
# boots (a host directory: the host's / is the guest's).
#
# Prints raw results for uml/pgbench/results.py, one record a line, fields
# separated by tabs, the first naming the record:
#   pgbench-config  key value
#   pgbench-run     mode clients threads pgbench_T connect_seconds
#   pgbench-sample  mode clients key value          (half-way through it)
#   pgbench-region  mode clients LINE               (debugfs regions then)
#   pgbench-out     mode clients LINE               (pgbench's output)
#   pgbench-check   mode clients check verdict detail
#   pgbench-memory  mode phase anon_shared_kB pagetables_kB
#   pgbench-time    phase seconds
# mode: "plain", "mshare" (the server under the launcher), "kill" (the
# kill -9 run; its pgbench after the recovery is "kill-after").  Lines
# for people start "pgbench: ".  The exit status is the verdict: 0 only if
# every check passed.
set -eu

# The environment init gives a program is bare: PostgreSQL's binaries
# (Debian keeps them out of PATH) and the usual directories.
export PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C

# Everything PostgreSQL writes is on the guest's tmpfs: hostfs cannot
# chmod a socket or keep the postgres user's modes (initdb and the
# postmaster insist on both).
work=/dev/shm/pgbench
data=$work/data
socket_dir=$work/socket
server_log=$work/server.log
db_owner=postgres
export PGHOST=$socket_dir PGDATABASE=postgres PGUSER=$db_owner

regions_file=/sys/kernel/debug/mshare/regions
# What starts a line of mshare-run's in the server's log: "mshare-run[PID]: ".
launcher_log_line='^mshare-run(\[[0-9]+\])?: '
msharefs=/sys/fs/mshare

launcher=
launcher_opts=()
scale=16
seconds=30
shared_buffers=256MB
shared_memory_type=mmap
kill_clients=8
kill_run=1
cache_dir=
client_counts=()
initdb_opts=(-U "$db_owner" -A trust -E UTF8 --locale=C --no-sync --no-instructions)
# pgbench threads: as many as clients up to this; ./linux has one CPU, so
# more threads would only add switches.
max_threads=4
# How long the server may take to start, stop or recover, in seconds.
server_wait=120
# What a session may leave in anonymous and shared memory and in page
# tables (kB): between sessions they moved by 100 to 400 kB and 0 to
# 12 kB in the runs so far; a segment left behind would be every page
# the server touched, tens of MB even at scale 1.
anon_shared_slack_kb=4096
pagetables_slack_kb=64

postmaster_job=
postgres_version=
pause_fd=
client_pids=()
memory_before=
segments_before=
history_rows=
start_us=${EPOCHREALTIME/./}

# Seconds since the script started, to a tenth.
elapsed() {
	local tenths=$(((${EPOCHREALTIME/./} - start_us) / 100000))
	echo "$((tenths / 10)).$((tenths % 10))"
}

say() {
	echo "pgbench: [$(elapsed)s] $*"
}

# Sleeps $1 seconds (fractions too) in this shell: sleep(1) is an exec,
# and an exec costs ./linux up to 0.6 s, more under load.  The fd is a
# FIFO that nobody writes (main opens it).
pause() {
	read -r -t "$1" -u "$pause_fd" _ || true
}

# A record for results.py: name, then fields, tab-separated.
record() {
	local IFS=$'\t'
	echo "$*"
}

# The server's log, for whoever reads the console after a failure.
dump_server_log() {
	[ -f "$server_log" ] || return 0
	say "last lines of the server log ($server_log):"
	tail -n 40 "$server_log" | sed 's/^/pgbench-server-log| /'
}

fail() {
	say "FAIL: $*"
	dump_server_log
	exit 1
}

# pause()'s fd stays this shell's.
as_postgres() {
	setpriv --reuid="$db_owner" --regid="$db_owner" --init-groups -- "$@" {pause_fd}>&-
}

# This script runs at nice -10 (main), so that under the load of a run
# its polls and samples happen when it means them to (./linux has one
# CPU); the server and pgbench, the workload, run at the usual 0.
workload() {
	nice -n 10 setpriv --reuid="$db_owner" --regid="$db_owner" --init-groups -- "$@" {pause_fd}>&-
}

# One value or one row, '|'-separated, of a query.
sql() {
	as_postgres psql -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"
}

parse_args() {
	local n
	while [ $# -gt 0 ]; do
		case "$1" in
		--launcher) launcher=$2; shift 2 ;;
		--launcher-opt) launcher_opts+=("$2"); shift 2 ;;
		--scale) scale=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--shared-buffers) shared_buffers=$2; shift 2 ;;
		--shared-memory-type) shared_memory_type=$2; shift 2 ;;
		--kill-clients) kill_clients=$2; shift 2 ;;
		--no-kill-run) kill_run=; shift ;;
		--cache) cache_dir=$2; shift 2 ;;
		--) shift; break ;;
		-*) fail "unknown option $1 (see the usage line in $0)" ;;
		*) break ;;
		esac
	done
	client_counts=("$@")
	[ -n "$launcher" ] || fail "--launcher PATH is required (the mshare-run binary)"
	[ -x "$launcher" ] ||
		fail "launcher $launcher: not an executable file (make builds build/mshare-run/mshare-run)"
	[ ${#client_counts[@]} -gt 0 ] || fail "no client counts given"
	for n in "$scale" "$seconds" "$kill_clients" "${client_counts[@]}"; do
		case "$n" in
		'' | *[!0-9]* | 0) fail "scale, seconds and client counts are whole numbers above 0, got '$n'" ;;
		esac
	done
	[ "$seconds" -ge 2 ] || fail "--seconds: at least 2 (the sample is taken half-way)"
	case "$shared_memory_type" in
	mmap | sysv) ;;
	*) fail "--shared-memory-type: mmap or sysv (PostgreSQL's shared_memory_type), got '$shared_memory_type'" ;;
	esac
}

# A stand-in launcher (e.g. /usr/bin/env, to try this script before
# mshare-run exists) makes no region: the region checks then only report.
launcher_makes_regions() {
	[ "$(basename "$launcher")" = mshare-run ]
}

largest_client_count() {
	local n max=$kill_clients
	for n in "${client_counts[@]}"; do
		[ "$n" -le "$max" ] || max=$n
	done
	echo "$max"
}

# A field of /proc/meminfo in kB, read by the shell itself (see pause()).
meminfo_kb() {
	local key value _
	while read -r key value _; do
		if [ "$key" = "$1:" ]; then
			echo "$value"
			return 0
		fi
	done </proc/meminfo
	fail "no $1 in /proc/meminfo"
}

# The guest's memory now, in kB: anonymous and shared memory outside the
# files of /dev/shm (AnonPages + Shmem - tmpfs in use: the data directory
# grows from run to run), and PageTables.  The server's segment is in the
# first while it runs: shared memory when the server runs plain, the
# region's anonymous pages under mshare-run.
memory_state() {
	local tmpfs_used
	tmpfs_used=$(df -k --output=used /dev/shm | tail -n 1)
	echo "$(($(meminfo_kb AnonPages) + $(meminfo_kb Shmem) - tmpfs_used))" \
		"$(meminfo_kb PageTables)"
}

# Sum of VmPTE (kB) over the server's processes and how many there are:
# postmaster, its auxiliary processes and a backend per client.  cat, not
# awk, opens the files: a process may exit in between, and awk would stop
# at the first file gone.  Name: is the first line of each.
postgres_vmpte() {
	cat /proc/[0-9]*/status 2>/dev/null |
		awk '$1 == "Name:" { name = $2 }
		     $1 == "VmPTE:" && name == "postgres" { kb += $2; n++ }
		     END { print kb + 0, n + 0 }'
}

# The regions' own page tables (bytes) and how many regions there are.
region_pgtables() {
	awk '{ for (i = 1; i <= NF; i++)
		 if (sub(/^pgtables_bytes=/, "", $i)) bytes += $i
	       n++ }
	     END { print bytes + 0, n + 0 }' "$regions_file"
}

# The names of the regions in debugfs, blank-separated.  This and the
# helpers below read files with the shell's own builtins (see pause()).
region_names() {
	local name _ names=()
	while read -r name _; do
		names+=("${name#name=}")
	done <"$regions_file"
	echo "${names[*]}"
}

# The lines of debugfs's region list, blank-separated.
region_lines() {
	local lines=()
	mapfile -t lines <"$regions_file"
	echo "${lines[*]}"
}

# Files in msharefs besides mshare_info, blank-separated.
msharefs_files() {
	local path names=()
	for path in "$msharefs"/* "$msharefs"/.[!.]*; do
		[ -e "$path" ] || continue
		[ "${path##*/}" = mshare_info ] || names+=("${path##*/}")
	done
	echo "${names[*]}"
}

# What the cached cluster was made by and from: PostgreSQL's version,
# initdb's options and pgbench -i's scale.  A cache whose key differs is
# made again.
cluster_key() {
	printf '%s\n' "$postgres_version" "initdb ${initdb_opts[*]}" \
		"pgbench -i -s $scale"
}

# The server's settings of this boot, included by postgresql.conf.
# shared_memory_type: with mmap (PostgreSQL's default, said aloud)
# shared_buffers and the rest of the main segment are one
# MAP_SHARED|MAP_ANONYMOUS mapping, with sysv one SysV segment (shmget,
# shmat): the one mshare-run moves into a region either way.  With mmap
# the server also makes a SysV segment of a few bytes, an interlock
# against a second postmaster, too small for mshare-run.
# huge_pages=off: the segment is made once, without a huge-page try first.
# max_wal_size: the WAL is on tmpfs, in the guest's memory.
write_config() {
	local max_connections
	# Room for every client, psql beside them and the superuser slots.
	max_connections=$(($(largest_client_count) + 10))
	cat >"$data/pgbench.conf" <<-EOF
		# written by uml/pgbench/guest.sh
		listen_addresses = ''
		unix_socket_directories = '$socket_dir'
		max_connections = $max_connections
		shared_buffers = $shared_buffers
		shared_memory_type = $shared_memory_type
		huge_pages = off
		max_wal_size = 256MB
		min_wal_size = 32MB
	EOF
	chown "$db_owner:" "$data/pgbench.conf"
	record pgbench-config shared_buffers "$shared_buffers"
	record pgbench-config shared_memory_type "$shared_memory_type"
	record pgbench-config max_connections "$max_connections"
	record pgbench-config scale "$scale"
	record pgbench-config seconds "$seconds"
	record pgbench-config launcher "$launcher ${launcher_opts[*]}"
	record pgbench-config mem_total_kB "$(meminfo_kb MemTotal)"
}

# initdb and pgbench -i, in this boot: initdb execs postgres several
# times, and took ./linux about 25 s.
make_cluster() {
	as_postgres initdb -D "$data" "${initdb_opts[@]}" >"$work/initdb.log" 2>&1 ||
		{ cat "$work/initdb.log"; fail "initdb failed"; }
	echo "include 'pgbench.conf'" >>"$data/postgresql.conf"
	write_config
	start_server init
	workload pgbench -i -q -s "$scale" >"$work/init.out" 2>&1 ||
		{ cat "$work/init.out"; fail "pgbench -i -s $scale failed"; }
	check_invariants init -
	stop_server init
}

save_cluster() {
	local tar=$1 key_file=$2
	mkdir -p "$cache_dir"
	tar -C "$work" -cf "$tar.tmp" data || fail "cannot write $tar.tmp"
	cluster_key >"$key_file.tmp"
	mv "$tar.tmp" "$tar"
	mv "$key_file.tmp" "$key_file"
	say "cluster saved to $tar"
}

# The data directory of a fresh cluster after pgbench -i -s SCALE, from the
# cache on the host when its key matches, else made and saved there.
# hostfs keeps neither the owner nor the modes PostgreSQL wants: the cache
# is a tar file, which does.
prepare_cluster() {
	local tar=$cache_dir/cluster-scale$scale.tar key_file
	key_file=$tar.key
	postgres_version=$(postgres --version)
	rm -rf "$work"
	mkdir -p "$data" "$socket_dir"
	chown -R "$db_owner:" "$work"
	chmod 700 "$data"
	if [ -n "$cache_dir" ] && [ -f "$tar" ] && [ -f "$key_file" ] &&
		[ "$(cat "$key_file")" = "$(cluster_key)" ]; then
		tar -C "$work" -xf "$tar" || fail "cannot extract $tar"
		write_config
		say "cluster of scale $scale from $tar"
	else
		make_cluster
		say "cluster of scale $scale made (initdb, pgbench -i)"
		[ -z "$cache_dir" ] || save_cluster "$tar" "$key_file"
	fi
	# pgbench -i leaves pgbench_history empty.
	history_rows=0
	record pgbench-config postgres "$postgres_version"
	record pgbench-time cluster "$(elapsed)"
}

# The postmaster's status, the last line of postmaster.pid ("starting",
# "ready", "stopping"), as pg_ctl reads it; pg_isready would be an exec a
# poll.
postmaster_status() {
	local lines=()
	[ -f "$data/postmaster.pid" ] || return 0
	mapfile -t lines <"$data/postmaster.pid" 2>/dev/null || return 0
	[ ${#lines[@]} -ge 8 ] && echo "${lines[7]// /}"
}

postmaster_pid() {
	local first=
	[ -f "$data/postmaster.pid" ] && read -r first <"$data/postmaster.pid"
	echo "$first"
}

wait_until_ready() {
	local waited=0
	until [ "$(postmaster_status)" = ready ]; do
		kill -0 "$postmaster_job" 2>/dev/null ||
			fail "the server exited while starting"
		[ "$waited" -lt $((server_wait * 10)) ] ||
			fail "the server was not ready within ${server_wait}s"
		pause 0.1
		waited=$((waited + 1))
	done
}

# $1: mshare for the server under the launcher; plain (or init, while the
# cluster is made) for the server as it is.
start_server() {
	local mode=$1 prefix=()
	[ "$mode" != mshare ] || prefix=("$launcher" "${launcher_opts[@]}" --)
	memory_before=$(memory_state)
	segments_before=$(sysv_segments)
	# shellcheck disable=SC2086 # two fields
	record pgbench-memory "$mode" before_start $memory_before
	: >"$server_log"
	chown "$db_owner:" "$server_log"
	workload "${prefix[@]}" postgres -D "$data" >>"$server_log" 2>&1 &
	postmaster_job=$!
	wait_until_ready
	say "$mode: server ready"
	[ "$mode" != mshare ] || check_launcher_took_segment
}

# Under mshare-run the main segment must be in a region, and the
# launcher's log must say which mapping it took.
check_launcher_took_segment() {
	local lines=() line took=
	mapfile -t lines <"$server_log"
	for line in "${lines[@]}"; do
		[[ "$line" =~ $launcher_log_line ]] || continue
		echo "pgbench: launcher: $line"
		[[ ! "$line" =~ ${launcher_log_line}took\  ]] || took=1
	done
	launcher_makes_regions || return 0
	[ -n "$(region_names)" ] ||
		fail "the server runs under $launcher but $regions_file lists no region"
	[ -n "$took" ] ||
		fail "the server runs under $launcher but its log has no line of mshare-run's saying what it took"
}

# $1: the session's mode, for the records.
stop_server() {
	local mode=$1 status=0 pid
	# A fast shutdown as pg_ctl stop -m fast asks for it (SIGINT to the
	# postmaster), without pg_ctl's exec and polls: the job ends when the
	# postmaster (and the launcher, if it waits for it) has exited.
	pid=$(postmaster_pid)
	[ -n "$pid" ] || fail "no postmaster pid in $data/postmaster.pid"
	kill -INT "$pid"
	wait "$postmaster_job" || status=$?
	postmaster_job=
	[ "$status" -eq 0 ] ||
		fail "the server (and the launcher) exited $status after a fast shutdown"
	say "$mode: server stopped"
	check_nothing_left "$mode"
}

# How many SysV shared memory segments there are (/proc/sysvipc/shm: a
# header, then a line each), read by the shell itself (see pause()).
sysv_segments() {
	local lines=()
	mapfile -t lines </proc/sysvipc/shm
	echo $((${#lines[@]} - 1))
}

# After a stop: no region in debugfs or msharefs, no SysV segment more
# than before the start, the memory back.
check_nothing_left() {
	local mode=$1 left memory_after anon_before pt_before anon_after pt_after
	left=$(region_lines)
	[ -z "$left" ] || fail "regions left after the server stopped: $left"
	left=$(msharefs_files)
	[ -z "$left" ] || fail "files left in $msharefs after the server stopped: $left"
	left=$(sysv_segments)
	[ "$left" -le "$segments_before" ] ||
		fail "SysV segments left after the server stopped: $left, $segments_before before it started"
	memory_after=$(memory_state)
	# shellcheck disable=SC2086 # two fields
	record pgbench-memory "$mode" after_stop $memory_after
	read -r anon_before pt_before <<<"$memory_before"
	read -r anon_after pt_after <<<"$memory_after"
	[ "$anon_after" -le $((anon_before + anon_shared_slack_kb)) ] ||
		fail "memory not given back: anonymous and shared memory outside tmpfs files $anon_before kB before the server started, $anon_after kB after it stopped"
	[ "$pt_after" -le $((pt_before + pagetables_slack_kb)) ] ||
		fail "page tables not given back: PageTables $pt_before kB before the server started, $pt_after kB after it stopped"
	record pgbench-check "$mode" - cleanup ok \
		"no region, msharefs empty, $left SysV segments ($segments_before before); anonymous and shared memory outside tmpfs files $anon_before -> $anon_after kB, PageTables $pt_before -> $pt_after kB"
}

# Sum of balances in accounts, branches and tellers, sum of history's
# deltas and its rows: each TPC-B transaction adds the same delta to one
# of each and a row to history, so the four sums stay equal.  Sets
# history_rows.
check_invariants() {
	local mode=$1 clients=$2 sums a b t h rows
	sums=$(sql "SELECT (SELECT sum(abalance) FROM pgbench_accounts),
			   (SELECT sum(bbalance) FROM pgbench_branches),
			   (SELECT sum(tbalance) FROM pgbench_tellers),
			   (SELECT coalesce(sum(delta), 0) FROM pgbench_history),
			   (SELECT count(*) FROM pgbench_history)") ||
		fail "the invariants query failed"
	IFS='|' read -r a b t h rows <<<"$sums"
	if [ "$a" != "$b" ] || [ "$a" != "$t" ] || [ "$a" != "$h" ]; then
		record pgbench-check "$mode" "$clients" invariants FAIL \
			"accounts $a, branches $b, tellers $t, history $h"
		fail "TPC-B invariants broken ($mode, $clients clients): sum(abalance)=$a sum(bbalance)=$b sum(tbalance)=$t sum(delta)=$h"
	fi
	record pgbench-check "$mode" "$clients" invariants ok \
		"balance sums $a, history rows $rows"
	history_rows=$rows
}

# Every transaction pgbench counts as processed committed one history
# row: $3 is its output, $4 the history rows before it ran.
check_committed() {
	local mode=$1 clients=$2 out=$3 rows_before=$4 committed
	committed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$out")
	[ -n "$committed" ] || fail "no transaction count in pgbench's output ($mode, $clients clients)"
	[ $((history_rows - rows_before)) -eq "$committed" ] ||
		fail "pgbench committed $committed transactions but pgbench_history grew by $((history_rows - rows_before)) ($mode, $clients clients)"
	record pgbench-check "$mode" "$clients" committed ok \
		"$committed transactions, as many new history rows"
}

history_count() {
	sql 'SELECT count(*) FROM pgbench_history'
}

# Sets client_pids to the pids of the backends of clients on the socket,
# from their process titles ("postgres: USER DATABASE [local] STATE"),
# in this shell: a subshell, psql or wc would cost ./linux up to a second
# under load (see pause()).
find_client_backends() {
	local cmdline title
	client_pids=()
	for cmdline in /proc/[0-9]*/cmdline; do
		title=
		{ read -r -d '' title <"$cmdline"; } 2>/dev/null || true
		case "$title" in
		"postgres: $PGUSER $PGDATABASE [local]"*)
			cmdline=${cmdline#/proc/}
			client_pids+=("${cmdline%/cmdline}") ;;
		esac
	done
}

# Until $1 clients are connected; fails if pgbench ($2) ends first.
wait_for_clients() {
	local want=$1 pid=$2 out=$3 waited=0
	find_client_backends
	until [ ${#client_pids[@]} -ge "$want" ]; do
		kill -0 "$pid" 2>/dev/null ||
			{ cat "$out"; fail "pgbench ended before its $want clients were connected"; }
		[ "$waited" -lt $((server_wait * 5)) ] ||
			fail "$want pgbench clients not connected within ${server_wait}s"
		# Not more often: each poll reads every process's cmdline, at
		# nice -10, while the postmaster forks the backends.
		pause 0.2
		waited=$((waited + 1))
		find_client_backends
	done
}

# What the run costs in page tables, half-way through it.
sample() {
	local mode=$1 clients=$2 vmpte procs bytes regions line
	find_client_backends
	[ ${#client_pids[@]} -ge "$clients" ] ||
		fail "${#client_pids[@]} of $clients clients connected at the half-way sample ($mode)"
	read -r vmpte procs <<<"$(postgres_vmpte)"
	read -r bytes regions <<<"$(region_pgtables)"
	record pgbench-sample "$mode" "$clients" pagetables_kB "$(meminfo_kb PageTables)"
	record pgbench-sample "$mode" "$clients" vmpte_sum_kB "$vmpte"
	record pgbench-sample "$mode" "$clients" postgres_procs "$procs"
	record pgbench-sample "$mode" "$clients" region_pgtables_bytes "$bytes"
	record pgbench-sample "$mode" "$clients" regions "$regions"
	record pgbench-sample "$mode" "$clients" shmem_kB "$(meminfo_kb Shmem)"
	record pgbench-sample "$mode" "$clients" anon_kB "$(meminfo_kb AnonPages)"
	while read -r line; do
		record pgbench-region "$mode" "$clients" "$line"
	done <"$regions_file"
}

report_pgbench_output() {
	local mode=$1 clients=$2 out=$3 line
	while IFS= read -r line; do
		record pgbench-out "$mode" "$clients" "$line"
	done <"$out"
}

threads_for() {
	echo $(($1 < max_threads ? $1 : max_threads))
}

# pgbench's -T for $1 seconds of $2 connected clients: its clock starts
# before it connects them, and ./linux took from 0.2 s a connection (8
# clients) to 0.4 s (128); 0.3 s a client on top leaves the connected
# clients about $1, less with the most clients.
pgbench_seconds() {
	echo $(($1 + ($2 * 3 + 9) / 10))
}

# One measured run of pgbench with $2 clients against the running server
# of mode $1, sampled half-way through what is left of it once every
# client is connected, then checked.
measured_run() {
	local mode=$1 clients=$2 threads out pid status=0 rows_before=$history_rows
	local run_seconds run_start_us connect_tenths left_tenths
	threads=$(threads_for "$clients")
	run_seconds=$(pgbench_seconds "$seconds" "$clients")
	out=$work/pgbench-$mode-$clients.out
	say "$mode: $clients clients, $threads threads, pgbench -T $run_seconds"
	# -n: no vacuum and, above all, no truncation of pgbench_history
	# before the run: the invariants need every row.
	run_start_us=${EPOCHREALTIME/./}
	workload pgbench -n -c "$clients" -j "$threads" -T "$run_seconds" >"$out" 2>&1 &
	pid=$!
	wait_for_clients "$clients" "$pid" "$out"
	connect_tenths=$(((${EPOCHREALTIME/./} - run_start_us) / 100000))
	left_tenths=$((run_seconds * 10 - connect_tenths))
	record pgbench-run "$mode" "$clients" "$threads" "$run_seconds" \
		"$((connect_tenths / 10)).$((connect_tenths % 10))"
	say "$mode: $clients clients connected after $((connect_tenths / 10)).$((connect_tenths % 10))s"
	# Connecting is slow on a loaded host (0.6 s a client seen with
	# make test's x86_64 job beside it): with under 2 s left, sample at
	# once; every client is connected and pgbench still runs, which is
	# what the sample needs (the table shows the connect time).
	if [ "$left_tenths" -ge 20 ]; then
		pause "$((left_tenths / 20)).$((left_tenths / 2 % 10))"
	else
		say "$mode: $((left_tenths / 10)).$((left_tenths % 10))s of the run left once connected: sampling at once"
	fi
	kill -0 "$pid" 2>/dev/null || fail "pgbench ended before the half-way sample"
	sample "$mode" "$clients"
	wait "$pid" || status=$?
	report_pgbench_output "$mode" "$clients" "$out"
	[ "$status" -eq 0 ] || fail "pgbench exited $status ($mode, $clients clients)"
	check_invariants "$mode" "$clients"
	check_committed "$mode" "$clients" "$out" "$rows_before"
}

# Whether the server's log has $1 after its first $2 lines.
log_has() {
	local text=$1 skip=$2 lines=() line
	mapfile -t -s "$skip" lines <"$server_log"
	for line in "${lines[@]}"; do
		[[ "$line" != *"$text"* ]] || return 0
	done
	return 1
}

# The postmaster's messages of a crash and a recovery, after its log's
# first $1 lines, in the order it writes them: the last one waited for,
# then the others.
wait_for_recovery() {
	local from=$1 waited=0 text
	until log_has "database system is ready to accept connections" "$from"; do
		[ "$waited" -lt $((server_wait * 5)) ] ||
			fail "the server was not ready again within ${server_wait}s of the kill"
		pause 0.2
		waited=$((waited + 1))
	done
	for text in "terminating any other active server processes" \
		"all server processes terminated; reinitializing"; do
		log_has "$text" "$from" ||
			fail "no \"$text\" in the server's log after the kill"
	done
}

# Old region gone, a new one made: $1 and $2 are the region names
# (blank-separated) before the kill and after the recovery.
check_region_replaced() {
	local old=$1 new=$2 name
	say "kill: regions before: ${old:-none}; after: ${new:-none}"
	launcher_makes_regions || return 0
	[ -n "$old" ] || fail "no region before the kill"
	[ -n "$new" ] || fail "no region after the postmaster reinitialised shared memory"
	for name in $old; do
		[[ " $new " != *" $name "* ]] ||
			fail "region $name of before the kill still listed after the reinitialisation"
	done
	record pgbench-check kill "$kill_clients" region_replaced ok "$old -> $new"
}

# kill -9 of a backend in the middle of a run against the server under
# the launcher: the postmaster must reinitialise shared memory (a new
# segment, so a new region), recover, keep every committed transaction,
# and serve pgbench again.
kill_recovery_run() {
	local clients=$kill_clients threads out pid status=0 victim before_kill
	local old_regions new_regions log_mark rows_before half=$((seconds / 2))
	threads=$(threads_for "$clients")
	out=$work/pgbench-kill.out
	old_regions=$(region_names)
	say "kill: $clients clients until a backend is killed"
	# Long enough never to end by itself: the kill ends it.
	workload pgbench -n -c "$clients" -j "$threads" -T $((seconds + server_wait)) >"$out" 2>&1 &
	pid=$!
	wait_for_clients "$clients" "$pid" "$out"
	pause "$half"
	# Committed before the kill: at least this count.
	before_kill=$(history_count)
	find_client_backends
	[ ${#client_pids[@]} -gt 0 ] || fail "no backend of pgbench's to kill"
	victim=${client_pids[0]}
	log_mark=$(wc -l <"$server_log")
	say "kill: kill -9 $victim (a backend); $before_kill history rows committed before"
	kill -KILL "$victim"
	wait_for_recovery "$log_mark"
	wait "$pid" || status=$?
	report_pgbench_output kill "$clients" "$out"
	say "kill: pgbench exited $status (its clients lost their backends)"
	tail -n "+$((log_mark + 1))" "$server_log" | sed 's/^/pgbench: kill: server: /'
	wait_until_ready
	new_regions=$(region_names)
	check_region_replaced "$old_regions" "$new_regions"
	check_invariants kill "$clients"
	[ "$history_rows" -ge "$before_kill" ] ||
		fail "committed transactions lost: $before_kill history rows before the kill, $history_rows after the recovery"
	record pgbench-check kill "$clients" survived ok \
		"$before_kill history rows before the kill, $history_rows after the recovery"
	rows_before=$history_rows
	say "kill: pgbench again after the recovery, $clients clients, pgbench -T $(pgbench_seconds "$half" "$clients")"
	workload pgbench -n -c "$clients" -j "$threads" -T "$(pgbench_seconds "$half" "$clients")" >"$out" 2>&1 ||
		{ cat "$out"; fail "pgbench after the recovery failed"; }
	report_pgbench_output kill-after "$clients" "$out"
	check_invariants kill-after "$clients"
	check_committed kill-after "$clients" "$out" "$rows_before"
}

# One server of mode $1 for every client count (and, under the launcher,
# the kill -9 run at the end), stopped and checked afterwards.
session() {
	local mode=$1 n
	start_server "$mode"
	for n in "${client_counts[@]}"; do
		measured_run "$mode" "$n"
	done
	if [ "$mode" = mshare ] && [ -n "$kill_run" ]; then
		kill_recovery_run
	fi
	stop_server "$mode"
	record pgbench-time "$mode" "$(elapsed)"
}

# pause()'s fd: a FIFO opened for reading and writing (so that the open
# does not wait for a writer), its name removed at once.
open_pause_fd() {
	local fifo=/dev/shm/pgbench-pause.$$
	mkfifo "$fifo"
	exec {pause_fd}<>"$fifo"
	rm -f "$fifo"
}

# Whatever ended this script, the server goes with it.
cleanup() {
	[ -n "$postmaster_job" ] || return 0
	as_postgres pg_ctl stop -D "$data" -m immediate -w -t 30 >/dev/null 2>&1 || true
}

main() {
	parse_args "$@"
	renice -n -10 -p $$ >/dev/null || fail "renice -n -10 of this script failed"
	open_pause_fd
	trap cleanup EXIT
	[ -r "$regions_file" ] ||
		fail "$regions_file missing (./linux without debugfs or CONFIG_MSHARE?)"
	launcher_makes_regions ||
		say "launcher $launcher is a stand-in, not mshare-run: it makes no region, and the region checks only report"
	prepare_cluster
	session plain
	session mshare
	record pgbench-time total "$(elapsed)"
	say "PASS"
}

main "$@"
