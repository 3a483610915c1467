#!/bin/sh
# run_tap.sh: what spmix-run --output-tap costs. One rank writes MIB MiB to its
# stdout (`head -c MIBM /dev/zero`); spmix-run's stdout is a pipe into
# `cat > /dev/null`. Without the tap the rank writes into that pipe itself;
# with it, the rank writes into a pipe the node daemon reads, writes on
# unchanged and hands to its server (PMIx_server_IOF_deliver; no tool pulls,
# so the server answers at once). RUNS runs each, alternating; prints MB/s per
# run and the median.
#   usage: test/bench/run_tap.sh [BUILDDIR] [MIB] [RUNS]
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
mib=${2:-1024}
runs=${3:-5}
run="$top/tools/spmix-run"
[ -x "$run" ] || { echo "run_tap.sh: $run is not built (make)" >&2; exit 1; }
now() { date +%s.%N; }
rate() { awk -v m="$mib" -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", m * 1.048576 / (b - a) }'; }

# one_run [spmix-run options]: MB/s of the rank's stdout through spmix-run
one_run() {
    t0=$(now)
    "$run" -n 1 "$@" sh -c "head -c ${mib}M /dev/zero" | cat >/dev/null
    t1=$(now)
    rate "$t0" "$t1"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

plain= tap=
i=0
while [ $i -lt "$runs" ]; do
    plain="$plain $(one_run)"
    tap="$tap $(one_run --output-tap)"
    i=$((i + 1))
done
echo "without the tap (MB/s):$plain   median $(echo "$plain" | median)"
echo "with --output-tap (MB/s):$tap   median $(echo "$tap" | median)"
