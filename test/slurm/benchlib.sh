# benchlib.sh - shared parts of the side-by-side benchmarks (bench_compare.sh,
# bench_scale32.sh); sourced by bash scripts.
#
#   spx_bench_programs OUT LIBDIR   builds into OUT: bench_ours (bench_pmix.c on
#                         our headers and LIBDIR's libpmix), bench_theirs (on
#                         Debian's OpenPMIx) and tcp_pingpong; 0 or 1
#   spx_bench_median FILE   median of the numbers in FILE, one a line (mean
#                         of the two middle ones for an even count); n/a if none
#   spx_bench_ratio A B     A/B with 2 decimals; n/a if either is n/a
#   spx_bench_sub A B       A-B with 2 decimals; n/a if either is n/a
#   spx_bench_rss_kb PID    VmRSS of PID in kB (empty if gone)
#   spx_bench_maps_kb PID ERE  the Rss (kB) of PID's mappings whose path
#                         matches ERE (0 if none)

SPX_BENCH_DEB_PMIX=/usr/lib/x86_64-linux-gnu/pmix2
SPX_BENCH_CFLAGS="-std=gnu11 -O2 -Wall -Wextra -Werror"

spx_bench_programs() {
    local out=$1 libdir=$2 here top
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    top=$(cd "$here/../.." && pwd)
    gcc $SPX_BENCH_CFLAGS -I"$top/include" "$here/bench_pmix.c" -o "$out/bench_ours" \
        -L"$libdir" -lpmix -Wl,-rpath,"$libdir" &&
    gcc $SPX_BENCH_CFLAGS -I"$SPX_BENCH_DEB_PMIX/include" "$here/bench_pmix.c" \
        -o "$out/bench_theirs" -L"$SPX_BENCH_DEB_PMIX/lib" -lpmix \
        -Wl,-rpath,"$SPX_BENCH_DEB_PMIX/lib" &&
    gcc $SPX_BENCH_CFLAGS "$top/test/bench/tcp_pingpong.c" -o "$out/tcp_pingpong"
}

spx_bench_median() {
    [ -s "$1" ] || { echo n/a; return; }
    sort -g "$1" | awk '{ a[NR] = $1 }
        END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

spx_bench_ratio() {
    if [ "$1" = n/a ] || [ "$2" = n/a ]; then echo n/a; return; fi
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}

spx_bench_sub() {
    if [ "$1" = n/a ] || [ "$2" = n/a ]; then echo n/a; return; fi
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'
}

spx_bench_rss_kb() {
    awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

spx_bench_maps_kb() {
    awk -v re="$2" '/^[0-9a-f]+-[0-9a-f]+ / { m = ($6 ~ re); next }
                    m && $1 == "Rss:" { s += $2 } END { print s + 0 }' "/proc/$1/smaps" 2>/dev/null
}
