#!/bin/sh
# run_scale.sh: what a process pays against the size of the job.
#   usage: test/bench/run_scale.sh [BUILDDIR] [NODES...]
# Runs bench_init under spmix-run --nodes M -n M (one rank per node; default
# M = 16 32 64 128 254) and prints a markdown table of, per M: the size of
# PMIx_Init's reply (the library's debug line "handshake reply: N bytes",
# median over the ranks), PMIx_Init's time, the resident memory PMIx_Init
# added to a client, a node server's resident memory after a collecting
# fence (median and max over the nodes), and the collecting fence (64 B per
# rank). On a 2-core machine hundreds of simulated nodes share two cores:
# times measure the CPU, not the network; the byte and memory columns are
# what a real node would see.
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
[ $# -gt 0 ] && shift
nodes=${*:-16 32 64 128 254}
run="$top/tools/spmix-run"
bench="$top/test/bench/bench_init"
for f in "$run" "$bench"; do
    [ -x "$f" ] || { echo "run_scale.sh: $f is not built (make)" >&2; exit 1; }
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }
max() { sort -n | tail -n 1; }
echo "| nodes x ranks | PMIx_Init reply (B) | PMIx_Init (ms, median / max) | client RSS added (KB, median) | server RSS (KB, median / max) | collecting fence (ms, median) |"
echo "|---|---:|---:|---:|---:|---:|"
for m in $nodes; do
    if ! SPMIX_DEBUG=3 timeout 600 "$run" --nodes "$m" -n "$m" --timeout 590 "$bench" \
            >"$work/out" 2>"$work/err"; then
        echo "run_scale.sh: $m nodes failed:" >&2
        grep -v "debug" "$work/err" | tail -5 >&2
        exit 1
    fi
    reply=$(sed -n 's/.*handshake reply: \([0-9]*\) bytes.*/\1/p' "$work/err" | med)
    awk '/^bench_init:/ { print $5 }' "$work/out" >"$work/init"
    awk '/^bench_init:/ { print $7 }' "$work/out" >"$work/rss"
    awk '/^bench_init:/ { print $9 }' "$work/out" >"$work/srv"
    awk '/^bench_init:/ { print $11 }' "$work/out" >"$work/fence"
    n=$(wc -l <"$work/init")
    [ "$n" = "$m" ] || { echo "run_scale.sh: $m nodes: $n of $m ranks reported" >&2; exit 1; }
    printf '| %s x 1 | %s | %.2f / %.2f | %s | %s / %s | %.2f |\n' "$m" "$reply" \
        "$(med <"$work/init" | awk '{ print $1 / 1000 }')" \
        "$(max <"$work/init" | awk '{ print $1 / 1000 }')" \
        "$(med <"$work/rss")" "$(med <"$work/srv")" "$(max <"$work/srv")" \
        "$(med <"$work/fence" | awk '{ print $1 / 1000 }')"
done
