#!/bin/sh
# run_groups.sh: PMIx group costs against a collecting fence of the same data
# (bench_group, test/bench/bench_group.c) on 3 simulated nodes x 2 ranks,
# 4 x 4 and 64 x 1, RUNS times each; prints the load average at start and end
# and two markdown tables of the median over the runs of each run's medians:
# construct, collecting fence, their ratio (per run, then the median), destruct;
# and the invite latency per number of invitees K. Builds nothing.
#   usage: test/bench/run_groups.sh [BUILDDIR] [RUNS] [ITERATIONS] [BYTES] [ITERATIONS_64]
# BUILDDIR defaults to $SPX_TOP_BUILDDIR or the current directory; ITERATIONS
# (default 100) is for 3x2 and 4x4, ITERATIONS_64 (default 20) for 64 nodes,
# where an invite of 63 takes long; BYTES (default 64) is each rank's endpoint.
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
runs=${2:-3}
iters=${3:-100}
bytes=${4:-64}
iters64=${5:-20}
run="$top/tools/spmix-run"
bench="$top/test/bench/bench_group"
for f in "$run" "$bench"; do
    [ -x "$f" ] || { echo "run_groups.sh: $f is not built (make)" >&2; exit 1; }
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# one CONFIG NODES RANKS ITERS: RUNS runs, lines "CONFIG name value" to $work/raw
one() {
    i=0
    while [ "$i" -lt "$runs" ]; do
        if ! timeout 600 "$run" -n "$3" --nodes "$2" --timeout 590 "$bench" "$4" "$bytes" \
                >"$work/out" 2>"$work/err"; then
            echo "run_groups.sh: $1 run $((i + 1)) failed:" >&2
            tail -5 "$work/err" >&2
            exit 1
        fi
        awk -v c="$1" '$1 !~ /^#/ { print c, $1, $2 }' "$work/out" >>"$work/raw"
        i=$((i + 1))
    done
}
one 3x2 3 6 "$iters"
one 4x4 4 16 "$iters"
one 64x1 64 64 "$iters64"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# med CONFIG NAME: median over the runs, or "-" when absent
med() {
    awk -v c="$1" -v m="$2" '$1 == c && $2 == m { v[++n] = $3 }
        END {
            if (!n) { print "-"; exit }
            for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (v[b] < v[a]) { t = v[a]; v[a] = v[b]; v[b] = t }
            x = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            if (m ~ /ratio/) printf "%.2f\n", x; else printf "%.0f\n", x
        }' "$work/raw"
}
echo "| nodes x ranks/node | construct (us) | collecting fence (us) | construct/fence | destruct (us) |"
echo "|---|---:|---:|---:|---:|"
for c in 3x2 4x4 64x1; do
    echo "| $c | $(med $c construct_median) | $(med $c fence_median) |" \
         "$(med $c construct_fence_ratio) | $(med $c destruct_median) |"
done
echo
echo "| invitees K | 3x2 (us) | 4x4 (us) | 64x1 (us) |"
echo "|---:|---:|---:|---:|"
for k in $(awk '$2 ~ /^invite_/ { split($2, p, "_"); print p[2] }' "$work/raw" | sort -n -u); do
    echo "| $k | $(med 3x2 "invite_${k}_median") | $(med 4x4 "invite_${k}_median") |" \
         "$(med 64x1 "invite_${k}_median") |"
done
echo
echo "($runs runs per configuration; $iters iterations on 3x2 and 4x4, $iters64 on 64x1;" \
     "$bytes bytes of endpoint data per rank; each figure is the median over the runs of" \
     "a run's median)"
