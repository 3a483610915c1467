#!/bin/sh
# run_model.sh: the measured points of the cost model (doc/scale.md, "Cost
# model and projection"; fitted by test/bench/cost_model.py).
#   usage: test/bench/run_model.sh BUILDDIR OUTFILE [SPEC...]
# SPEC is NODESxRANKS_PER_NODE (default: 16x1 32x1 64x1 128x1 256x1 512x1
# 1024x1 16x8 32x4 64x4 128x2 256x2); each runs
#   spmix-run --nodes N -n N*R --width 16 test/bench/bench_model 3
# and appends one line "model nodes=N ppn=R key=value..." to OUTFILE with
# the medians over the nodes of: PMIx_Init's wall, client CPU and server
# CPU; the empty fence's wall and server CPU; the collecting fence's (64 B
# per rank) wall, client CPU and server CPU; the bytes the servers sent for
# it (median and maximum) and the payload each contributed; and the job's
# elapsed time with the machine's CPU time used meanwhile (/proc/stat).
# Then tree_harness (the real tree engine, in one process) at 1024, 4096 and
# 16384 nodes, width 16, 64 B per node: one "harness" line per collective;
# and bench_apply (a node reading a collecting fence's result of M ranks into
# its store) at M = 1000 .. 1280000 (10^4 nodes x 128), with RUN_MODEL_BIG=1
# also 4000000 and 12800000 (10^5 nodes x 128: 3.5 minutes and 7.5 GB of
# memory here), and with 8 KiB values at 10000 and 100000 ranks (the copy
# per byte): one "apply" line each. RUN_MODEL_EXTRAS=0 leaves the harness
# and bench_apply out (e.g. for an older build).
# On a 2-core machine every simulated node shares the two cores: the wall
# times there measure the CPU; the CPU times are what one node spends.
# A build tree without bench_model (an older commit) gets one compiled from
# this script's source tree against its library. The clients do not spin
# while they wait (SPMIX_FENCE_SPIN_NS=0): with one rank per node they would
# (a core each, on a real node), but here every core is shared.
set -u
export SPMIX_FENCE_SPIN_NS=0
top=${1:?usage: run_model.sh BUILDDIR OUTFILE [SPEC...]}
outf=${2:?usage: run_model.sh BUILDDIR OUTFILE [SPEC...]}
shift 2
specs=${*:-16x1 32x1 64x1 128x1 256x1 512x1 1024x1 16x8 32x4 64x4 128x2 256x2}
run="$top/tools/spmix-run"
bench="$top/test/bench/bench_model"
harness="$top/test/bench/tree_harness"
apply="$top/test/bench/bench_apply"
extras=${RUN_MODEL_EXTRAS:-1}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
if [ ! -x "$bench" ]; then
    src=$(cd "$(dirname "$0")/../.." && pwd)
    bench=$work/bench_model
    gcc -std=gnu11 -O2 -I"$src/include" "$src/test/bench/bench_model.c" -o "$bench" \
        -L"$top/.libs" -lpmix -Wl,-rpath,"$top/.libs" || exit 1
fi
for f in "$run" "$bench"; do
    [ -x "$f" ] || { echo "run_model.sh: $f is not built (make)" >&2; exit 1; }
done
if [ "$extras" != 0 ] && { [ ! -x "$harness" ] || [ ! -x "$apply" ]; }; then
    echo "run_model.sh: $harness or $apply is not built (make)" >&2
    exit 1
fi
echo "# run_model.sh $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$outf"
med() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "nan" }'; }
mx() { sort -g | tail -n 1; }
# busy: the machine's CPU time so far (all CPUs, user+system+irq, in seconds)
busy() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8) / hz }' /proc/stat; }
for spec in $specs; do
    n=${spec%x*}
    r=${spec#*x}
    np=$((n * r))
    b0=$(busy)
    t0=$(date +%s.%N)
    if ! timeout 900 "$run" --nodes "$n" -n "$np" --width 16 --timeout 890 "$bench" 3 \
            >"$work/out" 2>"$work/err"; then
        echo "run_model.sh: $spec failed:" >&2
        tail -n 5 "$work/err" >&2
        exit 1
    fi
    t1=$(date +%s.%N)
    b1=$(busy)
    got=$(grep -c '^bench_model:' "$work/out")
    [ "$got" = "$np" ] || { echo "run_model.sh: $spec: $got of $np ranks reported" >&2; exit 1; }
    col() { awk -v k="$1" '/^bench_model:/ { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$work/out"; }
    line="model nodes=$n ppn=$r"
    for k in init_us init_cpu_us init_srv_cpu_us barrier_us barrier_srv_cpu_us fence_us fence_cpu_us \
             fence_srv_cpu_us coll_payload; do
        line="$line $k=$(col $k | med)"
    done
    line="$line coll_bytes_sent=$(col coll_bytes_sent | med) coll_bytes_sent_max=$(col coll_bytes_sent | mx)"
    line="$line elapsed_s=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')"
    line="$line machine_cpu_s=$(echo "$b0 $b1" | awk '{ printf "%.2f", $2 - $1 }')"
    echo "$line" | tee -a "$outf"
done
[ "$extras" = 0 ] && exit 0
for n in 1024 4096 16384; do
    if ! "$harness" -n "$n" -w 16 -b 64 -r 3 -k barrier,fence -F >"$work/h" 2>&1; then
        echo "run_model.sh: tree_harness -n $n failed" >&2
        exit 1
    fi
    grep '^result ' "$work/h" | sed 's/^result /harness /' | tee -a "$outf"
done
big=""
[ "${RUN_MODEL_BIG:-0}" = 1 ] && big="4000000 12800000"
{ "$apply" 1000 10000 100000 1000000 1280000 $big && "$apply" -v 8192 10000 100000; } >"$work/a" ||
    { echo "run_model.sh: bench_apply failed" >&2; exit 1; }
awk '/^bench_apply:/ { printf "apply ranks=%s bytes=%s cpu_us=%s heap_per_rank=%s value=%s\n", $3, $5, $7, $13, $15 }' "$work/a" |
    tee -a "$outf"
