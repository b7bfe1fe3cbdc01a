#!/bin/bash
# make bench: boot ./linux (or, with --arch x86_64, the x86_64 kernel under
# qemu) with the explicit-only "bench" suite (tests/bench_pgtables.c),
# which attaches N = 1..512 processes to one region (1 GiB of it touched),
# mshare and MAP_SHARED memfd, and prints its data as "bench-csv: " lines.
# Here: extract them into build/bench/pgtables.csv (build/x86_64/bench/),
# plot pgtables.png next to it, print the table, the goals and the 1500 x
# 300 GB extrapolation; on x86_64, also the table side by side with
# ./linux's last run when there is one (uml/bench_compare.py).
#
# usage: bench.sh [--arch um|x86_64] [--cpus N]
#        (env: BENCH_MEM=3G, BENCH_TIMEOUT=900 seconds)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
arch=um
cpus=2
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) arch=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	*) echo "bench: unknown option $1 (see the usage line in $0)" >&2; exit 2 ;;
	esac
done
case "$arch" in
um) out=$root/build/bench ;;
x86_64) out=$root/build/x86_64/bench ;;
*) echo "bench: --arch um or x86_64, not '$arch'" >&2; exit 2 ;;
esac
log=$out/bench.log
csv=$out/pgtables.csv
dat=$out/pgtables.dat
png=$out/pgtables.png
# The memfd run at N=512 has 512 * 2052 kB = 1 GiB of page tables.
mem=${BENCH_MEM:-3G}
timeout=${BENCH_TIMEOUT:-900}

die() {
	echo "bench: $*" >&2
	exit 1
}

command -v gnuplot >/dev/null || die "gnuplot not found (make deps installs gnuplot-nox)"
mkdir -p "$out"
rm -f "$csv" "$dat" "$png"

start=$(date +%s)
rc=0
if [ "$arch" = x86_64 ]; then
	echo "bench: booting the x86_64 kernel, $cpus CPUs, ${mem}iB, harness.run=bench (console in $log)"
	MEM_MB=$(numfmt --from=iec --to-unit=Mi "$mem") bash "$root/uml/run-qemu.sh" \
		--quiet --cpus "$cpus" --timeout "$timeout" --log "$log" --tests bench || rc=$?
	head -n 1 "$log"
else
	# Without host ASLR UML's memory layout, and so MemTotal, is the same
	# on every boot.
	if command -v setarch >/dev/null; then
		export LINUX_WRAPPER="setarch x86_64 -R"
	fi
	echo "bench: booting ./linux mem=$mem harness.run=bench (about 6 minutes; console in $log)"
	bash "$root/uml/run-linux.sh" --timeout "$timeout" --log "$log" \
		--tests bench -- "mem=$mem" || rc=$?
fi
elapsed=$(($(date +%s) - start))

# The header comes once per test; a kernel message may precede a line.
grep -a 'bench-csv: ' "$log" | sed 's/.*bench-csv: //' | tr -d '\r' |
	awk -F, 'NF == 18 && ($1 != "kind" || !seen++)' >"$csv"
rows=$(($(wc -l <"$csv") - 1))
[ "$rows" -gt 0 ] || die "no bench-csv lines in $log (run-linux exit $rc)"

# One line per N: N, then total and per-process kB for mshare and memfd.
awk -F, '$2 == "sparse" { pt[$3, $1] = $10; pp[$3, $1] = $11; n[$3] = 1 }
	END {
		for (i in n)
			if ((i, "mshare") in pt && (i, "memfd") in pt)
				print i, pt[i, "mshare"], pp[i, "mshare"],
				      pt[i, "memfd"], pp[i, "memfd"]
	}' "$csv" | sort -n >"$dat"

gnuplot <<EOF
set terminal pngcairo noenhanced size 900,600 font ",11"
set output "$png"
set title "Page tables of N processes attached to one 1 GiB region (one page per 2 MiB touched)"
set xlabel "processes attached (N)"
set ylabel "page tables (PageTables in /proc/meminfo, after - before)"
set logscale xy 2
set xrange [0.8:640]
set yrange [2:2097152]
set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
set ytics ("4 kB" 4, "16 kB" 16, "64 kB" 64, "256 kB" 256, "1 MiB" 1024, \
	"2 MiB" 2048, "16 MiB" 16384, "128 MiB" 131072, "1 GiB" 1048576)
set grid
set key top left
plot "$dat" using 1:4 with linespoints lw 2 pt 7 title "memfd (MAP_SHARED shmem), all N", \
     "$dat" using 1:2 with linespoints lw 2 pt 5 title "mshare, all N", \
     "$dat" using 1:5 with linespoints dt 2 pt 6 title "memfd, per process", \
     "$dat" using 1:3 with linespoints dt 2 pt 4 title "mshare, per process"
EOF

