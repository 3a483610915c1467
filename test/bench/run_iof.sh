#!/bin/sh
# run_iof.sh: throughput of PMIx_IOF_push into ranks' stdin (spmix-push into a
# spmix-run --stdin tool job whose ranks run `cat > /dev/null`) against the
# launcher's own stdin into the same program (spmix-run -n 1, stdin inherited:
# the ranks read the pipe the shell gives spmix-run), RUNS times each,
# alternating; 1 rank on 1 node, and WILDCARD to 6 ranks on 3 simulated nodes
# (every rank gets every byte). Prints MB/s per run and the median.
#   usage: test/bench/run_iof.sh [BUILDDIR] [MIB] [RUNS]
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
mib=${2:-512}
runs=${3:-5}
run="$top/tools/spmix-run"
push="$top/tools/spmix-push"
for f in "$run" "$push"; do
    [ -x "$f" ] || { echo "run_iof.sh: $f is not built (make)" >&2; exit 1; }
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"
now() { date +%s.%N; }
rate() { awk -v m="$mib" -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", m * 1.048576 / (b - a) }'; }

# job_rdv: is the job's rendezvous file there? (the one naming no launcher:
# each node's server has one more, naming spmix-run; .new: being written)
job_rdv() {
    for f in "$work"/spmix.tool.*; do
        case ${f##*/spmix.tool.} in *[!0-9]*) continue ;; esac
        grep -q '^launcher ' "$f" 2>/dev/null || return 0
    done
    return 1
}

# push_run NODES RANKS: seconds to push MIB MiB (with EOF) until the job ended
push_run() {
    "$run" --stdin tool -n "$2" --nodes "$1" sh -c 'cat > /dev/null' &
    job=$!
    until job_rdv; do sleep 0.02; done
    t0=$(now)
    head -c "${mib}M" /dev/zero | "$push" --eof || echo "run_iof.sh: push failed" >&2
    wait "$job"
    t1=$(now)
    rate "$t0" "$t1"
}
# stdin_run: the same bytes through spmix-run's own stdin (1 rank)
stdin_run() {
    t0=$(now)
    head -c "${mib}M" /dev/zero | "$run" -n 1 sh -c 'cat > /dev/null'
    t1=$(now)
    rate "$t0" "$t1"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/push1"; : >"$work/stdin1"; : >"$work/push6"
i=0
while [ "$i" -lt "$runs" ]; do
    push_run 1 1 >>"$work/push1"; echo >>"$work/push1"
    stdin_run >>"$work/stdin1"; echo >>"$work/stdin1"
    push_run 3 6 >>"$work/push6"; echo >>"$work/push6"
    i=$((i + 1))
done
echo "runs (MB/s): push 1 rank: $(tr '\n' ' ' <"$work/push1")"
echo "             spmix-run stdin 1 rank: $(tr '\n' ' ' <"$work/stdin1")"
echo "             push WILDCARD 3x2: $(tr '\n' ' ' <"$work/push6")"
p1=$(grep . "$work/push1" | median); s1=$(grep . "$work/stdin1" | median)
p6=$(grep . "$work/push6" | median)
echo "| what | MB/s (median of $runs, $mib MiB) |"
echo "|---|---:|"
echo "| PMIx_IOF_push (spmix-push) to 1 rank | $p1 |"
echo "| spmix-run's own stdin to 1 rank | $s1 |"
echo "| push / stdin | $(awk -v a="$p1" -v b="$s1" 'BEGIN { printf "%.2f", a / b }') |"
echo "| PMIx_IOF_push to WILDCARD, 3 nodes x 2 ranks (each rank gets every byte) | $p6 |"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
