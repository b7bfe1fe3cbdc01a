# make pgbench's plot: page tables against pgbench clients, PostgreSQL's
# server plain and under mshare-run, from uml/pgbench/results.py's
# pagetables.dat.  gnuplot -e "dat='...'; png='...'" pagetables.gp
#
# Columns of dat: clients, PageTables plain, PageTables mshare, sum of
# VmPTE plain, sum of VmPTE mshare, the region's page tables (kB).
set terminal pngcairo noenhanced size 900,600 font ",11"
set output png
set title "PostgreSQL under pgbench in ./linux: page tables half-way through each run"
set xlabel "pgbench clients"
set ylabel "page tables (kB)"
set logscale x 2
# A little room either side of the client counts, one of them or more.
stats dat using 1 nooutput
set xrange [STATS_min / 1.25 : STATS_max * 1.25]
set logscale y 2
set grid
set key top left
plot dat using 1:2 with linespoints lw 2 pt 7 title "PageTables (/proc/meminfo), plain", \
     dat using 1:3 with linespoints lw 2 pt 5 title "PageTables (/proc/meminfo), mshare-run", \
     dat using 1:4 with linespoints dt 2 pt 6 title "sum of the server's VmPTE, plain", \
     dat using 1:5 with linespoints dt 2 pt 4 title "sum of the server's VmPTE, mshare-run", \
     dat using 1:($6 > 0 ? $6 : NaN) with linespoints lw 2 dt 3 pt 9 lc rgb "#8b6508" \
         title "the region's own page tables (debugfs)"