echo
echo "bench: one 1 GiB region, one page per 2 MiB touched; page tables = PageTables after - before"
awk -F, '$2 == "sparse" { pt[$3, $1] = $10; pp[$3, $1] = $11; ms[$3, $1] = $16
		fps[$3, $1] = $17 }
	END {
		printf "%5s | %10s %9s | %10s %9s | %8s | %7s %7s | %9s %9s\n",
		       "N", "mshare kB", "kB/proc", "memfd kB", "kB/proc",
		       "memfd/", "mshare", "memfd", "mshare", "memfd"
		printf "%5s | %10s %9s | %10s %9s | %8s | %7s %7s | %9s %9s\n",
		       "", "", "", "", "", "mshare", "s", "s", "faults/s",
		       "faults/s"
		for (i = 1; i <= 512; i *= 2) {
			if (!((i, "mshare") in pt) || !((i, "memfd") in pt))
				continue
			ratio = "-"
			if (pt[i, "mshare"] > 0)
				ratio = sprintf("%.1fx", pt[i, "memfd"] / pt[i, "mshare"])
			printf "%5d | %10d %9.1f | %10d %9.1f | %8s | %7.1f %7.1f | %9d %9d\n",
			       i, pt[i, "mshare"], pp[i, "mshare"], pt[i, "memfd"],
			       pp[i, "memfd"], ratio, ms[i, "mshare"] / 1000,
			       ms[i, "memfd"] / 1000, fps[i, "mshare"],
			       fps[i, "memfd"]
		}
	}' "$csv"

echo
echo "bench: every page touched (first-touch faults) against one page per 2 MiB:"
echo "       page tables per 2 MiB of region, all N processes together"
awk -F, '$2 == "sparse" { sp[$3, $1] = $10 / ($4 / 2048) }
	$2 == "full" { full[++k] = $0 }
	END {
		printf "%-6s %3s | %9s | %8s | %10s %10s | %8s %6s %9s\n",
		       "kind", "N", "touched", "full kB", "full", "sparse",
		       "faults", "s", "faults/s"
		printf "%-6s %3s | %9s | %8s | %10s %10s | %8s %6s %9s\n",
		       "", "", "", "", "kB/2MiB", "kB/2MiB", "", "", ""
		for (j = 1; j <= k; j++) {
			split(full[j], f, ",")
			sparse = "-"
			if ((f[3], f[1]) in sp)
				sparse = sprintf("%.2f", sp[f[3], f[1]])
			printf "%-6s %3d | %5d MiB | %8d | %10.2f %10s | %8d %6.1f %9d\n",
			       f[1], f[3], f[4] / 1024, f[10],
			       f[10] / (f[4] / 2048), sparse, f[15], f[16] / 1000,
			       f[17]
		}
		print "(each memfd process, and the mshare region, also has one PMD page: 4 kB over 64 spans, or over 512)"
	}' "$csv"

echo
awk -F, -v gib_sga=300 -v procs=1500 -v article_gb=878 '
	$2 == "sparse" { pt[$3, $1] = $10; pp[$3, $1] = $11
			 if ($3 > nmax) nmax = $3 }
	END {
		if (!((1, "mshare") in pt) || !((nmax, "memfd") in pt)) {
			print "bench: not enough data for the goals"
			exit
		}
		extra = (pt[nmax, "mshare"] - pt[1, "mshare"]) / (nmax - 1)
		ratio = 0
		if (pt[nmax, "mshare"] > 0)
			ratio = pt[nmax, "memfd"] / pt[nmax, "mshare"]
		memfd_pp = pp[nmax, "memfd"]
		printf "bench: goals (N = 1..%d)\n", nmax
		printf "  mshare: each extra process adds %.0f bytes of page tables (goal: close to 0)\n",
		       extra * 1024
		printf "  memfd: %.0f kB per process per fully mapped GiB (goal: >= 2048) %s\n",
		       memfd_pp, (memfd_pp >= 2048 ? "met" : "NOT MET")
		printf "  memfd/mshare at N=%d: %.1fx (goal: >= 500x) %s\n", nmax,
		       ratio, (ratio >= 500 ? "met" : "NOT MET")
		# 300 GB as the article counts it: 300 GiB of 4 KiB pages.
		pte_only = gib_sga * 2^30 / 4096 * 8 * procs / 2^30
		memfd_gib = memfd_pp * gib_sga * procs / 2^20
		once = pt[1, "mshare"] * gib_sga
		mshare_gib = (once + extra * gib_sga * (procs - 1)) / 2^20
		printf "\nbench: %d processes x %d GB SGA (LWN: \"878GB+\" of PTEs without sharing)\n",
		       procs, gib_sga
		printf "  arithmetic, 8-byte PTEs for every 4 KiB page: %.1f GiB\n",
		       pte_only
		printf "  memfd, measured %.0f kB/GiB per process: %.1f GiB (%+.1f%% against %.1f; the article says %d)\n",
		       memfd_pp, memfd_gib, (memfd_gib / pte_only - 1) * 100,
		       pte_only, article_gb
		printf "  mshare, measured %.0f kB/GiB once + %.0f bytes/GiB per extra process: %.2f GiB\n",
		       pt[1, "mshare"], extra * 1024, mshare_gib
	}' "$csv"

echo
echo "bench: $rows runs in $csv, plot $png"
if [ "$arch" = x86_64 ]; then
	echo
	python3 "$root/uml/bench_compare.py" "$root/build/bench/pgtables.csv" "$csv"
fi
echo "bench: make bench took $((elapsed / 60))m$((elapsed % 60))s (boot to power-off)"
[ "$rc" -eq 0 ] || die "the $arch kernel exited $rc (see $log): the figures above may be incomplete"
