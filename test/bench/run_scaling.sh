#!/bin/sh
# run_scaling.sh: fence latency against the number of simulated nodes.
#   usage: test/bench/run_scaling.sh [BUILDDIR] [RUNS] [ITERATIONS] [PNG]
# Runs bench_fence under spmix-run --nodes M for M = 1 2 4 8 16 32 64
# (2 ranks per node up to 16 nodes, 1 rank per node at 32 and 64: every
# simulated node shares this machine's cores), RUNS times each, and prints a
# markdown table of the median over the runs of each run's median fence time
# (barrier, collecting fence with 64 B and 8 KiB per rank), with the depth of
# the tree. Then the same at M = 16 with tree width 2 and 16. Writes a plot of
# latency against M to PNG (default: doc/fence-scaling.png in the source tree)
# with gnuplot, installed with apt-get if missing.
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
runs=${2:-3}
iters=${3:-50}
png=${4:-$(cd "$(dirname "$0")/../.." && pwd)/doc/fence-scaling.png}
run="$top/tools/spmix-run"
bench="$top/test/bench/bench_fence"
for f in "$run" "$bench"; do
    [ -x "$f" ] || { echo "run_scaling.sh: $f is not built (make)" >&2; exit 1; }
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# depth of a reverse tree of width w over m nodes (root alone = 0)
depth() {
    awk -v m="$1" -v w="$2" 'BEGIN { d = 0; cap = 1; lvl = 1;
        while (cap < m) { lvl *= w; cap += lvl; d++ } print d }'
}

# bench M RANKS WIDTH TAG: RUNS runs, raw lines "TAG series median" to $work/raw
bench() {
    i=0
    while [ "$i" -lt "$runs" ]; do
        if ! timeout 300 "$run" --nodes "$1" -n "$2" --width "$3" --timeout 280 \
                "$bench" "$iters" >"$work/out" 2>"$work/err"; then
            echo "run_scaling.sh: M=$1 run $((i + 1)) failed:" >&2
            tail -5 "$work/err" >&2
            exit 1
        fi
        awk -v tag="$4" 'NF == 3 { print tag, $1, $2 }' "$work/out" >>"$work/raw"
        i=$((i + 1))
    done
}

# median of the values of TAG SERIES, in microseconds
med() {
    awk -v tag="$1" -v s="$2" '$1 == tag && $2 == s { v[++n] = $3 }
        END { for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++)
                  if (v[b] < v[a]) { t = v[a]; v[a] = v[b]; v[b] = t }
              if (n == 0) { print "nan"; exit }
              printf "%.0f", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }' \
        "$work/raw"
}

: >"$work/raw"
nodes="1 2 4 8 16 32 64"
for m in $nodes; do
    if [ "$m" -le 16 ]; then n=$((2 * m)); else n=$m; fi
    echo "run_scaling.sh: M=$m ($n ranks), $runs runs" >&2
    bench "$m" "$n" 16 "m$m"
done
echo "run_scaling.sh: M=16 width 2, $runs runs" >&2
bench 16 32 2 "w2"

echo "Fence latency, median over $runs runs of the median of $iters fences (us);"
echo "tree width 16 (the default); 2 ranks per node up to M=16, 1 at M=32 and 64."
echo
echo "| nodes M | ranks | tree depth | barrier | collect 64 B/rank | collect 8 KiB/rank |"
echo "|---:|---:|---:|---:|---:|---:|"
: >"$work/plot.dat"
for m in $nodes; do
    if [ "$m" -le 16 ]; then n=$((2 * m)); else n=$m; fi
    b=$(med "m$m" barrier); c1=$(med "m$m" collect_64B); c8=$(med "m$m" collect_8KiB)
    echo "| $m | $n | $(depth "$m" 16) | $b | $c1 | $c8 |"
    echo "$m $b $c1 $c8" >>"$work/plot.dat"
done
echo
echo "Tree width at M=16 (32 ranks):"
echo
echo "| width | tree depth | barrier | collect 64 B/rank | collect 8 KiB/rank |"
echo "|---:|---:|---:|---:|---:|"
echo "| 2 | $(depth 16 2) | $(med w2 barrier) | $(med w2 collect_64B) | $(med w2 collect_8KiB) |"
echo "| 16 | $(depth 16 16) | $(med m16 barrier) | $(med m16 collect_64B) | $(med m16 collect_8KiB) |"

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "run_scaling.sh: installing gnuplot-nox" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null 2>&1 ||
        { echo "run_scaling.sh: no gnuplot; no plot written" >&2; exit 0; }
fi
gnuplot <<EOF
set terminal pngcairo size 900,560 font "sans,11"
set output "$png"
set title "spmix fence latency on simulated nodes (one 2-core machine, tree width 16)"
set xlabel "simulated nodes M (2 ranks/node up to 16, 1 at 32 and 64)"
set ylabel "median fence time (us)"
set logscale xy
set xtics (1, 2, 4, 8, 16, 32, 64)
set xrange [0.9:72]
set key top left
set grid
plot "$work/plot.dat" using 1:2 with linespoints title "barrier", \
     "$work/plot.dat" using 1:3 with linespoints title "collect 64 B/rank", \
     "$work/plot.dat" using 1:4 with linespoints title "collect 8 KiB/rank"
EOF
echo "run_scaling.sh: plot written to $png" >&2
