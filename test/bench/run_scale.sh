#!/bin/sh
# run_scale.sh: what a process pays against the size of the job.
#   usage: test/bench/run_scale.sh [BUILDDIR] [LAYOUT...]
# A LAYOUT is MxK: M simulated nodes with K ranks each (a bare M means Mx1).
# Default: 16x1 32x1 64x1 128x1 256x1. Each runs bench_init under
# spmix-run --nodes M -n M*K and prints one markdown row, per layout: the
# size of PMIx_Init's reply (the library's debug line "handshake reply: N
# bytes", median over the ranks), PMIx_Init's time, the resident memory
# PMIx_Init added to a client, a node server's resident memory before any
# data (after an empty fence) and after a collecting fence (medians), that fence (64 B per
# rank), a group construct over the job with a context id, and CPU time:
# a rank's (median) and a node server's (median), from their start to after
# the group. On a 2-core machine hundreds of simulated nodes share two cores:
# times measure the CPU, not the network (the CPU columns say what each
# process spent); the byte and memory columns are what a real node sees.
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
[ $# -gt 0 ] && shift
layouts=${*:-16x1 32x1 64x1 128x1 256x1}
run="$top/tools/spmix-run"
bench="$top/test/bench/bench_init"
for f in "$run" "$bench"; do
    [ -x "$f" ] || { echo "run_scale.sh: $f is not built (make)" >&2; exit 1; }
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }
max() { sort -n | tail -n 1; }
# field NAME of the bench lines (the value after the word NAME)
field() { awk -v k="$1" '/^bench_init:/ { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$work/out"; }
echo "| nodes x ranks | PMIx_Init reply (B) | PMIx_Init (ms, median / max) | client RSS added (KB, median) | server RSS before / after data (KB, median) | collecting fence (ms, median) | group construct + id (ms, median) | CPU ms: rank / node server (median) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for l in $layouts; do
    case $l in
        *x*) m=${l%x*} k=${l#*x} ;;
        *) m=$l k=1 ;;
    esac
    case $m$k in ''|*[!0-9]*) echo "run_scale.sh: bad layout $l (MxK)" >&2; exit 2 ;; esac
    n=$((m * k))
    if ! SPMIX_DEBUG=3 timeout 900 "$run" --nodes "$m" -n "$n" --timeout 890 "$bench" \
            >"$work/out" 2>"$work/err"; then
        echo "run_scale.sh: $l failed:" >&2
        grep -v "debug" "$work/err" | tail -5 >&2
        exit 1
    fi
    reply=$(sed -n 's/.*handshake reply: \([0-9]*\) bytes.*/\1/p' "$work/err" | med)
    got=$(field init_us | wc -l)
    [ "$got" = "$n" ] || { echo "run_scale.sh: $l: $got of $n ranks reported" >&2; exit 1; }
    # one server RSS / CPU per node: the ranks of a node all read the same server
    printf '| %s x %s | %s | %.2f / %.2f | %s | %s / %s | %.2f | %.2f | %s / %s |\n' "$m" "$k" "$reply" \
        "$(field init_us | med | awk '{ print $1 / 1000 }')" \
        "$(field init_us | max | awk '{ print $1 / 1000 }')" \
        "$(field rss_kb | med)" "$(field server_rss0_kb | med)" "$(field server_rss_kb | med)" \
        "$(field fence_us | med | awk '{ print $1 / 1000 }')" \
        "$(field group_us | med | awk '{ print $1 / 1000 }')" \
        "$(field cpu_ms | med)" "$(field server_cpu_ms | med)"
done
